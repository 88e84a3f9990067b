#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Pools `marginal match --json` reports of one margin set on several books.

    python3 scripts/pool_books.py [--sprt ELO0,ELO1,ALPHA,BETA] [--json OUT] REPORT [REPORT ...]

Prints one results-table row: games, Elo [95%], nElo [95%], draw rate and pentanomial of the
pentanomial counts summed over the reports (every book weighted by its pairs), with the
estimates of scripts/stats_reference.py (the published formulas marginal's statistics
implement).

--sprt judges the pooled games with an SPRT in normalized Elo (as `marginal match --sprt`:
the generalized LLR of scripts/stats_reference.py, bounds ln(beta/(1-alpha)) and
ln((1-beta)/alpha)) once every report is in: H1 (the set is better by elo1), H0 (it is not
better than elo0) or undecided. --json writes the pooled report (format marginal-pooled/1):
its parts (each report's path, book, games and games lost to engine faults), the summed
pentanomial and fault losses (side a, side b), the estimates and the SPRT, and the reports' wall
time summed (`elapsed_seconds`, when every report has it). Reports of one book played in rounds
pool into that book's report. Standard library only.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_reference import estimate, exact_llr  # noqa: E402

KEYS = ["ll", "ld", "wl_dd", "wd", "ww"]


def fail(message: str) -> None:
    print(f"pool_books.py: {message}", file=sys.stderr)
    sys.exit(2)


def book_of(path):
    """The shipped book (data/openings) a report's file name names, as the scripts name them
    (SET-BOOK-NODES.json); None when it names none."""
    books = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "openings")
    stems = [f[: -len(".epd")] for f in os.listdir(books) if f.endswith(".epd")] if os.path.isdir(books) else []
    name = os.path.basename(path)
    found = [s for s in stems if f"-{s}-" in name or name.startswith(f"{s}-")]
    return max(found, key=len) if found else None


def parse_args(argv):
    sprt, out, paths = None, None, []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--sprt", "--json"):
            if i + 1 >= len(argv):
                fail(f"{arg} needs a value")
            value = argv[i + 1]
            i += 2
            if arg == "--json":
                out = value
                continue
            try:
                elo0, elo1, alpha, beta = (float(x) for x in value.split(","))
            except ValueError:
                fail(f"--sprt '{value}': give ELO0,ELO1,ALPHA,BETA, e.g. 0,10,0.05,0.05")
            if not (elo0 < elo1 and 0 < alpha < 1 and 0 < beta < 1):
                fail(f"--sprt '{value}': needs elo0 < elo1 and alpha, beta in (0, 1)")
            sprt = (elo0, elo1, alpha, beta)
        else:
            paths.append(arg)
            i += 1
    if not paths:
        sys.exit(__doc__)
    return sprt, out, paths


def judge(counts, sprt):
    elo0, elo1, alpha, beta = sprt
    llr = exact_llr(counts, elo0, elo1)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    if llr >= upper:
        decision = "H1"
    elif llr <= lower:
        decision = "H0"
    else:
        decision = "undecided"
    return {
        "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
        "llr": llr, "lower": lower, "upper": upper, "decision": decision,
    }


def main() -> None:
    sprt, out, paths = parse_args(sys.argv[1:])
    counts = [0, 0, 0, 0, 0]
    games = draws = 0
    faults = {"a": 0, "b": 0}
    parts = []
    wall, timed = 0.0, True
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                r = json.load(f)
            p, w = r["pentanomial"], r["wdl"]
        except (OSError, ValueError, KeyError) as e:
            fail(f"{path}: not a readable `marginal match --json` report ({e}); rerun its match")
        for i, key in enumerate(KEYS):
            counts[i] += p[key]
        n = w["wins"] + w["draws"] + w["losses"]
        games += n
        draws += w["draws"]
        # Games lost to an engine's faults (crash, hang, illegal move), per side: a match
        # report without any has none.
        lost = {side: int((r.get("fault_losses") or {}).get(side, 0)) for side in ("a", "b")}
        for side in lost:
            faults[side] += lost[side]
        parts.append({"report": path, "book": book_of(path), "games": n, "fault_losses": lost})
        # The reports' wall time, summed when every one of them says it.
        seconds = r.get("elapsed_seconds")
        timed = timed and isinstance(seconds, (int, float))
        if timed:
            wall += seconds
    elo, lo, hi, nelo, nlo, nhi, _los = estimate(counts, math.sqrt(2.0))

    def signed(x) -> str:
        # Undefined (a set that won or lost every pair) is n/a, as marginal prints it.
        return f"{x:+.1f}" if x is not None and math.isfinite(x) else "n/a"

    def finite(x):
        return x if x is not None and math.isfinite(x) else None

    verdict = judge(counts, sprt) if sprt and sum(counts) else None
    # The columns of scripts/match_row.py's rows: book, nodes (blank: the books' own rows
    # say it), games, Elo, nElo, draws, pentanomial, wall (blank).
    sprt_cell = ""
    if verdict:
        sprt_cell = f" SPRT [{verdict['elo0']:g}, {verdict['elo1']:g}]: LLR {verdict['llr']:+.2f} ({verdict['decision']})"
    # Several rounds of one book are several reports of it.
    books = len({p["book"] or p["report"] for p in parts})
    what = f"{books} book{'s' if books != 1 else ''}"
    if books != len(paths):
        what = f"{len(paths)} reports, {what}"
    print(
        f"| pooled ({what}) | | {games} | {signed(elo)} [{signed(lo)}, {signed(hi)}] "
        f"| {signed(nelo)} [{signed(nlo)}, {signed(nhi)}] | {100 * draws / max(games, 1):.1f}% "
        f"| {' '.join(str(c) for c in counts)} |{sprt_cell} |"
    )
    if out:
        report = {
            "format": "marginal-pooled/1",
            "parts": parts,
            "games": games,
            "draws": draws,
            "fault_losses": faults,
            "pentanomial": dict(zip(KEYS, counts)),
            "elo": {
                "elo": finite(elo), "lower": finite(lo), "upper": finite(hi),
                "nelo": finite(nelo), "nelo_lower": finite(nlo), "nelo_upper": finite(nhi),
            },
            "sprt": verdict,
        }
        if timed:
            report["elapsed_seconds"] = wall
        with open(out + ".part", "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        os.replace(out + ".part", out)


if __name__ == "__main__":
    main()
