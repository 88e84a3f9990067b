//! Scoring a margin set in games: one game between two players (the rules, adjudication,
//! clocks), self-play matches of game pairs, their statistics (pentanomial Elo, normalized
//! Elo, LOS, SPRT) and PGN output; the pairs of a match can be played through an executor (a
//! cluster, [`remote`]).

pub mod game;
pub mod matches;
pub mod pgn;
pub mod plan;
pub mod record;
pub mod remote;
pub mod session;
pub mod spec;
pub mod stats;
pub mod summary;
