//! The subcommands of the `marginal` binary: thin printers over the library, and the small
//! pieces they share (margin-set specs, thread counts, progress bars, user errors).

pub mod check;
pub mod export;
pub mod match_cmd;
pub mod suite;
pub mod tune;

use std::io::IsTerminal;
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
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

/// The worker count: as asked, else every core.
pub fn threads(asked: Option<usize>) -> usize {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

/// A progress bar with `template` (indicatif's syntax), shown only when both standard output
/// and standard error are terminals (never in logs or pipes).
pub fn progress_bar(len: u64, template: &str) -> ProgressBar {
    if !(std::io::stdout().is_terminal() && std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
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
    /// Objective weight: accuracy points per halving of the node count.
    #[arg(long, default_value_t = DEFAULT_WEIGHT)]
    pub weight: f64,
    /// Objective: share of a solution's credit that depends on how early it was found.
    #[arg(long, default_value_t = DEFAULT_EARLY)]
    pub early: f64,
    /// Transposition table per search, megabytes.
    #[arg(long, default_value_t = RunConfig::default().hash_mb)]
    pub hash: usize,
}

impl ScoringArgs {
    /// The objective's parameters (`early` clamped to 0..1).
    pub fn params(&self) -> ObjectiveParams {
        ObjectiveParams {
            weight: self.weight,
            early: self.early.clamp(0.0, 1.0),
        }
    }
}
