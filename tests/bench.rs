//! The bench signature is a test: `marginal bench` must give the recorded node count. A change
//! that alters search behaviour updates `engine::bench::SIGNATURE_NODES` (and docs/engine.md) in
//! the same commit and says why. What bench says of the margins it is given names options
//! bench has.

mod common;

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
        "the bench signature changed: update engine::bench::SIGNATURE_NODES and docs/engine.md, and say why in the commit"
    );
    // The engine's page quotes the same signature.
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/engine.md")).unwrap();
    let with_commas = SIGNATURE_NODES
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert!(
        page.contains(&with_commas),
        "docs/engine.md does not quote {with_commas}"
    );
}

/// bench has no --set: the tip for a margin whose switch is off names the assignment that
/// turns it on, and no option bench lacks.
#[test]
fn a_tip_for_a_margin_switched_off_names_the_assignment() {
    let dir = common::scratch("bench", "tip");
    let out = common::marginal(
        &[
            "bench",
            "--depth",
            "1",
            "--margins",
            "futility=0,frontier=10",
        ],
        &dir,
    );
    let text = common::said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // The assignment that turns it on, and no option bench lacks.
    common::assert_names(&text, &["futility=1"]);
    common::assert_omits(&text, &["--set"]);
    std::fs::remove_dir_all(dir).unwrap();
}
