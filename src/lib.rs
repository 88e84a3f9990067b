//! marginal: tunes the pruning margins of a chess engine's search.
//!
//! Data flows one way: positions and margins go into the [`engine`] (a deterministic
//! alpha-beta search with every seed pruning technique behind tunable margins); its results go
//! into scoring; scores go into optimizers; the optimizer's result goes out as tuned files and
//! exports. The engine knows nothing of tuning.

pub mod calibrate;
pub mod check;
pub mod engine;
pub mod export;
pub mod formats;
pub mod margin_spec;
pub mod params;
pub mod progress;
pub mod scoring;
pub mod tune;
pub mod uci;
