//! Paired comparison of two margin sets position by position: the exact McNemar test on
//! solved/unsolved outcomes.
//!
//! Two margin sets A and B are run on the same positions. Positions both solve or both miss say
//! nothing about which is better; only the *discordant* ones do: `b` positions solved by A only
//! and `c` solved by B only. If A and B were equally good, each discordant position would be
//! equally likely to fall either way, so under that null hypothesis `b ~ Binomial(b + c, ½)`.
//! The exact (conditional) McNemar test is the two-sided binomial test of that:
//!
//! `p = min(1, 2 · Σ_{i ≤ min(b, c)} C(n, i) / 2ⁿ)` with `n = b + c`, and `p = 1` when `n = 0`.
//!
//! A small `p` (say below 0.05) means the difference in solved positions is beyond what
//! chance explains; a large one means it is within the noise, however many positions moved.

use serde::{Deserialize, Serialize};

/// Exact two-sided McNemar p-value for `b` discordant pairs favouring A (solved by A only) and
/// `c` favouring B (solved by B only).
///
/// Returns `min(1, 2 · Σ_{i ≤ min(b, c)} C(n, i) / 2ⁿ)` with `n = b + c`, and exactly 1 when
/// `n = 0` or `|b − c| ≤ 1`. Symmetric in `b` and `c`; in `[0, 1]`, never NaN.
///
/// Computed without big numbers and without overflow: `C(n, k) / 2ⁿ⁻¹` (with `k = min(b, c)`)
/// as a product of the ratios `(n − i)/(i + 1)`, halving exactly (a power of two) whenever the
/// running product reaches 2, times the tail sum `Σ_{i ≤ k} C(n, i) / C(n, k)` accumulated from
/// its largest term down (every term at most 1). The relative error is a few times `k` units
/// in the last place (below 1e-12 for counts in the thousands); p-values below about 1e-308
/// lose precision in the subnormal range and those below about 5e-324 are 0. Time is
/// proportional to `min(b, c)`: microseconds for thousands of positions.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b.saturating_add(c);
    let k = b.min(c);
    if n == 0 || n - 2 * k <= 1 {
        // Σ_{i ≤ k} C(n, i) is at least half of 2ⁿ when k ≥ (n − 1)/2.
        return 1.0;
    }
    // x · 2^(−halvings_left) = C(n, k) / 2^(n−1), with 1 ≤ x < 2 kept by exact halvings.
    let mut halvings_left = n - 1;
    let mut x = 1.0f64;
    for i in 0..k {
        x *= (n - i) as f64 / (i + 1) as f64;
        while x >= 2.0 && halvings_left > 0 {
            x *= 0.5;
            halvings_left -= 1;
        }
    }
    // Tail sum relative to its largest term: t_k = 1, t_(i−1) = t_i · i / (n − i + 1) ≤ t_i.
    let (mut term, mut tail) = (1.0f64, 1.0f64);
    for i in (1..=k).rev() {
        term *= i as f64 / (n - i + 1) as f64;
        tail += term;
        if term < tail * 1e-18 {
            break;
        }
    }
    let mut p = x * tail;
    while halvings_left > 0 && p != 0.0 {
        p *= 0.5;
        halvings_left -= 1;
    }
    p.min(1.0)
}

/// Solved/unsolved outcomes of two margin sets A and B on the same positions, with the exact
/// McNemar p-value of their difference (see [`mcnemar_exact`]).
///
/// `both + only_a + only_b + neither` is the number of positions; A solved `both + only_a`, B
/// solved `both + only_b`. `p_value` is the probability, were A and B equally good, of a split
/// of the `only_a + only_b` discordant positions at least as uneven as the one seen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedComparison {
    /// Positions solved by both.
    pub both: u64,
    /// Positions solved by A only (McNemar's `b`).
    pub only_a: u64,
    /// Positions solved by B only (McNemar's `c`).
    pub only_b: u64,
    /// Positions solved by neither.
    pub neither: u64,
    /// Exact two-sided McNemar p-value, in `[0, 1]`; 1 when no position differs.
    pub p_value: f64,
}

/// The two outcome lists of a [`PairedComparison`] differ in length (they must hold one entry
/// per position each, in the same order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("paired comparison: {a} outcomes for A but {b} for B (need one per position each)")]
pub struct LengthMismatch {
    /// Length of A's list.
    pub a: usize,
    /// Length of B's list.
    pub b: usize,
}

impl PairedComparison {
    /// Compares `a[i]` (A solved position `i`) with `b[i]` (B solved it) over all positions.
    /// The slices must have equal lengths.
    pub fn new(a: &[bool], b: &[bool]) -> Result<PairedComparison, LengthMismatch> {
        if a.len() != b.len() {
            return Err(LengthMismatch {
                a: a.len(),
                b: b.len(),
            });
        }
        let mut counts = [0u64; 4];
        for (&sa, &sb) in a.iter().zip(b) {
            counts[usize::from(sa) * 2 + usize::from(sb)] += 1;
        }
        let [neither, only_b, only_a, both] = counts;
        Ok(PairedComparison::from_counts(both, only_a, only_b, neither))
    }

    /// The comparison with these counts (and their p-value).
    pub fn from_counts(both: u64, only_a: u64, only_b: u64, neither: u64) -> PairedComparison {
        PairedComparison {
            both,
            only_a,
            only_b,
            neither,
            p_value: mcnemar_exact(only_a, only_b),
        }
    }

    /// Number of positions compared.
    pub fn positions(&self) -> u64 {
        self.both + self.only_a + self.only_b + self.neither
    }

    /// Positions A solved.
    pub fn solved_a(&self) -> u64 {
        self.both + self.only_a
    }

    /// Positions B solved.
    pub fn solved_b(&self) -> u64 {
        self.both + self.only_b
    }

    /// Positions A solved beyond B (negative when B solved more).
    pub fn net(&self) -> i64 {
        self.only_a as i64 - self.only_b as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The p-value by exact integer arithmetic (n ≤ 120, so every C(n, i) and 2ⁿ fit in
    /// u128): `2 · Σ_{i ≤ min(b, c)} C(n, i)` over `2ⁿ`, capped at 1, converted to f64 last.
    fn exact_rational(b: u64, c: u64) -> f64 {
        let n = u128::from(b + c);
        assert!(n <= 120);
        if n == 0 {
            return 1.0;
        }
        let k = u128::from(b.min(c));
        let (mut binom, mut sum) = (1u128, 0u128); // C(n, 0)
        for i in 0..=k {
            sum += binom;
            binom = binom * (n - i) / (i + 1); // exact: C(n, i+1) = C(n, i)(n−i)/(i+1)
        }
        let (num, den) = (2 * sum, 1u128 << n);
        if num >= den {
            1.0
        } else {
            num as f64 / den as f64
        }
    }

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs()
    }

    #[test]
    fn hand_computed_values() {
        // n = 0: nothing differs.
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // b = 0, c = 5: 2 · C(5,0) / 2⁵ = 2/32.
        assert_eq!(mcnemar_exact(0, 5), 0.0625);
        assert_eq!(mcnemar_exact(5, 0), 0.0625);
        // b = 1, c = 9: 2 · (C(10,0) + C(10,1)) / 2¹⁰ = 2 · 11/1024.
        assert_eq!(mcnemar_exact(1, 9), 0.021484375);
        // b = 2, c = 8: 2 · (1 + 10 + 45) / 1024 = 112/1024.
        assert_eq!(mcnemar_exact(2, 8), 0.109375);
        // b = 0, c = 1: 2 · 1/2 = 1; b = 1, c = 2: 2 · (1 + 3)/8 = 1 (capped).
        assert_eq!(mcnemar_exact(0, 1), 1.0);
        assert_eq!(mcnemar_exact(1, 2), 1.0);
        // b = 3, c = 3: the lower tail holds more than half the mass: 1.
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        // b = 0, c = 20: 2/2²⁰.
        assert_eq!(mcnemar_exact(0, 20), 2.0 / 1_048_576.0);
        // b = 2, c = 13: 2 · (1 + 15 + 105) / 2¹⁵ = 242/32768.
        assert!(close(mcnemar_exact(2, 13), 242.0 / 32768.0, 1e-15));
    }

    #[test]
    fn matches_exact_integer_arithmetic_for_small_n() {
        for n in 0..=120u64 {
            for b in 0..=n {
                let c = n - b;
                let (got, want) = (mcnemar_exact(b, c), exact_rational(b, c));
                assert!(close(got, want, 1e-13), "b={b} c={c}: {got} vs {want}");
                assert_eq!(got, mcnemar_exact(c, b), "not symmetric at b={b} c={c}");
            }
        }
    }

    #[test]
    fn large_n() {
        // b = c, or |b − c| = 1 with n odd (the lower tail is exactly half of 2ⁿ): p = 1.
        assert_eq!(mcnemar_exact(1500, 1500), 1.0);
        assert_eq!(mcnemar_exact(1000, 1001), 1.0);
        assert_eq!(mcnemar_exact(2500, 2499), 1.0);
        // b = 0, c = 1000: 2/2¹⁰⁰⁰ = 2⁻⁹⁹⁹ (about 1.9e-301, still a normal f64).
        assert_eq!(mcnemar_exact(0, 1000), 2f64.powi(-999));
        // b = 1, c = 1000: 2 · (1 + 1001)/2¹⁰⁰¹ = 1002 · 2⁻¹⁰⁰⁰.
        assert!(close(
            mcnemar_exact(1, 1000),
            1002.0 * 2f64.powi(-500) * 2f64.powi(-500),
            1e-14
        ));
        // Far out in the tail the value underflows to 0 rather than failing: 2⁻²⁹⁹⁹.
        assert_eq!(mcnemar_exact(0, 3000), 0.0);
        // Moderate p-values at large n, by exact integer arithmetic in Python:
        //   from math import comb
        //   from fractions import Fraction
        //   p = lambda b, c: min(1, Fraction(2 * sum(comb(b + c, i)
        //                         for i in range(min(b, c) + 1)), 2 ** (b + c)))
        //   float(p(1000, 1100)) == 0.030720707864242296
        //   float(p(1400, 1600)) == 0.0002785639610392337
        //   float(p(1480, 1520)) == 0.4764464688932002
        //   float(p(2000, 2100)) == 0.12206497999113813
        // (Normal approximation with continuity correction for the first: z = 99/√2100 = 2.160,
        // p ≈ 0.03075: close, as expected.)
        for (b, c, want) in [
            (1000, 1100, 0.030720707864242296),
            (1400, 1600, 0.0002785639610392337),
            (1480, 1520, 0.4764464688932002),
            (2000, 2100, 0.12206497999113813),
        ] {
            let got = mcnemar_exact(b, c);
            assert!(close(got, want, 1e-11), "b={b} c={c}: {got} vs {want}");
            assert_eq!(got, mcnemar_exact(c, b));
        }
    }

    #[test]
    fn paired_comparison_counts_and_p_value() {
        // A solves positions 0..7, B solves 0..2 and 7..8: both 3, A only 4, B only 1,
        // neither 2. p = 2 · (C(5,0) + C(5,1)) / 2⁵ = 12/32.
        let a = [
            true, true, true, true, true, true, true, false, false, false,
        ];
        let b = [
            true, true, true, false, false, false, false, true, false, false,
        ];
        let cmp = PairedComparison::new(&a, &b).unwrap();
        assert_eq!(
            (cmp.both, cmp.only_a, cmp.only_b, cmp.neither),
            (3, 4, 1, 2)
        );
        assert_eq!(cmp.p_value, 0.375);
        assert_eq!(cmp.positions(), 10);
        assert_eq!((cmp.solved_a(), cmp.solved_b()), (7, 4));
        assert_eq!(cmp.net(), 3);
        // Swapping A and B swaps the discordant counts and keeps p.
        let swapped = PairedComparison::new(&b, &a).unwrap();
        assert_eq!((swapped.only_a, swapped.only_b), (1, 4));
        assert_eq!(swapped.p_value, cmp.p_value);
        assert_eq!(cmp, PairedComparison::from_counts(3, 4, 1, 2));
        // Identical outcomes and no positions: p = 1.
        assert_eq!(PairedComparison::new(&a, &a).unwrap().p_value, 1.0);
        assert_eq!(PairedComparison::new(&[], &[]).unwrap().p_value, 1.0);
        assert_eq!(
            PairedComparison::new(&a, &b[..9]),
            Err(LengthMismatch { a: 10, b: 9 })
        );
        let json = serde_json::to_string(&cmp).unwrap();
        assert_eq!(
            serde_json::from_str::<PairedComparison>(&json).unwrap(),
            cmp
        );
    }
}
