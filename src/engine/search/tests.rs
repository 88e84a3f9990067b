//! One test per pruning guard of the seed articles. Each drives a single node through the
//! private search functions with a chosen window, so the guard is the only thing that
//! decides whether a move is pruned.

use shakmaty::uci::UciMove;
use shakmaty::{Move, Position, Role};

use super::node::NonPv;
use super::*;
use crate::engine::bench::position;
use crate::engine::eval::value;
use crate::engine::technique::Technique;
use crate::engine::tt::{Bound, PackedMove};
use crate::params::FutilityMode;

fn board(fen: &str) -> Board {
    Board::new(position(fen))
}

fn mv(b: &Board, uci: &str) -> Move {
    uci.parse::<UciMove>().unwrap().to_move(b.pos()).unwrap()
}

/// Only frontier futility on, no TT: the node's own decisions are all we observe.
fn futility_only(margin: i32) -> Margins {
    Margins::bare()
        .with("futility", true)
        .with("futility_margin", margin)
        .with("futility_seed_guards", false)
}

/// Searches one non-root node at `depth` with window (alpha, alpha + 1).
fn node(b: &Board, m: Margins, depth: i32, alpha: i32) -> (i32, PruneStats) {
    let mut s = Searcher::new(0, m);
    s.root_depth = depth;
    let score = s.alpha_beta::<NonPv>(b, depth, 1, alpha, alpha + 1, false);
    (score, s.stats)
}

// White to move, a rook up for Black would be -495: here White is a knight down.
const QUIET: &str = "r1bqkb1r/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1";

#[test]
fn frontier_futility_prunes_when_eval_plus_margin_below_alpha() {
    let b = board(QUIET);
    let eval = b.eval();
    let (_, stats) = node(&b, futility_only(125), 1, eval + 200);
    assert!(stats[Technique::Futility] > 10, "{stats:?}");
    // Alpha reachable with the margin: nothing pruned.
    let (_, stats) = node(&b, futility_only(125), 1, eval + 100);
    assert_eq!(stats[Technique::Futility], 0);
}

#[test]
fn no_pruning_in_check() {
    let b = board("4k3/8/8/8/8/8/3PPP2/r3K3 w - - 0 1");
    assert!(b.pos().is_check());
    let (_, stats) = node(&b, futility_only(0), 1, b.eval() + 3000);
    assert_eq!(stats[Technique::Futility], 0);
}

#[test]
fn no_pruning_near_mate_scores() {
    let b = board(QUIET);
    let (_, stats) = node(&b, futility_only(0), 1, MATE_BOUND + 10);
    assert_eq!(stats[Technique::Futility], 0);
    let (_, stats) = node(&b, futility_only(0), 1, -MATE_BOUND - 10);
    assert_eq!(stats[Technique::Futility], 0);
    // The same window far from mate prunes.
    let (_, stats) = node(&b, futility_only(0), 1, 3000);
    assert!(stats[Technique::Futility] > 0);
}

#[test]
fn checking_moves_are_never_pruned() {
    // Qd1-h5 is not check here, Bf1-b5 is.
    let b = board("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    let check = mv(&b, "f1b5");
    assert!(b.gives_check(check));
    assert!(!futility_prunable(&b, check, false));
    assert!(futility_prunable(&b, mv(&b, "g1f3"), false));
    // In the node: every legal move but the check is pruned.
    let (_, stats) = node(&b, futility_only(0), 1, 3000);
    let moves = b.pos().legal_moves().len() as u64;
    let checks = b
        .pos()
        .legal_moves()
        .iter()
        .filter(|m| b.gives_check(**m))
        .count() as u64;
    assert_eq!(stats[Technique::Futility], moves - checks);
}

#[test]
fn discovered_checks_are_never_pruned() {
    // The bishop on d3 uncovers the rook on d1 against the king on d8.
    let b = board("3k4/8/8/8/8/3B4/8/3RK3 w - - 0 1");
    let discover = mv(&b, "d3a6");
    assert!(b.gives_check(discover));
    assert!(!futility_prunable(&b, discover, false));
}

#[test]
fn promotions_are_never_pruned() {
    let b = board("8/P6k/8/8/8/8/8/K7 w - - 0 1");
    assert!(!futility_prunable(&b, mv(&b, "a7a8q"), false));
    assert!(!futility_prunable(&b, mv(&b, "a7a8n"), false));
    assert!(futility_prunable(&b, mv(&b, "a1b1"), false));
}

#[test]
fn pawn_pushes_to_the_seventh_are_never_pruned() {
    let b = board("7k/8/P7/8/8/8/7p/K7 w - - 0 1");
    assert!(!futility_prunable(&b, mv(&b, "a6a7"), false));
    let b = board("k7/8/8/8/8/p7/8/7K b - - 0 1");
    assert!(!futility_prunable(&b, mv(&b, "a3a2"), false));
    let b = board("7k/8/8/P7/8/8/8/K7 w - - 0 1");
    assert!(futility_prunable(&b, mv(&b, "a5a6"), false));
}

#[test]
fn seed_guards_rook_queen_to_seventh_and_special_captures() {
    // Rook to the 7th.
    let b = board("6k1/8/8/8/8/8/8/R5K1 w - - 0 1");
    let rook7 = mv(&b, "a1a7");
    assert!(!futility_prunable(&b, rook7, true));
    assert!(futility_prunable(&b, rook7, false));
    // Capturing the queen.
    let b = board("6k1/8/8/3q4/8/8/3R4/6K1 w - - 0 1");
    let takes_queen = mv(&b, "d2d5");
    assert!(!futility_prunable(&b, takes_queen, true));
    assert!(futility_prunable(&b, takes_queen, false));
    // Capturing one of the bishop pair.
    let b = board("2b3k1/8/8/3b4/8/8/3R4/6K1 w - - 0 1");
    let pair = mv(&b, "d2d5");
    assert!(!futility_prunable(&b, pair, true));
    assert!(futility_prunable(&b, pair, false));
    let b = board("6k1/8/8/3b4/8/8/3R4/6K1 w - - 0 1");
    assert!(futility_prunable(&b, mv(&b, "d2d5"), true));
    // Capturing a pawn on its 2nd or 3rd rank (Black's 7th/6th ranks).
    let b = board("6k1/8/3p4/8/8/8/3R4/6K1 w - - 0 1");
    let home = mv(&b, "d2d6");
    assert!(!futility_prunable(&b, home, true));
    assert!(futility_prunable(&b, home, false));
    let b = board("6k1/8/8/3p4/8/8/3R4/6K1 w - - 0 1");
    assert!(futility_prunable(&b, mv(&b, "d2d5"), true));
}

#[test]
fn captured_piece_value_is_added() {
    // White can take a rook (Rxh8) or a pawn (Nxb2); neither gives check.
    let b = board("7r/k7/8/8/8/8/1p6/3NK2R w - - 0 1");
    let eval = b.eval();
    let margin = 50;
    // alpha so that eval + margin + pawn <= alpha < eval + margin + rook.
    let alpha = eval + margin + value(Role::Pawn) + 10;
    let (_, stats) = node(&b, futility_only(margin), 1, alpha);
    let moves = b.pos().legal_moves();
    let prunable_quiets = moves
        .iter()
        .filter(|m| !m.is_capture() && futility_prunable(&b, **m, false))
        .count() as u64;
    let pawn_captures = moves
        .iter()
        .filter(|m| m.capture() == Some(Role::Pawn) && futility_prunable(&b, **m, false))
        .count() as u64;
    // Quiet moves and the pawn capture are pruned; the rook capture (worth more) is not.
    assert!(moves.iter().any(|m| m.capture() == Some(Role::Rook)));
    assert_eq!(stats[Technique::Futility], prunable_quiets + pawn_captures);
}

#[test]
fn all_moves_futile_fails_low_with_a_sane_score() {
    // Quiet position, no checks available, alpha far above: every move is futile.
    let b = board("7k/8/8/8/8/8/P7/K7 w - - 0 1");
    let eval = b.eval();
    let margin = 100;
    let alpha = eval + 1000;
    let (score, stats) = node(&b, futility_only(margin), 1, alpha);
    assert_eq!(
        stats[Technique::Futility],
        b.pos().legal_moves().len() as u64
    );
    // Not a mate or stalemate score: the best optimistic estimate, a fail low.
    assert_eq!(score, eval + margin);
    assert!(score <= alpha && score != DRAW && score > -MATE_BOUND);
}

#[test]
fn node_level_futility_modes_keep_a_legal_move_and_return_sanely() {
    let b = board("7k/8/8/8/8/8/P7/K7 w - - 0 1");
    let eval = b.eval();
    for mode in [1, 2] {
        let m = futility_only(100).with("futility_mode", mode);
        let (score, stats) = node(&b, m, 1, eval + 1000);
        assert_eq!(stats[Technique::FutilityNodes], 1);
        assert!(score > -MATE_BOUND && score <= eval + 1000);
    }
    // A stalemated side is never "futile": it is a draw.
    let stale = board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let m = futility_only(0).with("futility_mode", FutilityMode::Evaluation);
    let (score, stats) = node(&stale, m, 1, 500);
    assert_eq!((score, stats[Technique::FutilityNodes]), (DRAW, 0));
}

#[test]
fn extended_futility_uses_its_own_margin_at_depth_two() {
    let b = board(QUIET);
    let eval = b.eval();
    let m = Margins::bare()
        .with("ext_futility", true)
        .with("ext_futility_margin", 500);
    // eval + 500 <= alpha: pruned at depth 2 (and frontier futility is off).
    let (_, stats) = node(&b, m, 2, eval + 520);
    assert!(stats[Technique::ExtFutility] > 0 && stats[Technique::Futility] == 0);
    let (_, stats) = node(&b, m, 2, eval + 480);
    assert_eq!(stats[Technique::ExtFutility], 0);
}

#[test]
fn futility_never_skips_a_repetition_that_beats_alpha() {
    // Black is a rook down. After 1.Nf3 Nf6 2.Ng1, Black's Nf6-g8 repeats the start.
    let mut b = board("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQq - 0 1");
    let mut s = Searcher::new(0, futility_only(0));
    for uci in ["g1f3", "g8f6", "f3g1"] {
        s.keys.push(b.hash());
        let m = mv(&b, uci);
        b = b.play(m);
    }
    // As inside the move loop, the current node is on top of the key stack.
    s.keys.push(b.hash());
    assert!(s.move_may_draw(&b, mv(&b, "f6g8")));
    assert!(!s.move_may_draw(&b, mv(&b, "b8c6")));
    assert!(!s.move_may_draw(&b, mv(&b, "e7e6")));
    s.keys.pop();
    // Black to move and losing: alpha < 0, eval + margin <= alpha, so quiet moves are
    // futile, but the repetition scores a draw (0 > alpha) and must be searched.
    let eval = b.eval();
    let alpha = -100;
    assert!(eval <= alpha, "eval {eval}");
    s.root_depth = 1;
    let score = s.alpha_beta::<NonPv>(&b, 1, 1, alpha, alpha + 1, false);
    assert_eq!(score, DRAW, "the drawing move must be found");
    assert!(s.stats[Technique::Futility] > 0);
    // Without the repetition in the history the same node fails low.
    let mut fresh = Searcher::new(0, futility_only(0));
    fresh.root_depth = 1;
    let score = fresh.alpha_beta::<NonPv>(&b, 1, 1, alpha, alpha + 1, false);
    assert!(score <= alpha);
}

#[test]
fn an_illegal_tt_move_is_never_played() {
    // Plant a move that is illegal here (e2e5) as the TT move of the root and of the
    // position after 1.e4: the search must ignore it and return a legal line.
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let mut s = Searcher::new(1, Margins::default());
    let bogus = PackedMove::new(Move::Normal {
        role: Role::Pawn,
        from: shakmaty::Square::E2,
        capture: None,
        to: shakmaty::Square::E5,
        promotion: None,
    });
    let after = b.play(mv(&b, "e2e4"));
    for key in [b.hash(), after.hash()] {
        s.tt.store(key, 0, bogus, 0, 0, 0, Bound::Upper);
    }
    let r = s.search(b.pos(), &[], &Limits::depth(4), &mut |_| {});
    let mut pos = b.pos().clone();
    for m in &r.pv {
        assert!(pos.is_legal(*m));
        pos.play_unchecked(*m);
    }
    assert!(r.best_move.is_some_and(|m| b.pos().is_legal(m)));
}

#[test]
fn razoring_guards() {
    let b = board(QUIET);
    let eval = b.eval();
    let m = Margins::bare()
        .with("razoring", true)
        .with("razor_margin", 300)
        .with("razor_min_pieces", 3);
    let razored = |b: &Board, m: Margins, extended: bool| {
        let mut s = Searcher::new(0, m);
        s.root_depth = 3;
        s.alpha_beta::<NonPv>(b, 3, 1, eval + 400, eval + 401, extended);
        s.stats[Technique::Razor]
    };
    assert_eq!(razored(&b, m, false), 1);
    // Not after an extension.
    assert_eq!(razored(&b, m, true), 0);
    // Not when the opponent has few pieces left.
    let few = m.with("razor_min_pieces", 14);
    assert_eq!(razored(&b, few, false), 0);
    // Not when eval + margin reaches alpha.
    let wide = m.with("razor_margin", 500);
    assert_eq!(razored(&b, wide, false), 0);
    // Not in check.
    let check = board("4k3/8/8/8/8/8/3PPP2/r3K3 w - - 0 1");
    let mut s = Searcher::new(0, m);
    s.alpha_beta::<NonPv>(&check, 3, 1, 3000, 3001, false);
    assert_eq!(s.stats[Technique::Razor], 0);
}

fn qnode(b: &Board, m: Margins, alpha: i32) -> (i32, PruneStats) {
    let mut s = Searcher::new(0, m);
    let score = s.qsearch(b, 1, alpha, alpha + 1);
    (score, s.stats)
}

#[test]
fn delta_pruning_per_capture_and_late_endgame_switch() {
    // White's only capture is Qxd5; plenty of material on the board.
    let b = board("4k3/8/8/3p4/8/8/8/R2QK2R w K - 0 1");
    let m = Margins::bare()
        .with("delta_pruning", true)
        .with("delta_margin", 200)
        .with("delta_endgame_material", 1300);
    let sp = b.eval();
    let alpha = sp + value(Role::Pawn) + 200 + 5;
    // The pawn capture cannot reach alpha: pruned (the node exit does not apply, since a
    // queen capture could in principle).
    let (_, stats) = qnode(&b, m, alpha);
    assert_eq!(
        (stats[Technique::Delta], stats[Technique::DeltaNodes]),
        (1, 0)
    );
    // Late endgame (material at or below the threshold): delta pruning is off.
    let late = m.with("delta_endgame_material", 8_000);
    let (_, stats) = qnode(&b, late, alpha);
    assert_eq!(
        (stats[Technique::Delta], stats[Technique::DeltaNodes]),
        (0, 0)
    );
}

#[test]
fn delta_node_exit_counts_queen_and_promotion() {
    let m = Margins::bare()
        .with("delta_pruning", true)
        .with("delta_margin", 200)
        .with("delta_endgame_material", 0);
    let b = board("r3k2r/8/8/3p4/8/8/8/R2QK2R w KQkq - 0 1");
    let sp = b.eval();
    let big = value(Role::Queen) + 200;
    let (score, stats) = qnode(&b, m, sp + big);
    assert_eq!((stats[Technique::DeltaNodes], score), (1, sp));
    let (_, stats) = qnode(&b, m, sp + big - 1);
    assert_eq!(stats[Technique::DeltaNodes], 0);
    // With a pawn on the 7th, a promotion widens the swing: no early exit at the same alpha.
    let p7 = board("r3k2r/1P6/8/3p4/8/8/8/R2QK2R w KQkq - 0 1");
    let sp7 = p7.eval();
    let (_, stats) = qnode(&p7, m, sp7 + big);
    assert_eq!(stats[Technique::DeltaNodes], 0);
}

#[test]
fn deep_futility_and_late_move_pruning_are_off_by_default() {
    let d = Margins::default();
    assert!(!d.deep_futility() && !d.late_move_pruning());
    let b = board(QUIET);
    let eval = b.eval();
    let m = Margins::bare().with("deep_futility", true);
    // Opponent's two best pieces: queen and rook.
    let bound = eval + value(Role::Queen) + value(Role::Rook) + 2 * m.deep_futility_margin();
    let (score, stats) = node(&b, m, 3, bound);
    assert_eq!((stats[Technique::DeepFutility], score), (1, bound));
    let (_, stats) = node(&b, m, 3, bound - 1);
    assert_eq!(stats[Technique::DeepFutility], 0);
}

#[test]
fn late_move_pruning_skips_late_quiet_moves() {
    let b = board(QUIET);
    let m = Margins::bare()
        .with("late_move_pruning", true)
        .with("lmp_base", 3);
    let (_, stats) = node(&b, m, 2, b.eval() + 50);
    assert!(stats[Technique::LateMove] > 0);
    let (_, stats) = node(&b, Margins::bare(), 2, b.eval() + 50);
    assert_eq!(stats[Technique::LateMove], 0);
}
