//! A whole tune as `marginal tune` (or any front end) runs it: the solver over the training
//! positions (or games), checkpointed into the run's directory, then the tuned set judged with
//! the defaults and everything off on training and validation positions. Progress goes to an
//! [`Observer`](crate::progress::Observer) as [`Event::Iteration`], [`Event::Race`] and
//! [`Event::RaceDone`]; nothing here prints.
//!
//! The front end builds the [`TuneWork`] (which engine, space, solver, objective) and the suite
//! cost and scorers; [`run`] does the work and returns a [`Tuned`], from which the front end
//! writes the tuned file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use argmin::core::observers::Observe;
use argmin::core::{Error, KV, State};

use super::cost::SuiteCost;
use super::file::TUNED_FORMAT;
use super::file::{
    EngineRecord, GamesRecord, Paired, Provenance, ScheduleRow, Side, SuiteSource, SuiteSources,
    TunedFile, Values,
};
use super::games::{GamesProblem, run_spsa_games};
use super::pareto;
use super::plan::TunePlan;
use super::race::{self, RaceError, RaceResult, RaceSettings};
use super::solvers::{
    Both, IterationRecord, Iterations, NelderMeadSettings, PsoSettings, Recorder,
};
use super::space::Space;
use super::spsa::SpsaState;
use super::{run_nelder_mead, run_pso, run_spsa};
use crate::calibrate::trust::Calibration;
use crate::engine::{EngineDef, Setting, bench};
use crate::progress::{Event, Iteration, Shared};
use crate::scoring::exec::ExecError;
use crate::scoring::games::matches::MatchReport;
use crate::scoring::paired::PairedComparison;
use crate::scoring::suite::SuiteLimit;
use crate::scoring::suite::objective::ObjectiveParams;
use crate::scoring::suite::{LoadedSuites, ScorerOptions, SuiteScorer};

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
    /// The race ([`race`]): suite objective only, its games in `TuneWork::race_games`.
    Race(RaceSettings),
}

impl Solver {
    /// The iterations the solver runs (none for the race, which runs by stages).
    pub fn iterations(&self) -> u64 {
        match self {
            Solver::Spsa { iterations, .. } => *iterations,
            Solver::NelderMead(s) => s.iterations,
            Solver::Pso(s) => s.iterations,
            Solver::Race(_) => 0,
        }
    }
}

/// What a run tunes: its engine, space, solver and objective.
pub struct TuneWork {
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

/// What the front end adds to a finished tune for its file: what was asked, and how it ran.
pub struct RunRecord {
    /// The run's identity (checked on resume).
    pub run: String,
    /// The objective's name (`suite`, `games`).
    pub objective: String,
    /// The solver's name and its settings.
    pub solver: (String, serde_json::Value),
    /// The training and validation suites.
    pub suites: SuiteSources,
    /// The suite objective's limit and weights.
    pub limit: SuiteLimit,
    /// The objective's parameters.
    pub objective_params: ObjectiveParams,
    /// The seed and the iterations asked.
    pub seed: u64,
    /// Iterations asked (of SPSA, Nelder-Mead or the swarm).
    pub iterations: u64,
    /// Wall time of this invocation, seconds.
    pub wall_seconds: f64,
    /// CPU time of this invocation (its threads and the engines it ran), seconds.
    pub cpu_seconds: f64,
    /// Wall time of the interrupted invocations it resumed, seconds (0: none).
    pub earlier_wall_seconds: f64,
    /// CPU time of the interrupted invocations it resumed, seconds (0: none).
    pub earlier_cpu_seconds: f64,
    /// The command line and the arguments as recorded.
    pub command_line: String,
    /// The arguments, as the front end records them.
    pub arguments: serde_json::Value,
    /// The games objective's record, the confirmation match and the calibration.
    pub games: Option<GamesRecord>,
    /// The confirmation match.
    pub confirm: Option<MatchReport>,
    /// What the calibration says of the objective.
    pub calibration: Option<Calibration>,
}

impl RunRecord {
    /// The record of a run of `plan` with the identity `run_id`, the solver's `settings`, the
    /// `train` and `validation` positions scored with `options`, its checkpoint `dir`, this
    /// invocation's wall and CPU seconds and command line; no games record, confirmation or
    /// calibration yet (the caller adds those it has).
    ///
    /// # Errors
    /// The plan does not serialize (it always does).
    pub fn new(
        plan: &TunePlan,
        run_id: String,
        settings: serde_json::Value,
        (train, validation): (&LoadedSuites, &LoadedSuites),
        options: &ScorerOptions,
        dir: &Path,
        (wall_seconds, cpu_seconds): (f64, f64),
    ) -> serde_json::Result<RunRecord> {
        let earlier = super::checkpoint::earlier_invocations(dir);
        Ok(RunRecord {
            run: run_id,
            objective: plan.objective.name().to_string(),
            solver: (plan.solver.name().to_string(), settings),
            suites: SuiteSources {
                split: plan.split_name(),
                training: SuiteSource::of(train),
                validation: SuiteSource::of(validation),
                repeats: train.rule,
            },
            limit: options.config.limit,
            objective_params: options.objective,
            seed: plan.seed,
            iterations: plan.iterations,
            wall_seconds,
            cpu_seconds,
            earlier_wall_seconds: earlier.wall_seconds,
            earlier_cpu_seconds: earlier.cpu_seconds,
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            arguments: super::run::recorded_arguments(plan, dir)?,
            games: None,
            confirm: None,
            calibration: None,
        })
    }
}

impl Tuned {
    /// The tuned file of this result (`marginal-tuned/1`) for `def`'s engine over `space`.
    pub fn into_file(self, def: &EngineDef, space: &Space, record: RunRecord) -> TunedFile {
        let evaluations = self.cost.evaluations();
        let (searched, search_seconds) = self.cost.search_time();
        let games = record.games.as_ref().map_or_else(
            || self.race.as_ref().map_or(0, RaceResult::games_played),
            |g| g.games,
        );
        let time_losses = self.race.as_ref().map_or(0, RaceResult::time_losses)
            + (record.games.iter())
                .flat_map(|g| &g.evaluations)
                .map(|e| e.time_losses)
                .sum::<u64>()
            + (record.confirm.as_ref()).map_or(0, |c| c.time_losses.a + c.time_losses.b);
        // The tuning's faults, then the judging's (tuned, defaults and off on both sides).
        let faults = evaluations.iter().map(|e| e.faults as u64).sum::<u64>()
            + record
                .games
                .as_ref()
                .map_or(0, |g| g.evaluations.iter().map(|e| e.faults).sum())
            + (self.training.faults + self.validation.faults) as u64;
        TunedFile {
            format: TUNED_FORMAT.to_string(),
            engine: EngineRecord::of(def),
            margins: Values::of(&self.tuned),
            tuned: space.dims.iter().map(|d| d.name.to_string()).collect(),
            training: self.training,
            validation: self.validation,
            paired: Paired {
                training: self.paired.0,
                validation: self.paired.1,
            },
            provenance: Provenance {
                marginal: env!("CARGO_PKG_VERSION").to_string(),
                engine_bench_nodes: if def.is_builtin() {
                    bench::SIGNATURE_NODES
                } else {
                    0
                },
                engine_signature: def.signature(),
                run: record.run,
                objective: record.objective,
                solver: record.solver.0,
                solver_settings: record.solver.1,
                schedule: ScheduleRow::of(space),
                suites: record.suites,
                limit: record.limit,
                objective_params: record.objective_params,
                seed: record.seed,
                iterations: record.iterations,
                final_theta: self.theta,
                evaluations: evaluations.len(),
                games,
                iterations_recorded: self.iterations.len(),
                searched_evaluations: searched,
                search_seconds,
                faults,
                time_losses,
                wall_seconds: record.wall_seconds,
                cpu_seconds: record.cpu_seconds,
                earlier_wall_seconds: record.earlier_wall_seconds,
                earlier_cpu_seconds: record.earlier_cpu_seconds,
                command_line: record.command_line,
                arguments: record.arguments,
            },
            evaluations: pareto::mark(&evaluations),
            iterations: self.iterations,
            games: record.games,
            confirm: record.confirm,
            measured: None,
            calibration: record.calibration,
            race: self.race,
        }
    }
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
///
/// # Example
///
/// A small race of marginal's own engine over two margins, on 40 positions of the bundled
/// WAC suite at 300 nodes a position, with no games (the best suite objective wins):
///
/// ```
/// use marginal::engine::{EngineDef, Setting};
/// use marginal::scoring::suite::{Repeats, RunConfig, ScorerOptions, SuiteLimit, SuiteScorer};
/// use marginal::tune::cost::{SuiteCost, log_path};
/// use marginal::progress::Silent;
/// use marginal::tune::pipeline::{self, Solver, TuneWork};
/// use marginal::tune::race::RaceSettings;
/// use marginal::tune::space::Space;
///
/// let dir = std::env::temp_dir().join(format!("marginal-doc-tune-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let wac = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/suites/wac.epd")).unwrap();
/// let suite = dir.join("wac40.epd");
/// std::fs::write(&suite, wac.lines().take(40).collect::<Vec<_>>().join("\n")).unwrap();
/// let (train, validation) = marginal::tune::split(&[suite], &[], Repeats::Once).unwrap();
///
/// let def = EngineDef::builtin();
/// let options = ScorerOptions {
///     config: RunConfig { limit: SuiteLimit::Nodes(300), hash_mb: 1 },
///     objective: Default::default(),
///     reference: Setting::off(&def),
///     cache_dir: None,
///     executor: std::sync::Arc::new(marginal::scoring::exec::local::Local::new(2)),
/// };
/// let space = Space::new(Setting::defaults(&def), &["futility_margin", "razor_margin"], &[]).unwrap();
/// let scorer = SuiteScorer::new(train, options.clone(), None).unwrap();
/// let validation = SuiteScorer::new(validation, options, None).unwrap();
/// let cost = SuiteCost::new(scorer, space.clone(), Some(&log_path(&dir))).unwrap();
/// let mut settings = RaceSettings::new(space.dims.len(), 1);
/// settings.design = 4;
/// settings.rounds.clear();
///
/// let work = TuneWork {
///     def: def.clone(),
///     space: space.clone(),
///     solver: Solver::Race(settings),
///     seed: 1,
///     dir: dir.clone(),
///     run_id: "0123456789abcdef".into(),
///     games: None,
///     race_games: Vec::new(),
/// };
/// let tuned = pipeline::run(work, cost, &validation, std::sync::Arc::new(Silent)).unwrap();
/// // The tuned set, the defaults and `off` are judged on both sides of the split.
/// assert_eq!(tuned.training.sets.len(), 3);
/// assert_eq!(tuned.training.positions + tuned.validation.positions, 40);
/// assert!(tuned.race.is_some());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn run(
    plan: TuneWork,
    cost: SuiteCost,
    validation: &SuiteScorer,
    observer: Shared,
) -> Result<Tuned, TuneError> {
    let recorder = recorder(&plan, &cost, &observer)?;
    let records = recorder.records();
    let def = plan.def.clone();
    let space = plan.space.clone();
    let solved = solve(plan, cost, recorder, &records, &observer)?;
    let tuned = space.margins(&solved.theta);
    // Judge: tuned, the defaults and off, on training and on validation positions.
    let sets = [
        ("tuned", tuned.clone()),
        ("default", Setting::defaults(&def)),
        ("off", Setting::off(&def)),
    ];
    let training = Side::measure(solved.cost.scorer(), &sets)?;
    let validation = Side::measure(validation, &sets)?;
    let paired = (
        training.paired("tuned", "default").expect("both measured"),
        validation
            .paired("tuned", "default")
            .expect("both measured"),
    );
    let iterations = records.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(Tuned {
        theta: solved.theta,
        tuned,
        training,
        validation,
        paired,
        cost: solved.cost,
        games: solved.games,
        race: solved.race,
        iterations,
    })
}

/// The run's iteration recorder (`iterations.jsonl` in its checkpoint), telling the observer
/// of each iteration of Nelder-Mead and the swarm (SPSA's are told by its own observer).
fn recorder(plan: &TuneWork, cost: &SuiteCost, observer: &Shared) -> Result<Recorder, TuneError> {
    let is_spsa = matches!(plan.solver, Solver::Spsa { .. });
    let log = plan.dir.join("iterations.jsonl");
    let mut recorder = Recorder::new(plan.space.clone(), !is_spsa, Some(&log))
        .map_err(|error| TuneError::Log {
            path: log.clone(),
            error,
        })?
        .with_tap(cost.tap());
    if !is_spsa {
        let observer = observer.clone();
        let iterations = plan.solver.iterations();
        recorder = recorder.on_record(move |r: &IterationRecord| {
            observer.event(&Event::Iteration(Iteration {
                iteration: r.iteration,
                iterations,
                values: &r.values,
                objective: r.objective,
                evaluated: &r.evaluated,
                spsa_result: None,
            }));
        });
    }
    Ok(recorder)
}

/// What the solver found: its result in its coordinates, the suite cost (with every
/// evaluation), and the games objective's problem or the race's result when there was one.
struct Solved {
    theta: Vec<f64>,
    cost: SuiteCost,
    games: Option<GamesProblem>,
    race: Option<RaceResult>,
}

/// Runs the plan's solver on its objective: the race, SPSA or an argmin solver, on the suite
/// objective or on games.
fn solve(
    plan: TuneWork,
    cost: SuiteCost,
    recorder: Recorder,
    records: &Iterations,
    observer: &Shared,
) -> Result<Solved, TuneError> {
    let TuneWork {
        def,
        space,
        solver,
        seed,
        dir,
        run_id,
        games,
        race_games,
        ..
    } = plan;
    let spsa_lines = |iterations| SpsaLines {
        space: space.clone(),
        iterations,
        records: records.clone(),
        observer: observer.clone(),
    };
    let solved = |theta, cost, games| Solved {
        theta,
        cost,
        games,
        race: None,
    };
    let spsa_path = dir.join("spsa.json");
    let checkpoint = Some((spsa_path.as_path(), run_id.as_str()));
    Ok(match (solver, games) {
        (Solver::Race(settings), _) => {
            let screen = match &settings.screen_objective {
                Some(s) => Some(
                    super::screen::prepare(s, &def, cost.scorer().options(), observer, &dir)
                        .map_err(RaceError::Settings)?,
                ),
                None => None,
            };
            let result =
                race::run_with(&cost, screen.as_ref(), &race_games, &settings, &**observer)?;
            observer.event(&Event::RaceDone {
                verdict: &result.verdict,
            });
            let theta = result.values.iter().map(|&v| f64::from(v)).collect();
            Solved {
                race: Some(result),
                ..solved(theta, cost, None)
            }
        }
        (Solver::Spsa { iterations, .. }, Some(problem)) => {
            let lines = Both(recorder, spsa_lines(iterations));
            let (theta, problem) = run_spsa_games(problem, iterations, seed, checkpoint, lines)
                .map_err(TuneError::Solver)?;
            solved(theta, cost, Some(problem))
        }
        (solver, Some(problem)) => {
            let (theta, problem) = run_argmin(&solver, problem, &dir, &run_id, recorder)?;
            solved(theta, cost, Some(problem))
        }
        (
            Solver::Spsa {
                iterations,
                gain,
                batch,
            },
            None,
        ) => {
            let lines = Both(recorder, spsa_lines(iterations));
            let (theta, cost) = run_spsa(cost, iterations, seed, gain, batch, checkpoint, lines)
                .map_err(TuneError::Solver)?;
            solved(theta, cost, None)
        }
        (solver, None) => {
            let (theta, cost) = run_argmin(&solver, cost, &dir, &run_id, recorder)?;
            solved(theta, cost, None)
        }
    })
}

/// Runs argmin's Nelder-Mead or particle swarm on `cost` (the suite or the games objective),
/// checkpointed into `dir` as `nelder-mead.json` or `pso.json`.
fn run_argmin<C>(
    solver: &Solver,
    cost: C,
    dir: &std::path::Path,
    run_id: &str,
    recorder: Recorder,
) -> Result<(Vec<f64>, C), TuneError>
where
    C: argmin::core::CostFunction<Param = Vec<f64>, Output = f64>,
{
    let run = match solver {
        Solver::NelderMead(s) => {
            let path = dir.join("nelder-mead.json");
            run_nelder_mead(cost, s, Some((&path, run_id)), recorder)
        }
        Solver::Pso(s) => {
            let path = dir.join("pso.json");
            run_pso(cost, s, Some((&path, run_id)), recorder)
        }
        Solver::Spsa { .. } | Solver::Race(_) => {
            return Err(TuneError::Solver(Error::msg(
                "SPSA and the race do not run through run_argmin",
            )));
        }
    };
    run.map_err(TuneError::Solver)
}

/// argmin's SPSA observer, reporting each iteration to the tune's observer (after the
/// recorder, whose record of the iteration it reads).
struct SpsaLines {
    space: Space,
    iterations: u64,
    records: Iterations,
    observer: Shared,
}

impl Observe<SpsaState> for SpsaLines {
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
        self.observer.event(&Event::Iteration(Iteration {
            iteration: state.get_iter() + 1,
            iterations: self.iterations,
            values: &self.space.values(&theta),
            objective: None,
            evaluated: &evaluated,
            spsa_result: Some(result),
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::progress::Silent;
    use crate::scoring::exec::local::Local;
    use crate::scoring::suite::{Repeats, RunConfig};
    use crate::tune::cost::log_path;

    /// A scratch directory of its own for each test.
    fn scratch(name: &str) -> PathBuf {
        crate::testing::scratch("pipeline", name)
    }

    /// A tune of futility and razoring on the first 30 WAC positions at 300 nodes, with its
    /// checkpoint in `dir`, solved by `solver(space)`.
    fn small_run(dir: &Path, solver: impl Fn(&Space) -> Solver, observer: Shared) -> Tuned {
        let wac =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/suites/wac.epd"))
                .unwrap();
        let suite = dir.join("wac30.epd");
        std::fs::write(&suite, wac.lines().take(30).collect::<Vec<_>>().join("\n")).unwrap();
        let (train, validation) = crate::tune::split(&[suite], &[], Repeats::Once).unwrap();
        let def = EngineDef::builtin();
        let options = ScorerOptions {
            config: RunConfig {
                limit: SuiteLimit::Nodes(300),
                hash_mb: 1,
            },
            objective: Default::default(),
            reference: Setting::off(&def),
            cache_dir: None,
            executor: Arc::new(Local::new(2)),
        };
        let names = ["futility_margin", "razor_margin"];
        let space = Space::new(Setting::defaults(&def), &names, &[]).unwrap();
        let scorer = SuiteScorer::new(train, options.clone(), None).unwrap();
        let validation = SuiteScorer::new(validation, options, None).unwrap();
        let cost = SuiteCost::new(scorer, space.clone(), Some(&log_path(dir))).unwrap();
        let work = TuneWork {
            def,
            space: space.clone(),
            solver: solver(&space),
            seed: 3,
            dir: dir.to_path_buf(),
            run_id: "0123456789abcdef".into(),
            games: None,
            race_games: Vec::new(),
        };
        run(work, cost, &validation, observer).unwrap()
    }

    fn spsa(_: &Space) -> Solver {
        Solver::Spsa {
            iterations: 4,
            gain: 1.0,
            batch: None,
        }
    }

    #[test]
    fn a_run_resumed_from_its_checkpoint_ends_as_a_run_from_scratch() {
        let (first, again) = (scratch("fresh"), scratch("again"));
        let fresh = small_run(&first, spsa, Arc::new(Silent));
        // Run once, then again on the same checkpoint: the second finds every evaluation logged.
        small_run(&again, spsa, Arc::new(Silent));
        let lines = || {
            std::fs::read_to_string(log_path(&again))
                .unwrap()
                .lines()
                .count()
        };
        let logged = lines();
        let resumed = small_run(&again, spsa, Arc::new(Silent));
        // Nothing was evaluated again: the log holds what the first run wrote.
        assert!(logged > 0);
        assert_eq!(lines(), logged);
        assert_eq!(resumed.tuned, fresh.tuned);
        assert_eq!(resumed.theta, fresh.theta);
        assert_eq!(resumed.training.sets.len(), 3);
        assert_eq!(
            resumed.training.positions + resumed.validation.positions,
            30
        );
        for dir in [first, again] {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }

    #[test]
    fn each_nelder_mead_iteration_is_logged_and_told_to_the_observer_once() {
        let dir = scratch("nm");
        let told = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&told);
        let observer: Shared = Arc::new(move |e: &Event<'_>| {
            if matches!(e, Event::Iteration(_)) {
                count.fetch_add(1, Ordering::Relaxed);
            }
        });
        let nm = |space: &Space| Solver::NelderMead(NelderMeadSettings::new(space, 3));
        let tuned = small_run(&dir, nm, observer);
        let logged = std::fs::read_to_string(dir.join("iterations.jsonl")).unwrap();
        let told = told.load(Ordering::Relaxed);
        assert!(told > 0);
        assert_eq!(logged.lines().count(), told);
        assert_eq!(tuned.iterations.len(), told);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
