//! Scoring a margin set: EPD test suites (speed against accuracy) and, later, games.
//!
//! Scoring calls the engine and knows nothing of optimizers.

pub mod epd;
