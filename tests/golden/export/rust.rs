//! Pruning margins exported by `marginal export` on 2024-02-29 from tests/golden/export/tuned.json.
//! Tuned by marginal 0.1.0: spsa on the suite objective, seed 1, 16 iterations, run 0d83cb0f9de2e57e.
//! Engine: search signature b7e64e6b5a8a1283, bench 5710118 nodes.
//! Rows: the 4 tuned, in table order.
//!
//! Use it as a module: `mod margins;` (or `#[path = "..."] mod margins;`).

/// Frontier futility margin, eval units (seed: 125).
///
/// Tuned from 125 within 0..=1500.
pub const FUTILITY_MARGIN: i32 = 130;

/// Extended futility margin, eval units (seed: 500, about a rook).
///
/// Tuned from 500 within 0..=3000.
pub const EXT_FUTILITY_MARGIN: i32 = 460;

/// Razoring margin, eval units (seed: about a queen).
///
/// Tuned from 980 within 0..=4000.
pub const RAZOR_MARGIN: i32 = 989;

/// Delta margin, eval units (seed: 200).
///
/// Tuned from 200 within 0..=1500.
pub const DELTA_MARGIN: i32 = 188;
