//! The `marginal` command line.

mod commands;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use commands::{UserError, margins_from};
use marginal::engine::{DEFAULT_HASH_MB, bench};
use marginal::formats::uci_move;
use marginal::params::{self, PARAMS};

#[derive(Parser)]
#[command(
    name = "marginal",
    version,
    about = "Tunes the pruning margins (futility, extended futility, razoring, delta) of a chess engine's search"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Scores a margin set on EPD suites: speed (nodes) against accuracy (solutions).
    Suite(commands::suite::SuiteArgs),
    /// Plays margin set against margin set: game pairs, pentanomial Elo, SPRT.
    Match(commands::match_cmd::MatchArgs),
    /// Tunes margins with SPSA on EPD suites and judges the result on held-out positions.
    Tune(commands::tune::TuneArgs),
    /// Writes a tuned file as JSON, TOML, Rust, C, UCI setoption lines, or OpenBench/fishtest SPSA input.
    Export(commands::export::ExportArgs),
    /// Draws a tuned file's SVG (objective and margins across iterations, Pareto front) again.
    Plot {
        /// The tuned file (`marginal-tuned/1`); the SVG is written beside it.
        file: std::path::PathBuf,
    },
    /// Re-measures a tuned file's set against its record and the defaults: exit 0 it holds,
    /// 1 it regressed, 2 unusable input (for an engine's CI).
    Check(commands::check::CheckArgs),
    /// Searches the built-in bench positions; the total node count is the engine's signature.
    Bench {
        /// Search depth, plies.
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Margin set: a built-in name (default, off, sound), a tuned .json file, or
        /// name=value assignments.
        #[arg(long, default_value = "default")]
        margins: String,
        /// Transposition table size, megabytes (0 disables it).
        #[arg(long, default_value_t = DEFAULT_HASH_MB)]
        hash: usize,
    },
    /// Speaks the UCI protocol on standard input/output (for GUIs, cutechess, fastchess).
    Uci,
    /// Lists every margin and switch with its default and range.
    Params {
        /// Print a Markdown table (as in the README).
        #[arg(long)]
        markdown: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<UserError>().is_some() {
                ExitCode::from(2)
            } else if e
                .downcast_ref::<commands::match_cmd::Interrupted>()
                .is_some()
            {
                ExitCode::from(commands::match_cmd::INTERRUPTED_STATUS)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Suite(args) => commands::suite::run(args)?,
        Command::Match(args) => commands::match_cmd::run(args)?,
        Command::Tune(args) => commands::tune::run(args)?,
        Command::Check(args) => commands::check::run(args)?,
        Command::Export(args) => commands::export::run(args)?,
        Command::Plot { file } => commands::tune::plot(&file)?,
        Command::Bench {
            depth,
            margins,
            hash,
        } => {
            let margins = margins_from(&margins, &[])?;
            let totals = bench::run(depth, margins, hash, |line| {
                let r = &line.result;
                let best = r.best_move.map_or_else(|| "(none)".to_string(), uci_move);
                println!(
                    "{:>2} {:<6} {:>7} {:>10} nodes  {}",
                    line.index + 1,
                    best,
                    r.score,
                    r.nodes,
                    line.fen
                );
            });
            println!("{} nodes {} nps", totals.nodes, totals.nps());
        }
        Command::Uci => {
            let mut engine = marginal::uci::UciEngine::new(Box::new(std::io::stdout()));
            engine.run(std::io::stdin().lock());
        }
        Command::Params { markdown } => {
            if markdown {
                print!("{}", params::markdown_table());
            } else {
                for p in PARAMS {
                    println!(
                        "{:<24} {:<22} default {:>5}  range {}..{}",
                        p.name, p.uci_name, p.default, p.min, p.max
                    );
                }
            }
        }
    }
    Ok(())
}
