//! `marginal check` as an engine's CI runs it: the shipped sets hold (exit 0), a set made worse
//! regresses (exit 1) with the suites, positions and figures named, and unusable input is
//! exit 2 with the file and line named.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{assert_names, assert_omits, marginal, scratch};
use marginal::check::{CheckReport, FindingKind, GamesCheck, Verdict};
use marginal::params::PARAMS;
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn shipped(name: &str) -> Value {
    let text = std::fs::read_to_string(root().join("tuned").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap() + "\n").unwrap();
    path
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

fn report(path: &Path) -> CheckReport {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `marginal check FILE --json DIR/STEM-report.json`: what it printed and its report.
fn check_with_report(dir: &Path, file: &Path) -> (Output, CheckReport) {
    let stem = file.file_stem().unwrap().to_string_lossy();
    check_with(dir, file, &[], &format!("{stem}-report.json"))
}

/// `marginal check FILE EXTRA... --json DIR/JSON`: what it printed and its report.
fn check_with(dir: &Path, file: &Path, extra: &[&str], json: &str) -> (Output, CheckReport) {
    let json = dir.join(json);
    let mut args = vec!["check", file.to_str().unwrap()];
    args.extend(extra);
    args.extend(["--json", json.to_str().unwrap()]);
    let out = marginal(&args, dir);
    (out, report(&json))
}

/// The shipped file with every tuned margin at `pick(min, max)` of its table range.
fn with_tuned_margins(pick: fn(i32, i32) -> i32) -> Value {
    let mut file = shipped("spsa-suite.json");
    let tuned: Vec<String> = file["tuned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    for name in tuned {
        let spec = PARAMS.iter().find(|p| p.name == name).unwrap();
        file["margins"][&name] = pick(spec.min, spec.max).into();
    }
    file
}

#[test]
fn every_shipped_set_holds_and_reproduces_exactly() {
    let dir = scratch("check", "shipped");
    for entry in std::fs::read_dir(root().join("tuned")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        // A set tuned for an external engine needs that engine (.ci/run checks it where the
        // engine is installed); the tests need no engine but marginal.
        let recorded: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if recorded.get("engine").is_some() {
            continue;
        }
        let (out, r) = check_with_report(&dir, &path);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert_eq!(r.verdict, Verdict::Holds);
        assert!(
            r.engine.same,
            "{}: measured by another engine",
            path.display()
        );
        // Same engine: every figure and every position comes out as recorded.
        for side in &r.sides {
            assert!(side.changed.is_empty(), "{}", path.display());
            assert_eq!(side.sets.len(), 3);
            for set in &side.sets {
                assert_eq!(set.recorded, set.now, "{} {}", path.display(), set.name);
            }
        }
    }
}

#[test]
fn a_set_at_its_minimum_margins_is_caught_and_the_changed_positions_are_named() {
    let dir = scratch("check", "minimum");
    let file = write(&dir, "min.json", &with_tuned_margins(|min, _| min));
    let (out, r) = check_with_report(&dir, &file);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    // The verdict, the suite whose positions changed, and (campaign 18 H029) the last word
    // names the edit and the command that records it.
    let record = format!("marginal check {} --update", file.display());
    assert_names(
        &said,
        &["regressed", "edited", "data/suites/wac.epd", &record],
    );
    assert!(!r.margins_as_measured);
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::NotReproduced)
    );
    // The changed positions carry their FEN and the move before and now; the printed lines
    // show the solved/unsolved flips first.
    let changed = &r.sides[1].changed;
    let c = changed
        .iter()
        .find(|c| c.before.solved != c.now.solved)
        .unwrap();
    assert!(said.contains(&c.fen), "{said}");
    assert_ne!(c.before, c.now);
    assert!(
        changed.iter().all(|c| c.set == "tuned"),
        "only the tuned set moved"
    );
}

#[test]
fn a_worse_set_under_another_engine_fails_on_the_statistics() {
    // Every margin at its maximum prunes (almost) nothing: fewer solutions at the recorded node
    // budget. A foreign signature makes check judge by the statistics alone.
    let dir = scratch("check", "maximum");
    let mut value = with_tuned_margins(|_, max| max);
    value["measured"]["engine_signature"] = "0123456789abcdef".into();
    let file = write(&dir, "max.json", &value);
    let (out, r) = check_with_report(&dir, &file);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    // It names the recorded signature and says it judges by the statistics.
    assert_names(&said, &["0123456789abcdef", "statistics"]);
    assert!(!r.engine.same);
    let kinds: Vec<FindingKind> = r.findings.iter().map(|f| f.kind).collect();
    assert!(!kinds.contains(&FindingKind::NotReproduced), "{kinds:?}");
    assert!(kinds.contains(&FindingKind::FewerSolved), "{kinds:?}");
    assert!(kinds.contains(&FindingKind::WorseThanBaseline), "{kinds:?}");
    let validation = &r.sides[1];
    assert!(validation.tuned_now_vs_recorded.only_b > validation.tuned_now_vs_recorded.only_a);
    // The finding names the suites and their figures.
    let fewer = r
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::FewerSolved)
        .unwrap();
    assert_names(&fewer.message, &["data/suites/ecm.epd"]);
}

#[test]
fn unusable_files_are_exit_2_naming_the_file_and_line() {
    let dir = scratch("check", "unusable");
    let good = std::fs::read_to_string(root().join("tuned/spsa-suite.json")).unwrap();
    let run = |name: &str, contents: &str| -> String {
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        let out = marginal(&["check", path.to_str().unwrap()], &dir);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {said}");
        said
    };
    let at = |name: &str, line: usize| format!("{}:{line}:", dir.join(name).display());
    // Corrupt: a stray character on line 3.
    let corrupt = good.replacen("\"margins\": {", "\"margins\": {]", 1);
    assert_names(&run("corrupt.json", &corrupt), &[&at("corrupt.json", 3)]);
    // Truncated half way: the error names the last line.
    let half = &good[..good.len() / 2];
    let said = run("truncated.json", half);
    assert_names(&said, &[&at("truncated.json", half.lines().count())]);
    // A future version of the format: the version it holds, the one read, the fix.
    let future = good.replacen("marginal-tuned/1", "marginal-tuned/2", 1);
    let said = run("future.json", &future);
    let versions = ["marginal-tuned/2", "marginal-tuned/1", "newer marginal"];
    assert_names(
        &said,
        &[&[at("future.json", 2).as_str()][..], &versions].concat(),
    );
    // A margin out of its range, on its own line.
    let line = good
        .lines()
        .position(|l| l.starts_with("    \"razor_margin\""))
        .unwrap()
        + 1;
    let bad = good.replacen("\"razor_margin\": 989", "\"razor_margin\": 99999", 1);
    let said = run("range.json", &bad);
    assert_names(&said, &[&at("range.json", line), "razor_margin", "99999"]);
    // Missing.
    let out = marginal(&["check", "tuned/no-such.json"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&text(&out), &["tuned/no-such.json"]);
}

#[test]
fn changed_or_missing_suites_are_exit_2() {
    let dir = scratch("check", "suites");
    std::fs::create_dir_all(dir.join("data/suites")).unwrap();
    let wac = std::fs::read_to_string(root().join("data/suites/wac.epd")).unwrap();
    // One position's solution changed: the content hash differs.
    std::fs::write(
        dir.join("data/suites/wac.epd"),
        wac.replacen("bm Qg6", "bm Qh5", 1),
    )
    .unwrap();
    std::fs::copy(
        root().join("data/suites/ecm.epd"),
        dir.join("data/suites/ecm.epd"),
    )
    .unwrap();
    let file = write(&dir, "t.json", &shipped("spsa-suite.json"));
    let run_in = |cwd: &Path| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(["check", file.to_str().unwrap()])
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .current_dir(cwd)
            .output()
            .unwrap()
    };
    let out = run_in(&dir);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    // The suite and its recorded hash.
    assert_names(&said, &["data/suites/wac.epd", "be02b2a0960f8a30"]);
    // Found through the tuned file's directory too (the working directory is elsewhere).
    let elsewhere = scratch("check", "elsewhere");
    let out = run_in(&elsewhere);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&text(&out), &["data/suites/wac.epd", "be02b2a0960f8a30"]);
    // Missing: neither here, nor beside the file, nor bundled in the binary.
    let mut gone = shipped("spsa-suite.json");
    for side in ["training", "validation"] {
        gone["provenance"]["suites"][side][0]["path"] = "suites/gone.epd".into();
    }
    let gone = write(&dir, "gone.json", &gone);
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["check", gone.to_str().unwrap()])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert_names(
        &said,
        &[gone.to_str().unwrap(), "suites/gone.epd", "not found"],
    );
    // A bundled suite missing from disk is read from the binary: the record holds.
    std::fs::remove_file(dir.join("data/suites/wac.epd")).unwrap();
    let out = run_in(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The file names no rule for repeated positions, so it is checked counting them each time
    // (as it was made); told to count them once it no longer matches, and says why.
    let mut once = shipped("spsa-suite.json");
    assert!(once["provenance"]["suites"].get("repeats").is_none());
    once["provenance"]["suites"]["repeats"] = "once".into();
    let once = write(&dir, "once.json", &once);
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["check", once.to_str().unwrap()])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    // The side, the count now and the count recorded.
    assert_names(&said, &["training", "805", "810"]);
}

#[test]
fn a_sample_measures_only_its_positions_and_each_must_come_out_as_recorded() {
    let dir = scratch("check", "sample");
    let check = |file: &Path, json: &str| check_with(&dir, file, &["--sample", "40"], json);
    // The shipped file holds on its sample, which is 40 positions a side, the same each run.
    let shipped_file = root().join("tuned/spsa-suite.json");
    let (out, r) = check(&shipped_file, "holds.json");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let sample = r.sample.unwrap();
    assert_eq!(
        (sample.asked, sample.training.0, sample.validation.0),
        (40, 40, 40)
    );
    assert_eq!(
        sample.training.1,
        shipped("spsa-suite.json")["training"]["positions"]
    );
    assert!(
        r.sides
            .iter()
            .all(|s| s.positions == 40 && s.changed.is_empty())
    );
    assert_names(&text(&out), &["--sample 40: 40 of", "verdict: holds"]);
    let (_, again) = check(&shipped_file, "again.json");
    assert_eq!(again.sides, r.sides);
    // Every recorded tuned outcome of training made one node larger: the sample finds its own
    // 40 moved and no other, and the check regresses as a whole check would.
    let mut edited = shipped("spsa-suite.json");
    for p in edited["training"]["sets"][0]["positions"]
        .as_array_mut()
        .unwrap()
    {
        p["nodes"] = (p["nodes"].as_u64().unwrap() + 1).into();
    }
    let file = write(&dir, "edited.json", &edited);
    let (out, r) = check(&file, "edited-report.json");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(r.sides[0].changed.len(), 40);
    assert!(r.sides[0].changed.iter().all(|c| c.set == "tuned"));
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::NotReproduced)
    );
    // A sample cannot update a file's figures.
    let out = marginal(
        &[
            "check",
            file.to_str().unwrap(),
            "--sample",
            "40",
            "--update",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn update_records_outcomes_and_a_deliberate_change() {
    let dir = scratch("check", "update");
    // A file from before outcomes were recorded: check refuses it and names --update.
    let mut old = shipped("spsa-suite.json");
    for side in ["training", "validation"] {
        for set in old[side]["sets"].as_array_mut().unwrap() {
            set.as_object_mut().unwrap().remove("positions");
        }
    }
    old.as_object_mut().unwrap().remove("measured");
    let file = write(&dir, "old.json", &old);
    let out = marginal(&["check", file.to_str().unwrap()], &dir);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_names(&text(&out), &[file.to_str().unwrap(), "--update"]);
    let out = marginal(&["check", file.to_str().unwrap(), "--update"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // It now holds what the shipped file holds (the same engine measured both), up to the
    // record of who measured it.
    let without_measured = |mut v: Value| {
        v.as_object_mut().unwrap().remove("measured");
        v
    };
    let updated: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(updated["measured"]["command_line"].is_string());
    assert_eq!(
        without_measured(updated),
        without_measured(shipped("spsa-suite.json"))
    );
    let out = marginal(&["check", file.to_str().unwrap()], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // A deliberate change of margins: regressed, then --update records it and it holds.
    let changed = write(&dir, "changed.json", &with_tuned_margins(|min, _| min));
    let out = marginal(&["check", changed.to_str().unwrap(), "--update"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_names(&text(&out), &[changed.to_str().unwrap(), "regressed"]);
    let out = marginal(&["check", changed.to_str().unwrap()], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// The positions a side of the games checks' suites: the games are what those tests are about
/// (the whole check is tested above).
const GAMES_SAMPLE: &str = "20";

/// `marginal check FILE --sample GAMES_SAMPLE --games N EXTRA... --json DIR/NAME`: what it
/// printed (it must exit 0) and the games of its report.
fn check_games(
    dir: &Path,
    file: &str,
    games: &str,
    extra: &[&str],
    name: &str,
) -> (String, GamesCheck) {
    let json = dir.join(name);
    let mut args = vec!["check", file, "--sample", GAMES_SAMPLE, "--games", games];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--json", json.to_str().unwrap()]);
    let out = marginal(&args, dir);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    (said, report(&json).games.unwrap())
}

#[test]
fn games_add_a_non_regression_sprt() {
    let dir = scratch("check", "games");
    // An odd count is rounded up to whole pairs, and said once.
    let (said, games) = check_games(&dir, "tuned/spsa-suite.json", "3", &[], "report.json");
    assert_eq!(
        said.matches("--games 3 rounded up to 4").count(),
        1,
        "{said}"
    );
    assert_names(&said, &["SPRT", "-1.75", "0.25"]);
    assert_eq!(games.report.games, 4);
    // The books of a confirmation: both balanced books and UHO, pairs in turn.
    assert_eq!(games.openings.len(), 3, "{:?}", games.openings);
    for book in ["noob_3moves", "popularpos_lichess", "UHO_4060_v2"] {
        assert!(
            games.openings.iter().any(|b| b.contains(book)),
            "{book} not in {:?}",
            games.openings
        );
    }
    let sprt = games.report.sprt.unwrap();
    assert_eq!((sprt.params.elo0, sprt.params.elo1), (-1.75, 0.25));
    let out = marginal(&["check", "tuned/spsa-suite.json", "--games", "0"], &dir);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn games_play_the_books_given_and_not_the_tuning_book() {
    let dir = scratch("check", "books");
    // A games tune's own book (UHO for spsa-games) is left out of the default books.
    let (_, games) = check_games(&dir, "tuned/spsa-games.json", "2", &[], "games.json");
    let played = games.openings;
    assert_eq!(played.len(), 2, "{played:?}");
    assert_omits(&played.join(" "), &["UHO"]);

    let book = root().join("data/openings/8mvs_+90_+99_1k.epd");
    let (said, games) = check_games(
        &dir,
        "tuned/spsa-suite.json",
        "2",
        &["--openings", book.to_str().unwrap()],
        "given.json",
    );
    assert_names(&said, &["8mvs_+90_+99_1k.epd"]);
    assert_eq!(games.openings.len(), 1);

    let out = marginal(
        &[
            "check",
            "tuned/spsa-suite.json",
            "--games",
            "2",
            "--openings",
            "no-such.epd",
        ],
        &dir,
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert_names(&said, &["no-such.epd"]);
}

/// An interrupted `check --games` keeps the pairs that finished (in the cache): the rerun says
/// it resumes, plays only the rest, and its games begin with those kept; the record goes once
/// the match has ended.
#[test]
fn an_interrupted_games_check_keeps_its_pairs() {
    let dir = scratch("check", "games-cut");
    let cache = dir.join("cache");
    // The command check_games reruns: the same arguments find the same record.
    let args = [
        "check",
        "tuned/spsa-suite.json",
        "--sample",
        GAMES_SAMPLE,
        "--games",
        "30",
    ];
    let record = || {
        std::fs::read_dir(&cache).ok().and_then(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "pgn"))
        })
    };
    let pairs = || {
        record().map_or(0, |p| {
            std::fs::read_to_string(p)
                .unwrap()
                .matches("[Event ")
                .count()
                / 2
        })
    };
    let child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", &cache)
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let cut = common::interrupt_when(child, std::time::Duration::from_secs(300), || pairs() >= 3);
    let stderr = String::from_utf8_lossy(&cut.stderr);
    assert_names(&stderr, &["--games", "kept in the cache"]);
    let kept = std::fs::read_to_string(record().expect("the record is kept")).unwrap();
    let (said, games) = check_games(&dir, "tuned/spsa-suite.json", "30", &[], "report.json");
    // Where it resumes from and how many of the pairs were played.
    assert_names(&said, &["resuming", cache.to_str().unwrap(), "of 15 pairs"]);
    assert_eq!(games.report.games, 30);
    let kept_results: Vec<&str> = kept
        .lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|l| l.trim_end_matches("\"]"))
        .collect();
    assert!(kept_results.len() >= 6, "{kept}");
    for (game, result) in games.report.game_results.iter().zip(&kept_results) {
        assert_eq!(game.result.pgn(), *result);
    }
    assert_eq!(
        record(),
        None,
        "the record is removed once the match has ended"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A cache that cannot hold the record of `--games` costs only the keeping: the games are
/// played, and a warning says an interrupt would lose them.
#[test]
fn games_are_played_when_the_cache_cannot_keep_them() {
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args([
            "check",
            "tuned/spsa-suite.json",
            "--sample",
            GAMES_SAMPLE,
            "--games",
            "2",
        ])
        .env("MARGINAL_CACHE_DIR", "/dev/null/cache")
        .current_dir(root())
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    // The place that cannot hold them, then the games.
    assert_names(
        &said,
        &["warning", "/dev/null/cache/check-games-", "2 games"],
    );
}

/// `check --update` of a file that holds changes nothing in it, and says so.
#[test]
fn update_of_a_file_that_holds_leaves_it_as_it_is() {
    let dir = scratch("check", "update-holds");
    let text = std::fs::read_to_string(root().join("tuned/spsa-suite.json")).unwrap();
    let same = dir.join("same.json");
    std::fs::write(&same, &text).unwrap();
    let out = marginal(&["check", same.to_str().unwrap(), "--update", "-q"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", common::said(&out));
    assert_names(
        &common::said(&out),
        &[same.to_str().unwrap(), "left as it is"],
    );
    assert_eq!(std::fs::read_to_string(&same).unwrap(), text);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `check --games` with a book shorter than its pairs is refused, naming how many openings
/// the book has.
#[test]
fn games_with_a_book_shorter_than_the_pairs_are_refused() {
    let dir = scratch("check", "short-book");
    let same = dir.join("same.json");
    std::fs::copy(root().join("tuned/spsa-suite.json"), &same).unwrap();
    let one = dir.join("one.epd");
    common::first_lines("data/openings/noob_3moves_1k.epd", 1, &one);
    common::refused(
        &[
            "check",
            same.to_str().unwrap(),
            "--games",
            "4",
            "--openings",
            one.to_str().unwrap(),
            "-q",
        ],
        &dir,
        // The book and its size, the pairs asked for, and the fix.
        &[
            one.to_str().unwrap(),
            "1 opening(s)",
            "--games 4",
            "larger book",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A bad --openings book of `check --games` is refused (naming the book) before the suites are
/// measured.
#[test]
fn a_bad_book_is_refused_before_the_suites_are_measured() {
    let dir = scratch("check", "bad-book");
    std::fs::write(dir.join("bad.epd"), "garbage\n").unwrap();
    let original = dir.join("original.json");
    std::fs::copy(root().join("tuned/spsa-suite.json"), &original).unwrap();
    let book = dir.join("bad.epd");
    let said = common::refused(
        &[
            "check",
            original.to_str().unwrap(),
            "--games",
            "4",
            "--openings",
            book.to_str().unwrap(),
        ],
        &dir,
        // The book, its first bad line and the value on it.
        &[
            &format!("{}:1:", book.display()),
            "no usable opening",
            "'garbage'",
        ],
    );
    // Refused before the sets were measured: no figures of them.
    assert_omits(&said, &["validation ("]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A suite edited after the tune: check refuses (exit 2) and names the way forward, restoring
/// the file from git.
#[test]
fn a_suite_edited_after_the_tune_names_the_way_forward() {
    let dir = scratch("check", "edited-suite");
    let suite = common::small_suite(&dir, 3);
    let t = dir.join("t.json");
    let out = marginal(
        &common::spsa_once(suite.to_str().unwrap(), t.to_str().unwrap()),
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let mut lines = std::fs::read_to_string(&suite).unwrap();
    lines.push_str("# an added comment\n");
    std::fs::write(&suite, lines).unwrap();
    common::refused(
        &["check", t.to_str().unwrap()],
        &dir,
        // The tuned file, the suite, both hashes, and the fix.
        &[
            t.to_str().unwrap(),
            suite.to_str().unwrap(),
            "recorded",
            "git checkout --",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// G005: `check` shows its progress (outside a terminal, a plain line at most every few
/// seconds and the last one at the end): the side, the positions done and in all; none with -q.
#[test]
fn a_check_shows_its_progress() {
    let dir = scratch("check", "progress");
    let suite = common::small_suite(&dir, 30);
    let out = dir.join("t.json");
    let made = marginal(
        &common::spsa_once(suite.to_str().unwrap(), out.to_str().unwrap()),
        &dir,
    );
    assert!(made.status.success(), "{}", text(&made));
    let t = out.to_str().unwrap();
    let check = marginal(&["check", t], &dir);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{}", text(&check));
    let last = stderr.lines().last().unwrap_or_default();
    let (done, rest) = last.split_once('/').unwrap_or_default();
    assert!(
        rest.ends_with(" validation: positions of the sets")
            && rest.starts_with(&format!("{done} ")),
        "{stderr}"
    );
    let quiet = marginal(&["check", t, "-q"], &dir);
    assert_omits(&text(&quiet), &["positions of the sets"]);
    std::fs::remove_dir_all(dir).unwrap();
}
