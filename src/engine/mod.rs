//! The engine: positions and margins in, best move, score, PV and counts out.
//!
//! It knows nothing of tuning: scoring and optimizers call [`search::Searcher`] with a
//! [`crate::params::Margins`] value and read a [`search::SearchResult`].

pub mod bench;
pub mod board;
pub mod eval;
pub mod ordering;
pub mod perft;
pub mod search;
mod sets;
pub mod technique;
pub mod tt;

pub use board::Board;

/// Default transposition table size, megabytes (UCI `Hash`, `marginal bench --hash`).
pub const DEFAULT_HASH_MB: usize = 16;

/// A move in UCI notation (`e2e4`, `e7e8q`, castling as king to its destination).
pub fn uci(m: shakmaty::Move) -> String {
    shakmaty::uci::UciMove::from_move(m, shakmaty::CastlingMode::Standard).to_string()
}
pub use search::{Limits, SearchResult, Searcher};
pub use technique::{PruneStats, Technique};
