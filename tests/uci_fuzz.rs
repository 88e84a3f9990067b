//! `marginal uci` fed thousands of lines from a fixed-seed generator: random bytes (invalid
//! UTF-8, NULs, lines far longer than the engine reads) and commands of the UCI vocabulary with
//! mangled arguments. The engine must keep running, answer every `go` with one well-formed
//! `bestmove` and every `isready` with `readyok`, quote bad input short, and exit 0 on `quit`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use marginal::params::{PARAMS, ParamKind};
use marginal::uci::MAX_LINE_BYTES;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// Lines generated (before the final `isready` and `quit`).
const LINES: usize = 4000;

/// The whole session must end within this; a hang fails the test instead of hanging it.
const DEADLINE: Duration = Duration::from_secs(60);

const FENS: [&str; 9] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/P6k/8/8/8/8/6Kp/8 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    // Mated and stalemated: bestmove 0000.
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 99 80",
];

const GARBAGE: [&str; 14] = [
    "abc",
    "-",
    "1e3",
    "99999999999999999999",
    "0x10",
    "NaN",
    "½",
    "∞",
    "e2e4",
    "--5",
    "+",
    "name",
    "value",
    "\t",
];

/// The fixed-seed line generator.
struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.choose(&mut self.rng).unwrap()
    }

    fn garbage(&mut self) -> String {
        self.pick(&GARBAGE).to_string()
    }

    /// Random bytes, never a newline: mostly short, now and then past the line limit.
    fn bytes(&mut self) -> Vec<u8> {
        let length = match self.rng.random_range(0..100) {
            0 => MAX_LINE_BYTES + self.rng.random_range(1..300_000),
            1 => MAX_LINE_BYTES - self.rng.random_range(0..10),
            _ => self.rng.random_range(0..120),
        };
        let mut bytes: Vec<u8> = (0..length).map(|_| self.rng.random::<u8>()).collect();
        for b in &mut bytes {
            if *b == b'\n' {
                *b = 0;
            }
        }
        // Half of them after a real command word, so they reach the argument parsers.
        if self.rng.random_bool(0.5) {
            let word = self.pick(&[
                "go ",
                "position fen ",
                "position startpos moves ",
                "setoption name ",
            ]);
            let mut line = word.as_bytes().to_vec();
            line.extend(bytes);
            return line;
        }
        bytes
    }

    /// A random legal game of up to `plies` plies from `pos`, in UCI.
    fn playout(&mut self, mut pos: Chess, plies: usize) -> Vec<String> {
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            let Some(m) = legal.choose(&mut self.rng) else {
                break;
            };
            moves.push(UciMove::from_move(*m, CastlingMode::Standard).to_string());
            pos.play_unchecked(*m);
        }
        moves
    }

    /// A move token that is most likely illegal or malformed.
    fn bad_move(&mut self) -> String {
        let files = "abcdefghijz";
        let ranks = "123456789";
        let square = |rng: &mut ChaCha8Rng| {
            format!(
                "{}{}",
                files.as_bytes()[rng.random_range(0..files.len())] as char,
                ranks.as_bytes()[rng.random_range(0..ranks.len())] as char
            )
        };
        match self.rng.random_range(0..4) {
            0 => format!("{}{}", square(&mut self.rng), square(&mut self.rng)),
            1 => format!("{}{}q", square(&mut self.rng), square(&mut self.rng)),
            2 => self
                .pick(&["0000", "O-O", "e1g1", "e4", "Nf3", "moves", "e7e8k"])
                .into(),
            _ => self.garbage(),
        }
    }

    fn mangle_fen(&mut self, fen: &str) -> String {
        let mut chars: Vec<char> = fen.chars().collect();
        let alphabet: Vec<char> = "pnbrqkPNBRQK12345678/ wb-KQkq09x".chars().collect();
        for _ in 0..self.rng.random_range(1..4) {
            let at = self.rng.random_range(0..=chars.len());
            let c = *alphabet.choose(&mut self.rng).unwrap();
            match self.rng.random_range(0..3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 if at < chars.len() => chars[at] = c,
                _ => chars.insert(at, c),
            }
        }
        let mangled: String = chars.into_iter().collect();
        let fields: Vec<&str> = mangled.split(' ').collect();
        match self.rng.random_range(0..6) {
            0 => fields[..self.rng.random_range(0..=fields.len())].join(" "),
            1 => format!("{mangled} 99999999999 -4"),
            _ => mangled,
        }
    }

    fn position(&mut self) -> String {
        let mut line = match self.rng.random_range(0..10) {
            0 => {
                return self
                    .pick(&[
                        "position",
                        "position moves e2e4",
                        "position fen",
                        "position startpos fen",
                        "position startpos moves",
                        "position startpos startpos",
                    ])
                    .into();
            }
            1..=3 => "position startpos".to_string(),
            4..=6 => format!("position fen {}", self.pick(&FENS)),
            _ => {
                let fen = self.pick(&FENS);
                return format!("position fen {}", self.mangle_fen(fen));
            }
        };
        let from_startpos = line == "position startpos";
        let start = match line.strip_prefix("position fen ") {
            Some(fen) => fen
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap(),
            None => Chess::default(),
        };
        if self.rng.random_bool(0.7) {
            let mut moves = if self.rng.random_range(0..100) == 0 {
                // A long legal game: knights out and back, thousands of plies.
                let cycles = self.rng.random_range(500..3000);
                if from_startpos {
                    "g1f3 g8f6 f3g1 f6g8 "
                        .repeat(cycles)
                        .split_whitespace()
                        .map(String::from)
                        .collect()
                } else {
                    Vec::new()
                }
            } else {
                let plies = self.rng.random_range(0..40);
                self.playout(start, plies)
            };
            if self.rng.random_bool(0.3) {
                let at = self.rng.random_range(0..=moves.len());
                let bad = self.bad_move();
                moves.insert(at, bad);
            }
            line.push_str(" moves ");
            line.push_str(&moves.join(" "));
        }
        line
    }

    /// A `go` with one to four parameters, most valid and small, some mangled.
    fn go(&mut self) -> String {
        let mut words = vec!["go".to_string()];
        let count = if self.rng.random_range(0..30) == 0 {
            0
        } else {
            self.rng.random_range(1..=4)
        };
        for _ in 0..count {
            let (name, low, high) = *[
                ("depth", 1, 4),
                ("nodes", 1, 3000),
                ("movetime", 0, 20),
                ("wtime", -100, 300),
                ("btime", -100, 300),
                ("winc", 0, 20),
                ("binc", 0, 20),
                ("movestogo", 1, 40),
                ("mate", 1, 2),
            ]
            .choose(&mut self.rng)
            .unwrap();
            match self.rng.random_range(0..20) {
                0 => words.push("infinite".into()),
                1 => words.push("ponder".into()),
                2 => {
                    words.push("searchmoves".into());
                    let moves = self.playout(Chess::default(), 1);
                    words.extend(moves);
                    words.push(self.bad_move());
                }
                3 => words.push(self.garbage()),
                4..=6 => {
                    words.push(name.into());
                    // A bad value, or none at all.
                    if self.rng.random_bool(0.8) {
                        words.push(self.garbage());
                    }
                }
                _ => {
                    words.push(name.into());
                    words.push(self.rng.random_range(low..=high).to_string());
                }
            }
        }
        words.join(" ")
    }

    fn setoption(&mut self) -> String {
        let spec = PARAMS.choose(&mut self.rng).unwrap();
        let name = match self.rng.random_range(0..8) {
            0 => "Hash".to_string(),
            1 => "Clear Hash".to_string(),
            2 => self.garbage(),
            3 => String::new(),
            4 => spec.uci_name.to_ascii_lowercase(),
            _ => spec.uci_name.to_string(),
        };
        let value = match self.rng.random_range(0..8) {
            // Hash: a small valid size or an absurd one; never megabytes by the thousand.
            _ if name == "Hash" => self
                .pick(&[
                    "0",
                    "1",
                    "4",
                    "100000000",
                    "16385",
                    "-1",
                    "lots",
                    "16MB",
                    "",
                ])
                .to_string(),
            0..=2 => match spec.kind {
                ParamKind::Spin => self.rng.random_range(spec.min..=spec.max).to_string(),
                ParamKind::Check => self.pick(&["true", "false", "on", "off"]).to_string(),
            },
            3 => (i64::from(spec.max) + self.rng.random_range(1..100_000)).to_string(),
            4 => self
                .pick(&["true", "false", "maybe", "1", "0", ""])
                .to_string(),
            _ => self.garbage(),
        };
        match self.rng.random_range(0..10) {
            0 => "setoption".to_string(),
            1 => format!("setoption name {name}"),
            2 => format!("setoption value {value} name {name}"),
            3 => format!("setoption {name} {value}"),
            _ => format!("setoption name {name} value {value}"),
        }
    }

    fn line(&mut self) -> Vec<u8> {
        let text = match self.rng.random_range(0..100) {
            0..=14 => return self.bytes(),
            15..=36 => self.go(),
            37..=56 => self.position(),
            57..=71 => self.setoption(),
            72..=77 => "stop".to_string(),
            78..=83 => "isready".to_string(),
            84..=87 => "ucinewgame".to_string(),
            88..=90 => "d".to_string(),
            91 => "uci".to_string(),
            92..=93 => self
                .pick(&[
                    "debug on",
                    "register later",
                    "ponderhit",
                    "quit_not",
                    "goo depth 1",
                ])
                .to_string(),
            94..=95 => self
                .pick(&["", " ", "\t\t", "\r", "  go  depth 1  "])
                .to_string(),
            _ => self.garbage(),
        };
        text.into_bytes()
    }
}

/// The command word of a line as the engine reads it (lossily decoded), if it reads the line.
fn command(line: &[u8]) -> Option<String> {
    if line.len() > MAX_LINE_BYTES {
        return None;
    }
    String::from_utf8_lossy(line)
        .split_whitespace()
        .next()
        .map(String::from)
}

fn words_of(line: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(line)
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// `0000` or a move in UCI syntax.
fn looks_like_a_move(m: &str) -> bool {
    let b = m.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    m == "0000"
        || ((b.len() == 4 || (b.len() == 5 && b"qrbn".contains(&b[4])))
            && square(b[0], b[1])
            && square(b[2], b[3]))
}

#[test]
fn random_and_mangled_input_never_stops_the_engine() {
    let mut generator = Gen {
        rng: ChaCha8Rng::seed_from_u64(0x00c0_ffee_u64),
    };
    let mut input: Vec<u8> = Vec::new();
    let (mut gos, mut readies, mut ucis) = (0, 1, 0);
    for _ in 0..LINES {
        let line = generator.line();
        let command = command(&line);
        if command.as_deref() == Some("quit") {
            continue;
        }
        input.extend_from_slice(&line);
        input.push(b'\n');
        match command.as_deref() {
            Some("go") => gos += 1,
            Some("isready") => readies += 1,
            Some("uci") => ucis += 1,
            _ => {}
        }
        // An infinite search ends at the next `stop`.
        if command.is_some() && words_of(&line).iter().any(|w| w == "infinite") {
            input.extend_from_slice(b"stop\n");
        }
    }
    input.extend_from_slice(b"isready\nquit\n");

    let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start marginal uci");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    // The writer may block if the engine hangs; the engine is killed then, which ends it.
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("output is not UTF-8 lines: {e}"));
            let failed = line.is_err();
            if tx.send(line).is_err() || failed {
                break;
            }
        }
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    let started = Instant::now();
    let mut lines: Vec<String> = Vec::new();
    let hang = |lines: &[String], what: &str| -> String {
        let tail = &lines[lines.len().saturating_sub(20)..];
        format!(
            "{what} within {DEADLINE:?}; {} lines read, the last: {tail:#?}",
            lines.len()
        )
    };
    loop {
        let left = DEADLINE.saturating_sub(started.elapsed());
        match rx.recv_timeout(left) {
            Ok(Ok(line)) => lines.push(line),
            Ok(Err(e)) => {
                let _ = child.kill();
                panic!("{e}");
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("{}", hang(&lines, "output not closed"));
            }
        }
    }
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("{}", hang(&lines, "no exit"));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let errors = errors.join().unwrap();
    assert!(
        status.success(),
        "exit {status}; stderr: {errors}; last lines: {:#?}",
        &lines[lines.len().saturating_sub(20)..]
    );

    let bestmoves: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove"))
        .collect();
    assert_eq!(bestmoves.len(), gos, "one bestmove per go");
    for m in &bestmoves {
        let m = m.split_whitespace().next().unwrap_or("");
        assert!(looks_like_a_move(m), "bestmove '{m}'");
    }
    let count = |word: &str| lines.iter().filter(|l| *l == word).count();
    assert_eq!(count("readyok"), readies, "one readyok per isready");
    assert_eq!(count("uciok"), ucis, "one uciok per uci");
    // Bad input is quoted short and printable.
    for l in &lines {
        assert!(
            !l.chars().any(char::is_control),
            "control character in {l:?}"
        );
        if l.starts_with("info string") && !l.starts_with("info string margins") {
            assert!(l.chars().count() <= 400, "long info string: {l}");
        }
    }
    assert!(errors.is_empty(), "stderr: {errors}");
}
