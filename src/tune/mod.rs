//! Tuning: search the margin space for sets that score better, on positions and games they were
//! not tuned on. The objective is an argmin `CostFunction` over the scoring layer; the solvers
//! (SPSA, written here as an argmin `Solver`, and argmin's Nelder-Mead and particle swarm) know
//! nothing of chess.

pub mod checkpoint;
pub mod cost;
pub mod games;
pub mod pareto;
pub mod plot;
pub mod solvers;
pub mod space;
pub mod spsa;

pub use solvers::{run_nelder_mead, run_pso};

use std::path::Path;

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, State};

use crate::formats::Fnv;
use cost::SuiteCost;
use spsa::{ByCost, Spsa, SpsaParam, SpsaState};

/// The default validation split: a position is held out (never tuned on) when the FNV-1a hash
/// of its FEN (fields joined by single spaces, as the EPD reader gives it) is divisible by 3,
/// so about one position in three, fixed for ever and independent of file order.
pub fn held_out(fen: &str) -> bool {
    let mut h = Fnv::new();
    h.write(fen.as_bytes());
    h.finish().is_multiple_of(3)
}

/// Runs SPSA on the suite objective from the space's start (or from the checkpoint, when one
/// is there: argmin restores the solver and its state, and the evaluation log restores the
/// cache, so a resumed run ends bit-identical to an uninterrupted one). `gain` converts an
/// objective difference between the probes into SPSA's result (see `marginal tune --help`).
/// Returns the final iterate and the cost function (with every evaluation).
///
/// # Errors
/// A bad configuration, a checkpoint of another run or a corrupt one, or an evaluation error.
pub fn run_spsa(
    cost: SuiteCost,
    iterations: u64,
    seed: u64,
    gain: f64,
    checkpoint: Option<(&Path, &str)>,
    observer: impl Observe<SpsaState> + 'static,
) -> Result<(Vec<f64>, SuiteCost), Error> {
    let params = cost
        .space()
        .dims
        .iter()
        .map(|d| SpsaParam::new(f64::from(d.lower), f64::from(d.upper), d.c_end, d.r_end))
        .collect();
    let solver = Spsa::new(params, iterations, seed)?;
    let start = cost.space().start();
    let mut executor = Executor::new(ByCost::new(cost, gain), solver)
        .configure(|state| state.param(start).max_iters(iterations))
        .add_observer(observer, ObserverMode::Always)
        .timer(false);
    if let Some((path, run)) = checkpoint {
        executor = executor.checkpointing(checkpoint::JsonCheckpoint::new(path, run));
    }
    let mut result = executor.run()?;
    let theta = result
        .state
        .get_param()
        .cloned()
        .ok_or_else(|| Error::msg("SPSA ended without an iterate"))?;
    let problem = result
        .problem
        .take_problem()
        .ok_or_else(|| Error::msg("SPSA lost its problem"))?;
    Ok((theta, problem.cost))
}
