#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Interleaves opening books into one, so that one match (and one SPRT) samples them equally.

    python3 scripts/mix_books.py OUT BOOK [BOOK ...]

Line i of OUT is line i // n of book i mod n (n books), up to the shortest book's length; blank
lines and comments (#) are skipped. `marginal match --seed S` shuffles the mixed book, so a
match's pairs come from the books in about equal shares; scripts/split_by_book.py counts them
back by book. Standard library only.
"""
import sys


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    books = [lines(p) for p in sys.argv[2:]]
    shortest = min(len(b) for b in books)
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for i in range(shortest):
            for book in books:
                out.write(book[i] + "\n")


if __name__ == "__main__":
    main()
