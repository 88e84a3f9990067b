#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Pools `marginal match --json` reports of one margin set on several books.

    python3 scripts/pool_books.py REPORT [REPORT ...]

Prints one results-table row: games, Elo [95%], nElo [95%], draw rate and pentanomial of the
pentanomial counts summed over the reports (every book weighted by its pairs), with the
estimates of scripts/stats_reference.py (the published formulas marginal's statistics
implement). Standard library only.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import estimate  # noqa: E402


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    counts = [0, 0, 0, 0, 0]
    games = draws = 0
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        p = r["pentanomial"]
        for i, key in enumerate(["ll", "ld", "wl_dd", "wd", "ww"]):
            counts[i] += p[key]
        w = r["wdl"]
        games += w["wins"] + w["draws"] + w["losses"]
        draws += w["draws"]
    elo, lo, hi, nelo, nlo, nhi, _los = estimate(counts, math.sqrt(2.0))

    def signed(x) -> str:
        # Undefined (a set that won or lost every pair) is n/a, as marginal prints it.
        return f"{x:+.1f}" if x is not None and math.isfinite(x) else "n/a"

    # The columns of scripts/match_row.py's rows: book, nodes (blank: the books' own rows
    # say it), games, Elo, nElo, draws, pentanomial, wall (blank).
    print(
        f"| pooled ({len(sys.argv) - 1} books) | | {games} | {signed(elo)} [{signed(lo)}, {signed(hi)}] "
        f"| {signed(nelo)} [{signed(nlo)}, {signed(nhi)}] | {100 * draws / max(games, 1):.1f}% "
        f"| {' '.join(str(c) for c in counts)} | |"
    )


if __name__ == "__main__":
    main()
