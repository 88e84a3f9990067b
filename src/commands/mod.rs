//! The subcommands of the `marginal` binary: thin printers over the library, and the small
//! pieces they share (margin-set specs, thread counts, progress bars, user errors).

pub mod check;
pub mod export;
pub mod match_cmd;
pub mod suite;
pub mod tune;

use std::io::IsTerminal;
use std::path::Path;

use clap::builder::RangedU64ValueParser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use marginal::engine::tt::TranspositionTable;
use marginal::engine::{MAX_DEPTH, MAX_HASH_MB};
use marginal::formats::tuned;
use marginal::params::Margins;
use marginal::scoring::suite::RunConfig;
use marginal::scoring::suite::objective::{DEFAULT_EARLY, DEFAULT_WEIGHT, ObjectiveParams};
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

impl UserError {
    /// A user error from any error's message.
    pub fn from_display(e: impl std::fmt::Display) -> Self {
        UserError(e.to_string())
    }
}

/// Resolves a margin set as users write it: a built-in name (`default`, `off`, `bare`,
/// `sound`), a path to a tuned file (anything ending in `.json` or naming an existing file),
/// or a comma-separated `name=value` list applied to the defaults.
pub fn resolve(spec: &str) -> Result<Margins, UserError> {
    let spec = spec.trim();
    if let Some(m) = Margins::builtin(spec) {
        return Ok(m);
    }
    let path = Path::new(spec);
    if spec.ends_with(".json") || path.is_file() {
        return tuned::read(path).map_err(UserError::from_display);
    }
    if spec.contains('=') {
        return spec
            .parse::<Margins>()
            .map_err(|e| UserError(format!("margin set '{spec}': {e}")));
    }
    Err(UserError(format!(
        "margin set '{spec}': not a built-in set ({}), a .json file, or name=value assignments",
        Margins::BUILTIN_NAMES.join(", ")
    )))
}

/// A margin set from `--margins SPEC` plus `--set name=value` overrides.
pub fn margins_from(spec: &str, sets: &[String]) -> Result<Margins, UserError> {
    let mut margins = resolve(spec)?;
    for assignment in sets {
        margins
            .apply_assignment(assignment)
            .map_err(|e| UserError(format!("--set {assignment}: {e}")))?;
    }
    Ok(margins)
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

/// `--depth`: 1 to [`MAX_DEPTH`] plies.
pub fn depth_arg() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(1..=u64::from(MAX_DEPTH))
}

/// A whole number of at least `MIN` (`--nodes`, `--iterations`, `--pairs`, `--games`, ...).
pub fn count<T: TryFrom<u64>, const MIN: u64>(text: &str) -> Result<T, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number"))?;
    if n < MIN {
        return Err(format!("{n} is too small: at least {MIN}"));
    }
    T::try_from(n).map_err(|_| format!("{n} is too large"))
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

/// Checks before any work that `path` can be written (its directory exists or can be
/// created, and a file can be made there), without touching an existing file: a bad output
/// path fails at once instead of after the run. A user error names the option and the path.
pub fn writable(path: &Path, option: &str) -> Result<(), UserError> {
    let fail = |e: &dyn std::fmt::Display| {
        UserError(format!("{option}: cannot write {}: {e}", path.display()))
    };
    if path.is_dir() {
        return Err(fail(&"it is a directory"));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    let probe = dir.join(format!(".marginal-write-probe-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|e| fail(&e))?;
    let _ = std::fs::remove_file(&probe);
    if path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| fail(&e))?;
    }
    Ok(())
}

/// The worker count: as asked, else every core.
pub fn threads(asked: Option<usize>) -> usize {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

/// A progress bar with `template` (indicatif's syntax). On a terminal it redraws in place;
/// elsewhere (CI logs, pipes) it prints a plain line on standard error at most every
/// [`LOG_PROGRESS_SECONDS`], so long work shows it is alive.
pub fn progress_bar(len: u64, template: &str) -> ProgressBar {
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let on_terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    let target = if on_terminal {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::term_like(Box::new(LogLines::default()))
    };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    bar.set_style(style);
    bar
}

/// Seconds between two progress lines outside a terminal.
pub const LOG_PROGRESS_SECONDS: u64 = 5;

/// A "terminal" for indicatif that writes each drawn bar as one plain line on standard error,
/// at most every [`LOG_PROGRESS_SECONDS`] (cursor moves and clears do nothing).
#[derive(Debug, Default)]
struct LogLines {
    last: std::sync::Mutex<Option<std::time::Instant>>,
}

impl LogLines {
    fn line(&self, s: &str) -> std::io::Result<()> {
        let text = s.trim();
        if text.is_empty() {
            return Ok(());
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let due = last.is_none_or(|t| t.elapsed().as_secs() >= LOG_PROGRESS_SECONDS);
        if due {
            *last = Some(std::time::Instant::now());
            eprintln!("{text}");
        }
        Ok(())
    }
}

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.line(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margin_specs_resolve() {
        let dir = std::env::temp_dir().join(format!("marginal-resolve-{}", std::process::id()));
        let path = dir.join("x.json");
        let m = Margins::default()
            .with("futility_margin", 150)
            .with("lmr", false);
        tuned::write(&path, &m, &serde_json::json!({"by": "test"})).unwrap();
        assert_eq!(resolve(path.to_str().unwrap()).unwrap(), m);
        std::fs::remove_dir_all(dir).unwrap();
        assert!(resolve("no_such_file.json").is_err());
        assert!(resolve("bogus").is_err());
        assert_eq!(
            resolve("frontier=100,delta=150").unwrap().delta_margin(),
            150
        );
        assert_eq!(resolve("off").unwrap(), Margins::off());
    }
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
}

impl ScoringArgs {
    /// The objective's parameters.
    pub fn params(&self) -> ObjectiveParams {
        ObjectiveParams {
            weight: self.weight,
            early: self.early,
        }
    }
}
