//! `marginal tune --solver nelder-mead` and `--solver pso` as a user runs them: a short run end
//! to end writes a tuned file that parses back, with every iteration, every evaluation and its
//! Pareto flag, and an SVG beside it; the swarm is reproducible from its seed; solver options
//! that do not fit exit 2.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{assert_names, said, scratch, small_suite};

/// A 2-iteration tune at 300 nodes per position.
fn tune(dir: &Path, suite: &Path, out: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--iterations", "2"];
    args.extend_from_slice(extra);
    common::tune(dir, suite, 300, out, &args)
}

/// Runs a tune that must succeed; returns its document.
fn tune_ok(dir: &Path, suite: &Path, out: &str, extra: &[&str]) -> Value {
    let run = tune(dir, suite, out, extra);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{extra:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let path = dir.join(out);
    assert_names(&stdout, &[path.with_extension("svg").to_str().unwrap()]);
    marginal::tune::file::TunedFile::read(&path).unwrap();
    let svg = std::fs::read_to_string(path.with_extension("svg")).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(80)]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// What every tuned file of these solvers holds.
fn check_document(doc: &Value, solver: &str) {
    assert_eq!(doc["format"], "marginal-tuned/1");
    assert_eq!(doc["provenance"]["solver"], solver);
    assert!(doc["provenance"]["solver_settings"].is_object());
    // Iterations: the start (0), then 1, 2, ... with four integer margins each.
    let iterations = doc["iterations"].as_array().unwrap();
    assert!(!iterations.is_empty() && iterations.len() <= 3);
    for (k, r) in iterations.iter().enumerate() {
        assert_eq!(r["iteration"], k as u64);
        assert_eq!(r["values"].as_array().unwrap().len(), 4);
        assert!(r["objective"].is_f64(), "{r}");
    }
    // Every evaluation is flagged, and the front is not empty.
    let evaluations = doc["evaluations"].as_array().unwrap();
    assert!(!evaluations.is_empty());
    assert!(evaluations.iter().all(|e| e["pareto"].is_boolean()));
    assert!(evaluations.iter().any(|e| e["pareto"] == true));
    // The tuned set is the best point seen: no evaluation has a higher objective.
    let best = evaluations
        .iter()
        .map(|e| e["objective"].as_f64().unwrap())
        .fold(f64::NEG_INFINITY, f64::max);
    let tuned = &doc["training"]["sets"][0];
    assert_eq!(tuned["name"], "tuned");
    assert_eq!(tuned["objective"]["value"].as_f64().unwrap(), best);
}

#[test]
fn nelder_mead_runs_end_to_end() {
    let dir = scratch("solvers", "nm");
    let suite = small_suite(&dir, 20);
    let doc = tune_ok(&dir, &suite, "nm.json", &["--solver", "nelder-mead"]);
    check_document(&doc, "nelder-mead");
    let simplex = doc["provenance"]["solver_settings"]["simplex"]
        .as_array()
        .unwrap();
    assert_eq!(simplex.len(), 5);
    assert_eq!(doc["provenance"]["arguments"]["solver"], "nelder-mead");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pso_runs_end_to_end_and_the_same_seed_gives_the_same_result() {
    let dir = scratch("solvers", "pso");
    let suite = small_suite(&dir, 20);
    let a = tune_ok(&dir, &suite, "a.json", &["--solver", "pso", "--seed", "5"]);
    check_document(&a, "pso");
    assert_eq!(a["provenance"]["solver_settings"]["particles"], 8);
    // Eight particles at the start and in each of two iterations (the cache counts once).
    assert!(a["evaluations"].as_array().unwrap().len() <= 24);
    // A fresh run (its own checkpoint) with the same seed.
    let b = tune_ok(&dir, &suite, "b.json", &["--solver", "pso", "--seed", "5"]);
    assert_eq!(a["margins"], b["margins"]);
    assert_eq!(
        a["provenance"]["final_theta"],
        b["provenance"]["final_theta"]
    );
    assert_eq!(a["iterations"], b["iterations"]);
    let c = tune_ok(
        &dir,
        &suite,
        "c.json",
        &["--solver", "pso", "--seed", "6", "--particles", "3"],
    );
    assert_ne!(
        a["provenance"]["final_theta"],
        c["provenance"]["final_theta"]
    );
    assert_eq!(c["iterations"][1]["evaluated"].as_array().unwrap().len(), 3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn nelder_mead_and_the_swarm_run_on_the_games_objective() {
    let dir = scratch("solvers", "games");
    let suite = small_suite(&dir, 12);
    for solver in ["nelder-mead", "pso"] {
        let out = format!("{solver}.json");
        let extra = [
            "--solver",
            solver,
            "--objective",
            "games",
            "--pairs",
            "1",
            "--particles",
            "2",
        ];
        let extra = if solver == "pso" {
            &extra[..]
        } else {
            &extra[..6]
        };
        let doc = tune_ok(&dir, &suite, &out, extra);
        assert_eq!(doc["provenance"]["solver"], solver);
        assert_eq!(doc["provenance"]["objective"], "games");
        // Every candidate played the defaults: cost evaluations, one pair each, on the same
        // first opening.
        let games = doc["games"]["evaluations"].as_array().unwrap();
        assert!(!games.is_empty());
        for g in games {
            assert_eq!(g["kind"], "cost", "{g}");
            assert_eq!(g["pairs"], 1);
            assert_eq!(g["first_opening"], games[0]["first_opening"]);
        }
        assert_eq!(
            doc["provenance"]["games"].as_u64().unwrap(),
            2 * games.len() as u64
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn solver_options_that_do_not_fit_exit_2() {
    let dir = scratch("solvers", "bad");
    let suite = small_suite(&dir, 12);
    let cases: [(&[&str], &str); 4] = [
        (
            &["--solver", "race", "--objective", "games"],
            "--solver race tunes on the suite objective",
        ),
        (
            &["--race-pairs", "600,600", "--screen-by", "suite"],
            "fewer than the 1200 pairs of the race (--race-pairs 600,600)",
        ),
        (&["--solver", "pso", "--particles", "0"], "at least 1"),
        (&["--solver", "simplex"], "invalid value 'simplex'"),
    ];
    for (extra, message) in cases {
        let out = tune(&dir, &suite, "x.json", extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The race's steps without the bookkeeping of what was read back from a log.
fn race_steps(doc: &Value) -> Vec<Value> {
    doc["race"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.as_object_mut().unwrap().remove("cached");
            s
        })
        .collect()
}

#[test]
fn the_race_screens_refines_races_and_resumes_from_its_logs() {
    let dir = scratch("solvers", "race");
    let suite = small_suite(&dir, 20);
    let extra = [
        "--design",
        "6",
        "--finalists",
        "3",
        "--race-pairs",
        "1,1",
        "--seed",
        "3",
        "--screen-by",
        "suite",
    ];
    let a = tune_ok(&dir, &suite, "a.json", &extra);
    assert_eq!(a["provenance"]["solver"], "race");
    assert_eq!(a["provenance"]["arguments"]["solver"], "race");
    let race = &a["race"];
    assert_eq!(race["settings"]["design"], 6);
    let steps = race_steps(&a);
    let stage =
        |name: &str| -> Vec<&Value> { steps.iter().filter(|s| s["stage"] == name).collect() };
    // The screen: the design's distinct points and the defaults, which are [125, 500, 980, 200].
    let screen = stage("screen");
    assert!(screen.len() >= 2 && screen.len() <= 7, "{screen:?}");
    assert_eq!(screen[0]["values"], serde_json::json!([125, 500, 980, 200]));
    assert!(!stage("local").is_empty());
    // The line through the defaults: each margin scaled by the same factor.
    let line = stage("line");
    assert!(!line.is_empty());
    for s in &line {
        let v: Vec<f64> = s["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let factor = v[0] / 125.0;
        for (value, default) in v.iter().zip([125.0, 500.0, 980.0, 200.0]) {
            assert!((value / default - factor).abs() < 0.02, "{v:?}");
        }
    }
    // Three finalists play one pair each, then the better two one more: the local search's
    // best and the line's points, in order (games, not the suite, rank along the line).
    let games = stage("games");
    assert_eq!(games.len(), 5, "{games:?}");
    for point in line.iter().take(2) {
        assert!(
            games[..3].iter().any(|g| g["values"] == point["values"]),
            "{point:?} did not race: {games:?}"
        );
    }
    assert!(
        games[..3]
            .iter()
            .all(|g| g["round"] == 1 && g["games"]["pairs"] == 1)
    );
    assert!(
        games[3..]
            .iter()
            .all(|g| g["round"] == 2 && g["games"]["pairs"] == 2)
    );
    assert_eq!(a["provenance"]["games"], 3 * 2 + 2 * 2);
    // The result is the winner of the race, or the defaults when no finalist beat them.
    let verdict = race["verdict"].as_str().unwrap();
    let tuned = &race["values"];
    if verdict.starts_with("won the race") {
        assert_eq!(tuned, &games[3]["values"]);
    } else {
        assert_names(verdict, &["base set is kept"]);
        assert_eq!(tuned, &serde_json::json!([125, 500, 980, 200]));
    }
    let margins: Vec<Value> = [
        "futility_margin",
        "ext_futility_margin",
        "razor_margin",
        "delta_margin",
    ]
    .iter()
    .map(|n| a["margins"][n].clone())
    .collect();
    assert_eq!(&Value::from(margins), tuned);
    // The same command again resumes from the checkpoint's logs: nothing searched or played,
    // the same race (and a.json, the same result, is left as it is).
    let left = tune(&dir, &suite, "a.json", &extra);
    let file = dir.join("a.json");
    let what = [file.to_str().unwrap(), "this run's result", "--force"];
    assert_names(&String::from_utf8_lossy(&left.stdout), &what);
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a.json")).unwrap()).unwrap();
    assert_eq!(kept, a);
    // With --force the replay is written afresh.
    let again = tune_ok(&dir, &suite, "a.json", &[&extra[..], &["--force"]].concat());
    assert_eq!(race_steps(&again), steps);
    assert!(
        again["race"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["cached"] == true)
    );
    assert_eq!(again["provenance"]["searched_evaluations"], 0);
    // A fresh run with the same seed gives the same race.
    let b = tune_ok(&dir, &suite, "b.json", &extra);
    assert_eq!(race_steps(&b), steps);
    assert_eq!(b["margins"], a["margins"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A race decided in a handful of games gives its interval and says the games are too few to
/// show the winner stronger than the base set.
#[test]
fn a_race_won_in_few_games_says_they_are_too_few() {
    let dir = scratch("tune-solvers", "race-few");
    let suite = small_suite(&dir, 12);
    // A seed whose finalist wins its 2 games.
    let extra = [
        "--design",
        "2",
        "--race-pairs",
        "1",
        "--finalists",
        "2",
        "--seed",
        "4",
        "--screen-by",
        "suite",
    ];
    let run = common::tune(&dir, &suite, 300, "r.json", &extra);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    let verdict = (text.lines())
        .find(|l| l.starts_with("race: won") || l.starts_with("race: no finalist"))
        .expect(&text);
    // The winner, its games and interval, and why that shows no strength.
    assert_names(
        verdict,
        &["won the race", "games", "95% [", "too few games"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}
