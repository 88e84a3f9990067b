//! `marginal uci` as a GUI drives it: options from the parameter table, searches on a thread,
//! `stop`, and bad input answered with `info string` while the engine stays alive.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use marginal::params::{PARAMS, ParamKind};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start marginal uci");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no '{prefix}' line; got {out:?}"));
            let done = line.starts_with(prefix);
            out.push(line);
            if done {
                return out;
            }
        }
    }

    fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        self.until("readyok")
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

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
fn node_limit_and_stop() {
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
        let lines = e.ready();
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
