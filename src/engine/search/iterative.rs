//! Iterative deepening: one full search per depth, each inside an aspiration window around the
//! previous score; the root PV and best move are read after every completed iteration.

use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position};

use super::node::Root;
use super::{Board, PruneStats, Searcher};
use super::{DRAW, INFINITY, IterationInfo, Limits, MATE, MATE_BOUND, MAX_PLY, SearchResult};

impl Searcher {
    /// Like [`Searcher::search`], with the history given as Zobrist keys (oldest first):
    /// deeper and deeper iterations until a limit, the soft time budget or a proven mate ends
    /// them.
    pub fn search_keys(
        &mut self,
        pos: &Chess,
        history_keys: &[u64],
        limits: &Limits,
        on_iteration: &mut dyn FnMut(&IterationInfo),
    ) -> SearchResult {
        let (soft, hard) = self.start_search(history_keys, limits);

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

    /// Resets the per-search state (counters, clock, node limit, key history, root best
    /// move); returns the soft and hard time budgets.
    fn start_search(
        &mut self,
        history_keys: &[u64],
        limits: &Limits,
    ) -> (Option<Duration>, Option<Duration>) {
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
        (soft, hard)
    }

    /// The principal variation of the last root search.
    fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// One iteration, with an aspiration window around the previous score when enabled: a
    /// score outside the window widens it on that side (doubling the step, fully open past
    /// 1000) and searches again.
    fn aspiration(&mut self, board: &Board, depth: i32, previous: i32) -> i32 {
        if !self.margins.aspiration() || depth < 5 || previous.abs() >= MATE_BOUND {
            return self.alpha_beta::<Root>(board, depth, 0, -INFINITY, INFINITY, false);
        }
        let mut delta = 25;
        let mut alpha = (previous - delta).max(-INFINITY);
        let mut beta = (previous + delta).min(INFINITY);
        loop {
            let score = self.alpha_beta::<Root>(board, depth, 0, alpha, beta, false);
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
}
