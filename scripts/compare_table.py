#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""The table of scripts/compare_solvers.sh: one row per solver at one budget.

    python3 scripts/compare_table.py DIR BUDGET

Reads DIR/BUDGET-SOLVER.json (tuned file), .time (wall, user, system seconds) and the match
reports DIR/BUDGET-SOLVER-BOOK-5000.json, and prints: the set, suite evaluations, games spent
tuning, wall time, CPU minutes, the validation objective (tuned against the defaults), the Elo
against the defaults on each book and the three books pooled (pentanomial counts summed), with
95% intervals. Standard library only.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import estimate  # noqa: E402

SOLVERS = ["race", "spsa", "nelder-mead", "pso", "games-spsa"]
BOOKS = ["noob_3moves_1k", "popularpos_lichess_1k", "UHO_4060_v2_2k"]
KEYS = ["ll", "ld", "wl_dd", "wd", "ww"]


def elo_cell(counts):
    elo, lo, hi, _n, _nl, _nh, _los = estimate(counts, math.sqrt(2.0))
    return f"{elo:+.1f} [{lo:+.1f}, {hi:+.1f}]"


def row(directory, budget, solver):
    stem = os.path.join(directory, f"{budget}-{solver}")
    if not os.path.exists(stem + ".json"):
        return None
    with open(stem + ".json", encoding="utf-8") as f:
        tuned = json.load(f)
    prov = tuned["provenance"]
    values = "/".join(str(tuned["margins"][n]) for n in tuned["tuned"])
    objective = {s["name"]: s["objective"]["value"] for s in tuned["validation"]["sets"]}
    wall = cpu = float("nan")
    if os.path.exists(stem + ".time"):
        with open(stem + ".time", encoding="utf-8") as f:
            wall, user, system = (float(x) for x in f.read().split()[-3:])
        cpu = (user + system) / 60.0
    cells, pooled = [], [0] * 5
    for book in BOOKS:
        path = f"{stem}-{book}-5000.json"
        if not os.path.exists(path):
            cells.append("not played")
            continue
        with open(path, encoding="utf-8") as f:
            p = json.load(f)["pentanomial"]
        counts = [p[k] for k in KEYS]
        pooled = [a + b for a, b in zip(pooled, counts)]
        cells.append(elo_cell(counts))
    games = 2 * sum(pooled)
    return (
        f"| {budget} min | {solver} | {values} | {prov.get('evaluations', 0)} | {prov.get('games', 0)} "
        f"| {wall / 60:.1f} min | {cpu:.1f} | {objective['tuned']:.3f} ({objective['tuned'] - objective['default']:+.3f}) "
        f"| {' | '.join(cells)} | {elo_cell(pooled) if games else 'not played'} ({games}) |"
    )


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    directory, budget = sys.argv[1:]
    print(
        "| budget | solver | set (F/P/R/D) | evaluations | games tuning | wall | CPU min "
        "| validation objective (vs defaults) | noob_3moves | popularpos_lichess | UHO | pooled (games) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for solver in SOLVERS:
        line = row(directory, budget, solver)
        if line:
            print(line)


if __name__ == "__main__":
    main()
