//! Quiescence search: at the horizon, only captures and queen or knight promotions (every
//! evasion when in check) until the position is quiet, so that no score rests on a hanging
//! piece.

use shakmaty::{Position, Role};

use super::pruning::Verdict;
use super::{Board, DRAW, INFINITY, MATE, MAX_PLY, Searcher};
use crate::engine::eval::value;
use crate::engine::ordering;

impl Searcher {
    /// Quiescence search: captures and promotions, or every evasion when in check. Returns a
    /// fail-soft score from the side to move's point of view (0 once the search is stopped).
    pub(super) fn qsearch(&mut self, board: &Board, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        // Step 19. Limits, then the node counts; the ply cap.
        self.pv_len[ply] = 0;
        if self.check_limits() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        let pos = board.pos();
        let in_check = pos.is_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { board.eval() };
        }

        // Step 20. In check, every evasion (none is mate); otherwise the side to move may
        // stand pat, and only captures and queen or knight promotions are tried.
        let mut moves = pos.legal_moves();
        let mut best;
        let stand_pat;
        let mut delta_on = false;
        if in_check {
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            best = -INFINITY;
            stand_pat = -INFINITY;
        } else {
            stand_pat = board.eval();
            if stand_pat >= beta {
                return stand_pat;
            }
            delta_on = self.delta_pruning_on(board);
            // Step 21. Delta pruning, node exit.
            if let Verdict::Cut(score) = self.delta_node(board, delta_on, stand_pat, alpha) {
                return score;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            moves.retain(|mv| {
                mv.is_capture() || matches!(mv.promotion(), Some(Role::Queen | Role::Knight))
            });
        }

        let count = moves.len();
        let mut scores = ordering::score_tactical(&moves);
        for index in 0..count {
            let mv = ordering::pick(&mut moves[..count], &mut scores, index);
            if !in_check {
                // Step 22. Delta pruning per capture: skip it, keeping the most it could score.
                if let Verdict::Cut(bound) = self.delta_capture(mv, delta_on, stand_pat, alpha) {
                    best = best.max(bound);
                    continue;
                }
                // Step 23. Losing captures (by static exchange) cannot help a side that may
                // stand pat.
                if mv.capture().is_some_and(|v| value(v) < value(mv.role()))
                    && ordering::see(pos.board(), board.turn(), mv) < 0
                {
                    continue;
                }
            }
            let child = board.play(mv);
            let score = -self.qsearch(&child, ply + 1, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
