//! Self-play: every termination rule, colour reversal and opening use, determinism at fixed
//! nodes (also under SPRT stopping), PGN read back by an independent parser, a small
//! `marginal match` run, and its JSON report; what a match says of itself (the same set on both
//! sides, its last progress line).

use std::io::Cursor;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use marginal::engine::bench::position;
use marginal::params::Margins;
use marginal::scoring::games::game::{
    DrawRule, EnginePlayer, GameConfig, GameOutcome, GameRecord, MoveLimit, Player, PlayerError,
    PlayerMove, ResignRule, Termination, Turn, play_game,
};
use marginal::scoring::games::matches::{
    MATCH_REPORT_FORMAT, MatchConfig, MatchReport, MatchResult, MatchStats, PairRecord, run_match,
    run_match_from,
};
use marginal::scoring::games::pgn::format_game;
use marginal::scoring::games::stats::{GameResult, Pentanomial, SprtDecision, SprtParams, Wdl};
use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

mod common;
use common::{assert_names, first_lines, marginal, run_bounded, said, scratch};

/// Plays a fixed list of UCI moves (then the first legal move), reporting a fixed score, after
/// an optional delay.
struct Scripted {
    name: String,
    moves: Vec<&'static str>,
    next: usize,
    score: Option<i32>,
    delay: Duration,
    seen: Arc<Mutex<Vec<Chess>>>,
}

impl Scripted {
    fn new(name: &str, moves: &[&'static str]) -> Scripted {
        Scripted {
            name: name.into(),
            moves: moves.to_vec(),
            next: 0,
            score: None,
            delay: Duration::ZERO,
            seen: Arc::default(),
        }
    }
}

impl Player for Scripted {
    fn name(&self) -> &str {
        &self.name
    }
    fn new_game(&mut self) {
        self.next = 0;
    }
    fn choose(&mut self, turn: &Turn<'_>) -> Result<PlayerMove, PlayerError> {
        let pos = turn.position;
        std::thread::sleep(self.delay);
        self.seen.lock().unwrap().push(pos.clone());
        let mv = match self.moves.get(self.next) {
            Some(u) => u
                .parse::<UciMove>()
                .map_err(|e| PlayerError(e.to_string()))?
                .to_move(pos)
                .unwrap_or(Move::Put {
                    role: shakmaty::Role::Pawn,
                    to: shakmaty::Square::A1,
                }),
            None => pos.legal_moves()[0],
        };
        self.next += 1;
        Ok(PlayerMove {
            mv,
            score: self.score,
            overshot: false,
        })
    }
}

fn game(
    fen: &str,
    white: &[&'static str],
    black: &[&'static str],
    config: GameConfig,
) -> GameRecord {
    let mut w = Scripted::new("W", white);
    let mut b = Scripted::new("B", black);
    play_game(&mut w, &mut b, &position(fen), &config)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const SHUFFLE: [&str; 4] = ["g1f3", "f3g1", "g1f3", "f3g1"];
const BACK: [&str; 4] = ["g8f6", "f6g8", "g8f6", "f6g8"];

#[test]
fn each_rule_of_the_game_ends_it() {
    use GameOutcome::*;
    use Termination::*;
    type Case<'a> = (
        &'a str,
        &'a [&'static str],
        &'a [&'static str],
        GameOutcome,
        Termination,
        usize,
    );
    let cases: &[Case] = &[
        // Scholar's mate.
        (
            START,
            &["e2e4", "f1c4", "d1h5", "h5f7"],
            &["e7e5", "b8c6", "g8f6"],
            WhiteWins,
            Checkmate,
            7,
        ),
        // Qb6 stalemates the king on a8.
        (
            "k7/2Q5/8/8/8/8/8/7K w - - 0 1",
            &["c7b6"],
            &[],
            Draw,
            Stalemate,
            1,
        ),
        // The start position a third time after eight knight moves.
        (START, &SHUFFLE, &BACK, Draw, ThreefoldRepetition, 8),
        // The hundredth reversible half-move.
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 99 80",
            &["a1a2"],
            &[],
            Draw,
            FiftyMoves,
            1,
        ),
        // King takes the last rook: bare kings.
        (
            "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1",
            &["e1d2"],
            &[],
            Draw,
            InsufficientMaterial,
            1,
        ),
    ];
    for (fen, white, black, outcome, termination, plies) in cases {
        let g = game(fen, white, black, GameConfig::default());
        assert_eq!(
            (g.outcome, &g.termination, g.moves.len()),
            (*outcome, termination, *plies),
            "{fen}"
        );
    }
}

#[test]
fn games_end_by_resign_and_draw_adjudication_the_ply_cap_the_clock_and_illegal_moves() {
    let play = |white_score: i32, config: GameConfig| {
        let mut w = Scripted::new("W", &SHUFFLE);
        let mut b = Scripted::new("B", &BACK);
        w.score = Some(white_score);
        b.score = Some(-white_score);
        play_game(&mut w, &mut b, &position(START), &config)
    };
    let resign = GameConfig {
        resign: Some(ResignRule {
            score: 1000,
            moves: 2,
        }),
        ..GameConfig::default()
    };
    let g = play(1500, resign);
    assert_eq!(
        (g.outcome, g.termination, g.moves.len()),
        (GameOutcome::WhiteWins, Termination::ResignAdjudication, 4)
    );
    let g = play(-1500, resign);
    assert_eq!(g.outcome, GameOutcome::BlackWins);
    // Below the threshold: no adjudication (the game ends by repetition instead).
    assert_eq!(
        play(900, resign).termination,
        Termination::ThreefoldRepetition
    );
    let draw = GameConfig {
        draw: Some(DrawRule {
            score: 10,
            moves: 2,
            after_move: 1,
        }),
        ..GameConfig::default()
    };
    let g = play(5, draw);
    assert_eq!(
        (g.outcome, g.termination, g.moves.len()),
        (GameOutcome::Draw, Termination::DrawAdjudication, 4)
    );
    let late = GameConfig {
        draw: Some(DrawRule {
            score: 10,
            moves: 2,
            after_move: 40,
        }),
        ..GameConfig::default()
    };
    assert_eq!(play(5, late).termination, Termination::ThreefoldRepetition);
    let capped = GameConfig {
        max_plies: 3,
        ..GameConfig::default()
    };
    let g = play(0, capped);
    assert_eq!(
        (g.outcome, g.termination, g.moves.len()),
        (GameOutcome::Draw, Termination::PlyCap, 3)
    );
}

#[test]
fn time_forfeit_and_player_failure() {
    let clock = GameConfig {
        limit: MoveLimit::Clock {
            base: Duration::from_millis(30),
            increment: Duration::ZERO,
        },
        ..GameConfig::default()
    };
    let mut slow = Scripted::new("slow", &[]);
    slow.delay = Duration::from_millis(60);
    let mut fast = Scripted::new("fast", &[]);
    let g = play_game(&mut slow, &mut fast, &position(START), &clock);
    assert_eq!(
        (g.outcome, g.termination),
        (GameOutcome::BlackWins, Termination::TimeForfeit)
    );
    // Out of time against a bare king: a draw.
    let mut slow = Scripted::new("slow", &[]);
    slow.delay = Duration::from_millis(60);
    let g = play_game(
        &mut slow,
        &mut fast,
        &position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
        &clock,
    );
    assert_eq!(
        (g.outcome, g.termination),
        (GameOutcome::Draw, Termination::TimeForfeit)
    );
    // An illegal move loses.
    let g = game(START, &["e2e5"], &[], GameConfig::default());
    assert_eq!(g.outcome, GameOutcome::BlackWins);
    assert!(matches!(g.termination, Termination::PlayerFailure(_)));
}

fn openings() -> Vec<Chess> {
    [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1",
    ]
    .iter()
    .map(|f| position(f))
    .collect()
}

#[test]
fn colours_reverse_and_openings_are_used_in_order() {
    let seen_a: Arc<Mutex<Vec<Chess>>> = Arc::default();
    let seen = seen_a.clone();
    let a = move || -> Box<dyn Player> {
        let mut p = Scripted::new("A", &[]);
        p.seen = seen.clone();
        Box::new(p)
    };
    let b = || -> Box<dyn Player> { Box::new(Scripted::new("B", &[])) };
    let config = MatchConfig {
        game: GameConfig {
            max_plies: 2,
            ..GameConfig::default()
        },
        games: 6,
        concurrency: 1,
        sprt: None,
    };
    let books = openings();
    let result = run_match(&a, &b, &books, &config, &mut |_, _| {});
    assert_eq!(result.pairs.len(), 3);
    for (i, pair) in result.pairs.iter().enumerate() {
        assert_eq!(pair.index, i);
        assert_eq!(
            (pair.first.white.as_str(), pair.first.black.as_str()),
            ("A", "B")
        );
        assert_eq!(
            (pair.second.white.as_str(), pair.second.black.as_str()),
            ("B", "A")
        );
        assert_eq!(pair.first.start, books[i]);
        assert_eq!(pair.second.start, books[i]);
    }
    // The openings are Black to move: in each pair's second game A has Black and moves first,
    // from the opening position itself; in the first game it never sees that position.
    let seen = seen_a.lock().unwrap();
    for book in &books {
        assert_eq!(seen.iter().filter(|p| *p == book).count(), 1);
    }
}

fn engine(name: &'static str, margins: Margins) -> impl Fn() -> Box<dyn Player> + Sync {
    move || Box::new(EnginePlayer::new(name, margins, 1)) as Box<dyn Player>
}

/// Pair index, both games' moves, both outcomes.
type PairSummary = (usize, Vec<Move>, Vec<Move>, GameOutcome, GameOutcome);

fn summary(result: &marginal::scoring::games::matches::MatchResult) -> Vec<PairSummary> {
    result
        .pairs
        .iter()
        .map(|p| {
            (
                p.index,
                p.first.moves.clone(),
                p.second.moves.clone(),
                p.first.outcome,
                p.second.outcome,
            )
        })
        .collect()
}

#[test]
fn fixed_node_matches_are_deterministic_on_any_thread_count() {
    let a = engine("A", Margins::default());
    let b = engine("B", Margins::off());
    let books = openings();
    let run = |concurrency: usize, sprt: Option<SprtParams>, games: u32| {
        let config = MatchConfig {
            game: GameConfig {
                limit: MoveLimit::Nodes(400),
                max_plies: 60,
                ..GameConfig::default()
            },
            games,
            concurrency,
            sprt,
        };
        run_match(&a, &b, &books, &config, &mut |_, _| {})
    };
    let one = run(1, None, 6);
    let two = run(2, None, 6);
    assert_eq!(summary(&one), summary(&two));
    assert_eq!(one.stats.pentanomial, two.stats.pentanomial);
    // Under an SPRT that decides fast, the stopping pair is the same for any thread count.
    let quick = SprtParams {
        elo0: -300.0,
        elo1: 300.0,
        alpha: 0.4,
        beta: 0.4,
    };
    let s1 = run(1, Some(quick), 40);
    let s3 = run(3, Some(quick), 40);
    assert_eq!(summary(&s1), summary(&s3));
    assert_eq!(s1.stats.llr, s3.stats.llr);
    assert!(s1.stats.decision.is_some());
}

#[test]
fn an_interrupted_match_keeps_a_prefix_and_resumes_to_the_same_result() {
    let a = engine("A", Margins::default());
    let b = engine("B", Margins::off());
    let books = openings();
    let config = MatchConfig {
        game: GameConfig {
            limit: MoveLimit::Nodes(300),
            max_plies: 60,
            ..GameConfig::default()
        },
        games: 12,
        concurrency: 2,
        sprt: Some(SprtParams::default()),
    };
    let never = AtomicBool::new(false);
    let full = run_match_from(&a, &b, &books, &config, Vec::new(), &never, &mut |_, _| {});
    assert_eq!(
        (full.pairs.len(), full.interrupted, full.earlier),
        (6, false, 0)
    );
    // Raised (as a signal handler would) once two pairs are counted: no pair starts after it,
    // the games in flight are abandoned, and what is counted is a prefix in index order. The
    // pairs already finished when the interrupt comes still count, so on a loaded machine the
    // whole match may be done by then; that run is not interrupted, and it is tried again.
    let cut = (0..5)
        .map(|_| {
            let interrupt = AtomicBool::new(false);
            run_match_from(
                &a,
                &b,
                &books,
                &config,
                Vec::new(),
                &interrupt,
                &mut |p, _| {
                    if p.index == 1 {
                        interrupt.store(true, Ordering::Relaxed);
                    }
                },
            )
        })
        .inspect(|run| assert_eq!(run.interrupted, run.pairs.len() < 6))
        .find(|run| run.interrupted)
        .expect("five runs in a row played the whole match before the interrupt came");
    assert!((2..6).contains(&cut.pairs.len()), "{}", cut.pairs.len());
    assert_eq!(summary(&cut), summary(&full)[..cut.pairs.len()]);
    // Resumed from those pairs: the rest is played, and everything counts as in one go.
    let mut seen = Vec::new();
    let earlier = cut.pairs.len();
    let resumed = run_match_from(&a, &b, &books, &config, cut.pairs, &never, &mut |p, _| {
        seen.push(p.index)
    });
    assert_eq!(seen, (earlier..6).collect::<Vec<_>>());
    assert_eq!((resumed.earlier, resumed.interrupted), (earlier, false));
    assert_eq!(summary(&resumed), summary(&full));
    assert_eq!(resumed.stats.pentanomial, full.stats.pentanomial);
    assert_eq!(resumed.stats.wdl, full.stats.wdl);
    assert_eq!(resumed.stats.llr, full.stats.llr);
    // Given the whole match, nothing is played.
    let again = run_match_from(
        &a,
        &b,
        &books,
        &config,
        full.pairs.clone(),
        &never,
        &mut |_, _| panic!("nothing to play"),
    );
    assert_eq!(summary(&again), summary(&full));
}

/// Collects tags and SAN moves with pgn-reader, an independent parser.
struct Collect;

#[derive(Default)]
struct Parsed {
    tags: Vec<(String, String)>,
    sans: Vec<SanPlus>,
}

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = Parsed;
    type Output = Parsed;
    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }
    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Parsed {
            tags,
            sans: Vec::new(),
        })
    }
    fn san(&mut self, movetext: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        movetext.sans.push(san);
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext
    }
}

#[test]
fn pgn_round_trip_with_an_independent_parser() {
    let a = engine("A \"quoted\" name", Margins::default());
    let b = engine("B", Margins::off());
    let config = MatchConfig {
        game: GameConfig {
            limit: MoveLimit::Nodes(300),
            max_plies: 120,
            ..GameConfig::default()
        },
        games: 4,
        concurrency: 2,
        sprt: None,
    };
    let mut books = openings();
    books.push(Chess::default());
    let result = run_match(&a, &b, &books[2..], &config, &mut |_, _| {});
    let games: Vec<&GameRecord> = result
        .pairs
        .iter()
        .flat_map(|p| [&p.first, &p.second])
        .collect();
    let text: String = games
        .iter()
        .enumerate()
        .map(|(i, g)| format_game(g, "test", &format!("{}", i + 1), "2026.11.21"))
        .collect();
    let mut reader = Reader::new(Cursor::new(text.as_bytes()));
    for g in &games {
        let parsed = reader.read_game(&mut Collect).unwrap().expect("a game");
        let tag = |name: &str| {
            parsed
                .tags
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        for name in [
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result",
            "PlyCount",
            "Termination",
        ] {
            assert!(tag(name).is_some(), "missing tag {name}");
        }
        assert_eq!(tag("White").unwrap(), g.white);
        assert_eq!(tag("Result").unwrap(), g.outcome.pgn());
        assert_eq!(tag("PlyCount").unwrap(), g.moves.len().to_string());
        let mut pos: Chess = match tag("FEN") {
            Some(fen) => {
                assert_eq!(tag("SetUp").as_deref(), Some("1"));
                fen.parse::<Fen>()
                    .unwrap()
                    .into_position(CastlingMode::Standard)
                    .unwrap()
            }
            None => Chess::default(),
        };
        assert_eq!(pos, g.start);
        let mut moves = Vec::new();
        for san in &parsed.sans {
            let m = san.san.to_move(&pos).unwrap();
            moves.push(m);
            pos.play_unchecked(m);
        }
        assert_eq!(moves, g.moves);
    }
    assert!(reader.read_game(&mut Collect).unwrap().is_none());
}

#[test]
fn a_match_prints_its_score_plays_the_same_games_for_a_seed_and_refuses_bad_input() {
    let dir = std::env::temp_dir().join(format!("marginal-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("games.pgn");
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings/UHO_4060_v2_2k.epd");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args([
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--openings",
                book.to_str().unwrap(),
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&[
        "--games",
        "4",
        "--nodes",
        "500",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--sprt",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The games, the pentanomial, the SPRT with its bounds and errors, the speed.
    let sprt = ["SPRT", "[0, 5]", "alpha 0.05", "beta 0.05", "LLR"];
    assert_names(
        &stdout,
        &[&["games 4:", "pentanomial", "games/min"][..], &sprt].concat(),
    );
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4);
    // Same seed, same games (into another file: an existing PGN is never written over).
    let other = dir.join("again.pgn");
    let again = run(&[
        "--games",
        "4",
        "--nodes",
        "500",
        "--concurrency",
        "1",
        "--seed",
        "3",
        "--sprt",
        "--pgn",
        other.to_str().unwrap(),
    ]);
    assert!(again.status.success());
    assert_eq!(std::fs::read_to_string(&other).unwrap(), text);
    // Bad input: exit 2 with a clear message.
    for (args, expected) in [
        (vec!["--sprt", "1,2,3"], "--sprt"),
        (vec!["--tc", "fast"], "--tc"),
        (vec!["--resign", "x:1"], "--resign"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_names(&String::from_utf8_lossy(&out.stderr), &[expected]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["match", "--a", "nonsense", "--b", "off"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args([
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--openings",
            "no/such/book.epd",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_names(&String::from_utf8_lossy(&out.stderr), &["no/such/book.epd"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `a` equals `b` up to serde_json's float parsing, which (without its `float_roundtrip`
/// feature) may be one unit in the last place off: counts, names, games and the SPRT decision
/// exactly; statistics within 1e-15 relative, `None` (JSON null) in the same places.
fn assert_same_report(a: &MatchReport, b: &MatchReport) {
    assert_eq!(
        (&a.format, &a.a, &a.b, &a.config, a.games, a.pairs),
        (&b.format, &b.a, &b.b, &b.config, b.games, b.pairs)
    );
    assert_eq!(
        (a.wdl, a.pentanomial, a.time_losses),
        (b.wdl, b.pentanomial, b.time_losses)
    );
    assert_eq!(a.game_results, b.game_results);
    let close = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => (x - y).abs() <= 1e-15 * y.abs(),
        _ => false,
    };
    let (e, f) = (&a.elo, &b.elo);
    for (x, y) in [
        (a.score, b.score),
        (Some(a.elapsed_seconds), Some(b.elapsed_seconds)),
        (e.elo, f.elo),
        (e.lower, f.lower),
        (e.upper, f.upper),
        (e.nelo, f.nelo),
        (e.nelo_lower, f.nelo_lower),
        (e.nelo_upper, f.nelo_upper),
        (e.los, f.los),
    ] {
        assert!(close(x, y), "{x:?} vs {y:?}");
    }
    match (a.sprt, b.sprt) {
        (None, None) => {}
        (Some(s), Some(t)) => {
            assert_eq!((s.params, s.decision), (t.params, t.decision));
            assert!(close(s.llr, t.llr) && close(s.lower, t.lower) && close(s.upper, t.upper));
        }
        (s, t) => panic!("{s:?} vs {t:?}"),
    }
}

/// The numbers after `prefix` on the line of `text` that starts with it, e.g. the counts of
/// `games 4: A +2 =1 -1 (...)`.
fn printed_numbers(text: &str, prefix: &str, count: usize) -> Vec<u64> {
    let line = text
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line '{prefix}' in {text}"));
    let numbers: Vec<u64> = line[prefix.len()..]
        .split(|ch: char| !ch.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(count)
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), count, "{line}");
    numbers
}

#[test]
fn a_matchs_json_report_has_the_documented_fields_and_agrees_with_its_summary() {
    let dir = std::env::temp_dir().join(format!("marginal-match-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json_path = dir.join("report.json");
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings/UHO_4060_v2_2k.epd");
    let run = |json: &Path| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(["match", "--a", "default", "--b", "off", "--openings"])
            .arg(&book)
            .args(["--games", "6", "--nodes", "400", "--max-plies", "120"])
            .args(["--concurrency", "2", "--seed", "5", "--sprt", "--json"])
            .arg(json)
            .output()
            .unwrap()
    };
    let out = run(&json_path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&json_path).unwrap();

    // It is JSON, with the documented fields.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["format"], MATCH_REPORT_FORMAT);
    for key in [
        "a",
        "b",
        "config",
        "games",
        "pairs",
        "wdl",
        "score",
        "pentanomial",
        "elo",
        "sprt",
        "time_losses",
        "elapsed_seconds",
        "game_results",
    ] {
        assert!(value.get(key).is_some(), "no '{key}' in {text}");
    }
    for key in [
        "elo",
        "lower",
        "upper",
        "nelo",
        "nelo_lower",
        "nelo_upper",
        "los",
    ] {
        assert!(value["elo"].get(key).is_some(), "no elo.{key} in {text}");
    }
    for key in ["params", "llr", "lower", "upper", "decision"] {
        assert!(value["sprt"].get(key).is_some(), "no sprt.{key} in {text}");
    }
    let games = value["game_results"].as_array().unwrap();
    for key in [
        "pair",
        "opening",
        "white",
        "black",
        "result",
        "termination",
        "plies",
    ] {
        assert!(games[0].get(key).is_some(), "no game_results[0].{key}");
    }

    // It reads back into the library type, unchanged.
    let report: MatchReport = serde_json::from_str(&text).unwrap();
    let again = serde_json::to_string_pretty(&report).unwrap();
    assert_same_report(&serde_json::from_str(&again).unwrap(), &report);
    assert_eq!((report.a.as_str(), report.b.as_str()), ("default", "off"));

    // Its counts agree with the printed summary...
    let [n, w, d, l] = printed_numbers(&stdout, "games ", 4)[..] else {
        unreachable!()
    };
    assert_eq!(report.games, n);
    assert_eq!(
        report.wdl,
        Wdl {
            wins: w,
            draws: d,
            losses: l
        }
    );
    let penta = printed_numbers(&stdout, "pentanomial [LL LD WL+DD WD WW] = ", 5);
    assert_eq!(report.pentanomial.counts().to_vec(), penta);
    assert_eq!(report.games, 6);
    assert_eq!(report.pairs, 3);
    let elo_line = stdout.lines().find(|l| l.starts_with("Elo ")).unwrap();
    match report.elo.elo {
        Some(elo) => assert!(
            elo_line.starts_with(&format!("Elo {elo:+.2} ")),
            "{elo_line}"
        ),
        None => assert!(elo_line.starts_with("Elo n/a "), "{elo_line}"),
    }
    let sprt = report.sprt.expect("an SPRT ran");
    assert_eq!(sprt.params, SprtParams::default());
    let llr_line = stdout.lines().find(|l| l.starts_with("SPRT ")).unwrap();
    assert!(
        llr_line.contains(&format!("LLR {:.3}, bounds (", sprt.llr.unwrap())),
        "{llr_line}"
    );
    assert!(sprt.lower.unwrap() < 0.0 && sprt.upper.unwrap() > 0.0);
    assert_eq!(sprt.decision, SprtDecision::Continue); // 3 pairs cannot decide [0, 5]

    // ...and with the per-game list: A's results, re-derived from the PGN results and colours,
    // give the same W/D/L and, pair by pair, the same pentanomial.
    assert_eq!(report.game_results.len() as u64, report.games);
    let mut wdl = Wdl::default();
    let mut pentanomial = Pentanomial::default();
    for (i, pair) in report.game_results.chunks(2).enumerate() {
        let results: Vec<GameResult> = pair
            .iter()
            .map(|g| {
                let a_result = match (g.result.pgn(), g.a_white) {
                    ("1/2-1/2", _) => GameResult::Draw,
                    ("1-0", true) | ("0-1", false) => GameResult::Win,
                    _ => GameResult::Loss,
                };
                assert_eq!(a_result, g.a_result);
                let (a_name, b_name) = ("A default", "B off");
                let names = if g.a_white {
                    (a_name, b_name)
                } else {
                    (b_name, a_name)
                };
                assert_eq!((g.white.as_str(), g.black.as_str()), names);
                assert!(g.plies <= 120);
                wdl.add_game(a_result);
                a_result
            })
            .collect();
        assert_eq!((pair[0].pair, pair[1].pair), (i, i));
        assert_eq!((pair[0].a_white, pair[1].a_white), (true, false));
        assert_eq!(pair[0].opening, pair[1].opening);
        pentanomial.add_pair(results[0], results[1]);
    }
    assert_eq!(wdl, report.wdl);
    assert_eq!(pentanomial, report.pentanomial);

    // An unwritable report path (a directory where no file can be made) fails at once (exit 2,
    // naming the path), before any game: not even the header is printed. (A missing directory
    // is made, as every command makes it.)
    let bad = std::path::PathBuf::from("/proc/no-such-dir/report.json");
    let out = run(&bad);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_names(&stderr, &["--json", bad.to_str().unwrap()]);
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A finished game with no moves and the given result (for building match results by hand).
fn finished(white: &str, black: &str, outcome: GameOutcome) -> GameRecord {
    GameRecord {
        start: Chess::default(),
        white: white.into(),
        black: black.into(),
        moves: Vec::new(),
        outcome,
        termination: Termination::ResignAdjudication,
        overshot: [0, 0],
    }
}

#[test]
fn a_report_with_infinite_elo_is_valid_json_with_nulls() {
    // A wins every game: Elo +inf, interval and nElo infinite too.
    let config = MatchConfig {
        game: GameConfig::default(),
        games: 4,
        concurrency: 1,
        sprt: Some(SprtParams::default()),
    };
    let mut stats = MatchStats::default();
    let mut pairs = Vec::new();
    for index in 0..2 {
        let pair = PairRecord {
            index,
            first: finished("A", "B", GameOutcome::WhiteWins),
            second: finished("B", "A", GameOutcome::BlackWins),
        };
        stats.add(&pair, config.sprt.as_ref());
        pairs.push(pair);
    }
    let result = MatchResult {
        pairs,
        stats,
        elapsed: Duration::from_millis(1500),
        earlier: 0,
        earlier_elapsed: Duration::ZERO,
        interrupted: false,
    };
    let report = MatchReport::new(&result, &config, "A", "B");
    assert_eq!(report.estimate().elo, f64::INFINITY);
    assert_eq!(report.elo.elo, None);
    assert_eq!(report.elo.nelo, None);
    // Every pair scored the same: LOS 1 is a convention, not an estimate, and left out.
    assert_eq!(report.estimate().los, 1.0);
    assert_eq!(report.elo.los, None);
    assert_eq!(report.score, Some(1.0));
    assert_eq!(report.wdl.wins, 4);
    assert_eq!(report.pentanomial.ww, 2);
    assert!(report.sprt.unwrap().llr.is_some());
    let text = serde_json::to_string_pretty(&report).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(value["elo"]["elo"].is_null(), "{text}");
    assert!(value["elo"]["upper"].is_null(), "{text}");
    assert!(value["elo"]["los"].is_null(), "{text}");
    assert_eq!(value["game_results"][1]["result"], "0-1");
    assert_eq!(value["game_results"][1]["a_result"], "Win");
    assert_same_report(&serde_json::from_str(&text).unwrap(), &report);
}

/// The same set on both sides can only measure 0 Elo: the match is played and says so.
#[test]
fn a_match_of_a_set_against_itself_says_it_measures_nothing() {
    let dir = scratch("games", "twins");
    let book = dir.join("book.epd");
    first_lines("data/openings/noob_3moves_1k.epd", 6, &book);
    let out = marginal(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "default",
            "--games",
            "2",
            "--nodes",
            "300",
            "-q",
            "--openings",
            book.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    // Both sides, named, and what such a match can measure.
    assert_names(&said(&out), &["--a 'default'", "--b 'default'", "0 Elo"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// G023: outside a terminal a match's progress lines come at most every few seconds, so its
/// last line is printed at the end: the same games and score as the summary after it.
#[test]
fn a_matchs_last_progress_line_agrees_with_its_summary() {
    let dir = scratch("games", "last-line");
    let args = ["match", "--a", "futility_margin=50", "--b", "default"];
    let out = marginal(
        &[&args[..], &["--games", "20", "--nodes", "300"]].concat(),
        &dir,
    );
    assert!(out.status.success(), "{}", said(&out));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let score = stdout
        .lines()
        .find_map(|l| l.strip_prefix("games 20: "))
        .and_then(|l| l.split("(score ").nth(1))
        .map(|s| s.trim_end_matches(')'))
        .expect("summary score");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("20/20 games score ") && last.contains(&format!("score {score} ")),
        "last line '{last}', summary score {score}: {stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Odd games are rounded up to a whole pair, and the output says so.
#[test]
fn odd_games_are_rounded_up_to_a_whole_pair_and_said() {
    let dir = scratch("games", "rounding");
    let out = run_bounded(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "default",
            "--games",
            "1",
            "--nodes",
            "200",
            "--concurrency",
            "1",
        ],
        &dir,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_names(&out.stdout, &["--games 1", "rounded up to 2"]);
    std::fs::remove_dir_all(dir).unwrap();
}
