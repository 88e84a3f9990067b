//! marginal as a Unix filter: a reader that closes the pipe early (`marginal bench | head -1`)
//! ends marginal quietly with status 141, without a panic.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Runs marginal with `args`, reads one line of its stdout, closes it, and returns the exit
/// status and what marginal wrote on stderr.
fn closed_after_one_line(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let collector = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(!line.is_empty(), "{args:?} wrote nothing");
    let status = child.wait().unwrap();
    (status.code(), collector.join().unwrap())
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // The bench prints a line a position for several seconds: the reader is long gone.
    let (status, stderr) = closed_after_one_line(&["bench", "--depth", "9"]);
    assert_eq!(status, Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
