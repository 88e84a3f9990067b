use anyhow::Result;
use clap::{Parser, Subcommand};

use marginal::engine::{bench, Margins};

#[derive(Parser)]
#[command(
    name = "marginal",
    version,
    about = "Tunes the pruning margins of a chess engine's search"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Searches the built-in bench positions; the total node count is the engine's signature.
    Bench {
        /// Search depth, plies.
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH)]
        depth: u32,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench { depth } => {
            let totals = bench::run(depth, Margins::default(), 16, |line| {
                println!(
                    "{:>2} {:>10} nodes {:>6} cp {}",
                    line.index + 1,
                    line.result.nodes,
                    line.result.score,
                    line.fen
                );
            });
            println!("{} nodes {} nps", totals.nodes, totals.nps());
        }
    }
    Ok(())
}
