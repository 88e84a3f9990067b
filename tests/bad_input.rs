//! Bad input to every command, as a new user would give it: each case must end within a bounded
//! time with the documented exit status (2: unusable input or environment) and a message that
//! names the problem, never a panic, a hang or a silent change of what was asked.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::scratch;
use marginal::calibrate;

/// Longest any case may take before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(60);

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `marginal ARGS` from the crate's root, killing it at the deadline.
fn run(args: &[&str], dir: &Path) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run marginal");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("marginal {args:?} did not finish within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Outcome {
        code: status.code(),
        stdout: reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

#[test]
fn every_command_refuses_bad_input_with_exit_2_and_a_message() {
    let dir = scratch("bad-input", "table");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // Files a user might pass by mistake.
    let mut binary = Vec::new();
    binary.extend_from_slice(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\xff\xfe\n");
    binary.extend((0..2000u32).map(|i| (i * 37 % 251) as u8));
    std::fs::write(dir.join("binary.epd"), &binary).unwrap();
    std::fs::write(dir.join("bad.epd"), "not a fen\nalso 1 2 3 bad\n").unwrap();
    std::fs::write(dir.join("empty.epd"), "\n# only a comment\n").unwrap();
    std::fs::write(dir.join("long.epd"), "x".repeat(1 << 20) + "\n").unwrap();
    std::fs::write(
        dir.join("corrupt.json"),
        "{\"format\": \"marginal-tuned/1\",\n  \"margins\": [",
    )
    .unwrap();
    std::fs::write(dir.join("book.epd"), "garbage\n").unwrap();
    std::fs::create_dir_all(dir.join("a-directory")).unwrap();
    let (binary, bad, empty, long, corrupt, book, a_dir) = (
        path("binary.epd"),
        path("bad.epd"),
        path("empty.epd"),
        path("long.epd"),
        path("corrupt.json"),
        path("book.epd"),
        path("a-directory"),
    );
    // Engine files: a bad row, params after a table, an unknown key, a command that does not
    // exist, an engine that never answers; each error names the file and, where there is
    // one, the line.
    let engine = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        path(name)
    };
    let row = "futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 125";
    let bad_row = engine(
        "bad-row.toml",
        &format!(
            "command = \"marginal\"\nparams = [\n  \"{row}\",\n  \"delta_margin, DeltaMargin, 9000, 0, 1500, 10, 0.002, 200\",\n]\n"
        ),
    );
    let params_after = engine(
        "params-after.toml",
        &format!("command = \"marginal\"\n[options]\nHash = 16\nparams = [\"{row}\"]\n"),
    );
    let unknown_key = engine(
        "unknown-key.toml",
        &format!("command = \"marginal\"\nparms = [\"{row}\"]\n"),
    );
    let no_command = engine(
        "no-command.toml",
        &format!("command = \"/no/such/engine\"\nparams = [\"{row}\"]\n"),
    );
    let silent = engine(
        "silent.toml",
        &format!("command = \"sleep\"\nargs = [\"30\"]\ntimeout_ms = 300\nparams = [\"{row}\"]\n"),
    );
    let at = |file: &str, line: usize| format!("{file}:{line}:");
    let (bad_row_at, params_after_at, unknown_key_at) =
        (at(&bad_row, 4), at(&params_after, 4), at(&unknown_key, 2));
    let wac = "data/suites/wac.epd";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // Negative numbers are values, refused by their range (not clap's `-- -1` tip).
        (
            vec!["suite", wac, "--nodes", "-1"],
            "-1 is too small: at least 1",
        ),
        (
            vec!["bench", "--depth", "-2"],
            "-2 is out of range: a depth is 1 to",
        ),
        (vec!["tune", "--iterations", "-3"], "-3 is too small"),
        (
            vec![
                "match", "--a", "default", "--b", "off", "--resign", "1000:0",
            ],
            "--resign 1000:0: MOVES must be a whole number of at least 1",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--draw", "10:0:30"],
            "--draw 10:0:30: MOVES must be",
        ),
        // suite
        (vec!["suite", &binary], "no usable positions"),
        (vec!["suite", &bad], "no usable positions"),
        (vec!["suite", &empty], "no positions"),
        (vec!["suite", &long], "more characters"),
        (vec!["suite", "no/such.epd"], "cannot read no/such.epd"),
        (vec!["suite", wac, "--depth", "0"], "--depth"),
        (
            vec!["suite", wac, "--depth", "1000"],
            "a depth is 1 to 100 plies",
        ),
        (vec!["suite", wac, "--nodes", "0"], "at least 1"),
        (vec!["suite", wac, "--threads", "0"], "--threads"),
        (vec!["suite", wac, "--threads", "10000"], "1..=256"),
        (vec!["suite", wac, "--hash", "100000000"], "0..=16384"),
        (vec!["suite", wac, "--early", "5"], "[0, 1]"),
        (vec!["suite", wac, "--weight", "nan"], "finite"),
        (
            vec!["suite", wac, "--margins", "bogus"],
            "margin set 'bogus'",
        ),
        (vec!["suite", wac, "--set", "frontier=99999"], "99999"),
        (vec!["suite", wac, "--margins", &corrupt], "corrupt.json:2"),
        (vec!["suite", wac, "--json", &a_dir], "is a directory"),
        (
            vec!["suite", wac, "--json", "/proc/no/such/dir/x.json"],
            "--json",
        ),
        // engine files, with every command that takes one
        (
            vec!["suite", wac, "--engine", "no/such.toml"],
            "no/such.toml: cannot read engine file",
        ),
        (vec!["suite", wac, "--engine", &bad_row], &bad_row_at),
        (
            vec!["suite", wac, "--engine", &params_after],
            &params_after_at,
        ),
        (
            vec!["suite", wac, "--engine", &params_after],
            "params belongs before the first [table] header",
        ),
        (
            vec!["suite", wac, "--engine", &unknown_key],
            &unknown_key_at,
        ),
        (
            vec!["suite", wac, "--engine", &no_command],
            "engine could not be started",
        ),
        (
            vec!["suite", wac, "--engine", &silent],
            "engine hung: no uciok",
        ),
        (
            vec![
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--b-engine",
                &no_command,
            ],
            "engine could not be started",
        ),
        (
            vec!["tune", "--engine", &bad_row, "--iterations", "1"],
            &bad_row_at,
        ),
        (
            vec!["tune", "--engine", &no_command, "--iterations", "1"],
            "engine could not be started",
        ),
        (
            vec!["check", "tuned/spsa-suite.json", "--engine", &no_command],
            "engine could not be started",
        ),
        (
            vec![
                "suite",
                wac,
                "--engine-cmd",
                "/no/such/engine",
                "--engine-options",
                "X",
            ],
            "engine could not be started",
        ),
        // match
        (
            vec!["match", "--a", "default", "--b", "off", "--games", "0"],
            "at least 1",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--resign=-5:3"],
            "--resign -5:3: SCORE is a threshold in centipawns and must be at least 0",
        ),
        (
            vec![
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--concurrency",
                "0",
            ],
            "--concurrency",
        ),
        (
            vec![
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--concurrency",
                "10000",
            ],
            "1..=256",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--nodes", "0"],
            "at least 1",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--depth", "0"],
            "--depth",
        ),
        (
            vec![
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--hash",
                "100000000",
            ],
            "0..=16384",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--openings", &book],
            "no usable opening positions",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--tc", "abc"],
            "--tc",
        ),
        (
            vec!["match", "--a", "default", "--b", "off", "--sprt", "1,2"],
            "--sprt",
        ),
        (
            vec!["match", "--a", "nope", "--b", "off"],
            "margin set 'nope'",
        ),
        // tune
        (vec!["tune", "--iterations", "0"], "at least 1"),
        (vec!["tune", "--gain=-1"], "> 0"),
        (vec!["tune", "--threads", "10000"], "1..=256"),
        (vec!["tune", "--suites", &binary], "no usable positions"),
        (
            vec!["tune", "--params", "nosuch"],
            "unknown parameter 'nosuch'",
        ),
        (vec!["tune", "--out", "/proc/no/such/dir/t.json"], "--out"),
        (vec!["tune", "--confirm", "0"], "at least 1"),
        // check, export, plot
        (
            vec!["check", "no/such.json"],
            "cannot read no/such.json: No such file or directory (os error 2) (`ls tuned/` lists the shipped tuned sets)",
        ),
        // The default tune's output, named before a tune made it.
        (
            vec!["check", "no/tuned/race.json"],
            "(`marginal tune` writes it, its default --out: run that first",
        ),
        (vec!["check", &corrupt], "corrupt.json:2"),
        (
            vec!["check", "tuned/spsa-suite.json", "--games", "0"],
            "at least 1",
        ),
        (
            vec!["check", "tuned/spsa-suite.json", "--json", &a_dir],
            "is a directory",
        ),
        (
            vec!["export", &corrupt, "--format", "rust"],
            "corrupt.json:2",
        ),
        (
            vec!["export", "tuned/spsa-suite.json", "--format", "cobol"],
            "cobol",
        ),
        (vec!["plot", &corrupt], "corrupt.json:2"),
        // bench, help
        (vec!["bench", "--depth", "0"], "--depth"),
        (vec!["bench", "--hash", "100000000"], "0..=16384"),
        (vec!["bench", "--margins", "razor=-5"], "-5"),
        (vec!["help", "nope"], "no command 'nope'"),
        (vec!["frobnicate"], "unrecognized subcommand"),
    ];
    for (args, fragment) in &cases {
        let out = run(args, &dir);
        let said = format!("{}{}", out.stdout, out.stderr);
        assert_eq!(out.code, Some(2), "marginal {args:?}:\n{said}");
        assert!(
            said.contains(fragment),
            "marginal {args:?}: no '{fragment}' in:\n{said}"
        );
        assert!(
            !said.contains("panicked"),
            "marginal {args:?} panicked:\n{said}"
        );
        // Messages quote bad input briefly, never a whole megabyte line or raw bytes.
        assert!(
            out.stderr.len() < 4000,
            "marginal {args:?}: {} bytes on stderr",
            out.stderr.len()
        );
        assert!(
            !out.stderr.contains('\u{7f}') && !out.stderr.contains('\0'),
            "{args:?}"
        );
    }
}

#[test]
fn no_command_writes_over_one_of_its_inputs() {
    let dir = scratch("bad-input", "own-input");
    // Copies of the inputs, so that a failure of this test harms nothing shipped.
    let copy = |from: &str, name: &str| -> String {
        let to = dir.join(name);
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(from), &to).unwrap();
        to.to_str().unwrap().to_string()
    };
    let suite = copy("data/suites/wac.epd", "wac.epd");
    let book = copy("data/openings/noob_3moves_1k.epd", "book.epd");
    let tuned = copy("tuned/race-seed1.json", "tuned.json");
    let unit = copy("data/suites/bk.epd", "unit.json");
    // The same file under another spelling counts too.
    let dotted = format!("{}/./wac.epd", dir.display());
    let cases: Vec<Vec<&str>> = vec![
        vec!["suite", &suite, "--json", &suite],
        vec!["suite", &suite, "--json", &dotted],
        vec![
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--openings",
            &book,
            "--json",
            &book,
        ],
        vec![
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--openings",
            &book,
            "--pgn",
            &book,
        ],
        vec!["match", "--a", &tuned, "--b", "off", "--json", &tuned],
        vec!["tune", "--suites", &suite, "--out", &suite],
        vec!["tune", "--out", "data/suites/wac.epd"],
        vec!["export", &tuned, "--format", "json", "--out", &tuned],
        vec!["check", &tuned, "--json", &tuned],
        vec!["work", &unit, "--out", &unit],
    ];
    let before: Vec<Vec<u8>> = [&suite, &book, &tuned, &unit]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    for args in &cases {
        let out = run(args, &dir);
        assert_eq!(out.code, Some(2), "marginal {args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("does not write over its input"),
            "marginal {args:?}: {}",
            out.stderr
        );
    }
    let after: Vec<Vec<u8>> = [&suite, &book, &tuned, &unit]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    assert!(before == after, "an input changed");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn no_command_replaces_an_existing_output_without_force() {
    let dir = scratch("bad-input", "existing-output");
    let existing = dir.join("results.json");
    let text = "{\"a result\": \"another run made\"}\n";
    std::fs::write(&existing, text).unwrap();
    let out = existing.to_str().unwrap();
    // A calibration report is replaced only by its own calibration's rerun (a file that is
    // not one is never written over).
    let report = dir.join("calibration-results.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json"),
        &report,
    )
    .unwrap();
    let export = [
        "export",
        "tuned/race-seed1.json",
        "--format",
        "toml",
        "--out",
        out,
    ];
    let cases: Vec<Vec<&str>> = vec![
        vec!["suite", "data/suites/bk.epd", "--depth", "1", "--json", out],
        vec![
            "match", "--a", "default", "--b", "off", "--depth", "1", "--games", "2", "--json", out,
        ],
        export.to_vec(),
        vec!["check", "tuned/race-seed1.json", "--json", out],
        vec!["tune", "--out", out],
        vec!["calibrate", "--out", report.to_str().unwrap()],
    ];
    for args in &cases {
        let o = run(args, &dir);
        assert_eq!(o.code, Some(2), "marginal {args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("results.json exists") && o.stderr.contains("--force"),
            "marginal {args:?}: {}",
            o.stderr
        );
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), text);
        assert!(calibrate::report::read(&report).is_ok());
    }
    // With --force the file is replaced.
    let o = run(&[&export[..], &["--force"]].concat(), &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_ne!(std::fs::read_to_string(&existing).unwrap(), text);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rounding_is_said_and_bundled_data_is_found_from_anywhere() {
    let dir = scratch("bad-input", "anywhere");
    // Odd games are rounded up to a whole pair, and the output says so.
    let out = run(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "default",
            "--games",
            "1",
            "--nodes",
            "200",
            "--concurrency",
            "1",
        ],
        &dir,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("rounded up to 2"), "{}", out.stdout);
    // From a directory without data/: the default book and the bundled suites come from the
    // binary.
    let elsewhere = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args)
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let out = elsewhere(&[
        "match", "--a", "default", "--b", "off", "--games", "2", "--nodes", "200",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = elsewhere(&["suite", "data/suites/bk.epd", "--nodes", "200"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("24 positions"));
    // The default race (its book 8mvs_+90_+99) and a calibration (its two books, mate suite
    // and quality positions) run from anywhere too.
    let out = elsewhere(&[
        "tune",
        "--depth",
        "1",
        "--design",
        "4",
        "--finalists",
        "2",
        "--race-pairs",
        "2",
        "--out",
        "t.json",
        "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = elsewhere(&[
        "calibrate",
        "--sets",
        "4",
        "--games",
        "4",
        "--depth",
        "1",
        "--resamples",
        "100",
        "--out",
        "c.json",
        "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Each case exits 2 with its text in the message.
fn assert_refused(cases: &[(Vec<&str>, &str)], dir: &Path) {
    for (args, needle) in cases {
        let o = run(args, dir);
        assert_eq!(o.code, Some(2), "marginal {args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains(needle),
            "marginal {args:?}: '{needle}' not in {}",
            o.stderr
        );
    }
}

/// Outputs lose nothing whatever the path is: a hard link to an input is that input; a
/// symbolic link is followed (the link stays); a file of the user's where a plot goes is kept;
/// a full disk is an error (exit 2), not a panic; a clock past a year is refused.
#[test]
fn outputs_lose_nothing_under_links_plots_and_full_disks() {
    let dir = scratch("bad-input", "links");
    let suite = dir.join("s.epd");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd"),
        &suite,
    )
    .unwrap();
    let before = std::fs::read(&suite).unwrap();
    // A hard link to the suite, given as the report, even with --force.
    let linked = dir.join("h.json");
    std::fs::hard_link(&suite, &linked).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let o = run(
        &[
            "suite",
            &s(&suite),
            "--depth",
            "1",
            "--json",
            &s(&linked),
            "--force",
        ],
        &dir,
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("does not write over its input"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read(&suite).unwrap(), before);

    // A symbolic link as --out: refused without --force; with it, the file it names is
    // replaced and the link stays a link.
    let real = dir.join("real.txt");
    std::fs::write(&real, "mine\n").unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let export = [
        "export",
        "tuned/race-seed1.json",
        "--format",
        "uci",
        "--out",
    ];
    let o = run(&[&export[..], &[&s(&link)]].concat(), &dir);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "mine\n");
    let o = run(&[&export[..], &[&s(&link), "--force"]].concat(), &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("setoption name")
    );

    // A dangling link names the file to make: it is made, the link stays.
    let dangling = dir.join("dangling.txt");
    std::os::unix::fs::symlink("made/later.txt", &dangling).unwrap();
    let o = run(&[&export[..], &[&s(&dangling)]].concat(), &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        std::fs::read_to_string(dir.join("made/later.txt"))
            .unwrap()
            .contains("setoption name")
    );
    // /dev/stdout on a pipe is written through.
    let o = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(&export[..])
        .arg("/dev/stdout")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("setoption name"));
    // An output where no file can be made fails before the work, naming the directory, in
    // every command that writes one (calibrate would play its games first).
    for args in [
        vec![
            "calibrate",
            "--sets",
            "4",
            "--out",
            "/proc/marginal-cal.json",
        ],
        vec![
            "export",
            "tuned/race-seed1.json",
            "--format",
            "c",
            "--out",
            "/proc/x.h",
        ],
        vec!["suite", "data/suites/bk.epd", "--json", "/proc/x.json"],
    ] {
        let o = run(&args, &dir);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
        assert!(
            o.stderr
                .contains("no file can be made in its directory /proc"),
            "{args:?}: {}",
            o.stderr
        );
        assert!(o.stdout.is_empty(), "{args:?} worked first: {}", o.stdout);
    }

    // A file of the user's where the plot goes: kept, unless --force.
    let tuned = dir.join("mine.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed1.json"),
        &tuned,
    )
    .unwrap();
    let svg = dir.join("mine.svg");
    std::fs::write(&svg, "MY NOTES\n").unwrap();
    let o = run(&["plot", &s(&tuned)], &dir);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("mine.svg exists and is not a plot marginal drew"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "MY NOTES\n");
    let o = run(&["plot", &s(&tuned), "--force"], &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    // Its own plot it replaces freely.
    let o = run(&["plot", &s(&tuned)], &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);

    // A tune whose plot would replace a file of the user's stops before any work.
    std::fs::write(&svg, "MY NOTES\n").unwrap();
    let out = dir.join("mine-tuned.json");
    std::fs::write(dir.join("mine-tuned.svg"), "MY NOTES\n").unwrap();
    let o = run(&["tune", "--out", &s(&out)], &dir);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("is not a plot marginal drew"),
        "{}",
        o.stderr
    );

    // A clock beyond a year.
    let o = run(
        &["match", "--a", "default", "--b", "off", "--tc", "1e308+0"],
        &dir,
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("--tc: '1e308+0'"), "{}", o.stderr);

    // A full disk on standard output (Linux's /dev/full): exit 2 and a message, no panic.
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let o = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .arg("params")
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("error: cannot write stdout"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Books too short for the pairs asked for, and margin or tuned files that would be read as
/// something they do not say: refused (exit 2), naming the file and the value, never replayed
/// or silently taken as the defaults.
#[test]
fn short_books_and_hollow_margin_files_are_refused() {
    let dir = scratch("bad-input", "hollow");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let first = std::fs::read_to_string(root.join("data/openings/noob_3moves_1k.epd")).unwrap();
    std::fs::write(
        dir.join("one.epd"),
        first.lines().next().unwrap().to_string() + "\n",
    )
    .unwrap();
    let one = s("one.epd");
    // The tuned file with one edit each.
    let tuned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tuned/race-seed1.json")).unwrap())
            .unwrap();
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = tuned.clone();
        edit(&mut v);
        std::fs::write(dir.join(name), serde_json::to_string_pretty(&v).unwrap()).unwrap();
        s(name)
    };
    let missing = edited("missing-row.json", &|v| {
        v["margins"].as_object_mut().unwrap().remove("razor_margin");
    });
    let untuned = edited("tuned-empty.json", &|v| v["tuned"] = serde_json::json!([]));
    let twice = edited("tuned-twice.json", &|v| {
        v["tuned"] = serde_json::json!(["futility_margin", "frontier"]);
    });
    let schedule = edited("schedule.json", &|v| {
        v["provenance"]["schedule"][0]["lower"] = 2000.into();
    });
    std::fs::write(dir.join("empty.json"), "{}\n").unwrap();
    let bom = dir.join("bom.json");
    std::fs::write(&bom, "\u{feff}{\"frontier\": 90}\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--depth",
                "1",
                "--games",
                "4",
                "--openings",
                &one,
            ],
            "1 opening(s) for the 2 pairs of --games 4",
        ),
        (
            vec![
                "tune",
                "--objective",
                "games",
                "--openings",
                &one,
                "--out",
                "x.json",
            ],
            "1 opening(s) for the 8 pairs of an iteration (--pairs)",
        ),
        (
            vec![
                "tune",
                "--confirm",
                "10",
                "--confirm-openings",
                &one,
                "--out",
                "x.json",
            ],
            "1 opening(s) for the 5 pairs of --confirm 10",
        ),
        (
            vec!["export", &missing, "--format", "uci"],
            "tuned parameter 'razor_margin' has no value",
        ),
        (
            vec!["export", &untuned, "--format", "uci"],
            "\"tuned\" is empty",
        ),
        (
            vec!["export", &twice, "--format", "uci"],
            "\"tuned\" names parameter 'frontier' twice (as 'futility_margin' too)",
        ),
        (
            vec!["export", &schedule, "--format", "openbench"],
            "lower bound 2000 above upper bound",
        ),
        (
            vec![
                "suite",
                "data/suites/bk.epd",
                "--depth",
                "1",
                "--margins",
                "tuned/toga2-suite.json",
            ],
            "a margin set of the external engine Toga II 3.0 (engines/toga2.toml), not of marginal's own: give it where that engine plays (--engine engines/toga2.toml",
        ),
    ];
    let empty = s("empty.json");
    let mut cases = cases;
    cases.push((
        vec![
            "suite",
            "data/suites/bk.epd",
            "--depth",
            "1",
            "--margins",
            &empty,
        ],
        "empty.json:1: no margin in it",
    ));
    assert_refused(&cases, &dir);
    // A byte-order mark says nothing: the file is read.
    let o = run(
        &[
            "suite",
            "data/suites/bk.epd",
            "--depth",
            "1",
            "--margins",
            bom.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine given the wrong way gets the fix in its message: a program where an engine file
/// goes, an engine file as a command, a bare command not on PATH, a missing working
/// directory; and options that ask for nothing are refused by name.
#[test]
fn engine_misuse_and_idle_options_name_the_fix() {
    let dir = scratch("bad-input", "engine-misuse");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    std::fs::write(dir.join("bare.toml"), "command = \"eng.sh\"\n").unwrap();
    std::fs::write(
        dir.join("nodir.toml"),
        format!(
            "command = {:?}\ndir = \"/nonexistent-dir\"\n",
            env!("CARGO_BIN_EXE_marginal")
        ),
    )
    .unwrap();
    let bk = "data/suites/bk.epd";
    let program = env!("CARGO_BIN_EXE_marginal");
    let (bare, nodir) = (s("bare.toml"), s("nodir.toml"));
    let uci = format!("{program} uci");
    let svg_named = s("tuned.svg");
    std::fs::copy("tuned/race-seed1.json", &svg_named).unwrap();
    let quoted = format!("{program} 'uci");
    std::fs::write(
        dir.join("own.toml"),
        format!(
            "name = \"own\"\ncommand = {program:?}\nargs = [\"uci\"]\nparams = [\"futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 125\"]\n"
        ),
    )
    .unwrap();
    let own = s("own.toml");
    let tune_own = format!(
        "play it with marginal's own engine (without the engine option for this side), or tune own for a set of its own (marginal tune --engine {own})"
    );
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "match",
                "--a",
                "tuned/race-seed1.json",
                "--a-engine",
                &own,
                "--b",
                "default",
                "--games",
                "2",
                "--nodes",
                "100",
            ],
            &tune_own,
        ),
        (
            vec!["suite", bk, "--engine", program],
            "a program, not an engine file (TOML text): give a program with --engine-cmd",
        ),
        (
            vec![
                "suite",
                bk,
                "--engine-cmd",
                "engines/toga2.toml",
                "--engine-options",
                "x",
            ],
            "it is an engine file, not a program: give it with --engine",
        ),
        (
            vec!["suite", bk, "--engine", &bare],
            "a bare name is looked up on PATH",
        ),
        (
            vec!["suite", bk, "--engine", &nodir],
            "its working directory /nonexistent-dir (dir) does not exist",
        ),
        (vec!["suite", bk, "--force"], "--json"),
        (
            vec!["tune", "--c-end", "futility_margin=1e309"],
            "--c-end 'futility_margin=1e309' is not [name=]VALUE with a finite positive number",
        ),
        (
            vec![
                "match",
                "--a",
                "default",
                "--b",
                "off",
                "--sprt=NaN,5,0.05,0.05",
            ],
            "--sprt: 'NaN,5,0.05,0.05' is not 4 finite numbers separated by ','",
        ),
        (
            vec![
                "match", "--a", "default", "--b", "off", "--pgn", "g.pgn", "--force",
            ],
            "--force replaces the --json report only, and no --json FILE is given: a --pgn file is never written over, even with --force; continue its match with --resume, or name another --pgn than g.pgn",
        ),
        (
            vec!["suite", bk, "--no-cache", "--cache-dir", "x"],
            "--cache-dir",
        ),
        (vec!["export", "tuned/race-seed1.json", "--force"], "--out"),
        (
            vec!["plot", &svg_named, "--force"],
            "would be the tuned file itself: give the tuned file a name ending in .json",
        ),
        (
            vec![
                "suite",
                bk,
                "--engine-cmd",
                &quoted,
                "--engine-options",
                "FutilityMargin",
            ],
            "' is not interpreted (the command is split at spaces, with no quoting or escapes)",
        ),
        (
            vec!["suite", bk, "--engine-cmd", &uci, "--engine-options", ""],
            "--engine-options names no option of",
        ),
        (
            vec![
                "suite",
                bk,
                "--engine-cmd",
                &uci,
                "--engine-options",
                "FutilityMargin,futilitymargin",
            ],
            "--engine-options: 'FutilityMargin' is given twice",
        ),
    ];
    assert_refused(&cases, &dir);
    // The tuned file named *.svg is still itself.
    let kept = std::fs::read_to_string(&svg_named).unwrap();
    assert!(kept.contains("marginal-tuned/1"), "{kept}");
    // Adjudication from a move that no game reaches is said.
    warns(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--games",
            "2",
            "--nodes",
            "100",
            "--draw",
            "10:8:300",
            "--max-plies",
            "200",
            "-q",
        ],
        &dir,
        &["--draw 10:8:300 starts at move 300", "it never adjudicates"],
    );
    // A book whose openings repeat is said (each is played as often as it appears).
    let text = std::fs::read_to_string("data/openings/noob_3moves_1k.epd").unwrap();
    let two: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(dir.join("repeats.epd"), two.repeat(3).join("\n") + "\n").unwrap();
    warns(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--games",
            "2",
            "--nodes",
            "100",
            "--openings",
            &s("repeats.epd"),
            "-q",
        ],
        &dir,
        &["repeats.epd: 4 opening(s) repeat an earlier one"],
    );
    // Schedule ends that no part of the race uses are said, once each.
    let o = run(
        &[
            "tune",
            "--depth",
            "1",
            "--design",
            "4",
            "--finalists",
            "2",
            "--race-pairs",
            "0",
            "--c-end",
            "frontier=5",
            "--r-end",
            "0.5",
            "--bounds",
            "delta=0..100",
            "--out",
            &s("t.json"),
            "-q",
        ],
        &dir,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "--bounds delta_margin=0..100 leaves out its default 200: tuning starts from 100"
        ),
        "{}",
        o.stderr
    );
    assert_eq!(
        o.stderr
            .matches("--c-end frontier=5 does nothing here")
            .count(),
        1,
        "{}",
        o.stderr
    );
    assert_eq!(
        o.stderr.matches("--r-end 0.5 does nothing here").count(),
        1,
        "{}",
        o.stderr
    );
    // A row set twice by --set: said, naming both (aliases count as their row).
    let o = run(
        &[
            "suite",
            bk,
            "--depth",
            "1",
            "--set",
            "frontier=150",
            "--set",
            "futility_margin=10",
        ],
        &dir,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("--set futility_margin=10 sets the row --set frontier=150 set already"),
        "{}",
        o.stderr
    );
    // A --batch that holds every training position batches nothing.
    warns(
        &[
            "tune",
            "--solver",
            "spsa",
            "--iterations",
            "1",
            "--depth",
            "1",
            "--batch",
            "5000",
            "-q",
            "--out",
            &s("batch.json"),
        ],
        &dir,
        &["--batch 5000 is not smaller than the 805 training positions"],
    );
    // And twice in an inline margin set.
    warns(
        &[
            "suite",
            bk,
            "--depth",
            "1",
            "--margins",
            "frontier=100,frontier=200",
        ],
        &dir,
        &[
            "frontier=200 sets the row frontier=100 set already in the margin set 'frontier=100,frontier=200'",
        ],
    );
    // A calibration needs 4 sets at least, and says so at the option.
    assert_refused(
        &[(
            vec!["calibrate", "--sets", "2"],
            "2 is too small: at least 4",
        )],
        &dir,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Tables that fit one at a time but not all together are refused before any work (exit 2),
/// not found missing by a worker thread (a panic, and a match that never ended).
#[test]
fn hash_tables_that_do_not_fit_together_are_refused_up_front() {
    let dir = scratch("bad-input", "hash");
    let program = env!("CARGO_BIN_EXE_marginal");
    for command in [
        "suite data/suites/bk.epd --nodes 300 --threads 2 --hash 1024",
        "match --a default --b off --games 2 --nodes 300 --concurrency 1 --hash 1024",
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 1800000 && exec {program} {command}"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains("--hash 1024: cannot allocate a transposition table of 1024 MB for each of 2 searches at once"),
            "{command}: {stderr}"
        );
    }
}

/// Tables the allocator grants (address space) but the machine's memory cannot hold are
/// refused before any work (campaign 23, G014: `--hash 16384` on 2 threads filled 24 GB and
/// the kernel killed the run). Skipped where /proc/meminfo says 32 GB are available.
#[test]
fn hash_tables_past_the_machines_memory_are_refused_up_front() {
    let available_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            let line = t
                .lines()
                .find(|l| l.starts_with("MemAvailable:"))?
                .to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kb| kb / 1024);
    match available_mb {
        Some(mb) if mb < 2 * 16384 => {}
        other => {
            eprintln!("skipped: MemAvailable {other:?} MB holds two 16,384 MB tables");
            return;
        }
    }
    let dir = scratch("bad-input", "hash-memory");
    assert_refused(
        &[(
            vec![
                "suite",
                "data/suites/bk.epd",
                "--nodes",
                "300",
                "--threads",
                "2",
                "--hash",
                "16384",
            ],
            "--hash 16384: 2 tables of 16384 MB at once (32768 MB) are more than the ",
        )],
        &dir,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file of many bad lines (a binary given as a suite: campaign 23, B019, 72,943 messages)
/// lists the first 20 and counts the rest in one line; the summary says so.
#[test]
fn many_bad_lines_are_listed_twenty_then_counted() {
    let dir = scratch("bad-input", "many-bad");
    let wac =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/wac.epd"))
            .unwrap();
    let mut text = String::new();
    for i in 0..30 {
        text.push_str(&format!("not a position {i}\n"));
    }
    text.push_str(wac.lines().next().unwrap());
    text.push('\n');
    let suite = dir.join("bad.epd");
    std::fs::write(&suite, text).unwrap();
    let o = run(&["suite", suite.to_str().unwrap(), "--nodes", "300"], &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stderr.matches("bad.epd:").count(), 20, "{}", o.stderr);
    assert!(o.stderr.contains("bad.epd:20: "), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("... and 10 more bad line(s), not listed (the first 20 are above)"),
        "{}",
        o.stderr
    );
    assert!(
        o.stdout
            .contains("30 bad line(s) skipped (the first 20 listed on stderr)"),
        "{}",
        o.stdout
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `args` in `dir`: it must succeed (exit 0) and say each of `said` on stderr.
fn warns(args: &[&str], dir: &Path, said: &[&str]) {
    let o = run(args, dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    for text in said {
        assert!(o.stderr.contains(text), "{text} not in: {}", o.stderr);
    }
}

/// The second held-out campaign's classes: what was silent now says so, what was unclear names
/// the value and the fix, and nothing the user had is replaced unasked.
#[test]
fn odd_inputs_of_the_second_campaign_are_said() {
    let dir = scratch("bad-input", "campaign3");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let tuned = std::fs::read_to_string("tuned/race-seed1.json").unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&tuned).unwrap();
    value["margins"]
        .as_object_mut()
        .unwrap()
        .remove("razor_margin");
    std::fs::write(s("missing.json"), value.to_string()).unwrap();
    std::fs::write(
        s("twice.json"),
        tuned.replacen(
            "\"futility_margin\": 2,",
            "\"futility_margin\": 2, \"futility_margin\": 900,",
            1,
        ),
    )
    .unwrap();
    std::fs::write(
        s("sts.epd"),
        "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm Bf2; c0 \"f5=10, Bf2=3\";\n",
    )
    .unwrap();
    std::fs::write(s("comment.epd"), "; a comment, not a position\n").unwrap();
    std::fs::write(
        s("book.epd"),
        "7k/8/6K1/8/8/8/8/8 w - - 0 1\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 120 60\n",
    )
    .unwrap();
    std::fs::write(s("precious.json"), "precious\n").unwrap();
    let bk = "data/suites/bk.epd";
    let (missing, twice, sts, comment, book) = (
        s("missing.json"),
        s("twice.json"),
        s("sts.epd"),
        s("comment.epd"),
        s("book.epd"),
    );
    let (precious, none_pgn) = (s("precious.json"), s("none.pgn"));
    assert_refused(
        &[
            (
                vec!["suite", bk, "--depth", "1", "--margins", &missing],
                "tuned parameter 'razor_margin' has no value in \"margins\"",
            ),
            (
                vec!["suite", bk, "--depth", "1", "--margins", &twice],
                "\"futility_margin\" appears twice in one object",
            ),
            (
                vec!["suite", &sts, "--depth", "1"],
                "bm move 'd4f2' is not a c0 move with the most points (10)",
            ),
            (
                vec!["suite", &comment, "--depth", "1"],
                "the line has no FEN before ';' (a comment line starts with #)",
            ),
            (
                vec!["match", "--a", "default", "--b", "off", "--openings", &book],
                "dead draw",
            ),
            // A --resume with nothing to resume is a new match: an existing report is kept.
            (
                vec![
                    "match", "--a", "default", "--b", "off", "--games", "2", "--nodes", "100",
                    "--pgn", &none_pgn, "--resume", "--json", &precious,
                ],
                "exists: marginal does not replace it",
            ),
            (
                vec!["match", "--a", "default", "--b", "off", "--sprt", "-5,0"],
                "a value that starts with '-' goes after '='",
            ),
        ],
        &dir,
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
    std::fs::write(
        s("one.epd"),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    )
    .unwrap();
    let one = s("one.epd");
    // A small calibration (4 sets, 4 games a set, the suite objective on BK at 300 nodes).
    let calibrate_small = [
        "calibrate",
        "--sets",
        "4",
        "--games",
        "4",
        "--nodes",
        "300",
        "--objectives",
        "suite",
        "--suite",
        bk,
    ];
    let c_json = s("c.json");
    assert_refused(
        &[
            (
                vec!["match", "--a", "default", "--b", "off", "--draw=10:8:-1"],
                "--draw 10:8:-1: AFTER is the move",
            ),
            (
                vec!["tune", "--race-pairs", "0,1", "--out", &s("r.json")],
                "a round of 0 pairs plays nothing",
            ),
            (
                vec![
                    "tune",
                    "--params",
                    "frontier",
                    "--bounds",
                    "frontier=100..100",
                    "--out",
                    &s("b.json"),
                ],
                "every tuned row is fixed at one value, so there is nothing to search",
            ),
            (
                [
                    &calibrate_small[..],
                    &["--openings", &one, "--out", &c_json],
                ]
                .concat(),
                "1 opening(s) for the 2 pairs of each set on it",
            ),
        ],
        &dir,
    );
    // Redrawing a plot that is already the same drawing changes no file (a clone stays clean).
    let (copy, svg) = (s("drawn.json"), s("drawn.svg"));
    std::fs::copy("tuned/race-seed1.json", &copy).unwrap();
    std::fs::copy("tuned/race-seed1.svg", &svg).unwrap();
    let before = std::fs::read(&svg).unwrap();
    warns(&["plot", &copy], &dir, &[]);
    assert_eq!(std::fs::read(&svg).unwrap(), before);
    // Another calibration's report is kept: only this calibration's own is written again.
    let other = s("other-calibration.json");
    std::fs::copy("tuned/calibration-builtin-nodes5000.json", &other).unwrap();
    assert_refused(
        &[(
            [&calibrate_small[..], &["--out", &other]].concat(),
            "exists: marginal does not replace it",
        )],
        &dir,
    );
    warns(
        &[
            "tune",
            "--suites",
            bk,
            "--nodes",
            "300",
            "--design",
            "4",
            "--race-pairs",
            "0",
            "--finalists",
            "2",
            "--out",
            &s("t.json"),
            "--checkpoint",
            &s("ck"),
        ],
        &dir,
        &["--finalists 2 does nothing here"],
    );
    // The same checkpoint directory with another seed is another run's: refused before it
    // says it resumes or writes anything there (its finished set stays).
    let finished = std::fs::read(s("t.json")).unwrap();
    assert_refused(
        &[(
            vec![
                "tune",
                "--suites",
                bk,
                "--nodes",
                "300",
                "--design",
                "4",
                "--race-pairs",
                "0",
                "--seed",
                "3",
                "--out",
                &s("t.json"),
                "--checkpoint",
                &s("ck"),
            ],
            "belongs to another run",
        )],
        &dir,
    );
    assert_eq!(std::fs::read(s("t.json")).unwrap(), finished);
    warns(
        &["suite", bk, "--depth", "1", "--max-faults", "3"],
        &dir,
        &["--max-faults: `marginal suite` runs the built-in engine here"],
    );
    // check of a file of the built-in engine runs no external engine either.
    warns(
        &[
            "check",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tuned/spsa-suite.json"),
            "--max-faults",
            "2",
            "-q",
        ],
        &dir,
        &["--max-faults: `marginal check` runs the built-in engine here"],
    );
    warns(
        &[
            "suite",
            bk,
            "--depth",
            "1",
            "--set",
            "futility=0",
            "--set",
            "frontier=50",
        ],
        &dir,
        &["frontier=50: futility_margin does nothing while futility is off"],
    );
    warns(
        &["suite", bk, "--depth", "1", "--margins", "off"],
        &dir,
        &["the reference run ('off') searches with the same values as the set scored"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}
