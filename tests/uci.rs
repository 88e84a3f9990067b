//! `marginal uci` as a GUI drives it: options from the parameter table, searches on a thread,
//! `stop`, and bad input answered with `info string` while the engine stays alive: lines that
//! are not UTF-8 or far too long, bad `go` parameters (still one `bestmove` for every `go`),
//! and bad option values (an absurd `Hash` too).

use std::time::Duration;

use marginal::params::{PARAMS, ParamKind};
use marginal::uci::{MAX_LINE_BYTES, QUOTE_CHARS};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

mod common;
use common::uci_engine::UciEngine as Engine;

fn bestmove(lines: &[String]) -> String {
    lines
        .last()
        .and_then(|l| l.strip_prefix("bestmove "))
        .expect("bestmove line")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

fn last_info_nodes(lines: &[String]) -> u64 {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let words: Vec<&str> = info.split_whitespace().collect();
    let i = words.iter().position(|w| *w == "nodes").unwrap();
    words[i + 1].parse().unwrap()
}

#[test]
fn handshake_lists_every_parameter_as_an_option() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines[0].starts_with("id name marginal"));
    for p in PARAMS {
        let expected = match p.kind {
            ParamKind::Spin => format!(
                "option name {} type spin default {} min {} max {}",
                p.uci_name, p.default, p.min, p.max
            ),
            ParamKind::Check => format!(
                "option name {} type check default {}",
                p.uci_name,
                p.default != 0
            ),
        };
        assert!(lines.contains(&expected), "missing '{expected}'");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Hash type spin"))
    );
    assert_eq!(e.ready(), vec!["readyok"]);
}

#[test]
fn plays_a_legal_move_from_a_move_list_and_is_deterministic() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    e.send("go depth 7");
    let first = e.until("bestmove");
    let m = bestmove(&first);
    let mut pos = Chess::default();
    for u in ["e2e4", "e7e5", "g1f3", "b8c6"] {
        let mv = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
    }
    assert!(m.parse::<UciMove>().unwrap().to_move(&pos).is_ok(), "{m}");
    assert!(first.iter().any(|l| l.starts_with("info depth 7 ")));
    // Same search after ucinewgame: same nodes and move.
    e.send("ucinewgame");
    e.send("go depth 7");
    let second = e.until("bestmove");
    assert_eq!(bestmove(&second), m);
    assert_eq!(last_info_nodes(&second), last_info_nodes(&first));
    // A margin set through setoption changes the search.
    e.send("setoption name FutilityPruning value false");
    e.send("setoption name ExtFutilityPruning value false");
    e.send("ucinewgame");
    e.send("go depth 7");
    let third = e.until("bestmove");
    assert_ne!(last_info_nodes(&third), last_info_nodes(&first));
}

#[test]
fn go_by_nodes_infinite_then_stop_movetime_and_clock_each_end_with_a_bestmove() {
    let mut e = Engine::start();
    e.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    e.send("go nodes 20000");
    let lines = e.until("bestmove");
    assert!(last_info_nodes(&lines) <= 20_000);
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let lines = e.until("bestmove");
    assert_ne!(bestmove(&lines), "0000");
    e.send("go movetime 200");
    let lines = e.until("bestmove");
    assert_ne!(bestmove(&lines), "0000");
    e.send("go wtime 1000 btime 1000 winc 10 binc 10");
    let lines = e.until("bestmove");
    assert_ne!(bestmove(&lines), "0000");
}

#[test]
fn bad_input_is_answered_and_the_engine_stays_alive() {
    let mut e = Engine::start();
    let cases = [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("position fen not/a/fen w - - 0 1", "bad FEN"),
        (
            "position startpos moves e2e4 e2e4",
            "illegal move 'e2e4' (move 2",
        ),
        (
            "position somewhere",
            "position needs 'startpos' or 'fen <fen>'",
        ),
        (
            "setoption name FutilityMargin value 99999",
            "outside [0, 1500]",
        ),
        (
            "setoption name FutilityMargin value lots",
            "not a valid integer",
        ),
        (
            "setoption name NoSuchOption value 1",
            "unknown parameter 'NoSuchOption'",
        ),
        ("setoption name Hash value -3", "option Hash"),
        ("go depth", "go depth needs a number"),
        ("go sideways", "unknown parameter 'sideways'"),
    ];
    for (command, expected) in cases {
        e.send(command);
        // A bad `go` is still answered with its bestmove.
        let lines = if command.starts_with("go") {
            e.until("bestmove")
        } else {
            e.ready()
        };
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string") && l.contains(expected)),
            "'{command}' answered {lines:?}"
        );
    }
    // The position is unchanged after the bad commands: still the start position.
    e.send("go depth 3");
    let lines = e.until("bestmove");
    let m = bestmove(&lines);
    assert!(
        m.parse::<UciMove>()
            .unwrap()
            .to_move(&Chess::default())
            .is_ok()
    );
    // A mated position answers bestmove 0000.
    e.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go depth 3");
    assert_eq!(bestmove(&e.until("bestmove")), "0000");
}

/// Is `m` a move of `pos`?
fn legal_in(pos: &Chess, m: &str) -> bool {
    m.parse::<UciMove>()
        .ok()
        .is_some_and(|u| u.to_move(pos).is_ok())
}

/// Sends a `go` and returns its lines up to its bestmove, checking there is exactly one.
fn go(e: &mut Engine, command: &str) -> Vec<String> {
    e.send(command);
    let lines = e.until("bestmove");
    let count = lines.iter().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(count, 1, "'{command}' answered {lines:?}");
    lines
}

fn has_info(lines: &[String], expected: &str) -> bool {
    lines
        .iter()
        .any(|l| l.starts_with("info string") && l.contains(expected))
}

#[test]
fn a_line_that_is_not_utf8_is_answered_and_the_engine_keeps_running() {
    let mut e = Engine::start();
    // A GUI sending the opponent's name in Latin-1, and plain garbage with a NUL.
    e.send_bytes(b"setoption name UCI_Opponent value GM 2800 human J\xf6rg");
    e.send_bytes(b"\xff\xfe\x00\xc3(garbage");
    let lines = e.ready();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("info string line is not valid UTF-8"))
            .count(),
        2,
        "{lines:?}"
    );
    assert!(has_info(&lines, "J\u{fffd}rg"), "{lines:?}");
    assert!(
        lines.iter().all(|l| !l.contains('\0')),
        "raw bytes echoed: {lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "readyok");
    let lines = go(&mut e, "go depth 2");
    assert!(legal_in(&Chess::default(), &bestmove(&lines)));
}

#[test]
fn overlong_lines_are_skipped_and_long_move_lists_are_read() {
    let mut e = Engine::start();
    // A megabyte line is reported (quoted short) and skipped, whatever it starts with.
    let mut huge = b"position startpos moves ".to_vec();
    huge.resize(1 << 20, b'x');
    e.send_bytes(&huge);
    let lines = e.ready();
    let [report, ready] = &lines[..] else {
        panic!("{lines:?}")
    };
    assert!(
        report.starts_with(&format!(
            "info string line of {} bytes skipped (more than {MAX_LINE_BYTES})",
            1 << 20
        )),
        "{report}"
    );
    assert!(report.chars().count() < 100 + QUOTE_CHARS, "{report}");
    assert_eq!(ready, "readyok");
    // 16,000 plies of knights going out and back: an 80 KB line (more than 64 KiB), legal.
    let cycle = "g1f3 g8f6 f3g1 f6g8 ";
    let line = format!("position startpos moves {}", cycle.repeat(4000));
    assert!(line.len() > 64 * 1024 && line.len() <= MAX_LINE_BYTES);
    e.send(line.trim_end());
    e.send("d");
    let lines = e.ready();
    assert_eq!(
        lines[0],
        "info string fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 16000 8001"
    );
    let lines = go(&mut e, "go depth 3");
    assert!(legal_in(&Chess::default(), &bestmove(&lines)));
}

#[test]
fn every_go_gets_exactly_one_bestmove() {
    let mut e = Engine::start();
    // Bad parameters: reported, ignored, and the answer still comes.
    for (command, expected) in [
        ("go nodes abc", "go nodes: 'abc' is not a number"),
        ("go depth", "go depth needs a number"),
        ("go sideways", "unknown parameter 'sideways'"),
        ("go searchmoves e2e4 d2d4", "searchmoves is not supported"),
        ("go depth x nodes 500", "'x' is not a number"),
        ("go wtime lots btime 100", "'lots' is not a number"),
    ] {
        let lines = go(&mut e, command);
        assert!(has_info(&lines, expected), "'{command}' answered {lines:?}");
        assert!(legal_in(&Chess::default(), &bestmove(&lines)), "{lines:?}");
    }
    // `go` after `stop` (with no search running).
    e.send("stop");
    go(&mut e, "go depth 2");
    // `go` while a search runs: the previous search answers first.
    e.send("go infinite");
    let first = go(&mut e, "go depth 2");
    let second = e.until("bestmove");
    assert_eq!(
        second.iter().filter(|l| l.starts_with("bestmove")).count(),
        1
    );
    assert!(legal_in(&Chess::default(), &bestmove(&first)));
    assert!(legal_in(&Chess::default(), &bestmove(&second)));
    // `ucinewgame` and a bad `position` during a search end it with its bestmove.
    e.send("go infinite");
    e.send("ucinewgame");
    let lines = e.until("bestmove");
    assert!(legal_in(&Chess::default(), &bestmove(&lines)));
    go(&mut e, "go depth 2");
    e.send("go infinite");
    e.send("position fen not/a/fen w - - 0 1");
    let lines = e.until("bestmove");
    assert!(legal_in(&Chess::default(), &bestmove(&lines)));
    e.send("position startpos moves e2e4 e2e4");
    let lines = go(&mut e, "go depth 2");
    assert!(has_info(&lines, "bad FEN"), "{lines:?}");
    assert!(has_info(&lines, "illegal move 'e2e4'"), "{lines:?}");
    assert!(legal_in(&Chess::default(), &bestmove(&lines)));
    // No legal move, bad parameters: bestmove 0000.
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(bestmove(&go(&mut e, "go nodes abc")), "0000");
    // Nothing more comes before the engine exits.
    let (rest, status) = e.quit();
    assert!(status.success());
    assert!(!rest.iter().any(|l| l.starts_with("bestmove")), "{rest:?}");
}

#[test]
fn quit_during_a_search_answers_it_and_exits() {
    let mut e = Engine::start();
    e.send("go infinite");
    e.send("isready");
    e.until("readyok");
    let (rest, status) = e.quit();
    assert!(status.success());
    assert_eq!(
        rest.iter().filter(|l| l.starts_with("bestmove")).count(),
        1,
        "{rest:?}"
    );
    assert!(legal_in(&Chess::default(), &bestmove(&rest)));
}

#[test]
fn end_of_input_during_a_search_answers_it_and_exits() {
    // A search that would run for hours: end of input stops it, as `quit` does.
    for go in ["go depth 99999", "go nodes 1000000000000", "go infinite"] {
        let mut e = Engine::start();
        e.send(go);
        e.send("isready");
        e.until("readyok");
        let (rest, status) = e.close();
        assert!(status.success(), "{go}");
        assert_eq!(
            rest.iter().filter(|l| l.starts_with("bestmove")).count(),
            1,
            "{go}: {rest:?}"
        );
        assert!(legal_in(&Chess::default(), &bestmove(&rest)), "{go}");
    }
}

#[test]
fn an_absurd_hash_and_garbage_option_values_are_answered() {
    let mut e = Engine::start();
    e.send("d");
    let before = e.ready();
    let long = "x".repeat(10_000);
    let long_value = format!("setoption name FutilityMargin value {long}");
    let cases = [
        (
            "setoption name Hash value 100000000",
            "option Hash: '100000000' is not a size",
        ),
        (
            "setoption name Hash value 18446744073709551616",
            "option Hash",
        ),
        ("setoption name Hash value lots", "option Hash: 'lots'"),
        ("setoption name Hash", "option Hash: ''"),
        ("setoption name Clear Hash value now", "is a button"),
        (
            "setoption name FutilityPruning value maybe",
            "not a valid boolean",
        ),
        (
            "setoption name FutilityMargin value 12abc",
            "not a valid integer",
        ),
        ("setoption name FutilityMode value 7", "outside [0, 2]"),
        ("setoption name NullMoveR", "not a valid integer"),
        ("setoption", "setoption needs 'name <option>'"),
        ("setoption value 3 name Hash", "unknown parameter"),
        (&long_value, "not a valid integer"),
    ];
    for (command, expected) in cases {
        e.send(command);
        let lines = e.ready();
        assert!(has_info(&lines, expected), "'{command}' answered {lines:?}");
        assert!(lines.iter().all(|l| l.len() < 400), "{lines:?}");
    }
    // Alive, searching, and no option changed.
    let lines = go(&mut e, "go depth 3");
    assert!(legal_in(&Chess::default(), &bestmove(&lines)));
    e.send("d");
    assert_eq!(e.ready(), before);
}
