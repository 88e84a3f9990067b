//! `marginal calibrate`: how well each cheap objective ranks margin sets the way games do, for
//! the built-in engine or any engine file, at one game limit (the library's
//! [`marginal::calibrate`] does the work; this parses, calls and prints).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use clap::Args;
use indicatif::ProgressBar;
use marginal::calibrate::plan::{self, CalibratePlan};
use marginal::calibrate::plot::{self, Written};
use marginal::calibrate::prepare;
use marginal::calibrate::{self, CalibrateError, Config, Report};
use marginal::engine::EngineDef;
use marginal::formats::write_atomic;
use marginal::progress::{Event, Observer, Said, Shared, Work};
use marginal::scoring::games::game::MoveLimit;

use super::executor::ExecutorArgs;
use super::progress::{CalibrationBar, Printer, say};
use super::{
    EngineArgs, Interrupted, Ui, UserError, count, depth_arg, hash_arg, resolve_for, threads,
    threads_arg,
};

/// Arguments of `marginal calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// The engine (default: marginal's own).
    #[command(flatten)]
    engine: EngineArgs,
    /// Margin sets in all: the defaults, the sets --margins adds, and the region's corners and
    /// a maximin Latin hypercube (log coordinates) for the rest (at least 4).
    #[arg(long, default_value_t = 12, value_parser = count::<usize, 4>)]
    sets: usize,
    /// The design's region for a row, `name=LO..HI` (repeatable; default: each tunable row from
    /// an eighth of its default to four times it, clamped to its range).
    #[arg(long, value_name = "NAME=LO..HI")]
    region: Vec<String>,
    /// A margin set to add: a tuned .json file or name=value assignments (repeatable).
    #[arg(long, value_name = "SET")]
    margins: Vec<String>,
    /// Seed of the design, the books' order and the bootstrap.
    #[arg(long, default_value_t = 1, value_parser = super::seed_arg)]
    seed: u64,
    /// Games per set against the defaults in the first round, split evenly over the books
    /// (whole pairs); later rounds add games to the sets not yet apart from a rank neighbour.
    #[arg(long, default_value_t = 400, value_parser = count::<u32, 2>)]
    games: u32,
    /// Play rounds of games until the games' ceiling on rho reaches this (0 to 1).
    #[arg(long, default_value_t = plan::DEFAULT_CEILING)]
    ceiling: f64,
    /// Games in all, every round counted (default: 4 times the first round's).
    #[arg(long, value_name = "N", value_parser = count::<u64, 2>)]
    max_games: Option<u64>,
    /// Opening books (repeatable; default: two balanced books, noob_3moves and
    /// popularpos_lichess samples). Every set plays the same openings.
    #[arg(long, value_name = "FILE")]
    openings: Vec<PathBuf>,
    /// Fixed nodes per move in the games (default 5000).
    #[arg(long, conflicts_with_all = ["depth", "tc"], value_parser = count::<u64, 1>)]
    nodes: Option<u64>,
    /// Fixed depth per move in the games, plies.
    #[arg(long, conflicts_with = "tc", value_parser = depth_arg())]
    depth: Option<u32>,
    /// Time control BASE+INC in seconds for the games, e.g. 10+0.1.
    #[arg(long)]
    tc: Option<String>,
    /// The cheap objectives, comma-separated, each KIND or KIND:nodes=N or KIND:depth=D, KIND
    /// one of suite, quality, mates, referee (default: the first three at the games' nodes or
    /// depth; 5000 nodes under a clock).
    #[arg(long, value_delimiter = ',', value_name = "SPECS")]
    objectives: Vec<String>,
    /// The suites of the suite objective.
    #[arg(long, value_name = "FILE", default_values = ["data/suites/wac.epd", "data/suites/ecm.epd"])]
    suite: Vec<PathBuf>,
    /// Score a suite position that repeats an earlier one (the same FEN, in any file) each time
    /// it appears, so that it weighs double; without it the repeat is left out.
    #[arg(long)]
    count_repeats: bool,
    /// The mate suite of the mates objective (`bm #N` / `dm N`).
    #[arg(long, value_name = "FILE", default_value = plan::DEFAULT_MATE_SUITE)]
    mate_suite: PathBuf,
    /// Positions from real games for the quality objective (one FEN a line).
    #[arg(long, value_name = "FILE", default_value = plan::DEFAULT_QUALITY_POSITIONS)]
    quality_positions: PathBuf,
    /// The quality objective's deep reference, as a multiple of its limit (nodes x N, or
    /// depth + N/4 plies at a fixed depth).
    #[arg(long, default_value_t = 16, value_parser = count::<u64, 2>)]
    quality_deep: u64,
    /// The referee objective's judge: the engine file of a UCI engine stronger than this one.
    #[arg(long, value_name = "FILE", default_value = plan::DEFAULT_REFEREE)]
    referee: PathBuf,
    /// The referee's nodes a search (each position and move searched once, then cached).
    #[arg(long, default_value_t = plan::DEFAULT_REFEREE_NODES, value_parser = count::<u64, 1>)]
    referee_nodes: u64,
    /// Games (and searches) at once (default: all cores).
    #[arg(long, value_parser = threads_arg())]
    concurrency: Option<usize>,
    /// Transposition table per search, megabytes.
    #[arg(long, default_value_t = 4, value_parser = hash_arg)]
    hash: usize,
    /// Bootstrap resamples of the intervals.
    #[arg(long, default_value_t = 4000, value_parser = count::<usize, 100>)]
    resamples: usize,
    /// The JSON report (`marginal-calibration/1`); an SVG scatter per objective is written
    /// beside it. A file that is not a calibration report is never written over.
    #[arg(long, value_name = "FILE", default_value = "calibration.json")]
    out: PathBuf,
    /// Replace --out when it exists and is not this calibration's own report (a rerun of the
    /// same calibration, whose work is kept, writes its report again without it).
    #[arg(long)]
    force: bool,
    /// Where finished work is kept, so that a rerun of the same calibration resumes (default:
    /// a directory named after the calibration in the reference cache, .marginal-cache/).
    #[arg(long, value_name = "DIR")]
    state: Option<PathBuf>,
    /// Where the games and the suite and mates objectives run (`--executor slurm`: on a
    /// cluster; the quality and referee objectives run here).
    #[command(flatten)]
    executor: ExecutorArgs,
}

/// Runs the command.
pub fn run(args: CalibrateArgs, ui: Ui) -> Result<()> {
    let def = args.engine.def(ui.max_faults)?;
    // (On Slurm the executor cancels its job array at the signal and fails the run itself.)
    let preparing = if args.executor.is_slurm() {
        None
    } else {
        Some(super::executor::stop_on_interrupt(
            "interrupted while preparing the objectives: no objective value or game is kept yet (the positions reference runs searched are cached); the same command takes them up"
                .to_string(),
        )?)
    };
    let (config, pool) = prepare(&args, &def, ui.printer)?;
    if let Some(done) = preparing {
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let report = play(&config, &pool, ui.printer)?;
    // Games ended by engine faults measure the faults, not the margins.
    let faults = calibrate::report::games_measured_margins(&report, &config.state_dir);
    let faults = faults.map_err(UserError::from_display)?;
    faults.map(Said::Warning).iter().for_each(say);
    write_outputs(&args, &report)
}

/// The plan of the calibration the arguments ask for (the games' limit: --tc, --depth or
/// --nodes, default 5,000 nodes).
fn plan_of(args: &CalibrateArgs) -> Result<CalibratePlan> {
    let limit = match (&args.tc, args.depth, args.nodes) {
        (Some(tc), _, _) => super::match_cmd::parse_tc(tc)?,
        (None, Some(d), _) => MoveLimit::Depth(d),
        (None, None, n) => MoveLimit::Nodes(n.unwrap_or(5_000)),
    };
    Ok(CalibratePlan {
        engine: args.engine.engine.clone(),
        limit,
        objectives: args.objectives.clone(),
        suites: args.suite.clone(),
        count_repeats: args.count_repeats,
        mate_suite: args.mate_suite.clone(),
        quality_positions: args.quality_positions.clone(),
        quality_deep: args.quality_deep,
        referee: args.referee.clone(),
        referee_nodes: args.referee_nodes,
        books: plan::books_or_default(&args.openings),
        sets: args.sets,
        region: args.region.clone(),
        margins: args.margins.clone(),
        games: args.games,
        ceiling: args.ceiling,
        max_games: args.max_games,
        seed: args.seed,
        hash_mb: args.hash,
        concurrency: threads(args.concurrency),
        resamples: args.resamples,
        out: args.out.clone(),
        force: args.force,
        state: args.state.clone(),
    })
}

/// What preparing a calibration says and shows: notes, warnings, bad lines, a line an
/// objective (unless --quiet), and a bar a reference run (the deep one for quality).
struct Preparing {
    printer: Printer,
    bar: Mutex<Option<ProgressBar>>,
    deep: AtomicBool,
}

impl Observer for Preparing {
    fn event(&self, event: &Event<'_>) {
        let c = match event {
            Event::Said(said) => return say(said),
            Event::Preparing {
                objective,
                limit,
                deep,
            } => {
                self.deep.store(*deep, Ordering::Relaxed);
                if !self.printer.quiet() {
                    eprintln!(
                        "preparing objective {objective} at {limit} (reference runs are cached)"
                    );
                }
                return;
            }
            Event::Prepared => {
                let mut bar = self.bar.lock().expect("bar lock");
                return bar.take().iter().for_each(ProgressBar::finish_and_clear);
            }
            Event::Done(c) if c.work == Work::ReferencePositions => c,
            _ => return,
        };
        let run = if self.deep.load(Ordering::Relaxed) {
            "the deep reference"
        } else {
            "the reference run"
        };
        let template = format!("[{{bar:30}}] {{pos}}/{{len}} positions of {run}");
        let mut bar = self.bar.lock().expect("bar lock");
        (bar.get_or_insert_with(|| self.printer.bar(c.total, &template))).set_position(c.done);
    }
}

/// The design, the books, the objectives and the state directory, checked before any work;
/// prints what the calibration will do. Returns its configuration and the worker pool.
fn prepare(
    args: &CalibrateArgs,
    def: &Arc<EngineDef>,
    printer: Printer,
) -> Result<(Config, rayon::ThreadPool)> {
    let plan = plan_of(args)?;
    let preparing = Arc::new(Preparing {
        printer,
        bar: Mutex::default(),
        deep: AtomicBool::new(false),
    });
    let observer: Shared = preparing;
    let resolve = |spec: &str| resolve_for(def, spec).map_err(|e| e.to_string());
    let games =
        prepare::games(&plan, def, &resolve, &*observer).map_err(UserError::from_display)?;
    super::hash_fits(plan.hash_mb, 2 * plan.concurrency)?;
    let pool = marginal::scoring::exec::local::pool(plan.concurrency, "calibrate")
        .context("cannot start worker threads")?;
    let executor = args.executor.build(plan.concurrency)?;
    // --out is checked before the objectives are prepared (their reference runs take a while):
    // replaced with --force, or when it is this calibration's own report and its work is kept.
    let mut config = plan.config(games.sets, games.region, games.books, executor);
    let state_dir = plan.state_dir(&config);
    let own = state_dir.exists() && calibrate::report::is_own_report(&plan.out, &config);
    super::fresh_json_output(&plan.out, "--out", plan.force || own)?;
    let defaults = plan_of(&super::parsed_alone("calibrate", &[]).expect("no arguments"))?;
    pool.install(|| prepare::objectives_into(&mut config, &plan, &defaults, def, &observer))
        .map_err(UserError::from_display)?;
    config.state_dir = state_dir;
    println!("{}", calibrate::table::plan_line(&config));
    Ok((config, pool))
}

/// Measures the objectives and plays the games, with a progress bar a phase; an interrupt
/// keeps what was done (exit 130 with the command that resumes).
fn play(config: &Config, pool: &rayon::ThreadPool, printer: Printer) -> Result<Report> {
    // One bar a phase (objective values, then game pairs), each with its own ETA: the two
    // kinds of work take very different times.
    let bar = printer.bar(
        (config.sets.len() * config.objectives.len()) as u64,
        "[{bar:30}] {pos}/{len} {prefix} {msg}",
    );
    let observer = CalibrationBar::new(&bar, &config.state_dir);
    let interrupt = super::executor::interrupt_flag()?;
    let result = pool.install(|| calibrate::run(config, &interrupt, &observer));
    bar.finish_and_clear();
    match result {
        Ok(r) => Ok(r),
        Err(CalibrateError::Interrupted {
            objectives,
            pairs,
            dir,
        }) => Err(Interrupted(format!(
            "interrupted: {objectives} objective values and {pairs} game pairs are kept in {dir}; the same command resumes"
        ))
        .into()),
        Err(CalibrateError::Exec(e)) => Err(super::executor::exec_error(e)),
        Err(e) => Err(UserError::from_display(e).into()),
    }
}

/// The report, printed and written, with one plot an objective beside it.
fn write_outputs(args: &CalibrateArgs, report: &Report) -> Result<()> {
    for line in calibrate::table::lines(report) {
        println!("{line}");
    }
    let text = serde_json::to_string_pretty(report)? + "\n";
    write_atomic(&args.out, text.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("report written to {}", args.out.display());
    // A device or the command's own output has no place beside it for plots.
    if marginal::formats::is_stream(&args.out) {
        println!("no plots: --out {} is not a file", args.out.display());
        return Ok(());
    }
    let mut say = |written: Written| match written {
        Written::Plot(path) => println!("plot written to {}", path.display()),
        Written::Kept(why) => say(&Said::Warning(format!("plot not written: {why}"))),
    };
    let plan = plan_of(args)?;
    Ok(plot::write_beside(
        report,
        &args.out,
        args.force,
        &plan.inputs(),
        &mut say,
    )?)
}
