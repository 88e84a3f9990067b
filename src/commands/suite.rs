//! `marginal suite`: scores a margin set on EPD suites against a reference run.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use marginal::engine::PruneStats;
use marginal::scoring::cache::{self, LoadedSuites, default_cache_dir, load_suites};
use marginal::scoring::objective::{self, Objective, ObjectiveParams};
use marginal::scoring::suite::{self, PositionResult, RunConfig, SuiteLimit, engine_signature};
use marginal::tuned;
use serde::Serialize;

use super::{UserError, margins_from};

/// Arguments of `marginal suite`.
#[derive(Args)]
pub struct SuiteArgs {
    /// EPD suite files (e.g. data/suites/wac.epd).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Margin set to score: a built-in name (default, off, sound), a tuned .json file, or
    /// name=value assignments.
    #[arg(long, default_value = "default")]
    margins: String,
    /// Override one parameter (repeatable), e.g. --set frontier=150.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Fixed search depth per position, plies (default 8 when --nodes is not given).
    #[arg(long, conflicts_with = "nodes")]
    depth: Option<u32>,
    /// Fixed node budget per position.
    #[arg(long)]
    nodes: Option<u64>,
    /// Reference run: `off` (no pruning), another built-in set, a tuned file or assignments.
    #[arg(long, default_value = "off")]
    reference: String,
    /// Worker threads (default: all cores). Results are identical for any count.
    #[arg(long)]
    threads: Option<usize>,
    /// Write a JSON report with every per-position result.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Make any bad EPD line fatal (exit 2).
    #[arg(long)]
    strict: bool,
    /// Objective weight: accuracy points per halving of the node count.
    #[arg(long, default_value_t = objective::DEFAULT_WEIGHT)]
    weight: f64,
    /// Objective: share of a solution's credit that depends on how early it was found.
    #[arg(long, default_value_t = objective::DEFAULT_EARLY)]
    early: f64,
    /// Transposition table per search, megabytes.
    #[arg(long, default_value_t = RunConfig::default().hash_mb)]
    hash: usize,
    /// Where cached reference runs live (default $MARGINAL_CACHE_DIR or .marginal-cache).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Do not read or write the reference cache.
    #[arg(long)]
    no_cache: bool,
    /// Also print one line per position.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    marginal: &'static str,
    engine_signature: String,
    suites: Vec<SuiteReport<'a>>,
    limit: SuiteLimit,
    hash_mb: usize,
    threads: usize,
    margins: serde_json::Map<String, serde_json::Value>,
    reference: ReferenceReport,
    objective_params: ObjectiveParams,
    objective: Objective,
    prunes: PruneStats,
    positions: Vec<PositionReport<'a>>,
    elapsed_seconds: f64,
    positions_per_second: f64,
}

#[derive(Serialize)]
struct SuiteReport<'a> {
    path: &'a str,
    positions: usize,
    skipped: &'a [marginal::scoring::epd::SkippedLine],
    objective: Objective,
}

#[derive(Serialize)]
struct ReferenceReport {
    label: String,
    margins: serde_json::Map<String, serde_json::Value>,
    cached: bool,
}

#[derive(Serialize)]
struct PositionReport<'a> {
    #[serde(flatten)]
    result: &'a PositionResult,
    reference_best_move: Option<&'a str>,
    reference_nodes: u64,
    reference_score: i32,
}

fn progress(len: usize, what: &str) -> ProgressBar {
    if !(std::io::stdout().is_terminal() && std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Runs the command.
pub fn run(args: SuiteArgs) -> Result<()> {
    let margins = margins_from(&args.margins, &args.set)?;
    let reference_margins = tuned::resolve(&args.reference).map_err(UserError::from)?;
    let limit = match (args.depth, args.nodes) {
        (_, Some(n)) => SuiteLimit::Nodes(n.max(1)),
        (Some(d), None) => SuiteLimit::Depth(d.clamp(1, 100)),
        (None, None) => SuiteLimit::Depth(8),
    };
    let config = RunConfig {
        limit,
        hash_mb: args.hash,
    };
    let params = ObjectiveParams {
        weight: args.weight,
        early: args.early.clamp(0.0, 1.0),
    };
    let suites = load_suites(&args.files, args.strict).map_err(UserError::from)?;
    for bad in suites.skipped() {
        eprintln!("{bad}");
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    let cache_dir =
        (!args.no_cache).then(|| args.cache_dir.clone().unwrap_or_else(default_cache_dir));

    let n = suites.positions.len();
    let bar = progress(n, "reference");
    let (reference, cached) = pool.install(|| {
        cache::reference_run(
            &suites,
            &reference_margins,
            &config,
            cache_dir.as_deref(),
            &|| bar.inc(1),
        )
    });
    bar.finish_and_clear();

    let bar = progress(n, "candidate");
    let start = Instant::now();
    let hint = suite::costs(&reference);
    let results = pool.install(|| {
        suite::run(&suites.positions, &margins, &config, Some(&hint), &|| {
            bar.inc(1)
        })
    });
    let elapsed = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let total = objective::evaluate(&results, &reference, &params);
    let mut prunes = PruneStats::default();
    for r in &results {
        prunes.add(&r.prunes);
    }
    let per_suite = per_suite(&suites, &results, &reference, &params);
    let skipped = suites.skipped().count();

    print_summary(
        &args, &suites, &config, cached, &per_suite, &total, &prunes, skipped,
    );
    if args.verbose {
        print_positions(&results, &reference);
    }
    let rate = n as f64 / elapsed.max(1e-9);
    println!("{n} positions in {elapsed:.2} s: {rate:.1} positions/s on {threads} thread(s)");

    if let Some(path) = &args.json {
        let report = Report {
            marginal: env!("CARGO_PKG_VERSION"),
            engine_signature: format!("{:016x}", engine_signature()),
            suites: suites
                .files
                .iter()
                .zip(&per_suite)
                .map(|(f, (_, o))| SuiteReport {
                    path: &f.path,
                    positions: f.positions,
                    skipped: &f.skipped,
                    objective: *o,
                })
                .collect(),
            limit,
            hash_mb: config.hash_mb,
            threads,
            margins: tuned::margins_json(&margins),
            reference: ReferenceReport {
                label: args.reference.clone(),
                margins: tuned::margins_json(&reference_margins),
                cached,
            },
            objective_params: params,
            objective: total,
            prunes,
            positions: results
                .iter()
                .zip(&reference)
                .map(|(r, b)| PositionReport {
                    result: r,
                    reference_best_move: b.best_move.as_deref(),
                    reference_nodes: b.nodes,
                    reference_score: b.score,
                })
                .collect(),
            elapsed_seconds: elapsed,
            positions_per_second: rate,
        };
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write JSON report {}", path.display()))?;
        println!("report written to {}", path.display());
    }
    Ok(())
}

/// The objective of each suite file on its own.
fn per_suite(
    suites: &LoadedSuites,
    results: &[PositionResult],
    reference: &[PositionResult],
    params: &ObjectiveParams,
) -> Vec<(String, Objective)> {
    let mut out = Vec::new();
    let mut start = 0;
    for f in &suites.files {
        let end = start + f.positions;
        out.push((
            f.path.clone(),
            objective::evaluate(&results[start..end], &reference[start..end], params),
        ));
        start = end;
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn print_summary(
    args: &SuiteArgs,
    suites: &LoadedSuites,
    config: &RunConfig,
    cached: bool,
    per_suite: &[(String, Objective)],
    total: &Objective,
    prunes: &PruneStats,
    skipped: usize,
) {
    println!(
        "marginal suite: {} positions from {} file(s) at {}, margins '{}', reference '{}'{}",
        suites.positions.len(),
        suites.files.len(),
        config.limit,
        args.margins,
        args.reference,
        if cached { " (cached)" } else { "" }
    );
    if skipped > 0 {
        println!("{skipped} bad line(s) skipped (listed on stderr)");
    }
    println!();
    let width = per_suite
        .iter()
        .map(|(p, _)| p.len())
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
    for (name, o) in per_suite {
        row(name, o);
    }
    if per_suite.len() > 1 {
        row("total", total);
    }
    println!();
    println!(
        "objective {:.3} = accuracy {:.3} + {} x speed {:.3}",
        total.value, total.accuracy, args.weight, total.speed
    );
    println!(
        "  accuracy: solution credit in % (early share {}); speed: mean doublings saved against the reference",
        args.early
    );
    println!("pruned: {prunes}");
}

fn print_positions(results: &[PositionResult], reference: &[PositionResult]) {
    println!();
    println!(
        "{:<28} {:<6} {:>6} {:>7} {:>10} {:>10} {:>10} {:<6}",
        "position", "move", "solved", "score", "nodes", "found at", "ref nodes", "ref"
    );
    for (r, b) in results.iter().zip(reference) {
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
            b.nodes,
            b.best_move.as_deref().unwrap_or("-")
        );
    }
}
