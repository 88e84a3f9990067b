#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Whether a match report holds every game its match asked for.

    python3 scripts/finished_match.py REPORT

Exit 0 when REPORT (a `marginal match --json` report) holds at least the games of its
`config.games`; 1 when it is missing, unreadable or holds fewer (an interrupted match writes its
report too, with the games it finished: its PGN goes on with `marginal match --resume`). The
measurement scripts skip a book only when this says it is finished. Standard library only.
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            report = json.load(f)
        return 0 if report["games"] >= report["config"]["games"] else 1
    except (OSError, ValueError, KeyError, TypeError):
        return 1


if __name__ == "__main__":
    sys.exit(main())
