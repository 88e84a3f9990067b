//! A whole tune as `marginal tune` (or any front end) runs it: the solver over the training
//! positions (or games), checkpointed into the run's directory, then the tuned set judged with
//! the defaults and everything off on training and validation positions. Progress goes to a
//! [`TuneObserver`]; nothing here prints.
//!
//! The front end builds the [`TunePlan`] (which engine, space, solver, objective) and the suite
//! cost and scorers; [`run`] does the work and returns a [`Tuned`], from which the front end
//! writes the tuned file.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use argmin::core::observers::Observe;
use argmin::core::{Error, KV, State};

use super::cost::SuiteCost;
use super::file::Side;
use super::games::{GamesProblem, run_spsa_games};
use super::race::{self, RaceError, RaceResult, RaceSettings, RaceStep};
use super::solvers::{
    Both, IterationRecord, Iterations, NelderMeadSettings, PsoSettings, Recorder,
};
use super::space::Space;
use super::spsa::SpsaState;
use super::{run_nelder_mead, run_pso, run_spsa};
use crate::engine::{EngineDef, Setting};
use crate::scoring::paired::PairedComparison;
use crate::scoring::suite::SuiteScorer;
use crate::scoring::work::ExecError;

/// The solver of a run, with its settings.
#[derive(Clone, Debug)]
pub enum Solver {
    /// SPSA with OpenBench's schedule: `iterations`, the suite objective's `gain`, and a
    /// mini-batch of training positions per comparison (`batch`).
    Spsa {
        /// Iterations.
        iterations: u64,
        /// Objective difference to SPSA result (suite objective only).
        gain: f64,
        /// Training positions per comparison, drawn afresh (suite objective only).
        batch: Option<usize>,
    },
    /// argmin's Nelder-Mead.
    NelderMead(NelderMeadSettings),
    /// argmin's particle swarm.
    Pso(PsoSettings),
    /// The race ([`race`]): suite objective only, its games in `TunePlan::race_games`.
    Race(RaceSettings),
}

/// What a run tunes: its engine, space, solver and objective.
pub struct TunePlan {
    /// The engine (its defaults and "off" are judged beside the tuned set).
    pub def: Arc<EngineDef>,
    /// The rows tuned, their bounds and schedule.
    pub space: Space,
    /// The solver.
    pub solver: Solver,
    /// The run's seed.
    pub seed: u64,
    /// The checkpoint directory (solver state, iteration log).
    pub dir: PathBuf,
    /// The run's identity, checked against a checkpoint before it is resumed.
    pub run_id: String,
    /// The games objective, when the run tunes on games (not with the race).
    pub games: Option<GamesProblem>,
    /// The race's games, one problem per round (empty: the race ends on suite scores).
    pub race_games: Vec<GamesProblem>,
}

/// One SPSA iteration as it ended.
#[derive(Clone, Debug)]
pub struct SpsaProgress {
    /// The iteration, from 1.
    pub iteration: u64,
    /// Iterations in the run.
    pub iterations: u64,
    /// The iterate's margin values, in the space's row order.
    pub values: Vec<i32>,
    /// SPSA's result of the comparison.
    pub result: f64,
    /// The objectives evaluated in this iteration (the two probes; none for games).
    pub evaluated: Vec<f64>,
}

/// What a tune reports while it runs.
pub trait TuneObserver: Send {
    /// An SPSA iteration ended.
    fn spsa(&mut self, _progress: &SpsaProgress) {}
    /// Nelder-Mead or the swarm recorded an iteration (iteration 0 is the start).
    fn iteration(&mut self, _record: &IterationRecord) {}
    /// A race step was scored (a suite evaluation or a finalist's round of games).
    fn race_step(&mut self, _step: &RaceStep) {}
    /// The race ended.
    fn race_done(&mut self, _result: &RaceResult) {}
}

/// What a finished tune found and how it was judged.
pub struct Tuned {
    /// The solver's result, in its coordinates.
    pub theta: Vec<f64>,
    /// The tuned set.
    pub tuned: Setting,
    /// Tuned, default and off on the training positions.
    pub training: Side,
    /// The same on the validation positions.
    pub validation: Side,
    /// Tuned against default, position by position, on each side.
    pub paired: (PairedComparison, PairedComparison),
    /// The suite cost, with every evaluation and its search time.
    pub cost: SuiteCost,
    /// The games objective, with every comparison played (a games tune).
    pub games: Option<GamesProblem>,
    /// The race's result (a race).
    pub race: Option<RaceResult>,
    /// Every iteration recorded (this run's and, resumed, the log's).
    pub iterations: Vec<IterationRecord>,
}

/// Why a tune stopped.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// The solver failed (a bad configuration, a checkpoint of another run, an evaluation).
    #[error("{0}")]
    Solver(Error),
    /// The race failed.
    #[error(transparent)]
    Race(#[from] RaceError),
    /// Judging the tuned set failed (the executor).
    #[error(transparent)]
    Judge(#[from] ExecError),
    /// The iteration log cannot be written.
    #[error("cannot open {path}: {error}")]
    Log {
        /// The log.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Runs the tune of `plan` on the training cost `cost` (its scorer judges the training side)
/// and judges the result on `validation` too, reporting to `observer`. A run whose checkpoint
/// directory holds an earlier run's state resumes it and ends with the same result.
///
/// # Errors
/// See [`TuneError`].
pub fn run<O: TuneObserver + 'static>(
    plan: TunePlan,
    cost: SuiteCost,
    validation: &SuiteScorer,
    observer: O,
) -> Result<Tuned, TuneError> {
    let TunePlan {
        def,
        space,
        solver,
        seed,
        dir,
        run_id,
        games,
        race_games,
    } = plan;
    let observer = Arc::new(Mutex::new(observer));
    let is_spsa = matches!(solver, Solver::Spsa { .. });
    let log = dir.join("iterations.jsonl");
    let mut recorder = Recorder::new(space.clone(), !is_spsa, Some(&log))
        .map_err(|error| TuneError::Log {
            path: log.clone(),
            error,
        })?
        .with_tap(cost.tap());
    if !is_spsa {
        let observer = observer.clone();
        recorder = recorder.on_record(move |r: &IterationRecord| lock(&observer).iteration(r));
    }
    let records = recorder.records();
    let checkpoint = |name: &str| dir.join(name);
    let spsa_lines = |iterations| SpsaLines {
        space: space.clone(),
        iterations,
        records: records.clone(),
        observer: observer.clone(),
    };
    let mut games_problem = None;
    let mut race_result = None;
    let (theta, cost) = match (solver, games) {
        (Solver::Race(settings), _) => {
            let result = race::run(&cost, &race_games, &settings, &mut |s| {
                lock(&observer).race_step(s)
            })?;
            lock(&observer).race_done(&result);
            let theta = result.values.iter().map(|&v| f64::from(v)).collect();
            race_result = Some(result);
            (theta, cost)
        }
        (Solver::Spsa { iterations, .. }, Some(problem)) => {
            let path = checkpoint("spsa.json");
            let (theta, problem) = run_spsa_games(
                problem,
                iterations,
                seed,
                Some((&path, &run_id)),
                Both(recorder, spsa_lines(iterations)),
            )
            .map_err(TuneError::Solver)?;
            games_problem = Some(problem);
            (theta, cost)
        }
        (Solver::NelderMead(s), Some(problem)) => {
            let path = checkpoint("nelder-mead.json");
            let (theta, problem) = run_nelder_mead(problem, &s, Some((&path, &run_id)), recorder)
                .map_err(TuneError::Solver)?;
            games_problem = Some(problem);
            (theta, cost)
        }
        (Solver::Pso(s), Some(problem)) => {
            let path = checkpoint("pso.json");
            let (theta, problem) = run_pso(problem, &s, Some((&path, &run_id)), recorder)
                .map_err(TuneError::Solver)?;
            games_problem = Some(problem);
            (theta, cost)
        }
        (
            Solver::Spsa {
                iterations,
                gain,
                batch,
            },
            None,
        ) => {
            let path = checkpoint("spsa.json");
            run_spsa(
                cost,
                iterations,
                seed,
                gain,
                batch,
                Some((&path, &run_id)),
                Both(recorder, spsa_lines(iterations)),
            )
            .map_err(TuneError::Solver)?
        }
        (Solver::NelderMead(s), None) => {
            let path = checkpoint("nelder-mead.json");
            run_nelder_mead(cost, &s, Some((&path, &run_id)), recorder)
                .map_err(TuneError::Solver)?
        }
        (Solver::Pso(s), None) => {
            let path = checkpoint("pso.json");
            run_pso(cost, &s, Some((&path, &run_id)), recorder).map_err(TuneError::Solver)?
        }
    };
    let tuned = space.margins(&theta);

    // Judge: tuned, the defaults and off, on training and on validation positions.
    let sets = [
        ("tuned", tuned.clone()),
        ("default", Setting::defaults(&def)),
        ("off", Setting::off(&def)),
    ];
    let training = Side::measure(cost.scorer(), &sets)?;
    let validation = Side::measure(validation, &sets)?;
    let paired = (
        training.paired("tuned", "default").expect("both measured"),
        validation
            .paired("tuned", "default")
            .expect("both measured"),
    );
    let iterations = records.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(Tuned {
        theta,
        tuned,
        training,
        validation,
        paired,
        cost,
        games: games_problem,
        race: race_result,
        iterations,
    })
}

/// The observer, whichever thread reports (a panic elsewhere leaves it usable).
fn lock<O>(observer: &Mutex<O>) -> std::sync::MutexGuard<'_, O> {
    observer.lock().unwrap_or_else(|e| e.into_inner())
}

/// argmin's SPSA observer, reporting each iteration to the tune's observer (after the
/// recorder, whose record of the iteration it reads).
struct SpsaLines<O> {
    space: Space,
    iterations: u64,
    records: Iterations,
    observer: Arc<Mutex<O>>,
}

impl<O: TuneObserver> Observe<SpsaState> for SpsaLines<O> {
    fn observe_iter(&mut self, state: &SpsaState, kv: &KV) -> Result<(), Error> {
        let theta = state.get_param().cloned().unwrap_or_default();
        let result = kv
            .get("result")
            .and_then(|v| v.get_float())
            .unwrap_or(f64::NAN);
        let evaluated = self
            .records
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .map(|r| r.evaluated.clone())
            .unwrap_or_default();
        lock(&self.observer).spsa(&SpsaProgress {
            iteration: state.get_iter() + 1,
            iterations: self.iterations,
            values: self.space.values(&theta),
            result,
            evaluated,
        });
        Ok(())
    }
}
