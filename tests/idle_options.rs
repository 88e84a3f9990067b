//! Options that do nothing where they are given are said (the run goes on, exit 0): the option,
//! the value and why it does nothing, never silently dropped.

mod common;

use common::{scratch, warns};

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
        &["--finalists 2 does nothing here"],
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
        &["--max-faults: `marginal suite` runs the built-in engine here"],
    );
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
        &["frontier=50: futility_margin does nothing while futility is off"],
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
        &["the reference run ('off') searches with the same values as the set scored"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}
