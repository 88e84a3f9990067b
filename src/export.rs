//! Exports of a tuned file, the last stage of the data flow: the tuned margins written for an
//! engine's source (a Rust module, a C header), for data files (JSON, TOML), for a running
//! engine (UCI `setoption` lines), and as the SPSA input of OpenBench and fishtest, so the tuned
//! set can seed the next tuning run there.
//!
//! Everything comes from the engine's rows (marginal's parameter table [`PARAMS`], or an
//! external engine's rows as its tuned file records them: names, UCI names, docs, defaults,
//! ranges, SPSA schedule) and the tuned file ([`TunedFile`]: values, the bounds and schedule
//! each row was tuned with, provenance). [`render`] is pure: it takes the export date as text
//! and returns the whole output.
//!
//! Every format that has comments (Rust, C, TOML) opens with the source file, the tuned file's
//! provenance and the export date; JSON carries the same in a `"source"` object. UCI, OpenBench
//! and fishtest inputs have no comment syntax their readers accept (an engine answers a `#` line
//! as an unknown command; the frameworks parse every line of their SPSA input as a parameter), so
//! those three are the bare lines only.

use std::fmt::Write as _;

use crate::params::{PARAMS, ParamKind};
use crate::tune::file::TunedFile;

pub use crate::tune::file::EXPORT_FORMAT;

/// The C include guard's stem when the output has no file name (standard output).
pub const DEFAULT_GUARD_STEM: &str = "MARGINAL_TUNED";

/// What an export is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A JSON object: format tag, `"source"` (provenance and date) and `"margins"`.
    Json,
    /// TOML: a comment header, `format`, a `[source]` table and a `[margins]` table.
    Toml,
    /// A Rust module of documented `pub const`s (`i32`, `bool` for checks), opening with `//!`
    /// module docs: use it with `mod`, not `include!` (which refuses inner doc comments).
    Rust,
    /// A C header with an include guard: `static const int`s or `#define`s ([`CStyle`]).
    C,
    /// `setoption name <UciName> value <v>` lines, one per row, for any UCI engine.
    Uci,
    /// OpenBench's SPSA input: `name, int, value, min, max, c_end, r_end` per row.
    Openbench,
    /// fishtest's SPSA input: `name,value,min,max,c_end,r_end` per row.
    Fishtest,
}

impl ExportFormat {
    /// Every format, in the order the help lists them.
    pub const ALL: [ExportFormat; 7] = [
        ExportFormat::Json,
        ExportFormat::Toml,
        ExportFormat::Rust,
        ExportFormat::C,
        ExportFormat::Uci,
        ExportFormat::Openbench,
        ExportFormat::Fishtest,
    ];

    /// The name on the command line (`json`, `toml`, `rust`, `c`, `uci`, `openbench`,
    /// `fishtest`).
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Toml => "toml",
            ExportFormat::Rust => "rust",
            ExportFormat::C => "c",
            ExportFormat::Uci => "uci",
            ExportFormat::Openbench => "openbench",
            ExportFormat::Fishtest => "fishtest",
        }
    }

    /// The format of a command-line name (exact, lower case).
    pub fn from_name(name: &str) -> Option<ExportFormat> {
        ExportFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// One line for the command's help.
    pub fn summary(self) -> &'static str {
        match self {
            ExportFormat::Json => "JSON: {format, source, margins}",
            ExportFormat::Toml => "TOML: comment header, [source], [margins]",
            ExportFormat::Rust => "a Rust module of documented pub consts",
            ExportFormat::C => "a C header with an include guard",
            ExportFormat::Uci => "setoption lines for a UCI engine",
            ExportFormat::Openbench => {
                "OpenBench SPSA input: name, int, value, min, max, c_end, r_end"
            }
            ExportFormat::Fishtest => "fishtest SPSA input: name,value,min,max,c_end,r_end",
        }
    }

    /// Whether the format can write every row of the margin set (`--all`), not only the tuned
    /// ones. The SPSA inputs describe tuned rows (bounds and a schedule), and UCI lines set what
    /// the tuning changed.
    pub fn takes_all_rows(self) -> bool {
        matches!(
            self,
            ExportFormat::Json | ExportFormat::Toml | ExportFormat::Rust | ExportFormat::C
        )
    }

    /// Whether the format writes constant names, which take a prefix (Rust, C).
    pub fn takes_prefix(self) -> bool {
        matches!(self, ExportFormat::Rust | ExportFormat::C)
    }
}

/// How the C header declares each value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CStyle {
    /// `static const int NAME = v;`: typed and scoped, seen by a debugger, as Ethereal writes its
    /// margins. GCC and Clang do not warn about unused `static const` variables of a header
    /// under `-Wall -Wextra`.
    #[default]
    Const,
    /// `#define NAME v`: an integer constant expression, for `#if`, `case` labels and array
    /// sizes.
    Define,
}

impl CStyle {
    /// Both styles.
    pub const ALL: [CStyle; 2] = [CStyle::Const, CStyle::Define];

    /// The name on the command line (`const`, `define`).
    pub fn name(self) -> &'static str {
        match self {
            CStyle::Const => "const",
            CStyle::Define => "define",
        }
    }

    /// The style of a command-line name.
    pub fn from_name(name: &str) -> Option<CStyle> {
        CStyle::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Everything an export needs besides the tuned file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportOptions<'a> {
    /// The output format.
    pub format: ExportFormat,
    /// The tuned file's path as the user gave it, for the header.
    pub source: &'a str,
    /// The export date, `YYYY-MM-DD` (see [`date_of_epoch`]).
    pub date: &'a str,
    /// Prefix of the Rust and C constant names; empty or a valid identifier prefix
    /// (`[A-Za-z_][A-Za-z0-9_]*`, see [`check_prefix`]). It is upper-cased like the names.
    pub prefix: &'a str,
    /// Every row of the margin set instead of the tuned rows (JSON, TOML, Rust, C only).
    pub all: bool,
    /// How the C header declares values (C only).
    pub c_style: CStyle,
    /// The output file's name without extension, for the C include guard; `None` gives
    /// [`DEFAULT_GUARD_STEM`].
    pub guard_stem: Option<&'a str>,
}

/// Why an export cannot be written as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The prefix cannot start an identifier.
    #[error(
        "'{0}' is not an identifier prefix: it must be empty or a letter or '_' followed by letters, digits and '_'"
    )]
    BadPrefix(String),
    /// A prefix for a format without constant names.
    #[error("a prefix names constants: only with rust or c, not {0}")]
    PrefixUnsupported(&'static str),
    /// Every row asked of a format that writes tuned rows only.
    #[error("every row: only with json, toml, rust or c; {0} writes the tuned rows only")]
    AllUnsupported(&'static str),
    /// A `SOURCE_DATE_EPOCH`-style value that is not a Unix time.
    #[error("'{0}' is not a Unix time (whole seconds since 1970-01-01, at most 253402207200)")]
    BadEpoch(String),
}

/// Checks a constant-name prefix: empty, or `[A-Za-z_][A-Za-z0-9_]*`.
///
/// # Errors
/// [`ExportError::BadPrefix`] naming the prefix.
pub fn check_prefix(prefix: &str) -> Result<(), ExportError> {
    let mut chars = prefix.chars();
    let ok = match chars.next() {
        None => true,
        Some(first) => {
            (first.is_ascii_alphabetic() || first == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
    };
    if ok {
        Ok(())
    } else {
        Err(ExportError::BadPrefix(prefix.to_string()))
    }
}

/// The UTC date (`YYYY-MM-DD`) of a Unix time given as text, as in the reproducible-builds
/// variable `SOURCE_DATE_EPOCH`: whole seconds since 1970-01-01 UTC, digits only.
///
/// # Errors
/// [`ExportError::BadEpoch`] naming the text: empty, a sign, a fraction, or past year 9999.
pub fn date_of_epoch(text: &str) -> Result<String, ExportError> {
    let bad = || ExportError::BadEpoch(text.to_string());
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let seconds: i64 = text.parse().map_err(|_| bad())?;
    let time = jiff::Timestamp::from_second(seconds).map_err(|_| bad())?;
    Ok(time.strftime("%Y-%m-%d").to_string())
}

/// One exported row: a parameter with its value, and the bounds and SPSA schedule ends it was
/// tuned with.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The engine's row: the built-in parameter table's, or the engine file's.
    pub spec: crate::params::Row,
    /// What it does: the parameter table's line, or for an external engine its UCI option.
    pub doc: String,
    /// The tuned file's value (0 or 1 for a check).
    pub value: i32,
    /// Whether the tuner moved this row (it is in the file's `tuned` list).
    pub tuned: bool,
    /// Smallest value the row was tuned within: the file's schedule, else the table's minimum.
    pub lower: i32,
    /// Largest value the row was tuned within: the file's schedule, else the table's maximum.
    pub upper: i32,
    /// SPSA's final perturbation (OpenBench's and fishtest's `c_end`), in the parameter's
    /// units: the file's schedule, else the table's step.
    pub c_end: f64,
    /// SPSA's final learning rate (`r_end`): the file's schedule, else the table's.
    pub r_end: f64,
}

/// The rows an export writes, in table order: the tuned rows (each once, whichever name the
/// file used), or with `all` every row of the margin set.
pub fn rows(file: &TunedFile, all: bool) -> Vec<Row> {
    let def = file.def();
    let setting = file.setting();
    let tuned: Vec<usize> = file
        .tuned
        .iter()
        .filter_map(|name| def.find(name))
        .collect();
    def.rows
        .iter()
        .enumerate()
        .filter(|(index, _)| all || tuned.contains(index))
        .map(|(index, spec)| {
            let schedule = file
                .provenance
                .schedule
                .iter()
                .find(|row| def.find(&row.name) == Some(index));
            let doc = if def.is_builtin() {
                PARAMS[index].doc.to_string()
            } else {
                format!("{}'s UCI option \"{}\".", def.name, spec.uci_name)
            };
            Row {
                spec: spec.clone(),
                doc,
                value: setting.values()[index],
                tuned: tuned.contains(&index),
                lower: schedule.map_or(spec.min, |s| s.lower),
                upper: schedule.map_or(spec.max, |s| s.upper),
                c_end: schedule.map_or(f64::from(spec.step), |s| s.c_end),
                r_end: schedule.map_or(spec.r_end, |s| s.r_end),
            }
        })
        .collect()
}

/// Renders the export of `file`.
///
/// # Errors
/// A bad prefix, a prefix for a format without constants, or `all` for a format that writes the
/// tuned rows only.
pub fn render(file: &TunedFile, options: &ExportOptions) -> Result<String, ExportError> {
    check_prefix(options.prefix)?;
    let format = options.format;
    if !options.prefix.is_empty() && !format.takes_prefix() {
        return Err(ExportError::PrefixUnsupported(format.name()));
    }
    if options.all && !format.takes_all_rows() {
        return Err(ExportError::AllUnsupported(format.name()));
    }
    let rows = rows(file, options.all);
    let export = Export {
        file,
        options,
        rows: &rows,
    };
    Ok(match format {
        ExportFormat::Json => export.json(),
        ExportFormat::Toml => export.toml(),
        ExportFormat::Rust => export.rust(),
        ExportFormat::C => export.c(),
        ExportFormat::Uci => export.uci(),
        ExportFormat::Openbench => export.spsa_lines(", ", true),
        ExportFormat::Fishtest => export.spsa_lines(",", false),
    })
}

/// A number without needless digits: `10`, `0.002` (never an exponent).
fn number(x: f64) -> String {
    format!("{x}")
}

/// Text made safe for one comment line: control characters (a newline would end a `//`
/// comment) become `?`.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// A TOML basic string: quoted, with `"`, `\` and control characters escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One render in progress: the file, the options and the chosen rows.
struct Export<'a> {
    file: &'a TunedFile,
    options: &'a ExportOptions<'a>,
    rows: &'a [Row],
}

impl Export<'_> {
    /// The header every commented format opens with, one sentence a line.
    fn header(&self) -> Vec<String> {
        let p = &self.file.provenance;
        let tuned = self.rows.iter().filter(|r| r.tuned).count();
        let rows = if self.options.all {
            format!(
                "Rows: all {} of the margin set, in table order; {tuned} tuned, the others as the tuned file has them.",
                self.rows.len()
            )
        } else {
            format!("Rows: the {tuned} tuned, in table order.")
        };
        vec![
            format!(
                "Pruning margins exported by `marginal export` on {} from {}.",
                self.options.date,
                one_line(self.options.source)
            ),
            format!(
                "Tuned by marginal {}: {} on the {} objective, seed {}, {}, run {}.",
                one_line(&p.marginal),
                one_line(&p.solver),
                one_line(&p.objective),
                p.seed,
                // A race runs no iterations: its budget is its evaluations (and games).
                if p.solver == "race" {
                    format!("{} evaluations", p.evaluations)
                } else {
                    format!("{} iterations", p.iterations)
                },
                one_line(&p.run)
            ),
            match &self.file.engine {
                None => format!(
                    "Engine: search signature {}, bench {} nodes.",
                    one_line(&p.engine_signature),
                    p.engine_bench_nodes
                ),
                // The engine file's content digest as recorded with the figures (what `check`
                // compares); a file re-measured with `check --update` after the engine file
                // changed was tuned with another, said beside it.
                Some(engine) => format!(
                    "Engine: {}, an external UCI engine described by {} (content digest {}{}); the rows are its UCI options.",
                    one_line(&engine.name),
                    one_line(&engine.source),
                    one_line(&engine.signature),
                    if p.engine_signature == engine.signature {
                        String::new()
                    } else {
                        format!(", tuned when it was {}", one_line(&p.engine_signature))
                    }
                ),
            },
            rows,
        ]
    }

    /// The provenance as JSON, for the JSON export and the TOML `[source]` table.
    /// An external engine has no bench: its name and engine file take the bench's place.
    fn source(&self) -> serde_json::Value {
        let p = &self.file.provenance;
        let mut source = serde_json::Map::new();
        let mut put = |key: &str, value: serde_json::Value| {
            source.insert(key.to_string(), value);
        };
        put("file", self.options.source.into());
        put("date", self.options.date.into());
        put("marginal", p.marginal.as_str().into());
        put("engine_signature", p.engine_signature.as_str().into());
        match &self.file.engine {
            None => put("engine_bench_nodes", p.engine_bench_nodes.into()),
            Some(engine) => {
                put("engine", engine.name.as_str().into());
                put("engine_file", engine.source.as_str().into());
            }
        }
        put("run", p.run.as_str().into());
        put("objective", p.objective.as_str().into());
        put("solver", p.solver.as_str().into());
        put("seed", p.seed.into());
        put("iterations", p.iterations.into());
        let tuned: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| r.tuned)
            .map(|r| r.spec.name.as_str())
            .collect();
        put("tuned", tuned.into());
        serde_json::Value::Object(source)
    }

    /// A row's value as JSON: a number, or a boolean for a check.
    fn json_value(row: &Row) -> serde_json::Value {
        match row.spec.kind {
            ParamKind::Spin => row.value.into(),
            ParamKind::Check => (row.value != 0).into(),
        }
    }

    /// The line after a row's table doc: where its value came from, with `range` formatting a
    /// pair of bounds and `check` a switch's value in the target language.
    fn origin(
        row: &Row,
        range: impl Fn(i32, i32) -> String,
        check: impl Fn(bool) -> String,
    ) -> String {
        let spec = &row.spec;
        match (row.tuned, spec.kind) {
            (true, _) => format!(
                "Tuned from {} within {}.",
                spec.default,
                range(row.lower, row.upper)
            ),
            (false, ParamKind::Spin) => format!(
                "Not tuned (default {}, range {}).",
                spec.default,
                range(spec.min, spec.max)
            ),
            (false, ParamKind::Check) => {
                format!("Not tuned (default {}).", check(spec.default != 0))
            }
        }
    }

    /// A Rust or C constant name: prefix and table name, upper-cased.
    fn constant(&self, spec: &crate::params::Row) -> String {
        format!("{}{}", self.options.prefix, spec.name).to_ascii_uppercase()
    }

    fn json(&self) -> String {
        let margins: serde_json::Map<String, serde_json::Value> = self
            .rows
            .iter()
            .map(|r| (r.spec.name.to_string(), Self::json_value(r)))
            .collect();
        let doc = serde_json::json!({
            "format": EXPORT_FORMAT,
            "source": self.source(),
            "margins": margins,
        });
        let mut text = serde_json::to_string_pretty(&doc).expect("JSON values serialise");
        text.push('\n');
        text
    }

    fn toml(&self) -> String {
        let mut out = String::new();
        for line in self.header() {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "\nformat = {}", toml_string(EXPORT_FORMAT));
        out.push_str("\n[source]\n");
        if let serde_json::Value::Object(source) = self.source() {
            for (key, value) in source {
                let value = match value {
                    serde_json::Value::String(s) => toml_string(&s),
                    serde_json::Value::Array(items) => {
                        let items: Vec<String> = items
                            .iter()
                            .map(|i| toml_string(i.as_str().unwrap_or_default()))
                            .collect();
                        format!("[{}]", items.join(", "))
                    }
                    // TOML integers are 64-bit signed: a larger seed goes as a string.
                    serde_json::Value::Number(n) if n.is_u64() && n.as_i64().is_none() => {
                        toml_string(&n.to_string())
                    }
                    other => other.to_string(),
                };
                let _ = writeln!(out, "{key} = {value}");
            }
        }
        out.push_str("\n[margins]\n");
        for row in self.rows {
            let _ = writeln!(out, "{} = {}", row.spec.name, Self::json_value(row));
        }
        out
    }

    fn rust(&self) -> String {
        let mut out = String::new();
        for line in self.header() {
            let _ = writeln!(out, "//! {line}");
        }
        // An inner doc comment: the file is a module (`mod margins;`), which `include!` refuses.
        out.push_str(
            "//!\n//! Use it as a module: `mod margins;` (or `#[path = \"...\"] mod margins;`).\n",
        );
        for row in self.rows {
            let spec = &row.spec;
            let (ty, value) = match spec.kind {
                ParamKind::Spin => ("i32", row.value.to_string()),
                ParamKind::Check => ("bool", (row.value != 0).to_string()),
            };
            let _ = write!(
                out,
                "\n/// {}\n///\n/// {}\npub const {}: {ty} = {value};\n",
                one_line(&row.doc),
                Self::origin(row, |lo, hi| format!("{lo}..={hi}"), |b| b.to_string()),
                self.constant(spec),
            );
        }
        out
    }

    /// The C include guard: prefix and output name, upper-cased, letters, digits and `_` only,
    /// starting with a letter (an identifier starting with `_` and a capital is reserved).
    fn guard(&self) -> String {
        let stem = self.options.guard_stem.unwrap_or(DEFAULT_GUARD_STEM);
        let raw = format!("{}{stem}_H", self.options.prefix).to_ascii_uppercase();
        let cleaned: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let cleaned = cleaned.trim_start_matches('_');
        if cleaned.starts_with(|c: char| c.is_ascii_alphabetic()) {
            cleaned.to_string()
        } else {
            format!("MARGINAL_{cleaned}")
        }
    }

    fn c(&self) -> String {
        // A `*/` inside a comment would end it early.
        let comment = |text: &str| one_line(text).replace("*/", "* /");
        let guard = self.guard();
        let mut out = String::from("/*\n");
        for line in self.header() {
            let _ = writeln!(out, " * {}", comment(&line));
        }
        out.push_str(" */\n");
        let _ = writeln!(out, "#ifndef {guard}\n#define {guard}");
        for row in self.rows {
            let spec = &row.spec;
            let switch = if spec.kind == ParamKind::Check {
                " A switch: 1 on, 0 off."
            } else {
                ""
            };
            let origin = Self::origin(
                row,
                |lo, hi| format!("[{lo}, {hi}]"),
                |b| i32::from(b).to_string(),
            );
            let _ = writeln!(
                out,
                "\n/* {}{switch} {} */",
                comment(&row.doc),
                comment(&origin)
            );
            let name = self.constant(spec);
            let value = row.value;
            let _ = match self.options.c_style {
                CStyle::Const => writeln!(out, "static const int {name} = {value};"),
                CStyle::Define => writeln!(out, "#define {name} {value}"),
            };
        }
        let _ = writeln!(out, "\n#endif /* {guard} */");
        out
    }

    fn uci(&self) -> String {
        self.rows
            .iter()
            .map(|r| {
                format!(
                    "setoption name {} value {}\n",
                    r.spec.uci_name,
                    r.spec.uci_value(r.value)
                )
            })
            .collect()
    }

    /// OpenBench's (`separator` ", ", with the type) or fishtest's (",", without) SPSA input.
    fn spsa_lines(&self, separator: &str, with_type: bool) -> String {
        self.rows
            .iter()
            .map(|r| {
                let mut fields = vec![r.spec.uci_name.to_string()];
                if with_type {
                    fields.push("int".to_string());
                }
                fields.extend([
                    r.value.to_string(),
                    r.lower.to_string(),
                    r.upper.to_string(),
                    number(r.c_end),
                    number(r.r_end),
                ]);
                fields.join(separator) + "\n"
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Margins;
    use std::path::Path;

    /// The golden tests' fixture: a trimmed copy of a shipped tuned file.
    fn fixture() -> TunedFile {
        let text = include_str!("../tests/golden/export/tuned.json");
        TunedFile::parse(Path::new("tuned.json"), text).unwrap()
    }

    fn options(format: ExportFormat) -> ExportOptions<'static> {
        ExportOptions {
            format,
            source: "tuned/x.json",
            date: "2024-02-29",
            prefix: "",
            all: false,
            c_style: CStyle::Const,
            guard_stem: None,
        }
    }

    #[test]
    fn format_names_round_trip() {
        for f in ExportFormat::ALL {
            assert_eq!(ExportFormat::from_name(f.name()), Some(f));
        }
        for s in CStyle::ALL {
            assert_eq!(CStyle::from_name(s.name()), Some(s));
        }
        assert_eq!(ExportFormat::from_name("JSON"), None);
        assert_eq!(CStyle::from_name("enum"), None);
    }

    #[test]
    fn prefixes_must_start_identifiers() {
        for ok in ["", "PRUNE_", "_x", "a1", "_"] {
            assert_eq!(check_prefix(ok), Ok(()), "{ok}");
        }
        for bad in ["1A", "A-B", "A B", "é", "-"] {
            let e = check_prefix(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
    }

    #[test]
    fn epochs_become_utc_dates() {
        assert_eq!(date_of_epoch("0").unwrap(), "1970-01-01");
        // 2024-02-29 23:59:59 UTC, then the next second.
        assert_eq!(date_of_epoch("1709251199").unwrap(), "2024-02-29");
        assert_eq!(date_of_epoch("1709251200").unwrap(), "2024-03-01");
        // jiff's last instant, 9999-12-30 22:00 UTC, and the second after it.
        assert_eq!(date_of_epoch("253402207200").unwrap(), "9999-12-30");
        for bad in [
            "",
            "-1",
            "+5",
            "1.5",
            " 1",
            "x",
            "253402207201",
            "99999999999999999999",
        ] {
            assert_eq!(
                date_of_epoch(bad),
                Err(ExportError::BadEpoch(bad.to_string())),
                "{bad}"
            );
        }
    }

    #[test]
    fn tuned_rows_take_the_schedule_and_fall_back_to_the_table() {
        let mut file = fixture();
        let rows = rows(&file, false);
        let names: Vec<&str> = rows.iter().map(|r| r.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "futility_margin",
                "ext_futility_margin",
                "razor_margin",
                "delta_margin"
            ]
        );
        let razor = &rows[2];
        assert_eq!(razor.value, file.setting().margins().razor_margin());
        assert_eq!((razor.lower, razor.upper), (0, 4000));
        assert_eq!((razor.c_end, razor.r_end), (40.0, 0.002));
        assert!(rows.iter().all(|r| r.tuned));
        // Narrower bounds and another schedule as tuned are what the row reports.
        let row = &mut file.provenance.schedule[0];
        (row.lower, row.upper, row.c_end, row.r_end) = (50, 300, 7.5, 0.01);
        // Tuned names in another spelling and order, and one listed twice, give the same rows.
        file.tuned = ["delta", "RazorMargin", "futility_margin", "frontier"]
            .map(String::from)
            .to_vec();
        // Without a schedule row, the table's bounds and steps.
        file.provenance
            .schedule
            .retain(|r| r.name != "delta_margin");
        let rows = super::rows(&file, false);
        assert_eq!(rows.len(), 3);
        assert_eq!(
            (rows[0].lower, rows[0].upper, rows[0].c_end, rows[0].r_end),
            (50, 300, 7.5, 0.01)
        );
        let delta = &rows[2];
        assert_eq!(delta.spec.name, "delta_margin");
        assert_eq!((delta.lower, delta.upper), (0, 1500));
        assert_eq!((delta.c_end, delta.r_end), (10.0, 0.002));
    }

    #[test]
    fn all_rows_are_the_whole_margin_set() {
        let file = fixture();
        let rows = rows(&file, true);
        assert_eq!(rows.len(), PARAMS.len());
        let values: Vec<i32> = rows.iter().map(|r| r.value).collect();
        assert_eq!(values, file.setting().margins().to_vector());
        assert_eq!(rows.iter().filter(|r| r.tuned).count(), 4);
    }

    #[test]
    fn options_that_do_not_apply_are_refused() {
        let file = fixture();
        for f in [
            ExportFormat::Uci,
            ExportFormat::Openbench,
            ExportFormat::Fishtest,
        ] {
            let all = ExportOptions {
                all: true,
                ..options(f)
            };
            assert_eq!(
                render(&file, &all),
                Err(ExportError::AllUnsupported(f.name()))
            );
        }
        for f in [ExportFormat::Json, ExportFormat::Toml, ExportFormat::Uci] {
            let prefixed = ExportOptions {
                prefix: "P_",
                ..options(f)
            };
            assert_eq!(
                render(&file, &prefixed),
                Err(ExportError::PrefixUnsupported(f.name()))
            );
        }
        let bad = ExportOptions {
            prefix: "9x",
            ..options(ExportFormat::Rust)
        };
        assert_eq!(
            render(&file, &bad),
            Err(ExportError::BadPrefix("9x".into()))
        );
    }

    #[test]
    fn numbers_carry_no_needless_digits() {
        assert_eq!(number(10.0), "10");
        assert_eq!(number(0.002), "0.002");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(1e-7), "0.0000001");
    }

    #[test]
    fn spsa_lines_have_the_frameworks_fields() {
        let file = fixture();
        let ob = render(&file, &options(ExportFormat::Openbench)).unwrap();
        let fish = render(&file, &options(ExportFormat::Fishtest)).unwrap();
        assert_eq!(ob.lines().count(), 4);
        for (o, f) in ob.lines().zip(fish.lines()) {
            let o: Vec<&str> = o.split(", ").collect();
            let f: Vec<&str> = f.split(',').collect();
            assert_eq!((o.len(), f.len(), o[1]), (7, 6, "int"));
            assert_eq!(o[0], f[0]);
            assert_eq!(o[2..], f[1..]);
            let index = Margins::find(o[0]).unwrap();
            assert_eq!(o[2], file.setting().margins().get_index(index).to_string());
            let bounds: Vec<i32> = o[2..5].iter().map(|x| x.parse().unwrap()).collect();
            assert!(bounds[1] <= bounds[0] && bounds[0] <= bounds[2], "{o:?}");
        }
    }

    #[test]
    fn headers_name_source_provenance_and_date() {
        let file = fixture();
        for f in [ExportFormat::Rust, ExportFormat::C, ExportFormat::Toml] {
            let text = render(&file, &options(f)).unwrap();
            for needle in [
                "tuned/x.json",
                "2024-02-29",
                file.provenance.run.as_str(),
                file.provenance.engine_signature.as_str(),
                &file.provenance.engine_bench_nodes.to_string(),
                "seed 1, 16 iterations",
            ] {
                assert!(text.contains(needle), "{f:?} lacks {needle}:\n{text}");
            }
        }
        // No comment syntax: bare lines only.
        for f in [
            ExportFormat::Uci,
            ExportFormat::Openbench,
            ExportFormat::Fishtest,
        ] {
            let text = render(&file, &options(f)).unwrap();
            assert!(!text.contains("2024-02-29"), "{f:?}:\n{text}");
        }
    }

    #[test]
    fn comment_breakers_in_paths_are_defused() {
        let file = fixture();
        let source = "odd*/dir\nname.json";
        for f in [ExportFormat::C, ExportFormat::Rust, ExportFormat::Toml] {
            let text = render(
                &file,
                &ExportOptions {
                    source,
                    ..options(f)
                },
            )
            .unwrap();
            assert!(!text.contains("dir\nname"), "{f:?}:\n{text}");
            if f == ExportFormat::C {
                // The only `*/` are the ends of comments.
                for line in text.lines().filter(|l| l.contains("*/")) {
                    assert!(line.ends_with("*/"), "{line}");
                    assert!(!line.contains("odd*/"), "{line}");
                }
            }
        }
        assert_eq!(toml_string("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
    }

    #[test]
    fn include_guards_are_identifiers() {
        let file = fixture();
        let guard = |prefix: &'static str, stem: Option<&'static str>| {
            let text = render(
                &file,
                &ExportOptions {
                    prefix,
                    guard_stem: stem,
                    ..options(ExportFormat::C)
                },
            )
            .unwrap();
            let line = text.lines().find(|l| l.starts_with("#ifndef ")).unwrap();
            line["#ifndef ".len()..].to_string()
        };
        assert_eq!(guard("", None), "MARGINAL_TUNED_H");
        assert_eq!(guard("prune_", None), "PRUNE_MARGINAL_TUNED_H");
        assert_eq!(guard("", Some("spsa-suite")), "SPSA_SUITE_H");
        assert_eq!(guard("_", Some("margins")), "MARGINS_H");
        assert_eq!(guard("", Some("2024 set")), "MARGINAL_2024_SET_H");
    }
}
