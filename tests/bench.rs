//! The bench signature is a test: `marginal bench` must give the recorded node count. A change
//! that alters search behaviour updates `engine::bench::SIGNATURE_NODES` (and the README) in
//! the same commit and says why.

use std::process::Command;

use marginal::engine::bench::SIGNATURE_NODES;

#[test]
fn bench_gives_the_recorded_signature() {
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .arg("bench")
        .output()
        .expect("run marginal bench");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let nodes: u64 = last
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node count in '{last}'"));
    assert_eq!(
        nodes, SIGNATURE_NODES,
        "the bench signature changed: update engine::bench::SIGNATURE_NODES and the README, and say why in the commit"
    );
    // The README quotes the same signature.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let with_commas = SIGNATURE_NODES
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert!(
        readme.contains(&with_commas),
        "README does not quote {with_commas}"
    );
}
