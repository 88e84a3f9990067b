//! Perft: counts the leaf nodes of the legal move tree, through [`Board::play`] so that the
//! incremental key and evaluation updates are exercised along with shakmaty's move generation.

use shakmaty::Position;

use super::board::Board;

/// Number of legal move sequences of length `depth` from `board`.
pub fn perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.pos().legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&m| perft(&board.play(m), depth - 1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bench::position;

    /// Standard perft positions and their published counts.
    #[test]
    fn standard_positions() {
        let cases: &[(&str, &[u64])] = &[
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[20, 400, 8_902, 197_281],
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                &[48, 2_039, 97_862],
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                &[14, 191, 2_812, 43_238],
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                &[6, 264, 9_467],
            ),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                &[44, 1_486, 62_379],
            ),
            (
                "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                &[46, 2_079, 89_890],
            ),
        ];
        for (fen, counts) in cases {
            let board = Board::new(position(fen));
            for (d, &expected) in counts.iter().enumerate() {
                assert_eq!(
                    perft(&board, d as u32 + 1),
                    expected,
                    "{fen} depth {}",
                    d + 1
                );
            }
        }
    }
}
