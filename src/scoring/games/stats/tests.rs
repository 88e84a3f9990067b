//! Tests of [`super`] (the `stats` module), beside it in their own file.

use super::*;

// Regenerate: `python3 scripts/stats_reference.py` (standard library only).
//
// Expected values below are pasted as printed by
// `scripts/stats_reference.py`, which computes them independently of
// this file (see its docstring for the details):
// * estimates: closed forms from the module docs, μ and σ² in exact
//   rational arithmetic, z = 1.959963984540054 (as Z_975) and
//   Φ(z) = ½·erfc(−z/√2) from Python's math.erfc;
// * exact LLR: the same maximum-likelihood problem (max Σ p̂ᵢ ln pᵢ
//   subject to (μ_p − ½)/σ_p = t, regularized counts) solved by a
//   different method — a global search over σ for the stationary points
//   p = p̂/(1 + θφ) (Van den Bergh §4.1), the best one re-solved and the
//   LLR evaluated in 40-digit decimal arithmetic; the script checks it
//   against the published fixed-point iteration wherever that converges;
// * normal approximation: N/2 · ((T − T0)² − (T − T1)²).

/// `|actual − expected| ≤ tol · max(1, |expected|)`; infinities must
/// match exactly; NaN never matches.
#[track_caller]
fn assert_close(actual: f64, expected: f64, tol: f64) {
    if expected.is_infinite() {
        assert_eq!(actual, expected, "expected {expected}, got {actual}");
        return;
    }
    let err = (actual - expected).abs();
    assert!(
        err <= tol * expected.abs().max(1.0),
        "expected {expected:e}, got {actual:e} (error {err:e})"
    );
}

#[track_caller]
fn assert_estimate(e: &EloEstimate, expected: &[f64; 7], tol: f64) {
    let got = [
        e.elo,
        e.lower,
        e.upper,
        e.nelo,
        e.nelo_lower,
        e.nelo_upper,
        e.los,
    ];
    for (g, x) in got.iter().zip(expected) {
        assert_close(*g, *x, tol);
    }
}

/// The three SPRT designs of the reference tables, `(nelo0, nelo1)`.
const DESIGNS: [(f64, f64); 3] = [(0.0, 5.0), (-1.75, 0.25), (0.5, 2.5)];

fn design(i: usize) -> SprtParams {
    SprtParams {
        elo0: DESIGNS[i].0,
        elo1: DESIGNS[i].1,
        ..SprtParams::default()
    }
}

type Case<const K: usize> = ([u64; K], [f64; 7], [f64; 3], [f64; 3]);

// scripts/stats_reference.py: (counts [LL, LD, WL+DD, WD, WW],
//   [elo, lower, upper, nelo, nelo_lower, nelo_upper, los],
//   exact LLR for DESIGNS, normal-approximation LLR for DESIGNS).
// elo = −400 log10(1/μ − 1), interval μ ± 1.959963984540054·√(σ²/N),
// nelo = (μ − ½)/(√2 σ) · 800/ln 10, los = Φ((μ − ½)/√(σ²/N)).
const PENTA_CASES: [Case<5>; 6] = [
    (
        [10, 20, 40, 20, 10],
        [
            -0.0,
            -37.44205973535754,
            37.44205973535754,
            0.0,
            -48.15123066909429,
            48.15123066909429,
            0.5,
        ],
        [
            -0.02070946702995513,
            0.0024852486542728727,
            -0.004970462563734961,
        ],
        [
            -0.020710539494056247,
            0.0024852647392867495,
            -0.004970529478573499,
        ],
    ),
    (
        [5, 30, 100, 40, 8],
        [
            15.198127424573254,
            -5.2442417683532865,
            35.74632526779403,
            26.459285750188396,
            -9.135128183046287,
            62.05369968342309,
            0.927434775855424,
        ],
        [0.3606486923007772, 0.16382406628519086, 0.15027759367980456],
        [0.3632255251259761, 0.16499835943293437, 0.15135425601425012],
    ),
    (
        [0, 1, 5, 3, 1],
        [
            70.43650362227247,
            -16.66118280780892,
            167.4961573932586,
            122.83702927427507,
            -29.430531780216295,
            275.10459032876645,
            0.9430768509966709,
        ],
        [
            0.08925841089726932,
            0.03656340594746751,
            0.035966199680325404,
        ],
        [
            0.09959805340859819,
            0.04091627711193557,
            0.04017062313220737,
        ],
    ),
    (
        [100, 400, 1000, 450, 120],
        [
            7.5541376641495654,
            0.719288282042773,
            14.394838765753478,
            11.697291203936262,
            1.113964112877218,
            22.280618294995307,
            0.9848544508032293,
        ],
        [1.5749108199972954, 0.8526252222808045, 0.6984699774677916],
        [1.577181543300553, 0.8538008644342425, 0.6994659241245355],
    ),
    // Large samples (the first is from fishtest's own self-test data).
    (
        [1187, 7410, 13475, 7378, 1164],
        [
            -0.4426077992236841,
            -2.172477799080058,
            1.2872402561554264,
            -0.7041412082298533,
            -3.456134383504001,
            2.047851967044295,
            0.3080138791226863,
        ],
        [-8.125813619160155, 0.04652169672051298, -2.235964917135482],
        [-8.126118079409586, 0.046521539805562256, -2.235995302050174],
    ),
    (
        [2000, 8000, 20000, 9000, 2500],
        [
            8.373562734257204,
            6.8400465407700946,
            9.907405199549071,
            12.91011308224093,
            10.546462131031637,
            15.273764033450222,
            1.0,
        ],
        [35.73730611239085, 18.757970469317893, 15.668140451268478],
        [35.78944364913883, 18.785111882472872, 15.69095728206087],
    ),
];

// scripts/stats_reference.py, trinomial: (counts [losses, draws, wins],
// same layout), nelo = (μ − ½)/σ · 800/ln 10 (no √2), one sample = one
// game. The normal-approximation column is not asserted.
const WDL_CASES: [Case<3>; 3] = [
    (
        [100, 230, 120],
        [
            15.451760942452397,
            -6.959042420366145,
            37.991982249436305,
            22.129206246889538,
            -9.971614199173324,
            54.23002669295241,
            0.9116734313755515,
        ],
        [0.3650889439622063, 0.17024277169262944, 0.15348458202977813],
        [0.3658783060918632, 0.1705826536447911, 0.15380711665460553],
    ),
    (
        [40, 150, 45],
        [
            7.393362277605229,
            -19.326481265075536,
            34.201110287016796,
            12.299086406126047,
            -32.12192659111101,
            56.72009940336311,
            0.7063200515138739,
        ],
        [
            0.09532216615418102,
            0.050776066433839674,
            0.042020329793553066,
        ],
        [0.09538385202927929, 0.05080768044258009, 0.0420471222365943],
    ),
    (
        [0, 12, 3],
        [
            70.43650362227247,
            -0.8422584363353467,
            148.194562386549,
            173.71779276130073,
            -2.1056419660160306,
            349.5412274886175,
            0.9735962442919432,
        ],
        [
            0.0952579782057378,
            0.03874700052845003,
            0.038300062437756605,
        ],
        [
            0.10631554718414488,
            0.04333398376132883,
            0.04277476191601823,
        ],
    ),
];

const TOL: f64 = 1e-9;

#[test]
fn pentanomial_estimates_match_reference() {
    for (counts, est, _, _) in &PENTA_CASES {
        let e = Pentanomial::from_counts(*counts).estimate();
        assert_estimate(&e, est, TOL);
        assert!(e.lower <= e.elo && e.elo <= e.upper);
        assert!(e.nelo_lower <= e.nelo && e.nelo <= e.nelo_upper);
    }
}

#[test]
fn pentanomial_llr_matches_reference() {
    for (counts, _, exact, approx) in &PENTA_CASES {
        let p = Pentanomial::from_counts(*counts);
        for i in 0..DESIGNS.len() {
            assert_close(sprt_llr(&p, &design(i)), exact[i], TOL);
            assert_close(sprt_llr_normal_approx(&p, &design(i)), approx[i], TOL);
        }
    }
}

#[test]
fn wdl_estimates_and_llr_match_reference() {
    for (counts, est, exact, _) in &WDL_CASES {
        let w = Wdl {
            losses: counts[0],
            draws: counts[1],
            wins: counts[2],
        };
        assert_estimate(&w.estimate(), est, TOL);
        for (i, x) in exact.iter().enumerate() {
            assert_close(sprt_llr_wdl(&w, &design(i)), *x, TOL);
        }
    }
}

#[test]
fn normal_approximation_agrees_on_large_samples() {
    // The two large-sample cases: within 0.2 % of the exact GSPRT.
    for (counts, _, _, _) in &PENTA_CASES[4..] {
        let p = Pentanomial::from_counts(*counts);
        for i in 0..DESIGNS.len() {
            let exact = sprt_llr(&p, &design(i));
            let approx = sprt_llr_normal_approx(&p, &design(i));
            assert!(
                (exact - approx).abs() <= 2e-3 * exact.abs(),
                "{counts:?} design {i}: exact {exact}, approx {approx}"
            );
        }
    }
    // With the frequencies fixed (no empty bin), both LLRs are exactly
    // proportional to N, so their relative gap depends only on the
    // t-values (how far data and hypotheses are from t = 0), not on N.
    let base = [100, 400, 1000, 450, 120];
    let params = SprtParams::default();
    let llrs = |k: u64| {
        let p = Pentanomial::from_counts(base.map(|c| c * k));
        (sprt_llr(&p, &params), sprt_llr_normal_approx(&p, &params))
    };
    let (e1, a1) = llrs(1);
    let (e100, a100) = llrs(100);
    assert_close(e100, 100.0 * e1, 1e-10);
    assert_close(a100, 100.0 * a1, 1e-10);
}

// scripts/stats_reference.py: exact LLR for DESIGNS on counts with a
// single occupied bin (regularized, so finite).
const DEGENERATE_LLR: [([u64; 5], [f64; 3]); 4] = [
    (
        [0, 0, 37, 0, 0],
        [
            -0.012499919175102814,
            0.0010637616842366264,
            -0.0023848396858594297,
        ],
    ),
    (
        [0, 0, 0, 0, 12],
        [0.24173394439999563, 0.09799205557648315, 0.0970958016526561],
    ),
    (
        [12, 0, 0, 0, 0],
        [
            -0.24670473910484214,
            -0.09739545213230943,
            -0.09828897518376255,
        ],
    ),
    (
        [0, 0, 0, 9, 0],
        [0.12765505030967775, 0.05203186093605506, 0.051360536832727],
    ),
];

#[test]
fn degenerate_counts() {
    let inf = f64::INFINITY;
    // All draws: zero variance, score exactly ½.
    let draws = Pentanomial::from_counts([0, 0, 37, 0, 0]).estimate();
    assert_eq!(
        draws,
        EloEstimate {
            elo: 0.0,
            lower: 0.0,
            upper: 0.0,
            nelo: 0.0,
            nelo_lower: 0.0,
            nelo_upper: 0.0,
            los: 0.5
        }
    );
    // All wins / all losses.
    let wins = Pentanomial::from_counts([0, 0, 0, 0, 12]).estimate();
    assert_estimate(&wins, &[inf, inf, inf, inf, inf, inf, 1.0], 0.0);
    let losses = Pentanomial::from_counts([12, 0, 0, 0, 0]).estimate();
    assert_estimate(&losses, &[-inf, -inf, -inf, -inf, -inf, -inf, 0.0], 0.0);
    // All WD pairs: score ¾ exactly, zero variance.
    let wd = Pentanomial::from_counts([0, 0, 0, 9, 0]).estimate();
    let elo_075 = 190.848501887865; // scripts/stats_reference.py: elo(0.75)
    assert_estimate(&wd, &[elo_075, elo_075, elo_075, inf, inf, inf, 1.0], TOL);
    // Trinomial all draws / all wins.
    let d = Wdl {
        draws: 5,
        ..Wdl::default()
    };
    assert_eq!(d.estimate().elo, 0.0);
    assert_eq!(d.estimate().los, 0.5);
    let w = Wdl {
        wins: 5,
        ..Wdl::default()
    };
    assert_eq!(w.estimate().elo, inf);
    assert_eq!(w.estimate().nelo, inf);
    // LLRs stay finite thanks to the regularization.
    for (counts, exact) in &DEGENERATE_LLR {
        let p = Pentanomial::from_counts(*counts);
        for (i, x) in exact.iter().enumerate() {
            assert_close(sprt_llr(&p, &design(i)), *x, TOL);
            assert!(sprt_llr_normal_approx(&p, &design(i)).is_finite());
        }
    }
}

#[test]
fn interval_ends_outside_unit_score_map_to_infinity() {
    // One WW pair and one WD pair: μ = 0.875, σ = 0.125, N = 2, so the
    // upper score bound 0.875 + 1.96·0.0884 > 1.
    let e = Pentanomial::from_counts([0, 0, 0, 1, 1]).estimate();
    assert_eq!(e.upper, f64::INFINITY);
    assert!(e.lower.is_finite() && e.elo.is_finite());
    assert!(e.nelo_upper.is_finite());
}

/// Few pairs (what a calibration or a short match reports): the variance is the pairs' own, so
/// one pair lost twice and one won twice has a wide interval, not a zero-width one; every end
/// that is defined brackets the estimate, and an end at a 0% or 100% score is not defined.
#[test]
fn few_pairs_give_intervals_that_hold_the_estimate() {
    // [LL, WW]: pair scores 0 and 1, mean ½, variance ¼ (σ = ½), so the score interval
    // ½ ± 1.96·½/√2 runs past 0 and 1: both Elo ends infinite, nElo ±340.
    let split = Pentanomial::from_counts([1, 0, 0, 0, 1]).estimate();
    assert!(split.has_spread());
    assert_eq!(
        (split.elo, split.lower, split.upper),
        (0.0, -f64::INFINITY, f64::INFINITY)
    );
    // (½ + z·½/√2 − ½) / (√2·½) · 800/ln 10 = z/2 · 800/ln 10.
    assert_close(split.nelo_upper, Z_975 / 2.0 * NELO_PER_T, TOL);
    assert_close(split.nelo_upper, 340.48061728594234, 1e-9);
    let s = EloSummary::from(split);
    assert_eq!((s.elo, s.lower, s.upper), (Some(0.0), None, None));
    assert_close(s.nelo_lower.unwrap(), -split.nelo_upper, TOL);
    assert_eq!(s.nelo_upper, Some(split.nelo_upper));
    // [WL+DD, WW]: score ¾ (Elo +190.85), its upper end past 100%: null, not 0.
    let high = EloSummary::from(Pentanomial::from_counts([0, 0, 1, 0, 1]).estimate());
    assert_close(high.elo.unwrap(), 190.848501887865, TOL);
    assert_close(high.lower.unwrap(), -67.88940991190476, 1e-9);
    assert_eq!(high.upper, None);
    // Every count of up to 4 pairs: defined ends hold the estimate and never meet.
    let mut checked = 0;
    for code in 1..5u64.pow(5) {
        let p: [u64; 5] = std::array::from_fn(|i| code / 5u64.pow(i as u32) % 5);
        if p.iter().sum::<u64>() > 4 {
            continue;
        }
        checked += 1;
        let s = EloSummary::from(Pentanomial::from_counts(p).estimate());
        let Some(elo) = s.elo else {
            assert_eq!((s.lower, s.upper), (None, None), "{p:?}");
            continue;
        };
        assert!(s.lower.is_none_or(|l| l < elo), "{p:?}: {s:?}");
        assert!(s.upper.is_none_or(|u| u > elo), "{p:?}: {s:?}");
        if let (Some(lo), Some(n), Some(hi)) = (s.nelo_lower, s.nelo, s.nelo_upper) {
            assert!(lo < n && n < hi, "{p:?}: {s:?}");
        }
    }
    assert_eq!(checked, 125);
}

#[test]
fn zero_pairs() {
    let empty = Pentanomial::default();
    assert_eq!(empty.total_pairs(), 0);
    assert_eq!(empty.estimate(), EloEstimate::NO_DATA);
    assert_eq!(Wdl::default().estimate(), EloEstimate::NO_DATA);
    let params = SprtParams::default();
    assert_eq!(sprt_llr(&empty, &params), 0.0);
    assert_eq!(sprt_llr_normal_approx(&empty, &params), 0.0);
    assert_eq!(sprt_llr_wdl(&Wdl::default(), &params), 0.0);
    assert_eq!(sprt_decide(0.0, &params), SprtDecision::Continue);
}

// scripts/stats_reference.py: hypotheses far outside practical use, where
// the fixed-point iteration cannot start for at least one of them and
// `profile_max_log_likelihood` is used: (counts, nelo0, nelo1, exact LLR).
const EXTREME_LLR: [([u64; 5], f64, f64, f64); 4] = [
    ([10, 20, 40, 20, 10], 0.0, 600.0, -146.73884836152465),
    ([0, 1, 5, 3, 1], -1000.0, 300.0, 26.48828235350664),
    ([5, 30, 100, 40, 8], 300.0, 1000.0, -270.47314985467995),
    ([0, 0, 0, 9, 0], 0.0, 1000.0, 3.587439412751387),
];

#[test]
fn extreme_hypotheses_match_reference() {
    for (counts, elo0, elo1, llr) in EXTREME_LLR {
        let params = SprtParams {
            elo0,
            elo1,
            ..SprtParams::default()
        };
        let p = Pentanomial::from_counts(counts);
        assert_close(sprt_llr(&p, &params), llr, TOL);
    }
}

#[test]
fn mle_solvers_agree_and_satisfy_the_constraint() {
    let a = outcome_values::<5>();
    let grid: [[u64; 5]; 10] = [
        [10, 20, 40, 20, 10],
        [5, 30, 100, 40, 8],
        [0, 1, 5, 3, 1],
        [0, 0, 37, 0, 0],
        [0, 0, 0, 0, 12],
        [3, 0, 0, 0, 0],
        [1187, 7410, 13475, 7378, 1164],
        [0, 2, 0, 1, 0],
        [50, 10, 5, 10, 60],
        [2, 9, 30, 4, 1],
    ];
    for counts in grid {
        let (_, phat) = regularized(&counts);
        for k in -20..=20 {
            let nelo = 50.0 * f64::from(k);
            let t = SQRT_2 * nelo / NELO_PER_T;
            let l = max_log_likelihood(&a, &phat, t)
                .unwrap_or_else(|| panic!("no MLE for {counts:?}, nElo {nelo}"));
            assert!(l.is_finite() && l < 0.0);
            let Some(p) = mle_fixed_point(&a, &phat, t) else {
                // Only far outside any practical SPRT design.
                assert!(nelo.abs() > 200.0, "{counts:?}, nElo {nelo}");
                continue;
            };
            let (mu, var) = moments(&a, &p);
            let sum = p.iter().sum::<f64>();
            assert!((sum - 1.0).abs() < 1e-12, "{counts:?}, nElo {nelo}: {sum}");
            assert!(p.iter().all(|&x| x > 0.0));
            let t_p = (mu - 0.5) / var.sqrt();
            assert!((t_p - t).abs() < 1e-9, "{counts:?}, nElo {nelo}: {t_p}");
            // The independent global search finds the same maximum.
            if t != 0.0 {
                let lp = profile_max_log_likelihood(&a, &phat, t).unwrap();
                assert!(
                    (lp - l).abs() < 1e-11,
                    "{counts:?}, nElo {nelo}: fixed point {l}, profile {lp}"
                );
            }
        }
    }
}

#[test]
fn llr_properties() {
    let p = Pentanomial::from_counts([5, 30, 100, 40, 8]);
    let mirrored = Pentanomial::from_counts([8, 40, 100, 30, 5]);
    for i in 0..DESIGNS.len() {
        let d = design(i);
        // Mirroring the data and negating/swapping the hypotheses flips
        // the sign of the LLR.
        let m = SprtParams {
            elo0: -d.elo1,
            elo1: -d.elo0,
            ..d
        };
        assert_close(sprt_llr(&mirrored, &m), -sprt_llr(&p, &d), 1e-12);
    }
    // Identical hypotheses carry no information.
    let same = SprtParams {
        elo0: 2.0,
        elo1: 2.0,
        ..SprtParams::default()
    };
    assert_eq!(sprt_llr(&p, &same), 0.0);
    // Non-finite hypotheses are reported as NaN, not hidden.
    let bad = SprtParams {
        elo1: f64::NAN,
        ..SprtParams::default()
    };
    assert!(sprt_llr(&p, &bad).is_nan());
    assert!(sprt_llr_normal_approx(&p, &bad).is_nan());
    assert!(bad.validate().is_err());
    // A clearly better engine is eventually accepted.
    let strong = Pentanomial::from_counts([1000, 4000, 10000, 4500, 1200]);
    let params = SprtParams::default();
    assert_eq!(
        sprt_decide(sprt_llr(&strong, &params), &params),
        SprtDecision::AcceptH1
    );
    let weak = Pentanomial::from_counts([1200, 4500, 10000, 4000, 1000]);
    assert_eq!(
        sprt_decide(sprt_llr(&weak, &params), &params),
        SprtDecision::AcceptH0
    );
}

#[test]
fn sprt_params_bounds_and_decisions() {
    let d = SprtParams::default();
    assert_eq!(
        d,
        SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05
        }
    );
    assert!(d.validate().is_ok());
    // scripts/stats_reference.py: ln(β/(1−α)), ln((1−β)/α)
    let (lo, hi) = d.bounds();
    assert_close(lo, -2.9444389791664403, 1e-15);
    assert_close(hi, 2.9444389791664403, 1e-15);
    let asym = SprtParams {
        alpha: 0.1,
        beta: 0.02,
        ..d
    };
    let (lo, hi) = asym.bounds();
    assert_close(lo, -3.8066624897703196, 1e-15);
    assert_close(hi, 2.282382385676526, 1e-15);

    assert_eq!(sprt_decide(2.95, &d), SprtDecision::AcceptH1);
    assert_eq!(sprt_decide(hi, &asym), SprtDecision::AcceptH1);
    assert_eq!(sprt_decide(-2.95, &d), SprtDecision::AcceptH0);
    assert_eq!(sprt_decide(lo, &asym), SprtDecision::AcceptH0);
    assert_eq!(sprt_decide(2.9, &d), SprtDecision::Continue);
    assert_eq!(sprt_decide(f64::NAN, &d), SprtDecision::Continue);
    assert_eq!(sprt_decide(f64::INFINITY, &d), SprtDecision::AcceptH1);
    assert_eq!(sprt_decide(f64::NEG_INFINITY, &d), SprtDecision::AcceptH0);

    for bad in [
        SprtParams { elo1: 0.0, ..d },
        SprtParams { alpha: 0.0, ..d },
        SprtParams { beta: 1.0, ..d },
        SprtParams {
            alpha: 0.5,
            beta: 0.5,
            ..d
        },
        SprtParams {
            elo0: f64::NEG_INFINITY,
            ..d
        },
        SprtParams {
            elo1: 100_000.0,
            ..d
        },
        SprtParams { elo0: -1000.5, ..d },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
    assert!(
        SprtParams {
            elo0: -1000.0,
            elo1: 1000.0,
            ..d
        }
        .validate()
        .is_ok()
    );
}

// scripts/stats_reference.py: (x, erf(x), erfc(x)) from Python's
// math.erf and math.erfc.
const ERF_TABLE: [(f64, f64, f64); 16] = [
    (-3.0, -0.9999779095030014, 1.9999779095030015),
    (-1.0, -0.8427007929497149, 1.842700792949715),
    (-0.5, -0.5204998778130465, 1.5204998778130465),
    (-0.001, -0.0011283787909692365, 1.0011283787909693),
    (0.0, 0.0, 1.0),
    (1e-08, 1.1283791670955126e-08, 0.9999999887162083),
    (0.1, 0.1124629160182849, 0.8875370839817152),
    (0.5, 0.5204998778130465, 0.4795001221869535),
    (1.0, 0.8427007929497149, 0.15729920705028513),
    (1.5, 0.9661051464753108, 0.033894853524689274),
    (2.0, 0.9953222650189527, 0.004677734981047265),
    (2.4, 0.999311486103355, 0.0006885138966450789),
    (2.5, 0.999593047982555, 0.0004069520174449589),
    (3.0, 0.9999779095030014, 2.2090496998585438e-05),
    (4.0, 0.9999999845827421, 1.541725790028002e-08),
    (5.5, 0.9999999999999927, 7.357847917974398e-15),
];

#[test]
fn erf_matches_reference() {
    for (x, e, c) in ERF_TABLE {
        assert!((erf(x) - e).abs() <= 1e-15, "erf({x}) = {}", erf(x));
        assert!((erfc(x) - c).abs() <= 1e-12 * c, "erfc({x}) = {}", erfc(x));
    }
    assert_eq!(erf(f64::INFINITY), 1.0);
    assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    assert_eq!(erfc(f64::INFINITY), 0.0);
    assert_eq!(erfc(f64::NEG_INFINITY), 2.0);
    assert_eq!(erfc(30.0), 0.0);
    assert!(erf(f64::NAN).is_nan() && erfc(f64::NAN).is_nan());
}

// scripts/stats_reference.py: (z, Φ(z)), Φ(z) = ½·math.erfc(−z/√2).
const PHI_TABLE: [(f64, f64); 9] = [
    (-8.0, 6.220960574271819e-16),
    (-5.0, 2.866515718791946e-07),
    (-2.0, 0.02275013194817922),
    (-1.0, 0.15865525393145707),
    (0.0, 0.5),
    (0.3, 0.6179114221889526),
    (Z_975, 0.975),
    (3.0, 0.9986501019683699),
    (6.0, 0.9999999990134123),
];

#[test]
fn normal_cdf_matches_reference() {
    for (z, p) in PHI_TABLE {
        assert!(
            (normal_cdf(z) - p).abs() <= 1e-12 * p,
            "Phi({z}) = {}",
            normal_cdf(z)
        );
    }
    assert_eq!(normal_cdf(f64::INFINITY), 1.0);
    assert_eq!(normal_cdf(f64::NEG_INFINITY), 0.0);
    assert!(normal_cdf(f64::NAN).is_nan());
}

#[test]
fn elo_score_conversions() {
    // scripts/stats_reference.py: −400·log10(1/s − 1) and
    // 1/(1 + 10^(−elo/400)).
    assert_close(elo_from_score(0.6), 70.43650362227247, 1e-13);
    assert_close(elo_from_score(0.25), -190.84850188786498, 1e-13);
    assert_close(score_from_elo(100.0), 0.6400649998028851, 1e-15);
    assert_eq!(elo_from_score(0.5), 0.0);
    for elo in [-800.0, -123.4, -1.0, 0.0, 0.01, 5.0, 250.0, 1000.0] {
        assert_close(elo_from_score(score_from_elo(elo)), elo, 1e-10);
    }
    assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    assert_eq!(elo_from_score(-0.5), f64::NEG_INFINITY);
    assert_eq!(elo_from_score(1.0), f64::INFINITY);
    assert_eq!(elo_from_score(1.5), f64::INFINITY);
    assert!(elo_from_score(f64::NAN).is_nan());
    assert_eq!(score_from_elo(f64::INFINITY), 1.0);
    assert_eq!(score_from_elo(f64::NEG_INFINITY), 0.0);
}

#[test]
fn pair_bookkeeping() {
    use GameResult::{Draw, Loss, Win};
    let mut p = Pentanomial::default();
    let mut w = Wdl::default();
    for first in [Win, Draw, Loss] {
        for second in [Win, Draw, Loss] {
            p.add_pair(first, second);
            w.add_game(first);
            w.add_game(second);
        }
    }
    // LL; LD, DL; WL, LW, DD; WD, DW; WW
    assert_eq!(p.counts(), [1, 2, 3, 2, 1]);
    assert_eq!(p.total_pairs(), 9);
    assert_eq!(
        w,
        Wdl {
            wins: 6,
            draws: 6,
            losses: 6
        }
    );
    assert_eq!(w.total_games(), 18);
    // to_wdl counts every WL+DD pair as two draws: same total score.
    let lossy = p.to_wdl();
    assert_eq!(
        lossy,
        Wdl {
            wins: 4,
            draws: 10,
            losses: 4
        }
    );
    assert_eq!(lossy.total_games(), 2 * p.total_pairs());
    let half_points = |x: &Wdl| 2 * x.wins + x.draws;
    assert_eq!(half_points(&lossy), half_points(&w));
    assert_eq!(p.estimate().elo, 0.0);

    let mut q = p;
    q += p;
    assert_eq!(q.counts(), [2, 4, 6, 4, 2]);
    let mut v = w;
    v += w;
    assert_eq!(v.total_games(), 36);
    assert_eq!(
        Pentanomial::from_counts([1, 2, 3, 4, 5]),
        Pentanomial {
            ll: 1,
            ld: 2,
            wl_dd: 3,
            wd: 4,
            ww: 5
        }
    );
    assert_eq!(Win.score() + Draw.score() + Loss.score(), 1.5);
    let huge = Pentanomial::from_counts([u64::MAX, 1, 0, 0, 0]);
    assert_eq!(huge.total_pairs(), u64::MAX);
}

/// Equal up to serde_json's float parsing, which (without its `float_roundtrip` feature)
/// may be one unit in the last place off: the same `None`s, values within 1e-15 relative.
fn assert_same_summary(a: &EloSummary, b: &EloSummary) {
    let pairs = [
        (a.elo, b.elo),
        (a.lower, b.lower),
        (a.upper, b.upper),
        (a.nelo, b.nelo),
        (a.nelo_lower, b.nelo_lower),
        (a.nelo_upper, b.nelo_upper),
        (a.los, b.los),
    ];
    for (x, y) in pairs {
        match (x, y) {
            (None, None) => {}
            (Some(x), Some(y)) => assert!((x - y).abs() <= 1e-15 * y.abs(), "{a:?} vs {b:?}"),
            _ => panic!("{a:?} vs {b:?}"),
        }
    }
}

#[test]
fn elo_summary_is_null_exactly_where_not_defined_and_round_trips() {
    // All wins: sigma = 0, score 1, so every Elo value is +inf and nothing is defined.
    let all_wins = Pentanomial::from_counts([0, 0, 0, 0, 6]).estimate();
    assert!(!all_wins.has_spread());
    let s = EloSummary::from(all_wins);
    assert_eq!(s.elo, None);
    assert_eq!(s.lower, None);
    assert_eq!(s.upper, None);
    assert_eq!(s.nelo, None);
    assert_eq!(s.los, None);
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"elo\":null"), "{json}");
    assert!(json.contains("\"los\":null"), "{json}");
    assert_same_summary(&serde_json::from_str::<EloSummary>(&json).unwrap(), &s);
    // A mixed sample is finite everywhere and unchanged.
    let mixed = Pentanomial::from_counts([1, 2, 3, 4, 5]).estimate();
    assert!(mixed.has_spread());
    let s = EloSummary::from(mixed);
    assert_eq!(s.elo, Some(mixed.elo));
    assert_eq!(s.nelo_upper, Some(mixed.nelo_upper));
    assert_eq!(s.los, Some(mixed.los));
    let json = serde_json::to_string(&s).unwrap();
    assert_same_summary(&serde_json::from_str::<EloSummary>(&json).unwrap(), &s);
    // An interval end beyond a 100% score: only that end is null.
    let high = Pentanomial::from_counts([0, 0, 1, 0, 3]).estimate();
    assert!(high.has_spread() && high.upper.is_infinite());
    let s = EloSummary::from(high);
    assert_eq!((s.elo, s.upper), (Some(high.elo), None));
    assert_eq!((s.lower, s.los), (Some(high.lower), Some(high.los)));
    // No spread with a score of ½ (all draws, or one win-and-loss pair): the Elo is 0,
    // the intervals, nElo 0 and LOS ½ are conventions.
    let even = Pentanomial::from_counts([0, 0, 1, 0, 0]).estimate();
    let s = EloSummary::from(even);
    assert_eq!(s.elo, Some(0.0));
    assert_eq!((s.lower, s.upper, s.nelo, s.los), (None, None, None, None));
    // No data: nothing.
    let s = EloSummary::from(EloEstimate::NO_DATA);
    assert_eq!(
        (s.elo, s.lower, s.upper, s.nelo, s.los),
        (None, None, None, None, None)
    );
    assert_eq!(finite(f64::NAN), None);
    assert_eq!(finite(-1.5), Some(-1.5));
}

#[test]
fn statistics_not_defined_are_shown_as_n_a() {
    assert_eq!(format!("{:+.2}", Shown(Some(12.345))), "+12.35");
    assert_eq!(format!("{:.1}", Shown::from(-0.04)), "-0.0");
    assert_eq!(format!("{:>7.1}", Shown(Some(3.0))), "    3.0");
    for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        assert_eq!(format!("{:+.2}", Shown::from(x)), "n/a");
        assert_eq!(format!("{:>6.1}", Shown(Some(x))), "   n/a");
    }
    assert_eq!(format!("{:+.1}", Shown(None)), "n/a");
    let line = |e: EloEstimate| {
        let s = EloSummary::from(e);
        format!(
            "Elo {:+.2} [{:+.2}, {:+.2}], nElo {:+.2} [{:+.2}, {:+.2}], LOS {:.1}",
            Shown(s.elo),
            Shown(s.lower),
            Shown(s.upper),
            Shown(s.nelo),
            Shown(s.nelo_lower),
            Shown(s.nelo_upper),
            Shown(s.los.map(|l| 100.0 * l))
        )
    };
    // One pair: two losses (Elo -inf), a win and a draw (a finite Elo, nElo +inf), a win
    // and a loss (nElo 0/0): nothing but a finite Elo is defined yet.
    let pair = |bin: usize| {
        let mut counts = [0; 5];
        counts[bin] = 1;
        Pentanomial::from_counts(counts).estimate()
    };
    let na = "[n/a, n/a], nElo n/a [n/a, n/a], LOS n/a";
    assert_eq!(line(pair(0)), format!("Elo n/a {na}"));
    assert_eq!(line(pair(3)), format!("Elo +190.85 {na}"));
    assert_eq!(line(pair(2)), format!("Elo +0.00 {na}"));
    assert_eq!(line(EloEstimate::NO_DATA), format!("Elo n/a {na}"));
    // Defined once the pairs differ.
    let two = Pentanomial::from_counts([0, 0, 1, 1, 0]).estimate();
    assert!(!line(two).contains(NOT_DEFINED), "{}", line(two));
}
