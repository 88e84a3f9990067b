//! `marginal tune --objective games` and `--confirm` as a user runs them: a short games tune
//! runs end to end and writes a tuned file that parses back with its games log, the same seed
//! gives the same margins, and `--confirm` writes the confirmation match into the file.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{assert_names, assert_omits, said, scratch, small_suite};

/// A tune at 300 nodes (per position, and per move in games).
fn tune(dir: &Path, suite: &Path, out: &str, extra: &[&str]) -> Output {
    common::tune(dir, suite, 300, out, extra)
}

fn succeeded(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn document(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const GAMES: [&str; 6] = ["--objective", "games", "--iterations", "2", "--pairs", "2"];

#[test]
fn a_short_games_tune_writes_its_games_log_and_is_reproducible() {
    let dir = scratch("tune-games", "ok");
    let suite = small_suite(&dir, 20);
    let stdout = succeeded(&tune(&dir, &suite, "a.json", &GAMES));
    assert_names(&stdout, &["objective: games", "2/2"]);
    let path = dir.join("a.json");
    let margins = marginal::tune::file::read_margins(&path).unwrap();
    let doc = document(&path);
    assert_eq!(doc["format"], "marginal-tuned/1");
    assert_eq!(doc["provenance"]["objective"], "games");
    // One comparison an iteration, two pairs each, all logged.
    let games = &doc["games"];
    assert_eq!(games["comparisons"], 2, "{games}");
    assert_eq!(games["games"], 8, "{games}");
    let evaluations = games["evaluations"].as_array().unwrap();
    assert_eq!(evaluations.len(), 2);
    for (k, e) in evaluations.iter().enumerate() {
        assert_eq!(e["kind"], "spsa");
        assert_eq!(e["index"], k as u64);
        // Each iteration plays the next openings of the shuffled book.
        assert_eq!(e["first_opening"], 2 * k as u64);
        assert_eq!(e["a"].as_array().unwrap().len(), 4);
        let wdl = &e["wdl"];
        let (w, d, l) = (
            wdl["wins"].as_i64().unwrap(),
            wdl["draws"].as_i64().unwrap(),
            wdl["losses"].as_i64().unwrap(),
        );
        assert_eq!(w + d + l, 4);
        assert_eq!(e["result"].as_f64().unwrap(), (w - l) as f64);
    }
    let log = std::fs::read_to_string(common::checkpoint(&dir, "a").join("games.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2);
    assert!(doc.get("confirm").is_none());

    // The same seed in a fresh directory gives the same margins and the same games.
    succeeded(&tune(&dir, &suite, "b.json", &GAMES));
    assert_eq!(
        marginal::tune::file::read_margins(&dir.join("b.json")).unwrap(),
        margins
    );
    let again = document(&dir.join("b.json"));
    for (x, y) in evaluations
        .iter()
        .zip(again["games"]["evaluations"].as_array().unwrap())
    {
        for key in ["a", "b", "wdl", "pentanomial", "result"] {
            assert_eq!(x[key], y[key], "{key}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn confirm_writes_the_match_report_into_the_tuned_file() {
    let dir = scratch("tune-games", "confirm");
    let suite = small_suite(&dir, 20);
    // A small race (12 design points, 4 and 8 pairs a round): it moves this suite's set at
    // 300 nodes, so the confirmation is played.
    let extra = [
        "--design",
        "12",
        "--race-pairs",
        "4,8",
        "--confirm",
        "6",
        "--confirm-sprt",
        "0,10,0.05,0.05",
    ];
    let stdout = succeeded(&tune(&dir, &suite, "c.json", &extra));
    // Every book it plays from, and the confirmation's SPRT.
    let books = [
        "data/openings/noob_3moves_1k.epd",
        "data/openings/popularpos_lichess_1k.epd",
        "data/openings/UHO_4060_v2_2k.epd",
    ];
    assert_names(&stdout, &[&books[..], &["confirm", "LLR"]].concat());
    let path = dir.join("c.json");
    marginal::tune::file::read_margins(&path).unwrap();
    let doc = document(&path);
    let confirm = &doc["confirm"];
    assert_eq!(confirm["format"], "marginal-match/1", "{confirm}");
    let games = confirm["games"].as_u64().unwrap();
    assert!((2..=6).contains(&games), "{confirm}");
    let results = confirm["game_results"].as_array().unwrap();
    assert_eq!(results.len() as u64, games);
    // Pair i opens from the i-th book in turn: the two balanced books, then UHO.
    let fens = |book: &str| -> Vec<String> {
        marginal::formats::openings::read(std::path::Path::new(book))
            .unwrap()
            .records
            .iter()
            .map(|p| {
                shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string()
            })
            .collect()
    };
    let books = [
        fens("data/openings/noob_3moves_1k.epd"),
        fens("data/openings/popularpos_lichess_1k.epd"),
        fens("data/openings/UHO_4060_v2_2k.epd"),
    ];
    for game in results {
        let pair = game["pair"].as_u64().unwrap() as usize;
        let opening = game["opening"].as_str().unwrap().to_string();
        assert!(books[pair % 3].contains(&opening), "pair {pair}: {opening}");
    }
    let elo = &confirm["elo"];
    // LOS: a probability, or null while it is not defined (every pair scored the same).
    let los = elo["los"].as_f64();
    assert!(
        elo["los"].is_null() || los.is_some_and(|l| (0.0..=1.0).contains(&l)),
        "{elo}"
    );
    // Elo and its interval: numbers (or null, for an infinite end), in order.
    let value = |key: &str| elo[key].as_f64();
    for key in ["elo", "lower", "upper", "nelo"] {
        assert!(elo[key].is_null() || value(key).is_some(), "{key}: {elo}");
    }
    if let (Some(lo), Some(e), Some(hi)) = (value("lower"), value("elo"), value("upper")) {
        assert!(lo <= e && e <= hi, "{elo}");
    }
    let sprt = &confirm["sprt"];
    assert_eq!(sprt["params"]["elo1"], 10.0);
    assert!(sprt["llr"].as_f64().is_some(), "{sprt}");
    assert!(sprt["decision"].is_string(), "{sprt}");
    // The suite objective: no games log.
    assert!(doc.get("games").is_none());
    assert_eq!(doc["provenance"]["objective"], "suite");

    // Bad games options exit 2 with a clear message.
    for (extra, message) in [
        (&["--objective", "games", "--pairs", "0"][..], "--pairs <K>"),
        (
            &["--confirm", "4", "--confirm-sprt", "5,0,0.05,0.05"][..],
            "--confirm-sprt",
        ),
        (
            &["--confirm", "4", "--confirm-openings", "no/such.epd"][..],
            "no/such.epd",
        ),
    ] {
        let out = tune(&dir, &suite, "x.json", extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_games_tune_killed_with_sigkill_resumes_to_the_identical_result() {
    let dir = scratch("tune-games", "kill");
    let suite = small_suite(&dir, 20);
    let args = |out: &str| -> Vec<String> {
        [
            "tune",
            "--objective",
            "games",
            "--suites",
            suite.to_str().unwrap(),
            "--iterations",
            "8",
            "--pairs",
            "2",
            "--nodes",
            "600",
            "--threads",
            "2",
            "--out",
            dir.join(out).to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let run = |out: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_marginal"));
        command
            .args(args(out))
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        command
    };
    succeeded(&run("straight.json").output().unwrap());

    // The same run, killed (SIGKILL) once some iterations are logged.
    let mut child = run("killed.json")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let log = || common::checkpoint(&dir, "killed").join("games.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(log()).map_or(0, |t| t.lines().count()) < 3
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !dir.join("killed.json").exists(),
        "the run finished before it was killed: nothing was resumed"
    );
    let resumed = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["tune", "--resume"])
        .arg(common::checkpoint(&dir, "killed"))
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = succeeded(&resumed);
    assert_omits(&stdout, &[" 1/8"]);
    // It says what it goes on from: the checkpoint, and the game batches of its log.
    let checkpoint = common::checkpoint(&dir, "killed");
    assert_names(
        &stdout,
        &["resuming", checkpoint.to_str().unwrap(), "game batches"],
    );

    // Same final iterate, bit for bit, and the same games.
    let (a, b) = (
        document(&dir.join("straight.json")),
        document(&dir.join("killed.json")),
    );
    assert_eq!(a["margins"], b["margins"]);
    assert_eq!(
        a["provenance"]["final_theta"],
        b["provenance"]["final_theta"]
    );
    let games = |doc: &Value| -> Vec<Value> {
        doc["games"]["evaluations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let mut e = e.clone();
                let o = e.as_object_mut().unwrap();
                o.remove("cached");
                o.remove("seconds");
                e
            })
            .collect()
    };
    assert_eq!(games(&a).len(), 8);
    assert_eq!(games(&a), games(&b));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A confirmation interrupted after some pairs keeps them (a PGN in the checkpoint), says so
/// on the interrupt, and the rerun plays only the rest: the report has every game of the
/// match, and its first games are those the interrupted run played.
#[test]
fn an_interrupted_confirmation_keeps_its_pairs() {
    let dir = scratch("tune-games", "confirm-cut");
    let suite = small_suite(&dir, 20);
    let out = dir.join("c.json");
    let args = [
        "tune",
        "--suites",
        suite.to_str().unwrap(),
        // The small race at 300 nodes moves this suite's set (as in the test above): a set
        // equal to the defaults plays no confirmation.
        "--nodes",
        "300",
        "--design",
        "12",
        "--race-pairs",
        "4,8",
        "--confirm",
        "200",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    let cache = dir.join("cache");
    let child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", &cache)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pgn = || common::checkpoint(&dir, "c").join("confirm.pgn");
    let pairs = || std::fs::read_to_string(pgn()).map_or(0, |t| t.matches("[Event ").count() / 2);
    let cut = common::interrupt_when(child, std::time::Duration::from_secs(300), || pairs() >= 3);
    let stderr = String::from_utf8_lossy(&cut.stderr);
    // What is kept, and where.
    let checkpoint = common::checkpoint(&dir, "c");
    assert_names(
        &stderr,
        &["confirmation pairs", checkpoint.to_str().unwrap()],
    );
    assert!(!out.exists());
    let kept = std::fs::read_to_string(pgn()).unwrap();
    let again = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", &cache)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = succeeded(&again);
    assert_names(&stdout, &["confirm", "resuming", "of 100 pairs"]);
    let confirm = &document(&out)["confirm"];
    let results = confirm["game_results"].as_array().unwrap();
    assert_eq!(results.len(), 200, "{confirm}");
    // The games kept are the report's first ones, in order.
    let kept_results: Vec<&str> = kept
        .lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|l| l.trim_end_matches("\"]"))
        .collect();
    for (game, result) in results.iter().zip(&kept_results) {
        assert_eq!(game["result"].as_str(), Some(*result));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tune that ends where it started says so, with the way out: a short games tune, whose
/// SPSA steps are far below a whole unit at the default final learning rate; its --confirm
/// plays no match of the defaults against themselves.
#[test]
fn a_tune_that_moved_nothing_says_so() {
    let dir = scratch("tune-games", "unmoved");
    let suite = small_suite(&dir, 6);
    let extra = [
        "--objective",
        "games",
        "--iterations",
        "1",
        "--pairs",
        "1",
        "--confirm",
        "4",
    ];
    let run = tune(&dir, &suite, "g.json", &extra);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    // Why the set did not move, and the fix.
    assert_names(&said(&run), &["the one the tune started from", "--r-end"]);
    // No confirmation of the defaults against themselves (campaign 23, E040).
    assert_names(
        &said(&run),
        &["--confirm", "defaults", "no confirmation match"],
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("g.json")).unwrap()).unwrap();
    assert!(file.get("confirm").is_none(), "{file}");
    std::fs::remove_dir_all(dir).unwrap();
}
