// SPDX-License-Identifier: GPL-3.0-or-later
//! Parses the real EPD suites shipped with the project data and checks that
//! every line is accounted for.
//!
//! The suites are the ones shipped in `data/suites`.

use std::collections::HashSet;
use std::path::PathBuf;

use marginal::formats::epd::{ParsedSuite, parse_file};
use shakmaty::uci::UciMove;

fn suites_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/suites")
}

/// Parses `name` and checks records + skipped + blank/comment == lines.
fn load(name: &str) -> ParsedSuite {
    let path = suites_dir().join(name);
    let suite = parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    let total = text.lines().count();
    let ignored = text
        .lines()
        .filter(|l| {
            let t = l.trim_matches(|c: char| c.is_whitespace() || c.is_control());
            t.is_empty() || t.starts_with('#')
        })
        .count();
    for s in &suite.skipped {
        eprintln!("skipped {s}\n    {}", s.text);
    }
    assert_eq!(
        suite.records.len() + suite.skipped.len() + ignored,
        total,
        "{name}: lines lost"
    );

    // Line numbers are distinct, increasing and within the file.
    let mut lines: Vec<usize> = suite.records.iter().map(|r| r.line).collect();
    lines.extend(suite.skipped.iter().map(|s| s.line));
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), suite.records.len() + suite.skipped.len());
    assert!(lines.iter().all(|&l| (1..=total).contains(&l)));

    // Every record has an id and something to test, and its FEN has 4 or 6
    // fields.
    for r in &suite.records {
        assert!(r.id.is_some(), "{name}:{}: no id", r.line);
        assert!(!r.best_moves.is_empty() || !r.avoid_moves.is_empty() || !r.points.is_empty());
        let fields = r.fen.split(' ').count();
        assert!(fields == 4 || fields == 6, "{name}:{}: {}", r.line, r.fen);
    }
    suite
}

fn uci(m: &shakmaty::Move) -> String {
    UciMove::from_standard(*m).to_string()
}

#[test]
fn wac_loads_all_300_positions_with_their_moves_and_ids() {
    let suite = load("wac.epd");
    assert!(suite.skipped.is_empty());
    assert_eq!(suite.records.len(), 300);
    let first = &suite.records[0];
    assert_eq!(first.id.as_deref(), Some("WAC.001"));
    assert_eq!(
        first.best_moves.iter().map(uci).collect::<Vec<_>>(),
        ["g3g6"]
    );
    // The two comment c0s are not points.
    assert!(suite.records.iter().all(|r| r.points.is_empty()));
    let with_am: Vec<_> = suite
        .records
        .iter()
        .filter(|r| !r.avoid_moves.is_empty())
        .collect();
    assert_eq!(with_am.len(), 1);
    assert_eq!(with_am[0].id.as_deref(), Some("WAC.274"));
    let ids: HashSet<_> = suite.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids.len(), 300);
}

#[test]
fn bratko_kopec_loads_its_24_positions_numbered_in_order() {
    let suite = load("bk.epd");
    assert!(suite.skipped.is_empty());
    assert_eq!(suite.records.len(), 24);
    let bk01 = &suite.records[0];
    assert_eq!(bk01.id.as_deref(), Some("BK.01"));
    assert_eq!(bk01.fen, "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - -");
    assert_eq!(
        bk01.best_moves.iter().map(uci).collect::<Vec<_>>(),
        ["d6d1"]
    );
    for (i, r) in suite.records.iter().enumerate() {
        assert_eq!(r.id.as_deref(), Some(format!("BK.{:02}", i + 1).as_str()));
    }
    let bk05 = &suite.records[4];
    assert_eq!(bk05.best_moves.len(), 2);
}

#[test]
fn ecm_loads_all_879_positions() {
    let suite = load("ecm.epd");
    assert!(suite.skipped.is_empty());
    assert_eq!(suite.records.len(), 879);
}

#[test]
fn sts_loads_1500_positions_whose_best_moves_score_the_most_points() {
    let suite = load("sts.epd");
    assert!(suite.skipped.is_empty());
    // 15 themes of 100 positions (the data README says 1499 because the
    // file has no final newline, so `wc -l` counts one line short).
    assert_eq!(suite.records.len(), 1500);
    for r in &suite.records {
        assert!(!r.points.is_empty(), "line {}: no points", r.line);
        // c9 lists the same moves as c0, in order.
        let c9 = &r.ops.iter().find(|(op, _)| op == "c9").unwrap().1;
        let from_points: Vec<String> = r.points.iter().map(|(m, _)| uci(m)).collect();
        let listed: Vec<&str> = c9.split_whitespace().collect();
        assert_eq!(from_points, listed, "line {}", r.line);
        // The best move is a top-scoring move, worth 10.
        let top = r.points.iter().map(|&(_, p)| p).max().unwrap();
        assert_eq!(top, 10, "line {}", r.line);
        for bm in &r.best_moves {
            assert!(
                r.points.iter().any(|(m, p)| m == bm && *p == top),
                "line {}: bm not top-scoring",
                r.line
            );
        }
    }
}
