//! The built-in bench: a fixed set of varied positions whose total node count at a fixed depth
//! is the engine's signature (it changes only when search behaviour changes).

use std::sync::OnceLock;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::search::{Limits, SearchResult, Searcher};
use crate::formats::Fnv;
use crate::params::Margins;

/// Default bench depth, plies.
pub const DEFAULT_DEPTH: u32 = 10;

/// Bench positions: openings, tactical and positional middlegames (from the shipped WAC,
/// Bratko-Kopec, ECM and STS suites), perft stress positions, and endgames.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
    "3r1r1k/1p4pp/p4p2/8/1PQR4/6Pq/P3PP2/2R3K1 b - - 0 1",
    "3r2k1/ppp2ppp/6q1/b4n2/3nQB2/2p5/P4PPP/RN3RK1 b - - 0 1",
    "r4rk1/1bn2qnp/3p1B1Q/p2P1pP1/1pp5/5N1P/PPB2P2/2KR3R w - - 0 1",
    "qn1kr2r/1pRbb3/pP5p/P2pP1pP/3N1pQ1/3B4/3B1PP1/R5K1 w - - 0 1",
    "2rqrn1k/pb4pp/1p2pp2/n2P4/2P3N1/P2B2Q1/1B3PPP/2R1R1K1 w - - 0 1",
    "1b5k/7P/p1p2np1/2P2p2/PP3P2/4RQ1R/q2r3P/6K1 w - - 0 1",
    "2k2r2/2p5/1pq5/p1p1n3/P1P2n1B/1R4Pp/2QR4/6K1 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "2kr1b1R/1b3pp1/p2pp3/1pq3P1/2nQPP2/P1N5/1PP1BB2/1K6 w - - 0 1",
    "3r2k1/2p1bppp/4b3/p2pP3/qr1N1B1P/8/1PPQ2P1/1K1RR3 b - - 0 1",
    "1r1r2k1/p3n2p/b1nqpbp1/2pp4/1p3PP1/2PP1N2/PPN3BP/R1BRQ2K w - - 0 1",
    "1r4k1/2qnbpp1/r3p2p/3pP2b/1p1N4/3P1NP1/nBPQ1PBP/R3R1K1 b - - 0 1",
    "1r3qk1/rpb2pp1/2p2n1p/p1P1p3/P1bPP2Q/2N1PN1P/1RB3P1/1R5K w - - 0 1",
    "2b4r/1p1k4/1pnbppp1/r2p3p/2pP1P1P/2P2NPB/PPN2P2/R3R1K1 b - - 0 1",
    "r4k2/6b1/5qP1/2p2pQ1/p2p4/8/1P1N1PP1/4R1K1 w - - 0 1",
    "8/2b2k1p/2N2pp1/P2p4/3KnP2/6BP/P5P1/8 w - - 0 1",
    "7k/8/1p1ppp1p/1Pp5/2P2P2/8/3P2PP/6K1 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/5pk1/6p1/3R4/8/6P1/5PK1/3r4 b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/8/8/3k4/8/8/8/2QK4 w - - 0 1",
];

/// Parses a bench position (they are known good).
pub fn position(fen: &str) -> Chess {
    let fen: Fen = fen
        .parse()
        .unwrap_or_else(|e| panic!("bench position '{fen}': {e}"));
    fen.into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("bench position: {e}"))
}

/// One bench line: the position's index, FEN and search result.
pub struct BenchLine {
    /// Index into [`POSITIONS`].
    pub index: usize,
    /// The position.
    pub fen: &'static str,
    /// The search result.
    pub result: SearchResult,
}

/// Totals of a bench run.
pub struct BenchTotals {
    /// Sum of nodes over all positions: the signature.
    pub nodes: u64,
    /// Wall-clock time spent searching.
    pub elapsed: Duration,
}

impl BenchTotals {
    /// Nodes per second (0 when no time was measured).
    pub fn nps(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// Runs the bench: every position from a cleared searcher, to `depth`, with `margins`.
/// `on_line` sees each result as it completes.
pub fn run(
    depth: u32,
    margins: Margins,
    tt_mb: usize,
    mut on_line: impl FnMut(&BenchLine),
) -> BenchTotals {
    let mut searcher = Searcher::new(tt_mb, margins);
    let mut totals = BenchTotals {
        nodes: 0,
        elapsed: Duration::ZERO,
    };
    for (index, fen) in POSITIONS.iter().enumerate() {
        searcher.clear();
        let pos = position(fen);
        let result = searcher.search(&pos, &[], &Limits::depth(depth), &mut |_| {});
        totals.nodes += result.nodes;
        totals.elapsed += result.elapsed;
        on_line(&BenchLine { index, fen, result });
    }
    totals
}

/// The node count of `marginal bench` at its defaults ([`DEFAULT_DEPTH`], default margins,
/// [`crate::engine::DEFAULT_HASH_MB`]): the engine's recorded signature. `tests/bench.rs` fails
/// when the bench gives another count; a change that alters it updates this number in the same
/// commit and says why.
pub const SIGNATURE_NODES: u64 = 5_710_118;

/// A cheap fingerprint of the engine's behaviour for cache keys: the bench node count at depth
/// 5, hashed with the crate version. It changes whenever search behaviour changes, so a cached
/// result of an older engine is never reused.
pub fn signature() -> u64 {
    static SIGNATURE: OnceLock<u64> = OnceLock::new();
    *SIGNATURE.get_or_init(|| {
        let nodes = run(5, Margins::default(), 1, |_| {}).nodes;
        let mut h = Fnv::new();
        h.write(env!("CARGO_PKG_VERSION").as_bytes());
        h.write(&nodes.to_le_bytes());
        h.finish()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_distinct() {
        assert!(POSITIONS.len() >= 30);
        for (i, a) in POSITIONS.iter().enumerate() {
            position(a);
            assert!(!POSITIONS[i + 1..].contains(a), "{a} twice");
        }
    }
}
