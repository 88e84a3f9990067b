//! The subcommands of the `marginal` binary.

pub mod match_cmd;
pub mod suite;

use marginal::params::Margins;
use marginal::tuned;

/// An error in what the user gave (a file, an option, a margin set): exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UserError(pub String);

impl From<tuned::TunedError> for UserError {
    fn from(e: tuned::TunedError) -> Self {
        UserError(e.to_string())
    }
}

impl From<marginal::scoring::cache::SuiteError> for UserError {
    fn from(e: marginal::scoring::cache::SuiteError) -> Self {
        UserError(e.to_string())
    }
}

/// A margin set from `--margins SPEC` plus `--set name=value` overrides.
pub fn margins_from(spec: &str, sets: &[String]) -> Result<Margins, UserError> {
    let mut margins = tuned::resolve(spec)?;
    for assignment in sets {
        margins
            .apply_assignment(assignment)
            .map_err(|e| UserError(format!("--set {assignment}: {e}")))?;
    }
    Ok(margins)
}
