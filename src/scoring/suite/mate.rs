//! Mate records (`bm #N`, `dm N`, as in the matetrack suites): how a search's score compares
//! with the known mate distance, and the tally of a run, the figure matetrack reports: found,
//! exact, wrong and missed mates.

use serde::{Deserialize, Serialize};

pub use super::mate_outcome::MateOutcome;
use super::run::{PositionResult, SuitePosition};

/// How a run did on the mate records of its positions. `found + wrong + missed == positions`,
/// and `exact <= found`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct MateTally {
    /// Positions with a mate record.
    pub positions: usize,
    /// A mate score for the right side (n > 0: the side to move mates; n < 0: it is mated) in
    /// |n| moves or more.
    pub found: usize,
    /// Of those found, the ones at exactly |n| moves.
    pub exact: usize,
    /// A mate score for the wrong side, or a distance shorter than |n| (impossible: a pruning
    /// bug or a hash artefact); counted apart from `found`.
    pub wrong: usize,
    /// No mate score at all, or an external engine's fault.
    pub missed: usize,
}

impl MateTally {
    /// Tallies the mate records among `positions` (`results` in the same order, one per
    /// position); positions without a mate record are left out.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn tally(positions: &[SuitePosition], results: &[PositionResult]) -> MateTally {
        assert_eq!(positions.len(), results.len(), "one result per position");
        let mut tally = MateTally::default();
        for (p, r) in positions.iter().zip(results) {
            let Some(mate) = p.record.mate else {
                continue;
            };
            tally.positions += 1;
            let score = if r.fault.is_some() {
                None
            } else {
                Some(r.score)
            };
            match MateOutcome::of(mate, score) {
                MateOutcome::Exact => {
                    tally.found += 1;
                    tally.exact += 1;
                }
                MateOutcome::Longer => tally.found += 1,
                MateOutcome::Wrong => tally.wrong += 1,
                MateOutcome::Missed => tally.missed += 1,
            }
        }
        tally
    }

    /// One figure, percent, higher is better: found and exact mates count half each, and each
    /// wrong mate takes a whole position off:
    /// `100 * (found + exact) / (2 * positions) - 100 * wrong / positions`; 0 without
    /// positions. At most 100 (every mate exact); negative when wrong mates outweigh.
    pub fn score(&self) -> f64 {
        if self.positions == 0 {
            return 0.0;
        }
        let n = self.positions as f64;
        100.0 * (self.found + self.exact) as f64 / (2.0 * n) - 100.0 * self.wrong as f64 / n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::score::{MATE, mate_in};
    use crate::formats::epd::parse_line;

    /// A score that mates in `moves` (negative: is mated in |moves|), as the search reports it.
    fn mate_score(moves: i32) -> i32 {
        if moves > 0 {
            MATE - (2 * moves - 1)
        } else {
            -(MATE + 2 * moves)
        }
    }

    fn position(epd: &str) -> SuitePosition {
        SuitePosition {
            suite: "mem.epd".to_owned(),
            record: parse_line(epd, 1).unwrap().unwrap(),
        }
    }

    fn result(score: i32, fault: Option<&str>) -> PositionResult {
        PositionResult {
            suite: "mem.epd".to_owned(),
            line: 1,
            id: None,
            best_move: None,
            solved: false,
            points: 0,
            max_points: 1,
            score,
            depth: 1,
            nodes: 1,
            found_at: 1,
            prunes: Default::default(),
            fault: fault.map(str::to_owned),
            overshot: false,
        }
    }

    #[test]
    fn the_helper_scores_are_the_search_scale() {
        for n in [1, 2, 7, -1, -3] {
            assert_eq!(mate_in(mate_score(n)), Some(n));
        }
    }

    #[test]
    fn outcomes_and_what_is_solved() {
        use MateOutcome::*;
        let cases = [
            (3, Some(mate_score(3)), Exact, true),
            (3, Some(mate_score(5)), Longer, false),
            (3, Some(mate_score(2)), Wrong, false),
            (3, Some(mate_score(-4)), Wrong, false),
            (3, Some(250), Missed, false),
            (3, None, Missed, false),
            (-3, Some(mate_score(-3)), Exact, true),
            (-3, Some(mate_score(-6)), Longer, true),
            (-3, Some(mate_score(-2)), Wrong, false),
            (-3, Some(mate_score(4)), Wrong, false),
            (-3, Some(-900), Missed, false),
        ];
        for (mate, score, outcome, solved) in cases {
            assert_eq!(MateOutcome::of(mate, score), outcome, "{mate} {score:?}");
            assert_eq!(outcome.solved(mate), solved, "{mate} {outcome:?}");
        }
    }

    #[test]
    fn tally_counts_only_mate_records() {
        let mate1 = "7k/8/6K1/8/8/8/8/R7 w - - bm #1;";
        let mated2 = "7k/8/6K1/8/8/8/8/R7 b - - bm #-2;";
        let mate3 = "7k/8/6K1/8/8/8/8/R7 w - - dm 3;";
        let plain = "7k/8/6K1/8/8/8/8/R7 w - - bm Ra8#;";
        let positions: Vec<SuitePosition> = [mate1, mated2, mate3, plain, mate1, mate3]
            .into_iter()
            .map(position)
            .collect();
        let results = [
            result(mate_score(1), None),          // exact
            result(mate_score(-5), None),         // found, longer defence
            result(mate_score(2), None),          // wrong: shorter than 3
            result(mate_score(1), None),          // not a mate record
            result(mate_score(1), Some("crash")), // missed: a fault
            result(0, None),                      // missed
        ];
        let tally = MateTally::tally(&positions, &results);
        assert_eq!(
            tally,
            MateTally {
                positions: 5,
                found: 2,
                exact: 1,
                wrong: 1,
                missed: 2,
            }
        );
        assert_eq!(tally.found + tally.wrong + tally.missed, tally.positions);
        // 100 * 3 / 10 - 100 * 1 / 5
        assert!((tally.score() - 10.0).abs() < 1e-9, "{}", tally.score());
        let none = MateTally::tally(&positions[3..4], &results[3..4]);
        assert_eq!(none, MateTally::default());
        assert_eq!(none.score(), 0.0);
        let perfect = MateTally {
            positions: 4,
            found: 4,
            exact: 4,
            ..MateTally::default()
        };
        assert_eq!(perfect.score(), 100.0);
    }
}
