#!/usr/bin/env python3
"""Recomputes a calibration report's agreement figures with scipy, from its sets alone.

For each objective: Spearman's rho, Kendall's tau-b and the least-squares slope (with its standard
error) of the objective against the pooled Elo over the sets, and percentile bootstrap 95%
intervals of all three (paired resampling of the sets, each resample's statistic computed with
numpy and the first ones checked against scipy's); for the games'
ceiling: rho between the first two books' Elo and between the even and odd pairs' Elo.

    python3 scripts/calibration_reference.py tuned/calibration-marginal-nodes5000.json [--json]

Point values must equal marginal's to rounding; intervals come from another random stream, so
they agree only within the bootstrap's own noise (tests/calibrate.rs allows 0.1 on rho and tau).
"""
import json
import sys

import numpy as np
from scipy import stats


def interval(x, y, stat, seed, resamples):
    """stat on the sets, with the 2.5th and 97.5th percentiles of stat over paired resamples of
    the sets (numpy's default linear interpolation); resamples without spread are left out, as
    marginal does. The resamples are computed a row at a time with numpy (ROWS[stat]); the
    first of them are checked against scipy's own function, which gives the point value."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    rng = np.random.default_rng(seed)
    i = rng.integers(0, len(x), (resamples, len(x)))
    xs, ys = x[i], y[i]
    spread = (np.ptp(xs, axis=1) > 0) & (np.ptp(ys, axis=1) > 0)
    xs, ys = xs[spread], ys[spread]
    draws = ROWS[stat](xs, ys)
    for row in range(min(5, len(draws))):
        assert np.isclose(draws[row], stat(xs[row], ys[row])), (stat.__name__, row)
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return {"value": float(stat(x, y)), "lower": float(lo), "upper": float(hi)}


def rho(a, b):
    return stats.spearmanr(a, b).statistic


def tau(a, b):
    return stats.kendalltau(a, b).statistic


def slope(a, b):
    return stats.linregress(a, b).slope


def centred(x):
    """Each row less its mean."""
    return x - x.mean(axis=1, keepdims=True)


def pearson_rows(a, b):
    a, b = centred(a), centred(b)
    return (a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))


def rho_rows(a, b):
    """Spearman's rho of each row: Pearson's r of the ranks (ties averaged)."""
    return pearson_rows(stats.rankdata(a, axis=1), stats.rankdata(b, axis=1))


def tau_rows(a, b):
    """Kendall's tau-b of each row: the pairs' concordance over the pairs untied on each side."""
    sa = np.sign(a[:, :, None] - a[:, None, :])
    sb = np.sign(b[:, :, None] - b[:, None, :])
    return (sa * sb).sum(axis=(1, 2)) / np.sqrt(np.abs(sa).sum(axis=(1, 2)) * np.abs(sb).sum(axis=(1, 2)))


def slope_rows(a, b):
    """The least-squares slope of b on a, each row."""
    a, b = centred(a), centred(b)
    return (a * b).sum(axis=1) / (a * a).sum(axis=1)


ROWS = {rho: rho_rows, tau: tau_rows, slope: slope_rows}


def main():
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    if report.get("format") != "marginal-calibration/1":
        sys.exit(f"{path}: not a marginal-calibration/1 report")
    seed, n = report["bootstrap"]["seed"], min(report["bootstrap"]["resamples"], 2000)
    sets = report["sets"]
    elo = [s["pooled"]["elo"] for s in sets]
    out = {"objectives": [], "ceiling": {}}
    for o, obj in enumerate(report["objectives"]):
        x = [s["objectives"][o] for s in sets]
        if np.ptp(x) == 0 or np.ptp(elo) == 0:
            out["objectives"].append({"name": obj["name"], "rho": None, "tau": None, "slope": None})
            continue
        lr = stats.linregress(x, elo)
        out["objectives"].append({
            "name": obj["name"],
            "rho": interval(x, elo, rho, seed, n),
            "tau": interval(x, elo, tau, seed, n),
            "slope": interval(x, elo, slope, seed, n),
            "intercept": float(lr.intercept),
            "slope_stderr": float(lr.stderr),
        })
    if len(report["books"]) >= 2:
        out["ceiling"]["book_vs_book"] = interval(
            [s["books"][0]["elo"] for s in sets], [s["books"][1]["elo"] for s in sets], rho, seed, n)
    out["ceiling"]["half_vs_half"] = interval(
        [s["even"]["elo"] for s in sets], [s["odd"]["elo"] for s in sets], rho, seed, n)
    if "--json" in sys.argv:
        print(json.dumps(out, indent=1))
        return
    fmt = lambda i: "n/a" if i is None else f"{i['value']:.2f} [{i['lower']:.2f}, {i['upper']:.2f}]"
    for o in out["objectives"]:
        if o["rho"] is None:
            print(f"{o['name']}: no spread")
            continue
        print(f"{o['name']}: rho {fmt(o['rho'])}, tau {fmt(o['tau'])}, slope {fmt(o['slope'])} "
              f"(stderr {o['slope_stderr']:.3f})")
    c = out["ceiling"]
    print(f"ceiling: book vs book {fmt(c.get('book_vs_book'))}, even vs odd {fmt(c['half_vs_half'])}")


if __name__ == "__main__":
    main()
