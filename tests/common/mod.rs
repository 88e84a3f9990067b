//! Helpers shared by the tests: a scratch directory, a small suite, the binary run as a user
//! runs it, `marginal uci` driven as a GUI drives it ([`uci_engine`]), exports compiled
//! and run ([`compile`]), and a real Slurm cluster when this machine has one ([`slurm`]).
// Each test file uses some of these, not all.
#![allow(dead_code)]

pub mod child;
pub mod compile;
pub mod slurm;
pub mod uci_engine;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty directory for one test (`prefix` keeps test files apart).
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("marginal-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first `n` WAC positions as a suite file.
pub fn small_suite(dir: &Path, n: usize) -> PathBuf {
    let wac = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/wac.epd");
    let text = std::fs::read_to_string(wac).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    let path = dir.join("small.epd");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The checkpoint directory of a tune whose output is `STEM.json`, run with the cache in
/// `dir/cache`: `dir/cache/tune-STEM-RUN` (a path that does not exist yet while the run has
/// not made it).
pub fn checkpoint(dir: &Path, stem: &str) -> PathBuf {
    let cache = dir.join("cache");
    let prefix = format!("tune-{stem}-");
    std::fs::read_dir(&cache)
        .ok()
        .and_then(|entries| {
            entries.filter_map(Result::ok).map(|e| e.path()).find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
            })
        })
        .unwrap_or_else(|| cache.join(format!("{prefix}not-made-yet")))
}

/// Runs `marginal ARGS` from the crate's root (where the default opening book is), with the
/// reference cache inside `dir`.
pub fn marginal(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run marginal")
}

/// `marginal tune --suites SUITE --nodes NODES --threads 2 --out DIR/OUT EXTRA...`.
pub fn tune(dir: &Path, suite: &Path, nodes: u32, out: &str, extra: &[&str]) -> Output {
    let out = dir.join(out);
    let nodes = nodes.to_string();
    let mut args = vec![
        "tune",
        "--suites",
        suite.to_str().unwrap(),
        "--nodes",
        &nodes,
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    marginal(&args, dir)
}

/// The parts of a tuned file that must not depend on an interruption or on where the work ran:
/// everything but timing, the command line and the bookkeeping of cache hits.
pub fn tuned_result(path: &Path) -> serde_json::Value {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let provenance = doc["provenance"].as_object_mut().unwrap();
    for volatile in [
        "wall_seconds",
        "earlier_wall_seconds",
        "cpu_seconds",
        "earlier_cpu_seconds",
        "command_line",
        "arguments",
        "evaluations",
        "searched_evaluations",
        "search_seconds",
    ] {
        provenance.remove(volatile);
    }
    for e in doc["evaluations"].as_array_mut().unwrap() {
        let e = e.as_object_mut().unwrap();
        e.remove("index");
        e.remove("cached");
    }
    // Whether a race step was replayed from the log is how the run went, not its result.
    if let Some(steps) = doc
        .pointer_mut("/race/steps")
        .and_then(|s| s.as_array_mut())
    {
        for step in steps {
            step.as_object_mut().unwrap().remove("cached");
        }
    }
    doc
}

/// Waits until `ready` holds (at most `limit`), sends the child SIGINT, and returns what it
/// wrote: a command interrupted once some of its work is on disk. Its exit status must be 130.
pub fn interrupt_when(
    child: std::process::Child,
    limit: std::time::Duration,
    ready: impl Fn() -> bool,
) -> Output {
    let deadline = std::time::Instant::now() + limit;
    while !ready() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: kill(2) on the child's pid, which is still ours to signal.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Everything a run printed: its standard output, then its standard error.
pub fn said(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

/// A message must name each of `what`: the file (and line) it is about, the offending value, the
/// fix it offers (a flag, a command). How it words the rest is its own affair. Fails listing
/// every item missing, with the whole message.
#[track_caller]
pub fn assert_names(said: &str, what: &[&str]) {
    let missing: Vec<&str> = what.iter().copied().filter(|w| !said.contains(w)).collect();
    assert!(
        missing.is_empty(),
        "the message does not name {missing:?}; it said:\n{said}"
    );
}

/// A message must name none of `what` (a line that belongs to another case, a value that must
/// not be there). Fails listing each one it names, with the whole message.
#[track_caller]
pub fn assert_omits(said: &str, what: &[&str]) {
    let found: Vec<&str> = what.iter().copied().filter(|w| said.contains(w)).collect();
    assert!(
        found.is_empty(),
        "the message names {found:?}, which it must not; it said:\n{said}"
    );
}

/// `marginal ARGS` must end with exit 2 (unusable input) and name each of `what`: the file or
/// value at fault, the fix it offers. Returns what it said, for further checks.
#[track_caller]
pub fn refused(args: &[&str], dir: &Path, what: &[&str]) -> String {
    let out = marginal(args, dir);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "marginal {args:?}: {text}");
    assert_names(&text, what);
    text
}

/// The first `n` lines of the crate's file `from` (e.g. `data/suites/wac.epd`) written to `to`.
pub fn first_lines(from: &str, n: usize, to: &Path) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(from)).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    std::fs::write(to, lines.join("\n") + "\n").unwrap();
}

/// The arguments of a one-iteration SPSA tune of `suite` at 300 nodes, quiet, writing `out`
/// (`[9]` is the iteration count).
pub fn spsa_once<'a>(suite: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "tune",
        "--suites",
        suite,
        "--nodes",
        "300",
        "-q",
        "--solver",
        "spsa",
        "--iterations",
        "1",
        "--out",
        out,
    ]
}

/// A copy of the shipped tuned file `tuned/NAME`, read as JSON.
pub fn shipped_tuned(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tuned")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Longest any case may take before it counts as a hang.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// How a bounded run ended: its exit code and what it wrote.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `marginal ARGS` from the crate's root with the cache in `dir`, killing it (and failing
/// the test) at the deadline: a hang is a failure, not a stuck test.
pub fn run_bounded(args: &[&str], dir: &Path) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run marginal");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("marginal {args:?} did not finish within {DEADLINE:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Outcome {
        code: status.code(),
        stdout: reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// Runs `args` in `dir`: it must succeed (exit 0) and say each of `said` on stderr.
pub fn warns(args: &[&str], dir: &Path, said: &[&str]) {
    let o = run_bounded(args, dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_names(&o.stderr, said);
}

/// The arguments of `marginal match` of `default` against `off`, 2 games at 300 nodes, quiet,
/// from `book`, and `extra`.
pub fn small_match<'a>(book: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    match_of(book, "2", "300", extra)
}

/// The arguments of `marginal match` of `default` against `off`, `games` games at `nodes`
/// nodes a move, quiet, from `book`, and `extra`.
pub fn match_of<'a>(
    book: &'a str,
    games: &'a str,
    nodes: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "match",
        "--a",
        "default",
        "--b",
        "off",
        "--games",
        games,
        "--nodes",
        nodes,
        "-q",
        "--openings",
        book,
    ];
    args.extend_from_slice(extra);
    args
}
