//! The measurement scripts of issue 39 (scripts/equal_budget.sh, scripts/confirm_engine.sh,
//! scripts/pool_books.py) and the results tables of issue 40 (scripts/results_tables.py), run
//! with --dry-run or on made-up reports: the commands they would run, the files they would
//! write, and their refusals. No engine is started.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `bash SCRIPT ARGS` from the checkout, writing into `dir` (DIR and MATCHES).
fn script(name: &str, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("bash");
    command
        .arg(root().join("scripts").join(name))
        .args(args)
        .env("DIR", dir.join("work"))
        .env("MATCHES", dir.join("matches"))
        .env("MARGINAL", env!("CARGO_BIN_EXE_marginal"));
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// A tuned file holding only what the scripts read: the games tuned on and the limit.
fn fake_tuned(path: &Path, games: u64, nodes: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = format!(
        r#"{{"provenance": {{"games": {games}, "limit": {{"nodes": {nodes}}}, "solver": "race"}}}}"#
    );
    std::fs::write(path, text).unwrap();
}

fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

fn skip_without_bash_and_python(test: &str) -> bool {
    if have("bash") && have("python3") {
        return false;
    }
    eprintln!("skipping {test}: needs bash and python3 on PATH");
    true
}

/// `equal_budget.sh --dry-run engines/toga2.toml` with DIR's files, its default tune done (its
/// file exists: 320 games at 20,000 nodes): what it prints, once it succeeded.
fn equal_budget_dry_run(dir: &Path) -> String {
    fake_tuned(&dir.join("work/toga2-default.json"), 320, 20000);
    succeeded(script(
        "equal_budget.sh",
        &["--dry-run", "engines/toga2.toml"],
        dir,
        &[],
    ))
}

/// What a script printed on standard output, once it succeeded (else its output and errors).
fn succeeded(out: Output) -> String {
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    said
}

#[test]
fn equal_budget_gives_games_spsa_the_default_tunes_games_and_four_times_them() {
    if skip_without_bash_and_python("equal_budget") {
        return;
    }
    let dir = common::scratch("scripts", "equal");
    let said = equal_budget_dry_run(&dir);
    let tunes = lines_with(&said, " tune ");
    assert_eq!(
        tunes.len(),
        2,
        "the default tune is skipped, two SPSA runs:\n{said}"
    );
    // 320 games at 8 pairs (16 games) an iteration: 20 iterations, and 80 for 4G.
    for (tune, iterations) in tunes.iter().zip(["--iterations 20 ", "--iterations 80 "]) {
        for flag in [
            iterations,
            "--objective games",
            "--solver spsa",
            "--pairs 8",
            "--nodes 20000",
        ] {
            assert!(tune.contains(flag), "{flag} missing in {tune}");
        }
        assert!(
            tune.contains("8mvs_+90_+99_1k.epd"),
            "SPSA tunes on the race's book: {tune}"
        );
    }
    let matches = lines_with(&said, " match ");
    assert_eq!(matches.len(), 9, "three sets on three books:\n{said}");
    for m in &matches {
        assert!(
            !m.contains("8mvs"),
            "a confirmation plays a tuning book: {m}"
        );
        assert!(
            m.contains("--nodes 20000") && m.contains("--b default"),
            "{m}"
        );
    }
    for book in ["noob_3moves_1k", "popularpos_lichess_1k", "UHO_4060_v2_2k"] {
        assert_eq!(
            lines_with(&said, &format!("openings/{book}.epd")).len(),
            3,
            "{book}"
        );
    }
    let pooled = lines_with(&said, "pool_books.py --json");
    assert_eq!(pooled.len(), 3, "{said}");
    assert!(
        pooled.iter().all(|l| l.matches("-20000.json").count() == 4),
        "{said}"
    );
    assert_eq!(lines_with(&said, "budget_table.py").len(), 1, "{said}");
    // A dry run writes nothing.
    assert!(!dir.join("matches").exists());
    assert_eq!(std::fs::read_dir(dir.join("work")).unwrap().count(), 1);
}

/// An equal-budget run stopped in its default set's matches: the book that finished is not
/// played again; the one whose match was interrupted (its report written with fewer games than
/// it asked for) goes on from its PGN instead of being taken as done.
#[test]
fn equal_budget_keeps_a_finished_books_report_and_resumes_an_interrupted_ones() {
    if skip_without_bash_and_python("equal_budget resume") {
        return;
    }
    let dir = common::scratch("scripts", "equal-resume");
    let matches = dir.join("matches");
    std::fs::create_dir_all(&matches).unwrap();
    let report = |book: &str, games: u64| {
        let text = format!(r#"{{"games": {games}, "config": {{"games": 1000}}}}"#);
        let name = format!("toga2-budget-default-{book}-20000.json");
        std::fs::write(matches.join(name), text).unwrap();
    };
    report("noob_3moves_1k", 1000);
    report("popularpos_lichess_1k", 52);
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let pgn = dir.join("work/toga2-budget-default-popularpos_lichess_1k-20000.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n\n1. e4 *\n").unwrap();
    let said = equal_budget_dry_run(&dir);
    let default: Vec<&str> = lines_with(&said, " match ")
        .into_iter()
        .filter(|m| m.contains("toga2-default.json"))
        .collect();
    assert_eq!(
        default.len(),
        2,
        "the finished book is not played again:\n{said}"
    );
    assert!(default.iter().all(|m| !m.contains("noob_3moves")), "{said}");
    assert!(
        default
            .iter()
            .any(|m| m.contains("popularpos_lichess_1k.epd") && m.contains("--resume")),
        "the interrupted book goes on from its PGN:\n{said}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn equal_budget_measures_a_tuned_engine_against_the_baseline_engine_file() {
    if skip_without_bash_and_python("equal_budget baseline") {
        return;
    }
    let dir = common::scratch("scripts", "baseline");
    let out = script(
        "equal_budget.sh",
        &[
            "--dry-run",
            "engines/gnuchess-pruning.toml",
            "engines/gnuchess.toml",
        ],
        &dir,
        &[("DRY_GAMES", "2048")],
    );
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{said}");
    assert!(
        lines_with(&said, " tune ")
            .iter()
            .all(|l| l.contains("--engine engines/gnuchess-pruning.toml"))
    );
    assert!(
        said.contains("--iterations 128 ") && said.contains("--iterations 512 "),
        "{said}"
    );
    for m in lines_with(&said, " match ") {
        assert!(
            m.contains("--a-engine engines/gnuchess-pruning.toml"),
            "{m}"
        );
        assert!(
            m.contains("--b default --b-engine engines/gnuchess.toml"),
            "{m}"
        );
    }
}

/// `confirm_engine.sh --dry-run engines/toga2.toml DIR/set.json` (a set tuned at 10,000 nodes)
/// with DIR's reports and PGNs: what it prints, once it succeeded.
fn confirm_dry_run(dir: &Path) -> String {
    let tuned = dir.join("set.json");
    fake_tuned(&tuned, 0, 10000);
    succeeded(script(
        "confirm_engine.sh",
        &["--dry-run", "engines/toga2.toml", tuned.to_str().unwrap()],
        dir,
        &[],
    ))
}

#[test]
fn confirm_engine_plays_at_the_tuned_limit_and_four_times_it_judged_pooled() {
    if skip_without_bash_and_python("confirm_engine") {
        return;
    }
    let dir = common::scratch("scripts", "confirm");
    let said = confirm_dry_run(&dir);
    let matches = lines_with(&said, " match ");
    assert_eq!(matches.len(), 6, "three books at two limits:\n{said}");
    assert_eq!(lines_with(&said, "--nodes 10000 ").len(), 3);
    assert_eq!(lines_with(&said, "--nodes 40000 ").len(), 3);
    // At least 2,000 games: 700 a book, no early stop.
    assert!(
        matches
            .iter()
            .all(|m| m.contains("--games 700 ") && !m.contains("--sprt"))
    );
    let pooled = lines_with(&said, "pool_books.py");
    assert_eq!(pooled.len(), 2);
    assert!(
        pooled
            .iter()
            .all(|l| l.contains("--sprt 0\\,10\\,0.05\\,0.05")),
        "{said}"
    );
    assert!(!dir.join("matches").exists(), "a dry run writes nothing");
}

#[test]
fn confirm_engine_keeps_a_finished_books_report_and_resumes_an_interrupted_ones() {
    if skip_without_bash_and_python("confirm_engine resume") {
        return;
    }
    let dir = common::scratch("scripts", "confirm-resume");
    // noob_3moves played its 700 games; popularpos_lichess was interrupted at 424, its PGN kept.
    let matches = dir.join("matches");
    std::fs::create_dir_all(&matches).unwrap();
    let report = |book: &str, games: u64| {
        let text = format!(r#"{{"games": {games}, "config": {{"games": 700}}}}"#);
        std::fs::write(matches.join(format!("set-confirm-{book}-10000.json")), text).unwrap();
    };
    report("noob_3moves_1k", 700);
    report("popularpos_lichess_1k", 424);
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let pgn = dir.join("work/set-confirm-popularpos_lichess_1k-10000.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n\n1. e4 *\n").unwrap();
    let said = confirm_dry_run(&dir);
    let at_10000 = lines_with(&said, "--nodes 10000 ");
    assert_eq!(
        at_10000.len(),
        2,
        "the finished book is not played again:\n{said}"
    );
    assert!(
        at_10000.iter().all(|m| !m.contains("noob_3moves")),
        "{said}"
    );
    let popular = lines_with(&said, "popularpos_lichess_1k.epd --seed 5");
    assert!(
        popular
            .iter()
            .any(|m| m.contains("--nodes 10000 ") && m.contains("--resume")),
        "the interrupted book goes on from its PGN:\n{said}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn confirm_engine_rounds_add_games_on_new_openings_and_pool_every_round() {
    if skip_without_bash_and_python("confirm_engine rounds") {
        return;
    }
    let dir = common::scratch("scripts", "confirm-rounds");
    let tuned = dir.join("set.json");
    fake_tuned(&tuned, 0, 10000);
    let rounds = |n: &str| {
        script(
            "confirm_engine.sh",
            &["--dry-run", "engines/toga2.toml", tuned.to_str().unwrap()],
            &dir,
            &[("ROUNDS", n)],
        )
    };
    let said = succeeded(rounds("2"));
    let matches = lines_with(&said, " match ");
    assert_eq!(
        matches.len(),
        12,
        "two rounds of three books at two limits:\n{said}"
    );
    // The second round has its own openings and its own reports; the first is round 1 as before.
    let second: Vec<_> = matches.iter().filter(|m| m.contains("-r2.json")).collect();
    assert_eq!(second.len(), 6, "{said}");
    assert!(second.iter().all(|m| m.contains("--seed 6 ")), "{said}");
    assert_eq!(lines_with(&said, "--seed 5 ").len(), 6, "{said}");
    // Each book's rounds pooled into its report; the SPRT judges every round of every book.
    let per_book = lines_with(&said, "-rounds.json");
    assert_eq!(per_book.len(), 6, "three books at two limits:\n{said}");
    assert!(
        per_book
            .iter()
            .all(|l| l.matches("set-confirm-").count() == 3),
        "{said}"
    );
    let judged = lines_with(&said, "--sprt");
    assert_eq!(judged.len(), 2, "{said}");
    assert!(
        judged.iter().all(|l| l.matches(".json").count() == 7),
        "six reports and the pooled one:\n{said}"
    );
    // A second round played at 10,000 nodes stays pooled when a rerun does not say ROUNDS.
    let matches = dir.join("matches");
    std::fs::create_dir_all(&matches).unwrap();
    std::fs::write(
        matches.join("set-confirm-noob_3moves_1k-10000-r2.json"),
        r#"{"games": 700, "config": {"games": 700}}"#,
    )
    .unwrap();
    let said = succeeded(rounds("1"));
    let judged = lines_with(&said, "--sprt");
    assert!(
        judged[0].contains("-pooled-10000") && judged[0].matches(".json").count() == 7,
        "both rounds at 10,000 nodes:\n{said}"
    );
    assert!(
        judged[1].contains("-pooled-40000") && judged[1].matches(".json").count() == 4,
        "one round at 40,000 nodes:\n{said}"
    );
    // A round count that is not a whole number is refused, naming it.
    let out = rounds("two");
    assert_eq!(out.status.code(), Some(2));
    common::assert_names(&String::from_utf8_lossy(&out.stderr), &["ROUNDS", "two"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn confirm_engine_refuses_a_missing_tuned_file_naming_it() {
    if skip_without_bash_and_python("confirm_engine refusal") {
        return;
    }
    let dir = common::scratch("scripts", "refuse");
    let out = script(
        "confirm_engine.sh",
        &["--dry-run", "engines/toga2.toml", "no-such-set.json"],
        &dir,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    common::assert_names(&said, &["no-such-set.json", "marginal tune"]);
    let out = script(
        "equal_budget.sh",
        &["--dry-run", "engines/none.toml"],
        &dir,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &["engines/none.toml"],
    );
}

fn fake_report(path: &PathBuf, penta: [u64; 5]) {
    let [ll, ld, wl_dd, wd, ww] = penta;
    let wins = wd + 2 * ww;
    let losses = ld + 2 * ll;
    let draws = 2 * (ll + ld + wl_dd + wd + ww) - wins - losses;
    let text = format!(
        r#"{{"pentanomial": {{"ll": {ll}, "ld": {ld}, "wl_dd": {wl_dd}, "wd": {wd}, "ww": {ww}}},
            "wdl": {{"wins": {wins}, "draws": {draws}, "losses": {losses}}}}}"#
    );
    std::fs::write(path, text).unwrap();
}

#[test]
fn pooled_report_names_its_parts_and_the_sprt_verdict() {
    if skip_without_bash_and_python("pool_books") {
        return;
    }
    let dir = common::scratch("scripts", "pool");
    let a = dir.join("set-confirm-noob_3moves_1k-10000.json");
    let b = dir.join("set-confirm-UHO_4060_v2_2k-10000.json");
    fake_report(&a, [20, 100, 400, 180, 60]);
    fake_report(&b, [25, 110, 390, 170, 55]);
    // One book's games lost to engine faults; the other's report has no such field.
    let mut with_faults: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    with_faults["fault_losses"] = serde_json::json!({"a": 3, "b": 5});
    std::fs::write(&b, with_faults.to_string()).unwrap();
    let pooled = dir.join("pooled.json");
    let out = Command::new("python3")
        .arg(root().join("scripts/pool_books.py"))
        .args(["--sprt", "0,10,0.05,0.05", "--json"])
        .arg(&pooled)
        .args([&a, &b])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pooled).unwrap()).unwrap();
    let parts = report["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["report"], a.to_str().unwrap());
    assert_eq!(parts[0]["book"], "noob_3moves_1k");
    assert_eq!(parts[1]["book"], "UHO_4060_v2_2k");
    assert_eq!(report["games"], 2 * (760 + 750));
    assert_eq!(report["pentanomial"]["ll"], 45);
    assert_eq!(report["fault_losses"], serde_json::json!({"a": 3, "b": 5}));
    assert_eq!(
        parts[0]["fault_losses"],
        serde_json::json!({"a": 0, "b": 0})
    );
    // A set this far ahead (about +35 Elo over 1,510 pairs) passes an SPRT of [0, 10].
    assert_eq!(report["sprt"]["decision"], "H1", "{report}");
    let row = String::from_utf8_lossy(&out.stdout);
    assert!(row.contains("LLR") && row.contains("H1"), "{row}");
    assert!(
        report.get("elapsed_seconds").is_none(),
        "no report says its wall time, so the pool says none: {report}"
    );
    // Two rounds of one book pool into that book's report, their wall times summed.
    for (path, seconds) in [(&a, 600.5), (&b, 400.0)] {
        let mut r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        r["elapsed_seconds"] = serde_json::json!(seconds);
        std::fs::write(path, r.to_string()).unwrap();
    }
    let second = dir.join("set-confirm-noob_3moves_1k-10000-r2.json");
    std::fs::copy(&a, &second).unwrap();
    let out = Command::new("python3")
        .arg(root().join("scripts/pool_books.py"))
        .arg("--json")
        .arg(&pooled)
        .args([&a, &second])
        .output()
        .unwrap();
    let row = String::from_utf8_lossy(&out.stdout);
    assert!(row.contains("pooled (2 reports, 1 book)"), "{row}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pooled).unwrap()).unwrap();
    assert_eq!(report["elapsed_seconds"], 1201.0);
    // Bad --sprt bounds: exit 2 saying what to give.
    let out = Command::new("python3")
        .arg(root().join("scripts/pool_books.py"))
        .args(["--sprt", "10,0"])
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &["--sprt", "ELO0,ELO1,ALPHA,BETA"],
    );
}

/// A checkout holding only a page with a results-table region and the report it is written
/// from (a confirmation split by book, as scripts/confirm_books.py --json writes it).
fn results_checkout(name: &str) -> PathBuf {
    let dir = common::scratch("scripts", name);
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::create_dir_all(dir.join("tuned/matches")).unwrap();
    std::fs::write(dir.join("README.md"), "# x\n").unwrap();
    std::fs::write(
        dir.join("docs/page.md"),
        "Toga's confirmation:\n\n<!-- results-table:begin toga-confirm -->\nold\n<!-- results-table:end -->\n\nafter\n",
    )
    .unwrap();
    let part = |book: &str, elo: f64| {
        format!(
            r#"{{"book": "{book}", "games": 100, "draws": 25, "pentanomial": {{"ll": 5, "ld": 10, "wl_dd": 20, "wd": 10, "ww": 5}},
                "elo": {{"elo": {elo}, "lower": -30.04, "upper": 40.06, "nelo": 6.0, "nelo_lower": -1.0, "nelo_upper": 9.0}}}}"#
        )
    };
    let books = ["noob_3moves_1k", "popularpos_lichess_1k", "UHO_4060_v2_2k"]
        .map(|b| part(b, 5.04))
        .join(", ");
    std::fs::write(
        dir.join("tuned/matches/toga2-spsa-games-confirm-books.json"),
        format!(
            r#"{{"format": "marginal-books/1", "source": "tuned/toga2-spsa-games.json", "books": [{books}], "pooled": {}}}"#,
            part("pooled (3 books)", 4.96)
        ),
    )
    .unwrap();
    dir
}

/// docs/page.md of `dir` once scripts/results_tables.py has written it (and succeeded).
fn written_page(dir: &Path) -> String {
    let out = results_tables(dir, false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("docs/page.md")).unwrap()
}

fn results_tables(dir: &Path, check: bool) -> Output {
    let mut command = Command::new("python3");
    command
        .arg(root().join("scripts/results_tables.py"))
        .arg("--root")
        .arg(dir);
    if check {
        command.arg("--check");
    }
    command.output().unwrap()
}

#[test]
fn results_tables_writes_each_region_from_its_report_and_says_when_one_is_stale() {
    if skip_without_bash_and_python("results_tables") {
        return;
    }
    let dir = results_checkout("results-tables");
    // Stale before it is written: --check names the page and line, and writes nothing.
    let out = results_tables(&dir, true);
    assert_eq!(out.status.code(), Some(1));
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &["docs/page.md:3", "toga-confirm", "results_tables.py"],
    );
    let page = written_page(&dir);
    assert!(
        page.contains("from: tuned/matches/toga2-spsa-games-confirm-books.json"),
        "{page}"
    );
    assert!(
        page.contains("| noob_3moves_1k | 100 | +5.0 [-30.0, +40.1] |"),
        "{page}"
    );
    assert!(
        page.contains("**+5.0 [-30.0, +40.1]**") && !page.contains("old"),
        "{page}"
    );
    assert!(
        page.starts_with("Toga's confirmation:") && page.ends_with("after\n"),
        "{page}"
    );
    assert!(results_tables(&dir, true).status.success());
}

/// The equal-budget table of an engine whose run is under way: the default tune's row with the
/// books it has played, the games SPSA rows said to be not yet tuned; without the default tune
/// the region is refused naming the file and the script that makes it.
#[test]
fn results_tables_writes_the_equal_budget_table_and_says_what_is_not_yet_run() {
    if skip_without_bash_and_python("results_tables budget") {
        return;
    }
    let dir = results_checkout("results-tables-budget");
    std::fs::write(
        dir.join("docs/page.md"),
        "<!-- results-table:begin budget glaurung -->\n<!-- results-table:end -->\n",
    )
    .unwrap();
    let out = results_tables(&dir, false);
    assert_eq!(out.status.code(), Some(2));
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &[
            "tuned/budget/glaurung-default.json",
            "scripts/equal_budget.sh",
        ],
    );
    std::fs::create_dir_all(dir.join("tuned/budget")).unwrap();
    std::fs::write(
        dir.join("tuned/budget/glaurung-default.json"),
        r#"{"margins": {"a": 18, "b": 35}, "tuned": ["a", "b"],
            "provenance": {"games": 2864, "wall_seconds": 1000.4, "earlier_wall_seconds": 70.0,
                           "cpu_seconds": 2011.6, "limit": {"nodes": 10000}}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("tuned/matches/glaurung-budget-default-noob_3moves_1k-10000.json"),
        r#"{"games": 700, "draws": 200, "elo": {"elo": 24.36, "lower": 2.05, "upper": 46.87, "nelo": 28.1}}"#,
    )
    .unwrap();
    let page = written_page(&dir);
    assert!(
        page.contains("from: tuned/budget/glaurung-default.json tuned/matches/glaurung-budget-default-noob_3moves_1k-10000.json -->"),
        "{page}"
    );
    assert!(
        page.contains("| 18 / 35 | 2,864 | 1,070 s | 2,012 s | +24.4 [+2.0, +46.9] | not yet played | not yet played | not yet played |"),
        "{page}"
    );
    assert_eq!(page.matches("| not yet tuned |").count(), 2, "{page}");
    // A book whose match was interrupted gives no figure until it ends.
    std::fs::write(
        dir.join("tuned/matches/glaurung-budget-default-UHO_4060_v2_2k-10000.json"),
        r#"{"games": 52, "draws": 9, "config": {"games": 1000}, "elo": {"elo": -26.8, "lower": -121.6, "upper": 64.1, "nelo": -30.0}}"#,
    )
    .unwrap();
    let page = written_page(&dir);
    assert!(
        page.contains("| not yet played | under way (52 of 1,000 games) |")
            && !page.contains("-26.8"),
        "{page}"
    );
    assert!(results_tables(&dir, true).status.success());
}

#[test]
fn results_tables_refuses_an_unreadable_report_naming_it() {
    if skip_without_bash_and_python("results_tables refusal") {
        return;
    }
    let dir = results_checkout("results-tables-bad");
    let report = dir.join("tuned/matches/toga2-spsa-games-confirm-books.json");
    std::fs::write(&report, "{\"books\": [").unwrap();
    let out = results_tables(&dir, false);
    assert_eq!(out.status.code(), Some(2));
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &[
            "tuned/matches/toga2-spsa-games-confirm-books.json",
            "not a readable JSON report",
        ],
    );
    let page = std::fs::read_to_string(dir.join("docs/page.md")).unwrap();
    assert!(page.contains("\nold\n"), "nothing is written: {page}");
    // A report without the fields the table needs is named with the field.
    std::fs::write(&report, r#"{"format": "marginal-books/1", "source": "x"}"#).unwrap();
    let out = results_tables(&dir, false);
    assert_eq!(out.status.code(), Some(2));
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &["toga2-spsa-games-confirm-books.json", "books"],
    );
}

#[test]
fn confirm_books_writes_the_split_as_a_report_naming_its_source() {
    if skip_without_bash_and_python("confirm_books --json") {
        return;
    }
    let dir = common::scratch("scripts", "confirm-books");
    // Six pairs of a confirmation: pair i from book i mod 3; book 0 wins both its pairs.
    let games: Vec<String> = (0..6)
        .flat_map(|pair| {
            let result = if pair % 3 == 0 { "Win" } else { "Draw" };
            (0..2).map(move |g| {
                format!(
                    r#"{{"pair": {pair}, "game": {g}, "opening": "x", "a_result": "{result}"}}"#
                )
            })
        })
        .collect();
    let tuned = dir.join("tuned.json");
    std::fs::write(
        &tuned,
        format!(
            r#"{{"confirm": {{"game_results": [{}]}}}}"#,
            games.join(", ")
        ),
    )
    .unwrap();
    let split = dir.join("split.json");
    let out = Command::new("python3")
        .arg(root().join("scripts/confirm_books.py"))
        .arg("--json")
        .arg(&split)
        .arg(&tuned)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&split).unwrap()).unwrap();
    assert_eq!(report["format"], "marginal-books/1");
    assert_eq!(report["source"], tuned.to_str().unwrap());
    assert_eq!(report["books"][0]["book"], "noob_3moves_1k");
    assert_eq!(report["books"][0]["pentanomial"]["ww"], 2, "{report}");
    assert_eq!(report["books"][1]["draws"], 4, "{report}");
    assert_eq!(report["pooled"]["games"], 12, "{report}");
    assert!(
        report["pooled"]["elo"]["elo"].as_f64().unwrap() > 0.0,
        "{report}"
    );
    // A file that is not JSON is named.
    std::fs::write(&tuned, "{").unwrap();
    let out = Command::new("python3")
        .arg(root().join("scripts/confirm_books.py"))
        .arg(&tuned)
        .output()
        .unwrap();
    assert!(!out.status.success());
    common::assert_names(
        &String::from_utf8_lossy(&out.stderr),
        &[tuned.to_str().unwrap(), "not a readable JSON report"],
    );
}
