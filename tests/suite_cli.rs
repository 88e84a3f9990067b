//! `marginal suite` as a user runs it: the table, the JSON report, the reference cache,
//! thread-count independence, and exit codes for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use marginal::params::Margins;
use marginal::scoring::exec::local;
use marginal::scoring::suite::{ObjectiveParams, Repeats, ScorerOptions, SuiteScorer, load_suites};
use marginal::scoring::suite::{RunConfig, SuiteLimit, run as suite};
use serde_json::Value;

mod common;
use common::{assert_names, assert_omits};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("marginal-suite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn wac() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/wac.epd")
}

/// The first `n` WAC lines plus the given extra lines, as a new suite file.
fn small_suite(dir: &Path, n: usize, extra: &[&str]) -> PathBuf {
    let text = std::fs::read_to_string(wac()).unwrap();
    let mut lines: Vec<&str> = text.lines().take(n).collect();
    lines.extend_from_slice(extra);
    let path = dir.join("small.epd");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn marginal(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", cache)
        .output()
        .expect("run marginal")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_run_prints_the_table_writes_the_json_and_reuses_a_cached_reference() {
    let dir = scratch("ok");
    let suite = small_suite(&dir, 12, &[]);
    let json = dir.join("report.json");
    let args = [
        "suite",
        suite.to_str().unwrap(),
        "--depth",
        "5",
        "--threads",
        "2",
        "--json",
        json.to_str().unwrap(),
    ];
    let first = marginal(&args, &dir.join("cache"));
    let (stdout, stderr) = text(&first);
    assert!(first.status.success(), "{stdout}\n{stderr}");
    assert_names(
        &stdout,
        &[
            "12 positions",
            "1 file",
            "depth 5",
            "objective",
            "positions/s",
        ],
    );
    assert_omits(&stdout, &["(cached)"]);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let positions = report["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 12);
    for p in positions {
        assert!(p["nodes"].as_u64().unwrap() > 0);
        assert!(p["reference_nodes"].as_u64().unwrap() > 0);
        assert!(p["best_move"].is_string() && p["prunes"].is_object());
    }
    let solved = positions.iter().filter(|p| p["solved"] == true).count();
    assert_eq!(
        report["objective"]["solved"].as_u64().unwrap() as usize,
        solved
    );
    // No mate records: no mate line, no mates field.
    assert_omits(&stdout, &["mates:"]);
    assert!(report.get("mates").is_none());
    // The same run again does not write over the report without --force, and leaves it alone.
    let refused = marginal(&args, &dir.join("cache"));
    let (_, refusal) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{refusal}");
    assert_names(&refusal, &[json.to_str().unwrap(), "--force"]);
    // With it, the second run reads the reference from the cache and reports identical results.
    let mut args = args.to_vec();
    args.push("--force");
    let second = marginal(&args, &dir.join("cache"));
    let (stdout2, _) = text(&second);
    assert!(second.status.success());
    assert_names(&stdout2, &["(cached)"]);
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(again["positions"], report["positions"]);
    assert_eq!(again["objective"], report["objective"]);
    // A damaged cached reference (cut, or edited) is said to be damaged, searched afresh and
    // replaced, and changes no result.
    let cached: Vec<_> = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("reference-")
        })
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    // The edit by hand still parses: its node counts set to 1 (campaign 18 A041).
    let mut edited: Value =
        serde_json::from_str(&std::fs::read_to_string(&cached[0]).unwrap()).unwrap();
    for p in edited["value"].as_array_mut().unwrap() {
        p["nodes"] = Value::from(1);
    }
    let damages = [
        (b"{\"broken\":".to_vec(), "was damaged"),
        (
            serde_json::to_vec(&edited).unwrap(),
            "edited after it was written",
        ),
    ];
    for (damage, why) in damages {
        std::fs::write(&cached[0], damage).unwrap();
        let out = marginal(&args, &dir.join("cache"));
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{stderr}");
        // It names the cached file, what is wrong with it, and that it is replaced.
        assert_names(&stderr, &[cached[0].to_str().unwrap(), why, "replaced"]);
        assert_names(&stdout, &["computed and cached"]);
        let again: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(again["positions"], report["positions"]);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let suites = load_suites(&[wac()], true, Repeats::Once).unwrap();
    let positions = &suites.positions[..40];
    let config = RunConfig {
        limit: SuiteLimit::Nodes(20_000),
        hash_mb: 2,
    };
    let run = |threads: usize, hint: Option<&[u64]>| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| local::run(positions, &Margins::default().into(), &config, hint, &|| {}))
    };
    let one = run(1, None);
    let costs = suite::costs(&one);
    assert_eq!(one, run(2, None));
    assert_eq!(one, run(3, Some(&costs)));
    assert!(one.iter().all(|r| r.nodes == 20_000 || r.depth > 0));
}

#[test]
fn bad_lines_are_skipped_naming_file_and_line_and_strict_makes_them_fatal() {
    let dir = scratch("bad");
    let cache = dir.join("cache");
    let suite = small_suite(
        &dir,
        3,
        &[
            "8/8/8/8/8/8/8/8 w - - bm e4; id \"no kings\";",
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qh9; id \"bad move\";",
        ],
    );
    let path = suite.to_str().unwrap();
    // Bad lines are reported as file:line: reason and skipped; the run succeeds.
    let out = marginal(&["suite", path, "--depth", "3"], &cache);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    // Each names its file and line, and the value at fault.
    assert_names(
        &stderr,
        &[&format!("{path}:4:"), "FEN", &format!("{path}:5:"), "Qh9"],
    );
    assert_names(&stdout, &["2 bad line(s)", "3 positions"]);
    // --strict makes them fatal: exit 2, naming the bad lines.
    let out = marginal(&["suite", path, "--depth", "3", "--strict"], &cache);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&text(&out).1, &[&format!("{path}:4:"), "--strict"]);
    // Empty and unreadable files are errors (exit 2), naming the file.
    let empty = dir.join("empty.epd");
    std::fs::write(&empty, "\n# nothing\n").unwrap();
    let out = marginal(&["suite", empty.to_str().unwrap()], &cache);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&text(&out).1, &[empty.to_str().unwrap(), "no positions"]);
    let out = marginal(&["suite", "no/such/file.epd"], &cache);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&text(&out).1, &["no/such/file.epd"]);
    // Bad margins: unknown parameter, out of range, bad tuned file naming file and line.
    let out = marginal(&["suite", path, "--set", "frontier=99999"], &cache);
    assert_eq!(out.status.code(), Some(2));
    assert_names(&text(&out).1, &["frontier", "99999"]);
    let tuned = dir.join("t.json");
    std::fs::write(
        &tuned,
        "{\n  \"margins\": {\n    \"razor\": \"big\"\n  }\n}\n",
    )
    .unwrap();
    let out = marginal(
        &["suite", path, "--margins", tuned.to_str().unwrap()],
        &cache,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_names(
        &text(&out).1,
        &[&format!("{}:3:", tuned.display()), "\"big\""],
    );
    // Usage errors (clap) also exit 2.
    let out = marginal(&["suite", path, "--depth", "3", "--nodes", "5"], &cache);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_json_report_is_what_the_library_returns() {
    let dir = scratch("same");
    let suite_path = small_suite(&dir, 10, &[]);
    let json = dir.join("report.json");
    let cache = dir.join("cache");
    let out = marginal(
        &[
            "suite",
            suite_path.to_str().unwrap(),
            "--depth",
            "5",
            "--set",
            "frontier=200",
            "--weight",
            "3",
            "--json",
            json.to_str().unwrap(),
        ],
        &cache,
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // The run section (labels, threads, timing, cache use) is the command's own.
    let run = report.as_object_mut().unwrap().remove("run").unwrap();
    assert_eq!(run["margins_label"], "default");

    // The same arguments through the library.
    let scorer = SuiteScorer::new(
        load_suites(&[suite_path], false, Repeats::Once).unwrap(),
        ScorerOptions {
            config: RunConfig {
                limit: SuiteLimit::Depth(5),
                ..RunConfig::default()
            },
            objective: ObjectiveParams {
                weight: 3.0,
                ..ObjectiveParams::default()
            },
            reference: Margins::off().into(),
            cache_dir: Some(cache),
            ..ScorerOptions::default()
        },
        None,
    )
    .unwrap();
    let score = scorer
        .score(&Margins::default().with("futility_margin", 200).into())
        .unwrap();
    assert_eq!(score.positions.len(), 10);
    assert_eq!(report, serde_json::to_value(&score).unwrap());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mate_records_get_a_tally_line_and_json_field() {
    let dir = scratch("mates");
    let matetrack = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/matetrack_500.epd"),
    )
    .unwrap();
    // 19 mates for the side to move (from #1 up), one where it is mated, and a WAC line.
    let mut lines: Vec<&str> = matetrack.lines().take(19).collect();
    lines.extend(matetrack.lines().filter(|l| l.contains("bm #-")).take(1));
    let wac_text = std::fs::read_to_string(wac()).unwrap();
    lines.extend(wac_text.lines().take(1));
    let suite = dir.join("mates.epd");
    std::fs::write(&suite, lines.join("\n") + "\n").unwrap();
    let json = dir.join("report.json");
    let out = marginal(
        &[
            "suite",
            suite.to_str().unwrap(),
            "--nodes",
            "2000",
            "--json",
            json.to_str().unwrap(),
        ],
        &dir.join("cache"),
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_names(&stdout, &["21 positions", "1 file"]);
    assert_omits(&stdout, &["bad line"]);

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mates = &report["mates"];
    let count = |field: &str| mates[field].as_u64().unwrap();
    assert_eq!(count("positions"), 20, "{mates}");
    assert_eq!(
        count("found") + count("wrong") + count("missed"),
        count("positions"),
        "{mates}"
    );
    // The mate in one is found within a few nodes, and exactly.
    assert!(
        count("exact") >= 1 && count("exact") <= count("found"),
        "{mates}"
    );
    assert_eq!(report["positions"][0]["solved"], true);
    let line = format!(
        "mates: 20 positions, found {} (exact {}), wrong {}, missed {}, mate score ",
        count("found"),
        count("exact"),
        count("wrong"),
        count("missed")
    );
    assert_names(&stdout, &[&line]);
    // Solved mate records are exact mates, or found ones where the side to move is mated.
    let solved = report["positions"].as_array().unwrap()[..20]
        .iter()
        .filter(|p| p["solved"] == true)
        .count() as u64;
    assert!(
        count("exact") <= solved && solved <= count("found"),
        "{report}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn odd_suites_are_said_repeats_named_and_strict_holds_to_the_standard() {
    let dir = scratch("odd");
    let cache = dir.join("cache");
    // A move both asked for and forbidden is a bad line, with its reason.
    let suite = small_suite(
        &dir,
        4,
        &[
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; am Bb5; id \"both\";",
        ],
    );
    let s = suite.to_str().unwrap();
    let out = marginal(&["suite", s, "--depth", "1"], &cache);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert_names(&stderr, &[&format!("{s}:5:"), "f1b5", "bm", "am"]);
    assert_names(&stdout, &["4 positions", "1 file"]);
    let strict = marginal(&["suite", s, "--depth", "1", "--strict"], &cache);
    assert_eq!(strict.status.code(), Some(2));
    assert_names(&text(&strict).1, &[&format!("{s}:5:"), "f1b5"]);
    // The same file twice is read once; a position given twice is named and scored once
    // (twice with --count-repeats).
    let dotted = format!("{}/./small.epd", dir.display());
    let twice = marginal(&["suite", s, &dotted, "--depth", "1"], &cache);
    let (stdout, stderr) = text(&twice);
    assert!(twice.status.success(), "{stderr}");
    assert_names(&stderr, &[&dotted, s, "twice", "read once"]);
    assert_names(&stdout, &["4 positions", "1 file"]);
    let copy = dir.join("copy.epd");
    std::fs::copy(&suite, &copy).unwrap();
    let repeated = marginal(
        &["suite", s, copy.to_str().unwrap(), "--depth", "1"],
        &cache,
    );
    let (stdout, stderr) = text(&repeated);
    assert!(repeated.status.success(), "{stderr}");
    // How many repeat, the first repeat and the line it repeats, what is done and the fix.
    let first = format!("{}:1", copy.display());
    assert_names(
        &stderr,
        &[
            "4 position(s)",
            &first,
            &format!("{s}:1"),
            "--count-repeats",
        ],
    );
    assert_names(&stdout, &["4 positions", "2 file", "all 4"]);
    let counted = marginal(
        &[
            "suite",
            s,
            copy.to_str().unwrap(),
            "--depth",
            "1",
            "--count-repeats",
        ],
        &cache,
    );
    let (stdout, stderr) = text(&counted);
    assert!(counted.status.success(), "{stderr}");
    assert_names(&stderr, &["4 position(s)", &first, "--count-repeats"]);
    assert_names(&stdout, &["8 positions", "2 file"]);
    // --strict refuses text that is not UTF-8, naming the line; without it the bytes are
    // replaced and the line read.
    let latin1 = dir.join("latin1.epd");
    let mut bytes = std::fs::read(&suite).unwrap();
    bytes.truncate(bytes.iter().position(|&b| b == b'\n').unwrap() + 1);
    bytes.extend_from_slice(b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"caf\xe9\";\n");
    std::fs::write(&latin1, &bytes).unwrap();
    let l = latin1.to_str().unwrap();
    let strict = marginal(&["suite", l, "--depth", "1", "--strict"], &cache);
    let (_, stderr) = text(&strict);
    assert_eq!(strict.status.code(), Some(2), "{stderr}");
    assert_names(&stderr, &[&format!("{l}:2:"), "UTF-8"]);
    let lenient = marginal(&["suite", l, "--depth", "1"], &cache);
    let (stdout, stderr) = text(&lenient);
    assert!(lenient.status.success(), "{stderr}");
    assert_names(&stdout, &["2 positions", "1 file"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A --reference that names no margin set is refused (exit 2), naming the option and the
/// value.
#[test]
fn a_reference_that_names_no_set_is_refused_naming_the_option() {
    let dir = scratch("bogus-reference");
    let suite = small_suite(&dir, 12, &[]);
    let out = marginal(
        &["suite", suite.to_str().unwrap(), "--reference", "bogus"],
        &dir.join("cache"),
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    let said = stdout + &stderr;
    assert_names(&said, &["--reference", "bogus"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A damaged line in the journal an interrupted run left in the cache (a partial cache) is said
/// naming the file and the line; its position is searched again, and the scores are as whole.
#[test]
fn a_damaged_line_in_a_run_journal_is_said_naming_the_file_and_line() {
    let dir = scratch("journal");
    let suite_path = small_suite(&dir, 6, &[]);
    let cache = dir.join("cache");
    let loaded = || load_suites(std::slice::from_ref(&suite_path), false, Repeats::Once).unwrap();
    let options = ScorerOptions {
        config: RunConfig {
            limit: SuiteLimit::Depth(2),
            ..RunConfig::default()
        },
        cache_dir: Some(cache.clone()),
        executor: std::sync::Arc::new(local::Local::new(1)),
        ..ScorerOptions::default()
    };
    let scorer = SuiteScorer::new(loaded(), options.clone(), None).unwrap();
    let margins: marginal::engine::Setting = Margins::default().into();
    let (whole, _) = scorer.score_kept(&margins).unwrap();
    assert!(whole.warnings.is_empty(), "{:?}", whole.warnings);
    let journal = marginal::scoring::suite::reference::journal_path(
        &cache,
        &loaded(),
        &margins,
        &options.config,
        false,
    );
    std::fs::write(&journal, "{\"not\": \"a line\"}\n").unwrap();
    let (again, kept) = scorer.score_kept(&margins).unwrap();
    assert_eq!(kept, 0);
    let line = format!("{}:1", journal.display());
    assert!(
        again
            .warnings
            .iter()
            .any(|w| w.contains(&line) && w.contains("damaged")),
        "{line}: {:?}",
        again.warnings
    );
    assert_eq!(again.positions, whole.positions);
    assert!(!journal.exists(), "scored, the journal is gone");
    std::fs::remove_dir_all(dir).unwrap();
}
