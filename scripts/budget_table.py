#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""The table of scripts/equal_budget.sh: one row per tuned set of one engine.

    python3 scripts/budget_table.py DIR MATCHES NAME

Prints the table scripts/results_tables.py writes into a `budget NAME` region, from DIR and
MATCHES instead of tuned/budget and tuned/matches: for SET in default, spsa-1g, spsa-4g, the
tuned file DIR/NAME-SET.json (its margins, games, wall and CPU seconds of every run) and the
match reports MATCHES/NAME-budget-SET-BOOK-LIMIT.json with the pooled one, Elo [95%] against
the defaults on each unseen book and pooled; a set not yet tuned or a book not yet played is
said. Exit 2, naming the file, when the default tune's file is missing or a report unreadable.
Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_tables  # noqa: E402


def main() -> int:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    directory, matches, name = sys.argv[1:]
    # DIR and MATCHES as given: relative ones from where it runs (equal_budget.sh: the checkout).
    results_tables.ROOT = os.getcwd()
    try:
        rows, _ = results_tables.budget(name, directory, matches)
    except results_tables.Unreadable as e:
        print(f"budget_table.py: {e}", file=sys.stderr)
        return 2
    print(f"{name}: Elo [95%] (games) against the defaults on books no tune used")
    print()
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
