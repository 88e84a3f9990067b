//! `marginal uci` driven as a GUI drives it: lines in, lines out on a thread, with a deadline
//! on every wait so a hang fails the test instead of hanging it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Longest wait for one expected line.
const WAIT: Duration = Duration::from_secs(60);

/// A running `marginal uci`.
pub struct UciEngine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl UciEngine {
    /// Starts `marginal uci`.
    pub fn start() -> UciEngine {
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
        UciEngine {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// Sends `bytes` and a newline, as they are (not necessarily UTF-8).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends `quit`; returns every line not yet read and the exit status.
    pub fn quit(mut self) -> (Vec<String>, ExitStatus) {
        self.send("quit");
        rest(&self.lines, &mut self.child)
    }

    /// Closes the engine's input (end of input, no `quit`); returns every line not yet read
    /// and the exit status.
    pub fn close(mut self) -> (Vec<String>, ExitStatus) {
        drop(self.stdin.take());
        rest(&self.lines, &mut self.child)
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("no '{prefix}' line; got {out:?}"));
            let done = line.starts_with(prefix);
            out.push(line);
            if done {
                return out;
            }
        }
    }

    /// `isready`: the lines up to and including `readyok`.
    pub fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        self.until("readyok")
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = writeln!(stdin, "quit");
        }
        let _ = self.child.wait();
    }
}

/// Runs `marginal uci` on `input` (lines, each ending in a newline), then `quit`; returns all
/// its output lines, checking it exited successfully.
pub fn uci_session(input: &str) -> Vec<String> {
    let mut engine = UciEngine::start();
    let stdin = engine.stdin.as_mut().expect("input open");
    stdin.write_all(input.as_bytes()).unwrap();
    let (lines, status) = engine.quit();
    assert!(status.success(), "marginal uci exited with {status}");
    lines
}

/// The `info string margins` lines of a session (`d`'s answer), each as a map of option to
/// value.
pub fn margin_lines(lines: &[String]) -> Vec<std::collections::BTreeMap<String, String>> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string margins "))
        .map(|rest| {
            rest.split_whitespace()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), v.to_string())
                })
                .collect()
        })
        .collect()
}

/// The `info string` lines of a session other than those `d` prints (`fen`, `margins`): what
/// the engine refused or complained about.
pub fn refused(session: &[String]) -> Vec<&String> {
    session
        .iter()
        .filter(|l| {
            l.starts_with("info string")
                && !l.starts_with("info string fen ")
                && !l.starts_with("info string margins ")
        })
        .collect()
}

/// Every line the engine writes until it exits, and its exit status.
fn rest(lines: &Receiver<String>, child: &mut Child) -> (Vec<String>, ExitStatus) {
    let mut rest = Vec::new();
    loop {
        match lines.recv_timeout(WAIT) {
            Ok(line) => rest.push(line),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => panic!("no exit; got {rest:?}"),
        }
    }
    (rest, child.wait().unwrap())
}
