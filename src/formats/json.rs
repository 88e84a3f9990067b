//! JSON documents as marginal's files hold them: a key given twice in one object refused
//! (serde_json keeps the last silently), the line of a key, and serde's messages in the
//! file's own words. Shared by every reader of a JSON file (margin sets and tuned files in
//! `tune::file`, calibration reports), so they agree on what a readable document is.

/// Refuses a document in which one object gives a key twice (a row given two values is
/// refused, not read as its last).
///
/// # Errors
/// Not valid JSON, or a key repeated: serde's error, with its line and column.
pub fn refuse_repeated_keys(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<NoRepeatedKeys>(text).map(|_| ())
}

/// The 1-based line on which `"key"` first appears in `text` (1 when absent).
pub fn line_of(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.lines()
        .position(|l| l.contains(&quoted))
        .map_or(1, |i| i + 1)
}

/// serde's message for a typed read of `text` in the file's own words: a value of the wrong
/// shape where a record (a Rust struct) belongs is named by its key, not by the Rust type
/// ("invalid length 0, expected struct SuiteSources with 4 elements" names no field), with the
/// way on. Other messages are serde's, without its position (the caller gives the line).
pub fn plain_message(text: &str, error: &serde_json::Error) -> String {
    let mut message = error.to_string();
    if let Some(at) = message.rfind(" at line ") {
        message.truncate(at);
    }
    let Some((found, _)) = message.split_once(", expected struct ") else {
        return message;
    };
    let found = found
        .strip_prefix("invalid type: ")
        .unwrap_or(found)
        .replace("invalid length 0", "an empty list")
        .replace("invalid length", "a list of length");
    let key = key_before(text, error.line(), error.column());
    let what = key.map_or("a value".to_string(), |k| format!("\"{k}\""));
    format!(
        "{what} is {found}, where the file has an object of named fields: it was edited or damaged; restore it (for example with `git checkout`) or make it again"
    )
}

/// The last `"key":` before `line`:`column` (1-based) of `text`: the key whose value a serde
/// error points into, on a pretty or a one-line document alike.
fn key_before(text: &str, line: usize, column: usize) -> Option<String> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut end = (start + column).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let colon = before.rfind("\":")?;
    let open = before[..colon].rfind('"')?;
    Some(before[open + 1..colon].to_string())
}

/// Any JSON document, read only to refuse a key that appears twice in one object (serde_json
/// keeps the last value silently).
struct NoRepeatedKeys;

impl<'de> serde::Deserialize<'de> for NoRepeatedKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Walk;
        impl<'de> serde::de::Visitor<'de> for Walk {
            type Value = NoRepeatedKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(serde::de::Error::custom(format!(
                            "\"{key}\" appears twice in one object: give it once"
                        )));
                    }
                    map.next_value::<NoRepeatedKeys>()?;
                }
                Ok(NoRepeatedKeys)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                while seq.next_element::<NoRepeatedKeys>()?.is_some() {}
                Ok(NoRepeatedKeys)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(NoRepeatedKeys)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(NoRepeatedKeys)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(NoRepeatedKeys)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(NoRepeatedKeys)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(NoRepeatedKeys)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(NoRepeatedKeys)
            }
        }
        d.deserialize_any(Walk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_in_one_object_is_refused_naming_it() {
        let e = refuse_repeated_keys("{\"a\": {\"x\": 1, \"x\": 2}}").unwrap_err();
        assert!(e.to_string().contains("\"x\" appears twice"), "{e}");
        refuse_repeated_keys("{\"a\": [{\"x\": 1}, {\"x\": 2}]}").unwrap();
    }

    #[test]
    fn a_key_is_found_on_its_line() {
        assert_eq!(line_of("{\n  \"a\": 1,\n  \"b\": 2\n}", "b"), 3);
        assert_eq!(line_of("{}", "absent"), 1);
    }

    #[test]
    fn a_record_where_a_list_is_named_by_its_key() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Inner {
            x: u32,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Outer {
            inner: Inner,
        }
        let text = "{\"inner\": []}";
        let e = serde_json::from_str::<Outer>(text).unwrap_err();
        let m = plain_message(text, &e);
        assert!(m.contains("\"inner\" is an empty list"), "{m}");
        assert!(!m.contains("struct"), "{m}");
    }
}
