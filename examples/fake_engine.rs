//! A tiny UCI engine that misbehaves on purpose, for `tests/external_faults.rs`: it lets the
//! tests commit every fault an external engine can commit without needing a real engine.
//!
//! ```text
//! fake_engine [MODE] [N] [DIR]
//! ```
//!
//! It answers `uci`, `isready`, `ucinewgame`, `position` and `go` as an engine does, and plays
//! the first legal move (shakmaty's order) with one line `info depth 1 score cp 0 nodes B pv
//! MOVE`, `B` being the `go nodes` budget (1 without one). The first `N` searches (default 0)
//! are always good; from search `N + 1` on it does what `MODE` says:
//!
//! - `good`: nothing wrong (the default).
//! - `crash`: says so on its standard error and exits with status 3 instead of answering.
//! - `hang`: answers nothing, ever again (it sleeps; only a kill ends it).
//! - `mute`: answers that search, then nothing ever again (`isready` included).
//! - `illegal`: answers a move that is not legal in the position.
//! - `garbage`: answers `bestmove` with text that is no move.
//! - `noise`: prints unreadable lines without end (512 at a time), never a `bestmove`.
//! - `overshoot`: ignores the node budget: reports growing node counts (a quarter of the
//!   budget more each time), the first legal move as PV while within the budget and the second
//!   beyond it, until `stop`; then plays its PV's move.
//! - `handshake`: exits with status 4 on `uci`, before `uciok` (from the first process on).
//!
//! With `DIR`, each process appends its process id to `DIR/pids` as it starts: tests find
//! their engines by it (and by `DIR` in their command lines).
//!
//! It declares `option name Faulty type check default true` (and a spin `Margin` that changes
//! nothing, for tunes); set to `false` it behaves (an
//! engine file's `[reference_options]` keeps the reference run of a suite clean).

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Square};

/// Writes one line and flushes it (a failed write means marginal has gone: end quietly).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

fn uci(m: Move) -> String {
    UciMove::from_move(m, CastlingMode::Standard).to_string()
}

/// The position of a `position` command (the start position when it cannot be read).
fn position(words: &[&str]) -> Chess {
    let moves_at = words.iter().position(|w| *w == "moves");
    let setup = &words[1..moves_at.unwrap_or(words.len())];
    let mut pos = match setup.first() {
        Some(&"fen") => setup[1..]
            .join(" ")
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
            .unwrap_or_default(),
        _ => Chess::default(),
    };
    for text in moves_at.map_or(&[][..], |m| &words[m + 1..]) {
        match text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
        {
            Some(m) => pos = pos.play(m).unwrap_or_default(),
            None => break,
        }
    }
    pos
}

/// A move that reads as UCI but is not legal in `pos`.
fn illegal(pos: &Chess) -> String {
    let squares = || Square::ALL.into_iter();
    squares()
        .flat_map(|from| squares().map(move |to| (from, to)))
        .filter(|(from, to)| from != to)
        .map(|(from, to)| UciMove::Normal {
            from,
            to,
            promotion: None,
        })
        .find(|u| u.to_move(pos).is_err())
        .expect("no position makes every move legal")
        .to_string()
}

/// An `overshoot` search: node counts past `budget` until `stop` is raised, then the last PV
/// as its `bestmove`, or `answer` when given.
fn overshoot(
    pos: &Chess,
    budget: u64,
    stop: Arc<AtomicBool>,
    answer: Option<String>,
) -> JoinHandle<()> {
    let moves = pos.legal_moves();
    let (within, beyond) = (uci(moves[0]), uci(moves[moves.len().min(2) - 1]));
    std::thread::spawn(move || {
        let mut nodes = 0u64;
        let mut pv = within.clone();
        while !stop.load(Ordering::Relaxed) {
            nodes += (budget / 4).max(1);
            pv = if nodes <= budget {
                within.clone()
            } else {
                beyond.clone()
            };
            say(&format!("info depth 1 score cp 0 nodes {nodes} pv {pv}"));
            std::thread::sleep(Duration::from_millis(1));
        }
        say(&format!("bestmove {}", answer.unwrap_or(pv)));
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("good", String::as_str).to_string();
    let good_first: u64 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(0);
    if let Some(dir) = args.get(2) {
        let pids = std::path::Path::new(dir).join("pids");
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&pids)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", pids.display()));
        writeln!(file, "{}", std::process::id()).expect("pid written");
    }
    let mut faulty = true;
    let mut pos = Chess::default();
    let mut searches = 0u64;
    let mut mute = false;
    let mut running: Option<(Arc<AtomicBool>, JoinHandle<()>)> = None;
    let stop = |running: &mut Option<(Arc<AtomicBool>, JoinHandle<()>)>| {
        if let Some((flag, thread)) = running.take() {
            flag.store(true, Ordering::Relaxed);
            let _ = thread.join();
        }
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        if mute {
            continue;
        }
        match words.first().copied() {
            Some("uci") if mode == "handshake" => std::process::exit(4),
            Some("uci") => {
                say("id name fake_engine");
                say("option name Faulty type check default true");
                // A margin that changes nothing, so that a tune can run on it.
                say("option name Margin type spin default 100 min 0 max 500");
                say("uciok");
            }
            Some("setoption") if words.get(2) == Some(&"Faulty") => {
                faulty = words.get(4) != Some(&"false");
            }
            Some("isready") => say("readyok"),
            Some("position") => pos = position(&words),
            Some("go") => {
                searches += 1;
                let budget = words
                    .iter()
                    .position(|w| *w == "nodes")
                    .and_then(|i| words.get(i + 1)?.parse().ok())
                    .unwrap_or(1u64);
                let act = if pos.legal_moves().is_empty() {
                    "good"
                } else if faulty && searches > good_first {
                    mode.as_str()
                } else {
                    "good"
                };
                let first = pos.legal_moves().first().map_or("0000".into(), |m| uci(*m));
                match act {
                    "crash" => {
                        eprintln!("fake engine: crashing as asked");
                        std::process::exit(3)
                    }
                    "hang" => loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    },
                    "illegal" => say(&format!("bestmove {}", illegal(&pos))),
                    "garbage" => say("bestmove !?garbage?!"),
                    "noise" => {
                        let lines = "\u{1}??? this is not UCI ??? \u{7f}\n".repeat(512);
                        loop {
                            say(&lines);
                        }
                    }
                    "overshoot" | "overshoot-illegal" | "overshoot-garbage" => {
                        // Past the budget, then a sound, an illegal or an unreadable answer.
                        let answer = match act {
                            "overshoot-illegal" => Some(illegal(&pos)),
                            "overshoot-garbage" => Some("!?garbage?!".to_string()),
                            _ => None,
                        };
                        let flag = Arc::new(AtomicBool::new(false));
                        running = Some((flag.clone(), overshoot(&pos, budget, flag, answer)));
                    }
                    _ => {
                        say(&format!(
                            "info depth 1 score cp 0 nodes {budget} pv {first}"
                        ));
                        say(&format!("bestmove {first}"));
                        mute = act == "mute";
                    }
                }
            }
            Some("stop") => stop(&mut running),
            Some("quit") => break,
            _ => {}
        }
    }
    stop(&mut running);
}
