//! A shakmaty position with incrementally updated Zobrist key and evaluation terms.
//!
//! shakmaty generates the moves and keeps the position legal; this wrapper adds what a search
//! needs at every node without recomputing it: the Zobrist key (shakmaty's own 64-bit keys,
//! updated per move and equal to `zobrist_hash(EnPassantMode::Legal)`), the flat material
//! balance, the middlegame/endgame positional sums and the game phase.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Piece, Position, Rank, Role, Square,
    attacks,
};

use super::eval::{self, POS_EG, POS_MG, pos_index};

/// A position plus its Zobrist key and incremental evaluation terms.
#[derive(Clone, Debug)]
pub struct Board {
    pos: Chess,
    hash: u64,
    /// Flat material, White minus Black, eval units.
    material: i32,
    /// Middlegame positional sum, White minus Black.
    mg: i32,
    /// Endgame positional sum, White minus Black.
    eg: i32,
    /// Game phase (24 in the opening; may exceed 24 after promotions, capped when tapering).
    phase: i32,
    /// Knight/bishop/rook/queen material per colour (`[black, white]`), eval units.
    non_pawn: [i32; 2],
}

#[inline]
fn piece_key(sq: Square, color: Color, role: Role) -> u64 {
    Zobrist64::zobrist_for_piece(sq, Piece { color, role }).0
}

#[inline]
fn ep_key(pos: &Chess) -> u64 {
    match pos.ep_square(EnPassantMode::Legal) {
        Some(sq) => Zobrist64::zobrist_for_en_passant_file(sq.file()).0,
        None => 0,
    }
}

fn castling_key(pos: &Chess) -> u64 {
    let mut key = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if pos.castles().has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    key
}

impl Board {
    /// Wraps a position, computing key and evaluation terms from scratch.
    pub fn new(pos: Chess) -> Board {
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let mut board = Board {
            pos: Chess::default(),
            hash,
            material: 0,
            mg: 0,
            eg: 0,
            phase: 0,
            non_pawn: [0; 2],
        };
        for (sq, piece) in pos.board().clone() {
            board.add(piece.color, piece.role, sq);
        }
        // `add` toggled piece keys into `hash`; the real key comes from shakmaty.
        board.hash = hash;
        board.pos = pos;
        board
    }

    /// The underlying shakmaty position.
    #[inline]
    pub fn pos(&self) -> &Chess {
        &self.pos
    }

    /// The Zobrist key (shakmaty's, en passant only when a legal capture exists).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// Static evaluation from the side to move's point of view, eval units.
    #[inline]
    pub fn eval(&self) -> i32 {
        let white = self.material + eval::taper(self.mg, self.eg, self.phase);
        match self.pos.turn() {
            Color::White => white,
            Color::Black => -white,
        }
    }

    /// Knight, bishop, rook and queen material of `color`, eval units.
    #[inline]
    pub fn non_pawn_material(&self, color: Color) -> i32 {
        self.non_pawn[color as usize]
    }

    /// Number of knights, bishops, rooks and queens of `color`.
    #[inline]
    pub fn piece_count(&self, color: Color) -> u32 {
        let board = self.pos.board();
        (board.by_color(color) & !board.pawns() & !board.kings()).count() as u32
    }

    #[inline]
    fn add(&mut self, color: Color, role: Role, sq: Square) {
        let r = role as usize - 1;
        let i = pos_index(color, sq as usize);
        let sign = if color == Color::White { 1 } else { -1 };
        self.material += sign * eval::PIECE_VALUE[r];
        self.mg += sign * POS_MG[r][i];
        self.eg += sign * POS_EG[r][i];
        self.phase += eval::PHASE_INC[r];
        if role != Role::Pawn && role != Role::King {
            self.non_pawn[color as usize] += eval::PIECE_VALUE[r];
        }
        self.hash ^= piece_key(sq, color, role);
    }

    #[inline]
    fn remove(&mut self, color: Color, role: Role, sq: Square) {
        let r = role as usize - 1;
        let i = pos_index(color, sq as usize);
        let sign = if color == Color::White { 1 } else { -1 };
        self.material -= sign * eval::PIECE_VALUE[r];
        self.mg -= sign * POS_MG[r][i];
        self.eg -= sign * POS_EG[r][i];
        self.phase -= eval::PHASE_INC[r];
        if role != Role::Pawn && role != Role::King {
            self.non_pawn[color as usize] -= eval::PIECE_VALUE[r];
        }
        self.hash ^= piece_key(sq, color, role);
    }

    /// The position after the legal move `m` (which must come from this position's move list).
    pub fn play(&self, m: Move) -> Board {
        let mut next = self.clone();
        let us = self.pos.turn();
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                next.remove(us, role, from);
                if let Some(captured) = capture {
                    next.remove(!us, captured, to);
                }
                next.add(us, promotion.unwrap_or(role), to);
            }
            Move::EnPassant { from, to } => {
                next.remove(us, Role::Pawn, from);
                next.remove(!us, Role::Pawn, Square::from_coords(to.file(), from.rank()));
                next.add(us, Role::Pawn, to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                next.remove(us, Role::King, king);
                next.remove(us, Role::Rook, rook);
                next.add(us, Role::King, side.king_to(us));
                next.add(us, Role::Rook, side.rook_to(us));
            }
            Move::Put { .. } => unreachable!("drops do not occur in standard chess"),
        }
        let old_rights = castling_key(&self.pos);
        let old_ep = ep_key(&self.pos);
        next.pos.play_unchecked(m);
        next.hash ^= Zobrist64::zobrist_for_white_turn().0
            ^ old_ep
            ^ ep_key(&next.pos)
            ^ old_rights
            ^ castling_key(&next.pos);
        next
    }

    /// The position after passing (a null move), or `None` when in check.
    pub fn play_null(&self) -> Option<Board> {
        let pos = self.pos.clone().swap_turn().ok()?;
        let mut next = self.clone();
        next.hash ^= Zobrist64::zobrist_for_white_turn().0 ^ ep_key(&self.pos) ^ ep_key(&pos);
        next.pos = pos;
        Some(next)
    }

    /// The key the position would have after the reversible move `m` (no capture, no pawn
    /// move, no change of castling rights), or `None` for any other move. Cheap: used to test
    /// whether a pruned move could have repeated a position.
    pub fn key_after_reversible(&self, m: Move) -> Option<u64> {
        match m {
            Move::Normal {
                role,
                from,
                capture: None,
                to,
                promotion: None,
            } if role != Role::Pawn => {
                let rights = self.pos.castles().castling_rights();
                if rights.contains(from) || (role == Role::King && self.has_rights(self.turn())) {
                    return None;
                }
                let us = self.turn();
                Some(
                    self.hash
                        ^ Zobrist64::zobrist_for_white_turn().0
                        ^ ep_key(&self.pos)
                        ^ piece_key(from, us, role)
                        ^ piece_key(to, us, role),
                )
            }
            _ => None,
        }
    }

    fn has_rights(&self, color: Color) -> bool {
        let castles = self.pos.castles();
        castles.has(color, CastlingSide::KingSide) || castles.has(color, CastlingSide::QueenSide)
    }

    /// Does the legal move `m` give check? Computed from bitboards without playing the move
    /// (castling, en passant and promotions fall back to playing it).
    pub fn gives_check(&self, m: Move) -> bool {
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            } => {
                let board = self.pos.board();
                let us = self.turn();
                let Some(king) = board.king_of(!us) else {
                    return false;
                };
                let occupied = (board.occupied() ^ Bitboard::from_square(from)) | to;
                let ours = (board.by_color(us) ^ Bitboard::from_square(from)) | to;
                if attacks::attacks(to, Piece { color: us, role }, occupied).contains(king) {
                    return true;
                }
                // Discovered check by a slider uncovered on `from`.
                let rq = board.rooks_and_queens() & ours;
                let bq = board.bishops_and_queens() & ours;
                ((attacks::rook_attacks(king, occupied) & rq)
                    | (attacks::bishop_attacks(king, occupied) & bq))
                    .without(to)
                    .any()
            }
            _ => {
                let mut pos = self.pos.clone();
                pos.play_unchecked(m);
                pos.is_check()
            }
        }
    }

    /// Does the side to move have a pawn on its 7th rank (so a promotion may be available)?
    pub fn has_pawn_on_seventh(&self) -> bool {
        let us = self.turn();
        let rank = match us {
            Color::White => Rank::Seventh,
            Color::Black => Rank::Second,
        };
        (self.pos.our(Role::Pawn) & Bitboard::from_rank(rank)).any()
    }

    /// Checks the incremental terms against a from-scratch computation (tests, debug).
    pub fn is_consistent(&self) -> bool {
        let fresh = Board::new(self.pos.clone());
        fresh.hash == self.hash
            && fresh.material == self.material
            && fresh.mg == self.mg
            && fresh.eg == self.eg
            && fresh.phase == self.phase
            && fresh.non_pawn == self.non_pawn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        let fen: Fen = fen.parse().unwrap();
        Board::new(fen.into_position(CastlingMode::Standard).unwrap())
    }

    /// Plays a deterministic pseudo-random walk, checking keys and eval terms at every step.
    #[test]
    fn incremental_state_matches_scratch() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        ];
        let mut seed = 12345u64;
        for fen in fens {
            for _game in 0..20 {
                let mut b = board(fen);
                for _ply in 0..80 {
                    let moves = b.pos().legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let m = moves[(seed >> 33) as usize % moves.len()];
                    let expect_check = {
                        let mut p = b.pos().clone();
                        p.play_unchecked(m);
                        p.is_check()
                    };
                    assert_eq!(b.gives_check(m), expect_check, "{m:?} in {:?}", b.pos());
                    let predicted = b.key_after_reversible(m);
                    b = b.play(m);
                    assert!(b.is_consistent(), "after {m:?}");
                    if let Some(key) = predicted {
                        assert_eq!(key, b.hash());
                    }
                }
            }
        }
    }

    #[test]
    fn null_move_flips_turn_and_key() {
        let b = board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2");
        let n = b.play_null().unwrap();
        assert_eq!(n.turn(), Color::Black);
        assert!(n.is_consistent());
        let check = board("4k3/8/8/8/8/8/8/4K2r w - - 0 1");
        assert!(check.play_null().is_none());
    }

    #[test]
    fn eval_is_symmetric() {
        let a = board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let b = board("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3");
        assert_eq!(a.eval(), b.eval());
        let start = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(start.eval(), 0);
    }
}
