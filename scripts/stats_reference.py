#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Reference values for the unit tests of marginal's match statistics.

What this is
------------
An independent recomputation of every expected number that the unit tests
of the match-statistics module (``src/scoring/games/stats.rs``, its
``mod tests``) hard-code. It is written from the published formulas that
the module docs state, not from the Rust code, and needs only the Python 3
standard library (no numpy, no scipy).

Regenerate (prints everything to stdout; about 15 seconds):

    python3 scripts/stats_reference.py

The exit status is 1 if one of the self-checks at the end fails.

Which tests consume which output section
----------------------------------------
* ``PENTA_CASES``   -> ``pentanomial_estimates_match_reference`` and
                       ``pentanomial_llr_matches_reference``
* ``WDL_CASES``     -> ``wdl_estimates_and_llr_match_reference`` (the
                       normal-approximation column is printed for
                       completeness; that test does not assert it)
* ``DEGENERATE_LLR`` and ``elo_075`` -> ``degenerate_counts``
* ``EXTREME_LLR``   -> ``extreme_hypotheses_match_reference``
* SPRT bounds       -> ``sprt_params_bounds_and_decisions``
* ``ERF_TABLE``     -> ``erf_matches_reference``
* ``PHI_TABLE``     -> ``normal_cdf_matches_reference``
* Elo/score values  -> ``elo_score_conversions``

Methods
-------
* Estimates: the closed forms of the module docs. The mean ``mu`` and the
  variance ``sigma^2`` of the observed frequencies are computed exactly
  (``fractions``) and rounded once; the rest is double precision. The
  interval uses ``z = 1.959963984540054``, the value the tests state (it is
  ``scipy.stats.norm.ppf(0.975)`` and the constant ``Z_975`` of stats.rs).
  The script checks it against ``Phi^-1(0.975)`` computed here to 50
  digits: it is one unit in the last place below the correctly rounded
  1.9599639845400543, which is far below any tolerance of the tests.
* Where the Rust tests say "from scipy" (erf, erfc, the normal CDF) this
  script uses the standard library instead: ``math.erf``, ``math.erfc`` and
  ``Phi(z) = 0.5 * math.erfc(-z / sqrt(2))``. On the tests' arguments they
  agree with scipy's values to 2.3e-16 (erf, erfc) and 1.3e-14 relative
  (Phi, worst at z = -8), far inside the tests' tolerances.
* Normal-approximation LLR: ``N/2 * ((T - T0)^2 - (T - T1)^2)`` with the
  regularized counts and the observed per-sample t-value
  ``T = (mu - 1/2) / sigma``.
* Exact (generalized SPRT) LLR as fishtest's ``LLRcalc.LLR_normalized``
  defines it: empty bins get 1e-3 pseudo-counts and ``N`` includes them,
  ``p_hat = n / N``; each hypothesis fixes the per-sample t-value
  ``t = nElo / (800 / ln 10)``, times sqrt(2) for pentanomial samples;
  ``L(t) = max sum_i p_hat_i ln p_i`` over distributions ``p`` on the
  outcome values with ``(mu_p - 1/2) / sigma_p = t``; and
  ``LLR = N * (L(t1) - L(t0))``.

  Every stationary point of that problem has the form
  ``p_i = p_hat_i / (1 + theta phi_i)`` with
  ``phi_i = a_i - 1/2 - t (sigma^2 + (a_i - mu)^2) / (2 sigma)`` and
  ``mu = 1/2 + t sigma``, ``theta`` the root of the secular equation
  ``sum_i p_hat_i phi_i / (1 + theta phi_i) = 0`` (Van den Bergh, "Comments
  on normalized Elo", section 4.1,
  https://www.cantate.be/Fishtest/normalized_elo_practical.pdf). For a
  given ``sigma`` that candidate is explicit, so the stationary points are
  the roots in ``sigma`` of ``sigma_p(sigma) - sigma`` (at which the mean
  condition ``mu_p = 1/2 + t sigma`` is also checked). The script brackets
  them on a grid of ``sigma`` (sign changes, plus a golden-section search
  at each local minimum of ``|sigma_p - sigma|`` for pairs of roots closer
  than the grid spacing), refines them by bisection and takes the best one.
  That is a *global* search: it also covers the far-out hypotheses of
  ``EXTREME_LLR``, where the published fixed-point iteration (and
  fishtest) cannot start and the problem has several stationary points.
  (A grid five times finer gave the same maxima on all these cases and on
  a sweep of nElo from -1000 to 1000 in steps of 50 over 8 sets of counts.)
  Finally the best root is re-solved and the LLR evaluated in 40-digit
  decimal arithmetic, so the printed LLRs are correct to about the last
  digit; in double precision the factor ``N`` amplifies rounding errors to
  about 1e-12.

  Cross-check: the published fixed-point iteration (fishtest's
  ``MLE_t_value``, from the uniform distribution, here iterated to
  convergence) is run wherever it converges and must reach the same
  maximum.

Output
------
Values are printed with ``repr()`` (shortest round-trip form, so full
double precision). Each table is printed as the Rust literal of the
constant of the same name in the tests (one tuple per case, in the tests'
order), so it can be pasted in as is and reformatted with rustfmt; the
scalars are printed on labelled lines; the self-check summary comes last.
"""

import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

# ---------------------------------------------------------------------------
# Constants and the cases of the tests
# ---------------------------------------------------------------------------

#: Normalized Elo per unit of per-game t-value, 800 / ln 10.
NELO_PER_T = 800.0 / math.log(10.0)

#: Phi^-1(0.975) as the tests state it (scipy's ppf, stats.rs's Z_975).
Z_975 = 1.959963984540054

#: Pseudo-count given to an empty bin before an LLR is computed (fishtest's
#: ``regularize``); the double 1e-3, converted exactly.
REGULARIZATION = Fraction(1e-3)

#: Decimal digits of the final LLR evaluation.
DECIMAL_DIGITS = 40

#: pi to 60 digits, for the 50-digit check of Z_975.
PI_60 = Decimal("3.14159265358979323846264338327950288419716939937510582097494")

#: The SPRT designs of the tests, (nelo0, nelo1); alpha = beta = 0.05.
DESIGNS = [(0.0, 5.0), (-1.75, 0.25), (0.5, 2.5)]

#: Pentanomial counts [LL, LD, WL+DD, WD, WW] of PENTA_CASES.
PENTA_COUNTS = [
    [10, 20, 40, 20, 10],
    [5, 30, 100, 40, 8],
    [0, 1, 5, 3, 1],
    [100, 400, 1000, 450, 120],
    [1187, 7410, 13475, 7378, 1164],
    [2000, 8000, 20000, 9000, 2500],
]

#: Trinomial counts [losses, draws, wins] of WDL_CASES.
WDL_COUNTS = [
    [100, 230, 120],
    [40, 150, 45],
    [0, 12, 3],
]

#: Pentanomial counts with a single occupied bin, DEGENERATE_LLR.
DEGENERATE_COUNTS = [
    [0, 0, 37, 0, 0],
    [0, 0, 0, 0, 12],
    [12, 0, 0, 0, 0],
    [0, 0, 0, 9, 0],
]

#: (counts, nelo0, nelo1) of EXTREME_LLR.
EXTREME_CASES = [
    ([10, 20, 40, 20, 10], 0.0, 600.0),
    ([0, 1, 5, 3, 1], -1000.0, 300.0),
    ([5, 30, 100, 40, 8], 300.0, 1000.0),
    ([0, 0, 0, 9, 0], 0.0, 1000.0),
]

#: (alpha, beta) of the SPRT bounds test.
ERROR_RATES = [(0.05, 0.05), (0.1, 0.02)]

#: Arguments of ERF_TABLE and PHI_TABLE.
ERF_ARGS = [-3.0, -1.0, -0.5, -0.001, 0.0, 1e-08, 0.1, 0.5, 1.0, 1.5, 2.0,
            2.4, 2.5, 3.0, 4.0, 5.5]
PHI_ARGS = [-8.0, -5.0, -2.0, -1.0, 0.0, 0.3, Z_975, 3.0, 6.0]

# ---------------------------------------------------------------------------
# Elementary functions
# ---------------------------------------------------------------------------


def elo_from_score(s):
    """Logistic Elo for a score per game, -400 log10(1/s - 1); scores <= 0
    give -inf and scores >= 1 give +inf (module docs)."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_from_elo(elo):
    """Expected score per game for a logistic Elo difference,
    1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def normal_cdf(z):
    """Standard normal CDF, Phi(z) = erfc(-z / sqrt 2) / 2."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_quantile_50_digits(prob):
    """Phi^-1(prob) to about 50 digits (Decimal): Newton's method on
    Phi(z) = 1/2 + phi(z) (z + z^3/3 + z^5/(3*5) + ...), an all-positive
    series for z > 0 (so 1/2 < prob < 1)."""
    with localcontext() as ctx:
        ctx.prec = 60
        prob = Decimal(prob)
        def density(x):
            return (-x * x / 2).exp() / (2 * PI_60).sqrt()

        def cdf(x):
            term = total = x
            n = 0
            while abs(term) > Decimal(10) ** -62:
                n += 1
                term = term * x * x / (2 * n + 1)
                total += term
            return Decimal("0.5") + density(x) * total

        z = Decimal(2)
        for _ in range(100):
            step = (cdf(z) - prob) / density(z)
            z -= step
            if abs(step) < Decimal(10) ** -55:
                break
        return +z


# Helpers that let the LLR code below run on floats and on Decimals alike.

def _sqrt(x):
    return x.sqrt() if isinstance(x, Decimal) else math.sqrt(x)


def _ln(x):
    return x.ln() if isinstance(x, Decimal) else math.log(x)


def _sum(terms):
    """Sum: math.fsum for floats, context precision for Decimals."""
    terms = list(terms)
    if terms and isinstance(terms[0], Decimal):
        return sum(terms, Decimal(0))
    return math.fsum(terms)


def moments(a, p):
    """Mean and (two-pass) variance of the distribution p on the values a."""
    mean = _sum(ai * pi for ai, pi in zip(a, p))
    var = _sum(pi * (ai - mean) ** 2 for ai, pi in zip(a, p))
    return mean, var


# ---------------------------------------------------------------------------
# Estimates (no regularization)
# ---------------------------------------------------------------------------


def exact_moments(counts):
    """N, mean and variance of the observed frequencies, as exact fractions
    (counts may be ints or Fractions; the values are a_i = i/(K-1))."""
    k = len(counts)
    n = sum(Fraction(c) for c in counts)
    a = [Fraction(i, k - 1) for i in range(k)]
    mu = sum(c * ai for c, ai in zip(counts, a)) / n
    var = sum(c * (ai - mu) ** 2 for c, ai in zip(counts, a)) / n
    return n, mu, var


def estimate(counts, sigma_game_factor):
    """[elo, lower, upper, nelo, nelo_lower, nelo_upper, los].

    ``sigma_game_factor`` is sigma_game / sigma: sqrt 2 for pentanomial
    samples (a pair averages two games), 1 for trinomial ones.
    """
    n, mu, var = exact_moments(counts)
    delta = float(mu - Fraction(1, 2))  # mu - 1/2 exactly, rounded once
    elo = elo_from_score(float(mu))
    if var == 0:
        # Every sample in one bin: no spread (documented edge case).
        nelo = math.copysign(math.inf, delta) if delta else 0.0
        los = 1.0 if delta > 0 else 0.0 if delta < 0 else 0.5
        return [elo, elo, elo, nelo, nelo, nelo, los]
    se = math.sqrt(float(var / n))
    sigma_game = sigma_game_factor * math.sqrt(float(var))
    lo, hi = float(mu) - Z_975 * se, float(mu) + Z_975 * se
    def nelo_of(d):
        # nElo is linear in the score: applied to (mu - 1/2) -/+ z se.
        return d / sigma_game * NELO_PER_T

    return [
        elo,
        elo_from_score(lo),
        elo_from_score(hi),
        nelo_of(delta),
        nelo_of(delta - Z_975 * se),
        nelo_of(delta + Z_975 * se),
        normal_cdf(delta / se),
    ]


# ---------------------------------------------------------------------------
# SPRT log-likelihood ratios
# ---------------------------------------------------------------------------


def regularized_counts(counts):
    """Counts with every empty bin replaced by the 1e-3 pseudo-count, as
    exact fractions (fishtest's ``regularize``)."""
    return [Fraction(c) if c else REGULARIZATION for c in counts]


def normal_approx_llr(counts, nelo0, nelo1):
    """Brownian approximation N/2 ((T - T0)^2 - (T - T1)^2)."""
    n, mu, var = exact_moments(regularized_counts(counts))
    t = float(mu - Fraction(1, 2)) / math.sqrt(float(var))
    scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
    t0, t1 = scale * nelo0 / NELO_PER_T, scale * nelo1 / NELO_PER_T
    return 0.5 * float(n) * (t1 - t0) * (2.0 * t - t0 - t1)


class Problem:
    """The maximum-likelihood problems of one set of counts, in one number
    type (float or Decimal): outcome values ``a``, regularized frequencies
    ``phat`` and sample size ``n``."""

    def __init__(self, counts, num):
        c = regularized_counts(counts)
        n = sum(c)
        k = len(counts)
        def conv(f):  # an exact fraction in the number type
            if num is Decimal:
                return Decimal(f.numerator) / Decimal(f.denominator)
            return float(f)

        self.num = num
        self.counts = counts
        self.n = conv(n)
        self.phat = [conv(ci / n) for ci in c]
        self.a = [conv(Fraction(i, k - 1)) for i in range(k)]
        self.half = conv(Fraction(1, 2))

    def t_value(self, nelo):
        """Per-sample t-value nElo / (800 / ln 10), times sqrt 2 for pairs."""
        if self.num is Decimal:
            scale = Decimal(2).sqrt() if len(self.a) == 5 else Decimal(1)
            return scale * Decimal(nelo) * Decimal(10).ln() / 800
        scale = math.sqrt(2.0) if len(self.a) == 5 else 1.0
        return scale * nelo / NELO_PER_T

    def candidate(self, t, sigma):
        """p_hat / (1 + theta phi) for the given sigma, or None where the
        secular equation has no admissible root."""
        mu = self.half + t * sigma
        var = sigma * sigma
        phi = [ai - self.half - t * (var + (ai - mu) ** 2) / (2 * sigma)
               for ai in self.a]
        theta = secular_root(self.phat, phi)
        if theta is None:
            return None
        return [h / (1 + theta * f) for h, f in zip(self.phat, phi)]

    def residual(self, t, sigma):
        """sigma_p - sigma for the candidate of ``sigma`` (None if none)."""
        p = self.candidate(t, sigma)
        if p is None:
            return None
        return _sqrt(moments(self.a, p)[1]) - sigma

    def infeasibility(self, t, sigma, p):
        """Largest violation of sum p = 1, sigma_p = sigma, mu_p = 1/2 + t sigma."""
        mu_p, var_p = moments(self.a, p)
        return max(abs(_sum(p) - 1), abs(_sqrt(var_p) - sigma),
                   abs(mu_p - (self.half + t * sigma)))

    def log_likelihood(self, p):
        """sum_i p_hat_i ln p_i."""
        return _sum(h * _ln(q) for h, q in zip(self.phat, p))


def secular_root(w, phi):
    """Root theta of sum_i w_i phi_i / (1 + theta phi_i) = 0 with every
    1 + theta phi_i > 0 (all w_i > 0).

    The left side falls strictly from +inf to -inf on
    (-1/max phi, -1/min phi), so the root exists and is unique iff phi takes
    both signs; otherwise None. Bisection until the bracket cannot shrink
    (adjacent doubles, or adjacent decimals at the context precision); the
    open ends of the bracket are never evaluated.
    """
    lo_phi, hi_phi = min(phi), max(phi)
    if not lo_phi < 0 < hi_phi:
        return None
    lo, hi = -1 / hi_phi, -1 / lo_phi
    best, best_abs = None, None
    while True:
        mid = (lo + hi) / 2
        if not lo < mid < hi:
            break
        v = _sum(wi * fi / (1 + mid * fi) for wi, fi in zip(w, phi))
        if best_abs is None or abs(v) < best_abs:
            best, best_abs = mid, abs(v)
        if v > 0:
            lo = mid
        elif v < 0:
            hi = mid
        else:
            return mid
    return best


#: Grid of the stationary-point search: sigma / sigma_max = logistic(x) for
#: SCAN_POINTS + 1 values of x evenly spaced on [-SCAN_SPAN, SCAN_SPAN]
#: (dense near both ends of the sigma range).
SCAN_POINTS = 1200
SCAN_SPAN = 36.0
#: A bracketed root counts as a stationary point if the constraints hold
#: to this accuracy (double precision).
FEASIBILITY = 1e-11


def stationary_points(prob, t):
    """Every stationary point the search finds, as (L, sigma, p) in double
    precision.

    The residual sigma_p(sigma) - sigma is evaluated on the grid; roots are
    bracketed by its sign changes and, since two roots can lie between
    neighbouring grid points, also by minimizing |residual| (golden section)
    around each of its local minima on the grid.
    """
    # On [0, 1], sigma_p^2 <= mu (1 - mu); with mu = 1/2 + t sigma this
    # gives sigma <= 1 / (2 sqrt(1 + t^2)).
    sigma_max = 0.5 / math.sqrt(1.0 + t * t)
    sigmas = [sigma_max / (1.0 + math.exp(-SCAN_SPAN * (2.0 * i / SCAN_POINTS - 1.0)))
              for i in range(SCAN_POINTS + 1)]
    values = [prob.residual(t, s) for s in sigmas]
    brackets = []  # (lo, hi) with residuals of opposite signs at the ends
    for i in range(SCAN_POINTS):
        r_lo, r_hi = values[i], values[i + 1]
        if r_lo is not None and r_hi is not None and (r_lo > 0.0) != (r_hi > 0.0):
            brackets.append((sigmas[i], sigmas[i + 1]))
    for i in range(1, SCAN_POINTS):
        r = values[i - 1:i + 2]
        if None in r or not ((r[0] > 0.0) == (r[1] > 0.0) == (r[2] > 0.0)):
            continue
        if abs(r[1]) <= abs(r[0]) and abs(r[1]) <= abs(r[2]):
            sign = 1.0 if r[1] > 0.0 else -1.0
            lo, hi = sigmas[i - 1], sigmas[i + 1]
            mid, r_mid = golden_min(lambda s: residual_or_inf(prob, t, s, sign), lo, hi)
            if r_mid < 0.0:  # crossed zero twice between lo and hi
                brackets += [(lo, mid), (mid, hi)]
    found = []
    for lo, hi in brackets:
        r_lo = prob.residual(t, lo)
        while True:  # bisection in sigma down to adjacent doubles
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi:
                break
            r_mid = prob.residual(t, mid)
            if r_mid is None:
                break
            if (r_mid > 0.0) == (r_lo > 0.0):
                lo, r_lo = mid, r_mid
            else:
                hi = mid
        sigma = 0.5 * (lo + hi)
        p = prob.candidate(t, sigma)
        if p is not None and prob.infeasibility(t, sigma, p) <= FEASIBILITY:
            found.append((prob.log_likelihood(p), sigma, p))
    return found


def residual_or_inf(prob, t, sigma, sign):
    """sign * residual, +inf where there is no candidate."""
    r = prob.residual(t, sigma)
    return math.inf if r is None else sign * r


def golden_min(f, lo, hi):
    """(x, f(x)) at the minimum of f on [lo, hi] by golden-section search,
    stopping when the bracket cannot shrink any further."""
    g = (math.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    while lo < x1 < x2 < hi:
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = f(x2)
        if f1 < 0.0 or f2 < 0.0:
            break  # a sign change is all that is needed
    return (x1, f1) if f1 <= f2 else (x2, f2)


def refine_decimal(prob_dec, t, sigma):
    """Re-solve sigma_p(sigma) = sigma in Decimal by the secant method,
    starting from the double-precision root; returns (L, p)."""
    s0 = Decimal(sigma)
    s1 = s0 * (1 + Decimal("1e-12"))
    r0, r1 = prob_dec.residual(t, s0), prob_dec.residual(t, s1)
    for _ in range(100):
        if r1 == r0:
            break
        s0, s1 = s1, s1 - r1 * (s1 - s0) / (r1 - r0)
        r0, r1 = r1, prob_dec.residual(t, s1)
        if r1 is None:
            raise RuntimeError(f"{prob_dec.counts}: decimal refinement left the domain")
        if abs(s1 - s0) <= abs(s1) * Decimal(10) ** (8 - DECIMAL_DIGITS):
            break
    p = prob_dec.candidate(t, s1)
    if prob_dec.infeasibility(t, s1, p) > Decimal(10) ** (10 - DECIMAL_DIGITS):
        raise RuntimeError(f"{prob_dec.counts}: decimal refinement did not converge")
    return prob_dec.log_likelihood(p), p


#: Fixed-point iteration: stop once no probability moves more than
#: FP_TOLERANCE; accept a last step up to FP_ACCEPT (rounding noise keeps
#: the step near 1e-13 for concentrated data).
FP_TOLERANCE = 1e-15
FP_ACCEPT = 1e-10
FP_MAX_ITERATIONS = 1000


def mle_fixed_point(prob, t):
    """The published fixed-point iteration (Van den Bergh section 4.1;
    fishtest's ``MLE_t_value``) from the uniform distribution, in double
    precision. None if it cannot start or does not settle."""
    a, k = prob.a, len(prob.a)
    p = [1.0 / k] * k
    change = math.inf
    for _ in range(FP_MAX_ITERATIONS):
        mu, var = moments(a, p)
        sigma = math.sqrt(var)
        phi = [ai - 0.5 - t * (var + (ai - mu) ** 2) / (2.0 * sigma) for ai in a]
        theta = secular_root(prob.phat, phi)
        if theta is None:
            return None
        new = [h / (1.0 + theta * f) for h, f in zip(prob.phat, phi)]
        change = max(abs(x - y) for x, y in zip(new, p))
        p = new
        if change <= FP_TOLERANCE:
            break
    return p if change <= FP_ACCEPT else None


class Checks:
    """Self-check results, reported at the end of the output."""

    def __init__(self):
        self.failures = []
        self.fixed_point_runs = 0
        self.fixed_point_max_diff = 0.0
        self.decimal_max_diff = 0.0
        self.global_only = []
        self.several_points = []


CHECKS = Checks()
_CACHE = {}


def max_log_likelihood(counts, nelo):
    """The maximum-likelihood distribution for the hypothesis ``nelo``:
    (the Decimal Problem, p in Decimal). Runs the cross-checks; cached."""
    key = (tuple(counts), nelo)
    if key in _CACHE:
        return _CACHE[key]
    prob = Problem(counts, float)
    t = prob.t_value(nelo)
    points = stationary_points(prob, t)
    if not points:
        raise RuntimeError(f"{counts}: no stationary point for nElo {nelo!r}")
    l_best, sigma, _ = max(points, key=lambda x: x[0])
    if len(points) > 1:
        CHECKS.several_points.append((counts, nelo, len(points)))

    p_fp = mle_fixed_point(prob, t)
    if p_fp is None:
        CHECKS.global_only.append((counts, nelo))
    else:
        CHECKS.fixed_point_runs += 1
        diff = abs(prob.log_likelihood(p_fp) - l_best)
        CHECKS.fixed_point_max_diff = max(CHECKS.fixed_point_max_diff, diff)
        if diff > 1e-12:
            CHECKS.failures.append(
                f"{counts}, nElo {nelo!r}: the fixed point's L differs from "
                f"the global maximum by {diff:.3e}")

    with localcontext() as ctx:
        ctx.prec = DECIMAL_DIGITS
        prob_dec = Problem(counts, Decimal)
        l_dec, p_dec = refine_decimal(prob_dec, prob_dec.t_value(nelo), sigma)
    diff = abs(float(l_dec) - l_best)
    CHECKS.decimal_max_diff = max(CHECKS.decimal_max_diff, diff)
    if diff > 1e-12:
        CHECKS.failures.append(f"{counts}, nElo {nelo!r}: decimal L differs "
                               f"from double precision by {diff:.3e}")
    _CACHE[key] = (prob_dec, p_dec)
    return _CACHE[key]


def exact_llr(counts, nelo0, nelo1):
    """Generalized SPRT LLR N (L(t1) - L(t0)) (fishtest's LLR_normalized,
    solved to convergence), evaluated in Decimal, rounded once."""
    prob, p0 = max_log_likelihood(counts, nelo0)
    _, p1 = max_log_likelihood(counts, nelo1)
    with localcontext() as ctx:
        ctx.prec = DECIMAL_DIGITS
        llr = prob.n * _sum(h * (q1 / q0).ln()
                            for h, q0, q1 in zip(prob.phat, p0, p1))
    return float(llr)


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def fmt(values):
    """A list of floats as a Rust-like array literal, full precision."""
    return "[" + ", ".join(repr(v) for v in values) + "]"


def section(title, tests):
    print()
    print("=" * 78)
    print(title)
    print("  consumed by: " + ", ".join(tests))
    print("=" * 78)


def print_cases(counts_list, sigma_game_factor, approx_asserted=True):
    """One Rust tuple per set of counts: (counts, estimate, exact LLR for
    DESIGNS, normal-approximation LLR for DESIGNS)."""
    note = "" if approx_asserted else " (last column not asserted by the test)"
    print("// (counts, [elo, lower, upper, nelo, nelo_lower, nelo_upper, los],")
    print(f"//  exact LLR for DESIGNS, normal-approximation LLR for DESIGNS){note}")
    for counts in counts_list:
        print("(")
        print(f"    {counts},")
        print(f"    {fmt(estimate(counts, sigma_game_factor))},")
        print(f"    {fmt([exact_llr(counts, e0, e1) for e0, e1 in DESIGNS])},")
        print(f"    {fmt([normal_approx_llr(counts, e0, e1) for e0, e1 in DESIGNS])},")
        print("),")


def main():
    print("Reference values for the stats.rs unit tests "
          "(python3 scripts/stats_reference.py)")
    print(f"DESIGNS (nelo0, nelo1), alpha = beta = 0.05: {DESIGNS}")
    print(f"800 / ln 10 = {NELO_PER_T!r}; z = Z_975 = {Z_975!r}")

    section("PENTA_CASES: counts [LL, LD, WL+DD, WD, WW]",
            ["pentanomial_estimates_match_reference",
             "pentanomial_llr_matches_reference"])
    print_cases(PENTA_COUNTS, math.sqrt(2.0))

    section("WDL_CASES: counts [losses, draws, wins]",
            ["wdl_estimates_and_llr_match_reference"])
    print_cases(WDL_COUNTS, 1.0, approx_asserted=False)

    section("DEGENERATE_LLR: exact LLR for DESIGNS; elo_075",
            ["degenerate_counts"])
    for counts in DEGENERATE_COUNTS:
        print(f"({counts}, {fmt([exact_llr(counts, e0, e1) for e0, e1 in DESIGNS])}),")
    print(f"elo_075 = elo_from_score(0.75) = {elo_from_score(0.75)!r}")

    section("EXTREME_LLR: (counts, nelo0, nelo1, exact LLR)",
            ["extreme_hypotheses_match_reference"])
    for counts, e0, e1 in EXTREME_CASES:
        print(f"({counts}, {e0!r}, {e1!r}, {exact_llr(counts, e0, e1)!r}),")

    section("SPRT bounds (ln(beta/(1-alpha)), ln((1-beta)/alpha))",
            ["sprt_params_bounds_and_decisions"])
    for alpha, beta in ERROR_RATES:
        lo = math.log(beta / (1.0 - alpha))
        hi = math.log((1.0 - beta) / alpha)
        print(f"alpha {alpha!r}, beta {beta!r}: ({lo!r}, {hi!r})")

    section("ERF_TABLE: (x, erf(x), erfc(x)) from math.erf, math.erfc",
            ["erf_matches_reference"])
    for x in ERF_ARGS:
        print(f"({x!r}, {math.erf(x)!r}, {math.erfc(x)!r}),")

    section("PHI_TABLE: (z, Phi(z)), Phi(z) = 0.5 * math.erfc(-z / sqrt(2))",
            ["normal_cdf_matches_reference"])
    for z in PHI_ARGS:
        print(f"({'Z_975' if z == Z_975 else repr(z)}, {normal_cdf(z)!r}),")

    section("Elo/score conversions", ["elo_score_conversions"])
    print(f"elo_from_score(0.6)  = {elo_from_score(0.6)!r}")
    print(f"elo_from_score(0.25) = {elo_from_score(0.25)!r}")
    print(f"score_from_elo(100)  = {score_from_elo(100.0)!r}")

    section("Self-checks", ["(this script)"])
    z_exact = normal_quantile_50_digits("0.975")
    ulp = math.ulp(Z_975)
    z_off = float((Decimal(Z_975) - z_exact) / Decimal(ulp))
    print(f"Phi^-1(0.975) = {z_exact:.40} (40 digits)")
    print(f"  correctly rounded: {float(z_exact)!r}; Z_975 = {Z_975!r} "
          f"is {z_off:+.2f} ulp from the exact value")
    if abs(z_off) > 1.0:
        CHECKS.failures.append(f"Z_975 is {z_off:+.2f} ulp off")
    print(f"exact LLR, global search vs the published fixed-point iteration "
          f"({CHECKS.fixed_point_runs} problems where it converges): "
          f"max |dL| = {CHECKS.fixed_point_max_diff:.3e}")
    print(f"exact LLR, double vs {DECIMAL_DIGITS}-digit decimal "
          f"(all {len(_CACHE)} problems): max |dL| = {CHECKS.decimal_max_diff:.3e}")
    for counts, nelo in CHECKS.global_only:
        print(f"  fixed point cannot start or settle, global search only: "
              f"{counts}, nElo {nelo!r}")
    for counts, nelo, k in CHECKS.several_points:
        print(f"  {k} stationary points, best taken: {counts}, nElo {nelo!r}")
    for message in CHECKS.failures:
        print(f"FAILED: {message}")
    if CHECKS.failures:
        return 1
    print("all self-checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
