//! `marginal calibrate` as a user runs it: the report, its plots and table; the same report
//! from the same seed, after a kill and a rerun, and with an objective added later; the
//! Python (scipy) reference's figures; and clear refusals of bad input.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{
    assert_names, assert_omits, first_lines, marginal, refused, said, scratch, small_suite,
};
use serde_json::Value;

/// A small position file for the quality objective: the first `n` lines of the bundled one.
fn small_positions(dir: &Path, n: usize) -> PathBuf {
    let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/positions/games_600.epd");
    let text = std::fs::read_to_string(all).unwrap();
    let path = dir.join("positions.epd");
    std::fs::write(
        &path,
        text.lines().take(n).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    path
}

/// The arguments of a small calibration: 4 sets (defaults + 3 design points), 8 games a set
/// on the two default books at 2,000 nodes a move in one round (a budget of 24 games), suite
/// and quality objectives on a few positions.
fn small(dir: &Path, out: &str, state: &str, objectives: &str) -> Vec<String> {
    let suite = small_suite(dir, 12);
    let positions = small_positions(dir, 12);
    [
        "calibrate",
        "--sets",
        "4",
        "--games",
        "8",
        "--max-games",
        "24",
        "--nodes",
        "2000",
        "--objectives",
        objectives,
        "--suite",
        suite.to_str().unwrap(),
        "--quality-positions",
        positions.to_str().unwrap(),
        "--resamples",
        "500",
        "--concurrency",
        "2",
        "--out",
        dir.join(out).to_str().unwrap(),
        "--state",
        dir.join(state).to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// `args` with `flag` set to `value`: the first occurrence replaced (a repeatable flag
/// given again is appended after it).
fn with(mut args: Vec<String>, flag: &str, value: &str) -> Vec<String> {
    let repeatable = ["--margins", "--region", "--openings"];
    match args.iter().position(|a| a == flag) {
        Some(i) if !repeatable.contains(&flag) => args[i + 1] = value.to_string(),
        _ => args.extend([flag.to_string(), value.to_string()]),
    }
    args
}

fn run(args: &[String], dir: &Path) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    marginal(&args, dir)
}

fn report(path: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The cost is of the run, not of the calibration.
    v.as_object_mut().unwrap().remove("cost");
    v
}

#[test]
fn a_calibration_reports_every_objective_and_repeats_by_seed() {
    let dir = scratch("calibrate", "repeat");
    let out = run(&small(&dir, "a.json", "state-a", "suite,quality"), &dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = report(&dir.join("a.json"));
    assert_eq!(a["format"], "marginal-calibration/1");
    let sets = a["sets"].as_array().unwrap();
    assert_eq!(sets.len(), 4);
    assert_eq!(sets[0]["origin"], "defaults");
    assert_eq!(sets[0]["pooled"]["elo"], 0.0);
    for s in &sets[1..] {
        assert_eq!(s["pooled"]["games"], 8, "{s}");
        let books: u64 = s["books"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["games"].as_u64().unwrap())
            .sum();
        assert_eq!(books, 8);
        assert_eq!(s["objectives"].as_array().unwrap().len(), 2);
    }
    // The draw rates are the games drawn, counted from the games kept in the state directory
    // (a pentanomial cannot tell a drawn pair from one won and lost).
    let pairs = std::fs::read_to_string(dir.join("state-a").join("pairs.jsonl")).unwrap();
    for (i, s) in sets.iter().enumerate().skip(1) {
        let drawn: usize = pairs
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|p| p["set"] == i)
            .map(|p| usize::from(p["first"] == "D") + usize::from(p["second"] == "D"))
            .sum();
        let rate = s["pooled"]["draw_rate"].as_f64().unwrap();
        assert!(
            (rate - drawn as f64 / 8.0).abs() < 1e-12,
            "set {i}: {rate} vs {drawn}/8"
        );
    }
    let objectives = a["objectives"].as_array().unwrap();
    assert_eq!(objectives.len(), 2);
    for o in objectives {
        let verdict = o["verdict"].as_str().unwrap();
        assert!(
            verdict.starts_with(o["name"].as_str().unwrap()),
            "{verdict}"
        );
        assert!(
            stdout.contains(verdict),
            "the verdict is printed: {verdict}"
        );
        let kind = o["name"].as_str().unwrap().split(' ').next().unwrap();
        let svg = std::fs::read_to_string(dir.join(format!("a-{kind}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert_names(&svg, &["vs Elo"]);
    }
    assert_names(
        &stdout,
        &["pooled Elo", "ceiling on rho", "power: with 4 sets"],
    );
    // One round (the budget is the first round's): the report and the table say why it stopped
    // (the games' ceiling reached the target after it, or the budget was spent), and when the
    // ceiling fell short, that the games could not judge.
    assert_eq!(
        (a["ceiling_target"].as_f64(), a["max_games"].as_u64()),
        (Some(0.8), Some(24))
    );
    assert_eq!(a["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(a["rounds"][0]["games"], 24);
    assert!(
        a["power"]["sets"] == 4 && a["power"]["min_rho"].is_f64(),
        "{}",
        a["power"]
    );
    let reached = a["ceiling"]["max_rho"].as_f64().is_some_and(|c| c >= 0.8);
    if reached {
        assert_eq!(a["stopped"], "ceiling");
        assert_names(&stdout, &["stopped: the games' ceiling reached the target"]);
    } else {
        assert_eq!(a["stopped"], "budget");
        assert_names(
            &stdout,
            &["stopped: the games' budget (--max-games) was spent"],
        );
        assert_names(&stdout, &["the games could not judge"]);
    }
    for o in objectives {
        assert!(o.get("top_half_rho").is_some(), "{o}");
    }
    // The defaults are the yardstick, not a measured 0 with an interval of no width.
    let default_row = stdout.lines().find(|l| l.starts_with("default ")).unwrap();
    assert!(
        default_row.trim_end().ends_with("0 (not played)") && !default_row.contains('['),
        "{stdout}"
    );
    // The same seed in a fresh state directory: the same report.
    let out = run(&small(&dir, "b.json", "state-b", "suite,quality"), &dir);
    assert!(out.status.success());
    assert_eq!(a, report(&dir.join("b.json")));
    // The design: the all-low and all-high corners of the region, then a hypercube point.
    let names: Vec<&str> = sets.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["default", "corner-LLLL", "corner-HHHH", "lhs-1"]);
    // Another seed draws other sets (the corners aside).
    let mut other = small(&dir, "c.json", "state-c", "suite,quality");
    other.extend(["--seed".to_string(), "2".to_string()]);
    assert!(run(&other, &dir).status.success());
    let c = report(&dir.join("c.json"));
    assert_eq!(a["sets"][1]["values"], c["sets"][1]["values"]);
    assert_ne!(a["sets"][3]["values"], c["sets"][3]["values"]);
}

#[test]
fn killed_and_rerun_it_ends_with_the_same_report_and_an_added_objective_reuses_the_games() {
    let dir = scratch("calibrate", "resume");
    let whole = run(
        &small(&dir, "whole.json", "state-whole", "suite,quality"),
        &dir,
    );
    assert!(whole.status.success());
    // The same calibration, interrupted once a few game pairs are kept.
    let args = small(&dir, "cut.json", "state-cut", "suite,quality");
    let child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(&args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pairs = dir.join("state-cut/pairs.jsonl");
    let mut polls = 0;
    while std::fs::read_to_string(&pairs).map_or(0, |t| t.lines().count()) < 3 && polls < 6000 {
        std::thread::sleep(Duration::from_millis(5));
        polls += 1;
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let cut = child.wait_with_output().unwrap();
    let kept = std::fs::read_to_string(&pairs).unwrap().lines().count();
    if cut.status.success() {
        eprintln!("the calibration ended before the signal; the resume path is still run below");
    } else {
        assert_eq!(cut.status.code(), Some(130));
        let stderr = String::from_utf8_lossy(&cut.stderr);
        // Where the finished pairs are kept, and that the same command resumes.
        assert_names(
            &stderr,
            &[dir.join("state-cut").to_str().unwrap(), "resumes"],
        );
        assert!((3..12).contains(&kept), "{kept} pairs kept");
    }
    let rerun = run(&args, &dir);
    let stdout = String::from_utf8_lossy(&rerun.stdout);
    assert!(
        rerun.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    if !cut.status.success() {
        assert_names(
            &stdout,
            &["resuming", dir.join("state-cut").to_str().unwrap()],
        );
    }
    assert_eq!(
        report(&dir.join("whole.json")),
        report(&dir.join("cut.json"))
    );

    // A calibration of one objective, then the same with a second one: the games are reused.
    let first = run(&small(&dir, "one.json", "state-two", "suite"), &dir);
    assert!(first.status.success());
    let second = run(&small(&dir, "two.json", "state-two", "suite,quality"), &dir);
    assert!(second.status.success());
    let two = report(&dir.join("two.json"));
    // The second run played no game and measured the 4 quality values only.
    let runs = std::fs::read_to_string(dir.join("state-two/runs.jsonl")).unwrap();
    let last: Value = serde_json::from_str(runs.lines().last().unwrap()).unwrap();
    assert_eq!(last["games"], 0, "the games are reused: {last}");
    assert_eq!(last["objective_evaluations"], 4);
    let cost: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("two.json")).unwrap()).unwrap();
    assert_eq!(cost["cost"]["runs"], 2);
    assert_eq!(
        cost["cost"]["games"], 24,
        "the cost counts both runs: {}",
        cost["cost"]
    );
    assert_eq!(two, report(&dir.join("whole.json")));
}

#[test]
fn the_scipy_reference_recomputes_rho_tau_and_the_slope() {
    let python = ["python3", "python"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import scipy, numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some(python) = python else {
        eprintln!(
            "skipped: no Python with scipy and numpy (pip install scipy) to run scripts/calibration_reference.py"
        );
        return;
    };
    let dir = scratch("calibrate", "scipy");
    let args = with(
        small(&dir, "r.json", "state", "suite,quality"),
        "--sets",
        "6",
    );
    let args = with(args, "--max-games", "40");
    let out = run(&args, &dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/calibration_reference.py");
    // The reference script's figures for the report at `path`.
    let reference = |path: &Path| -> Value {
        let out = Command::new(python)
            .arg(&script)
            .arg(path)
            .arg("--json")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {err}", path.display());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let theirs = reference(&dir.join("r.json"));
    let ours: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    let close = |a: &Value, b: &Value, tol: f64, what: &str| {
        let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
        assert!((a - b).abs() <= tol, "{what}: marginal {a}, scipy {b}");
    };
    let mut compared = 0;
    for (o, t) in ours["objectives"]
        .as_array()
        .unwrap()
        .iter()
        .zip(theirs["objectives"].as_array().unwrap())
    {
        if o["rho"].is_null() {
            assert!(t["rho"].is_null());
            continue;
        }
        for stat in ["rho", "tau", "slope"] {
            close(&o[stat]["value"], &t[stat]["value"], 1e-9, stat);
        }
        close(
            &o["line"]["slope_stderr"],
            &t["slope_stderr"],
            1e-9,
            "stderr",
        );
        close(&o["line"]["intercept"], &t["intercept"], 1e-6, "intercept");
        compared += 1;
    }
    assert!(compared > 0, "no objective had spread to compare");
    close(
        &ours["ceiling"]["half_vs_half"]["value"],
        &theirs["ceiling"]["half_vs_half"]["value"],
        1e-9,
        "half vs half",
    );
    // The bootstrap intervals are two independent resamplings (marginal's and numpy's): over
    // six sets they can differ by far more than their own noise (a lower end of -0.71 against
    // -0.92), so they are compared over the 16 sets of shipped calibrations.
    for shipped in [
        "tuned/calibration-builtin-nodes5000.json",
        "tuned/calibration-toga2-nodes10000.json",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(shipped);
        let theirs = reference(&path);
        let ours: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (o, t) in ours["objectives"]
            .as_array()
            .unwrap()
            .iter()
            .zip(theirs["objectives"].as_array().unwrap())
        {
            for stat in ["rho", "tau"] {
                for end in ["lower", "upper"] {
                    let what = format!("{shipped} {} {stat} {end}", o["name"]);
                    close(&o[stat][end], &t[stat][end], 0.1, &what);
                }
            }
        }
    }
}

#[test]
fn bad_input_is_refused_naming_the_value() {
    let dir = scratch("calibrate", "bad");
    let base = small(&dir, "x.json", "state", "suite");
    let case = |extra: &[&str], expect: &str| {
        let mut args = base.clone();
        for pair in extra.chunks(2) {
            args = with(args, pair[0], pair.get(1).copied().unwrap_or(""));
        }
        let out = run(&args, &dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expect), "{extra:?}: {stderr}");
    };
    case(&["--sets", "3"], "3 is too small: at least 4");
    // A budget below the first round (3 sets x 8 games), and a ceiling outside 0..1.
    case(
        &["--max-games", "20"],
        "--max-games 20: the first round alone plays 24 games",
    );
    case(&["--ceiling", "1.5"], "--ceiling 1.5");
    case(&["--ceiling", "0"], "lies between 0 and 1");
    case(
        &["--margins", "frontier=125"],
        "is the same set as 'default'",
    );
    case(
        &["--margins", "frontier=90", "--margins", "frontier=90"],
        "is the same set as 'frontier=90'",
    );
    case(&["--margins", "frontier=99999"], "99999");
    case(&["--region", "frontier=10..99999"], "frontier=10..99999");
    case(&["--region", "null_move_r=1..3"], "not a tunable row");
    case(&["--objectives", "suite,suite"], "given twice");
    case(&["--objectives", "speed"], "'speed' is not an objective");
    case(
        &["--objectives", "suite:nodes=0"],
        "nodes=0 is out of range",
    );
    let tiny = dir.join("tiny.epd");
    std::fs::write(
        &tiny,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    )
    .unwrap();
    let tiny = tiny.to_str().unwrap().to_string();
    case(
        &[
            "--openings",
            &tiny,
            "--openings",
            "data/openings/noob_3moves_1k.epd",
        ],
        "1 positions for 2 pairs",
    );
    case(
        &[
            "--openings",
            "data/openings/noob_3moves_1k.epd",
            "--openings",
            "data/openings/noob_3moves_1k.epd",
        ],
        "give each book once",
    );
    // An output that is not a calibration report is never written over.
    let foreign = dir.join("foreign.json");
    std::fs::write(&foreign, "{\"format\": \"marginal-tuned/1\"}").unwrap();
    let mut args = base.clone();
    let at = args.iter().position(|a| a == "--out").unwrap();
    args[at + 1] = foreign.to_str().unwrap().into();
    let out = run(&args, &dir);
    assert_eq!(out.status.code(), Some(2));
    // The file, what it is not, and the fix.
    let what = [
        foreign.to_str().unwrap(),
        "not a calibration report",
        "another --out",
    ];
    assert_names(&String::from_utf8_lossy(&out.stderr), &what);
    assert_eq!(
        std::fs::read_to_string(&foreign).unwrap(),
        "{\"format\": \"marginal-tuned/1\"}"
    );
}

#[test]
fn a_tuned_file_carries_its_calibration_and_check_shows_it() {
    let dir = scratch("calibrate", "tune");
    let suite = small_suite(&dir, 12);
    let cal = dir.join("cal.json");
    let args = with(
        with(small(&dir, "cal.json", "state", "suite"), "--nodes", "400"),
        "--suite",
        suite.to_str().unwrap(),
    );
    let out = run(&args, &dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calibration = [
        "--solver",
        "spsa",
        "--iterations",
        "2",
        "--calibration",
        cal.to_str().unwrap(),
    ];
    let out = common::tune(&dir, &suite, 400, "t.json", &calibration);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tuned: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t.json")).unwrap()).unwrap();
    let c = &tuned["calibration"];
    assert!(
        ["trusted", "untrusted"].contains(&c["status"].as_str().unwrap()),
        "{c}"
    );
    assert_eq!(c["file"], cal.to_str().unwrap());
    assert_eq!(c["objective"], "suite (400 nodes)");
    assert!(c["objective_gain"].is_f64());
    assert!(stdout.contains(&format!("calibration: {}", c["note"].as_str().unwrap())));
    // check and export show it.
    let t = dir.join("t.json");
    let check = marginal(&["check", t.to_str().unwrap()], &dir);
    // The status first: it is the objective's, while the note may end on the set's region.
    let status = format!(
        "calibration: the objective is {}: ",
        c["status"].as_str().unwrap()
    );
    assert!(String::from_utf8_lossy(&check.stdout).contains(&status));
    let export = marginal(&["export", t.to_str().unwrap(), "--format", "json"], &dir);
    assert!(String::from_utf8_lossy(&export.stderr).contains(&status));
    // A calibration of another limit is refused, naming it.
    let out = common::tune(&dir, &suite, 500, "u.json", &calibration);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The calibration, and the limit of this tune none of its objectives has.
    assert_names(
        &stderr,
        &["--calibration", cal.to_str().unwrap(), "500 nodes"],
    );
    // A truncated or foreign file is refused, naming it.
    let truncated = dir.join("truncated.json");
    let text = std::fs::read_to_string(&cal).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let foreign = dir.join("foreign.json");
    std::fs::write(&foreign, "{\"format\": \"marginal-tuned/1\"}").unwrap();
    for bad in [&truncated, &foreign] {
        let args = ["--iterations", "1", "--calibration", bad.to_str().unwrap()];
        let out = common::tune(&dir, &suite, 400, "w.json", &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_names(
            &stderr,
            &[bad.to_str().unwrap(), "not a calibration report"],
        );
    }
    // Without one, the file says so plainly.
    let spsa = ["--solver", "spsa", "--iterations", "1"];
    let out = common::tune(&dir, &suite, 400, "v.json", &spsa);
    assert!(out.status.success());
    let tuned: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("v.json")).unwrap()).unwrap();
    assert_eq!(tuned["calibration"]["status"], "none");
    // It names the objective that has none, and the fix.
    let what = ["suite objective at 400 nodes", "marginal calibrate"];
    assert_names(&String::from_utf8_lossy(&out.stdout), &what);
}

#[test]
fn on_a_slurm_cluster_it_gives_the_local_report() {
    let Some(_cluster) =
        common::slurm::hold("calibrate on_a_slurm_cluster_it_gives_the_local_report")
    else {
        return;
    };
    let dir = scratch("calibrate", "slurm");
    let local = run(&small(&dir, "local.json", "state-local", "suite"), &dir);
    assert!(local.status.success());
    let mut args = small(&dir, "slurm.json", "state-slurm", "suite");
    let work = dir.join("work");
    args.extend(
        [
            "--executor",
            "slurm",
            "--workdir",
            work.to_str().unwrap(),
            "--shards",
            "1",
        ]
        .map(String::from),
    );
    let out = run(&args, &dir);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        report(&dir.join("local.json")),
        report(&dir.join("slurm.json"))
    );
    assert!(common::slurm::queue_empty());
}

/// The arguments of a tiny calibration (4 sets, 4 games a set at 500 nodes in one round, the
/// suite objective on 20 WAC positions): few pairs, so degenerate pentanomials.
fn tiny(dir: &Path, out: &str, state: &Path) -> Vec<String> {
    let suite = small_suite(dir, 20);
    [
        "calibrate",
        "--sets",
        "4",
        "--games",
        "4",
        "--max-games",
        "12",
        "--nodes",
        "500",
        "--objectives",
        "suite",
        "--suite",
        suite.to_str().unwrap(),
        "--resamples",
        "100",
        "--concurrency",
        "2",
        "--out",
        dir.join(out).to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// E060: with a pair or two a set, every Elo interval the report and the table give holds the
/// set's Elo; an end at a 0% or 100% score is null (`n/a`), never 0; an interval is never of
/// zero width (but the defaults', 0 by definition), e.g. [LL, WW] (nElo +-340) has no Elo ends.
#[test]
fn few_games_give_elo_intervals_that_hold_the_elo_or_are_null() {
    let dir = scratch("calibrate", "intervals");
    let out = run(&tiny(&dir, "x.json", &dir.join("state")), &dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&dir.join("x.json"));
    let mut degenerate = 0;
    for s in r["sets"].as_array().unwrap() {
        let defaults = s["origin"] == "defaults";
        let mut all: Vec<&Value> = s["books"].as_array().unwrap().iter().collect();
        all.extend([&s["pooled"], &s["even"], &s["odd"]]);
        for g in all {
            let elo = g["elo"].as_f64().unwrap();
            let [lo, hi] = [0, 1].map(|i| g["elo_interval"][i].as_f64());
            assert!(
                lo.is_none_or(|l| l <= elo) && hi.is_none_or(|h| h >= elo),
                "{g}"
            );
            if let (Some(l), Some(h), false) = (lo, hi, defaults) {
                assert!(l < elo && elo < h, "zero-width or misplaced: {g}");
            }
            let p: Vec<u64> = serde_json::from_value(g["pentanomial"].clone()).unwrap();
            let pairs: u64 = p.iter().sum();
            if !defaults && p.iter().filter(|&&c| c > 0).count() == 1 {
                // Every pair alike: no spread, no interval.
                assert_eq!((lo, hi), (None, None), "{g}");
                degenerate += 1;
            }
            if p == [1, 0, 0, 0, 1] {
                assert_eq!((lo, hi), (None, None), "{g}");
                let nelo = g["nelo_interval"][1].as_f64().unwrap();
                assert!((nelo - 340.48).abs() < 0.01, "{g}");
            }
            if p[4] > 0 && p[4] * 2 >= pairs && pairs <= 2 {
                assert_eq!(hi, None, "an end past 100%: {g}");
            }
        }
    }
    assert!(degenerate > 0, "the case is exercised: {r}");
    // The table: only the defaults' row has a zero-width interval.
    for line in stdout.lines().filter(|l| l.contains(" [")) {
        assert!(
            line.starts_with("default ") || !line.contains("[+0, +0]"),
            "{stdout}"
        );
    }
}

/// C055: a --state directory holding the user's files is refused (exit 2, naming it, what it
/// holds and the fix) and left as it was; an empty one is used, and a calibration's own state
/// directory resumes.
#[test]
fn a_state_directory_of_other_files_is_refused_and_a_calibrations_resumes() {
    let dir = scratch("calibrate", "state");
    let user = dir.join("mine");
    std::fs::create_dir_all(user.join("photos")).unwrap();
    std::fs::write(user.join("notes.txt"), "mine\n").unwrap();
    let out = run(&tiny(&dir, "x.json", &user), &dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for part in [
        &format!("--state {}", user.display()),
        "holds files and is not a calibration's state directory",
        "it holds 'notes.txt' and 'photos/'",
        "give a new or empty directory, or the --state directory of the same calibration",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    let mut left: Vec<String> = std::fs::read_dir(&user)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt", "photos"]);
    assert!(!dir.join("x.json").exists());
    // An empty directory is used; run again, the same calibration resumes from it.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let first = run(&tiny(&dir, "x.json", &empty), &dir);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(empty.join("identity.json").exists());
    let again = run(&tiny(&dir, "x.json", &empty), &dir);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_names(&String::from_utf8_lossy(&again.stdout), &["resuming"]);
}

/// B103: each malformed --objectives entry is refused (exit 2) with its actual problem.
#[test]
fn malformed_objectives_are_refused_with_their_actual_problem() {
    let dir = scratch("calibrate", "objectives");
    // Each names the option, the entry or part at fault, and what it takes instead.
    for (spec, what) in [
        (
            "suite:depth=3:nodes=5",
            &["'depth=3:nodes=5'", "nodes=N or depth=D"][..],
        ),
        (
            "suite:depth=3 nodes=5",
            &["'depth=3 nodes=5'", "nodes=N or depth=D"],
        ),
        ("suite:depth=3,nodes=5", &["'nodes=5'", "KIND:nodes=5"]),
        ("suite:", &["'suite:'", "nodes=N or depth=D"]),
        ("suite:nodes", &["'nodes'", "nodes=N"]),
        ("suite:nodes=", &["'nodes='", "nodes=N", "at least 1"]),
        ("suite:nodes=abc", &["'abc'", "whole number"]),
        ("suite:nodes=0", &["nodes=0", "at least 1"]),
        ("suite:nodes=-5", &["nodes=-5", "at least 1"]),
        ("suite:depth=101", &["depth=101", "1 to 100"]),
        ("suite:time=5", &["'time'", "nodes=N or depth=D"]),
        ("speed", &["'speed'", "suite, quality, mates and referee"]),
        (
            "speed:nodes=abc",
            &["'speed'", "suite, quality, mates and referee"],
        ),
        (":nodes=5", &["':'", "KIND"]),
        ("suite,,mates", &["comma", "KIND"]),
    ] {
        let args = with(
            tiny(&dir, "x.json", &dir.join("state")),
            "--objectives",
            spec,
        );
        let out = run(&args, &dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {stderr}");
        assert_names(&stderr, &[&["--objectives '"][..], what].concat());
        assert_omits(&stderr, &["positive integer"]);
    }
}

/// B124/B126: --max-faults takes a whole number; anything else is refused as the other counts
/// are, naming the value and what is expected (0 too), without Rust's words.
#[test]
fn max_faults_that_is_not_a_whole_number_is_refused_plainly() {
    let dir = scratch("calibrate", "max-faults");
    for (args, expect) in [
        (
            &["--max-faults", "abc", "params"][..],
            "'abc' is not a whole number",
        ),
        (
            &["--max-faults=-1", "params"],
            "-1 is too small: at least 0",
        ),
        (
            &["params", "--max-faults", "1.5"],
            "'1.5' is not a whole number",
        ),
        (&["params", "--max-faults", ""], "'' is not a whole number"),
        (
            &["params", "--max-faults", "99999999999999999999999"],
            "99999999999999999999999 is too large",
        ),
    ] {
        let out = marginal(args, &dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_names(
            &stderr,
            &["--max-faults", expect, "whole number", "0: never give up"],
        );
        assert_omits(&stderr, &["invalid digit", "target type"]);
    }
    for ok in ["0", "3"] {
        let out = marginal(&["--max-faults", ok, "params"], &dir);
        assert_eq!(out.status.code(), Some(0), "{ok}");
    }
}

/// A mate suite without a mate record is refused (the mates objective would say nothing),
/// naming how many positions it has, before any objective is prepared (campaign 22, G008: it
/// was said after the suite objective's reference searches).
#[test]
fn a_mate_suite_without_mate_records_is_refused_before_any_work() {
    let dir = scratch("calibrate", "no-mates");
    let wac8 = dir.join("wac8.epd");
    first_lines("data/suites/wac.epd", 8, &wac8);
    refused(
        &[
            "calibrate",
            "--sets",
            "4",
            "--games",
            "4",
            "--nodes",
            "300",
            "--objectives",
            "suite,mates",
            "--mate-suite",
            wac8.to_str().unwrap(),
            "--out",
            dir.join("cal.json").to_str().unwrap(),
        ],
        &dir,
        // The option and file, what it lacks, and the fix (a mate suite, or no mates).
        &[
            "--mate-suite",
            wac8.to_str().unwrap(),
            "8 positions",
            "data/suites/matetrack_short.epd",
            "--objectives",
        ],
    );
    let cached = dir.join("cache");
    assert!(
        !cached.exists() || std::fs::read_dir(&cached).unwrap().count() == 0,
        "a reference run was made before the refusal"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A calibration's report that cannot be written is refused before any work: the report named
/// as the --state directory, and an existing report of another calibration (before the
/// objectives' reference searches, which take a while; nothing is written to the cache).
#[test]
fn a_calibration_report_is_checked_before_any_work() {
    let dir = scratch("calibrate", "out-checked");
    let state = dir.join("state");
    let state = state.to_str().unwrap();
    let base = ["calibrate", "--sets", "4", "--games", "4", "--nodes", "300"];
    refused(
        &[&base[..], &["--out", state, "--state", state]].concat(),
        &dir,
        &["--out", state, "--state", "calibration.json"],
    );
    let report = dir.join("other.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json"),
        &report,
    )
    .unwrap();
    let text = refused(
        &[&base[..], &["--out", report.to_str().unwrap()]].concat(),
        &dir,
        &[report.to_str().unwrap(), "exists", "--out"],
    );
    assert_omits(&text, &["preparing"]);
    assert!(!dir.join("cache").exists(), "the reference searches ran");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A calibration's prediction for a tuned set counts the calibration sets' scatter about the
/// line (an interval from the slope's alone would be too narrow), and a set outside the region
/// the calibration drew its sets from is called an extrapolation: race-seed1's frontier margin
/// (2) lies below the shipped calibration's region, race-seed2 lies within it.
#[test]
fn a_prediction_counts_the_scatter_and_names_an_extrapolation() {
    let dir = scratch("calibrate", "prediction");
    let out = marginal(
        &["export", "tuned/race-seed1.json", "--format", "uci"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let note = said(&out);
    // What is withheld, why, and the value that lies outside.
    assert_names(
        &note,
        &["no prediction", "outside the region", "futility_margin 2 <"],
    );
    // No Elo figure is given for it in the note (the extrapolation is no estimate).
    assert_omits(&note, &["predicted "]);
    // The prediction made again from the report (what `export` and `check` start from)
    // counts the scatter: wider than the slope's interval alone.
    let tuned = marginal::tune::file::TunedFile::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json"),
    )
    .unwrap();
    let value_of = |name: &str| {
        tuned
            .margins
            .0
            .get(name)
            .and_then(serde_json::Value::as_i64)
    };
    let now = marginal::calibrate::trust::refreshed(tuned.calibration.as_ref().unwrap(), &value_of);
    let shown = now
        .predicted_elo
        .expect("race-seed2 lies within the region: a prediction");
    let (slope, gain) = (now.slope.unwrap(), now.objective_gain.unwrap());
    let (a, b) = (slope.lower * gain, slope.upper * gain);
    assert!(
        shown.lower < a.min(b) && shown.upper > a.max(b),
        "{shown:?} within the slope's own [{a}, {b}]"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// The referee objective judges moves with another UCI engine's deep search. With marginal's
/// own engine over UCI as the referee, at the quality objective's deep budget, it judges as
/// the quality objective does: the same value for every set (so the mechanism is tested
/// everywhere, without Stockfish). Its name says the referee and its budget.
#[test]
fn a_referee_judges_moves_as_the_engines_own_deep_search_does_when_it_is_that_engine() {
    let dir = scratch("calibrate", "referee");
    let referee = dir.join("referee.toml");
    std::fs::write(
        &referee,
        format!(
            "name = \"marginal over UCI\"\ncommand = \"{}\"\nargs = [\"uci\"]\n[options]\nHash = 4\n",
            env!("CARGO_BIN_EXE_marginal")
        ),
    )
    .unwrap();
    // The games' 2,000 nodes, the quality objective's deep reference 16 times that.
    let mut args = small(&dir, "r.json", "state-r", "quality,referee");
    args = with(args, "--referee", referee.to_str().unwrap());
    args = with(args, "--referee-nodes", "32000");
    let out = run(&args, &dir);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    let r = report(&dir.join("r.json"));
    let names: Vec<&str> = r["objectives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_names(names[1], &["referee", "marginal over UCI", "32000 nodes"]);
    for set in r["sets"].as_array().unwrap() {
        let values = set["objectives"].as_array().unwrap();
        assert_eq!(values[0], values[1], "{set}");
    }
    // Its deep results are cached under its own name; a damaged cache file is said, named,
    // and searched afresh, giving the same report.
    let cached = |prefix: &str| {
        std::fs::read_dir(dir.join("cache"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} file in the cache"))
    };
    let reference = cached("referee-reference-");
    cached("referee-moves-");
    let whole = std::fs::read_to_string(&reference).unwrap();
    std::fs::write(&reference, &whole[..whole.len() / 2]).unwrap();
    let again = run(
        &with(args.clone(), "--out", dir.join("s.json").to_str().unwrap()),
        &dir,
    );
    let text = said(&again);
    assert!(again.status.success(), "{text}");
    assert_names(&text, &[reference.to_str().unwrap(), "damaged", "afresh"]);
    assert_eq!(r["sets"], report(&dir.join("s.json"))["sets"]);
    assert_eq!(std::fs::read_to_string(&reference).unwrap(), whole);
    // A referee file that sets its own table size (as Stockfish's does) is searched with it:
    // another --hash searches quality's reference again, never the referee's.
    let count = |prefix: &str| {
        std::fs::read_dir(dir.join("cache"))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with(prefix)
            })
            .count()
    };
    let mut other = with(args, "--hash", "8");
    other = with(other, "--state", dir.join("state-h").to_str().unwrap());
    let third = run(
        &with(other, "--out", dir.join("h.json").to_str().unwrap()),
        &dir,
    );
    assert!(third.status.success(), "{}", said(&third));
    assert_eq!(
        (count("quality-reference-"), count("referee-reference-")),
        (2, 1)
    );
}

/// The referee shipped, Stockfish (engines/stockfish.toml), judges a few positions where it is
/// installed; where it is not, the referee objective is refused before any work (exit 2),
/// naming the engine file, the program and the fix.
#[test]
fn stockfish_referees_where_it_is_installed_and_is_named_with_the_fix_where_not() {
    let dir = scratch("calibrate", "stockfish");
    let mut args = small(&dir, "sf.json", "state-sf", "referee");
    args = with(args, "--referee-nodes", "20000");
    let installed = Path::new("/usr/games/stockfish").exists();
    let out = run(&args, &dir);
    let text = said(&out);
    if installed {
        assert!(out.status.success(), "{text}");
        assert_names(
            &text,
            &["referee (2000 nodes, Stockfish 15.1 at 20000 nodes)"],
        );
    } else {
        eprintln!(
            "skipped the judging: /usr/games/stockfish is not installed (apt-get install stockfish)"
        );
        assert_eq!(out.status.code(), Some(2), "{text}");
        let what = [
            "engines/stockfish.toml",
            "/usr/games/stockfish",
            "apt-get install stockfish",
            "--referee FILE",
        ];
        assert_names(&text, &what);
    }
}
