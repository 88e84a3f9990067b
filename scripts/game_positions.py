#!/usr/bin/env python3
"""Positions from real games for marginal's move-quality objective (one FEN a line).

Reads PGN games and keeps every STEP-th position from ply FROM on (not the last plies of a game,
not positions with one legal move or none), removes repeats, and writes at most N of them in a
seeded random order. Needs python-chess (`pip install chess`).

    python3 scripts/game_positions.py games.pgn --out data/positions/games_600.epd

data/positions/games_600.epd was made so from 40 distinct self-play games of marginal's defaults at
20,000 nodes per move from the 8mvs_+90_+99 book (a book no calibration plays on):
    marginal match --a default --b default --games 80 --nodes 20000 \\
        --openings ../shared/data/openings/8mvs_+90_+99.epd --seed 7 --pgn selfplay.pgn
"""
import argparse
import random

import chess
import chess.pgn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn")
    ap.add_argument("--out", required=True)
    ap.add_argument("--step", type=int, default=5)
    ap.add_argument("--from-ply", type=int, default=12)
    ap.add_argument("--tail", type=int, default=6, help="plies left out at the end of a game")
    ap.add_argument("-n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    seen, out = set(), []
    with open(a.pgn, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            moves = list(game.mainline_moves())
            for ply, move in enumerate(moves):
                if ply >= a.from_ply and ply < len(moves) - a.tail and (ply - a.from_ply) % a.step == 0:
                    fen = board.fen()
                    key = " ".join(fen.split()[:4])
                    if key not in seen and board.legal_moves.count() > 1:
                        seen.add(key)
                        out.append(fen)
                board.push(move)
    random.Random(a.seed).shuffle(out)
    with open(a.out, "w", encoding="utf-8") as f:
        for fen in out[: a.n]:
            f.write(fen + "\n")
    print(f"{min(len(out), a.n)} of {len(out)} positions written to {a.out}")


if __name__ == "__main__":
    main()
