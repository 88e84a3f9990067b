//! Bad input to every command, as a new user would give it: each case must end within a bounded
//! time with the documented exit status (2: unusable input or environment) and a message that
//! names the problem, never a panic, a hang or a silent change of what was asked.

mod common;

use std::path::Path;

use common::{run_bounded, scratch};

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
        let out = run_bounded(args, &dir);
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

/// Each case exits 2 with its text in the message.
fn assert_refused(cases: &[(Vec<&str>, &str)], dir: &Path) {
    for (args, needle) in cases {
        let o = run_bounded(args, dir);
        assert_eq!(o.code, Some(2), "marginal {args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains(needle),
            "marginal {args:?}: '{needle}' not in {}",
            o.stderr
        );
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
            "a margin set of the external engine Toga II 3.0 (engines/toga2.toml), not of marginal's own",
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
            "give it where that engine plays (--engine engines/toga2.toml",
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
            "--force replaces the --json report only, and no --json FILE is given",
        ),
        (
            vec![
                "match", "--a", "default", "--b", "off", "--pgn", "g.pgn", "--force",
            ],
            "a --pgn file is never written over, even with --force",
        ),
        (
            vec![
                "match", "--a", "default", "--b", "off", "--pgn", "g.pgn", "--force",
            ],
            "continue its match with --resume, or name another --pgn than g.pgn",
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

/// A clock beyond a year is refused, naming --tc and the value.
#[test]
fn a_clock_beyond_a_year_is_refused() {
    let dir = scratch("bad-input", "clock");
    let o = run_bounded(
        &["match", "--a", "default", "--b", "off", "--tc", "1e308+0"],
        &dir,
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("--tc: '1e308+0'"), "{}", o.stderr);
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
            (
                vec!["match", "--a", "default", "--b", "off", "--sprt", "-5,0"],
                "a value that starts with '-' goes after '='",
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
    std::fs::remove_dir_all(dir).unwrap();
}
