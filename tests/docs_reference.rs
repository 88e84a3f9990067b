//! `docs/commands.md`, the command reference, is generated from marginal's own help (the clap
//! definitions): this test fails when it is stale. Regenerate it with
//! `MARGINAL_BLESS=1 cargo test --profile ci --test docs_reference`.

use std::path::Path;
use std::process::Command;

/// marginal's help for `args` (`--help`, or `help COMMAND`).
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The reference: marginal's help, then each command's long help, in the order of the list.
fn reference() -> String {
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 10, "{top}");
    let mut text = String::from(
        "# Command reference\n\n\
         Generated from `marginal --help` and `marginal help COMMAND` by\n\
         `MARGINAL_BLESS=1 cargo test --profile ci --test docs_reference` (a test fails when it is\n\
         stale). The guide to each task is in the README and the other pages here.\n\n\
         ## marginal\n\n```text\n",
    );
    text += top.trim_end();
    text += "\n```\n";
    for command in commands {
        text += &format!("\n## marginal {command}\n\n```text\n");
        text += help(&["help", &command]).trim_end();
        text += "\n```\n";
    }
    text
}

#[test]
fn the_command_reference_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md");
    let now = reference();
    if std::env::var_os("MARGINAL_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == now,
        "{} is stale: regenerate it with MARGINAL_BLESS=1 cargo test --profile ci --test docs_reference",
        path.display()
    );
}
