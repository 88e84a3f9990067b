//! `marginal match --executor slurm` on a real Slurm cluster counts the games a local match
//! counts: the same pairs, statistics and SPRT decision, also when resumed from its PGN. Skipped
//! (saying why) when no Slurm cluster answers; `.ci/slurm up`, as root, starts a single-node one.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::slurm::hold;

/// `marginal match` of default against off at 300 nodes a move, from the bundled book, with
/// `extra` options; its output, checked to have succeeded.
fn match_run(extra: &[&str], json: &Path) -> Output {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings/UHO_4060_v2_2k.epd");
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["match", "--a", "default", "--b", "off", "--openings"])
        .arg(&book)
        .args(["--nodes", "300", "--max-plies", "80", "--concurrency", "2"])
        .args(["--seed", "3", "--hash", "1", "--json"])
        .arg(json)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "marginal match {extra:?}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The report without its wall-clock time: what must not depend on where the games ran.
fn report(path: &Path) -> serde_json::Value {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc.as_object_mut().unwrap().remove("elapsed_seconds");
    doc
}

#[test]
fn a_match_on_slurm_counts_what_a_local_match_counts() {
    let Some(_cluster) = hold("a_match_on_slurm_counts_what_a_local_match_counts") else {
        return;
    };
    let dir = common::scratch("slurm", "match");
    let work = dir.join("work");
    let work = work.to_str().unwrap();
    let slurm = ["--executor", "slurm", "--shards", "2", "--workdir", work];

    // Under an SPRT that decides within a few pairs (3 here), in batches of 2 pairs: the pair
    // played beyond the decision is discarded.
    let sprt = ["--games", "40", "--sprt=-100,100,0.2,0.2"];
    let local_json = dir.join("local-sprt.json");
    match_run(&sprt, &local_json);
    let slurm_json = dir.join("slurm-sprt.json");
    let out = match_run(&[&sprt[..], &slurm[..]].concat(), &slurm_json);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let arrays = stderr.matches("task(s) submitted").count();
    let (local, remote) = (report(&local_json), report(&slurm_json));
    assert_eq!(local, remote);
    let pairs = local["pairs"].as_u64().unwrap();
    assert!(
        (2..20).contains(&pairs),
        "the SPRT did not stop early: {pairs} pairs"
    );
    assert_eq!(
        arrays as u64,
        pairs.div_ceil(2),
        "one job array a batch: {stderr}"
    );
    assert_ne!(local["sprt"]["decision"], "continue");

    // Without an SPRT, 3 pairs: written to a PGN, cut back to its first pair, and resumed on
    // the cluster from there, they end as the local match.
    let open = ["--games", "6"];
    let local_json = dir.join("local.json");
    match_run(&open, &local_json);
    let pgn = dir.join("slurm.pgn");
    let pgn_arg = ["--pgn", pgn.to_str().unwrap()];
    let slurm_json = dir.join("slurm.json");
    match_run(&[&open[..], &slurm[..], &pgn_arg[..]].concat(), &slurm_json);
    let local = report(&local_json);
    assert_eq!(local, report(&slurm_json));
    assert_eq!(local["pairs"], 3);
    let text = std::fs::read_to_string(&pgn).unwrap();
    let third = text.match_indices("[Event ").nth(2).unwrap().0;
    std::fs::write(&pgn, &text[..third]).unwrap();
    let resumed_json = dir.join("resumed.json");
    let out = match_run(
        &[&open[..], &slurm[..], &pgn_arg[..], &["--resume"]].concat(),
        &resumed_json,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Resumed from pair 1: the pairs and games kept.
    common::assert_names(&stdout, &["resume", "1 whole pairs", "2 games"]);
    assert_eq!(local, report(&resumed_json));
    // The same games in the PGN (the date tag aside: a run may cross midnight).
    let undated = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("[Date "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        undated(&std::fs::read_to_string(&pgn).unwrap()),
        undated(&text)
    );
    std::fs::remove_dir_all(dir).unwrap();
}
