//! Help as a new user asks for it: `help COMMAND`, `COMMAND --help` and `help help` work for
//! every command, name the built-in margin sets and the aliases, and list every command.

mod common;

use common::{assert_names, marginal, said, scratch};

#[test]
fn help_works_for_every_command_and_for_help_itself() {
    let dir = scratch("help", "every");
    let stdout = |out: &std::process::Output| String::from_utf8_lossy(&out.stdout).to_string();
    for command in [
        "suite", "match", "tune", "check", "export", "plot", "bench", "uci", "params", "help",
    ] {
        let out = marginal(&["help", command], &dir);
        assert_eq!(out.status.code(), Some(0), "help {command}: {}", said(&out));
        assert!(
            stdout(&out).contains(&format!("marginal {command}")),
            "help {command}: {}",
            stdout(&out)
        );
        let out = marginal(&[command, "--help"], &dir);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command} --help: {}",
            said(&out)
        );
    }
    let out = marginal(&["help", "--help"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    // The built-in sets are all named where a margin set is taken.
    for command in ["suite", "bench"] {
        let out = marginal(&[command, "--help"], &dir);
        assert_names(&stdout(&out), &["bare"]);
    }
    // Aliases are listed.
    let out = marginal(&["params"], &dir);
    assert_names(&stdout(&out), &["frontier", "prefrontier"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `marginal help help` lists every command, those added later too.
#[test]
fn help_help_lists_every_command() {
    let dir = scratch("help", "help-help");
    let out = marginal(&["help", "help"], &dir);
    assert_names(&said(&out), &["calibrate, check, work"]);
    std::fs::remove_dir_all(dir).unwrap();
}
