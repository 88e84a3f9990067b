//! The README's inline engine file is a real one: it parses as an engine file, and it is the
//! shipped engines/toga2.toml (the same command, rows and options), comments trimmed.

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
