//! A margin set measured on suites as `marginal suite` does it: what an interrupted run of the
//! same measure kept (taken up, not searched again), the reference run, refused when the
//! engine searched nothing, then the set's run, timed. And what such a run says of an
//! external engine: that it faulted on everything, or ignores the options that carry the
//! margins.

use std::time::Instant;

use super::{LoadedSuites, ScorerOptions, SuiteScore, SuiteScorer};
use crate::engine::{EngineDef, Setting};
use crate::progress::Shared;
use crate::scoring::exec::ExecError;

/// What an interrupted run of the same measure kept, run here with a cache: positions of the
/// reference run and of the set's, and the lines that say so.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Positions of the reference run kept.
    pub reference: usize,
    /// Positions of the set's run kept.
    pub set: usize,
    /// What to say of each run that kept some.
    pub said: Vec<String>,
}

/// What an interrupted run of the same measure of `margins` kept, which this one takes up
/// rather than searches (only run here, with a cache).
pub fn kept(suites: &LoadedSuites, options: &ScorerOptions, margins: &Setting) -> Kept {
    let Some(dir) = (options.cache_dir.as_ref()).filter(|_| options.executor.streams()) else {
        return Kept::default();
    };
    let total = suites.positions.len();
    let mut kept = Kept::default();
    for (what, setting, reference) in [
        ("the reference run", &options.reference, true),
        ("the set's run", margins, false),
    ] {
        let n = super::reference::kept(dir, suites, setting, &options.config, reference);
        if reference {
            kept.reference = n;
        } else {
            kept.set = n;
        }
        if n > 0 {
            kept.said.push(format!(
                "resuming {what}: {n} of {total} positions were kept from an earlier run that did not finish (interrupted, or faulted on some positions); searching the other {}",
                total - n
            ));
        }
    }
    kept
}

/// A set measured: the scorer (with its reference run), the score, the seconds the set's run
/// took and how many of its positions an interrupted run had kept.
pub struct Measured {
    /// The scorer, with its reference run.
    pub scorer: SuiteScorer,
    /// The set's score.
    pub score: SuiteScore,
    /// Seconds the set's run took.
    pub elapsed: f64,
    /// Positions of the set's run kept from an interrupted run.
    pub kept: usize,
}

/// Why a set could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// The executor could not run the searches.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The engine faulted on every position of the reference run ([`super::nothing_searched`]).
    #[error("{0}")]
    NothingSearched(String),
}

/// Runs the reference run of `suites` with `options`, then `margins`' run, reporting to
/// `progress`; `between` is called when the reference run is done and worked.
///
/// # Errors
/// The executor failed, or the engine searched nothing in the reference run (the set's run
/// would fault the same way, each position paying its timeout).
pub fn measure(
    def: &EngineDef,
    (suites, options): (LoadedSuites, ScorerOptions),
    margins: &Setting,
    progress: Option<Shared>,
    between: impl FnOnce(),
) -> Result<Measured, MeasureError> {
    let scorer = SuiteScorer::new(suites, options, progress)?;
    if let Some(why) = super::nothing_searched(def, "the reference run", scorer.reference()) {
        return Err(MeasureError::NothingSearched(why));
    }
    between();
    let start = Instant::now();
    let (score, kept) = scorer.score_kept(margins)?;
    let elapsed = start.elapsed().as_secs_f64();
    Ok(Measured {
        scorer,
        score,
        elapsed,
        kept,
    })
}

/// The warning for an external engine that searched every position `how` (alike: the same
/// move and node count) although the margins differ: it most likely ignores the options that
/// carry them (an engine that answers `setoption` with "no such option").
pub fn ignored_options(how: &str) -> String {
    format!(
        "warning: every position was searched {how} (same move, same node count) although the margins differ: the engine most likely ignores the options that carry them; check its answers to `setoption` (its info strings) and the option names in its engine file"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_command_is_fixed_on_its_command_line() {
        let mut def = (*EngineDef::builtin()).clone();
        def.source = Some("--engine-cmd ./x".into());
        assert!(def.fix_hint().contains("--engine-cmd"));
        def.source = Some("engines/x.toml".into());
        assert!(def.fix_hint().contains("engine file"));
    }

    #[test]
    fn no_results_is_no_fault() {
        assert!(super::super::nothing_searched(&EngineDef::builtin(), "the run", []).is_none());
    }
}
