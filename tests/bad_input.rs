//! Bad input to every command, as a new user would give it: each case must end within a bounded
//! time with the documented exit status (2: unusable input or environment) and a message that
//! names the problem, never a panic, a hang or a silent change of what was asked.

mod common;

use std::path::Path;

use common::{assert_names, assert_omits, run_bounded, scratch};

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
    let (binary_1, bad_1, long_1, book_1, corrupt_2) = (
        at(&binary, 1),
        at(&bad, 1),
        at(&long, 1),
        at(&book, 1),
        at(&corrupt, 2),
    );
    // Each case names what the message must: the option or file (and line), the value at
    // fault, and the rule or the fix.
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        // Negative numbers are values, refused by their range (not clap's `-- -1` tip).
        (
            vec!["suite", wac, "--nodes", "-1"],
            vec!["--nodes", "'-1'", "at least 1"],
        ),
        (
            vec!["bench", "--depth", "-2"],
            vec!["--depth", "'-2'", "1 to 100"],
        ),
        (
            vec!["tune", "--iterations", "-3"],
            vec!["--iterations", "'-3'", "at least 1"],
        ),
        (
            matched(&["--resign", "1000:0"]),
            vec!["--resign 1000:0", "MOVES", "at least 1"],
        ),
        (
            matched(&["--draw", "10:0:30"]),
            vec!["--draw 10:0:30", "MOVES", "at least 1"],
        ),
        // suite
        (
            vec!["suite", &binary],
            vec![&binary, "no usable positions", &binary_1],
        ),
        (vec!["suite", &bad], vec![&bad, &bad_1, "'not a fen'"]),
        (vec!["suite", &empty], vec![&empty, "no positions"]),
        (vec!["suite", &long], vec![&long_1, "more characters"]),
        (
            vec!["suite", "no/such.epd"],
            vec!["no/such.epd", "No such file"],
        ),
        (
            vec!["suite", wac, "--depth", "0"],
            vec!["--depth", "'0'", "1 to 100"],
        ),
        (
            vec!["suite", wac, "--depth", "1000"],
            vec!["--depth", "'1000'", "1 to 100"],
        ),
        (
            vec!["suite", wac, "--nodes", "0"],
            vec!["--nodes", "'0'", "at least 1"],
        ),
        (
            vec!["suite", wac, "--threads", "0"],
            vec!["--threads", "'0'", "1..=256"],
        ),
        (
            vec!["suite", wac, "--threads", "10000"],
            vec!["--threads", "'10000'", "1..=256"],
        ),
        (
            vec!["suite", wac, "--hash", "100000000"],
            vec!["--hash", "'100000000'", "0..=16384"],
        ),
        (
            vec!["suite", wac, "--early", "5"],
            vec!["--early", "'5'", "[0, 1]"],
        ),
        (
            vec!["suite", wac, "--weight", "nan"],
            vec!["--weight", "'nan'", "finite"],
        ),
        (
            vec!["suite", wac, "--margins", "bogus"],
            vec!["'bogus'", "default, off, bare, sound", ".json file"],
        ),
        (
            vec!["suite", wac, "--set", "frontier=99999"],
            vec!["--set frontier=99999", "futility_margin", "[0, 1500]"],
        ),
        (
            vec!["suite", wac, "--margins", &corrupt],
            vec![&corrupt_2, "not valid JSON"],
        ),
        (
            vec!["suite", wac, "--json", &a_dir],
            vec!["--json", &a_dir, "name a file in it"],
        ),
        (
            vec!["suite", wac, "--json", "/proc/no/such/dir/x.json"],
            vec!["--json", "/proc/no/such/dir/x.json"],
        ),
        // engine files, with every command that takes one
        (
            vec!["suite", wac, "--engine", "no/such.toml"],
            vec!["no/such.toml", "engine file"],
        ),
        (
            vec!["suite", wac, "--engine", &bad_row],
            vec![&bad_row_at, "delta_margin", "9000", "[0, 1500]"],
        ),
        (
            vec!["suite", wac, "--engine", &params_after],
            vec![
                &params_after_at,
                "params",
                "before the first [table] header",
            ],
        ),
        (
            vec!["suite", wac, "--engine", &unknown_key],
            vec![&unknown_key_at, "`parms`", "`params`"],
        ),
        (
            vec!["suite", wac, "--engine", &no_command],
            vec![&no_command, "/no/such/engine", "could not be started"],
        ),
        (
            vec!["suite", wac, "--engine", &silent],
            vec![&silent, "no uciok", "timeout_ms"],
        ),
        (
            matched(&["--b-engine", &no_command]),
            vec![
                &no_command,
                "/no/such/engine",
                "could not be started",
                "install the engine",
            ],
        ),
        (
            vec!["tune", "--engine", &bad_row, "--iterations", "1"],
            vec![&bad_row_at, "delta_margin", "9000"],
        ),
        (
            vec!["tune", "--engine", &no_command, "--iterations", "1"],
            vec![&no_command, "/no/such/engine"],
        ),
        (
            vec!["check", "tuned/spsa-suite.json", "--engine", &no_command],
            vec![&no_command, "/no/such/engine"],
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
            vec!["--engine-cmd '/no/such/engine'", "could not be started"],
        ),
        // match
        (
            matched(&["--games", "0"]),
            vec!["--games", "'0'", "at least 1"],
        ),
        (
            matched(&["--resign=-5:3"]),
            vec!["--resign -5:3", "SCORE", "at least 0"],
        ),
        (
            matched(&["--concurrency", "0"]),
            vec!["--concurrency", "'0'", "1..=256"],
        ),
        (
            matched(&["--concurrency", "10000"]),
            vec!["--concurrency", "'10000'", "1..=256"],
        ),
        (
            matched(&["--nodes", "0"]),
            vec!["--nodes", "'0'", "at least 1"],
        ),
        (
            matched(&["--depth", "0"]),
            vec!["--depth", "'0'", "1 to 100"],
        ),
        (
            matched(&["--hash", "100000000"]),
            vec!["--hash", "'100000000'", "0..=16384"],
        ),
        (
            matched(&["--openings", &book]),
            vec![&book, &book_1, "'garbage'"],
        ),
        (
            matched(&["--tc", "abc"]),
            vec!["--tc", "'abc'", "2 finite numbers"],
        ),
        (
            matched(&["--sprt", "1,2"]),
            vec!["--sprt", "'1,2'", "4 finite numbers"],
        ),
        (
            vec!["match", "--a", "nope", "--b", "off"],
            vec!["--a", "'nope'", "default, off, bare, sound"],
        ),
        // tune
        (
            vec!["tune", "--iterations", "0"],
            vec!["--iterations", "'0'", "at least 1"],
        ),
        (vec!["tune", "--gain=-1"], vec!["--gain", "'-1'", "> 0"]),
        (
            vec!["tune", "--threads", "10000"],
            vec!["--threads", "'10000'", "1..=256"],
        ),
        (vec!["tune", "--suites", &binary], vec![&binary, &binary_1]),
        (
            vec!["tune", "--params", "nosuch"],
            vec!["'nosuch'", "marginal params"],
        ),
        (
            vec!["tune", "--out", "/proc/no/such/dir/t.json"],
            vec!["--out", "/proc/no/such/dir/t.json"],
        ),
        (
            vec!["tune", "--confirm", "0"],
            vec!["--confirm", "'0'", "at least 1"],
        ),
        // check, export, plot
        (
            vec!["check", "no/such.json"],
            vec!["no/such.json", "No such file", "ls tuned/"],
        ),
        // The default tune's output, named before a tune made it: the command that makes it.
        (
            vec!["check", "no/tuned/race.json"],
            vec!["no/tuned/race.json", "`marginal tune`", "tuned/"],
        ),
        (vec!["check", &corrupt], vec![&corrupt_2, "not valid JSON"]),
        (
            vec!["check", "tuned/spsa-suite.json", "--games", "0"],
            vec!["--games", "'0'", "at least 1"],
        ),
        (
            vec!["check", "tuned/spsa-suite.json", "--json", &a_dir],
            vec!["--json", &a_dir, "name a file in it"],
        ),
        (
            vec!["export", &corrupt, "--format", "rust"],
            vec![&corrupt_2, "not valid JSON"],
        ),
        (
            vec!["export", "tuned/spsa-suite.json", "--format", "cobol"],
            vec!["--format", "'cobol'", "json, toml, rust, c"],
        ),
        (vec!["plot", &corrupt], vec![&corrupt_2, "not valid JSON"]),
        // bench, help
        (
            vec!["bench", "--depth", "0"],
            vec!["--depth", "'0'", "1 to 100"],
        ),
        (
            vec!["bench", "--hash", "100000000"],
            vec!["--hash", "'100000000'", "0..=16384"],
        ),
        (
            vec!["bench", "--margins", "razor=-5"],
            vec!["razor_margin", "-5", "[0, 4000]"],
        ),
        (vec!["help", "nope"], vec!["'nope'", "marginal --help"]),
        (vec!["frobnicate"], vec!["'frobnicate'"]),
    ];
    for (args, what) in &cases {
        let out = run_bounded(args, &dir);
        let said = format!("{}{}", out.stdout, out.stderr);
        assert_eq!(out.code, Some(2), "marginal {args:?}:\n{said}");
        assert_names(&said, what);
        assert_omits(&said, &["panicked"]);
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

/// `marginal match --a default --b off EXTRA...`.
fn matched<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [&["match", "--a", "default", "--b", "off"][..], extra].concat()
}

/// Each case exits 2 with a message naming each of its items (the file or option, the value,
/// the fix).
#[track_caller]
fn assert_refused(cases: &[(Vec<&str>, Vec<&str>)], dir: &Path) {
    for (args, what) in cases {
        let o = run_bounded(args, dir);
        assert_eq!(o.code, Some(2), "marginal {args:?}: {}", o.stderr);
        assert_names(&o.stderr, what);
    }
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
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
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
            vec![&one, "1 opening(s)", "2 pairs", "--games 2"],
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
            vec![&one, "1 opening(s)", "8 pairs", "--pairs"],
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
            vec![&one, "1 opening(s)", "5 pairs", "--confirm"],
        ),
        (
            vec!["export", &missing, "--format", "uci"],
            vec![&missing, "'razor_margin'", "\"margins\""],
        ),
        (
            vec!["export", &untuned, "--format", "uci"],
            vec![&untuned, "\"tuned\"", "empty"],
        ),
        (
            vec!["export", &twice, "--format", "uci"],
            vec![&twice, "'frontier'", "'futility_margin'"],
        ),
        (
            vec!["export", &schedule, "--format", "openbench"],
            vec![&schedule, "'futility_margin'", "2000", "1500"],
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
            vec![
                "tuned/toga2-suite.json:3:",
                "Toga II 3.0",
                "engines/toga2.toml",
            ],
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
            vec!["--engine engines/toga2.toml", "--a-engine/--b-engine"],
        ),
    ];
    let empty = s("empty.json");
    let empty_1 = format!("{empty}:1:");
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
        vec![&empty_1, "no margin", "--margins default"],
    ));
    assert_refused(&cases, &dir);
    // A byte-order mark says nothing: the file is read.
    let o = run_bounded(
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
/// directory; and options that ask for nothing (or too little) are refused by name.
#[test]
fn misused_engines_and_options_are_refused_naming_the_fix() {
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
    let (quoted_cmd, uci_quoted) = (format!("--engine-cmd '{quoted}'"), format!("'{uci}'"));
    std::fs::write(
        dir.join("own.toml"),
        format!(
            "name = \"own\"\ncommand = {program:?}\nargs = [\"uci\"]\nparams = [\"futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 125\"]\n"
        ),
    )
    .unwrap();
    let own = s("own.toml");
    // The fix for a set of marginal's own given to another engine: tune that engine.
    let tune_own = format!("marginal tune --engine {own}");
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
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
            vec!["--a", "tuned/race-seed1.json", &tune_own],
        ),
        (
            vec!["suite", bk, "--engine", program],
            vec![program, "not an engine file", "--engine-cmd"],
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
            vec![
                "--engine-cmd 'engines/toga2.toml'",
                "not a program",
                "with --engine",
            ],
        ),
        (
            vec!["suite", bk, "--engine", &bare],
            vec![&bare, "eng.sh", "PATH", "./eng.sh"],
        ),
        (
            vec!["suite", bk, "--engine", &nodir],
            vec![&nodir, "/nonexistent-dir", "(dir)"],
        ),
        (
            vec!["tune", "--c-end", "futility_margin=1e309"],
            vec!["--c-end", "'futility_margin=1e309'", "[name=]VALUE"],
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
            vec!["--sprt", "'NaN,5,0.05,0.05'", "4 finite numbers"],
        ),
        (
            vec!["suite", bk, "--no-cache", "--cache-dir", "x"],
            vec!["--no-cache", "--cache-dir"],
        ),
        (
            vec!["plot", &svg_named, "--force"],
            vec![&svg_named, "the tuned file itself", "ending in .json"],
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
            vec![&quoted_cmd, "quoting", "--engine FILE"],
        ),
        (
            vec!["suite", bk, "--engine-cmd", &uci, "--engine-options", ""],
            vec!["--engine-options", &uci_quoted, "spin options"],
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
            vec!["--engine-options", "'FutilityMargin'", "twice"],
        ),
    ];
    assert_refused(&cases, &dir);
    // The tuned file named *.svg is still itself.
    let kept = std::fs::read_to_string(&svg_named).unwrap();
    assert_names(&kept, &["marginal-tuned/1"]);
    // A calibration needs 4 sets at least, and says so at the option.
    assert_refused(
        &[(
            vec!["calibrate", "--sets", "2"],
            vec!["--sets", "'2'", "at least 4"],
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
    let o = run_bounded(&["suite", suite.to_str().unwrap(), "--nodes", "300"], &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stderr.matches("bad.epd:").count(), 20, "{}", o.stderr);
    // The first 20 by file and line, then how many more; the count of all on stdout.
    let twentieth = format!("{}:20:", suite.display());
    assert_names(&o.stderr, &[&twentieth, "10 more bad line(s)"]);
    assert_names(&o.stdout, &["30 bad line(s)", "the first 20"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A clock beyond a year is refused, naming --tc and the value.
#[test]
fn a_clock_beyond_a_year_is_refused() {
    let dir = scratch("bad-input", "clock");
    let o = run_bounded(
        &["match", "--a", "default", "--b", "off", "--tc", "1e308+0"],
        &dir,
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_names(&o.stderr, &["--tc", "'1e308+0'"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Values that would be read as something they do not say are refused (exit 2), naming the
/// value and the fix: a tuned parameter missing from a margin file, a key given twice, a bm
/// move that is not the best c0 move, a ';' line without a FEN, a dead-drawn book, a value
/// starting with '-', a --draw, a race round of 0 pairs, bounds that fix every row, a book too
/// short for a calibration (from the second held-out campaign).
#[test]
fn unclear_values_are_refused_naming_the_value_and_the_fix() {
    let dir = scratch("bad-input", "unclear");
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
    let bk = "data/suites/bk.epd";
    let (missing, twice, sts, comment, book) = (
        s("missing.json"),
        s("twice.json"),
        s("sts.epd"),
        s("comment.epd"),
        s("book.epd"),
    );
    let at_1 = |file: &str| format!("{file}:1:");
    let (sts_1, comment_1, book_1) = (at_1(&sts), at_1(&comment), at_1(&book));
    assert_refused(
        &[
            (
                vec!["suite", bk, "--depth", "1", "--margins", &missing],
                vec![&missing, "'razor_margin'", "\"margins\""],
            ),
            (
                vec!["suite", bk, "--depth", "1", "--margins", &twice],
                vec![&twice, "\"futility_margin\"", "give it once"],
            ),
            (
                vec!["suite", &sts, "--depth", "1"],
                vec![&sts_1, "'d4f2'", "c0", "(10)"],
            ),
            (
                vec!["suite", &comment, "--depth", "1"],
                vec![&comment_1, "';'", "#"],
            ),
            (
                vec!["match", "--a", "default", "--b", "off", "--openings", &book],
                vec![&book_1, "'7k/8/6K1/8/8/8/8/8 w - - 0 1'", "dead draw"],
            ),
            (
                vec!["match", "--a", "default", "--b", "off", "--sprt", "-5,0"],
                vec!["'-5'", "--sprt=-5,0"],
            ),
        ],
        &dir,
    );
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
                vec!["--draw 10:8:-1", "AFTER", "at least 0"],
            ),
            (
                vec!["tune", "--race-pairs", "0,1", "--out", &s("r.json")],
                vec!["--race-pairs 0,1", "0 pairs", "0 alone"],
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
                vec![
                    "--bounds futility_margin=100..100",
                    "widen a range",
                    "--params",
                ],
            ),
            (
                [
                    &calibrate_small[..],
                    &["--openings", &one, "--out", &c_json],
                ]
                .concat(),
                vec![&one, "1 opening(s)", "2 pairs", "--games"],
            ),
        ],
        &dir,
    );
    std::fs::remove_dir_all(dir).unwrap();
}
