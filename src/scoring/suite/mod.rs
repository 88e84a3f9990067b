//! Scoring a margin set on EPD suites: speed (nodes) against accuracy (solutions), relative to
//! a reference run, as one reproducible objective.
//!
//! [`SuiteScorer`] is the one scoring path: `marginal suite` prints what it returns, and the
//! optimizer, `check` and the exports call the very same thing. It owns what scoring needs
//! (the loaded suites, limits, table size, objective weights, the reference run and its cache,
//! an optional progress callback), computes the reference once, and scores any number of
//! candidates without printing.

pub mod journal;
pub mod load;
pub mod mate;
pub mod mate_outcome;
pub mod measure;
pub mod objective;
pub mod reference;
pub mod report;
pub mod run;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::engine::{PruneStats, Setting};
use crate::formats::SkippedLine;
use crate::params::Margins;
use crate::progress::{Count, Event, Shared, Work};
use crate::scoring::exec::local::Local;
use crate::scoring::exec::{Done, ExecError, Job, Runner, SuiteJob};
pub use load::{
    LoadedSuites, Repeat, Repeats, SuiteError, SuiteFile, load_suites, odd_suites, repeat_key,
    repeated_files,
};
use mate::MateTally;
pub use objective::{Objective, ObjectiveParams};
pub use reference::{default_cache_dir, nothing_searched};
pub use run::{PositionResult, RunConfig, SuiteLimit, SuitePosition};

/// A callback counting `work` of `total` as each unit finishes, told to `observer`.
fn counter(observer: Option<&Shared>, work: Work, total: usize) -> impl Fn() + Sync + '_ {
    let done = AtomicUsize::new(0);
    move || {
        if let Some(o) = observer {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            o.event(&Event::Done(Count::new(work, n as u64, total as u64)));
        }
    }
}

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
    /// Where the positions are searched: on this machine ([`Local`]) or on a cluster. The
    /// results are the same.
    pub executor: Arc<dyn Runner>,
}

impl Default for ScorerOptions {
    fn default() -> Self {
        ScorerOptions {
            config: RunConfig::default(),
            objective: ObjectiveParams::default(),
            reference: Margins::off().into(),
            cache_dir: Some(default_cache_dir()),
            executor: Arc::new(Local::on_current_pool()),
        }
    }
}

/// Suites, limits, objective and reference, ready to score candidate margin sets. Scoring runs
/// on the current rayon pool (install a pool to choose the thread count); results do not
/// depend on it.
///
/// Scoring the built-in engine's default margins on two positions at 2,000 nodes each,
/// against the default reference (pruning off), without a cache:
///
/// ```
/// use marginal::engine::Setting;
/// use marginal::params::Margins;
/// use marginal::scoring::suite::{
///     Repeats, RunConfig, ScorerOptions, SuiteLimit, SuiteScorer, load_suites,
/// };
///
/// let dir = std::env::temp_dir().join(format!("marginal-doc-suite-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let suite = dir.join("two.epd");
/// std::fs::write(
///     &suite,
///     "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";\n\
///      8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id \"WAC.002\";\n",
/// )
/// .unwrap();
/// let suites = load_suites(&[suite], true, Repeats::Once).unwrap();
/// let options = ScorerOptions {
///     config: RunConfig {
///         limit: SuiteLimit::Nodes(2_000),
///         hash_mb: 1,
///     },
///     cache_dir: None,
///     ..ScorerOptions::default()
/// };
/// let scorer = SuiteScorer::new(suites, options, None).unwrap();
/// assert_eq!(scorer.reference().len(), 2);
///
/// let defaults: Setting = Margins::default().into();
/// let score = scorer.score(&defaults).unwrap();
/// assert_eq!(score.positions.len(), 2);
/// assert_eq!(score.suites.len(), 1);
/// assert_eq!(score.suites[0].positions, 2);
/// assert!(score.positions.iter().all(|p| p.result.nodes > 0 && p.reference_nodes > 0));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct SuiteScorer {
    suites: LoadedSuites,
    options: ScorerOptions,
    reference: Vec<PositionResult>,
    reference_cached: bool,
    reference_stored: bool,
    reference_kept: usize,
    reference_costs: Vec<u64>,
    warnings: Vec<String>,
    observer: Option<Shared>,
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
    /// Its lines whose position an earlier line gave (left out, or scored again with
    /// [`Repeats::Each`]); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub repeats: usize,
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
    /// The engine's signature (hex), see [`crate::engine::bench::signature`].
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
    /// How a position that repeats an earlier one was scored.
    pub repeats: Repeats,
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
    /// How the mate records (`bm #N`, `dm N`) went; absent when no position has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mates: Option<MateTally>,
    /// Every position, in file order.
    pub positions: Vec<PositionScore>,
    /// Problems that did not stop scoring (a cache that could not be written, positions an
    /// external engine failed on).
    pub warnings: Vec<String>,
}

impl SuiteScorer {
    /// Builds a scorer: runs the reference, or reads it from the cache. `observer` is told of
    /// every position searched, from the worker threads: [`Event::Done`] of
    /// [`Work::ReferencePositions`] (the reference, when it is not cached), then of
    /// [`Work::Positions`] for each margin set scored.
    ///
    /// # Errors
    /// The executor could not run the reference.
    pub fn new(
        suites: LoadedSuites,
        options: ScorerOptions,
        observer: Option<Shared>,
    ) -> Result<SuiteScorer, ExecError> {
        let total = suites.positions.len();
        let reference = reference::reference_run(
            &suites,
            &options.reference,
            &options.config,
            options.cache_dir.as_deref(),
            options.executor.as_ref(),
            &counter(observer.as_ref(), Work::ReferencePositions, total),
        )?;
        crate::scoring::exec::gave_up([&options.reference])?;
        Ok(SuiteScorer {
            reference_costs: run::costs(&reference.results),
            suites,
            options,
            reference: reference.results,
            reference_cached: reference.cached,
            reference_stored: reference.stored,
            reference_kept: reference.kept,
            warnings: reference.warnings,
            observer,
        })
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

    /// Whether the cache holds the reference now (read from it, or written by this run; not
    /// without a cache, after faults, or when it could not be written).
    pub fn reference_stored(&self) -> bool {
        self.reference_stored
    }

    /// How many of the reference's positions were taken from an interrupted run of it rather
    /// than searched by this one (run here with a cache; 0 when read whole from the cache).
    pub fn reference_kept(&self) -> usize {
        self.reference_kept
    }

    /// As [`SuiteScorer::score`], keeping each position as it finishes in the cache directory
    /// (run here, with a cache): an interrupted run of the same setting is taken up where it
    /// stopped, and its positions kept are counted in the second value. Once scored, the
    /// positions kept are removed. Without a cache, or with an executor elsewhere (one that
    /// does not tell of each position as it finishes), as `score` (0 kept).
    ///
    /// # Errors
    /// The executor could not run the positions.
    pub fn score_kept(&self, margins: &Setting) -> Result<(SuiteScore, usize), ExecError> {
        let executor = self.options.executor.as_ref();
        let Some(dir) = self
            .options
            .cache_dir
            .as_ref()
            .filter(|_| executor.streams())
        else {
            return Ok((self.score(margins)?, 0));
        };
        let path = reference::journal_path(dir, &self.suites, margins, &self.options.config, false);
        let on_done = self.candidate_progress(self.suites.positions.len());
        let run = journal::run_kept(
            executor,
            &self.suites.positions,
            margins,
            &self.options.config,
            Some(&self.reference_costs),
            &path,
            &on_done,
        )?;
        crate::scoring::exec::gave_up([margins])?;
        let mut score = self.score_results(margins, run.results);
        score
            .warnings
            .extend(journal::damaged_warning(&path, &run.damaged));
        let _ = std::fs::remove_file(&path);
        Ok((score, run.kept))
    }

    /// The progress callback of a candidate run of `total` positions, counting them as they
    /// finish.
    fn candidate_progress(&self, total: usize) -> impl Fn() + Sync + '_ {
        counter(self.observer.as_ref(), Work::Positions, total)
    }

    /// Runs `margins` over every position and scores it against the reference.
    ///
    /// # Errors
    /// The executor could not run the positions.
    pub fn score(&self, margins: &Setting) -> Result<SuiteScore, ExecError> {
        let results = self.run(margins)?;
        Ok(self.score_results(margins, results))
    }

    /// Scores several settings, their searches run as one batch.
    ///
    /// # Errors
    /// The executor could not run the positions.
    pub fn score_many(&self, settings: &[Setting]) -> Result<Vec<SuiteScore>, ExecError> {
        let requests: Vec<(&Setting, Option<&[usize]>)> =
            settings.iter().map(|s| (s, None)).collect();
        let results = self.run_many(&requests)?;
        Ok(settings
            .iter()
            .zip(results)
            .map(|(s, r)| self.score_results(s, r))
            .collect())
    }

    /// Searches every position with `margins` (most expensive first; results in position
    /// order).
    ///
    /// # Errors
    /// The executor could not run the positions.
    pub fn run(&self, margins: &Setting) -> Result<Vec<PositionResult>, ExecError> {
        Ok(self.run_many(&[(margins, None)])?.remove(0))
    }

    /// Searches each setting on all positions (`None`) or on a subset (indices into the
    /// position list, each once), as one batch; one result list per request, in position
    /// order within it.
    ///
    /// # Errors
    /// The executor could not run the positions.
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn run_many(
        &self,
        requests: &[(&Setting, Option<&[usize]>)],
    ) -> Result<Vec<Vec<PositionResult>>, ExecError> {
        // The positions of a request: borrowed for all of them, gathered for a subset.
        let subset = |indices: &[usize]| -> (Vec<SuitePosition>, Vec<u64>) {
            (
                indices
                    .iter()
                    .map(|&i| self.suites.positions[i].clone())
                    .collect(),
                indices.iter().map(|&i| self.reference_costs[i]).collect(),
            )
        };
        let jobs: Vec<Job> = requests
            .iter()
            .map(|(setting, indices)| {
                let (positions, costs) = match indices {
                    None => (self.suites.positions.clone(), self.reference_costs.clone()),
                    Some(indices) => subset(indices),
                };
                Job::Suite(SuiteJob {
                    setting: (*setting).clone(),
                    config: self.options.config,
                    positions,
                    costs,
                })
            })
            .collect();
        // Each request's positions counted as they finish, as a run of their own.
        let counters: Vec<_> = (jobs.iter())
            .map(|job| self.candidate_progress(job.len()))
            .collect();
        let results: Vec<Vec<PositionResult>> = (self.options.executor)
            .run_each(&jobs, &|j, _| counters[j]())?
            .into_iter()
            .map(Done::into_positions)
            .collect();
        crate::scoring::exec::gave_up(requests.iter().map(|(s, _)| *s))?;
        Ok(results)
    }

    /// The objective of each setting on all positions (`None`) or on a subset (indices into
    /// the position list, each once: a mini-batch of the training positions), against the
    /// reference's results on the same positions; the searches run as one batch.
    ///
    /// # Errors
    /// The executor could not run the positions.
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn objectives(
        &self,
        requests: &[(&Setting, Option<&[usize]>)],
    ) -> Result<Vec<Objective>, ExecError> {
        let params = &self.options.objective;
        Ok(requests
            .iter()
            .zip(self.run_many(requests)?)
            .map(|((_, indices), results)| match indices {
                None => objective::evaluate(&results, &self.reference, params),
                Some(indices) => {
                    let reference: Vec<PositionResult> =
                        indices.iter().map(|&i| self.reference[i].clone()).collect();
                    objective::evaluate(&results, &reference, params)
                }
            })
            .collect())
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
                repeats: (self.suites.repeats.iter())
                    .filter(|r| r.suite == file.path)
                    .count(),
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
        let mates = self
            .suites
            .positions
            .iter()
            .any(|p| p.record.mate.is_some())
            .then(|| MateTally::tally(&self.suites.positions, &results));
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
            repeats: self.suites.rule,
            objective,
            prunes,
            faults,
            reference_faults,
            overshot,
            mates,
            positions,
            warnings: self.warnings.clone(),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
