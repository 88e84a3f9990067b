//! Every `marginal ...` (or `cargo run --release -- ...`) command line in the README's and
//! docs' shell blocks parses: documented commands never rot. Each is run through marginal's
//! own argument parser (`MARGINAL_PARSE_ONLY=1`: parse, then exit without running).
//! Synopses (lines with `[` or `|`) are not command lines and are skipped.

#[path = "common/docs.rs"]
mod docs;
use docs::documents;
use std::process::Command;

/// Splits a shell line into words: whitespace separates, single and double quotes group.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// The command lines of `text`'s `sh` and `bash` blocks: (line number, marginal's arguments).
fn command_lines(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let mut in_shell = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(fence) = trimmed.strip_prefix("```") {
            in_shell = !in_shell && matches!(fence, "sh" | "bash" | "shell");
            pending = None;
            continue;
        }
        if !in_shell {
            continue;
        }
        let (number, mut joined) = match pending.take() {
            Some((n, start)) => (n, start + " " + trimmed),
            None => (i + 1, trimmed.to_string()),
        };
        if let Some(open) = joined.strip_suffix('\\') {
            joined = open.to_string();
            pending = Some((number, joined));
            continue;
        }
        // A comment ends the command.
        let command = match joined.find(" #") {
            Some(at) => joined[..at].trim().to_string(),
            None => joined,
        };
        let args = if let Some(rest) = command.strip_prefix("cargo run --release -- ") {
            rest
        } else if let Some(rest) = command.strip_prefix("marginal ") {
            rest
        } else {
            continue;
        };
        if args.contains('[') || args.contains('|') {
            continue;
        }
        found.push((number, words(args)));
    }
    found
}

#[test]
fn the_shell_splitter_groups_quotes() {
    assert_eq!(
        words("match --a 'x y' --b \"z\" ''"),
        ["match", "--a", "x y", "--b", "z", ""]
    );
    let text = "```sh\nmarginal tune --seed 1 \\\n    --out a.json   # note\nls\n```\n```text\nmarginal suite: output\n```\n";
    assert_eq!(
        command_lines(text),
        [(
            2,
            vec![
                "tune".to_string(),
                "--seed".into(),
                "1".into(),
                "--out".into(),
                "a.json".into()
            ]
        )]
    );
}

#[test]
fn every_documented_command_line_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, args) in command_lines(&text) {
            let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
                .args(&args)
                .env("MARGINAL_PARSE_ONLY", "1")
                .output()
                .unwrap();
            checked += 1;
            if !out.status.success() {
                failures.push(format!(
                    "{}:{line}: marginal {}\n{}",
                    path.display(),
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(checked >= 10, "only {checked} command lines found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
