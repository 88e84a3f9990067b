//! The search: iterative deepening over a principal-variation (negamax, fail-soft) alpha-beta,
//! with quiescence, and every pruning technique of the seed articles behind the margins of
//! [`Margins`].
//!
//! A node, read aloud (the step numbers are those of the comments in the code):
//!
//! Alpha-beta node (`alphabeta.rs`):
//! 1. draws: the fifty-move rule and repetitions (never at the root);
//! 2. mate-distance pruning (never at the root);
//! 3. horizon: depth 0, or the ply cap, goes to quiescence (steps 19-23);
//! 4. limits: stop on the node limit, the clock or the stop flag; count the node;
//! 5. transposition table: cut at non-PV nodes only, so a PV is never cut short;
//! 6. static evaluation, and the guards every technique shares (`Node::may_prune`);
//! 7. deep futility pruning (cut);
//! 8. limited razoring (reduce);
//! 9. null-move pruning (cut);
//! 10. frontier futility, node level (cut, with quiescence or the evaluation);
//! 11. move generation: no legal move is mate or stalemate; move ordering;
//!
//! then for each move, best first:
//! 12. frontier futility, per move (skip);
//! 13. extended futility, per move (skip);
//! 14. late move pruning (skip);
//! 15. check extension;
//! 16. principal variation search, with late move reductions (reduce);
//! 17. a new best move: PV, root best move, beta cut-off, killers and history;
//!
//! and last:
//! 18. transposition table store.
//!
//! Quiescence node (`quiescence.rs`):
//! 19. limits and node count, the ply cap;
//! 20. in check, every evasion; otherwise stand pat;
//! 21. delta pruning, node exit (cut);
//! 22. delta pruning, per capture (skip);
//! 23. losing captures skipped (static exchange).
//!
//! The techniques (steps 7-10, 12-14, 16, 21-22) are each one small function in `pruning.rs`
//! that answers a `Verdict`: cut (with a score), reduce (by how much), or proceed (steps 12
//! and 13 decide once per node whether they apply, with which margin; `futile_move` then
//! answers for each move, so the move loop repeats no node-level test). Each holds its own
//! guards; the guards all of them share (`Node::may_prune`) and the node kinds
//! (`NodeType`: root, PV or non-PV, fixed at compile time, in `node.rs`) are written once.
//! Draws are in `draw.rs`, limits in `limits.rs`, iterative deepening in `iterative.rs`.
//!
//! Determinism: a search limited by depth or nodes visits the same nodes in the same order on
//! every run (no clocks, no threads, no randomness reach the tree), so it returns the same
//! move, score and node count.

mod alphabeta;
mod draw;
mod iterative;
mod limits;
mod node;
mod pruning;
mod quiescence;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use shakmaty::{Chess, Move};

use super::board::Board;
use super::ordering::Heuristics;
use super::technique::PruneStats;
use super::tt::{TranspositionTable, TtAllocError};
use crate::params::Margins;

pub use limits::Limits;
pub use pruning::futility_prunable;

pub use super::score::{DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, mate_in};

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

/// A reusable searcher: transposition table, ordering heuristics and margins. One per thread.
pub struct Searcher {
    tt: TranspositionTable,
    heuristics: Heuristics,
    margins: Margins,
    /// Late move reductions, `[depth][move number]`, plies.
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
            lmr: pruning::lmr_table(),
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

    /// Resizes the transposition table to `mb` megabytes (clearing it), or keeps the current
    /// table untouched when the new one cannot be allocated.
    pub fn try_resize_tt(&mut self, mb: usize) -> Result<(), TtAllocError> {
        self.tt = TranspositionTable::try_new(mb)?;
        Ok(())
    }

    /// Size of the transposition table, megabytes (rounded down).
    pub fn tt_mb(&self) -> usize {
        self.tt.size_mb()
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
