//! The classes a fifth held-out newcomer campaign found, each held: outputs that reach an
//! input through a link, paths that name a directory, a device where a plot goes, checkpoints
//! and tuned files damaged in the middle, books too short for the games asked, odd Slurm
//! allotments, and tips that name the right option.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{marginal, scratch, small_suite};

fn said(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

/// `marginal ARGS` must end with exit 2 and say `needle`.
fn refused(args: &[&str], dir: &Path, needle: &str) {
    let out = marginal(args, dir);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "marginal {args:?}: {text}");
    assert!(
        text.contains(needle),
        "marginal {args:?}: '{needle}' not in {text}"
    );
}

fn first_lines(from: &str, n: usize, to: &Path) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(from)).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    std::fs::write(to, lines.join("\n") + "\n").unwrap();
}

/// A one-iteration SPSA tune of `suite` at 300 nodes, quiet, writing `out`.
fn tune<'a>(suite: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "tune",
        "--suites",
        suite,
        "--nodes",
        "300",
        "-q",
        "--solver",
        "spsa",
        "--iterations",
        "1",
        "--out",
        out,
    ]
}

#[test]
fn outputs_reached_through_links_or_named_as_directories_are_refused() {
    let dir = scratch("edges", "links");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let suite = small_suite(&dir, 40);
    let suite_text = std::fs::read(&suite).unwrap();
    first_lines(
        "data/openings/noob_3moves_1k.epd",
        10,
        &dir.join("book.epd"),
    );
    let book_text = std::fs::read(dir.join("book.epd")).unwrap();
    // A tune's plot that links to its suite: refused even with --force, before the work.
    std::os::unix::fs::symlink(&suite, dir.join("t.svg")).unwrap();
    let suite_arg = suite.to_str().unwrap();
    let t_json = s("t.json");
    let mut forced = tune(suite_arg, &t_json);
    forced.push("--force");
    refused(&forced, &dir, "its plot");
    // A match's settings record (beside its PGN) that links to the book it plays.
    std::os::unix::fs::symlink(dir.join("book.epd"), dir.join("m.pgn.match.json")).unwrap();
    refused(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--games",
            "2",
            "--nodes",
            "300",
            "--openings",
            &s("book.epd"),
            "--pgn",
            &s("m.pgn"),
            "-q",
        ],
        &dir,
        "its settings record",
    );
    assert_eq!(std::fs::read(&suite).unwrap(), suite_text);
    assert_eq!(std::fs::read(dir.join("book.epd")).unwrap(), book_text);
    // A plot path that links to the tuned file itself is named as a link.
    let tuned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json");
    std::fs::copy(&tuned, dir.join("f.json")).unwrap();
    std::os::unix::fs::symlink(dir.join("f.json"), dir.join("f.svg")).unwrap();
    refused(
        &["plot", &s("f.json")],
        &dir,
        "the .svg there links to the tuned file",
    );
    // A path ending in '/' names a directory, said before any work.
    refused(
        &[
            "suite",
            suite_arg,
            "--nodes",
            "300",
            "-q",
            "--json",
            &s("newdir/"),
        ],
        &dir,
        "ends in '/', so it names a directory",
    );
    let newdir = s("newdir3/");
    refused(
        &tune(suite_arg, &newdir),
        &dir,
        "ends in '/', so it names a directory",
    );
    // --cache-dir naming a file is said to be one.
    std::fs::write(dir.join("afile"), "x").unwrap();
    refused(
        &[
            "suite",
            suite_arg,
            "--nodes",
            "300",
            "-q",
            "--cache-dir",
            &s("afile"),
        ],
        &dir,
        "is not a directory",
    );
}

#[test]
fn a_device_where_the_plot_goes_is_written_not_read() {
    let dir = scratch("edges", "device");
    let tuned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json");
    std::fs::copy(&tuned, dir.join("d.json")).unwrap();
    // /dev/zero reads forever: marginal must not read it to see whether it drew it.
    std::os::unix::fs::symlink("/dev/zero", dir.join("d.svg")).unwrap();
    let out = Command::new("timeout")
        .args(["60", env!("CARGO_BIN_EXE_marginal"), "plot"])
        .arg(dir.join("d.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("plot written to"), "{}", said(&out));
}

#[test]
fn damaged_records_are_named_not_papered_over() {
    let dir = scratch("edges", "damaged");
    // A tuned file whose per-position list was cut: damaged, not "from an older marginal".
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/spsa-suite.json"),
    )
    .unwrap();
    let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
    file["training"]["sets"][0]["positions"]
        .as_array_mut()
        .unwrap()
        .truncate(500);
    let cut = dir.join("cut.json");
    std::fs::write(&cut, file.to_string()).unwrap();
    refused(
        &["check", cut.to_str().unwrap()],
        &dir,
        "its training 'tuned' set records 500 per-position outcomes for 810 positions: the file is damaged",
    );
    // check --update of a file that holds changes nothing in it.
    let same = dir.join("same.json");
    std::fs::write(&same, &text).unwrap();
    let out = marginal(&["check", same.to_str().unwrap(), "--update", "-q"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("the file is left as it is"),
        "{}",
        said(&out)
    );
    assert_eq!(std::fs::read_to_string(&same).unwrap(), text);
    // check --games with a book shorter than its pairs.
    first_lines("data/openings/noob_3moves_1k.epd", 1, &dir.join("one.epd"));
    refused(
        &[
            "check",
            same.to_str().unwrap(),
            "--games",
            "4",
            "--openings",
            dir.join("one.epd").to_str().unwrap(),
            "-q",
        ],
        &dir,
        "1 opening(s) in",
    );
}

#[test]
fn a_checkpoint_damaged_in_the_middle_is_refused_naming_the_line() {
    let dir = scratch("edges", "checkpoint");
    let suite = small_suite(&dir, 30);
    let out_file = dir.join("n.json");
    let mut args = tune(suite.to_str().unwrap(), out_file.to_str().unwrap());
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
    refused(
        &again,
        &dir,
        "evaluations.jsonl:2: not a record of this log",
    );
}

#[test]
fn odd_allotments_and_empty_objectives_are_refused_and_tips_name_real_options() {
    let dir = scratch("edges", "misc");
    // A unit of work under a malformed Slurm allotment.
    let unit = dir.join("unit.json");
    std::fs::write(&unit, "{}").unwrap();
    for value in ["abc", "0"] {
        let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(["work", unit.to_str().unwrap(), "--out"])
            .arg(dir.join("r.json"))
            .env("SLURM_CPUS_PER_TASK", value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", said(&out));
        assert!(
            said(&out).contains(&format!("SLURM_CPUS_PER_TASK='{value}' is not a CPU count")),
            "{}",
            said(&out)
        );
    }
    // A mate suite without a mate record: the mates objective would say nothing.
    first_lines("data/suites/wac.epd", 8, &dir.join("wac8.epd"));
    refused(
        &[
            "calibrate",
            "--sets",
            "4",
            "--games",
            "4",
            "--nodes",
            "300",
            "--objectives",
            "suite,mates",
            "--mate-suite",
            dir.join("wac8.epd").to_str().unwrap(),
            "--out",
            dir.join("cal.json").to_str().unwrap(),
        ],
        &dir,
        "none of its 8 positions has a mate record",
    );
    // ... said before any objective is prepared (campaign 22, G008: after the suite's).
    let cached = dir.join("cache");
    assert!(
        !cached.exists() || std::fs::read_dir(&cached).unwrap().count() == 0,
        "a reference run was made before the refusal"
    );
    // bench has no --set: the tip for a margin whose switch is off names the assignment.
    let out = marginal(
        &[
            "bench",
            "--depth",
            "1",
            "--margins",
            "futility=0,frontier=10",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let text = said(&out);
    assert!(text.contains("turn it on with futility=1"), "{text}");
    assert!(!text.contains("--set"), "{text}");
    // A race's export says its evaluations, not an iteration count it never ran.
    let out = marginal(
        &["export", "tuned/race-seed2.json", "--format", "rust"],
        &dir,
    );
    let text = said(&out);
    assert!(
        text.contains("race on the suite objective, seed 2, 72 evaluations"),
        "{text}"
    );
}

#[test]
fn a_spin_option_whose_range_overflows_is_named_as_such() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("edges", "spin");
    let script = dir.join("huge.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name huge'; echo 'option name Big type spin default 200 min -99999999999999999999 max 99999999999999999999'; echo uciok ;;\n    isready) echo readyok ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = small_suite(&dir, 3);
    refused(
        &[
            "suite",
            suite.to_str().unwrap(),
            "--depth",
            "2",
            "--engine-cmd",
            script.to_str().unwrap(),
            "--engine-options",
            "Big",
        ],
        &dir,
        "'Big' is a spin option whose default, min or max is missing or not a whole number within 64 bits",
    );
}

#[test]
fn a_record_that_contradicts_itself_and_bad_books_are_refused_before_the_work() {
    let dir = scratch("edges", "record");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/spsa-suite.json"),
    )
    .unwrap();
    // Only the recorded objective edited: every outcome comes out as recorded, so the record
    // contradicts itself (exit 2), and no regression is claimed.
    let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let value = file["training"]["sets"][0]["objective"]["value"]
        .as_f64()
        .unwrap();
    file["training"]["sets"][0]["objective"]["value"] = (value + 5.0).into();
    let edited = dir.join("edited.json");
    std::fs::write(&edited, file.to_string()).unwrap();
    let edited = edited.to_str().unwrap();
    // The way forward is named, and taken it records the figures without calling the file
    // regressed; the file then holds.
    let out = marginal(&["check", edited, "-q"], &dir);
    let first = said(&out);
    assert_eq!(out.status.code(), Some(2), "{first}");
    for needle in [
        "every position came out as its record says, yet the recorded figures",
        &format!("or record what it gives now with `marginal check {edited} --update`"),
    ] {
        assert!(first.contains(needle), "'{needle}' not in {first}");
    }
    let update = said(&marginal(&["check", edited, "-q", "--update"], &dir));
    assert!(
        update.contains("(its record did not match its own outcomes before the update)"),
        "{update}"
    );
    let out = marginal(&["check", edited, "-q"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    // A bad --openings book of check --games fails before the suites are measured.
    std::fs::write(dir.join("bad.epd"), "garbage\n").unwrap();
    let original = dir.join("original.json");
    std::fs::write(&original, &text).unwrap();
    let out = marginal(
        &[
            "check",
            original.to_str().unwrap(),
            "--games",
            "4",
            "--openings",
            dir.join("bad.epd").to_str().unwrap(),
        ],
        &dir,
    );
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("bad.epd: no usable opening positions"),
        "{text}"
    );
    assert!(
        !text.contains("validation ("),
        "measured before the book was read: {text}"
    );
}

#[test]
fn a_resumed_match_keeps_a_file_that_is_not_its_report_and_twins_are_said() {
    let dir = scratch("edges", "match");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    first_lines("data/openings/noob_3moves_1k.epd", 6, &dir.join("book.epd"));
    let (book, pgn, precious) = (s("book.epd"), s("m.pgn"), s("precious.json"));
    let play = |extra: &[&str]| {
        let mut args = vec![
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--games",
            "2",
            "--nodes",
            "300",
            "-q",
            "--openings",
            &book,
            "--pgn",
            &pgn,
        ];
        args.extend_from_slice(extra);
        marginal(&args, &dir)
    };
    assert_eq!(play(&[]).status.code(), Some(0));
    std::fs::write(&precious, "{\"format\": \"marginal-suite\"}\n").unwrap();
    let out = play(&["--resume", "--json", &precious]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("exists and is not a match report"),
        "{}",
        said(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&precious).unwrap(),
        "{\"format\": \"marginal-suite\"}\n"
    );
    // The same set on both sides can only measure 0 Elo: said.
    let out = marginal(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "default",
            "--games",
            "2",
            "--nodes",
            "300",
            "-q",
            "--openings",
            &book,
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("can only measure 0 Elo"),
        "{}",
        said(&out)
    );
}

#[test]
fn a_directory_or_file_of_the_users_is_not_taken_for_a_checkpoint_or_a_pgn() {
    let dir = scratch("edges", "mine");
    let suite = small_suite(&dir, 30);
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // A directory of the user's given as --checkpoint: refused, its files kept.
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    std::fs::write(dir.join("mine/args.json"), "{\"mine\":1}").unwrap();
    let (out_a, mine, ck) = (s("a.json"), s("mine"), s("ck"));
    let mut args = tune(suite.to_str().unwrap(), &out_a);
    args.extend(["--checkpoint", &mine]);
    refused(&args, &dir, "holds files and is not a checkpoint");
    assert_eq!(
        std::fs::read_to_string(dir.join("mine/args.json")).unwrap(),
        "{\"mine\":1}"
    );
    // A checkpoint of another run names the option that differs.
    let mut first = tune(suite.to_str().unwrap(), &out_a);
    first.extend(["--checkpoint", &ck]);
    assert_eq!(marginal(&first, &dir).status.code(), Some(0));
    let out_b = s("b.json");
    let mut second = tune(suite.to_str().unwrap(), &out_b);
    second[9] = "2";
    second.extend(["--checkpoint", &ck]);
    refused(&second, &dir, "(--iterations 1 then, 2 now)");
    // B059: options left out of the plan at their defaults are named too (the solver as it
    // runs: without --solver the suite objective races).
    let mut third = tune(suite.to_str().unwrap(), &out_b);
    third.truncate(6);
    third.extend(["--design", "4", "--race-pairs", "0", "--out", &out_b]);
    third.extend(["--checkpoint", &ck]);
    refused(
        &third,
        &dir,
        "--solver spsa then, race now; --design default then, 4 now; --race-pairs default then, [0] now)",
    );
    // --pgn naming a file that is not a PGN: said so, with no talk of games or --resume.
    first_lines("data/openings/noob_3moves_1k.epd", 4, &dir.join("book.epd"));
    let (book, tuned) = (s("book.epd"), s("a.json"));
    refused(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--games",
            "2",
            "--nodes",
            "300",
            "-q",
            "--openings",
            &book,
            "--pgn",
            &tuned,
        ],
        &dir,
        "exists and is not a PGN",
    );
}

#[test]
fn edited_tuned_files_and_misplaced_outputs_of_the_seventh_campaign_are_refused() {
    let dir = scratch("edges", "seventh");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/spsa-suite.json"),
    )
    .unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    // A tuned file without its "margins": damaged, not a margin set named 'tuned'.
    let mut no_margins = file.clone();
    no_margins.as_object_mut().unwrap().remove("margins");
    std::fs::write(dir.join("nomargins.json"), no_margins.to_string()).unwrap();
    let suite = small_suite(&dir, 5);
    refused(
        &[
            "suite",
            suite.to_str().unwrap(),
            "--nodes",
            "300",
            "--margins",
            dir.join("nomargins.json").to_str().unwrap(),
        ],
        &dir,
        "a tuned file without its \"margins\" object",
    );
    // A recorded limit no run can have used.
    let mut limit0 = file.clone();
    limit0["provenance"]["limit"] = serde_json::json!({"nodes": 0});
    std::fs::write(dir.join("limit0.json"), limit0.to_string()).unwrap();
    refused(
        &["check", dir.join("limit0.json").to_str().unwrap()],
        &dir,
        "searches nothing, so no run measured this file",
    );
    // A record emptied or replaced (campaign 22, H028): named by its key, on one line or
    // pretty-printed, not by the Rust type that reads it.
    let mut emptied = file.clone();
    emptied["provenance"]["suites"] = serde_json::json!([]);
    let pretty = serde_json::to_string_pretty(&emptied).unwrap();
    let suites_line = pretty
        .lines()
        .position(|l| l.contains("\"suites\""))
        .unwrap()
        + 1;
    for (name, text, line) in [
        ("emptied.json", emptied.to_string(), 1),
        ("emptied-pretty.json", pretty, suites_line),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        refused(
            &["check", dir.join(name).to_str().unwrap()],
            &dir,
            &format!(
                "{name}:{line}: not a marginal-tuned/1 file: \"suites\" is an empty list, where the file has an object of named fields: it was edited or damaged; restore it"
            ),
        );
    }
    // An engine command with its arguments in it.
    std::fs::write(
        dir.join("spaced.toml"),
        "command = \"./fake.py ok\"\nparams = [\"futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 1500\"]\n",
    )
    .unwrap();
    refused(
        &[
            "suite",
            suite.to_str().unwrap(),
            "--depth",
            "1",
            "--engine",
            dir.join("spaced.toml").to_str().unwrap(),
        ],
        &dir,
        "the arguments in args = [...]",
    );
    // work --out onto a file that is not a unit's result.
    std::fs::write(dir.join("unit.json"), "{}").unwrap();
    let kept = suite.to_str().unwrap();
    refused(
        &[
            "work",
            dir.join("unit.json").to_str().unwrap(),
            "--out",
            kept,
        ],
        &dir,
        "exists and is not a unit's result",
    );
    assert!(std::fs::read_to_string(&suite).unwrap().contains(" bm "));
    // A standard error on a full device costs no result.
    let out = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" suite \"$1\" --nodes 300 2>/dev/full")
        .arg(env!("CARGO_BIN_EXE_marginal"))
        .arg(&suite)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("objective "), "{}", said(&out));
}

#[test]
fn outputs_that_meet_each_other_or_the_checkpoint_are_refused_and_idle_rows_said() {
    let dir = scratch("edges", "meet");
    let s = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let suite = small_suite(&dir, 30);
    let suite_arg = suite.to_str().unwrap();
    // A plot path that links to the tuned file not written yet.
    std::os::unix::fs::symlink(dir.join("t.json"), dir.join("t.svg")).unwrap();
    let t = s("t.json");
    refused(&tune(suite_arg, &t), &dir, "would be the tuned file itself");
    assert!(!dir.join("t.json").exists());
    // --out inside, or equal to, the checkpoint directory.
    let (inside, ck) = (s("ck/args.json"), s("ck"));
    let mut args = tune(suite_arg, &inside);
    args.extend(["--checkpoint", &ck]);
    refused(&args, &dir, "is inside (or is) the checkpoint directory");
    let ck2 = s("ck2");
    let mut args = tune(suite_arg, &ck2);
    args.extend(["--checkpoint", &ck2]);
    refused(&args, &dir, "is inside (or is) the checkpoint directory");
    // A match's --json that links to its --pgn (not made yet).
    first_lines("data/openings/noob_3moves_1k.epd", 4, &dir.join("book.epd"));
    std::os::unix::fs::symlink(dir.join("m.pgn"), dir.join("m.json")).unwrap();
    let (book, pgn, json) = (s("book.epd"), s("m.pgn"), s("m.json"));
    refused(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "off",
            "--games",
            "2",
            "--nodes",
            "300",
            "-q",
            "--openings",
            &book,
            "--pgn",
            &pgn,
            "--json",
            &json,
        ],
        &dir,
        "--json",
    );
    // A tuned file whose margin does nothing under its switch: said by export and suite.
    let mut file: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed1.json"),
        )
        .unwrap(),
    )
    .unwrap();
    file["margins"]["futility"] = false.into();
    let off = s("off.json");
    std::fs::write(&off, file.to_string()).unwrap();
    for args in [
        vec!["export", off.as_str(), "--format", "uci"],
        vec![
            "suite",
            suite_arg,
            "--nodes",
            "300",
            "-q",
            "--margins",
            off.as_str(),
        ],
    ] {
        let out = marginal(&args, &dir);
        assert_eq!(out.status.code(), Some(0), "{}", said(&out));
        assert!(
            said(&out).contains("futility_margin is 2 but does nothing while futility is off"),
            "{args:?}: {}",
            said(&out)
        );
    }
    // `marginal help help` lists every command.
    let out = marginal(&["help", "help"], &dir);
    assert!(
        said(&out).contains("calibrate, check, work"),
        "{}",
        said(&out)
    );
}

/// The eighth campaign's classes: a split that leaves no validation position prints no table
/// for it; a suite edited after a tune is refused with the way forward; a node-limited
/// external engine is not said to ignore its options (every search spends the budget).
#[test]
fn empty_sides_edited_suites_and_node_budgets_are_said_as_they_are() {
    let dir = scratch("edges", "eighth");
    let suite = small_suite(&dir, 3);
    let suite_arg = suite.to_str().unwrap();
    let t = dir.join("t.json");
    let out = marginal(&tune(suite_arg, t.to_str().unwrap()), &dir);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("validation: no positions (the split left none)")
            && !text.contains("validation (0 positions)"),
        "{text}"
    );
    // The suite edited after the tune: check names the way forward.
    let mut lines = std::fs::read_to_string(&suite).unwrap();
    lines.push_str("# an added comment\n");
    std::fs::write(&suite, lines).unwrap();
    refused(
        &["check", t.to_str().unwrap()],
        &dir,
        "restore that file (`git checkout -- ",
    );
    // marginal's own engine over UCI at a node budget: equal node counts say nothing.
    let cmd = format!("{} uci", env!("CARGO_BIN_EXE_marginal"));
    let args = [
        "suite",
        suite_arg,
        "--engine-cmd",
        &cmd,
        "--engine-options",
        "FutilityMargin,DeltaMargin=0",
        "--nodes",
        "500",
        "-q",
    ];
    let out = marginal(&args, &dir);
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        !said(&out).contains("ignores the options"),
        "{}",
        said(&out)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A resumed tune says a log line cut by a kill was dropped, and --resume of a directory that
/// is no checkpoint says so instead of naming a missing file.
#[test]
fn a_resume_says_what_it_dropped_and_what_is_no_checkpoint() {
    let dir = scratch("edges", "resume-cut");
    let suite = small_suite(&dir, 12);
    let (t, ck) = (dir.join("t.json"), dir.join("ck"));
    let mut args = tune(suite.to_str().unwrap(), t.to_str().unwrap());
    args.extend(["--checkpoint", ck.to_str().unwrap()]);
    assert!(marginal(&args, &dir).status.success());
    let log = ck.join("evaluations.jsonl");
    let text = std::fs::read(&log).unwrap();
    std::fs::write(&log, &text[..text.len() - 10]).unwrap();
    std::fs::remove_file(&t).unwrap();
    let out = marginal(&["tune", "--resume", ck.to_str().unwrap(), "-q"], &dir);
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        said(&out).contains("evaluations.jsonl: its last line was cut short"),
        "{}",
        said(&out)
    );
    refused(
        &["tune", "--resume", dir.to_str().unwrap()],
        &dir,
        "not a tune checkpoint (no plan.json in it)",
    );
    // A mistyped directory is said to be missing, a file to be a file.
    let typo = dir.join("ck-typo");
    refused(
        &["tune", "--resume", typo.to_str().unwrap()],
        &dir,
        &format!("--resume {}: no such directory", typo.display()),
    );
    refused(
        &["tune", "--resume", suite.to_str().unwrap()],
        &dir,
        "a file, not a tune checkpoint directory",
    );
    // A file named as the checkpoint directory, and a bad --reference, name their option.
    let mut args = tune(suite.to_str().unwrap(), t.to_str().unwrap());
    args.extend(["--checkpoint", suite.to_str().unwrap(), "--force"]);
    refused(
        &args,
        &dir,
        &format!(
            "--checkpoint {}: it is a file, not a directory",
            suite.display()
        ),
    );
    refused(
        &["suite", suite.to_str().unwrap(), "--reference", "bogus"],
        &dir,
        "--reference: margin set 'bogus'",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// `/dev/stdout` named as an output while the shell sends standard output to a file: the
/// file holds the report, games or tuned file alone (what the command says for people goes to
/// standard error; never written over from the start, never refused as "exists", nothing
/// written beside it in /dev); a report to /dev/null draws no plot beside it.
#[test]
fn the_commands_own_output_named_as_a_file_follows_what_it_printed() {
    let dir = scratch("edges", "stdout");
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
    assert!(err.contains("games 2: A "), "{err}");
    let (text, err) = to_file(
        &format!(
            "tune --suites '{s}' --solver spsa --iterations 1 --nodes 300 -q --out /dev/stdout"
        ),
        "t.txt",
    );
    let tuned: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(tuned["format"], "marginal-tuned/1");
    assert!(
        err.contains("no plot: --out /dev/stdout is not a file"),
        "{err}"
    );
    let (text, _) = to_file(
        &format!(
            "calibrate --sets 4 --games 2 --nodes 300 --objectives suite --suite '{s}' -q --out /dev/null --state '{}'",
            dir.join("st").display()
        ),
        "c.txt",
    );
    assert!(
        text.contains("no plots: --out /dev/null is not a file"),
        "{text}"
    );
    for beside in [
        "/dev/stdout.match.json",
        "/dev/stdout.svg",
        "/dev/null-suite.svg",
    ] {
        assert!(!Path::new(beside).exists(), "{beside} was written");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A calibration's report that cannot be written is refused before any work: the report named
/// as the --state directory, and an existing report of another calibration (before the
/// objectives' reference searches, which take a while; nothing is written to the cache).
#[test]
fn a_calibration_report_is_checked_before_any_work() {
    let dir = scratch("edges", "calibrate-out");
    let state = dir.join("state");
    let state = state.to_str().unwrap();
    let base = ["calibrate", "--sets", "4", "--games", "4", "--nodes", "300"];
    refused(
        &[&base[..], &["--out", state, "--state", state]].concat(),
        &dir,
        "is the --state directory",
    );
    let report = dir.join("other.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json"),
        &report,
    )
    .unwrap();
    let out = marginal(
        &[&base[..], &["--out", report.to_str().unwrap()]].concat(),
        &dir,
    );
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("exists: marginal does not replace it"),
        "{text}"
    );
    assert!(!text.contains("preparing"), "{text}");
    assert!(!dir.join("cache").exists(), "the reference searches ran");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A report sent to standard output holds the report alone: `--json /dev/stdout | jq` and
/// `--json r.json > r.json` parse, and what the command says for people goes to standard error.
#[test]
fn a_report_on_standard_output_is_the_report_alone() {
    let dir = scratch("edges", "stdout-report");
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

/// A tune that ends where it started says so, with the way out: a short games tune, whose
/// SPSA steps are far below a whole unit at the default final learning rate; its --confirm
/// plays no match of the defaults against themselves.
#[test]
fn a_tune_that_moved_nothing_says_so() {
    let dir = scratch("edges", "unmoved");
    let suite = small_suite(&dir, 6);
    let extra = [
        "--objective",
        "games",
        "--iterations",
        "1",
        "--pairs",
        "1",
        "--confirm",
        "4",
    ];
    let run = common::tune(&dir, &suite, 300, "g.json", &extra);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert!(
        said(&run).contains(
            "note: the tuned set is the one the tune started from: SPSA's steps were too small"
        ) && said(&run).contains("raise --r-end"),
        "{}",
        said(&run)
    );
    // No confirmation of the defaults against themselves (campaign 23, E040).
    assert!(
        said(&run).contains(
            "note: --confirm: the tuned set is the defaults, so no confirmation match is played"
        ),
        "{}",
        said(&run)
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("g.json")).unwrap()).unwrap();
    assert!(file.get("confirm").is_none(), "{file}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A match rerun without --resume over both its PGN and its report is told of --resume first
/// (campaign 22, D002: it was told of --force for the report, and of --resume only after).
#[test]
fn a_rerun_match_is_told_of_resume_first() {
    let dir = scratch("edges", "rerun-match");
    let (pgn, json) = (dir.join("g.pgn"), dir.join("g.json"));
    let args = [
        "match",
        "--a",
        "default",
        "--b",
        "off",
        "--games",
        "2",
        "--nodes",
        "300",
        "-q",
        "--pgn",
        pgn.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    let out = marginal(&args, &dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    refused(&args, &dir, "Continue that match with --resume");
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--json --force` (and a tune's `--out --force`) replaces a JSON file, never a file of another
/// kind (campaign 22, A038: an engine file replaced by a check's report); a JSON file it does
/// replace.
#[test]
fn a_forced_report_goes_only_over_a_json_file() {
    let dir = scratch("edges", "forced-json");
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
    let out = forced(&engine);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let refusal = |option: &str| {
        format!(
            "{option} {} exists and is no JSON file (it begins '# an engine file'): even with --force",
            engine.display()
        )
    };
    assert!(said(&out).contains(&refusal("--json")), "{}", said(&out));
    // A tune's --out too (campaign 23, A030: an engine file replaced by a tuned file).
    let engine_path = engine.to_str().unwrap();
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
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains(&refusal("--out")), "{}", said(&out));
    assert_eq!(
        std::fs::read_to_string(&engine).unwrap(),
        "# an engine file\ncommand = \"x\"\n"
    );
    // Nor over the result of a run (campaign 23, A006: a tuned file replaced by a report).
    let tuned = dir.join("tuned.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed1.json"),
        &tuned,
    )
    .unwrap();
    let out = forced(&tuned);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("is a marginal-tuned/* file, the result of a run: even with --force"),
        "{}",
        said(&out)
    );
    let out = forced(&report);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        std::fs::read_to_string(&report)
            .unwrap()
            .contains("\"objective\"")
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A suite tune that moved the margins by a unit or so, too little to change any search, says
/// it found no gain; and when `off` scored above what it wrote (60 WAC positions at 500 nodes
/// reward no pruning), it says that too.
#[test]
fn a_tune_that_measures_as_the_defaults_says_it_gained_nothing() {
    let dir = scratch("edges", "no-gain");
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
    assert!(
        text.contains("note: the tuned set measures the same as the defaults on the training and the validation positions")
            && text.contains("no gain was found"),
        "{text}"
    );
    assert!(
        text.contains(
            "note: `off` (no margin test) scores above the tuned set on the training positions ("
        ),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A calibration's prediction for a tuned set counts the calibration sets' scatter about the
/// line (the interval recorded before counted the slope's alone), and a set outside the region
/// the calibration drew its sets from is called an extrapolation: race-seed2 lies below it.
#[test]
fn a_prediction_counts_the_scatter_and_names_an_extrapolation() {
    let dir = scratch("edges", "prediction");
    let out = marginal(
        &["export", "tuned/race-seed2.json", "--format", "uci"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let note = said(&out);
    assert!(
        note.contains("no prediction for this set: it lies outside the region the calibration's sets were drawn from (futility_margin 16 < 31"),
        "{note}"
    );
    // No Elo figure is given for it in the note (the extrapolation is no estimate).
    assert!(!note.contains("predicted "), "{note}");
    let file: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let recorded = &file["calibration"]["predicted_elo"];
    let (lower, upper) = (
        recorded["lower"].as_f64().unwrap(),
        recorded["upper"].as_f64().unwrap(),
    );
    // The prediction made again from the report (what `export` and `check` start from)
    // counts the scatter: wider than the one recorded.
    let tuned = marginal::tune::file::TunedFile::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/race-seed2.json"),
    )
    .unwrap();
    let value_of = |name: &str| {
        tuned
            .margins
            .0
            .get(name)
            .and_then(serde_json::Value::as_i64)
    };
    let now = marginal::calibrate::trust::refreshed(tuned.calibration.as_ref().unwrap(), &value_of);
    let shown = now.predicted_elo.unwrap();
    assert!(
        shown.lower < lower && shown.upper > upper,
        "{shown:?} within [{lower}, {upper}]"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A suite edited after a tune: the same command says the earlier run's checkpoint is not used
/// because a file it reads changed, and `--resume` of it names that cause (its options are the
/// same), not "rerun with its options".
#[test]
fn a_tune_whose_suite_changed_says_why_it_starts_afresh() {
    let dir = scratch("edges", "suite-changed");
    let suite = small_suite(&dir, 12);
    let (s, out) = (suite.to_str().unwrap(), dir.join("t.json"));
    let out = out.to_str().unwrap();
    let first = marginal(&tune(s, out), &dir);
    assert_eq!(first.status.code(), Some(0), "{}", said(&first));
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let again = marginal(&[&tune(s, out)[..], &["--force"]].concat(), &dir);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    assert!(
        said(&again).contains("holds a run of this same command")
            && said(&again).contains("a file it reads changed since"),
        "{}",
        said(&again)
    );
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
    refused(
        &["tune", "--resume", first_dir.to_str().unwrap()],
        &dir,
        "its options are these, so a file it reads changed since it started",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A race decided in a handful of games gives its interval and says the games are too few to
/// show the winner stronger than the base set.
#[test]
fn a_race_won_in_few_games_says_they_are_too_few() {
    let dir = scratch("edges", "race-few");
    let suite = small_suite(&dir, 12);
    // A seed whose finalist wins its 2 games.
    let extra = [
        "--design",
        "2",
        "--race-pairs",
        "1",
        "--finalists",
        "2",
        "--seed",
        "4",
    ];
    let run = common::tune(&dir, &suite, 300, "r.json", &extra);
    let text = said(&run);
    assert_eq!(run.status.code(), Some(0), "{text}");
    let verdict = (text.lines())
        .find(|l| l.starts_with("race: won") || l.starts_with("race: no finalist"))
        .expect(&text);
    assert!(
        verdict.contains("won the race: ")
            && verdict.contains("games (95% [")
            && verdict.contains("too few games to show it is stronger"),
        "{verdict}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A one-iteration SPSA tune of 12 positions into the checkpoint `DIR/ckpt`, finished: its
/// scratch directory, the checkpoint and the tune's arguments (owned, to run again).
fn tuned_into_checkpoint(name: &str) -> (PathBuf, PathBuf, Vec<String>) {
    let dir = scratch("edges", name);
    let suite = small_suite(&dir, 12);
    let ckpt = dir.join("ckpt");
    let out = dir.join("t.json");
    let mut args = tune(suite.to_str().unwrap(), out.to_str().unwrap());
    args.extend(["--checkpoint", ckpt.to_str().unwrap()]);
    let first = marginal(&args, &dir);
    assert!(first.status.success(), "{}", said(&first));
    let args = args.iter().map(|a| a.to_string()).collect();
    (dir, ckpt, args)
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
        refused(
            &args,
            &dir,
            &format!(
                "run: damaged: it holds {:?}, not a run identity",
                String::from_utf8_lossy(damage).trim()
            ),
        );
        let text = said(&marginal(&args, &dir));
        assert!(
            text.contains(&format!("remove {c} to start afresh")),
            "{text}"
        );
        assert!(!text.contains("a file it reads changed"), "{text}");
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
    let out = marginal(&["tune", "--resume", c], &dir);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let text = said(&out);
    for must in [
        format!("{c}/plan.json:1"),
        "damaged".to_string(),
        "rerun the tune's own command".to_string(),
        format!("evaluations logged in {c}"),
    ] {
        assert!(text.contains(&must), "{must:?} not in {text}");
    }
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
    let out = marginal(&["tune", "--resume", c], &dir);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let text = said(&out);
    for must in [c, "earlier version", "args.json", "without --resume"] {
        assert!(text.contains(must), "{must:?} not in {text}");
    }
    assert_eq!(std::fs::read(ckpt.join("evaluations.jsonl")).unwrap(), log);
    std::fs::remove_dir_all(dir).unwrap();
}

/// G023: outside a terminal a match's progress lines come at most every few seconds, so its
/// last line is printed at the end: the same games and score as the summary after it.
#[test]
fn a_matchs_last_progress_line_agrees_with_its_summary() {
    let dir = scratch("edges", "last-line");
    let args = ["match", "--a", "futility_margin=50", "--b", "default"];
    let out = marginal(
        &[&args[..], &["--games", "20", "--nodes", "300"]].concat(),
        &dir,
    );
    assert!(out.status.success(), "{}", said(&out));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let score = stdout
        .lines()
        .find_map(|l| l.strip_prefix("games 20: "))
        .and_then(|l| l.split("(score ").nth(1))
        .map(|s| s.trim_end_matches(')'))
        .expect("summary score");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("20/20 games score ") && last.contains(&format!("score {score} ")),
        "last line '{last}', summary score {score}: {stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// G034: rerunning a finished tune replays its checkpoint and finds the same set: the tuned
/// file is left byte for byte as the run that found it wrote it (its cost record kept), and
/// said so; --force writes it afresh.
#[test]
fn a_rerun_of_a_finished_tune_leaves_its_file_as_it_is() {
    let dir = scratch("edges", "rerun-finished");
    let suite = small_suite(&dir, 30);
    let out = dir.join("t.json");
    let args = tune(suite.to_str().unwrap(), out.to_str().unwrap());
    let first = marginal(&args, &dir);
    assert!(first.status.success(), "{}", said(&first));
    let written = std::fs::read(&out).unwrap();
    let again = marginal(&args, &dir);
    assert!(again.status.success(), "{}", said(&again));
    assert!(
        said(&again).contains(
            "already holds this run's result (the same set and figures; the run that found it took "
        ),
        "{}",
        said(&again)
    );
    assert_eq!(std::fs::read(&out).unwrap(), written);
    let forced = marginal(&[&args[..], &["--force"]].concat(), &dir);
    assert!(
        said(&forced).contains("tuned set written to"),
        "{}",
        said(&forced)
    );
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
    for (text, needle) in [
        (
            r#"{"name": "marginal", "signature": "0000000000000000"}"#,
            "the run was made with the engine marginal (signature 0000000000000000), and this is marginal (signature ",
        ),
        ("{}", "engine.json: damaged: it is not an engine record"),
    ] {
        std::fs::write(&record, text).unwrap();
        refused(&["tune", "--resume", c], &dir, needle);
        refused(
            &["tune", "--resume", c],
            &dir,
            &format!("remove {c} to start afresh"),
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A035: a PGN that cannot be written (a full disk) is named in the error, with how to go on.
#[test]
fn a_pgn_that_cannot_be_written_is_named() {
    let dir = scratch("edges", "pgn-full");
    let args = ["match", "--a", "default", "--b", "off", "--games", "2"];
    refused(
        &[&args[..], &["--nodes", "300", "--pgn", "/dev/full"]].concat(),
        &dir,
        "cannot write the PGN file /dev/full (--pgn): the whole pairs written before it failed are kept there",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// G005: `check` shows its progress (outside a terminal, a plain line at most every few
/// seconds and the last one at the end): the side, the positions done and in all; none with -q.
#[test]
fn a_check_shows_its_progress() {
    let dir = scratch("edges", "check-progress");
    let suite = small_suite(&dir, 30);
    let out = dir.join("t.json");
    let made = marginal(&tune(suite.to_str().unwrap(), out.to_str().unwrap()), &dir);
    assert!(made.status.success(), "{}", said(&made));
    let t = out.to_str().unwrap();
    let check = marginal(&["check", t], &dir);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{}", said(&check));
    let last = stderr.lines().last().unwrap_or_default();
    let (done, rest) = last.split_once('/').unwrap_or_default();
    assert!(
        rest.ends_with(" validation: positions of the sets")
            && rest.starts_with(&format!("{done} ")),
        "{stderr}"
    );
    let quiet = marginal(&["check", t, "-q"], &dir);
    assert!(
        !said(&quiet).contains("positions of the sets"),
        "{}",
        said(&quiet)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// D004/D006: a match killed before its end leaves the --json file that was there whole (the
/// report is written in one step at the end, never emptied at the start).
#[test]
fn a_killed_match_leaves_the_earlier_json_report_whole() {
    let dir = scratch("edges", "killed-json");
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
