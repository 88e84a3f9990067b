//! The engine: positions and margins in, best move, score, PV and counts out.
//!
//! It knows nothing of tuning: scoring and optimizers call [`search::Searcher`] with a
//! [`crate::params::Margins`] value and read a [`search::SearchResult`].

pub mod bench;
pub mod board;
pub mod eval;
pub mod external;
pub mod ordering;
pub mod perft;
pub mod score;
pub mod search;
mod sets;
pub mod setting;
pub mod technique;
pub mod tt;

pub use board::Board;

/// Default transposition table size, megabytes (UCI `Hash`, `marginal bench --hash`).
pub const DEFAULT_HASH_MB: usize = 16;

/// The largest transposition table a command or the `Hash` option accepts, megabytes.
pub const MAX_HASH_MB: usize = 16_384;

/// The deepest fixed-depth search a command accepts, plies (the search itself stops at
/// `MAX_PLY - 8`).
pub const MAX_DEPTH: u32 = 100;
pub use search::{Limits, SearchResult, Searcher};
pub use setting::{EngineDef, Searched, Setting, Worker};
pub use technique::{PruneStats, Technique};
