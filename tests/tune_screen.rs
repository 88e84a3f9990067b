//! What screens the race's design: the suite objective when a calibration trusts it for this
//! engine and limit, short paired games against the defaults when none does (or at a clock,
//! `--tc`); the games screen is the same for the same seed and resumes from its logs to the
//! same result; contradictory options are refused with exit 2.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{assert_names, marginal, said, scratch, small_suite};

/// A tiny race of the built-in engine at 300 nodes: 2 design points, 2 finalists, one round
/// of one pair, checkpointed in `DIR/ck-NAME`.
fn race(dir: &Path, suite: &Path, name: &str, extra: &[&str]) -> Output {
    let ck = dir.join(format!("ck-{name}"));
    let mut args = vec![
        "--design",
        "2",
        "--finalists",
        "2",
        "--race-pairs",
        "1",
        "--checkpoint",
        ck.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    common::tune(dir, suite, 300, &format!("{name}.json"), &args)
}

fn read(dir: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The stages of a tuned file's race steps, each once, in order.
fn stages(file: &Value) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for s in file["race"]["steps"].as_array().unwrap() {
        let stage = s["stage"].as_str().unwrap().to_string();
        if !seen.contains(&stage) {
            seen.push(stage);
        }
    }
    seen
}

#[test]
fn without_a_calibration_the_race_screens_in_games_the_same_for_a_seed_and_after_an_interrupt() {
    let dir = scratch("tune-screen", "games");
    let suite = small_suite(&dir, 12);
    let first = race(&dir, &suite, "a", &[]);
    let text = said(&first);
    assert_eq!(first.status.code(), Some(0), "{text}");
    // Which screen ran and why, and the games screen's rounds as they start.
    assert_names(
        &text,
        &[
            "race screen: no calibration",
            "300 nodes",
            "screening in games",
            "games screen round 1:",
            "pairs each against the defaults",
            "race round 1:",
            "left in the games",
        ],
    );
    let a = read(&dir, "a");
    assert_eq!(stages(&a), ["screen-games", "games"]);
    let settings = &a["race"]["settings"];
    assert_eq!(settings["screen_in_games"], true);
    assert!(
        settings["screen_why"]
            .as_str()
            .unwrap()
            .contains("no calibration"),
        "{settings}"
    );
    assert_eq!(settings["screen_pairs"][0], 2);
    // The games screen's games are counted with the race's, and no suite evaluation screened.
    let played = a["provenance"]["games"].as_u64().unwrap();
    assert!(played > 4, "{played}");
    assert_eq!(a["provenance"]["evaluations"], 0);
    // The same seed in a fresh checkpoint: the same games, the same result.
    let again = race(&dir, &suite, "b", &[]);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    let b = read(&dir, "b");
    assert_eq!(b["margins"], a["margins"]);
    assert_eq!(b["race"]["steps"], a["race"]["steps"]);
    // An interrupt: the logs keep what was finished (a line per candidate's games), the rest
    // is lost; the rerun plays it again and ends as the uninterrupted run.
    let ck = dir.join("ck-b");
    let screen = ck.join("screen-games-1.jsonl");
    let kept: Vec<String> = (std::fs::read_to_string(&screen).unwrap().lines())
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&screen, kept.concat()).unwrap();
    for later in std::fs::read_dir(&ck).unwrap() {
        let path = later.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("race-games-") || name.starts_with("screen-games-2") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let resumed = race(&dir, &suite, "b", &[]);
    let text = said(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{text}");
    assert_names(&text, &["from the log"]);
    let b = read(&dir, "b");
    assert_eq!(b["margins"], a["margins"]);
    assert_eq!(b["provenance"]["games"], a["provenance"]["games"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_race_screened_in_games_ranks_its_sets_by_a_surface_over_every_sets_games() {
    let dir = scratch("tune-screen", "surface");
    let suite = small_suite(&dir, 12);
    // One margin: a quadratic of three terms, fitted once the base set and four sets played.
    let ck = dir.join("ck-s");
    let args = [
        "--params",
        "futility_margin",
        "--design",
        "6",
        "--finalists",
        "2",
        "--race-pairs",
        "2,2",
        "--checkpoint",
        ck.to_str().unwrap(),
    ];
    let run = common::tune(&dir, &suite, 300, "s.json", &args);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    let file = read(&dir, "s");
    assert_eq!(file["race"]["settings"]["surface"], true);
    let surface = &file["race"]["surface"];
    // Fitted on every set that played and the base set, over every game of the run.
    let played = file["provenance"]["games"].as_u64().unwrap();
    assert_eq!(surface["games"].as_u64(), Some(played), "{surface}");
    assert!(surface["sets"].as_u64().unwrap() >= 5, "{surface}");
    assert!(surface["tau"].as_f64().unwrap() >= 0.0, "{surface}");
    // Its proposal raced (the first finalist) unless it was the base set or already racing.
    let proposed = surface["proposed"][0].as_i64().expect("a proposal");
    let raced: Vec<i64> = (file["race"]["steps"].as_array().unwrap().iter())
        .filter(|s| s["stage"] == "games")
        .map(|s| s["values"][0].as_i64().unwrap())
        .collect();
    let base = (file["training"]["sets"].as_array().unwrap().iter())
        .find(|s| s["name"] == "default")
        .and_then(|s| s["margins"]["futility_margin"].as_i64())
        .unwrap();
    assert!(
        proposed == base || raced.contains(&proposed),
        "{proposed} {raced:?}"
    );
    let verdict = file["race"]["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("by the response surface over every set's games"),
        "{verdict}"
    );
    // The same seed again, from the logs: the same ranking and result.
    let again = common::tune(&dir, &suite, 300, "s.json", &args);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    let rerun = read(&dir, "s");
    assert_eq!(rerun["race"]["surface"], file["race"]["surface"]);
    assert_eq!(rerun["margins"], file["margins"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A copy of the shipped calibration of the built-in engine, its suite objective's key made
/// that of a tune of `suite` at 300 nodes, its rho's lower bound `lower`.
fn calibration_for(dir: &Path, suite: &Path, lower: f64) -> String {
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json");
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    let loaded = marginal::scoring::suite::load_suites(
        &[suite.to_path_buf()],
        false,
        marginal::scoring::suite::Repeats::Once,
    )
    .unwrap();
    for o in report["objectives"].as_array_mut().unwrap() {
        let key = o["key"].as_str().unwrap().to_string();
        if let Some(rest) = key.strip_prefix("suite ") {
            let (_, after) = rest.split_once(' ').unwrap();
            let after = after.replacen("5000 nodes", "300 nodes", 1);
            o["key"] = Value::from(format!("suite {:016x} {after}", loaded.content_hash));
            o["rho"]["lower"] = Value::from(lower);
        }
    }
    let path = dir.join(format!("calibration-{lower}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_trusted_calibration_screens_by_suite_and_an_untrusted_one_in_games() {
    let dir = scratch("tune-screen", "calibrated");
    let suite = small_suite(&dir, 12);
    let trusted = calibration_for(&dir, &suite, 0.3);
    let no_games = [
        "--design",
        "2",
        "--race-pairs",
        "0",
        "--calibration",
        &trusted,
    ];
    let run = common::tune(&dir, &suite, 300, "n.json", &no_games);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    // --race-pairs 0 races no games: the suite screens and decides whatever the calibration.
    assert_names(&said(&run), &["race screen: --race-pairs 0"]);
    let run = race(&dir, &suite, "t", &["--calibration", &trusted]);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    assert_names(
        &text,
        &["race screen:", "is trusted", "calibration-0.3.json"],
    );
    assert_eq!(stages(&read(&dir, "t"))[0], "screen");
    let untrusted = calibration_for(&dir, &suite, -0.2);
    let run = race(&dir, &suite, "u", &["--calibration", &untrusted]);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    assert_names(
        &text,
        &[
            "is untrusted",
            "calibration--0.2.json",
            "screening in games",
        ],
    );
    assert_eq!(stages(&read(&dir, "u"))[0], "screen-games");
    // Forced: the suite screens though the calibration does not trust it.
    let run = race(
        &dir,
        &suite,
        "f",
        &["--calibration", &untrusted, "--screen-by", "suite"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert_eq!(stages(&read(&dir, "f"))[0], "screen");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tune_at_a_clock_screens_in_games_and_counts_its_time_losses() {
    let dir = scratch("tune-screen", "clock");
    let suite = small_suite(&dir, 12);
    // 1 ms a game: the built-in engine loses some games on time.
    let run = race(&dir, &suite, "c", &["--tc", "0.001+0"]);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    assert_names(
        &text,
        &[
            "race screen: --tc 0.001+0",
            "screening in games",
            "games at a clock of 0.001+0 s",
        ],
    );
    let file = read(&dir, "c");
    let losses = file["provenance"]["time_losses"].as_u64().unwrap_or(0);
    assert!(losses > 0, "{text}");
    assert_names(
        &text,
        &[
            &format!("{losses} game(s) of the run were lost on time"),
            "--tc",
            "c.json",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn contradictory_screen_and_clock_options_are_refused_naming_them() {
    let dir = scratch("tune-screen", "refused");
    let suite = small_suite(&dir, 12);
    let out = dir.join("x.json");
    for (args, names) in [
        (
            vec!["--screen-by", "games", "--race-pairs", "0"],
            vec!["--screen-by games", "--race-pairs 0"],
        ),
        (vec!["--tc", "nonsense"], vec!["--tc", "nonsense"]),
        (
            vec!["--screen-by", "sometimes"],
            vec!["--screen-by", "sometimes"],
        ),
    ] {
        let mut all = vec![
            "tune",
            "--suites",
            suite.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        all.extend(args.iter().copied());
        let run = marginal(&all, &dir);
        let text = said(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {text}");
        assert_names(&text, &names);
    }
    // --screen-by suite at a clock needs the suite's own limit.
    let mut all = vec![
        "tune",
        "--suites",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend(["--tc", "1+0.1", "--screen-by", "suite"]);
    let run = marginal(&all, &dir);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(2), "{text}");
    assert_names(
        &text,
        &["--screen-by suite", "--tc 1+0.1", "--nodes", "--depth"],
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The default tune of the built-in engine finds its shipped calibration, which trusts the
/// suite objective at 5,000 nodes: its race screens by suite, as before there was a games
/// screen (the run is stopped once it has said so).
#[test]
fn the_default_tune_of_the_builtin_engine_screens_by_its_trusted_suite_objective() {
    use std::io::BufRead;
    let dir = scratch("tune-screen", "default");
    let (out, ck) = (dir.join("d.json"), dir.join("ck"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["tune", "--threads", "1", "--out", out.to_str().unwrap()])
        .args(["--checkpoint", ck.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut said = Vec::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        let done = line.starts_with("race:");
        said.push(line);
        if done {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let said = said.join("\n");
    assert_names(
        &said,
        &[
            "race screen: the suite objective at 5000 nodes is trusted",
            "calibration-builtin-nodes5000.json",
            "design points screened on",
            "16 finalists in 2048 games at most",
        ],
    );
    assert!(!said.contains("screening in games"), "{said}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A calibration whose quality objective at 300 nodes is trusted clearly more than the suite
/// (its rho's lower bound above the suite's rho) screens the race by move quality: steps 1 to
/// 4 score it, the tuned file names it, and a rerun reads its values back from the log.
#[test]
fn a_clearly_better_calibrated_objective_screens_the_race_and_is_read_back_on_a_rerun() {
    let dir = scratch("tune-screen", "quality");
    let suite = small_suite(&dir, 12);
    let path = calibration_for(&dir, &suite, 0.3);
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut key = String::new();
    for o in report["objectives"].as_array_mut().unwrap() {
        let k = o["key"].as_str().unwrap().to_string();
        if k.starts_with("quality ") {
            key = k.replace("5000 nodes 80000 nodes", "300 nodes 4800 nodes");
            o["key"] = Value::from(key.clone());
            o["name"] = Value::from("quality (300 nodes, ref 4800 nodes)");
            o["rho"] = serde_json::json!({"value": 0.95, "lower": 0.8, "upper": 0.99});
        }
    }
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    let run = race(&dir, &suite, "q", &["--calibration", &path]);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    assert_names(
        &text,
        &[
            "race screen: quality (300 nodes, ref 4800 nodes) calibrates best",
            "instead of the suite objective",
            "design points screened by quality (300 nodes",
            "scoring 3 sets on the screen's objective",
        ],
    );
    let first = read(&dir, "q");
    assert_eq!(first["race"]["settings"]["screen_objective"]["key"], key);
    assert_eq!(stages(&first)[0], "screen");
    // Rerun on the same checkpoint (as after an interrupt): the values come from the log.
    std::fs::remove_file(dir.join("q.json")).unwrap();
    let again = race(&dir, &suite, "q", &["--calibration", &path]);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    let second = read(&dir, "q");
    assert_eq!(second["margins"], first["margins"]);
    let steps = second["race"]["steps"].as_array().unwrap();
    let measured = steps.iter().filter(|s| s["games"].is_null());
    assert!(measured.clone().count() > 0);
    assert!(measured.clone().all(|s| s["cached"] == true), "{steps:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A referee that calibrates clearly best screens the race with Stockfish where it is
/// installed (its deep judgements at a small budget here, to stay quick).
#[test]
fn a_referee_that_calibrates_best_screens_the_race_with_stockfish_where_installed() {
    if !Path::new("/usr/games/stockfish").exists() {
        eprintln!("skipped: /usr/games/stockfish is not installed (apt-get install stockfish)");
        return;
    }
    let dir = scratch("tune-screen", "referee");
    let suite = small_suite(&dir, 12);
    let path = calibration_for(&dir, &suite, 0.3);
    let referee = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines/stockfish.toml");
    let file = marginal::formats::engine_file::EngineFile::read(&referee).unwrap();
    let signature = marginal::engine::EngineDef::from_file(&file).signature();
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for o in report["objectives"].as_array_mut().unwrap() {
        if o["key"].as_str().unwrap().starts_with("referee ") {
            o["key"] = Value::from(format!(
                "referee {signature} data/positions/games_600.epd 13c8509c970daa3a 300 nodes 2000 nodes"
            ));
            o["name"] = Value::from("referee (300 nodes, Stockfish 15.1 at 2000 nodes)");
            o["rho"] = serde_json::json!({"value": 0.95, "lower": 0.8, "upper": 0.99});
        }
    }
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    let run = race(&dir, &suite, "r", &["--calibration", &path]);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    assert_names(
        &text,
        &[
            "race screen: referee (300 nodes, Stockfish 15.1 at 2000 nodes) calibrates best",
            "race screen: preparing referee",
            "scoring 3 sets on the screen's objective",
        ],
    );
    let file = read(&dir, "r");
    let name = &file["race"]["settings"]["screen_objective"]["name"];
    assert_eq!(name, "referee (300 nodes, Stockfish 15.1 at 2000 nodes)");
    std::fs::remove_dir_all(dir).unwrap();
}
