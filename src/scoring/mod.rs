//! Scoring a margin set: on EPD test suites (speed against accuracy, [`suite`]) and in
//! self-play games (strength, with the pentanomial model and an SPRT, [`games`]).
//!
//! Scoring calls the engine and knows nothing of optimizers: an optimizer sees a margin set go
//! in and an objective or match statistics come out.

pub mod cheap;
pub mod exec;
pub mod games;
pub mod paired;
pub mod quality;
pub mod suite;
