//! The search: iterative deepening over a principal-variation (negamax, fail-soft) alpha-beta,
//! with quiescence, and every pruning technique of the seed articles behind the margins of
//! [`Margins`].
//!
//! Order of a node (each pruning block names its technique, its guards, and its margin):
//! 1. draws (fifty moves, repetition), mate-distance pruning, horizon -> quiescence;
//! 2. transposition table cut-off (non-PV nodes only, so PVs are never truncated);
//! 3. deep futility (Muller), limited razoring (Heinz), null move;
//! 4. frontier / pre-frontier futility (node-level variants), then the move loop with
//!    per-move futility, late move pruning, check extension, PVS and late move reductions.
//!
//! Determinism: a search limited by depth or nodes visits the same nodes in the same order on
//! every run (no clocks, no threads, no randomness reach the tree), so it returns the same
//! move, score and node count.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position, Rank, Role};

use super::board::Board;
use super::eval::value;
use super::ordering::{self, Heuristics};
use super::technique::{PruneStats, Technique};
use super::tt::{Bound, PackedMove, TranspositionTable};
use crate::params::{FutilityMode, Margins};

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

/// What stops a search. Depth and node limits are deterministic; time limits are not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Maximum iteration depth, plies.
    pub depth: Option<u32>,
    /// Maximum nodes (search + quiescence); the search stops exactly at this count.
    pub nodes: Option<u64>,
    /// Fixed time for this move (also the "reference time" of the library API).
    pub movetime: Option<Duration>,
    /// Clock: time left for the side to move.
    pub time_left: Option<Duration>,
    /// Clock: increment per move.
    pub increment: Option<Duration>,
    /// Clock: moves to the next time control.
    pub moves_to_go: Option<u32>,
    /// Search until stopped (the stop flag); other limits still apply except depth defaults.
    pub infinite: bool,
}

impl Limits {
    /// A fixed-depth limit.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A fixed-node limit.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Soft (don't start another iteration) and hard (abort now) time budgets.
    fn time_budget(&self) -> (Option<Duration>, Option<Duration>) {
        if let Some(t) = self.movetime {
            return (Some(t), Some(t));
        }
        let Some(left) = self.time_left else {
            return (None, None);
        };
        let overhead = Duration::from_millis(20);
        let left = left.saturating_sub(overhead);
        let inc = self.increment.unwrap_or_default();
        let mtg = self.moves_to_go.unwrap_or(30).clamp(1, 60);
        let soft = left / mtg + inc * 3 / 4;
        let hard = (soft * 4).min(left / 2 + inc / 2);
        (Some(soft.min(hard)), Some(hard))
    }
}

/// What one completed iteration found (for UCI `info` lines).
#[derive(Debug, Clone)]
pub struct IterationInfo {
    /// Iteration depth, plies.
    pub depth: u32,
    /// Deepest ply reached, plies.
    pub seldepth: u32,
    /// Score from the side to move's point of view.
    pub score: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Principal variation from the root.
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// Best move (None only when the root has no legal move).
    pub best_move: Option<Move>,
    /// Score of the best move, side to move's point of view (mate scores beyond
    /// [`MATE_BOUND`]).
    pub score: i32,
    /// Principal variation, a legal line from the root starting with `best_move`.
    pub pv: Vec<Move>,
    /// Last fully completed iteration, plies.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched (search + quiescence).
    pub nodes: u64,
    /// Node count when the final best move became best at the root and stayed best.
    pub best_move_nodes: u64,
    /// Per-technique prune counts.
    pub prunes: PruneStats,
    /// Wall-clock time (informational only; never used by scoring).
    pub elapsed: Duration,
}

/// Late move reduction table, `[depth][move number]`, plies.
fn lmr_table() -> Box<[[u8; 64]; 64]> {
    let mut t = Box::new([[0u8; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
        }
    }
    t
}

/// A reusable searcher: transposition table, ordering heuristics and margins. One per thread.
pub struct Searcher {
    tt: TranspositionTable,
    heuristics: Heuristics,
    margins: Margins,
    lmr: Box<[[u8; 64]; 64]>,
    // Per-search state.
    nodes: u64,
    node_limit: u64,
    seldepth: usize,
    stats: PruneStats,
    stop: Option<Arc<AtomicBool>>,
    stopped: bool,
    start: Instant,
    hard_deadline: Option<Instant>,
    /// Keys of the game history and the current search path (for repetitions).
    keys: Vec<u64>,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    root_depth: i32,
    root_best: Option<Move>,
    root_best_nodes: u64,
}

impl Searcher {
    /// A searcher with a transposition table of `tt_mb` megabytes and the given margins.
    pub fn new(tt_mb: usize, margins: Margins) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(tt_mb),
            heuristics: Heuristics::default(),
            margins,
            lmr: lmr_table(),
            nodes: 0,
            node_limit: u64::MAX,
            seldepth: 0,
            stats: PruneStats::default(),
            stop: None,
            stopped: false,
            start: Instant::now(),
            hard_deadline: None,
            keys: Vec::new(),
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            root_depth: 0,
            root_best: None,
            root_best_nodes: 0,
        }
    }

    /// The margins in use.
    pub fn margins(&self) -> &Margins {
        &self.margins
    }

    /// Replaces the margins (keeps the table: call [`Searcher::clear`] for a fresh start).
    pub fn set_margins(&mut self, margins: Margins) {
        self.margins = margins;
    }

    /// Resizes the transposition table (clears it).
    pub fn resize_tt(&mut self, mb: usize) {
        self.tt = TranspositionTable::new(mb);
    }

    /// Forgets everything learnt: transposition table, killers, history. A search after
    /// `clear` depends only on its position, history, margins and limits.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.heuristics.clear();
    }

    /// Installs a flag that stops the search when set (UCI `stop`).
    pub fn set_stop_flag(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.stop = flag;
    }

    /// Searches `pos`. `history` holds the positions played before it (oldest first), for
    /// repetition detection. `on_iteration` is called after each completed iteration.
    pub fn search(
        &mut self,
        pos: &Chess,
        history: &[Chess],
        limits: &Limits,
        on_iteration: &mut dyn FnMut(&IterationInfo),
    ) -> SearchResult {
        let keys: Vec<u64> = history
            .iter()
            .map(|p| Board::new(p.clone()).hash())
            .collect();
        self.search_keys(pos, &keys, limits, on_iteration)
    }

    /// Like [`Searcher::search`], with the history given as Zobrist keys (oldest first).
    pub fn search_keys(
        &mut self,
        pos: &Chess,
        history_keys: &[u64],
        limits: &Limits,
        on_iteration: &mut dyn FnMut(&IterationInfo),
    ) -> SearchResult {
        self.start = Instant::now();
        self.nodes = 0;
        self.seldepth = 0;
        self.stats = PruneStats::default();
        self.stopped = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let (soft, hard) = limits.time_budget();
        self.hard_deadline = hard.map(|h| self.start + h);
        self.keys.clear();
        self.keys.extend_from_slice(history_keys);
        self.root_best = None;
        self.root_best_nodes = 0;

        let board = Board::new(pos.clone());
        let root_moves = pos.legal_moves();
        let mut result = SearchResult {
            best_move: root_moves.first().copied(),
            score: if root_moves.is_empty() && pos.is_check() {
                -MATE
            } else {
                DRAW
            },
            pv: root_moves.first().copied().into_iter().collect(),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            best_move_nodes: 0,
            prunes: PruneStats::default(),
            elapsed: Duration::ZERO,
        };
        if root_moves.is_empty() {
            result.best_move = None;
            result.pv.clear();
            return result;
        }

        let max_depth = limits
            .depth
            .unwrap_or(
                if limits.infinite || limits.nodes.is_some() || hard.is_some() {
                    MAX_PLY as u32 - 8
                } else {
                    6
                },
            )
            .clamp(1, MAX_PLY as u32 - 8);
        let mut score = 0;
        let mut best_nodes_so_far = 0;
        for depth in 1..=max_depth as i32 {
            self.root_depth = depth;
            let iteration = self.aspiration(&board, depth, score);
            if self.stopped {
                break;
            }
            score = iteration;
            let pv = self.root_pv();
            if pv.first().copied() != result.best_move || result.depth == 0 {
                best_nodes_so_far = self.root_best_nodes;
            }
            result.best_move = pv.first().copied();
            result.score = score;
            result.pv = pv;
            result.depth = depth as u32;
            result.seldepth = self.seldepth as u32;
            result.best_move_nodes = best_nodes_so_far;
            on_iteration(&IterationInfo {
                depth: depth as u32,
                seldepth: self.seldepth as u32,
                score,
                nodes: self.nodes,
                elapsed: self.start.elapsed(),
                pv: result.pv.clone(),
            });
            if let Some(soft) = soft
                && self.start.elapsed() >= soft
                && !limits.infinite
            {
                break;
            }
            // A forced mate found within the depth: deeper iterations cannot change it.
            if score.abs() >= MATE_BOUND && (MATE - score.abs()) < depth && !limits.infinite {
                break;
            }
        }
        // `go infinite` must not return before `stop`.
        if limits.infinite {
            while !self.stop_requested() {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        result.nodes = self.nodes;
        result.prunes = self.stats;
        result.elapsed = self.start.elapsed();
        result
    }

    fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(AtomicOrdering::Relaxed))
    }

    fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// One iteration, with an aspiration window around the previous score when enabled.
    fn aspiration(&mut self, board: &Board, depth: i32, previous: i32) -> i32 {
        if !self.margins.aspiration() || depth < 5 || previous.abs() >= MATE_BOUND {
            return self.alpha_beta::<true>(board, depth, 0, -INFINITY, INFINITY, false);
        }
        let mut delta = 25;
        let mut alpha = (previous - delta).max(-INFINITY);
        let mut beta = (previous + delta).min(INFINITY);
        loop {
            let score = self.alpha_beta::<true>(board, depth, 0, alpha, beta, false);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta *= 2;
            if delta > 1000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Checks node and time limits; sets `stopped`. The first iteration always completes
    /// (unless the node limit ends it) so that a move is always backed by a search.
    #[inline]
    fn check_limits(&mut self) -> bool {
        if self.nodes >= self.node_limit {
            self.stopped = true;
        } else if self.nodes & 1023 == 0 && self.root_depth > 1 {
            if self.stop_requested() {
                self.stopped = true;
            } else if let Some(deadline) = self.hard_deadline
                && Instant::now() >= deadline
            {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Has the position at the top of the search path occurred before with the same side to
    /// move, within the reversible moves? (One repetition counts as a draw in the search.)
    #[inline]
    fn is_repetition(&self, key: u64, halfmoves: u32) -> bool {
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
    fn move_may_draw(&self, board: &Board, m: Move) -> bool {
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

    /// The alpha-beta search proper. `PV` marks principal-variation nodes (compile-time, so
    /// "only at non-PV nodes" costs nothing). `extended` is true when the move into this node
    /// was extended. Returns a fail-soft score from the side to move's point of view.
    #[allow(clippy::too_many_lines)]
    fn alpha_beta<const PV: bool>(
        &mut self,
        board: &Board,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        extended: bool,
    ) -> i32 {
        let root = ply == 0;
        self.pv_len[ply] = 0;
        let pos = board.pos();
        let in_check = pos.is_check();

        if !root {
            // Draws by the fifty-move rule (unless mated right now) and by repetition.
            if pos.halfmoves() >= 100 && !(in_check && pos.legal_moves().is_empty()) {
                return DRAW;
            }
            if self.is_repetition(board.hash(), pos.halfmoves()) {
                return DRAW;
            }
            // Mate-distance pruning: no line from here can beat a faster mate.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.qsearch(board, ply, alpha, beta);
        }
        if self.check_limits() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);

        // Transposition table: cut only at non-PV nodes, so a PV is never cut short.
        let hit = self.tt.probe(board.hash(), ply);
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.mv);
        if let Some(h) = hit
            && !PV
            && h.depth >= depth
        {
            let cut = match h.bound {
                Bound::Exact => true,
                Bound::Lower => h.score >= beta,
                Bound::Upper => h.score <= alpha,
            };
            if cut {
                return h.score;
            }
        }

        let eval = if in_check {
            -INFINITY
        } else {
            hit.map_or_else(|| board.eval(), |h| h.eval)
        };
        // Guards shared by every pruning technique: never in check, never near a mate score
        // (it would blind the search to mates), never at the root.
        let may_prune = !root && !in_check && alpha.abs() < MATE_BOUND && beta.abs() < MATE_BOUND;
        let m = self.margins;
        let them = !board.turn();

        // Deep futility pruning (Muller, seed 003). With two moves to go we can win at most
        // the opponent's two best pieces: if even that plus twice the positional margin
        // cannot reach alpha, the node fails low. Guards: may_prune, non-PV.
        if m.deep_futility() && may_prune && !PV && depth >= 2 && depth <= m.deep_futility_depth() {
            let (first, second) = two_best_pieces(board, them);
            let bound = eval + first + second + 2 * m.deep_futility_margin();
            if bound <= alpha {
                self.stats[Technique::DeepFutility] += 1;
                return bound;
            }
        }

        // Limited razoring (Heinz, seed 004) at depth 3 (pre-pre-frontier): when eval + margin
        // cannot reach alpha, search one ply less. Guards: may_prune, non-PV (a PV is never
        // shortened), not right after an extension, and the opponent still has more than
        // `razor_min_pieces` pieces.
        if m.razoring()
            && !PV
            && may_prune
            && depth == 3
            && !extended
            && board.piece_count(them) > m.razor_min_pieces() as u32
            && eval + m.razor_margin() <= alpha
        {
            self.stats[Technique::Razor] += 1;
            depth -= 1;
        }

        // Null-move pruning. Guards: non-PV, not in check, eval at least beta, the side to move
        // has a knight, bishop, rook or queen (zugzwang), and not two null moves in a row.
        if m.null_move()
            && !PV
            && !in_check
            && !root
            && depth >= 2
            && eval >= beta
            && beta.abs() < MATE_BOUND
            && board.non_pawn_material(board.turn()) > 0
            && self.keys.last() != Some(&NULL_KEY)
            && let Some(null) = board.play_null()
        {
            let r = m.null_move_r() + depth / 6;
            // This node, then the pass: the stack keeps one key per ply, so side-to-move
            // parity holds for repetitions below the null move.
            self.keys.push(board.hash());
            self.keys.push(NULL_KEY);
            let score =
                -self.alpha_beta::<false>(&null, depth - 1 - r, ply + 1, -beta, -beta + 1, false);
            self.keys.truncate(self.keys.len() - 2);
            if self.stopped {
                return 0;
            }
            if score >= beta {
                self.stats[Technique::NullMove] += 1;
                return if score >= MATE_BOUND { beta } else { score };
            }
        }

        // Frontier (depth 1) and pre-frontier (depth 2) futility: the margin for this depth.
        let futility_margin = match depth {
            1 if m.futility() => Some(m.futility_margin()),
            2 if m.ext_futility() => Some(m.ext_futility_margin()),
            _ => None,
        }
        .filter(|_| may_prune);
        // Node-level variants of frontier futility (seed 000: "proceed straight to quiescence
        // or even return an evaluation"). Same guards, plus non-PV (a PV node must search its
        // moves, or its PV would end a ply early: the truncated PVs of the Mediocre post) and
        // the node must have a legal move (no false stalemate).
        if depth == 1
            && m.futility_mode() != FutilityMode::Moves
            && !PV
            && let Some(margin) = futility_margin
            && eval + margin <= alpha
            && !pos.legal_moves().is_empty()
        {
            self.stats[Technique::FutilityNodes] += 1;
            return if m.futility_mode() == FutilityMode::Quiescence {
                self.qsearch(board, ply, alpha, beta)
            } else {
                eval
            };
        }
        let per_move_futility = if m.futility_mode() == FutilityMode::Moves || depth == 2 || PV {
            futility_margin
        } else {
            None
        };

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        let us = board.turn();
        let mut scores =
            ordering::score_moves(&moves, pos.board(), us, tt_move, &self.heuristics, ply);

        self.keys.push(board.hash());
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move: Option<Move> = None;
        let mut searched = 0usize;
        let mut quiets_tried: arrayvec::ArrayVec<Move, 64> = arrayvec::ArrayVec::new();
        let count = moves.len();

        for index in 0..count {
            let mv = ordering::pick(&mut moves[..count], &mut scores, index);
            let quiet = !mv.is_capture() && !mv.is_promotion();

            // Futility pruning, frontier (depth 1) and extended (depth 2), per move (Heinz,
            // seeds 000/001/003). Skip the move when eval + margin + the captured piece's value
            // <= alpha. Guards: may_prune (not in check, not near mate, not root), and never a
            // move that gives check, promotes, or pushes a pawn to the 7th (plus the seed's
            // optional extras), nor one that could reach a draw better than alpha. Every
            // skipped move leaves its optimistic value in `best`, so a node whose moves are all
            // futile fails low with a sane score, never a false mate or stalemate.
            if let Some(margin) = per_move_futility {
                let optimistic = eval + margin + mv.capture().map_or(0, value);
                if optimistic <= alpha
                    && futility_prunable(board, mv, m.futility_seed_guards())
                    && !(alpha < DRAW && self.move_may_draw(board, mv))
                {
                    if depth == 1 {
                        self.stats[Technique::Futility] += 1;
                    } else {
                        self.stats[Technique::ExtFutility] += 1;
                    }
                    best = best.max(optimistic);
                    continue;
                }
            }

            // Late move (move-count-based) pruning: at shallow non-PV nodes, quiet moves late
            // in the order are skipped. Guards: may_prune, a real score exists, no check.
            if m.late_move_pruning()
                && !PV
                && may_prune
                && quiet
                && depth <= m.lmp_depth()
                && searched >= (m.lmp_base() + depth * depth) as usize
                && best > -MATE_BOUND
                && !board.gives_check(mv)
            {
                self.stats[Technique::LateMove] += 1;
                continue;
            }

            let child = board.play(mv);
            let gives_check = child.pos().is_check();
            // Check extension (bounded so a checking sequence cannot run away).
            let extension = i32::from(gives_check && ply < 2 * self.root_depth as usize + 8);
            let new_depth = depth - 1 + extension;

            let score = if searched == 0 {
                -self.alpha_beta::<PV>(&child, new_depth, ply + 1, -beta, -alpha, extension > 0)
            } else {
                // Late move reductions for quiet, non-checking, non-killer moves.
                let mut reduction = 0;
                if m.lmr()
                    && depth >= 3
                    && quiet
                    && !in_check
                    && !gives_check
                    && searched >= if PV { 4 } else { 2 }
                    && !self.heuristics.is_killer(ply, mv)
                {
                    reduction = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
                    if PV {
                        reduction -= 1;
                    }
                    reduction = reduction.clamp(0, new_depth - 1);
                    if reduction > 0 {
                        self.stats[Technique::Lmr] += 1;
                    }
                }
                let mut s = -self.alpha_beta::<false>(
                    &child,
                    new_depth - reduction,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    extension > 0,
                );
                if s > alpha && reduction > 0 {
                    s = -self.alpha_beta::<false>(
                        &child,
                        new_depth,
                        ply + 1,
                        -alpha - 1,
                        -alpha,
                        extension > 0,
                    );
                }
                if PV && s > alpha && s < beta {
                    s = -self.alpha_beta::<true>(
                        &child,
                        new_depth,
                        ply + 1,
                        -beta,
                        -alpha,
                        extension > 0,
                    );
                }
                s
            };
            searched += 1;
            if self.stopped {
                self.keys.pop();
                return 0;
            }

            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if root && self.root_best != Some(mv) {
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

        let bound = if best >= beta {
            Bound::Lower
        } else if PV && best > original_alpha {
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
            depth,
            bound,
        );
        best
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1];
        self.pv[ply][0] = Some(mv);
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Quiescence search: captures and promotions, or every evasion when in check.
    fn qsearch(&mut self, board: &Board, ply: usize, mut alpha: i32, beta: i32) -> i32 {
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
        let m = self.margins;

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
            // Delta pruning is off in the late endgame (seed 002): with little material left,
            // quiescence must see insufficient-material draws and won pawn endings.
            delta_on = m.delta_pruning()
                && board.non_pawn_material(Color::White) + board.non_pawn_material(Color::Black)
                    > m.delta_endgame_material();
            // Node-level delta pruning: if even the biggest swing (a queen, plus a promotion
            // when a pawn stands on the 7th) and the delta margin cannot raise alpha, no capture
            // can: skip move generation.
            if delta_on {
                let mut big = value(Role::Queen) + m.delta_margin();
                if board.has_pawn_on_seventh() {
                    big += value(Role::Queen) - value(Role::Pawn);
                }
                if stand_pat + big <= alpha {
                    self.stats[Technique::DeltaNodes] += 1;
                    return stand_pat;
                }
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
                // Delta pruning per capture (seed 002): stand pat + captured value + delta
                // <= alpha cannot raise alpha. Guards: not in check, not a promotion, not in
                // the late endgame.
                if delta_on && !mv.is_promotion() {
                    let optimistic = stand_pat + mv.capture().map_or(0, value) + m.delta_margin();
                    if optimistic <= alpha {
                        self.stats[Technique::Delta] += 1;
                        best = best.max(optimistic);
                        continue;
                    }
                }
                // Losing captures cannot help a side that may stand pat.
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

/// Stands for a null move in the key history: two null moves in a row are refused, and no real
/// position's key is expected to equal it.
const NULL_KEY: u64 = 0;

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

/// Convenience: a fresh searcher (cleared table) searching `pos` with no game history.
pub fn search_position(
    pos: &Chess,
    margins: Margins,
    limits: &Limits,
    tt_mb: usize,
) -> SearchResult {
    let mut searcher = Searcher::new(tt_mb, margins);
    searcher.search(pos, &[], limits, &mut |_| {})
}

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

#[cfg(test)]
mod tests {
    //! One test per pruning guard of the seed articles. Each drives a single node through the
    //! private search functions with a chosen window, so the guard is the only thing that
    //! decides whether a move is pruned.

    use super::*;
    use crate::engine::bench::position;
    use shakmaty::uci::UciMove;

    fn board(fen: &str) -> Board {
        Board::new(position(fen))
    }

    fn mv(b: &Board, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(b.pos()).unwrap()
    }

    /// Only frontier futility on, no TT: the node's own decisions are all we observe.
    fn futility_only(margin: i32) -> Margins {
        Margins::bare()
            .with("futility", true)
            .with("futility_margin", margin)
            .with("futility_seed_guards", false)
    }

    /// Searches one non-root node at `depth` with window (alpha, alpha + 1).
    fn node(b: &Board, m: Margins, depth: i32, alpha: i32) -> (i32, PruneStats) {
        let mut s = Searcher::new(0, m);
        s.root_depth = depth;
        let score = s.alpha_beta::<false>(b, depth, 1, alpha, alpha + 1, false);
        (score, s.stats)
    }

    // White to move, a rook up for Black would be -495: here White is a knight down.
    const QUIET: &str = "r1bqkb1r/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1";

    #[test]
    fn frontier_futility_prunes_when_eval_plus_margin_below_alpha() {
        let b = board(QUIET);
        let eval = b.eval();
        let (_, stats) = node(&b, futility_only(125), 1, eval + 200);
        assert!(stats[Technique::Futility] > 10, "{stats:?}");
        // Alpha reachable with the margin: nothing pruned.
        let (_, stats) = node(&b, futility_only(125), 1, eval + 100);
        assert_eq!(stats[Technique::Futility], 0);
    }

    #[test]
    fn no_pruning_in_check() {
        let b = board("4k3/8/8/8/8/8/3PPP2/r3K3 w - - 0 1");
        assert!(b.pos().is_check());
        let (_, stats) = node(&b, futility_only(0), 1, b.eval() + 3000);
        assert_eq!(stats[Technique::Futility], 0);
    }

    #[test]
    fn no_pruning_near_mate_scores() {
        let b = board(QUIET);
        let (_, stats) = node(&b, futility_only(0), 1, MATE_BOUND + 10);
        assert_eq!(stats[Technique::Futility], 0);
        let (_, stats) = node(&b, futility_only(0), 1, -MATE_BOUND - 10);
        assert_eq!(stats[Technique::Futility], 0);
        // The same window far from mate prunes.
        let (_, stats) = node(&b, futility_only(0), 1, 3000);
        assert!(stats[Technique::Futility] > 0);
    }

    #[test]
    fn checking_moves_are_never_pruned() {
        // Qd1-h5 is not check here, Bf1-b5 is.
        let b = board("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
        let check = mv(&b, "f1b5");
        assert!(b.gives_check(check));
        assert!(!futility_prunable(&b, check, false));
        assert!(futility_prunable(&b, mv(&b, "g1f3"), false));
        // In the node: every legal move but the check is pruned.
        let (_, stats) = node(&b, futility_only(0), 1, 3000);
        let moves = b.pos().legal_moves().len() as u64;
        let checks = b
            .pos()
            .legal_moves()
            .iter()
            .filter(|m| b.gives_check(**m))
            .count() as u64;
        assert_eq!(stats[Technique::Futility], moves - checks);
    }

    #[test]
    fn discovered_checks_are_never_pruned() {
        // The bishop on d3 uncovers the rook on d1 against the king on d8.
        let b = board("3k4/8/8/8/8/3B4/8/3RK3 w - - 0 1");
        let discover = mv(&b, "d3a6");
        assert!(b.gives_check(discover));
        assert!(!futility_prunable(&b, discover, false));
    }

    #[test]
    fn promotions_are_never_pruned() {
        let b = board("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        assert!(!futility_prunable(&b, mv(&b, "a7a8q"), false));
        assert!(!futility_prunable(&b, mv(&b, "a7a8n"), false));
        assert!(futility_prunable(&b, mv(&b, "a1b1"), false));
    }

    #[test]
    fn pawn_pushes_to_the_seventh_are_never_pruned() {
        let b = board("7k/8/P7/8/8/8/7p/K7 w - - 0 1");
        assert!(!futility_prunable(&b, mv(&b, "a6a7"), false));
        let b = board("k7/8/8/8/8/p7/8/7K b - - 0 1");
        assert!(!futility_prunable(&b, mv(&b, "a3a2"), false));
        let b = board("7k/8/8/P7/8/8/8/K7 w - - 0 1");
        assert!(futility_prunable(&b, mv(&b, "a5a6"), false));
    }

    #[test]
    fn seed_guards_rook_queen_to_seventh_and_special_captures() {
        // Rook to the 7th.
        let b = board("6k1/8/8/8/8/8/8/R5K1 w - - 0 1");
        let rook7 = mv(&b, "a1a7");
        assert!(!futility_prunable(&b, rook7, true));
        assert!(futility_prunable(&b, rook7, false));
        // Capturing the queen.
        let b = board("6k1/8/8/3q4/8/8/3R4/6K1 w - - 0 1");
        let takes_queen = mv(&b, "d2d5");
        assert!(!futility_prunable(&b, takes_queen, true));
        assert!(futility_prunable(&b, takes_queen, false));
        // Capturing one of the bishop pair.
        let b = board("2b3k1/8/8/3b4/8/8/3R4/6K1 w - - 0 1");
        let pair = mv(&b, "d2d5");
        assert!(!futility_prunable(&b, pair, true));
        assert!(futility_prunable(&b, pair, false));
        let b = board("6k1/8/8/3b4/8/8/3R4/6K1 w - - 0 1");
        assert!(futility_prunable(&b, mv(&b, "d2d5"), true));
        // Capturing a pawn on its 2nd or 3rd rank (Black's 7th/6th ranks).
        let b = board("6k1/8/3p4/8/8/8/3R4/6K1 w - - 0 1");
        let home = mv(&b, "d2d6");
        assert!(!futility_prunable(&b, home, true));
        assert!(futility_prunable(&b, home, false));
        let b = board("6k1/8/8/3p4/8/8/3R4/6K1 w - - 0 1");
        assert!(futility_prunable(&b, mv(&b, "d2d5"), true));
    }

    #[test]
    fn captured_piece_value_is_added() {
        // White can take a rook (Rxh8) or a pawn (Nxb2); neither gives check.
        let b = board("7r/k7/8/8/8/8/1p6/3NK2R w - - 0 1");
        let eval = b.eval();
        let margin = 50;
        // alpha so that eval + margin + pawn <= alpha < eval + margin + rook.
        let alpha = eval + margin + value(Role::Pawn) + 10;
        let (_, stats) = node(&b, futility_only(margin), 1, alpha);
        let moves = b.pos().legal_moves();
        let prunable_quiets = moves
            .iter()
            .filter(|m| !m.is_capture() && futility_prunable(&b, **m, false))
            .count() as u64;
        let pawn_captures = moves
            .iter()
            .filter(|m| m.capture() == Some(Role::Pawn) && futility_prunable(&b, **m, false))
            .count() as u64;
        // Quiet moves and the pawn capture are pruned; the rook capture (worth more) is not.
        assert!(moves.iter().any(|m| m.capture() == Some(Role::Rook)));
        assert_eq!(stats[Technique::Futility], prunable_quiets + pawn_captures);
    }

    #[test]
    fn all_moves_futile_fails_low_with_a_sane_score() {
        // Quiet position, no checks available, alpha far above: every move is futile.
        let b = board("7k/8/8/8/8/8/P7/K7 w - - 0 1");
        let eval = b.eval();
        let margin = 100;
        let alpha = eval + 1000;
        let (score, stats) = node(&b, futility_only(margin), 1, alpha);
        assert_eq!(
            stats[Technique::Futility],
            b.pos().legal_moves().len() as u64
        );
        // Not a mate or stalemate score: the best optimistic estimate, a fail low.
        assert_eq!(score, eval + margin);
        assert!(score <= alpha && score != DRAW && score > -MATE_BOUND);
    }

    #[test]
    fn node_level_futility_modes_keep_a_legal_move_and_return_sanely() {
        let b = board("7k/8/8/8/8/8/P7/K7 w - - 0 1");
        let eval = b.eval();
        for mode in [1, 2] {
            let m = futility_only(100).with("futility_mode", mode);
            let (score, stats) = node(&b, m, 1, eval + 1000);
            assert_eq!(stats[Technique::FutilityNodes], 1);
            assert!(score > -MATE_BOUND && score <= eval + 1000);
        }
        // A stalemated side is never "futile": it is a draw.
        let stale = board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        let m = futility_only(0).with("futility_mode", FutilityMode::Evaluation);
        let (score, stats) = node(&stale, m, 1, 500);
        assert_eq!((score, stats[Technique::FutilityNodes]), (DRAW, 0));
    }

    #[test]
    fn extended_futility_uses_its_own_margin_at_depth_two() {
        let b = board(QUIET);
        let eval = b.eval();
        let m = Margins::bare()
            .with("ext_futility", true)
            .with("ext_futility_margin", 500);
        // eval + 500 <= alpha: pruned at depth 2 (and frontier futility is off).
        let (_, stats) = node(&b, m, 2, eval + 520);
        assert!(stats[Technique::ExtFutility] > 0 && stats[Technique::Futility] == 0);
        let (_, stats) = node(&b, m, 2, eval + 480);
        assert_eq!(stats[Technique::ExtFutility], 0);
    }

    #[test]
    fn futility_never_skips_a_repetition_that_beats_alpha() {
        // Black is a rook down. After 1.Nf3 Nf6 2.Ng1, Black's Nf6-g8 repeats the start.
        let mut b = board("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQq - 0 1");
        let mut s = Searcher::new(0, futility_only(0));
        for uci in ["g1f3", "g8f6", "f3g1"] {
            s.keys.push(b.hash());
            let m = mv(&b, uci);
            b = b.play(m);
        }
        // As inside the move loop, the current node is on top of the key stack.
        s.keys.push(b.hash());
        assert!(s.move_may_draw(&b, mv(&b, "f6g8")));
        assert!(!s.move_may_draw(&b, mv(&b, "b8c6")));
        assert!(!s.move_may_draw(&b, mv(&b, "e7e6")));
        s.keys.pop();
        // Black to move and losing: alpha < 0, eval + margin <= alpha, so quiet moves are
        // futile, but the repetition scores a draw (0 > alpha) and must be searched.
        let eval = b.eval();
        let alpha = -100;
        assert!(eval <= alpha, "eval {eval}");
        s.root_depth = 1;
        let score = s.alpha_beta::<false>(&b, 1, 1, alpha, alpha + 1, false);
        assert_eq!(score, DRAW, "the drawing move must be found");
        assert!(s.stats[Technique::Futility] > 0);
        // Without the repetition in the history the same node fails low.
        let mut fresh = Searcher::new(0, futility_only(0));
        fresh.root_depth = 1;
        let score = fresh.alpha_beta::<false>(&b, 1, 1, alpha, alpha + 1, false);
        assert!(score <= alpha);
    }

    #[test]
    fn an_illegal_tt_move_is_never_played() {
        // Plant a move that is illegal here (e2e5) as the TT move of the root and of the
        // position after 1.e4: the search must ignore it and return a legal line.
        let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let mut s = Searcher::new(1, Margins::default());
        let bogus = PackedMove::new(Move::Normal {
            role: Role::Pawn,
            from: shakmaty::Square::E2,
            capture: None,
            to: shakmaty::Square::E5,
            promotion: None,
        });
        let after = b.play(mv(&b, "e2e4"));
        for key in [b.hash(), after.hash()] {
            s.tt.store(key, 0, bogus, 0, 0, 0, Bound::Upper);
        }
        let r = s.search(b.pos(), &[], &Limits::depth(4), &mut |_| {});
        let mut pos = b.pos().clone();
        for m in &r.pv {
            assert!(pos.is_legal(*m));
            pos.play_unchecked(*m);
        }
        assert!(r.best_move.is_some_and(|m| b.pos().is_legal(m)));
    }

    #[test]
    fn razoring_guards() {
        let b = board(QUIET);
        let eval = b.eval();
        let m = Margins::bare()
            .with("razoring", true)
            .with("razor_margin", 300)
            .with("razor_min_pieces", 3);
        let razored = |b: &Board, m: Margins, extended: bool| {
            let mut s = Searcher::new(0, m);
            s.root_depth = 3;
            s.alpha_beta::<false>(b, 3, 1, eval + 400, eval + 401, extended);
            s.stats[Technique::Razor]
        };
        assert_eq!(razored(&b, m, false), 1);
        // Not after an extension.
        assert_eq!(razored(&b, m, true), 0);
        // Not when the opponent has few pieces left.
        let few = m.with("razor_min_pieces", 14);
        assert_eq!(razored(&b, few, false), 0);
        // Not when eval + margin reaches alpha.
        let wide = m.with("razor_margin", 500);
        assert_eq!(razored(&b, wide, false), 0);
        // Not in check.
        let check = board("4k3/8/8/8/8/8/3PPP2/r3K3 w - - 0 1");
        let mut s = Searcher::new(0, m);
        s.alpha_beta::<false>(&check, 3, 1, 3000, 3001, false);
        assert_eq!(s.stats[Technique::Razor], 0);
    }

    fn qnode(b: &Board, m: Margins, alpha: i32) -> (i32, PruneStats) {
        let mut s = Searcher::new(0, m);
        let score = s.qsearch(b, 1, alpha, alpha + 1);
        (score, s.stats)
    }

    #[test]
    fn delta_pruning_per_capture_and_late_endgame_switch() {
        // White's only capture is Qxd5; plenty of material on the board.
        let b = board("4k3/8/8/3p4/8/8/8/R2QK2R w K - 0 1");
        let m = Margins::bare()
            .with("delta_pruning", true)
            .with("delta_margin", 200)
            .with("delta_endgame_material", 1300);
        let sp = b.eval();
        let alpha = sp + value(Role::Pawn) + 200 + 5;
        // The pawn capture cannot reach alpha: pruned (the node exit does not apply, since a
        // queen capture could in principle).
        let (_, stats) = qnode(&b, m, alpha);
        assert_eq!(
            (stats[Technique::Delta], stats[Technique::DeltaNodes]),
            (1, 0)
        );
        // Late endgame (material at or below the threshold): delta pruning is off.
        let late = m.with("delta_endgame_material", 8_000);
        let (_, stats) = qnode(&b, late, alpha);
        assert_eq!(
            (stats[Technique::Delta], stats[Technique::DeltaNodes]),
            (0, 0)
        );
    }

    #[test]
    fn delta_node_exit_counts_queen_and_promotion() {
        let m = Margins::bare()
            .with("delta_pruning", true)
            .with("delta_margin", 200)
            .with("delta_endgame_material", 0);
        let b = board("r3k2r/8/8/3p4/8/8/8/R2QK2R w KQkq - 0 1");
        let sp = b.eval();
        let big = value(Role::Queen) + 200;
        let (score, stats) = qnode(&b, m, sp + big);
        assert_eq!((stats[Technique::DeltaNodes], score), (1, sp));
        let (_, stats) = qnode(&b, m, sp + big - 1);
        assert_eq!(stats[Technique::DeltaNodes], 0);
        // With a pawn on the 7th, a promotion widens the swing: no early exit at the same alpha.
        let p7 = board("r3k2r/1P6/8/3p4/8/8/8/R2QK2R w KQkq - 0 1");
        let sp7 = p7.eval();
        let (_, stats) = qnode(&p7, m, sp7 + big);
        assert_eq!(stats[Technique::DeltaNodes], 0);
    }

    #[test]
    fn deep_futility_and_late_move_pruning_are_off_by_default() {
        let d = Margins::default();
        assert!(!d.deep_futility() && !d.late_move_pruning());
        let b = board(QUIET);
        let eval = b.eval();
        let m = Margins::bare().with("deep_futility", true);
        // Opponent's two best pieces: queen and rook.
        let bound = eval + value(Role::Queen) + value(Role::Rook) + 2 * m.deep_futility_margin();
        let (score, stats) = node(&b, m, 3, bound);
        assert_eq!((stats[Technique::DeepFutility], score), (1, bound));
        let (_, stats) = node(&b, m, 3, bound - 1);
        assert_eq!(stats[Technique::DeepFutility], 0);
    }

    #[test]
    fn late_move_pruning_skips_late_quiet_moves() {
        let b = board(QUIET);
        let m = Margins::bare()
            .with("late_move_pruning", true)
            .with("lmp_base", 3);
        let (_, stats) = node(&b, m, 2, b.eval() + 50);
        assert!(stats[Technique::LateMove] > 0);
        let (_, stats) = node(&b, Margins::bare(), 2, b.eval() + 50);
        assert_eq!(stats[Technique::LateMove], 0);
    }
}
