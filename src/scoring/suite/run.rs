//! Searching a margin set on EPD positions: one search per position, each from a cleared
//! transposition table ([`run_one`]), and judged. The results do not depend on the order of the
//! positions or on the thread that ran them; the positions are run in parallel by the executor
//! ([`crate::scoring::exec::local::run`], or a cluster's units).

use serde::{Deserialize, Serialize};
use shakmaty::Move;

use super::mate_outcome::MateOutcome;
use crate::engine::{Limits, PruneStats, Worker};
use crate::formats::epd::EpdRecord;
use crate::formats::uci_move;

/// The per-position search limit of a suite run. Both are deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuiteLimit {
    /// Fixed iteration depth, plies.
    Depth(u32),
    /// Fixed node budget.
    Nodes(u64),
}

impl SuiteLimit {
    /// The engine limits for one position.
    pub fn limits(self) -> Limits {
        match self {
            SuiteLimit::Depth(d) => Limits::depth(d),
            SuiteLimit::Nodes(n) => Limits::nodes(n),
        }
    }
}

impl std::fmt::Display for SuiteLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SuiteLimit::Depth(d) => write!(f, "depth {d}"),
            SuiteLimit::Nodes(n) => write!(f, "{n} nodes"),
        }
    }
}

/// How every position of a run is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RunConfig {
    /// Per-position limit.
    pub limit: SuiteLimit,
    /// Transposition table per search, megabytes (part of what determines node counts).
    pub hash_mb: usize,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            limit: SuiteLimit::Depth(8),
            hash_mb: 4,
        }
    }
}

/// One position to search, with what counts as solving it.
#[derive(Debug, Clone)]
pub struct SuitePosition {
    /// Which suite (file) it came from.
    pub suite: String,
    /// The parsed EPD record.
    pub record: EpdRecord,
}

/// What one search of one position produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PositionResult {
    /// Suite (file) name.
    pub suite: String,
    /// Line in the suite file.
    pub line: usize,
    /// EPD `id`, when given.
    pub id: Option<String>,
    /// Best move found, UCI notation (None only without legal moves).
    pub best_move: Option<String>,
    /// Whether the move is a `bm` move (or any move when there is no `bm`) and no `am` move;
    /// for a mate record (`bm #N`, `dm N`), whether the score is the right mate (see
    /// [`MateOutcome::solved`]).
    pub solved: bool,
    /// STS points of the move (`c0`), or 1/0 for solved/unsolved when the record has none.
    pub points: u32,
    /// The most points any move earns (10 for STS, 1 otherwise).
    pub max_points: u32,
    /// Search score, side to move's view, eval units.
    pub score: i32,
    /// Depth of the last completed iteration, plies.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Node count at which the final best move was found and then kept.
    pub found_at: u64,
    /// What each pruning technique cut.
    pub prunes: PruneStats,
    /// An external engine's fault on this position (crash, hang, illegal move, garbage): the
    /// position is scored unsolved, at the reference's node count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// An external engine went past the node budget and was stopped; the last PV within the
    /// budget was taken.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overshot: bool,
}

impl PositionResult {
    /// Solution credit in [0, 1]: points / max points.
    pub fn credit(&self) -> f64 {
        if self.max_points == 0 {
            0.0
        } else {
            f64::from(self.points) / f64::from(self.max_points)
        }
    }
}

/// Scores a move against a record: (solved, points, max points). A mate record (`bm #N`,
/// `dm N`) is judged by the search's score, not a move (see [`judge_search`]): here it is
/// unsolved.
pub fn judge(record: &EpdRecord, best: Option<Move>) -> (bool, u32, u32) {
    let Some(m) = best.filter(|_| record.mate.is_none()) else {
        return (false, 0, 1);
    };
    let avoided = !record.avoid_moves.contains(&m);
    let solved = avoided && (record.best_moves.is_empty() || record.best_moves.contains(&m));
    if record.points.is_empty() {
        (solved, u32::from(solved), 1)
    } else {
        let max = record.points.iter().map(|(_, p)| *p).max().unwrap_or(0);
        let points = record
            .points
            .iter()
            .find(|(pm, _)| *pm == m)
            .map_or(0, |(_, p)| *p);
        (solved, if avoided { points } else { 0 }, max)
    }
}

/// Scores a search's best move and score (eval units, the side to move's view; `None`: no
/// score) against a record: (solved, points, max points). A mate record is solved when the
/// score is the right mate ([`MateOutcome::solved`]), 1 point of 1; any other record is
/// judged by its move alone, as [`judge`] does.
pub fn judge_search(
    record: &EpdRecord,
    best: Option<Move>,
    score: Option<i32>,
) -> (bool, u32, u32) {
    match record.mate {
        Some(mate) => {
            let solved = MateOutcome::of(mate, score).solved(mate);
            (solved, u32::from(solved), 1)
        }
        None => judge(record, best),
    }
}

/// Searches one position from a cleared worker. A fault of an external engine gives an
/// unsolved result carrying the reason, with `fault_nodes` as its node count.
pub fn run_one(
    worker: &mut Worker,
    position: &SuitePosition,
    config: &RunConfig,
    fault_nodes: u64,
) -> PositionResult {
    let record = &position.record;
    let found = worker.new_game().and_then(|()| {
        worker.search(
            &record.position,
            &[],
            &[],
            &record.position,
            &config.limit.limits(),
        )
    });
    let mut result = PositionResult {
        suite: position.suite.clone(),
        line: record.line,
        id: record.id.clone(),
        best_move: None,
        solved: false,
        points: 0,
        max_points: judge(record, None).2,
        score: 0,
        depth: 0,
        nodes: fault_nodes,
        found_at: fault_nodes,
        prunes: PruneStats::default(),
        fault: None,
        overshot: false,
    };
    match found {
        Ok(r) => {
            let (solved, points, max_points) = judge_search(record, r.best_move, r.score);
            result.best_move = r.best_move.map(uci_move);
            (result.solved, result.points, result.max_points) = (solved, points, max_points);
            result.score = r.score.unwrap_or(0);
            result.depth = r.depth;
            result.nodes = r.nodes;
            result.found_at = r.found_at;
            result.prunes = r.prunes;
            result.overshot = r.overshot;
        }
        Err(fault) => {
            if let Some(max) = record.points.iter().map(|(_, p)| *p).max() {
                result.max_points = max;
            }
            result.fault = Some(fault.to_string());
        }
    }
    result
}

/// The cost hints that stand for none: every position alike, each the node count a fault gets
/// without a hint (the budget, or 0 at a fixed depth). A run given them searches and scores
/// exactly as one given no hint.
pub fn no_hint(config: &RunConfig, len: usize) -> Vec<u64> {
    let nodes = match config.limit {
        SuiteLimit::Nodes(n) => n,
        SuiteLimit::Depth(_) => 0,
    };
    vec![nodes; len]
}

/// Node counts of a run, as a cost hint for scheduling the next one.
pub fn costs(results: &[PositionResult]) -> Vec<u64> {
    results.iter().map(|r| r.nodes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::epd::parse_line;
    use shakmaty::uci::UciMove;

    fn record(line: &str) -> EpdRecord {
        parse_line(line, 1).unwrap().unwrap()
    }

    fn mv(r: &EpdRecord, uci: &str) -> Move {
        uci.parse::<UciMove>()
            .unwrap()
            .to_move(&r.position)
            .unwrap()
    }

    #[test]
    fn judge_bm_am_and_sts_points() {
        let r = record(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";",
        );
        assert_eq!(judge(&r, Some(mv(&r, "g3g6"))), (true, 1, 1));
        assert_eq!(judge(&r, Some(mv(&r, "f6e8"))), (false, 0, 1));
        let am =
            record("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - am Ne8; id \"x\";");
        assert_eq!(judge(&am, Some(mv(&am, "f6e8"))), (false, 0, 1));
        assert_eq!(judge(&am, Some(mv(&am, "g3g6"))), (true, 1, 1));
        let sts = record(
            "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id \"STS.001\"; c0 \"f5=10, Be5+=2, Bf2=3, Bg4=2\"; c9 \"f4f5 d4e5 d4f2 f3g4\";",
        );
        assert_eq!(judge(&sts, Some(mv(&sts, "f4f5"))), (true, 10, 10));
        assert_eq!(judge(&sts, Some(mv(&sts, "d4f2"))), (false, 3, 10));
        assert_eq!(judge(&sts, Some(mv(&sts, "e2e3"))), (false, 0, 10));
        assert_eq!(judge(&sts, None), (false, 0, 1));
        // Without a mate record the score changes nothing.
        for score in [None, Some(0), Some(crate::engine::score::MATE - 1)] {
            assert_eq!(judge_search(&r, Some(mv(&r, "g3g6")), score), (true, 1, 1));
            assert_eq!(
                judge_search(&sts, Some(mv(&sts, "d4f2")), score),
                (false, 3, 10)
            );
        }
    }

    #[test]
    fn judge_mate_records_by_score() {
        use crate::engine::score::MATE;
        // White mates in one with Ra8#; Black, to move, is mated in one after any move.
        let mate = record("7k/8/6K1/8/8/8/8/R7 w - - bm #1;");
        let ra8 = Some(mv(&mate, "a1a8"));
        assert_eq!(judge_search(&mate, ra8, Some(MATE - 1)), (true, 1, 1));
        assert_eq!(judge_search(&mate, ra8, Some(MATE - 3)), (false, 0, 1));
        assert_eq!(judge_search(&mate, ra8, Some(900)), (false, 0, 1));
        assert_eq!(judge_search(&mate, ra8, None), (false, 0, 1));
        // The move alone never solves a mate record.
        assert_eq!(judge(&mate, ra8), (false, 0, 1));
        let mated = record("7k/8/6K1/8/8/8/8/R7 b - - bm #-1;");
        let kg8 = Some(mv(&mated, "h8g8"));
        assert_eq!(judge_search(&mated, kg8, Some(-(MATE - 2))), (true, 1, 1));
        // A longer defence than the known one is still the right side's mate.
        assert_eq!(judge_search(&mated, kg8, Some(-(MATE - 4))), (true, 1, 1));
        assert_eq!(judge_search(&mated, kg8, Some(MATE - 1)), (false, 0, 1));
    }
}
