//! `marginal tune` as a user runs it: a short run end to end writes a tuned file that parses
//! back, the same seed gives the same result, and bad configurations exit 2 with a clear
//! message.

use std::path::Path;
use std::process::{Command, Output};

use marginal::tune::file::TunedFile;
use serde_json::Value;

mod common;
use common::{
    assert_names, assert_omits, first_lines, marginal, said, scratch, small_suite, spsa_once,
};

/// A 3-iteration SPSA tune at 400 nodes per position.
fn tune(dir: &Path, suite: &Path, out: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--solver", "spsa", "--iterations", "3"];
    args.extend_from_slice(extra);
    common::tune(dir, suite, 400, out, &args)
}

#[test]
fn a_short_tune_writes_a_file_that_parses_back_and_is_reproducible() {
    let dir = scratch("tune", "ok");
    let suite = small_suite(&dir, 30);
    let out = tune(&dir, &suite, "a.json", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_names(
        &stdout,
        &["3/3", "objective", "best", "validation", "McNemar"],
    );
    let path = dir.join("a.json");
    let margins = marginal::tune::file::read_margins(&path).unwrap();
    let file = TunedFile::read(&path).unwrap();
    assert_eq!(file.format, "marginal-tuned/1");
    assert_eq!(file.setting().margins(), margins);
    assert_eq!(file.tuned.len(), 4);
    assert_eq!(file.validation.positions + file.training.positions, 30);
    let names: Vec<&str> = file.training.sets.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["tuned", "default", "off"]);
    // Provenance: the suite with its content hash, the limit, the seed, the schedule.
    let sources = &file.provenance.suites;
    assert_eq!(sources.training.len(), 1);
    assert_eq!(sources.training[0].hash.len(), 16);
    assert_eq!(
        sources.training[0].positions + sources.validation[0].positions,
        30
    );
    // A new file names its rule for repeated positions (one without it counted them each time).
    assert_eq!(sources.repeats, marginal::scoring::suite::Repeats::Once);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains(r#""repeats": "once""#)
    );
    assert_eq!(file.provenance.seed, 1);
    assert_eq!(file.provenance.iterations, 3);
    assert_eq!(file.provenance.schedule[0].c_end, 10.0);
    assert_eq!(file.provenance.schedule[0].r_end, 0.002);
    // Six evaluations at most (two probes an iteration), every one logged, and one record per
    // iteration and the start.
    assert!((1..=6).contains(&file.evaluations.len()));
    assert_eq!(file.provenance.evaluations, file.evaluations.len());
    assert_eq!(file.provenance.searched_evaluations, file.evaluations.len());
    assert_names(&stdout, &["evaluations searched"]);
    assert_eq!(file.iterations.len(), 4);
    assert!(file.evaluations.iter().any(|e| e.pareto));
    // It round-trips, and a damaged copy is refused naming the file, the line and the value.
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        serde_json::to_value(&file).unwrap(),
        serde_json::from_str::<Value>(&text).unwrap()
    );
    let (line, _) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("\"razor_margin\""))
        .unwrap();
    let bad = dir.join("bad.json");
    let damaged: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == line {
                l.split(':').next().unwrap().to_string() + ": 99999,"
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&bad, damaged.join("\n")).unwrap();
    let error = TunedFile::read(&bad).unwrap_err().to_string();
    let at = format!("{}:{}", bad.display(), line + 1);
    assert_names(&error, &[&at, "razor_margin", "99999"]);
    // `marginal plot` draws the SVG again from the file, and refuses the damaged one.
    std::fs::remove_file(path.with_extension("svg")).unwrap();
    let plot = marginal(&["plot", path.to_str().unwrap()], &dir);
    assert!(plot.status.success());
    assert!(path.with_extension("svg").exists());
    let plot = marginal(&["plot", bad.to_str().unwrap()], &dir);
    assert_eq!(plot.status.code(), Some(2));
    assert_names(&String::from_utf8_lossy(&plot.stderr), &[&at, "99999"]);
    std::fs::write(&bad, text.replace("marginal-tuned/1", "marginal-tuned/9")).unwrap();
    let error = TunedFile::read(&bad).unwrap_err().to_string();
    let at = |line: usize| format!("{}:{line}", bad.display());
    assert_names(&error, &[&at(2), "marginal-tuned/9", "marginal-tuned/1"]);
    // JSON that is no tuned file says so, naming the format it lacks or holds and the one a
    // tuned file has (H041: it said `format missing is not ...`).
    for (text, says) in [
        (
            "[1, 2]",
            &["\"format\"", "marginal-tuned/1", "not a tuned file"][..],
        ),
        (
            "{\"format\": 7}",
            &["7", "marginal-tuned/1", "not a tuned file"],
        ),
        (" \n", &[&at(1), "empty"]),
    ] {
        std::fs::write(&bad, text).unwrap();
        let error = TunedFile::read(&bad).unwrap_err().to_string();
        assert_names(&error, &[&[bad.to_str().unwrap()][..], says].concat());
    }
    // The same seed in a fresh directory gives the same margins.
    let again = tune(&dir, &suite, "b.json", &[]);
    assert!(again.status.success());
    assert_eq!(
        marginal::tune::file::read_margins(&dir.join("b.json")).unwrap(),
        margins
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_batched_tune_scores_both_probes_on_the_same_sample_and_is_reproducible() {
    let dir = scratch("tune", "batch");
    let suite = small_suite(&dir, 30);
    let out = tune(&dir, &suite, "a.json", &["--batch", "6"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = TunedFile::read(&dir.join("a.json")).unwrap();
    // Two evaluations an iteration, each pair on one batch, every batch a new one.
    assert_eq!(file.evaluations.len(), 6);
    let batches: Vec<&str> = file
        .evaluations
        .iter()
        .map(|e| e.evaluation.batch.as_deref().unwrap())
        .collect();
    for pair in batches.chunks(2) {
        assert_eq!(pair[0], pair[1]);
    }
    assert!(batches[0] != batches[2] && batches[2] != batches[4]);
    assert!(file.evaluations.iter().all(|e| !e.pareto));
    // Judged on every position all the same.
    assert_eq!(file.training.positions + file.validation.positions, 30);
    let again = tune(&dir, &suite, "b.json", &["--batch", "6"]);
    assert!(again.status.success());
    let b = TunedFile::read(&dir.join("b.json")).unwrap();
    assert_eq!(b.margins, file.margins);
    assert_eq!(b.provenance.final_theta, file.provenance.final_theta);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_configurations_exit_2_with_a_clear_message() {
    let dir = scratch("tune", "bad");
    let suite = small_suite(&dir, 12);
    // A held-out position that repeats a training one under other move clocks is the same
    // position, refused as the same line without clocks is.
    let first = std::fs::read_to_string(&suite).unwrap();
    let clocked = dir.join("clocked.epd");
    let line = first
        .lines()
        .next()
        .unwrap()
        .replacen(" - - ", " - - 3 30 ", 1);
    assert_names(&line, &[" 3 30 "]);
    std::fs::write(&clocked, line + "\n").unwrap();
    // Each names the option and the value at fault, and the fix or the rule; a held-out
    // position that is also a training one, both files and lines.
    let (s, c) = (suite.to_str().unwrap(), clocked.to_str().unwrap());
    let (s1, c1) = (format!("{s}:1"), format!("{c}:1"));
    let cases: [(&[&str], &[&str]); 8] = [
        (
            &["--params", "frontier,nosuch"],
            &["nosuch", "marginal params"],
        ),
        (
            &["--bounds", "frontier=300..50"],
            &["--bounds", "futility_margin", "300..50", "1500"],
        ),
        (
            &["--bounds", "frontier=0..99999"],
            &["--bounds", "futility_margin", "99999", "1500"],
        ),
        (
            &["--bounds", "razor=1..2", "--params", "frontier"],
            &["--bounds", "razor_margin", "--params"],
        ),
        (&["--holdout", s], &["--holdout", &s1, "training: "]),
        (&["--holdout", c], &["--holdout", &c1, &s1]),
        (&["--batch", "0"], &["--batch", "0"]),
        (&["--r-end", "delta=-1"], &["--r-end", "delta=-1"]),
    ];
    for (extra, what) in cases {
        let out = tune(&dir, &suite, "x.json", extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert_names(&stderr, what);
    }
    let out = marginal(&["tune", "--suites", "no/such.epd"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&String::from_utf8_lossy(&out.stderr), &["no/such.epd"]);
    // A corrupt checkpoint (of this run: it names the run) is refused, naming the file.
    let ckpt = dir.join("c");
    let args = ["--checkpoint", ckpt.to_str().unwrap()];
    assert_eq!(tune(&dir, &suite, "x.json", &args).status.code(), Some(0));
    std::fs::write(ckpt.join("spsa.json"), "{\"format\": \"marginal-check").unwrap();
    let out = tune(&dir, &suite, "x.json", &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The file, what is wrong, and the fix.
    let file = ckpt.join("spsa.json");
    assert_names(&stderr, &[file.to_str().unwrap(), "damaged", "delete it"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A run killed (SIGKILL) once `lines` evaluations are logged, then resumed with
/// `tune --resume`, ends with the result of the same run left alone; `resumed` checks the
/// resumed run's output for signs that it went on from its logs.
fn a_killed_run_resumes(name: &str, solver: &[&str], lines: usize, resumed: fn(&str)) {
    let dir = scratch("tune", name);
    let suite = small_suite(&dir, 40);
    let args = |out: &str| -> Vec<String> {
        let mut args: Vec<&str> = vec!["tune", "--suites", suite.to_str().unwrap()];
        args.extend_from_slice(solver);
        args.extend_from_slice(&["--nodes", "1500", "--threads", "2", "--out"]);
        let out = dir.join(out);
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.push(out.to_str().unwrap().to_string());
        args
    };
    let straight = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args("straight.json"))
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .output()
        .unwrap();
    assert!(
        straight.status.success(),
        "{}",
        String::from_utf8_lossy(&straight.stderr)
    );

    let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args("killed.json"))
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let log = || common::checkpoint(&dir, "killed").join("evaluations.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let logged = std::fs::read_to_string(log()).map_or(0, |t| t.lines().count());
        if logged >= lines || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !dir.join("killed.json").exists(),
        "the run finished before it was killed: nothing was resumed"
    );

    let out = marginal(
        &[
            "tune",
            "--resume",
            common::checkpoint(&dir, "killed").to_str().unwrap(),
        ],
        &dir,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    resumed(&stdout);
    // It says what it went on from.
    let checkpoint = common::checkpoint(&dir, "killed");
    assert_names(&stdout, &["resuming", checkpoint.to_str().unwrap()]);
    assert_eq!(
        common::tuned_result(&dir.join("straight.json")),
        common::tuned_result(&dir.join("killed.json"))
    );
    // Options that --resume does not take from this command line are named, and change nothing.
    let out = marginal(
        &[
            "tune",
            "--resume",
            common::checkpoint(&dir, "killed").to_str().unwrap(),
            "--seed",
            "99",
            "--nodes",
            "777",
        ],
        &dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The options ignored, each named.
    assert_names(&stderr, &["--nodes", "--seed", "ignored"]);
    assert_eq!(
        common::tuned_result(&dir.join("straight.json")),
        common::tuned_result(&dir.join("killed.json"))
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_killed_spsa_run_resumes_to_the_identical_result() {
    a_killed_run_resumes(
        "kill-spsa",
        &["--solver", "spsa", "--iterations", "60"],
        30,
        |stdout| {
            // It went on from the checkpoint rather than from the start.
            assert_omits(stdout, &[" 1/60"]);
            assert_names(stdout, &["60/60"]);
        },
    );
}

#[test]
fn a_killed_race_resumes_to_the_identical_result() {
    a_killed_run_resumes(
        "kill-race",
        &[
            "--design",
            "24",
            "--race-pairs",
            "4,8",
            "--screen-by",
            "suite",
        ],
        20,
        |stdout| {
            assert_names(stdout, &["race global screen", "from the log"]);
        },
    );
}

#[test]
fn an_existing_output_is_replaced_only_by_its_own_run_or_with_force() {
    let dir = scratch("tune", "force");
    let suite = small_suite(&dir, 20);
    let first = tune(&dir, &suite, "a.json", &[]);
    assert!(first.status.success());
    let written = std::fs::read_to_string(dir.join("a.json")).unwrap();
    // Its checkpoint is in the cache, named after the output; none beside the output.
    assert!(common::checkpoint(&dir, "a").join("plan.json").exists());
    assert!(!dir.join("a.checkpoint").exists());
    let doc: Value = serde_json::from_str(&written).unwrap();
    let recorded = doc["provenance"]["arguments"]["checkpoint"]
        .as_str()
        .unwrap();
    assert_names(recorded, &["tune-a-"]);
    // The same run again resumes and writes the same set.
    let again = tune(&dir, &suite, "a.json", &[]);
    assert!(again.status.success());
    let doc2: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a.json")).unwrap()).unwrap();
    assert_eq!(doc["margins"], doc2["margins"]);
    // Another run (another seed) is refused, naming the file and the fix, and leaves it alone.
    let before = std::fs::read_to_string(dir.join("a.json")).unwrap();
    let other = tune(&dir, &suite, "a.json", &["--seed", "7"]);
    assert_eq!(other.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert_names(&stderr, &[dir.join("a.json").to_str().unwrap(), "--force"]);
    assert_eq!(std::fs::read_to_string(dir.join("a.json")).unwrap(), before);
    // With --force it is replaced.
    let forced = tune(&dir, &suite, "a.json", &["--seed", "7", "--force"]);
    assert!(forced.status.success());
    let doc4: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a.json")).unwrap()).unwrap();
    assert_eq!(doc4["provenance"]["seed"], 7);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_interrupted_tune_says_what_it_kept_and_the_command_that_resumes() {
    let dir = scratch("tune", "sigint");
    let suite = small_suite(&dir, 20);
    let out = dir.join("cut.json");
    let child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args([
            "tune",
            "--suites",
            suite.to_str().unwrap(),
            "--solver",
            "spsa",
            "--iterations",
            "600",
            "--nodes",
            "400",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let log = || common::checkpoint(&dir, "cut").join("evaluations.jsonl");
    let cut = common::interrupt_when(child, std::time::Duration::from_secs(120), || {
        std::fs::read_to_string(log()).map_or(0, |t| t.lines().count()) >= 4
    });
    let stderr = String::from_utf8_lossy(&cut.stderr);
    let dir_text = common::checkpoint(&dir, "cut").display().to_string();
    // What was kept, and the command that resumes it.
    let resume = format!("marginal tune --resume {dir_text}");
    assert_names(&stderr, &["interrupted", "evaluations", &resume]);
    assert!(!out.exists());
    // A run stopped by an interrupt lets go of its outputs: no lock file is left beside --out
    // or in the checkpoint, so the resume has none to take over.
    let locks = |d: &std::path::Path| -> Vec<std::path::PathBuf> {
        (std::fs::read_dir(d).unwrap().flatten())
            .filter(|e| marginal::formats::lock::is_lock_file(&e.file_name()))
            .map(|e| e.path())
            .collect()
    };
    assert_eq!(locks(&dir), Vec::<std::path::PathBuf>::new());
    assert_eq!(
        locks(&common::checkpoint(&dir, "cut")),
        Vec::<std::path::PathBuf>::new()
    );
    // The resumed run names the set it found, and counts the interrupted run's time in what
    // the tune cost.
    let resumed = marginal(&["tune", "--resume", &dir_text], &dir);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.status.success(), "{stdout}");
    assert_names(
        &stdout,
        &["tuned set", "futility_margin=", "1 interrupted run"],
    );
    assert_omits(&String::from_utf8_lossy(&resumed.stderr), &["taken over"]);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let earlier = file["provenance"]["earlier_wall_seconds"].as_f64().unwrap();
    assert!(earlier > 0.0, "{earlier}");
    // And its CPU time, this invocation's and the interrupted one's, beside the wall time.
    let cpu = |key: &str| file["provenance"][key].as_f64().unwrap_or(0.0);
    assert!(
        cpu("cpu_seconds") > 0.0 && cpu("earlier_cpu_seconds") > 0.0,
        "{}",
        file["provenance"]
    );
    assert_names(&stdout, &["CPU min"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn options_that_do_nothing_here_are_said_once() {
    let dir = scratch("tune", "unused");
    let suite = small_suite(&dir, 10);
    let out = tune(
        &dir,
        &suite,
        "a.json",
        &["--pairs", "4", "--confirm-sprt", "0,5,0.05,0.05"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Each option is named once, with the value given and why it does nothing.
    for option in ["--pairs 4", "--confirm-sprt"] {
        assert_eq!(stderr.matches(option).count(), 1, "{option}\n{stderr}");
    }
    assert_names(
        &stderr,
        &["--solver spsa", "--objective suite", "games objective"],
    );
    // Ten positions leave a handful held out: said, with the fix.
    assert_names(
        &stderr,
        &["validation position(s)", "too few", "--holdout FILE"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A resumed race asks again, in order, for every evaluation its log holds (the screen and the
/// local rounds replay from it): none of them is logged a second time, so resuming a finished
/// run twice leaves its log as it was.
#[test]
fn a_resumed_race_logs_no_evaluation_twice() {
    let dir = scratch("tune", "replay");
    let suite = small_suite(&dir, 20);
    let ck = dir.join("ck");
    let args = [
        "--design",
        "8",
        "--race-pairs",
        "0",
        "--checkpoint",
        ck.to_str().unwrap(),
    ];
    let out = common::tune(&dir, &suite, 300, "r.json", &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = ck.join("evaluations.jsonl");
    let lines = || std::fs::read_to_string(&log).unwrap().lines().count();
    let logged = lines();
    assert!(logged > 0);
    for _ in 0..2 {
        let again = marginal(&["tune", "--resume", ck.to_str().unwrap(), "-q"], &dir);
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(lines(), logged);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A split that leaves no validation position prints no table for it: it says the split left
/// none.
#[test]
fn a_split_that_leaves_no_validation_position_says_so() {
    let dir = scratch("tune", "no-validation");
    let suite = small_suite(&dir, 3);
    let t = dir.join("t.json");
    let out = marginal(
        &spsa_once(suite.to_str().unwrap(), t.to_str().unwrap()),
        &dir,
    );
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert_names(&text, &["validation: no positions", "split"]);
    assert_omits(&text, &["validation (0 positions)"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A suite tune that moved the margins by a unit or so, too little to change any search, says
/// it found no gain; and when `off` scored above what it wrote (60 WAC positions at 500 nodes
/// reward no pruning), it says that too.
#[test]
fn a_tune_that_measures_as_the_defaults_says_it_gained_nothing() {
    let dir = scratch("tune", "no-gain");
    let suite = dir.join("w60.epd");
    first_lines("data/suites/wac.epd", 60, &suite);
    let extra = ["--solver", "spsa", "--iterations", "3"];
    let run = common::tune(&dir, &suite, 500, "t.json", &extra);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let text = said(&run);
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t.json")).unwrap()).unwrap();
    // The case: the set moved, yet measured as the defaults on both sides.
    assert_ne!(file["margins"], file["training"]["sets"][1]["margins"]);
    for side in ["training", "validation"] {
        let sets = &file[side]["sets"];
        assert_eq!(sets[0]["objective"], sets[1]["objective"], "{side}");
    }
    // What it found, on which positions, and what that means; and the set that scored above.
    for needle in [
        "the tuned set measures the same as the defaults",
        "on the training and the validation positions",
        "no gain was found",
        "`off` (no margin test) scores above the tuned set on the training positions (",
    ] {
        assert!(text.contains(needle), "'{needle}' not in {text}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
