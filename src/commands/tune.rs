//! `marginal tune`: SPSA on the suite objective, judged on held-out positions.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use marginal::engine::{EngineDef, Setting};
use marginal::scoring::paired::PairedComparison;
use marginal::scoring::suite::{
    LoadedSuites, RunConfig, ScorerOptions, SuiteScorer, default_cache_dir,
};
use marginal::tune::SplitError;
use marginal::tune::calibrated;
use marginal::tune::checkpoint;
use marginal::tune::cost::{SuiteCost, log_path};
use marginal::tune::file::{Side, SuiteSource, SuiteSources, TunedFile};
use marginal::tune::games::GamesProblem;
use marginal::tune::pipeline::{self, RunRecord, SpsaProgress, TuneError, TuneObserver, TuneWork};
use marginal::tune::plan::{
    DEFAULT_GAIN, DEFAULT_ITERATIONS, EngineChoice, ObjectiveKind, RACE_BOOK, ScoringChoice,
    SolverKind, TuneOptions, TunePlan,
};
use marginal::tune::race;
use marginal::tune::run;
use marginal::tune::setup;
use marginal::tune::solvers::IterationRecord;
use marginal::tune::space::Space;

use super::{
    EngineArgs, ScoringArgs, UserError, count, depth_arg, positive, threads, threads_arg,
    whole_pairs, writable,
};

mod games;
use super::executor::{ExecutorArgs, ExecutorKind, exec_error, solver_error};
use games::ObjectiveArg;
mod solver;
use solver::SolverArg;

/// Arguments of `marginal tune`.
#[derive(Args, Clone)]
pub struct TuneArgs {
    /// Training suites (default: the bundled WAC and ECM). Without --holdout, one position in
    /// three (by a hash of its FEN) is held out for validation and never tuned on.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    suites: Vec<PathBuf>,
    /// Validation suites, instead of the split of the training suites (no FEN may appear in
    /// both).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    holdout: Vec<PathBuf>,
    /// The engine to tune: marginal's own (default), or an external UCI engine's options.
    #[command(flatten)]
    engine: EngineArgs,
    /// Parameters to tune (names, UCI names or aliases), comma-separated (default: the four
    /// seed margins frontier, prefrontier, razor and delta; for an external engine every row
    /// of its engine file).
    #[arg(long, value_delimiter = ',')]
    params: Vec<String>,
    /// Narrow a parameter's range: name=MIN..MAX (repeatable).
    #[arg(long, value_name = "NAME=MIN..MAX")]
    bounds: Vec<String>,
    /// SPSA's final perturbation c_end instead of the table's step: NAME=VALUE for one tuned
    /// parameter, or VALUE for all (repeatable, applied in order).
    #[arg(long, value_name = "[NAME=]VALUE")]
    c_end: Vec<String>,
    /// SPSA's final learning rate r_end instead of the table's (0.002 by default):
    /// NAME=VALUE or VALUE for all (repeatable, applied in order). Games tunes get a few
    /// thousand game pairs where OpenBench runs tens of thousands, so they want a larger one.
    #[arg(long, value_name = "[NAME=]VALUE")]
    r_end: Vec<String>,
    /// Iterations of SPSA (each scores two probes on the training positions), Nelder-Mead or
    /// the swarm (at least 1; the race has its own budget: --design, --finalists, --race-pairs).
    #[arg(long, default_value_t = DEFAULT_ITERATIONS, value_parser = count::<u64, 1>)]
    iterations: u64,
    /// Seed of the solver (the race's design and book shuffle, SPSA's perturbations and
    /// rounding, the swarm): the same seed gives the same result.
    #[arg(long, default_value_t = 1, value_parser = super::seed_arg)]
    seed: u64,
    /// The solver: `race` (the default: a seeded Latin hypercube over the whole bounds in log
    /// coordinates screened by the suite objective on a batch of positions, the best kept and
    /// scored on all of them, a compass search from the best, the defaults scaled along a line
    /// (x2 to x0.125), then the finalists (the local best, every point of the line, the best
    /// screened) race in games against the defaults on --race-openings, the better half going
    /// on each round),
    /// `spsa` (OpenBench's schedule; the result is the final iterate), `nelder-mead`
    /// (argmin's, from the defaults and one vertex per margin moved by 4 x its step; the result
    /// is the best vertex) or `pso` (argmin's particle swarm over the bounds, seeded by --seed;
    /// the result is the best particle). --iterations counts the iterations of the last three.
    /// (Default: `race` on the suite objective, `spsa` on games.)
    #[arg(long, value_enum)]
    solver: Option<SolverArg>,
    /// --solver race: points of the global design (any N of at least 1; without it, 12 a tuned
    /// row and no fewer than 24).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    design: Option<usize>,
    /// --solver race: score the global screen on a seeded batch of N training positions
    /// (default: on all of them), then the best 16 on all.
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    screen: Option<usize>,
    /// --solver race: sets that race in games (default 16).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    finalists: Option<usize>,
    /// --solver race: game pairs each surviving finalist plays against the defaults in each
    /// round, comma-separated (default 16,32,64,128; 0 races no games: the best suite
    /// objective wins).
    #[arg(long, value_name = "PAIRS", value_delimiter = ',')]
    race_pairs: Vec<u32>,
    /// --solver race: the book of the race's games (default
    /// data/openings/8mvs_+90_+99_1k.epd, a book none of the confirmation books shares),
    /// shuffled with --seed; each round plays the openings after the last round's.
    #[arg(long, value_name = "FILE")]
    race_openings: Option<PathBuf>,
    /// Particles of --solver pso (default 8, at least 1; each iteration evaluates every one).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    particles: Option<usize>,
    /// SPSA's result per iteration is gain x (objective of theta+ - objective of theta-),
    /// objective points; OpenBench's schedule then moves a margin by about
    /// r_k * c_k * result.
    #[arg(long, default_value_t = DEFAULT_GAIN, value_parser = positive)]
    gain: f64,
    /// Score each SPSA comparison on N training positions drawn afresh (seeded by --seed and
    /// the probes, so a resumed run draws the same), not on all of them: cheaper, noisier
    /// steps. The tuned set is still judged on every position.
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    batch: Option<usize>,
    /// Fixed node budget per position (the default: pruning then buys depth; 5,000 for the
    /// built-in engine, 10,000 for an external one, the limits of their shipped calibrations).
    #[arg(long, conflicts_with = "depth", value_parser = count::<u64, 1>)]
    nodes: Option<u64>,
    /// Fixed depth per position instead of a node budget.
    #[arg(long, value_parser = depth_arg())]
    depth: Option<u32>,
    /// The suite objective's weights and the table size.
    #[command(flatten)]
    scoring: ScoringArgs,
    /// Worker threads (default: all cores; at most 256). Results are identical for any count.
    #[arg(long, value_parser = threads_arg())]
    threads: Option<usize>,
    /// Where the searching runs (not recorded: a run resumes on any executor).
    #[command(flatten)]
    executor: ExecutorArgs,
    /// The tuned file to write.
    #[arg(long, default_value = marginal::tune::file::DEFAULT_TUNE_OUT)]
    out: PathBuf,
    /// Replace --out when it exists and is not this run's own result (without it, marginal
    /// refuses to write over a file another run made).
    #[arg(long)]
    force: bool,
    /// Checkpoint directory (default: .marginal-cache/tune-NAME-RUN, named after the output and
    /// a digest of the run's arguments and data, and recorded in the tuned file). Rerunning the
    /// same command resumes from it.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Resume the run whose checkpoint directory this is, with its recorded arguments. When
    /// the run's engine file changed since the run started (its content digest, which
    /// the checkpoint records), the resume is refused; `--resume DIR --engine FILE` (the
    /// file the run records) resumes with the engine file as it is now, as `check --engine`
    /// checks with it.
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// What to optimise: `suite` (the suite objective on the training positions) or `games`
    /// (self-play at --nodes per move, default 5,000: each SPSA iteration plays theta+
    /// against theta- for --pairs game pairs on the next openings of the shuffled book, and
    /// W-L drives the step as in fishtest and OpenBench; --gain is not applied).
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Suite)]
    objective: ObjectiveArg,
    /// Games objective: game pairs per SPSA iteration (each opening twice, colours reversed;
    /// default 8).
    #[arg(long, value_name = "K", value_parser = count::<u32, 1>)]
    pairs: Option<u32>,
    /// Opening book of the games objective (default data/openings/UHO_4060_v2_2k.epd),
    /// shuffled with --seed.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// After tuning, play the tuned set against the defaults in self-play at --nodes per move
    /// (default 5,000), at most GAMES games, stopped by the SPRT of --confirm-sprt; the match
    /// report goes into the tuned file under "confirm".
    #[arg(long, value_name = "GAMES", value_parser = count::<u32, 1>)]
    confirm: Option<u32>,
    /// The SPRT of --confirm, as `marginal match --sprt`: elo0,elo1,alpha,beta in normalized
    /// Elo (default 0,5,0.05,0.05).
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA")]
    confirm_sprt: Option<String>,
    /// Opening books of --confirm, their pairs in turn, judged pooled (default: the balanced
    /// noob_3moves_1k and popularpos_lichess_1k and UHO_4060_v2_2k, less the games
    /// objective's own book).
    #[arg(long, value_name = "FILE", num_args = 1.., value_delimiter = ',')]
    confirm_openings: Vec<PathBuf>,
    /// A calibration report (`marginal calibrate`) of this engine with this objective: the
    /// tuned file records how far the objective is trusted and the Elo it predicts (default:
    /// a report in tuned/ for the same engine signature, limit and objective, if any).
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
}

impl TuneArgs {
    /// The library's plan of these arguments, and how this invocation runs it.
    fn into_tune(self) -> Tune {
        let solver = self
            .solver
            .map_or(SolverKind::default_for(self.objective.into()), Into::into);
        let plan = TunePlan {
            suites: self.suites,
            holdout: self.holdout,
            engine: EngineChoice {
                engine: self.engine.engine,
                engine_cmd: self.engine.engine_cmd,
                engine_options: self.engine.engine_options,
            },
            params: self.params,
            bounds: self.bounds,
            c_end: self.c_end,
            r_end: self.r_end,
            iterations: self.iterations,
            seed: self.seed,
            solver,
            design: self.design,
            screen: self.screen,
            finalists: self.finalists,
            race_pairs: self.race_pairs,
            race_openings: self.race_openings,
            particles: self.particles,
            gain: self.gain,
            batch: self.batch,
            nodes: self.nodes,
            depth: self.depth,
            scoring: ScoringChoice {
                weight: self.scoring.weight,
                early: self.scoring.early,
                hash: self.scoring.hash,
                count_repeats: self.scoring.count_repeats,
            },
            out: self.out,
            objective: self.objective.into(),
            pairs: self.pairs,
            openings: self.openings,
            confirm: self.confirm,
            confirm_sprt: self.confirm_sprt,
            confirm_openings: self.confirm_openings,
            calibration: self.calibration,
        };
        Tune {
            plan,
            opts: TuneOptions {
                checkpoint: self.checkpoint,
                resume: self.resume,
                force: self.force,
                engine_as_is: false,
                threads: self.threads,
            },
            executor: self.executor,
        }
    }
}

/// A tune as this command runs it: the library's plan, how this invocation runs it, and where
/// its searching runs.
#[derive(Clone)]
struct Tune {
    plan: TunePlan,
    opts: TuneOptions,
    executor: ExecutorArgs,
}

impl Tune {
    /// The checkpoint directory: --checkpoint, else the plan's default one in the cache.
    fn checkpoint_dir(&self, run_id: &str) -> PathBuf {
        self.opts
            .checkpoint
            .clone()
            .unwrap_or_else(|| self.plan.checkpoint_dir(&default_cache_dir(), run_id))
    }
}

/// The tune's progress: one plain line per iteration (CI logs and terminals alike), or for
/// the race one a stage and one a finalist's games.
struct Lines {
    names: Vec<String>,
    iterations: u64,
    start: Instant,
    best: f64,
    race: RaceLines,
}

impl Lines {
    fn new(space: &Space, iterations: u64, start: Instant) -> Lines {
        Lines {
            names: space.dims.iter().map(|d| d.name.clone()).collect(),
            iterations,
            start,
            best: f64::NEG_INFINITY,
            race: RaceLines::new(space, start),
        }
    }

    fn margins(&self, values: &[i32]) -> String {
        self.names
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl TuneObserver for Lines {
    fn spsa(&mut self, p: &SpsaProgress) {
        if super::quiet() {
            return;
        }
        let objectives = if p.evaluated.is_empty() {
            String::new()
        } else {
            self.best = p.evaluated.iter().copied().fold(self.best, f64::max);
            let probes: Vec<String> = p.evaluated.iter().map(|o| format!("{o:.3}")).collect();
            format!("  objective {}  best {:.3}", probes.join("/"), self.best)
        };
        println!(
            "iteration {:>3}/{}: {}  result {:+.3}{objectives}  ({:.0} s)",
            p.iteration,
            p.iterations,
            self.margins(&p.values),
            p.result,
            self.start.elapsed().as_secs_f64()
        );
    }

    fn iteration(&mut self, r: &IterationRecord) {
        let objective = r.objective.unwrap_or(f64::NAN);
        self.best = self.best.max(objective);
        if super::quiet() {
            return;
        }
        let step = if r.iteration == 0 {
            "start".to_string()
        } else {
            format!("iteration {:>3}/{}", r.iteration, self.iterations)
        };
        println!(
            "{step}: {}  objective {objective:.3}  best {:.3}  ({} evaluated, {:.0} s)",
            self.margins(&r.values),
            self.best,
            r.evaluated.len(),
            self.start.elapsed().as_secs_f64()
        );
    }

    fn race_step(&mut self, step: &race::RaceStep) {
        if super::quiet() {
            return;
        }
        self.race.step(step);
    }

    fn race_done(&mut self, result: &race::RaceResult) {
        self.race.finish();
        println!("race: {}", result.verdict);
    }
}

/// The race's progress: one line a stage (how many sets, the best), one a finalist's games.
struct RaceLines {
    names: Vec<String>,
    start: Instant,
    stage: Option<(race::Stage, usize)>,
    count: usize,
    cached: usize,
    best: Option<(f64, Vec<i32>)>,
}

impl RaceLines {
    fn new(space: &Space, start: Instant) -> RaceLines {
        RaceLines {
            names: space.dims.iter().map(|d| d.name.clone()).collect(),
            start,
            stage: None,
            count: 0,
            cached: 0,
            best: None,
        }
    }

    fn set(&self, values: &[i32]) -> String {
        values
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join(" / ")
    }

    fn step(&mut self, s: &race::RaceStep) {
        if s.stage == race::Stage::Games {
            self.finish();
            let g = s.games.expect("a games step carries its games");
            println!(
                "race round {}: {}  {:+.1} Elo against the defaults after {} games (+{} ={} -{}){}  ({:.0} s)",
                s.round,
                self.set(&s.values),
                s.score,
                2 * g.pairs,
                g.wdl.wins,
                g.wdl.draws,
                g.wdl.losses,
                if s.cached { ", from the log" } else { "" },
                self.start.elapsed().as_secs_f64()
            );
            return;
        }
        if self.stage != Some((s.stage, s.round)) {
            self.finish();
            self.stage = Some((s.stage, s.round));
        }
        self.count += 1;
        self.cached += usize::from(s.cached);
        if self.best.as_ref().is_none_or(|(b, _)| s.score > *b) {
            self.best = Some((s.score, s.values.clone()));
        }
    }

    fn finish(&mut self) {
        let (Some((stage, round)), Some((best, values))) = (self.stage.take(), self.best.take())
        else {
            return;
        };
        let what = match stage {
            race::Stage::Screen => "global screen".to_string(),
            race::Stage::Full => "kept (on every training position)".to_string(),
            race::Stage::Local => format!("local round {round}"),
            race::Stage::Line => "the line through the defaults (all margins scaled)".to_string(),
            race::Stage::Games => "games".to_string(),
        };
        println!(
            "race {what}: {} sets{}, best objective {best:.3} at {} ({})  ({:.0} s)",
            self.count,
            if self.cached > 0 {
                format!(" ({} from the log)", self.cached)
            } else {
                String::new()
            },
            self.set(&values),
            self.names.join(" / "),
            self.start.elapsed().as_secs_f64()
        );
        self.count = 0;
        self.cached = 0;
    }
}

/// The command's error for a tune's: executors keep their exit status; anything else the
/// solver refuses is the user's (exit 2).
fn tune_error(e: TuneError) -> anyhow::Error {
    match e {
        TuneError::Solver(e) => solver_error(e),
        TuneError::Race(race::RaceError::Suite(e)) => solver_error(e),
        TuneError::Race(race::RaceError::Games(marginal::tune::games::GamesError::Exec(e))) => {
            exec_error(e)
        }
        TuneError::Race(race::RaceError::Games(e)) => anyhow::Error::from(e),
        TuneError::Race(race::RaceError::Settings(m)) => UserError(m).into(),
        TuneError::Judge(e) => exec_error(e),
        e @ TuneError::Log { .. } => anyhow::Error::from(e),
    }
}

/// Runs the command.
/// The games of the run: the games objective's problem, or the race's problems (one a
/// round, with the race's plan printed), or neither.
fn objective_games(
    args: &Tune,
    games_setup: Option<&setup::GamesSetup>,
    solver_setup: &setup::SolverSetup,
    space: &Space,
    dir: &Path,
    executor: &Option<Arc<dyn marginal::scoring::exec::Runner>>,
    train_positions: usize,
) -> Result<(Option<GamesProblem>, Vec<GamesProblem>)> {
    let mut games_problem = None;
    let mut race_games = Vec::new();
    match (args.plan.objective, games_setup) {
        (ObjectiveKind::Games, Some(setup)) => {
            games_problem =
                Some(games::problem(args, setup, space, dir)?.with_executor(executor.clone()));
        }
        _ if args.plan.solver == SolverKind::Race => {
            let settings = solver_setup
                .race
                .as_ref()
                .expect("race settings for --solver race");
            race_games =
                games::race_problems(args, space, &settings.rounds, dir, executor.clone())?;
            let games = if race_games.is_empty() {
                "no games (--race-pairs 0): the best suite objective wins".to_string()
            } else {
                format!(
                    "{} finalists in {} games at most ({} pairs a round) on {}",
                    settings.finalists,
                    settings.games(),
                    settings
                        .rounds
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    args.plan
                        .race_openings
                        .as_deref()
                        .unwrap_or(Path::new(RACE_BOOK))
                        .display(),
                )
            };
            println!(
                "race: {} design points screened on {} positions, {} kept, {} local rounds, {games}",
                settings.design,
                settings.screen_positions.min(train_positions),
                settings.keep.min(settings.design + 1),
                settings.local_rounds,
            );
        }
        _ => {}
    }
    Ok((games_problem, race_games))
}

/// At the first SIGINT (Ctrl-C) or SIGTERM: says on standard error what the checkpoint keeps
/// and the command that resumes, and ends with exit status 130. Every finished evaluation and
/// game pair is already on disk (the logs are appended line by line), and the engines, whose
/// input closes with marginal, end with it. On Slurm the executor first cancels its job array
/// (and ends the command itself); this waits `grace` for that. A second signal ends at once.
fn say_interrupted(dir: &Path, engine: Option<&Path>, grace: std::time::Duration) -> Result<()> {
    let flag = super::executor::interrupt_flag()?;
    let dir = dir.to_path_buf();
    // A run resumed with its engine file as it is now goes on only so again.
    let resume = match engine {
        Some(file) => format!(
            "marginal tune --resume {} --engine {}",
            dir.display(),
            file.display()
        ),
        None => format!("marginal tune --resume {}", dir.display()),
    };
    let began = Instant::now();
    std::thread::spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // This invocation's time, for the resumed run's record of what the tune cost.
        let line = serde_json::json!({ "wall_seconds": began.elapsed().as_secs_f64() });
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(checkpoint::INTERRUPTED_LOG))
            .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
        // Whole confirmation pairs: two games each in the PGN (a pair cut short is replayed).
        let confirm = std::fs::read_to_string(games::confirm_pgn(&dir))
            .map_or(0, |t| t.matches("[Event ").count() / 2);
        eprintln!(
            "interrupted: {} and {} game batches{} are kept in {}; rerun the same command, or `{resume}`, to go on from them",
            checkpoint::evaluations_kept(&dir),
            checkpoint::game_batches_kept(&dir),
            if confirm > 0 {
                format!(", and {confirm} confirmation pairs,")
            } else {
                String::new()
            },
            dir.display(),
        );
        std::thread::sleep(grace);
        std::process::exit(i32::from(super::INTERRUPTED_STATUS));
    });
    Ok(())
}

/// Says which calibration the run's objective has, or that it has none.
fn say_calibration(
    args: &Tune,
    options: &ScorerOptions,
    found: &Option<calibrated::FoundCalibration>,
) {
    match found {
        Some((path, report, o, caveat)) => {
            println!(
                "calibration {}: {}",
                path.display(),
                report.objectives[*o].verdict
            );
            if let Some(caveat) = caveat {
                println!("  ({caveat})");
            }
        }
        None if args.plan.objective == ObjectiveKind::Suite => println!(
            "calibration: none of the suite objective at {} for this engine (marginal calibrate measures one)",
            options.config.limit
        ),
        None => {}
    }
}

/// The engine a plan names (started once to check it).
fn engine_of(engine: &EngineChoice) -> Result<Arc<EngineDef>, UserError> {
    super::engine_def(
        engine.engine.as_deref(),
        engine.engine_cmd.as_deref(),
        &engine.engine_options,
    )
}

/// A resumed run of an external engine says which engine it took: the one its checkpoint
/// records (as `check` says "as the tuned file records it"), or the file given with --engine.
fn say_resumed_engine(args: &Tune, def: &EngineDef) {
    if args.opts.resume.is_none() || def.is_builtin() {
        return;
    }
    let source = def.source.as_deref().unwrap_or_default();
    if args.opts.engine_as_is {
        println!(
            "engine: {} ({source}), given with --engine: taken as it is now",
            def.name
        );
    } else {
        println!(
            "engine: {} ({source}), as the checkpoint records it",
            def.name
        );
    }
}

/// The run's checkpoint directory, made and holding the run's plan: an existing --out that is
/// not this run's own is refused first, and an interrupt from here on says what the directory
/// keeps.
fn open_checkpoint(mut args: Tune, run_id: &str, def: &EngineDef) -> Result<(Tune, PathBuf)> {
    let dir = args.checkpoint_dir(run_id);
    run::check_checkpoint(&args.plan, run_id, &dir).map_err(run_error)?;
    // A rerun or resume of this run (its checkpoint exists) writes the same set again.
    super::fresh_json_output(&args.plan.out, "--out", args.opts.force || dir.exists())?;
    super::plot_beside(
        &args.plan.out,
        "--out",
        args.opts.force,
        &args.plan.inputs(),
    )?;
    run::make_checkpoint(&args.plan, &args.opts, run_id, def, &dir).map_err(run_error)?;
    args.opts.checkpoint = Some(dir.clone());
    let grace = match args.executor.executor {
        ExecutorKind::Local => std::time::Duration::ZERO,
        ExecutorKind::Slurm => std::time::Duration::from_secs(120),
    };
    let engine = (args.plan.engine.engine.as_deref()).filter(|_| args.opts.engine_as_is);
    say_interrupted(&dir, engine, grace)?;
    Ok((args, dir))
}

/// The command's error for a run that cannot be opened: a refusal is the user's (exit 2).
fn run_error(e: run::RunError) -> anyhow::Error {
    match e {
        run::RunError::Refused(m) => UserError(m).into(),
        e => e.into(),
    }
}

/// The run's identity ([`run::identity`]), with what it had to say printed.
fn identify(
    args: &Tune,
    def: &EngineDef,
    train: &LoadedSuites,
    validation: &LoadedSuites,
) -> Result<String> {
    let mut remarks = Vec::new();
    let cache = default_cache_dir();
    let opening = run::Opening {
        plan: &args.plan,
        opts: &args.opts,
        def,
        train,
        validation,
        cache: &cache,
    };
    let run_id = run::identity(&opening, &mut remarks).map_err(run_error);
    say_remarks(remarks);
    run_id
}

/// Prints what opening the run had to say.
fn say_remarks(remarks: Vec<run::Remark>) {
    for remark in remarks {
        match remark {
            run::Remark::Note(m) => eprintln!("note: {m}"),
            run::Remark::Warning(m) => eprintln!("warning: {m}"),
            run::Remark::Said(m) => eprintln!("{m}"),
        }
    }
}

/// A rerun says what it goes on from, and its progress keeps the best found before.
fn say_resuming(dir: &Path, cost: &SuiteCost, observer: &mut Lines) {
    let logged = cost.evaluations();
    let batches = checkpoint::game_batches_kept(dir);
    let best = logged
        .iter()
        .filter(|e| e.batch.is_none())
        .max_by(|a, b| a.objective.total_cmp(&b.objective));
    let mut kept = Vec::new();
    if !logged.is_empty() {
        kept.push(checkpoint::evaluations_kept(dir));
    }
    if batches > 0 {
        kept.push(format!("{batches} game batches"));
    }
    if kept.is_empty() {
        return;
    }
    println!(
        "resuming from {}: {} in its log{}; finished work is not searched or played again",
        dir.display(),
        kept.join(" and "),
        best.map_or(String::new(), |e| format!(
            ", best objective so far {:.3} at {}",
            e.objective,
            observer.margins(&e.values)
        ))
    );
    if let Some(e) = best {
        observer.best = e.objective;
    }
}

/// Says when a tune changed nothing: every suite evaluation (3 or more) scored the same (the margins
/// made no difference: an external engine most likely ignores its options), the set found is
/// the one the tune started from, or it measures as the defaults do; and when `off` scored
/// above the tuned set on the suite objective.
fn say_nothing_moved(file: &TunedFile, space: &Space) {
    let objectives: Vec<f64> = (file.evaluations.iter())
        .map(|e| e.evaluation.objective)
        .collect();
    if objectives.len() >= 3 && objectives.iter().all(|&o| o == objectives[0]) {
        eprintln!(
            "warning: every one of the {} evaluations scored the same objective ({:.3}): no margin tried changed a search on these positions; an external engine most likely ignores the options that carry them (check its answers to `setoption` and the option names in its engine file)",
            objectives.len(),
            objectives[0]
        );
        return;
    }
    let start = space.base.values();
    let moved = space.dims.iter().any(|d| {
        file.margins
            .0
            .get(&d.name)
            .and_then(serde_json::Value::as_i64)
            != start.get(d.index).map(|&v| i64::from(v))
    });
    // The race says so itself when the defaults are kept.
    let said_by_race = file.provenance.solver == "race";
    if !moved && !said_by_race {
        let hint = match file.provenance.solver.as_str() {
            "spsa" => {
                ": SPSA's steps were too small to move a margin by a whole unit; raise --r-end (the final learning rate, 0.002 by default) or --iterations (docs/tuning.md)"
            }
            _ => ": the search found nothing better than it",
        };
        println!("note: the tuned set is the one the tune started from{hint}");
    } else if moved && !said_by_race && file.measures_as_defaults() {
        println!(
            "note: the tuned set measures the same as the defaults on the training and the validation positions (objective, solved and nodes): it moved the margins too little to change a search, so no gain was found; tune longer (--iterations) or on more positions"
        );
    }
    // `off` (every margin test disabled) is no candidate of a tune, but a user should know
    // when it scored better on the objective the tune maximised than the set it wrote.
    let value = |name: &str| file.training.set(name).map(|s| s.objective.value);
    if let (Some(off), Some(tuned), "suite") = (
        value("off"),
        value("tuned"),
        file.provenance.objective.as_str(),
    ) && off > tuned
    {
        println!(
            "note: `off` (no margin test) scores above the tuned set on the training positions ({off:.3} against {tuned:.3}): at this node budget these positions reward no pruning; tune at a larger --nodes or on more positions"
        );
    }
}

/// A games tune whose every game ended with an engine fault measured nothing of the margins:
/// no tuned file is written (exit 2), as `match` and `calibrate` refuse such games.
fn all_games_faulted(file: &TunedFile) -> Result<(), UserError> {
    match file.all_games_faulted() {
        Some(games) => Err(UserError(format!(
            "every one of the {games} games of the tune ended with an engine fault: no evaluation measured the margins, so no tuned file is written; fix the engine (or its engine file or --engine-cmd line) and tune again"
        ))),
        None => Ok(()),
    }
}

/// Whether --out already holds this run's result (the same run, set and figures: a rerun of a
/// finished tune replays its checkpoint): it is then left as it is, keeping the cost of the run
/// that found the set and anything `check --update` added, and said so. --force writes afresh.
fn already_written(args: &Tune, file: &TunedFile) -> bool {
    if args.opts.force || !args.plan.out.is_file() {
        return false;
    }
    let Ok(old) = TunedFile::read(&args.plan.out) else {
        return false;
    };
    let same = old.provenance.run == file.provenance.run
        && old.margins == file.margins
        && old.training.sets == file.training.sets
        && old.validation.sets == file.validation.sets;
    if same {
        let p = &old.provenance;
        println!(
            "{} already holds this run's result (the same set and figures; the run that found it took {:.0} s): left as it is, with that run's record; --force writes it afresh",
            args.plan.out.display(),
            p.wall_seconds + p.earlier_wall_seconds,
        );
    }
    same
}

/// Writes the tuned file and its plot, and prints where and the run's speed.
fn write_file(
    args: &Tune,
    file: &TunedFile,
    space: &Space,
    elapsed: f64,
    (searched, search_seconds): (usize, f64),
    threads: usize,
) -> Result<()> {
    all_games_faulted(file)?;
    let work = match &file.games {
        Some(g) => format!("{} games", g.games),
        None => format!("{} evaluations", file.evaluations.len()),
    };
    // The set itself, by its tuned rows (the file holds every row).
    let tuned: Vec<String> = (file.tuned.iter())
        .filter_map(|name| file.margins.0.get(name).map(|v| format!("{name}={v}")))
        .collect();
    println!("tuned set: {}", tuned.join(", "));
    say_nothing_moved(file, space);
    if already_written(args, file) {
        return Ok(());
    }
    file.write(&args.plan.out)
        .with_context(|| format!("cannot write {}", args.plan.out.display()))?;
    let earlier = match args
        .opts
        .checkpoint
        .as_deref()
        .map(checkpoint::earlier_invocations)
    {
        Some((seconds, n)) if n > 0 => format!(
            "; {:.0} s with the {n} interrupted run(s) it resumed",
            elapsed + seconds
        ),
        _ => String::new(),
    };
    println!(
        "tuned set written to {} ({work}, {elapsed:.0} s{earlier})",
        args.plan.out.display(),
    );
    if file.provenance.faults > 0 {
        let judged = file.training.faults + file.validation.faults;
        eprintln!(
            "warning: the engine faulted {} time(s) over the run: {} while tuning, {judged} while judging the tuned set, the defaults and off (training {}, validation {}); suite positions are scored unsolved and games lost, so the figures count them (provenance.faults in {})",
            file.provenance.faults,
            file.provenance.faults - judged as u64,
            file.training.faults,
            file.validation.faults,
            args.plan.out.display()
        );
    }
    if searched > 0 {
        let each = search_seconds / searched as f64;
        println!(
            "speed: {searched} evaluations searched in {search_seconds:.1} s on {threads} thread(s): {each:.2} s each ({} positions at {}), {:.1} per minute{}",
            args.plan
                .batch
                .map_or(file.training.positions, |b| b.min(file.training.positions)),
            file.provenance.limit,
            60.0 / each,
            if args.plan.solver.is_spsa() {
                format!(", {:.2} s per SPSA iteration", 2.0 * each)
            } else {
                String::new()
            }
        );
    }
    // A device (--out /dev/null) has no place beside it for a plot.
    if marginal::formats::is_stream(&args.plan.out) {
        println!("no plot: --out {} is not a file", args.plan.out.display());
        return Ok(());
    }
    let svg = solver::write_svg(&args.plan.out, file, space)?;
    println!("plot written to {}", svg.display());
    Ok(())
}

/// Options that cannot run together, and an output that would write over an input: refused
/// before any work.
fn check_options(args: &Tune) -> Result<()> {
    let mut remarks = Vec::new();
    let checked = args.plan.check(&mut remarks);
    say_remarks(remarks);
    checked.map_err(run_error)?;
    super::not_an_input(&args.plan.out, "--out", &args.plan.inputs())?;
    writable(&args.plan.out, "--out")?;
    Ok(())
}

/// `--resume DIR` runs with the plan recorded in DIR: the options of this command line that
/// would have changed it are named once, with the way to change them (a new run).
fn say_ignored_with_resume(given: &TunePlan, dir: &Path) {
    let dir_text = dir.to_string_lossy().into_owned();
    let Some(bare) = super::parsed_alone::<TuneArgs>("tune", &["--resume", dir_text.as_str()])
    else {
        return;
    };
    let (Ok(serde_json::Value::Object(given)), Ok(serde_json::Value::Object(plain))) = (
        serde_json::to_value(given),
        serde_json::to_value(&bare.into_tune().plan),
    ) else {
        return;
    };
    let mut ignored: Vec<String> = given
        .iter()
        .filter(|(k, v)| plain.get(*k) != Some(v))
        .chain(plain.iter().filter(|(k, _)| !given.contains_key(*k)))
        .map(|(k, _)| format!("--{}", k.replace('_', "-")))
        .collect();
    ignored.sort();
    ignored.dedup();
    if !ignored.is_empty() {
        eprintln!(
            "warning: --resume {} runs with the arguments recorded there; {} given here {} ignored (start a new run, without --resume, to change them)",
            dir.display(),
            ignored.join(", "),
            if ignored.len() == 1 { "is" } else { "are" }
        );
    }
}

/// The run's plan (a --resume's recorded one, with this command's threads and executor), its
/// engine and its search space.
fn resolve(given: TuneArgs) -> Result<(Tune, Arc<EngineDef>, Space)> {
    let resume = given.resume.clone();
    let args = match &resume {
        Some(dir) => {
            let plan = TunePlan::read(dir).map_err(|e| UserError(format!("--resume {e}")))?;
            let mut given = given.into_tune();
            let mut recorded = Tune {
                plan,
                opts: TuneOptions {
                    checkpoint: Some(dir.clone()),
                    resume: Some(dir.clone()),
                    ..given.opts.clone()
                },
                executor: given.executor.clone(),
            };
            // `--resume DIR --engine FILE`: the run's engine file taken as it is now.
            if let Some(engine) = given.plan.engine.engine.take() {
                recorded.plan.engine.engine = Some(engine);
                recorded.opts.engine_as_is = true;
            }
            say_ignored_with_resume(&given.plan, dir);
            for log in marginal::tune::checkpoint::cut_logs(dir) {
                eprintln!(
                    "warning: {}: its last line was cut short (the run was killed while writing it): that record is dropped, and its work is done again if the run needs it",
                    log.display()
                );
            }
            recorded
        }
        None => given.into_tune(),
    };
    let mut args = args;
    let def = engine_of(&args.plan.engine)?;
    say_resumed_engine(&args, &def);
    if args.plan.params.is_empty() {
        args.plan.params = setup::default_params(&def);
    }
    let mut remarks = Vec::new();
    let space = setup::space(&args.plan, &def, &mut remarks);
    say_remarks(remarks);
    let space = space.map_err(run_error)?;
    Ok((args, def, space))
}

pub fn run(args: TuneArgs) -> Result<()> {
    let run = prepare(args)?;
    let start = Instant::now();
    let (train_scorer, validation_scorer) = run.pool.install(|| {
        (
            SuiteScorer::new(run.train.clone(), run.options.clone(), None),
            SuiteScorer::new(run.validation.clone(), run.options.clone(), None),
        )
    });
    let (train_scorer, validation_scorer) = (
        train_scorer.map_err(exec_error)?,
        validation_scorer.map_err(exec_error)?,
    );
    super::searched_something(
        &run.def,
        "the reference run of the training positions",
        train_scorer.reference(),
    )?;
    let cost = SuiteCost::new(train_scorer, run.space.clone(), Some(&log_path(&run.dir)))
        .with_context(|| format!("cannot open the evaluation log in {}", run.dir.display()))?;
    let (games_problem, race_games) = objective_games(
        &run.args,
        run.games_setup.as_ref(),
        &run.solver_setup,
        &run.space,
        &run.dir,
        &run.executor,
        run.train.positions.len(),
    )?;
    let plan = TuneWork {
        def: run.def.clone(),
        space: run.space.clone(),
        solver: run.solver_setup.solver(&run.args.plan),
        seed: run.args.plan.seed,
        dir: run.dir.clone(),
        run_id: run.run_id.clone(),
        games: games_problem,
        race_games,
    };
    let mut observer = Lines::new(&run.space, run.args.plan.iterations, start);
    say_resuming(&run.dir, &cost, &mut observer);
    let outcome = run
        .pool
        .install(|| pipeline::run(plan, cost, &validation_scorer, observer))
        .map_err(tune_error)?;
    finish(run, outcome, start.elapsed().as_secs_f64())
}

/// A tune made ready: its arguments, engine and space, the positions, the workers and the
/// checkpoint directory, with the start of the run printed.
struct Prepared {
    args: Tune,
    def: Arc<EngineDef>,
    space: Space,
    games_setup: Option<setup::GamesSetup>,
    solver_setup: setup::SolverSetup,
    train: LoadedSuites,
    validation: LoadedSuites,
    threads: usize,
    pool: rayon::ThreadPool,
    /// One executor for the whole run: the suite scorers, the games objective and --confirm.
    executor: Option<Arc<dyn marginal::scoring::exec::Runner>>,
    options: ScorerOptions,
    found_calibration: Option<calibrated::FoundCalibration>,
    run_id: String,
    dir: PathBuf,
}

/// Checks the arguments, reads the positions and the books, finds the calibration, opens the
/// checkpoint and prints what the run will do.
fn prepare(args: TuneArgs) -> Result<Prepared> {
    let (args, def, space) = resolve(args)?;
    check_options(&args)?;
    let mut remarks = Vec::new();
    let games_setup = setup::games_setup(&args.plan, &mut remarks);
    say_remarks(remarks);
    let games_setup = games_setup.map_err(run_error)?;
    let solver_setup = setup::solver_setup(&args.plan, &space).map_err(run_error)?;
    let (train, validation) = split(&args)?;
    if let Some(n) = args.plan.batch.filter(|&n| n >= train.positions.len()) {
        eprintln!(
            "warning: --batch {n} is not smaller than the {} training positions: every comparison scores all of them, as without --batch",
            train.positions.len()
        );
    }
    let threads = threads(args.opts.threads);
    super::hash_fits(
        args.plan.scoring.hash,
        if args.plan.plays_games() {
            2 * threads
        } else {
            threads
        },
    )?;
    let pool = marginal::scoring::exec::local::pool(threads, "tune")
        .context("cannot start worker threads")?;
    let executor = args.executor.build()?;
    let options = ScorerOptions {
        config: RunConfig {
            limit: args.plan.limit(),
            hash_mb: args.plan.scoring.hash,
        },
        objective: args.plan.scoring.params(),
        reference: Setting::off(&def),
        cache_dir: Some(default_cache_dir()),
        executor: executor.clone(),
    };
    let found_calibration =
        calibrated::find_calibration(&args.plan, &options, &def).map_err(run_error)?;
    say_calibration(&args, &options, &found_calibration);
    let run_id = identify(&args, &def, &train, &validation)?;
    let (args, dir) = open_checkpoint(args, &run_id, &def)?;
    println!(
        "marginal tune: {}{}, seed {}, tuning {space}",
        args.plan.solver.label(),
        if args.plan.solver == SolverKind::Race {
            String::new()
        } else {
            format!(", {} iterations", args.plan.iterations)
        },
        args.plan.seed
    );
    println!(
        "training {} positions, validation {} positions, {} per position, {threads} thread(s); checkpoint {}",
        train.positions.len(),
        validation.positions.len(),
        options.config.limit,
        dir.display()
    );
    Ok(Prepared {
        args,
        def,
        space,
        games_setup,
        solver_setup,
        train,
        validation,
        threads,
        pool,
        executor,
        options,
        found_calibration,
        run_id,
        dir,
    })
}

/// After the solver: the judged figures and the calibration printed, the confirmation
/// played, and the tuned file written with the run's record.
fn finish(run: Prepared, outcome: pipeline::Tuned, elapsed: f64) -> Result<()> {
    let args = &run.args;
    println!();
    print_side("training", &outcome.training, &outcome.paired.0);
    print_side("validation", &outcome.validation, &outcome.paired.1);
    let calibration = calibrated::calibration(
        &args.plan,
        &run.options,
        run.found_calibration,
        &outcome.training,
        &outcome.validation,
    );
    println!("calibration: {}", calibration.note);
    let margins = |name: &str| outcome.training.set(name).map(|s| &s.margins);
    let same_as_defaults = margins("tuned").is_some() && margins("tuned") == margins("default");
    if args.plan.confirm.is_some() && same_as_defaults {
        eprintln!(
            "note: --confirm: the tuned set is the defaults, so no confirmation match is played (it would play the defaults against themselves and measure nothing)"
        );
    }
    let confirm = match (args.plan.confirm, &run.games_setup) {
        _ if same_as_defaults => None,
        (Some(n), Some(setup)) => Some(games::run_confirm(
            args,
            setup,
            outcome.tuned.clone(),
            whole_pairs(n, "--confirm"),
            run.executor.as_deref(),
        )?),
        _ => None,
    };
    let games_record = outcome
        .games
        .as_ref()
        .zip(run.games_setup.as_ref())
        .map(|(problem, setup)| setup::games_record(problem, setup));
    let searched = outcome.cost.search_time();
    let record = RunRecord {
        run: run.run_id,
        objective: args.plan.objective.name().to_string(),
        solver: (
            args.plan.solver.name().to_string(),
            run.solver_setup.settings.clone(),
        ),
        suites: SuiteSources {
            split: args.plan.split_name(),
            training: SuiteSource::of(&run.train),
            validation: SuiteSource::of(&run.validation),
            repeats: run.train.rule,
        },
        limit: run.options.config.limit,
        objective_params: run.options.objective,
        seed: args.plan.seed,
        iterations: args.plan.iterations,
        wall_seconds: elapsed,
        earlier_wall_seconds: checkpoint::earlier_invocations(&run.dir).0,
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        arguments: recorded_arguments(&args.plan, &run.dir)?,
        games: games_record,
        confirm,
        calibration: Some(calibration),
    };
    let file = outcome.into_file(&run.def, &run.space, record);
    write_file(args, &file, &run.space, elapsed, searched, run.threads)
}

/// The tuned file's record of the run's arguments: its plan, and the checkpoint directory that
/// holds its evaluations (`provenance.arguments.checkpoint`).
fn recorded_arguments(plan: &TunePlan, dir: &Path) -> Result<serde_json::Value> {
    let mut arguments = serde_json::to_value(plan)?;
    arguments["checkpoint"] = serde_json::json!(dir);
    Ok(arguments)
}

/// `marginal plot FILE`: draws a tuned file's SVG again, beside it (a file there that is not
/// a plot marginal drew is replaced only with `force`).
pub fn plot(path: &std::path::Path, force: bool) -> Result<()> {
    let file = TunedFile::read(path).map_err(UserError::from_display)?;
    super::plot_beside(path, "plot", force, &[])?;
    let names: Vec<&str> = file.tuned.iter().map(String::as_str).collect();
    let bounds: Vec<String> = file
        .provenance
        .schedule
        .iter()
        .map(|r| format!("{}={}..{}", r.name, r.lower, r.upper))
        .collect();
    let bounds: Vec<&str> = bounds.iter().map(String::as_str).collect();
    let space = Space::new(Setting::defaults(&file.def()), &names, &bounds)
        .map_err(|e| UserError(format!("{}: {e}", path.display())))?;
    let svg = solver::write_svg(path, &file, &space)?;
    println!("plot written to {}", svg.display());
    Ok(())
}

/// Training and validation positions (see [`marginal::tune::split`]); bad lines are reported.
fn split(args: &Tune) -> Result<(LoadedSuites, LoadedSuites), UserError> {
    let (train, validation) = marginal::tune::split(
        &args.plan.suites(),
        &args.plan.holdout,
        args.plan.scoring.repeats(),
    )
    .map_err(|e| {
        UserError(match e {
            SplitError::Overlap { .. } => format!("--holdout {e}"),
            SplitError::Suite(e) => e.to_string(),
        })
    })?;
    let mut seen = std::collections::HashSet::new();
    let bad = (train.skipped().chain(validation.skipped())).filter(|b| seen.insert(b.to_string()));
    super::say_skipped(bad, "");
    let named: Vec<PathBuf> = args
        .plan
        .suites()
        .into_iter()
        .chain(args.plan.holdout.clone())
        .collect();
    super::say_odd_suites(&named, &[&train, &validation]);
    if validation.positions.len() < FEWEST_VALIDATION {
        eprintln!(
            "warning: {} validation position(s): too few to judge the tuned set on positions it never saw (its paired test needs tens that differ); give at least {FEWEST_VALIDATION} held out ({} or more positions in all, a third held out), or --holdout FILE",
            validation.positions.len(),
            3 * FEWEST_VALIDATION
        );
    }
    Ok((train, validation))
}

/// Fewer held-out positions than this are warned about: the judged figures of a handful say
/// little.
const FEWEST_VALIDATION: usize = 30;

fn print_side(name: &str, side: &Side, paired: &PairedComparison) {
    if side.positions == 0 {
        println!("{name}: no positions (the split left none), so no set is judged on this side");
        return;
    }
    println!("{name} ({} positions):", side.positions);
    println!(
        "  {:<8} {:>9} {:>8} {:>12} {:>7} {:>9}",
        "set", "objective", "solved", "nodes", "ratio", "accuracy"
    );
    for s in &side.sets {
        let o = &s.objective;
        println!(
            "  {:<8} {:>9.3} {:>8} {:>12} {:>7.3} {:>9.3}",
            s.name, o.value, o.solved, o.nodes, o.node_ratio, o.accuracy
        );
    }
    println!(
        "  tuned against default: {} solved by tuned only, {} by default only, McNemar exact p = {:.4}",
        paired.only_a, paired.only_b, paired.p_value
    );
}
