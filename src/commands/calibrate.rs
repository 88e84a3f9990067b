//! `marginal calibrate`: how well each cheap objective ranks margin sets the way games do, for
//! the built-in engine or any engine file, at one game limit (the library's
//! [`marginal::calibrate`] does the work; this parses, calls and prints).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use marginal::calibrate::plan::{CalibratePlan, DEFAULT_BOOKS, ObjectiveKind, ObjectiveSpec};
use marginal::calibrate::{self, Book, CalibrateError, Config, Event, Report, design, plot};
use marginal::engine::{EngineDef, Setting};
use marginal::formats::{openings, write_atomic};
use marginal::scoring::cheap::{CheapObjective, QualityObjective, SuiteObjective};
use marginal::scoring::exec::Runner;
use marginal::scoring::games::game::MoveLimit;
use marginal::scoring::quality::MoveQuality;
use marginal::scoring::suite::{
    Phase, Repeats, RunConfig, ScorerOptions, SuiteLimit, SuiteScorer, default_cache_dir,
    load_suites,
};

use super::executor::ExecutorArgs;
use super::{
    EngineArgs, Interrupted, UserError, count, depth_arg, hash_arg, progress_bar, resolve_for,
    threads, threads_arg,
};

/// Arguments of `marginal calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// The engine (default: marginal's own).
    #[command(flatten)]
    engine: EngineArgs,
    /// Margin sets in all: the defaults, the sets --margins adds, and a Latin hypercube over
    /// the region for the rest (at least 4).
    #[arg(long, default_value_t = 12, value_parser = count::<usize, 4>)]
    sets: usize,
    /// The design's region for a row, `name=LO..HI` (repeatable; default: each tunable row from
    /// a quarter of its default to twice it, clamped to its range).
    #[arg(long, value_name = "NAME=LO..HI")]
    region: Vec<String>,
    /// A margin set to add: a tuned .json file or name=value assignments (repeatable).
    #[arg(long, value_name = "SET")]
    margins: Vec<String>,
    /// Seed of the design, the books' order and the bootstrap.
    #[arg(long, default_value_t = 1, value_parser = super::seed_arg)]
    seed: u64,
    /// Games per set against the defaults, split evenly over the books (whole pairs).
    #[arg(long, default_value_t = 400, value_parser = count::<u32, 2>)]
    games: u32,
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
    /// one of suite, quality, mates (default: all three at the games' nodes or depth; 5000
    /// nodes under a clock).
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
    #[arg(
        long,
        value_name = "FILE",
        default_value = "data/suites/matetrack_short.epd"
    )]
    mate_suite: PathBuf,
    /// Positions from real games for the quality objective (one FEN a line).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "data/positions/games_600.epd"
    )]
    quality_positions: PathBuf,
    /// The quality objective's deep reference, as a multiple of its limit (nodes x N, or
    /// depth + N/4 plies at a fixed depth).
    #[arg(long, default_value_t = 16, value_parser = count::<u64, 2>)]
    quality_deep: u64,
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
    /// cluster; the quality objective runs here).
    #[command(flatten)]
    executor: ExecutorArgs,
}

fn scorer(
    def: &Arc<EngineDef>,
    files: &[PathBuf],
    limit: SuiteLimit,
    hash: usize,
    executor: Option<Arc<dyn Runner>>,
    rule: Repeats,
) -> Result<SuiteScorer> {
    let suites = load_suites(files, false, rule).map_err(UserError::from_display)?;
    super::say_skipped(suites.skipped(), "warning: ");
    super::say_odd_suites(files, &[&suites]);
    let options = ScorerOptions {
        config: RunConfig {
            limit,
            hash_mb: hash,
        },
        reference: Setting::off(def),
        cache_dir: Some(default_cache_dir()),
        executor,
        ..ScorerOptions::default()
    };
    let bar = super::progress_bar(
        suites.positions.len() as u64,
        "[{bar:30}] {pos}/{len} positions of the reference run",
    );
    let shown = bar.clone();
    let progress = Box::new(move |_: Phase, done: usize, _: usize| shown.set_position(done as u64));
    let scorer = SuiteScorer::new(suites, options, Some(progress));
    bar.finish_and_clear();
    let scorer = scorer
        .map_err(|e| UserError(format!("the reference run of {}: {e}", files[0].display())))?;
    super::searched_something(
        def,
        &format!("the reference run of {}", files[0].display()),
        scorer.reference(),
    )?;
    Ok(scorer)
}

/// An option of an objective that `--objectives` leaves out does nothing: the warning that
/// says so, if any.
fn unused_objective_options(args: &CalibrateArgs, specs: &[String]) -> Option<String> {
    let measured = |kind: &str| {
        specs
            .iter()
            .any(|s| s.split(':').next().map(str::trim) == Some(kind))
    };
    let d = super::parsed_alone::<CalibrateArgs>("calibrate", &[])?;
    let unused: Vec<&str> = [
        ("suite", "--suite", args.suite != d.suite),
        ("mates", "--mate-suite", args.mate_suite != d.mate_suite),
        (
            "quality",
            "--quality-positions",
            args.quality_positions != d.quality_positions,
        ),
        (
            "quality",
            "--quality-deep",
            args.quality_deep != d.quality_deep,
        ),
    ]
    .into_iter()
    .filter(|(kind, _, given)| *given && !measured(kind))
    .map(|(_, option, _)| option)
    .collect();
    (!unused.is_empty()).then(|| {
        format!(
            "{} given, but --objectives {} leaves out the objective that uses {}: ignored",
            unused.join(", "),
            specs.join(","),
            if unused.len() == 1 { "it" } else { "them" }
        )
    })
}

/// Refuses a book with fewer positions than the pairs each set plays on it (a pair would be
/// replayed and counted twice).
fn enough_positions(books: &[Book], pairs: usize) -> Result<()> {
    for book in books {
        marginal::formats::openings::enough(
            "--openings",
            Path::new(&book.path),
            book.positions.len(),
            pairs,
            "each set on it",
            "fewer --games",
        )
        .map_err(UserError)?;
    }
    Ok(())
}

/// Runs the command.
pub fn run(args: CalibrateArgs) -> Result<()> {
    let def = args.engine.def()?;
    // (On Slurm the executor cancels its job array at the signal and fails the run itself.)
    let preparing = if args.executor.is_slurm() {
        None
    } else {
        Some(super::executor::stop_on_interrupt(
            "interrupted while preparing the objectives: no objective value or game is kept yet (reference runs that finished are cached); the same command starts again"
                .to_string(),
        )?)
    };
    let (config, pool) = prepare(&args, &def)?;
    if let Some(done) = preparing {
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let report = play(&config, &pool)?;
    // Games ended by engine faults measure the faults, not the margins.
    let faults = calibrate::report::games_measured_margins(&report, &config.state_dir);
    if let Some(warning) = faults.map_err(UserError::from_display)? {
        eprintln!("warning: {warning}");
    }
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
    let books = if args.openings.is_empty() {
        DEFAULT_BOOKS.map(PathBuf::from).to_vec()
    } else {
        args.openings.clone()
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
        books,
        sets: args.sets,
        region: args.region.clone(),
        margins: args.margins.clone(),
        games: args.games,
        seed: args.seed,
        hash_mb: args.hash,
        concurrency: threads(args.concurrency),
        resamples: args.resamples,
        out: args.out.clone(),
        force: args.force,
        state: args.state.clone(),
    })
}

/// The objectives of the plan, each entry checked before any is prepared (a reference run can
/// take minutes), then prepared in turn.
fn objectives(
    args: &CalibrateArgs,
    plan: &CalibratePlan,
    def: &Arc<EngineDef>,
    executor: &Option<Arc<dyn Runner>>,
) -> Result<Vec<Box<dyn CheapObjective>>> {
    let specs = plan.objective_specs().map_err(UserError::from_display)?;
    if let Some(said) = unused_objective_options(args, &plan.objective_entries()) {
        eprintln!("warning: {said}");
    }
    if specs.iter().any(|s| s.kind == ObjectiveKind::Mates) {
        plan.check_mate_suite().map_err(UserError::from_display)?;
    }
    let mut out: Vec<Box<dyn CheapObjective>> = Vec::new();
    for spec in specs {
        if !super::quiet() {
            eprintln!(
                "preparing objective {} at {} (reference runs are cached)",
                spec.kind, spec.limit
            );
        }
        out.push(objective(plan, def, spec, executor)?);
    }
    Ok(out)
}

/// One objective, prepared: its reference run made (or read from the cache).
fn objective(
    plan: &CalibratePlan,
    def: &Arc<EngineDef>,
    spec: ObjectiveSpec,
    executor: &Option<Arc<dyn Runner>>,
) -> Result<Box<dyn CheapObjective>> {
    let (rule, hash, limit) = (plan.repeats(), plan.hash_mb, spec.limit);
    Ok(match spec.kind {
        ObjectiveKind::Suite => Box::new(SuiteObjective {
            scorer: scorer(def, &plan.suites, limit, hash, executor.clone(), rule)?,
        }),
        ObjectiveKind::Mates => {
            plan.check_mate_suite().map_err(UserError::from_display)?;
            let files = std::slice::from_ref(&plan.mate_suite);
            Box::new(marginal::scoring::cheap::MateObjective {
                scorer: scorer(def, files, limit, hash, executor.clone(), rule)?,
            })
        }
        ObjectiveKind::Quality => Box::new(quality_objective(plan, def, limit)?),
    })
}

/// The quality objective at `limit`: its positions read and their deep reference searched
/// (or read from the cache), with a progress bar.
fn quality_objective(
    plan: &CalibratePlan,
    def: &Arc<EngineDef>,
    limit: SuiteLimit,
) -> Result<QualityObjective> {
    let book = openings::read(&plan.quality_positions).map_err(|e| {
        UserError(format!(
            "--quality-positions: {e} (the quality objective needs positions from games, one FEN a line)"
        ))
    })?;
    super::say_skipped(&book.skipped, "warning: ");
    let source = plan.quality_source(&book.records);
    let bar = super::progress_bar(
        book.records.len() as u64,
        "[{bar:30}] {pos}/{len} positions of the deep reference",
    );
    let quality = MoveQuality::with_progress(
        book.records,
        Setting::defaults(def),
        limit,
        plan.deep_limit(limit),
        plan.hash_mb,
        Some(&default_cache_dir()),
        &|done| bar.set_position(done as u64),
    );
    bar.finish_and_clear();
    let engine = def.source.as_deref().unwrap_or(&def.name);
    let quality = quality.map_err(|e| {
        UserError(format!(
            "the engine {engine}: {e}: the quality objective has no yardstick; {}",
            super::fix_engine(def)
        ))
    })?;
    if let Some(first) = quality.reference_faults().first() {
        eprintln!(
            "warning: the engine {engine} faulted on {} of the {} deep reference searches of the quality objective (first: {first}): those positions are left out of it (and the reference is not cached); {}",
            quality.reference_faults().len(),
            quality.reference_faults().len() + quality.len(),
            super::fix_engine(def)
        );
    }
    Ok(QualityObjective { quality, source })
}

/// The design, the books, the objectives and the state directory, checked before any work;
/// prints what the calibration will do. Returns its configuration and the worker pool.
fn prepare(args: &CalibrateArgs, def: &Arc<EngineDef>) -> Result<(Config, rayon::ThreadPool)> {
    let plan = plan_of(args)?;
    let region = design::region(def, &plan.region).map_err(UserError::from_display)?;
    let resolve = |spec: &str| resolve_for(def, spec).map_err(|e| e.to_string());
    let sets = plan
        .sets(def, &region, &resolve)
        .map_err(UserError::from_display)?;
    check_state(args)?;
    check_out(args)?;
    let books = plan
        .read_books(plan.estimated_pairs_per_book(), &mut |skipped| {
            super::say_skipped(skipped, "warning: ")
        })
        .map_err(UserError::from_display)?;
    let pairs_per_book = plan.pairs_per_book(books.len());
    enough_positions(&books, pairs_per_book)?;
    let said = plan.games_said(pairs_per_book, books.len());
    if let Some(warning) = said.warning {
        eprintln!("warning: {warning}");
    }
    if let Some(note) = said.note {
        println!("note: {note}");
    }
    super::hash_fits(plan.hash_mb, 2 * plan.concurrency)?;
    let pool = marginal::scoring::exec::local::pool(plan.concurrency, "calibrate")
        .context("cannot start worker threads")?;
    let executor = args.executor.build()?;
    // The report is checked before the objectives are prepared (their reference searches
    // take a while), from what names the calibration (the objectives do not).
    let config = plan.config(sets, region, books, executor);
    let state_dir = plan.state_dir(&config);
    fresh_report(args, &config, &state_dir)?;
    let objectives = pool.install(|| objectives(args, &plan, def, &config.executor))?;
    let config = Config {
        objectives,
        state_dir,
        ..config
    };
    print_header(def, &config);
    Ok((config, pool))
}

/// Refuses an --out that is an input, cannot be written, or is a file other than a
/// calibration report; before anything is printed (`--out /dev/stdout` keeps standard
/// output for the report).
fn check_out(args: &CalibrateArgs) -> Result<()> {
    super::not_an_input(&args.out, "--out", &inputs(args))?;
    super::writable(&args.out, "--out")?;
    // A device (/dev/null) is written through; only a regular file is read to see what it is.
    if args.out.is_file() && calibrate::report::read(&args.out).is_err() {
        return Err(UserError(format!(
            "--out {} already exists and is not a calibration report: marginal does not write over it; give another --out",
            args.out.display()
        ))
        .into());
    }
    Ok(())
}

/// Refuses a --state that cannot hold this calibration's work, before any work: a file, or a
/// directory of other files (the state directory of a calibration is fine: the same one
/// resumes, another's is refused when it is opened).
fn check_state(args: &CalibrateArgs) -> Result<()> {
    let Some(state) = &args.state else {
        return Ok(());
    };
    if state.exists() && !state.is_dir() {
        return Err(UserError(format!(
            "--state {}: it is a file, not a directory: give a directory (it is created if missing)",
            state.display()
        ))
        .into());
    }
    calibrate::store::check_dir(state).map_err(UserError::from_display)?;
    let same = |a: &Path, b: &Path| {
        a == b
            || a.canonicalize()
                .is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b))
    };
    if same(&args.out, state) {
        return Err(UserError(format!(
            "--out {} is the --state directory: the report is a file; name one outside it (the default --out is calibration.json)",
            args.out.display()
        ))
        .into());
    }
    Ok(())
}

/// Refuses an existing --out unless --force, or it is this calibration's own report and its
/// work is kept (a rerun writes it again); another calibration's report is never replaced.
fn fresh_report(args: &CalibrateArgs, config: &Config, state_dir: &Path) -> Result<()> {
    let own = state_dir.exists() && calibrate::report::is_own_report(&args.out, config);
    super::fresh_json_output(&args.out, "--out", args.force || own)?;
    Ok(())
}

/// What the calibration will do: the engine, the sets, the objectives and the games.
fn print_header(def: &EngineDef, config: &Config) {
    println!(
        "marginal calibrate: {} ({}), {} sets ({} design), {} objectives, {} pairs per set on each of {} books at {}",
        def.name,
        def.source.as_deref().unwrap_or("built-in"),
        config.sets.len(),
        config.sets.iter().filter(|s| s.origin == "design").count(),
        config.objectives.len(),
        config.pairs_per_book,
        config.books.len(),
        config.game.limit.per_move()
    );
}

/// Measures the objectives and plays the games, with a progress bar a phase; an interrupt
/// keeps what was done (exit 130 with the command that resumes).
fn play(config: &Config, pool: &rayon::ThreadPool) -> Result<Report> {
    let state_dir = &config.state_dir;
    let played = config
        .sets
        .iter()
        .filter(|s| s.setting != config.sets[0].setting)
        .count();
    let pairs_per_book = config.pairs_per_book;
    let total_objectives = config.sets.len() * config.objectives.len();
    let total_pairs = played * config.books.len() * pairs_per_book;
    // One bar a phase (objective values, then game pairs), each with its own ETA: the two
    // kinds of work take very different times.
    let bar = progress_bar(
        total_objectives as u64,
        "[{bar:30}] {pos}/{len} {prefix}, ETA {eta} {msg}",
    );
    bar.set_prefix("objective values");
    bar.enable_steady_tick(Duration::from_millis(500));
    let in_games = std::sync::atomic::AtomicBool::new(false);
    let to_games = |done: usize| {
        if !in_games.swap(true, std::sync::atomic::Ordering::Relaxed) {
            bar.set_length(total_pairs as u64);
            bar.set_prefix("game pairs");
            bar.set_message("");
            bar.set_position(done as u64);
            bar.reset_eta();
        }
    };
    let observe = |event: Event| match event {
        Event::Resumed { objectives, pairs } => {
            bar.suspend(|| {
                println!(
                    "resuming from {}: {objectives} of {total_objectives} objective values and {pairs} of {total_pairs} pairs done",
                    state_dir.display()
                )
            });
            bar.set_position(objectives as u64);
            bar.reset_eta();
        }
        Event::Objective {
            set,
            name,
            value,
            done,
            ..
        } => {
            bar.set_position(done as u64);
            bar.set_message(format!("set {}: {name} {value:.3}", set + 1));
        }
        Event::Pair { done, .. } => {
            to_games(done.saturating_sub(1));
            bar.set_position(done as u64);
        }
    };
    let interrupt = super::executor::interrupt_flag()?;
    let result = pool.install(|| calibrate::run(config, &interrupt, &observe));
    bar.finish_and_clear();
    let report = match result {
        Ok(r) => r,
        Err(CalibrateError::Interrupted {
            objectives,
            pairs,
            dir,
        }) => {
            return Err(Interrupted(format!(
                "interrupted: {objectives} objective values and {pairs} game pairs are kept in {dir}; the same command resumes"
            ))
            .into());
        }
        Err(CalibrateError::Exec(e)) => return Err(super::executor::exec_error(e)),
        Err(
            e @ (CalibrateError::Store(_)
            | CalibrateError::Faults { .. }
            | CalibrateError::Objective { .. }),
        ) => {
            return Err(UserError::from_display(e).into());
        }
    };
    Ok(report)
}

/// The files a calibration reads, each with what it is: no output may be one of them.
fn inputs(args: &CalibrateArgs) -> Vec<(&'static str, &Path)> {
    let mut inputs: Vec<(&str, &Path)> = vec![
        ("--mate-suite", args.mate_suite.as_path()),
        ("--quality-positions", args.quality_positions.as_path()),
    ];
    inputs.extend(args.suite.iter().map(|f| ("--suite", f.as_path())));
    inputs.extend(args.openings.iter().map(|f| ("--openings", f.as_path())));
    inputs.extend(args.margins.iter().map(|f| ("--margins", Path::new(f))));
    if let Some(f) = &args.engine.engine {
        inputs.push(("--engine", f.as_path()));
    }
    inputs
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
    let names: Vec<&str> = report.objectives.iter().map(|o| o.name.as_str()).collect();
    for (o, obj) in report.objectives.iter().enumerate() {
        let path = plot::path(&args.out, &plot::label(&obj.name, &names));
        // The report is the result; a file of the user's where the plot goes is kept, and an
        // input there is never written over.
        let what = format!("the plot of {}", obj.name);
        if let Err(e) = super::not_an_input(&path, &what, &inputs(args))
            .and_then(|()| super::fresh_plot(&path, args.force))
        {
            eprintln!("warning: plot not written: {}", e.0);
            continue;
        }
        let svg = plot::svg(report, o)?;
        super::write_plot(&path, &svg)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("plot written to {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_of_objectives_left_out_are_named() {
        let args = |extra: &[&str]| {
            crate::commands::parsed_alone::<CalibrateArgs>("calibrate", extra).unwrap()
        };
        let specs = |s: &[&str]| s.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
        let given = args(&["--mate-suite", "m.epd", "--quality-deep", "9"]);
        let said = unused_objective_options(&given, &specs(&["suite:nodes=500"])).unwrap();
        assert!(
            said.starts_with("--mate-suite, --quality-deep given")
                && said.contains("--objectives suite:nodes=500"),
            "{said}"
        );
        // Used, or left at their defaults: nothing to say.
        assert_eq!(
            unused_objective_options(&given, &specs(&["mates", "quality"])),
            None
        );
        assert_eq!(
            unused_objective_options(&args(&[]), &specs(&["suite"])),
            None
        );
        let said = unused_objective_options(&args(&["--suite", "a.epd"]), &specs(&["mates"]));
        assert!(said.unwrap().starts_with("--suite given"));
    }
}
