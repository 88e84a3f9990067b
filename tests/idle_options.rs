//! Options that do nothing where they are given are said (the run goes on, exit 0): the option,
//! the value and why it does nothing, never silently dropped.

mod common;

use common::{assert_names, run_bounded, scratch, small_match, warns};

const BK: &str = "data/suites/bk.epd";

/// --finalists without race pairs does nothing in a tune.
#[test]
fn finalists_without_race_pairs_are_said_to_do_nothing() {
    let dir = scratch("idle-options", "finalists");
    let out = dir.join("t.json");
    warns(
        &[
            "tune",
            "--suites",
            BK,
            "--nodes",
            "300",
            "--design",
            "4",
            "--race-pairs",
            "0",
            "--finalists",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        &dir,
        &["--finalists 2", "--race-pairs 0"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// --max-faults where the built-in engine runs (suite, and check of a built-in engine's file)
/// is said to do nothing, naming the command.
#[test]
fn max_faults_with_the_builtin_engine_is_said_to_do_nothing() {
    let dir = scratch("idle-options", "max-faults");
    warns(
        &["suite", BK, "--depth", "1", "--max-faults", "3"],
        &dir,
        &["--max-faults", "`marginal suite`", "no --engine"],
    );
    warns(
        &[
            "check",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tuned/spsa-suite.json"),
            "--max-faults",
            "2",
            "--sample",
            "10",
            "-q",
        ],
        &dir,
        &["--max-faults", "`marginal check`", "no --engine"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A margin set while its switch is off is said to do nothing, naming the assignment, the
/// margin and the switch.
#[test]
fn a_margin_under_a_switch_that_is_off_is_said_to_do_nothing() {
    let dir = scratch("idle-options", "switch-off");
    warns(
        &[
            "suite",
            BK,
            "--depth",
            "1",
            "--set",
            "futility=0",
            "--set",
            "frontier=50",
        ],
        &dir,
        &[
            "frontier=50",
            "futility_margin",
            "futility is off",
            "futility=1",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A set scored that is the reference ('off') itself is said to be compared with itself.
#[test]
fn a_set_equal_to_its_reference_is_said() {
    let dir = scratch("idle-options", "reference");
    warns(
        &["suite", BK, "--depth", "1", "--margins", "off"],
        &dir,
        &["('off')", "same values", "another --reference"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Adjudication from a move that no game reaches is said.
#[test]
fn an_adjudication_no_game_reaches_is_said() {
    let dir = scratch("idle-options", "adjudication");
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
        &["--draw 10:8:300", "--max-plies 200", "never adjudicates"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A book whose openings repeat is said (each is played as often as it appears).
#[test]
fn a_book_whose_openings_repeat_is_said() {
    let dir = scratch("idle-options", "repeated-book");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
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
        &[&s("repeats.epd"), "4 opening(s)", "remove the repeats"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Schedule ends that no part of the race uses are said, once each; bounds that leave out a
/// default say where tuning starts.
#[test]
fn schedule_ends_no_part_of_the_race_uses_are_said_once_each() {
    let dir = scratch("idle-options", "schedule-ends");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let o = run_bounded(
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
    std::fs::remove_dir_all(dir).unwrap();
}

/// A row set twice, by --set or in an inline margin set, is said naming both (aliases count as
/// their row).
#[test]
fn a_row_set_twice_is_said_naming_both() {
    let dir = scratch("idle-options", "row-twice");
    let o = run_bounded(
        &[
            "suite",
            BK,
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
    // Both assignments, by the names given.
    assert_names(
        &o.stderr,
        &["--set futility_margin=10", "--set frontier=150"],
    );
    // And twice in an inline margin set: the row, both values and the set.
    warns(
        &[
            "suite",
            BK,
            "--depth",
            "1",
            "--margins",
            "frontier=100,frontier=200",
        ],
        &dir,
        &[
            "frontier=200",
            "frontier=100",
            "'frontier=100,frontier=200'",
            "the last one counts",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A --batch that holds every training position batches nothing, and says so.
#[test]
fn a_batch_that_holds_every_position_is_said() {
    let dir = scratch("idle-options", "batch");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
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
        &["--batch 5000", "805 training positions"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Options of another solver or mode (the race's with Nelder-Mead, --particles, --batch,
/// --openings without the games objective, --confirm-openings without --confirm) are said
/// once each, naming the option, its value and the solver in effect; the tune runs.
#[test]
fn options_of_another_solver_are_said_once_each_and_the_tune_runs() {
    let dir = scratch("idle-options", "other-solver");
    let out = dir.join("t.json");
    let book = "data/openings/noob_3moves_1k.epd";
    let o = run_bounded(
        &[
            "tune",
            "--suites",
            BK,
            "--depth",
            "1",
            "--solver",
            "nelder-mead",
            "--iterations",
            "1",
            "--design",
            "4",
            "--screen-by",
            "games",
            "--race-pairs",
            "2,4",
            "--particles",
            "3",
            "--batch",
            "4",
            "--openings",
            book,
            "--confirm-openings",
            book,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        &dir,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(out.exists(), "{}", o.stderr);
    for option in [
        "--design 4",
        "--screen-by games",
        "--race-pairs 2,4",
        "--particles 3",
        "--batch 4",
        &format!("--openings {book}"),
        &format!("--confirm-openings {book}"),
    ] {
        let line = format!("{option} does nothing here (--solver nelder-mead");
        assert_eq!(o.stderr.matches(&line).count(), 1, "{option}: {}", o.stderr);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// --all and --prefix with a format that takes neither are said to do nothing, naming the
/// option, its value and the format; the export is the one without them.
#[test]
fn export_options_the_format_does_not_take_are_said_and_change_nothing() {
    let dir = scratch("idle-options", "export");
    let tuned = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/export/tuned.json"
    );
    for (format, option, names) in [
        (
            "openbench",
            vec!["--all"],
            vec![
                "--all",
                "openbench",
                "tuned rows only",
                "json, toml, rust or c",
            ],
        ),
        (
            "json",
            vec!["--prefix", "P_"],
            vec!["--prefix P_", "json", "rust or c"],
        ),
    ] {
        let plain = run_bounded(&["export", tuned, "--format", format], &dir);
        let mut args = vec!["export", tuned, "--format", format];
        args.extend(option);
        let o = run_bounded(&args, &dir);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert_names(&o.stderr, &names);
        assert_eq!(o.stderr.matches("does nothing").count(), 1, "{}", o.stderr);
        assert_eq!(o.stdout, plain.stdout);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A Slurm option without --executor slurm is said to do nothing, naming it and its value; the
/// run goes on on this machine.
#[test]
fn slurm_options_without_the_slurm_executor_are_said_to_do_nothing() {
    let dir = scratch("idle-options", "slurm");
    let o = run_bounded(
        &[
            "suite",
            BK,
            "--depth",
            "1",
            "--shards",
            "4",
            "--retries",
            "1",
            "-q",
        ],
        &dir,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_names(
        &o.stderr,
        &["--shards 4", "--retries 1", "--executor slurm"],
    );
    assert_eq!(o.stderr.matches("--shards 4").count(), 1, "{}", o.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `check --openings` without --games is said to do nothing, naming the book; the check runs.
#[test]
fn check_books_without_games_are_said_to_do_nothing() {
    let dir = scratch("idle-options", "check-books");
    let book = "data/openings/noob_3moves_1k.epd";
    let o = run_bounded(
        &[
            "check",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tuned/spsa-suite.json"),
            "--openings",
            book,
            "--sample",
            "10",
            "-q",
        ],
        &dir,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let line = format!("--openings {book} does nothing here");
    assert_eq!(o.stderr.matches(&line).count(), 1, "{}", o.stderr);
    assert_names(&o.stderr, &["--games N"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// --force without the output it would replace is said to do nothing, naming that output, in
/// every command that has it; the run goes on (a match's --pgn is never written over).
#[test]
fn force_without_its_output_is_said_to_do_nothing_in_every_command() {
    let dir = scratch("idle-options", "force");
    let tuned = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/export/tuned.json"
    );
    let pgn = dir.join("g.pgn");
    let book = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/openings/noob_3moves_1k.epd"
    );
    let mut game = small_match(book, &["--force", "--pgn"]);
    game.push(pgn.to_str().unwrap());
    for (args, names) in [
        (
            vec!["suite", BK, "--depth", "1", "--force", "-q"],
            vec!["--json"],
        ),
        (
            vec!["export", tuned, "--format", "json", "--force"],
            vec!["--out"],
        ),
        (game, vec!["--json", "never written over"]),
    ] {
        let o = run_bounded(&args, &dir);
        assert_eq!(o.code, Some(0), "{args:?}: {}", o.stderr);
        assert_eq!(
            o.stderr.matches("--force does nothing").count(),
            1,
            "{}",
            o.stderr
        );
        assert_names(&o.stderr, &names);
    }
    std::fs::remove_dir_all(dir).unwrap();
}
