//! An external UCI engine, checked against the engine it wraps: marginal's own search run as
//! `marginal uci`, described by an engine file whose rows are the four seed margins and whose
//! reference options mirror the built-in `off`. Through the UCI client it must give exactly
//! what the built-in path gives: the same best move and node count on every suite position,
//! the same games move for move, the same games tune. Then the external paths of `tune`,
//! `check` and `export` end to end, `--engine-cmd` with its rows read from the engine's own
//! `option` lines, engine files checked against the engine before any work, and an engine
//! that crashes on every search reported (and its reference never cached). Last, the engine
//! files shipped for Glaurung 2.2 and GNU Chess 6.2.7 parse, and where the engine is
//! installed score a suite and play games without a fault (skipped, saying why, where not).
//!
//! The figures the exactness tests measured are printed (`cargo test --profile ci --test
//! external_engine -- --nocapture` shows them).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::compile::{STRICT_C, assignments, c_compiler, run_ok, run_rust_main, rustc};
use common::uci_engine::{margin_lines, refused, uci_session};
use common::{assert_names, assert_omits, marginal, scratch, small_suite};
use marginal::check::{CheckReport, Verdict};
use marginal::tune::file::TunedFile;
use serde_json::Value;

/// The engine's rows: name, UCI option, default, min, max, step, r_end, off. The off values are
/// the defaults: the reference switches the techniques off instead.
const ROWS: [&str; 4] = [
    "futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 125",
    "ext_futility_margin, ExtFutilityMargin, 500, 0, 3000, 25, 0.002, 500",
    "razor_margin, RazorMargin, 980, 0, 4000, 40, 0.002, 980",
    "delta_margin, DeltaMargin, 200, 0, 1500, 10, 0.002, 200",
];

/// The row names, in order, and their UCI options.
const NAMES: [(&str, &str); 4] = [
    ("futility_margin", "FutilityMargin"),
    ("ext_futility_margin", "ExtFutilityMargin"),
    ("razor_margin", "RazorMargin"),
    ("delta_margin", "DeltaMargin"),
];

/// The engine's name in the file.
const ENGINE_NAME: &str = "marginal (UCI)";

/// Writes an engine file for `marginal uci` with `rows` as `dir/name`.
fn engine_file_with(dir: &Path, name: &str, rows: &[&str]) -> PathBuf {
    let rows: Vec<String> = rows.iter().map(|r| format!("  \"{r}\",\n")).collect();
    let text = format!(
        "name = \"{ENGINE_NAME}\"\ncommand = \"{}\"\nargs = [\"uci\"]\nparams = [\n{}]\n\
         [reference_options]\nFutilityPruning = false\nExtFutilityPruning = false\n\
         Razoring = false\nDeltaPruning = false\n",
        env!("CARGO_BIN_EXE_marginal"),
        rows.concat()
    );
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Edits an engine file of [`engine_file_with`] the way a user tunes it: a longer timeout (its
/// content digest changes, its rows do not).
fn lengthen_timeout(engine: &Path) {
    let description = std::fs::read_to_string(engine).unwrap();
    let edited = description.replace(
        "args = [\"uci\"]\n",
        "args = [\"uci\"]\ntimeout_ms = 20000\n",
    );
    assert_ne!(edited, description);
    std::fs::write(engine, edited).unwrap();
}

/// The engine file of all four rows, `dir/marginal.toml`.
fn engine_file(dir: &Path) -> PathBuf {
    engine_file_with(dir, "marginal.toml", &ROWS)
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Standard output of a command that must succeed.
fn succeeded(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{what}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Exit status 2 and a message on standard error naming each of `names` (the file, the value,
/// the fix), with no panic.
#[track_caller]
fn user_error(out: &Output, names: &[&str], what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert_names(&stderr, names);
    assert_omits(&stderr, &["panicked"]);
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `marginal suite FILES ARGS --no-cache --json DIR/OUT`: the JSON report.
fn suite(dir: &Path, files: &[&Path], args: &[&str], out: &str) -> Value {
    let report = dir.join(out);
    let mut all = vec!["suite"];
    all.extend(files.iter().map(|f| text(f)));
    all.extend_from_slice(args);
    // The loops below reuse report names: each run replaces the last one's.
    all.extend(["--no-cache", "--json", text(&report), "--force"]);
    succeeded(&marginal(&all, dir), &format!("suite {args:?}"));
    json(&report)
}

/// What must agree between two runs of a position: the move, the nodes, the verdict, the
/// depth and score, and the same of the reference run.
const SAME: [&str; 8] = [
    "best_move",
    "nodes",
    "solved",
    "depth",
    "score",
    "reference_best_move",
    "reference_nodes",
    "reference_score",
];

/// Compares two suite reports position by position on [`SAME`]; returns the positions.
fn assert_same_positions(a: &Value, b: &Value, what: &str) -> usize {
    let (a, b) = (
        a["positions"].as_array().unwrap(),
        b["positions"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len(), "{what}");
    let differing: Vec<String> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| SAME.iter().any(|k| x[k] != y[k]))
        .map(|(x, y)| {
            let pick = |v: &Value| SAME.map(|k| v[k].to_string()).join(" ");
            format!("{}:{}: {} / {}", x["suite"], x["line"], pick(x), pick(y))
        })
        .collect();
    assert!(
        differing.is_empty(),
        "{what}: {} of {} positions differ ({}):\n{}",
        differing.len(),
        a.len(),
        SAME.join(" "),
        differing.join("\n")
    );
    a.len()
}

#[test]
fn suites_give_the_same_moves_and_nodes_as_the_builtin_engine() {
    let dir = scratch("external", "suite");
    let engine = engine_file(&dir);
    let bk = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd");
    let wac = small_suite(&dir, 40);
    let files = [bk.as_path(), wac.as_path()];
    for limit in [["--nodes", "3000"], ["--depth", "5"]] {
        let builtin = suite(&dir, &files, &limit, "builtin.json");
        let mut args = limit.to_vec();
        args.extend(["--engine", text(&engine)]);
        let external = suite(&dir, &files, &args, "external.json");
        assert_eq!(external["engine"], text(&engine));
        assert!(builtin.get("engine").is_none());
        let n = assert_same_positions(&builtin, &external, &format!("{limit:?}"));
        let (o, e) = (&builtin["objective"], &external["objective"]);
        for key in ["solved", "points", "nodes", "reference_nodes", "agreement"] {
            assert_eq!(o[key], e[key], "{limit:?}: objective {key}");
        }
        for (s, t) in builtin["suites"]
            .as_array()
            .unwrap()
            .iter()
            .zip(external["suites"].as_array().unwrap())
        {
            assert_eq!(s["objective"]["solved"], t["objective"]["solved"]);
            assert_eq!(s["objective"]["nodes"], t["objective"]["nodes"]);
        }
        println!(
            "{} {}: {n}/{n} positions same move, nodes, depth and score (reference too); solved {}, {} nodes, reference {} nodes",
            limit[0], limit[1], o["solved"], o["nodes"], o["reference_nodes"]
        );
        // One worker or two: the external engine's results are the same in every field.
        args.extend(["--threads", "1"]);
        let one = suite(&dir, &files, &args, "one.json");
        *args.last_mut().unwrap() = "2";
        let two = suite(&dir, &files, &args, "two.json");
        assert_eq!(one["positions"], two["positions"], "{limit:?}: threads");
        assert_eq!(one["objective"], two["objective"], "{limit:?}: threads");
        assert_eq!(one["objective"], external["objective"]);
        // The objective itself differs only through `found_at`, known to an external engine
        // per info line only.
        let (x, y) = (o["value"].as_f64().unwrap(), e["value"].as_f64().unwrap());
        println!("  objective built-in {x:.3}, external {y:.3}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The PGN without the tags that name the engines (and the date): the games themselves.
fn games_of(pgn: &str) -> String {
    pgn.lines()
        .filter(|l| {
            !["[White ", "[Black ", "[Date "]
                .iter()
                .any(|t| l.starts_with(t))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn matches_are_the_same_games_whichever_path_plays_them() {
    let dir = scratch("external", "match");
    let engine = engine_file(&dir);
    let configurations: [(&str, usize, &[&str]); 2] = [
        (
            "4 games at 2000 nodes, default against off",
            4,
            &[
                "--a", "default", "--b", "off", "--games", "4", "--nodes", "2000",
            ],
        ),
        (
            "8 games at 1500 nodes with resign and draw adjudication, moved margins against the defaults",
            8,
            &[
                "--a",
                "futility_margin=300,razor_margin=500",
                "--b",
                "default",
                "--games",
                "8",
                "--nodes",
                "1500",
                "--resign",
                "600:3",
                "--draw",
                "10:6:30",
            ],
        ),
    ];
    for (k, (what, count, args)) in configurations.iter().enumerate() {
        let play = |name: &str, a: bool, b: bool| {
            let pgn = dir.join(format!("{k}-{name}.pgn"));
            let mut all = vec!["match", "--seed", "1", "--concurrency", "2"];
            all.extend_from_slice(args);
            all.extend(["--pgn", text(&pgn)]);
            if a {
                all.extend(["--a-engine", text(&engine)]);
            }
            if b {
                all.extend(["--b-engine", text(&engine)]);
            }
            succeeded(&marginal(&all, &dir), &format!("match {name}: {what}"));
            std::fs::read_to_string(&pgn).unwrap()
        };
        let builtin = play("builtin", false, false);
        let games = games_of(&builtin);
        let results: Vec<&str> = builtin
            .lines()
            .filter(|l| l.starts_with("[Result "))
            .collect();
        let endings: Vec<&str> = builtin
            .lines()
            .filter_map(|l| l.split_once('{').map(|(_, rest)| rest))
            .filter_map(|rest| rest.split_once('}').map(|(ending, _)| ending))
            .collect();
        assert_eq!(results.len(), *count, "{builtin}");
        for (name, a, b) in [
            ("external", true, true),
            ("builtin-a-external-b", false, true),
            ("external-a-builtin-b", true, false),
        ] {
            let pgn = play(name, a, b);
            assert_eq!(games_of(&pgn), games, "{what}: {name} played other games");
            if a {
                assert!(pgn.contains(&format!("[White \"A {ENGINE_NAME}")), "{pgn}");
            }
        }
        if k == 1 {
            assert!(
                endings.iter().any(|e| e.contains("adjudication")),
                "{endings:?}"
            );
        }
        println!(
            "{what}: identical moves and results in all four pairings; {results:?}; {endings:?}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn engine_cmd_reads_its_rows_from_the_option_lines() {
    let dir = scratch("external", "engine-cmd");
    let bk = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd");
    let command = format!("{} uci", env!("CARGO_BIN_EXE_marginal"));
    let args = |options: &str| -> Vec<String> {
        [
            "--nodes",
            "1000",
            "--engine-cmd",
            &command,
            "--engine-options",
            options,
        ]
        .map(String::from)
        .to_vec()
    };
    let given = args("FutilityMargin,DeltaMargin=1500");
    let given: Vec<&str> = given.iter().map(String::as_str).collect();
    let external = suite(&dir, &[&bk], &given, "external.json");
    assert_eq!(external["engine"], format!("--engine-cmd {command}"));
    // Rows named after the options, defaults and ranges from the engine; the off value given.
    assert_eq!(
        external["margins"],
        serde_json::json!({"futility_margin": 125, "delta_margin": 200})
    );
    assert_eq!(
        external["reference"]["margins"],
        serde_json::json!({"futility_margin": 125, "delta_margin": 1500})
    );
    // The same searches as the built-in engine against the same reference.
    let builtin = suite(
        &dir,
        &[&bk],
        &["--nodes", "1000", "--reference", "delta_margin=1500"],
        "builtin.json",
    );
    let n = assert_same_positions(&builtin, &external, "--engine-cmd");
    println!("--engine-cmd at 1000 nodes: {n}/{n} positions as the built-in engine");
    // An unknown option, a switch and an off value out of range: exit 2, naming the option.
    for (options, needles) in [
        (
            "FutilityMargin,Bogus",
            &["'Bogus' is not an option", "FutilityMargin"][..],
        ),
        (
            "FutilityPruning",
            &["'FutilityPruning' is a check option, not a spin"][..],
        ),
        (
            "DeltaMargin=99999",
            &["'99999' of 'DeltaMargin' is not an integer in [0, 1500]"][..],
        ),
    ] {
        let mut all = vec!["suite", text(&bk)];
        let given = args(options);
        all.extend(given.iter().map(String::as_str));
        user_error(&marginal(&all, &dir), needles, options);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn engine_files_are_checked_against_the_engine_before_any_work() {
    let dir = scratch("external", "verify");
    let bk = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd");
    let suite_with = |engine: &Path| {
        marginal(
            &[
                "suite",
                text(&bk),
                "--nodes",
                "200",
                "--no-cache",
                "--engine",
                text(engine),
            ],
            &dir,
        )
    };
    // A row's option must be a spin the engine declares, with a range that holds the row's.
    for (name, row, needles) in [
        (
            "undeclared.toml",
            "x, NoSuchOption, 1, 0, 5, 1, 0.002, 1",
            &[
                "row 'x': the engine declares no option 'NoSuchOption'",
                "FutilityMargin",
            ][..],
        ),
        (
            "switch.toml",
            "x, FutilityPruning, 1, 0, 1, 1, 0.002, 0",
            &["row 'x': option 'FutilityPruning' is a check option, not a spin"][..],
        ),
        (
            "wide.toml",
            "x, FutilityMargin, 125, 0, 5000, 10, 0.002, 125",
            &[
                "row 'x': range [0, 5000] is outside the range option 'FutilityMargin' declares, [0, 1500]",
            ][..],
        ),
    ] {
        let engine = engine_file_with(&dir, name, &[row]);
        let out = suite_with(&engine);
        let mut all = needles.to_vec();
        all.push(name);
        user_error(&out, &all, name);
    }
    // An option value of the wrong kind, or outside the declared range, is refused, naming
    // the table, option and value; an option a row carries, and a file without rows, are
    // warned about (the row's value would replace it; nothing would be tuned).
    let base = std::fs::read_to_string(engine_file(&dir)).unwrap();
    for (name, options, said, refused) in [
        (
            "check.toml",
            "NullMove = \"maybe\"",
            "[options] NullMove = 'maybe': the engine declares NullMove a check option: give true or false",
            true,
        ),
        (
            "range.toml",
            "NullMoveR = 99",
            "[options] NullMoveR = '99': outside the range [1, 6] the engine declares for NullMoveR",
            true,
        ),
        (
            "row.toml",
            "FutilityMargin = 3",
            "[options] FutilityMargin is the option of row 'futility_margin': the row's value replaces it",
            false,
        ),
    ] {
        let engine = dir.join(name);
        let with = base.replace(
            "[reference_options]",
            &format!("[options]\n{options}\n[reference_options]"),
        );
        std::fs::write(&engine, &with).unwrap();
        let out = suite_with(&engine);
        if refused {
            // The file and the option's line in it, the option and its value, and why.
            let line = with.lines().position(|l| l == options).unwrap() + 1;
            let at = format!("{}:{line}", engine.display());
            user_error(&out, &[said, &at], name);
        } else {
            succeeded(&out, name);
            assert_names(&String::from_utf8_lossy(&out.stderr), &[said, name]);
        }
    }
    let engine = engine_file_with(&dir, "rowless.toml", &[]);
    let out = suite_with(&engine);
    succeeded(&out, "no rows");
    // The file, what it lacks, and where to read how to declare them.
    let what = [
        engine.to_str().unwrap(),
        "params",
        "docs/external-engines.md",
    ];
    assert_names(&String::from_utf8_lossy(&out.stderr), &what);
    // An option the engine does not declare is only a warning: engines ignore those.
    let engine = dir.join("extra.toml");
    let mut text_of = std::fs::read_to_string(engine_file(&dir)).unwrap();
    text_of = text_of.replace(
        "[reference_options]",
        "[options]\nThreads = 1\n[reference_options]",
    );
    std::fs::write(&engine, text_of).unwrap();
    let out = suite_with(&engine);
    succeeded(&out, "an undeclared option");
    // The file, the table and the option.
    let what = [engine.to_str().unwrap(), "[options]", "Threads"];
    assert_names(&String::from_utf8_lossy(&out.stderr), &what);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The scratch directory, engine file and suite of the tune, check and export tests, and the
/// tuned file a short external suite tune wrote there (made once, by whichever test asks
/// first).
struct Tuned {
    dir: PathBuf,
    engine: PathBuf,
    suite: PathBuf,
    file: PathBuf,
}

/// A 2-iteration SPSA tune of the external engine at 2000 nodes on 30 WAC positions, with a
/// large `r_end` so the margins move.
const TUNE: [&str; 10] = [
    "--solver",
    "spsa",
    "--iterations",
    "2",
    "--r-end",
    "0.05",
    "--seed",
    "1",
    "--hash",
    "4",
];

fn tuned() -> &'static Tuned {
    static TUNED: OnceLock<Tuned> = OnceLock::new();
    TUNED.get_or_init(|| {
        let dir = scratch("external", "tuned");
        let engine = engine_file(&dir);
        let suite = small_suite(&dir, 30);
        let mut args = TUNE.to_vec();
        args.extend(["--engine", text(&engine)]);
        let out = common::tune(&dir, &suite, 2000, "tuned.json", &args);
        succeeded(&out, "tune --engine");
        Tuned {
            file: dir.join("tuned.json"),
            dir,
            engine,
            suite,
        }
    })
}

#[test]
fn a_tune_records_the_engine_and_its_rows_and_reproduces() {
    let t = tuned();
    let file = TunedFile::read(&t.file).unwrap();
    let record = file.engine.as_ref().expect("an engine record");
    assert_eq!(record.name, ENGINE_NAME);
    assert_eq!(record.source, text(&t.engine));
    assert_eq!(record.signature, file.provenance.engine_signature);
    assert_eq!(record.signature.len(), 16);
    assert_eq!(file.provenance.engine_bench_nodes, 0);
    let names: Vec<&str> = record.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, NAMES.map(|(n, _)| n));
    let uci: Vec<&str> = record.rows.iter().map(|r| r.uci_name.as_str()).collect();
    assert_eq!(uci, NAMES.map(|(_, u)| u));
    assert_eq!(
        record.reference_options.len(),
        4,
        "{:?}",
        record.reference_options
    );
    // Every row tuned by default, the margins named after the rows, and moved.
    assert_eq!(file.tuned, NAMES.map(|(n, _)| n));
    let keys: Vec<&str> = file.margins.0.keys().map(String::as_str).collect();
    assert_eq!(keys, NAMES.map(|(n, _)| n));
    let setting = file.setting();
    let defaults = [125, 500, 980, 200];
    assert_ne!(setting.values(), defaults, "the margins did not move");
    let schedule: Vec<&str> = file
        .provenance
        .schedule
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(schedule, NAMES.map(|(n, _)| n));
    println!("tuned: {setting} from {defaults:?}");
    // The same seed in the same directory (a fresh checkpoint) gives the same file's figures.
    let mut args = TUNE.to_vec();
    args.extend(["--engine", text(&t.engine)]);
    succeeded(
        &common::tune(&t.dir, &t.suite, 2000, "again.json", &args),
        "tune --engine again",
    );
    let again = TunedFile::read(&t.dir.join("again.json")).unwrap();
    assert_eq!(again.margins, file.margins);
    assert_eq!(again.training, file.training);
    assert_eq!(again.validation, file.validation);
    assert_eq!(again.iterations.len(), file.iterations.len());
    for (x, y) in again.iterations.iter().zip(&file.iterations) {
        assert_eq!(
            (&x.theta, &x.values, x.result),
            (&y.theta, &y.values, y.result)
        );
    }
}

#[test]
fn a_games_tune_of_the_external_engine_plays_the_builtin_engines_games() {
    let dir = scratch("external", "games");
    let engine = engine_file(&dir);
    let suite = small_suite(&dir, 20);
    let games = [
        "--objective",
        "games",
        "--iterations",
        "2",
        "--pairs",
        "2",
        "--r-end",
        "0.05",
    ];
    let mut args = games.to_vec();
    args.extend(["--engine", text(&engine)]);
    succeeded(
        &common::tune(&dir, &suite, 300, "external.json", &args),
        "games tune --engine",
    );
    succeeded(
        &common::tune(&dir, &suite, 300, "builtin.json", &games),
        "games tune",
    );
    let external = json(&dir.join("external.json"));
    let builtin = json(&dir.join("builtin.json"));
    assert_eq!(external["provenance"]["objective"], "games");
    assert_eq!(external["engine"]["name"], ENGINE_NAME);
    assert_eq!(external["games"]["games"], 8);
    // The same games, so the same steps and the same margins (the built-in file has every
    // row of the table; the four tuned are the engine file's).
    for (name, _) in NAMES {
        assert_eq!(
            external["margins"][name], builtin["margins"][name],
            "{name}"
        );
    }
    let (e, b) = (
        external["games"]["evaluations"].as_array().unwrap(),
        builtin["games"]["evaluations"].as_array().unwrap(),
    );
    assert_eq!(e.len(), 2);
    for (x, y) in e.iter().zip(b) {
        for key in ["a", "b", "wdl", "pentanomial", "result"] {
            assert_eq!(x[key], y[key], "{key}");
        }
    }
    println!(
        "games tune: 8 games, margins {} as the built-in engine's",
        external["margins"]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// `marginal check FILE ARGS --json DIR/NAME`: what it printed, and the report when written.
fn check(file: &Path, args: &[&str], report: &str) -> (Output, Option<CheckReport>) {
    let t = tuned();
    let json = t.dir.join(report);
    let _ = std::fs::remove_file(&json);
    let mut all = vec!["check", text(file)];
    all.extend_from_slice(args);
    all.extend(["--json", text(&json)]);
    let out = marginal(&all, &t.dir);
    let report = std::fs::read_to_string(&json)
        .ok()
        .map(|s| serde_json::from_str(&s).unwrap());
    (out, report)
}

#[test]
fn check_holds_with_the_engine_file_given_or_as_recorded() {
    let t = tuned();
    let (out, report) = check(&t.file, &["--engine", text(&t.engine)], "holds.json");
    let stdout = succeeded(&out, "check --engine");
    // The verdict, the engine by name and file, and that it is judged as recorded.
    let what = ["holds", ENGINE_NAME, text(&t.engine), "as recorded"];
    assert_names(&stdout, &what);
    assert_omits(&stdout, &["bench"]);
    let report = report.unwrap();
    assert_eq!(report.verdict, Verdict::Holds);
    assert!(report.engine.same);
    assert_eq!(
        report.engine.external.as_deref(),
        Some(format!("{ENGINE_NAME} ({})", text(&t.engine)).as_str())
    );
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    for side in &report.sides {
        assert!(side.changed.is_empty(), "{:?}", side.changed);
        for set in &side.sets {
            assert_eq!(set.recorded, set.now, "{} {}", side.side, set.name);
        }
    }
    // Without --engine: the engine file the tuned file records, said so, with the same figures.
    let (out, report) = check(&t.file, &[], "none.json");
    let stdout = succeeded(&out, "check without --engine");
    assert!(
        stdout.contains(&format!(
            "engine: {ENGINE_NAME} ({}), as the tuned file records it",
            text(&t.engine)
        )),
        "{stdout}"
    );
    assert_eq!(report.unwrap().verdict, Verdict::Holds);
    // The recorded engine file changed since: exit 2, naming it and the flag that overrides.
    let changed = t.dir.join("changed.toml");
    let description = std::fs::read_to_string(&t.engine).unwrap();
    std::fs::write(
        &changed,
        description.replace("DeltaPruning = false", "DeltaPruning = true"),
    )
    .unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&t.file).unwrap()).unwrap();
    doc["engine"]["source"] = serde_json::Value::from(text(&changed));
    let moved = t.dir.join("moved.json");
    std::fs::write(&moved, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let (out, _) = check(&moved, &[], "changed.json");
    user_error(
        &out,
        &["content digest", &format!("--engine {}", text(&changed))],
        "check with a changed engine file",
    );
    // An engine file that lacks a tuned row: exit 2, naming the row.
    let three = engine_file_with(&t.dir, "three.toml", &ROWS[..3]);
    let (out, _) = check(&t.file, &["--engine", text(&three)], "three.json");
    user_error(
        &out,
        &["'delta_margin'", text(&three)],
        "check with three rows",
    );
    // A file of marginal's own engine with an external engine: exit 2.
    let (out, _) = check(
        Path::new("tuned/spsa-suite.json"),
        &["--engine", text(&t.engine)],
        "builtin.json",
    );
    user_error(
        &out,
        &["tuned for marginal's own engine", "leave out --engine"],
        "a built-in file with --engine",
    );
}

#[test]
fn check_update_records_the_external_engine() {
    let t = tuned();
    let copy = t.dir.join("updated.json");
    std::fs::copy(&t.file, &copy).unwrap();
    let (out, _) = check(
        &copy,
        &["--engine", text(&t.engine), "--update"],
        "update.json",
    );
    succeeded(&out, "check --update");
    let file = TunedFile::read(&copy).unwrap();
    let measured = file.measured.as_ref().expect("measured");
    assert_eq!(measured.engine_signature, file.provenance.engine_signature);
    assert_eq!(measured.engine_bench_nodes, 0);
    assert_eq!(file.engine, TunedFile::read(&t.file).unwrap().engine);
    // It still holds, exactly.
    let (out, report) = check(&copy, &["--engine", text(&t.engine)], "after.json");
    let stdout = succeeded(&out, "check after --update");
    assert_names(&stdout, &["as recorded"]);
    assert_eq!(report.unwrap().verdict, Verdict::Holds);
}

/// `marginal export TUNED --format FORMAT`: its standard output.
fn export(format: &str) -> String {
    let t = tuned();
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["export", text(&t.file), "--format", format])
        .env("SOURCE_DATE_EPOCH", "1709251199")
        .output()
        .unwrap();
    succeeded(&out, &format!("export --format {format}"))
}

/// The tuned values, in row order.
fn tuned_values() -> Vec<i32> {
    TunedFile::read(&tuned().file)
        .unwrap()
        .setting()
        .values()
        .to_vec()
}

/// The header of a commented export names the engine and its engine file, and no bench; the
/// Rust and C exports' row docs name the engine's option.
fn assert_names_the_engine(text: &str, format: &str) {
    let t = tuned();
    let header = format!(
        "Engine: {ENGINE_NAME}, an external UCI engine described by {}",
        t.engine.display()
    );
    assert!(
        text.contains(&header),
        "{format}: no '{header}' in:\n{text}"
    );
    assert_omits(text, &["bench"]);
    if format != "toml" {
        assert!(
            text.contains(&format!("{ENGINE_NAME}'s UCI option \"FutilityMargin\"")),
            "{format}:\n{text}"
        );
    }
}

#[test]
fn rust_and_c_exports_name_the_rows_and_compile() {
    let values = tuned_values();
    let want: std::collections::BTreeMap<String, String> = NAMES
        .iter()
        .zip(&values)
        .map(|((n, _), v)| (n.to_ascii_uppercase(), v.to_string()))
        .collect();
    let dir = scratch("external", "compile");
    // Rust: a documented library without warnings, and a program printing every constant.
    let rust = export("rust");
    assert_names_the_engine(&rust, "rust");
    for ((name, _), v) in NAMES.iter().zip(&values) {
        let line = format!("pub const {}: i32 = {v};", name.to_ascii_uppercase());
        assert!(rust.contains(&line), "no '{line}' in:\n{rust}");
    }
    std::fs::write(dir.join("margins.rs"), &rust).unwrap();
    run_ok(
        Command::new(rustc())
            .args(["--edition", "2021", "--crate-type", "lib", "-D", "warnings"])
            .args(["-D", "missing-docs", "margins.rs"])
            .current_dir(&dir),
        "rustc margins.rs",
    );
    let mut main = String::from("mod margins;\n\nfn main() {\n");
    for name in want.keys() {
        main.push_str(&format!(
            "    println!(\"{name}={{}}\", margins::{name});\n"
        ));
    }
    main.push_str("}\n");
    std::fs::write(dir.join("main.rs"), main).unwrap();
    let printed = run_rust_main(&dir);
    assert_eq!(assignments(&printed), want);
    // C: a header that compiles without warnings, included twice.
    let c = export("c");
    assert_names_the_engine(&c, "c");
    std::fs::write(dir.join("margins.h"), &c).unwrap();
    let mut main = String::from(
        "#include <stdio.h>\n#include \"margins.h\"\n#include \"margins.h\"\n\nint main(void) {\n",
    );
    for name in want.keys() {
        main.push_str(&format!("    printf(\"{name}=%d\\n\", {name});\n"));
    }
    main.push_str("    return 0;\n}\n");
    std::fs::write(dir.join("main.c"), main).unwrap();
    run_ok(
        Command::new(c_compiler())
            .args(STRICT_C)
            .args(["main.c", "-o", "main-c"])
            .current_dir(&dir),
        "cc main.c",
    );
    let printed = run_ok(&mut Command::new(dir.join("main-c")), "the C program");
    assert_eq!(assignments(&printed), want);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn uci_and_spsa_exports_use_the_engines_option_names() {
    let values = tuned_values();
    let t = tuned();
    let file = TunedFile::read(&t.file).unwrap();
    // UCI: setoption lines the engine takes, and then searches with.
    let uci = export("uci");
    let want: Vec<String> = NAMES
        .iter()
        .zip(&values)
        .map(|((_, u), v)| format!("setoption name {u} value {v}"))
        .collect();
    assert_eq!(uci.lines().collect::<Vec<_>>(), want);
    let session = uci_session(&format!("d\n{uci}d\n"));
    let complaints = refused(&session);
    assert!(complaints.is_empty(), "{complaints:?}");
    let [_, after] = &margin_lines(&session)[..] else {
        panic!("two margin lines expected: {session:?}")
    };
    for ((_, u), v) in NAMES.iter().zip(&values) {
        assert_eq!(after[*u], v.to_string(), "{u}");
    }
    // OpenBench and fishtest: the UCI names, the value, the bounds and schedule as tuned.
    for (format, separator, typed) in [("openbench", ", ", true), ("fishtest", ",", false)] {
        let lines = export(format);
        let lines: Vec<&str> = lines.lines().collect();
        assert_eq!(lines.len(), 4, "{format}");
        for (((line, (_, u)), v), row) in lines
            .iter()
            .zip(NAMES)
            .zip(&values)
            .zip(&file.provenance.schedule)
        {
            let mut fields = vec![u.to_string()];
            if typed {
                fields.push("int".into());
            }
            fields.extend([
                v.to_string(),
                row.lower.to_string(),
                row.upper.to_string(),
                row.c_end.to_string(),
                row.r_end.to_string(),
            ]);
            assert_eq!(*line, fields.join(separator), "{format}");
        }
    }
    // JSON and TOML: the engine and its file in place of a bench.
    let exported: Value = serde_json::from_str(&export("json")).unwrap();
    let source = &exported["source"];
    assert_eq!(source["engine"], ENGINE_NAME);
    assert_eq!(source["engine_file"], text(&t.engine));
    assert_eq!(source["engine_signature"], file.provenance.engine_signature);
    assert!(source.get("engine_bench_nodes").is_none(), "{source}");
    for ((n, _), v) in NAMES.iter().zip(&values) {
        assert_eq!(exported["margins"][n], *v, "{n}");
    }
    let toml_text = export("toml");
    assert_names_the_engine(&toml_text, "toml");
    let toml: toml::Table = toml::from_str(&toml_text).unwrap();
    assert_eq!(toml["source"]["engine"].as_str(), Some(ENGINE_NAME));
    assert_eq!(
        toml["margins"]["delta_margin"].as_integer(),
        Some(i64::from(values[3]))
    );
}

#[test]
fn an_engine_that_crashes_on_go_is_reported_and_its_reference_not_cached() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("external", "crash");
    // Answers the handshake and `isready` (so it passes the start-up check), dies on `go`.
    let script = dir.join("crasher.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name crasher'; echo 'option name FutilityMargin type spin default 125 min 0 max 1500'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) exit 3 ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = dir.join("crasher.toml");
    std::fs::write(
        &engine,
        format!(
            "command = \"{}\"\nparams = [\"futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 1500\"]\n",
            script.display()
        ),
    )
    .unwrap();
    let bk = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd");
    let cache = dir.join("cache");
    let out = marginal(
        &[
            "suite",
            text(&bk),
            "--nodes",
            "500",
            "--engine",
            text(&engine),
            "--cache-dir",
            text(&cache),
            // Never give up (tests/external_faults.rs has the run that does).
            "--max-faults",
            "0",
        ],
        &dir,
    );
    // Every position of the reference run faulted: with nothing searched the command fails
    // (exit 2) naming the engine and its fault at once, before a scored run that would fault
    // the same way, rather than report an objective.
    user_error(
        &out,
        // The engine file, how many positions, the first fault, and which run.
        &[
            text(&engine),
            "24 positions",
            "crashed (exit status: 3)",
            "reference run",
        ],
        "suite with a crashing engine",
    );
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_names(&stdout, &["crasher"]);
    // No scored run followed.
    assert_omits(&stdout, &["positions/s"]);
    let cached = std::fs::read_dir(&cache).map_or(0, |d| d.count());
    assert_eq!(cached, 0, "a faulted reference was cached");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Writes an executable shell script `dir/name` with `body` after the `#!/bin/sh` line.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A file tuned for one engine, checked with another whose rows are not its rows (another UCI
/// option for a row, a row it lacks): exit 2 naming both engines and files and the fix, never
/// a measurement called a changed description and a regression. The same engine described
/// anew (its timeout, another name) keeps the statistics' path.
#[test]
fn check_refuses_a_file_of_another_engine_and_judges_a_changed_one_by_the_statistics() {
    let t = tuned();
    // Another engine: Toga's option names for two of the rows, none for the other two. It
    // answers the handshake only: nothing may be searched with it.
    let other = script(
        &t.dir,
        "other.sh",
        "while read line; do\n  case \"$line\" in\n    uci) echo 'id name other'; echo 'option name Futility Margin type spin default 100 min 0 max 1500'; echo 'option name Delta Margin type spin default 50 min 0 max 1500'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) exit 3 ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    );
    let other_file = t.dir.join("other.toml");
    std::fs::write(
        &other_file,
        format!(
            "name = \"Other engine\"\ncommand = \"{}\"\nparams = [\n  \"futility_margin, Futility Margin, 100, 0, 1500, 10, 0.002, 100\",\n  \"delta_margin, Delta Margin, 50, 0, 1500, 10, 0.002, 50\",\n]\n",
            other.display()
        ),
    )
    .unwrap();
    let (out, report) = check(&t.file, &["--engine", text(&other_file)], "other.json");
    user_error(
        &out,
        // Both engines by name and file, each row whose option differs (its name in each),
        // the row the other lacks, and the two fixes: the engine recorded, or a tune of this one.
        &[
            &format!("'{ENGINE_NAME}'"),
            "'Other engine'",
            text(&t.engine),
            text(&other_file),
            "'futility_margin'",
            "'FutilityMargin'",
            "'Futility Margin'",
            "'delta_margin'",
            "'DeltaMargin'",
            "'razor_margin'",
            "'RazorMargin'",
            &format!("--engine {}", text(&t.engine)),
            &format!("marginal tune --engine {}", text(&other_file)),
        ],
        "check with another engine",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_omits(&stdout, &["verdict"]);
    assert!(report.is_none(), "a report was written");
    // suite and match take a margin set from the file with the same refusal, before any search
    // (the other engine crashes on `go`).
    let book = t.dir.join("book.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    )
    .unwrap();
    for (args, what) in [
        (
            vec![
                "suite",
                text(&t.suite),
                "--margins",
                text(&t.file),
                "--engine",
                text(&other_file),
            ],
            "suite --margins with another engine",
        ),
        (
            vec![
                "match",
                "--a",
                text(&t.file),
                "--a-engine",
                text(&other_file),
                "--b",
                "default",
                "--b-engine",
                text(&other_file),
                "--openings",
                text(&book),
                "--games",
                "2",
                "--nodes",
                "500",
            ],
            "match --a with another engine",
        ),
    ] {
        let out = marginal(&args, &t.dir);
        user_error(
            &out,
            &[
                text(&t.file),
                text(&t.engine),
                text(&other_file),
                "'futility_margin'",
                "'FutilityMargin'",
                "'Futility Margin'",
            ],
            what,
        );
    }
    // The same engine under another name and with another timeout: its rows carry the file's,
    // so it is measured, judged by the statistics, and holds; the name is said.
    let described = t.dir.join("described.toml");
    let description = std::fs::read_to_string(&t.engine).unwrap();
    std::fs::write(
        &described,
        description.replace(
            &format!("name = \"{ENGINE_NAME}\"\n"),
            "name = \"marginal, renamed\"\ntimeout_ms = 20000\n",
        ),
    )
    .unwrap();
    let (out, report) = check(&t.file, &["--engine", text(&described)], "described.json");
    let stdout = succeeded(&out, "check with the engine described anew");
    assert_names(&stdout, &["statistics", "holds"]);
    // The engine file and the name it gives.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_names(&stderr, &[text(&described), "'marginal, renamed'"]);
    assert_eq!(report.unwrap().verdict, Verdict::Holds);
}

/// The very engine file a set was tuned with, edited since to drop a tuned row: `check` says
/// that the file changed (digests then and now) and the two ways on, not "use the file it
/// records" with the file just given (campaign 19 H016).
#[test]
fn check_says_the_engine_file_it_was_tuned_with_lost_a_row() {
    let t = tuned();
    let dir = scratch("external", "lost-row");
    // A copy of the tuned file that records a copy of its engine file (the shared one stays).
    let engine = engine_file_with(&dir, "mine.toml", &[ROWS[0], ROWS[1], ROWS[3]]);
    let copied = std::fs::read_to_string(&t.file)
        .unwrap()
        .replace(text(&t.engine), text(&engine));
    let file = dir.join("t.json");
    std::fs::write(&file, copied).unwrap();
    let out = marginal(&["check", text(&file), "--engine", text(&engine)], &dir);
    user_error(
        &out,
        // The engine file, that it changed, the row it lost, and both fixes.
        &[
            text(&engine),
            "content digest",
            "'razor_margin'",
            "'RazorMargin'",
            "Restore those rows",
            &format!("marginal tune --engine {}", text(&engine)),
        ],
        "check with its own engine file less a row",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tune's checkpoint records the engine it started with: after an edit of the engine file a
/// resume, and a rerun of the same command, say that the engine file changed (not "another
/// run"), with --engine to resume with it as it is now; a resume says which engine it took.
#[test]
fn a_changed_engine_file_is_said_on_resume_and_rerun_of_a_tune() {
    let dir = scratch("external", "resume-changed");
    let engine = engine_file(&dir);
    let suite = small_suite(&dir, 12);
    let mut args = TUNE.to_vec();
    args.extend(["--engine", text(&engine)]);
    let tune = |args: &[&str]| common::tune(&dir, &suite, 500, "t.json", args);
    succeeded(&tune(&args), "tune");
    let ckpt = common::checkpoint(&dir, "t");
    let run = std::fs::read_to_string(ckpt.join("run")).unwrap();
    let resume = |extra: &[&str]| {
        let mut all = vec!["tune", "--resume", text(&ckpt)];
        all.extend_from_slice(extra);
        marginal(&all, &dir)
    };
    // Unchanged: the resume names the engine it took from the record.
    let stdout = succeeded(&resume(&[]), "resume");
    assert!(
        stdout.contains(&format!(
            "engine: {ENGINE_NAME} ({}), as the checkpoint records it",
            text(&engine)
        )),
        "{stdout}"
    );
    // The engine file edited (its timeout): the resume is refused, naming the file, the change
    // and the flag that overrides.
    lengthen_timeout(&engine);
    let changed = format!(
        "the engine file {} changed since the run started",
        text(&engine)
    );
    let refused = [changed.as_str(), &format!("add --engine {}", text(&engine))];
    user_error(&resume(&[]), &refused, "resume after the edit");
    // The same from a checkpoint written before the engine was recorded there: the tuned
    // file the run wrote records it.
    let record = ckpt.join("engine.json");
    let kept = std::fs::read(&record).unwrap();
    std::fs::remove_file(&record).unwrap();
    user_error(&resume(&[]), &refused, "resume of an older checkpoint");
    std::fs::write(&record, kept).unwrap();
    // The same command again: its --out exists, and the change is said with it.
    user_error(
        &tune(&args),
        &[
            "--out",
            "this same command wrote it",
            &changed,
            "add --force",
        ],
        "rerun after the edit",
    );
    // Without its --out (an interrupted run): a new run, saying where the old one is.
    std::fs::rename(dir.join("t.json"), dir.join("old.json")).unwrap();
    let out = tune(&args);
    succeeded(&out, "rerun without --out");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "note: checkpoint {} holds this same command's run, but {changed}",
            text(&ckpt)
        )) && stderr.contains(&format!(
            "marginal tune --resume {} --engine {}",
            text(&ckpt),
            text(&engine)
        )),
        "{stderr}"
    );
    // --engine overrides: the run resumes with the file as it is now, as the same run.
    let out = resume(&["--engine", text(&engine)]);
    let stdout = succeeded(&out, "resume --engine");
    assert!(
        stdout.contains(&format!(
            "engine: {ENGINE_NAME} ({}), given with --engine: taken as it is now",
            text(&engine)
        )),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_names(&stderr, &["resuming", "as it is now"]);
    assert_omits(&stderr, &["ignored"]);
    let file = TunedFile::read(&dir.join("t.json")).unwrap();
    assert_eq!(file.provenance.run, run.trim());
    std::fs::remove_dir_all(dir).unwrap();
}

/// A run resumed with its engine file as it is now (`--resume DIR --engine FILE`) and
/// interrupted again names the command that goes on with it: with `--engine FILE`, since
/// `--resume DIR` alone is refused (campaign 19 D020).
#[test]
fn an_interrupted_resume_with_a_changed_engine_file_names_the_command_that_goes_on() {
    let dir = scratch("external", "resume-cut");
    let engine = engine_file(&dir);
    let suite = small_suite(&dir, 12);
    let log = || common::checkpoint(&dir, "cut").join("evaluations.jsonl");
    let logged = || std::fs::read_to_string(log()).map_or(0, |t| t.lines().count());
    let start = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args)
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let out = dir.join("cut.json");
    let first = start(&[
        "tune",
        "--suites",
        text(&suite),
        "--engine",
        text(&engine),
        "--solver",
        "spsa",
        "--iterations",
        "3000",
        "--nodes",
        "300",
        "--out",
        text(&out),
    ]);
    common::interrupt_when(first, std::time::Duration::from_secs(120), || logged() >= 2);
    let ckpt = common::checkpoint(&dir, "cut");
    lengthen_timeout(&engine);
    let before = logged();
    let second = start(&["tune", "--resume", text(&ckpt), "--engine", text(&engine)]);
    let cut = common::interrupt_when(second, std::time::Duration::from_secs(120), || {
        logged() >= before + 2
    });
    let stderr = String::from_utf8_lossy(&cut.stderr);
    assert!(
        stderr.contains(&format!(
            "`marginal tune --resume {} --engine {}`, to go on from them",
            text(&ckpt),
            text(&engine)
        )),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine command that ends with exit status 0 before `uciok` (a program that is no UCI
/// engine, or one run to do something else) is said to have ended, not crashed, with the
/// question the not-UCI handshake asks; one that ends with status 0 in a search ended too,
/// while a nonzero status stays a crash.
#[test]
fn an_engine_that_ends_with_status_0_is_said_to_have_ended_not_crashed() {
    let dir = scratch("external", "ended");
    let bk = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd");
    let row = "futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 125";
    let suite_with = |engine: &[&str]| {
        let mut all = vec![
            "suite",
            text(&bk),
            "--nodes",
            "200",
            "--no-cache",
            "--max-faults",
            "0",
        ];
        all.extend_from_slice(engine);
        marginal(&all, &dir)
    };
    let hint = "is it a UCI engine (does it need an argument such as `uci` or `--uci`, in args = [...] of its engine file)?";
    // Exits at once.
    let at_once = dir.join("true.toml");
    std::fs::write(
        &at_once,
        format!("command = \"/bin/true\"\nparams = [\"{row}\"]\n"),
    )
    .unwrap();
    let out = suite_with(&["--engine", text(&at_once)]);
    user_error(
        &out,
        &[text(&at_once), "exit status 0", "`uciok`", hint],
        "/bin/true",
    );
    assert_omits(&String::from_utf8_lossy(&out.stderr), &["crashed"]);
    // Runs something else (a benchmark) and exits 0, given by its command line.
    let bench = script(
        &dir,
        "bench.sh",
        "echo 'Position: 1/1'\necho 'bestmove e2e4'\necho 'Nodes searched  : 3467381' >&2\n",
    );
    let command = format!("{} bench", bench.display());
    let out = suite_with(&[
        "--engine-cmd",
        &command,
        "--engine-options",
        "FutilityMargin",
    ]);
    user_error(
        &out,
        // How it ended, the last it wrote on each stream, and the hint.
        &[
            "exit status 0",
            "`uciok`",
            "'bestmove e2e4'",
            "'Nodes searched  : 3467381'",
            hint,
        ],
        "a benchmark run",
    );
    // Ends with status 0 on `go`, then with status 3: ended, then crashed.
    // The engine file, and how the first fault ended: the exit status, and what it lacked.
    for (status, want) in [
        ("0", &["ended", "exit status 0", "`bestmove`"][..]),
        ("3", &["crashed", "exit status: 3"]),
    ] {
        let quitter = script(
            &dir,
            &format!("quit{status}.sh"),
            &format!(
                "while read line; do\n  case \"$line\" in\n    uci) echo 'option name FutilityMargin type spin default 125 min 0 max 1500'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) exit {status} ;;\n  esac\ndone\n"
            ),
        );
        let file = dir.join(format!("quit{status}.toml"));
        std::fs::write(
            &file,
            format!(
                "command = \"{}\"\nparams = [\"{row}\"]\n",
                quitter.display()
            ),
        )
        .unwrap();
        let what = [&[text(&file)][..], want].concat();
        user_error(&suite_with(&["--engine", text(&file)]), &what, "ends on go");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every typed key of an engine file with a value of the wrong type or range is said with
/// its file and line, the key, the value and what it takes: never in serde's terms.
#[test]
fn engine_file_values_of_the_wrong_type_name_the_key_the_value_and_what_it_takes() {
    let dir = scratch("external", "types");
    let bk = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/suites/bk.epd");
    let row = "\"futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 125\"";
    // Each names the file and line, the key and the value as written (the element, for a
    // list), and what it takes.
    let cases: [(&str, &[&str]); 13] = [
        (
            "timeout_ms = -5",
            &["timeout_ms = -5", "milliseconds", "at least 1"],
        ),
        (
            "timeout_ms = \"500\"",
            &["timeout_ms = \"500\"", "whole number of milliseconds"],
        ),
        (
            "timeout_ms = 2.5",
            &["timeout_ms = 2.5", "whole number of milliseconds"],
        ),
        (
            "timeout_ms = 9000000000000000000",
            &["timeout_ms = 9000000000000000000", "at most 86400000"],
        ),
        ("fresh = \"yes\"", &["fresh = \"yes\"", "true or false"]),
        ("deterministic = 1", &["deterministic = 1", "true or false"]),
        ("name = 3", &["name = 3", "a string", "name"]),
        (
            "dir = false",
            &["dir = false", "a string", "working directory"],
        ),
        (
            "args = \"uci\"",
            &["args = \"uci\"", "list of strings", "args = [\"uci\"]"],
        ),
        (
            "args = [\"uci\", 3]",
            &["args", "element 2 is 3", "list of strings"],
        ),
        ("options = 4", &["options = 4", "table of UCI options"]),
        (
            "reference_options = [1]",
            &["reference_options = [1]", "table of UCI options"],
        ),
        (
            "options = { Hash = [16] }",
            &["[options] Hash = [16]", "string, number or boolean"],
        ),
    ];
    for (i, (line, takes)) in cases.iter().enumerate() {
        let file = dir.join(format!("e{i}.toml"));
        // The bad key on line 3.
        std::fs::write(
            &file,
            format!("command = \"/bin/true\"\nparams = [{row}]\n{line}\n"),
        )
        .unwrap();
        let out = marginal(&["suite", text(&bk), "--engine", text(&file)], &dir);
        let at = format!("{}:3:", file.display());
        user_error(&out, &[&[at.as_str()][..], takes].concat(), line);
        // The file's words, not the parser's.
        assert_omits(&String::from_utf8_lossy(&out.stderr), &["invalid", "u64"]);
    }
    // The lists of rows and the command: their lines too.
    let cases: [(String, usize, &[&str]); 3] = [
        (
            "command = [\"x\"]\n".to_string(),
            1,
            &["command = [\"x\"]", "a string", "program"],
        ),
        (
            format!("command = \"x\"\nparams = {row}\n"),
            2,
            &["params = \"futility_margin, FutilityMargin"],
        ),
        (
            "command = \"x\"\nparams = [1]\n".to_string(),
            2,
            &["params", "element 1 is 1", "list of rows"],
        ),
    ];
    for (i, (text_, line, what)) in cases.iter().enumerate() {
        let file = dir.join(format!("c{i}.toml"));
        std::fs::write(&file, text_).unwrap();
        let out = marginal(&["suite", text(&bk), "--engine", text(&file)], &dir);
        let at = format!("{}:{line}:", file.display());
        user_error(&out, &[&[at.as_str()][..], what].concat(), text_);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine file whose arguments name a script beside it starts the engine in its own
/// directory, so it works whichever directory marginal is run from.
#[test]
fn an_engine_starts_in_its_files_directory() {
    let dir = scratch("external", "dir");
    let engines = dir.join("engines");
    std::fs::create_dir_all(&engines).unwrap();
    script(
        &engines,
        "engine.sh",
        &format!("exec '{}' uci\n", env!("CARGO_BIN_EXE_marginal")),
    );
    let file = engines.join("beside.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"beside\"\ncommand = \"sh\"\nargs = [\"engine.sh\"]\nparams = [\"{}\"]\n",
            ROWS[0]
        ),
    )
    .unwrap();
    let suite = small_suite(&dir, 3);
    let out = marginal(
        &[
            "suite",
            text(&suite),
            "--engine",
            text(&file),
            "--nodes",
            "500",
            "-q",
        ],
        &dir,
    );
    succeeded(&out, "suite with an engine started beside its file");
    // A command relative to the engine file (`./engine.sh`), the file given by a relative path
    // from another directory: the command is found once, beside the file (it was looked up
    // again from the engine's working directory, as `../engines/./engine.sh` from `engines`).
    std::fs::write(
        engines.join("relative.toml"),
        format!(
            "name = \"relative\"\ncommand = \"./engine.sh\"\nparams = [\"{}\"]\n",
            ROWS[0]
        ),
    )
    .unwrap();
    std::fs::write(
        engines.join("gone.toml"),
        "command = \"./gone.sh\"\nparams = [\"a, A, 1, 0, 9, 1, 0.002, 1\"]\n",
    )
    .unwrap();
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let from_elsewhere = |engine: &str| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(["suite", "../small.epd", "--engine", engine])
            .args(["--nodes", "500", "-q", "--no-cache"])
            .current_dir(&elsewhere)
            .output()
            .unwrap()
    };
    succeeded(
        &from_elsewhere("../engines/relative.toml"),
        "a relative command in an engine file given by a relative path",
    );
    // A missing one is named where it was looked for: beside its engine file.
    user_error(
        &from_elsewhere("../engines/gone.toml"),
        &[
            "engine could not be started",
            &format!(
                "{}: No such file",
                elsewhere.join("../engines/gone.sh").display()
            ),
        ],
        "a relative command that is missing",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine whose spin option's range does not fit in 64 bits is refused, naming the option
/// and what is wrong with it.
#[test]
fn a_spin_option_whose_range_overflows_is_named_as_such() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("external", "spin");
    let script = dir.join("huge.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name huge'; echo 'option name Big type spin default 200 min -99999999999999999999 max 99999999999999999999'; echo uciok ;;\n    isready) echo readyok ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = small_suite(&dir, 3);
    common::refused(
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
        &["'Big'", "spin option", "64 bits"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine file whose command holds its arguments is refused with the fix: the arguments
/// go in `args = [...]`.
#[test]
fn an_engine_command_with_its_arguments_in_it_names_args() {
    let dir = scratch("external", "spaced");
    let suite = small_suite(&dir, 5);
    let engine = dir.join("spaced.toml");
    std::fs::write(
        &engine,
        "command = \"./fake.py ok\"\nparams = [\"futility_margin, FutilityMargin, 125, 0, 1500, 10, 0.002, 1500\"]\n",
    )
    .unwrap();
    common::refused(
        &[
            "suite",
            suite.to_str().unwrap(),
            "--depth",
            "1",
            "--engine",
            engine.to_str().unwrap(),
        ],
        &dir,
        &["the arguments in args = [...]"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// marginal's own engine over UCI at a node budget: every search spends the budget, so equal
/// node counts are not taken to mean the engine ignores its options.
#[test]
fn a_node_limited_engine_is_not_said_to_ignore_its_options() {
    let dir = scratch("external", "node-budget");
    let suite = small_suite(&dir, 3);
    let cmd = format!("{} uci", env!("CARGO_BIN_EXE_marginal"));
    let args = [
        "suite",
        suite.to_str().unwrap(),
        "--engine-cmd",
        &cmd,
        "--engine-options",
        "FutilityMargin,DeltaMargin=0",
        "--nodes",
        "500",
        "-q",
    ];
    let out = marginal(&args, &dir);
    let text = common::said(&out);
    assert!(out.status.success(), "{text}");
    assert_omits(&text, &["ignores the options"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The engine file `engines/NAME.toml` shipped for an engine Debian packages: it parses, with
/// `rows`; None (said on standard error, with the package to install) when its program is not
/// installed here, so the runs below are skipped.
fn shipped_engine(name: &str, rows: &[&str]) -> Option<PathBuf> {
    use marginal::formats::engine_file::EngineFile;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("engines/{name}.toml"));
    let file = EngineFile::read(&path).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = file.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, rows, "{}", path.display());
    if !file.command.exists() {
        eprintln!(
            "skipped: {} is not installed, so {} was only parsed (apt-get install the engine's \
             Debian package to run it)",
            file.command.display(),
            path.display()
        );
        return None;
    }
    Some(path)
}

/// A shipped engine, described by `engine`, scores 5 WAC positions at 5,000 nodes with no fault,
/// and plays 2 games at 10,000 nodes of `a` (its file `a_engine`) against `engine`'s defaults
/// with no game lost to a fault. The figures are printed.
fn runs_without_faults(engine: &Path, a: &str, a_engine: &Path) {
    let dir = scratch("shipped", engine.file_stem().unwrap().to_str().unwrap());
    let positions = small_suite(&dir, 5);
    let report = suite(
        &dir,
        &[&positions],
        &["--engine", text(engine), "--nodes", "5000"],
        "s.json",
    );
    let positions = report["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 5);
    for p in positions {
        assert!(p["fault"].is_null() && p["best_move"].is_string(), "{p}");
    }
    let solved = positions.iter().filter(|p| p["solved"] == true).count();
    let nodes: u64 = positions.iter().map(|p| p["nodes"].as_u64().unwrap()).sum();
    eprintln!(
        "{}: suite at 5,000 nodes: {solved} of 5 solved, {nodes} nodes",
        engine.display()
    );
    let out = dir.join("m.json");
    let args = [
        "match",
        "--a",
        a,
        "--a-engine",
        text(a_engine),
        "--b",
        "default",
        "--b-engine",
        text(engine),
        "--nodes",
        "10000",
        "--games",
        "2",
        "--json",
        text(&out),
    ];
    succeeded(&marginal(&args, &dir), &format!("match {args:?}"));
    let played = json(&out);
    assert_eq!(played["games"], 2, "{played}");
    // No game is lost to marginal's reading of the engine (an illegal or missing move, a
    // budget misread, a hang). A crash of the engine itself is its own, said with its stderr:
    // GNU Chess 6.2.7's UCI adapter sometimes aborts (`engine.cc:558: ... Assertion
    // nread < BUF_SIZE-1 failed`), and that game is rightly a fault.
    for game in played["game_results"].as_array().unwrap() {
        if let Some(why) = game["termination"]["PlayerFailure"].as_str() {
            assert_names(why, &["engine crashed", "its stderr"]);
        }
    }
    eprintln!(
        "{}: match of {a} against the defaults, 2 games at 10,000 nodes: W-D-L {}, faults {}",
        engine.display(),
        played["wdl"],
        played["fault_losses"]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn glaurung_s_engine_file_scores_a_suite_and_plays_games_without_faults() {
    let rows = [
        "futility_margin_0",
        "futility_margin_1",
        "futility_margin_2",
        "razor_margin",
        "razor_depth",
    ];
    if let Some(engine) = shipped_engine("glaurung", &rows) {
        runs_without_faults(&engine, "futility_margin_1=150", &engine);
    }
}

#[test]
fn gnu_chess_s_engine_files_score_a_suite_and_play_games_without_faults() {
    let rows = ["futility_margin", "delta_margin"];
    let shipped = shipped_engine("gnuchess", &rows);
    let pruning = shipped_engine("gnuchess-pruning", &rows);
    if let (Some(engine), Some(pruning)) = (shipped, pruning) {
        // Its margins act only with their switches on: the pruning file, against the defaults.
        runs_without_faults(&engine, "futility_margin=150", &pruning);
        runs_without_faults(&pruning, "delta_margin=100", &pruning);
    }
}

/// GNU Chess ignores `go nodes`: in a match every one of its moves goes past the budget, is
/// stopped, and plays its last PV within it; the match counts those moves per side and says
/// so (issue 39: an engine that overshoots a node budget), losing no game to it.
#[test]
fn gnu_chess_past_the_node_budget_in_a_match_is_counted_and_said() {
    let Some(engine) = shipped_engine("gnuchess", &["futility_margin", "delta_margin"]) else {
        return;
    };
    let dir = scratch("shipped", "overshoot");
    let out = dir.join("m.json");
    let args = [
        "match",
        "--a",
        "default",
        "--a-engine",
        text(&engine),
        "--b",
        "default",
        "--nodes",
        "3000",
        "--games",
        "2",
        "--json",
        text(&out),
    ];
    let said = succeeded(&marginal(&args, &dir), "match at 3,000 nodes");
    let played = json(&out);
    let past = played["overshot_moves"]["a"].as_u64().unwrap();
    assert!(past > 0, "{played}");
    assert_eq!(played["overshot_moves"]["b"], 0, "{played}");
    assert_names(
        &said,
        &[
            &format!("moves past the node budget: A {past}, B 0"),
            "last PV",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Toga II's engine file edited wrong, as issue 39 lists: a row beyond the range Toga declares
/// for its option is refused (exit 2) naming the file, the row and both ranges; a row naming
/// an option Toga does not have is refused listing the options it has; an [options] line Toga
/// does not declare is a warning naming the file and the option, and the run goes on.
#[test]
fn toga_s_engine_file_with_a_wrong_row_or_option_is_refused_or_warned_naming_it() {
    let Some(engine) = shipped_engine(
        "toga2",
        &["futility_margin", "ext_futility_margin", "delta_margin"],
    ) else {
        return;
    };
    let dir = scratch("shipped", "toga-edits");
    let shipped = std::fs::read_to_string(&engine).unwrap();
    let edited = |name: &str, from: &str, to: &str| {
        assert!(shipped.contains(from), "{from}");
        let path = dir.join(name);
        std::fs::write(&path, shipped.replace(from, to)).unwrap();
        path
    };
    let play = |file: &Path| {
        let args = [
            "match",
            "--a",
            "default",
            "--a-engine",
            text(file),
            "--b",
            "default",
            "--b-engine",
            text(file),
            "--nodes",
            "2000",
            "--games",
            "2",
            "-q",
        ];
        marginal(&args, &dir)
    };
    let wide = edited(
        "wide.toml",
        "Futility Margin, 100, 0, 500",
        "Futility Margin, 100, 0, 5000",
    );
    user_error(
        &play(&wide),
        &["wide.toml", "futility_margin", "[0, 5000]", "[0, 500]"],
        "a row beyond the declared range",
    );
    let unknown = edited("unknown.toml", "Delta Margin, 50", "Delta Marjin, 50");
    user_error(
        &play(&unknown),
        &[
            "unknown.toml",
            "delta_margin",
            "'Delta Marjin'",
            "Delta Margin",
        ],
        "a row naming no option of the engine",
    );
    let option = edited(
        "option.toml",
        "\"Number of Threads\" = 1",
        "\"Number of Threadz\" = 1",
    );
    let out = play(&option);
    let said = succeeded(&out, "an [options] line the engine does not declare");
    let warned = String::from_utf8_lossy(&out.stderr);
    assert_names(
        &warned,
        &[
            "option.toml:",
            "Number of Threadz",
            "declares no such option",
            "remove the line",
        ],
    );
    assert_names(&said, &["games 2:"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine that cannot be started for want of file descriptors (`ulimit -n`) is said to have
/// run into that limit, with the engine's command, not only "Too many open files" (campaign of
/// issue 38). Exit 2.
#[test]
fn an_engine_start_that_runs_out_of_file_descriptors_names_the_limit() {
    let run = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 10; exec {} suite data/suites/wac.epd --engine-cmd cat --engine-options X --nodes 100 -q",
            env!("CARGO_BIN_EXE_marginal")
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{said}");
    assert_names(&said, &["cat", "could not be started", "ulimit -n"]);
}
