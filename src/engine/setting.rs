//! One kind of thing for every engine: an [`EngineDef`] (how to run it and its tunable rows)
//! and a [`Setting`] (a value for each row). marginal's own engine is the built-in definition,
//! its rows the parameter table; an external UCI engine comes from an engine file or from its
//! own `option` lines. A [`Worker`] searches with a setting, whichever engine it is.

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move};

use super::external::{Breaker, DeclaredOption, Fault, UciProcess, UciProgram};
use super::{Limits, PruneStats, Searcher, bench};
use crate::formats::Fnv;
use crate::formats::engine_file::EngineFile;
use crate::params::{DEFAULT_R_END, Margins, ParamError, ParamKind, Row, builtin_rows, in_range};

/// How an engine is run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Program {
    /// marginal's own search, in process.
    Builtin,
    /// An external UCI engine, one process per worker.
    Uci(UciProgram),
}

/// An engine and its tunable rows (serializable, so a unit of work carries it to a worker).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineDef {
    /// Its name (PGN tags, reports).
    pub name: String,
    /// How it is run.
    pub program: Program,
    /// The rows a setting gives values to.
    pub rows: Vec<Row>,
    /// Options the reference run sets on top of the rows' off values.
    pub reference_options: Vec<(String, String)>,
    /// Where it was described: the engine file (or `--engine-cmd`), None for the built-in.
    pub source: Option<String>,
    /// A digest of the description (what the engine file says, or command and rows).
    pub digest: u64,
    /// The digest of its engine file's text as written, which marginal recorded as the
    /// signature before signatures left comments out (None without a file).
    pub text_digest: Option<u64>,
    /// Whether its searches at a fixed depth or node count repeat exactly (`check` then
    /// expects identical figures; else it judges by the statistics).
    pub deterministic: bool,
}

/// Why `value` is not one the declared `option` takes: a check takes true or false, a spin a
/// whole number in its range, a combo one of its choices (in any case, as UCI compares them),
/// a button no value; a string takes any text.
fn option_value_refused(option: &DeclaredOption, value: &str) -> Option<String> {
    match option.kind.as_str() {
        "combo"
            if !option.vars.is_empty()
                && !option
                    .vars
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(value.trim())) =>
        {
            Some(format!(
                "the engine declares {} a combo option: give one of its choices, {}",
                option.name,
                option.vars.join(", ")
            ))
        }
        "button" if !value.trim().is_empty() => Some(format!(
            "the engine declares {} a button, which takes no value: give it as \"\" to press it",
            option.name
        )),
        "check" if !matches!(value, "true" | "false") => Some(format!(
            "the engine declares {} a check option: give true or false",
            option.name
        )),
        "spin" => {
            let (low, high) = (option.min, option.max);
            match value.trim().parse::<i64>() {
                Err(_) => Some(format!(
                    "the engine declares {} a spin option: give a whole number",
                    option.name
                )),
                Ok(v) if low.is_some_and(|l| v < l) || high.is_some_and(|h| v > h) => {
                    Some(format!(
                        "outside the range [{}, {}] the engine declares for {}",
                        low.map_or("-".into(), |m| m.to_string()),
                        high.map_or("-".into(), |m| m.to_string()),
                        option.name
                    ))
                }
                Ok(_) => None,
            }
        }
        _ => None,
    }
}

/// Why an external engine's description cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EngineDefError(pub String);

impl EngineDef {
    /// marginal's own engine: the parameter table.
    pub fn builtin() -> Arc<EngineDef> {
        static BUILTIN: OnceLock<Arc<EngineDef>> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                Arc::new(EngineDef {
                    name: "marginal".into(),
                    program: Program::Builtin,
                    rows: builtin_rows(),
                    reference_options: Vec::new(),
                    source: None,
                    digest: 0,
                    text_digest: None,
                    deterministic: true,
                })
            })
            .clone()
    }

    /// The engine an engine file describes.
    pub fn from_file(file: &EngineFile) -> EngineDef {
        EngineDef {
            name: file.name.clone(),
            program: Program::Uci(UciProgram {
                command: file.command.clone(),
                args: file.args.clone(),
                dir: file.dir.clone(),
                options: file.options.clone(),
                grace: Duration::from_millis(file.timeout_ms),
                fresh: file.fresh,
                breaker: Arc::default(),
            }),
            rows: file.rows.clone(),
            reference_options: file.reference_options.clone(),
            source: Some(file.path.clone()),
            digest: file.digest,
            text_digest: Some(file.text_digest),
            deterministic: file.deterministic,
        }
    }

    /// The engine a command names: an engine file's (started once to check it, [`verify`]:
    /// its warnings come back with it), an engine command's with the options to tune
    /// ([`from_command`]), or marginal's own; an external engine is given up on after
    /// `max_faults` faults in a row.
    ///
    /// # Errors
    /// A bad engine file, or an engine that does not start or lacks an option.
    ///
    /// [`verify`]: EngineDef::verify
    /// [`from_command`]: EngineDef::from_command
    pub fn open(
        file: Option<&std::path::Path>,
        command: Option<&str>,
        options: &[String],
        max_faults: usize,
    ) -> Result<(Arc<EngineDef>, Vec<String>), EngineDefError> {
        let (def, warnings) = match (file, command) {
            (Some(path), _) => {
                let file = EngineFile::read(path).map_err(|e| EngineDefError(e.to_string()))?;
                let def = EngineDef::from_file(&file);
                // Before any work: an engine that does not start, or lacks a row's option, is
                // bad input, not a run of faults.
                let warnings = def.verify()?;
                (def, warnings)
            }
            (None, Some(command)) => (EngineDef::from_command(command, options)?, Vec::new()),
            (None, None) => return Ok((EngineDef::builtin(), Vec::new())),
        };
        if let Some(b) = def.breaker() {
            b.set_limit(max_faults);
        }
        Ok((Arc::new(def), warnings))
    }

    /// The engine `command` (split on whitespace: program and arguments) with rows for the
    /// spin options named in `options`, read from the engine's own `option` lines. A name may
    /// carry its off value, `Name=VALUE`; without one, the off value is the default (the
    /// reference is then the engine as shipped). The step is a twentieth of the range.
    ///
    /// # Errors
    /// The engine does not start or answer, or an option is unknown or not a spin.
    pub fn from_command(command: &str, options: &[String]) -> Result<EngineDef, EngineDefError> {
        let program = command_program(command)?;
        let process = UciProcess::start(&program, &[])
            .map_err(|e| EngineDefError(format!("--engine-cmd '{command}': {e}")))?;
        let mut rows = Vec::new();
        for asked in options.iter().map(|o| o.trim()).filter(|o| !o.is_empty()) {
            let row = option_row(asked, command, &process, &rows)?;
            rows.push(row);
        }
        if rows.is_empty() {
            return Err(EngineDefError(format!(
                "--engine-options names no option of '{command}' to tune: give one or more of its spin options, comma-separated"
            )));
        }
        let mut digest = Fnv::new();
        digest.write(command.as_bytes());
        for r in &rows {
            digest.write(format!("{r:?}").as_bytes());
        }
        Ok(EngineDef {
            name: process.name.clone().unwrap_or_else(|| command.to_string()),
            program: Program::Uci(program),
            rows,
            reference_options: Vec::new(),
            source: Some(format!("--engine-cmd {command}")),
            digest: digest.finish(),
            text_digest: None,
            // Unknown without a file to say so: `check` judges it by the statistics.
            deterministic: false,
        })
    }

    /// Starts an external engine once, before any work, and checks it against its rows: it
    /// must start and answer the UCI handshake, and declare each row's option as a spin whose
    /// range holds the row's (an engine ignores or clamps a value it does not take, and the
    /// tuning would then move nothing). Returns warnings: options and reference options it
    /// does not declare. The built-in engine always passes.
    ///
    /// # Errors
    /// The engine does not start or answer, or a row's option is missing, not a spin, or
    /// narrower than the row; the message names the engine's source.
    pub fn verify(&self) -> Result<Vec<String>, EngineDefError> {
        let Program::Uci(program) = &self.program else {
            return Ok(Vec::new());
        };
        let source = self.source.as_deref().unwrap_or(&self.name);
        let process = UciProcess::start(program, &[])
            .map_err(|e| EngineDefError(format!("{source}: {e}")))?;
        let declared = |name: &str| {
            process
                .declared
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(name))
        };
        let listed = || {
            let names: Vec<&str> = process.declared.iter().map(|o| o.name.as_str()).collect();
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        };
        for row in &self.rows {
            let option = declared(&row.uci_name).ok_or_else(|| {
                EngineDefError(format!(
                    "{source}: row '{}': the engine declares no option '{}' (it declares: {})",
                    row.name,
                    row.uci_name,
                    listed()
                ))
            })?;
            if option.kind != "spin" {
                return Err(EngineDefError(format!(
                    "{source}: row '{}': option '{}' is a {} option, not a spin",
                    row.name, option.name, option.kind
                )));
            }
            let (low, high) = (
                option.min.unwrap_or(i64::MIN),
                option.max.unwrap_or(i64::MAX),
            );
            if i64::from(row.min) < low || i64::from(row.max) > high {
                return Err(EngineDefError(format!(
                    "{source}: row '{}': range [{}, {}] is outside the range option '{}' declares, [{}, {}]",
                    row.name,
                    row.min,
                    row.max,
                    option.name,
                    option.min.map_or("-".into(), |m| m.to_string()),
                    option.max.map_or("-".into(), |m| m.to_string())
                )));
            }
        }
        let mut warnings = Vec::new();
        if self.rows.is_empty() {
            warnings.push(format!(
                "{source}: no params rows: nothing is tuned or set, every margin set is the engine's own defaults (docs/external-engines.md says how to declare one)"
            ));
        }
        // Where a line of the engine file is (`:21`), read back from the file.
        let at = |table: &str, name: &str| {
            let path = std::path::Path::new(source);
            let line = crate::formats::engine_file::option_line(path, table, name);
            line.map_or(String::new(), |l| format!(":{l}"))
        };
        for (table, options) in [
            ("options", &program.options),
            ("reference_options", &self.reference_options),
        ] {
            for (name, value) in options {
                let Some(option) = declared(name) else {
                    let at = at(table, name);
                    warnings.push(format!(
                        "{source}{at}: [{table}] {name}: the engine declares no such option (it may ignore it): spell the name as the engine's `option name` lines do, or remove the line"
                    ));
                    continue;
                };
                if let Some(why) = option_value_refused(option, value) {
                    let at = at(table, name);
                    return Err(EngineDefError(format!(
                        "{source}{at}: [{table}] {name} = '{value}': {why}"
                    )));
                }
                if let Some(row) = self.rows.iter().find(|r| r.answers_to(name)) {
                    warnings.push(if table == "options" {
                        format!(
                            "{source}: [options] {name} is the option of row '{}': the row's value replaces it in every search, so it does nothing",
                            row.name
                        )
                    } else {
                        format!(
                            "{source}: [reference_options] {name} is the option of row '{}': it replaces the row's off value ({}) in the reference run; give the row that off value instead",
                            row.name, row.off
                        )
                    });
                }
            }
        }
        Ok(warnings)
    }

    /// The fault breaker of an external engine ([`crate::engine::external::Breaker`]).
    pub fn breaker(&self) -> Option<&Breaker> {
        match &self.program {
            Program::Builtin => None,
            Program::Uci(p) => Some(&p.breaker),
        }
    }

    /// What to fix when the engine faults: its engine file, or the command line that stands
    /// for one (`--engine-cmd`).
    pub fn fix_hint(&self) -> &'static str {
        if self
            .source
            .as_deref()
            .is_some_and(|s| s.starts_with("--engine-cmd"))
        {
            "fix the engine or its --engine-cmd (and --engine-options) line"
        } else {
            "fix the engine or its engine file"
        }
    }

    /// Why this run gave up on the engine (too many faults in a row), naming it, if it did.
    pub fn gave_up(&self) -> Option<String> {
        let why = self.breaker()?.gave_up()?;
        let source = self
            .source
            .as_deref()
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        Some(format!("engine {}{source}: {why}", self.name))
    }

    /// Whether this is marginal's own engine.
    pub fn is_builtin(&self) -> bool {
        matches!(self.program, Program::Builtin)
    }

    /// Where a user finds the names of its rows, for messages: `marginal params` for
    /// marginal's own engine, the rows themselves for an external one.
    pub fn rows_hint(&self) -> String {
        if self.is_builtin() {
            "see `marginal params`".into()
        } else {
            let names: Vec<&str> = self.rows.iter().map(|r| r.name.as_str()).collect();
            let file = self
                .source
                .as_deref()
                .map_or(String::new(), |s| format!(" ({s})"));
            format!("the rows of {}{file}: {}", self.name, names.join(", "))
        }
    }

    /// The row named `name`: its name or UCI name (ignoring case, `_`, `-`, spaces), or for
    /// the built-in engine also its aliases.
    pub fn find(&self, name: &str) -> Option<usize> {
        if self.is_builtin() {
            return Margins::find(name);
        }
        self.rows.iter().position(|r| r.answers_to(name))
    }

    /// What identifies the engine's behaviour: the bench signature of the built-in engine, or
    /// the description's digest for an external one (hex).
    pub fn signature(&self) -> String {
        match self.program {
            Program::Builtin => format!("{:016x}", bench::signature()),
            Program::Uci(_) => format!("{:016x}", self.digest),
        }
    }

    /// Whether a signature a report or checkpoint recorded names this engine: its
    /// [`signature`](Self::signature), or, while its engine file's text is unchanged, the digest
    /// of that text, which marginal recorded before signatures left comments out.
    pub fn is_signed(&self, recorded: &str) -> bool {
        self.signatures().iter().any(|s| s == recorded)
    }

    /// Every signature that names this engine (see [`is_signed`](Self::is_signed)), its own
    /// first.
    pub fn signatures(&self) -> Vec<String> {
        let mut all = vec![self.signature()];
        all.extend(self.text_digest.map(|d| format!("{d:016x}")));
        all
    }
}

/// A UCI option name as a row name: `Futility Margin`, `FutilityMargin` and
/// `futility-margin` -> `futility_margin`; `LMRBase` -> `lmr_base`. Letters, digits and `_`,
/// never starting with a digit (row names name exported constants).
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        // A word starts at a capital after a small letter or digit (`futilityMargin`), or at
        // the last capital of a run followed by a small letter (`LMRBase`).
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let starts_word = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(char::is_ascii_lowercase))
            });
        if starts_word && !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    let out = out.trim_end_matches('_').to_string();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("o_{out}")
    } else {
        out
    }
}

/// A value for each row of an engine: what is searched with.
#[derive(Clone, PartialEq)]
pub struct Setting {
    def: Arc<EngineDef>,
    values: Vec<i32>,
    reference: bool,
}

impl fmt::Debug for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Setting({}: {self})", self.def.name)
    }
}

impl From<Margins> for Setting {
    fn from(margins: Margins) -> Setting {
        Setting {
            def: EngineDef::builtin(),
            values: margins.to_vector(),
            reference: false,
        }
    }
}

impl Setting {
    /// The engine's defaults.
    pub fn defaults(def: &Arc<EngineDef>) -> Setting {
        Setting {
            def: def.clone(),
            values: def.rows.iter().map(|r| r.default).collect(),
            reference: false,
        }
    }

    /// The reference: every row at its off value, plus the engine's reference options (the
    /// built-in engine has none: its `off` is just values, equal to `Margins::off()`).
    pub fn off(def: &Arc<EngineDef>) -> Setting {
        Setting {
            def: def.clone(),
            values: def.rows.iter().map(|r| r.off).collect(),
            reference: !def.is_builtin(),
        }
    }

    /// A setting of `def` with `values` (one per row, each within its row's range or its off
    /// value);
    /// `reference` marks the reference setting, which also sets the engine's reference options.
    ///
    /// # Errors
    /// A value is missing, extra or out of its row's range.
    pub fn from_values(
        def: &Arc<EngineDef>,
        values: Vec<i32>,
        reference: bool,
    ) -> Result<Setting, String> {
        if values.len() != def.rows.len() {
            return Err(format!(
                "{} values for the {} rows of {}",
                values.len(),
                def.rows.len(),
                def.name
            ));
        }
        for (row, &v) in def.rows.iter().zip(&values) {
            if v != row.off {
                in_range(&row.name, i64::from(v), row.min, row.max).map_err(|e| e.to_string())?;
            }
        }
        Ok(Setting {
            def: def.clone(),
            values,
            reference,
        })
    }

    /// The engine.
    pub fn def(&self) -> &Arc<EngineDef> {
        &self.def
    }

    /// The values, in row order.
    pub fn values(&self) -> &[i32] {
        &self.values
    }

    /// Whether this is the reference setting (it also sets the reference options).
    pub fn is_reference(&self) -> bool {
        self.reference
    }

    /// The built-in engine's margin set (for an external engine: the built-in defaults, which
    /// nothing reads).
    pub fn margins(&self) -> Margins {
        if self.def.is_builtin() {
            Margins::from_vector(&self.values)
        } else {
            Margins::default()
        }
    }

    /// Sets row `index`, clamped to its range.
    pub fn set_index(&mut self, index: usize, value: i32) {
        let row = &self.def.rows[index];
        self.values[index] = value.clamp(row.min, row.max);
        self.reference = false;
    }

    /// Sets a row by name from text, checking the name and range.
    ///
    /// # Errors
    /// Unknown name, bad or out-of-range value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ParamError> {
        if self.def.is_builtin() {
            let mut m = self.margins();
            m.set(name, value)?;
            self.values = m.to_vector();
            self.reference = false;
            return Ok(());
        }
        let index = self.def.find(name).ok_or_else(|| ParamError::UnknownRow {
            name: name.to_string(),
            engine: match &self.def.source {
                Some(source) => format!("{} ({source})", self.def.name),
                None => self.def.name.clone(),
            },
            rows: self
                .def
                .rows
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        let row = &self.def.rows[index];
        let number: i64 = value.trim().parse().map_err(|_| ParamError::BadValue {
            name: row.name.clone(),
            value: value.trim().to_string(),
            kind: "integer",
        })?;
        self.values[index] = in_range(&row.name, number, row.min, row.max)?;
        self.reference = false;
        Ok(())
    }

    /// The UCI options that carry this setting (rows, then the reference options).
    pub fn uci_options(&self) -> Vec<(String, String)> {
        let mut options: Vec<(String, String)> = self
            .def
            .rows
            .iter()
            .zip(&self.values)
            .map(|(r, &v)| (r.uci_name.clone(), r.uci_value(v)))
            .collect();
        if self.reference {
            options.extend(self.def.reference_options.iter().cloned());
        }
        options
    }

    /// `(row, this value, other value)` for each row whose value differs.
    pub fn diff<'a>(&'a self, other: &Setting) -> Vec<(&'a Row, i32, i32)> {
        self.def
            .rows
            .iter()
            .zip(self.values.iter().zip(&other.values))
            .filter(|(_, (a, b))| a != b)
            .map(|(r, (&a, &b))| (r, a, b))
            .collect()
    }
}

impl fmt::Display for Setting {
    /// `name=value` pairs separated by spaces, in row order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.def.is_builtin() {
            return self.margins().fmt(f);
        }
        for (i, (row, v)) in self.def.rows.iter().zip(&self.values).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}={v}", row.name)?;
        }
        Ok(())
    }
}

impl Serialize for Setting {
    /// The built-in engine's margin set as before; an external engine's rows as a map.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        if self.def.is_builtin() {
            return self.margins().serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(self.values.len()))?;
        for (row, v) in self.def.rows.iter().zip(&self.values) {
            map.serialize_entry(&row.name, v)?;
        }
        map.end()
    }
}

/// What one search found, whichever engine ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct Searched {
    /// The move (None only without legal moves).
    pub best_move: Option<Move>,
    /// Score, side to move's view (None when an external engine gave none).
    pub score: Option<i32>,
    /// Depth of the last iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Nodes at which the final move was found and kept.
    pub found_at: u64,
    /// What each technique cut (built-in engine only).
    pub prunes: PruneStats,
    /// An external engine went past its node budget and was stopped.
    pub overshot: bool,
}

/// An external engine's side of a [`Worker`].
pub struct UciWorker {
    /// How to start it.
    program: UciProgram,
    /// The setting's options.
    options: Vec<(String, String)>,
    /// Table size to set when the engine has a `Hash` option the file does not set.
    hash_mb: usize,
    /// The running process.
    process: Option<UciProcess>,
}

impl UciWorker {
    /// The running process, started (with its options and table size) when there is none.
    fn process(&mut self) -> Result<&mut UciProcess, Fault> {
        if self.process.is_none() {
            let mut p = UciProcess::start(&self.program, &self.options)?;
            let file_sets_hash = self
                .program
                .options
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("Hash"));
            if let Some((min, max)) = p.declared_range("Hash")
                && !file_sets_hash
                && !(min..=max).contains(&(self.hash_mb as i64))
            {
                // Sent anyway, an engine may crash on it (Toga II does) and the fault would
                // name the engine, not the option.
                return Err(Fault::Start(format!(
                    "--hash {} MB is outside the range the engine declares for its Hash option ({min} to {max}): give --hash within it",
                    self.hash_mb
                )));
            }
            if p.declares("Hash") && !file_sets_hash {
                p.send_line(&format!("setoption name Hash value {}", self.hash_mb))?;
                p.sync()?;
            }
            self.process = Some(p);
        }
        Ok(self.process.as_mut().expect("started above"))
    }

    /// Runs `f` on the process; a fault drops it (killed), so the next call starts afresh.
    /// After too many faults in a row nothing runs ([`Breaker`]).
    fn with<T>(&mut self, f: impl FnOnce(&mut UciProcess) -> Result<T, Fault>) -> Result<T, Fault> {
        self.program.breaker.check()?;
        let result = self.process().and_then(f);
        if result.is_err() {
            self.process = None;
        }
        result
    }
}

/// Searches with one setting: the built-in searcher, or one external process (started on
/// first use, killed and started afresh after a fault).
pub enum Worker {
    /// marginal's own search.
    Builtin(Box<Searcher>),
    /// An external engine.
    Uci(Box<UciWorker>),
}

impl Worker {
    /// A worker searching with `setting` and a `hash_mb` table.
    pub fn new(setting: &Setting, hash_mb: usize) -> Worker {
        match &setting.def.program {
            Program::Builtin => {
                Worker::Builtin(Box::new(Searcher::new(hash_mb, setting.margins())))
            }
            Program::Uci(program) => Worker::Uci(Box::new(UciWorker {
                program: program.clone(),
                options: setting.uci_options(),
                hash_mb,
                process: None,
            })),
        }
    }

    /// Installs a flag that stops the built-in search when set (an interrupted match: the move
    /// in progress ends at once). An external engine is stopped by killing it instead
    /// ([`crate::engine::external::kill_all`]), so it ignores the flag.
    pub fn set_stop_flag(&mut self, flag: Option<Arc<AtomicBool>>) {
        if let Worker::Builtin(s) = self {
            s.set_stop_flag(flag);
        }
    }

    /// Forgets everything learnt (a new game, or the next suite position).
    ///
    /// # Errors
    /// An external engine that failed to start or answer (it is dropped).
    pub fn new_game(&mut self) -> Result<(), Fault> {
        match self {
            Worker::Builtin(s) => {
                s.clear();
                Ok(())
            }
            Worker::Uci(w) => {
                if w.program.fresh {
                    w.process = None;
                }
                w.with(UciProcess::new_game)
            }
        }
    }

    /// Searches `position`, reached from `start` by `moves` (`keys`: the Zobrist keys of the
    /// positions before it, for the built-in engine's repetition detection).
    ///
    /// # Errors
    /// An external engine's fault (the process is dropped and restarted on the next call).
    pub fn search(
        &mut self,
        start: &Chess,
        moves: &[Move],
        keys: &[u64],
        position: &Chess,
        limits: &Limits,
    ) -> Result<Searched, Fault> {
        match self {
            Worker::Builtin(s) => {
                let r = s.search_keys(position, keys, limits, &mut |_| {});
                Ok(Searched {
                    best_move: r.best_move,
                    score: Some(r.score),
                    depth: r.depth,
                    nodes: r.nodes,
                    found_at: r.best_move_nodes,
                    prunes: r.prunes,
                    overshot: false,
                })
            }
            Worker::Uci(w) => {
                // Searches count towards giving up (a restart that works does not end a run
                // of hung searches).
                let breaker = Arc::clone(&w.program.breaker);
                let found =
                    breaker.guard(|| w.with(|p| p.search(start, moves, position, limits)))?;
                Ok(Searched {
                    best_move: found.best_move,
                    score: found.score,
                    depth: found.depth,
                    nodes: found.nodes,
                    found_at: found.found_at,
                    prunes: PruneStats::default(),
                    overshot: found.overshot,
                })
            }
        }
    }
}

/// The program `--engine-cmd` names: `command` split at spaces (no quoting), with the default
/// timeout.
fn command_program(command: &str) -> Result<UciProgram, EngineDefError> {
    if let Some(c) = command.chars().find(|c| matches!(c, '\'' | '"' | '\\')) {
        return Err(EngineDefError(format!(
            "--engine-cmd '{command}': {c} is not interpreted (the command is split at spaces, with no quoting or escapes); for a path or argument with spaces, write an engine file (command and args) and give --engine FILE"
        )));
    }
    let mut words = command.split_whitespace();
    let program = words
        .next()
        .ok_or_else(|| EngineDefError("--engine-cmd is empty".into()))?;
    Ok(UciProgram {
        command: program.into(),
        args: words.map(str::to_string).collect(),
        dir: None,
        options: Vec::new(),
        grace: Duration::from_millis(crate::formats::engine_file::DEFAULT_TIMEOUT_MS),
        fresh: false,
        breaker: Arc::default(),
    })
}

/// The row of the `--engine-options` entry `asked` (`Name` or `Name=OFF`): a spin option the
/// engine `command` (`process`) declares, not among `rows` already.
fn option_row(
    asked: &str,
    command: &str,
    process: &UciProcess,
    rows: &[Row],
) -> Result<Row, EngineDefError> {
    let (name, off) = match asked.split_once('=') {
        Some((n, v)) => (n.trim(), Some(v.trim())),
        None => (asked, None),
    };
    let declared = process
        .declared
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            EngineDefError(format!(
                "--engine-options: '{name}' is not an option of '{command}' (it declares: {})",
                process
                    .declared
                    .iter()
                    .map(|o| o.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let (min, max, default) = spin_range(declared)?;
    if rows.iter().any(|r: &Row| r.uci_name == declared.name) {
        return Err(EngineDefError(format!(
            "--engine-options: '{}' is given twice",
            declared.name
        )));
    }
    if !(min..=max).contains(&default) {
        return Err(EngineDefError(format!(
            "--engine-options: '{command}' declares '{}' with default {default} outside its own range [{min}, {max}]: describe it in an engine file with a default in range",
            declared.name
        )));
    }
    let clamp = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    let (min, max, default) = (clamp(min), clamp(max), clamp(default));
    let off = match off {
        None => default,
        Some(v) => v
            .parse::<i32>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| {
                EngineDefError(format!(
                    "--engine-options: off value '{v}' of '{name}' is not an integer in [{min}, {max}]"
                ))
            })?,
    };
    Ok(Row {
        name: snake_case(&declared.name),
        uci_name: declared.name.clone(),
        kind: ParamKind::Spin,
        default,
        min,
        max,
        step: ((i64::from(max) - i64::from(min)) / 20).max(1) as i32,
        r_end: DEFAULT_R_END,
        off,
    })
}

/// The (min, max, default) of the spin option `declared`; an error saying why it has none.
fn spin_range(declared: &DeclaredOption) -> Result<(i64, i64, i64), EngineDefError> {
    let (Some(min), Some(max), Some(default)) = (
        declared.min,
        declared.max,
        declared
            .default
            .as_deref()
            .and_then(|d| d.parse::<i64>().ok()),
    ) else {
        return Err(EngineDefError(if declared.kind == "spin" {
            format!(
                "--engine-options: '{}' is a spin option whose default, min or max is missing or not a whole number within 64 bits (-9223372036854775808 to 9223372036854775807): describe it in an engine file with the range to tune",
                declared.name
            )
        } else if declared.kind.is_empty() {
            format!(
                "--engine-options: the engine declares '{}' without a type, so it is not a spin with default, min and max",
                declared.name
            )
        } else {
            format!(
                "--engine-options: '{}' is a {} option, not a spin with default, min and max",
                declared.name, declared.kind
            )
        }));
    };
    Ok((min, max, default))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(line: &str) -> DeclaredOption {
        crate::engine::external::parse_option(line).unwrap()
    }

    #[test]
    fn a_signature_recorded_from_an_engine_files_text_still_names_it_while_the_text_is_unchanged() {
        let text = "command = \"/bin/true\"\n# a note\nparams = [\"m, M, 1, 0, 9, 1, 0.002, 1\"]\n";
        let parse = |t: &str| EngineFile::parse(std::path::Path::new("e.toml"), t).unwrap();
        let def = EngineDef::from_file(&parse(text));
        let former = format!("{:016x}", parse(text).text_digest);
        assert_ne!(former, def.signature());
        assert!(def.is_signed(&def.signature()) && def.is_signed(&former));
        assert_eq!(def.signatures(), [def.signature(), former.clone()]);
        // Its comment edited: the same signature, but not the text recorded before.
        let edited = EngineDef::from_file(&parse(&text.replace("a note", "another note")));
        assert_eq!(edited.signature(), def.signature());
        assert!(!edited.is_signed(&former));
        assert!(!def.is_signed("0000000000000000"));
        assert!(!EngineDef::builtin().is_signed(&former));
    }

    #[test]
    fn a_combo_value_outside_its_choices_is_refused_naming_them() {
        let style =
            declared("option name Style type combo default Normal var Solid var Normal var Risky");
        assert_eq!(option_value_refused(&style, "Risky"), None);
        // UCI compares values without case.
        assert_eq!(option_value_refused(&style, "risky"), None);
        let why = option_value_refused(&style, "Wild").unwrap();
        for needle in ["Style", "combo", "Solid, Normal, Risky"] {
            assert!(why.contains(needle), "{why}");
        }
    }

    #[test]
    fn every_declared_kind_checks_its_values() {
        let check = declared("option name Ponder type check default false");
        assert!(option_value_refused(&check, "yes").is_some());
        assert_eq!(option_value_refused(&check, "true"), None);
        let spin = declared("option name Hash type spin default 16 min 1 max 64");
        assert!(option_value_refused(&spin, "65").is_some());
        assert!(option_value_refused(&spin, "x").is_some());
        assert_eq!(option_value_refused(&spin, "32"), None);
        let button = declared("option name Clear Hash type button");
        assert!(
            option_value_refused(&button, "now")
                .unwrap()
                .contains("no value")
        );
        assert_eq!(option_value_refused(&button, ""), None);
        let string = declared("option name Book File type string default <empty>");
        assert_eq!(option_value_refused(&string, "any text at all"), None);
    }

    #[test]
    fn the_builtin_engine_is_its_parameter_table() {
        let def = EngineDef::builtin();
        assert_eq!(def.rows.len(), crate::params::PARAMS.len());
        assert_eq!(Setting::defaults(&def).margins(), Margins::default());
        assert_eq!(Setting::off(&def).margins(), Margins::off());
        assert_eq!(Setting::off(&def), Setting::from(Margins::off()));
        let s = Setting::from(Margins::default().with("frontier", 90));
        assert_eq!(s.margins().futility_margin(), 90);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            serde_json::to_string(&s.margins()).unwrap()
        );
        assert_eq!(def.find("razor"), Margins::find("razor_margin"));
    }

    #[test]
    fn external_settings_name_their_rows() {
        let file = EngineFile::parse(
            std::path::Path::new("t.toml"),
            "command = \"x\"\nparams = [\"futility_margin, Futility Margin, 100, 0, 500, 10, 0.002, 500\"]\n[reference_options]\n\"Futility Pruning\" = false\n",
        )
        .unwrap();
        let def = Arc::new(EngineDef::from_file(&file));
        let mut s = Setting::defaults(&def);
        s.set("Futility Margin", "120").unwrap();
        assert_eq!(s.to_string(), "futility_margin=120");
        assert!(s.set("futility_margin", "600").is_err());
        // A name it lacks is refused with the rows it has, not the built-in table.
        let e = s.set("frontier", "90").unwrap_err().to_string();
        assert!(
            e.contains("has no row 'frontier' (its rows: futility_margin)"),
            "{e}"
        );
        // Where a tune's --params finds the names: the rows and the engine file holding them.
        let hint = def.rows_hint();
        assert!(
            hint.contains("t.toml") && hint.contains("futility_margin"),
            "{hint}"
        );
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            "{\"futility_margin\":120}"
        );
        assert_eq!(
            Setting::off(&def).uci_options(),
            [
                ("Futility Margin".to_string(), "500".to_string()),
                ("Futility Pruning".to_string(), "false".to_string())
            ]
        );
        for (uci, row) in [
            ("Extended Futility Margin", "extended_futility_margin"),
            ("FutilityMargin", "futility_margin"),
            ("ExtFutilityMargin", "ext_futility_margin"),
            ("LMRBase", "lmr_base"),
            ("NullMoveR", "null_move_r"),
            ("UCI_Elo", "uci_elo"),
            ("futility-margin", "futility_margin"),
            ("Hash2", "hash2"),
            ("3Fold", "o_3_fold"),
        ] {
            assert_eq!(snake_case(uci), row, "{uci}");
        }
    }
}
