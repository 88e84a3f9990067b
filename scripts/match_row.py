#!/usr/bin/env python3
"""One results-table row from a `marginal match --json` report (marginal-match/1).

    python3 scripts/match_row.py REPORT BOOK NODES SECONDS

Prints: | book | nodes | games | Elo [95%] | nElo [95%] | draws | pentanomial | wall |
"""
import json
import sys


def signed(x) -> str:
    """A figure as marginal prints it: signed, one decimal, or n/a where it is undefined
    (a book won or lost in every pair has no finite Elo)."""
    return "n/a" if x is None else f"{x:+.1f}"


def main() -> None:
    path, book, nodes, seconds = sys.argv[1:5]
    with open(path, encoding="utf-8") as f:
        r = json.load(f)
    e, w, p = r["elo"], r["wdl"], r["pentanomial"]
    games = w["wins"] + w["draws"] + w["losses"]
    print(
        f"| {book} | {nodes} | {games} | {signed(e['elo'])} [{signed(e['lower'])}, {signed(e['upper'])}] "
        f"| {signed(e['nelo'])} [{signed(e['nelo_lower'])}, {signed(e['nelo_upper'])}] "
        f"| {100 * w['draws'] / games:.1f}% | {p['ll']} {p['ld']} {p['wl_dd']} {p['wd']} {p['ww']} "
        f"| {seconds} s |"
    )


if __name__ == "__main__":
    main()
