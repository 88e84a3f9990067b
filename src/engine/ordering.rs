//! Move ordering: TT move, then captures by MVV-LVA (losing captures, by static exchange
//! evaluation, after the quiet moves), promotions, killers, and history for quiet moves.

use shakmaty::{Bitboard, Board as ShakBoard, Color, Move, Role, Square, attacks};

use super::eval::value;
use super::score::MAX_PLY;
use super::tt::PackedMove;

/// Static exchange evaluation of `m` on `board` (side to move `us`): the material the mover
/// expects to win (positive) or lose (negative) when both sides recapture on the target square
/// with their least valuable attacker, each free to stop. Flat values, eval units. Castling is 0.
pub fn see(board: &ShakBoard, us: Color, m: Move) -> i32 {
    let (from, to, mut attacker, captured, promotion) = match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => (from, to, promotion.unwrap_or(role), capture, promotion),
        Move::EnPassant { from, to } => (from, to, Role::Pawn, Some(Role::Pawn), None),
        _ => return 0,
    };
    let mut gain = [0i32; 40];
    gain[0] = captured.map_or(0, value);
    if let Some(p) = promotion {
        gain[0] += value(p) - value(Role::Pawn);
    }
    let mut occupied = board.occupied() ^ Bitboard::from_square(from);
    if let Move::EnPassant { .. } = m {
        occupied ^= Bitboard::from_square(Square::from_coords(to.file(), from.rank()));
    }
    let mut side = !us;
    let mut depth = 0;
    loop {
        depth += 1;
        // Speculative: what `side` gains by taking the piece that just arrived on `to`.
        gain[depth] = value(attacker) - gain[depth - 1];
        if (-gain[depth - 1]).max(gain[depth]) < 0 || depth + 1 >= gain.len() {
            break;
        }
        let attackers = attackers_to(board, to, occupied) & occupied & board.by_color(side);
        let Some((sq, role)) = least_valuable(board, attackers) else {
            break;
        };
        occupied ^= Bitboard::from_square(sq);
        attacker = role;
        side = !side;
    }
    while depth > 1 {
        depth -= 1;
        gain[depth - 1] = -(-gain[depth - 1]).max(gain[depth]);
    }
    gain[0]
}

/// All pieces (both colours) attacking `sq` with the given occupancy (x-rays revealed as
/// pieces leave `occupied`).
fn attackers_to(board: &ShakBoard, sq: Square, occupied: Bitboard) -> Bitboard {
    (attacks::rook_attacks(sq, occupied) & board.rooks_and_queens())
        | (attacks::bishop_attacks(sq, occupied) & board.bishops_and_queens())
        | (attacks::knight_attacks(sq) & board.knights())
        | (attacks::king_attacks(sq) & board.kings())
        | (attacks::pawn_attacks(Color::White, sq) & board.pawns() & board.black())
        | (attacks::pawn_attacks(Color::Black, sq) & board.pawns() & board.white())
}

fn least_valuable(board: &ShakBoard, attackers: Bitboard) -> Option<(Square, Role)> {
    Role::ALL.into_iter().find_map(|role| {
        (attackers & board.by_role(role))
            .first()
            .map(|sq| (sq, role))
    })
}

/// Score bands, highest first.
const TT_MOVE: i32 = 4_000_000;
const GOOD_CAPTURE: i32 = 3_000_000;
const KILLER_1: i32 = 2_000_001;
const KILLER_2: i32 = 2_000_000;
const BAD_CAPTURE: i32 = -3_000_000;
/// History scores stay within +-HISTORY_MAX.
pub const HISTORY_MAX: i32 = 1 << 14;

/// MVV-LVA: most valuable victim first, then least valuable attacker.
#[inline]
fn mvv_lva(victim: Role, attacker: Role) -> i32 {
    (victim as i32) * 16 - attacker as i32
}

/// Killer moves (two per ply) and a butterfly history table for quiet moves.
pub struct Heuristics {
    /// Two quiet moves per ply that caused a beta cutoff recently.
    pub killers: [[Option<Move>; 2]; MAX_PLY + 1],
    /// `[colour][from][to]` history score of quiet moves.
    pub history: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: [[None; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl Heuristics {
    /// Forgets everything (a new search from a cleared state).
    pub fn clear(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                row.fill(0);
            }
        }
    }

    /// Records a quiet move that caused a cutoff at `ply`, rewarding it and penalising the
    /// quiet moves tried before it.
    pub fn reward_quiet(&mut self, color: Color, ply: usize, m: Move, depth: i32, tried: &[Move]) {
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let bonus = (depth * depth).min(400);
        self.update(color, m, bonus);
        for &q in tried {
            if q != m {
                self.update(color, q, -bonus);
            }
        }
    }

    #[inline]
    fn update(&mut self, color: Color, m: Move, bonus: i32) {
        if let Some(from) = m.from() {
            let entry = &mut self.history[color as usize][from as usize][m.to() as usize];
            // Gravity keeps the score within +-HISTORY_MAX.
            *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
        }
    }

    /// History score of a quiet move.
    #[inline]
    pub fn history(&self, color: Color, m: Move) -> i32 {
        m.from().map_or(0, |from| {
            self.history[color as usize][from as usize][m.to() as usize]
        })
    }

    /// Is `m` a killer at `ply`?
    #[inline]
    pub fn is_killer(&self, ply: usize, m: Move) -> bool {
        self.killers[ply][0] == Some(m) || self.killers[ply][1] == Some(m)
    }
}

/// Ordering scores, one per move (no zero-filling of unused slots in the hot path).
pub type Scores = arrayvec::ArrayVec<i32, 256>;

/// Scores each move for ordering (higher first).
pub fn score_moves(
    moves: &[Move],
    board: &ShakBoard,
    us: Color,
    tt_move: PackedMove,
    heuristics: &Heuristics,
    ply: usize,
) -> Scores {
    moves
        .iter()
        .map(|m| {
            if tt_move.matches(*m) {
                TT_MOVE
            } else {
                score_one(*m, board, us, heuristics, ply)
            }
        })
        .collect()
}

#[inline]
fn score_one(m: Move, board: &ShakBoard, us: Color, heuristics: &Heuristics, ply: usize) -> i32 {
    if let Some(victim) = m.capture() {
        let attacker = m.role();
        // Taking something at least as valuable never loses material: skip the SEE.
        let good = value(victim) >= value(attacker) || see(board, us, m) >= 0;
        let promo = m.promotion().map_or(0, value);
        let base = if good { GOOD_CAPTURE } else { BAD_CAPTURE };
        base + mvv_lva(victim, attacker) * 1024 + promo
    } else if let Some(p) = m.promotion() {
        if p == Role::Queen {
            GOOD_CAPTURE + value(p)
        } else {
            BAD_CAPTURE - 1024 + value(p)
        }
    } else if heuristics.killers[ply][0] == Some(m) {
        KILLER_1
    } else if heuristics.killers[ply][1] == Some(m) {
        KILLER_2
    } else {
        heuristics.history(us, m)
    }
}

/// Scores captures and promotions for quiescence: MVV-LVA, promotions by their piece.
pub fn score_tactical(moves: &[Move]) -> Scores {
    moves
        .iter()
        .map(|m| {
            m.capture().map_or(0, |v| mvv_lva(v, m.role()) * 1024) + m.promotion().map_or(0, value)
        })
        .collect()
}

/// Moves the highest-scored remaining move to position `index` and returns it (selection
/// sort, one step at a time: cheap when a cutoff comes early).
#[inline]
pub fn pick(moves: &mut [Move], scores: &mut [i32], index: usize) -> Move {
    let mut best = index;
    for i in index + 1..moves.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    moves.swap(index, best);
    scores.swap(index, best);
    moves[index]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess, Position};

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see(pos.board(), pos.turn(), m)
    }

    #[test]
    fn see_examples() {
        // Rook takes an undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            value(Role::Pawn)
        );
        // Knight takes a pawn defended by a pawn: loses the knight for a pawn.
        assert_eq!(
            see_of("1k6/8/3p4/4p3/8/5N2/8/1K6 w - - 0 1", "f3e5"),
            value(Role::Pawn) - value(Role::Knight)
        );
        // Queen takes a pawn defended by a rook behind a rook x-ray: Q x p, R x Q.
        assert_eq!(
            see_of("3r2k1/3r4/8/3p4/8/8/3Q4/3R2K1 w - - 0 1", "d2d5"),
            value(Role::Pawn) - value(Role::Queen)
        );
        // Rook takes with the second rook (x-ray) behind: R x p, R x R, R x R.
        assert_eq!(
            see_of("3r2k1/8/8/3p4/8/8/3R4/3R2K1 w - - 0 1", "d2d5"),
            value(Role::Pawn)
        );
        // En passant is a pawn for a pawn.
        assert_eq!(
            see_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),
            value(Role::Pawn)
        );
    }

    #[test]
    fn pick_orders_by_score() {
        let pos = Chess::default();
        let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let mut scores: Vec<i32> = (0..moves.len() as i32).collect();
        let last = *moves.last().unwrap();
        assert_eq!(pick(&mut moves, &mut scores, 0), last);
    }

    #[test]
    fn history_stays_bounded() {
        let mut h = Heuristics::default();
        let m = Chess::default().legal_moves()[0];
        for _ in 0..10_000 {
            h.reward_quiet(Color::White, 3, m, 20, &[]);
        }
        assert!(h.history(Color::White, m) <= HISTORY_MAX);
        assert!(h.is_killer(3, m));
    }
}
