//! marginal as a Unix filter: a reader that closes the pipe early (`marginal bench | head -1`)
//! ends marginal quietly with status 141, without a panic; a standard output closed from the
//! start (`>&-`) is refused; `/dev/stdout` named as an output holds that output alone; a device
//! where a plot goes is written, never read; a full standard error costs no result.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{assert_names, assert_omits, first_lines, said, scratch, small_suite};

/// Runs marginal with `args`, reads one line of its stdout, closes it, and returns the exit
/// status and what marginal wrote on stderr.
fn closed_after_one_line(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let collector = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(!line.is_empty(), "{args:?} wrote nothing");
    let status = child.wait().unwrap();
    (status.code(), collector.join().unwrap())
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // The bench prints a line a position for several seconds: the reader is long gone.
    let (status, stderr) = closed_after_one_line(&["bench", "--depth", "9"]);
    assert_eq!(status, Some(141), "{stderr}");
    assert_omits(&stderr, &["panicked"]);
}

/// A reader that goes after the first line (`| head -1`) ends marginal at the next line it
/// prints, but the --json report of the work done is written first (campaign 18 A051: a
/// match played every game and lost its report).
#[test]
fn a_closed_stdout_does_not_take_the_json_report_with_it() {
    let dir = std::env::temp_dir().join(format!("marginal-closed-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (m, s) = (dir.join("m.json"), dir.join("s.json"));
    let (m_path, s_path) = (m.to_str().unwrap(), s.to_str().unwrap());
    let runs: [&[&str]; 2] = [
        &[
            "match", "--a", "default", "--b", "off", "--games", "2", "--nodes", "300", "--json",
            m_path,
        ],
        &[
            "suite",
            "data/suites/bk.epd",
            "--nodes",
            "300",
            "--no-cache",
            "--json",
            s_path,
        ],
    ];
    for (args, report) in runs.iter().zip([&m, &s]) {
        let (status, stderr) = closed_after_one_line(args);
        assert_eq!(status, Some(141), "{args:?}: {stderr}");
        let text = std::fs::read_to_string(report).unwrap_or_default();
        serde_json::from_str::<serde_json::Value>(&text)
            .unwrap_or_else(|e| panic!("{args:?}: no whole report ({e}): {text}"));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `marginal uci` whose reader goes while its input stays open (a GUI that died, `| head -1`):
/// the search stops and the session ends with status 141, instead of searching on for as long
/// as the input is open (C001).
/// `match --pgn /dev/stdout --resume` with stdout and stderr on one pipe (`2>&1 | cat`): the
/// pipe the games go to is never read to resume from, so the match plays instead of waiting
/// on its own output (campaign 19 C001/C002: it hung until killed). `timeout` guards the run.
#[test]
fn a_resumed_match_never_reads_its_own_output() {
    for pgn in ["/dev/stdout", "/dev/stderr"] {
        let out = Command::new("bash")
            .args([
                "-c",
                "timeout 60 \"$0\" \"$@\" 2>&1 | cat; exit ${PIPESTATUS[0]}",
                env!("CARGO_BIN_EXE_marginal"),
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--games",
                "2",
                "--nodes",
                "300",
                "--pgn",
                pgn,
                "--resume",
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{pgn}: {text}");
        assert!(
            text.contains(&format!(
                "resume: {pgn} is a device or pipe, written to and never read"
            )) && text.matches("[Event ").count() == 2,
            "{pgn}: {text}"
        );
    }
}

#[test]
fn uci_ends_when_its_reader_is_gone_though_its_input_stays_open() {
    use std::io::Write;
    for go in ["go infinite", "go depth 99999"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        writeln!(input, "position startpos\n{go}").unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(!line.is_empty(), "{go}: wrote nothing");
        // The reader is gone (its end of the pipe dropped); the input is still open.
        let waited = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if waited.elapsed() > std::time::Duration::from_secs(30) {
                child.kill().unwrap();
                child.wait().unwrap();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(141),
            "{go}: still searching 30 s after its reader went"
        );
        drop(input);
    }
}

#[test]
fn a_standard_output_closed_from_the_start_is_refused() {
    // `marginal params >&-`: the runtime would put /dev/null there and lose every result.
    // Help and version too (B044): clap prints them on standard output.
    for args in [
        "params",
        "bench --depth 1",
        "uci",
        "--version",
        "--help",
        "tune --help",
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("exec \"$0\" {args} >&- </dev/null"))
            .arg(env!("CARGO_BIN_EXE_marginal"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {stderr}");
        // What is wrong (standard output), and how it came to be (>&-).
        assert_names(&stderr, &["standard output", ">&-"]);
    }
    // Sent to /dev/null on purpose, it runs.
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .arg("params")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// Runs marginal with `args` from the crate's root with the cache in `cache`; stdout, stderr.
fn run(args: &[&str], cache: &std::path::Path) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", cache)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn quiet_drops_the_progress_and_keeps_the_results() {
    let dir = std::env::temp_dir().join(format!("marginal-quiet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("cache");
    let tune = |quiet: bool, out: &str| {
        let out = dir.join(out);
        let mut args = vec![
            "tune",
            "--suites",
            "data/suites/bk.epd",
            "--solver",
            "spsa",
            "--iterations",
            "3",
            "--nodes",
            "500",
            "--out",
            out.to_str().unwrap(),
        ];
        if quiet {
            args.push("--quiet");
        }
        run(&args, &cache)
    };
    let (loud, _) = tune(false, "loud.json");
    assert_names(&loud, &["iteration", "3/3"]);
    let (quiet, _) = tune(true, "quiet.json");
    assert_omits(&quiet, &["iteration "]);
    assert_names(&quiet, &["quiet.json"]);
    // A match outside a terminal prints plain progress lines on stderr; --quiet none.
    let game = [
        "match", "--a", "default", "--b", "off", "--depth", "2", "--games", "8",
    ];
    let (stdout, stderr) = run(&[&["-q"], &game[..]].concat(), &cache);
    assert_names(&stdout, &["games 8:"]);
    assert_omits(&stderr, &["/8 games"]);
    let (_, stderr) = run(&game, &cache);
    assert_names(&stderr, &["/8 games"]);
    // Plain lines: no bar drawn in text.
    assert!(
        (stderr.lines())
            .filter(|l| l.contains("/8 games"))
            .all(|l| !l.contains('[') && !l.contains(']')),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// SIGTERM (or SIGINT) during a suite or a check: exit 130 and a line on stderr saying what is
/// kept and how to go on, not a silent death with the signal's status.
#[test]
fn suite_and_check_say_what_an_interrupt_kept() {
    let root = std::env::temp_dir().join(format!("marginal-interrupt-{}", std::process::id()));
    for (i, (args, said)) in [
        (
            &["suite", "data/suites/ecm.epd", "--nodes", "50000"][..],
            "interrupted: every position searched (of the reference run and of the set's) is kept in",
        ),
        (
            &["check", "tuned/race-seed1.json", "--games", "400"][..],
            "interrupted: the reference runs and the game pairs (--games) that finished are kept in the cache",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let cache = root.join(i.to_string());
        let child = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args)
            .env("MARGINAL_CACHE_DIR", &cache)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Late enough that the handler is installed: once the run has journalled a searched
        // position (its inputs are read by then), however loaded the machine is.
        let started = std::time::Instant::now();
        while journalled(&cache) == 0 {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(300),
                "{args:?} journalled nothing in 300 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(root);
}

/// The lines a run using `cache` has journalled so far (its unfinished work kept in the cache).
fn journalled(cache: &std::path::Path) -> usize {
    std::fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial.jsonl"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .map(|t| t.lines().count())
        .sum()
}

/// A suite interrupted in its reference run keeps the positions it searched: the same command
/// says it resumes, searches only the rest, and prints the figures of a run in one go.
#[test]
fn an_interrupted_suite_resumes_with_the_same_figures() {
    let cache = std::env::temp_dir().join(format!("marginal-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let args = ["suite", "data/suites/wac.epd", "--nodes", "30000", "-q"];
    let suite = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args.iter().chain(extra))
            .env("MARGINAL_CACHE_DIR", &cache)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The figures, less the line of timings.
    let figures = |stdout: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(stdout)
            .lines()
            .filter(|l| !l.contains("positions/s") && !l.starts_with("reference '"))
            .map(str::to_string)
            .collect()
    };
    let whole = suite(&["--no-cache"]).wait_with_output().unwrap();
    assert_eq!(whole.status.code(), Some(0));
    let child = suite(&[]);
    // The reference run of 300 positions at 30,000 nodes takes seconds: interrupt it when
    // some of its positions are in the cache.
    let journal = || journalled(&cache);
    while journal() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let kept = journal();
    assert!(kept >= 5, "{kept}");
    let resumed = suite(&[]).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stderr}");
    // What it resumes, and how many of its positions were kept.
    assert_names(
        &stderr,
        &["resuming the reference run", "of 300 positions", "kept"],
    );
    assert_eq!(figures(&resumed.stdout), figures(&whole.stdout));
    assert_eq!(
        journal(),
        0,
        "the journals are removed once the run is scored"
    );
    let _ = std::fs::remove_dir_all(cache);
}

/// A plot path that links to /dev/zero (a device that reads forever): marginal writes the
/// plot there and never reads it to see whether it drew it.
#[test]
fn a_device_where_the_plot_goes_is_written_not_read() {
    let dir = scratch("unix", "device");
    let tuned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json");
    std::fs::copy(&tuned, dir.join("d.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("d.svg")).unwrap();
    let out = Command::new("timeout")
        .args(["60", env!("CARGO_BIN_EXE_marginal"), "plot"])
        .arg(dir.join("d.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_names(&said(&out), &[dir.join("d.svg").to_str().unwrap()]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A standard error on a full device costs no result: the suite ends with exit 0 and its
/// table.
#[test]
fn a_full_standard_error_costs_no_result() {
    let dir = scratch("unix", "full-stderr");
    let suite = small_suite(&dir, 5);
    let out = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" suite \"$1\" --nodes 300 2>/dev/full")
        .arg(env!("CARGO_BIN_EXE_marginal"))
        .arg(&suite)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_names(&said(&out), &["objective"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `/dev/stdout` named as an output while the shell sends standard output to a file: the
/// file holds the report, games or tuned file alone (what the command says for people goes to
/// standard error; never written over from the start, never refused as "exists", nothing
/// written beside it in /dev); a report to /dev/null draws no plot beside it.
#[test]
fn the_commands_own_output_named_as_a_file_follows_what_it_printed() {
    let dir = scratch("unix", "stdout");
    let suite = small_suite(&dir, 20);
    let book = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/openings/noob_3moves_1k.epd"
    );
    let bin = env!("CARGO_BIN_EXE_marginal");
    // The file standard output went to, and what the command said on standard error.
    let to_file = |args: &str, file: &str| -> (String, String) {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("'{bin}' {args} > '{}'", dir.join(file).display()))
            .current_dir(&dir)
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{args}: {}", said(&out));
        (
            std::fs::read_to_string(dir.join(file)).unwrap(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let s = suite.to_str().unwrap();
    let (text, err) = to_file(
        &format!("suite '{s}' --nodes 300 -q --json /dev/stdout"),
        "s.txt",
    );
    assert!(err.starts_with("marginal suite: 20 positions"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["positions"].as_array().map(Vec::len), Some(20));
    let (text, err) = to_file(
        &format!(
            "match --a default --b off --nodes 300 --games 2 --openings '{book}' --pgn /dev/stdout"
        ),
        "m.txt",
    );
    assert!(err.starts_with("marginal match: "), "{err}");
    assert!(text.starts_with("[Event "), "{text}");
    assert_eq!(text.matches("[Event ").count(), 2, "{text}");
    assert_names(&err, &["games 2:"]);
    let (text, err) = to_file(
        &format!(
            "tune --suites '{s}' --solver spsa --iterations 1 --nodes 300 -q --out /dev/stdout"
        ),
        "t.txt",
    );
    let tuned: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(tuned["format"], "marginal-tuned/1");
    // No plot, because the --out it would go beside is no file.
    assert_names(&err, &["no plot", "--out /dev/stdout"]);
    let (text, _) = to_file(
        &format!(
            "calibrate --sets 4 --games 2 --nodes 300 --objectives suite --suite '{s}' -q --out /dev/null --state '{}'",
            dir.join("st").display()
        ),
        "c.txt",
    );
    assert_names(&text, &["no plots", "--out /dev/null"]);
    for beside in [
        "/dev/stdout.match.json",
        "/dev/stdout.svg",
        "/dev/null-suite.svg",
    ] {
        assert!(!Path::new(beside).exists(), "{beside} was written");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A report sent to standard output holds the report alone: `--json /dev/stdout | jq` and
/// `--json r.json > r.json` parse, and what the command says for people goes to standard error.
#[test]
fn a_report_on_standard_output_is_the_report_alone() {
    let dir = scratch("unix", "stdout-report");
    first_lines("data/suites/wac.epd", 5, &dir.join("five.epd"));
    let suite = dir.join("five.epd");
    let suite = suite.to_str().unwrap();
    let cache = dir.join("cache");
    let run = |args: &[&str], stdout: Stdio| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args)
            .env("MARGINAL_CACHE_DIR", &cache)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    let suite_args = ["suite", suite, "--nodes", "300", "--json", "/dev/stdout"];
    let match_args = [
        "match",
        "--a",
        "default",
        "--b",
        "off",
        "--games",
        "2",
        "--nodes",
        "300",
        "--json",
        "/dev/stdout",
    ];
    for (args, header) in [
        (&suite_args[..], "marginal suite: 5 positions"),
        (&match_args[..], "marginal match: A 'default'"),
    ] {
        let out = run(args, Stdio::piped());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        let report: Result<serde_json::Value, _> = serde_json::from_slice(&out.stdout);
        assert!(
            report.is_ok(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(err.contains(header), "{args:?}: {err}");
    }
    // The file the shell sends standard output to, named as --json.
    let file = dir.join("r.json");
    let sink = std::fs::File::create(&file).unwrap();
    let args = [
        "suite",
        suite,
        "--nodes",
        "300",
        "--json",
        file.to_str().unwrap(),
    ];
    let out = run(&args, Stdio::from(sink));
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&text).is_ok(),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// An export whose --out is /dev/stdout on a pipe is written through the pipe.
#[test]
fn an_export_to_dev_stdout_on_a_pipe_is_written_through() {
    let o = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args([
            "export",
            "tuned/race-seed1.json",
            "--format",
            "uci",
            "--out",
            "/dev/stdout",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_names(&String::from_utf8_lossy(&o.stdout), &["setoption name"]);
}

/// A full disk on standard output (Linux's /dev/full): exit 2 and a message naming standard
/// output, no panic.
#[test]
fn a_full_standard_output_is_exit_2_not_a_panic() {
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let o = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .arg("params")
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert_names(&stderr, &["error", "stdout"]);
        assert_omits(&stderr, &["panicked"]);
    } else {
        eprintln!("skipped: no /dev/full here");
    }
}
