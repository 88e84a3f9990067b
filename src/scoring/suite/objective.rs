//! The objective: one number per margin set that rewards accuracy and speed together.
//!
//! Built only from node counts and solutions (never wall-clock), so it is reproducible and can
//! gate CI. For each position `i`, against the reference run `r`:
//!
//! ```text
//! credit_i   = c_i * (1 - early * f_i)          c_i: 1 if solved (STS: points / 10), else 0
//! f_i        = ln(1 + found_i) / ln(1 + ref_nodes_i), clamped to [0, 1]
//! accuracy   = 100 * mean_i credit_i            (percent)
//! speed      = -mean_i log2(nodes_i / ref_nodes_i)   (doublings of speed; > 0 = faster)
//! objective  = accuracy + weight * speed        (higher is better; cost = -objective)
//! ```
//!
//! `found_i` is the node count at which the final best move was found and kept, so a margin set
//! that solves a position sooner scores more even when the solved count is unchanged, and a
//! margin that saves nodes scores more through `speed`: the objective moves smoothly, not only
//! when a position flips between solved and unsolved. `weight` says how many accuracy points
//! halving the node count is worth (default 2).

use serde::{Deserialize, Serialize};

use super::run::PositionResult;

/// Default `weight`: accuracy points per halving of the node count.
pub const DEFAULT_WEIGHT: f64 = 2.0;
/// Default `early`: share of a solution's credit that depends on how soon it was found.
pub const DEFAULT_EARLY: f64 = 0.25;

/// The objective's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveParams {
    /// Accuracy points per halving of the node count.
    pub weight: f64,
    /// Share of a solution's credit that depends on how early it was found, in [0, 1].
    pub early: f64,
}

impl Default for ObjectiveParams {
    fn default() -> Self {
        ObjectiveParams {
            weight: DEFAULT_WEIGHT,
            early: DEFAULT_EARLY,
        }
    }
}

/// The objective and the parts it is made of.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Objective {
    /// `accuracy + weight * speed`; higher is better.
    pub value: f64,
    /// Smoothed accuracy, percent (see the module formula).
    pub accuracy: f64,
    /// Doublings of speed against the reference (mean per-position log2 node ratio, negated).
    pub speed: f64,
    /// Positions searched.
    pub positions: usize,
    /// Positions whose best move solved them.
    pub solved: usize,
    /// Points earned (STS points; 1 per solved position otherwise).
    pub points: u64,
    /// Points available.
    pub max_points: u64,
    /// Total nodes, over the positions both this run and the reference searched (all of them
    /// unless an external engine faulted).
    pub nodes: u64,
    /// Total nodes of the reference run, over the same positions.
    pub reference_nodes: u64,
    /// `nodes / reference_nodes`.
    pub node_ratio: f64,
    /// Percent of the positions both runs searched where the best move equals the reference's.
    pub agreement: f64,
    /// Mean absolute score difference from the reference over the positions both runs
    /// searched, eval units (scores clamped to +-[`SCORE_CAP`]).
    pub score_difference: f64,
    /// Positions an external engine faulted on (each scored unsolved, its speed the
    /// reference's); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub faults: usize,
    /// Positions the engine faulted on in the reference run (their speed counts as the
    /// reference's, and they are left out of the comparisons); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reference_faults: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Scores are clamped to +-[`SCORE_CAP`] before differences are taken, so a mate score (tens
/// of thousands) does not swamp the mean.
pub const SCORE_CAP: i32 = 1000;

fn clamp_score(score: i32) -> i32 {
    score.clamp(-SCORE_CAP, SCORE_CAP)
}

/// Computes the objective of `results` against `reference` (same positions, same order).
///
/// # Panics
/// If the two runs have different lengths (they come from the same position list).
pub fn evaluate(
    results: &[PositionResult],
    reference: &[PositionResult],
    params: &ObjectiveParams,
) -> Objective {
    assert_eq!(
        results.len(),
        reference.len(),
        "runs of different positions"
    );
    let n = results.len().max(1) as f64;
    let mut credit = 0.0;
    let mut log_ratio = 0.0;
    let mut agree = 0usize;
    let mut score_diff = 0.0;
    // Comparisons with the reference only where both runs searched: a fault leaves no move,
    // score or node count to compare (its speed counts as the reference's, ratio 1).
    let mut both = 0usize;
    let (mut nodes, mut reference_nodes) = (0u64, 0u64);
    for (r, base) in results.iter().zip(reference) {
        let ref_nodes = base.nodes.max(1) as f64;
        let f = ((1.0 + r.found_at as f64).ln() / (1.0 + ref_nodes).ln()).clamp(0.0, 1.0);
        credit += r.credit() * (1.0 - params.early * f);
        if r.fault.is_some() || base.fault.is_some() {
            continue;
        }
        both += 1;
        nodes += r.nodes;
        reference_nodes += base.nodes;
        log_ratio += (r.nodes.max(1) as f64 / ref_nodes).log2();
        agree += usize::from(r.best_move == base.best_move);
        score_diff += f64::from((clamp_score(r.score) - clamp_score(base.score)).abs());
    }
    let accuracy = 100.0 * credit / n;
    let speed = -log_ratio / n;
    let compared = both.max(1) as f64;
    Objective {
        value: accuracy + params.weight * speed,
        accuracy,
        speed,
        positions: results.len(),
        solved: results.iter().filter(|r| r.solved).count(),
        points: results.iter().map(|r| u64::from(r.points)).sum(),
        max_points: results.iter().map(|r| u64::from(r.max_points)).sum(),
        nodes,
        reference_nodes,
        node_ratio: nodes as f64 / reference_nodes.max(1) as f64,
        agreement: 100.0 * agree as f64 / compared,
        score_difference: score_diff / compared,
        faults: results.iter().filter(|r| r.fault.is_some()).count(),
        reference_faults: reference.iter().filter(|r| r.fault.is_some()).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PruneStats;

    fn result(solved: bool, nodes: u64, found_at: u64) -> PositionResult {
        PositionResult {
            suite: "t".into(),
            line: 1,
            id: None,
            best_move: Some(if solved { "e2e4" } else { "d2d4" }.into()),
            solved,
            points: u32::from(solved),
            max_points: 1,
            score: 10,
            depth: 8,
            nodes,
            found_at,
            prunes: PruneStats::default(),
            fault: None,
            overshot: false,
        }
    }

    fn value(results: &[PositionResult], reference: &[PositionResult]) -> f64 {
        evaluate(results, reference, &ObjectiveParams::default()).value
    }

    #[test]
    fn fewer_nodes_at_equal_solutions_scores_better() {
        let reference = vec![result(true, 10_000, 500), result(false, 20_000, 100)];
        let slow = vec![result(true, 9_000, 500), result(false, 18_000, 100)];
        let fast = vec![result(true, 6_000, 500), result(false, 12_000, 100)];
        assert!(value(&fast, &reference) > value(&slow, &reference));
        // Saving nodes on a single position still moves it.
        let one = vec![result(true, 9_000, 500), result(false, 17_999, 100)];
        assert!(value(&one, &reference) > value(&slow, &reference));
    }

    #[test]
    fn a_lost_solution_scores_worse() {
        let reference = vec![result(true, 10_000, 500), result(true, 10_000, 500)];
        let both = vec![result(true, 8_000, 500), result(true, 8_000, 500)];
        let lost = vec![result(true, 8_000, 500), result(false, 8_000, 500)];
        assert!(value(&lost, &reference) < value(&both, &reference));
        // Even a big speed-up does not hide a lost solution at the default weight.
        let lost_fast = vec![result(true, 7_000, 500), result(false, 7_000, 500)];
        assert!(value(&lost_fast, &reference) < value(&both, &reference));
    }

    #[test]
    fn solving_sooner_scores_better() {
        let reference = vec![result(true, 10_000, 5_000)];
        let late = vec![result(true, 10_000, 9_000)];
        let early = vec![result(true, 10_000, 100)];
        assert!(value(&early, &reference) > value(&late, &reference));
    }

    #[test]
    fn components_are_reported() {
        let reference = vec![result(true, 10_000, 500), result(false, 10_000, 500)];
        let o = evaluate(&reference, &reference, &ObjectiveParams::default());
        assert_eq!(
            (o.positions, o.solved, o.points, o.max_points),
            (2, 1, 1, 2)
        );
        assert_eq!(o.speed, 0.0);
        assert_eq!(
            (o.agreement, o.score_difference, o.node_ratio),
            (100.0, 0.0, 1.0)
        );
        let half: Vec<_> = reference
            .iter()
            .map(|r| PositionResult {
                nodes: 5_000,
                ..r.clone()
            })
            .collect();
        let o = evaluate(
            &half,
            &reference,
            &ObjectiveParams {
                weight: 3.0,
                early: 0.0,
            },
        );
        assert!((o.speed - 1.0).abs() < 1e-12);
        assert!((o.value - (50.0 + 3.0)).abs() < 1e-9);
    }
}
