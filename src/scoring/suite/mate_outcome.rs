//! How one search's score compares with a mate record's known distance: the verdict both a
//! run (is the position solved?) and the mate tally of a run ([`super::mate`]) use. A leaf of
//! its own, so that the run and the tally need not import each other.

use crate::engine::score::mate_in;

/// How one search's score compares with a mate record's known distance `n` (moves; positive:
/// the side to move mates, negative: it is mated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MateOutcome {
    /// A mate score for the right side at exactly |n| moves.
    Exact,
    /// A mate score for the right side, longer than |n| moves: for n > 0 a slower mate than
    /// the best, for n < 0 a longer defence than the best play allows.
    Longer,
    /// A mate score for the wrong side, or shorter than |n| moves: impossible, so a pruning
    /// bug or a hash artefact.
    Wrong,
    /// No mate score (or no score: an external engine's fault).
    Missed,
}

impl MateOutcome {
    /// Compares `score` (eval units, the side to move's view; `None` for no score) with the
    /// known mate distance `mate` (moves, nonzero).
    pub fn of(mate: i32, score: Option<i32>) -> MateOutcome {
        let Some(found) = score.and_then(mate_in) else {
            return MateOutcome::Missed;
        };
        if found.signum() != mate.signum() || found.abs() < mate.abs() {
            MateOutcome::Wrong
        } else if found == mate {
            MateOutcome::Exact
        } else {
            MateOutcome::Longer
        }
    }

    /// Whether the position counts as solved: for n > 0 the mate in exactly n (a longer mate
    /// is not the solution, a shorter one is impossible); for n < 0 seeing itself mated, in
    /// |n| moves or later (the engine may find a longer defence than the known one).
    pub fn solved(self, mate: i32) -> bool {
        match self {
            MateOutcome::Exact => true,
            MateOutcome::Longer => mate < 0,
            MateOutcome::Wrong | MateOutcome::Missed => false,
        }
    }
}
