//! Scores and the ply limit, a leaf every part of the engine imports (the search, move
//! ordering, the transposition table, external engines' mate scores) without importing each
//! other.

/// Deepest ply the search reaches (extensions included).
pub const MAX_PLY: usize = 128;
/// Score of being mated at the root; a mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this (in absolute value) are mate scores ("near a mate score").
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
/// Larger than any score.
pub const INFINITY: i32 = MATE + 1;
/// Score of a draw.
pub const DRAW: i32 = 0;

/// Is `score` a mate score? Returns the signed number of moves to mate (positive: the side to
/// move mates).
pub fn mate_in(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}
