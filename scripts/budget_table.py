#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""The table of scripts/equal_budget.sh: one row per tuned set of one engine.

    python3 scripts/budget_table.py DIR MATCHES NAME NODES

Reads DIR/NAME-SET.json (tuned file) and DIR/NAME-SET.time (wall, user and system seconds of
each run of the tune, one line a run, summed) for SET in default, spsa-1g, spsa-4g, and the
match reports MATCHES/NAME-budget-SET-BOOK-NODES.json, and prints: the set, its values, the
solver, the games it tuned on, wall time, CPU minutes, the Elo against the defaults on each
unseen book and the books pooled (pentanomial counts summed), with 95% intervals. A missing
file is a blank cell. Standard library only.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import estimate  # noqa: E402

SETS = ["default", "spsa-1g", "spsa-4g"]
BOOKS = ["noob_3moves_1k", "popularpos_lichess_1k", "UHO_4060_v2_2k"]
KEYS = ["ll", "ld", "wl_dd", "wd", "ww"]


def elo_cell(counts):
    elo, lo, hi, _n, _nl, _nh, _los = estimate(counts, math.sqrt(2.0))

    def signed(x):
        return f"{x:+.1f}" if x is not None and math.isfinite(x) else "n/a"

    return f"{signed(elo)} [{signed(lo)}, {signed(hi)}] ({2 * sum(counts)})"


def times(path):
    """Wall, user and system seconds summed over the runs of a tune (lines of three numbers;
    /usr/bin/time's note of a failed run is skipped)."""
    total = [0.0, 0.0, 0.0]
    found = False
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    values = [float(x) for x in line.split()]
                except ValueError:
                    continue
                if len(values) == 3:
                    total = [a + b for a, b in zip(total, values)]
                    found = True
    return total if found else None


def row(directory, matches, name, nodes, label):
    stem = os.path.join(directory, f"{name}-{label}")
    if not os.path.exists(stem + ".json"):
        return f"| {label} | not tuned | | | | | | | | |"
    with open(stem + ".json", encoding="utf-8") as f:
        tuned = json.load(f)
    prov = tuned["provenance"]
    values = "/".join(str(tuned["margins"][n]) for n in tuned["tuned"])
    t = times(stem + ".time")
    wall = f"{t[0] / 60:.1f} min" if t else "?"
    cpu = f"{(t[1] + t[2]) / 60:.1f}" if t else "?"
    cells, pooled = [], [0] * 5
    for book in BOOKS:
        path = os.path.join(matches, f"{name}-budget-{label}-{book}-{nodes}.json")
        if not os.path.exists(path):
            cells.append("not played")
            continue
        with open(path, encoding="utf-8") as f:
            p = json.load(f)["pentanomial"]
        counts = [p[k] for k in KEYS]
        pooled = [a + b for a, b in zip(pooled, counts)]
        cells.append(elo_cell(counts))
    return (
        f"| {label} | {values} | {prov.get('solver', '?')} | {prov.get('games', 0)} | {wall} | {cpu} "
        f"| {' | '.join(cells)} | {elo_cell(pooled) if sum(pooled) else 'not played'} |"
    )


def main() -> None:
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    directory, matches, name, nodes = sys.argv[1:]
    print(f"{name}, {nodes} nodes a move; Elo [95%] (games) against the defaults")
    print()
    print(
        "| set | values | solver | games tuning | wall | CPU min "
        "| noob_3moves | popularpos_lichess | UHO | pooled |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label in SETS:
        print(row(directory, matches, name, nodes, label))


if __name__ == "__main__":
    main()
