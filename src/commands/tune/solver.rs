//! `marginal tune --solver`: the solver as the command line names it.

use marginal::tune::plan::SolverKind;

/// `--solver`: which solver walks the space (the library's [`SolverKind`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverArg {
    /// The default: a global screen over the whole bounds, a local refinement and a race in
    /// games among the finalists (`marginal::tune::race`).
    Race,
    /// SPSA with OpenBench's schedule; the result is the final iterate.
    Spsa,
    /// argmin's Nelder-Mead from a simplex around the defaults; the result is the best vertex.
    NelderMead,
    /// argmin's particle swarm over the bounds; the result is the best particle.
    Pso,
}

impl From<SolverArg> for SolverKind {
    fn from(arg: SolverArg) -> SolverKind {
        match arg {
            SolverArg::Race => SolverKind::Race,
            SolverArg::Spsa => SolverKind::Spsa,
            SolverArg::NelderMead => SolverKind::NelderMead,
            SolverArg::Pso => SolverKind::Pso,
        }
    }
}
