//! Draws the search scores: the fifty-move rule and repetitions (one repetition within the
//! reversible moves counts), and the null-move marker in the key history.

use shakmaty::{Move, Position};

use super::{Board, Searcher};

/// Stands for a null move in the key history: two null moves in a row are refused, and no real
/// position's key is expected to equal it.
pub(super) const NULL_KEY: u64 = 0;

impl Searcher {
    /// Is the node a draw: the fifty-move rule (unless the side to move is mated right now) or
    /// a repetition? Never asked at the root, which must return a move.
    #[inline]
    pub(super) fn is_draw(&self, board: &Board, in_check: bool) -> bool {
        let pos = board.pos();
        (pos.halfmoves() >= 100 && !(in_check && pos.legal_moves().is_empty()))
            || self.is_repetition(board.hash(), pos.halfmoves())
    }

    /// Has the position at the top of the search path occurred before with the same side to
    /// move, within the reversible moves? (One repetition counts as a draw in the search.)
    #[inline]
    pub(super) fn is_repetition(&self, key: u64, halfmoves: u32) -> bool {
        let n = self.keys.len();
        let reach = (halfmoves as usize).min(n);
        // keys[n-1] is the parent; same side to move are n-2, n-4, ...; n-2 cannot repeat.
        let mut back = 4;
        while back <= reach {
            if self.keys[n - back] == key {
                return true;
            }
            back += 2;
        }
        false
    }

    /// Could the move `m` from `board` reach a position scored as a draw (repetition or the
    /// fifty-move rule)? Used so that futility pruning never skips a draw that beats alpha.
    pub(super) fn move_may_draw(&self, board: &Board, m: Move) -> bool {
        if m.is_zeroing() {
            return false;
        }
        let halfmoves = board.pos().halfmoves() + 1;
        if halfmoves >= 100 {
            return true;
        }
        // A move that changes castling rights can never repeat an earlier position. The child
        // sits one past the top of `keys` (the current node), exactly where `is_repetition`
        // looks from.
        board
            .key_after_reversible(m)
            .is_some_and(|key| self.is_repetition(key, halfmoves))
    }
}
