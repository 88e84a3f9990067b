//! `marginal suite`: scores a margin set on EPD suites against a reference run.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use marginal::engine::{EngineDef, Setting};
use marginal::scoring::suite::{
    LoadedSuites, RunConfig, ScorerOptions, SuiteLimit, SuiteScore, default_cache_dir, load_suites,
    measure, report,
};
use serde::Serialize;

use super::executor::{ExecutorArgs, exec_error};
use super::progress::{PositionsBar, Printer, say};
use super::{
    EngineArgs, ScoringArgs, UserError, count, depth_arg, not_an_input, resolve_for, setting_from,
    threads, threads_arg,
};
use marginal::progress::{Said, Shared};

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
    #[arg(long)]
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
        executor: Arc::new(marginal::scoring::exec::local::Local::on_current_pool()),
    })
}

/// Runs the command.
pub fn run(args: SuiteArgs, ui: super::Ui) -> Result<()> {
    let def = args.engine.def(ui.max_faults)?;
    let margins = setting_from(&def, &args.margins, &args.set)?;
    let mut options = options(&args, &def)?;
    options.executor = args.executor.build(threads(args.threads))?;
    check_json_output(&args)?;
    let suites = load_suites(&args.files, args.strict, args.scoring.repeats())
        .map_err(UserError::from_display)?;
    Said::skipped(suites.skipped()).iter().for_each(say);
    super::say_odd_suites(&args.files, &[&suites]);
    let threads = threads(args.threads);
    super::hash_fits(options.config.hash_mb, threads)?;
    say_and_watch(&args, &def, &options, &margins)?;
    let pool = marginal::scoring::exec::local::pool(threads, "suite")
        .context("cannot start worker threads")?;
    let sets = (args.margins.as_str(), args.set.as_slice());
    let header = report::header(&suites, &options.config, sets, &args.reference, &def);
    println!("{header}");
    let measured = pool.install(|| measure(&args, &def, suites, options, &margins, ui.printer))?;
    let (scorer, score) = (&measured.scorer, &measured.score);
    for warning in &score.warnings {
        say(&Said::Warning(warning.clone()));
    }
    let n = score.positions.len() - measured.kept;
    let elapsed = measured.elapsed;
    // The report is written before anything is printed: a reader that goes (`| head -1`) ends
    // marginal at the next line printed, and must not take the report with it.
    write_report(&args, &measured, threads)?;
    if report::same_searches(score, &margins) {
        eprintln!(
            "{}",
            measure::ignored_options("exactly as in the reference run")
        );
    }
    let (cached, stored) = (scorer.reference_cached(), scorer.reference_stored());
    println!(
        "{}",
        report::reference_line(&args.reference, cached, stored)
    );
    if let Some(warning) = report::no_node_counts(&score.objective) {
        eprintln!("{warning}");
    }
    println!("{}", report::summary(score));
    let faults = report::faults(score);
    if !faults.is_empty() {
        println!("{faults}");
    }
    if args.verbose {
        println!("{}", report::positions(&score.positions));
    }
    let on = if args.executor.is_slurm() {
        "Slurm".to_string()
    } else {
        format!("{threads} thread(s)")
    };
    println!("{}", report::speed(n, elapsed, &on, measured.kept));
    if let Some(path) = &args.json {
        println!("report written to {}", path.display());
    }
    // An engine that faulted on every search gave nothing to score: the figures above are not
    // an objective of the set, and the command fails (the faults are listed above).
    let results = score.positions.iter().map(|p| &p.result);
    if let Some(why) = marginal::scoring::suite::nothing_searched(&def, "the suite", results) {
        return Err(UserError(why).into());
    }
    Ok(())
}

/// Writes the `--json` report, if asked, in one step.
fn write_report(args: &SuiteArgs, measured: &measure::Measured, threads: usize) -> Result<()> {
    let Some(path) = &args.json else {
        return Ok(());
    };
    let (score, elapsed) = (&measured.score, measured.elapsed);
    let n = score.positions.len() - measured.kept;
    let report = Report {
        score,
        run: RunReport {
            margins_label: &args.margins,
            reference_label: &args.reference,
            reference_cached: measured.scorer.reference_cached(),
            threads,
            elapsed_seconds: elapsed,
            positions_per_second: n as f64 / elapsed.max(1e-9),
        },
    };
    let text = serde_json::to_string_pretty(&report)?;
    marginal::formats::write_atomic(path, (text + "\n").as_bytes())
        .with_context(|| format!("cannot write JSON report {}", path.display()))
}

/// `--json OUT` is none of the inputs (suites, margin files, engine file) and may be written.
fn check_json_output(args: &SuiteArgs) -> Result<(), UserError> {
    let Some(out) = &args.json else {
        super::idle_force(args.force, "--json");
        return Ok(());
    };
    let files = args.files.iter().map(|f| ("the suite", f.as_path()));
    let specs = [
        ("--margins", &args.margins),
        ("--reference", &args.reference),
    ];
    let specs = (specs.into_iter()).map(|(what, spec)| (what, std::path::Path::new(spec.as_str())));
    let engine = (args.engine.engine.iter()).map(|e| ("--engine", e.as_path()));
    let inputs: Vec<(&str, &std::path::Path)> = (files.chain(specs.filter(|(_, p)| p.is_file())))
        .chain(engine)
        .collect();
    not_an_input(out, "--json", &inputs)?;
    super::fresh_json_output(out, "--json", args.force)
}

/// The reference run, then the set's ([`measure::measure`]), with a progress bar.
fn measure(
    args: &SuiteArgs,
    def: &EngineDef,
    suites: LoadedSuites,
    options: ScorerOptions,
    margins: &Setting,
    printer: Printer,
) -> Result<measure::Measured> {
    let bar = printer.bar(
        suites.positions.len() as u64,
        "{msg:>10} [{bar:40}] {pos}/{len} {per_sec} eta {eta}",
    );
    if args.executor.is_slurm() {
        // The cluster reports by job array, not by position.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let kept = measure::kept(&suites, &options, margins);
    for line in &kept.said {
        eprintln!("{line}");
    }
    let observer: Shared = Arc::new(PositionsBar::new(&bar, Some((kept.reference, kept.set))));
    let measured = measure::measure(def, (suites, options), margins, Some(observer), || {
        bar.reset()
    });
    bar.finish_and_clear();
    measured.map_err(|e| match e {
        measure::MeasureError::Exec(e) => exec_error(e),
        measure::MeasureError::NothingSearched(m) => UserError(m).into(),
    })
}

/// Before the work: says when the reference searches with the set's own values (the speed
/// part is then 0 by construction), and, run locally, ends an interrupted suite with exit 130
/// and what it keeps.
fn say_and_watch(
    args: &SuiteArgs,
    def: &EngineDef,
    options: &ScorerOptions,
    margins: &Setting,
) -> Result<()> {
    if options.reference.uci_options() == margins.uci_options() {
        eprintln!("{}", report::same_as_reference(&args.reference, def));
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
