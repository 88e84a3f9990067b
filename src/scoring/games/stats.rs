// SPDX-License-Identifier: GPL-3.0-or-later
//
// This file is part of marginal.
//
// marginal is free software: you can redistribute it and/or modify it under
// the terms of the GNU General Public License as published by the Free
// Software Foundation, either version 3 of the License, or (at your option)
// any later version.
//
// marginal is distributed in the hope that it will be useful, but WITHOUT ANY
// WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
// FOR A PARTICULAR PURPOSE. See the GNU General Public License for more
// details.

//! Self-play match statistics for game pairs: Elo and normalized Elo
//! estimates with 95 % confidence intervals, likelihood of superiority (LOS)
//! and the normalized-Elo generalized SPRT, computed the way fishtest and
//! fastchess compute them. Written from the published formulas; no external
//! maths crate.
//!
//! # Conventions
//!
//! * Everything is from the point of view of engine **A** (the first engine,
//!   usually the candidate). A positive Elo means A is stronger.
//! * Scores are **per game**, in points, in `[0, 1]`: win 1, draw ½, loss 0.
//! * One pentanomial sample is one *pair* of games (same opening, colours
//!   swapped). Its value is the pair score divided by two, so the five
//!   outcomes `LL, LD, WL+DD, WD, WW` have the values
//!   `a = 0, ¼, ½, ¾, 1`. One trinomial sample is one game with
//!   values `a = 0, ½, 1` for `L, D, W`.
//! * `N` is the number of samples (pairs, or games for [`Wdl`]),
//!   `p̂ᵢ = nᵢ / N` the observed frequencies,
//!   `μ = Σ p̂ᵢ aᵢ` the mean score per game and
//!   `σ² = Σ p̂ᵢ (aᵢ − μ)²` the (biased, maximum-likelihood) variance of one
//!   sample.
//!
//! # Formulas
//!
//! * Logistic Elo: `elo(s) = −400 · log₁₀(1/s − 1)`, inverse
//!   `s(elo) = 1 / (1 + 10^(−elo/400))`.
//! * 95 % interval for the score: `μ ± z · √(σ²/N)` with
//!   `z = Φ⁻¹(0.975) =` [`Z_975`]; its ends are mapped through `elo(·)`.
//! * Normalized Elo (Van den Bergh, *Comments on normalized Elo*,
//!   <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>):
//!   `nElo = (μ − ½) / σ_game · 800/ln 10`, where `σ_game` is the standard
//!   deviation of the score of *one game*. For pentanomial samples
//!   `σ_game = √2 · σ` (a pair averages two games), for trinomial samples
//!   `σ_game = σ`. The nElo interval applies the same linear map to the ends
//!   of the score interval, keeping `σ` at its observed value (fastchess and
//!   fishtest do the same).
//! * LOS: `Φ((μ − ½) / √(σ²/N))`, `Φ` the standard normal CDF ([`normal_cdf`]).
//! * SPRT: see [`sprt_llr`].
//!
//! # Compatibility notes
//!
//! * [`sprt_llr`] reproduces fishtest's `LLRcalc.LLR_normalized` (which the
//!   fishtest server uses for every normalized-Elo SPRT) and fastchess's
//!   normalized pentanomial LLR, including their regularization of empty
//!   bins (see [`REGULARIZATION`]). It iterates to full convergence and
//!   agreed with fishtest's code to about 1e-10 relative on the test cases.
//!   fastchess uses the same method with looser stopping rules (1e-4 on the
//!   probabilities, 1e-7 on the multiplier); an emulation of those changed
//!   the LLR by at most about 1e-7 relative on the same cases.
//! * The hypotheses constrain the *t-value* `(μ − ½)/σ` of the fitted
//!   distribution, not its score: converting `nElo` to a score with the
//!   *observed* `σ` and constraining the mean instead (as fishtest's
//!   `sprt.py` does for its Elo-interval analytics) is a different statistic
//!   that differs from the SPRT LLR by up to 10 % on small samples.
//! * The estimates ([`Pentanomial::estimate`], [`Wdl::estimate`]) are *not*
//!   regularized, exactly like fastchess. fishtest's `get_elo` replaces empty
//!   bins by 1e-3 and clamps the score to `[0.001, 0.999]`, so it differs
//!   slightly from these numbers whenever a bin is empty.
//! * Non-finite values: estimates use `±∞` for Elo values that are infinite
//!   (score 0 or 1, or an interval end outside `(0, 1)`). `serde_json` writes
//!   non-finite floats as `null` and cannot read them back into `f64`; use a
//!   format that supports them, or check before serializing. For JSON and
//!   for people, [`EloSummary`] holds each value as an `Option` that is
//!   `None` (`null`, printed `n/a` by [`Shown`]) exactly when the statistic
//!   is not defined (not finite, or a convention of samples without spread),
//!   and reads back.

use serde::{Deserialize, Serialize};
use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, SQRT_2};
use std::ops::AddAssign;

/// Normalized Elo per unit of t-value for one game: `800 / ln 10 ≈ 347.4356`.
///
/// A t-value (`(μ − ½) / σ_game`, dimensionless) times this constant is
/// normalized Elo; for a pentanomial sample the per-pair t-value is `√2`
/// times the per-game one.
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// Two-sided 95 % standard-normal quantile `Φ⁻¹(0.975)`, used for every
/// confidence interval in this module (dimensionless).
pub const Z_975: f64 = 1.959_963_984_540_054;

/// Pseudo-count that replaces an empty outcome bin before the SPRT
/// log-likelihood ratio is computed (a count of games or pairs).
///
/// fishtest (`LLRcalc.regularize`) and fastchess (`regularize`) both do this;
/// it keeps every outcome possible under both hypotheses so the LLR stays
/// finite. The sample count `N` used by the LLR includes these pseudo-counts.
pub const REGULARIZATION: f64 = 1e-3;

/// Result of one game from engine A's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// Engine A won (1 point).
    Win,
    /// Draw (½ point each).
    Draw,
    /// Engine A lost (0 points).
    Loss,
}

impl GameResult {
    /// Engine A's score for this game in points: 1, 0.5 or 0.
    pub fn score(self) -> f64 {
        self.half_points() as f64 / 2.0
    }

    /// Engine A's score in half points: 2, 1 or 0.
    fn half_points(self) -> usize {
        match self {
            GameResult::Win => 2,
            GameResult::Draw => 1,
            GameResult::Loss => 0,
        }
    }
}

/// Win/draw/loss counts of single games, from engine A's point of view.
///
/// Counts are numbers of games. Sums saturate at `u64::MAX` instead of
/// overflowing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won by engine A.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games lost by engine A.
    pub losses: u64,
}

impl Wdl {
    /// Records one game result (from engine A's point of view).
    pub fn add_game(&mut self, result: GameResult) {
        let slot = match result {
            GameResult::Win => &mut self.wins,
            GameResult::Draw => &mut self.draws,
            GameResult::Loss => &mut self.losses,
        };
        *slot = slot.saturating_add(1);
    }

    /// Total number of games, `wins + draws + losses` (saturating).
    pub fn total_games(&self) -> u64 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// Counts ordered by score, low to high: `[losses, draws, wins]`.
    pub fn counts(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// Trinomial Elo estimate (one sample = one game).
    ///
    /// `σ_game = σ`; otherwise the formulas and the documented edge-case
    /// values are those of [`Pentanomial::estimate`]. Note that games of a
    /// pair are correlated, so for paired play the pentanomial estimate is
    /// the statistically sound one; this is provided for unpaired play and
    /// for comparison.
    pub fn estimate(&self) -> EloEstimate {
        estimate_from_counts(&self.counts(), 1.0)
    }
}

impl AddAssign for Wdl {
    /// Adds the counts of `rhs` (saturating).
    fn add_assign(&mut self, rhs: Wdl) {
        self.wins = self.wins.saturating_add(rhs.wins);
        self.draws = self.draws.saturating_add(rhs.draws);
        self.losses = self.losses.saturating_add(rhs.losses);
    }
}

/// Pentanomial counts of game pairs, from engine A's point of view.
///
/// Each field counts *pairs* whose total score for A is 0, ½, 1, 1½ or 2
/// points. `wl_dd` merges a win plus a loss with two draws (both score 1
/// point), so the individual W/D/L counts cannot be recovered exactly (see
/// [`Pentanomial::to_wdl`]). Sums saturate at `u64::MAX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs with two losses (pair score 0).
    pub ll: u64,
    /// Pairs with a loss and a draw, in either order (pair score ½).
    pub ld: u64,
    /// Pairs with a win and a loss, or two draws (pair score 1).
    pub wl_dd: u64,
    /// Pairs with a win and a draw, in either order (pair score 1½).
    pub wd: u64,
    /// Pairs with two wins (pair score 2).
    pub ww: u64,
}

impl Pentanomial {
    /// Builds counts from `[ll, ld, wl_dd, wd, ww]` (pair score low to high).
    pub fn from_counts(counts: [u64; 5]) -> Self {
        let [ll, ld, wl_dd, wd, ww] = counts;
        Pentanomial {
            ll,
            ld,
            wl_dd,
            wd,
            ww,
        }
    }

    /// Counts ordered by pair score, low to high: `[ll, ld, wl_dd, wd, ww]`.
    pub fn counts(&self) -> [u64; 5] {
        [self.ll, self.ld, self.wl_dd, self.wd, self.ww]
    }

    /// Records one game pair. Both results are from engine A's point of
    /// view; their order does not matter.
    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        let slot = match first.half_points() + second.half_points() {
            0 => &mut self.ll,
            1 => &mut self.ld,
            2 => &mut self.wl_dd,
            3 => &mut self.wd,
            _ => &mut self.ww,
        };
        *slot = slot.saturating_add(1);
    }

    /// Total number of game pairs (saturating sum of the five counts).
    pub fn total_pairs(&self) -> u64 {
        self.counts()
            .iter()
            .fold(0u64, |acc, &c| acc.saturating_add(c))
    }

    /// Converts to single-game W/D/L counts (`2 ×` pairs games).
    ///
    /// **Lossy:** the `wl_dd` bin cannot be split into win+loss and
    /// draw+draw pairs, so all of it is counted as two draws:
    /// `wins = 2·ww + wd`, `draws = ld + 2·wl_dd + wd`,
    /// `losses = 2·ll + ld`. The total score is exact; the W/L counts are
    /// lower bounds. Keep a [`Wdl`] alongside (fed with
    /// [`Wdl::add_game`]) if the exact split matters.
    pub fn to_wdl(&self) -> Wdl {
        let twice = |x: u64| x.saturating_mul(2);
        Wdl {
            wins: twice(self.ww).saturating_add(self.wd),
            draws: self
                .ld
                .saturating_add(twice(self.wl_dd))
                .saturating_add(self.wd),
            losses: twice(self.ll).saturating_add(self.ld),
        }
    }

    /// Pentanomial Elo estimate with 95 % confidence intervals and LOS.
    ///
    /// With `N` pairs, `μ = Σ p̂ᵢ aᵢ` (score per game, `aᵢ = 0, ¼, ½, ¾, 1`)
    /// and `σ² = Σ p̂ᵢ (aᵢ − μ)²` (variance of one pair's score / 2):
    ///
    /// * `elo = elo_from_score(μ)`, `[lower, upper] =
    ///   elo_from_score(μ ∓ Z_975 · √(σ²/N))`;
    /// * `nelo = (μ − ½) / (√2 · σ) · 800/ln 10`, and the same map applied to
    ///   `μ ∓ Z_975 · √(σ²/N)` for `nelo_lower`, `nelo_upper`;
    /// * `los = Φ((μ − ½) / √(σ²/N))`.
    ///
    /// Edge cases (never NaN):
    ///
    /// * no pairs: [`EloEstimate::NO_DATA`] (0 with infinite intervals, LOS ½);
    /// * all pairs in one bin (`σ = 0`; e.g. all draws, all wins): the
    ///   intervals collapse to `elo`; `nelo` is 0 if `μ = ½`, else `±∞`
    ///   with the sign of `μ − ½`; `los` is ½, 1 or 0 likewise. All wins
    ///   gives `elo = +∞`, all losses `−∞`;
    /// * an interval end outside `(0, 1)` maps to `±∞` Elo (nElo stays
    ///   finite because it is linear in the score).
    pub fn estimate(&self) -> EloEstimate {
        estimate_from_counts(&self.counts(), SQRT_2)
    }
}

impl AddAssign for Pentanomial {
    /// Adds the counts of `rhs` (saturating).
    fn add_assign(&mut self, rhs: Pentanomial) {
        self.ll = self.ll.saturating_add(rhs.ll);
        self.ld = self.ld.saturating_add(rhs.ld);
        self.wl_dd = self.wl_dd.saturating_add(rhs.wl_dd);
        self.wd = self.wd.saturating_add(rhs.wd);
        self.ww = self.ww.saturating_add(rhs.ww);
    }
}

/// Elo estimate of engine A relative to engine B.
///
/// All Elo fields are in logistic Elo, all `nelo*` fields in normalized Elo
/// (per game, see the module docs), `los` is a probability in `[0, 1]`.
/// Invariants: `lower ≤ elo ≤ upper`, `nelo_lower ≤ nelo ≤ nelo_upper`; the
/// `lower`/`upper` pairs bound a two-sided 95 % normal-approximation
/// confidence interval. Fields are never NaN but may be `±∞` (see
/// [`Pentanomial::estimate`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Point estimate, logistic Elo: `elo_from_score(μ)`.
    pub elo: f64,
    /// Lower end of the 95 % interval, logistic Elo.
    pub lower: f64,
    /// Upper end of the 95 % interval, logistic Elo.
    pub upper: f64,
    /// Point estimate, normalized Elo: `(μ − ½) / σ_game · 800/ln 10`.
    pub nelo: f64,
    /// Lower end of the 95 % interval, normalized Elo.
    pub nelo_lower: f64,
    /// Upper end of the 95 % interval, normalized Elo.
    pub nelo_upper: f64,
    /// Likelihood of superiority `Φ((μ − ½) / √(σ²/N))`: the (normal
    /// approximation) probability that engine A is the stronger one.
    pub los: f64,
}

impl EloEstimate {
    /// The estimate for zero samples: no information. Point estimates 0,
    /// intervals `(−∞, +∞)`, LOS ½.
    pub const NO_DATA: EloEstimate = EloEstimate {
        elo: 0.0,
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
        nelo: 0.0,
        nelo_lower: f64::NEG_INFINITY,
        nelo_upper: f64::INFINITY,
        los: 0.5,
    };
}

/// `Some(x)` if `x` is finite, else `None` (for `±∞` and NaN).
///
/// JSON has no infinities: this is how reports write statistics that can be
/// infinite (an Elo of a side that scored 0 % or 100 %), as `null`.
pub fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// A statistic for people: written like the number it holds, with the format's sign,
/// precision and width (`format!("{:+.2}", Shown(summary.elo))`), or `n/a` while the statistic
/// is not defined (`None`, see [`EloSummary`]; a NaN or infinite number too). `n/a` is
/// right-aligned in a width, as a number is. [`Shown::from`] takes a plain `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shown(pub Option<f64>);

impl From<f64> for Shown {
    /// `n/a` unless finite.
    fn from(x: f64) -> Shown {
        Shown(finite(x))
    }
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.filter(|x| x.is_finite()) {
            Some(x) => std::fmt::Display::fmt(&x, f),
            None => {
                // Not `pad`: it would cut "n/a" to the format's precision.
                let width = f.width().unwrap_or(0);
                write!(f, "{NOT_DEFINED:>width$}")
            }
        }
    }
}

/// How [`Shown`] writes a statistic that is not defined.
pub const NOT_DEFINED: &str = "n/a";

impl EloEstimate {
    /// Whether the samples had any spread (a variance above 0). Without it (no samples, or
    /// every sample in the same bin, as after a single pair) the intervals, the normalized Elo
    /// and the LOS are conventions rather than estimates (collapsed intervals; nElo `±∞`, or 0
    /// for a score of ½; LOS 0, ½ or 1; see [`Pentanomial::estimate`]).
    pub fn has_spread(&self) -> bool {
        // With a spread the nElo interval is finite and not empty (nElo is linear in the score).
        self.nelo_lower.is_finite()
            && self.nelo_upper.is_finite()
            && self.nelo_lower < self.nelo_upper
    }
}

/// An [`EloEstimate`] for people and for JSON: the same fields and units, each `None` (written
/// as `null`, printed as `n/a` by [`Shown`]) exactly when the statistic is not defined:
///
/// * with no samples ([`EloEstimate::NO_DATA`]), every one;
/// * `elo` when it is `±∞` (a score of 0% or 100%);
/// * an interval end when it is `±∞` (it reaches a 0% or 100% score);
/// * the intervals, `nelo` and `los` when the samples have no spread
///   ([`EloEstimate::has_spread`]).
///
/// So it always serializes to valid JSON and reads back (bit for bit with serde_json's
/// `float_roundtrip` feature, else to within one unit in the last place). The exact values,
/// infinities and conventions included, are the [`EloEstimate`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloSummary {
    /// Point estimate, logistic Elo (`None`: `±∞`, or no samples).
    pub elo: Option<f64>,
    /// Lower end of the 95 % interval, logistic Elo (`None`: `−∞`, or `+∞`
    /// for a 100 % score, or no spread).
    pub lower: Option<f64>,
    /// Upper end of the 95 % interval, logistic Elo (`None`: `+∞`, or `−∞`
    /// for a 0 % score, or no spread).
    pub upper: Option<f64>,
    /// Point estimate, normalized Elo (`None`: no spread).
    pub nelo: Option<f64>,
    /// Lower end of the 95 % interval, normalized Elo (`None`: no spread).
    pub nelo_lower: Option<f64>,
    /// Upper end of the 95 % interval, normalized Elo (`None`: no spread).
    pub nelo_upper: Option<f64>,
    /// Likelihood of superiority, a probability in `[0, 1]` (`None`: no spread).
    pub los: Option<f64>,
}

impl From<EloEstimate> for EloSummary {
    /// Keeps each statistic that is defined (see [`EloSummary`]).
    fn from(e: EloEstimate) -> Self {
        let spread = e.has_spread();
        let if_spread = |x: f64| finite(x).filter(|_| spread);
        EloSummary {
            elo: finite(e.elo).filter(|_| e != EloEstimate::NO_DATA),
            lower: if_spread(e.lower),
            upper: if_spread(e.upper),
            nelo: if_spread(e.nelo),
            nelo_lower: if_spread(e.nelo_lower),
            nelo_upper: if_spread(e.nelo_upper),
            los: if_spread(e.los),
        }
    }
}

/// Logistic Elo difference for an expected score per game:
/// `−400 · log₁₀(1/s − 1)`.
///
/// `score` is in points per game. Scores `≤ 0` give `−∞`, scores `≥ 1` give
/// `+∞`; NaN gives NaN (the only NaN output).
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        f64::NAN
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // 400·log10(s/(1−s)) is the same quantity, better conditioned.
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// Expected score per game (points, in `[0, 1]`) for a logistic Elo
/// difference: `1 / (1 + 10^(−elo/400))`. Inverse of [`elo_from_score`];
/// `±∞` map to 1 and 0, NaN to NaN.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function `erf(x) = 2/√π ∫₀ˣ e^(−t²) dt`.
///
/// For `|x| < 2.5` the everywhere-positive series
/// `erf(x) = 2/√π · e^(−x²) · Σₙ 2ⁿ x^(2n+1) / (1·3·…·(2n+1))` is summed;
/// beyond that `1 − erfc(x)` is used (see [`erfc`]). Absolute error below
/// about 1e-15. Odd; `erf(±∞) = ±1`; NaN gives NaN.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < 0.0 {
        -erf(-x)
    } else if x < ERF_SERIES_LIMIT {
        erf_series(x)
    } else {
        1.0 - erfc_continued_fraction(x)
    }
}

/// The complementary error function `erfc(x) = 1 − erf(x)`.
///
/// For `x ≥ 2.5` a Lentz-evaluated continued fraction
/// `erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + (3/2)/(x + …))))` keeps
/// full *relative* precision in the tail; below that `1 − erf(x)` (from the
/// series) is used, and `erfc(x) = 2 − erfc(−x)` for negative `x`. Values
/// are in `[0, 2]`; `erfc(+∞) = 0`, `erfc(−∞) = 2`; NaN gives NaN.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < 0.0 {
        2.0 - erfc(-x)
    } else if x < ERF_SERIES_LIMIT {
        1.0 - erf_series(x)
    } else {
        erfc_continued_fraction(x)
    }
}

/// Standard normal cumulative distribution function
/// `Φ(z) = ½ · erfc(−z/√2)`, a probability in `[0, 1]`.
/// `Φ(−∞) = 0`, `Φ(+∞) = 1`; NaN gives NaN.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / SQRT_2)
}

/// Boundary between the series and the continued fraction in [`erf`].
const ERF_SERIES_LIMIT: f64 = 2.5;

/// `erf(x)` for `0 ≤ x < ERF_SERIES_LIMIT` from the positive-term series.
fn erf_series(x: f64) -> f64 {
    let two_x2 = 2.0 * x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    // Terms first grow (up to n ≈ x²) and then fall faster than 2x²/(2n+3);
    // 200 terms are far more than needed for x < 2.5.
    for _ in 0..200 {
        term *= two_x2 / (2.0 * n + 3.0);
        sum += term;
        n += 1.0;
        if term <= sum * 1e-17 {
            break;
        }
    }
    FRAC_2_SQRT_PI * (-x * x).exp() * sum
}

/// `erfc(x)` for `x ≥ ERF_SERIES_LIMIT` from the continued fraction
/// `x + a₁/(x + a₂/(x + …))`, `aₙ = n/2`, evaluated with the modified
/// Lentz algorithm.
fn erfc_continued_fraction(x: f64) -> f64 {
    // e^(−x²) underflows to 0 well before this; avoids ∞·0 in Lentz.
    if x > 27.5 {
        return 0.0;
    }
    const TINY: f64 = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..500 {
        let a = n as f64 / 2.0;
        d = x + a * d;
        if d == 0.0 {
            d = TINY;
        }
        c = x + a / c;
        if c == 0.0 {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    0.5 * FRAC_2_SQRT_PI * (-x * x).exp() / f
}

/// Outcome values `aᵢ = i/(K−1)`: `0, ½, 1` (K = 3) or `0, ¼, ½, ¾, 1`
/// (K = 5), exact in binary floating point.
fn outcome_values<const K: usize>() -> [f64; K] {
    std::array::from_fn(|i| i as f64 / (K - 1) as f64)
}

/// Mean and variance of a distribution with probabilities `p` over the
/// values `a` (two-pass; the variance is clamped to be non-negative).
fn moments<const K: usize>(a: &[f64; K], p: &[f64; K]) -> (f64, f64) {
    let mean: f64 = a.iter().zip(p).map(|(ai, pi)| ai * pi).sum();
    let var: f64 = a
        .iter()
        .zip(p)
        .map(|(ai, pi)| pi * (ai - mean) * (ai - mean))
        .sum();
    (mean, var.max(0.0))
}

/// Shared implementation of the estimates; `sigma_game_factor` is
/// `σ_game / σ` (√2 for pairs, 1 for games).
fn estimate_from_counts<const K: usize>(counts: &[u64; K], sigma_game_factor: f64) -> EloEstimate {
    let n: u64 = counts.iter().fold(0u64, |acc, &c| acc.saturating_add(c));
    if n == 0 {
        return EloEstimate::NO_DATA;
    }
    let nf = n as f64;
    let steps = (K - 1) as f64;
    // The total score is an integer in units of 1/(K−1) point, so μ is a
    // single correctly rounded division (exactly ½ for symmetric counts).
    let total: u128 = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| u128::from(c) * i as u128)
        .sum();
    let mu = total as f64 / (nf * steps);
    let a = outcome_values::<K>();
    let var: f64 = counts
        .iter()
        .zip(&a)
        .map(|(&c, ai)| (c as f64 / nf) * (ai - mu) * (ai - mu))
        .sum();
    let elo = elo_from_score(mu);
    let delta = mu - 0.5;

    if var <= 0.0 {
        // Every sample in the same bin: no spread, so no interval width and
        // an infinite t-value unless the score is exactly ½.
        let (nelo, los) = if delta > 0.0 {
            (f64::INFINITY, 1.0)
        } else if delta < 0.0 {
            (f64::NEG_INFINITY, 0.0)
        } else {
            (0.0, 0.5)
        };
        return EloEstimate {
            elo,
            lower: elo,
            upper: elo,
            nelo,
            nelo_lower: nelo,
            nelo_upper: nelo,
            los,
        };
    }

    let se = (var / nf).sqrt();
    let (lo, hi) = (mu - Z_975 * se, mu + Z_975 * se);
    let sigma_game = sigma_game_factor * var.sqrt();
    let nelo_of = |s: f64| (s - 0.5) / sigma_game * NELO_PER_T;
    EloEstimate {
        elo,
        lower: elo_from_score(lo),
        upper: elo_from_score(hi),
        nelo: nelo_of(mu),
        nelo_lower: nelo_of(lo),
        nelo_upper: nelo_of(hi),
        los: normal_cdf(delta / se),
    }
}

/// SPRT design: hypotheses in **normalized Elo per game** and error rates.
///
/// `H0: nElo = elo0` against `H1: nElo = elo1`; `alpha` is the probability
/// of accepting H1 when H0 holds, `beta` the probability of accepting H0
/// when H1 holds. Valid designs have finite `elo0 < elo1` and
/// `0 < alpha, beta`, `alpha + beta < 1` (see [`SprtParams::validate`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtParams {
    /// H0 normalized Elo (per game).
    pub elo0: f64,
    /// H1 normalized Elo (per game).
    pub elo1: f64,
    /// Type I error rate (false acceptance of H1), in `(0, 1)`.
    pub alpha: f64,
    /// Type II error rate (false acceptance of H0), in `(0, 1)`.
    pub beta: f64,
}

impl Default for SprtParams {
    /// `elo0 = 0`, `elo1 = 5` (normalized Elo), `alpha = beta = 0.05`.
    fn default() -> Self {
        SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

impl SprtParams {
    /// Wald's stopping bounds on the LLR, `(lower, upper) =
    /// (ln(β/(1−α)), ln((1−β)/α))` (natural-log units). Accept H0 at or
    /// below `lower`, H1 at or above `upper`. For the default design this is
    /// `(−2.944…, +2.944…)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Checks the design: finite `elo0 < elo1` within ±[`MAX_SPRT_ELO`], `alpha` and `beta` in
    /// `(0, 1)` and `alpha + beta < 1` (the same checks fastchess makes).
    /// The LLR functions do not require this and never panic, but their
    /// result is meaningless for an invalid design.
    pub fn validate(&self) -> Result<(), &'static str> {
        if !(self.elo0.is_finite() && self.elo1.is_finite()) {
            Err("SPRT: elo0 and elo1 must be finite")
        } else if self.elo0 >= self.elo1 {
            Err("SPRT: elo0 must be less than elo1")
        } else if self.elo0.abs() > MAX_SPRT_ELO || self.elo1.abs() > MAX_SPRT_ELO {
            Err(
                "SPRT: elo0 and elo1 must lie within -1000..1000 normalized Elo (fishtest tests [0, 2] to [0, 10]; a gap of hundreds is decided in a few games, without an SPRT)",
            )
        } else if !(self.alpha > 0.0 && self.alpha < 1.0) {
            Err("SPRT: alpha must be in (0, 1)")
        } else if !(self.beta > 0.0 && self.beta < 1.0) {
            Err("SPRT: beta must be in (0, 1)")
        } else if self.alpha + self.beta >= 1.0 {
            Err("SPRT: alpha + beta must be less than 1")
        } else {
            Ok(())
        }
    }
}

/// The largest |elo0| or |elo1| (normalized Elo) an SPRT design may name: beyond it the
/// design's expected scores are within rounding of 0 or 1, and the test says nothing games
/// would not show at once.
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// State of a sequential test after comparing the LLR with the bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SprtDecision {
    /// LLR at or below the lower bound: accept H0 (reject the change).
    AcceptH0,
    /// LLR at or above the upper bound: accept H1 (accept the change).
    AcceptH1,
    /// LLR strictly between the bounds: keep playing.
    Continue,
}

/// Compares a log-likelihood ratio with `params.bounds()`:
/// `llr ≥ upper` → [`SprtDecision::AcceptH1`], `llr ≤ lower` →
/// [`SprtDecision::AcceptH0`], otherwise (including NaN)
/// [`SprtDecision::Continue`].
pub fn sprt_decide(llr: f64, params: &SprtParams) -> SprtDecision {
    let (lower, upper) = params.bounds();
    if llr >= upper {
        SprtDecision::AcceptH1
    } else if llr <= lower {
        SprtDecision::AcceptH0
    } else {
        SprtDecision::Continue
    }
}

/// Generalized SPRT log-likelihood ratio (natural log) for
/// `H1: nElo = params.elo1` against `H0: nElo = params.elo0` on pentanomial
/// counts; positive values favour H1. This is the value fishtest
/// (`LLRcalc.LLR_normalized`) and fastchess compute for a normalized-Elo
/// SPRT with pentanomial statistics.
///
/// Method (Van den Bergh, *Comments on normalized Elo*, §4.1):
///
/// 1. Regularize: empty bins get [`REGULARIZATION`] pseudo-pairs;
///    `N = Σ nᵢ` (including pseudo-counts), `p̂ᵢ = nᵢ/N`, `aᵢ = 0, ¼, ½, ¾, 1`.
/// 2. Each hypothesis fixes the per-pair t-value
///    `t = (μ − ½)/σ = √2 · nElo / (800/ln 10)` (per-game t-value `nElo /
///    (800/ln 10)`, times √2 because a pair averages two games).
/// 3. For each hypothesis find the maximum-likelihood distribution
///    `p = argmax Σ p̂ᵢ ln pᵢ` subject to `Σ pᵢ = 1` and
///    `(μ_p − ½)/σ_p = t`. The Lagrange conditions give
///    `pᵢ = p̂ᵢ / (1 + θ φᵢ)` with
///    `φᵢ = aᵢ − ½ − t · (σ_p² + (aᵢ − μ_p)²) / (2σ_p)`, where `θ` is the
///    unique root of `Σ p̂ᵢ φᵢ / (1 + θ φᵢ) = 0` in the interval where all
///    `1 + θ φᵢ > 0` (found by bisection to full precision). Because `φ`
///    depends on `p`, this is iterated from the uniform distribution until
///    the probabilities change by less than 1e-14.
/// 4. `LLR = N · (Σ p̂ᵢ ln p1ᵢ − Σ p̂ᵢ ln p0ᵢ) = N · Σ p̂ᵢ ln(p1ᵢ/p0ᵢ)`.
///
/// For `|nElo|` beyond roughly 250–300 the iteration of step 3 cannot start
/// (`φ` has no sign change at the uniform distribution; fishtest fails with
/// an assertion there). Only then the same maximum is found by a different,
/// global method: a scan over `σ` of the convex dual with the two linear
/// constraints `mean = ½ + tσ`, `second moment = (½ + tσ)² + σ²` (the
/// constrained problem is not concave and has local maxima for such `t`).
/// Hypotheses that far out are of no practical use; this only guarantees a
/// meaningful, finite value.
///
/// Edge cases: zero pairs give exactly 0. Thanks to the regularization,
/// degenerate data (all draws, all wins, …) give finite values; with a
/// single occupied bin the only spread comes from the pseudo-counts, so the
/// value stays small (12 WW pairs give about 0.24 for the default design).
/// Non-finite `elo0`/`elo1` give NaN. Should neither method find a solution
/// (never observed), [`sprt_llr_normal_approx`] is returned instead of NaN.
/// Cost: about 10 µs per call in a release build (a few ms in the
/// far-out fallback).
pub fn sprt_llr(p: &Pentanomial, params: &SprtParams) -> f64 {
    let (t0, t1) = (
        SQRT_2 * params.elo0 / NELO_PER_T,
        SQRT_2 * params.elo1 / NELO_PER_T,
    );
    gsprt_llr(&p.counts(), t0, t1)
}

/// Trinomial counterpart of [`sprt_llr`] (one sample = one game, values
/// `0, ½, 1` for `L, D, W`, t-value `nElo / (800/ln 10)` without the √2),
/// matching fishtest's `LLR_normalized` and fastchess's normalized LLR for
/// W/D/L statistics. Empty bins get [`REGULARIZATION`] pseudo-games. Same
/// edge-case behaviour.
pub fn sprt_llr_wdl(w: &Wdl, params: &SprtParams) -> f64 {
    let (t0, t1) = (params.elo0 / NELO_PER_T, params.elo1 / NELO_PER_T);
    gsprt_llr(&w.counts(), t0, t1)
}

/// Normal (Brownian-motion) approximation of [`sprt_llr`], for
/// cross-checking.
///
/// With the same regularized `N`, `μ`, `σ` as [`sprt_llr`] and the
/// observed per-pair t-value `T = (μ − ½)/σ`, the hypotheses
/// `Tⱼ = √2 · eloⱼ / (800/ln 10)` give
/// `LLR ≈ N/2 · ((T − T0)² − (T − T1)²) = N/2 · (T1 − T0)(2T − T0 − T1)`.
/// (Equivalently: the classic `N (s1 − s0)(2μ − s0 − s1) / (2σ²)` with the
/// score hypotheses `sⱼ = ½ + Tⱼ σ`.) Close to the exact value (within
/// 0.2 % on the large test samples) when the observed and hypothesised
/// t-values are small, the usual situation in a long test of a small
/// change. For fixed frequencies both values grow in proportion to `N`, so
/// the relative gap does not shrink with `N` alone. Far off for tiny or
/// degenerate samples, whose regularized `σ` is tiny. Zero pairs give 0;
/// non-finite `elo0`/`elo1` give NaN.
pub fn sprt_llr_normal_approx(p: &Pentanomial, params: &SprtParams) -> f64 {
    let (t0, t1) = (
        SQRT_2 * params.elo0 / NELO_PER_T,
        SQRT_2 * params.elo1 / NELO_PER_T,
    );
    normal_approx_llr(&p.counts(), t0, t1)
}

/// Regularized sample size and frequencies (see [`REGULARIZATION`]).
fn regularized<const K: usize>(counts: &[u64; K]) -> (f64, [f64; K]) {
    let c: [f64; K] = std::array::from_fn(|i| {
        if counts[i] == 0 {
            REGULARIZATION
        } else {
            counts[i] as f64
        }
    });
    let n: f64 = c.iter().sum();
    (n, c.map(|x| x / n))
}

/// Brownian approximation of the normalized GSPRT LLR; `t0`, `t1` are
/// per-sample t-values.
fn normal_approx_llr<const K: usize>(counts: &[u64; K], t0: f64, t1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    if !(t0.is_finite() && t1.is_finite()) {
        return f64::NAN;
    }
    let (n, phat) = regularized(counts);
    let (mu, var) = moments(&outcome_values::<K>(), &phat);
    let t = (mu - 0.5) / var.sqrt();
    0.5 * n * (t1 - t0) * (2.0 * t - t0 - t1)
}

/// Exact normalized GSPRT LLR; `t0`, `t1` are per-sample t-values.
fn gsprt_llr<const K: usize>(counts: &[u64; K], t0: f64, t1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    if !(t0.is_finite() && t1.is_finite()) {
        return f64::NAN;
    }
    let (n, phat) = regularized(counts);
    let a = outcome_values::<K>();
    if let (Some(l0), Some(l1)) = (
        max_log_likelihood(&a, &phat, t0),
        max_log_likelihood(&a, &phat, t1),
    ) {
        let llr = n * (l1 - l0);
        if llr.is_finite() {
            return llr;
        }
    }
    // Not reached in any test; kept so that the result is never NaN.
    normal_approx_llr(counts, t0, t1)
}

/// `max Σ p̂ᵢ ln pᵢ` over distributions `p` on the values `a` with t-value
/// `(μ_p − ½)/σ_p = t`, for strictly positive frequencies `phat`.
///
/// First Van den Bergh's fixed-point iteration from the uniform
/// distribution (the published method, so the result is the one fishtest
/// computes). It cannot start when `|t|` is large (several hundred nElo);
/// then, and only then, [`profile_max_log_likelihood`] is used.
fn max_log_likelihood<const K: usize>(a: &[f64; K], phat: &[f64; K], t: f64) -> Option<f64> {
    match mle_fixed_point(a, phat, t) {
        Some(p) => Some(phat.iter().zip(&p).map(|(h, q)| h * q.ln()).sum()),
        None => profile_max_log_likelihood(a, phat, t),
    }
}

/// Stop the fixed-point iteration once no probability moves more than this.
const MLE_TOLERANCE: f64 = 1e-14;
/// Accept a non-converged iterate whose last step was below this.
const MLE_ACCEPT: f64 = 1e-10;
/// Iteration cap of the fixed-point solve.
const MLE_MAX_ITERATIONS: usize = 2000;

/// Van den Bergh's fixed-point iteration (*Comments on normalized Elo*,
/// §4.1) for the maximum-likelihood distribution with t-value `t`, started
/// from the uniform distribution. `None` if a step has no valid secular
/// root or the iteration does not settle.
fn mle_fixed_point<const K: usize>(a: &[f64; K], phat: &[f64; K], t: f64) -> Option<[f64; K]> {
    let mut p = [1.0 / K as f64; K];
    let mut change = f64::INFINITY;
    for _ in 0..MLE_MAX_ITERATIONS {
        let (mu, var) = moments(a, &p);
        let sigma = var.sqrt();
        if sigma.is_nan() || sigma <= 0.0 {
            return None;
        }
        let phi: [f64; K] = std::array::from_fn(|i| {
            a[i] - 0.5 - t * (var + (a[i] - mu) * (a[i] - mu)) / (2.0 * sigma)
        });
        let theta = solve_secular(phat, &phi)?;
        change = 0.0;
        for i in 0..K {
            let q = phat[i] / (1.0 + theta * phi[i]);
            change = change.max((q - p[i]).abs());
            p[i] = q;
        }
        if change <= MLE_TOLERANCE {
            return Some(p);
        }
    }
    (change <= MLE_ACCEPT).then_some(p)
}

/// Number of grid cells in the σ scan of [`profile_max_log_likelihood`].
const PROFILE_GRID: usize = 1024;
/// The scan covers `σ/σ_max = logistic(x)` for `x ∈ (−SPAN, SPAN)`, i.e.
/// down to about `e^(−SPAN)` from either end of the σ range.
const PROFILE_SPAN: f64 = 30.0;
/// How many local maxima of the scan are refined.
const PROFILE_PEAKS: usize = 8;

/// Global (up to the grid resolution) solution of the problem of
/// [`max_log_likelihood`] for any `t ≠ 0`, used where the fixed-point
/// iteration cannot start.
///
/// On the constraint set the mean is `m = ½ + tσ` and the second moment
/// `q = m² + σ²`, so for fixed `σ` the problem has two *linear* moment
/// constraints; its maximum is `Σ p̂ ln p̂ − D(σ)` with the convex dual
/// `D(σ) = max_λ Σ p̂ᵢ ln(1 + λ·gᵢ)`, `gᵢ = (aᵢ − m, aᵢ² − q)` (see
/// [`dual_max`]). `D` is minimized over `σ ∈ (0, min(½, 1/(2|t|)))` by a
/// scan of [`PROFILE_GRID`] points (spaced logistically, dense near both
/// ends) followed by golden-section refinement around the best
/// [`PROFILE_PEAKS`] local maxima of the scan. The profile can have several local optima for
/// extreme `t`, which is why the scan is needed.
fn profile_max_log_likelihood<const K: usize>(
    a: &[f64; K],
    phat: &[f64; K],
    t: f64,
) -> Option<f64> {
    if t == 0.0 || !t.is_finite() {
        return None; // t = 0 never fails in the fixed-point iteration
    }
    let neg_dual = |sigma: f64| -> f64 {
        let m = 0.5 + t * sigma;
        let q = m * m + sigma * sigma;
        if sigma > 0.0 && in_moment_hull(a, m, q) {
            dual_max(a, phat, m, q).map_or(f64::NEG_INFINITY, |d| -d)
        } else {
            f64::NEG_INFINITY
        }
    };
    // σ = σ_max · logistic(x), x on a uniform grid: dense near both ends,
    // where the optimum sits for concentrated data or extreme t.
    let sigma_max = (0.5 / t.abs()).min(0.5);
    let sigma_of = |x: f64| sigma_max / (1.0 + (-x).exp());
    let objective = |x: f64| neg_dual(sigma_of(x));
    let x_at = |i: usize| PROFILE_SPAN * (2.0 * i as f64 / PROFILE_GRID as f64 - 1.0);
    let values: Vec<f64> = (0..=PROFILE_GRID)
        .map(|i| {
            if i == 0 || i == PROFILE_GRID {
                f64::NEG_INFINITY // sentinels at the ends of the scan
            } else {
                objective(x_at(i))
            }
        })
        .collect();
    // Local maxima of the scan, best first. A peak narrower than the grid
    // spacing still shows up as one, but not necessarily as the best grid
    // value, so the best few are all refined.
    let mut peaks: Vec<usize> = (1..PROFILE_GRID)
        .filter(|&i| {
            values[i] > f64::NEG_INFINITY
                && values[i] >= values[i - 1]
                && values[i] >= values[i + 1]
        })
        .collect();
    peaks.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    peaks.truncate(PROFILE_PEAKS);
    if peaks.is_empty() {
        return None;
    }
    let mut best = f64::NEG_INFINITY;
    for i in peaks {
        best = best.max(golden_max(&objective, x_at(i - 1), x_at(i + 1)).max(values[i]));
    }
    let base: f64 = phat.iter().map(|h| h * h.ln()).sum();
    Some(base + best)
}

/// Maximum of `f` on `[lo, hi]` by golden-section search (assumes one
/// peak inside; evaluates until the bracket cannot shrink any further).
fn golden_max(f: &impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - inv_phi * (hi - lo);
    let mut x2 = lo + inv_phi * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..200 {
        if f1 >= f2 {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - inv_phi * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + inv_phi * (hi - lo);
            f2 = f(x2);
        }
        if !(x1 > lo && x2 < hi && x1 < x2) {
            break; // bracket exhausted in floating point
        }
    }
    f1.max(f2)
}

/// Whether `(m, q)` lies strictly inside the convex hull of the points
/// `(aᵢ, aᵢ²)` (ascending `a`), i.e. whether some distribution with full
/// support on `a` has mean `m` and second moment `q`.
fn in_moment_hull<const K: usize>(a: &[f64; K], m: f64, q: f64) -> bool {
    let (first, last) = (a[0], a[K - 1]);
    if !(m > first && m < last) {
        return false;
    }
    // Above: the chord through the two outer points.
    if q >= first * first + (first + last) * (m - first) {
        return false;
    }
    // Below: the chord through the neighbouring points around m.
    let k = (1..K).find(|&k| m <= a[k]).unwrap_or(K - 1);
    let (l, r) = (a[k - 1], a[k]);
    q > l * l + (l + r) * (m - l)
}

/// `max_λ Σ p̂ᵢ ln(1 + λ·gᵢ)` with `gᵢ = (aᵢ − m, aᵢ² − q)`: the convex
/// dual of maximizing `Σ p̂ ln p` under the mean `m` and second moment `q`
/// (the maximum is `Σ p̂ ln p̂` minus this value). Damped Newton from
/// `λ = 0` with backtracking that keeps every `1 + λ·gᵢ > 0`. Requires
/// `(m, q)` inside the moment hull; `None` if the Hessian degenerates.
fn dual_max<const K: usize>(a: &[f64; K], phat: &[f64; K], m: f64, q: f64) -> Option<f64> {
    let g: [[f64; 2]; K] = std::array::from_fn(|i| [a[i] - m, a[i] * a[i] - q]);
    let value = |l: [f64; 2]| -> Option<f64> {
        let mut sum = 0.0;
        for (gi, h) in g.iter().zip(phat) {
            let d = 1.0 + l[0] * gi[0] + l[1] * gi[1];
            if d.is_nan() || d <= 0.0 {
                return None;
            }
            sum += h * d.ln();
        }
        Some(sum)
    };
    let mut lam = [0.0, 0.0];
    let mut f = 0.0;
    for _ in 0..200 {
        let (mut grad, mut h00, mut h01, mut h11) = ([0.0, 0.0], 0.0, 0.0, 0.0);
        for (gi, h) in g.iter().zip(phat) {
            let d = 1.0 + lam[0] * gi[0] + lam[1] * gi[1];
            let w = h / d;
            let w2 = w / d;
            grad[0] += w * gi[0];
            grad[1] += w * gi[1];
            h00 += w2 * gi[0] * gi[0];
            h01 += w2 * gi[0] * gi[1];
            h11 += w2 * gi[1] * gi[1];
        }
        // Newton direction: (−Hessian)⁻¹ · gradient.
        let det = h00 * h11 - h01 * h01;
        if det.is_nan() || det <= 0.0 {
            return None;
        }
        let dir = [
            (h11 * grad[0] - h01 * grad[1]) / det,
            (h00 * grad[1] - h01 * grad[0]) / det,
        ];
        let decrement = grad[0] * dir[0] + grad[1] * dir[1];
        if decrement.is_nan() || decrement <= 1e-24 {
            break;
        }
        let mut s = 1.0;
        let mut accepted = false;
        for _ in 0..80 {
            let cand = [lam[0] + s * dir[0], lam[1] + s * dir[1]];
            if let Some(fc) = value(cand)
                && fc >= f + 1e-4 * s * decrement
            {
                (lam, f, accepted) = (cand, fc, true);
                break;
            }
            s *= 0.5;
        }
        if !accepted {
            break; // no further progress possible in floating point
        }
    }
    Some(f)
}

/// Root `θ` of the secular equation `Σ wᵢ φᵢ / (1 + θ φᵢ) = 0` with all
/// `1 + θ φᵢ > 0` (over `wᵢ > 0`). The left side decreases strictly from
/// `+∞` to `−∞` on `(−1/max φ, −1/min φ)`, so the root exists and is unique
/// iff `min φ < 0 < max φ`; otherwise `None`. Bisection to adjacent floats.
fn solve_secular<const K: usize>(w: &[f64; K], phi: &[f64; K]) -> Option<f64> {
    let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
    for (&wi, &fi) in w.iter().zip(phi) {
        if wi > 0.0 {
            min = min.min(fi);
            max = max.max(fi);
        }
    }
    if !(min < 0.0 && max > 0.0 && min.is_finite() && max.is_finite()) {
        return None;
    }
    let f = |x: f64| -> f64 {
        w.iter()
            .zip(phi)
            .filter(|(wi, _)| **wi > 0.0)
            .map(|(wi, fi)| wi * fi / (1.0 + x * fi))
            .sum()
    };
    // Open interval ends; an end is only returned once it has been moved.
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let (mut lo_moved, mut hi_moved) = (false, false);
    for _ in 0..2200 {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi {
            break;
        }
        let v = f(mid);
        if v > 0.0 {
            lo = mid;
            lo_moved = true;
        } else if v < 0.0 {
            hi = mid;
            hi_moved = true;
        } else if v == 0.0 {
            return Some(mid);
        } else {
            return None; // NaN
        }
    }
    match (lo_moved, hi_moved) {
        (true, true) => Some(lo + 0.5 * (hi - lo)),
        (true, false) => Some(lo),
        (false, true) => Some(hi),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests;
