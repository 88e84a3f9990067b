//! `marginal suite`: scores a margin set on EPD suites against a reference run.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use marginal::engine::{EngineDef, Setting};
use marginal::scoring::suite::reference;
use marginal::scoring::suite::{
    LoadedSuites, Objective, PositionResult, PositionScore, RunConfig, ScorerOptions, SuiteLimit,
    SuiteScore, SuiteScorer, default_cache_dir, load_suites,
};
use serde::Serialize;

use super::executor::{ExecutorArgs, exec_error};
use super::progress::PositionsBar;
use super::{
    EngineArgs, ScoringArgs, UserError, count, depth_arg, not_an_input, resolve_for, setting_from,
    threads, threads_arg,
};

/// Arguments of `marginal suite`.
#[derive(Args)]
pub struct SuiteArgs {
    /// EPD suite files (e.g. data/suites/wac.epd).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The engine: marginal's own (default), or an external UCI engine.
    #[command(flatten)]
    engine: EngineArgs,
    /// Where the searching runs.
    #[command(flatten)]
    executor: ExecutorArgs,
    /// Margin set to score: a built-in name (default, off, bare, sound), a tuned .json file, or
    /// name=value assignments. For an external engine: default, off, its tuned file, or
    /// assignments to its rows.
    #[arg(long, default_value = "default")]
    margins: String,
    /// Override one parameter (repeatable), e.g. --set frontier=150.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Fixed search depth per position, plies (default 8 when --nodes is not given).
    #[arg(long, conflicts_with = "nodes", value_parser = depth_arg())]
    depth: Option<u32>,
    /// Fixed node budget per position (at least 1).
    #[arg(long, value_parser = count::<u64, 1>)]
    nodes: Option<u64>,
    /// Reference run: `off` (no pruning; for an external engine its rows at their off values
    /// and its reference options), another built-in set, a tuned file or assignments.
    #[arg(long, default_value = "off")]
    reference: String,
    /// Worker threads (default: all cores; at most 256). Results are identical for any count.
    #[arg(long, value_parser = threads_arg())]
    threads: Option<usize>,
    /// Write a JSON report with every per-position result.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Replace the output file when it exists (without it, marginal refuses to write over one).
    #[arg(long, requires = "json")]
    force: bool,
    /// Make any bad EPD line fatal (exit 2).
    #[arg(long)]
    strict: bool,
    /// The suite objective's weights and the table size.
    #[command(flatten)]
    scoring: ScoringArgs,
    /// Where cached reference runs live (default $MARGINAL_CACHE_DIR or .marginal-cache).
    #[arg(long, conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// Do not read or write the reference cache.
    #[arg(long)]
    no_cache: bool,
    /// Also print one line per position.
    #[arg(long, short)]
    verbose: bool,
}

/// The JSON report: the library's [`SuiteScore`] and how this run went.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    score: &'a SuiteScore,
    run: RunReport<'a>,
}

/// What depends on this run rather than on the margins: labels, threads, timing, cache use.
#[derive(Serialize)]
struct RunReport<'a> {
    margins_label: &'a str,
    reference_label: &'a str,
    reference_cached: bool,
    threads: usize,
    elapsed_seconds: f64,
    positions_per_second: f64,
}

/// The limit, objective weights and scorer options the arguments ask for.
pub fn options(args: &SuiteArgs, def: &Arc<EngineDef>) -> Result<ScorerOptions, UserError> {
    let limit = match (args.depth, args.nodes) {
        (_, Some(n)) => SuiteLimit::Nodes(n),
        (Some(d), None) => SuiteLimit::Depth(d),
        (None, None) => SuiteLimit::Depth(8),
    };
    if let Some(dir) = &args.cache_dir
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(UserError(format!(
            "--cache-dir {} is not a directory: name a directory (it is made when missing), or give --no-cache",
            dir.display()
        )));
    }
    Ok(ScorerOptions {
        config: RunConfig {
            limit,
            hash_mb: args.scoring.hash,
        },
        objective: args.scoring.params(),
        reference: resolve_for(def, &args.reference)
            .map_err(|e| UserError(format!("--reference: {e}")))?,
        cache_dir: (!args.no_cache)
            .then(|| args.cache_dir.clone().unwrap_or_else(default_cache_dir)),
        executor: None,
    })
}

/// Runs the command.
pub fn run(args: SuiteArgs, ui: super::Ui) -> Result<()> {
    let def = args.engine.def(ui.max_faults)?;
    let margins = setting_from(&def, &args.margins, &args.set)?;
    let mut options = options(&args, &def)?;
    options.executor = args.executor.build()?;
    check_json_output(&args)?;
    let suites = load_suites(&args.files, args.strict, args.scoring.repeats())
        .map_err(UserError::from_display)?;
    super::say_skipped(suites.skipped(), "");
    super::say_odd_suites(&args.files, &[&suites]);
    let threads = threads(args.threads);
    super::hash_fits(options.config.hash_mb, threads)?;
    say_and_watch(&args, &def, &options, &margins)?;
    let pool = marginal::scoring::exec::local::pool(threads, "suite")
        .context("cannot start worker threads")?;
    print_header(&args, &def, &suites, &options.config);

    let (scorer, score, elapsed, kept) =
        pool.install(|| measure(&args, &def, suites, options, &margins, ui.printer))?;
    for warning in &score.warnings {
        eprintln!("warning: {warning}");
    }
    let n = score.positions.len() - kept;
    let rate = n as f64 / elapsed.max(1e-9);
    // The report is written before anything is printed: a reader that goes (`| head -1`) ends
    // marginal at the next line printed, and must not take the report with it.
    if let Some(path) = &args.json {
        let report = Report {
            score: &score,
            run: RunReport {
                margins_label: &args.margins,
                reference_label: &args.reference,
                reference_cached: scorer.reference_cached(),
                threads,
                elapsed_seconds: elapsed,
                positions_per_second: rate,
            },
        };
        let text = serde_json::to_string_pretty(&report)?;
        marginal::formats::write_atomic(path, (text + "\n").as_bytes())
            .with_context(|| format!("cannot write JSON report {}", path.display()))?;
    }
    say_same_searches(&score, &margins);
    print_summary(&args, &scorer, &score);
    print_faults(&score);
    if args.verbose {
        print_positions(&score.positions);
    }
    let on = if args.executor.is_slurm() {
        "Slurm".to_string()
    } else {
        format!("{threads} thread(s)")
    };
    if kept == 0 {
        println!("{n} positions in {elapsed:.2} s: {rate:.1} positions/s on {on}");
    } else {
        println!(
            "{n} positions searched in {elapsed:.2} s: {rate:.1} positions/s on {on} ({kept} more kept from the earlier unfinished run)"
        );
    }
    if let Some(path) = &args.json {
        println!("report written to {}", path.display());
    }

    // An engine that faulted on every search gave nothing to score: the figures above are not
    // an objective of the set, and the command fails (the faults are listed above).
    super::searched_something(&def, "the suite", score.positions.iter().map(|p| &p.result))?;
    Ok(())
}

/// `--json OUT` is none of the inputs (suites, margin files, engine file) and may be written.
fn check_json_output(args: &SuiteArgs) -> Result<(), UserError> {
    let Some(out) = &args.json else {
        return Ok(());
    };
    let mut inputs: Vec<(&str, &std::path::Path)> = args
        .files
        .iter()
        .map(|f| ("the suite", f.as_path()))
        .collect();
    for (what, spec) in [
        ("--margins", &args.margins),
        ("--reference", &args.reference),
    ] {
        let path = std::path::Path::new(spec.as_str());
        if path.is_file() {
            inputs.push((what, path));
        }
    }
    if let Some(engine) = &args.engine.engine {
        inputs.push(("--engine", engine.as_path()));
    }
    not_an_input(out, "--json", &inputs)?;
    super::fresh_json_output(out, "--json", args.force)
}

/// The reference run, then the set's, with a progress bar: the scorer, the score, the
/// seconds the set's run took and how many of its positions an interrupted run had kept.
fn measure(
    args: &SuiteArgs,
    def: &EngineDef,
    suites: LoadedSuites,
    options: ScorerOptions,
    margins: &marginal::engine::Setting,
    printer: super::progress::Printer,
) -> Result<(SuiteScorer, SuiteScore, f64, usize)> {
    let bar = printer.bar(
        suites.positions.len() as u64,
        "{msg:>10} [{bar:40}] {pos}/{len} {per_sec} eta {eta}",
    );
    if args.executor.is_slurm() {
        // The cluster reports by job array, not by position.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let kept = say_resuming(&suites, &options, margins);
    let observer = Arc::new(PositionsBar::new(&bar, Some(kept)));
    let scorer = SuiteScorer::new(suites, options, Some(observer)).map_err(exec_error)?;
    // A reference run with no search that worked: the scored run would fault the same way,
    // each position paying its timeout; stop now.
    if let Err(e) = super::searched_something(def, "the reference run", scorer.reference()) {
        bar.finish_and_clear();
        return Err(e.into());
    }
    bar.reset();
    let start = Instant::now();
    let (score, kept) = scorer.score_kept(margins).map_err(exec_error)?;
    let elapsed = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok((scorer, score, elapsed, kept))
}

/// Before the work: says what an interrupted run of the same command kept, which this one
/// takes up rather than searches (run here, with a cache).
fn say_resuming(
    suites: &LoadedSuites,
    options: &ScorerOptions,
    margins: &Setting,
) -> (usize, usize) {
    let (None, Some(dir)) = (&options.executor, &options.cache_dir) else {
        return (0, 0);
    };
    let total = suites.positions.len();
    let config = &options.config;
    let mut kept_by_run = [0; 2];
    for (i, (what, setting, reference)) in [
        ("the reference run", &options.reference, true),
        ("the set's run", margins, false),
    ]
    .into_iter()
    .enumerate()
    {
        let kept = reference::kept(dir, suites, setting, config, reference);
        kept_by_run[i] = kept;
        if kept > 0 {
            eprintln!(
                "resuming {what}: {kept} of {total} positions were kept from an earlier run that did not finish (interrupted, or faulted on some positions); searching the other {}",
                total - kept
            );
        }
    }
    (kept_by_run[0], kept_by_run[1])
}

/// Before the work: says when the reference searches with the set's own values (the speed
/// part is then 0 by construction), and, run locally, ends an interrupted suite with exit 130
/// and what it keeps.
fn say_and_watch(
    args: &SuiteArgs,
    def: &EngineDef,
    options: &ScorerOptions,
    margins: &marginal::engine::Setting,
) -> Result<()> {
    if options.reference.uci_options() == margins.uci_options() {
        eprintln!(
            "warning: the reference run ('{}') searches with the same values as the set scored: the node ratio is 1 and the speed part 0 by construction; give another --reference{}",
            args.reference,
            if def.is_builtin() {
                ""
            } else {
                ", or off values to the engine's rows (NAME=OFF in --engine-options, or the engine file's off column)"
            }
        );
    }
    // On Slurm the executor cancels its job array at the signal and fails the run itself.
    if !args.executor.is_slurm() {
        super::executor::stop_on_interrupt(match &options.cache_dir {
            Some(dir) => format!(
                "interrupted: every position searched (of the reference run and of the set's) is kept in {}; rerun the same command to search only the rest",
                dir.display()
            ),
            None => {
                "interrupted: nothing is kept with --no-cache: rerun the same command (without --no-cache, the positions searched are kept)".into()
            }
        })?;
    }
    Ok(())
}

fn print_header(args: &SuiteArgs, def: &EngineDef, suites: &LoadedSuites, config: &RunConfig) {
    println!(
        "marginal suite: {} positions from {} file(s) at {}, margins '{}', reference '{}'",
        suites.positions.len(),
        suites.files.len(),
        config.limit,
        if args.set.is_empty() {
            args.margins.clone()
        } else {
            format!("{}' with '{}", args.margins, args.set.join(", "))
        },
        args.reference,
    );
    if let Some(source) = &def.source {
        println!("engine: {} ({source})", def.name);
    }
    let skipped = suites.skipped().count();
    if skipped > 0 {
        let listed = if skipped > super::SKIPPED_LISTED {
            format!("the first {} listed on stderr", super::SKIPPED_LISTED)
        } else {
            "listed on stderr".to_string()
        };
        println!("{skipped} bad line(s) skipped ({listed})");
    }
}

fn print_summary(args: &SuiteArgs, scorer: &SuiteScorer, score: &SuiteScore) {
    println!(
        "reference '{}'{}",
        args.reference,
        if scorer.reference_cached() {
            " (cached)"
        } else if !scorer.reference_stored() {
            ": computed (not cached)"
        } else {
            ": computed and cached"
        }
    );
    println!();
    print_table(score);
    say_no_node_counts(&score.objective);
    if let Some(m) = &score.mates {
        println!(
            "mates: {} positions, found {} (exact {}), wrong {}, missed {}, mate score {:.1}",
            m.positions,
            m.found,
            m.exact,
            m.wrong,
            m.missed,
            m.score()
        );
    }
    let total = &score.objective;
    println!();
    println!(
        "objective {:.3} = accuracy {:.3} + {} x speed {:.3}",
        total.value, total.accuracy, score.objective_params.weight, total.speed
    );
    println!(
        "  accuracy: solution credit in % (early share {}); speed: mean doublings saved against the reference",
        score.objective_params.early
    );
    // An external engine does not say what it pruned.
    if score.engine.is_none() {
        println!("pruned: {}", score.prunes);
    }
}

/// Says when an external engine searched every position exactly as in the reference run (the
/// same move, node count and score; at least 3 positions to a fixed depth, 20 at a node
/// budget) although the margins differ: it most likely ignores the options that carry them
/// (an engine that answers `setoption` with "no such option").
fn say_same_searches(score: &SuiteScore, margins: &marginal::engine::Setting) {
    let same = |p: &PositionScore| {
        p.result.fault.is_none()
            && p.result.nodes == p.reference_nodes
            && p.result.best_move == p.reference_best_move
            && p.result.score == p.reference_score
    };
    // At a node budget every search spends the budget, so equal node counts say little: only
    // many positions with the same move and score as well tell.
    let enough = match score.limit {
        marginal::scoring::suite::SuiteLimit::Depth(_) => 3,
        _ => 20,
    };
    if score.engine.is_some()
        && score.positions.len() >= enough
        && score.positions.iter().all(same)
        && margins.uci_options() != score.reference.margins.uci_options()
    {
        eprintln!(
            "{}",
            super::ignored_options("exactly as in the reference run")
        );
    }
}

/// The per-suite table (and the total when there are several suites).
fn print_table(score: &SuiteScore) {
    let width = score
        .suites
        .iter()
        .map(|s| s.path.len())
        .max()
        .unwrap_or(5)
        .max(5);
    println!(
        "{:<width$} {:>9} {:>14} {:>11} {:>13} {:>13} {:>6} {:>6} {:>8}",
        "suite",
        "positions",
        "solved",
        "points",
        "nodes",
        "ref nodes",
        "ratio",
        "agree",
        "|dscore|"
    );
    let row = |name: &str, o: &Objective| {
        println!(
            "{:<width$} {:>9} {:>6} ({:>5.1}%) {:>11} {:>13} {:>13} {:>6.3} {:>5.1}% {:>8.1}",
            name,
            o.positions,
            o.solved,
            100.0 * o.solved as f64 / o.positions.max(1) as f64,
            format!("{}/{}", o.points, o.max_points),
            o.nodes,
            o.reference_nodes,
            o.node_ratio,
            o.agreement,
            o.score_difference
        );
    };
    for s in &score.suites {
        if s.positions == 0 && s.repeats > 0 {
            println!(
                "{:<width$} {:>9}  (all {} of its positions repeat earlier lines, scored there once)",
                s.path, 0, s.repeats
            );
        } else {
            row(&s.path, &s.objective);
        }
    }
    if score.suites.len() > 1 {
        row("total", &score.objective);
    }
}

/// Warns when the engine gave no node count the speed figures could use.
fn say_no_node_counts(total: &Objective) {
    if total.nodes == 0 || total.reference_nodes == 0 {
        eprintln!(
            "warning: the engine reported no usable node count (no `info ... nodes N` it could read) in {}: nodes, ratio and the speed part of the objective say nothing; check its `info` lines",
            if total.reference_nodes == 0 {
                "the reference run"
            } else {
                "this run"
            }
        );
    }
}

/// Prints the positions an external engine faulted on (`suite:line id: reason`), in the run
/// and in the reference run, and how often it went past the node budget.
fn print_faults(score: &SuiteScore) {
    let listed = |run: &str, faults: Vec<(&PositionResult, &str)>| {
        if faults.is_empty() {
            return;
        }
        println!();
        println!(
            "{run}: engine faults on {} of {} positions (each scored unsolved; the engine was restarted):",
            faults.len(),
            score.positions.len()
        );
        for (r, why) in faults {
            let id = r.id.as_deref().map_or(String::new(), |id| format!(" {id}"));
            println!("  {}:{}{id}: {why}", r.suite, r.line);
        }
    };
    listed(
        "run",
        score
            .positions
            .iter()
            .filter_map(|p| Some((&p.result, p.result.fault.as_deref()?)))
            .collect(),
    );
    listed(
        "reference run",
        score
            .positions
            .iter()
            .filter_map(|p| Some((&p.result, p.reference_fault.as_deref()?)))
            .collect(),
    );
    let unmatched = score
        .positions
        .iter()
        .filter(|p| p.result.fault.is_some() || p.reference_fault.is_some())
        .count();
    if unmatched > 0 {
        println!(
            "nodes, ratio, agree and |dscore| compare the {} position(s) both runs searched; the {unmatched} with a fault in either run count in the speed part as the reference's speed (ratio 1)",
            score.positions.len() - unmatched
        );
    }
    if score.overshot > 0 {
        println!();
        println!(
            "stopped past the node budget on {} of {} positions: it does not stop at go nodes exactly; the last PV within the budget was taken",
            score.overshot,
            score.positions.len()
        );
    }
}

fn print_positions(positions: &[PositionScore]) {
    println!();
    println!(
        "{:<28} {:<6} {:>6} {:>7} {:>10} {:>10} {:>10} {:<6}",
        "position", "move", "solved", "score", "nodes", "found at", "ref nodes", "ref"
    );
    for p in positions {
        let r = &p.result;
        let name =
            r.id.clone()
                .unwrap_or_else(|| format!("{}:{}", r.suite, r.line));
        println!(
            "{:<28} {:<6} {:>6} {:>7} {:>10} {:>10} {:>10} {:<6}",
            name,
            r.best_move.as_deref().unwrap_or("-"),
            if r.max_points > 1 {
                format!("{}/{}", r.points, r.max_points)
            } else if r.solved {
                "yes".to_string()
            } else {
                "no".to_string()
            },
            r.score,
            r.nodes,
            r.found_at,
            p.reference_nodes,
            p.reference_best_move.as_deref().unwrap_or("-")
        );
    }
}
