/*
 * Pruning margins exported by `marginal export` on 2024-02-29 from tests/golden/export/tuned.json.
 * Tuned by marginal 0.1.0: spsa on the suite objective, seed 1, 16 iterations, run 0d83cb0f9de2e57e.
 * Engine: search signature b7e64e6b5a8a1283, bench 5710118 nodes.
 * Rows: the 4 tuned, in table order.
 */
#ifndef MARGINAL_TUNED_H
#define MARGINAL_TUNED_H

/* Frontier futility margin, eval units (seed: 125). Tuned from 125 within [0, 1500]. */
static const int FUTILITY_MARGIN = 130;

/* Extended futility margin, eval units (seed: 500, about a rook). Tuned from 500 within [0, 3000]. */
static const int EXT_FUTILITY_MARGIN = 460;

/* Razoring margin, eval units (seed: about a queen). Tuned from 980 within [0, 4000]. */
static const int RAZOR_MARGIN = 989;

/* Delta margin, eval units (seed: 200). Tuned from 200 within [0, 1500]. */
static const int DELTA_MARGIN = 188;

#endif /* MARGINAL_TUNED_H */
