//! Scoring a margin set: EPD test suites (speed against accuracy) and self-play games
//! (strength, with the pentanomial model and an SPRT).
//!
//! Scoring calls the engine and knows nothing of optimizers: an optimizer sees a margin set go
//! in and an objective or match statistics come out.

pub mod cache;
pub mod epd;
pub mod game;
pub mod matches;
pub mod objective;
pub mod openings;
pub mod pgn;
pub mod stats;
pub mod suite;
