//! Tuning: search the margin space for sets that score better, on positions and games they were
//! not tuned on. The objective is an argmin `CostFunction` over the scoring layer; the solvers
//! (SPSA, written here as an argmin `Solver`, and argmin's Nelder-Mead and particle swarm) know
//! nothing of chess.

pub mod cost;
pub mod space;
pub mod spsa;
