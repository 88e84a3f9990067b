//! Engine files: how to run an external UCI engine and which of its options marginal tunes.
//!
//! A small TOML file:
//!
//! ```toml
//! name = "Toga II 3.0"
//! command = "/usr/games/toga2"      # a path (relative to this file) or a name on PATH
//! args = []
//! # dir = "."                       # working directory, relative to this file (the default)
//! # timeout_ms = 10000              # grace before a silent engine counts as hung
//! # fresh = true                    # a new process for every position and game
//! # deterministic = false           # its searches do not repeat exactly: check by statistics
//! # name, uci option, default, min, max, step (c_end), r_end, off value
//! params = [
//!   "futility_margin, Futility Margin, 100, 0, 500, 10, 0.002, 500",
//! ]
//!
//! [options]                         # sent to every process, before the tuned ones
//! Hash = 16
//! OwnBook = false
//!
//! [reference_options]               # sent to the reference run only (on top of the rows' off values)
//! "Futility Pruning" = false
//! ```
//!
//! (In TOML, keys after a `[table]` header belong to that table: `params` comes first.)
//!
//! Every error names the file and, where there is one, the line.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Fnv, excerpt};
use crate::params::{ParamKind, Row};

/// The grace (milliseconds) added to a move's expected time before a silent engine is declared
/// hung, unless the file says otherwise.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// A parsed engine file.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineFile {
    /// The file, as given (for messages and provenance).
    pub path: String,
    /// The engine's name (PGN tags, reports); the file's stem when not given.
    pub name: String,
    /// The program: resolved against the file's directory when it is a relative path with a
    /// `/`, else looked up on `PATH`.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory (resolved against the file's directory; the file's directory
    /// when not given).
    pub dir: Option<PathBuf>,
    /// Options set on every process, in file order.
    pub options: Vec<(String, String)>,
    /// Options set on the reference run's processes only.
    pub reference_options: Vec<(String, String)>,
    /// The tunable rows.
    pub rows: Vec<Row>,
    /// Grace before a silent engine counts as hung, milliseconds.
    pub timeout_ms: u64,
    /// Start a new process for every position and game: for engines whose `ucinewgame` keeps
    /// some state (history tables), so results do not depend on what the process searched
    /// before.
    pub fresh: bool,
    /// Whether its searches at a fixed depth or node count repeat exactly (default true):
    /// `check` then expects identical figures, else it judges by the statistics.
    pub deterministic: bool,
    /// Digest of what the file says: its keys and values, whatever its comments, spacing and
    /// key order (the engine's signature: provenance, caches, calibrations).
    pub digest: u64,
    /// Digest of the file's text as written: what marginal recorded as the signature before
    /// signatures left comments out, so that reports and checkpoints recorded then still name
    /// this engine while its text is unchanged.
    pub text_digest: u64,
}

/// Why an engine file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}{}: {message}", line.map_or(String::new(), |l| format!(":{l}")))]
pub struct EngineFileError {
    /// The file.
    pub path: String,
    /// The line, when the problem has one.
    pub line: Option<usize>,
    /// What is wrong, quoting the value.
    pub message: String,
}

/// An options table, each value with its place in the file (for file order and lines).
type SpannedTable = std::collections::BTreeMap<String, toml::Spanned<toml::Value>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: Option<String>,
    command: toml::Spanned<String>,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<String>,
    timeout_ms: Option<u64>,
    #[serde(default)]
    fresh: bool,
    deterministic: Option<bool>,
    #[serde(default)]
    options: SpannedTable,
    #[serde(default)]
    reference_options: SpannedTable,
    #[serde(default)]
    params: Vec<toml::Spanned<String>>,
}

/// The most `timeout_ms` may be: a day (a longer wait would overflow the clock's deadline
/// arithmetic, and no search needs more grace than that).
pub const MAX_TIMEOUT_MS: u64 = 86_400_000;

/// What each typed key of an engine file takes, as its messages say it.
const EXPECTED: [(&str, &str); 10] = [
    (
        "name",
        "a string, the engine's name, e.g. name = \"Toga II 3.0\"",
    ),
    (
        "command",
        "a string, the engine's program, e.g. command = \"/usr/games/toga2\"",
    ),
    ("args", "a list of strings, e.g. args = [\"uci\"]"),
    (
        "dir",
        "a string, the engine's working directory, e.g. dir = \".\"",
    ),
    (
        "timeout_ms",
        "a whole number of milliseconds, at least 1 and at most 86400000 (default 10000)",
    ),
    ("fresh", "true or false"),
    ("deterministic", "true or false"),
    (
        "params",
        "a list of rows, each a string \"name, uci option, default, min, max, step, r_end, off\"",
    ),
    (
        "options",
        "a table of UCI options: a line [options], then Name = value lines",
    ),
    (
        "reference_options",
        "a table of UCI options: a line [reference_options], then Name = value lines",
    ),
];

/// A value in one line, tables' keys sorted and quoted: `-5`, `"yes"`, `[1, 2]`, `{ "a" = 1 }`.
fn one_line(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => format!("{f:?}"),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(a) => {
            format!(
                "[{}]",
                a.iter().map(one_line).collect::<Vec<_>>().join(", ")
            )
        }
        toml::Value::Table(t) => {
            let entries: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{k:?} = {}", one_line(v)))
                .collect();
            format!("{{ {} }}", entries.join(", "))
        }
    }
}

/// A value as the file writes it, for messages: `-5`, `"yes"`, `[1, 2]`.
fn as_written(value: &toml::Value) -> String {
    excerpt(&one_line(value))
}

/// The digest of what a parsed file says (its keys sorted, its values), so that its comments,
/// spacing and the order of its keys do not change the engine's signature.
fn content_digest(text: &str) -> u64 {
    let mut digest = Fnv::new();
    let content = toml::from_str::<toml::Table>(text).map(toml::Value::Table);
    // The text parsed already (as the engine file's fields), so the fallback is never taken.
    digest.write(
        content
            .map_or_else(|_| text.to_string(), |v| one_line(&v))
            .as_bytes(),
    );
    digest.finish()
}

/// Checks the type of every known key (unknown keys are left to the parser, which names them),
/// so a wrong one is said with the key, the value and what it takes rather than in serde's
/// terms: `timeout_ms = -5: expected a whole number of milliseconds, at least 1 ...`.
/// Returns the line and the message of the first wrong one.
fn check_types(text: &str) -> Result<(), (Option<usize>, String)> {
    type Top = std::collections::BTreeMap<String, toml::Spanned<toml::Value>>;
    // Syntax errors are the parser's to report (with their line).
    let Ok(top) = toml::from_str::<Top>(text) else {
        return Ok(());
    };
    fn strings(v: &toml::Value) -> Option<Option<(usize, &toml::Value)>> {
        v.as_array()
            .map(|a| a.iter().position(|x| !x.is_str()).map(|i| (i, &a[i])))
    }
    for (key, expected) in EXPECTED {
        let Some(spanned) = top.get(key) else {
            continue;
        };
        let value = spanned.get_ref();
        let line = Some(line_of(text, spanned.span().start));
        let wrong = match key {
            "name" | "command" | "dir" => !value.is_str(),
            "timeout_ms" => value
                .as_integer()
                .is_none_or(|ms| !(0..=MAX_TIMEOUT_MS as i64).contains(&ms)),
            "fresh" | "deterministic" => !value.is_bool(),
            "options" | "reference_options" => !value.is_table(),
            // Lists: the list itself, then the first element that is not a string.
            _ => match strings(value) {
                None => true,
                Some(None) => false,
                Some(Some((i, element))) => {
                    return Err((
                        line,
                        format!(
                            "{key}: element {} is {}: expected {expected}",
                            i + 1,
                            as_written(element)
                        ),
                    ));
                }
            },
        };
        if wrong {
            return Err((
                line,
                format!("{key} = {}: expected {expected}", as_written(value)),
            ));
        }
    }
    Ok(())
}

/// The line of the option `name` of the table `[table]` (`options`, `reference_options`) in
/// the engine file at `path`, read again: for a message about its value found wrong only once
/// the engine has declared its options. `None` when the file or the option cannot be found.
pub fn option_line(path: &Path, table: &str, name: &str) -> Option<usize> {
    #[derive(Deserialize)]
    struct Tables {
        #[serde(default)]
        options: SpannedTable,
        #[serde(default)]
        reference_options: SpannedTable,
    }
    let text = std::fs::read_to_string(path).ok()?;
    let tables: Tables = toml::from_str(&text).ok()?;
    let table = match table {
        "options" => &tables.options,
        "reference_options" => &tables.reference_options,
        _ => return None,
    };
    let value = table.get(name)?;
    Some(line_of(&text, value.span().start))
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// An option's value as UCI `setoption` writes it.
fn option_value(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        _ => None,
    }
}

/// Parses one tunable row: `name, uci option, default, min, max, step, r_end, off`.
///
/// # Errors
/// A message quoting the bad field.
pub fn parse_row(text: &str) -> Result<Row, String> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if fields.len() != 8 {
        return Err(format!(
            "row '{}' has {} fields; it needs 8: name, uci option, default, min, max, step, r_end, off",
            excerpt(text),
            fields.len()
        ));
    }
    let int = |i: usize, what: &str| -> Result<i32, String> {
        fields[i].parse::<i32>().map_err(|_| {
            format!(
                "row '{}': {what} '{}' is not an integer",
                fields[0],
                excerpt(fields[i])
            )
        })
    };
    let name = fields[0];
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || name.starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(format!(
            "row name '{}' must be letters, digits and _ (it names exported constants)",
            excerpt(name)
        ));
    }
    if fields[1].is_empty() {
        return Err(format!("row '{name}': the uci option is empty"));
    }
    let (default, min, max, step, off) = (
        int(2, "default")?,
        int(3, "min")?,
        int(4, "max")?,
        int(5, "step")?,
        int(7, "off")?,
    );
    let r_end: f64 = fields[6]
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r > 0.0)
        .ok_or_else(|| {
            format!(
                "row '{name}': r_end '{}' is not a positive number",
                excerpt(fields[6])
            )
        })?;
    if min > max {
        return Err(format!("row '{name}': min {min} is above max {max}"));
    }
    for (what, v) in [("default", default), ("off", off)] {
        if v < min || v > max {
            return Err(format!(
                "row '{name}': {what} {v} is outside [{min}, {max}]"
            ));
        }
    }
    if step <= 0 {
        return Err(format!("row '{name}': step {step} must be positive"));
    }
    Ok(Row {
        name: name.to_string(),
        uci_name: fields[1].to_string(),
        kind: ParamKind::Spin,
        default,
        min,
        max,
        step,
        r_end,
        off,
    })
}

/// An engine file's text and its path as shown, for errors.
struct FileText<'a> {
    shown: String,
    text: &'a str,
}

impl FileText<'_> {
    /// An error of the file, at `line` when known.
    fn fail(&self, line: Option<usize>, message: String) -> EngineFileError {
        EngineFileError {
            path: self.shown.clone(),
            line,
            message,
        }
    }

    /// The options of the table `[key]` in file order (setting one option can change
    /// another's meaning, e.g. threads and hash); a value that is not a scalar is refused with
    /// its line.
    fn table(&self, t: &SpannedTable, key: &str) -> Result<Vec<(String, String)>, EngineFileError> {
        let mut entries: Vec<(&String, &toml::Spanned<toml::Value>)> = t.iter().collect();
        entries.sort_by_key(|(_, v)| v.span().start);
        entries
            .into_iter()
            .map(|(k, v)| {
                option_value(v.get_ref())
                    .map(|value| (k.clone(), value))
                    .ok_or_else(|| {
                        let hint = if k == "params" {
                            " (params belongs before the first [table] header)"
                        } else {
                            ""
                        };
                        self.fail(
                            Some(line_of(self.text, v.span().start)),
                            format!(
                                "[{key}] {k} = {}: expected a string, number or boolean{hint}",
                                as_written(v.get_ref())
                            ),
                        )
                    })
            })
            .collect()
    }

    /// The rows of `params`, each refused with its line when bad or repeating another.
    fn rows(&self, params: &[toml::Spanned<String>]) -> Result<Vec<Row>, EngineFileError> {
        let mut rows: Vec<Row> = Vec::new();
        for spanned in params {
            let line = Some(line_of(self.text, spanned.span().start));
            let row = parse_row(spanned.get_ref()).map_err(|m| self.fail(line, m))?;
            if let Some(twin) = rows
                .iter()
                .find(|r| r.answers_to(&row.name) || r.answers_to(&row.uci_name))
            {
                return Err(self.fail(
                    line,
                    format!("row '{}' repeats row '{}'", row.name, twin.name),
                ));
            }
            rows.push(row);
        }
        Ok(rows)
    }
}

impl EngineFile {
    /// Parses the text of an engine file read from `path`.
    ///
    /// # Errors
    /// TOML syntax, unknown keys, a bad row, repeated names, a non-scalar option.
    pub fn parse(path: &Path, text: &str) -> Result<EngineFile, EngineFileError> {
        let file = FileText {
            shown: path.display().to_string(),
            text,
        };
        check_types(text).map_err(|(line, message)| file.fail(line, message))?;
        let raw: Raw = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            file.fail(line, e.message().trim().to_string())
        })?;
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let command_text = raw.command.get_ref().trim();
        if command_text.is_empty() {
            return Err(file.fail(
                Some(line_of(text, raw.command.span().start)),
                "command is empty".into(),
            ));
        }
        // A path is made absolute here, once: the engine starts in its working directory, where
        // a relative path would be looked up again (`../e.toml` naming `./e.sh` would start
        // `.././e.sh` from `..`).
        let command = if command_text.contains('/') {
            let p = base.join(command_text);
            std::path::absolute(&p).unwrap_or(p)
        } else {
            PathBuf::from(command_text)
        };
        if raw.timeout_ms == Some(0) {
            let at = text.find("timeout_ms").unwrap_or(0);
            return Err(file.fail(
                Some(line_of(text, at)),
                format!(
                    "timeout_ms 0: an engine would count as hung before it could answer; give the milliseconds of silence to allow (default {DEFAULT_TIMEOUT_MS})"
                ),
            ));
        }
        let rows = file.rows(&raw.params)?;
        let name = raw
            .name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                path.file_stem()
                    .map_or("engine".into(), |s| s.to_string_lossy().into_owned())
            });
        let mut text_digest = Fnv::new();
        text_digest.write(text.as_bytes());
        Ok(EngineFile {
            path: file.shown.clone(),
            name,
            command,
            args: raw.args,
            // Started beside its file unless told otherwise, as its relative command is found
            // there: `args = ["engine.py"]` names the script beside the file.
            dir: Some(base.join(raw.dir.as_deref().unwrap_or("."))),
            options: file.table(&raw.options, "options")?,
            reference_options: file.table(&raw.reference_options, "reference_options")?,
            rows,
            timeout_ms: raw.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
            fresh: raw.fresh,
            deterministic: raw.deterministic.unwrap_or(true),
            digest: content_digest(text),
            text_digest: text_digest.finish(),
        })
    }

    /// Reads and parses an engine file.
    ///
    /// # Errors
    /// An unreadable file, or any error of [`EngineFile::parse`].
    pub fn read(path: &Path) -> Result<EngineFile, EngineFileError> {
        let text = std::fs::read(path).map_err(|e| EngineFileError {
            path: path.display().to_string(),
            line: None,
            message: format!("cannot read engine file: {e}"),
        })?;
        // A program given where its description goes (`--engine /usr/games/toga2`).
        let program = text.starts_with(b"\x7fELF") || text.starts_with(b"#!");
        let text = String::from_utf8(text).map_err(|e| EngineFileError {
            path: path.display().to_string(),
            line: None,
            message: if program {
                format!(
                    "a program, not an engine file (TOML text): give a program with --engine-cmd {} --engine-options NAMES, or write an engine file for it (docs/external-engines.md)",
                    path.display()
                )
            } else {
                format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to())
            },
        })?;
        if program {
            return Err(EngineFileError {
                path: path.display().to_string(),
                line: None,
                message: format!(
                    "a script, not an engine file (TOML text): give a program with --engine-cmd {} --engine-options NAMES, or write an engine file for it (docs/external-engines.md)",
                    path.display()
                ),
            });
        }
        EngineFile::parse(path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOGA: &str = r#"
name = "Toga II 3.0"
command = "/usr/games/toga2"
# name, uci option, default, min, max, step, r_end, off
params = [
  "futility_margin, Futility Margin, 100, 0, 500, 10, 0.002, 500",
  "delta_margin, Delta Margin, 50, 0, 500, 10, 0.002, 500",
]
[options]
Hash = 16
OwnBook = false
[reference_options]
"Futility Pruning" = false
"#;

    #[test]
    fn a_file_reads_into_rows_and_options() {
        let f = EngineFile::parse(Path::new("e/toga.toml"), TOGA).unwrap();
        assert_eq!(f.name, "Toga II 3.0");
        assert_eq!(f.command, PathBuf::from("/usr/games/toga2"));
        // In file order, not sorted.
        assert_eq!(
            f.options,
            [
                ("Hash".to_string(), "16".to_string()),
                ("OwnBook".to_string(), "false".to_string())
            ]
        );
        let reordered = TOGA.replace("Hash = 16\nOwnBook = false", "OwnBook = false\nHash = 16");
        let f2 = EngineFile::parse(Path::new("e/toga.toml"), &reordered).unwrap();
        assert_eq!(f2.options[0].0, "OwnBook");
        assert_eq!(
            f.reference_options,
            [("Futility Pruning".into(), "false".into())]
        );
        assert_eq!(f.rows.len(), 2);
        assert_eq!(f.rows[0].uci_name, "Futility Margin");
        assert_eq!(
            (f.rows[0].default, f.rows[0].off, f.rows[0].step),
            (100, 500, 10)
        );
        assert_eq!(f.timeout_ms, DEFAULT_TIMEOUT_MS);
        let rel = EngineFile::parse(Path::new("e/x.toml"), "command = \"bin/eng\"").unwrap();
        assert!(rel.command.is_absolute(), "{}", rel.command.display());
        assert!(
            rel.command.ends_with("e/bin/eng"),
            "{}",
            rel.command.display()
        );
        assert_eq!(rel.name, "x");
    }

    #[test]
    fn an_engine_files_digest_is_what_it_says_not_how_it_is_written() {
        let parse = |text: &str| EngineFile::parse(Path::new("e/toga.toml"), text).unwrap();
        let f = parse(TOGA);
        // Comments, spacing and the order of keys are not the engine.
        let rewritten = TOGA
            .replace(
                "[options]",
                "# Why these options.\n[options]  # its options",
            )
            .replace("Hash = 16\nOwnBook = false", "OwnBook=false\nHash   =   16");
        let g = parse(&rewritten);
        assert_eq!(g.digest, f.digest);
        assert_ne!(g.text_digest, f.text_digest);
        // Any value is.
        for changed in [
            TOGA.replace("Hash = 16", "Hash = 32"),
            TOGA.replace(
                "0, 500, 10, 0.002, 500\",\n  \"delta",
                "0, 500, 10, 0.002, 400\",\n  \"delta",
            ),
            TOGA.replace(
                "\"Futility Pruning\" = false",
                "\"Futility Pruning\" = true",
            ),
            TOGA.replace("[options]", "fresh = true\n[options]"),
        ] {
            let h = parse(&changed);
            assert_ne!(h.digest, f.digest, "{changed}");
        }
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_value() {
        let cases = [
            (
                TOGA.replace(
                    "0, 500, 10, 0.002, 500\",\n  \"delta",
                    "0, 500, ten, 0.002, 500\",\n  \"delta",
                ),
                ":6: row 'futility_margin': step 'ten' is not an integer",
            ),
            (
                TOGA.replace("100, 0, 500", "900, 0, 500"),
                ":6: row 'futility_margin': default 900 is outside [0, 500]",
            ),
            (
                TOGA.replace(
                    "delta_margin, Delta Margin",
                    "futility_margin, Delta Margin",
                ),
                ":7: row 'futility_margin' repeats",
            ),
            (
                TOGA.replace(", 500\",\n  \"delta", "\",\n  \"delta"),
                ":6: row 'futility_margin, Futility Margin, 100, 0, 500, 10, 0.002' has 7 fields",
            ),
            (TOGA.replace("command", "comand"), "unknown field `comand`"),
            (
                "command = \"x\"\n\ntimeout_ms = 0\n".to_string(),
                ":3: timeout_ms 0: an engine would count as hung",
            ),
            (
                "command = \"x\"\nparams = [1]".to_string(),
                ":2: params: element 1 is 1: expected a list of rows",
            ),
            (
                "command = \"x\"\n\ntimeout_ms = -5\n".to_string(),
                ":3: timeout_ms = -5: expected a whole number of milliseconds, at least 1",
            ),
            (
                "command = \"x\"\nfresh = \"yes\"\n".to_string(),
                ":2: fresh = \"yes\": expected true or false",
            ),
            (
                TOGA.replace("Hash = 16", "Hash = [16]"),
                ":10: [options] Hash = [16]: expected a string, number or boolean",
            ),
            (
                "command = \"x\"\n[options]\nHash = 1\nparams = [\"a, A, 1, 0, 5, 1, 0.002, 1\"]\n"
                    .to_string(),
                ":4: [options] params = [\"a, A, 1, 0, 5, 1, 0.002, 1\"]: expected a string, number or boolean (params belongs before",
            ),
        ];
        for (text, want) in cases {
            let e = EngineFile::parse(Path::new("toga.toml"), &text).unwrap_err();
            let shown = e.to_string();
            assert!(shown.starts_with("toga.toml"), "{shown}");
            assert!(shown.contains(want), "{shown} lacks {want}");
        }
    }
}
