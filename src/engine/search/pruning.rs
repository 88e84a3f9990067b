//! Every pruning and reduction technique, each one small function that holds its own guards
//! and answers a [`Verdict`]: cut (with a score), reduce (by how much), or proceed. The search
//! (`alphabeta.rs`, `quiescence.rs`) calls them in step order and does what they say; each
//! counts what it did in `stats`.
//!
//! Each function opens with one comment: its step, its share of nodes and of solved positions
//! (measured), its name and seed article, and the guards that make it safe. The figures are
//! `marginal suite data/suites/wac.epd data/suites/ecm.epd --depth 8` (1,179 positions) with the
//! technique on against off, the rest at their defaults (`--set razoring=false`, ...): "~N%
//! nodes" is the share of the nodes it saves, "-N solved" the positions it loses at that fixed
//! depth (a fixed node budget turns saved nodes into depth; `tune` measures that trade). The
//! table "What each step is worth" of docs/engine.md has every figure and the commands. The
//! guards every technique shares (root, check, mate scores) are `Node::may_prune`; `N::PV` is
//! the node kind.

use shakmaty::{Color, Move, Position, Rank, Role};

use super::draw::NULL_KEY;
use super::node::{Node, NodeType, NonPv};
use super::{Board, DRAW, INFINITY, MATE_BOUND, Searcher};
use crate::engine::eval::value;
use crate::engine::technique::Technique;
use crate::params::FutilityMode;

/// What a technique decides for a node or a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Stop. A node returns this score. A move is skipped, and this is the most it could have
    /// scored: it joins the node's best score (fail-soft), so a node whose moves are all
    /// skipped fails low with a sane score, never a false mate or stalemate.
    Cut(i32),
    /// Search on, this many plies shallower (at least 1).
    Reduce(i32),
    /// The technique does not apply: search on unchanged.
    Proceed,
}

/// Frontier or extended futility as a node applies it to each of its moves (steps 12-13):
/// the margin, and the counter a skipped move counts in.
#[derive(Debug, Clone, Copy)]
pub(super) struct MoveFutility {
    margin: i32,
    technique: Technique,
}

/// Late move reduction table, `[depth][move number]`, plies.
pub(super) fn lmr_table() -> Box<[[u8; 64]; 64]> {
    let mut t = Box::new([[0u8; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
        }
    }
    t
}

impl Searcher {
    /// Deep futility pruning (Muller). With two moves to go we can win at most the opponent's
    /// two best pieces: if even that, plus twice the positional margin, cannot reach alpha, the
    /// node fails low (with that optimistic bound).
    #[inline]
    pub(super) fn deep_futility<N: NodeType>(&mut self, node: &Node, alpha: i32) -> Verdict {
        // Step 7 (off by default; on: ~1% nodes, -2 solved). Deep futility pruning (seed 003). Safe
        // because: non-PV, may_prune (not root, not in check, window not near mate), 2 <= depth <=
        // deep_futility_depth, eval + the opponent's two best pieces + 2 * deep_futility_margin <=
        // alpha.
        let m = &self.margins;
        if !(m.deep_futility()
            && node.may_prune
            && !N::PV
            && node.depth >= 2
            && node.depth <= m.deep_futility_depth())
        {
            return Verdict::Proceed;
        }
        let (first, second) = two_best_pieces(node.board, !node.board.turn());
        let bound = node.eval + first + second + 2 * m.deep_futility_margin();
        if bound > alpha {
            return Verdict::Proceed;
        }
        self.stats[Technique::DeepFutility] += 1;
        Verdict::Cut(bound)
    }

    /// Limited razoring (Heinz) at depth 3, the pre-pre-frontier: when eval + margin cannot
    /// reach alpha, search the node one ply less deep instead of cutting it.
    #[inline]
    pub(super) fn razoring<N: NodeType>(&mut self, node: &Node, alpha: i32) -> Verdict {
        // Step 8 (~6% nodes, -4 solved). Limited razoring (seed 004). Safe because: non-PV (a PV is
        // never shortened), may_prune, depth 3, not right after an extension, the opponent has more
        // than razor_min_pieces pieces, eval + razor_margin <= alpha; and it only reduces, by one
        // ply.
        let m = &self.margins;
        if m.razoring()
            && !N::PV
            && node.may_prune
            && node.depth == 3
            && !node.extended
            && node.board.piece_count(!node.board.turn()) > m.razor_min_pieces() as u32
            && node.eval + m.razor_margin() <= alpha
        {
            self.stats[Technique::Razor] += 1;
            return Verdict::Reduce(1);
        }
        Verdict::Proceed
    }

    /// Null-move pruning: pass, and search the opponent's reply shallower with a null window
    /// at beta. If even a free move for the opponent leaves us at or above beta, the node fails
    /// high (a mate found this way is not proven: it returns beta).
    pub(super) fn null_move<N: NodeType>(&mut self, node: &Node, beta: i32) -> Verdict {
        // Step 9 (~41% nodes, -52 solved). Null move pruning (no seed). Safe because: non-PV (so
        // not the root), not in check, depth >= 2, eval >= beta, beta not near mate, the side to
        // move has a knight, bishop, rook or queen (zugzwang), not two null moves in a row.
        let (board, depth) = (node.board, node.depth);
        if !(self.margins.null_move()
            && !N::PV
            && !node.in_check
            && depth >= 2
            && node.eval >= beta
            && beta.abs() < MATE_BOUND
            && board.non_pawn_material(board.turn()) > 0
            && self.keys.last() != Some(&NULL_KEY))
        {
            return Verdict::Proceed;
        }
        let Some(null) = board.play_null() else {
            return Verdict::Proceed;
        };
        let r = self.margins.null_move_r() + depth / 6;
        // This node, then the pass: the stack keeps one key per ply, so side-to-move parity
        // holds for repetitions below the null move.
        self.keys.push(board.hash());
        self.keys.push(NULL_KEY);
        let score =
            -self.alpha_beta::<NonPv>(&null, depth - 1 - r, node.ply + 1, -beta, -beta + 1, false);
        self.keys.truncate(self.keys.len() - 2);
        if self.stopped {
            // The search is unwinding; the score is never used.
            return Verdict::Cut(0);
        }
        if score < beta {
            return Verdict::Proceed;
        }
        self.stats[Technique::NullMove] += 1;
        Verdict::Cut(if score >= MATE_BOUND { beta } else { score })
    }

    /// Frontier futility, node level (seed 000: "proceed straight to quiescence or even return
    /// an evaluation"): when eval + the frontier margin cannot reach alpha, no quiet move can,
    /// so the whole node is settled by quiescence or by the evaluation (the `futility_mode`
    /// parameter; mode 0, per move, is step 12 instead).
    #[inline(always)]
    pub(super) fn futile_node<N: NodeType>(
        &mut self,
        node: &Node,
        alpha: i32,
        beta: i32,
    ) -> Verdict {
        // Step 10 (off by default; mode 1: ~2% nodes, -52 solved; mode 2: +50% nodes, -107 solved).
        // Frontier futility, node level (seeds 000/004). Safe because: futility_mode quiescence or
        // evaluation, depth 1, non-PV (a PV node that skips its moves returns a truncated PV, seed
        // 004), may_prune, eval + futility_margin <= alpha, and a legal move exists (no false
        // stalemate, seed 003).
        let m = &self.margins;
        let mode = m.futility_mode();
        if !(m.futility()
            && mode != FutilityMode::Moves
            && node.depth == 1
            && !N::PV
            && node.may_prune
            && node.eval + m.futility_margin() <= alpha
            && !node.board.pos().legal_moves().is_empty())
        {
            return Verdict::Proceed;
        }
        self.stats[Technique::FutilityNodes] += 1;
        Verdict::Cut(if mode == FutilityMode::Quiescence {
            self.qsearch(node.board, node.ply, alpha, beta)
        } else {
            node.eval
        })
    }

    /// Frontier futility per move (Heinz): at depth 1, a move whose optimistic value (eval +
    /// margin + the captured piece) cannot reach alpha cannot raise it: the child's stand pat
    /// would fail high. Decided once per node: whether it applies, and its margin; each move is
    /// then tested by [`Searcher::futile_move`].
    #[inline]
    pub(super) fn frontier_futility<N: NodeType>(&self, node: &Node) -> Option<MoveFutility> {
        // Step 12 (~26% nodes, -8 solved). Frontier futility, per move (seeds 000/001/003). Safe
        // because: depth 1, futility_mode per move (or a PV node, where the node-level modes never
        // apply), may_prune; per move (futile_move): eval + futility_margin + captured value <=
        // alpha, no check, no promotion, no pawn to the 7th (nor the seed's extras), no draw better
        // than alpha.
        let m = &self.margins;
        (node.depth == 1
            && m.futility()
            && (m.futility_mode() == FutilityMode::Moves || N::PV)
            && node.may_prune)
            .then(|| MoveFutility {
                margin: m.futility_margin(),
                technique: Technique::Futility,
            })
    }

    /// Extended futility per move (Heinz): frontier futility at the pre-frontier, depth 2, with
    /// the larger margin two plies call for. Decided once per node, like step 12.
    #[inline]
    pub(super) fn extended_futility(&self, node: &Node) -> Option<MoveFutility> {
        // Step 13 (~17% nodes, -3 solved). Extended futility, per move (seeds 000/003/004). Safe
        // because: depth 2, may_prune (PV nodes included); per move (futile_move): eval +
        // ext_futility_margin + captured value <= alpha, no check, no promotion, no pawn to the 7th
        // (nor the seed's extras), no draw better than alpha.
        let m = &self.margins;
        (node.depth == 2 && m.ext_futility() && node.may_prune).then(|| MoveFutility {
            margin: m.ext_futility_margin(),
            technique: Technique::ExtFutility,
        })
    }

    /// Steps 12 and 13 for one move, with the margin its node fixed. Skip the move when eval +
    /// margin + the captured piece's value <= alpha, unless it gives check, promotes, pushes a
    /// pawn to the 7th (plus the seed's optional extras, see [`futility_prunable`]), or could
    /// reach a draw better than alpha. The skipped move leaves that optimistic value as its
    /// score. Always inlined: it runs for every move of a frontier node.
    #[inline(always)]
    pub(super) fn futile_move(
        &mut self,
        node: &Node,
        futility: MoveFutility,
        mv: Move,
        alpha: i32,
    ) -> Verdict {
        let MoveFutility { margin, technique } = futility;
        let optimistic = node.eval + margin + mv.capture().map_or(0, value);
        if optimistic <= alpha
            && futility_prunable(node.board, mv, self.margins.futility_seed_guards())
            && !(alpha < DRAW && self.move_may_draw(node.board, mv))
        {
            self.stats[technique] += 1;
            return Verdict::Cut(optimistic);
        }
        Verdict::Proceed
    }

    /// Late move (move-count-based) pruning: at shallow nodes, once enough moves have been
    /// searched, the quiet moves ordered late are skipped unseen. They promise no score
    /// (`-INFINITY`): a real score already exists.
    #[inline]
    pub(super) fn late_move_pruning<N: NodeType>(
        &mut self,
        node: &Node,
        mv: Move,
        quiet: bool,
        searched: usize,
        best: i32,
    ) -> Verdict {
        // Step 14 (off by default; on: ~28% nodes, -1 solved). Late move pruning (seed 003). Safe
        // because: non-PV, may_prune, a quiet move, depth <= lmp_depth, at least lmp_base + depth^2
        // moves searched, a real (not mated) best score exists, the move gives no check.
        let m = &self.margins;
        if m.late_move_pruning()
            && !N::PV
            && node.may_prune
            && quiet
            && node.depth <= m.lmp_depth()
            && searched >= (m.lmp_base() + node.depth * node.depth) as usize
            && best > -MATE_BOUND
            && !node.board.gives_check(mv)
        {
            self.stats[Technique::LateMove] += 1;
            return Verdict::Cut(-INFINITY);
        }
        Verdict::Proceed
    }

    /// Late move reductions: a quiet move late in the order is searched shallower (by the
    /// table, one ply less at PV nodes) with a null window, and again at full depth only if it
    /// beats alpha (step 16).
    #[inline]
    pub(super) fn late_move_reduction<N: NodeType>(
        &mut self,
        node: &Node,
        mv: Move,
        quiet: bool,
        gives_check: bool,
        searched: usize,
        new_depth: i32,
    ) -> Verdict {
        // Step 16 (~83% nodes, -71 solved). Late move reductions (no seed). Safe because: depth >=
        // 3, a quiet move, not in check, the move gives no check, not a killer, at least 2 moves
        // searched (4 at PV nodes); it only reduces, the depth left stays >= 1, and a fail high is
        // re-searched at full depth.
        if !(self.margins.lmr()
            && node.depth >= 3
            && quiet
            && !node.in_check
            && !gives_check
            && searched >= if N::PV { 4 } else { 2 }
            && !self.heuristics.is_killer(node.ply, mv))
        {
            return Verdict::Proceed;
        }
        let mut reduction = i32::from(self.lmr[node.depth.min(63) as usize][searched.min(63)]);
        if N::PV {
            reduction -= 1;
        }
        reduction = reduction.clamp(0, new_depth - 1);
        if reduction == 0 {
            return Verdict::Proceed;
        }
        self.stats[Technique::Lmr] += 1;
        Verdict::Reduce(reduction)
    }

    /// Is delta pruning on in this quiescence node? Off in the late endgame (seed 002): with
    /// little material left, quiescence must see insufficient-material draws and won pawn
    /// endings. The guard of steps 21 and 22.
    #[inline]
    pub(super) fn delta_pruning_on(&self, board: &Board) -> bool {
        self.margins.delta_pruning()
            && board.non_pawn_material(Color::White) + board.non_pawn_material(Color::Black)
                > self.margins.delta_endgame_material()
    }

    /// Delta pruning, node exit: if even the biggest swing (a queen, plus a promotion when a
    /// pawn stands on the 7th) and the delta margin cannot raise alpha, no capture can: stand
    /// pat without generating them.
    #[inline]
    pub(super) fn delta_node(
        &mut self,
        board: &Board,
        delta_on: bool,
        stand_pat: i32,
        alpha: i32,
    ) -> Verdict {
        // Step 21 (~17% nodes, -5 solved, with step 22). Delta pruning, node exit (seed 002). Safe
        // because: not in check (stand pat is a real option), delta_on (not the late endgame),
        // stand pat + queen value (plus queen - pawn with a pawn on the 7th) + delta_margin <=
        // alpha.
        if !delta_on {
            return Verdict::Proceed;
        }
        let mut big = value(Role::Queen) + self.margins.delta_margin();
        if board.has_pawn_on_seventh() {
            big += value(Role::Queen) - value(Role::Pawn);
        }
        if stand_pat + big > alpha {
            return Verdict::Proceed;
        }
        self.stats[Technique::DeltaNodes] += 1;
        Verdict::Cut(stand_pat)
    }

    /// Delta pruning per capture: stand pat + the captured piece + the delta margin <= alpha
    /// cannot raise alpha. The skipped capture leaves that optimistic value as its score.
    #[inline]
    pub(super) fn delta_capture(
        &mut self,
        mv: Move,
        delta_on: bool,
        stand_pat: i32,
        alpha: i32,
    ) -> Verdict {
        // Step 22 (~17% nodes, -5 solved, with step 21). Delta pruning, per capture (seed 002).
        // Safe because: not in check, delta_on (not the late endgame), not a promotion, stand pat +
        // captured value + delta_margin <= alpha.
        if !delta_on || mv.is_promotion() {
            return Verdict::Proceed;
        }
        let optimistic = stand_pat + mv.capture().map_or(0, value) + self.margins.delta_margin();
        if optimistic > alpha {
            return Verdict::Proceed;
        }
        self.stats[Technique::Delta] += 1;
        Verdict::Cut(optimistic)
    }
}

/// Flat values of the two most valuable non-king pieces of `color` (0 when absent).
fn two_best_pieces(board: &Board, color: Color) -> (i32, i32) {
    let b = board.pos().board();
    let mut first = 0;
    let mut second = 0;
    for role in [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ] {
        let n = (b.by_color(color) & b.by_role(role)).count();
        for _ in 0..n.min(2) {
            if first == 0 {
                first = value(role);
            } else if second == 0 {
                second = value(role);
            }
        }
        if second != 0 {
            break;
        }
    }
    (first, second)
}

/// The move-level futility guards (seeds 000, 003, 004): a move may be futility-pruned only if
/// it does not give check, is not a promotion, and does not move a pawn to its 7th rank. With
/// `seed_guards`, also not: a rook or queen move to the 7th, capturing a queen, capturing a
/// bishop of the opponent's bishop pair, capturing a pawn still on its 2nd or 3rd rank.
pub fn futility_prunable(board: &Board, mv: Move, seed_guards: bool) -> bool {
    if mv.is_promotion() {
        return false;
    }
    let us = board.turn();
    let seventh = match us {
        Color::White => Rank::Seventh,
        Color::Black => Rank::Second,
    };
    let to_seventh = mv.to().rank() == seventh;
    if to_seventh && mv.role() == Role::Pawn {
        return false;
    }
    if seed_guards {
        if to_seventh && matches!(mv.role(), Role::Rook | Role::Queen) {
            return false;
        }
        match mv.capture() {
            Some(Role::Queen) => return false,
            Some(Role::Bishop) => {
                let b = board.pos().board();
                if (b.by_color(!us) & b.bishops()).count() == 2 {
                    return false;
                }
            }
            Some(Role::Pawn) if !mv.is_en_passant() => {
                let rank = mv.to().rank();
                let (second, third) = match us {
                    // Their (Black's) 2nd and 3rd ranks are our 7th and 6th.
                    Color::White => (Rank::Seventh, Rank::Sixth),
                    Color::Black => (Rank::Second, Rank::Third),
                };
                if rank == second || rank == third {
                    return false;
                }
            }
            _ => {}
        }
    }
    !board.gives_check(mv)
}
