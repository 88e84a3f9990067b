//! `--executor slurm` against a real Slurm cluster (`.ci/slurm up` starts a single-node one;
//! CI runs it first): the figures equal the one-machine run's exactly, a task killed mid-run
//! is run again, Ctrl-C cancels the job array and leaves the queue empty, and a rerun reuses
//! the units an interrupted run finished. Each test is skipped, saying why, where no cluster
//! answers.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

mod common;
use common::child::{Run, finish};
use common::slurm::{hold, queue_empty};
use common::{assert_names, said, scratch, small_suite};

/// Starts `marginal ARGS` from the crate's root, with the reference cache in `dir` and its
/// output in `dir/NAME.out` and `dir/NAME.err`.
fn start(dir: &Path, name: &str, args: &[&str]) -> Child {
    let file = |ext: &str| std::fs::File::create(dir.join(format!("{name}.{ext}"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(file("out"))
        .stderr(file("err"))
        .stdin(Stdio::null())
        .spawn()
        .unwrap()
}

fn run(dir: &Path, name: &str, args: &[&str]) -> Run {
    let child = start(dir, name, args);
    finish(dir, name, child)
}

/// `--executor slurm --workdir DIR/work --shards N`, as strings.
fn on_slurm(dir: &Path, shards: usize) -> Vec<String> {
    vec![
        "--executor".into(),
        "slurm".into(),
        "--workdir".into(),
        dir.join("work").display().to_string(),
        "--shards".into(),
        shards.to_string(),
    ]
}

fn with<'a>(args: &[&'a str], more: &'a [String]) -> Vec<&'a str> {
    args.iter()
        .copied()
        .chain(more.iter().map(String::as_str))
        .collect()
}

/// A suite report without its `run` section (threads, timing).
fn report(path: &Path) -> Value {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc.as_object_mut().unwrap().remove("run");
    doc
}

/// The `marginal work` processes working in `workdir`, by pid.
fn workers(workdir: &Path) -> Vec<i32> {
    let needle = workdir.display().to_string();
    common::child::processes()
        .into_iter()
        .filter(|p| {
            String::from_utf8_lossy(&p.cmdline)
                .replace('\0', " ")
                .contains(" work unit-")
                && p.cwd.display().to_string().contains(&needle)
        })
        .map(|p| p.pid)
        .collect()
}

/// Polls `ready()` every 10 ms until it holds; a guard against a hang (12,000 polls), not a
/// speed target.
fn wait_for(what: &str, ready: impl Fn() -> bool) {
    for _ in 0..12_000 {
        if ready() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{what} never happened");
}

/// The local run of `suite` at `limit`, its report written to `dir/local.json` (checked to
/// succeed): what the Slurm run must equal.
fn local_report(dir: &Path, suite: &str, limit: &[&str]) -> Value {
    let local = dir.join("local.json");
    run(
        dir,
        "local",
        &suite_args(suite, local.to_str().unwrap(), limit),
    )
    .assert_success();
    report(&local)
}

/// The result files in the work directory's batch directories.
fn results_in(workdir: &Path) -> usize {
    let Ok(batches) = std::fs::read_dir(workdir) else {
        return 0;
    };
    batches
        .flatten()
        .filter_map(|b| std::fs::read_dir(b.path()).ok())
        .flat_map(|files| files.flatten())
        .filter(|f| f.file_name().to_string_lossy().starts_with("result-"))
        .count()
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) with a child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

fn suite_args<'a>(suite: &'a str, json: &'a str, limit: &'a [&'a str]) -> Vec<&'a str> {
    let mut args = vec!["suite", suite, "--no-cache", "--json", json];
    args.extend_from_slice(limit);
    args
}

#[test]
fn a_suite_through_slurm_equals_the_local_run_exactly() {
    let Some(_cluster) = hold("a_suite_through_slurm_equals_the_local_run_exactly") else {
        return;
    };
    let dir = scratch("slurm", "suite");
    let suite = small_suite(&dir, 40);
    let suite = suite.to_str().unwrap();
    let remote = dir.join("slurm.json");
    let limit = ["--nodes", "3000"];
    let expected = local_report(&dir, suite, &limit);
    let slurm = on_slurm(&dir, 3);
    let done = run(
        &dir,
        "slurm",
        &with(&suite_args(suite, remote.to_str().unwrap(), &limit), &slurm),
    );
    done.assert_success();
    // The reference and the candidate: one job array each, of 3 units.
    assert_eq!(
        done.stderr.matches("3 task(s) submitted").count(),
        2,
        "{}",
        done.stderr
    );
    assert_names(&done.stdout, &["on Slurm"]);
    assert_eq!(expected["positions"].as_array().unwrap().len(), 40);
    assert_eq!(expected, report(&remote));
    // Every batch merged: nothing left in the work directory, and nothing in the queue.
    assert_eq!(std::fs::read_dir(dir.join("work")).unwrap().count(), 0);
    assert!(queue_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_short_spsa_tune_through_slurm_equals_the_local_run_exactly() {
    let Some(_cluster) = hold("a_short_spsa_tune_through_slurm_equals_the_local_run_exactly")
    else {
        return;
    };
    let dir = scratch("slurm", "tune");
    let suite = small_suite(&dir, 30);
    let extra = ["--solver", "spsa", "--iterations", "3", "--batch", "12"];
    let local = common::tune(&dir, &suite, 1500, "local.json", &extra);
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let slurm = on_slurm(&dir, 2);
    let args = with(&extra, &slurm);
    let remote = common::tune(&dir, &suite, 1500, "slurm.json", &args);
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    // One job array per SPSA comparison (both probes together) among the others.
    assert_names(&stderr, &["job ", "4 task(s) submitted"]);
    let a = common::tuned_result(&dir.join("local.json"));
    assert_eq!(a, common::tuned_result(&dir.join("slurm.json")));
    let lines = |stem: &str| {
        std::fs::read_to_string(common::checkpoint(&dir, stem).join("evaluations.jsonl")).unwrap()
    };
    assert_eq!(lines("local"), lines("slurm"));
    assert!(queue_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_task_killed_mid_run_is_resubmitted_and_the_result_is_unchanged() {
    let Some(_cluster) = hold("a_task_killed_mid_run_is_resubmitted_and_the_result_is_unchanged")
    else {
        return;
    };
    let dir = scratch("slurm", "kill");
    let suite = small_suite(&dir, 12);
    let suite = suite.to_str().unwrap();
    let remote = dir.join("slurm.json");
    let limit = ["--nodes", "150000"];
    let expected = local_report(&dir, suite, &limit);
    let slurm = on_slurm(&dir, 2);
    let child = start(
        &dir,
        "slurm",
        &with(&suite_args(suite, remote.to_str().unwrap(), &limit), &slurm),
    );
    let workdir = dir.join("work");
    wait_for("a task at work", || !workers(&workdir).is_empty());
    let victim = workers(&workdir)[0];
    // SAFETY: kill(2) with the pid of a task process found in /proc.
    assert_eq!(unsafe { libc::kill(victim, libc::SIGKILL) }, 0);
    let done = finish(&dir, "slurm", child);
    done.assert_success();
    // The task that failed and why (killed), then its second attempt.
    assert_names(
        &done.stderr,
        &["failed (attempt 1)", "resubmitted (attempt 2)"],
    );
    assert_eq!(expected, report(&remote));
    assert!(queue_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_task_that_keeps_failing_stops_the_run_naming_it() {
    let Some(_cluster) = hold("a_task_that_keeps_failing_stops_the_run_naming_it") else {
        return;
    };
    let dir = scratch("slurm", "fail");
    let suite = small_suite(&dir, 4);
    // The tasks run a "marginal" that always fails.
    let fake = dir.join("fake-bin");
    std::fs::create_dir_all(&fake).unwrap();
    let exe = fake.join("marginal");
    std::fs::write(&exe, "#!/bin/sh\necho 'node lost its disk' >&2\nexit 3\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let slurm = on_slurm(&dir, 2);
    let mut args = vec![
        "suite",
        suite.to_str().unwrap(),
        "--no-cache",
        "--nodes",
        "500",
    ];
    args.extend(slurm.iter().map(String::as_str));
    args.extend(["--retries", "1"]);
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(&args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .env("MARGINAL_WORKER", &exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The task, how often it failed, and what it said.
    assert_names(
        &stderr,
        &["task 0 of batch", "2 times", "node lost its disk"],
    );
    assert!(queue_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ctrl_c_cancels_the_job_array_and_a_rerun_reuses_the_finished_units() {
    let Some(_cluster) = hold("ctrl_c_cancels_the_job_array_and_a_rerun_reuses_the_finished_units")
    else {
        return;
    };
    let dir = scratch("slurm", "ctrlc");
    let suite = small_suite(&dir, 16);
    let suite = suite.to_str().unwrap();
    let remote = dir.join("slurm.json");
    // Eight units on two CPUs: some finish while others wait their turn.
    let limit = ["--nodes", "100000"];
    let expected = local_report(&dir, suite, &limit);
    let slurm = on_slurm(&dir, 8);
    let args = with(&suite_args(suite, remote.to_str().unwrap(), &limit), &slurm);
    let workdir = dir.join("work");
    let child = start(&dir, "first", &args);
    wait_for("a finished unit", || results_in(&workdir) >= 1);
    signal(&child, libc::SIGINT);
    let first = finish(&dir, "first", child);
    assert_eq!(first.status.code(), Some(130), "{}", first.stderr);
    assert_names(&first.stderr, &["cancelled Slurm job", "kept"]);
    // The job array is gone, and no task is left at work.
    assert!(queue_empty(), "{}", first.stderr);
    assert!(workers(&workdir).is_empty());
    let kept = results_in(&workdir);
    assert!(kept >= 1);

    let second = run(&dir, "second", &args);
    second.assert_success();
    assert!(
        second
            .stderr
            .contains(&format!("{kept} of 8 unit(s) already done")),
        "{}",
        second.stderr
    );
    assert!(
        second
            .stderr
            .contains(&format!("{} task(s) submitted", 8 - kept)),
        "{}",
        second.stderr
    );
    assert_eq!(expected, report(&remote));
    assert!(queue_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tune_interrupted_on_slurm_resumes_on_this_machine_to_the_same_result() {
    let Some(_cluster) =
        hold("a_tune_interrupted_on_slurm_resumes_on_this_machine_to_the_same_result")
    else {
        return;
    };
    let dir = scratch("slurm", "resume");
    let suite = small_suite(&dir, 30);
    let extra = ["--solver", "spsa", "--iterations", "6"];
    let straight = common::tune(&dir, &suite, 1500, "straight.json", &extra);
    assert!(straight.status.success());
    let out = dir.join("cut.json");
    let mut args = vec![
        "tune",
        "--suites",
        suite.to_str().unwrap(),
        "--nodes",
        "1500",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(&extra);
    let slurm = on_slurm(&dir, 2);
    let args = with(&args, &slurm);
    let log = || common::checkpoint(&dir, "cut").join("evaluations.jsonl");
    let child = start(&dir, "cut", &args);
    wait_for("three evaluations", || {
        std::fs::read_to_string(log()).map_or(0, |t| t.lines().count()) >= 3
    });
    signal(&child, libc::SIGINT);
    let cut = finish(&dir, "cut", child);
    assert_eq!(cut.status.code(), Some(130), "{}", cut.stderr);
    assert!(queue_empty());
    assert!(!out.exists());
    let resumed = common::marginal(
        &[
            "tune",
            "--resume",
            common::checkpoint(&dir, "cut").to_str().unwrap(),
        ],
        &dir,
    );
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(
        common::tuned_result(&dir.join("straight.json")),
        common::tuned_result(&out)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A unit of work under a malformed Slurm allotment (not a number, or 0) is refused (exit 2),
/// naming the variable and its value; this needs no cluster.
#[test]
fn a_malformed_cpu_allotment_is_refused_naming_the_variable() {
    let dir = scratch("slurm", "allotment");
    let unit = dir.join("unit.json");
    std::fs::write(&unit, "{}").unwrap();
    for value in ["abc", "0"] {
        let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(["work", unit.to_str().unwrap(), "--out"])
            .arg(dir.join("r.json"))
            .env("SLURM_CPUS_PER_TASK", value)
            .output()
            .unwrap();
        let text = said(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        for needle in [
            &format!("SLURM_CPUS_PER_TASK='{value}'")[..],
            "is not a CPU count",
        ] {
            assert!(text.contains(needle), "'{needle}' not in {text}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A stand-in for Slurm's commands, in `dir/fake-slurm` (to put first on PATH): `sbatch` runs
/// each task of the array itself, in its `--chdir`, after a second (so that runs started
/// together overlap), and prints a job id; `squeue` lists no job (every job has left the queue
/// once `sbatch` returns), `sinfo` one partition.
fn fake_slurm(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("fake-slurm");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = r#"#!/bin/sh
for a in "$@"; do
  case "$a" in
    --array=*) list=${a#--array=} ;;
    --chdir=*) dir=${a#--chdir=} ;;
  esac
  script=$a
done
sleep 1
cd "$dir" || exit 1
for i in $(echo "$list" | tr , ' '); do
  SLURM_ARRAY_TASK_ID=$i sh "$script" >> "log-$i.txt" 2>&1
done
echo $$
"#;
    for (name, text) in [
        ("sbatch", sbatch),
        ("squeue", "#!/bin/sh\nexit 0\n"),
        ("sinfo", "#!/bin/sh\necho debug\n"),
        ("scancel", "#!/bin/sh\nexit 0\n"),
    ] {
        let path = bin.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

/// Two runs of the same work started together on one --workdir (through a stand-in for
/// Slurm, so this runs anywhere) both finish with the same report: each keeps to its own
/// batch directory and neither removes the other's; the work directory is empty after.
#[test]
fn two_runs_sharing_a_workdir_both_finish() {
    let dir = scratch("slurm", "shared-workdir");
    let bin = fake_slurm(&dir);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let suite = small_suite(&dir, 12);
    let suite = suite.to_str().unwrap();
    let slurm = on_slurm(&dir, 2);
    let limit = ["--nodes", "2000"];
    let spawn = |name: &str| {
        let json = dir.join(format!("{name}.json"));
        let args = with(&suite_args(suite, json.to_str().unwrap(), &limit), &slurm);
        let file = |ext: &str| std::fs::File::create(dir.join(format!("{name}.{ext}"))).unwrap();
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args)
            .env("PATH", &path)
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(file("out"))
            .stderr(file("err"))
            .stdin(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("a"), spawn("b"));
    let (a, b) = (finish(&dir, "a", a), finish(&dir, "b", b));
    a.assert_success();
    b.assert_success();
    assert_eq!(report(&dir.join("a.json")), report(&dir.join("b.json")));
    let left: Vec<_> = std::fs::read_dir(dir.join("work"))
        .unwrap()
        .flatten()
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(dir).unwrap();
}
