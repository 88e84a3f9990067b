#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Splits a match by book: one results-table row a book, then pooled.

    python3 scripts/confirm_books.py [--json OUT] TUNED.json [BOOK ...]
    python3 scripts/confirm_books.py [--json OUT] MATCH.json BOOK.epd [BOOK.epd ...]

A tuned file's `tune --confirm` match plays the pairs of its books in turn (pair i from book
i mod the number of books); BOOK names them in that order (default: noob_3moves_1k
popularpos_lichess_1k UHO_4060_v2_2k, the default --confirm-openings). A `marginal match
--json` report of a mixed book (scripts/mix_books.py) is split by the book each pair's opening
comes from: give the books' files. Prints | book | games | Elo [95%] | nElo [95%] | draws |
pentanomial LL LD WL+DD WD WW |, with the estimates of scripts/stats_reference.py.
--json writes the split as a report (format marginal-books/1): the file split, and for each
book and the pool its games, draws, pentanomial and estimates, so that the figures a page
cites from the split are in a shipped report (tuned/matches/NAME-confirm-books.json).
Standard library only.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import estimate  # noqa: E402

POINTS = {"Win": 2, "Draw": 1, "Loss": 0}


KEYS = ["ll", "ld", "wl_dd", "wd", "ww"]


def part(name, counts, games, draws):
    """One book (or the pool) of a marginal-books/1 report."""
    elo, lo, hi, nelo, nlo, nhi, _los = estimate(counts, math.sqrt(2.0))

    def finite(x):
        return x if x is not None and math.isfinite(x) else None

    return {
        "book": name, "games": games, "draws": draws,
        "pentanomial": dict(zip(KEYS, counts)),
        "elo": {
            "elo": finite(elo), "lower": finite(lo), "upper": finite(hi),
            "nelo": finite(nelo), "nelo_lower": finite(nlo), "nelo_upper": finite(nhi),
        },
    }


def row(name, counts, games, draws):
    elo, lo, hi, nelo, nlo, nhi, _los = estimate(counts, math.sqrt(2.0))
    return (
        f"| {name} | {games} | {elo:+.1f} [{lo:+.1f}, {hi:+.1f}] | {nelo:+.1f} [{nlo:+.1f}, {nhi:+.1f}] "
        f"| {100 * draws / games:.1f}% | {' '.join(str(c) for c in counts)} |"
    )


def main() -> None:
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--json"]:
        if len(args) < 2:
            sys.exit("confirm_books.py: --json needs a file to write")
        out, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    source = args[0]
    books = args[1:] or ["noob_3moves_1k", "popularpos_lichess_1k", "UHO_4060_v2_2k"]
    try:
        with open(source, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"confirm_books.py: {source}: not a readable JSON report ({e})")
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
    if out:
        split = {
            "format": "marginal-books/1",
            "source": source,
            "part": "confirm" if report.get("confirm") else "match",
            "books": [part(os.path.basename(b).removesuffix(".epd"), *per[b]) for b in books if per[b][1]],
            "pooled": part(f"pooled ({len(books)} books)", pooled, sum(per[b][1] for b in books),
                           sum(per[b][2] for b in books)),
        }
        with open(out + ".part", "w", encoding="utf-8") as f:
            json.dump(split, f, indent=2)
            f.write("\n")
        os.replace(out + ".part", out)


if __name__ == "__main__":
    main()
