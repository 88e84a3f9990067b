//! The UCI protocol front end (`marginal uci`).
//!
//! The search runs on its own thread so that `stop`, `isready` and `quit` are answered while it
//! thinks. Every margin and switch of the parameter table is a UCI option, so a GUI, cutechess or
//! fastchess can play any margin set. Bad input (unknown command, bad FEN, illegal move, bad
//! option) is answered with `info string ...` and the engine stays alive. The non-standard `d`
//! shows the position and the current value of every margin option.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use crate::engine::search::{IterationInfo, mate_in};
use crate::engine::{Board, DEFAULT_HASH_MB, Limits, Searcher};
use crate::formats::uci_move as uci;
use crate::params::{Margins, PARAMS};

pub use crate::engine::MAX_HASH_MB;

/// A line-oriented writer shared by the protocol thread and the search thread.
type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Out, line: &str) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    // A closed output (GUI gone) is not our error to report.
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

/// The protocol state.
pub struct UciEngine {
    out: Out,
    searcher: Option<Searcher>,
    thread: Option<JoinHandle<Searcher>>,
    stop: Arc<AtomicBool>,
    /// The running search has no limit of its own (`go infinite`): only `stop` ends it.
    infinite: bool,
    position: Chess,
    /// Keys of the positions before `position` (oldest first), for repetitions.
    history: Vec<u64>,
    margins: Margins,
    hash_mb: usize,
}

impl UciEngine {
    /// A new engine writing protocol lines to `output`.
    pub fn new(output: Box<dyn Write + Send>) -> UciEngine {
        UciEngine {
            out: Arc::new(Mutex::new(output)),
            searcher: Some(Searcher::new(DEFAULT_HASH_MB, Margins::default())),
            thread: None,
            stop: Arc::new(AtomicBool::new(false)),
            infinite: false,
            position: Chess::default(),
            history: Vec::new(),
            margins: Margins::default(),
            hash_mb: DEFAULT_HASH_MB,
        }
    }

    /// Reads commands until `quit` or end of input.
    pub fn run(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            if !self.handle(&line) {
                break;
            }
        }
        // End of input lets a limited search finish (`echo "go depth 9" | marginal uci`).
        self.finish_search(self.infinite);
    }

    /// Handles one command line. Returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let line = line.trim();
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            return true;
        };
        let rest: Vec<&str> = words.collect();
        match command {
            "uci" => self.cmd_uci(),
            "isready" => say(&self.out, "readyok"),
            "ucinewgame" => {
                self.finish_search(self.infinite);
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            "setoption" => {
                self.finish_search(self.infinite);
                self.cmd_setoption(&rest);
            }
            "position" => {
                self.finish_search(self.infinite);
                self.cmd_position(&rest);
            }
            "go" => {
                self.finish_search(self.infinite);
                self.cmd_go(&rest);
            }
            "stop" => self.finish_search(true),
            "quit" => {
                self.finish_search(true);
                return false;
            }
            "d" => self.cmd_d(),
            "debug" | "register" | "ponderhit" => {}
            other => say(
                &self.out,
                &format!("info string unknown command '{other}' (line '{line}')"),
            ),
        }
        true
    }

    /// Waits for a running search (stopping it first when `stop` is set) and takes the
    /// searcher back. Commands other than `stop` and `quit` let a limited search finish (a GUI
    /// sends `stop` first when it wants the move now) but stop an infinite one.
    fn finish_search(&mut self, stop: bool) {
        if let Some(handle) = self.thread.take() {
            if stop {
                self.stop.store(true, Ordering::Relaxed);
            }
            match handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    say(&self.out, "info string search thread failed; engine reset");
                    self.searcher = Some(Searcher::new(self.hash_mb, self.margins));
                }
            }
        }
    }

    fn cmd_uci(&self) {
        say(
            &self.out,
            &format!("id name marginal {}", env!("CARGO_PKG_VERSION")),
        );
        say(&self.out, "id author the marginal developers");
        say(
            &self.out,
            &format!(
                "option name Hash type spin default {DEFAULT_HASH_MB} min 0 max {MAX_HASH_MB}"
            ),
        );
        say(&self.out, "option name Clear Hash type button");
        for p in PARAMS {
            say(&self.out, &p.uci_option());
        }
        say(&self.out, "uciok");
    }

    /// The non-standard `d` (display) command: the position as `info string fen <fen>`, then
    /// every option of the parameter table with its current value as
    /// `info string margins <UciName>=<value> ...` (table order; checks as `true`/`false`,
    /// the spelling `setoption` takes), so a script can check what its `setoption` lines did.
    fn cmd_d(&self) {
        say(
            &self.out,
            &format!(
                "info string fen {}",
                Fen::from_position(&self.position, EnPassantMode::Legal)
            ),
        );
        let margins: Vec<String> = PARAMS
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{}={}", p.uci_name, p.uci_value(self.margins.get_index(i))))
            .collect();
        say(
            &self.out,
            &format!("info string margins {}", margins.join(" ")),
        );
    }

    fn cmd_setoption(&mut self, words: &[&str]) {
        // setoption name <name words...> [value <value words...>]
        let name_at = words.iter().position(|w| w.eq_ignore_ascii_case("name"));
        let value_at = words.iter().position(|w| w.eq_ignore_ascii_case("value"));
        let Some(name_at) = name_at else {
            say(&self.out, "info string setoption needs 'name <option>'");
            return;
        };
        let name_end = value_at.unwrap_or(words.len());
        let name = words[name_at + 1..name_end.max(name_at + 1)].join(" ");
        let value = value_at
            .map(|v| words[v + 1..].join(" "))
            .unwrap_or_default();
        let searcher = self.searcher.as_mut().expect("no search is running");
        if name.eq_ignore_ascii_case("Hash") {
            match value.parse::<usize>() {
                Ok(mb) if mb <= MAX_HASH_MB => {
                    self.hash_mb = mb;
                    searcher.resize_tt(mb);
                }
                _ => say(
                    &self.out,
                    &format!(
                        "info string option Hash: '{value}' is not a size in 0..{MAX_HASH_MB} MB"
                    ),
                ),
            }
        } else if name.eq_ignore_ascii_case("Clear Hash") {
            searcher.clear();
        } else {
            match self.margins.set(&name, &value) {
                Ok(()) => searcher.set_margins(self.margins),
                Err(e) => say(&self.out, &format!("info string {e}")),
            }
        }
    }

    fn cmd_position(&mut self, words: &[&str]) {
        let moves_at = words.iter().position(|w| *w == "moves");
        let setup = &words[..moves_at.unwrap_or(words.len())];
        let start: Result<Chess, String> = match setup.first() {
            Some(&"startpos") if setup.len() == 1 => Ok(Chess::default()),
            Some(&"fen") => {
                let text = setup[1..].join(" ");
                text.parse::<Fen>()
                    .map_err(|e| format!("bad FEN '{text}': {e}"))
                    .and_then(|fen| {
                        fen.into_position(CastlingMode::Standard)
                            .map_err(|e| format!("bad FEN '{text}': {e}"))
                    })
            }
            _ => Err(format!(
                "position needs 'startpos' or 'fen <fen>', got '{}'",
                words.join(" ")
            )),
        };
        let mut board = match start {
            Ok(p) => Board::new(p),
            Err(e) => {
                say(&self.out, &format!("info string {e}; position unchanged"));
                return;
            }
        };
        let mut history = Vec::new();
        for (i, text) in words[moves_at.map_or(words.len(), |m| m + 1)..]
            .iter()
            .enumerate()
        {
            let parsed = text
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(board.pos()).ok());
            let Some(m) = parsed else {
                say(
                    &self.out,
                    &format!(
                        "info string illegal move '{text}' (move {} of the list) in {}; position unchanged",
                        i + 1,
                        Fen::from_position(board.pos(), EnPassantMode::Legal)
                    ),
                );
                return;
            };
            history.push(board.hash());
            board = board.play(m);
        }
        self.position = board.pos().clone();
        self.history = history;
    }

    fn cmd_go(&mut self, words: &[&str]) {
        let limits = match parse_go(words, self.position.turn()) {
            Ok(l) => l,
            Err(e) => {
                say(&self.out, &format!("info string {e}"));
                return;
            }
        };
        self.infinite = limits.infinite;
        let mut searcher = self.searcher.take().expect("searcher present when idle");
        self.stop.store(false, Ordering::Relaxed);
        searcher.set_stop_flag(Some(self.stop.clone()));
        let out = self.out.clone();
        let pos = self.position.clone();
        let history = self.history.clone();
        self.thread = Some(std::thread::spawn(move || {
            let result = searcher.search_keys(&pos, &history, &limits, &mut |info| {
                say(&out, &info_line(info));
            });
            match result.best_move {
                Some(m) => say(&out, &format!("bestmove {}", uci(m))),
                None => say(&out, "bestmove 0000"),
            }
            searcher
        }));
    }
}

/// Formats an `info` line for one completed iteration.
pub fn info_line(info: &IterationInfo) -> String {
    let score = match mate_in(info.score) {
        Some(n) => format!("mate {n}"),
        None => format!("cp {}", info.score),
    };
    let ms = info.elapsed.as_millis().max(1);
    let nps = (u128::from(info.nodes) * 1000 / ms) as u64;
    let pv: Vec<String> = info.pv.iter().map(|m| uci(*m)).collect();
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
        info.depth,
        info.seldepth,
        score,
        info.nodes,
        nps,
        ms,
        pv.join(" ")
    )
}

/// Parses the arguments of `go` into search limits for the side to move `turn`.
pub fn parse_go(words: &[&str], turn: Color) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let mut i = 0;
    let number = |i: usize, name: &str| -> Result<u64, String> {
        let text = words
            .get(i + 1)
            .ok_or_else(|| format!("go {name} needs a number"))?;
        // Clocks may go negative in some GUIs: treat as zero.
        if let Ok(v) = text.parse::<i64>() {
            return Ok(v.max(0) as u64);
        }
        Err(format!("go {name}: '{text}' is not a number"))
    };
    while i < words.len() {
        let w = words[i];
        match w {
            "infinite" => {
                limits.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                i += 1;
                continue;
            }
            "depth" => limits.depth = Some(number(i, w)?.clamp(1, 100) as u32),
            "nodes" => limits.nodes = Some(number(i, w)?.max(1)),
            "movetime" => limits.movetime = Some(Duration::from_millis(number(i, w)?)),
            "wtime" | "btime" => {
                let ms = number(i, w)?;
                if (w == "wtime") == (turn == Color::White) {
                    limits.time_left = Some(Duration::from_millis(ms));
                }
            }
            "winc" | "binc" => {
                let ms = number(i, w)?;
                if (w == "winc") == (turn == Color::White) {
                    limits.increment = Some(Duration::from_millis(ms));
                }
            }
            "movestogo" => limits.moves_to_go = Some(number(i, w)?.clamp(1, 1000) as u32),
            "mate" => limits.depth = Some((number(i, w)? * 2).clamp(1, 100) as u32),
            "searchmoves" => return Err("go searchmoves is not supported".to_string()),
            other => return Err(format!("go: unknown parameter '{other}'")),
        }
        i += 2;
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parsing() {
        let l = parse_go(
            &["wtime", "1000", "btime", "2000", "winc", "10"],
            Color::Black,
        )
        .unwrap();
        assert_eq!(l.time_left, Some(Duration::from_millis(2000)));
        assert_eq!(l.increment, None);
        let l = parse_go(&["depth", "7", "nodes", "5000"], Color::White).unwrap();
        assert_eq!((l.depth, l.nodes), (Some(7), Some(5000)));
        assert!(parse_go(&["depth"], Color::White).is_err());
        assert!(parse_go(&["depth", "x"], Color::White).is_err());
        assert!(parse_go(&["fast"], Color::White).is_err());
        assert!(parse_go(&["infinite"], Color::White).unwrap().infinite);
    }
}
