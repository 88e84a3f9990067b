//! The subcommands of the `marginal` binary: thin printers over the library, and the small
//! pieces they share (margin-set specs, thread counts, user errors); the terminal printer of
//! their progress is [`progress`].

pub mod calibrate;
pub mod check;
pub mod executor;
pub mod export;
pub mod match_cmd;
pub mod progress;
pub mod suite;
pub mod tune;
pub mod work;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::builder::RangedU64ValueParser;
use marginal::engine::tt::TranspositionTable;
use marginal::engine::{EngineDef, MAX_DEPTH, MAX_HASH_MB, Setting};
use marginal::formats::outputs;
pub use marginal::formats::outputs::read_output;
use marginal::margin_spec;
use marginal::params::Margins;
use marginal::progress::Said;
use marginal::scoring::suite::objective::{DEFAULT_EARLY, DEFAULT_WEIGHT, ObjectiveParams};
use marginal::scoring::suite::{Repeats, RunConfig};
use serde::{Deserialize, Serialize};

/// An error in what the user gave (a file, an option, a margin set): exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UserError(pub String);

/// The measured thing failed (a regression, a rejected SPRT): exit status 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Failed(pub String);

/// The exit status of work stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report
/// Ctrl-C).
pub const INTERRUPTED_STATUS: u8 = 130;

/// The work was stopped by a signal before its end (what was finished is kept): exit status
/// [`INTERRUPTED_STATUS`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

pub use marginal::tune::report::calibration_note;

impl From<outputs::OutputError> for UserError {
    fn from(e: outputs::OutputError) -> Self {
        UserError(e.0)
    }
}

impl From<margin_spec::MarginSpecError> for UserError {
    fn from(e: margin_spec::MarginSpecError) -> Self {
        UserError(e.to_string())
    }
}

impl UserError {
    /// A user error from any error's message.
    pub fn from_display(e: impl std::fmt::Display) -> Self {
        UserError(e.to_string())
    }
}

/// Which engine a command searches with: marginal's own (the default), an engine file, or an
/// engine command whose rows come from its own `option` lines.
#[derive(clap::Args, Clone, Default, Serialize, Deserialize)]
pub struct EngineArgs {
    /// An external UCI engine described by an engine file (TOML: command, options and the
    /// tunable rows; see docs/external-engines.md).
    #[arg(long, value_name = "FILE", conflicts_with = "engine_cmd")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<PathBuf>,
    /// An external UCI engine by its command line; its tunable rows are the spin options named
    /// by --engine-options, with min, max and default from its own `option` lines.
    #[arg(long, value_name = "CMD", requires = "engine_options")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_cmd: Option<String>,
    /// With --engine-cmd: the options to tune, comma-separated, each `Name` or `Name=OFF`
    /// (its value in the reference run; default: the engine's default).
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        requires = "engine_cmd"
    )]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_options: Vec<String>,
}

impl EngineArgs {
    /// The engine these arguments name.
    ///
    /// # Errors
    /// A bad engine file, or an engine that does not start or lacks an option.
    pub fn def(&self, max_faults: usize) -> Result<Arc<EngineDef>, UserError> {
        engine_def(
            self.engine.as_deref(),
            self.engine_cmd.as_deref(),
            &self.engine_options,
            max_faults,
        )
    }
}

/// The engine the options name ([`EngineDef::open`]), its warnings said.
///
/// # Errors
/// As [`EngineArgs::def`].
pub fn engine_def(
    file: Option<&Path>,
    command: Option<&str>,
    options: &[String],
    max_faults: usize,
) -> Result<Arc<EngineDef>, UserError> {
    let (def, warnings) =
        EngineDef::open(file, command, options, max_faults).map_err(UserError::from_display)?;
    say_warnings(&warnings);
    Ok(def)
}

/// A margin set of `def`'s engine as users write it ([`margin_spec::resolve_for`]): a
/// built-in name, a tuned file or `name=value` assignments.
///
/// # Errors
/// An unknown name or row, a bad value, a file of another engine.
pub fn resolve_for(def: &Arc<EngineDef>, spec: &str) -> Result<Setting, UserError> {
    Ok(margin_spec::resolve_for(def, spec)?)
}

/// A setting of `def`'s engine from `--margins SPEC` plus `--set name=value` overrides
/// ([`margin_spec::setting_from`]), its warnings said on standard error.
///
/// # Errors
/// As [`resolve_for`], or a bad override.
pub fn setting_from(
    def: &Arc<EngineDef>,
    spec: &str,
    sets: &[String],
) -> Result<Setting, UserError> {
    let (setting, warnings) = margin_spec::setting_from(def, spec, sets)?;
    say_warnings(&warnings);
    Ok(setting)
}

/// Says on standard error the values a margin-set file gives to rows whose technique is off in
/// it ([`margin_spec::idle_in_file`]).
pub fn say_idle_in_file(file: &str, margins: &Margins) {
    say_warnings(&margin_spec::idle_in_file(file, margins));
}

/// A margin set from `--margins SPEC` plus `--set name=value` overrides
/// ([`margin_spec::margins_from`]), its warnings said on standard error.
///
/// # Errors
/// As [`resolve`], or a bad override.
pub fn margins_from(spec: &str, sets: &[String]) -> Result<Margins, UserError> {
    let (margins, warnings) = margin_spec::margins_from(spec, sets)?;
    say_warnings(&warnings);
    Ok(margins)
}

/// Says each warning on standard error, after `warning: `.
fn say_warnings(warnings: &[String]) {
    (warnings.iter()).for_each(|w| progress::say(&Said::Warning(w.clone())));
}

/// The most worker threads (or games at once) a command accepts.
pub const MAX_THREADS: usize = 256;

/// `--threads` and `--concurrency`: 1 to [`MAX_THREADS`].
pub fn threads_arg() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=MAX_THREADS as u64)
}

/// `--hash`: 0 (no table) to [`MAX_HASH_MB`] megabytes, as the UCI option, and a size the
/// allocator grants (checked before any work, so a huge table is a clear error, not an abort).
pub fn hash_arg(text: &str) -> Result<usize, String> {
    let mb: usize = count::<usize, 0>(text)?;
    if mb > MAX_HASH_MB {
        return Err(format!("{mb} is not in 0..={MAX_HASH_MB} (megabytes)"));
    }
    TranspositionTable::can_allocate(mb).map_err(|e| e.to_string())?;
    Ok(mb)
}

/// `--hash MB` for `searches` searches at once: the tables must fit together
/// ([`marginal::engine::tt::hash_fits`]).
///
/// # Errors
/// The tables do not fit: names the option, the sizes and the fix.
pub fn hash_fits(mb: usize, searches: usize) -> Result<(), UserError> {
    marginal::engine::tt::hash_fits(mb, searches).map_err(UserError::from_display)
}

/// `--depth`: 1 to [`MAX_DEPTH`] plies.
pub fn depth_arg() -> fn(&str) -> Result<u32, String> {
    |text| {
        let text = text.trim();
        match text.parse::<i64>() {
            Ok(d) if (1..=i64::from(MAX_DEPTH)).contains(&d) => Ok(d as u32),
            Ok(_) => Err(format!(
                "{text} is out of range: a depth is 1 to {MAX_DEPTH} plies"
            )),
            Err(_) => Err(format!("'{text}' is not a whole number of plies")),
        }
    }
}

/// A whole number of at least `MIN` (`--nodes`, `--iterations`, `--pairs`, `--games`, ...).
pub fn count<T: TryFrom<u64>, const MIN: u64>(text: &str) -> Result<T, String> {
    if text.trim().parse::<i64>().is_ok_and(|n| n < 0) {
        return Err(format!("{} is too small: at least {MIN}", text.trim()));
    }
    let digits = text.trim();
    let n: u64 = digits.parse().map_err(|_| {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            format!("{digits} is too large (at most {})", u64::MAX)
        } else {
            format!("'{text}' is not a whole number")
        }
    })?;
    if n < MIN {
        return Err(format!("{n} is too small: at least {MIN}"));
    }
    T::try_from(n).map_err(|_| format!("{n} is too large"))
}

/// `--seed`: a whole number from 0 to 2^64 - 1.
pub fn seed_arg(text: &str) -> Result<u64, String> {
    count::<u64, 0>(text)
        .map_err(|e| format!("{e}: a seed is a whole number from 0 to {}", u64::MAX))
}

/// Games played in whole pairs: an odd count is rounded up, and the output says so.
pub fn whole_pairs(games: u32, option: &str) -> u32 {
    let rounded = games.div_ceil(2) * 2;
    if rounded != games {
        println!("note: {option} {games} rounded up to {rounded} (games are played in pairs)");
    }
    rounded
}

/// A finite number at least 0 (`--weight`).
pub fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("'{text}' is not a finite number >= 0")),
    }
}

/// A finite number greater than 0 (`--gain`).
pub fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("'{text}' is not a finite number > 0")),
    }
}

/// A share in [0, 1] (`--early`).
pub fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("'{text}' is not a number in [0, 1]")),
    }
}

/// Checks before any work that `path` can be written ([`outputs::writable`]), and says on
/// standard error the directory it created for it.
pub fn writable(path: &Path, option: &str) -> Result<(), UserError> {
    say_note(outputs::writable(path, option)?);
    Ok(())
}

/// Says a guard's note (a directory it created) on standard error.
fn say_note(note: Option<String>) {
    note.map(Said::Note).iter().for_each(progress::say);
}

/// Says on standard error what is odd in the suites a command reads
/// ([`marginal::scoring::suite::odd_suites`]).
pub fn say_odd_suites(paths: &[PathBuf], suites: &[&marginal::scoring::suite::LoadedSuites]) {
    say_warnings(&marginal::scoring::suite::odd_suites(paths, suites));
}

pub use marginal::scoring::suite::measure::ignored_options;

/// Says, when `given`, that --force does nothing without the `output` it would replace.
pub fn idle_force(given: bool, output: &str) {
    if given {
        eprintln!(
            "warning: --force does nothing here: it replaces the {output} output when it exists, and no {output} is given"
        );
    }
}

/// Refuses to write over an existing `out` unless `force` ([`outputs::fresh_output`]), and
/// says the directory it created for it.
///
/// # Errors
/// A user error (exit 2) naming the option, the file and the fix.
pub fn fresh_output(out: &Path, option: &str, force: bool) -> Result<(), UserError> {
    say_note(outputs::fresh_output(out, option, force)?);
    Ok(())
}

/// [`fresh_output`] for a JSON output ([`outputs::fresh_json_output`]): `--force` replaces a
/// JSON file, never a file of another kind, and a `--json` report never a run's result.
///
/// # Errors
/// As [`fresh_output`], and a file there that is not JSON.
pub fn fresh_json_output(out: &Path, option: &str, force: bool) -> Result<(), UserError> {
    say_note(outputs::fresh_json_output(
        out,
        option,
        force,
        &marginal::tune::prepare::RESULT_FORMATS,
    )?);
    Ok(())
}

/// The plot beside a tuned file, checked ([`outputs::plot_beside`]).
///
/// # Errors
/// The plot would be the file or an input, or replace a file marginal did not draw.
pub fn plot_beside(
    file: &Path,
    option: &str,
    force: bool,
    inputs: &[(&str, &Path)],
) -> Result<PathBuf, UserError> {
    Ok(outputs::plot_beside(file, option, force, inputs)?)
}

pub use marginal::check::recorded_inputs;

/// Refuses an output path that names one of the command's inputs
/// ([`outputs::not_an_input`]).
///
/// # Errors
/// A user error (exit 2) naming both.
pub fn not_an_input(out: &Path, option: &str, inputs: &[(&str, &Path)]) -> Result<(), UserError> {
    Ok(outputs::not_an_input(out, option, inputs)?)
}

/// What the command line says to every command: how progress is shown (`--quiet`) and after
/// how many faults in a row an external engine is given up on (`--max-faults`).
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    /// The terminal printer.
    pub printer: progress::Printer,
    /// `--max-faults`.
    pub max_faults: usize,
}

/// The worker count: as asked, else every core.
pub fn threads(asked: Option<usize>) -> usize {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

/// The arguments of a command as parsed from `args` alone (its defaults and those): what a
/// command line's options are compared with to say which of them were given and do nothing.
pub fn parsed_alone<T: clap::Args>(command: &str, args: &[&str]) -> Option<T> {
    #[derive(clap::Parser)]
    struct Alone<T: clap::Args> {
        #[command(flatten)]
        args: T,
    }
    use clap::Parser as _;
    Alone::<T>::try_parse_from(std::iter::once(command).chain(args.iter().copied()))
        .ok()
        .map(|a| a.args)
}

/// The suite objective's options, shared by `suite` and `tune`.
#[derive(clap::Args, Clone, Serialize, Deserialize)]
pub struct ScoringArgs {
    /// Objective weight: accuracy points per halving of the node count (>= 0).
    #[arg(long, default_value_t = DEFAULT_WEIGHT, value_parser = non_negative)]
    pub weight: f64,
    /// Objective: share of a solution's credit that depends on how early it was found, 0 to 1.
    #[arg(long, default_value_t = DEFAULT_EARLY, value_parser = fraction)]
    pub early: f64,
    /// Transposition table per search, megabytes (0 to 16384).
    #[arg(long, default_value_t = RunConfig::default().hash_mb, value_parser = hash_arg)]
    pub hash: usize,
    /// Score a position that repeats an earlier one (the same FEN, in any file) each time it
    /// appears, so that it weighs double; without it the repeat is left out.
    #[arg(long)]
    #[serde(default)]
    pub count_repeats: bool,
}

impl ScoringArgs {
    /// The objective's parameters.
    pub fn params(&self) -> ObjectiveParams {
        ObjectiveParams {
            weight: self.weight,
            early: self.early,
        }
    }

    /// How a repeated position is scored.
    pub fn repeats(&self) -> Repeats {
        Repeats::counted(self.count_repeats)
    }
}
