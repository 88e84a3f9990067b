//! An external UCI engine as a child process: start, handshake, options, searches, and the
//! faults an engine can commit (crash, hang, illegal move, garbage), each turned into a
//! [`Fault`] with its reason instead of a hang or a panic.
//!
//! Every child is registered until it is reaped, so [`kill_all`] (called by `marginal match` on
//! Ctrl-C, and by `marginal` at its end, error or not) leaves no engine process behind; dropping
//! a [`UciProcess`] (as a fault does) kills and reaps it. On Linux the kernel kills the children
//! of a marginal that dies without cleaning up (Ctrl-C of a command that keeps the default
//! action, SIGKILL), see `die_with_parent`.
//!
//! Engines that ignore `go nodes` (Toga II 3.0 searches on) are sent `stop` as soon as they
//! report more nodes than the budget; the last PV reported within the budget is taken and the
//! result is flagged ([`Found::overshot`]).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use super::Limits;
use super::score::MATE;
use crate::formats::excerpt;

/// How to start an external engine and what to set on it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UciProgram {
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub dir: Option<PathBuf>,
    /// Options set right after the handshake, in order (`setoption name N value V`).
    pub options: Vec<(String, String)>,
    /// Grace before a silent engine counts as hung.
    pub grace: Duration,
    /// A new process for every position and game.
    pub fresh: bool,
    /// Counts the engine's faults in a row and gives up on it after too many (shared by every
    /// process of this program in this run; a cluster task has its own, at the default limit).
    #[serde(skip)]
    pub breaker: Arc<Breaker>,
}

/// Faults in a row after which an engine is given up on, unless told (`--max-faults`).
pub const DEFAULT_MAX_FAULTS: usize = 10;

/// Gives up on an engine after `limit` faults in a row (0: never), across all its processes
/// of one run: a hung engine then costs `limit` timeouts, not one a position or game. Once it
/// has given up, every search of the engine fails at once with [`Fault::GaveUp`], and
/// [`Breaker::gave_up`] says why, for the run to stop and say so.
#[derive(Debug)]
pub struct Breaker {
    limit: AtomicUsize,
    in_a_row: AtomicUsize,
    gave_up: OnceLock<(usize, String)>,
}

impl Default for Breaker {
    fn default() -> Breaker {
        Breaker {
            limit: AtomicUsize::new(DEFAULT_MAX_FAULTS),
            in_a_row: AtomicUsize::new(0),
            gave_up: OnceLock::new(),
        }
    }
}

/// A breaker is run state, not part of an engine's description: any two compare equal.
impl PartialEq for Breaker {
    fn eq(&self, _: &Breaker) -> bool {
        true
    }
}

impl Breaker {
    /// Gives up after `limit` faults in a row (0: never).
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    /// The faults in a row it gives up after (0: never).
    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// Why it gave up (the number of faults in a row and the last one), if it did.
    pub fn gave_up(&self) -> Option<String> {
        self.gave_up.get().map(|(n, last)| {
            format!(
                "gave up after {n} faults in a row (the last: {last}); --max-faults N allows more (0: never give up)"
            )
        })
    }

    /// Fails at once when it has given up.
    ///
    /// # Errors
    /// [`Fault::GaveUp`] when it has given up.
    pub fn check(&self) -> Result<(), Fault> {
        match self.gave_up.get() {
            Some((n, last)) => Err(Fault::GaveUp(*n, last.clone())),
            None => Ok(()),
        }
    }

    /// Counts a search's outcome: a fault adds one to the faults in a row, a success ends them.
    fn record<T>(&self, result: &Result<T, Fault>) {
        match result {
            Ok(_) => self.in_a_row.store(0, Ordering::Relaxed),
            Err(Fault::GaveUp(..)) => {}
            Err(fault) => {
                let n = self.in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
                let limit = self.limit();
                if limit > 0 && n >= limit {
                    let _ = self.gave_up.set((n, fault.to_string()));
                }
            }
        }
    }

    /// Runs `f` unless it has given up, and counts its outcome.
    ///
    /// # Errors
    /// [`Fault::GaveUp`] when it has given up; else `f`'s fault.
    pub fn guard<T>(&self, f: impl FnOnce() -> Result<T, Fault>) -> Result<T, Fault> {
        self.check()?;
        let result = f();
        self.record(&result);
        result
    }
}

/// What went wrong with an engine: the position is scored unsolved, the game lost by it, and
/// the process is killed and started afresh for the next one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Fault {
    /// The program could not be started.
    #[error("engine could not be started: {0}")]
    Start(String),
    /// The process ended (or closed its output): how, and the last lines it wrote on its
    /// standard error (empty when none), so the message says why.
    #[error("engine crashed ({status}){tail}", status = .0, tail = stderr_tail(.1))]
    Crashed(String, Vec<String>),
    /// The process ended by itself with exit status 0 before the answer awaited: not a crash
    /// but a program that did something else and quit (not a UCI engine, or one run with the
    /// wrong arguments, such as `stockfish bench`).
    #[error("{}", ended_message(.awaited, .said, .stderr))]
    Ended {
        /// The answer awaited (`uciok`, `readyok`, `bestmove`).
        awaited: &'static str,
        /// The last lines it wrote on its standard output that are not UCI.
        said: Vec<String>,
        /// The last lines it wrote on its standard error.
        stderr: Vec<String>,
    },
    /// No answer within the time allowed.
    #[error(
        "engine hung: no {what} within {secs:.1} s (a slow engine gets more time from timeout_ms in its engine file)"
    )]
    Hung {
        /// What it did not send.
        what: &'static str,
        /// How long it was given, seconds.
        secs: f64,
    },
    /// The handshake failed: no `uciok` in the time allowed, though the program wrote lines
    /// that are not UCI (the last few kept): most likely not a UCI engine, or one that needs
    /// arguments.
    #[error(
        "engine sent no uciok within {secs:.1} s, only lines that are not UCI: {}; {NOT_UCI_HINT}",
        quoted(.said)
    )]
    NotUci {
        /// The last lines it wrote.
        said: Vec<String>,
        /// How long it was given, seconds.
        secs: f64,
    },
    /// A move that is not legal in the position.
    #[error("engine played an illegal move '{0}'")]
    Illegal(String),
    /// A line that should have been UCI and was not.
    #[error("engine sent garbage: '{0}'")]
    Garbage(String),
    /// Not searched: the engine had faulted on this many searches in a row (the last fault
    /// given), and the run gave up on it ([`Breaker`]).
    #[error("not searched: the engine faulted on {0} searches in a row, the last: {1}")]
    GaveUp(usize, String),
}

/// Why `program` did not start, with what would fix it: a working directory that is missing, a
/// bare name that is not on PATH, a file that is not executable, an engine file given as the
/// command.
fn start_error(program: &UciProgram, e: &std::io::Error) -> String {
    let command = program.command.display();
    if let Some(dir) = &program.dir
        && !dir.is_dir()
    {
        return format!(
            "{command}: its working directory {} (dir) does not exist",
            dir.display()
        );
    }
    if e.kind() == std::io::ErrorKind::NotFound
        && let Some(said) = missing_interpreter(program)
    {
        return format!("{command}: {said}");
    }
    let bare = program.command.components().count() == 1;
    let spaced = program.command.to_string_lossy().contains(' ');
    let hint = match e.kind() {
        std::io::ErrorKind::NotFound if spaced => " (the command holds a space: if that is a program and its arguments, write the program in command and the arguments in args = [...])".to_string(),
        std::io::ErrorKind::NotFound if bare => format!(
            " (a bare name is looked up on PATH; for a file beside the engine file write ./{command} or its full path)"
        ),
        std::io::ErrorKind::NotFound => {
            " (no such file: install the engine, or write the path of its executable in command)"
                .to_string()
        }
        std::io::ErrorKind::PermissionDenied
            if program.command.extension().is_some_and(|x| x == "toml") =>
        {
            " (it is an engine file, not a program: give it with --engine)".to_string()
        }
        std::io::ErrorKind::PermissionDenied if program.command.is_dir() => {
            " (it is a directory, not a program: name the engine's executable file)".to_string()
        }
        std::io::ErrorKind::PermissionDenied => {
            format!(" (make it executable: chmod +x {command})")
        }
        _ => String::new(),
    };
    // A limit of the system (too few file descriptors, `ulimit -n`) is named as one.
    match e.raw_os_error() {
        Some(code) => {
            let said = crate::formats::limit_said(std::io::Error::from_raw_os_error(code));
            format!("{command}: {said}{hint}")
        }
        None => format!("{command}: {e}{hint}"),
    }
}

/// When `program`'s command is a script that exists but whose `#!` interpreter does not (the
/// start then fails as if the script were missing): what to say of it, naming the interpreter.
fn missing_interpreter(program: &UciProgram) -> Option<String> {
    let command = &program.command;
    let file = if command.components().count() == 1 {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|dir| dir.join(command))
            .find(|p| p.is_file())?
    } else {
        match &program.dir {
            Some(dir) if command.is_relative() => dir.join(command),
            _ => command.clone(),
        }
    };
    let mut first = Vec::new();
    std::fs::File::open(&file)
        .ok()?
        .take(256)
        .read_to_end(&mut first)
        .ok()?;
    let line = first.strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|&b| b == b'\n').next()?);
    let interpreter = line
        .trim_start_matches([' ', '\t'])
        .split([' ', '\t'])
        .next()?;
    if interpreter.is_empty() || Path::new(interpreter).exists() {
        return None;
    }
    let clean = interpreter.trim_end_matches('\r');
    Some(
        if clean.len() < interpreter.len() && Path::new(clean).exists() {
            format!(
                "the script exists, but its #! line ends in a carriage return (DOS line ends), so its interpreter {clean} is not found: convert it to Unix line ends"
            )
        } else {
            format!(
                "the script exists, but its interpreter {clean} (its #! line) does not: install it or correct the script's first line"
            )
        },
    )
}

/// What an engine that is not speaking UCI is asked about, by every message that finds it so.
pub const NOT_UCI_HINT: &str = "is it a UCI engine (does it need an argument such as `uci` or `--uci`, in args = [...] of its engine file)?";

/// [`Fault::Ended`]'s message: the exit status 0, before which answer, what it wrote, and the
/// question to ask of it (before `uciok`: whether it is a UCI engine at all).
fn ended_message(awaited: &str, said: &[String], stderr: &[String]) -> String {
    let before = match awaited {
        "uciok" => "answering `uci` with `uciok`".to_string(),
        other => format!("sending `{other}`"),
    };
    // Its last line is enough to tell what it ran (a benchmark's, a usage line).
    let wrote = said.last().map_or(String::new(), |last| {
        format!(", its output ended: {}", quoted(std::slice::from_ref(last)))
    });
    let hint = if awaited == "uciok" {
        NOT_UCI_HINT
    } else {
        "a UCI engine runs until it is sent `quit`: do its arguments (args) make it do something else?"
    };
    format!(
        "engine ended (exit status 0) before {before}{wrote}{}; {hint}",
        stderr_tail(stderr)
    )
}

/// `, its stderr ended: 'a' | 'b'` for the last lines an engine wrote there, or nothing.
fn stderr_tail(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    format!(", its stderr ended: {}", quoted(lines))
}

/// Lines quoted and joined: `'a' | 'b'`.
fn quoted(lines: &[String]) -> String {
    let quoted: Vec<String> = lines.iter().map(|l| format!("'{l}'")).collect();
    quoted.join(" | ")
}

/// Lines of an engine's standard error kept for a crash's message.
const STDERR_LINES: usize = 3;

/// One `option` an engine declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredOption {
    /// Its name.
    pub name: String,
    /// Its type (`spin`, `check`, `combo`, `string`, `button`).
    pub kind: String,
    /// Its default, as written.
    pub default: Option<String>,
    /// Smallest value (spins).
    pub min: Option<i64>,
    /// Largest value (spins).
    pub max: Option<i64>,
    /// The choices a combo declares (`var`), in order.
    pub vars: Vec<String>,
}

/// Parses an `option name ... type ...` line.
pub fn parse_option(line: &str) -> Option<DeclaredOption> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"option") || words.get(1) != Some(&"name") {
        return None;
    }
    let keys = ["type", "default", "min", "max", "var"];
    let mut fields: HashMap<&str, String> = HashMap::new();
    let mut vars = Vec::new();
    let mut key = "name";
    let mut value: Vec<&str> = Vec::new();
    let mut field_ends = |key: &str, value: &[&str]| {
        if key == "var" {
            vars.push(value.join(" "));
        }
    };
    for w in &words[2..] {
        if keys.contains(w) && (key != "name" || *w == "type") {
            field_ends(key, &value);
            fields.entry(key).or_insert_with(|| value.join(" "));
            key = w;
            value.clear();
        } else {
            value.push(w);
        }
    }
    field_ends(key, &value);
    fields.entry(key).or_insert_with(|| value.join(" "));
    Some(DeclaredOption {
        name: fields.get("name")?.clone(),
        kind: fields.get("type").cloned().unwrap_or_default(),
        default: fields.get("default").cloned(),
        min: fields.get("min").and_then(|m| m.parse().ok()),
        max: fields.get("max").and_then(|m| m.parse().ok()),
        vars,
    })
}

/// What a search by an external engine found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The move (None only without legal moves).
    pub best_move: Option<Move>,
    /// The last score reported with it, side to move's view (mate scores in marginal's scale).
    pub score: Option<i32>,
    /// Depth of the last iteration reported.
    pub depth: u32,
    /// Nodes: the engine's last count (within the budget when it overshot).
    pub nodes: u64,
    /// The count at which the final move became and stayed the PV's first move.
    pub found_at: u64,
    /// The engine went past `go nodes`: the last PV within the budget was taken (or, where it
    /// named no move and gave none, the move of its shortest search, `go depth 1`).
    pub overshot: bool,
}

/// A mate score in marginal's scale from a UCI `mate N` (the inverse of `mate_in`).
pub fn mate_score(n: i32) -> i32 {
    if n > 0 {
        MATE - (2 * n - 1)
    } else {
        -(MATE + 2 * n)
    }
}

/// One `info` line's fields that matter here.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Info {
    depth: Option<u32>,
    score: Option<i32>,
    nodes: Option<u64>,
    pv_first: Option<String>,
    multipv: Option<u32>,
}

fn parse_info(line: &str) -> Info {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut info = Info::default();
    let mut i = 1;
    while i < words.len() {
        let next = words.get(i + 1).copied();
        match words[i] {
            "string" => break,
            "depth" => info.depth = next.and_then(|v| v.parse().ok()),
            "multipv" => info.multipv = next.and_then(|v| v.parse().ok()),
            "nodes" => info.nodes = next.and_then(|v| v.parse().ok()),
            "score" => {
                let value = words.get(i + 2).and_then(|v| v.parse::<i32>().ok());
                info.score = match next {
                    Some("cp") => value,
                    Some("mate") => value.map(mate_score),
                    _ => None,
                };
                i += 1;
            }
            "pv" => {
                info.pv_first = next.map(str::to_string);
                break;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

/// Has the kernel kill the child when the thread that started it ends, whatever ends it
/// (SIGKILL included), so no engine outlives marginal even when marginal cannot clean up.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure calls only signal, prctl and getppid, which are
    // async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            // marginal ignores SIGXFSZ (a file-size limit is an error it reports); the engine
            // gets the default back, as it would have from a shell.
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have ended before prctl: then nobody would send the signal.
            if libc::getppid() == 1 {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Starts the engine in a process group of its own (its id the engine's), so that
/// [`kill_tree`] ends the processes it starts too: an engine started by a wrapper script that
/// does not `exec` it would otherwise outlive the wrapper marginal kills.
#[cfg(unix)]
fn own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn own_group(_: &mut Command) {}

/// Kills an engine and every process of its group, and reaps it. The group is signalled only
/// while the engine is not reaped: its id cannot have passed to another process then.
fn kill_tree(child: &mut Child) {
    #[cfg(unix)]
    if let (Ok(None), Ok(group)) = (child.try_wait(), i32::try_from(child.id())) {
        // SAFETY: kill has no memory effects; a group already gone gives ESRCH, ignored.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Elsewhere children are killed on drop and by [`kill_all`] only.
#[cfg(not(target_os = "linux"))]
fn die_with_parent(_: &mut Command) {}

/// How long an engine that let its time pass is given to answer `stop`.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// Lines read ahead of marginal at most, per engine.
const LINES_QUEUED: usize = 256;

/// The longest line kept, bytes: the rest of a longer line is read and dropped, so an engine
/// that never ends a line cannot fill marginal's memory.
const MAX_LINE: usize = 64 * 1024;

/// The next line of `reader` (trimmed, invalid UTF-8 replaced, cut at [`MAX_LINE`] bytes), or
/// None at the end of the output.
fn read_line(reader: &mut impl BufRead) -> Option<String> {
    let mut buf = Vec::new();
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) if buf.is_empty() => return None,
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..used.min(room)]);
        reader.consume(used);
        if done {
            break;
        }
    }
    Some(String::from_utf8_lossy(&buf).trim().to_string())
}

/// The next line from `lines` before `deadline`. The deadline is checked first: an engine that
/// never stops talking (and never says what it is waited for) always has a line waiting, and
/// would otherwise never time out.
fn receive(lines: &Receiver<String>, deadline: Instant) -> Result<String, RecvTimeoutError> {
    let wait = deadline.saturating_duration_since(Instant::now());
    if wait.is_zero() {
        return Err(RecvTimeoutError::Timeout);
    }
    lines.recv_timeout(wait)
}

/// The live children, killed by [`kill_all`].
fn registry() -> &'static Mutex<HashMap<u64, Arc<Mutex<Child>>>> {
    static LIVE: OnceLock<Mutex<HashMap<u64, Arc<Mutex<Child>>>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// Kills every engine process still running (Ctrl-C handlers, errors, exit). Safe to call
/// from any thread, any number of times.
pub fn kill_all() {
    let live: Vec<Arc<Mutex<Child>>> = registry()
        .lock()
        .map(|m| m.values().cloned().collect())
        .unwrap_or_default();
    for child in live {
        if let Ok(mut c) = child.lock() {
            kill_tree(&mut c);
        }
    }
}

/// How many engine processes are running now.
pub fn live_processes() -> usize {
    registry().lock().map_or(0, |m| m.len())
}

/// A running engine.
pub struct UciProcess {
    id: u64,
    child: Arc<Mutex<Child>>,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The last lines of its standard error, and whether it has closed it.
    stderr: Arc<Mutex<std::collections::VecDeque<String>>>,
    stderr_closed: Arc<AtomicBool>,
    grace: Duration,
    /// `id name`, when it gave one.
    pub name: Option<String>,
    /// The options it declared.
    pub declared: Vec<DeclaredOption>,
}

impl UciProcess {
    /// Starts `program`, does the `uci` handshake, sets its options and `extra` ones, and
    /// waits for `readyok`.
    ///
    /// # Errors
    /// The program does not start, dies, or does not answer within the grace time.
    pub fn start(program: &UciProgram, extra: &[(String, String)]) -> Result<UciProcess, Fault> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let mut child = spawn(program)?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (stderr, stderr_closed) = keep_stderr_tail(stderr_pipe);
        let lines = read_lines(stdout);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let child = Arc::new(Mutex::new(child));
        if let Ok(mut live) = registry().lock() {
            live.insert(id, child.clone());
        }
        let mut process = UciProcess {
            id,
            child,
            stdin,
            lines,
            stderr,
            stderr_closed,
            grace: program.grace,
            name: None,
            declared: Vec::new(),
        };
        process.handshake()?;
        for (name, value) in program.options.iter().chain(extra) {
            process.send(&format!("setoption name {name} value {value}"))?;
        }
        process.sync()?;
        Ok(process)
    }

    /// `uci`, reading the engine's name and options until `uciok`.
    fn handshake(&mut self) -> Result<(), Fault> {
        // A program that ended already is still read to the end of what it wrote (which says
        // what it is), for a moment only.
        let sent = self.send("uci");
        let deadline = Instant::now()
            + if sent.is_ok() {
                self.grace
            } else {
                Duration::from_millis(200)
            };
        // Lines that are not UCI, the last few: said if no uciok comes.
        let mut said: std::collections::VecDeque<String> = std::collections::VecDeque::new();
        loop {
            let line = match self.next_line(deadline, "uciok") {
                Err(Fault::Hung { .. }) if sent.is_err() => {
                    return Err(sent.expect_err("the send failed"));
                }
                Err(Fault::Hung { secs, .. }) if !said.is_empty() => {
                    return Err(Fault::NotUci {
                        said: said.into(),
                        secs,
                    });
                }
                // Quit by itself: with what it wrote instead of UCI.
                Err(Fault::Ended {
                    awaited, stderr, ..
                }) => {
                    return Err(Fault::Ended {
                        awaited,
                        said: said.into(),
                        stderr,
                    });
                }
                other => other?,
            };
            if line == "uciok" {
                return Ok(());
            }
            if let Some(name) = line.strip_prefix("id name ") {
                self.name = Some(name.trim().to_string());
            } else if let Some(option) = parse_option(&line) {
                self.declared.push(option);
            } else if !line.trim().is_empty() && !line.starts_with("id ") {
                if said.len() == STDERR_LINES {
                    said.pop_front();
                }
                said.push_back(excerpt(line.trim()));
            }
        }
    }

    /// Whether the engine declared an option of this name (ignoring case).
    pub fn declares(&self, name: &str) -> bool {
        self.declared
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// The range the engine declared for its spin option `name`, when it declared one.
    pub fn declared_range(&self, name: &str) -> Option<(i64, i64)> {
        let o = self
            .declared
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))?;
        Some((o.min?, o.max?))
    }

    /// Sends one line (a command) to the engine.
    ///
    /// # Errors
    /// The process has gone.
    pub fn send_line(&mut self, line: &str) -> Result<(), Fault> {
        self.send(line)
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| {
                // The answer this line would have been waited for with.
                let awaited = match line.split_whitespace().next() {
                    Some("uci") => "uciok",
                    Some("isready" | "setoption" | "ucinewgame") => "readyok",
                    _ => "bestmove",
                };
                self.crashed(awaited)
            })
    }

    /// The process has gone while `awaited` was to come: how it ended. Exit status 0 is no
    /// crash but a program that quit by itself ([`Fault::Ended`]).
    fn crashed(&self, awaited: &'static str) -> Fault {
        let status = self.child.lock().ok().and_then(|mut c| {
            // Give it a moment to be reaped after closing its output.
            for _ in 0..50 {
                if let Ok(Some(s)) = c.try_wait() {
                    return Some(s);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            None
        });
        // What it wrote last on its standard error: its reader may still be reading it (a
        // child of the engine may hold the pipe open: not waited for beyond a moment).
        let deadline = Instant::now() + Duration::from_millis(200);
        while !self.stderr_closed.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        let tail = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        match status {
            Some(s) if s.success() => Fault::Ended {
                awaited,
                said: Vec::new(),
                stderr: tail,
            },
            Some(s) => Fault::Crashed(s.to_string(), tail),
            None => Fault::Crashed("it closed its output".into(), tail),
        }
    }

    fn next_line(&mut self, deadline: Instant, what: &'static str) -> Result<String, Fault> {
        match receive(&self.lines, deadline) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Disconnected) => Err(self.crashed(what)),
            Err(RecvTimeoutError::Timeout) => Err(Fault::Hung {
                what,
                secs: self.grace.as_secs_f64(),
            }),
        }
    }

    /// `isready`, waiting for `readyok` (other lines are skipped).
    ///
    /// # Errors
    /// No `readyok` within the grace time, or the process died.
    pub fn sync(&mut self) -> Result<(), Fault> {
        self.send("isready")?;
        let deadline = Instant::now() + self.grace;
        while self.next_line(deadline, "readyok")? != "readyok" {}
        Ok(())
    }

    /// `ucinewgame` and `isready`.
    ///
    /// # Errors
    /// As [`UciProcess::sync`].
    pub fn new_game(&mut self) -> Result<(), Fault> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// Searches `position`, reached from `start` by `moves`, within `limits`.
    ///
    /// The engine is given the limit's expected time plus the grace to answer; an engine that
    /// reports more nodes than a node budget is sent `stop`.
    ///
    /// # Errors
    /// A crash, a hang (the process must then be dropped), an illegal or unreadable move.
    pub fn search(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
        limits: &Limits,
    ) -> Result<Found, Fault> {
        let (bestmove, heard) = self.go(start, moves, position, limits)?;
        if limits.nodes.is_some()
            && heard.last.is_none()
            && names_no_move(&bestmove)
            && !position.legal_moves().is_empty()
        {
            return self.shortest_search(start, moves, position);
        }
        heard.found(&bestmove, position)
    }

    /// The move of the shortest search the engine makes, `go depth 1`, counted as past the
    /// budget: for an engine whose own node count ended a move before it reported any PV and
    /// that then named no move. Glaurung 2.2 does so in tactical middlegames where its first
    /// reported iteration alone takes more than the budget (11,619 nodes seen against 10,000);
    /// without this, each such move forfeited the game.
    fn shortest_search(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
    ) -> Result<Found, Fault> {
        let (bestmove, heard) = self.go(start, moves, position, &Limits::depth(1))?;
        let mut found = heard.found(&bestmove, position)?;
        found.overshot = true;
        Ok(found)
    }

    /// Sets up `position` (reached from `start` by `moves`), searches it within `limits` and
    /// returns its `bestmove` line with what the engine said on the way.
    fn go(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
        limits: &Limits,
    ) -> Result<(String, Heard), Fault> {
        self.set_up(start, moves)?;
        let (go, expected) = go_command(limits, position.turn());
        self.send(&go)?;
        let started = Instant::now();
        let mut heard = Heard::default();
        let bestmove =
            self.await_bestmove(started, started + expected + self.grace, limits, &mut heard)?;
        Ok((bestmove, heard))
    }

    /// Sends the `position` command of `start` and `moves`.
    fn set_up(&mut self, start: &Chess, moves: &[Move]) -> Result<(), Fault> {
        let mut setup = format!(
            "position fen {}",
            Fen::from_position(start, EnPassantMode::Legal)
        );
        if !moves.is_empty() {
            setup.push_str(" moves");
            for m in moves {
                setup.push(' ');
                setup.push_str(&crate::formats::uci_move(*m));
            }
        }
        self.send(&setup)
    }

    /// Reads the search's lines into `heard` until `bestmove` (its line), sending `stop` once
    /// past the node budget or the `deadline` (then [`STOP_GRACE`] more is given).
    fn await_bestmove(
        &mut self,
        started: Instant,
        mut deadline: Instant,
        limits: &Limits,
        heard: &mut Heard,
    ) -> Result<String, Fault> {
        let budget = limits.nodes;
        loop {
            let line = match self.next_line(deadline, "bestmove") {
                Err(Fault::Hung { .. }) if !heard.stopped => {
                    // Ask once; a healthy engine answers `stop` at once.
                    self.send("stop")?;
                    heard.stopped = true;
                    deadline += STOP_GRACE;
                    continue;
                }
                Err(Fault::Hung { .. }) => {
                    // The whole time it was given, `stop` included.
                    return Err(Fault::Hung {
                        what: "bestmove",
                        secs: deadline.duration_since(started).as_secs_f64(),
                    });
                }
                other => other?,
            };
            let Some(first) = line.split_whitespace().next() else {
                continue;
            };
            match first {
                "info" => {
                    let over_budget = heard.info(&line, budget);
                    if over_budget && !heard.stopped {
                        self.send("stop")?;
                        heard.stopped = true;
                    }
                }
                "bestmove" => return Ok(line),
                _ => {}
            }
        }
    }
}

/// What an engine said of its search so far.
#[derive(Default)]
struct Heard {
    /// Whether it was sent `stop`.
    stopped: bool,
    /// Whether it went past the node budget.
    overshot: bool,
    /// (move, score, depth, nodes) of the last PV within the budget.
    last: Option<(String, Option<i32>, u32, u64)>,
    found_at: u64,
    nodes_seen: u64,
    depth_seen: u32,
    score_seen: Option<i32>,
}

impl Heard {
    /// Takes in an `info` line; true when it reports more nodes than `budget` (the engine is
    /// then to be stopped, and the line is not taken).
    fn info(&mut self, line: &str, budget: Option<u64>) -> bool {
        let info = parse_info(line);
        if info.multipv.is_some_and(|k| k != 1) {
            return false;
        }
        let Some(nodes) = info.nodes else {
            return false;
        };
        if budget.is_some_and(|b| nodes > b) {
            self.overshot = true;
            return true;
        }
        self.nodes_seen = self.nodes_seen.max(nodes);
        if let Some(d) = info.depth {
            self.depth_seen = self.depth_seen.max(d);
        }
        if info.score.is_some() {
            self.score_seen = info.score;
        }
        if let Some(mv) = info.pv_first {
            if self.last.as_ref().is_none_or(|(m, ..)| *m != mv) {
                self.found_at = nodes;
            }
            self.last = Some((mv, info.score.or(self.score_seen), self.depth_seen, nodes));
        }
        false
    }

    /// What the search found, its `bestmove` line said in `position` (the last PV within the
    /// budget when it overshot).
    fn found(mut self, bestmove: &str, position: &Chess) -> Result<Found, Fault> {
        let overshot = self.overshot;
        let text = bestmove.split_whitespace().nth(1).unwrap_or("").to_string();
        // Stopped past the budget, an engine may answer no move at all (Glaurung 2.2 says
        // `bestmove (none)`): the last PV within the budget is its move then, as for any
        // engine that overshot. Without one it is a fault, as an empty answer is anywhere.
        let stopped_without_move = overshot && self.last.is_some() && is_no_move(&text);
        // Any other move it played is checked on every path: an engine that overshot a node
        // budget and then names an illegal or unreadable move is faulty, whichever is taken.
        let played = if stopped_without_move {
            None
        } else {
            read_move(&text, bestmove, position)?
        };
        let chosen = match (&self.last, overshot) {
            (Some((m, ..)), true) => m.clone(),
            _ => text.clone(),
        };
        let best_move = if chosen == text {
            played
        } else {
            read_move(&chosen, &chosen, position)?
        };
        if best_move.is_some() && self.last.as_ref().is_none_or(|(m, ..)| *m != chosen) {
            self.found_at = self.nodes_seen;
        }
        let (score, depth, nodes) = match (&self.last, overshot) {
            (Some((_, s, d, n)), true) => (*s, *d, *n),
            _ => (self.score_seen, self.depth_seen, self.nodes_seen),
        };
        Ok(Found {
            best_move,
            score,
            depth,
            nodes,
            found_at: self.found_at,
            overshot,
        })
    }
}

/// Starts `program` with its standard streams piped, in its own process group, to die with
/// marginal.
fn spawn(program: &UciProgram) -> Result<Child, Fault> {
    let mut command = Command::new(&program.command);
    command
        .args(&program.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = &program.dir {
        command.current_dir(dir);
    }
    die_with_parent(&mut command);
    own_group(&mut command);
    command
        .spawn()
        .map_err(|e| Fault::Start(start_error(program, &e)))
}

/// The tail of an engine's standard error, kept by a thread reading `pipe`, and whether the
/// engine has closed it.
type StderrTail = (
    Arc<Mutex<std::collections::VecDeque<String>>>,
    Arc<AtomicBool>,
);

/// Reads `pipe` (an engine's standard error) on a thread, keeping its last lines.
fn keep_stderr_tail(pipe: ChildStderr) -> StderrTail {
    let stderr = Arc::new(Mutex::new(std::collections::VecDeque::new()));
    let tail = stderr.clone();
    let stderr_closed = Arc::new(AtomicBool::new(false));
    let closed = stderr_closed.clone();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        while let Some(line) = read_line(&mut reader) {
            let line = excerpt(line.trim());
            if line.is_empty() {
                continue;
            }
            if let Ok(mut kept) = tail.lock() {
                if kept.len() == STDERR_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        }
        closed.store(true, Ordering::Release);
    });
    (stderr, stderr_closed)
}

/// Reads `stdout` (an engine's output) on a thread, line by line, into the receiver.
fn read_lines(stdout: ChildStdout) -> Receiver<String> {
    // Bounded: an engine that floods its output waits for marginal to read it.
    let (tx, lines) = mpsc::sync_channel(LINES_QUEUED);
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        while let Some(line) = read_line(&mut reader) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// Whether a `bestmove` line names no move (none at all, `0000`, or `(none)`).
fn names_no_move(bestmove: &str) -> bool {
    bestmove.split_whitespace().nth(1).is_none_or(is_no_move)
}

/// Whether a move's text is the null move: `0000`, or `(none)` as Glaurung 2.2 says.
fn is_no_move(text: &str) -> bool {
    text == "0000" || text == "(none)"
}

/// The move `text` (from `line`) names in `position`: `None` for a null move where there is
/// no legal move.
fn read_move(text: &str, line: &str, position: &Chess) -> Result<Option<Move>, Fault> {
    if is_no_move(text) {
        return if position.legal_moves().is_empty() {
            Ok(None)
        } else {
            Err(Fault::Illegal(excerpt(text)))
        };
    }
    let parsed: UciMove = text.parse().map_err(|_| Fault::Garbage(excerpt(line)))?;
    parsed
        .to_move(position)
        .map(Some)
        .map_err(|_| Fault::Illegal(excerpt(text)))
}

/// The `go` command for `limits`, and how long the search is expected to take.
fn go_command(limits: &Limits, turn: shakmaty::Color) -> (String, Duration) {
    let mut go = String::from("go");
    let mut expected = Duration::ZERO;
    if let Some(d) = limits.depth {
        go.push_str(&format!(" depth {d}"));
        expected += Duration::from_millis(100u64 << (d / 2).min(20));
    }
    if let Some(n) = limits.nodes {
        go.push_str(&format!(" nodes {n}"));
        // At a slow 20,000 nodes per second.
        expected += Duration::from_millis(n / 20);
    }
    if let Some(t) = limits.movetime {
        go.push_str(&format!(" movetime {}", t.as_millis()));
        expected += t;
    }
    if let Some(left) = limits.time_left {
        let inc = limits.increment.unwrap_or_default();
        let (l, i) = (left.as_millis(), inc.as_millis());
        go.push_str(&match turn {
            shakmaty::Color::White => format!(" wtime {l} btime {l} winc {i} binc {i}"),
            shakmaty::Color::Black => format!(" btime {l} wtime {l} binc {i} winc {i}"),
        });
        expected += left + inc;
    }
    if go == "go" {
        go.push_str(" depth 1");
    }
    (go, expected)
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        if let Ok(mut child) = self.child.lock() {
            let mut ended = false;
            for _ in 0..25 {
                if let Ok(Some(_)) = child.try_wait() {
                    ended = true;
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            // A wrapper's hung engine ends with the wrapper's group.
            if !ended {
                kill_tree(&mut child);
            }
        }
        if let Ok(mut live) = registry().lock() {
            live.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::score::mate_in;

    #[test]
    fn a_script_whose_interpreter_is_missing_names_the_interpreter() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("marginal-shebang-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (missing, dos) = (dir.join("engine.sh"), dir.join("dos.sh"));
        std::fs::write(&missing, "#!/nonexistent/interp -x\necho uciok\n").unwrap();
        std::fs::write(&dos, "#!/bin/sh\r\necho uciok\r\n").unwrap();
        let start = |script: &Path| {
            std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
            let program = UciProgram {
                command: script.to_path_buf(),
                args: Vec::new(),
                dir: None,
                options: Vec::new(),
                grace: Duration::from_secs(1),
                fresh: false,
                breaker: Arc::default(),
            };
            match spawn(&program) {
                Err(Fault::Start(said)) => said,
                other => panic!("{other:?}"),
            }
        };
        let said = start(&missing);
        for needle in ["engine.sh", "/nonexistent/interp", "interpreter"] {
            assert!(said.contains(needle), "{said}");
        }
        let said = start(&dos);
        assert!(
            said.contains("carriage return") && said.contains("/bin/sh"),
            "{said}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn option_lines_are_read_with_spaces_in_names() {
        let o = parse_option("option name Futility Margin type spin default 100 min 0 max 500")
            .unwrap();
        assert_eq!(o.name, "Futility Margin");
        assert_eq!(
            (o.kind.as_str(), o.min, o.max),
            ("spin", Some(0), Some(500))
        );
        assert_eq!(o.default.as_deref(), Some("100"));
        let c = parse_option(
            "option name NullMove Pruning type combo default Always var Always var Never",
        )
        .unwrap();
        assert_eq!(
            (c.name.as_str(), c.default.as_deref()),
            ("NullMove Pruning", Some("Always"))
        );
        assert_eq!(c.vars, ["Always", "Never"]);
        assert!(parse_option("id name x").is_none());
    }

    #[test]
    fn info_lines_give_score_nodes_and_pv() {
        let i = parse_info(
            "info multipv 1 depth 4 seldepth 8 score cp 20 time 2 nodes 814 pv d2d4 d7d5",
        );
        assert_eq!(i.depth, Some(4));
        assert_eq!(i.score, Some(20));
        assert_eq!(i.nodes, Some(814));
        assert_eq!(i.pv_first.as_deref(), Some("d2d4"));
        let m = parse_info("info depth 9 score mate -3 nodes 5 pv e1e2");
        assert_eq!(m.score.and_then(mate_in), Some(-3));
        assert_eq!(parse_info("info string nodes 5 pv x").nodes, None);
        for n in [1, 2, 7, -1, -4] {
            assert_eq!(mate_in(mate_score(n)), Some(n));
        }
    }

    #[test]
    fn lines_are_cut_at_the_limit_and_read_on_after_it() {
        let mut text = b"uciok\r\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        text.extend_from_slice(b"\n\nbest\xffmove\n end");
        let mut reader = BufReader::with_capacity(1000, text.as_slice());
        assert_eq!(read_line(&mut reader).as_deref(), Some("uciok"));
        assert_eq!(read_line(&mut reader).map(|l| l.len()), Some(MAX_LINE));
        assert_eq!(read_line(&mut reader).as_deref(), Some(""));
        assert_eq!(read_line(&mut reader).as_deref(), Some("best\u{fffd}move"));
        assert_eq!(read_line(&mut reader).as_deref(), Some("end"));
        assert_eq!(read_line(&mut reader), None);
    }

    #[test]
    fn an_engine_that_keeps_talking_still_times_out() {
        let (tx, lines) = mpsc::sync_channel(LINES_QUEUED);
        for _ in 0..10 {
            tx.send("info string still thinking".to_string()).unwrap();
        }
        let past = Instant::now();
        assert_eq!(receive(&lines, past), Err(RecvTimeoutError::Timeout));
        let later = Instant::now() + Duration::from_secs(60);
        assert_eq!(
            receive(&lines, later).as_deref(),
            Ok("info string still thinking")
        );
    }

    /// A scripted engine, answering `go` with `infos` and then `stop` with `bestmove`.
    fn scripted(dir: &Path, name: &str, infos: &[&str], bestmove: &str) -> UciProgram {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        let go: String = infos.iter().map(|i| format!("echo '{i}'; ")).collect();
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\nwhile read -r cmd rest; do case $cmd in\n  uci) echo uciok;;\n  \
                 isready) echo readyok;;\n  go) {go};;\n  stop) echo '{bestmove}';;\n  \
                 quit) exit 0;;\nesac; done\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        UciProgram {
            command: path,
            args: Vec::new(),
            dir: None,
            options: Vec::new(),
            grace: Duration::from_secs(10),
            fresh: false,
            breaker: Arc::default(),
        }
    }

    #[test]
    fn no_move_after_a_stop_past_the_node_budget_takes_the_last_pv_within_it() {
        let dir = std::env::temp_dir().join(format!("marginal-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let start = Chess::default();
        let search = |program: &UciProgram| {
            let mut engine = UciProcess::start(program, &[]).unwrap();
            engine.search(&start, &[], &start, &Limits::nodes(1000))
        };
        // As Glaurung 2.2 does: a PV within the budget, then past it, then no move on `stop`.
        for answer in ["bestmove (none)", "bestmove 0000"] {
            let within = [
                "info depth 1 score cp 20 nodes 400 pv e2e4 e7e5",
                "info depth 2 score cp 30 nodes 1600 pv d2d4 d7d5",
            ];
            let found = search(&scripted(&dir, "within.sh", &within, answer)).unwrap();
            assert_eq!(
                found.best_move.map(crate::formats::uci_move).as_deref(),
                Some("e2e4")
            );
            assert_eq!((found.score, found.depth, found.nodes), (Some(20), 1, 400));
            assert!(found.overshot);
        }
        // With no PV within the budget there is no move to take: the engine is asked for its
        // shortest search (see the next test); one that names no move even then is faulty.
        let past = ["info depth 1 score cp 20 nodes 1600 pv e2e4"];
        let program = UciProgram {
            grace: Duration::from_millis(300),
            ..scripted(&dir, "past.sh", &past, "bestmove (none)")
        };
        assert!(matches!(search(&program), Err(Fault::Illegal(m)) if m == "(none)"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_engine_that_ends_a_move_on_its_own_count_before_any_pv_plays_its_shortest_search() {
        // As Glaurung 2.2 in a tactical middlegame at 10,000 nodes: its own count ends the
        // move before its first reported iteration, no `stop` sent, and it names no move;
        // `go depth 1` then gives one.
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("marginal-own-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("own-count.sh");
        std::fs::write(
            &path,
            "#!/bin/sh\nwhile read -r cmd rest; do case \"$cmd $rest\" in\n  uci*) echo uciok;;\n  \
             isready*) echo readyok;;\n  'go depth 1') echo 'info depth 2 score cp 5 nodes 11619 pv g1f3'; \
             echo 'bestmove g1f3';;\n  go*) echo 'bestmove (none)';;\n  quit*) exit 0;;\nesac; done\n",
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let program = UciProgram {
            command: path,
            ..scripted(&dir, "unused.sh", &[], "bestmove (none)")
        };
        let start = Chess::default();
        let mut engine = UciProcess::start(&program, &[]).unwrap();
        let found = engine
            .search(&start, &[], &start, &Limits::nodes(10_000))
            .unwrap();
        assert_eq!(
            found.best_move.map(crate::formats::uci_move).as_deref(),
            Some("g1f3")
        );
        assert!(found.overshot, "the move came from past the budget");
        // Searched to a depth or a time, no move is still a fault: nothing else to ask for.
        let found = engine.search(&start, &[], &start, &Limits::depth(3));
        assert!(matches!(found, Err(Fault::Illegal(m)) if m == "(none)"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn go_commands_follow_the_limits() {
        let (go, _) = go_command(&Limits::nodes(5000), shakmaty::Color::White);
        assert_eq!(go, "go nodes 5000");
        let (go, _) = go_command(&Limits::depth(7), shakmaty::Color::Black);
        assert_eq!(go, "go depth 7");
    }
}
