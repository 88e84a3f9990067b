//! Margin sets on disk: the tuned files in `tuned/` and any margin set a user passes.
//!
//! A tuned file is JSON: `{"format": "marginal-margins/1", "margins": {name: value, ...},
//! "meta": {...}}`. A bare object of `name: value` pairs is accepted too. Names are those of
//! the parameter table (or its UCI names and aliases); missing parameters take their defaults.
//! Every value is range-checked, and an error names the file, the line and the value.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::write_atomic;
use crate::params::Margins;

/// The format tag written into tuned files.
pub const FORMAT: &str = "marginal-margins/1";

/// The format tag of the files `marginal tune` writes (a margin set with the figures and
/// provenance of the run that produced it); its margins are read like any margin set.
pub const TUNED_FORMAT: &str = "marginal-tuned/1";

/// The format tag of `marginal export --format json` (a margin set with the provenance of its
/// tuned file); its margins are read like any margin set, so an export is a `--margins` file.
pub const EXPORT_FORMAT: &str = "marginal-export/1";

/// Where `marginal tune` writes its set unless told otherwise: a file no clone ships, so a
/// tune never replaces a committed result.
pub const DEFAULT_TUNE_OUT: &str = "tuned/race.json";

/// What to do about a margin-set file that is not there: the default tune's output is made by
/// running it.
fn missing_hint(path: &Path, source: &std::io::Error) -> &'static str {
    if source.kind() != std::io::ErrorKind::NotFound {
        ""
    } else if path.ends_with(DEFAULT_TUNE_OUT) {
        " (`marginal tune` writes it, its default --out: run that first, or name one of the shipped sets in tuned/)"
    } else {
        " (`ls tuned/` lists the shipped tuned sets)"
    }
}

/// Why a margin set could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TunedError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}{}", missing_hint(path, source))]
    Unreadable {
        /// File path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid JSON.
    #[error("{path}:{line}:{column}: not valid JSON: {message}")]
    Json {
        /// File path.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's message.
        message: String,
    },
    /// The JSON is not a margin set.
    #[error("{path}:{line}: {message}")]
    Invalid {
        /// File path.
        path: PathBuf,
        /// 1-based line of the offending key (1 when unknown).
        line: usize,
        /// What is wrong, naming the key and value.
        message: String,
    },
}

/// The 1-based line on which `"key"` first appears in `text` (1 when absent).
pub(crate) fn line_of(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.lines()
        .position(|l| l.contains(&quoted))
        .map_or(1, |i| i + 1)
}

/// serde's message for a typed read of `text` in the file's own words: a value of the wrong
/// shape where a record (a Rust struct) belongs is named by its key, not by the Rust type
/// ("invalid length 0, expected struct SuiteSources with 4 elements" names no field), with the
/// way on. Other messages are serde's, without its position (the caller gives the line).
pub(crate) fn plain_message(text: &str, error: &serde_json::Error) -> String {
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

/// The text of a margin-set or tuned file: read whole, as UTF-8. Every reader of these files
/// (this module's margin sets, `tune::file`'s tuned files) goes through here and
/// [`document`], so they agree on what a readable file is.
///
/// # Errors
/// The file cannot be read, or is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, TunedError> {
    std::fs::read_to_string(path).map_err(|source| TunedError::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}

/// The JSON document of a margin-set or tuned file's `text`, and the text it was parsed from
/// (without a byte-order mark: some editors write one, and it says nothing).
///
/// # Errors
/// Not valid JSON: the error names the file, line and column.
pub fn document<'t>(path: &Path, text: &'t str) -> Result<(&'t str, Value), TunedError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(TunedError::Invalid {
            path: path.to_path_buf(),
            line: 1,
            message: "the file is empty (a run killed while writing it, or a file made elsewhere): not a tuned file".into(),
        });
    }
    let json_error = |e: serde_json::Error| TunedError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    // A key twice in one object (a row given two values) is refused, not read as its last.
    serde_json::from_str::<NoRepeatedKeys>(text).map_err(json_error)?;
    let value = serde_json::from_str(text).map_err(json_error)?;
    Ok((text, value))
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

/// Parses the text of a tuned file.
pub fn parse(path: &Path, text: &str) -> Result<Margins, TunedError> {
    let (text, value) = document(path, text)?;
    let invalid = |key: &str, message: String| TunedError::Invalid {
        path: path.to_path_buf(),
        line: line_of(text, key),
        message,
    };
    let Value::Object(top) = &value else {
        return Err(invalid("", "expected a JSON object".to_string()));
    };
    if let Some(format) = top.get("format")
        && format.as_str() != Some(FORMAT)
        && format.as_str() != Some(TUNED_FORMAT)
        && format.as_str() != Some(EXPORT_FORMAT)
    {
        return Err(invalid(
            "format",
            format!(
                "format {format} is not \"{FORMAT}\", \"{TUNED_FORMAT}\" or \"{EXPORT_FORMAT}\""
            ),
        ));
    }
    // A margin set of an external engine is its rows' values, not marginal's parameters.
    if let Some(engine) = top.get("engine").filter(|e| !e.is_null()) {
        let name = engine.get("name").and_then(Value::as_str).unwrap_or("?");
        let source = engine.get("source").and_then(Value::as_str).unwrap_or("?");
        return Err(invalid(
            "engine",
            format!(
                "a margin set of the external engine {name} ({source}), not of marginal's own: give it where that engine plays (--engine {source}, or --a-engine/--b-engine in match); bench and uci search with marginal's own engine only"
            ),
        ));
    }
    let map = match top.get("margins") {
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(invalid(
                "margins",
                format!("\"margins\" must be an object, not {other}"),
            ));
        }
        // A tuned file holds its set under "margins"; only a plain margin-set file is its
        // own top level.
        None if top.get("format").and_then(Value::as_str) == Some(TUNED_FORMAT)
            || top.contains_key("tuned") =>
        {
            return Err(invalid(
                "format",
                "a tuned file without its \"margins\" object (the set it tuned): the file is damaged; restore it, or tune again".into(),
            ));
        }
        None => top,
    };
    let names_something = map
        .keys()
        .any(|k| top.get("margins").is_some() || (k != "format" && k != "meta"));
    if !names_something {
        return Err(invalid(
            "margins",
            "no margin in it (an empty set would silently be the defaults): write \"name\": value pairs, or pass --margins default".into(),
        ));
    }
    // A tuned file names the rows it tuned: each must have its value here.
    if top.get("margins").is_some()
        && let Some(Value::Array(tuned)) = top.get("tuned")
    {
        for name in tuned.iter().filter_map(Value::as_str) {
            let row = Margins::find(name);
            if !map.keys().any(|k| Margins::find(k) == row) {
                return Err(invalid(
                    "margins",
                    format!("tuned parameter '{name}' has no value in \"margins\""),
                ));
            }
        }
    }
    let mut margins = Margins::default();
    for (key, v) in map {
        if top.get("margins").is_none() && (key == "format" || key == "meta") {
            continue;
        }
        let text_value = match v {
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            other => {
                return Err(invalid(
                    key,
                    format!("parameter '{key}': {other} is not a number or boolean"),
                ));
            }
        };
        margins
            .set(key, &text_value)
            .map_err(|e| invalid(key, e.to_string()))?;
    }
    Ok(margins)
}

/// Reads a tuned file.
pub fn read(path: &Path) -> Result<Margins, TunedError> {
    parse(path, &read_text(path)?)
}

/// Writes a tuned file with free-form metadata (what produced it, its scores).
pub fn write(path: &Path, margins: &Margins, meta: &impl Serialize) -> std::io::Result<()> {
    let doc = serde_json::json!({
        "format": FORMAT,
        "margins": margins,
        "meta": meta,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
    write_atomic(path, (text + "\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_through_a_file() {
        let dir = std::env::temp_dir().join(format!("marginal-tuned-{}", std::process::id()));
        let path = dir.join("x.json");
        let m = Margins::default()
            .with("futility_margin", 150)
            .with("lmr", false);
        write(&path, &m, &serde_json::json!({"by": "test"})).unwrap();
        assert_eq!(read(&path).unwrap(), m);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn bare_objects_aliases_and_defaults() {
        let m = parse(
            Path::new("a.json"),
            r#"{"frontier": 90, "NullMove": false}"#,
        )
        .unwrap();
        assert_eq!(m.futility_margin(), 90);
        assert!(!m.null_move());
        assert_eq!(m.delta_margin(), 200);
    }

    #[test]
    fn errors_name_file_line_and_value() {
        let text = "{\n  \"margins\": {\n    \"futility_margin\": 99999\n  }\n}\n";
        let e = parse(Path::new("t.json"), text).unwrap_err().to_string();
        assert!(e.starts_with("t.json:3:"), "{e}");
        assert!(e.contains("99999") && e.contains("futility_margin"), "{e}");
        let e = parse(Path::new("t.json"), "{\"margins\": {\"nope\": 1}}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown parameter 'nope'"), "{e}");
        let e = parse(Path::new("t.json"), "{\n\"margins\": [1,\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.json:") && e.contains("not valid JSON"),
            "{e}"
        );
        let e = parse(Path::new("t.json"), "{\"futility\": \"yes\"}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"yes\""), "{e}");
        let e = parse(Path::new("t.json"), "{\"format\": \"other/9\"}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("other/9"), "{e}");
    }

    #[test]
    fn a_json_export_is_a_margin_set() {
        let text = r#"{"format": "marginal-export/1", "source": {"file": "t.json"},
            "margins": {"futility_margin": 65, "delta_margin": 185}}"#;
        let m = parse(Path::new("e.json"), text).unwrap();
        assert_eq!((m.futility_margin(), m.delta_margin()), (65, 185));
        assert_eq!(m.razor_margin(), Margins::default().razor_margin());
    }
}
