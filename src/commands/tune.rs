//! `marginal tune`: SPSA on the suite objective, judged on held-out positions.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use marginal::engine::EngineDef;
use marginal::progress::Said;
use marginal::scoring::suite::{ScorerOptions, SuiteScorer, nothing_searched};
use marginal::tune::cost::{SuiteCost, log_path};
use marginal::tune::file::TunedFile;
use marginal::tune::games::GamesProblem;
use marginal::tune::pipeline::{self, RunRecord, TuneError, TuneWork};
use marginal::tune::plan::{
    DEFAULT_GAIN, DEFAULT_ITERATIONS, EngineChoice, ObjectiveKind, ScoringChoice, ScreenBy,
    SolverKind, TuneOptions, TunePlan,
};
use marginal::tune::space::Space;
use marginal::tune::{calibrated, checkpoint, prepare, race, report, run, setup};

use super::executor::{ExecutorArgs, ExecutorKind, exec_error, solver_error};
use super::progress::{EvaluationGames, Printer, TuneLines};
use super::{
    EngineArgs, ScoringArgs, Ui, UserError, count, depth_arg, positive, threads, threads_arg,
    whole_pairs,
};

mod games;
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
    /// round, comma-separated (default 16,32,64,128, every round's pairs stepped up, at most 4
    /// times, when the engine's calibration says a finalist's games are too few to rank its
    /// sets; 0 races no games: the best suite objective wins).
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
    /// objective points; OpenBench's schedule then moves a margin by about r_k * c_k * result.
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
    /// Play the tune's games (the race, --objective games, --confirm) at a clock of BASE+INC
    /// seconds, not --nodes or --depth a move (which then set the suite objective's limit
    /// only); time losses are counted and said.
    #[arg(long, value_name = "BASE+INC")]
    tc: Option<String>,
    /// --solver race: what screens the design: `suite` objective, `games` (short paired games
    /// against the defaults, the better half going on each round) or `auto` (the default: the
    /// objective a calibration trusts best for this engine and limit, suite first; else games).
    #[arg(long, value_name = "auto|suite|games")]
    screen_by: Option<ScreenBy>,
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
            screen_by: self.screen_by,
            tc: self.tc,
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

/// The command's error for a run that cannot be opened: a refusal is the user's (exit 2).
fn run_error(e: run::RunError) -> anyhow::Error {
    match e {
        run::RunError::Refused(m) => UserError(m).into(),
        e => e.into(),
    }
}

/// Prints a step's remarks, and turns its refusal into the command's error.
fn said<T>(remarks: Vec<Said>, result: Result<T, run::RunError>) -> Result<T> {
    printed(remarks, result.map_err(run_error))
}

/// Prints what a step said ([`super::progress::said`]), and turns its error into the command's.
fn printed<T, E: Into<anyhow::Error>>(lines: Vec<Said>, result: Result<T, E>) -> Result<T> {
    super::progress::said(lines, result).map_err(Into::into)
}

/// The run's plan (a --resume's recorded one, with this command's threads and executor), its
/// engine and its search space.
fn resolve(given: TuneArgs, max_faults: usize) -> Result<(Tune, Arc<EngineDef>, Space)> {
    let resume = given.resume.clone();
    let mut args = given.into_tune();
    if let Some(dir) = &resume {
        // The plan of `--resume DIR` alone: the options given besides it are ignored.
        let dir_text = dir.to_string_lossy().into_owned();
        let bare = super::parsed_alone::<TuneArgs>("tune", &["--resume", dir_text.as_str()])
            .map(|bare| bare.into_tune().plan);
        let mut remarks = Vec::new();
        let resumed = run::resume(dir, &mut args.plan, &args.opts, bare.as_ref(), &mut remarks);
        (args.plan, args.opts) = said(remarks, resumed)?;
    }
    let engine = &args.plan.engine;
    let def = super::engine_def(
        engine.engine.as_deref(),
        engine.engine_cmd.as_deref(),
        &engine.engine_options,
        max_faults,
    )?;
    if let Some(line) = report::resumed_engine(&args.opts, &def) {
        println!("{line}");
    }
    if args.plan.params.is_empty() {
        args.plan.params = setup::default_params(&def);
    }
    let mut remarks = Vec::new();
    let space = setup::space(&args.plan, &def, &mut remarks);
    let space = said(remarks, space)?;
    Ok((args, def, space))
}

/// Runs the command.
pub fn run(args: TuneArgs, ui: Ui) -> Result<()> {
    let run = prepare(args, ui)?;
    let start = Instant::now();
    let (train_scorer, validation_scorer) = run.pool.install(|| {
        (
            SuiteScorer::new(run.inputs.train.clone(), run.options.clone(), None),
            SuiteScorer::new(run.inputs.validation.clone(), run.options.clone(), None),
        )
    });
    let (train_scorer, validation_scorer) = (
        train_scorer.map_err(exec_error)?,
        validation_scorer.map_err(exec_error)?,
    );
    let reference = "the reference run of the training positions";
    if let Some(why) = nothing_searched(&run.def, reference, train_scorer.reference()) {
        return Err(UserError(why).into());
    }
    let cost = SuiteCost::new(train_scorer, run.space.clone(), Some(&log_path(&run.dir)))
        .with_context(|| format!("cannot open the evaluation log in {}", run.dir.display()))?;
    let (games_problem, race_games) = objective_games(&run)?;
    // Progress within an evaluation's games.
    let games_lines: marginal::progress::Shared = Arc::new(EvaluationGames::new(run.printer));
    let games_problem = games_problem.map(|p| p.with_observer(games_lines.clone()));
    let race_games = (race_games.into_iter())
        .map(|p| p.with_observer(games_lines.clone()))
        .collect();
    let plan = TuneWork {
        def: run.def.clone(),
        space: run.space.clone(),
        solver: run.inputs.solver.solver(&run.args.plan),
        seed: run.args.plan.seed,
        dir: run.dir.clone(),
        run_id: run.run_id.clone(),
        games: games_problem,
        race_games,
    };
    let names = run.space.dims.iter().map(|d| d.name.clone()).collect();
    let observer = Arc::new(TuneLines::new(run.printer, names, start));
    say_resuming(&run.dir, &cost, &run.space, &observer);
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
    inputs: setup::Inputs,
    threads: usize,
    pool: rayon::ThreadPool,
    /// One executor for the whole run: the suite scorers, the games objective and --confirm.
    executor: Arc<dyn marginal::scoring::exec::Runner>,
    options: ScorerOptions,
    found_calibration: Option<calibrated::FoundCalibration>,
    run_id: String,
    dir: PathBuf,
    printer: Printer,
}

/// Checks the arguments, reads the positions and the books, finds the calibration, opens the
/// checkpoint and prints what the run will do.
fn prepare(args: TuneArgs, ui: Ui) -> Result<Prepared> {
    let (mut args, def, space) = resolve(args, ui.max_faults)?;
    let threads = threads(args.opts.threads);
    let mut lines = Vec::new();
    let inputs = prepare::check(&args.plan, &space, threads, &mut lines);
    let mut inputs = printed(lines, inputs)?;
    let pool = marginal::scoring::exec::local::pool(threads, "tune")
        .context("cannot start worker threads")?;
    let executor = args.executor.build(threads)?;
    let options = setup::scorer_options(&args.plan, &def, executor.clone());
    let mut lines = Vec::new();
    let (plan, opts) = (&args.plan, &mut args.opts);
    let opened = prepare::open(
        plan,
        opts,
        (&def, &space),
        &mut inputs,
        &options,
        threads,
        &mut lines,
    );
    let opened = opened.map_err(run_error);
    if let Ok(opened) = &opened {
        let grace = match args.executor.executor {
            ExecutorKind::Local => std::time::Duration::ZERO,
            ExecutorKind::Slurm => std::time::Duration::from_secs(120),
        };
        let engine = (args.plan.engine.engine.as_deref()).filter(|_| args.opts.engine_as_is);
        let resume = report::resume_command(&opened.dir, engine);
        say_interrupted(&opened.dir, &resume, grace)?;
    }
    let prepare::Opened {
        calibration: found_calibration,
        run_id,
        dir,
    } = printed(lines, opened)?;
    Ok(Prepared {
        args,
        def,
        space,
        inputs,
        threads,
        pool,
        executor,
        options,
        found_calibration,
        run_id,
        dir,
        printer: ui.printer,
    })
}

/// The games of the run: the games objective's problem, or the race's problems (one a
/// round, with the race's plan printed), or neither.
fn objective_games(run: &Prepared) -> Result<(Option<GamesProblem>, Vec<GamesProblem>)> {
    let (plan, solver) = (&run.args.plan, &run.inputs.solver);
    match (
        plan.objective,
        run.inputs.games.as_ref(),
        solver.race.as_ref(),
    ) {
        (ObjectiveKind::Games, Some(setup), _) => {
            let problem = games::problem(&run.args, setup, &run.space, &run.dir)?;
            Ok((
                Some(problem.with_executor(run.executor.clone())),
                Vec::new(),
            ))
        }
        (_, _, Some(settings)) if plan.solver == SolverKind::Race => {
            let race_games = games::race_problems(
                &run.args,
                &run.space,
                settings,
                &run.dir,
                run.executor.clone(),
            )?;
            let positions = run.inputs.train.positions.len();
            let raced = !race_games.is_empty();
            println!("{}", report::race_plan(settings, plan, positions, raced));
            Ok((None, race_games))
        }
        _ => Ok((None, Vec::new())),
    }
}

/// At the first SIGINT (Ctrl-C) or SIGTERM: says on standard error what the checkpoint keeps
/// and the command that resumes, and ends with exit status 130. Every finished evaluation and
/// game pair is already on disk (the logs are appended line by line), and the engines, whose
/// input closes with marginal, end with it. On Slurm the executor first cancels its job array
/// (and ends the command itself); this waits `grace` for that. A second signal ends at once.
fn say_interrupted(dir: &Path, resume: &str, grace: std::time::Duration) -> Result<()> {
    let flag = super::executor::interrupt_flag()?;
    let (dir, resume) = (dir.to_path_buf(), resume.to_string());
    let began = Instant::now();
    std::thread::spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // This invocation's time, for the resumed run's record of what the tune cost.
        let cpu = marginal::progress::cpu_seconds();
        checkpoint::record_interrupted(&dir, began.elapsed().as_secs_f64(), cpu);
        let confirm = checkpoint::confirm_pairs_kept(&dir);
        eprintln!("{}", report::interrupted(&dir, &resume, confirm));
        std::thread::sleep(grace);
        marginal::formats::lock::release_all();
        std::process::exit(i32::from(super::INTERRUPTED_STATUS));
    });
    Ok(())
}

/// A rerun says what it goes on from, and its progress keeps the best found before.
fn say_resuming(dir: &Path, cost: &SuiteCost, space: &Space, observer: &TuneLines) {
    if let Some((line, best)) = report::resuming(dir, &cost.evaluations(), space) {
        println!("{line}");
        if let Some(best) = best {
            observer.set_best(best);
        }
    }
}

/// After the solver: the judged figures and the calibration printed, the confirmation
/// played, and the tuned file written with the run's record.
fn finish(run: Prepared, outcome: pipeline::Tuned, elapsed: f64) -> Result<()> {
    let args = &run.args;
    let mut lines = Vec::new();
    let found = run.found_calibration;
    let judged = prepare::judged(&args.plan, &run.options, found, &outcome, &mut lines);
    let (calibration, confirm_worth) = printed(lines, Ok::<_, anyhow::Error>(judged))?;
    let games_setup = run.inputs.games.as_ref();
    let confirm = match (args.plan.confirm, games_setup) {
        _ if !confirm_worth => None,
        (Some(n), Some(setup)) => Some(games::run_confirm(
            args,
            setup,
            outcome.tuned.clone(),
            whole_pairs(n, "--confirm"),
            run.executor.as_ref(),
            run.printer,
        )?),
        _ => None,
    };
    let sets = (&run.inputs.train, &run.inputs.validation);
    let settings = run.inputs.solver.settings.clone();
    let mut record = RunRecord::new(
        &args.plan,
        run.run_id,
        settings,
        sets,
        &run.options,
        &run.dir,
        (elapsed, marginal::progress::cpu_seconds()),
    )?;
    record.games = (outcome.games.as_ref().zip(games_setup))
        .map(|(problem, setup)| setup::games_record(problem, setup));
    (record.confirm, record.calibration) = (confirm, Some(calibration));
    let spent = prepare::Spent {
        searched: outcome.cost.search_time(),
        threads: run.threads,
    };
    let file = outcome.into_file(&run.def, &run.space, record);
    let mut lines = Vec::new();
    let written = prepare::write(
        &args.plan,
        &args.opts,
        (&file, &run.space),
        &spent,
        &mut lines,
    );
    printed(lines, written.map_err(write_error))
}

/// The command's error for a tuned file not written: a refusal is the user's (exit 2).
fn write_error(e: prepare::WriteError) -> anyhow::Error {
    match e {
        prepare::WriteError::Refused(m) => UserError(m).into(),
        e => e.into(),
    }
}

/// `marginal plot FILE`: draws a tuned file's SVG again, beside it (a file there that is not
/// a plot marginal drew is replaced only with `force`).
pub fn plot(path: &std::path::Path, force: bool) -> Result<()> {
    let file = TunedFile::read(path).map_err(UserError::from_display)?;
    super::plot_beside(path, "plot", force, &[])?;
    let space = file
        .space()
        .map_err(|e| UserError(format!("{}: {e}", path.display())))?;
    let svg = prepare::write_plot(path, &file, &space)?;
    println!("plot written to {}", svg.display());
    Ok(())
}
