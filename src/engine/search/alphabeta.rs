//! The alpha-beta node, read as its sequence of steps (numbered as in the module docs). Every
//! pruning technique is a call into `pruning.rs`; this file only does what they answer.

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Position};

use super::node::{Node, NodeType, NonPv, Pv, may_prune};
use super::pruning::Verdict;
use super::{Board, DRAW, INFINITY, MATE, MAX_PLY, Searcher};
use crate::engine::ordering;
use crate::engine::tt::{Bound, PackedMove, TtHit};

/// A move's child node, ready to be searched.
#[derive(Clone, Copy)]
struct Child<'a> {
    board: &'a Board,
    /// Its distance from the root, plies.
    ply: usize,
    /// Remaining depth after the move, the check extension included, plies.
    depth: i32,
    /// The move into it was extended.
    extended: bool,
}

impl Searcher {
    /// The alpha-beta search proper, at a node of kind `N` (root, PV or non-PV, fixed at
    /// compile time). `depth` is the remaining depth in plies, `ply` the distance from the
    /// root; `extended` is true when the move into this node was extended. Returns a
    /// fail-soft score from the side to move's point of view (0 once the search is stopped).
    pub(super) fn alpha_beta<N: NodeType>(
        &mut self,
        board: &Board,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        extended: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        let in_check = board.pos().is_check();

        if !N::ROOT {
            // Step 1. Draws: the fifty-move rule and repetitions.
            if self.is_draw(board, in_check) {
                return DRAW;
            }
            // Step 2. Mate-distance pruning: no line from here can beat a faster mate.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        // Step 3. Horizon: quiescence settles the captures.
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.qsearch(board, ply, alpha, beta);
        }
        // Step 4. Limits, then the node counts.
        if self.check_limits() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);

        // Step 5. Transposition table: cut only at non-PV nodes, so a PV is never cut short.
        let hit = self.tt.probe(board.hash(), ply);
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.mv);
        if !N::PV
            && let Some(score) = tt_cutoff(hit, depth, alpha, beta)
        {
            return score;
        }

        // Step 6. Static evaluation (none in check), and the guards every technique shares.
        let eval = if in_check {
            -INFINITY
        } else {
            hit.map_or_else(|| board.eval(), |h| h.eval)
        };
        let mut node = Node {
            board,
            ply,
            depth,
            eval,
            in_check,
            extended,
            may_prune: may_prune::<N>(in_check, alpha, beta),
        };

        // Steps 7-10. Node-level pruning: cut the node, or reduce it.
        if let Verdict::Cut(score) = self.deep_futility::<N>(&node, alpha) {
            return score;
        }
        if let Verdict::Reduce(plies) = self.razoring::<N>(&node, alpha) {
            node.depth -= plies;
        }
        if let Verdict::Cut(score) = self.null_move::<N>(&node, beta) {
            return score;
        }
        if let Verdict::Cut(score) = self.futile_node::<N>(&node, alpha, beta) {
            return score;
        }

        // Step 11. Move generation: with no legal move, the node is mate or stalemate.
        let mut moves = board.pos().legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        // Steps 12-17. The moves, best first.
        let Some((best, best_move)) =
            self.search_moves::<N>(&node, &mut moves, tt_move, alpha, beta)
        else {
            return 0; // Stopped: the search is unwinding.
        };

        // Step 18. Transposition table store.
        let bound = if best >= beta {
            Bound::Lower
        } else if N::PV && best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_eval = if in_check { 0 } else { eval };
        self.tt.store(
            board.hash(),
            ply,
            best_move.map_or(PackedMove::NONE, PackedMove::new),
            best,
            stored_eval,
            node.depth,
            bound,
        );
        best
    }

    /// Steps 12-17: searches the moves of `node` (legal, at least one) best first, inside the
    /// window `(alpha, beta)`. Returns the best score (fail-soft) and the move that raised
    /// alpha last, if any; `None` when the search was stopped.
    fn search_moves<N: NodeType>(
        &mut self,
        node: &Node,
        moves: &mut MoveList,
        tt_move: PackedMove,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, Option<Move>)> {
        let Node {
            board, ply, depth, ..
        } = *node;
        let us = board.turn();
        let mut scores = ordering::score_moves(
            moves,
            board.pos().board(),
            us,
            tt_move,
            &self.heuristics,
            ply,
        );

        // Steps 12-13 test each move against a margin this node fixes once.
        let futility = self
            .frontier_futility::<N>(node)
            .or_else(|| self.extended_futility(node));

        self.keys.push(board.hash());
        let mut best = -INFINITY;
        let mut best_move: Option<Move> = None;
        let mut searched = 0usize;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let count = moves.len();

        for index in 0..count {
            let mv = ordering::pick(&mut moves[..count], &mut scores, index);
            let quiet = !mv.is_capture() && !mv.is_promotion();

            // Steps 12-14. Move-level pruning: skip the move, keeping the most it could score
            // (frontier or extended futility, then late move pruning).
            if let Some(futility) = futility
                && let Verdict::Cut(bound) = self.futile_move(node, futility, mv, alpha)
            {
                best = best.max(bound);
                continue;
            }
            if let Verdict::Cut(bound) =
                self.late_move_pruning::<N>(node, mv, quiet, searched, best)
            {
                best = best.max(bound);
                continue;
            }

            let child = board.play(mv);
            let gives_check = child.pos().is_check();
            // Step 15. Check extension, bounded so a checking sequence cannot run away.
            let extension = i32::from(gives_check && ply < 2 * self.root_depth as usize + 8);
            let child = Child {
                board: &child,
                ply: ply + 1,
                depth: depth - 1 + extension,
                extended: extension > 0,
            };

            // Step 16. Principal variation search, with late move reductions.
            let score = if searched == 0 {
                self.search_first::<N>(&child, alpha, beta)
            } else {
                let reduction = match self.late_move_reduction::<N>(
                    node,
                    mv,
                    quiet,
                    gives_check,
                    searched,
                    child.depth,
                ) {
                    Verdict::Reduce(plies) => plies,
                    _ => 0,
                };
                self.search_late::<N>(&child, reduction, alpha, beta)
            };
            searched += 1;
            if self.stopped {
                self.keys.pop();
                return None;
            }

            // Step 17. A new best move: the PV, the root's best move; a beta cut-off, where a
            // quiet move earns its killer and history bonus.
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if N::PV {
                        self.update_pv(ply, mv);
                    }
                    if N::ROOT && self.root_best != Some(mv) {
                        self.root_best = Some(mv);
                        self.root_best_nodes = self.nodes;
                    }
                    if alpha >= beta {
                        if quiet {
                            self.heuristics
                                .reward_quiet(us, ply, mv, depth, &quiets_tried);
                        }
                        break;
                    }
                }
            }
            if quiet && !quiets_tried.is_full() {
                quiets_tried.push(mv);
            }
        }
        self.keys.pop();
        Some((best, best_move))
    }

    /// The first move: the full window, and a child of the same kind (a PV node's first child
    /// is the next PV node).
    #[inline]
    fn search_first<N: NodeType>(&mut self, child: &Child, alpha: i32, beta: i32) -> i32 {
        let Child {
            board,
            ply,
            depth,
            extended,
        } = *child;
        if N::PV {
            -self.alpha_beta::<Pv>(board, depth, ply, -beta, -alpha, extended)
        } else {
            -self.alpha_beta::<NonPv>(board, depth, ply, -beta, -alpha, extended)
        }
    }

    /// A later move: a null window at alpha, `reduction` plies shallower (late move
    /// reductions); if it beats alpha, again at full depth; at a PV node, if it lands inside
    /// the window, again with the full window as the next PV node.
    #[inline]
    fn search_late<N: NodeType>(
        &mut self,
        child: &Child,
        reduction: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let Child {
            board,
            ply,
            depth,
            extended,
        } = *child;
        let mut score =
            -self.alpha_beta::<NonPv>(board, depth - reduction, ply, -alpha - 1, -alpha, extended);
        if score > alpha && reduction > 0 {
            score = -self.alpha_beta::<NonPv>(board, depth, ply, -alpha - 1, -alpha, extended);
        }
        if N::PV && score > alpha && score < beta {
            score = -self.alpha_beta::<Pv>(board, depth, ply, -beta, -alpha, extended);
        }
        score
    }

    /// Makes `mv` followed by the child's PV the PV of `ply`.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1];
        self.pv[ply][0] = Some(mv);
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }
}

/// The score of a transposition table hit that settles the node at `depth` within
/// `(alpha, beta)`: an exact score, a lower bound at or above beta, an upper bound at or
/// below alpha, from a search at least as deep.
#[inline]
fn tt_cutoff(hit: Option<TtHit>, depth: i32, alpha: i32, beta: i32) -> Option<i32> {
    let h = hit.filter(|h| h.depth >= depth)?;
    let cut = match h.bound {
        Bound::Exact => true,
        Bound::Lower => h.score >= beta,
        Bound::Upper => h.score <= alpha,
    };
    cut.then_some(h.score)
}
