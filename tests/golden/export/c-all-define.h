/*
 * Pruning margins exported by `marginal export` on 2024-02-29 from tests/golden/export/tuned.json.
 * Tuned by marginal 0.1.0: spsa on the suite objective, seed 1, 16 iterations, run 0d83cb0f9de2e57e.
 * Engine: search signature b7e64e6b5a8a1283, bench 5710118 nodes.
 * Rows: all 22 of the margin set, in table order; 4 tuned, the others as the tuned file has them.
 */
#ifndef MARGINAL_TUNED_H
#define MARGINAL_TUNED_H

/* Frontier futility pruning (depth 1): skip a move when eval + margin (+ captured value) <= alpha. A switch: 1 on, 0 off. Not tuned (default 1). */
#define FUTILITY 1

/* Frontier futility margin, eval units (seed: 125). Tuned from 125 within [0, 1500]. */
#define FUTILITY_MARGIN 130

/* What a futile frontier node does: 0 skips futile moves one by one, 1 drops to quiescence, 2 returns the evaluation. Not tuned (default 0, range [0, 2]). */
#define FUTILITY_MODE 0

/* Also never prune rook/queen moves to the 7th, queen captures, captures of a lone bishop pair bishop, or of pawns on their 2nd/3rd rank (seed 000). A switch: 1 on, 0 off. Not tuned (default 1). */
#define FUTILITY_SEED_GUARDS 1

/* Extended futility pruning at pre-frontier nodes (depth 2). A switch: 1 on, 0 off. Not tuned (default 1). */
#define EXT_FUTILITY 1

/* Extended futility margin, eval units (seed: 500, about a rook). Tuned from 500 within [0, 3000]. */
#define EXT_FUTILITY_MARGIN 460

/* Limited razoring at depth 3: reduce by one ply when eval + margin <= alpha. A switch: 1 on, 0 off. Not tuned (default 1). */
#define RAZORING 1

/* Razoring margin, eval units (seed: about a queen). Tuned from 980 within [0, 4000]. */
#define RAZOR_MARGIN 989

/* Razor only when the opponent has more than this many pieces (knights, bishops, rooks, queens). Not tuned (default 3, range [0, 14]). */
#define RAZOR_MIN_PIECES 3

/* Delta pruning in quiescence, per capture and the node-level early exit. A switch: 1 on, 0 off. Not tuned (default 1). */
#define DELTA_PRUNING 1

/* Delta margin, eval units (seed: 200). Tuned from 200 within [0, 1500]. */
#define DELTA_MARGIN 188

/* Delta pruning is off when both sides' knights, bishops, rooks and queens together are worth this or less (late endgame). Not tuned (default 1300, range [0, 8000]). */
#define DELTA_ENDGAME_MATERIAL 1300

/* Deep futility pruning (Muller): prune a node when even winning the opponent's two best pieces cannot reach alpha. A switch: 1 on, 0 off. Not tuned (default 0). */
#define DEEP_FUTILITY 0

/* Deep futility positional margin (counted twice), eval units. Not tuned (default 100, range [0, 1000]). */
#define DEEP_FUTILITY_MARGIN 100

/* Deep futility applies at depths 2 to this (3 + R with the null-move R). Not tuned (default 5, range [2, 10]). */
#define DEEP_FUTILITY_DEPTH 5

/* Move-count-based pruning of late quiet moves at shallow depth. A switch: 1 on, 0 off. Not tuned (default 0). */
#define LATE_MOVE_PRUNING 0

/* Late move pruning applies at depths up to this, plies. Not tuned (default 3, range [1, 10]). */
#define LMP_DEPTH 3

/* Late move pruning keeps the first lmp_base + depth^2 moves. Not tuned (default 4, range [1, 64]). */
#define LMP_BASE 4

/* Null-move pruning (off in check, at PV nodes and without knights, bishops, rooks or queens). A switch: 1 on, 0 off. Not tuned (default 1). */
#define NULL_MOVE 1

/* Null-move depth reduction R, plies (plus depth/6). Not tuned (default 3, range [1, 6]). */
#define NULL_MOVE_R 3

/* Late move reductions of quiet moves, re-searched at full depth when they raise alpha. A switch: 1 on, 0 off. Not tuned (default 1). */
#define LMR 1

/* Aspiration windows around the previous iteration's score. A switch: 1 on, 0 off. Not tuned (default 1). */
#define ASPIRATION 1

#endif /* MARGINAL_TUNED_H */
