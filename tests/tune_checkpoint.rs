//! A tune's checkpoint: what it resumes and what it refuses. A checkpoint damaged anywhere, made
//! by another run, another engine or an earlier marginal, or a directory that is no checkpoint,
//! is named with the file and the way on; a finished run rerun replays it and keeps its file.

mod common;

use std::path::PathBuf;

use common::{
    assert_names, assert_omits, marginal, refused, said, scratch, small_suite, spsa_once,
};

/// A one-iteration SPSA tune of 12 positions into the checkpoint `DIR/ckpt`, finished: its
/// scratch directory, the checkpoint and the tune's arguments (owned, to run again).
fn tuned_into_checkpoint(name: &str) -> (PathBuf, PathBuf, Vec<String>) {
    let dir = scratch("tune-checkpoint", name);
    let suite = small_suite(&dir, 12);
    let ckpt = dir.join("ckpt");
    let out = dir.join("t.json");
    let mut args = spsa_once(suite.to_str().unwrap(), out.to_str().unwrap());
    args.extend(["--checkpoint", ckpt.to_str().unwrap()]);
    let first = marginal(&args, &dir);
    assert!(first.status.success(), "{}", said(&first));
    let args = args.iter().map(|a| a.to_string()).collect();
    (dir, ckpt, args)
}

#[test]
fn a_checkpoint_damaged_in_the_middle_is_refused_naming_the_line() {
    let dir = scratch("tune-checkpoint", "middle");
    let suite = small_suite(&dir, 30);
    let out_file = dir.join("n.json");
    let mut args = spsa_once(suite.to_str().unwrap(), out_file.to_str().unwrap());
    args[9] = "2";
    let out = marginal(&args, &dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let log = common::checkpoint(&dir, "n").join("evaluations.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3, "{text}");
    lines[1] = "{garbage line here";
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let mut again = args.to_vec();
    again.push("--force");
    // The file and its line, what is wrong with it, and the fix.
    let at = format!("{}:2:", log.display());
    refused(
        &again,
        &dir,
        &[&at, "not a record of this log", "delete that line"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A directory of the user's given as --checkpoint is refused and its files kept.
#[test]
fn a_directory_of_the_users_is_not_taken_for_a_checkpoint() {
    let dir = scratch("tune-checkpoint", "mine");
    let suite = small_suite(&dir, 30);
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    std::fs::write(dir.join("mine/args.json"), "{\"mine\":1}").unwrap();
    let (out_a, mine) = (s("a.json"), s("mine"));
    let mut args = spsa_once(suite.to_str().unwrap(), &out_a);
    args.extend(["--checkpoint", &mine]);
    refused(
        &args,
        &dir,
        &[
            &mine,
            "holds files",
            "not a checkpoint",
            "name a new or empty directory",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("mine/args.json")).unwrap(),
        "{\"mine\":1}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A checkpoint of another run names each option that differs, with its value then and now,
/// the options left at their defaults too (B059; the solver as it runs: without --solver the
/// suite objective races).
#[test]
fn a_checkpoint_of_another_run_names_the_options_that_differ() {
    let dir = scratch("tune-checkpoint", "other-run");
    let suite = small_suite(&dir, 30);
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (out_a, ck) = (s("a.json"), s("ck"));
    let mut first = spsa_once(suite.to_str().unwrap(), &out_a);
    first.extend(["--checkpoint", &ck]);
    assert_eq!(marginal(&first, &dir).status.code(), Some(0));
    let out_b = s("b.json");
    let mut second = spsa_once(suite.to_str().unwrap(), &out_b);
    second[9] = "2";
    second.extend(["--checkpoint", &ck]);
    // The checkpoint, each option that differs with both values, and the way on.
    let way_on = "another checkpoint directory";
    refused(&second, &dir, &[&ck, "--iterations 1 then, 2 now", way_on]);
    let mut third = spsa_once(suite.to_str().unwrap(), &out_b);
    third.truncate(6);
    third.extend(["--design", "4", "--race-pairs", "0", "--out", &out_b]);
    third.extend(["--checkpoint", &ck]);
    refused(
        &third,
        &dir,
        &[
            &ck,
            "--solver spsa then, race now",
            "--design default then, 4 now",
            "--race-pairs default then, [0] now",
            way_on,
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A resumed tune says a log line cut by a kill was dropped, and finishes.
#[test]
fn a_resume_says_it_dropped_a_log_line_cut_short() {
    let (dir, ckpt, args) = tuned_into_checkpoint("resume-cut");
    let log = ckpt.join("evaluations.jsonl");
    let text = std::fs::read(&log).unwrap();
    std::fs::write(&log, &text[..text.len() - 10]).unwrap();
    let out_at = args.iter().position(|a| a == "--out").unwrap() + 1;
    std::fs::remove_file(&args[out_at]).unwrap();
    let out = marginal(&["tune", "--resume", ckpt.to_str().unwrap(), "-q"], &dir);
    assert!(out.status.success(), "{}", said(&out));
    // The log, what was wrong with it, and what is done.
    assert_names(
        &said(&out),
        &[log.to_str().unwrap(), "cut short", "dropped"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// --resume of what is no checkpoint says what it is: a directory without a plan, a missing
/// directory (a typo), a file; never a missing file inside it.
#[test]
fn resume_of_what_is_no_checkpoint_says_what_it_is() {
    let dir = scratch("tune-checkpoint", "no-checkpoint");
    let suite = small_suite(&dir, 12);
    let here = dir.to_str().unwrap();
    refused(
        &["tune", "--resume", here],
        &dir,
        &[
            &format!("--resume {here}"),
            "not a tune checkpoint",
            "plan.json",
        ],
    );
    let typo = dir.join("ck-typo");
    refused(
        &["tune", "--resume", typo.to_str().unwrap()],
        &dir,
        &[&format!("--resume {}", typo.display()), "no such directory"],
    );
    refused(
        &["tune", "--resume", suite.to_str().unwrap()],
        &dir,
        &["--resume", suite.to_str().unwrap(), "not a tune checkpoint"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file named as the checkpoint directory is refused naming the option and the file.
#[test]
fn a_file_named_as_the_checkpoint_directory_is_refused() {
    let dir = scratch("tune-checkpoint", "file-checkpoint");
    let suite = small_suite(&dir, 12);
    let t = dir.join("t.json");
    let mut args = spsa_once(suite.to_str().unwrap(), t.to_str().unwrap());
    args.extend(["--checkpoint", suite.to_str().unwrap(), "--force"]);
    refused(
        &args,
        &dir,
        &[
            &format!("--checkpoint {}", suite.display()),
            "it is a file, not a directory",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A suite edited after a tune: the same command says the earlier run's checkpoint is not used
/// because a file it reads changed, and `--resume` of it names that cause (its options are the
/// same), not "rerun with its options".
#[test]
fn a_tune_whose_suite_changed_says_why_it_starts_afresh() {
    let dir = scratch("tune-checkpoint", "suite-changed");
    let suite = small_suite(&dir, 12);
    let (s, out) = (suite.to_str().unwrap(), dir.join("t.json"));
    let out = out.to_str().unwrap();
    let first = marginal(&spsa_once(s, out), &dir);
    assert_eq!(first.status.code(), Some(0), "{}", said(&first));
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let again = marginal(&[&spsa_once(s, out)[..], &["--force"]].concat(), &dir);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    let first_dir = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("tune-t-")
        })
        .find(|p| said(&first).contains(p.file_name().unwrap().to_str().unwrap()))
        .expect("the first run's checkpoint");
    // The checkpoint not used, why, and the way to go on from it.
    let why = [
        first_dir.to_str().unwrap(),
        "a file it reads changed",
        "restore the files",
    ];
    assert_names(&said(&again), &why);
    refused(
        &["tune", "--resume", first_dir.to_str().unwrap()],
        &dir,
        &[first_dir.to_str().unwrap(), "a file it reads changed"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A079: a checkpoint whose `run` record is damaged (text that is no run identity, or not
/// UTF-8) is said to be damaged, naming the directory to remove; it is not blamed on a file
/// the run reads having changed.
#[test]
fn a_damaged_checkpoint_run_record_is_said_to_be_damaged() {
    let (dir, ckpt, mut args) = tuned_into_checkpoint("damaged-run");
    let c = ckpt.to_str().unwrap();
    args.push("--force".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for damage in [&b"garbage!!\n"[..], &b"\xff\xfe"[..]] {
        std::fs::write(ckpt.join("run"), damage).unwrap();
        let held = format!("{:?}", String::from_utf8_lossy(damage).trim());
        let text = refused(
            &args,
            &dir,
            &[
                "run: damaged",
                &held,
                "not a run identity",
                &format!("remove {c} to start afresh"),
            ],
        );
        assert_omits(&text, &["a file it reads changed"]);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// D008: `tune --resume DIR` of a checkpoint whose plan (`plan.json`) is damaged says so, naming
/// the file, and the way on (the tune's own command rewrites it); taken, that way works.
#[test]
fn a_damaged_checkpoint_arguments_record_names_the_way_on() {
    let (dir, ckpt, args) = tuned_into_checkpoint("damaged-args");
    let c = ckpt.to_str().unwrap();
    std::fs::write(ckpt.join("plan.json"), "").unwrap();
    refused(
        &["tune", "--resume", c],
        &dir,
        &[
            &format!("{c}/plan.json:1"),
            "damaged",
            "rerun the tune's own command",
            &format!("evaluations logged in {c}"),
        ],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let again = marginal(&args, &dir);
    assert!(again.status.success(), "{}", said(&again));
    let record = std::fs::read_to_string(ckpt.join("plan.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&record).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 37: a checkpoint made before plans (its arguments in `args.json`, no `plan.json`) is
/// refused by `--resume` with exit 2, naming the directory and the way on (the command without
/// --resume), and its files are left as they were.
#[test]
fn a_checkpoint_from_before_plans_is_refused_naming_the_way_on() {
    let (dir, ckpt, _) = tuned_into_checkpoint("old-checkpoint");
    let c = ckpt.to_str().unwrap();
    std::fs::remove_file(ckpt.join("plan.json")).unwrap();
    std::fs::write(ckpt.join("args.json"), "{\"iterations\": 1}").unwrap();
    let log = std::fs::read(ckpt.join("evaluations.jsonl")).unwrap();
    refused(
        &["tune", "--resume", c],
        &dir,
        &[c, "earlier version", "args.json", "without --resume"],
    );
    assert_eq!(std::fs::read(ckpt.join("evaluations.jsonl")).unwrap(), log);
    std::fs::remove_dir_all(dir).unwrap();
}

/// D021: a checkpoint's engine record that names another engine signature, or is damaged, is
/// refused on resume (exit 2, naming the file and the directory to remove): its logged
/// evaluations are not taken for this engine's.
#[test]
fn a_checkpoint_of_another_engine_is_not_resumed() {
    let (dir, ckpt, _) = tuned_into_checkpoint("other-engine");
    let c = ckpt.to_str().unwrap();
    let record = ckpt.join("engine.json");
    let remove = format!("remove {c} to start afresh");
    for (text, needles) in [
        (
            r#"{"name": "marginal", "signature": "0000000000000000"}"#,
            [
                "the engine marginal (signature 0000000000000000)",
                "this is marginal (signature ",
            ],
        ),
        ("{}", ["engine.json: damaged", "not an engine record"]),
    ] {
        std::fs::write(&record, text).unwrap();
        refused(
            &["tune", "--resume", c],
            &dir,
            &[needles[0], needles[1], &remove],
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// G034: rerunning a finished tune replays its checkpoint and finds the same set: the tuned
/// file is left byte for byte as the run that found it wrote it (its cost record kept), and
/// said so; --force writes it afresh.
#[test]
fn a_rerun_of_a_finished_tune_leaves_its_file_as_it_is() {
    let dir = scratch("tune-checkpoint", "rerun-finished");
    let suite = small_suite(&dir, 30);
    let out = dir.join("t.json");
    let args = spsa_once(suite.to_str().unwrap(), out.to_str().unwrap());
    let first = marginal(&args, &dir);
    assert!(first.status.success(), "{}", said(&first));
    let written = std::fs::read(&out).unwrap();
    let again = marginal(&args, &dir);
    assert!(again.status.success(), "{}", said(&again));
    // The file, that it holds this run's result, and the fix to write it afresh.
    let what = [
        out.to_str().unwrap(),
        "this run's result",
        "left as it is",
        "--force",
    ];
    assert_names(&said(&again), &what);
    assert_eq!(std::fs::read(&out).unwrap(), written);
    let forced = marginal(&[&args[..], &["--force"]].concat(), &dir);
    assert_names(&said(&forced), &["written", out.to_str().unwrap()]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The arguments of a race tune of BK at 300 nodes (design 4, no race pairs) into `DIR/t.json`
/// with the checkpoint `DIR/ck`, and `extra`.
fn bk_race<'a>(dir: &'a str, extra: &[&'a str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tune",
        "--suites",
        "data/suites/bk.epd",
        "--nodes",
        "300",
        "--design",
        "4",
        "--race-pairs",
        "0",
        "--out",
        &format!("{dir}/t.json"),
        "--checkpoint",
        &format!("{dir}/ck"),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// The same checkpoint directory with another seed is another run's: refused before it says
/// it resumes or writes anything there (its finished set stays).
#[test]
fn a_checkpoint_of_another_seed_is_refused_before_anything_is_written() {
    let dir = scratch("tune-checkpoint", "other-seed");
    let d = dir.to_str().unwrap();
    let first = bk_race(d, &[]);
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    let out = marginal(&first, &dir);
    assert!(out.status.success(), "{}", said(&out));
    let finished = std::fs::read(dir.join("t.json")).unwrap();
    let other = bk_race(d, &["--seed", "3"]);
    let other: Vec<&str> = other.iter().map(String::as_str).collect();
    // The checkpoint, the option that differs with both values, and the way on.
    let ck = dir.join("ck");
    let what = [
        ck.to_str().unwrap(),
        "--seed 1 then, 3 now",
        "another checkpoint",
    ];
    refused(&other, &dir, &what);
    assert_eq!(std::fs::read(dir.join("t.json")).unwrap(), finished);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tune whose --out, or whose checkpoint, another run holds (its lock taken, here by the
/// test itself) is refused at once with exit 2, naming the file and the holder's pid, before
/// any work: two tunes never both write one tuned file and both say they wrote it. Released,
/// the same tune runs.
#[test]
fn a_tune_on_an_output_or_checkpoint_another_run_holds_is_refused_naming_its_pid() {
    let dir = scratch("tune-checkpoint", "held");
    let suite = small_suite(&dir, 12);
    let (out, ckpt) = (dir.join("t.json"), dir.join("ckpt"));
    let mut args = spsa_once(suite.to_str().unwrap(), out.to_str().unwrap());
    args.extend(["--checkpoint", ckpt.to_str().unwrap()]);
    let pid = format!("pid {}", std::process::id());
    for held in [&out, &ckpt] {
        let lock = marginal::formats::lock::hold(held).unwrap();
        let text = refused(&args, &dir, &[held.to_str().unwrap(), &pid]);
        assert!(!out.exists(), "{text}");
        drop(lock);
    }
    assert!(!ckpt.exists(), "nothing was written into the checkpoint");
    let done = marginal(&args, &dir);
    assert!(done.status.success(), "{}", said(&done));
    assert!(out.is_file());
    std::fs::remove_dir_all(dir).unwrap();
}
