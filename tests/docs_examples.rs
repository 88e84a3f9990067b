//! What the README shows works: its inline engine file parses and is the shipped
//! engines/toga2.toml (the same command, rows and options), comments trimmed; and its first
//! screen gives the default tune and the test command CI runs.

use marginal::formats::engine_file::EngineFile;
use std::path::Path;

/// The README's `toml` block that starts with `name = `.
fn readme_engine_file() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("```toml\nname = ")
        .expect("the README shows an engine file inline");
    let block = &readme[start + "```toml\n".len()..];
    block[..block.find("```").unwrap()].to_string()
}

#[test]
fn the_readme_engine_file_parses_and_is_the_shipped_toga_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("engines/toga2.toml");
    let shown = EngineFile::parse(&path, &readme_engine_file())
        .unwrap_or_else(|e| panic!("the README's engine file does not parse: {e:?}"));
    let shipped = EngineFile::read(&path).unwrap();
    assert_eq!(shown.name, shipped.name);
    assert_eq!(shown.command, shipped.command);
    assert_eq!(shown.args, shipped.args);
    assert_eq!(shown.options, shipped.options);
    assert_eq!(shown.reference_options, shipped.reference_options);
    assert_eq!(shown.fresh, shipped.fresh);
    assert_eq!(shown.deterministic, shipped.deterministic);
    assert_eq!(format!("{:?}", shown.rows), format!("{:?}", shipped.rows));
    assert!(shown.rows.len() >= 3, "{:?}", shown.rows);
}

/// The README's first screen: its first shell block is the default tune and the test command,
/// and that test command is the one `.ci/run` runs; the whole README stays a short guide.
#[test]
fn the_readme_opens_with_the_default_tune_and_the_ci_test_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("```sh\n")
        .expect("the README has a shell block");
    let block = &readme[start + "```sh\n".len()..];
    let commands: Vec<&str> = block[..block.find("```").unwrap()]
        .lines()
        .map(|line| line.split(" #").next().unwrap().trim())
        .collect();
    assert_eq!(
        commands,
        ["cargo run --release -- tune", "cargo test --profile ci"],
        "the README's first shell block"
    );
    let first_screen: usize = readme[..start].lines().count();
    assert!(
        first_screen <= 12,
        "the two commands start on line {first_screen} of the README, past its first screen"
    );
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|line| line.trim() == commands[1]),
        ".ci/run does not run the README's test command '{}'",
        commands[1]
    );
    let lines = readme.lines().count();
    assert!(lines <= 200, "the README has {lines} lines; keep it to 200");
}
