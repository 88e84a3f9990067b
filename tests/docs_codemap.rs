//! The code map of docs/contributing.md is true of the code: every path it names exists (a file or folder
//! under `src/`, or a top-level folder), and every module folder and file directly under
//! `src/` is in it.

use std::path::Path;

/// The code map: docs/contributing.md's `text` block that starts with `src/params.rs`.
fn code_map() -> Vec<String> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/contributing.md"))
            .unwrap();
    let start = page
        .find("```text\nsrc/params.rs")
        .expect("docs/contributing.md has a code map");
    let block = &page[start + "```text\n".len()..];
    let end = block.find("```").unwrap();
    block[..end].lines().map(str::to_string).collect()
}

#[test]
fn every_path_in_the_code_map_exists_and_every_module_is_in_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut parent = String::new();
    let mut named = Vec::new();
    for line in code_map() {
        if line.starts_with(' ') {
            // Indented: names under the last top-level folder, before the description.
            let names = line.trim_start();
            if names.starts_with(|c: char| c.is_lowercase()) && line.starts_with("  ") {
                let column: String = line.chars().take(21).collect();
                for name in column.split_whitespace() {
                    if name.ends_with(".rs") || name.ends_with('/') {
                        named.push(format!("{parent}{name}"));
                    }
                }
            }
            continue;
        }
        let Some(path) = line.split_whitespace().next() else {
            continue;
        };
        if path.ends_with('/') {
            parent = path.to_string();
        }
        named.push(path.to_string());
    }
    assert!(named.len() >= 20, "{named:?}");
    for path in &named {
        assert!(
            root.join(path).exists(),
            "the code map names {path}, which is not there"
        );
    }
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        if name == "lib.rs" || name == "main.rs" {
            continue;
        }
        let shown = if entry.path().is_dir() {
            format!("src/{name}/")
        } else {
            format!("src/{name}")
        };
        assert!(
            named.contains(&shown),
            "{shown} is not in the code map of docs/contributing.md"
        );
    }
}
