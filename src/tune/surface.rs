//! A quadratic response surface over sets' games: every game of every set informs the estimate
//! of every set, instead of each set's few games deciding alone.
//!
//! A race screened in games plays each set of a wide design a handful of pairs; ranked by its
//! own games, the set that won its coin flips goes on, and the race's winner is the luckiest
//! of its finalists (Toga II's race set, +13 in its 480 race games, measured -17.7 Elo in 2,100
//! games of its confirmation). Across a design the Elo of a set against the base set varies
//! smoothly with its margins (over Toga II's calibrated sets, 1,364 games each, a quadratic
//! leaves less than a quarter of their spread beyond their games' noise: the test
//! `a_quadratic_explains_most_of_the_spread_of_toga_iis_calibrated_sets`), so the surface pools
//! the games.
//!
//! The model, in unit-cube coordinates `u` of the race's log scale (centred, `z = 2u − 1`): a
//! set's Elo against the base set is `f(z) + e`, `f` a full quadratic (intercept, linear,
//! squares and cross terms), `e` a set's own departure with variance `τ²`, and its games
//! measure that Elo with the variance of their pairs. `f` is fitted by weighted least squares
//! (weights `1/(v + τ²)`), `τ²` by Paule and Mandel's rule (the weighted residual sum of
//! squares equals its degrees of freedom; 0 when the games' noise already explains it). A
//! played set's estimate is then its posterior mean, `f + τ²/(τ² + v) · (y − f)`: its own games
//! count as far as the sets differ beyond the surface, and the surface fills in the rest.
//!
//! The surface also proposes a set no one played: the best lower bound (`f − its standard
//! error`) over a seeded sample of the cube, within a trust radius of a played set (a quadratic
//! fitted on a design is not to be believed far from it).

use nalgebra::{DMatrix, DVector};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::calibrate::design::unit_hypercube;
use crate::scoring::games::stats::{Pentanomial, elo_from_score};

/// One set's games against the base set, where the set lies.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Its place in the unit cube (the race's log scale).
    pub at: Vec<f64>,
    /// Its Elo against the base set.
    pub elo: f64,
    /// The variance of that Elo from its games (Elo²).
    pub variance: f64,
}

/// The base set itself: Elo 0 against itself, known to a tenth of an Elo.
pub const BASE_VARIANCE: f64 = 0.01;

/// Terms of a full quadratic in `dims` variables.
pub fn terms(dims: usize) -> usize {
    1 + dims + dims * (dims + 1) / 2
}

/// The surface's terms at `at` (unit cube, centred).
fn features(at: &[f64]) -> Vec<f64> {
    let z: Vec<f64> = at.iter().map(|u| 2.0 * u - 1.0).collect();
    let mut f = Vec::with_capacity(terms(z.len()));
    f.push(1.0);
    f.extend_from_slice(&z);
    for i in 0..z.len() {
        for j in i..z.len() {
            f.push(z[i] * z[j]);
        }
    }
    f
}

/// A fitted surface.
#[derive(Debug, Clone)]
pub struct Surface {
    coef: DVector<f64>,
    cov: DMatrix<f64>,
    /// The variance of the sets' Elo about the surface beyond their games' noise (Elo²).
    pub tau2: f64,
    /// Sets it was fitted on.
    pub points: usize,
}

/// One weighted least-squares fit.
struct Wls {
    coef: DVector<f64>,
    cov: DMatrix<f64>,
    /// The weighted residual sum of squares.
    q: f64,
}

fn wls(phi: &DMatrix<f64>, points: &[Point], tau2: f64) -> Option<Wls> {
    let w: Vec<f64> = points.iter().map(|p| 1.0 / (p.variance + tau2)).collect();
    let y = DVector::from_iterator(points.len(), points.iter().map(|p| p.elo));
    let weighted = DMatrix::from_fn(phi.nrows(), phi.ncols(), |i, j| phi[(i, j)] * w[i]);
    let normal = phi.transpose() * &weighted;
    let chol = normal.cholesky()?;
    let coef = chol.solve(&(weighted.transpose() * &y));
    if coef.iter().any(|c| !c.is_finite()) {
        return None;
    }
    let residual = &y - phi * &coef;
    let q = (residual.iter().zip(&w)).map(|(r, w)| w * r * r).sum();
    Some(Wls {
        coef,
        cov: chol.inverse(),
        q,
    })
}

impl Surface {
    /// Fits the surface on `points` (all of one dimension; the base set among them, as
    /// [`BASE_VARIANCE`] gives it). None when there are too few for a quadratic and two degrees
    /// of freedom for `τ²`, or the points do not span it.
    pub fn fit(points: &[Point]) -> Option<Surface> {
        let dims = points.first()?.at.len();
        let p = terms(dims);
        let n = points.len();
        if n < p + 2 || points.iter().any(|q| q.at.len() != dims) {
            return None;
        }
        let phi = DMatrix::from_fn(n, p, |i, j| features(&points[i].at)[j]);
        let dof = (n - p) as f64;
        let at_zero = wls(&phi, points, 0.0)?;
        let tau2 = if at_zero.q <= dof {
            0.0
        } else {
            // q falls as τ² grows: bracket the root, then halve the bracket.
            let mut hi = points.iter().map(|q| q.variance).fold(1.0, f64::max);
            while wls(&phi, points, hi)?.q > dof {
                hi *= 4.0;
                if hi > 1e12 {
                    return None;
                }
            }
            let mut lo = 0.0;
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if wls(&phi, points, mid)?.q > dof {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hi
        };
        let fit = wls(&phi, points, tau2)?;
        Some(Surface {
            coef: fit.coef,
            cov: fit.cov,
            tau2,
            points: n,
        })
    }

    /// The surface at `at`, and its standard error.
    pub fn predict(&self, at: &[f64]) -> (f64, f64) {
        let f = DVector::from_vec(features(at));
        let mean = f.dot(&self.coef);
        let var = (f.transpose() * &self.cov * &f)[(0, 0)];
        (mean, var.max(0.0).sqrt())
    }

    /// A played set's estimate: the surface where it lies, moved toward its own games as far
    /// as the sets differ beyond the surface.
    pub fn estimate(&self, point: &Point) -> f64 {
        let (mean, _) = self.predict(&point.at);
        let own = self.tau2 / (self.tau2 + point.variance);
        mean + own * (point.elo - mean)
    }

    /// The best lower bound (surface minus its standard error) over `samples` seeded points of
    /// the cube that lie within `radius` of one of `played`: its place, surface and error.
    pub fn proposal(
        &self,
        played: &[Vec<f64>],
        radius: f64,
        samples: usize,
        seed: u64,
    ) -> Option<Proposal> {
        let dims = played.first()?.len();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let near = |u: &[f64]| {
            played.iter().any(|p| {
                let d2: f64 = p.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum();
                d2 <= radius * radius
            })
        };
        let mut best: Option<Proposal> = None;
        for at in unit_hypercube(samples, dims, &mut rng) {
            if !near(&at) {
                continue;
            }
            let (elo, error) = self.predict(&at);
            if best.as_ref().is_none_or(|b| elo - error > b.elo - b.error) {
                best = Some(Proposal { at, elo, error });
            }
        }
        best
    }
}

/// A set the surface proposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// Its place in the unit cube.
    pub at: Vec<f64>,
    /// The surface there (Elo against the base set).
    pub elo: f64,
    /// Its standard error.
    pub error: f64,
}

/// The trust radius around the played sets: the spacing of `n` points spread evenly over the
/// unit cube of `dims` dimensions, `n^(−1/dims)`.
pub fn trust_radius(n: usize, dims: usize) -> f64 {
    (n.max(1) as f64).powf(-1.0 / dims.max(1) as f64)
}

/// Each of `sets`' games against the base set as an Elo and its variance: the score with one
/// pseudo-draw added (as the race ranks), its variance the spread of a pair's score pooled
/// over every set (a set of two pairs has no spread of its own worth the name) over its
/// pairs, carried to Elo by the slope of the logistic at its score. Sets with no pairs are
/// left out (None in their place).
pub fn points_of(sets: &[(Vec<f64>, Pentanomial)]) -> Vec<Option<Point>> {
    let per_pair = pooled_pair_variance(sets.iter().map(|(_, p)| p));
    sets.iter()
        .map(|(at, p)| {
            let pairs = p.total_pairs();
            if pairs == 0 {
                return None;
            }
            let games = 2.0 * pairs as f64;
            // Points per game with one pseudo-draw added, as `regularized_elo`.
            let score = (pair_points(p) + 0.5) / (games + 1.0);
            let slope = 400.0 / (std::f64::consts::LN_10 * score * (1.0 - score));
            Some(Point {
                at: at.clone(),
                elo: elo_from_score(score),
                variance: slope * slope * per_pair / pairs as f64,
            })
        })
        .collect()
}

/// The points a set's pairs scored (0, ½, 1, 1½ or 2 a pair).
fn pair_points(p: &Pentanomial) -> f64 {
    (p.counts().iter().enumerate())
        .map(|(k, &c)| 0.5 * k as f64 * c as f64)
        .sum()
}

/// The variance of a pair's score per game (0 to 1) about its set's mean, pooled over the
/// sets; 1/8 (two independent decisive games at even odds) when no set has two pairs.
fn pooled_pair_variance<'a>(sets: impl Iterator<Item = &'a Pentanomial>) -> f64 {
    let (mut ss, mut dof) = (0.0, 0.0);
    for p in sets {
        let n = p.total_pairs() as f64;
        if n < 2.0 {
            continue;
        }
        let mean = pair_points(p) / 2.0 / n;
        for (k, &c) in p.counts().iter().enumerate() {
            let s = k as f64 / 4.0;
            ss += c as f64 * (s - mean) * (s - mean);
        }
        dof += n - 1.0;
    }
    if dof > 0.0 && ss > 0.0 {
        ss / dof
    } else {
        0.125
    }
}

/// What the surface said, for the tuned file: how it was fitted and what it proposed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurfaceSummary {
    /// Sets it was last fitted on (the base set among them).
    pub sets: usize,
    /// Games of those sets.
    pub games: u64,
    /// The spread of the sets' Elo about the surface beyond their games' noise (Elo).
    pub tau: f64,
    /// The set it proposed to the race (none when it proposed one already racing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<Vec<i32>>,
    /// The surface at the proposal, and its standard error (Elo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_elo: Option<[f64; 2]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A known quadratic with its maximum inside the square: +30 at (0.3, 0.6).
    fn truth(u: &[f64]) -> f64 {
        30.0 - 200.0 * (u[0] - 0.3).powi(2) - 150.0 * (u[1] - 0.6).powi(2)
            + 40.0 * (u[0] - 0.3) * (u[1] - 0.6)
    }

    fn grid(n: usize) -> Vec<Vec<f64>> {
        let mut out = Vec::new();
        for i in 0..n {
            for j in 0..n {
                out.push(vec![i as f64 / (n - 1) as f64, j as f64 / (n - 1) as f64]);
            }
        }
        out
    }

    #[test]
    fn the_surface_recovers_a_quadratic_measured_without_noise() {
        let points: Vec<Point> = (grid(4).into_iter())
            .map(|at| Point {
                elo: truth(&at),
                at,
                variance: 25.0,
            })
            .collect();
        let s = Surface::fit(&points).expect("16 points fit 6 terms");
        assert_eq!(s.tau2, 0.0);
        for at in [[0.3, 0.6], [0.1, 0.9], [0.77, 0.2]] {
            let (mean, error) = s.predict(&at);
            assert!((mean - truth(&at)).abs() < 1e-6, "{at:?}: {mean}");
            assert!(error > 0.0 && error < 5.0, "{error}");
        }
        let played = grid(4);
        let p = s.proposal(&played, 0.5, 4096, 1).unwrap();
        assert!(
            (p.at[0] - 0.3).abs() < 0.05 && (p.at[1] - 0.6).abs() < 0.05,
            "{p:?}"
        );
    }

    #[test]
    fn sets_that_differ_beyond_the_surface_keep_part_of_their_own_games() {
        // A flat surface at 0, with every other set 40 Elo above or below it: more spread than
        // the games' noise explains, so τ² > 0 and a set's own games count.
        let points: Vec<Point> = (grid(4).into_iter().enumerate())
            .map(|(k, at)| Point {
                at,
                elo: if k % 2 == 0 { 40.0 } else { -40.0 },
                variance: 100.0,
            })
            .collect();
        let s = Surface::fit(&points).unwrap();
        assert!(s.tau2 > 100.0, "{}", s.tau2);
        let high = s.estimate(&points[0]);
        assert!(
            high > 0.0 && high < 40.0,
            "shrunk toward the surface: {high}"
        );
        // Noise alone: the same spread measured with a variance of 10,000 is all noise.
        let noisy: Vec<Point> = (points.iter().cloned())
            .map(|p| Point {
                variance: 10_000.0,
                ..p
            })
            .collect();
        let s = Surface::fit(&noisy).unwrap();
        assert_eq!(s.tau2, 0.0);
        let (mean, _) = s.predict(&noisy[0].at);
        assert_eq!(s.estimate(&noisy[0]), mean);
    }

    #[test]
    fn too_few_sets_for_a_quadratic_fit_none() {
        let points: Vec<Point> = (grid(2).into_iter())
            .map(|at| Point {
                elo: truth(&at),
                at,
                variance: 25.0,
            })
            .collect();
        assert!(Surface::fit(&points).is_none(), "4 sets, 6 terms");
        assert!(Surface::fit(&[]).is_none());
    }

    #[test]
    fn the_proposal_stays_within_the_trust_radius_of_the_played_sets() {
        // The true maximum at (0.3, 0.6) lies far from every played set, all in one corner.
        let played: Vec<Vec<f64>> = (grid(4).into_iter())
            .map(|u| vec![0.7 + 0.3 * u[0], 0.3 * u[1]])
            .collect();
        let points: Vec<Point> = (played.iter())
            .map(|at| Point {
                at: at.clone(),
                elo: truth(at),
                variance: 25.0,
            })
            .collect();
        let s = Surface::fit(&points).unwrap();
        let p = s.proposal(&played, 0.1, 2048, 7).unwrap();
        let nearest = (played.iter())
            .map(|q| ((q[0] - p.at[0]).powi(2) + (q[1] - p.at[1]).powi(2)).sqrt())
            .fold(f64::INFINITY, f64::min);
        assert!(nearest <= 0.1, "{p:?}");
        assert_eq!(s.proposal(&played, 0.1, 2048, 7), Some(p), "seeded");
    }

    #[test]
    fn a_sets_elo_and_variance_come_from_its_pairs_with_the_spread_pooled() {
        let even = Pentanomial::from_counts([1, 2, 4, 2, 1]);
        let ahead = Pentanomial::from_counts([0, 1, 4, 4, 1]);
        let sets = vec![
            (vec![0.1], even),
            (vec![0.5], ahead),
            (vec![0.9], Pentanomial::default()),
        ];
        let points = points_of(&sets);
        let (a, b) = (points[0].clone().unwrap(), points[1].clone().unwrap());
        assert!(a.elo.abs() < 1e-9, "{}", a.elo);
        assert!(b.elo > 30.0, "{}", b.elo);
        assert!(
            a.variance > 0.0 && b.variance > a.variance * 0.9,
            "{a:?} {b:?}"
        );
        assert_eq!(points[2], None, "no pairs, no point");
        // Four times the pairs, a quarter of the variance.
        let more = Pentanomial::from_counts([4, 8, 16, 8, 4]);
        let wide = points_of(&[(vec![0.1], more), (vec![0.5], ahead)]);
        let ratio = wide[0].clone().unwrap().variance / a.variance;
        assert!(ratio > 0.2 && ratio < 0.3, "{ratio}");
    }

    #[test]
    fn a_quadratic_explains_most_of_the_spread_of_toga_iis_calibrated_sets() {
        // The shipped calibration of Toga II at 10,000 nodes: 15 sets of 1,364 games each
        // against the defaults over its region, in log coordinates as the race's.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tuned/calibration-toga2-nodes10000.json"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let bounds: Vec<(f64, f64)> = (report["region"].as_array().unwrap().iter())
            .map(|r| (r["lower"].as_f64().unwrap(), r["upper"].as_f64().unwrap()))
            .collect();
        let unit = |values: &[serde_json::Value]| -> Vec<f64> {
            (values.iter().zip(&bounds))
                .map(|(v, &(lo, hi))| {
                    let c = (hi - lo) / 100.0 + 1.0;
                    let t = (v.as_f64().unwrap() - lo + c).ln();
                    (t - c.ln()) / ((hi - lo + c).ln() - c.ln())
                })
                .collect()
        };
        let mut sets = Vec::new();
        let mut base = None;
        for set in report["sets"].as_array().unwrap() {
            let at = unit(set["values"].as_array().unwrap());
            let counts = &set["pooled"]["pentanomial"];
            let counts: Vec<u64> = (counts.as_array().unwrap().iter())
                .map(|c| c.as_u64().unwrap())
                .collect();
            if set["origin"] == "defaults" {
                base = Some(at);
                continue;
            }
            let p = Pentanomial::from_counts(counts.try_into().unwrap());
            sets.push((at, p));
        }
        let mut points: Vec<Point> = points_of(&sets).into_iter().flatten().collect();
        assert_eq!(points.len(), 15);
        let mean = points.iter().map(|p| p.elo).sum::<f64>() / 15.0;
        let spread = (points.iter().map(|p| (p.elo - mean).powi(2)).sum::<f64>() / 14.0).sqrt();
        points.push(Point {
            at: base.unwrap(),
            elo: 0.0,
            variance: BASE_VARIANCE,
        });
        let s = Surface::fit(&points).unwrap();
        // The sets' Elo spreads by some 16 (their games' noise, about 8 a set, among it); a
        // quadratic leaves them less than a quarter of that variance beyond the noise.
        assert!(spread > 15.0, "{spread}");
        assert!(
            s.tau2 < spread * spread / 4.0,
            "tau {} of {spread}",
            s.tau2.sqrt()
        );
    }

    #[test]
    fn the_trust_radius_is_the_spacing_of_the_played_sets() {
        assert!((trust_radius(64, 3) - 0.25).abs() < 1e-12);
        assert!((trust_radius(4, 2) - 0.5).abs() < 1e-12);
        assert_eq!(trust_radius(0, 0), 1.0);
    }
}
