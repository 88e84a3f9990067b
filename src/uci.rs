//! The UCI protocol front end (`marginal uci`).
//!
//! The search runs on its own thread so that `stop`, `isready` and `quit` are answered while it
//! thinks. Every margin and switch of the parameter table is a UCI option, so a GUI, cutechess or
//! fastchess can play any margin set. The non-standard `d` shows the position and the current
//! value of every margin option.
//!
//! Bad input never stops the engine: an unknown command, a bad FEN, an illegal move, a bad option
//! value, a line that is not UTF-8 (read lossily) or longer than [`MAX_LINE_BYTES`] (skipped) is
//! answered with `info string ...`, quoting at most [`QUOTE_CHARS`] printable characters of it.
//! Every `go` is answered by exactly one `bestmove` (`0000` when there is no legal move), even
//! when some of its parameters are bad: those are reported and ignored.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use crate::engine::score::mate_in;
use crate::engine::search::IterationInfo;
use crate::engine::{Board, DEFAULT_HASH_MB, Limits, Searcher};
use crate::formats::uci_move as uci;
use crate::params::{Margins, PARAMS, ParamError};

pub use crate::engine::MAX_HASH_MB;

/// Longest command line read, bytes (without its newline); a longer line is reported and
/// skipped, and no more than this is ever kept of it. The longest legal game (17,697 plies under
/// the 75-move rule, at most 6 bytes a move) fits as a `position ... moves` line with room to
/// spare.
pub const MAX_LINE_BYTES: usize = 128 * 1024;

/// Most characters of the user's input quoted back in an `info string`.
pub const QUOTE_CHARS: usize = crate::formats::EXCERPT_CHARS;

/// Longest `info string` message written, characters (a last guard: input is quoted shorter).
const MAX_INFO_CHARS: usize = 1000;

/// The protocol's output, shared by the protocol thread and the search thread.
struct Output {
    writer: Mutex<Box<dyn Write + Send>>,
    /// A write found the output closed: whoever read it is gone, so the session ends.
    closed: AtomicBool,
    /// The search's stop flag, set when the output closes.
    stop: Arc<AtomicBool>,
    /// Wakes the command loop when the output closes (it waits on the input, which may stay
    /// open after its reader is gone).
    wake: Mutex<Option<Sender<String>>>,
}

impl Output {
    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// The reader is gone: the search stops and the command loop ends.
    fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        if let Some(wake) = self.wake.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            let _ = wake.send(String::new());
        }
    }
}

type Out = Arc<Output>;

/// The first write error other than a closed output (a full disk): the protocol goes on (there
/// is no one to tell), and the command reports it at the end ([`output_error`]).
static WRITE_ERROR: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The first error writing the protocol's output that was not a closed output, if any.
pub fn output_error() -> Option<String> {
    WRITE_ERROR.get().cloned()
}

fn say(out: &Out, line: &str) {
    if out.is_closed() {
        return;
    }
    let mut w = out.writer.lock().unwrap_or_else(|e| e.into_inner());
    // A closed output (GUI gone) ends the session, and is not our error to report; any other
    // is, at the end.
    match writeln!(w, "{line}").and_then(|()| w.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            drop(w);
            out.close();
        }
        Err(e) => {
            let _ = WRITE_ERROR.set(e.to_string());
        }
        Ok(()) => {}
    }
}

/// Writes `message` as one `info string` line: control characters shown as `?`, at most
/// [`MAX_INFO_CHARS`] characters.
fn info(out: &Out, message: &str) {
    let mut line = String::from("info string ");
    line.extend(
        message
            .chars()
            .take(MAX_INFO_CHARS)
            .map(|c| if c.is_control() { '?' } else { c }),
    );
    if message.chars().nth(MAX_INFO_CHARS).is_some() {
        line.push_str("...");
    }
    say(out, &line);
}

/// The user's `text` as quoted back in an `info string`: [`crate::formats::excerpt`], the
/// one quoting of bad input (at most [`QUOTE_CHARS`] characters, control characters as `?`,
/// the cut said).
pub fn quote(text: &str) -> String {
    crate::formats::excerpt(text)
}

/// Reads one line (up to `\n`, which is dropped) into `kept`, keeping at most `max` bytes of
/// it and consuming the rest. Returns the line's full length in bytes, or `None` at the end of
/// input.
fn read_line_capped(
    input: &mut impl BufRead,
    kept: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<usize>> {
    kept.clear();
    let mut length = 0usize;
    let mut read_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(read_any.then_some(length));
        }
        read_any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let part = &available[..newline.unwrap_or(available.len())];
        let room = max.saturating_sub(kept.len());
        kept.extend_from_slice(&part[..part.len().min(room)]);
        length = length.saturating_add(part.len());
        let used = newline.map_or(available.len(), |n| n + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(Some(length));
        }
    }
}

/// A parameter error with the user's text in it quoted (see [`quote`]).
fn quoted(e: ParamError) -> ParamError {
    match e {
        ParamError::Unknown(name) => ParamError::Unknown(quote(&name)),
        ParamError::UnknownRow { name, engine, rows } => ParamError::UnknownRow {
            name: quote(&name),
            engine,
            rows,
        },
        ParamError::BadValue { name, value, kind } => ParamError::BadValue {
            name,
            value: quote(&value),
            kind,
        },
        ParamError::NotAssignment(text) => ParamError::NotAssignment(quote(&text)),
        e @ ParamError::OutOfRange { .. } => e,
    }
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
    /// Input lines from the reader thread of [`UciEngine::run`] (none when lines are handed
    /// to [`UciEngine::handle`] directly).
    input: Option<Receiver<String>>,
    /// Lines read while a command waited for a search to end, handled after it in order.
    pending: VecDeque<String>,
    /// `quit` (or the end of input) arrived while a command waited for a search: the lines
    /// before it are still answered, each search stopped at once.
    quitting: bool,
}

/// Reads `input` line by line into `lines` until its end: a line longer than
/// [`MAX_LINE_BYTES`] is reported on `out` and skipped, one that is not UTF-8 is read lossily
/// (and said so). It runs on its own thread, so `quit` and `stop` are read while a search
/// runs and while a command waits for one.
fn read_lines(mut input: impl BufRead, lines: &Sender<String>, out: &Out) {
    let mut line = Vec::new();
    // A read error is the end of input, as end of file is.
    while let Ok(Some(length)) = read_line_capped(&mut input, &mut line, MAX_LINE_BYTES) {
        if length > MAX_LINE_BYTES {
            // Its start only: the rest was never kept.
            let start = String::from_utf8_lossy(&line[..line.len().min(4 * QUOTE_CHARS)]);
            let start: String = start.chars().take(QUOTE_CHARS).collect();
            info(
                out,
                &format!(
                    "line of {length} bytes skipped (more than {MAX_LINE_BYTES}): '{}...'",
                    quote(&start)
                ),
            );
            continue;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => text.to_string(),
            Err(_) => {
                let text = String::from_utf8_lossy(&line).into_owned();
                info(
                    out,
                    &format!("line is not valid UTF-8; read as '{}'", quote(&text)),
                );
                text
            }
        };
        if lines.send(text).is_err() {
            return;
        }
    }
    // The end of input: the wake-up sender goes too, so the command loop sees the channel end.
    out.wake.lock().unwrap_or_else(|e| e.into_inner()).take();
}

impl UciEngine {
    /// A new engine writing protocol lines to `output`.
    pub fn new(output: Box<dyn Write + Send>) -> UciEngine {
        let stop = Arc::new(AtomicBool::new(false));
        UciEngine {
            out: Arc::new(Output {
                writer: Mutex::new(output),
                closed: AtomicBool::new(false),
                stop: stop.clone(),
                wake: Mutex::new(None),
            }),
            searcher: Some(Searcher::new(DEFAULT_HASH_MB, Margins::default())),
            thread: None,
            stop,
            infinite: false,
            position: Chess::default(),
            history: Vec::new(),
            margins: Margins::default(),
            hash_mb: DEFAULT_HASH_MB,
            input: None,
            pending: VecDeque::new(),
            quitting: false,
        }
    }

    /// Reads commands until `quit` or end of input, on a reader thread (see `read_lines`):
    /// `quit`, `stop` and `isready` are acted on even while another command waits for a
    /// search to end.
    pub fn run(&mut self, input: impl BufRead + Send + 'static) {
        let (send, lines) = std::sync::mpsc::channel();
        *self.out.wake.lock().unwrap_or_else(|e| e.into_inner()) = Some(send.clone());
        let out = self.out.clone();
        // Left blocked on its read at `quit`; the process ends without it.
        std::thread::spawn(move || read_lines(input, &send, &out));
        self.input = Some(lines);
        // A closed output (`marginal uci | head -1`, a GUI gone while its pipe to us stays
        // open) ends the session too: nothing more can be said.
        while !self.out.is_closed() {
            let line = match self.pending.pop_front() {
                Some(line) => line,
                None => match self.input.as_ref().map(Receiver::recv) {
                    Some(Ok(line)) => line,
                    _ => break,
                },
            };
            if !self.handle(&line) {
                break;
            }
        }
        // End of input is the end of the session, as `quit` is: a search still running stops
        // and sends its best move at once (a GUI that closed the pipe waits for nothing, and
        // `go depth 99999` cannot outlive its input).
        self.finish_search(true);
    }

    /// Whether the session ended because its output was closed (the reader gone).
    pub fn output_closed(&self) -> bool {
        self.out.is_closed()
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
            "ucinewgame" | "setoption" | "position" | "go" => {
                // Each waits for a limited search to end (an infinite one is stopped); a
                // `quit` read meanwhile ends the session instead.
                self.finish_search(self.infinite);
                match command {
                    "ucinewgame" => {
                        if let Some(s) = self.searcher.as_mut() {
                            s.clear();
                        }
                    }
                    "setoption" => self.cmd_setoption(&rest),
                    "position" => self.cmd_position(&rest),
                    _ => self.cmd_go(&rest),
                }
            }
            "stop" => self.finish_search(true),
            "quit" => {
                self.finish_search(true);
                return false;
            }
            "d" => self.cmd_d(),
            "debug" | "register" => {}
            "ponderhit" => info(
                &self.out,
                "ponderhit: nothing to do (go ponder is not supported: that search was a normal one)",
            ),
            other => info(
                &self.out,
                &format!(
                    "unknown command '{}' (line '{}')",
                    quote(other),
                    quote(line)
                ),
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
            self.read_while_searching(&handle);
            match handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    // The thread died before its `bestmove`: the GUI still gets one (the
                    // position cannot have changed, every command that changes it waits here).
                    info(&self.out, "search thread failed; engine reset");
                    let fallback = self.position.legal_moves().first().map(|m| uci(*m));
                    say(
                        &self.out,
                        &format!("bestmove {}", fallback.as_deref().unwrap_or("0000")),
                    );
                    self.searcher = Some(Searcher::new(self.hash_mb, self.margins));
                }
            }
        }
    }

    /// While a command waits for the search on `handle` to end: reads on, acting on `stop` and
    /// `isready` at once and keeping the other lines for after it; `quit` (or the end of input)
    /// stops the search at once, and every search the lines before it start stops at once too,
    /// so the session ends promptly with every command answered.
    fn read_while_searching(&mut self, handle: &JoinHandle<Searcher>) {
        let Some(lines) = self.input.as_ref() else {
            return;
        };
        while !handle.is_finished() {
            match lines.recv_timeout(Duration::from_millis(5)) {
                Ok(line) => match line.trim() {
                    "stop" => self.stop.store(true, Ordering::Relaxed),
                    "quit" => {
                        self.stop.store(true, Ordering::Relaxed);
                        self.quitting = true;
                        self.pending.push_back(line);
                    }
                    "isready" => say(&self.out, "readyok"),
                    _ => self.pending.push_back(line),
                },
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.stop.store(true, Ordering::Relaxed);
                    self.quitting = true;
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
            info(&self.out, "setoption needs 'name <option>'");
            return;
        };
        let name_end = value_at.unwrap_or(words.len());
        let name = words[name_at + 1..name_end.max(name_at + 1)].join(" ");
        let value = value_at
            .map(|v| words[v + 1..].join(" "))
            .unwrap_or_default();
        if name.eq_ignore_ascii_case("Hash") {
            self.set_hash(&value);
            return;
        }
        let searcher = self.searcher.as_mut().expect("no search is running");
        if name.eq_ignore_ascii_case("Clear Hash") {
            if !value.is_empty() {
                info(
                    &self.out,
                    &format!(
                        "option Clear Hash is a button: value '{}' ignored",
                        quote(&value)
                    ),
                );
            }
            searcher.clear();
        } else {
            match self.margins.set(&name, &value) {
                Ok(()) => searcher.set_margins(self.margins),
                Err(e) => info(&self.out, &quoted(e).to_string()),
            }
        }
    }

    /// `setoption name Hash value <MB>`: a new table of that size, or an `info string` and the
    /// old table when the size is out of range or cannot be allocated.
    fn set_hash(&mut self, value: &str) {
        match value.trim().parse::<usize>() {
            Ok(mb) if mb <= MAX_HASH_MB => self.resize_hash(mb),
            _ => info(
                &self.out,
                &format!(
                    "option Hash: '{}' is not a size in 0..{MAX_HASH_MB} MB; keeping {} MB",
                    quote(value),
                    self.hash_mb
                ),
            ),
        }
    }

    /// A new table of `mb` megabytes, or the old one and an `info string` when the memory
    /// cannot be had.
    fn resize_hash(&mut self, mb: usize) {
        let searcher = self.searcher.as_mut().expect("no search is running");
        match searcher.try_resize_tt(mb) {
            Ok(()) => self.hash_mb = mb,
            Err(e) => info(
                &self.out,
                &format!("option Hash: {e}; keeping {} MB", self.hash_mb),
            ),
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
                    .map_err(|e| format!("bad FEN '{}': {e}", quote(&text)))
                    .and_then(|fen| {
                        fen.into_position(CastlingMode::Standard)
                            .map_err(|e| format!("bad FEN '{}': {e}", quote(&text)))
                    })
            }
            _ => Err(format!(
                "position needs 'startpos' or 'fen <fen>', got '{}'",
                quote(&words.join(" "))
            )),
        };
        let mut board = match start {
            Ok(p) => Board::new(p),
            Err(e) => {
                info(&self.out, &format!("{e}; position unchanged"));
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
                info(
                    &self.out,
                    &format!(
                        "illegal move '{}' (move {} of the list) in {}; position unchanged",
                        quote(text),
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

    /// Starts a search; it always ends with one `bestmove` (bad parameters are reported and
    /// ignored, see [`parse_go`]).
    fn cmd_go(&mut self, words: &[&str]) {
        let GoCommand { limits, problems } = parse_go(words, self.position.turn());
        for problem in &problems {
            info(&self.out, problem);
        }
        self.infinite = limits.infinite;
        let mut searcher = self.searcher.take().expect("searcher present when idle");
        self.stop
            .store(self.quitting || self.out.is_closed(), Ordering::Relaxed);
        searcher.set_stop_flag(Some(self.stop.clone()));
        let out = self.out.clone();
        let pos = self.position.clone();
        let history = self.history.clone();
        self.thread = Some(std::thread::spawn(move || {
            let mut reported = 0;
            let result = searcher.search_keys(&pos, &history, &limits, &mut |info| {
                reported = info.nodes;
                say(&out, &info_line(info));
            });
            // A search stopped inside an iteration searched more than the last line said: one
            // more line gives the whole count (what a node-limited caller compares).
            if result.nodes != reported && result.best_move.is_some() {
                say(
                    &out,
                    &info_line(&IterationInfo {
                        depth: result.depth,
                        seldepth: result.seldepth,
                        score: result.score,
                        nodes: result.nodes,
                        elapsed: result.elapsed,
                        pv: result.pv.clone(),
                    }),
                );
            }
            match result.best_move {
                Some(m) => say(&out, &format!("bestmove {}", uci(m))),
                None => {
                    // The game is over here: say why the move is the null move.
                    let how = if shakmaty::Position::is_check(&pos) {
                        "checkmate"
                    } else {
                        "stalemate"
                    };
                    if shakmaty::Position::legal_moves(&pos).is_empty() {
                        say(
                            &out,
                            &format!("info string no legal move: the side to move is in {how}"),
                        );
                    }
                    say(&out, "bestmove 0000");
                }
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

/// The words of `go` that take a value or stand alone; a value is never one of them.
const GO_WORDS: [&str; 12] = [
    "infinite",
    "ponder",
    "searchmoves",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
];

/// A `go` command as read: the limits of its good parameters, and one message for each bad one.
#[derive(Debug, Clone, PartialEq)]
pub struct GoCommand {
    /// What stops the search.
    pub limits: Limits,
    /// What was wrong, each an `info string` message (empty for a good command).
    pub problems: Vec<String>,
}

/// Parses the arguments of `go` into search limits for the side to move `turn`. A bad
/// parameter (unknown, missing or non-numeric value, `searchmoves`) is reported in
/// [`GoCommand::problems`] and ignored; when bad parameters leave nothing that limits the
/// search (depth, nodes, time, `infinite`), it is one ply deep so that the `bestmove` comes at
/// once. A value below its parameter's least (depth, nodes, movestogo and mate 1, times 0)
/// is said and raised to it.
pub fn parse_go(words: &[&str], turn: Color) -> GoCommand {
    let mut limits = Limits::default();
    let mut problems = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        i += 1;
        match w {
            "infinite" => limits.infinite = true,
            "ponder" => problems.push(
                "go ponder is not supported (no Ponder option): searching normally, bestmove when done"
                    .into(),
            ),
            "searchmoves" => {
                // Its moves run to the next keyword.
                i += words[i..]
                    .iter()
                    .take_while(|m| !GO_WORDS.contains(m))
                    .count();
                problems.push("go searchmoves is not supported; searching every move".into());
            }
            "depth" | "nodes" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo"
            | "mate" => {
                let Some(text) = words.get(i).filter(|t| !GO_WORDS.contains(t)) else {
                    problems.push(format!("go {w} needs a number"));
                    continue;
                };
                i += 1;
                let Some(number) = go_number(w, text, &mut problems) else {
                    continue;
                };
                set_go_limit(&mut limits, w, number, turn);
            }
            other => problems.push(format!("go: unknown parameter '{}'", quote(other))),
        }
    }
    let limited = limits.depth.is_some()
        || limits.nodes.is_some()
        || limits.movetime.is_some()
        || limits.time_left.is_some()
        || limits.infinite;
    if !problems.is_empty() && !limited {
        limits.depth = Some(1);
        problems.push("go: no usable limit left; searching one ply".into());
    }
    GoCommand { limits, problems }
}

/// The value `text` of the `go` parameter `w`: a number past what a search can count is the
/// most (or least) there is; one out of the parameter's range is said (and used as is, see
/// [`set_go_limit`]); None, said, when it is not a number.
fn go_number(w: &str, text: &str, problems: &mut Vec<String>) -> Option<i64> {
    let number = match text.parse::<i64>() {
        Ok(number) => number,
        // A number past what a search can count: the most (or least) there is.
        Err(e)
            if matches!(
                e.kind(),
                std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
            ) =>
        {
            let bound = if text.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            };
            if bound == i64::MAX && !matches!(w, "depth" | "mate" | "movestogo") {
                problems.push(format!("go {w} {}: too large; using {bound}", quote(text)));
            }
            bound
        }
        Err(_) => {
            problems.push(format!("go {w}: '{}' is not a number", quote(text)));
            return None;
        }
    };
    let least = match w {
        "depth" | "nodes" | "movestogo" | "mate" => 1,
        _ => 0,
    };
    if number < least {
        problems.push(format!("go {w} {number}: at least {least}; using {least}"));
    }
    // The search's own ceilings, said rather than applied in silence.
    let most = match w {
        "depth" => 100,
        "mate" => 50,
        "movestogo" => 1000,
        _ => i64::MAX,
    };
    if number > most {
        problems.push(format!(
            "go {w} {}: at most {most}; using {most}",
            quote(text)
        ));
    }
    Some(number)
}

/// Sets the limit of the `go` parameter `w` to `number`, within its range (a clock or
/// increment only when it is the side to move `turn`'s).
fn set_go_limit(limits: &mut Limits, w: &str, number: i64, turn: Color) {
    let n = number.max(0) as u64;
    let ours = |white: &str| (w == white) == (turn == Color::White);
    match w {
        "depth" => limits.depth = Some(n.clamp(1, 100) as u32),
        "nodes" => limits.nodes = Some(n.max(1)),
        "movetime" => limits.movetime = Some(Duration::from_millis(n)),
        "wtime" | "btime" if ours("wtime") => {
            limits.time_left = Some(Duration::from_millis(n));
        }
        "winc" | "binc" if ours("winc") => {
            limits.increment = Some(Duration::from_millis(n));
        }
        "movestogo" => limits.moves_to_go = Some(n.clamp(1, 1000) as u32),
        "mate" => limits.depth = Some((n * 2).clamp(1, 100) as u32),
        _ => {} // the other side's clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output that a test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone())
                .expect("the output is UTF-8")
                .lines()
                .map(String::from)
                .collect()
        }
    }

    /// Runs a session on `input` (read through a 7-byte buffer, so lines cross reads).
    fn session(input: &[u8]) -> Vec<String> {
        let out = Shared::default();
        let mut engine = UciEngine::new(Box::new(out.clone()));
        engine.run(io::BufReader::with_capacity(
            7,
            io::Cursor::new(input.to_vec()),
        ));
        out.lines()
    }

    #[test]
    fn quit_ends_the_session_whatever_waits_before_it() {
        // A deep search, then commands that wait for it, then quit: every command is answered
        // and each search is stopped at once, far short of its depth (a search that ran to
        // depth 30 would have said so).
        let lines =
            session(b"go depth 30\nposition startpos moves e2e4\ngo depth 1000\nisready\nquit\n");
        assert!(
            !lines.iter().any(|l| l.starts_with("info depth 25 ")),
            "{lines:?}"
        );
        let bestmoves = lines.iter().filter(|l| l.starts_with("bestmove ")).count();
        assert_eq!(bestmoves, 2, "{lines:?}");
        assert!(lines.iter().any(|l| l == "readyok"), "{lines:?}");
        assert!(
            lines.contains(&"info string go depth 1000: at most 100; using 100".to_string()),
            "{lines:?}"
        );
    }

    #[test]
    fn go_parsing() {
        let l = parse_go(
            &["wtime", "1000", "btime", "2000", "winc", "10"],
            Color::Black,
        );
        assert!(l.problems.is_empty());
        assert_eq!(l.limits.time_left, Some(Duration::from_millis(2000)));
        assert_eq!(l.limits.increment, None);
        let l = parse_go(&["depth", "7", "nodes", "5000"], Color::White);
        assert_eq!((l.limits.depth, l.limits.nodes), (Some(7), Some(5000)));
        assert!(parse_go(&["infinite"], Color::White).limits.infinite);
        // Plain `go` keeps the library's default depth.
        assert_eq!(parse_go(&[], Color::White).limits, Limits::default());
    }

    #[test]
    fn bad_go_parameters_are_reported_and_ignored() {
        // Nothing usable left: one ply.
        for words in [
            &["depth"][..],
            &["depth", "x"],
            &["fast"],
            &["nodes", "abc"],
            &["searchmoves", "e2e4", "d2d4"],
        ] {
            let go = parse_go(words, Color::White);
            assert!(!go.problems.is_empty(), "{words:?}");
            assert_eq!(go.limits, Limits::depth(1), "{words:?}");
        }
        // The good parameters still apply; a keyword is never taken as a value.
        let go = parse_go(
            &["nodes", "depth", "5", "x", "movetime", "-3"],
            Color::White,
        );
        assert_eq!(go.limits.depth, Some(5));
        assert_eq!(go.limits.nodes, None);
        assert_eq!(go.limits.movetime, Some(Duration::ZERO));
        assert_eq!(
            go.problems,
            [
                "go nodes needs a number",
                "go: unknown parameter 'x'",
                "go movetime -3: at least 0; using 0"
            ]
        );
        let go = parse_go(&["searchmoves", "e2e4", "nodes", "300"], Color::White);
        assert_eq!(go.limits, Limits::nodes(300));
        assert_eq!(go.problems.len(), 1);
        // A number too large to hold is the most there is, said.
        let go = parse_go(&["nodes", "99999999999999999999999"], Color::White);
        assert_eq!(go.limits, Limits::nodes(i64::MAX as u64));
        assert_eq!(
            go.problems,
            [format!(
                "go nodes 99999999999999999999999: too large; using {}",
                i64::MAX
            )]
        );
        let go = parse_go(&["depth", "99999999999999999999999"], Color::White);
        assert_eq!(go.limits, Limits::depth(100));
        assert_eq!(
            go.problems,
            ["go depth 99999999999999999999999: at most 100; using 100"]
        );
        // go ponder: said, and the rest of the command searched as given.
        let go = parse_go(&["ponder", "nodes", "300"], Color::White);
        assert_eq!(go.limits, Limits::nodes(300));
        assert_eq!(
            go.problems,
            [
                "go ponder is not supported (no Ponder option): searching normally, bestmove when done"
            ]
        );
        // Values below a parameter's least are said and raised to it.
        for (words, limits, problem) in [
            (
                &["depth", "0"][..],
                Limits::depth(1),
                "go depth 0: at least 1; using 1",
            ),
            (
                &["depth", "-1"],
                Limits::depth(1),
                "go depth -1: at least 1; using 1",
            ),
            (
                &["nodes", "-5"],
                Limits::nodes(1),
                "go nodes -5: at least 1; using 1",
            ),
        ] {
            let go = parse_go(words, Color::White);
            assert_eq!(go.limits, limits, "{words:?}");
            assert_eq!(go.problems, [problem], "{words:?}");
        }
        // Overlong values are quoted short.
        let long = "9".repeat(5000);
        let go = parse_go(&["depth", &long], Color::White);
        assert!(go.problems[0].len() < 200, "{:?}", go.problems);
    }

    #[test]
    fn quoting_keeps_text_short_and_printable() {
        assert_eq!(quote("e2e4"), "e2e4");
        assert_eq!(quote("a\0b\x1b[2Jc\r"), "a?b?[2Jc?");
        let long = "x".repeat(QUOTE_CHARS + 1);
        assert_eq!(
            quote(&long),
            format!("{}... (1 more characters)", &long[..QUOTE_CHARS])
        );
    }

    #[test]
    fn lines_are_read_with_a_cap() {
        let input = b"short\r\nexactly8\nnine more\n\nno newline at the end";
        let mut reader = io::BufReader::with_capacity(3, &input[..]);
        let mut kept = Vec::new();
        let mut lines = Vec::new();
        while let Some(length) = read_line_capped(&mut reader, &mut kept, 8).unwrap() {
            lines.push((length, String::from_utf8(kept.clone()).unwrap()));
        }
        let want = [
            (6, "short\r"),
            (8, "exactly8"),
            (9, "nine mor"),
            (0, ""),
            (21, "no newli"),
        ];
        let want: Vec<(usize, String)> = want.iter().map(|(n, s)| (*n, s.to_string())).collect();
        assert_eq!(lines, want);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_read_lossily() {
        let lines = session(b"setoption name UCI_Opponent value GM 2800 human J\xf6rg\nisready\n");
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(
            lines[0],
            "info string line is not valid UTF-8; read as \
             'setoption name UCI_Opponent value GM 2800 human J\u{fffd}rg'"
        );
        assert!(lines[1].starts_with("info string unknown parameter 'UCI_Opponent'"));
        assert_eq!(lines[2], "readyok");
    }

    #[test]
    fn a_finished_game_says_why_its_move_is_null() {
        for (fen, how) in [
            ("k7/8/KQ6/8/8/8/8/8 b - - 0 1", "stalemate"),
            ("kQ6/2K5/8/8/8/8/8/8 b - - 0 1", "checkmate"),
        ] {
            let lines = session(format!("position fen {fen}\ngo depth 2\nquit\n").as_bytes());
            let at = (lines.iter().position(|l| l == "bestmove 0000"))
                .unwrap_or_else(|| panic!("{lines:?}"));
            assert_eq!(
                lines[at - 1],
                format!("info string no legal move: the side to move is in {how}")
            );
        }
    }

    #[test]
    fn an_overlong_line_is_skipped_and_quoted_short() {
        let mut input = vec![b'\xff'; MAX_LINE_BYTES + 1];
        input.extend_from_slice(b"\ngo depth 1\n");
        let lines = session(&input);
        assert_eq!(
            lines[0],
            format!(
                "info string line of {} bytes skipped (more than {MAX_LINE_BYTES}): '{}...'",
                MAX_LINE_BYTES + 1,
                "\u{fffd}".repeat(QUOTE_CHARS)
            )
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove")).count(),
            1
        );
    }

    #[test]
    fn a_table_that_cannot_be_allocated_keeps_the_old_one() {
        let out = Shared::default();
        let mut engine = UciEngine::new(Box::new(out.clone()));
        engine.handle("setoption name Hash value 2");
        // Beyond MAX_HASH_MB only a test can ask for it: 2^60 bytes fail in the allocator.
        engine.resize_hash(1 << 40);
        engine.handle("setoption name Hash value 100000000");
        assert_eq!(engine.hash_mb, 2);
        assert_eq!(engine.searcher.as_ref().unwrap().tt_mb(), 2);
        assert_eq!(
            out.lines(),
            [
                "info string option Hash: cannot allocate a transposition table of 1099511627776 MB; keeping 2 MB",
                "info string option Hash: '100000000' is not a size in 0..16384 MB; keeping 2 MB",
            ]
        );
    }
}
