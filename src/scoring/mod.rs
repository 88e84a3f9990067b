//! Scoring a margin set: EPD test suites (speed against accuracy) and games.
//!
//! Scoring calls the engine and knows nothing of optimizers: an optimizer sees a margin set go
//! in and an [`objective::Objective`] come out.

pub mod cache;
pub mod epd;
pub mod objective;
pub mod suite;
