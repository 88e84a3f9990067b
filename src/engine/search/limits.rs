//! What stops a search: depth, nodes, the clock, the stop flag.

use std::sync::atomic::Ordering as AtomicOrdering;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::Searcher;

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
    pub(super) fn time_budget(&self) -> (Option<Duration>, Option<Duration>) {
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

impl Searcher {
    /// Has the stop flag (UCI `stop`) been raised?
    pub(super) fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(AtomicOrdering::Relaxed))
    }

    /// Checks node and time limits; sets `stopped`. The first iteration always completes
    /// (unless the node limit ends it) so that a move is always backed by a search.
    #[inline]
    pub(super) fn check_limits(&mut self) -> bool {
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
}
