//! Rank agreement between a cheap objective and games, over margin sets: Spearman's rho,
//! Kendall's tau-b, a least-squares slope, and percentile bootstrap intervals over the sets.
//!
//! Every function takes paired samples `(x[i], y[i])`, one per margin set; ties get average
//! ranks (Spearman) or the tau-b correction (Kendall), as scipy.stats computes them
//! (`scripts/calibration_reference.py` recomputes a report's figures with scipy).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Ranks of `v`, 1-based, ties given the mean of the ranks they span.
pub fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = mean;
        }
        i = j + 1;
    }
    out
}

/// Pearson's correlation; `None` when either side has no spread or fewer than 2 samples.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let Moments { sxy, sxx, syy, .. } = moments(x, y)?;
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// The means and centred sums of squares and products of paired samples.
struct Moments {
    n: usize,
    mx: f64,
    my: f64,
    sxy: f64,
    sxx: f64,
    syy: f64,
}

/// `None` with fewer than 2 pairs or sides of different lengths.
fn moments(x: &[f64], y: &[f64]) -> Option<Moments> {
    let n = x.len();
    if n < 2 || y.len() != n {
        return None;
    }
    let (mx, my) = (mean(x), mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    Some(Moments {
        n,
        mx,
        my,
        sxy,
        sxx,
        syy,
    })
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Spearman's rank correlation (Pearson's on average ranks); `None` without spread.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    pearson(&ranks(x), &ranks(y))
}

/// Kendall's tau-b (ties corrected, as scipy's default); `None` without spread.
pub fn kendall(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || y.len() != n {
        return None;
    }
    let (mut concordant, mut discordant, mut tie_x, mut tie_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].total_cmp(&x[j]) as i64;
            let dy = y[i].total_cmp(&y[j]) as i64;
            match (dx, dy) {
                (0, 0) => {}
                (0, _) => tie_x += 1,
                (_, 0) => tie_y += 1,
                _ if dx == dy => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let n1 = (concordant + discordant + tie_x) as f64;
    let n2 = (concordant + discordant + tie_y) as f64;
    if n1 <= 0.0 || n2 <= 0.0 {
        return None;
    }
    Some(((concordant - discordant) as f64 / (n1 * n2).sqrt()).clamp(-1.0, 1.0))
}

/// A least-squares line `y = intercept + slope x` with the slope's standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Change of y per unit of x.
    pub slope: f64,
    /// y at x = 0.
    pub intercept: f64,
    /// Standard error of the slope (as scipy.stats.linregress's `stderr`); `None` with fewer
    /// than 3 points.
    pub slope_stderr: Option<f64>,
}

/// The least-squares line through the points; `None` when x has no spread.
pub fn least_squares(x: &[f64], y: &[f64]) -> Option<Line> {
    let Moments {
        n,
        mx,
        my,
        sxy,
        sxx,
        syy,
    } = moments(x, y)?;
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let slope_stderr = (n > 2).then(|| {
        let residual = (syy - slope * sxy).max(0.0);
        (residual / (n as f64 - 2.0) / sxx).sqrt()
    });
    Some(Line {
        slope,
        intercept: my - slope * mx,
        slope_stderr,
    })
}

/// A statistic with its percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The statistic on the samples as measured.
    pub value: f64,
    /// 2.5th percentile of the resampled statistic.
    pub lower: f64,
    /// 97.5th percentile of the resampled statistic.
    pub upper: f64,
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.2} [{:.2}, {:.2}]",
            self.value, self.lower, self.upper
        )
    }
}

/// How the bootstrap resamples: how many resamples, from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bootstrap {
    /// Resamples drawn.
    pub resamples: usize,
    /// Seed of the resampling (ChaCha8).
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 4000,
            seed: 1,
        }
    }
}

/// `stat` on the samples with its 95% percentile bootstrap interval: the sets are drawn with
/// replacement `resamples` times (the same draws for every statistic of a seed); resamples on
/// which `stat` is not defined (no spread) are left out. `None` when `stat` is not defined on
/// the samples themselves.
pub fn bootstrap(
    x: &[f64],
    y: &[f64],
    how: Bootstrap,
    stat: impl Fn(&[f64], &[f64]) -> Option<f64>,
) -> Option<Interval> {
    let value = stat(x, y)?;
    let n = x.len();
    let mut rng = ChaCha8Rng::seed_from_u64(how.seed);
    let mut draws = Vec::with_capacity(how.resamples);
    let (mut bx, mut by) = (vec![0.0; n], vec![0.0; n]);
    for _ in 0..how.resamples {
        for k in 0..n {
            let i = rng.random_range(0..n);
            bx[k] = x[i];
            by[k] = y[i];
        }
        if let Some(s) = stat(&bx, &by) {
            draws.push(s);
        }
    }
    if draws.is_empty() {
        return Some(Interval {
            value,
            lower: value,
            upper: value,
        });
    }
    draws.sort_by(f64::total_cmp);
    Some(Interval {
        value,
        lower: percentile(&draws, 0.025),
        upper: percentile(&draws, 0.975),
    })
}

/// The `q` quantile of sorted values, linearly interpolated (numpy's default).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), [3.5, 1.0, 3.5, 2.0]);
    }

    #[test]
    fn spearman_and_kendall_of_known_samples() {
        // scipy.stats.spearmanr / kendalltau of these samples: 0.8 and 0.6 (no ties), and
        // with ties 0.7378647873726218 and 0.6708203932499369 (tau-b).
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [2.0, 1.0, 4.0, 3.0, 5.0];
        assert!((spearman(&x, &y).unwrap() - 0.8).abs() < 1e-12);
        assert!((kendall(&x, &y).unwrap() - 0.6).abs() < 1e-12);
        let y = [1.0, 1.0, 2.0, 3.0, 2.0];
        assert!((spearman(&x, &y).unwrap() - 0.790_569_415_042_094_8).abs() < 1e-12);
        assert!((kendall(&x, &y).unwrap() - 0.670_820_393_249_936_8).abs() < 1e-12);
        assert_eq!(spearman(&x, &[1.0; 5]), None);
        assert_eq!(kendall(&[1.0; 5], &x), None);
    }

    #[test]
    fn least_squares_recovers_a_line_and_its_error() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y = [1.0, 3.0, 5.0, 7.0];
        let line = least_squares(&x, &y).unwrap();
        assert!((line.slope - 2.0).abs() < 1e-12 && (line.intercept - 1.0).abs() < 1e-12);
        assert!(line.slope_stderr.unwrap() < 1e-9);
        // scipy.stats.linregress([0,1,2,3],[1,3,4,8]): slope 2.2, stderr 0.4242640687119281.
        let line = least_squares(&x, &[1.0, 3.0, 4.0, 8.0]).unwrap();
        assert!((line.slope - 2.2).abs() < 1e-12);
        assert!((line.slope_stderr.unwrap() - 0.424_264_068_711_928_1).abs() < 1e-12);
    }

    #[test]
    fn bootstrap_interval_holds_the_value_and_repeats_by_seed() {
        let x: Vec<f64> = (0..12).map(f64::from).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|v| v + if *v as i32 % 3 == 0 { 4.0 } else { 0.0 })
            .collect();
        let how = Bootstrap::default();
        let a = bootstrap(&x, &y, how, spearman).unwrap();
        assert!(a.lower <= a.value && a.value <= a.upper && a.upper <= 1.0);
        assert!(
            a.lower > 0.0,
            "a strong relation keeps its lower bound above 0: {a}"
        );
        assert_eq!(a, bootstrap(&x, &y, how, spearman).unwrap());
        let other = bootstrap(&x, &y, Bootstrap { seed: 2, ..how }, spearman).unwrap();
        assert_eq!(a.value, other.value);
    }

    #[test]
    fn percentile_interpolates_as_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 0.5), 2.5);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 1.0), 4.0);
    }
}
