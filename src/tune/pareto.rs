//! The Pareto front of speed against accuracy: which evaluated candidates no other candidate
//! beats on both counts.
//!
//! Speed is the node ratio (total nodes over the reference's, lower is faster) and accuracy the
//! objective's accuracy part (percent, higher is better). A candidate is on the front when no
//! other candidate has both higher-or-equal accuracy and lower-or-equal node ratio with at least
//! one of the two strictly better. Equal candidates do not dominate each other, so all copies of
//! a point on the front are on it. A candidate with a NaN coordinate is never on the front and
//! dominates nothing.

use serde::{Deserialize, Serialize};

use super::cost::Evaluation;

/// For each `(node_ratio, accuracy)` point, whether it is on the Pareto front (see the module
/// documentation). O(n log n).
pub fn front(points: &[(f64, f64)]) -> Vec<bool> {
    let mut on = vec![false; points.len()];
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| !points[i].0.is_nan() && !points[i].1.is_nan())
        .collect();
    // Fastest first; among equally fast ones, most accurate first.
    order.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[b].1.total_cmp(&points[a].1))
    });
    // Best accuracy among the points strictly faster than the current group.
    let mut faster_best = f64::NEG_INFINITY;
    let mut i = 0;
    while i < order.len() {
        let ratio = points[order[i]].0;
        let group_end = order[i..]
            .iter()
            .position(|&j| points[j].0 != ratio)
            .map_or(order.len(), |n| i + n);
        // The group is sorted by accuracy, best first: only its best can be on the front, and
        // only if every strictly faster point is strictly less accurate.
        let best = points[order[i]].1;
        if best > faster_best {
            for &j in &order[i..group_end] {
                if points[j].1 == best {
                    on[j] = true;
                }
            }
        }
        faster_best = faster_best.max(best);
        i = group_end;
    }
    on
}

/// An evaluation as the tuned file lists it: its fields and whether it is on the Pareto front.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkedEvaluation {
    /// The evaluation.
    #[serde(flatten)]
    pub evaluation: Evaluation,
    /// On the front of speed (node ratio) against accuracy among all the evaluations given.
    pub pareto: bool,
}

/// Marks the Pareto front among `evaluations` (by node ratio and accuracy). Only evaluations
/// on every training position compete: those on a mini-batch are never on the front.
pub fn mark(evaluations: &[Evaluation]) -> Vec<MarkedEvaluation> {
    let full: Vec<&Evaluation> = evaluations.iter().filter(|e| e.batch.is_none()).collect();
    let points: Vec<(f64, f64)> = full.iter().map(|e| (e.node_ratio, e.accuracy)).collect();
    let mut on = full.iter().zip(front(&points)).map(|(_, on)| on);
    evaluations
        .iter()
        .map(|e| MarkedEvaluation {
            evaluation: e.clone(),
            pareto: e.batch.is_none() && on.next().unwrap_or(false),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, literally: O(n²).
    fn brute(points: &[(f64, f64)]) -> Vec<bool> {
        points
            .iter()
            .enumerate()
            .map(|(i, &(r, a))| {
                !r.is_nan()
                    && !a.is_nan()
                    && !points
                        .iter()
                        .enumerate()
                        .any(|(j, &(r2, a2))| j != i && a2 >= a && r2 <= r && (a2 > a || r2 < r))
            })
            .collect()
    }

    #[test]
    fn small_cases() {
        assert!(front(&[]).is_empty());
        assert_eq!(front(&[(1.0, 50.0)]), [true]);
        // (0.5, 40) is faster, (1.0, 60) more accurate, (0.8, 30) beaten by (0.5, 40).
        assert_eq!(
            front(&[(1.0, 60.0), (0.5, 40.0), (0.8, 30.0)]),
            [true, true, false]
        );
        // Equal points are both on the front; same speed, less accurate is dominated; same
        // accuracy, slower is dominated.
        assert_eq!(
            front(&[(0.5, 40.0), (0.5, 40.0), (0.5, 39.0), (0.6, 40.0)]),
            [true, true, false, false]
        );
        // NaN is never on the front and dominates nothing.
        assert_eq!(front(&[(f64::NAN, 90.0), (1.0, 10.0)]), [false, true]);
        assert_eq!(front(&[(0.1, f64::NAN), (1.0, 10.0)]), [false, true]);
    }

    #[test]
    fn agrees_with_the_definition() {
        // A deterministic scramble with many ties on both coordinates.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in [2, 3, 5, 8, 20, 60] {
            for _ in 0..50 {
                let points: Vec<(f64, f64)> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        ((x % 7) as f64 / 4.0, ((x >> 8) % 9) as f64 * 1.5)
                    })
                    .collect();
                assert_eq!(front(&points), brute(&points), "{points:?}");
            }
        }
    }

    #[test]
    fn marks_evaluations_and_flattens() {
        let e = |index, node_ratio, accuracy| Evaluation {
            index,
            values: vec![index as i32],
            objective: accuracy,
            accuracy,
            speed: 0.0,
            node_ratio,
            solved: 0,
            cached: false,
            batch: None,
            faults: 0,
        };
        let marked = mark(&[e(0, 1.0, 50.0), e(1, 0.9, 50.0), e(2, 1.1, 51.0)]);
        let flags: Vec<bool> = marked.iter().map(|m| m.pareto).collect();
        assert_eq!(flags, [false, true, true]);
        // An evaluation on a mini-batch is never on the front, and does not push others off.
        let batched = Evaluation {
            batch: Some("00".into()),
            ..e(3, 0.5, 99.0)
        };
        let with_batch = mark(&[e(0, 1.0, 50.0), batched, e(1, 0.9, 50.0)]);
        let flags: Vec<bool> = with_batch.iter().map(|m| m.pareto).collect();
        assert_eq!(flags, [false, false, true]);
        let json = serde_json::to_value(&marked[1]).unwrap();
        assert_eq!(json["index"], 1);
        assert_eq!(json["node_ratio"], 0.9);
        assert_eq!(json["pareto"], true);
    }
}
