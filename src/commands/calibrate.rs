//! `marginal calibrate`: how well each cheap objective ranks margin sets the way games do, for
//! the built-in engine or any engine file, at one game limit (the library's
//! [`marginal::calibrate`] does the work; this parses, calls and prints).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use marginal::calibrate::{
    self, Book, Bootstrap, CalibrateError, CalibrationSet, Config, Event, MIN_SETS, Report, design,
    plot,
};
use marginal::engine::{EngineDef, MAX_DEPTH, Setting};
use marginal::formats::{Fnv, openings, write_atomic};
use marginal::scoring::cheap::{CheapObjective, QualityObjective, SuiteObjective};
use marginal::scoring::exec::Runner;
use marginal::scoring::games::game::{GameConfig, MoveLimit};
use marginal::scoring::games::stats::Shown;
use marginal::scoring::quality::MoveQuality;
use marginal::scoring::suite::{
    Phase, Repeats, RunConfig, ScorerOptions, SuiteLimit, SuiteScorer, default_cache_dir,
    load_suites,
};
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

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

/// One `--objectives` entry: KIND, KIND:nodes=N or KIND:depth=D.
fn parse_objective(text: &str, default: SuiteLimit) -> Result<(String, SuiteLimit), UserError> {
    let bad = |why: String| UserError(format!("--objectives '{text}': {why}"));
    let (kind, limit) = match text.split_once(':') {
        None => (text.trim(), None),
        Some((kind, limit)) => (kind.trim(), Some(limit.trim())),
    };
    if !matches!(kind, "suite" | "quality" | "mates") {
        return Err(bad(if kind.is_empty() {
            format!(
                "no objective{}: give KIND, KIND:nodes=N or KIND:depth=D, KIND one of suite, quality, mates (comma-separated)",
                if limit.is_some() {
                    " before ':'"
                } else {
                    " (a comma too many?)"
                }
            )
        } else if kind.contains('=') {
            format!(
                "'{kind}' is a limit without its objective: write KIND:{kind}, KIND one of suite, quality, mates (a comma starts the next objective, and each takes one limit)"
            )
        } else {
            format!("'{kind}' is not an objective: the kinds are suite, quality and mates")
        }));
    }
    let limit = match limit {
        None => default,
        Some(limit) => parse_limit(limit).map_err(bad)?,
    };
    Ok((kind.to_string(), limit))
}

/// The limit of an `--objectives` entry, after its ':': one of nodes=N and depth=D.
fn parse_limit(text: &str) -> Result<SuiteLimit, String> {
    const FORMS: &str = "nodes=N or depth=D";
    if text.is_empty() {
        return Err(format!(
            "nothing after ':': give one limit, {FORMS}, or leave out the ':' for the games' limit"
        ));
    }
    if text.matches('=').count() > 1 {
        return Err(format!(
            "'{text}' is more than one limit: an objective takes one, {FORMS} (to measure it at both, list it twice: KIND:depth=D,KIND:nodes=N)"
        ));
    }
    let Some((key, value)) = text.split_once('=') else {
        return Err(match text {
            "nodes" | "depth" => format!("'{text}' has no value: {text}=N"),
            _ => format!("'{text}' is not a limit: give {FORMS}"),
        });
    };
    let (key, value) = (key.trim(), value.trim());
    let (max, takes) = match key {
        "nodes" => (
            u64::MAX,
            "nodes=N takes a whole number of nodes, at least 1".to_string(),
        ),
        "depth" => (
            u64::from(MAX_DEPTH),
            format!("depth=D takes a whole number of plies, 1 to {MAX_DEPTH}"),
        ),
        _ => return Err(format!("'{key}' is not a limit: give {FORMS}")),
    };
    match value.parse::<i128>() {
        Ok(n) if (1..=i128::from(max)).contains(&n) => Ok(if key == "nodes" {
            SuiteLimit::Nodes(n as u64)
        } else {
            SuiteLimit::Depth(n as u32)
        }),
        Ok(_) => Err(format!("{key}={value} is out of range: {takes}")),
        Err(_) if value.is_empty() => Err(format!("'{key}=' has no value: {takes}")),
        Err(_) => Err(format!("'{value}' is not a whole number: {takes}")),
    }
}

fn deep_of(limit: SuiteLimit, factor: u64) -> SuiteLimit {
    match limit {
        SuiteLimit::Nodes(n) => SuiteLimit::Nodes(n.saturating_mul(factor)),
        SuiteLimit::Depth(d) => SuiteLimit::Depth((d + (factor / 4).max(1) as u32).min(100)),
    }
}

/// The mates objective's scorer (its suite checked by [`mate_suite_checked`]).
fn mate_scorer(
    args: &CalibrateArgs,
    def: &Arc<EngineDef>,
    limit: SuiteLimit,
    executor: Option<Arc<dyn Runner>>,
    rule: Repeats,
) -> Result<SuiteScorer> {
    mate_suite_checked(args, rule)?;
    let files = std::slice::from_ref(&args.mate_suite);
    scorer(def, files, limit, args.hash, executor, rule)
}

/// Refuses a --mate-suite with no mate record (every set would score 0 and the objective say
/// nothing): checked before any objective is prepared, since reference runs take minutes.
fn mate_suite_checked(args: &CalibrateArgs, rule: Repeats) -> Result<(), UserError> {
    let files = std::slice::from_ref(&args.mate_suite);
    let suites = load_suites(files, false, rule).map_err(UserError::from_display)?;
    if !suites.positions.iter().any(|p| p.record.mate.is_some()) {
        return Err(UserError(format!(
            "--mate-suite {}: none of its {} positions has a mate record (`bm #N` or `dm N`), so the mates objective would score 0 for every set: give a mate suite (data/suites/matetrack_short.epd), or leave mates out of --objectives",
            args.mate_suite.display(),
            suites.positions.len()
        )));
    }
    Ok(())
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

fn objectives(
    args: &CalibrateArgs,
    def: &Arc<EngineDef>,
    default: SuiteLimit,
    executor: &Option<Arc<dyn Runner>>,
) -> Result<Vec<Box<dyn CheapObjective>>> {
    let specs: Vec<String> = if args.objectives.is_empty() {
        ["suite", "quality", "mates"].map(String::from).to_vec()
    } else {
        args.objectives.clone()
    };
    // Every entry is checked before any is prepared (a reference run can take minutes).
    let mut seen: Vec<(String, SuiteLimit)> = Vec::new();
    for spec in &specs {
        let parsed = parse_objective(spec, default)?;
        if seen.contains(&parsed) {
            return Err(UserError(format!("--objectives: '{spec}' is given twice")).into());
        }
        seen.push(parsed);
    }
    if let Some(said) = unused_objective_options(args, &specs) {
        eprintln!("warning: {said}");
    }
    let rule = super::repeats_rule(args.count_repeats);
    if seen.iter().any(|(kind, _)| kind == "mates") {
        mate_suite_checked(args, rule)?;
    }
    let mut out: Vec<Box<dyn CheapObjective>> = Vec::new();
    for (kind, limit) in seen {
        if !super::quiet() {
            eprintln!("preparing objective {kind} at {limit} (reference runs are cached)");
        }
        match kind.as_str() {
            "suite" => out.push(Box::new(SuiteObjective {
                scorer: scorer(def, &args.suite, limit, args.hash, executor.clone(), rule)?,
            })),
            "mates" => out.push(Box::new(marginal::scoring::cheap::MateObjective {
                scorer: mate_scorer(args, def, limit, executor.clone(), rule)?,
            })),
            _ => {
                let book =
                    openings::read(&args.quality_positions).map_err(|e| {
                        UserError(format!(
                            "--quality-positions: {e} (the quality objective needs positions from games, one FEN a line)"
                        ))
                    })?;
                super::say_skipped(&book.skipped, "warning: ");
                let mut hash = Fnv::new();
                for p in &book.records {
                    hash.write(
                        Fen::from_position(p, EnPassantMode::Legal)
                            .to_string()
                            .as_bytes(),
                    );
                }
                let bar = super::progress_bar(
                    book.records.len() as u64,
                    "[{bar:30}] {pos}/{len} positions of the deep reference",
                );
                let quality = MoveQuality::with_progress(
                    book.records,
                    Setting::defaults(def),
                    limit,
                    deep_of(limit, args.quality_deep),
                    args.hash,
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
                out.push(Box::new(QualityObjective {
                    quality,
                    source: format!(
                        "{} {:016x}",
                        args.quality_positions.display(),
                        hash.finish()
                    ),
                }));
            }
        }
    }
    Ok(out)
}

fn sets(
    args: &CalibrateArgs,
    def: &Arc<EngineDef>,
    region: &[design::RegionDim],
) -> Result<Vec<CalibrationSet>> {
    let defaults = Setting::defaults(def);
    let mut sets = vec![CalibrationSet {
        name: "default".into(),
        origin: "defaults".into(),
        setting: defaults.clone(),
    }];
    for spec in &args.margins {
        let setting = resolve_for(def, spec).map_err(|e| UserError(format!("--margins: {e}")))?;
        if let Some(same) = sets.iter().find(|s| s.setting == setting) {
            return Err(UserError(format!(
                "--margins '{spec}' is the same set as '{}': each set is measured once",
                same.name
            ))
            .into());
        }
        let origin = if Path::new(spec).is_file() {
            "file"
        } else {
            "margins"
        };
        sets.push(CalibrationSet {
            name: spec.clone(),
            origin: origin.into(),
            setting,
        });
    }
    if args.sets < MIN_SETS || args.sets < sets.len() {
        return Err(UserError(format!(
            "--sets {}: a calibration needs at least {MIN_SETS} sets and room for the defaults and the {} --margins",
            args.sets,
            sets.len() - 1
        ))
        .into());
    }
    let design = design::latin_hypercube(&defaults, region, args.sets - sets.len(), args.seed);
    for (i, setting) in design.into_iter().enumerate() {
        if sets.iter().any(|s| s.setting == setting) {
            continue;
        }
        sets.push(CalibrationSet {
            name: format!("lhs-{}", i + 1),
            origin: "design".into(),
            setting,
        });
    }
    Ok(sets)
}

fn books(args: &CalibrateArgs, pairs: usize) -> Result<Vec<Book>> {
    let paths = if args.openings.is_empty() {
        vec![
            PathBuf::from("data/openings/noob_3moves_1k.epd"),
            PathBuf::from("data/openings/popularpos_lichess_1k.epd"),
        ]
    } else {
        args.openings.clone()
    };
    let mut out: Vec<Book> = Vec::new();
    for path in paths {
        let book = openings::read(&path).map_err(UserError::from_display)?;
        super::say_skipped(&book.skipped, "warning: ");
        let mut hash = Fnv::new();
        for p in &book.records {
            hash.write(
                Fen::from_position(p, EnPassantMode::Legal)
                    .to_string()
                    .as_bytes(),
            );
            hash.write(b"\n");
        }
        let hash = hash.finish();
        if let Some(same) = out.iter().find(|b| b.hash == hash) {
            return Err(UserError(format!(
                "--openings {} holds the same positions as {}: give each book once",
                path.display(),
                same.path
            ))
            .into());
        }
        if book.records.len() < pairs {
            return Err(UserError(format!(
                "--openings {}: {} positions for {pairs} pairs per set on it: give fewer --games or a larger book",
                path.display(),
                book.records.len()
            ))
            .into());
        }
        let mut positions = book.records;
        openings::shuffle(&mut positions, args.seed);
        out.push(Book {
            path: path.display().to_string(),
            positions,
            hash,
        });
    }
    Ok(out)
}

/// Refuses a book with fewer positions than the pairs each set plays on it (a pair would be
/// replayed and counted twice).
fn enough_positions(books: &[Book], pairs: usize) -> Result<()> {
    for book in books {
        super::enough_openings(
            "--openings",
            Path::new(&book.path),
            book.positions.len(),
            pairs,
            "each set on it",
            "fewer --games",
        )?;
    }
    Ok(())
}

/// A short label of an objective's name ("suite (10000 nodes)" -> "suite@10000n"): its kind,
/// and its limit where `all` holds another objective of the same kind.
fn objective_label(name: &str, all: &[&str]) -> String {
    let kind = |n: &str| -> String {
        n.split(' ')
            .next()
            .unwrap_or("objective")
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    };
    let mine = kind(name);
    if all.iter().filter(|n| kind(n) == mine).count() < 2 {
        return mine;
    }
    let limit: String = name
        .split_once('(')
        .map_or("", |(_, rest)| rest.trim_end_matches(')'))
        .replace("depth ", "d")
        .replace(" nodes", "n")
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("{mine}@{limit}")
}

fn svg_path(out: &Path, label: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or("calibration".into(), |s| s.to_string_lossy().to_string());
    out.with_file_name(format!("{stem}-{}.svg", label.replace('@', "-")))
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
    games_measured_margins(&report, &config.state_dir)?;
    write_outputs(&args, &report)
}

/// Games ended by engine faults measure the faults, not the margins: every game so (exit 2,
/// no report) or more than a tenth of them (a warning) is said, as `match` says it.
fn games_measured_margins(report: &Report, state: &Path) -> Result<(), UserError> {
    let played = || report.sets.iter().filter(|s| s.pooled.games > 0);
    let games: u64 = played().map(|s| s.pooled.games).sum();
    let faults: u64 = played().map(|s| s.fault_games).sum();
    if games > 0 && faults >= games {
        return Err(UserError(format!(
            "every one of the {games} games ended with an engine fault: no Elo here measures the margins, so no report is written; fix the engine or its engine file, then remove {} (it keeps these games, and a rerun would read them back)",
            state.display()
        )));
    }
    if 10 * faults > games {
        eprintln!(
            "warning: {faults} of the {games} games ({:.0}%) were lost to engine faults (fault_games in the report): the Elo measures the faults as much as the margins; fix the engine before reading it",
            100.0 * faults as f64 / games as f64
        );
    }
    Ok(())
}

/// The design, the books, the objectives and the state directory, checked before any work;
/// prints what the calibration will do. Returns its configuration and the worker pool.
fn prepare(args: &CalibrateArgs, def: &Arc<EngineDef>) -> Result<(Config, rayon::ThreadPool)> {
    let (limit, objective_limit) = limits(args)?;
    let region = design::region(def, &args.region).map_err(UserError::from_display)?;
    let sets = sets(args, def, &region)?;
    check_state(args)?;
    super::not_an_input(&args.out, "--out", &inputs(args))?;
    // Before anything is printed: `--out /dev/stdout` keeps standard output for the report.
    super::writable(&args.out, "--out")?;
    // A device (/dev/null) is written through; only a regular file is read to see what it is.
    if args.out.is_file() && calibrate::report::read(&args.out).is_err() {
        return Err(UserError(format!(
            "--out {} already exists and is not a calibration report: marginal does not write over it; give another --out",
            args.out.display()
        ))
        .into());
    }
    let nbooks = args.openings.len().max(2);
    let pairs_per_book = (args.games as usize).div_ceil(2).div_ceil(nbooks);
    let books = books(args, pairs_per_book)?;
    let pairs_per_book = (args.games as usize).div_ceil(2).div_ceil(books.len());
    enough_positions(&books, pairs_per_book)?;
    let played = 2 * pairs_per_book * books.len();
    say_few_games(args.games, played);
    if played != args.games as usize {
        println!(
            "note: --games {} becomes {played} per set: whole pairs, as many on each of the {} books",
            args.games,
            books.len()
        );
    }
    let concurrency = threads(args.concurrency);
    super::hash_fits(args.hash, 2 * concurrency)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(concurrency)
        .build()
        .context("cannot start worker threads")?;
    let executor = args.executor.build()?;
    // The report is checked before the objectives are prepared (their reference searches
    // take a while), from what names the calibration (the objectives do not).
    let config = Config {
        sets,
        region,
        seed: args.seed,
        objectives: Vec::new(),
        books,
        game: GameConfig {
            limit,
            resign: None,
            draw: None,
            max_plies: 400,
        },
        pairs_per_book,
        hash_mb: args.hash,
        concurrency,
        bootstrap: Bootstrap {
            resamples: args.resamples,
            seed: args.seed,
        },
        state_dir: PathBuf::new(),
        executor,
    };
    let state_dir = args.state.clone().unwrap_or_else(|| {
        let mut hash = Fnv::new();
        hash.write(config.identity().to_string().as_bytes());
        default_cache_dir().join(format!("calibration-{:016x}", hash.finish()))
    });
    fresh_report(args, &config, &state_dir)?;
    let objectives = pool.install(|| objectives(args, def, objective_limit, &config.executor))?;
    let config = Config {
        objectives,
        state_dir: state_dir.clone(),
        ..config
    };
    print_header(def, &config);
    Ok((config, pool))
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

/// The games' per-move limit (--tc, --depth or --nodes, default 5,000 nodes) and the
/// objectives' (the same nodes or depth; 5,000 nodes under a clock).
fn limits(args: &CalibrateArgs) -> Result<(MoveLimit, SuiteLimit)> {
    let limit = match (&args.tc, args.depth, args.nodes) {
        (Some(tc), _, _) => super::match_cmd::parse_tc(tc)?,
        (None, Some(d), _) => MoveLimit::Depth(d),
        (None, None, n) => MoveLimit::Nodes(n.unwrap_or(5_000)),
    };
    let objective_limit = match limit {
        MoveLimit::Depth(d) => SuiteLimit::Depth(d),
        MoveLimit::Nodes(n) => SuiteLimit::Nodes(n),
        MoveLimit::Clock { .. } => SuiteLimit::Nodes(5_000),
    };
    Ok((limit, objective_limit))
}

/// Refuses an existing --out unless --force, or it is this calibration's own report and its
/// work is kept (a rerun writes it again); another calibration's report is never replaced.
fn fresh_report(args: &CalibrateArgs, config: &Config, state_dir: &Path) -> Result<()> {
    let own = state_dir.exists() && calibrate::report::is_own_report(&args.out, config);
    super::fresh_json_output(&args.out, "--out", args.force || own)?;
    Ok(())
}

/// Says when the games a set are too few for the statistics to say much.
fn say_few_games(asked: u32, played: usize) {
    if played < 100 {
        eprintln!(
            "warning: --games {asked}: {played} games a set are too few for a verdict (a set that wins or loses every pair has no Elo, and the ranks are mostly noise); the shipped calibrations play 300 to 400 a set"
        );
    }
}

/// A set's Elo as the table shows it: `0 (not played)` for the defaults (the yardstick), `n/a`
/// when it is not defined (every pair won, or every pair lost: the report's JSON holds 0 there).
fn elo_text(g: &marginal::calibrate::report::Games) -> String {
    let pairs: u64 = g.pentanomial.iter().sum();
    if pairs == 0 {
        return "0 (not played)".to_string();
    }
    let swept = pairs > 0 && (g.pentanomial[0] == pairs || g.pentanomial[4] == pairs);
    if swept {
        "n/a".to_string()
    } else {
        format!("{:+.1}", g.elo)
    }
}

/// A set's pooled cells: Elo, interval and draw rate; for the defaults, the yardstick, `0 (not
/// played)` and no draw rate.
fn pooled_text(g: &marginal::calibrate::report::Games) -> String {
    if g.pentanomial.iter().sum::<u64>() == 0 {
        format!(" {:>22} {:>6}", "0 (not played)", "")
    } else {
        format!(
            " {:>7} {} {:>5.1}%",
            elo_text(g),
            interval_text(g),
            100.0 * g.draw_rate
        )
    }
}

/// A set's 95% interval as the table shows it: each end `n/a` where it is not defined (the
/// report's JSON holds null there: an end at a 0% or 100% score, or both while every pair
/// scored the same).
fn interval_text(g: &marginal::calibrate::report::Games) -> String {
    let [lower, upper] = g.elo_interval.map(Shown);
    format!("[{lower:+.0}, {upper:+.0}]")
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
    print_report(report);
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
        let path = svg_path(&args.out, &objective_label(&obj.name, &names));
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

/// Prints the table: each set's values, objectives and Elo per book and pooled; then each
/// objective's agreement and verdict, and the ceiling.
pub fn print_report(r: &Report) {
    let names: Vec<&str> = r.region.iter().map(|d| d.name.as_str()).collect();
    let short = |n: &str| n.trim_end_matches("_margin").to_string();
    let mut header = format!("{:<10}", "set");
    for n in &names {
        header += &format!(" {:>11}", short(n));
    }
    let objectives: Vec<&str> = r.objectives.iter().map(|o| o.name.as_str()).collect();
    for o in &objectives {
        header += &format!(" {:>12}", objective_label(o, &objectives));
    }
    for b in &r.books {
        let name = Path::new(&b.path)
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().to_string());
        header += &format!(" {:>16}", name.chars().take(16).collect::<String>());
    }
    header += &format!(" {:>22} {:>6}", "pooled Elo [95%]", "draws");
    println!("{header}");
    for s in &r.sets {
        let mut line = format!("{:<10}", s.name.chars().take(10).collect::<String>());
        for v in &s.values {
            line += &format!(" {v:>11}");
        }
        for v in &s.objectives {
            line += &format!(" {v:>12.3}");
        }
        for b in &s.books {
            line += &format!(" {:>16}", elo_text(b));
        }
        line += &pooled_text(&s.pooled);
        println!("{line}");
    }
    println!();
    let c = &r.ceiling;
    let shown = |i: &Option<marginal::calibrate::rank::Interval>| {
        i.map_or("n/a".to_string(), |i| i.to_string())
    };
    println!(
        "games against themselves: book vs book rho {}, even vs odd pairs rho {}, reliability {}, ceiling on rho {}",
        shown(&c.book_vs_book),
        shown(&c.half_vs_half),
        c.reliability.map_or("n/a".into(), |x| format!("{x:.2}")),
        c.max_rho.map_or("n/a".into(), |x| format!("{x:.2}")),
    );
    for o in &r.objectives {
        println!(
            "{}: tau {}, slope {} Elo per point{}",
            o.name,
            shown(&o.tau),
            o.slope.map_or("n/a".into(), |s| s.to_string()),
            if o.faults + o.overshot > 0 {
                format!(" ({} faulted, {} overshot positions)", o.faults, o.overshot)
            } else {
                String::new()
            }
        );
    }
    for o in &r.objectives {
        println!("{}", o.verdict);
    }
    let c = &r.cost;
    println!(
        "cost: {:.0} s wall ({:.1} min), {} CPU minutes on {} threads, {} objective evaluations, {} games, over {} run(s)",
        c.wall_seconds,
        c.wall_seconds / 60.0,
        c.cpu_seconds
            .map_or("unmeasured".to_string(), |s| format!("{:.1}", s / 60.0)),
        c.threads,
        c.objective_evaluations,
        c.games,
        c.runs
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_limit_only_where_two_objectives_share_a_kind() {
        let all = [
            "suite (depth 7)",
            "suite (10000 nodes)",
            "mates (10000 nodes)",
        ];
        assert_eq!(objective_label(all[0], &all), "suite@d7");
        assert_eq!(objective_label(all[1], &all), "suite@10000n");
        assert_eq!(objective_label(all[2], &all), "mates");
        let out = Path::new("tuned/calibration-toga2.json");
        assert_eq!(
            svg_path(out, &objective_label(all[1], &all)),
            Path::new("tuned/calibration-toga2-suite-10000n.svg")
        );
        assert_eq!(
            svg_path(out, "mates"),
            Path::new("tuned/calibration-toga2-mates.svg")
        );
    }

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
