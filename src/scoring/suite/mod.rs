//! Scoring a margin set on EPD suites: speed (nodes) against accuracy (solutions), relative to
//! a reference run, as one reproducible objective.
//!
//! [`SuiteScorer`] is the one scoring path: `marginal suite` prints what it returns, and the
//! optimizer, `check` and the exports call the very same thing. It owns what scoring needs
//! (the loaded suites, limits, table size, objective weights, the reference run and its cache,
//! an optional progress callback), computes the reference once, and scores any number of
//! candidates without printing.

pub mod load;
pub mod objective;
pub mod reference;
pub mod run;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::engine::{PruneStats, Setting};
use crate::formats::SkippedLine;
use crate::params::Margins;
pub use load::{LoadedSuites, SuiteError, SuiteFile, load_suites};
pub use objective::{Objective, ObjectiveParams};
pub use reference::default_cache_dir;
pub use run::{PositionResult, RunConfig, SuiteLimit, SuitePosition};

/// Which run a progress report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The reference run (only when it is not cached).
    Reference,
    /// A candidate margin set.
    Candidate,
}

/// A progress callback: the phase, positions done so far, and positions in all. Called from
/// worker threads, once per finished position.
pub type Progress = dyn Fn(Phase, usize, usize) + Send + Sync;

/// How to score: everything but the positions.
#[derive(Debug, Clone)]
pub struct ScorerOptions {
    /// Per-position limit and table size.
    pub config: RunConfig,
    /// Objective weights.
    pub objective: ObjectiveParams,
    /// The reference setting (the yardstick; the built-in engine's `off` by default, an
    /// external engine's rows at their off values).
    pub reference: Setting,
    /// Where reference runs are cached (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
}

impl Default for ScorerOptions {
    fn default() -> Self {
        ScorerOptions {
            config: RunConfig::default(),
            objective: ObjectiveParams::default(),
            reference: Margins::off().into(),
            cache_dir: Some(default_cache_dir()),
        }
    }
}

/// Suites, limits, objective and reference, ready to score candidate margin sets. Scoring runs
/// on the current rayon pool (install a pool to choose the thread count); results do not
/// depend on it.
pub struct SuiteScorer {
    suites: LoadedSuites,
    options: ScorerOptions,
    reference: Vec<PositionResult>,
    reference_cached: bool,
    reference_costs: Vec<u64>,
    warnings: Vec<String>,
    progress: Option<Box<Progress>>,
}

/// One suite file's share of a score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteBreakdown {
    /// The file, as given.
    pub path: String,
    /// Positions scored from it.
    pub positions: usize,
    /// Its lines that could not be parsed.
    pub skipped: Vec<SkippedLine>,
    /// The objective of its positions alone.
    pub objective: Objective,
}

/// One position's result beside the reference's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionScore {
    /// The candidate's result.
    #[serde(flatten)]
    pub result: PositionResult,
    /// The reference's best move, UCI.
    pub reference_best_move: Option<String>,
    /// The reference's node count.
    pub reference_nodes: u64,
    /// The reference's score, eval units.
    pub reference_score: i32,
    /// An external engine's fault in the reference run on this position (the reference's
    /// result there is then an unsolved placeholder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_fault: Option<String>,
}

/// The reference a score was measured against.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReferenceInfo {
    /// Its margin set.
    pub margins: Setting,
}

/// Everything a candidate scored: the deterministic result of [`SuiteScorer::score`]. The JSON
/// report of `marginal suite` is this, plus a `run` section (threads, timing, cache use).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteScore {
    /// marginal's version.
    pub marginal: &'static str,
    /// The engine's signature (hex), see [`bench::signature`].
    pub engine_signature: String,
    /// Per-file breakdown, in file order.
    pub suites: Vec<SuiteBreakdown>,
    /// Per-position limit.
    pub limit: SuiteLimit,
    /// Transposition table per search, megabytes.
    pub hash_mb: usize,
    /// The engine file (or `--engine-cmd`) of an external engine; absent for marginal's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The candidate margin set.
    pub margins: Setting,
    /// The reference.
    pub reference: ReferenceInfo,
    /// Objective weights.
    pub objective_params: ObjectiveParams,
    /// The objective over all positions.
    pub objective: Objective,
    /// What each technique cut, summed over all positions.
    pub prunes: PruneStats,
    /// Positions an external engine faulted on (each one's `fault` says why); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub faults: usize,
    /// Positions the engine faulted on in the reference run; absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub reference_faults: usize,
    /// Positions on which an external engine went past the node budget and was stopped (each
    /// one is flagged `overshot`); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub overshot: usize,
    /// Every position, in file order.
    pub positions: Vec<PositionScore>,
    /// Problems that did not stop scoring (a cache that could not be written, positions an
    /// external engine failed on).
    pub warnings: Vec<String>,
}

impl SuiteScorer {
    /// Builds a scorer: runs the reference, or reads it from the cache.
    pub fn new(
        suites: LoadedSuites,
        options: ScorerOptions,
        progress: Option<Box<Progress>>,
    ) -> SuiteScorer {
        let total = suites.positions.len();
        let done = AtomicUsize::new(0);
        let on_done = || {
            if let Some(p) = &progress {
                p(
                    Phase::Reference,
                    done.fetch_add(1, Ordering::Relaxed) + 1,
                    total,
                );
            }
        };
        let reference = reference::reference_run(
            &suites,
            &options.reference,
            &options.config,
            options.cache_dir.as_deref(),
            &on_done,
        );
        SuiteScorer {
            reference_costs: run::costs(&reference.results),
            suites,
            options,
            reference: reference.results,
            reference_cached: reference.cached,
            warnings: reference.warnings,
            progress,
        }
    }

    /// The positions.
    pub fn suites(&self) -> &LoadedSuites {
        &self.suites
    }

    /// The options it was built with.
    pub fn options(&self) -> &ScorerOptions {
        &self.options
    }

    /// The reference run's results, in position order.
    pub fn reference(&self) -> &[PositionResult] {
        &self.reference
    }

    /// Whether the reference came from the cache.
    pub fn reference_cached(&self) -> bool {
        self.reference_cached
    }

    /// Runs `margins` over every position and scores it against the reference.
    pub fn score(&self, margins: &Setting) -> SuiteScore {
        let results = self.run(margins);
        self.score_results(margins, results)
    }

    /// Searches every position with `margins` (most expensive first; results in position
    /// order).
    pub fn run(&self, margins: &Setting) -> Vec<PositionResult> {
        let total = self.suites.positions.len();
        let done = AtomicUsize::new(0);
        let on_done = || {
            if let Some(p) = &self.progress {
                p(
                    Phase::Candidate,
                    done.fetch_add(1, Ordering::Relaxed) + 1,
                    total,
                );
            }
        };
        run::run(
            &self.suites.positions,
            margins,
            &self.options.config,
            Some(&self.reference_costs),
            &on_done,
        )
    }

    /// The objective of `margins` on a subset of the positions (`indices` into the position
    /// list, each once), against the reference's results on the same positions: what a
    /// mini-batch of the training positions says.
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn objective_on(&self, margins: &Setting, indices: &[usize]) -> Objective {
        let positions: Vec<SuitePosition> = indices
            .iter()
            .map(|&i| self.suites.positions[i].clone())
            .collect();
        let costs: Vec<u64> = indices.iter().map(|&i| self.reference_costs[i]).collect();
        let reference: Vec<PositionResult> =
            indices.iter().map(|&i| self.reference[i].clone()).collect();
        let results = run::run(
            &positions,
            margins,
            &self.options.config,
            Some(&costs),
            &|| {},
        );
        objective::evaluate(&results, &reference, &self.options.objective)
    }

    /// Scores results of [`SuiteScorer::run`] (position order) for `margins`.
    ///
    /// # Panics
    /// If `results` is not one result per position.
    pub fn score_results(&self, margins: &Setting, results: Vec<PositionResult>) -> SuiteScore {
        let params = &self.options.objective;
        let suites = self
            .suites
            .ranges()
            .map(|(file, range)| SuiteBreakdown {
                path: file.path.clone(),
                positions: file.positions,
                skipped: file.skipped.clone(),
                objective: objective::evaluate(
                    &results[range.clone()],
                    &self.reference[range],
                    params,
                ),
            })
            .collect();
        let objective = objective::evaluate(&results, &self.reference, params);
        let prunes = results.iter().map(|r| &r.prunes).sum();
        let faults = results.iter().filter(|r| r.fault.is_some()).count();
        let overshot = results.iter().filter(|r| r.overshot).count();
        let reference_faults = self.reference.iter().filter(|r| r.fault.is_some()).count();
        let positions = results
            .into_iter()
            .zip(&self.reference)
            .map(|(result, base)| PositionScore {
                result,
                reference_best_move: base.best_move.clone(),
                reference_nodes: base.nodes,
                reference_score: base.score,
                reference_fault: base.fault.clone(),
            })
            .collect();
        SuiteScore {
            marginal: env!("CARGO_PKG_VERSION"),
            engine_signature: margins.def().signature(),
            suites,
            limit: self.options.config.limit,
            hash_mb: self.options.config.hash_mb,
            engine: margins.def().source.clone(),
            margins: margins.clone(),
            reference: ReferenceInfo {
                margins: self.options.reference.clone(),
            },
            objective_params: *params,
            objective,
            prunes,
            faults,
            reference_faults,
            overshot,
            positions,
            warnings: self.warnings.clone(),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
