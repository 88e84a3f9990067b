//! `marginal check`: does a tuned set still hold? Re-measures the set of a tuned file, and the
//! baseline (the defaults) beside it, with the limits and suites the file records, and compares
//! with the recorded figures.
//!
//! When the engine is the one that measured the file (same bench signature), the search is
//! deterministic and every figure must come out identical: any difference is a defect (or an
//! edit of the file). When the engine changed, figures move, and the check judges by statistics:
//!
//! - fewer positions solved than recorded, by an exact McNemar test at [`SIGNIFICANCE`]
//!   (position by position, recorded against now);
//! - more nodes than recorded by more than [`NODES_TOLERANCE`];
//! - an objective lower than recorded by more than [`OBJECTIVE_TOLERANCE`] points;
//! - on validation, worse than the baseline measured now: fewer solved by the same McNemar test,
//!   or an objective lower by more than [`OBJECTIVE_TOLERANCE`].
//!
//! Each of these is a regression in either mode. An optional non-regression SPRT of the tuned
//! set against the baseline ([`NON_REGRESSION`], fishtest's bounds) adds games.
//!
//! The library measures and judges; the command prints and sets the exit code.

pub mod plan;
pub mod report;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use crate::engine::bench;
use crate::engine::{EngineDef, PruneStats, Setting};
use crate::formats::lock;
use crate::formats::{Fnv, bundled, openings};
use crate::progress::{Count, Event, Observer, Shared, Silent, Work};
use crate::scoring::exec::ExecError;
use crate::scoring::exec::local::Local;
use crate::scoring::games::game::{GameConfig, MoveLimit};
use crate::scoring::games::matches::{MatchConfig, MatchReport};
use crate::scoring::games::record;
use crate::scoring::games::session::{self, RecordPlan, Session, SessionError};
use crate::scoring::games::stats::{EloSummary, Shown, SprtDecision, SprtParams};
use crate::scoring::paired::PairedComparison;
use crate::scoring::suite::objective;
use crate::scoring::suite::{
    LoadedSuites, Objective, ObjectiveParams, PositionResult, RunConfig, ScorerOptions,
    SuitePosition, SuiteScorer, default_cache_dir, repeat_key,
};
use crate::tune::file::{
    EngineRecord, Measured, Paired, PositionOutcome, SetFigures, Side, SuiteSource, TunedFile,
    Values,
};
use crate::tune::games::{CONFIRM_BOOKS, interleave_openings};
use crate::tune::{SplitError, split};

/// The format tag of a check report.
pub const FORMAT: &str = "marginal-check/1";

/// A McNemar p-value below this is significant (two-sided, exact).
pub const SIGNIFICANCE: f64 = 0.05;

/// A tuned set may search this share more nodes than recorded before it counts as slower.
pub const NODES_TOLERANCE: f64 = 0.05;

/// A tuned set's objective may drop this many points (the objective's units: percent of the
/// available solution credit, plus the speed term) below what was recorded, or below the
/// baseline's on validation, before it counts as worse. One position of 810 is worth 0.12.
pub const OBJECTIVE_TOLERANCE: f64 = 1.0;

/// fishtest's non-regression SPRT: normalized Elo bounds [-1.75, 0.25], alpha = beta = 0.05.
/// H0 (the tuned set is 1.75 nElo worse than the baseline) accepted is a regression.
pub const NON_REGRESSION: SprtParams = SprtParams {
    elo0: -1.75,
    elo1: 0.25,
    alpha: 0.05,
    beta: 0.05,
};

/// Per-move limit of `--games` when the file records no games (as `marginal tune --confirm`).
pub const DEFAULT_GAME_NODES: u64 = 5_000;

/// The sets a side is measured with, in the file's order.
const SETS: [&str; 3] = ["tuned", "default", "off"];

/// The openings of a non-regression match, read and interleaved, with the books they came from.
#[derive(Debug, Clone)]
pub struct GameBooks {
    openings: Vec<Chess>,
    shown: Vec<String>,
}

/// The non-regression match of `--games`, opened ([`Prepared::open_games`]).
pub struct GamesMatch {
    session: Session,
    record: Option<PathBuf>,
    note: Option<String>,
    /// The record's lock, held until the match has been played.
    _held: Option<lock::Held>,
    config: MatchConfig,
    shown: Vec<String>,
}

impl GamesMatch {
    /// The record of the games (in the cache), if kept.
    pub fn record(&self) -> Option<&Path> {
        self.record.as_deref()
    }

    /// Whole pairs kept from an interrupted check and counted without being played again,
    /// and the pairs of the whole match.
    pub fn resumed(&self) -> (usize, usize) {
        (
            self.session.resumed().map_or(0, |r| r.pairs),
            self.session.total_pairs(),
        )
    }

    /// What went wrong with the record, which did not stop the match: one left by an earlier
    /// check that could not be resumed (set aside), or a cache that cannot hold one.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Plays the rest of the match; `observer` sees each pair counted
    /// ([`crate::progress::Event::Pair`]).
    /// Once it has ended, the record is removed (a later check plays its games again).
    ///
    /// # Errors
    /// A PGN write failed, or the engines gave up (too many faults in a row).
    pub fn play(self, observer: &dyn Observer) -> Result<GamesCheck, SessionError> {
        let here = Local::new(self.config.concurrency);
        let result = self
            .session
            .play(&here, &AtomicBool::new(false), observer)?;
        if let Some(path) = &self.record {
            for path in [path.clone(), record::record_path(path)] {
                let _ = std::fs::remove_file(path);
            }
        }
        Ok(GamesCheck {
            openings: self.shown,
            report: MatchReport::new(&result, &self.config, "tuned", "baseline"),
        })
    }
}

/// Why a file cannot be checked: unusable input (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The file lacks per-position outcomes (written before they were recorded).
    #[error(
        "{path}: records no per-position outcomes (written by an older marginal); record them with `marginal check {path} --update`"
    )]
    NoOutcomes {
        /// The tuned file.
        path: String,
    },
    /// A set records outcomes for some of its side's positions, not all: the file was cut or
    /// edited, and `--update` would cover that up.
    #[error(
        "{path}: its {side} '{set}' set records {have} per-position outcomes for {want} positions: the file is damaged (cut or edited); restore it from where it came (git checkout), or tune again"
    )]
    PartialOutcomes {
        /// The tuned file.
        path: String,
        /// `training` or `validation`.
        side: &'static str,
        /// The set.
        set: String,
        /// Outcomes recorded.
        have: usize,
        /// Positions on that side.
        want: usize,
    },
    /// The file lacks a set's figures.
    #[error("{path}: the {side} figures have no '{set}' set")]
    MissingSet {
        /// The tuned file.
        path: String,
        /// `training` or `validation`.
        side: &'static str,
        /// The set.
        set: &'static str,
    },
    /// A suite or book file the file names is not there.
    #[error("{path}: {what} {file} not found (looked in {tried})")]
    Missing {
        /// The tuned file.
        path: String,
        /// `suite`.
        what: &'static str,
        /// The file as recorded.
        file: String,
        /// Where it was looked for.
        tried: String,
    },
    /// A suite or book file's content is not what the file was measured on.
    #[error(
        "{path}: {what} {file} changed since the file was written: content hash {now}, recorded {recorded}; the recorded figures are of the file as it was, position by position, so neither check nor check --update can judge it: restore that file (`git checkout -- {file}` if it is tracked), or tune again on it as it is now"
    )]
    Changed {
        /// The tuned file.
        path: String,
        /// `suite`.
        what: &'static str,
        /// The file, as found.
        file: String,
        /// The recorded FNV-1a hash (hex).
        recorded: String,
        /// Its hash now.
        now: String,
    },
    /// The suites give other positions than recorded.
    #[error("{path}: {side} positions: {now} from the suites now, {recorded} recorded")]
    Positions {
        /// The tuned file.
        path: String,
        /// `training` or `validation`.
        side: &'static str,
        /// Recorded count.
        recorded: usize,
        /// Count now.
        now: usize,
    },
    /// The suites cannot be read or split.
    #[error("{path}: {source}")]
    Split {
        /// The tuned file.
        path: String,
        /// Why.
        source: SplitError,
    },
    /// The engine given does not fit the file.
    #[error("{path}: {message}")]
    Engine {
        /// The tuned file.
        path: String,
        /// Why.
        message: String,
    },
    /// A book cannot be read or is too short (the message names it).
    #[error("{message}")]
    Book {
        /// The tuned file.
        path: String,
        /// Why.
        message: String,
    },
}

/// The engine the file was measured with, against the engine now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineCheck {
    /// The external engine measured now, `NAME (SOURCE)`; absent for marginal's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<String>,
    /// The signature the figures were measured with (hex): marginal's bench signature, or an
    /// external engine's content digest (its engine file's content).
    pub recorded_signature: String,
    /// This engine's signature.
    pub signature: String,
    /// The bench node count recorded (0 for an external engine: it has no bench).
    pub recorded_bench_nodes: u64,
    /// This engine's bench node count (0 for an external engine).
    pub bench_nodes: u64,
    /// Whether the signatures agree and the engine repeats its searches: figures must then
    /// match exactly.
    pub same: bool,
    /// Whether the recorded signature names this engine ([`EngineDef::is_signed`]).
    #[serde(default)]
    pub described_alike: bool,
}

/// A tuned file, with its suites found and verified: ready to measure.
#[derive(Debug)]
pub struct Prepared {
    /// The file as named on the command line.
    pub path: PathBuf,
    /// Its contents.
    pub file: TunedFile,
    /// The engine measured: marginal's own, or the external one given with `--engine`.
    pub def: Arc<EngineDef>,
    /// The engine then and now.
    pub engine: EngineCheck,
    /// Training positions, as recorded.
    pub training: LoadedSuites,
    /// Validation positions, as recorded.
    pub validation: LoadedSuites,
    /// How to score them, as recorded.
    pub options: ScorerOptions,
    /// `--sample`: only these positions of each side are measured (see [`Prepared::sampled`]).
    pub sample: Option<Sample>,
}

/// A check of a sample of each side's positions ([`Prepared::sampled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Positions asked for on each side (a side with fewer is measured whole).
    pub asked: usize,
    /// Training positions measured, and the side's positions in all.
    pub training: (usize, usize),
    /// Validation positions measured, and the side's positions in all.
    pub validation: (usize, usize),
}

/// Mixed, with the size asked for, into a sample's content hash: its reference run is cached
/// apart from the whole side's and from other samples'.
const SAMPLE_TAG: &str = "check-sample";

/// Finds a file a tuned file names: as given (relative to the working directory), else
/// relative to the tuned file's directory and each of its ancestors, else the copy bundled in
/// the binary ([`bundled`]; read through [`read_bytes`](crate::formats::read_bytes)). Returns the candidates tried when
/// none exists.
pub fn locate(recorded: &Path, tuned_file: &Path) -> Result<PathBuf, Vec<PathBuf>> {
    let mut tried = vec![recorded.to_path_buf()];
    if recorded.exists() || recorded.is_absolute() {
        return if recorded.exists() {
            Ok(recorded.to_path_buf())
        } else {
            Err(tried)
        };
    }
    let dir = tuned_file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for base in dir.ancestors() {
        let candidate = base.join(recorded);
        if candidate.exists() {
            return Ok(candidate);
        }
        tried.push(candidate);
    }
    if bundled(recorded).is_some() {
        return Ok(recorded.to_path_buf());
    }
    Err(tried)
}

/// The files a tuned file records, which `check` (and a resumed tune) read again: the suites
/// it was tuned on and its engine file, each where [`locate`] finds it (as recorded when it
/// does not). No output may replace one, even with --force, or the tuned file could not be
/// checked any more.
pub fn recorded_inputs(file: &TunedFile, tuned: &Path) -> Vec<(&'static str, PathBuf)> {
    let found = |recorded: &str| {
        locate(Path::new(recorded), tuned).unwrap_or_else(|_| PathBuf::from(recorded))
    };
    let suites = &file.provenance.suites;
    let mut inputs: Vec<(&'static str, PathBuf)> = (suites.training.iter())
        .chain(&suites.validation)
        .map(|s| ("a suite it records", found(&s.path)))
        .collect();
    if let Some(engine) = &file.engine
        && !engine.source.starts_with("--engine-cmd")
    {
        inputs.push(("the engine file it records", found(&engine.source)));
    }
    inputs
}

/// The options that give a recorded external engine again: `--engine FILE`, or
/// `--engine-cmd '...' --engine-options ...` for an engine described by its command.
fn how_to_give(record: &EngineRecord) -> String {
    match record.source.strip_prefix("--engine-cmd ") {
        Some(command) => {
            let options: Vec<String> = record
                .rows
                .iter()
                .map(|r| format!("{}={}", r.uci_name, r.off))
                .collect();
            format!(
                "--engine-cmd '{command}' --engine-options '{}'",
                options.join(",")
            )
        }
        // Asked for only when the recorded file was not found (from here, nor beside the
        // tuned file): say so, rather than name a file that is not there.
        None => format!(
            "--engine FILE (the recorded {} is not there, from here nor beside the tuned file: restore it, or name a description of that engine)",
            record.source
        ),
    }
}

/// Why `def` is not the engine `record` describes, when it is not: a row of the record it
/// lacks, or one it sends through another UCI option (the file's values would go to other
/// options, or to none), said row by row with both engines' names and files and the fix (the
/// engine file the record names, or a tune of this engine). A changed description of the
/// same engine (its timeout, its options, a row's range) carries every row: None, and the
/// check judges it by the statistics.
pub fn another_engine(record: &EngineRecord, def: &EngineDef, tuned: &[String]) -> Option<String> {
    let given = def.source.as_deref().unwrap_or(&def.name);
    let differences: Vec<String> = record
        .rows
        .iter()
        .filter_map(|row| {
            let which = if tuned.contains(&row.name) {
                "tuned row"
            } else {
                "row"
            };
            match def.rows.iter().find(|r| r.answers_to(&row.name)) {
                None => Some(format!(
                    "{which} '{}' (UCI option '{}') is not a row of {given}",
                    row.name, row.uci_name
                )),
                Some(r) if !r.uci_name.eq_ignore_ascii_case(&row.uci_name) => Some(format!(
                    "{which} '{}' is the UCI option '{}' in {} but '{}' in {given}",
                    row.name, row.uci_name, record.source, r.uci_name
                )),
                Some(_) => None,
            }
        })
        .collect();
    if differences.is_empty() {
        return None;
    }
    // The very file it was tuned with, edited since: say so, not "use the file it records".
    let same_file = !record.source.starts_with("--engine-cmd")
        && (record.source == given
            || std::fs::canonicalize(&record.source)
                .is_ok_and(|p| std::fs::canonicalize(given).is_ok_and(|q| p == q)));
    if same_file && !def.is_signed(&record.signature) {
        return Some(format!(
            "the engine file {given} changed since the file was tuned with it (content digest {}, {} then), and no longer carries its rows: {}. Restore those rows in {given}, or tune the engine again as its file is now (marginal tune --engine {given})",
            def.signature(),
            record.signature,
            differences.join("; ")
        ));
    }
    let names = if def.name == record.name {
        String::new()
    } else {
        format!(
            "; and it names another engine: '{}', the file's is '{}'",
            def.name, record.name
        )
    };
    let again = if record.source.starts_with("--engine-cmd ") {
        how_to_give(record)
    } else {
        format!("--engine {}", record.source)
    };
    Some(format!(
        "it was tuned for the engine '{}' ({}), whose rows {given} does not carry: {}{names}. Its values are not margins of '{}': use the file with the engine it records ({again}; in match --a-engine or --b-engine), or tune '{}' for margins of its own (marginal tune {})",
        record.name,
        record.source,
        differences.join("; "),
        def.name,
        def.name,
        engine_option(given)
    ))
}

/// The option that gives an engine again from its source: `--engine FILE`, or the
/// `--engine-cmd ...` line it came from as it is.
pub fn engine_option(source: &str) -> String {
    if source.starts_with("--engine-cmd") {
        source.to_string()
    } else {
        format!("--engine {source}")
    }
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

fn tried_text(tried: &[PathBuf]) -> String {
    tried
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether every set of both sides records per-position outcomes, which the comparison
/// needs (only `--update` can do without: it records them). A file that records none was
/// written before they were recorded (`Ok(false)`); one that records some but not all is
/// damaged.
///
/// # Errors
/// [`CheckError::PartialOutcomes`], naming the first set that falls short.
pub fn has_outcomes(path: &Path, file: &TunedFile) -> Result<bool, CheckError> {
    let sides = [
        ("training", &file.training),
        ("validation", &file.validation),
    ];
    let recorded = |s: &crate::tune::file::SetFigures| !s.positions.is_empty();
    if sides
        .iter()
        .all(|(_, side)| !side.sets.iter().any(recorded))
    {
        return Ok(false);
    }
    for (name, side) in sides {
        if let Some(s) = side
            .sets
            .iter()
            .find(|s| s.positions.len() != side.positions)
        {
            return Err(CheckError::PartialOutcomes {
                path: path.display().to_string(),
                side: name,
                set: s.name.clone(),
                have: s.positions.len(),
                want: side.positions,
            });
        }
    }
    Ok(true)
}

/// Checks that a file has the figures a check compares, finds its suites and verifies them
/// (content hashes, position counts), and compares the engine. Per-position outcomes are
/// checked by [`Prepared::judge`]'s caller through [`has_outcomes`].
///
/// # Example
/// A shipped tuned file of marginal's own engine, prepared: its suites found and verified
/// against the hashes and counts it records, and the engine the one that measured it.
/// ```
/// use std::path::Path;
/// use marginal::tune::file::TunedFile;
///
/// let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/spsa-suite.json");
/// let file = TunedFile::read(&path).unwrap();
/// let prepared = marginal::check::prepare(&path, file, None).unwrap();
/// assert!(prepared.engine.same, "the bench signature is the one the file records");
/// assert_eq!(prepared.training.positions.len(), prepared.file.training.positions);
/// assert_eq!(prepared.validation.positions.len(), prepared.file.validation.positions);
/// ```
///
/// # Errors
/// See [`CheckError`]: every case is unusable input.
pub fn prepare(
    path: &Path,
    file: TunedFile,
    engine: Option<Arc<EngineDef>>,
) -> Result<Prepared, CheckError> {
    let name = path.display().to_string();
    let def = engine_of(&name, &file, engine)?;
    has_every_set(&name, &file)?;
    let (training, validation) = load_sides(path, &name, &file)?;
    verify_sides(&name, &file, &training, &validation)?;
    let engine = engine_check(&def, &file);
    let options = ScorerOptions {
        config: RunConfig {
            limit: file.provenance.limit,
            hash_mb: file.provenance.hash_mb(),
        },
        objective: file.provenance.objective_params,
        reference: Setting::off(&def),
        cache_dir: Some(default_cache_dir()),
        executor: Arc::new(Local::on_current_pool()),
    };
    Ok(Prepared {
        path: path.to_path_buf(),
        def,
        file,
        engine,
        training,
        validation,
        options,
        sample: None,
    })
}

/// The engine that checks the file `name`: marginal's own for a file of its own, else the
/// engine given, which must be the file's (its rows, and its margins fitting them).
fn engine_of(
    name: &str,
    file: &TunedFile,
    engine: Option<Arc<EngineDef>>,
) -> Result<Arc<EngineDef>, CheckError> {
    match (&file.engine, engine) {
        (None, None) => Ok(EngineDef::builtin()),
        (None, Some(def)) if def.is_builtin() => Ok(def),
        (None, Some(def)) => Err(CheckError::Engine {
            path: name.to_string(),
            message: format!(
                "the file was tuned for marginal's own engine, not {} (leave out --engine and --engine-cmd)",
                def.source.as_deref().unwrap_or(&def.name)
            ),
        }),
        (Some(record), None) => Err(CheckError::Engine {
            path: name.to_string(),
            message: format!(
                "the file was tuned for the external engine {} described by {}: give it with {}",
                record.name,
                record.source,
                how_to_give(record)
            ),
        }),
        (Some(record), Some(def)) => {
            fits(name, record, &def, file)?;
            Ok(def)
        }
    }
}

/// Refuses an external engine `def` that is not the one `record` describes, lacks a tuned
/// row, or cannot take every margin the file records (else the set measured would not be the
/// file's).
fn fits(
    name: &str,
    record: &EngineRecord,
    def: &Arc<EngineDef>,
    file: &TunedFile,
) -> Result<(), CheckError> {
    if let Some(message) = another_engine(record, def, &file.tuned) {
        return Err(CheckError::Engine {
            path: name.to_string(),
            message,
        });
    }
    if let Some(missing) = file.tuned.iter().find(|n| def.find(n).is_none()) {
        return Err(CheckError::Engine {
            path: name.to_string(),
            message: format!(
                "tuned row '{missing}' (of {}) is not a row of {}",
                record.source,
                def.source.as_deref().unwrap_or(&def.name)
            ),
        });
    }
    // Every row the file records must take its value (else the set measured would
    // not be the file's).
    if let Err(e) = file.margins.resolve(def) {
        return Err(CheckError::Engine {
            path: name.to_string(),
            message: format!(
                "its margins do not fit {}: {e}",
                def.source.as_deref().unwrap_or(&def.name)
            ),
        });
    }
    Ok(())
}

/// Refuses a file whose sides lack a set a check compares.
fn has_every_set(name: &str, file: &TunedFile) -> Result<(), CheckError> {
    for (side_name, side) in [
        ("training", &file.training),
        ("validation", &file.validation),
    ] {
        if let Some(set) = SETS.into_iter().find(|set| side.set(set).is_none()) {
            return Err(CheckError::MissingSet {
                path: name.to_string(),
                side: side_name,
                set,
            });
        }
    }
    Ok(())
}

/// Finds the file's suites (beside it, or where it names them) and loads its two sides, split
/// as the tune split them.
fn load_sides(
    path: &Path,
    name: &str,
    file: &TunedFile,
) -> Result<(LoadedSuites, LoadedSuites), CheckError> {
    let sources = &file.provenance.suites;
    let holdout = sources.split.starts_with("--holdout");
    let find = |sources: &[SuiteSource]| -> Result<Vec<PathBuf>, CheckError> {
        sources
            .iter()
            .map(|s| {
                locate(Path::new(&s.path), path).map_err(|tried| CheckError::Missing {
                    path: name.to_string(),
                    what: "suite",
                    file: s.path.clone(),
                    tried: tried_text(&tried),
                })
            })
            .collect()
    };
    let train_paths = find(&sources.training)?;
    let holdout_paths = if holdout {
        find(&sources.validation)?
    } else {
        Vec::new()
    };
    let (training, validation) =
        split(&train_paths, &holdout_paths, sources.repeats).map_err(|source| {
            CheckError::Split {
                path: name.to_string(),
                source,
            }
        })?;
    Ok((training, validation))
}

/// Refuses suites that changed since the tune: a content hash, or a count of positions or
/// files, other than recorded.
fn verify_sides(
    name: &str,
    file: &TunedFile,
    training: &LoadedSuites,
    validation: &LoadedSuites,
) -> Result<(), CheckError> {
    let sources = &file.provenance.suites;
    for (side_name, loaded, recorded, figures) in [
        ("training", training, &sources.training, &file.training),
        (
            "validation",
            validation,
            &sources.validation,
            &file.validation,
        ),
    ] {
        for (now, then) in loaded.files.iter().zip(recorded) {
            if hex(now.hash) != then.hash {
                return Err(CheckError::Changed {
                    path: name.to_string(),
                    what: "suite",
                    file: now.path.clone(),
                    recorded: then.hash.clone(),
                    now: hex(now.hash),
                });
            }
        }
        let counts = |files: Vec<usize>| files.iter().sum::<usize>();
        let recorded_count = counts(recorded.iter().map(|s| s.positions).collect());
        if loaded.positions.len() != figures.positions
            || loaded.positions.len() != recorded_count
            || loaded.files.len() != recorded.len()
        {
            return Err(CheckError::Positions {
                path: name.to_string(),
                side: side_name,
                recorded: figures.positions,
                now: loaded.positions.len(),
            });
        }
    }
    Ok(())
}

/// The engine now against the engine that measured the file.
fn engine_check(def: &EngineDef, file: &TunedFile) -> EngineCheck {
    let recorded = file.measured.as_ref().map_or(
        (
            &file.provenance.engine_signature,
            file.provenance.engine_bench_nodes,
        ),
        |m| (&m.engine_signature, m.engine_bench_nodes),
    );
    let signature = def.signature();
    EngineCheck {
        external: def
            .source
            .as_ref()
            .map(|source| format!("{} ({source})", def.name)),
        // An engine whose searches do not repeat exactly (its engine file says so) is judged by
        // the statistics even when its description is unchanged.
        same: def.deterministic && def.is_signed(recorded.0),
        described_alike: def.is_signed(recorded.0),
        recorded_signature: recorded.0.clone(),
        signature,
        recorded_bench_nodes: recorded.1,
        bench_nodes: if def.is_builtin() {
            bench::SIGNATURE_NODES
        } else {
            0
        },
    }
}

/// One set on one side: recorded against now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetCheck {
    /// `tuned`, `default` or `off`.
    pub name: String,
    /// As recorded.
    pub recorded: Objective,
    /// As measured now.
    pub now: Objective,
}

/// The tuned set on one suite file of a side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteCheck {
    /// The suite file.
    pub path: String,
    /// Its positions on this side.
    pub positions: usize,
    /// Positions the tuned set solved, as recorded.
    pub solved_recorded: usize,
    /// Positions it solves now.
    pub solved_now: usize,
    /// Its nodes, as recorded.
    pub nodes_recorded: u64,
    /// Its nodes now.
    pub nodes_now: u64,
    /// Positions whose outcome (move, solved or nodes) changed.
    pub changed: usize,
}

/// A position whose outcome changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangedPosition {
    /// Which set.
    pub set: String,
    /// The suite file.
    pub suite: String,
    /// Its line there.
    pub line: usize,
    /// Its EPD id.
    pub id: Option<String>,
    /// The position.
    pub fen: String,
    /// As recorded.
    pub before: PositionOutcome,
    /// Now.
    pub now: PositionOutcome,
}

/// One side (training or validation), recorded against now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideCheck {
    /// `training` or `validation`.
    pub side: String,
    /// Positions.
    pub positions: usize,
    /// Each set's objective, recorded and now.
    pub sets: Vec<SetCheck>,
    /// The tuned set now (A) against as recorded (B), position by position.
    pub tuned_now_vs_recorded: PairedComparison,
    /// The tuned set (A) against the baseline (B), both now.
    pub tuned_vs_default: PairedComparison,
    /// The tuned set per suite file.
    pub suites: Vec<SuiteCheck>,
    /// Every position whose outcome changed, for any set (tuned first).
    pub changed: Vec<ChangedPosition>,
    /// Searches an external engine faulted on while this side was measured (each scored
    /// unsolved at the reference's nodes); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub faults: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// Same engine, other figures: the search is deterministic, so a defect or an edit.
    NotReproduced,
    /// Every position came out as recorded, yet the recorded figures differ from what those
    /// outcomes give: the record contradicts itself (edited or damaged), not a regression.
    RecordContradicted,
    /// Significantly fewer positions solved than recorded.
    FewerSolved,
    /// More nodes than recorded beyond [`NODES_TOLERANCE`].
    MoreNodes,
    /// A lower objective than recorded beyond [`OBJECTIVE_TOLERANCE`].
    WorseObjective,
    /// Worse than the baseline on validation.
    WorseThanBaseline,
    /// The non-regression SPRT accepted H0.
    LostGames,
}

/// One reason the check fails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// What kind.
    pub kind: FindingKind,
    /// For people: the side, the set, the suite and the figures.
    pub message: String,
}

/// The non-regression match of `--games`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GamesCheck {
    /// The opening books played, their pairs in turn.
    pub openings: Vec<String>,
    /// The match (tuned as A, the defaults as B).
    pub report: MatchReport,
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing regressed.
    Holds,
    /// At least one finding.
    Regressed,
}

/// Everything a check measured and decided (`--json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// Always [`FORMAT`].
    pub format: String,
    /// The tuned file.
    pub file: String,
    /// marginal's version.
    pub marginal: String,
    /// The engine then and now.
    pub engine: EngineCheck,
    /// Whether the file's margins are the ones its figures were measured with.
    pub margins_as_measured: bool,
    /// The file's tuned margin set.
    pub margins: Values,
    /// Training, then validation.
    pub sides: Vec<SideCheck>,
    /// With `--sample`: the sample measured (the objectives are then tallied from outcomes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<Sample>,
    /// The non-regression match, with `--games`.
    pub games: Option<GamesCheck>,
    /// Why it regressed (empty when it holds).
    pub findings: Vec<Finding>,
    /// Holds or regressed.
    pub verdict: Verdict,
}

/// The figures measured now, with the same shape as the file's.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Training side.
    pub training: Side,
    /// Validation side.
    pub validation: Side,
}

impl Prepared {
    /// The sets to measure: the file's tuned margins, the defaults and `off`.
    fn sets(&self) -> [(&'static str, Setting); 3] {
        [
            ("tuned", self.file.setting_for(&self.def)),
            ("default", Setting::defaults(&self.def)),
            ("off", Setting::off(&self.def)),
        ]
    }

    /// The check of a sample: on each side, the `n` positions with the lowest FNV-1a hash of
    /// their position (the same on every run, whatever the suites' order), each set's recorded
    /// outcomes cut to them. A quick check for a CI budget: every sampled position of every
    /// set must come out as recorded when the engine is the one that measured the file, and the
    /// statistics judge the sample when it is not. The record keeps each position's move,
    /// solution and nodes but not when the move was found, so on a sample the objective of
    /// recorded and measured outcomes alike is tallied from those alone (a solution's whole
    /// credit, and the speed against the reference set): comparable with each other, not with
    /// the figures of a whole check.
    ///
    /// # Errors
    /// [`CheckError::NoOutcomes`]: a file without per-position outcomes has none to sample.
    pub fn sampled(self, n: usize) -> Result<Prepared, CheckError> {
        let path = self.path.display().to_string();
        if !has_outcomes(&self.path, &self.file)? {
            return Err(CheckError::NoOutcomes { path });
        }
        let params = sample_params(&self.options);
        let (training, train_side) = sample_side(self.training, &self.file.training, n, &params);
        let (validation, valid_side) =
            sample_side(self.validation, &self.file.validation, n, &params);
        let sample = Sample {
            asked: n,
            training: (train_side.positions, self.file.training.positions),
            validation: (valid_side.positions, self.file.validation.positions),
        };
        let mut file = self.file;
        file.training = train_side;
        file.validation = valid_side;
        Ok(Prepared {
            file,
            training,
            validation,
            sample: Some(sample),
            ..self
        })
    }

    /// Measures the sets on both sides (on the current rayon pool; results do not depend on
    /// its size).
    ///
    /// # Errors
    /// The scorer's executor could not run the positions.
    pub fn measure(&self) -> Result<Measurement, ExecError> {
        self.measure_observed(&(Arc::new(Silent) as Shared))
    }

    /// [`Prepared::measure`], telling `observer` of each side as it starts
    /// ([`Event::Started`]) and of every position searched on it ([`Event::Done`]): those of
    /// the reference run (when it is not cached), then those of the sets, counted together.
    ///
    /// # Errors
    /// The scorer's executor could not run the positions.
    pub fn measure_observed(&self, observer: &Shared) -> Result<Measurement, ExecError> {
        let sets = self.sets();
        // The sets searched on a side: all but the reference, whose run is the reference's.
        let searched = (sets.iter())
            .filter(|(_, s)| *s != self.options.reference)
            .count();
        let side = |name: &'static str, suites: &LoadedSuites| {
            observer.event(&Event::Started { what: name });
            let observer = observer.clone();
            let counted = std::sync::atomic::AtomicU64::new(0);
            let each = move |event: &Event<'_>| match event {
                // One count a position, whichever set it was for.
                Event::Done(c) if c.work == Work::Positions => {
                    let done = counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    let count = Count::new(Work::Positions, done, c.total * searched as u64);
                    observer.event(&Event::Done(count));
                }
                _ => observer.event(event),
            };
            let scorer =
                SuiteScorer::new(suites.clone(), self.options.clone(), Some(Arc::new(each)))?;
            Side::measure(&scorer, &sets)
        };
        let (training, validation) = (
            side("training", &self.training)?,
            side("validation", &self.validation)?,
        );
        // A sample's objectives are tallied from the outcomes, as its record's are.
        let tally = |side: Side| match self.sample {
            Some(_) => tallied(
                &side,
                &(0..side.positions).collect::<Vec<_>>(),
                &sample_params(&self.options),
            ),
            None => side,
        };
        Ok(Measurement {
            training: tally(training),
            validation: tally(validation),
        })
    }

    /// Compares what was measured with what the file records, and decides.
    pub fn judge(&self, now: &Measurement, games: Option<GamesCheck>) -> CheckReport {
        let recorded_tuned = self.file.training.set("tuned").map(|s| &s.margins);
        let mut findings = Vec::new();
        let sides = [
            (
                "training",
                &self.file.training,
                &now.training,
                &self.training,
            ),
            (
                "validation",
                &self.file.validation,
                &now.validation,
                &self.validation,
            ),
        ]
        .into_iter()
        .map(|(name, then, now, suites)| {
            let side = compare_side(name, then, now, suites);
            judge_side(&side, &self.engine, self.sample.is_some(), &mut findings);
            side
        })
        .collect();
        findings.extend(games.as_ref().and_then(games_finding));
        CheckReport {
            format: FORMAT.to_string(),
            file: self.path.display().to_string(),
            marginal: env!("CARGO_PKG_VERSION").to_string(),
            engine: self.engine.clone(),
            margins_as_measured: recorded_tuned == Some(&self.file.margins),
            margins: self.file.margins.clone(),
            sides,
            sample: self.sample,
            games,
            verdict: if findings.is_empty() {
                Verdict::Holds
            } else {
                Verdict::Regressed
            },
            findings,
        }
    }

    /// The books of the non-regression match: `given`, else the default books of a
    /// confirmation ([`CONFIRM_BOOKS`]: the two balanced books and UHO) less the one the file's
    /// games objective tuned on, so that the games are played on openings the tune never saw.
    pub fn books(&self, given: &[PathBuf]) -> Vec<PathBuf> {
        if !given.is_empty() {
            return given.to_vec();
        }
        let tuned_on = self.file.games.as_ref().map(|g| g.openings.clone());
        CONFIRM_BOOKS
            .iter()
            .map(PathBuf::from)
            .filter(|p| Some(p) != tuned_on.as_ref())
            .collect()
    }

    /// The books of the non-regression match ([`Prepared::books`]) read, before any work:
    /// each found, readable, and together holding an opening for each of the pairs of `games`.
    ///
    /// # Errors
    /// A book is missing, unreadable or too short.
    pub fn read_books(&self, books: &[PathBuf], games: u32) -> Result<GameBooks, CheckError> {
        let name = self.path.display().to_string();
        let mut read = Vec::new();
        let mut shown = Vec::new();
        for book_path in self.books(books) {
            let found = locate(&book_path, &self.path).map_err(|tried| CheckError::Missing {
                path: name.clone(),
                what: "opening book",
                file: book_path.display().to_string(),
                tried: tried_text(&tried),
            })?;
            let book = openings::read(&found).map_err(|e| CheckError::Book {
                path: name.clone(),
                message: e.to_string(),
            })?;
            shown.push(found.display().to_string());
            read.push(book.records);
        }
        // Each pair opens from its own position: a shorter list would replay a pair (the same
        // games at a fixed limit) and count it twice.
        let pairs = games.max(2).div_ceil(2) as usize;
        let have: usize = read.iter().map(Vec::len).sum();
        if have < pairs {
            return Err(CheckError::Book {
                path: name,
                message: format!(
                    "{have} opening(s) in {} for the {pairs} pairs of --games {games}: give a larger book (--openings) or fewer --games",
                    shown.join(", ")
                ),
            });
        }
        Ok(GameBooks {
            openings: interleave_openings(&read, self.file.provenance.seed),
            shown,
        })
    }

    /// The non-regression match, opened: the tuned set against the defaults for at most
    /// `games` games, stopped by [`NON_REGRESSION`], at the file's recorded per-move limit (its
    /// confirmation match's, else its games objective's, else [`DEFAULT_GAME_NODES`]) on
    /// `books` ([`Prepared::read_books`]: their pairs in turn, judged pooled).
    ///
    /// With a cache directory, the pairs go to a PGN in it as they finish
    /// (`check-games-KEY.pgn`, KEY a digest of everything that decides the games), so an
    /// interrupted check keeps them and the rerun plays only the rest; the record is removed
    /// once the match has ended. A record that cannot be resumed (damaged) is set aside and
    /// the match starts over; a cache that cannot hold one leaves the games unkept. Either is
    /// said in [`GamesMatch::note`].
    ///
    /// # Errors
    /// None in practice: a session without a record always opens.
    pub fn open_games(
        &self,
        books: GameBooks,
        games: u32,
        concurrency: usize,
    ) -> Result<GamesMatch, SessionError> {
        let game = match (&self.file.confirm, &self.file.games) {
            (Some(c), _) => c.config.game,
            (None, Some(g)) => GameConfig {
                limit: g.limit,
                ..GameConfig::default()
            },
            (None, None) => GameConfig {
                limit: MoveLimit::Nodes(DEFAULT_GAME_NODES),
                ..GameConfig::default()
            },
        };
        let config = MatchConfig {
            game,
            games: games.max(2),
            concurrency,
            sprt: Some(NON_REGRESSION),
        };
        let hash_mb = self.options.config.hash_mb;
        let tuned = self.file.setting_for(&self.def);
        let baseline = Setting::defaults(&self.def);
        let record = self.options.cache_dir.as_ref().map(|dir| {
            let asked = session::Asked {
                a: "tuned",
                b: "default",
                seed: self.file.provenance.seed,
                hash_mb,
            };
            let settings = session::settings(&asked, (&tuned, &baseline), &books.openings, &config);
            let mut key = Fnv::new();
            for setting in &settings {
                for value in std::iter::once(&setting.value).chain(&setting.former) {
                    key.write(format!("{}={value}\n", setting.key).as_bytes());
                }
            }
            let path = dir.join(format!("check-games-{:016x}.pgn", key.finish()));
            RecordPlan {
                resume: path.exists(),
                settings,
                path,
            }
        });
        let open = |record: Option<&RecordPlan>| {
            Session::open(
                session::Side {
                    name: "tuned".into(),
                    setting: tuned.clone(),
                },
                session::Side {
                    name: "baseline".into(),
                    setting: baseline.clone(),
                },
                hash_mb,
                config,
                books.openings.clone(),
                record,
            )
        };
        let (session, record, note, held) = match record {
            None => (open(None)?, None, None, None),
            Some(plan) => match Self::hold_record(&plan.path) {
                Err(note) => (open(None)?, None, Some(note), None),
                Ok(held) => {
                    let (session, record, note) = Self::open_record(plan, open)?;
                    (session, record, note, held)
                }
            },
        };
        Ok(GamesMatch {
            session,
            record,
            note,
            _held: held,
            config,
            shown: books.shown,
        })
    }

    /// Holds the record `path` in the cache for this check ([`lock::hold`]); `None` when no
    /// lock can be made there (opening the record then says why).
    ///
    /// # Errors
    /// Another check of the same games holds it: what to say (this one plays them unkept, so
    /// both checks finish and neither appends to the other's record).
    fn hold_record(path: &Path) -> Result<Option<lock::Held>, String> {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        match lock::hold(path) {
            Ok(held) => Ok(Some(held)),
            Err(lock::LockError::Io { .. } | lock::LockError::Unsupported { .. }) => Ok(None),
            Err(lock::LockError::Busy { pid, .. }) => Err(format!(
                "another check ({}) keeps the record of these games in {}: this one plays them without a record (an interrupt loses them)",
                pid.map_or_else(|| "pid not written yet".to_string(), |p| format!("pid {p}")),
                path.display()
            )),
        }
    }

    /// Opens the match with its record in the cache: resumed, or set aside and started
    /// again when it cannot be resumed, or left out when the cache cannot hold it (the games
    /// are then played unkept). Returns the session, its record, and what to tell the user.
    fn open_record(
        plan: RecordPlan,
        open: impl Fn(Option<&RecordPlan>) -> Result<Session, SessionError>,
    ) -> Result<(Session, Option<PathBuf>, Option<String>), SessionError> {
        let unkept = |e: SessionError| {
            let note = format!(
                "the games cannot be kept in {} ({e}): an interrupted check plays them again",
                plan.path.display()
            );
            Ok((open(None)?, None, Some(note)))
        };
        if let Some(dir) = plan.path.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            return unkept(SessionError::Write(e));
        }
        match open(Some(&plan)) {
            Ok(session) => Ok((session, Some(plan.path.clone()), None)),
            Err(SessionError::Record(e)) if plan.resume => {
                // A cache file: set aside, never a reason to refuse the check.
                for path in [plan.path.clone(), record::record_path(&plan.path)] {
                    let _ = std::fs::remove_file(path);
                }
                let fresh = RecordPlan {
                    resume: false,
                    ..plan.clone()
                };
                match open(Some(&fresh)) {
                    Ok(session) => Ok((
                        session,
                        Some(plan.path.clone()),
                        Some(format!(
                            "the games kept by an interrupted check could not be resumed ({e}); they are played again"
                        )),
                    )),
                    Err(e) => unkept(e),
                }
            }
            Err(e) => unkept(e),
        }
    }

    /// The file with the figures measured now in place of the recorded ones (the tuned set,
    /// the defaults and `off` on both sides, the paired tests), and the engine that measured
    /// them (its signature; for an external engine also its record): what `marginal check
    /// --update` writes. The tuning run's provenance is kept.
    pub fn updated(&self, now: &Measurement, command_line: String) -> TunedFile {
        let mut file = self.file.clone();
        file.training = now.training.clone();
        file.validation = now.validation.clone();
        file.paired = Paired {
            training: now.training.paired("tuned", "default").expect("measured"),
            validation: now.validation.paired("tuned", "default").expect("measured"),
        };
        // An external engine given now may be described by another file (its rows hold every
        // tuned one): the file now names it, so a later check asks for it.
        if !self.def.is_builtin() {
            file.engine = EngineRecord::of(&self.def);
        }
        file.measured = Some(Measured {
            marginal: env!("CARGO_PKG_VERSION").to_string(),
            engine_bench_nodes: self.engine.bench_nodes,
            engine_signature: self.engine.signature.clone(),
            command_line,
        });
        file
    }
}

/// The finding of a non-regression match whose SPRT accepted H0.
fn games_finding(games: &GamesCheck) -> Option<Finding> {
    let report = &games.report;
    let sprt = report.sprt.as_ref()?;
    if sprt.decision != SprtDecision::AcceptH0 {
        return None;
    }
    let e = EloSummary::from(report.estimate());
    Some(Finding {
        kind: FindingKind::LostGames,
        message: format!(
            "games: the non-regression SPRT nElo [{}, {}] accepted H0 after {} games: nElo {:+.1} [{:+.1}, {:+.1}] against the defaults",
            sprt.params.elo0,
            sprt.params.elo1,
            report.games,
            Shown(e.nelo),
            Shown(e.nelo_lower),
            Shown(e.nelo_upper)
        ),
    })
}

/// The objective's parameters on a sample: no credit for an early solution (the record does
/// not say when a move was found).
fn sample_params(options: &ScorerOptions) -> ObjectiveParams {
    ObjectiveParams {
        early: 0.0,
        ..options.objective
    }
}

/// The positions of `suites` in a sample of `n` ([`Prepared::sampled`]), and `side`'s figures
/// cut to them.
fn sample_side(
    suites: LoadedSuites,
    side: &Side,
    n: usize,
    params: &ObjectiveParams,
) -> (LoadedSuites, Side) {
    // By the position (as repeats are found), so a position and its repeats go together.
    let key = |p: &SuitePosition| repeat_key(&p.record.position);
    let mut hashed: Vec<(u64, String)> = (suites.positions.iter())
        .map(|p| {
            let key = key(p);
            let mut h = Fnv::new();
            h.write(key.as_bytes());
            (h.finish(), key)
        })
        .collect();
    hashed.sort();
    hashed.dedup();
    let chosen: HashSet<String> = hashed.into_iter().take(n).map(|(_, k)| k).collect();
    let kept: Vec<usize> = (suites.positions.iter().enumerate())
        .filter(|(_, p)| chosen.contains(&key(p)))
        .map(|(i, _)| i)
        .collect();
    let tag = format!("{SAMPLE_TAG}-{n}");
    let (sample, _) = suites.partition(&tag, |p| chosen.contains(&key(p)));
    (sample, tallied(side, &kept, params))
}

/// `side` cut to the positions `kept` (indices into it), each set's objective tallied from its
/// outcomes against the `off` set's (the reference run).
fn tallied(side: &Side, kept: &[usize], params: &ObjectiveParams) -> Side {
    let cut = |set: &SetFigures| -> Vec<PositionOutcome> {
        kept.iter().map(|&i| set.positions[i].clone()).collect()
    };
    let reference: Vec<PositionResult> = side
        .set("off")
        .map(|off| cut(off).iter().map(outcome_result).collect())
        .unwrap_or_default();
    let sets = (side.sets.iter())
        .map(|set| {
            let positions = cut(set);
            let results: Vec<PositionResult> = positions.iter().map(outcome_result).collect();
            let reference = if reference.is_empty() {
                &results
            } else {
                &reference
            };
            SetFigures {
                objective: objective::evaluate(&results, reference, params),
                positions,
                ..set.clone()
            }
        })
        .collect();
    Side {
        positions: kept.len(),
        sets,
        faults: side.faults,
    }
}

/// A search result with what an outcome keeps (move, solution, nodes), for a tally.
fn outcome_result(o: &PositionOutcome) -> PositionResult {
    PositionResult {
        suite: String::new(),
        line: 0,
        id: None,
        best_move: o.best_move.clone(),
        solved: o.solved,
        points: u32::from(o.solved),
        max_points: 1,
        score: 0,
        depth: 0,
        nodes: o.nodes,
        found_at: o.nodes,
        prunes: PruneStats::default(),
        fault: None,
        overshot: false,
    }
}

/// Recorded against now on one side.
fn compare_side(name: &str, then: &Side, now: &Side, suites: &LoadedSuites) -> SideCheck {
    let mut sets = Vec::new();
    let mut changed = Vec::new();
    for set in SETS {
        let (Some(a), Some(b)) = (then.set(set), now.set(set)) else {
            continue;
        };
        sets.push(SetCheck {
            name: set.to_string(),
            recorded: a.objective,
            now: b.objective,
        });
        for (i, (before, after)) in a.positions.iter().zip(&b.positions).enumerate() {
            if before != after {
                let p = &suites.positions[i];
                changed.push(ChangedPosition {
                    set: set.to_string(),
                    suite: p.suite.clone(),
                    line: p.record.line,
                    id: p.record.id.clone(),
                    fen: p.record.fen.clone(),
                    before: before.clone(),
                    now: after.clone(),
                });
            }
        }
    }
    let tuned = |side: &Side| -> Vec<PositionOutcome> {
        side.set("tuned")
            .map(|s| s.positions.clone())
            .unwrap_or_default()
    };
    let (before, after) = (tuned(then), tuned(now));
    let solved = |v: &[PositionOutcome]| v.iter().map(|p| p.solved).collect::<Vec<_>>();
    let tuned_now_vs_recorded =
        PairedComparison::new(&solved(&after), &solved(&before)).expect("same positions");
    let suites = suites
        .ranges()
        .map(|(file, range)| {
            let (b, a) = (&before[range.clone()], &after[range]);
            SuiteCheck {
                path: file.path.clone(),
                positions: file.positions,
                solved_recorded: b.iter().filter(|p| p.solved).count(),
                solved_now: a.iter().filter(|p| p.solved).count(),
                nodes_recorded: b.iter().map(|p| p.nodes).sum(),
                nodes_now: a.iter().map(|p| p.nodes).sum(),
                changed: b.iter().zip(a).filter(|(x, y)| x != y).count(),
            }
        })
        .collect();
    SideCheck {
        side: name.to_string(),
        positions: now.positions,
        sets,
        tuned_now_vs_recorded,
        tuned_vs_default: now.paired("tuned", "default").expect("measured"),
        suites,
        changed,
        faults: now.faults,
    }
}

/// The suites where the tuned set lost solutions, for messages: `wac.epd 100 -> 95`.
fn suite_losses(side: &SideCheck) -> String {
    let lost: Vec<String> = side
        .suites
        .iter()
        .filter(|s| s.solved_now != s.solved_recorded)
        .map(|s| format!("{} {} -> {}", s.path, s.solved_recorded, s.solved_now))
        .collect();
    if lost.is_empty() {
        String::new()
    } else {
        format!(" ({})", lost.join(", "))
    }
}

/// Whether A solved significantly fewer positions than B (McNemar at [`SIGNIFICANCE`]).
fn significantly_fewer(p: &PairedComparison) -> bool {
    p.only_b > p.only_a && p.p_value < SIGNIFICANCE
}

/// Adds the findings of one side (`sampled`: a sample's, see [`judge_against_defaults`]).
fn judge_side(side: &SideCheck, engine: &EngineCheck, sampled: bool, findings: &mut Vec<Finding>) {
    if engine.same {
        judge_reproduced(side, engine, findings);
    }
    let Some(tuned) = side.sets.iter().find(|s| s.name == "tuned") else {
        return;
    };
    judge_tuned(side, tuned, findings);
    if side.side != "validation" {
        return;
    }
    let Some(default) = side.sets.iter().find(|s| s.name == "default") else {
        return;
    };
    judge_against_defaults(side, tuned, default, sampled, findings);
}

/// The findings of a side measured by the engine that measured the file: a set whose
/// positions moved, or whose figures are not what its unmoved positions give.
fn judge_reproduced(side: &SideCheck, engine: &EngineCheck, findings: &mut Vec<Finding>) {
    let name = &side.side;
    let mut add = |kind, message: String| findings.push(Finding { kind, message });
    // An external engine's signature covers its description only, not its program.
    let causes = if engine.external.is_some() {
        "a defect, the file was edited, or the engine's program changed"
    } else {
        "a defect or the file was edited"
    };
    for set in &side.sets {
        let moved = side.changed.iter().filter(|c| c.set == set.name).count();
        // With no position of any set moved, the figures must come out as recorded; once
        // one moved (the reference's, say, after an engine fault), an unmoved set's
        // objective moves with it, and the moved set is the finding.
        if moved == 0 && side.changed.is_empty() && set.recorded != set.now {
            add(
                FindingKind::RecordContradicted,
                format!(
                    "{name}, {} set: every position came out as its record says, yet the recorded figures (solved {}, nodes {}, objective {:.3}) are not what those outcomes give (solved {}, nodes {}, objective {:.3}): the file was edited or damaged",
                    set.name,
                    set.recorded.solved,
                    set.recorded.nodes,
                    set.recorded.value,
                    set.now.solved,
                    set.now.nodes,
                    set.now.value
                ),
            );
        } else if moved > 0 {
            add(
                FindingKind::NotReproduced,
                format!(
                    "{name}, {} set: the engine is the one that measured the file, yet {moved} position(s) changed (solved {} -> {}, nodes {} -> {}, objective {:.3} -> {:.3}); {}",
                    set.name,
                    set.recorded.solved,
                    set.now.solved,
                    set.recorded.nodes,
                    set.now.nodes,
                    set.recorded.value,
                    set.now.value,
                    if side.faults > 0 {
                        format!(
                            "the engine faulted on {} search(es) of this side during the check, each scored unsolved, so the faults move these figures: fix the engine (or its engine file) and check again",
                            side.faults
                        )
                    } else {
                        format!("the search is deterministic, so this is {causes}")
                    }
                ),
            );
        }
    }
}

/// The findings of the tuned set against its record: fewer solved, more nodes, a worse
/// objective.
fn judge_tuned(side: &SideCheck, tuned: &SetCheck, findings: &mut Vec<Finding>) {
    let name = &side.side;
    let mut add = |kind, message: String| findings.push(Finding { kind, message });
    let paired = &side.tuned_now_vs_recorded;
    if significantly_fewer(paired) {
        add(
            FindingKind::FewerSolved,
            format!(
                "{name}: the tuned set solves {} positions, {} recorded{}: {} lost, {} gained, McNemar p = {:.4} < {SIGNIFICANCE}",
                tuned.now.solved,
                tuned.recorded.solved,
                suite_losses(side),
                paired.only_b,
                paired.only_a,
                paired.p_value
            ),
        );
    }
    if tuned.now.nodes as f64 > tuned.recorded.nodes as f64 * (1.0 + NODES_TOLERANCE) {
        add(
            FindingKind::MoreNodes,
            format!(
                "{name}: the tuned set searches {} nodes, {} recorded (+{:.1}% > {:.0}%)",
                tuned.now.nodes,
                tuned.recorded.nodes,
                100.0 * (tuned.now.nodes as f64 / tuned.recorded.nodes.max(1) as f64 - 1.0),
                100.0 * NODES_TOLERANCE
            ),
        );
    }
    if tuned.now.value < tuned.recorded.value - OBJECTIVE_TOLERANCE {
        add(
            FindingKind::WorseObjective,
            format!(
                "{name}: the tuned set's objective is {:.3}, {:.3} recorded (lower by more than {OBJECTIVE_TOLERANCE})",
                tuned.now.value, tuned.recorded.value
            ),
        );
    }
}

/// The findings of the validation side's tuned set against the defaults. On a sample
/// (`sampled`) only McNemar's test judges them: the objective's tolerance of a point is set for
/// a whole side, where a position is worth a fraction of one; on 50 positions one is worth 2.
fn judge_against_defaults(
    side: &SideCheck,
    tuned: &SetCheck,
    default: &SetCheck,
    sampled: bool,
    findings: &mut Vec<Finding>,
) {
    let mut add = |kind, message: String| findings.push(Finding { kind, message });
    let vs = &side.tuned_vs_default;
    if significantly_fewer(vs) {
        add(
            FindingKind::WorseThanBaseline,
            format!(
                "validation: the tuned set solves {} positions, the defaults {}: {} solved by the defaults only, {} by the tuned set only, McNemar p = {:.4} < {SIGNIFICANCE}",
                tuned.now.solved, default.now.solved, vs.only_b, vs.only_a, vs.p_value
            ),
        );
    }
    if !sampled && tuned.now.value < default.now.value - OBJECTIVE_TOLERANCE {
        add(
            FindingKind::WorseThanBaseline,
            format!(
                "validation: the tuned set's objective is {:.3}, the defaults' {:.3} (lower by more than {OBJECTIVE_TOLERANCE})",
                tuned.now.value, default.now.value
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_games_record_another_check_holds_is_left_to_it_naming_its_pid() {
        let dir = std::env::temp_dir().join(format!("marginal-check-held-{}", std::process::id()));
        let record = dir.join("check-games-0.pgn");
        // The first check holds its record; a second one at once keeps out of it, saying so.
        let first = Prepared::hold_record(&record).unwrap();
        assert!(first.is_some());
        let note = Prepared::hold_record(&record).unwrap_err();
        assert!(
            note.contains(&format!("pid {}", std::process::id()))
                && note.contains(&record.display().to_string())
                && note.contains("without a record"),
            "{note}"
        );
        drop(first);
        assert!(Prepared::hold_record(&record).unwrap().is_some());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn only_an_accepted_h0_of_the_games_is_a_finding() {
        // A real match report (the shipped 1,000 games of spsa-suite against the defaults),
        // given the non-regression SPRT with each verdict in turn.
        let text = include_str!("../tuned/matches/spsa-suite-5000.json");
        let mut report: MatchReport = serde_json::from_str(text).unwrap();
        let mut games = |decision| {
            report.sprt = Some(crate::scoring::games::matches::SprtReport {
                params: NON_REGRESSION,
                llr: Some(0.0),
                lower: Some(-2.94),
                upper: Some(2.94),
                decision,
            });
            games_finding(&GamesCheck {
                openings: vec![CONFIRM_BOOKS[0].to_string()],
                report: report.clone(),
            })
        };
        assert_eq!(games(SprtDecision::AcceptH1), None);
        assert_eq!(games(SprtDecision::Continue), None);
        let finding = games(SprtDecision::AcceptH0).unwrap();
        assert_eq!(finding.kind, FindingKind::LostGames);
        assert!(
            finding.message.contains("accepted H0"),
            "{}",
            finding.message
        );
    }

    #[test]
    fn a_sample_judges_the_tuned_set_against_the_defaults_by_mcnemar_alone() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/spsa-suite.json");
        let file = TunedFile::read(&path).unwrap();
        let prepared = prepare(&path, file, None).unwrap().sampled(30).unwrap();
        let mut now = prepared.measure().unwrap();
        assert!(prepared.judge(&now, None).findings.is_empty());
        // The defaults' objective 5 points above the tuned set's: a whole check's finding, a
        // sample's noise (30 positions, one worth 3.3 points).
        let tuned = now.validation.set("tuned").unwrap().objective.value;
        let default = (now.validation.sets.iter_mut())
            .find(|s| s.name == "default")
            .unwrap();
        default.objective.value = tuned + 5.0;
        // (The edit contradicts the defaults' record too, a finding of its own: not this one.)
        let worse = |p: &Prepared| {
            (p.judge(&now, None).findings.into_iter())
                .filter(|f| f.kind == FindingKind::WorseThanBaseline)
                .collect::<Vec<_>>()
        };
        assert_eq!(worse(&prepared), []);
        let whole = Prepared {
            sample: None,
            ..prepared
        };
        let found = worse(&whole);
        assert!(
            found.len() == 1 && found[0].message.contains("objective"),
            "{found:?}"
        );
    }

    #[test]
    fn files_are_found_as_given_or_beside_the_tuned_file() {
        let dir = std::env::temp_dir().join(format!("marginal-locate-{}", std::process::id()));
        let nested = dir.join("tuned");
        std::fs::create_dir_all(nested.join("inner")).unwrap();
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("data/x.epd"), "").unwrap();
        let tuned = nested.join("inner/t.json");
        let found = locate(Path::new("data/x.epd"), &tuned).unwrap();
        assert_eq!(
            found.canonicalize().unwrap(),
            dir.join("data/x.epd").canonicalize().unwrap()
        );
        let tried = locate(Path::new("data/none.epd"), &tuned).unwrap_err();
        assert!(tried.len() >= 4, "{tried:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
