//! Tuning: search the margin space for sets that score better, on positions and games they were
//! not tuned on. The objective is an argmin `CostFunction` over the scoring layer; the solvers
//! (SPSA, written here as an argmin `Solver`, and argmin's Nelder-Mead and particle swarm) know
//! nothing of chess.

pub mod calibrated;
pub mod checkpoint;
pub mod cost;
pub mod file;
pub mod games;
pub mod pareto;
pub mod pipeline;
pub mod plan;
pub mod plot;
pub mod prepare;
pub mod race;
pub mod remark;
pub mod report;
pub mod run;
pub mod screen;
pub mod setup;
pub mod solvers;
pub mod space;
pub mod spsa;
pub mod surface;

pub use solvers::{run_nelder_mead, run_pso};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, Solver, State};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::formats::Fnv;
use crate::scoring::suite::{LoadedSuites, Repeats, SuiteError, load_suites, repeat_key};
use checkpoint::JsonCheckpoint;
use cost::{SuiteCost, SuiteProblem};
use space::Space;
use spsa::{Spsa, SpsaParam, SpsaProblem, SpsaState};

/// The default validation split: a position is held out (never tuned on) when the FNV-1a hash
/// of its FEN (fields joined by single spaces, as the EPD reader gives it) is divisible by 3,
/// so about one position in three, fixed for ever and independent of file order.
pub fn held_out(fen: &str) -> bool {
    let mut h = Fnv::new();
    h.write(fen.as_bytes());
    h.finish().is_multiple_of(3)
}

/// The tag of the default split in the content hashes of its sides (reference-run cache keys).
const HOLDOUT_TAG: &str = "holdout-fen-hash-3";

/// Why training and validation positions could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    /// A suite file is unreadable or empty.
    #[error(transparent)]
    Suite(#[from] SuiteError),
    /// A validation position is also a training position.
    #[error(
        "{path}:{line}: position '{fen}' is both a validation and a training position (training: {training}): remove it from one side"
    )]
    Overlap {
        /// The validation file.
        path: String,
        /// Its line.
        line: usize,
        /// The position.
        fen: String,
        /// Where the training suites hold it (`file:line`).
        training: String,
    },
}

/// Training and validation positions: `training` and the `holdout` files when there are any
/// (no position may be in both, whatever its move clocks: [`repeat_key`]), else the split of
/// `training` by [`held_out`]. Bad lines are kept as skipped lines of their files; a position
/// that repeats an earlier one is scored by `rule`.
///
/// # Errors
/// An unreadable or empty file, or a position on both sides.
pub fn split(
    training: &[PathBuf],
    holdout: &[PathBuf],
    rule: Repeats,
) -> Result<(LoadedSuites, LoadedSuites), SplitError> {
    let all = load_suites(training, false, rule)?;
    if holdout.is_empty() {
        return Ok(all.partition(HOLDOUT_TAG, |p| !held_out(&p.record.fen)));
    }
    let validation = load_suites(holdout, false, rule)?;
    // One rule for what repeats a position, the suites' own (move clocks aside).
    let mut training = HashMap::new();
    for p in &all.positions {
        let at = || format!("{}:{}", p.suite, p.record.line);
        training
            .entry(repeat_key(&p.record.position))
            .or_insert_with(at);
    }
    if let Some((p, at)) = (validation.positions.iter())
        .find_map(|p| Some((p, training.get(&repeat_key(&p.record.position))?)))
    {
        return Err(SplitError::Overlap {
            path: p.suite.clone(),
            line: p.record.line,
            fen: p.record.fen.clone(),
            training: at.clone(),
        });
    }
    Ok((all, validation))
}

/// Runs SPSA on the suite objective from the space's start (or from the checkpoint, when one
/// is there: argmin restores the solver and its state, and the evaluation log restores the
/// cache, so a resumed run ends bit-identical to an uninterrupted one). `gain` converts an
/// objective difference between the probes into SPSA's result (see `marginal tune --help`);
/// `batch` scores each comparison on that many training positions drawn afresh (seeded).
/// Returns the final iterate and the cost function (with every evaluation).
///
/// # Errors
/// A bad configuration, a checkpoint of another run or a corrupt one, or an evaluation error.
pub fn run_spsa(
    cost: SuiteCost,
    iterations: u64,
    seed: u64,
    gain: f64,
    batch: Option<usize>,
    checkpoint: Option<(&Path, &str)>,
    observer: impl Observe<SpsaState> + 'static,
) -> Result<(Vec<f64>, SuiteCost), Error> {
    let solver = Spsa::new(spsa_params(cost.space()), iterations, seed)?;
    let start = cost.space().start();
    let checkpoint = checkpoint.map(|(path, run)| JsonCheckpoint::new(path, run));
    let problem = SuiteProblem::new(cost, gain, batch.map(|size| (size, seed)));
    let (theta, problem) = execute_spsa(problem, solver, start, iterations, checkpoint, observer)?;
    Ok((theta, problem.cost))
}

/// Runs `solver` (SPSA) on `problem` from `start` for `iterations` through [`execute`], and
/// returns its final iterate (SPSA's result) with the problem.
///
/// # Errors
/// As [`execute`], or no iterate at the end.
pub fn execute_spsa<P: SpsaProblem>(
    problem: P,
    solver: Spsa,
    start: Vec<f64>,
    iterations: u64,
    checkpoint: Option<JsonCheckpoint>,
    observer: impl Observe<SpsaState> + 'static,
) -> Result<(Vec<f64>, P), Error> {
    let (state, problem) = execute(
        problem,
        solver,
        |state| state.param(start).max_iters(iterations),
        checkpoint,
        observer,
    )?;
    let theta = state
        .get_param()
        .cloned()
        .ok_or_else(|| Error::msg("SPSA ended without an iterate"))?;
    Ok((theta, problem))
}

/// SPSA's per-parameter settings from a space: each tuned row's bounds, `c_end` and `r_end`.
pub fn spsa_params(space: &Space) -> Vec<SpsaParam> {
    space
        .dims
        .iter()
        .map(|d| SpsaParam::new(f64::from(d.lower), f64::from(d.upper), d.c_end, d.r_end))
        .collect()
}

/// Runs `solver` on `problem` through argmin's `Executor`, the one loop every tuning run goes
/// through: `configure` sets up the initial state, `observer` sees every iteration, and with a
/// `checkpoint` the run is saved every iteration and resumed from the file when it is there.
/// Returns the final state and the problem.
///
/// # Errors
/// The solver's, the problem's or the checkpoint's errors.
pub fn execute<O, S, I>(
    problem: O,
    solver: S,
    configure: impl FnOnce(I) -> I,
    checkpoint: Option<JsonCheckpoint>,
    observer: impl Observe<I> + 'static,
) -> Result<(I, O), Error>
where
    S: Solver<O, I> + Serialize + DeserializeOwned + 'static,
    I: State + Serialize + DeserializeOwned + 'static,
{
    let mut executor = Executor::new(problem, solver)
        .configure(configure)
        .add_observer(observer, ObserverMode::Always)
        .timer(false);
    if let Some(checkpoint) = checkpoint {
        executor = executor.checkpointing(checkpoint);
    }
    let mut result = executor.run()?;
    let problem = result
        .problem
        .take_problem()
        .ok_or_else(|| Error::msg("the solver lost its problem"))?;
    Ok((result.state, problem))
}
