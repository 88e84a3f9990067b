//! `marginal match`: margin set against margin set in self-play, pentanomial Elo and SPRT.
//!
//! Ctrl-C (SIGINT) or SIGTERM stops it cleanly: no new pair starts, the games in flight are
//! abandoned (external engines are killed at once, so none keeps a game waiting), and the whole
//! pairs played are summed up (and written to `--json`) before it exits with status 130; a
//! second signal ends it at once. `--resume` goes on from the whole pairs of the `--pgn` file
//! (see [`resume`]).
//!
//! `--executor slurm` plays the pairs on a cluster, in batches of `shards x cpus-per-task`
//! pairs (one job array each, [`ExecutorArgs::batch_pairs`]), and counts each batch's pairs in
//! index order as a local match does (the SPRT after each pair; the pairs beyond a decision
//! are discarded): the counted games, the statistics and the PGN are the local match's. An
//! interrupt cancels the array out and sums up the whole pairs counted, as locally; `--resume`
//! works the same.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use marginal::engine::{EngineDef, Setting};
use marginal::formats::openings;
use marginal::scoring::games::game::{GameConfig, MoveLimit, Termination};
use marginal::scoring::games::matches::{
    MatchConfig, MatchReport, MatchResult, MatchStats, PairRecord, result_for_a,
};
use marginal::scoring::games::record;
use marginal::scoring::games::session::{self, MatchObserver, Session, SessionError};
use marginal::scoring::games::spec;
use marginal::scoring::games::stats::{
    EloSummary, GameResult, Shown, SprtDecision, SprtParams, sprt_llr,
};

use super::executor::{ExecutorArgs, exec_error};
use super::{
    Failed, Interrupted, UserError, count, depth_arg, engine_def, hash_arg, progress_bar,
    setting_from, threads, threads_arg, whole_pairs,
};

/// An SPRT's verdict in words. What the hypotheses say depends on the bounds: "stronger" only
/// when H0 is that A is no stronger (elo0 >= 0); below 0 (a non-regression test) H1 says A
/// loses at most what elo1 allows.
fn sprt_verdict(params: &SprtParams, decision: Option<SprtDecision>, interrupted: bool) -> String {
    match decision {
        Some(SprtDecision::AcceptH1) if params.elo0 >= 0.0 => {
            format!("H1 accepted: A is stronger (nElo {} or more)", params.elo1)
        }
        Some(SprtDecision::AcceptH1) => format!(
            "H1 accepted: A's nElo is {} or more (no regression beyond that)",
            params.elo1
        ),
        Some(SprtDecision::AcceptH0) if params.elo0 >= 0.0 => {
            format!(
                "H0 accepted: A is not stronger (nElo {} or less)",
                params.elo0
            )
        }
        Some(SprtDecision::AcceptH0) => {
            format!("H0 accepted: A is weaker (nElo {} or less)", params.elo0)
        }
        _ if interrupted => "no decision (interrupted)".into(),
        _ => "no decision yet".into(),
    }
}

/// Says when A and B are the same margin set of the same engine: the match can only measure 0.
fn say_twins(args: &MatchArgs, a: (&EngineDef, &Setting), b: (&EngineDef, &Setting)) {
    if a.0.signature() == b.0.signature() && a.1.uci_options() == b.1.uci_options() {
        eprintln!(
            "warning: --a '{}' and --b '{}' are the same margin set of the same engine: the match can only measure 0 Elo (useful as a check of the statistics, nothing more)",
            args.a, args.b
        );
    }
}

/// Refuses a --json that is the --pgn or its settings record however named (a link to either).
fn outputs_apart(pgn: &Path, json: &Path) -> Result<(), UserError> {
    let record = record::record_path(pgn);
    super::not_an_input(
        json,
        "--json",
        &[
            ("--pgn", pgn),
            ("--pgn's settings record", record.as_path()),
        ],
    )?;
    super::not_an_input(pgn, "--pgn", &[("--json", json)])
}

/// Arguments of `marginal match`.
#[derive(Args)]
pub struct MatchArgs {
    /// Engine A's margin set: a built-in name (default, off, bare, sound), a tuned .json file,
    /// or name=value assignments (for an external engine: default, off, its tuned file, or
    /// assignments to its rows).
    #[arg(long)]
    a: String,
    /// Engine B's margin set.
    #[arg(long)]
    b: String,
    /// Engine A is an external UCI engine described by this engine file (default: marginal's
    /// own engine).
    #[arg(long, value_name = "FILE")]
    a_engine: Option<PathBuf>,
    /// Engine B is an external UCI engine described by this engine file.
    #[arg(long, value_name = "FILE")]
    b_engine: Option<PathBuf>,
    /// Opening book: one FEN/EPD position a line.
    #[arg(long, default_value = "data/openings/UHO_4060_v2_2k.epd")]
    openings: PathBuf,
    /// Seed for shuffling the openings (same seed, same games at fixed nodes or depth).
    #[arg(long, default_value_t = 1, value_parser = super::seed_arg)]
    seed: u64,
    /// Most games to play (whole pairs: each opening twice, colours reversed; an odd number
    /// is rounded up, and said so).
    #[arg(long, default_value_t = 200, value_parser = count::<u32, 1>)]
    games: u32,
    /// Games played at once (default: all cores; at most 256).
    #[arg(long, value_parser = threads_arg())]
    concurrency: Option<usize>,
    /// Fixed nodes per move (the default, 5000).
    #[arg(long, conflicts_with_all = ["depth", "tc"], value_parser = count::<u64, 1>)]
    nodes: Option<u64>,
    /// Fixed depth per move, plies.
    #[arg(long, conflicts_with = "tc", value_parser = depth_arg())]
    depth: Option<u32>,
    /// Time control BASE+INC in seconds, e.g. 10+0.1 (real clocks; time losses counted).
    #[arg(long)]
    tc: Option<String>,
    /// Stop at an SPRT bound: elo0,elo1,alpha,beta in normalized Elo (default 0,5,0.05,0.05).
    #[arg(long, num_args = 0..=1, default_missing_value = "0,5,0.05,0.05", value_name = "ELO0,ELO1,ALPHA,BETA")]
    sprt: Option<String>,
    /// Write the games as PGN, pair by pair as they finish (only whole pairs). A file that
    /// already holds anything is refused, never overwritten: continue its match with --resume.
    /// The settings are kept beside it in FILE.match.json.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Continue the match in the --pgn file (after Ctrl-C or a kill) from its whole pairs; it
    /// ends as the uninterrupted match would. Needs the same settings (checked; --concurrency
    /// and --json may differ). An unfinished pair at the file's end is dropped. A missing or
    /// empty file starts the match.
    #[arg(long, requires = "pgn")]
    resume: bool,
    /// Write the whole match report as JSON (counts, pentanomial, Elo, nElo, LOS, SPRT, time
    /// losses, every game); statistics that are infinite are written as null.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Replace the --json file when it exists (without it, marginal refuses to write over one,
    /// except when it goes on with --resume). A --pgn file is never written over, even with it.
    #[arg(long)]
    force: bool,
    /// Resign adjudication SCORE:MOVES, e.g. 1000:4 (both sides see +-SCORE for MOVES moves).
    #[arg(long, value_name = "SCORE:MOVES")]
    resign: Option<String>,
    /// Draw adjudication SCORE:MOVES:AFTER, e.g. 10:8:40 (|score| <= SCORE for MOVES moves
    /// each, from move AFTER on).
    #[arg(long, value_name = "SCORE:MOVES:AFTER")]
    draw: Option<String>,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400, value_parser = count::<u32, 1>)]
    max_plies: u32,
    /// Transposition table per engine per game, megabytes (0 to 16384).
    #[arg(long, default_value_t = 4, value_parser = hash_arg)]
    hash: usize,
    /// Where the games are played (`--executor slurm`: in batches of job arrays).
    #[command(flatten)]
    executor: ExecutorArgs,
}

/// Parses a `BASE+INC` time control in seconds ([`spec::parse_tc`]).
pub(super) fn parse_tc(text: &str) -> Result<MoveLimit, UserError> {
    spec::parse_tc(text).map_err(UserError::from_display)
}

/// Parses an SPRT design `ELO0,ELO1,ALPHA,BETA` ([`spec::parse_sprt`]); the errors name
/// `--sprt`.
pub(super) fn parse_sprt(text: &str) -> Result<SprtParams, UserError> {
    spec::parse_sprt(text).map_err(UserError::from_display)
}

/// A share as a percentage with one decimal, or `n/a` (without a `%`) when not defined.
fn percent(share: Option<f64>) -> String {
    match share {
        Some(x) if x.is_finite() => format!("{:.1}%", 100.0 * x),
        _ => Shown(None).to_string(),
    }
}

/// A's score (not defined before the first game).
fn score(stats: &MatchStats) -> Option<f64> {
    Some(stats.score()).filter(|_| stats.games > 0)
}

fn status(stats: &MatchStats, sprt: Option<&SprtParams>) -> String {
    let e = EloSummary::from(stats.estimate());
    let mut s = format!(
        "score {}  Elo {:+.1} +- {:.1}",
        percent(score(stats)),
        Shown(e.elo),
        Shown(e.lower.zip(e.upper).map(|(lo, hi)| (hi - lo) / 2.0))
    );
    if let (Some(llr), Some(p)) = (stats.llr, sprt) {
        let (lo, hi) = p.bounds();
        s.push_str(&format!("  LLR {llr:.2} ({lo:.2}, {hi:.2})"));
    }
    s
}

/// The progress bar of a match: games played and the running score (and LLR).
struct Progress<'a> {
    bar: &'a indicatif::ProgressBar,
    sprt: Option<&'a SprtParams>,
}

impl MatchObserver for Progress<'_> {
    fn pair(&mut self, _pair: &PairRecord, stats: &MatchStats) {
        self.bar.set_position(stats.games);
        self.bar.set_message(status(stats, self.sprt));
    }

    fn cancelled(&mut self, why: &str) {
        eprintln!("slurm: {why}");
    }
}

/// The command's error for a session's: a record that cannot be used is the user's (exit 2),
/// an executor keeps its exit status.
fn session_error(e: SessionError, pgn: Option<&std::path::Path>) -> anyhow::Error {
    match e {
        SessionError::Record(e) => UserError(e.0).into(),
        SessionError::Write(e) => {
            let path = pgn.map_or_else(String::new, |p| format!(" {}", p.display()));
            anyhow::Error::new(e).context(format!(
                "cannot write the PGN file{path} (--pgn): the whole pairs written before it failed are kept there; free the space or fix the path, then `--resume` goes on from them"
            ))
        }
        SessionError::Exec(e) => exec_error(e),
    }
}

/// `--force` replaces the --json report: without one it does nothing, and a --pgn is never
/// written over.
fn force_needs_json(args: &MatchArgs) -> Result<(), UserError> {
    if !args.force || args.json.is_some() {
        return Ok(());
    }
    let pgn = match &args.pgn {
        Some(pgn) => format!(
            ": a --pgn file is never written over, even with --force; continue its match with --resume, or name another --pgn than {}",
            pgn.display()
        ),
        None => String::new(),
    };
    Err(UserError(format!(
        "--force replaces the --json report only, and no --json FILE is given{pgn}"
    )))
}

/// Refuses a --json onto the settings record of a match (`FILE.pgn.match.json`), even with
/// --force: replaced, that match could never be resumed.
fn not_a_settings_record(out: &std::path::Path) -> Result<(), UserError> {
    let is_record = super::read_output(out).is_some_and(|text| {
        serde_json::from_str::<serde_json::Value>(&text)
            .is_ok_and(|v| v["format"] == record::RECORD_FORMAT)
    });
    if is_record {
        return Err(UserError(format!(
            "--json {} is the settings record of a match's PGN file: marginal never replaces it, even with --force (that match could not be resumed without it); give another --json",
            out.display()
        )));
    }
    Ok(())
}

/// Refuses a --pgn or --json that names one of the match's inputs (the book, a tuned side, an
/// engine file).
fn check_outputs(args: &MatchArgs) -> Result<(), UserError> {
    force_needs_json(args)?;
    let mut inputs: Vec<(&str, &std::path::Path)> =
        vec![("the opening book", args.openings.as_path())];
    for (what, spec) in [("--a", &args.a), ("--b", &args.b)] {
        if spec.ends_with(".json") {
            inputs.push((what, std::path::Path::new(spec.as_str())));
        }
    }
    for (what, file) in [
        ("--a-engine", &args.a_engine),
        ("--b-engine", &args.b_engine),
    ] {
        if let Some(file) = file {
            inputs.push((what, file.as_path()));
        }
    }
    for (option, out) in [("--pgn", &args.pgn), ("--json", &args.json)] {
        if let Some(out) = out {
            super::not_an_input(out, option, &inputs)?;
        }
    }
    if let Some(pgn) = &args.pgn {
        let what = format!("--pgn {}: its settings record", pgn.display());
        super::not_an_input(&record::record_path(pgn), &what, &inputs)?;
    }
    if let (Some(pgn), Some(json)) = (&args.pgn, &args.json) {
        outputs_apart(pgn, json)?;
        if pgn == json {
            return Err(UserError(format!(
                "--pgn {} and --json {} would write the same file: give the report another name",
                pgn.display(),
                json.display()
            )));
        }
        if record::record_path(pgn) == *json {
            return Err(UserError(format!(
                "--json {} is where --pgn {} keeps its settings record (the PGN's name with .match.json, read by --resume): give the report another name",
                json.display(),
                pgn.display()
            )));
        }
    }
    // A rerun's games are named first: the way on is --resume, whatever the report says.
    if let (Some(pgn), false) = (&args.pgn, args.resume) {
        record::refuse_filled(pgn).map_err(|e| UserError(e.to_string()))?;
    }
    // Only a match that has games to go on from may write its report again unasked.
    let resuming = args.resume
        && args
            .pgn
            .as_ref()
            .is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0));
    if let Some(out) = &args.json {
        json_output(args, out, resuming)?;
    }
    if let Some(pgn) = &args.pgn {
        super::writable(pgn, "--pgn")?;
    }
    Ok(())
}

/// `--json OUT` may be written: no settings record; a resumed match writes its own report
/// again (any other file there is kept), a new one a fresh output.
fn json_output(args: &MatchArgs, out: &Path, resuming: bool) -> Result<(), UserError> {
    not_a_settings_record(out)?;
    if resuming {
        // The resumed match writes its own report again; any other file there is kept.
        let is_match_report = |text: String| {
            // An empty file is what a match killed before its report left (older versions
            // emptied --json at the start): nothing of the user's to keep.
            text.trim().is_empty()
                || serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| {
                    v["format"] == marginal::scoring::games::matches::MATCH_REPORT_FORMAT
                })
        };
        if !args.force && out.is_file() && !super::read_output(out).is_some_and(is_match_report) {
            return Err(UserError(format!(
                "--json {} exists and is not a match report: marginal does not replace it; give another --json, or add --force to replace it",
                out.display()
            )));
        }
        super::writable(out, "--json")?;
    } else {
        super::fresh_json_output(out, "--json", args.force)?;
    }
    Ok(())
}

/// The rules of every game (the per-move limit, adjudication, the ply cap) and the SPRT, as the
/// options give them.
fn game_rules(args: &MatchArgs) -> Result<(GameConfig, Option<SprtParams>), UserError> {
    let limit = match (&args.tc, args.depth, args.nodes) {
        (Some(tc), _, _) => parse_tc(tc)?,
        (None, Some(d), _) => MoveLimit::Depth(d.clamp(1, 100)),
        (None, None, n) => MoveLimit::Nodes(n.unwrap_or(5_000).max(1)),
    };
    let parse_resign = |t: &str| spec::parse_resign(t).map_err(UserError::from_display);
    let parse_draw = |t: &str| spec::parse_draw(t).map_err(UserError::from_display);
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let game = GameConfig {
        limit,
        resign: args.resign.as_deref().map(parse_resign).transpose()?,
        draw: args.draw.as_deref().map(parse_draw).transpose()?,
        max_plies: args.max_plies.max(1),
    };
    Ok((game, sprt))
}

/// `--draw` from a move that no game reaches (every game ends within --max-plies of its
/// opening, and the book's openings start at most at move `latest`): said once.
fn say_draw_never_applies(args: &MatchArgs, game: &GameConfig, latest: u32) {
    if let (Some(rule), Some(text)) = (game.draw, &args.draw) {
        let last = latest + game.max_plies.div_ceil(2);
        if rule.after_move > last {
            eprintln!(
                "warning: --draw {text} starts at move {}, but with --max-plies {} no game of this book goes past move {last}: it never adjudicates",
                rule.after_move, game.max_plies
            );
        }
    }
}

/// What a PGN record held when the match opened it: a pair cut off its end, and (resuming) the
/// pairs that count.
fn print_resumed(resumed: session::Resumed, path: &std::path::Path, resume: bool, total: usize) {
    let stream = marginal::formats::is_stream(path);
    let path = path.display();
    if let Some((bytes, games)) = resumed.dropped {
        let whole = if games > 0 {
            ", a first game without its partner among them"
        } else {
            ""
        };
        println!("resume: dropped the unfinished pair at the end of {path} ({bytes} bytes{whole})");
    }
    if resume && stream {
        println!(
            "resume: {path} is a device or pipe, written to and never read: no pair counts, the match starts from pair 1"
        );
    } else if resume && resumed.pairs >= total {
        println!(
            "resume: {} whole pairs ({} games) in {path} count: the match is complete, no pair is left to play",
            resumed.pairs,
            2 * resumed.pairs,
        );
    } else if resume {
        println!(
            "resume: {} whole pairs ({} games) in {path} count; play goes on from pair {}",
            resumed.pairs,
            2 * resumed.pairs,
            resumed.pairs + 1
        );
    }
}

/// A side as the header names it: its margin set, and its engine when that is not the
/// built-in one (`'default' (Toga II 3.0, engines/toga2.toml)`).
fn labelled(spec: &str, def: &marginal::engine::EngineDef) -> String {
    match &def.source {
        None => format!("'{spec}'"),
        Some(source) => format!("'{spec}' ({}, {source})", def.name),
    }
}

/// `--concurrency` does nothing on Slurm, where the job array's tasks play the games.
fn say_idle_concurrency(args: &MatchArgs) {
    if args.executor.is_slurm() && args.concurrency.is_some() {
        eprintln!(
            "warning: --concurrency: with --executor slurm the games run in the job array's tasks (a pair per CPU: --shards x --cpus-per-task a batch), so it does nothing here"
        );
    }
}

/// Runs the command.
pub fn run(args: MatchArgs) -> Result<()> {
    check_outputs(&args)?;
    say_idle_concurrency(&args);
    let engine_a = engine_def(args.a_engine.as_deref(), None, &[])?;
    let engine_b = engine_def(args.b_engine.as_deref(), None, &[])?;
    let labels = (labelled(&args.a, &engine_a), labelled(&args.b, &engine_b));
    let margins_a =
        setting_from(&engine_a, &args.a, &[]).map_err(|e| UserError(format!("--a: {e}")))?;
    let margins_b =
        setting_from(&engine_b, &args.b, &[]).map_err(|e| UserError(format!("--b: {e}")))?;
    say_twins(&args, (&engine_a, &margins_a), (&engine_b, &margins_b));
    let (game, sprt) = game_rules(&args)?;
    let mut positions = read_book(&args, &game)?;
    let concurrency = threads(args.concurrency);
    super::hash_fits(args.hash, 2 * concurrency)?;
    let config = MatchConfig {
        game,
        games: args.games.max(2),
        concurrency,
        sprt,
    };
    let executor = args.executor.build()?;
    let asked = session::Asked {
        a: &args.a,
        b: &args.b,
        seed: args.seed,
        hash_mb: args.hash,
    };
    let settings = session::settings(&asked, (&margins_a, &margins_b), &positions, &config);
    openings::shuffle(&mut positions, args.seed);
    let (side_a, side_b) = (side("A", &args.a, margins_a), side("B", &args.b, margins_b));

    // The output files are opened before the first game, so a bad path fails at once; a PGN's
    // games are checked (and an unfinished pair cut off) before the JSON report is touched.
    let plan = args.pgn.as_ref().map(|path| session::RecordPlan {
        path: path.clone(),
        resume: args.resume,
        settings,
    });
    let book_size = positions.len();
    let session = Session::open(side_a, side_b, args.hash, config, positions, plan.as_ref())
        .map_err(|e| session_error(e, args.pgn.as_deref()))?;
    whole_pairs(args.games, "--games");
    let batch = args.executor.batch_pairs();
    let at_once = match executor {
        Some(_) => format!("on Slurm in batches of {batch} pairs"),
        None => format!("{concurrency} at once"),
    };
    println!(
        "marginal match: A {} vs B {}, up to {} games at {}, {book_size} openings from {} (seed {}), {at_once}",
        labels.0,
        labels.1,
        session.total_pairs() * 2,
        game.limit.per_move(),
        args.openings.display(),
        args.seed
    );
    if let (Some(resumed), Some(path)) = (session.resumed(), &args.pgn) {
        print_resumed(resumed, path, args.resume, session.total_pairs());
    }

    let pgn = args.pgn.as_deref();
    let result = play(session, executor.as_deref(), batch, sprt.as_ref(), pgn)?;
    // The report is written before the summary is printed: a reader that goes (`| head -1`)
    // ends marginal at the next line printed, and must not take the report with it.
    let written = (args.json.as_ref())
        .map(|path| write_report(path, &MatchReport::new(&result, &config, &args.a, &args.b)))
        .transpose();
    summary(&result, sprt.as_ref(), &args);
    written?;
    verdict(&result, sprt.as_ref(), &args)
}

/// A side of the match, named by its letter, its engine (when external) and its set.
fn side(letter: &str, spec: &str, setting: Setting) -> session::Side {
    let name = if setting.def().is_builtin() {
        format!("{letter} {spec}")
    } else {
        format!("{letter} {} {spec}", setting.def().name)
    };
    session::Side { name, setting }
}

/// Plays the session with a progress bar (hidden on Slurm, which reports by job array).
fn play(
    session: Session,
    executor: Option<&dyn marginal::scoring::exec::Runner>,
    batch: usize,
    sprt: Option<&SprtParams>,
    pgn: Option<&std::path::Path>,
) -> Result<MatchResult> {
    let bar = progress_bar(
        (session.total_pairs() * 2) as u64,
        "[{bar:30}] {pos}/{len} games {msg}",
    );
    if executor.is_some() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut observer = Progress { bar: &bar, sprt };
    let interrupt = super::executor::interrupt_flag()?;
    let played = session.play(executor, batch, &interrupt, &mut observer);
    let length = bar.length().unwrap_or(0);
    super::end_progress(&bar, || {
        format!("{}/{length} games {}", bar.position(), bar.message())
    });
    played.map_err(|e| session_error(e, pgn))
}

/// The opening book: its skipped lines said, enough openings for the games, and a `--draw`
/// that no game would reach said.
fn read_book(args: &MatchArgs, game: &GameConfig) -> Result<Vec<shakmaty::Chess>> {
    let book = openings::read(&args.openings).map_err(UserError::from_display)?;
    super::say_skipped(&book.skipped, "");
    let latest = book
        .records
        .iter()
        .map(|p| shakmaty::Position::fullmoves(p).get())
        .max()
        .unwrap_or(1);
    say_draw_never_applies(args, game, latest);
    let mut seen = std::collections::HashSet::new();
    let repeats = book
        .records
        .iter()
        .filter(|p| {
            !seen.insert(
                shakmaty::fen::Fen::from_position(&(*p).clone(), shakmaty::EnPassantMode::Legal)
                    .to_string(),
            )
        })
        .count();
    if repeats > 0 {
        eprintln!(
            "warning: {}: {repeats} opening(s) repeat an earlier one: each is played as often as it appears; remove the repeats to play each once",
            args.openings.display()
        );
    }
    marginal::formats::openings::enough(
        "--openings",
        &args.openings,
        book.records.len(),
        args.games.max(2).div_ceil(2) as usize,
        &format!("--games {}", args.games),
        &format!("at most --games {}", 2 * book.records.len()),
    )
    .map_err(UserError)?;
    Ok(book.records)
}

/// Writes the JSON report once the games are played, in one step: a match killed before then
/// leaves the file that was there (an earlier report, which a resumed match replaces) whole.
fn write_report(path: &std::path::Path, report: &MatchReport) -> Result<()> {
    let text = serde_json::to_string_pretty(report)? + "\n";
    marginal::formats::write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write the JSON report {}", path.display()))?;
    println!("report written to {}", path.display());
    Ok(())
}

/// The exit of a played match: interrupted (130, with the command that resumes), every game
/// of a side lost to faults (2), the SPRT's H0 accepted (1), else 0.
fn verdict(result: &MatchResult, sprt: Option<&SprtParams>, args: &MatchArgs) -> Result<()> {
    let s = &result.stats;
    if result.interrupted {
        return Err(Interrupted(format!(
            "interrupted after {} whole pairs{}",
            s.pentanomial.total_pairs(),
            match &args.pgn {
                Some(path) => format!(
                    "; the same command with --resume goes on from {}",
                    path.display()
                ),
                None => "; nothing is kept for a rerun, which plays them again (--pgn FILE keeps the games, and --resume goes on from them)".to_string(),
            }
        ))
        .into());
    }
    if let Some(e) = every_game_faulted(result, args) {
        return Err(e.into());
    }
    if let (Some(params), Some(SprtDecision::AcceptH0)) = (sprt, s.decision) {
        return Err(Failed(format!(
            "the SPRT nElo [{}, {}] accepted H0: A is not stronger",
            params.elo0, params.elo1
        ))
        .into());
    }
    Ok(())
}

/// A side whose engine lost every game to a fault measured nothing of its margins: exit 2,
/// naming the engine and its first fault (the report above and --json keep the games).
fn every_game_faulted(result: &MatchResult, args: &MatchArgs) -> Option<UserError> {
    let games = 2 * result.stats.pentanomial.total_pairs();
    let (a, b) = result.stats.fault_losses;
    for (side, lost, engine, loss) in [
        ("A", a, &args.a_engine, GameResult::Loss),
        ("B", b, &args.b_engine, GameResult::Win),
    ] {
        if games == 0 || lost < games {
            continue;
        }
        let first = result
            .pairs
            .iter()
            .flat_map(|p| [(&p.first, true), (&p.second, false)])
            .find_map(|(game, a_white)| match &game.termination {
                Termination::PlayerFailure(why) if result_for_a(game, a_white) == loss => {
                    Some(why.as_str())
                }
                _ => None,
            })
            .unwrap_or("a fault");
        let engine = engine.as_ref().map_or_else(
            || "marginal's own engine".to_string(),
            |p| p.display().to_string(),
        );
        return Some(UserError(format!(
            "engine {side} ({engine}) lost every one of the {games} games to a fault (first: {first}): no Elo here measures its margins; fix the engine or its engine file"
        )));
    }
    // Both sides fault: every game ends with a fault of whoever moves first, and the score
    // measures the colours, not the margins.
    if games > 0 && a + b >= games {
        return Some(UserError(format!(
            "every one of the {games} games ended with an engine fault (A lost {a}, B lost {b}; the reasons are above): no Elo here measures the margins; fix the engines or their engine files"
        )));
    }
    None
}

/// Prints how many games each side lost to engine faults, and why (each reason once, with how
/// many games it ended).
fn print_faults(result: &MatchResult) {
    let (a, b) = result.stats.fault_losses;
    println!("games lost to engine faults: A {a}, B {b}");
    let mut reasons: Vec<(&str, &str, usize)> = Vec::new();
    for pair in &result.pairs {
        for (game, a_white) in [(&pair.first, true), (&pair.second, false)] {
            let Termination::PlayerFailure(why) = &game.termination else {
                continue;
            };
            let side = match result_for_a(game, a_white) {
                GameResult::Loss => "A",
                GameResult::Win => "B",
                GameResult::Draw => continue,
            };
            match reasons.iter_mut().find(|(s, w, _)| *s == side && *w == why) {
                Some(seen) => seen.2 += 1,
                None => reasons.push((side, why, 1)),
            }
        }
    }
    reasons.sort();
    for (side, why, games) in reasons {
        println!(
            "  {side}: {why} ({games} game{})",
            if games == 1 { "" } else { "s" }
        );
    }
    // More than a tenth of the games decided by faults: the Elo measures the faults.
    let games = 2 * result.stats.pentanomial.total_pairs();
    if games > 0 && 10 * (a + b) > games {
        eprintln!(
            "warning: {} of the {games} games ({:.0}%) were lost to engine faults: the Elo measures the faults as much as the margins; fix the engine (the reasons are above) before reading it",
            a + b,
            100.0 * (a + b) as f64 / games as f64
        );
    }
}

/// Prints the result: counts, pentanomial, Elo and nElo with their intervals and LOS (`n/a`
/// where not defined yet), the SPRT, time losses and speed; for an interrupted match, the whole
/// pairs played, marked as such.
fn summary(result: &MatchResult, sprt: Option<&SprtParams>, args: &MatchArgs) {
    let s = &result.stats;
    let e = EloSummary::from(s.estimate());
    let p = s.pentanomial;
    if result.interrupted {
        println!(
            "interrupted: the {} whole pairs played count; the games in flight were abandoned",
            p.total_pairs()
        );
    }
    println!(
        "games {}: A +{} ={} -{} (score {})",
        s.games,
        s.wdl.wins,
        s.wdl.draws,
        s.wdl.losses,
        percent(score(s))
    );
    println!(
        "pentanomial [LL LD WL+DD WD WW] = [{} {} {} {} {}]",
        p.ll, p.ld, p.wl_dd, p.wd, p.ww
    );
    println!(
        "Elo {:+.2} [{:+.2}, {:+.2}] (95%), nElo {:+.2} [{:+.2}, {:+.2}], LOS {}",
        Shown(e.elo),
        Shown(e.lower),
        Shown(e.upper),
        Shown(e.nelo),
        Shown(e.nelo_lower),
        Shown(e.nelo_upper),
        percent(e.los)
    );
    if let Some(params) = sprt {
        let (lo, hi) = params.bounds();
        let verdict = sprt_verdict(params, s.decision, result.interrupted);
        println!(
            "SPRT nElo [{}, {}], alpha {}, beta {}: LLR {:.3}, bounds ({lo:.3}, {hi:.3}): {verdict}",
            params.elo0,
            params.elo1,
            params.alpha,
            params.beta,
            // No pair yet: the LLR of no data, 0 (as the report writes it).
            Shown(Some(
                s.llr.unwrap_or_else(|| sprt_llr(&s.pentanomial, params))
            ))
        );
    }
    println!("time losses: A {}, B {}", s.time_losses.0, s.time_losses.1);
    print_faults(result);
    let played = s.games - 2 * result.earlier as u64;
    let seconds = result.elapsed.as_secs_f64();
    let earlier = if result.earlier > 0 {
        format!(" (and {} from the PGN)", 2 * result.earlier)
    } else {
        String::new()
    };
    println!(
        "{played} games in {seconds:.1} s: {:.1} games/min{earlier}",
        played as f64 / (seconds / 60.0).max(1e-9)
    );
    if let Some(path) = &args.pgn {
        println!("games written to {}", path.display());
    }
}
