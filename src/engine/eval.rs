//! Static evaluation: flat material plus a tapered piece-square ("positional") part.
//!
//! The numbers are PeSTO's (Ronald Friederich's published middlegame/endgame material and
//! piece-square tables). We split each PeSTO piece value into a *flat* material value (the mean
//! of its middlegame and endgame values) and a residual that joins the piece-square tables, so
//! the evaluation equals PeSTO's while its material part is phase-independent. That split is what
//! makes Heinz's futility condition provable: a capture changes the material part by exactly the
//! captured piece's flat value, and everything else a move can change is bounded by
//! [`MAX_POSITIONAL_SWING`], computed from the tables below (not assumed).
//!
//! Units: "eval units" are PeSTO centipawns (a pawn is 88, a queen 981). Scores are from the
//! point of view of the side to move.

use shakmaty::{Color, Role};

/// Flat material value of each role, indexed by `role as usize - 1` (pawn..king), eval units.
pub const PIECE_VALUE: [i32; 6] = [88, 309, 331, 495, 981, 0];

/// Game-phase weight of each role (PeSTO): knights and bishops 1, rooks 2, queens 4.
pub const PHASE_INC: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Phase of the opening position (and the cap of the phase).
pub const MAX_PHASE: i32 = 24;

/// Flat value of a role, eval units.
#[inline]
pub const fn value(role: Role) -> i32 {
    PIECE_VALUE[role as usize - 1]
}

const MG_VALUE: [i32; 6] = [82, 337, 365, 477, 1025, 0];
const EG_VALUE: [i32; 6] = [94, 281, 297, 512, 936, 0];

// PeSTO tables, laid out as printed: first row is rank 8 (a8..h8), from White's point of view.
#[rustfmt::skip]
const MG_TABLE: [[i32; 64]; 6] = [
    [  0,   0,   0,   0,   0,   0,  0,   0,
      98, 134,  61,  95,  68, 126, 34, -11,
      -6,   7,  26,  31,  65,  56, 25, -20,
     -14,  13,   6,  21,  23,  12, 17, -23,
     -27,  -2,  -5,  12,  17,   6, 10, -25,
     -26,  -4,  -4, -10,   3,   3, 33, -12,
     -35,  -1, -20, -23, -15,  24, 38, -22,
       0,   0,   0,   0,   0,   0,  0,   0],
    [-167, -89, -34, -49,  61, -97, -15, -107,
      -73, -41,  72,  36,  23,  62,   7,  -17,
      -47,  60,  37,  65,  84, 129,  73,   44,
       -9,  17,  19,  53,  37,  69,  18,   22,
      -13,   4,  16,  13,  28,  19,  21,   -8,
      -23,  -9,  12,  10,  19,  17,  25,  -16,
      -29, -53, -12,  -3,  -1,  18, -14,  -19,
     -105, -21, -58, -33, -17, -28, -19,  -23],
    [-29,   4, -82, -37, -25, -42,   7,  -8,
     -26,  16, -18, -13,  30,  59,  18, -47,
     -16,  37,  43,  40,  35,  50,  37,  -2,
      -4,   5,  19,  50,  37,  37,   7,  -2,
      -6,  13,  13,  26,  34,  12,  10,   4,
       0,  15,  15,  15,  14,  27,  18,  10,
       4,  15,  16,   0,   7,  21,  33,   1,
     -33,  -3, -14, -21, -13, -12, -39, -21],
    [ 32,  42,  32,  51, 63,  9,  31,  43,
      27,  32,  58,  62, 80, 67,  26,  44,
      -5,  19,  26,  36, 17, 45,  61,  16,
     -24, -11,   7,  26, 24, 35,  -8, -20,
     -36, -26, -12,  -1,  9, -7,   6, -23,
     -45, -25, -16, -17,  3,  0,  -5, -33,
     -44, -16, -20,  -9, -1, 11,  -6, -71,
     -19, -13,   1,  17, 16,  7, -37, -26],
    [-28,   0,  29,  12,  59,  44,  43,  45,
     -24, -39,  -5,   1, -16,  57,  28,  54,
     -13, -17,   7,   8,  29,  56,  47,  57,
     -27, -27, -16, -16,  -1,  17,  -2,   1,
      -9, -26,  -9, -10,  -2,  -4,   3,  -3,
     -14,   2, -11,  -2,  -5,   2,  14,   5,
     -35,  -8,  11,   2,   8,  15,  -3,   1,
      -1, -18,  -9,  10, -15, -25, -31, -50],
    [-65,  23,  16, -15, -56, -34,   2,  13,
      29,  -1, -20,  -7,  -8,  -4, -38, -29,
      -9,  24,   2, -16, -20,   6,  22, -22,
     -17, -20, -12, -27, -30, -25, -14, -36,
     -49,  -1, -27, -39, -46, -44, -33, -51,
     -14, -14, -22, -46, -44, -30, -15, -27,
       1,   7,  -8, -64, -43, -16,   9,   8,
     -15,  36,  12, -54,   8, -28,  24,  14],
];

#[rustfmt::skip]
const EG_TABLE: [[i32; 64]; 6] = [
    [  0,   0,   0,   0,   0,   0,   0,   0,
     178, 173, 158, 134, 147, 132, 165, 187,
      94, 100,  85,  67,  56,  53,  82,  84,
      32,  24,  13,   5,  -2,   4,  17,  17,
      13,   9,  -3,  -7,  -7,  -8,   3,  -1,
       4,   7,  -6,   1,   0,  -5,  -1,  -8,
      13,   8,   8,  10,  13,   0,   2,  -7,
       0,   0,   0,   0,   0,   0,   0,   0],
    [-58, -38, -13, -28, -31, -27, -63, -99,
     -25,  -8, -25,  -2,  -9, -25, -24, -52,
     -24, -20,  10,   9,  -1,  -9, -19, -41,
     -17,   3,  22,  22,  22,  11,   8, -18,
     -18,  -6,  16,  25,  16,  17,   4, -18,
     -23,  -3,  -1,  15,  10,  -3, -20, -22,
     -42, -20, -10,  -5,  -2, -20, -23, -44,
     -29, -51, -23, -15, -22, -18, -50, -64],
    [-14, -21, -11,  -8, -7,  -9, -17, -24,
      -8,  -4,   7, -12, -3, -13,  -4, -14,
       2,  -8,   0,  -1, -2,   6,   0,   4,
      -3,   9,  12,   9, 14,  10,   3,   2,
      -6,   3,  13,  19,  7,  10,  -3,  -9,
     -12,  -3,   8,  10, 13,   3,  -7, -15,
     -14, -18,  -7,  -1,  4,  -9, -15, -27,
     -23,  -9, -23,  -5, -9, -16,  -5, -17],
    [13, 10, 18, 15, 12,  12,   8,   5,
     11, 13, 13, 11, -3,   3,   8,   3,
      7,  7,  7,  5,  4,  -3,  -5,  -3,
      4,  3, 13,  1,  2,   1,  -1,   2,
      3,  5,  8,  4, -5,  -6,  -8, -11,
     -4,  0, -5, -1, -7, -12,  -8, -16,
     -6, -6,  0,  2, -9,  -9, -11,  -3,
     -9,  2,  3, -1, -5, -13,   4, -20],
    [ -9,  22,  22,  27,  27,  19,  10,  20,
     -17,  20,  32,  41,  58,  25,  30,   0,
     -20,   6,   9,  49,  47,  35,  19,   9,
       3,  22,  24,  45,  57,  40,  57,  36,
     -18,  28,  19,  47,  31,  34,  39,  23,
     -16, -27,  15,   6,   9,  17,  10,   5,
     -22, -23, -30, -16, -16, -23, -36, -32,
     -33, -28, -22, -43,  -5, -32, -20, -41],
    [-74, -35, -18, -18, -11,  15,   4, -17,
     -12,  17,  14,  17,  17,  38,  23,  11,
      10,  17,  23,  15,  20,  45,  44,  13,
      -8,  22,  24,  27,  26,  33,  26,   3,
     -18,  -4,  21,  24,  27,  23,   9, -11,
     -19,  -3,  11,  21,  23,  16,   7,  -9,
     -27, -11,   4,  13,  14,   4,  -5, -17,
     -53, -34, -21, -11, -28, -14, -24, -43],
];

/// Positional (residual + piece-square) scores for a White piece, indexed `[role][square]` with
/// shakmaty's square numbering (a1 = 0). Black uses the vertically mirrored square.
const fn build_pos(table: &[[i32; 64]; 6], material: &[i32; 6]) -> [[i32; 64]; 6] {
    let mut out = [[0; 64]; 6];
    let mut r = 0;
    while r < 6 {
        let mut sq = 0;
        while sq < 64 {
            out[r][sq] = table[r][sq ^ 56] + material[r] - PIECE_VALUE[r];
            sq += 1;
        }
        r += 1;
    }
    out
}

/// Middlegame positional score of a White piece, `[role - 1][square]`.
pub const POS_MG: [[i32; 64]; 6] = build_pos(&MG_TABLE, &MG_VALUE);
/// Endgame positional score of a White piece, `[role - 1][square]`.
pub const POS_EG: [[i32; 64]; 6] = build_pos(&EG_TABLE, &EG_VALUE);

/// Index into the positional tables for a piece of `color` on `sq` (0..64).
#[inline]
pub const fn pos_index(color: Color, sq: usize) -> usize {
    match color {
        Color::White => sq,
        Color::Black => sq ^ 56,
    }
}

/// Tapers a middlegame and an endgame score by `phase` (0 = bare endgame, 24 = opening;
/// larger values are capped). Truncates towards zero, so it is antisymmetric.
#[inline]
pub const fn taper(mg: i32, eg: i32, phase: i32) -> i32 {
    let ph = if phase > MAX_PHASE { MAX_PHASE } else { phase };
    (mg * ph + eg * (MAX_PHASE - ph)) / MAX_PHASE
}

// ---------------------------------------------------------------------------------------------
// Heinz's max_posn_score, proven from the tables.
// ---------------------------------------------------------------------------------------------

const fn abs(x: i32) -> i32 {
    if x < 0 { -x } else { x }
}

const fn max(a: i32, b: i32) -> i32 {
    if a > b { a } else { b }
}

/// Can a White piece of role index `r` go from `from` to `to` (squares 0..64) on some board,
/// ignoring blockers? `capture` selects pawn captures instead of pushes. Pawn moves that land
/// on the 7th or 8th rank are excluded: the futility guards never prune them.
const fn geometry(r: usize, from: usize, to: usize, capture: bool) -> bool {
    if from == to {
        return false;
    }
    let (ff, fr) = ((from % 8) as i32, (from / 8) as i32);
    let (tf, tr) = ((to % 8) as i32, (to / 8) as i32);
    let (df, dr) = (abs(tf - ff), abs(tr - fr));
    match r {
        0 => {
            if fr < 1 || tr >= 6 {
                return false;
            }
            if capture {
                df == 1 && tr - fr == 1
            } else {
                df == 0 && (tr - fr == 1 || (fr == 1 && tr == 3))
            }
        }
        1 => (df == 1 && dr == 2) || (df == 2 && dr == 1),
        2 => df == dr,
        3 => df == 0 || dr == 0,
        4 => df == dr || df == 0 || dr == 0,
        _ => df <= 1 && dr <= 1,
    }
}

/// Largest `max(|mg change|, |eg change|)` of the mover's own pieces over every non-promotion
/// move, plus the capture of any enemy piece (its positional score leaves the board) when
/// `capture` is set; castling counts king and rook together.
const fn max_mover_swing(capture: bool) -> i32 {
    let mut best = 0;
    let mut r = 0;
    while r < 6 {
        let mut from = 0;
        while from < 64 {
            let mut to = 0;
            while to < 64 {
                if geometry(r, from, to, capture) {
                    let dmg = POS_MG[r][to] - POS_MG[r][from];
                    let deg = POS_EG[r][to] - POS_EG[r][from];
                    if capture {
                        // An enemy (Black) piece on `to`: pawns only on ranks 2..7, never a king.
                        let mut c = 0;
                        while c < 5 {
                            let rank = to / 8;
                            if c != 0 || (rank >= 1 && rank <= 6) {
                                let bi = to ^ 56;
                                best = max(best, abs(dmg + POS_MG[c][bi]));
                                best = max(best, abs(deg + POS_EG[c][bi]));
                            }
                            c += 1;
                        }
                    } else {
                        best = max(best, max(abs(dmg), abs(deg)));
                    }
                }
                to += 1;
            }
            from += 1;
        }
        r += 1;
    }
    if !capture {
        // Castling: king e1 -> g1 with rook h1 -> f1, king e1 -> c1 with rook a1 -> d1.
        let sides = [(4usize, 6usize, 7usize, 5usize), (4, 2, 0, 3)];
        let mut s = 0;
        while s < 2 {
            let (kf, kt, rf, rt) = sides[s];
            let dmg = POS_MG[5][kt] - POS_MG[5][kf] + POS_MG[3][rt] - POS_MG[3][rf];
            let deg = POS_EG[5][kt] - POS_EG[5][kf] + POS_EG[3][rt] - POS_EG[3][rf];
            best = max(best, max(abs(dmg), abs(deg)));
            s += 1;
        }
    }
    best
}

/// Largest `|mg - eg|` of one piece of role index `r` on any square it can stand on.
const fn max_taper_gap(r: usize) -> i32 {
    let mut best = 0;
    let mut sq = 0;
    while sq < 64 {
        let rank = sq / 8;
        if r != 0 || (rank >= 1 && rank <= 6) {
            best = max(best, abs(POS_MG[r][sq] - POS_EG[r][sq]));
        }
        sq += 1;
    }
    best
}

/// Bound on `|sum over all pieces of (mg - eg)|`: per side one king, at most 8 pawns and at
/// most 7 other pieces beside them (15 non-king men at most, promotions included).
const fn max_total_taper_gap() -> i32 {
    let mut piece = 0;
    let mut r = 1;
    while r < 5 {
        piece = max(piece, max_taper_gap(r));
        r += 1;
    }
    let pawn = max(max_taper_gap(0), piece);
    2 * (max_taper_gap(5) + 8 * pawn + 7 * piece)
}

/// Heinz's `max_posn_score` for this evaluation: a proven upper bound, in eval units, on how much
/// one prunable move (no promotion, no pawn move to the 7th) can raise the side-to-move's
/// evaluation beyond the flat value of what it captures.
///
/// Proof sketch: the positional part is `P = (a*ph + b*(24-ph))/24` with `a`, `b` the summed
/// middlegame and endgame positional scores. After a move `P' - P = [da*ph' + db*(24-ph')]/24 +
/// (a-b)*(ph'-ph)/24`. The first term is a convex combination, so at most `max(|da|, |db|)`
/// (`max_mover_swing`); the second is zero for quiet moves and at most
/// `max_total_taper_gap * phase_inc(captured) / 24` for captures; truncation adds at most 1.
/// Hence with `margin >= MAX_POSITIONAL_SWING`, frontier futility pruning only skips moves
/// whose successor fails high on its stand-pat score: the search result is unchanged.
pub const MAX_POSITIONAL_SWING: i32 = {
    let quiet = max_mover_swing(false);
    let capture_phase = (max_total_taper_gap() * 4 + MAX_PHASE - 1) / MAX_PHASE;
    let capture = max_mover_swing(true) + capture_phase;
    max(quiet, capture) + 1
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_preserves_pesto_values() {
        // A White knight on e4: PeSTO mg = 337 + table[e4], where e4 is row 4 (index 36) as printed.
        let e4 = 28usize;
        assert_eq!(value(Role::Knight) + POS_MG[1][e4], 337 + MG_TABLE[1][36]);
        assert_eq!(value(Role::Knight) + POS_EG[1][e4], 281 + EG_TABLE[1][36]);
        // Black's table is White's mirrored.
        assert_eq!(pos_index(Color::Black, e4), 36);
    }

    #[test]
    fn taper_is_antisymmetric_and_capped() {
        for (mg, eg, ph) in [(37, -11, 13), (-5, 90, 0), (100, -100, 24), (7, 3, 30)] {
            assert_eq!(taper(-mg, -eg, ph), -taper(mg, eg, ph));
        }
        assert_eq!(taper(10, 20, 30), 10);
        assert_eq!(taper(10, 20, 0), 20);
    }

    #[test]
    fn swing_bound_is_positive_and_dominates_parts() {
        assert!(MAX_POSITIONAL_SWING > max_mover_swing(false));
        assert!(MAX_POSITIONAL_SWING > max_mover_swing(true));
        const { assert!(MAX_POSITIONAL_SWING < 2000) };
    }
}
