//! Margin-set files and the tuned file `marginal tune` writes, read and written in one place.
//!
//! A margin-set file is JSON: `{"format": "marginal-margins/1", "margins": {name: value, ...},
//! "meta": {...}}`, a tuned file (`"format": "marginal-tuned/1"`), an export
//! (`marginal-export/1`) or a bare object of `name: value` pairs; [`read_margins`] reads the
//! margin set of any of them. The tuned file is also a typed value, [`TunedFile`]: the margin
//! set, how it scored against the defaults and `off` on training and validation positions, the
//! confirmation match, the provenance of the run, and every candidate it evaluated.
//! [`TunedFile::read`] parses one back, refusing a truncated, foreign or other-version file, and
//! [`TunedFile::write`] is the one writer of these files (atomically). Every error names the
//! file, the line and the value.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::calibrate::trust::Calibration;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::external::UciProgram;
use crate::engine::setting::Program;
use crate::engine::{EngineDef, Setting};
use crate::params::{ParamError, Row};

use crate::formats::json::{line_of, plain_message, refuse_repeated_keys};
use crate::params::Margins;
use crate::scoring::exec::ExecError;
use crate::scoring::games::game::MoveLimit;
use crate::scoring::games::matches::MatchReport;
use crate::scoring::paired::PairedComparison;
use crate::scoring::suite::objective::{Objective, ObjectiveParams};
use crate::scoring::suite::{
    LoadedSuites, PositionResult, Repeats, RunConfig, SuiteLimit, SuiteScorer,
};

use super::games::GamesEvaluation;
use super::pareto::MarkedEvaluation;
use super::solvers::IterationRecord;
use super::space::Space;

/// The format tag of a plain margin-set file ([`write_margins`]).
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

/// The text of a margin-set or tuned file: read whole, as UTF-8. Every reader of these files
/// goes through here and [`document`], so they agree on what a readable file is.
///
/// # Errors
/// The file cannot be read, or is not UTF-8.
fn read_text(path: &Path) -> Result<String, TunedError> {
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
fn document<'t>(path: &Path, text: &'t str) -> Result<(&'t str, Value), TunedError> {
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
    refuse_repeated_keys(text).map_err(json_error)?;
    let value = serde_json::from_str(text).map_err(json_error)?;
    Ok((text, value))
}

/// The margin set of any margin-set file: a tuned file, an export, a `marginal-margins/1`
/// file or a bare object of `name: value` pairs (missing rows take their defaults).
///
/// # Errors
/// As `read_text` and `document` (below); another format, an external engine's file, no margin,
/// an unknown name or a value out of range: the error names the file, line and value.
pub fn parse_margins(path: &Path, text: &str) -> Result<Margins, TunedError> {
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

/// Reads the margin set of a margin-set file ([`parse_margins`]).
///
/// # Errors
/// As [`parse_margins`], or the file cannot be read.
pub fn read_margins(path: &Path) -> Result<Margins, TunedError> {
    parse_margins(path, &read_text(path)?)
}

/// Writes a plain margin-set file (`marginal-margins/1`) with free-form metadata, atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_margins(path: &Path, margins: &Margins, meta: &impl Serialize) -> std::io::Result<()> {
    let doc = serde_json::json!({
        "format": FORMAT,
        "margins": margins,
        "meta": meta,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
    crate::formats::write_atomic(path, (text + "\n").as_bytes())
}

/// A tuned file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunedFile {
    /// Always [`TUNED_FORMAT`].
    pub format: String,
    /// The external engine that was tuned (absent: marginal's own engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineRecord>,
    /// The full tuned margin set (untuned rows keep the base set's values).
    pub margins: Values,
    /// The table names of the rows that were tuned.
    pub tuned: Vec<String>,
    /// The tuned set, the defaults and `off` on the training positions.
    pub training: Side,
    /// The same on the validation positions (never tuned on).
    pub validation: Side,
    /// Tuned against the defaults, position by position (exact McNemar).
    pub paired: Paired,
    /// What produced the file.
    pub provenance: Provenance,
    /// Every candidate the suite objective evaluated, with the Pareto front of speed against
    /// accuracy marked (empty for a games tune).
    pub evaluations: Vec<MarkedEvaluation>,
    /// The solver's point after every iteration.
    pub iterations: Vec<IterationRecord>,
    /// The games objective's comparisons, for a games tune.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<GamesRecord>,
    /// The confirmation match of the tuned set against the defaults (`--confirm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<MatchReport>,
    /// The engine that measured the training and validation figures, when `marginal check
    /// --update` measured them again after the run (else the run's engine measured them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// How far the objective it was tuned on is trusted to rank margin sets as games do, and
    /// the Elo it predicts (`marginal calibrate`); absent in files written before calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// The default solver's stages (`--solver race`): every screened, refined and raced set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<super::race::RaceResult>,
}

/// A margin set as a file records it: each row's name and value (booleans for the built-in
/// engine's switches), read back against the engine's rows by [`Values::resolve`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Values(pub serde_json::Map<String, serde_json::Value>);

impl Values {
    /// The values of a setting.
    pub fn of(setting: &Setting) -> Values {
        match serde_json::to_value(setting) {
            Ok(serde_json::Value::Object(map)) => Values(map),
            _ => Values(serde_json::Map::new()),
        }
    }

    /// The setting these values give `def`'s engine (rows not named keep their defaults).
    ///
    /// # Errors
    /// An unknown row, a value that is not a number (or a boolean for a switch), or out of range.
    pub fn resolve(&self, def: &Arc<EngineDef>) -> Result<Setting, ParamError> {
        let mut setting = Setting::defaults(def);
        for (name, value) in &self.0 {
            let text = match value {
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                other => other.to_string(),
            };
            setting.set(name, &text)?;
        }
        Ok(setting)
    }
}

/// The external engine a file was tuned for: enough to name, export and re-measure its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineRecord {
    /// Its name.
    pub name: String,
    /// The engine file (or `--engine-cmd ...`) it was described by.
    pub source: String,
    /// The description's digest (hex).
    pub signature: String,
    /// Its tunable rows.
    pub rows: Vec<Row>,
    /// Options its reference run set on top of the rows' off values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_options: Vec<(String, String)>,
    /// Whether its searches repeat exactly (its engine file's `deterministic`).
    #[serde(default = "yes")]
    pub deterministic: bool,
}

fn yes() -> bool {
    true
}

impl EngineRecord {
    /// The record of an external engine (None for the built-in one).
    pub fn of(def: &EngineDef) -> Option<EngineRecord> {
        (!def.is_builtin()).then(|| EngineRecord {
            name: def.name.clone(),
            source: def.source.clone().unwrap_or_default(),
            signature: def.signature(),
            rows: def.rows.clone(),
            reference_options: def.reference_options.clone(),
            deterministic: def.deterministic,
        })
    }

    /// The engine as recorded: its rows, but no program to run (the source is named as the
    /// command, so a search with it fails with a message naming the file to give).
    pub fn def(&self) -> EngineDef {
        EngineDef {
            name: self.name.clone(),
            program: Program::Uci(UciProgram {
                command: PathBuf::from(&self.source),
                args: Vec::new(),
                dir: None,
                options: Vec::new(),
                grace: Duration::from_secs(10),
                fresh: false,
                breaker: Default::default(),
            }),
            rows: self.rows.clone(),
            reference_options: self.reference_options.clone(),
            source: Some(self.source.clone()),
            digest: u64::from_str_radix(&self.signature, 16).unwrap_or(0),
            text_digest: None,
            deterministic: self.deterministic,
        }
    }
}

/// Who measured a file's figures again (`marginal check --update`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measured {
    /// marginal's version.
    pub marginal: String,
    /// The engine's bench node count.
    pub engine_bench_nodes: u64,
    /// The engine's search signature (hex).
    pub engine_signature: String,
    /// The command line.
    pub command_line: String,
}

/// How the sets scored on one side of the split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    /// Positions on this side.
    pub positions: usize,
    /// `tuned`, `default` and `off`, in that order.
    pub sets: Vec<SetFigures>,
    /// Positions an external engine faulted on while these figures were measured, over the
    /// sets (not written: the file's `provenance.faults` counts the run's).
    #[serde(skip)]
    pub faults: usize,
}

impl Side {
    /// The figures of the set called `name`.
    pub fn set(&self, name: &str) -> Option<&SetFigures> {
        self.sets.iter().find(|s| s.name == name)
    }
}

impl Side {
    /// Scores each named set on the scorer's positions: the side's figures, with every
    /// position's outcome. The scorer's reference set is not searched again: its run is
    /// the reference run (the search is deterministic).
    ///
    /// # Errors
    /// The scorer's executor could not run the positions.
    pub fn measure(scorer: &SuiteScorer, sets: &[(&str, Setting)]) -> Result<Side, ExecError> {
        let reference = &scorer.options().reference;
        let searched: Vec<Setting> = sets
            .iter()
            .filter(|(_, s)| s != reference)
            .map(|(_, s)| s.clone())
            .collect();
        let mut scores = scorer.score_many(&searched)?.into_iter();
        let mut sets_out = Vec::with_capacity(sets.len());
        let mut faults = 0;
        for (name, margins) in sets {
            let score = if margins == reference {
                scorer.score_results(margins, scorer.reference().to_vec())
            } else {
                scores.next().expect("one score per searched set")
            };
            faults += score.faults;
            sets_out.push(SetFigures {
                name: name.to_string(),
                margins: Values::of(margins),
                objective: score.objective,
                positions: score
                    .positions
                    .iter()
                    .map(|p| PositionOutcome::of(&p.result))
                    .collect(),
            });
        }
        Ok(Side {
            positions: scorer.suites().positions.len(),
            sets: sets_out,
            faults,
        })
    }

    /// Set `a` against set `b`, position by position (exact McNemar); `None` when either is
    /// missing or lacks per-position outcomes.
    pub fn paired(&self, a: &str, b: &str) -> Option<PairedComparison> {
        let solved = |name| {
            let set = self
                .set(name)
                .filter(|s| s.positions.len() == self.positions)?;
            Some(set.positions.iter().map(|p| p.solved).collect::<Vec<_>>())
        };
        PairedComparison::new(&solved(a)?, &solved(b)?).ok()
    }
}

/// How one margin set scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetFigures {
    /// `tuned`, `default` or `off`.
    pub name: String,
    /// The set.
    pub margins: Values,
    /// Its objective and parts.
    pub objective: Objective,
    /// Each position's outcome, in the side's position order (files written before outcomes
    /// were recorded have none; `marginal check --update` adds them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub positions: Vec<PositionOutcome>,
}

/// What the search of one position gave: enough for `marginal check` to name what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionOutcome {
    /// Best move, UCI (`None` without legal moves).
    #[serde(rename = "move")]
    pub best_move: Option<String>,
    /// Whether it solved the position.
    pub solved: bool,
    /// Nodes searched.
    pub nodes: u64,
}

impl PositionOutcome {
    /// The outcome of a search result.
    pub fn of(result: &PositionResult) -> PositionOutcome {
        PositionOutcome {
            best_move: result.best_move.clone(),
            solved: result.solved,
            nodes: result.nodes,
        }
    }
}

/// The paired tests of the tuned set against the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paired {
    /// On the training positions.
    pub training: PairedComparison,
    /// On the validation positions.
    pub validation: PairedComparison,
}

/// Everything that determined the result, and what the run cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// marginal's version.
    pub marginal: String,
    /// The engine's bench node count.
    pub engine_bench_nodes: u64,
    /// The engine's search signature (hex).
    pub engine_signature: String,
    /// The run's digest (its checkpoint directory refuses other runs).
    pub run: String,
    /// `suite` or `games`.
    pub objective: String,
    /// `spsa`, `nelder-mead` or `pso`.
    pub solver: String,
    /// The solver's settings.
    pub solver_settings: serde_json::Value,
    /// Each tuned row: bounds and SPSA's schedule ends.
    pub schedule: Vec<ScheduleRow>,
    /// Training and validation suite files with their content hashes.
    pub suites: SuiteSources,
    /// Per-position limit of the suite scoring.
    pub limit: SuiteLimit,
    /// The suite objective's parameters.
    pub objective_params: ObjectiveParams,
    /// The seed.
    pub seed: u64,
    /// Iterations asked for.
    pub iterations: u64,
    /// The solver's final point (continuous).
    pub final_theta: Vec<f64>,
    /// Suite evaluations (cache hits included).
    pub evaluations: usize,
    /// Games played by the games objective (0 for a suite tune).
    pub games: u64,
    /// Iterations recorded.
    pub iterations_recorded: usize,
    /// Suite evaluations this invocation searched (not read from the cache or the log).
    #[serde(default)]
    pub searched_evaluations: usize,
    /// Wall-clock seconds those searches took.
    #[serde(default)]
    pub search_seconds: f64,
    /// Faults of an external engine over the run: suite positions it faulted on, summed over
    /// the evaluations, plus games it lost to a fault, plus searches it faulted on while the
    /// tuned set, the defaults and `off` were judged on both sides; absent when none.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub faults: u64,
    /// Games lost on time over the run (at a clock, `--tc`): the race's, the games
    /// objective's and the confirmation's, either side; absent when none.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub time_losses: u64,
    /// Wall-clock seconds of this invocation (a resumed run counts only its own).
    pub wall_seconds: f64,
    /// Wall-clock seconds of the interrupted invocations a resumed run took up, as each
    /// recorded at its interrupt (a run killed by SIGKILL records none); absent when none.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub earlier_wall_seconds: f64,
    /// CPU seconds of this invocation: its threads and the engines it ran (absent in files
    /// written before CPU time was recorded).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub cpu_seconds: f64,
    /// CPU seconds of the interrupted invocations it resumed, as each recorded at its
    /// interrupt; absent when none.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub earlier_cpu_seconds: f64,
    /// The command line.
    pub command_line: String,
    /// The command's arguments, as recorded for `--resume`.
    pub arguments: serde_json::Value,
}

impl Provenance {
    /// The transposition table per search, megabytes, as the run's arguments record it
    /// (`--hash`; the scoring default when absent).
    pub fn hash_mb(&self) -> usize {
        self.arguments
            .get("hash")
            .and_then(serde_json::Value::as_u64)
            .and_then(|h| usize::try_from(h).ok())
            .unwrap_or(RunConfig::default().hash_mb)
    }
}

/// One tuned row of the space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleRow {
    /// Table name.
    pub name: String,
    /// Smallest value tried.
    pub lower: i32,
    /// Largest value tried.
    pub upper: i32,
    /// SPSA's final perturbation.
    pub c_end: f64,
    /// SPSA's final learning rate.
    pub r_end: f64,
}

impl ScheduleRow {
    /// The rows of a space.
    pub fn of(space: &Space) -> Vec<ScheduleRow> {
        space
            .dims
            .iter()
            .map(|d| ScheduleRow {
                name: d.name.to_string(),
                lower: d.lower,
                upper: d.upper,
                c_end: d.c_end,
                r_end: d.r_end,
            })
            .collect()
    }
}

/// The suite files of both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteSources {
    /// How validation positions were chosen: `holdout files` or the FEN-hash split.
    pub split: String,
    /// Training files.
    pub training: Vec<SuiteSource>,
    /// Validation files.
    pub validation: Vec<SuiteSource>,
    /// How a position that repeats an earlier one was scored (absent: each time it appears,
    /// the rule of every file made before the rule was recorded).
    #[serde(default = "Repeats::each", skip_serializing_if = "Repeats::is_each")]
    pub repeats: Repeats,
}

/// One suite file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteSource {
    /// The path as given.
    pub path: String,
    /// Positions used from it on this side.
    pub positions: usize,
    /// FNV-1a of the whole file (hex).
    pub hash: String,
}

impl SuiteSource {
    /// The files of loaded suites.
    pub fn of(suites: &LoadedSuites) -> Vec<SuiteSource> {
        suites
            .files
            .iter()
            .map(|f| SuiteSource {
                path: f.path.clone(),
                positions: f.positions,
                hash: format!("{:016x}", f.hash),
            })
            .collect()
    }
}

/// The games objective's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GamesRecord {
    /// The log file in the checkpoint directory.
    pub log: String,
    /// Comparisons (SPSA iterations) or evaluations played.
    pub comparisons: usize,
    /// Games played.
    pub games: u64,
    /// Game pairs per comparison.
    pub pairs: u64,
    /// Per-move limit.
    pub limit: MoveLimit,
    /// The opening book.
    pub openings: PathBuf,
    /// FNV-1a of the book (hex).
    pub openings_hash: String,
    /// Every comparison.
    pub evaluations: Vec<GamesEvaluation>,
}

fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// The line of a typed-parse error. serde reports a bad margin at the end of its margin set;
/// when the message names the parameter, the line is that of its nearest key above.
fn value_line(text: &str, error: &serde_json::Error) -> usize {
    let message = error.to_string();
    let named = message
        .split_once("parameter '")
        .and_then(|(_, rest)| rest.split_once('\''))
        .map(|(name, _)| format!("\"{name}\""));
    let lines: Vec<&str> = text.lines().collect();
    let end = error.line().min(lines.len());
    named
        .and_then(|key| (0..end).rev().find(|&i| lines[i].contains(&key)))
        .map_or(error.line(), |i| i + 1)
}

/// Refuses a document whose `format` is not this version's tuned-file format, saying whether
/// it is another version of it or no tuned file at all.
fn check_format(path: &Path, text: &str, value: &serde_json::Value) -> Result<(), TunedError> {
    let format = value.get("format").and_then(|f| f.as_str());
    if format == Some(TUNED_FORMAT) {
        return Ok(());
    }
    let message = match format {
        Some(f) if f.starts_with("marginal-tuned/") => format!(
            "format \"{f}\" is another version of the tuned-file format: this marginal reads \"{TUNED_FORMAT}\" (a newer file needs a newer marginal)"
        ),
        _ => match value.get("format") {
            Some(f) => format!("format {f} is not \"{TUNED_FORMAT}\": not a tuned file"),
            None => format!(
                "no \"format\" field (a tuned file has \"format\": \"{TUNED_FORMAT}\"): not a tuned file"
            ),
        },
    };
    Err(TunedError::Invalid {
        path: path.to_path_buf(),
        line: line_of(text, "format"),
        message,
    })
}

impl TunedFile {
    /// Parses the text of a tuned file; `path` names it in errors.
    ///
    /// # Errors
    /// Invalid JSON, another format, or a field that is missing, mistyped or out of range: the
    /// error names the file, the line and the value.
    pub fn parse(path: &Path, text: &str) -> Result<TunedFile, TunedError> {
        let (text, value) = document(path, text)?;
        check_format(path, text, &value)?;
        let file: TunedFile = serde_json::from_str(text).map_err(|e| TunedError::Invalid {
            path: path.to_path_buf(),
            line: value_line(text, &e),
            message: format!("not a {TUNED_FORMAT} file: {}", plain_message(text, &e)),
        })?;
        let invalid = |name: &str, message: String| TunedError::Invalid {
            path: path.to_path_buf(),
            line: line_of(text, name),
            message,
        };
        file.check_record(&invalid)?;
        file.check_sets(&invalid)?;
        Ok(file)
    }

    /// Refuses a record no run could have written: no tuned parameter, a limit that searches
    /// nothing, a parameter tuned twice or unknown or without a value, a schedule row whose
    /// bounds cross. `invalid` makes the error of a key and message.
    fn check_record(&self, invalid: &dyn Fn(&str, String) -> TunedError) -> Result<(), TunedError> {
        let def = self.def();
        if self.tuned.is_empty() {
            return Err(invalid(
                "tuned",
                "\"tuned\" is empty: a tuned file names the parameters it tuned".into(),
            ));
        }
        // A limit the command line refuses cannot have measured the record.
        if matches!(
            self.provenance.limit,
            SuiteLimit::Nodes(0) | SuiteLimit::Depth(0)
        ) {
            return Err(invalid(
                "limit",
                format!(
                    "the recorded limit ({}) searches nothing, so no run measured this file: it was edited or damaged",
                    self.provenance.limit
                ),
            ));
        }
        for (i, name) in self.tuned.iter().enumerate() {
            if let Some(twin) = self.tuned[..i]
                .iter()
                .find(|t| def.find(t).is_some() && def.find(t) == def.find(name))
            {
                return Err(invalid(
                    "tuned",
                    format!("\"tuned\" names parameter '{name}' twice (as '{twin}' too)"),
                ));
            }
        }
        let given: Vec<usize> = self.margins.0.keys().filter_map(|k| def.find(k)).collect();
        for name in &self.tuned {
            match def.find(name) {
                None => {
                    return Err(invalid(
                        name,
                        format!("tuned parameter '{name}' is not in the parameter table"),
                    ));
                }
                Some(i) if !given.contains(&i) => {
                    return Err(invalid(
                        "margins",
                        format!("tuned parameter '{name}' has no value in \"margins\""),
                    ));
                }
                Some(_) => {}
            }
        }
        for row in &self.provenance.schedule {
            if row.lower > row.upper {
                return Err(invalid(
                    "schedule",
                    format!(
                        "schedule row '{}': lower bound {} above upper bound {}",
                        row.name, row.lower, row.upper
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses a margin set of the file (the tuned one, or one judged beside it) that does not
    /// resolve for its engine, naming the parameter.
    fn check_sets(&self, invalid: &dyn Fn(&str, String) -> TunedError) -> Result<(), TunedError> {
        let def = self.def();
        let sets = std::iter::once(&self.margins).chain(
            self.training
                .sets
                .iter()
                .chain(&self.validation.sets)
                .map(|s| &s.margins),
        );
        for values in sets {
            values.resolve(&def).map_err(|e| {
                let name = match &e {
                    ParamError::Unknown(n) | ParamError::UnknownRow { name: n, .. } => n.clone(),
                    ParamError::BadValue { name, .. } | ParamError::OutOfRange { name, .. } => {
                        name.clone()
                    }
                    ParamError::NotAssignment(n) => n.clone(),
                };
                invalid(&name, e.to_string())
            })?;
        }
        Ok(())
    }

    /// Whether the tuned set's figures equal the defaults' on the training and the validation
    /// positions alike (objective, solved count and nodes).
    pub fn measures_as_defaults(&self) -> bool {
        let same = |side: &Side| match (side.set("tuned"), side.set("default")) {
            (Some(t), Some(d)) => t.objective == d.objective,
            _ => false,
        };
        same(&self.training) && same(&self.validation)
    }

    /// The games of a games tune when every one of them ended with an engine fault (it
    /// measured nothing of the margins); `None` otherwise.
    pub fn all_games_faulted(&self) -> Option<u64> {
        let g = self.games.as_ref()?;
        let games: u64 = g.evaluations.iter().map(|e| e.wdl.total_games()).sum();
        let faults: u64 = g.evaluations.iter().map(|e| e.faults).sum();
        (games > 0 && faults >= games).then_some(games)
    }

    /// The engine the file was tuned for: marginal's own, or the recorded external one.
    pub fn def(&self) -> Arc<EngineDef> {
        match &self.engine {
            None => EngineDef::builtin(),
            Some(record) => Arc::new(record.def()),
        }
    }

    /// The tuned margin set, for the file's engine (checked when the file was read).
    pub fn setting(&self) -> Setting {
        self.setting_for(&self.def())
    }

    /// The tuned margin set for `def` (an engine given on the command line for the recorded
    /// one); rows it lacks keep their defaults.
    pub fn setting_for(&self, def: &Arc<EngineDef>) -> Setting {
        self.margins
            .resolve(def)
            .unwrap_or_else(|_| Setting::defaults(def))
    }

    /// The space the file was tuned over: its tuned rows within its schedule's bounds, around
    /// its engine's defaults.
    ///
    /// # Errors
    /// A row or bound the engine does not have.
    pub fn space(&self) -> Result<Space, super::space::SpaceError> {
        let names: Vec<&str> = self.tuned.iter().map(String::as_str).collect();
        let bounds: Vec<String> = (self.provenance.schedule.iter())
            .map(|r| format!("{}={}..{}", r.name, r.lower, r.upper))
            .collect();
        let bounds: Vec<&str> = bounds.iter().map(String::as_str).collect();
        Space::new(Setting::defaults(&self.def()), &names, &bounds)
    }

    /// Reads a tuned file.
    ///
    /// # Errors
    /// As [`TunedFile::parse`], or the file cannot be read.
    pub fn read(path: &Path) -> Result<TunedFile, TunedError> {
        Self::parse(path, &read_text(path)?)
    }

    /// Writes the file (pretty JSON, atomically: a reader never sees half of it).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::formats::write_atomic(path, (text + "\n").as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shipped tuned file as a JSON document, to be damaged by each test.
    fn shipped() -> serde_json::Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tuned/race-seed1.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn parse(doc: &serde_json::Value) -> Result<TunedFile, TunedError> {
        let text = serde_json::to_string_pretty(doc).unwrap();
        TunedFile::parse(Path::new("t.json"), &text)
    }

    fn refused(doc: &serde_json::Value) -> String {
        parse(doc)
            .expect_err("the damaged file is refused")
            .to_string()
    }

    #[test]
    fn a_shipped_tuned_file_parses_and_names_its_tuned_rows() {
        let file = parse(&shipped()).unwrap();
        assert!(!file.tuned.is_empty());
        assert_eq!(file.provenance.limit, SuiteLimit::Nodes(5000));
    }

    #[test]
    fn another_version_or_no_format_is_named_as_such() {
        let mut doc = shipped();
        doc["format"] = "marginal-tuned/9".into();
        let e = refused(&doc);
        assert!(
            e.contains("another version of the tuned-file format"),
            "{e}"
        );
        doc.as_object_mut().unwrap().remove("format");
        let e = refused(&doc);
        assert!(
            e.contains("no \"format\" field") && e.contains("not a tuned file"),
            "{e}"
        );
    }

    #[test]
    fn a_record_no_run_could_write_is_refused_naming_the_key() {
        let mut doc = shipped();
        doc["tuned"] = serde_json::json!([]);
        assert!(refused(&doc).contains("\"tuned\" is empty"));
        let mut doc = shipped();
        doc["provenance"]["limit"] = serde_json::json!({ "nodes": 0 });
        assert!(refused(&doc).contains("searches nothing"));
        let mut doc = shipped();
        let first = doc["tuned"][0].clone();
        doc["tuned"].as_array_mut().unwrap().push(first.clone());
        let e = refused(&doc);
        assert!(
            e.contains(&format!(
                "names parameter '{}' twice",
                first.as_str().unwrap()
            )),
            "{e}"
        );
        let mut doc = shipped();
        doc["provenance"]["schedule"][0]["lower"] = serde_json::json!(10_000);
        assert!(refused(&doc).contains("above upper bound"));
    }

    #[test]
    fn a_tuned_file_round_trips_through_its_writer() {
        let file = parse(&shipped()).unwrap();
        let dir = std::env::temp_dir().join(format!("marginal-tunedfile-{}", std::process::id()));
        let path = dir.join("t.json");
        file.write(&path).unwrap();
        assert_eq!(TunedFile::read(&path).unwrap(), file);
        assert_eq!(read_margins(&path).unwrap(), file.setting().margins());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_truncated_foreign_or_other_version_file_is_refused_naming_the_file() {
        let text = serde_json::to_string_pretty(&shipped()).unwrap();
        let cut = &text[..text.len() / 2];
        let e = TunedFile::parse(Path::new("cut.json"), cut)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cut.json:") && e.contains("not valid JSON"),
            "{e}"
        );
        let e = TunedFile::parse(Path::new("empty.json"), "")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("empty.json:") && e.contains("empty"), "{e}");
        let foreign = r#"{"format": "marginal-calibration/1", "objectives": []}"#;
        let e = TunedFile::parse(Path::new("cal.json"), foreign)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cal.json:") && e.contains("not a tuned file"),
            "{e}"
        );
        let mut doc = shipped();
        doc["format"] = "marginal-tuned/2".into();
        let e = parse(&doc).unwrap_err().to_string();
        assert!(
            e.starts_with("t.json:") && e.contains("marginal-tuned/2"),
            "{e}"
        );
    }

    #[test]
    fn an_out_of_range_margin_names_its_parameter_and_line() {
        let mut doc = shipped();
        let name = doc["tuned"][0].as_str().unwrap().to_string();
        doc["margins"][&name] = serde_json::json!(-5_000_000);
        let e = refused(&doc);
        assert!(e.contains(&name), "{e}");
        assert!(e.starts_with("t.json:"), "{e}");
    }

    #[test]
    fn round_trip_through_a_file() {
        let dir = std::env::temp_dir().join(format!("marginal-tuned-{}", std::process::id()));
        let path = dir.join("x.json");
        let m = Margins::default()
            .with("futility_margin", 150)
            .with("lmr", false);
        write_margins(&path, &m, &serde_json::json!({"by": "test"})).unwrap();
        assert_eq!(read_margins(&path).unwrap(), m);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn bare_objects_aliases_and_defaults() {
        let m = parse_margins(
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
        let e = parse_margins(Path::new("t.json"), text)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.json:3:"), "{e}");
        assert!(e.contains("99999") && e.contains("futility_margin"), "{e}");
        let e = parse_margins(Path::new("t.json"), "{\"margins\": {\"nope\": 1}}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown parameter 'nope'"), "{e}");
        let e = parse_margins(Path::new("t.json"), "{\n\"margins\": [1,\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.json:") && e.contains("not valid JSON"),
            "{e}"
        );
        let e = parse_margins(Path::new("t.json"), "{\"futility\": \"yes\"}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"yes\""), "{e}");
        let e = parse_margins(Path::new("t.json"), "{\"format\": \"other/9\"}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("other/9"), "{e}");
    }

    #[test]
    fn a_json_export_is_a_margin_set() {
        let text = r#"{"format": "marginal-export/1", "source": {"file": "t.json"},
            "margins": {"futility_margin": 65, "delta_margin": 185}}"#;
        let m = parse_margins(Path::new("e.json"), text).unwrap();
        assert_eq!((m.futility_margin(), m.delta_margin()), (65, 185));
        assert_eq!(m.razor_margin(), Margins::default().razor_margin());
    }
}
