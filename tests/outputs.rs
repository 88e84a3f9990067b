//! Outputs lose nothing: an output that is a link to an input, a directory, an input itself,
//! another output of the same run or a file of another kind is refused (exit 2) before any
//! work, naming the option and the file; a full disk is named; a killed run leaves the report
//! that was there whole.

mod common;

use std::path::Path;

use common::{
    assert_names, first_lines, marginal, match_of, refused, run_bounded, said, scratch,
    small_match, small_suite, spsa_once,
};

/// A tune's plot that links to its suite, and a match's settings record (beside its PGN) that
/// links to the book it plays, are refused even with --force, before the work; the inputs are
/// left as they were.
#[test]
fn an_output_linked_to_an_input_is_refused_even_with_force() {
    let dir = scratch("outputs", "links");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let suite = small_suite(&dir, 40);
    let suite_text = std::fs::read(&suite).unwrap();
    first_lines(
        "data/openings/noob_3moves_1k.epd",
        10,
        &dir.join("book.epd"),
    );
    let book_text = std::fs::read(dir.join("book.epd")).unwrap();
    std::os::unix::fs::symlink(&suite, dir.join("t.svg")).unwrap();
    let t_json = s("t.json");
    let mut forced = spsa_once(suite.to_str().unwrap(), &t_json);
    forced.push("--force");
    // The output, its plot, the input it is, and the fix.
    let plot = [&s("t.svg"), suite.to_str().unwrap(), "another output file"];
    refused(
        &forced,
        &dir,
        &[&["--out", t_json.as_str()][..], &plot].concat(),
    );
    std::os::unix::fs::symlink(dir.join("book.epd"), dir.join("m.pgn.match.json")).unwrap();
    let (book, pgn) = (s("book.epd"), s("m.pgn"));
    refused(
        &small_match(&book, &["--pgn", &pgn]),
        &dir,
        &[
            "--pgn",
            &pgn,
            &s("m.pgn.match.json"),
            &book,
            "another output file",
        ],
    );
    assert_eq!(std::fs::read(&suite).unwrap(), suite_text);
    assert_eq!(std::fs::read(dir.join("book.epd")).unwrap(), book_text);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `plot` of a tuned file whose .svg path links to the tuned file itself names it as a link.
#[test]
fn a_plot_path_linked_to_its_tuned_file_is_named_as_a_link() {
    let dir = scratch("outputs", "plot-link");
    let tuned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json");
    std::fs::copy(&tuned, dir.join("f.json")).unwrap();
    std::os::unix::fs::symlink(dir.join("f.json"), dir.join("f.svg")).unwrap();
    let f = dir.join("f.json");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    refused(
        &["plot", f.to_str().unwrap()],
        &dir,
        &[
            &s("f.svg"),
            "links to the tuned file",
            "remove or move that link",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tune's plot path that links to the tuned file not written yet is refused, and no tuned
/// file is written.
#[test]
fn a_tunes_plot_linked_to_its_own_tuned_file_is_refused() {
    let dir = scratch("outputs", "plot-is-tuned");
    let suite = small_suite(&dir, 30);
    std::os::unix::fs::symlink(dir.join("t.json"), dir.join("t.svg")).unwrap();
    let t = dir.join("t.json");
    refused(
        &spsa_once(suite.to_str().unwrap(), t.to_str().unwrap()),
        &dir,
        &[
            "--out",
            t.to_str().unwrap(),
            "the tuned file itself",
            "remove or move that link",
        ],
    );
    assert!(!t.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// An output path ending in '/' names a directory: said before any work, by suite's --json and
/// tune's --out.
#[test]
fn a_path_ending_in_a_slash_is_said_to_name_a_directory() {
    let dir = scratch("outputs", "slash");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let suite = small_suite(&dir, 40);
    let suite_arg = suite.to_str().unwrap();
    let newdir = s("newdir/");
    refused(
        &[
            "suite", suite_arg, "--nodes", "300", "-q", "--json", &newdir,
        ],
        &dir,
        &[&newdir, "ends in '/'", "names a directory", "name a file"],
    );
    let newdir = s("newdir3/");
    refused(
        &spsa_once(suite_arg, &newdir),
        &dir,
        &[&newdir, "ends in '/'", "names a directory", "name a file"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// --cache-dir naming a file is said to be one.
#[test]
fn a_cache_dir_that_is_a_file_is_said_to_be_one() {
    let dir = scratch("outputs", "cache-file");
    let suite = small_suite(&dir, 40);
    let afile = dir.join("afile");
    std::fs::write(&afile, "x").unwrap();
    let args = [
        "suite",
        suite.to_str().unwrap(),
        "--nodes",
        "300",
        "-q",
        "--cache-dir",
        afile.to_str().unwrap(),
    ];
    let what = [
        "--cache-dir",
        afile.to_str().unwrap(),
        "not a directory",
        "--no-cache",
    ];
    refused(&args, &dir, &what);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tune's --out inside, or equal to, its checkpoint directory is refused.
#[test]
fn a_tuned_file_inside_the_checkpoint_directory_is_refused() {
    let dir = scratch("outputs", "in-checkpoint");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let suite = small_suite(&dir, 30);
    let suite_arg = suite.to_str().unwrap();
    let (inside, ck) = (s("ck/args.json"), s("ck"));
    let mut args = spsa_once(suite_arg, &inside);
    args.extend(["--checkpoint", &ck]);
    // The output, the checkpoint it is in, and the fix.
    refused(&args, &dir, &["--out", &inside, &ck, "outside it"]);
    let ck2 = s("ck2");
    let mut args = spsa_once(suite_arg, &ck2);
    args.extend(["--checkpoint", &ck2]);
    refused(
        &args,
        &dir,
        &["--out", &ck2, "checkpoint directory", "outside it"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A match's --json that links to its --pgn (not made yet) is refused, naming --json.
#[test]
fn a_matchs_report_linked_to_its_pgn_is_refused() {
    let dir = scratch("outputs", "json-is-pgn");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    first_lines("data/openings/noob_3moves_1k.epd", 4, &dir.join("book.epd"));
    std::os::unix::fs::symlink(dir.join("m.pgn"), dir.join("m.json")).unwrap();
    let (book, pgn, json) = (s("book.epd"), s("m.pgn"), s("m.json"));
    refused(
        &small_match(&book, &["--pgn", &pgn, "--json", &json]),
        &dir,
        &["--json", &json, &pgn, "another output file"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// --pgn naming a file that is not a PGN (a tuned file): said so, with no talk of games or
/// --resume.
#[test]
fn a_pgn_path_holding_another_file_is_refused() {
    let dir = scratch("outputs", "not-pgn");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    first_lines("data/openings/noob_3moves_1k.epd", 4, &dir.join("book.epd"));
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed1.json"),
        dir.join("a.json"),
    )
    .unwrap();
    let (book, tuned) = (s("book.epd"), s("a.json"));
    refused(
        &small_match(&book, &["--pgn", &tuned]),
        &dir,
        &["--pgn", &tuned, "not a PGN", "name another file"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// `work --out` onto a file that is not a unit's result is refused and the file kept.
#[test]
fn a_work_result_over_another_file_is_refused() {
    let dir = scratch("outputs", "work-out");
    let suite = small_suite(&dir, 5);
    std::fs::write(dir.join("unit.json"), "{}").unwrap();
    let kept = suite.to_str().unwrap();
    let unit = dir.join("unit.json");
    refused(
        &["work", unit.to_str().unwrap(), "--out", kept],
        &dir,
        &["--out", kept, "not a unit's result", "name another file"],
    );
    assert_names(&std::fs::read_to_string(&suite).unwrap(), &[" bm "]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--json --force` (and a tune's `--out --force`) replaces a JSON file, never a file of another
/// kind (campaign 22, A038: an engine file replaced by a check's report), nor the result of a
/// run (campaign 23, A006); a JSON report it does replace.
#[test]
fn a_forced_report_goes_only_over_a_json_file() {
    let dir = scratch("outputs", "forced-json");
    let suite = small_suite(&dir, 2);
    let (engine, report) = (dir.join("engine.toml"), dir.join("old.json"));
    std::fs::write(&engine, "# an engine file\ncommand = \"x\"\n").unwrap();
    std::fs::write(&report, "{\"old\": true}").unwrap();
    let suite = suite.to_str().unwrap();
    let forced = |out: &Path| {
        let out = out.to_str().unwrap();
        marginal(
            &["suite", suite, "--nodes", "300", "--json", out, "--force"],
            &dir,
        )
    };
    // The option, the file, what it holds, and that --force does not help.
    let engine_path = engine.to_str().unwrap();
    let refusal = |option: &str, out: &std::process::Output| {
        let text = said(out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        for needle in [
            &format!("{option} {engine_path}")[..],
            "exists and is no JSON file",
            "it begins '# an engine file'",
            "even with --force",
        ] {
            assert!(text.contains(needle), "'{needle}' not in {text}");
        }
    };
    refusal("--json", &forced(&engine));
    // A tune's --out too (campaign 23, A030: an engine file replaced by a tuned file).
    let out = marginal(
        &[
            "tune",
            "--suites",
            suite,
            "--nodes",
            "300",
            "--solver",
            "spsa",
            "--iterations",
            "1",
            "--out",
            engine_path,
            "--force",
        ],
        &dir,
    );
    refusal("--out", &out);
    assert_eq!(
        std::fs::read_to_string(&engine).unwrap(),
        "# an engine file\ncommand = \"x\"\n"
    );
    let tuned = dir.join("tuned.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed1.json"),
        &tuned,
    )
    .unwrap();
    let out = forced(&tuned);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    for needle in [
        tuned.to_str().unwrap(),
        "is a marginal-tuned/* file, the result of a run",
        "even with --force",
    ] {
        assert!(
            said(&out).contains(needle),
            "'{needle}' not in {}",
            said(&out)
        );
    }
    let out = forced(&report);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_names(
        &std::fs::read_to_string(&report).unwrap(),
        &["\"objective\""],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A035: a PGN that cannot be written (a full disk) is named in the error, with how to go on.
#[test]
fn a_pgn_that_cannot_be_written_is_named() {
    let dir = scratch("outputs", "pgn-full");
    let args = ["match", "--a", "default", "--b", "off", "--games", "2"];
    refused(
        &[&args[..], &["--nodes", "300", "--pgn", "/dev/full"]].concat(),
        &dir,
        // The file, what is kept in it, and the way on.
        &["/dev/full", "--pgn", "whole pairs", "kept", "--resume"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// D004/D006: a match killed before its end leaves the --json file that was there whole (the
/// report is written in one step at the end, never emptied at the start).
#[test]
fn a_killed_match_leaves_the_earlier_json_report_whole() {
    let dir = scratch("outputs", "killed-json");
    let json = dir.join("p.json");
    let args = ["match", "--a", "default", "--b", "off", "--nodes", "300"];
    let json_args = ["--json", json.to_str().unwrap(), "--force"];
    let first = marginal(&[&args[..], &["--games", "2"], &json_args].concat(), &dir);
    assert!(first.status.success(), "{}", said(&first));
    let report = std::fs::read(&json).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args([&args[..], &["--games", "2000"], &json_args].concat())
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read(&json).unwrap(), report);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every command that writes refuses an output that is one of its inputs (also under another
/// spelling of its path), exit 2, and leaves the inputs as they were.
#[test]
fn no_command_writes_over_one_of_its_inputs() {
    let dir = scratch("outputs", "own-input");
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
        let out = run_bounded(args, &dir);
        assert_eq!(out.code, Some(2), "marginal {args:?}: {}", out.stderr);
        // The output that is an input, and the fix.
        assert_names(&out.stderr, &[args.last().unwrap(), "another output file"]);
    }
    let after: Vec<Vec<u8>> = [&suite, &book, &tuned, &unit]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    assert!(before == after, "an input changed");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every command that writes refuses an existing output without --force, naming the file and
/// --force; with it the file is replaced.
#[test]
fn no_command_replaces_an_existing_output_without_force() {
    let dir = scratch("outputs", "existing-output");
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
        let o = run_bounded(args, &dir);
        assert_eq!(o.code, Some(2), "marginal {args:?}: {}", o.stderr);
        // The file, and the fix.
        assert_names(&o.stderr, &[args.last().unwrap(), "exists", "--force"]);
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), text);
        assert!(marginal::calibrate::report::read(&report).is_ok());
    }
    // With --force the file is replaced.
    let o = run_bounded(&[&export[..], &["--force"]].concat(), &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_ne!(std::fs::read_to_string(&existing).unwrap(), text);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A copy of the BK suite in `dir` (`s.epd`), to be linked to.
fn bk_copy(dir: &Path) -> std::path::PathBuf {
    let suite = dir.join("s.epd");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd"),
        &suite,
    )
    .unwrap();
    suite
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// A hard link to the suite given as its report is that input: refused even with --force,
/// and the suite is left as it was.
#[test]
fn a_hard_link_to_an_input_is_that_input() {
    let dir = scratch("outputs", "hard-link");
    let suite = bk_copy(&dir);
    let before = std::fs::read(&suite).unwrap();
    let linked = dir.join("h.json");
    std::fs::hard_link(&suite, &linked).unwrap();
    let o = run_bounded(
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
    // The output, the input it is, and the fix.
    assert_names(&o.stderr, &[&s(&linked), &s(&suite), "another output file"]);
    assert_eq!(std::fs::read(&suite).unwrap(), before);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The export of race-seed1 in UCI form, written to `--out` (the path comes after).
const EXPORT: [&str; 5] = [
    "export",
    "tuned/race-seed1.json",
    "--format",
    "uci",
    "--out",
];

/// A symbolic link as --out is followed: refused without --force; with it, the file it names
/// is replaced and the link stays a link. A dangling link names the file to make: it is made,
/// the link stays.
#[test]
fn a_symbolic_link_as_output_is_followed_and_stays_a_link() {
    let dir = scratch("outputs", "symlink");
    let real = dir.join("real.txt");
    std::fs::write(&real, "mine\n").unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = run_bounded(&[&EXPORT[..], &[&s(&link)]].concat(), &dir);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "mine\n");
    let o = run_bounded(&[&EXPORT[..], &[&s(&link), "--force"]].concat(), &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_names(
        &std::fs::read_to_string(&real).unwrap(),
        &["setoption name"],
    );
    let dangling = dir.join("dangling.txt");
    std::os::unix::fs::symlink("made/later.txt", &dangling).unwrap();
    let o = run_bounded(&[&EXPORT[..], &[&s(&dangling)]].concat(), &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let made = std::fs::read_to_string(dir.join("made/later.txt")).unwrap();
    assert_names(&made, &["setoption name"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// An output where no file can be made fails before the work, naming the directory, in every
/// command that writes one (calibrate would play its games first).
#[test]
fn an_output_where_no_file_can_be_made_fails_before_the_work() {
    let dir = scratch("outputs", "proc");
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
        let o = run_bounded(&args, &dir);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
        // The output, and the directory where no file can be made.
        assert_names(&o.stderr, &[args.last().unwrap(), "directory /proc"]);
        assert!(o.stdout.is_empty(), "{args:?} worked first: {}", o.stdout);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file of the user's where the plot goes is kept (exit 2, naming it), unless --force; its
/// own plot marginal replaces freely; a tune whose plot would replace a file of the user's
/// stops before any work.
#[test]
fn a_users_file_where_the_plot_goes_is_kept() {
    let dir = scratch("outputs", "users-plot");
    let tuned = dir.join("mine.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed1.json"),
        &tuned,
    )
    .unwrap();
    let svg = dir.join("mine.svg");
    std::fs::write(&svg, "MY NOTES\n").unwrap();
    let o = run_bounded(&["plot", &s(&tuned)], &dir);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_names(
        &o.stderr,
        &[&s(&svg), "not a plot marginal drew", "--force"],
    );
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "MY NOTES\n");
    let o = run_bounded(&["plot", &s(&tuned), "--force"], &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let o = run_bounded(&["plot", &s(&tuned)], &dir);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let out = dir.join("mine-tuned.json");
    std::fs::write(dir.join("mine-tuned.svg"), "MY NOTES\n").unwrap();
    let o = run_bounded(&["tune", "--out", &s(&out)], &dir);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    let svg = dir.join("mine-tuned.svg");
    assert_names(
        &o.stderr,
        &[&s(&svg), "not a plot marginal drew", "--force"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A --resume with nothing to resume is a new match: an existing report of the user's is kept
/// (exit 2, naming it).
#[test]
fn a_resume_with_nothing_to_resume_keeps_an_existing_report() {
    let dir = scratch("outputs", "nothing-to-resume");
    let (precious, none_pgn) = (dir.join("precious.json"), dir.join("none.pgn"));
    std::fs::write(&precious, "precious\n").unwrap();
    let o = run_bounded(
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
            "--pgn",
            &s(&none_pgn),
            "--resume",
            "--json",
            &s(&precious),
        ],
        &dir,
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_names(&o.stderr, &["--json", &s(&precious), "exists", "--force"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious\n");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Redrawing a plot that is already the same drawing changes no file (a clone stays clean).
#[test]
fn redrawing_the_same_plot_changes_no_file() {
    let dir = scratch("outputs", "same-plot");
    let (copy, svg) = (dir.join("drawn.json"), dir.join("drawn.svg"));
    std::fs::copy("tuned/race-seed1.json", &copy).unwrap();
    std::fs::copy("tuned/race-seed1.svg", &svg).unwrap();
    let before = std::fs::read(&svg).unwrap();
    common::warns(&["plot", &s(&copy)], &dir, &[]);
    assert_eq!(std::fs::read(&svg).unwrap(), before);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Another calibration's report is kept: only this calibration's own is written again (exit 2,
/// naming it, before any work).
#[test]
fn another_calibrations_report_is_kept() {
    let dir = scratch("outputs", "other-calibration");
    let other = dir.join("other-calibration.json");
    std::fs::copy("tuned/calibration-builtin-nodes5000.json", &other).unwrap();
    let o = run_bounded(
        &[
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
            "data/suites/bk.epd",
            "--out",
            &s(&other),
        ],
        &dir,
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_names(&o.stderr, &["--out", &s(&other), "exists", "--force"]);
    assert!(marginal::calibrate::report::read(&other).is_ok());
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file-size limit (`ulimit -f`) is an error, not a silent death by SIGXFSZ: the command
/// exits 2 naming the file it could not write and the limit, and leaves no temporary behind.
#[test]
fn a_file_size_limit_is_named_with_the_file() {
    let dir = scratch("outputs", "fsize");
    let out_path = dir.join("exported.json");
    // `ulimit -f 0`: not one block may be written to a file (standard output and error are
    // pipes here, which the limit does not touch).
    let script = format!(
        "ulimit -f 0 || exit 77; exec \"$0\" export tests/golden/export/tuned.json --format json --out '{}'",
        out_path.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_marginal")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    if out.status.code() == Some(77) {
        eprintln!("skipped: this shell cannot set a file-size limit (ulimit -f 0)");
        return;
    }
    let stderr = said(&out);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The file, and the limit that stopped it.
    assert_names(&stderr, &[out_path.to_str().unwrap(), "ulimit -f"]);
    assert!(!out_path.exists());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "no temporary (nor lock) is left: {left:?}");
}

/// The process id of a process that has ended (what a killed run's lock file names).
fn ended_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// An output another run holds (its lock taken, here by the test itself) is refused at once
/// with exit 2, naming the file and the process that holds it; nothing is written. Once the
/// holder lets go, the same command writes it and leaves no lock file behind.
#[test]
fn an_output_another_run_holds_is_refused_naming_the_file_and_its_pid() {
    let dir = scratch("outputs", "held");
    let out = dir.join("exported.json");
    let args = [
        "export",
        "tests/golden/export/tuned.json",
        "--format",
        "json",
        "--out",
        out.to_str().unwrap(),
    ];
    let held = marginal::formats::lock::hold(&out).unwrap();
    let pid = format!("pid {}", std::process::id());
    refused(
        &args,
        &dir,
        &[out.to_str().unwrap(), &pid, "wait for that run"],
    );
    assert!(!out.exists());
    drop(held);
    let o = marginal(&args, &dir);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(out.is_file());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "cache")
        .collect();
    assert_eq!(left.len(), 1, "only the output is left: {left:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A lock file left by a run that was killed (its process gone) does not block the next run:
/// the lock is taken over and said, naming the ended process, and removed at the end.
#[test]
fn a_lock_left_by_a_killed_run_does_not_block_and_is_said() {
    let dir = scratch("outputs", "stale");
    let out = dir.join("exported.json");
    let lock = marginal::formats::lock::lock_path(&out);
    let dead = ended_pid();
    std::fs::write(&lock, format!("{dead}\n")).unwrap();
    let o = marginal(
        &[
            "export",
            "tests/golden/export/tuned.json",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
        ],
        &dir,
    );
    let text = said(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    // The ended process, and that its lock was taken over.
    assert_names(&text, &[&format!("pid {dead}"), "ended"]);
    assert!(out.is_file() && !lock.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// A --json report into a named pipe with a reader is written once, whole: the pipe is not
/// opened first to test it (the reader would take that close for the end and leave, and the
/// run would wait forever for another). `timeout` turns a hang into a failure.
#[test]
fn a_json_report_into_a_fifo_with_a_reader_is_written_whole() {
    let dir = scratch("outputs", "fifo");
    let fifo = dir.join("report.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = std::process::Command::new("timeout")
        .args(["120", "cat"])
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let suite = small_suite(&dir, 5);
    let run = std::process::Command::new("timeout")
        .args(["120", env!("CARGO_BIN_EXE_marginal")])
        .args(["suite", suite.to_str().unwrap(), "--nodes", "200"])
        .args(["--no-cache", "-q", "--json", fifo.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let read = reader.wait_with_output().unwrap();
    assert!(read.status.success(), "the reader: {:?}", read.status);
    let report: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(report["positions"].as_array().map(Vec::len), Some(5));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A --json report or a --pgn into a named pipe that nothing reads waits for a reader, as any
/// Unix writer does, but a SIGTERM ends the wait: exit 130 (an interrupt), the pipe named and
/// what to do (start its reader), never a wait that only SIGKILL ends.
#[test]
fn a_fifo_without_a_reader_is_given_up_at_sigterm_naming_the_pipe() {
    let dir = scratch("outputs", "fifo-no-reader");
    let book = dir.join("book.epd");
    first_lines("data/openings/UHO_4060_v2_2k.epd", 4, &book);
    for option in ["--json", "--pgn"] {
        let fifo = dir.join(format!("out{option}.fifo"));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let child = std::process::Command::new("timeout")
            .args(["-k", "5", "60", env!("CARGO_BIN_EXE_marginal")])
            .args(small_match(
                book.to_str().unwrap(),
                &[option, fifo.to_str().unwrap()],
            ))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_secs(2));
        // The `timeout` wrapper passes SIGTERM on to marginal.
        // SAFETY: kill(2) on our child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let run = child.wait_with_output().unwrap();
        let said = said(&run);
        assert_eq!(run.status.code(), Some(130), "{option}: {said}");
        assert_names(
            &said,
            &[
                fifo.file_name().unwrap().to_str().unwrap(),
                "reader",
                "interrupted",
            ],
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A PGN removed while its match plays (it or its directory): the match still ends with its
/// figures, and says the PGN's games are lost, naming the file, instead of "games written to"
/// a file that is gone (campaign of issue 38).
#[test]
fn a_pgn_removed_during_its_match_is_said_to_be_lost() {
    let dir = scratch("outputs", "pgn-removed");
    let book = dir.join("book.epd");
    first_lines("data/openings/UHO_4060_v2_2k.epd", 40, &book);
    let pgn = dir.join("games.pgn");
    let args = match_of(
        book.to_str().unwrap(),
        "40",
        "3000",
        &["--pgn", pgn.to_str().unwrap()],
    );
    // `timeout` ends a run that hangs; the test waits only while the match still plays.
    let mut child = std::process::Command::new("timeout")
        .args(["-k", "5", "300", env!("CARGO_BIN_EXE_marginal")])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while std::fs::metadata(&pgn).map_or(true, |m| m.len() == 0) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the match ended ({status}) before its first game was written");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::remove_file(&pgn).unwrap();
    let run = child.wait_with_output().unwrap();
    let said = said(&run);
    assert_eq!(run.status.code(), Some(0), "{said}");
    assert_names(&said, &["games.pgn", "removed", "lost", "games 40"]);
    assert!(!said.contains("games written to"), "{said}");
    std::fs::remove_dir_all(dir).unwrap();
}
