//! External engines that misbehave, run as a user runs marginal: a tiny fake UCI engine
//! (`examples/fake_engine.rs`) crashes, hangs, falls silent, plays an illegal move, answers
//! garbage, floods its output, dies in the handshake or ignores `go nodes`. Each fault is
//! recorded with its reason (suite JSON and summary; match PGN, JSON and summary), the engine
//! is restarted, the run completes with exit 0, and no engine process outlives marginal: not
//! after a run, not after Ctrl-C, not after SIGKILL.
//!
//! The fake engine is an example of this crate, built here with cargo (as `cargo test` does
//! with every example). Every limit here only turns a hang into a failure: nothing asserts a
//! speed.
//!
//! Linux only: processes are found in `/proc`, and the kernel's parent-death signal is what
//! ends the engines of a killed marginal.
#![cfg(target_os = "linux")]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use marginal::engine::external::Fault;
use marginal::engine::{EngineDef, Limits, Setting, Worker};
use marginal::formats::engine_file::EngineFile;
use marginal::formats::epd::parse_line;
use marginal::formats::uci_move;
use serde_json::Value;
use shakmaty::{Chess, Position};

mod common;
use common::child::{LIMIT, Run, finish};
use common::{assert_names, assert_omits, scratch, small_suite};

/// The hang timeout of the engine files (`timeout_ms`): short, so hangs cost little.
const SHORT_MS: u64 = 300;

/// A hang timeout no test waits for.
const LONG_MS: u64 = 600_000;

/// The fake engine, built beside marginal with the same profile (`cargo test` builds the
/// examples, but not for `--test external_faults` alone, and then not afresh: so it is built
/// here, which costs nothing when it is current).
fn fake_engine() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let profile_dir = Path::new(env!("CARGO_BIN_EXE_marginal")).parent().unwrap();
        let profile = profile_dir.file_name().unwrap().to_str().unwrap();
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args([
                "build",
                "--quiet",
                "--example",
                "fake_engine",
                "--target-dir",
            ])
            .arg(profile_dir.parent().unwrap())
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if profile != "debug" {
            cargo.args(["--profile", profile]);
        }
        let status = cargo.status().expect("run cargo");
        assert!(status.success(), "cannot build the fake engine: {status}");
        let path = profile_dir
            .join("examples")
            .join(format!("fake_engine{}", std::env::consts::EXE_SUFFIX));
        assert!(path.exists(), "no fake engine at {}", path.display());
        path
    })
}

/// Writes `dir/NAME.toml`: the fake engine in `mode` after `good` good searches, counted hung
/// after `timeout_ms`. Its processes name `dir` and record their ids in `dir/pids`. The
/// reference run sets `Faulty = false`, so only the scored run misbehaves (but `handshake`).
fn engine_file(dir: &Path, name: &str, mode: &str, good: u32, timeout_ms: u64) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    let text = format!(
        "name = \"fake {mode}\"\ncommand = {:?}\nargs = [{mode:?}, \"{good}\", {:?}]\ntimeout_ms = {timeout_ms}\n\n[reference_options]\nFaulty = false\n",
        fake_engine().to_str().unwrap(),
        dir.to_str().unwrap(),
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The ids of the fake engine processes started for `dir`.
fn pids(dir: &Path) -> Vec<u32> {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// The running processes whose command line names `dir` (zombies have none): the fake
/// engines (`dir` is an argument) and marginal (its files are in `dir`).
fn running(dir: &Path) -> Vec<String> {
    let marker = dir.to_str().unwrap().as_bytes();
    common::child::processes()
        .into_iter()
        .filter(|p| {
            // `dir` itself or a path in it, not a longer name it begins.
            p.cmdline.windows(marker.len() + 1).any(|w| {
                w[..marker.len()] == *marker && (w[marker.len()] == 0 || w[marker.len()] == b'/')
            })
        })
        .map(|p| {
            format!(
                "{}: {}",
                p.pid,
                String::from_utf8_lossy(&p.cmdline).replace('\0', " ")
            )
        })
        .collect()
}

/// Fails unless every fake engine of `dir` has ended (waiting a little for the kernel to
/// finish off the ones it was told to kill).
fn assert_none_left(dir: &Path) {
    let start = Instant::now();
    loop {
        let left = running(dir);
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "engine processes outlived marginal: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `marginal ARGS` from the crate's root with the reference cache in `dir/cache`, its
/// output in `dir/NAME.out` and `dir/NAME.err`.
fn spawn(dir: &Path, name: &str, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(args)
        .env("MARGINAL_CACHE_DIR", dir.join("cache"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(File::create(dir.join(format!("{name}.out"))).unwrap())
        .stderr(File::create(dir.join(format!("{name}.err"))).unwrap())
        .spawn()
        .expect("start marginal")
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `marginal suite` of the first `positions` WAC positions (written into `dir`) with `engine`
/// at 1,000 nodes on one thread, and `extra` arguments, run to its end.
fn suite_run(dir: &Path, engine: &Path, positions: usize, extra: &[&str]) -> Run {
    let epd = small_suite(dir, positions);
    let mut args = vec![
        "suite",
        path(&epd),
        "--engine",
        path(engine),
        "--nodes",
        "1000",
        "--threads",
        "1",
    ];
    args.extend_from_slice(extra);
    finish(dir, "suite", spawn(dir, "suite", &args))
}

/// `marginal suite` of the first `positions` WAC positions at 1,000 nodes on one thread (so
/// one engine process at a time sees the positions one after the other) with the fake engine
/// in `mode` after `good` good searches; the run, its JSON report and `dir`.
fn suite(mode: &str, good: u32, positions: usize) -> (Run, Value, PathBuf) {
    let dir = scratch("faults", &format!("suite-{mode}"));
    let engine = engine_file(&dir, "fake", mode, good, SHORT_MS);
    let json = dir.join("report.json");
    let run = suite_run(&dir, &engine, positions, &["--json", path(&json)]);
    assert_none_left(&dir);
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (run, report, dir)
}

/// The `fault` of each position of a suite report (None where it found a move).
fn faults(report: &Value) -> Vec<Option<String>> {
    report["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let fault = p["fault"].as_str().map(str::to_string);
            assert_eq!(fault.is_some(), p["best_move"].is_null(), "{p}");
            fault
        })
        .collect()
}

/// The summary lines of the faulted positions: `  suite:line id: reason`.
fn fault_lines<'a>(run: &'a Run, report: &Value) -> Vec<&'a str> {
    let prefix = format!("  {}:", report["suites"][0]["path"].as_str().unwrap());
    run.stdout
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .collect()
}

/// A suite run whose engine faults on `faulted` of its positions with a reason starting with
/// `reason`: each recorded in the JSON and listed in the summary, the rest solved normally
/// (so the engine was restarted), the reference run clean and cached.
fn assert_suite_faults(mode: &str, good: u32, positions: usize, faulted: usize, reason: &str) {
    let (run, report, dir) = suite(mode, good, positions);
    if faulted < positions {
        run.assert_success();
    } else {
        // Nothing searched: the report is written, the faults listed, and the run fails.
        assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "faulted on every one of the {positions} positions (first: {reason}"
            )),
            "{}",
            run.stderr
        );
    }
    let found: Vec<String> = faults(&report).into_iter().flatten().collect();
    assert_eq!(found.len(), faulted, "{found:?}");
    for why in &found {
        assert!(why.starts_with(reason), "'{why}' is not '{reason}...'");
    }
    assert_eq!(report["faults"], faulted);
    assert!(report.get("reference_faults").is_none(), "{report}");
    if faulted < positions {
        // The comparisons with the reference cover the positions both runs searched: the fake
        // engine plays the same move in both, so it agrees on all of them (a fault is no
        // disagreement), and the table says how many were compared.
        assert_eq!(report["objective"]["agreement"], 100.0, "{report}");
        let compared = format!("{} position(s) both runs searched", positions - faulted);
        assert_names(
            &run.stdout,
            &[&compared, &format!("the {faulted} with a fault")],
        );
    }
    // How many positions faulted of how many, and what was done with them.
    let counted = format!("engine faults on {faulted} of {positions} positions");
    assert_names(&run.stdout, &[&counted, "scored unsolved", "restarted"]);
    let lines = fault_lines(&run, &report);
    assert_eq!(lines.len(), faulted, "{}", run.stdout);
    for (line, p) in lines.iter().zip(
        report["positions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["fault"].is_string()),
    ) {
        assert_eq!(
            *line,
            format!(
                "  {}:{} {}: {}",
                p["suite"].as_str().unwrap(),
                p["line"],
                p["id"].as_str().unwrap(),
                p["fault"].as_str().unwrap()
            )
        );
    }
    // A faulted position is unsolved at the reference's node count.
    for p in report["positions"].as_array().unwrap() {
        if p["fault"].is_string() {
            assert_eq!(
                (&p["solved"], &p["nodes"]),
                (&false.into(), &p["reference_nodes"])
            );
        }
    }
    // The clean reference run was kept.
    assert_eq!(std::fs::read_dir(dir.join("cache")).unwrap().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_crash_after_two_moves_is_recorded_and_the_restarted_engine_goes_on() {
    // One process solves two positions and crashes on the third: 2 faults in 6 positions,
    // and 4 positions played, which takes a restart.
    // The fault quotes the last words it wrote on its standard error.
    assert_suite_faults(
        "crash",
        2,
        6,
        2,
        "engine crashed (exit status: 3), its stderr ended: 'fake engine: crashing as asked'",
    );
}

#[test]
fn a_hang_in_a_search_is_a_fault_after_the_timeout() {
    assert_suite_faults("hang", 1, 4, 2, "engine hung: no bestmove within ");
}

#[test]
fn a_hang_in_isready_is_a_fault_too() {
    // Falls silent after each process's first search: the next position's `isready` goes
    // unanswered.
    assert_suite_faults("mute", 0, 4, 2, "engine hung: no readyok within 0.3 s");
}

#[test]
fn an_illegal_move_is_a_fault() {
    assert_suite_faults("illegal", 0, 3, 3, "engine played an illegal move '");
}

#[test]
fn a_garbage_bestmove_is_a_fault() {
    assert_suite_faults(
        "garbage",
        0,
        3,
        3,
        "engine sent garbage: 'bestmove !?garbage?!'",
    );
}

#[test]
fn an_engine_that_floods_its_output_without_a_bestmove_is_hung() {
    assert_suite_faults("noise", 1, 4, 2, "engine hung: no bestmove within ");
}

#[test]
fn an_engine_that_dies_in_the_handshake_is_refused_before_any_work() {
    // The engine is started once before a suite or match begins: one that cannot finish the
    // handshake is an unusable environment (exit 2, naming the engine file), not a run of
    // faults; nothing is cached and no process is left.
    for command in ["suite", "match"] {
        let dir = scratch("faults", &format!("{command}-handshake"));
        let engine = engine_file(&dir, "fake", "handshake", 0, SHORT_MS);
        let epd = small_suite(&dir, 3);
        let args: Vec<&str> = match command {
            "suite" => vec![
                "suite",
                path(&epd),
                "--engine",
                path(&engine),
                "--nodes",
                "1000",
            ],
            _ => vec![
                "match",
                "--a",
                "default",
                "--b",
                "default",
                "--a-engine",
                path(&engine),
                "--nodes",
                "300",
                "--games",
                "2",
            ],
        };
        let child = spawn(&dir, command, &args);
        let run = finish(&dir, command, child);
        assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
        let want = format!("{}: engine crashed (exit status: 4)", engine.display());
        assert!(run.stderr.contains(&want), "{}", run.stderr);
        assert!(
            !dir.join("cache").exists()
                || std::fs::read_dir(dir.join("cache")).unwrap().count() == 0
        );
        assert_none_left(&dir);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn an_engine_past_the_node_budget_is_stopped_and_its_last_pv_within_it_taken() {
    let (run, report, dir) = suite("overshoot", 0, 4);
    run.assert_success();
    assert_eq!(faults(&report), vec![None; 4]);
    assert_eq!(report["overshot"], 4);
    for p in report["positions"].as_array().unwrap() {
        assert_eq!(p["overshot"], true, "{p}");
        // Within the budget the fake engine's PV is the first legal move; beyond it, another.
        let line = p["line"].as_u64().unwrap() as usize;
        let text = std::fs::read_to_string(dir.join("small.epd")).unwrap();
        let record = parse_line(text.lines().nth(line - 1).unwrap(), line)
            .unwrap()
            .unwrap();
        let first = uci_move(record.position.legal_moves()[0]);
        assert_eq!(p["best_move"], first.as_str(), "{p}");
        assert_eq!(p["nodes"], 1000, "{p}");
    }
    // On how many positions, and what was taken instead.
    let line = run.line("stopped past the node budget");
    assert_names(
        line,
        &["4 of 4 positions", "go nodes", "last PV within the budget"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_illegal_or_garbage_bestmove_past_the_node_budget_is_a_fault_still() {
    // The last PV within the budget is what is scored, but the move the engine answered is
    // checked too: an engine whose every answer is illegal or unreadable measures nothing.
    assert_suite_faults(
        "overshoot-illegal",
        0,
        3,
        3,
        "engine played an illegal move '",
    );
    assert_suite_faults(
        "overshoot-garbage",
        0,
        3,
        3,
        "engine sent garbage: 'bestmove !?garbage?!'",
    );
}

/// A two-game `marginal match` of the fake engine in `mode` (A, after `good` good moves in
/// each game) against marginal's own engine (B) at 300 nodes a move; the run, its JSON report,
/// its PGN and `dir`.
fn fake_match(mode: &str, good: u32) -> (Run, Value, String, PathBuf) {
    let dir = scratch("faults", &format!("match-{mode}"));
    let engine = engine_file(&dir, "fake", mode, good, SHORT_MS);
    let (pgn, json) = (dir.join("games.pgn"), dir.join("report.json"));
    let child = spawn(
        &dir,
        "match",
        &[
            "match",
            "--a",
            "default",
            "--b",
            "default",
            "--a-engine",
            path(&engine),
            "--nodes",
            "300",
            "--games",
            "2",
            "--concurrency",
            "1",
            "--max-plies",
            "60",
            "--pgn",
            path(&pgn),
            "--json",
            path(&json),
        ],
    );
    let run = finish(&dir, "match", child);
    assert_none_left(&dir);
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (run, report, std::fs::read_to_string(&pgn).unwrap(), dir)
}

/// A match in which the fake engine (`good` good searches) faults in both games with a reason
/// starting with `reason` after `moves` moves of its own in each: it loses both, the reason is
/// in the JSON, the PGN and the summary, and the second game's fresh engine plays its moves
/// again.
fn assert_match_faults(mode: &str, good: u32, moves: u32, reason: &str) {
    let (run, report, pgn, dir) = fake_match(mode, good);
    // Engine A lost both games to faults: the games are reported and kept, and the command
    // fails (exit 2) naming the engine, since no Elo here measures its margins.
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    // The engine (side and file), how many games, and the first fault.
    let file = dir.join("fake.toml");
    assert_names(
        &run.stderr,
        &["engine A", file.to_str().unwrap(), "2 games", reason],
    );
    assert_eq!(report["wdl"]["losses"], 2, "{report}");
    assert_eq!(report["fault_losses"]["a"], 2, "{report}");
    assert_eq!(report["fault_losses"]["b"], 0, "{report}");
    let games = report["game_results"].as_array().unwrap();
    let mut reasons = Vec::new();
    for (game, a_white) in games.iter().zip([true, false]) {
        assert_eq!(game["a_result"], "Loss", "{game}");
        let why = game["termination"]["PlayerFailure"]
            .as_str()
            .unwrap_or_else(|| panic!("no player failure in {game}"));
        assert!(why.starts_with(reason), "'{why}' is not '{reason}...'");
        // A's moves, then the fault on its next one: a restarted engine in game 2.
        let plies = 2 * u64::from(moves) + u64::from(!a_white);
        assert_eq!(game["plies"], plies, "{game}");
        assert!(pgn.contains(&format!("{{player failure: {why}}}")), "{pgn}");
        reasons.push(why.to_string());
    }
    assert_eq!(
        pgn.matches("[Termination \"rules infraction\"]").count(),
        2,
        "{pgn}"
    );
    run.assert_prints("games lost to engine faults: A 2, B 0");
    assert_names(
        &run.stderr,
        &["warning", "2 of the 2 games", "100%", "faults"],
    );
    if reasons[0] == reasons[1] {
        run.assert_prints(&format!("  A: {} (2 games)", reasons[0]));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_match_engine_that_crashes_loses_its_games() {
    assert_match_faults(
        "crash",
        1,
        1,
        "engine crashed (exit status: 3), its stderr ended: 'fake engine: crashing as asked'",
    );
}

#[test]
fn a_match_engine_that_hangs_loses_its_games() {
    assert_match_faults("hang", 1, 1, "engine hung: no bestmove within ");
}

#[test]
fn a_match_engine_silent_at_isready_loses_its_games() {
    // Silent after its first move: a game sends `isready` only before it starts, so the fault
    // comes as a hung search.
    assert_match_faults("mute", 0, 1, "engine hung: no bestmove within ");
}

#[test]
fn a_match_engine_that_plays_an_illegal_move_loses_its_games() {
    assert_match_faults("illegal", 2, 2, "engine played an illegal move '");
}

#[test]
fn a_match_engine_that_answers_garbage_loses_its_games() {
    assert_match_faults(
        "garbage",
        0,
        0,
        "engine sent garbage: 'bestmove !?garbage?!'",
    );
}

#[test]
fn a_match_engine_past_the_node_budget_that_answers_badly_loses_its_games() {
    assert_match_faults("overshoot-illegal", 1, 1, "engine played an illegal move '");
    assert_match_faults(
        "overshoot-garbage",
        0,
        0,
        "engine sent garbage: 'bestmove !?garbage?!'",
    );
}

#[test]
fn a_match_engine_that_floods_its_output_loses_its_games() {
    assert_match_faults("noise", 1, 1, "engine hung: no bestmove within ");
}

#[test]
fn a_match_engine_past_the_node_budget_plays_its_last_pv_within_it() {
    let (run, report, pgn, dir) = fake_match("overshoot", 0);
    run.assert_success();
    assert_eq!(report["fault_losses"]["a"], 0, "{report}");
    assert_eq!(report["games"], 2, "{report}");
    run.assert_prints("games lost to engine faults: A 0, B 0");
    // Every move of A's fake engine went past the budget: counted, said, and kept in the PGN
    // a resumed match reads; B (marginal's own engine) stops at it.
    let past = report["overshot_moves"]["a"].as_u64().unwrap();
    assert!(past > 0, "{report}");
    assert_eq!(report["overshot_moves"]["b"], 0, "{report}");
    let said = format!("moves past the node budget: A {past}, B 0 (");
    assert!(run.stdout.contains(&said), "{}", run.stdout);
    assert!(pgn.contains("[MarginalOvershot "), "{pgn}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine that cannot keep the match's clock (the fake engine goes silent after two
/// searches, under `--tc 0.2+0`) loses its games on time, not to a fault: counted, and warned
/// of naming its engine file, the time control and the fix; the run goes on to its end
/// (issue 39: a time control the engine cannot keep).
#[test]
fn a_match_engine_that_cannot_keep_the_clock_loses_on_time_and_is_warned_of() {
    let dir = scratch("faults", "match-clock");
    let engine = engine_file(&dir, "fake", "hang", 2, SHORT_MS);
    let json = dir.join("report.json");
    let args = [
        "match",
        "--a",
        "default",
        "--b",
        "default",
        "--a-engine",
        path(&engine),
        "--tc",
        "0.2+0",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--max-plies",
        "60",
        "--json",
        path(&json),
    ];
    let run = finish(&dir, "match", spawn(&dir, "match", &args));
    assert_none_left(&dir);
    run.assert_success();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["time_losses"]["a"], 2, "{report}");
    assert_eq!(report["fault_losses"]["a"], 0, "{report}");
    run.assert_prints("time losses: A 2, B 0");
    assert_names(
        &run.stderr,
        &[
            "engine A",
            path(&engine),
            "2 of the 2 games on time",
            "--tc 0.2+0",
            "longer --tc",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Starts `marginal ARGS` (as [`spawn`]) and waits until `engines` fake engine processes of
/// `dir` have started and the last is still running.
fn spawn_until_engines(dir: &Path, name: &str, args: &[&str], engines: usize) -> Child {
    let mut child = spawn(dir, name, args);
    let start = Instant::now();
    while pids(dir).len() < engines || pids(dir).last().is_some_and(|&pid| gone(pid)) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("marginal ended ({status}) before starting {engines} engine(s)");
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("marginal started no engine within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Past the handshake and into the search that hangs.
    std::thread::sleep(Duration::from_millis(200));
    child
}

/// Sends `child` a signal (`-INT`, `-KILL`) with `kill`, as a user's shell does.
fn signal(child: &Child, which: &str) {
    let kill = Command::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success(), "kill {which} failed");
}

/// `marginal suite` with an engine that hangs (for 10 minutes) on its first scored position,
/// once that engine is running.
fn hung_suite(dir: &Path) -> Child {
    let engine = engine_file(dir, "hang", "hang", 0, LONG_MS);
    let epd = small_suite(dir, 2);
    let args = [
        "suite",
        path(&epd),
        "--engine",
        path(&engine),
        "--nodes",
        "1000",
        "--threads",
        "1",
    ];
    // The reference run's engine, then the scored run's.
    spawn_until_engines(dir, "suite", &args, 2)
}

#[test]
fn ctrl_c_ends_a_suite_and_its_engines() {
    let dir = scratch("faults", "suite-ctrl-c");
    let child = hung_suite(&dir);
    signal(&child, "-INT");
    let run = finish(&dir, "suite", child);
    // suite keeps no partial score: it says so and ends with 130, its engines with it.
    assert_eq!(run.status.code(), Some(130), "{}", run.status);
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sigkill_of_marginal_ends_its_engines() {
    use std::os::unix::process::ExitStatusExt;
    let dir = scratch("faults", "suite-sigkill");
    let child = hung_suite(&dir);
    signal(&child, "-KILL");
    let run = finish(&dir, "suite", child);
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{}", run.status);
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ctrl_c_ends_a_match_at_once_even_against_a_hung_engine() {
    let dir = scratch("faults", "match-ctrl-c");
    let engine = engine_file(&dir, "hang", "hang", 0, LONG_MS);
    let (pgn, json) = (dir.join("games.pgn"), dir.join("report.json"));
    let args = [
        "match",
        "--a",
        "default",
        "--b",
        "default",
        "--a-engine",
        path(&engine),
        "--nodes",
        "300",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--pgn",
        path(&pgn),
        "--json",
        path(&json),
    ];
    let child = spawn_until_engines(&dir, "match", &args, 1);
    signal(&child, "-INT");
    // Without the engines killed at the interrupt, this would wait out the 10 minutes.
    let run = finish(&dir, "match", child);
    assert_eq!(run.status.code(), Some(130), "{}{}", run.stdout, run.stderr);
    assert_names(run.line("interrupted"), &["0 whole pairs", "abandoned"]);
    // The killed engine's game is abandoned, not scored as its fault.
    run.assert_prints("games lost to engine faults: A 0, B 0");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        (&report["games"], &report["interrupted"]),
        (&0.into(), &true.into())
    );
    assert_omits(&std::fs::read_to_string(&pgn).unwrap(), &["[Event"]);
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The engine of `dir`'s `mode` engine file as a library worker.
fn worker(dir: &Path, mode: &str, good: u32) -> Worker {
    let file = engine_file(dir, mode, mode, good, SHORT_MS);
    let def = Arc::new(EngineDef::from_file(&EngineFile::read(&file).unwrap()));
    Worker::new(&Setting::defaults(&def), 1)
}

/// Whether process `pid` is gone: ended and reaped (no zombie is left either).
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn a_hung_or_silent_engine_is_killed_and_reaped_at_once_and_restarted() {
    let start = Chess::default();
    let search = |w: &mut Worker| {
        w.new_game()
            .and_then(|()| w.search(&start, &[], &[], &start, &Limits::nodes(100)))
    };
    // (mode, good searches, what it does not send): `mute` answers its first search and then
    // nothing, `isready` included.
    for (mode, good, what) in [
        ("hang", 1, "bestmove"),
        ("mute", 0, "readyok"),
        ("noise", 1, "bestmove"),
    ] {
        let dir = scratch("faults", &format!("worker-{mode}"));
        let mut w = worker(&dir, mode, good);
        assert!(search(&mut w).unwrap().best_move.is_some());
        match search(&mut w) {
            Err(Fault::Hung { what: w, .. }) => assert_eq!(w, what, "{mode}"),
            other => panic!("{mode}: {other:?}"),
        }
        // Killed and reaped before the fault came back.
        let first = pids(&dir);
        assert_eq!(first.len(), 1, "{mode}");
        assert!(gone(first[0]), "{mode}: engine {} left running", first[0]);
        // The next search starts a new process, which answers.
        assert!(search(&mut w).unwrap().best_move.is_some(), "{mode}");
        assert_eq!(pids(&dir).len(), 2, "{mode}");
        drop(w);
        assert!(pids(&dir).into_iter().all(gone), "{mode}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Writes `dir/NAME`: the fake engine crashing after `good` searches, with its `Margin` as the
/// one tunable row and no reference options (the reference run crashes too).
fn tunable_crash_engine(dir: &Path, name: &str, good: u32) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(
        &file,
        format!(
            "name = \"fake crash\"\ncommand = {:?}\nargs = [\"crash\", \"{good}\", {:?}]\ntimeout_ms = {SHORT_MS}\nparams = [\"margin, Margin, 100, 0, 500, 10, 0.002, 100\"]\n",
            fake_engine().to_str().unwrap(),
            dir.to_str().unwrap(),
        ),
    )
    .unwrap();
    file
}

/// A reference run with faults, not cached because --no-cache asked for none: its faults are
/// listed, with no warning that it was not cached.
#[test]
fn a_reference_run_with_faults_and_no_cache_lists_them_without_a_cache_warning() {
    let dir = scratch("faults", "no-cache");
    // No reference options: the engine crashes after two searches, in both runs.
    let engine = tunable_crash_engine(&dir, "every3.toml", 2);
    let run = suite_run(&dir, &engine, 6, &["--no-cache"]);
    run.assert_success();
    let line = run.line("reference run: engine faults");
    assert_names(line, &["2 of 6 positions", "scored unsolved", "restarted"]);
    assert_omits(&run.stderr, &["not cached"]);
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tune_whose_engine_faults_on_every_search_fails_naming_it() {
    let dir = scratch("faults", "tune-all");
    // No reference options: the engine crashes on its first search, in every run.
    let engine = tunable_crash_engine(&dir, "always.toml", 0);
    let suite = common::small_suite(&dir, 4);
    let out = dir.join("t.json");
    let child = spawn(
        &dir,
        "tune",
        &[
            "tune",
            "--engine",
            path(&engine),
            "--suites",
            path(&suite),
            "--solver",
            "spsa",
            "--iterations",
            "2",
            "--nodes",
            "300",
            "--out",
            path(&out),
        ],
    );
    let run = finish(&dir, "tune", child);
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    // The engine file, that every search faulted, and the fault with its exit status.
    assert_names(
        &run.stderr,
        &[path(&engine), "every one", "crashed", "exit status: 3"],
    );
    assert!(!out.exists());
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `tune` of one SPSA iteration with `engine` on `suite` at `limit`, writing `out`.
fn one_spsa_step<'a>(
    engine: &'a Path,
    suite: &'a Path,
    limit: [&'a str; 2],
    out: &'a Path,
) -> Vec<&'a str> {
    let mut args = vec!["tune", "--engine", path(engine), "--suites", path(suite)];
    args.extend(["--solver", "spsa", "--iterations", "1"]);
    args.extend(limit);
    args.extend(["--out", path(out)]);
    args
}

#[test]
fn a_check_whose_engine_faults_on_every_search_gives_no_verdict() {
    let dir = scratch("faults", "check-all");
    let write = |name: &str, good: u32| tunable_crash_engine(&dir, name, good);
    // Tuned with an engine that behaves (it would crash only after a million searches)...
    let good = write("good.toml", 1_000_000);
    let suite = common::small_suite(&dir, 12);
    let tuned = dir.join("t.json");
    let args = one_spsa_step(&good, &suite, ["--nodes", "300"], &tuned);
    let run = finish(&dir, "tune", spawn(&dir, "tune", &args));
    run.assert_success();
    // ...and checked with one that crashes on its first search.
    let bad = write("bad.toml", 0);
    let args = ["check", path(&tuned), "--engine", path(&bad)];
    let run = finish(&dir, "check", spawn(&dir, "check", &args));
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    // 12 positions: the run gives up after the default 10 faults in a row, naming the file.
    let last = ["10 faults in a row", "crashed", "--max-faults"];
    assert_names(&run.stderr, &[&[path(&bad)][..], &last].concat());
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file tuned with an engine that faults now and then, checked with the same engine: the
/// faults fall on other searches this time, and check says so, never calling the file edited
/// or damaged for figures that moved with the faulted positions.
#[test]
fn a_check_whose_engine_faults_now_and_then_names_the_faults() {
    let dir = scratch("faults", "check-some");
    // A process crashes after 5 searches (and is started afresh).
    let engine = tunable_crash_engine(&dir, "sometimes.toml", 5);
    let suite = common::small_suite(&dir, 12);
    let tuned = dir.join("t.json");
    let args = one_spsa_step(&engine, &suite, ["--nodes", "300"], &tuned);
    let run = finish(&dir, "tune", spawn(&dir, "tune", &args));
    run.assert_success();
    // The tune counts the faults of its judging (tuned, defaults, off) beside the tuning's.
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tuned).unwrap()).unwrap();
    let tuning: u64 = (file["evaluations"].as_array().unwrap().iter())
        .map(|e| e["faults"].as_u64().unwrap_or(0))
        .sum();
    let total = file["provenance"]["faults"].as_u64().unwrap();
    assert!(total > tuning, "{total} {tuning}: {}", run.stderr);
    // The engine file and its faults: all of them, and while tuning and judging.
    let counts = [total, tuning, total - tuning].map(|n| format!("{n} "));
    let counts = counts.each_ref().map(String::as_str);
    assert_names(&run.stderr, &[&[path(&engine)][..], &counts].concat());
    let args = ["check", path(&tuned), "--threads", "1"];
    let run = finish(&dir, "check", spawn(&dir, "check", &args));
    let said = format!("{}{}", run.stdout, run.stderr);
    // The engine file and the faulted searches of each side.
    assert_names(&run.stderr, &[path(&engine), "search(es)", "training"]);
    // A verdict of figures the faults moved is no regression of the margins (exit 1) but an
    // unusable engine (exit 2); one that holds despite them is exit 0. Figures moved by the
    // faults are put down to them, not to an edit or a defect of a deterministic search.
    assert_omits(&said, &["edited or damaged", "deterministic"]);
    assert_omits(&run.stdout, &["verdict: regressed"]);
    if run.stdout.contains("verdict: none") {
        assert_eq!(run.status.code(), Some(2), "{said}");
        assert_names(&run.stderr, &["no verdict", "exit 2"]);
    } else {
        assert_eq!(run.status.code(), Some(0), "{said}");
    }
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// E039: a calibration whose games all end with an engine fault (each process crashes after 5
/// searches, so every game does, but the objectives are measured) gives no Elo: exit 2 naming
/// the games and what to remove, and no report is written.
#[test]
fn a_calibration_whose_games_all_fault_writes_no_report() {
    let dir = scratch("faults", "calibrate-games");
    let engine = tunable_crash_engine(&dir, "sometimes.toml", 5);
    let suite = common::small_suite(&dir, 12);
    let (out, state) = (dir.join("c.json"), dir.join("state"));
    let mut args = vec![
        "calibrate",
        "--engine",
        path(&engine),
        "--suite",
        path(&suite),
    ];
    // One round (a budget of its 12 games): the report's refusal, not a round's.
    args.extend([
        "--sets",
        "4",
        "--games",
        "4",
        "--max-games",
        "12",
        "--nodes",
        "500",
        "-q",
    ]);
    args.extend(["--objectives", "suite", "--resamples", "100"]);
    args.extend(["--out", path(&out), "--state", path(&state)]);
    let run = finish(&dir, "calibrate", spawn(&dir, "calibrate", &args));
    // The games, and the fix: the engine, then the state to remove.
    let state = state.to_str().unwrap();
    refused_writing_nothing(
        &dir,
        &run,
        &["12 games", "engine fault", "remove", state],
        &out,
    );
}

/// Campaign 21 E026: the quality objective's deep reference search with an engine that faults
/// now and then (each process crashes on its third search) leaves those positions out, says so
/// naming the engine file, and goes on (here to games that all fault: E039's refusal).
#[test]
fn a_deep_reference_fault_leaves_its_position_out_and_the_run_goes_on() {
    let dir = scratch("faults", "calibrate-quality");
    let engine = tunable_crash_engine(&dir, "third.toml", 2);
    let book = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings/noob_3moves_1k.epd"),
    )
    .unwrap();
    let positions = dir.join("positions.epd");
    std::fs::write(
        &positions,
        book.lines().take(8).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let (out, state) = (dir.join("c.json"), dir.join("state"));
    let mut args = vec!["calibrate", "--engine", path(&engine)];
    args.extend([
        "--quality-positions",
        path(&positions),
        "--objectives",
        "quality",
    ]);
    args.extend([
        "--sets",
        "4",
        "--games",
        "4",
        "--max-games",
        "12",
        "--nodes",
        "300",
        "-q",
    ]);
    args.extend([
        "--resamples",
        "100",
        "--out",
        path(&out),
        "--state",
        path(&state),
    ]);
    let run = finish(&dir, "calibrate", spawn(&dir, "calibrate", &args));
    // The engine file, the searches, the first position, and what is done with them.
    let warning = [
        path(&engine),
        "of the 8 deep reference searches",
        "position",
        "left out",
    ];
    assert_names(&run.stderr, &warning);
    assert_omits(&run.stderr, &["has no yardstick"]);
    refused_writing_nothing(&dir, &run, &["engine fault", path(&state)], &out);
}

/// A run refused because every game faulted: exit 2 naming each of `what`, `out` not written,
/// no engine left running; `dir` is removed.
fn refused_writing_nothing(dir: &Path, run: &common::child::Run, what: &[&str], out: &Path) {
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    assert_names(&run.stderr, what);
    assert!(!out.exists());
    assert_none_left(dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// E037: a games tune whose every game ended with an engine fault (each process crashes after
/// 5 searches) writes no tuned file and exits 2, as match and calibrate do.
#[test]
fn a_games_tune_whose_games_all_fault_writes_no_file() {
    let dir = scratch("faults", "tune-games");
    let engine = tunable_crash_engine(&dir, "sometimes.toml", 5);
    let out = dir.join("t.json");
    let mut args = vec!["tune", "--engine", path(&engine), "--objective", "games"];
    args.extend(["--solver", "spsa", "--iterations", "1", "--pairs", "2"]);
    args.extend(["--nodes", "300", "-q", "--out", path(&out)]);
    let run = finish(&dir, "tune", spawn(&dir, "tune", &args));
    let what = ["4 games", "engine fault", "fix the engine"];
    refused_writing_nothing(&dir, &run, &what, &out);
}

/// C006: an engine started by a wrapper script that does not `exec` it runs in the wrapper's
/// process group; when it hangs, marginal ends the whole group, so the real engine does not
/// outlive the run.
#[test]
fn a_hung_engine_behind_a_wrapper_script_ends_with_the_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("faults", "wrapper");
    let wrapper = dir.join("wrap.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{:?} hang 0 {:?}\n",
            fake_engine().to_str().unwrap(),
            dir.to_str().unwrap()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = dir.join("wrapped.toml");
    std::fs::write(
        &engine,
        format!(
            "name = \"wrapped\"\ncommand = {:?}\ntimeout_ms = {SHORT_MS}\n\n[reference_options]\nFaulty = false\n",
            wrapper.to_str().unwrap()
        ),
    )
    .unwrap();
    let epd = small_suite(&dir, 6);
    let args = [
        "suite",
        path(&epd),
        "--engine",
        path(&engine),
        "--nodes",
        "1000",
    ];
    let args = [&args[..], &["--threads", "1", "--max-faults", "2"]].concat();
    let run = finish(&dir, "suite", spawn(&dir, "suite", &args));
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    assert_names(
        &run.stderr,
        &[path(&engine), "2 faults in a row", "--max-faults"],
    );
    // The hung engines were started (their ids are in `pids`), and none is left.
    assert!(pids(&dir).len() >= 2, "{:?}", pids(&dir));
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--max-faults N`: after N faults in a row the run gives up on the engine at once (no more
/// processes, no more timeouts) and fails with exit 2 naming the engine file, the count and
/// the last fault; nothing is reported from searches that were not run.
#[test]
fn a_run_gives_up_on_an_engine_after_max_faults_in_a_row() {
    let dir = scratch("faults", "max-faults");
    let engine = engine_file(&dir, "fake", "hang", 0, SHORT_MS);
    let epd = small_suite(&dir, 20);
    let json = dir.join("report.json");
    let args = [
        "suite",
        path(&epd),
        "--engine",
        path(&engine),
        "--nodes",
        "1000",
        "--threads",
        "1",
        "--max-faults",
        "3",
        "--json",
        path(&json),
    ];
    let run = finish(&dir, "suite", spawn(&dir, "suite", &args));
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    // The engine file, the count, the last fault, and the flag that allows more.
    let why = ["3 faults in a row", "hung", "--max-faults"];
    assert_names(&run.stderr, &[&[path(&engine)][..], &why].concat());
    assert!(!json.exists(), "a report of searches not run");
    // The handshake check, the clean reference run, then one process a hung search: 3 hangs
    // and no more, of the 20 positions.
    assert!(pids(&dir).len() <= 5, "{:?}", pids(&dir));
    assert_none_left(&dir);

    // A match stops the same way, and its PGN keeps no pair it did not play.
    let pgn = dir.join("games.pgn");
    let args = [
        "match",
        "--a",
        "default",
        "--b",
        "default",
        "--a-engine",
        path(&engine),
        "--nodes",
        "300",
        "--games",
        "20",
        "--concurrency",
        "1",
        "--max-faults",
        "2",
        "--pgn",
        path(&pgn),
    ];
    let before = pids(&dir).len();
    let run = finish(&dir, "match", spawn(&dir, "match", &args));
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    assert_names(
        &run.stderr,
        &[path(&engine), "2 faults in a row", "--max-faults"],
    );
    assert_eq!(std::fs::read_to_string(&pgn).unwrap(), "");
    assert!(pids(&dir).len() - before <= 3, "{:?}", pids(&dir));
    assert_none_left(&dir);

    // 0: never give up (every position pays its hang, and is recorded as a fault).
    let args = [
        "suite",
        path(&epd),
        "--engine",
        path(&engine),
        "--nodes",
        "1000",
        "--threads",
        "2",
        "--max-faults",
        "0",
        "--json",
        path(&json),
    ];
    let run = finish(&dir, "suite", spawn(&dir, "suite", &args));
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    assert_names(
        &run.stderr,
        &[path(&engine), "every one of the 20 positions"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_match_whose_engines_both_crash_fails() {
    // Each side crashes on its first move: every game is lost by whoever moves first, and the
    // even score measures the colours, not the margins.
    let dir = scratch("faults", "match-both-crash");
    let engine = engine_file(&dir, "fake", "crash", 0, SHORT_MS);
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let e = path(&engine);
    let child = spawn(
        &dir,
        "match",
        &[
            "match",
            "--a",
            "default",
            "--b",
            "default",
            "--a-engine",
            &e,
            "--b-engine",
            &e,
            "--nodes",
            "300",
            "--games",
            "2",
            "--concurrency",
            "1",
        ],
    );
    let run = finish(&dir, "match", child);
    assert_eq!(run.status.code(), Some(2), "{}{}", run.stdout, run.stderr);
    // How many games, and how many each side lost.
    assert_names(
        &run.stderr,
        &["2 games", "engine fault", "A lost 1", "B lost 1"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A program that answers `uci` with lines that are not UCI, and never `uciok`: the handshake
/// fails naming what it said, not as a bare hang.
#[test]
fn a_program_that_is_not_a_uci_engine_is_named_with_what_it_said() {
    let dir = scratch("faults", "not-uci");
    let script = dir.join("chatty.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'Hello, I am a chess program'\necho 'type help for help'\ncat >/dev/null\n",
    )
    .unwrap();
    let file = dir.join("chatty.toml");
    std::fs::write(
        &file,
        format!(
            "command = \"sh\"\nargs = [{:?}]\ntimeout_ms = 300\nparams = [\"margin, Margin, 100, 0, 500, 10, 0.002, 100\"]\n",
            script.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args([
            "suite",
            "data/suites/bk.epd",
            "--depth",
            "1",
            "--no-cache",
            "--engine",
        ])
        .arg(&file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The engine file, and what the program said instead of UCI.
    let what = [
        "'Hello, I am a chess program'",
        "'type help for help'",
        "uciok",
    ];
    assert_names(&stderr, &[&[file.to_str().unwrap()][..], &what].concat());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The engine file of a fake engine whose `Margin` option changes nothing (`off` sets it to 0,
/// the defaults to 100), in `dir`.
fn deaf_engine(dir: &Path) -> PathBuf {
    let engine = dir.join("deaf.toml");
    std::fs::write(
        &engine,
        format!(
            "name = \"fake deaf\"\ncommand = {:?}\nargs = [\"good\", \"0\", {:?}]\ntimeout_ms = {SHORT_MS}\nparams = [\"margin, Margin, 100, 0, 500, 10, 0.002, 0\"]\n",
            fake_engine().to_str().unwrap(),
            dir.to_str().unwrap(),
        ),
    )
    .unwrap();
    engine
}

/// An engine that ignores the option carrying its margin searches alike under every set: the
/// check says so (as suite does against its reference), since it measured nothing of the set.
#[test]
fn a_check_whose_engine_ignores_its_margins_says_so() {
    let dir = scratch("faults", "check-ignored");
    let engine = deaf_engine(&dir);
    let suite = common::small_suite(&dir, 6);
    let tuned = dir.join("t.json");
    let args = one_spsa_step(&engine, &suite, ["--depth", "2"], &tuned);
    finish(&dir, "tune", spawn(&dir, "tune", &args)).assert_success();
    let run = finish(
        &dir,
        "check",
        spawn(&dir, "check", &["check", path(&tuned)]),
    );
    // The sets that searched alike, and where to look: the engine's `setoption` answers.
    let sets = ["tuned set", "defaults", "everything off", "setoption"];
    assert_names(&run.stderr, &sets);
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// An engine that ignores the option carrying its margin: a suite at a node budget says so
/// (the same move, nodes and score as the reference on every position), and a tune whose
/// evaluations all score the same says the margins changed nothing.
#[test]
fn a_suite_and_a_tune_at_a_node_budget_say_the_engine_ignores_its_margins() {
    let dir = scratch("faults", "deaf-nodes");
    let engine = deaf_engine(&dir);
    let suite = common::small_suite(&dir, 24);
    let args = [
        "suite",
        path(&suite),
        "--engine",
        path(&engine),
        "--nodes",
        "300",
    ];
    let run = finish(&dir, "suite", spawn(&dir, "suite", &args));
    run.assert_success();
    assert_names(&run.stderr, &["reference run", "setoption", "engine file"]);
    let tuned = dir.join("t.json");
    let mut args = one_spsa_step(&engine, &suite, ["--nodes", "300"], &tuned);
    args[8] = "3"; // --iterations
    let run = finish(&dir, "tune", spawn(&dir, "tune", &args));
    run.assert_success();
    // How many evaluations scored alike, and where to look.
    assert_names(&run.stderr, &["evaluations", "same objective", "setoption"]);
    assert_none_left(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}
