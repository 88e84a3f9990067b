//! The engine: positions and margins in, best move, score, PV and counts out.
//!
//! It knows nothing of tuning: scoring and optimizers call [`search::Searcher`] with a
//! [`params::Margins`] value and read a [`search::SearchResult`].

pub mod bench;
pub mod board;
pub mod eval;
pub mod ordering;
pub mod params;
pub mod perft;
pub mod search;
pub mod tt;

pub use board::Board;
pub use params::{Margins, PARAMS, ParamKind, ParamSpec};
pub use search::{Limits, PruneStats, SearchResult, Searcher};
