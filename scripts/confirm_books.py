#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Splits a match by book: one results-table row a book, then pooled.

    python3 scripts/confirm_books.py TUNED.json [BOOK ...]
    python3 scripts/confirm_books.py MATCH.json BOOK.epd [BOOK.epd ...]

A tuned file's `tune --confirm` match plays the pairs of its books in turn (pair i from book
i mod the number of books); BOOK names them in that order (default: noob_3moves_1k
popularpos_lichess_1k UHO_4060_v2_2k, the default --confirm-openings). A `marginal match
--json` report of a mixed book (scripts/mix_books.py) is split by the book each pair's opening
comes from: give the books' files. Prints | book | games | Elo [95%] | nElo [95%] | draws |
pentanomial LL LD WL+DD WD WW |, with the estimates of scripts/stats_reference.py.
Standard library only.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import estimate  # noqa: E402

POINTS = {"Win": 2, "Draw": 1, "Loss": 0}


def row(name, counts, games, draws):
    elo, lo, hi, nelo, nlo, nhi, _los = estimate(counts, math.sqrt(2.0))
    return (
        f"| {name} | {games} | {elo:+.1f} [{lo:+.1f}, {hi:+.1f}] | {nelo:+.1f} [{nlo:+.1f}, {nhi:+.1f}] "
        f"| {100 * draws / games:.1f}% | {' '.join(str(c) for c in counts)} |"
    )


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    books = sys.argv[2:] or ["noob_3moves_1k", "popularpos_lichess_1k", "UHO_4060_v2_2k"]
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    confirm = report.get("confirm") or report
    pairs = {}
    for game in confirm["game_results"]:
        pairs.setdefault(game["pair"], []).append(game)
    # Books given as files: each pair goes to the book holding its opening (board, side to
    # move and castling: the en-passant square is written only when a capture is legal).
    owner = {}
    if all(os.path.isfile(b) for b in books):
        for b in books:
            with open(b, encoding="utf-8") as f:
                for line in f:
                    owner.setdefault(" ".join(line.split()[:3]), b)
    per = {b: [[0] * 5, 0, 0] for b in books}
    for index, games in pairs.items():
        if owner:
            book = per[owner[" ".join(games[0]["opening"].split()[:3])]]
        else:
            book = per[books[index % len(books)]]
        book[0][sum(POINTS[g["a_result"]] for g in games)] += 1
        book[1] += len(games)
        book[2] += sum(g["a_result"] == "Draw" for g in games)
    print("| book | games | Elo [95%] | nElo [95%] | draws | pentanomial LL LD WL+DD WD WW |")
    print("|---|---|---|---|---|---|")
    for name in books:
        counts, games, draws = per[name]
        if games:
            print(row(name, counts, games, draws))
    pooled = [sum(per[b][0][i] for b in books) for i in range(5)]
    print(row(f"pooled ({len(books)} books)", pooled, sum(per[b][1] for b in books),
              sum(per[b][2] for b in books)))


if __name__ == "__main__":
    main()
