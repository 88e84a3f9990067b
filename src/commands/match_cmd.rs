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
use marginal::scoring::games::game::MoveLimit;
use marginal::scoring::games::matches::{MatchReport, MatchResult};
use marginal::scoring::games::plan::{self, MatchPlan, SidePlan, Verdict};
use marginal::scoring::games::session::{Session, SessionError};
use marginal::scoring::games::spec;
use marginal::scoring::games::stats::SprtParams;

use super::executor::{ExecutorArgs, exec_error};
use super::progress::{PairBar, Printer, end_progress, said, say};
use super::{
    Failed, Interrupted, UserError, count, depth_arg, engine_def, hash_arg, setting_from,
    threads_arg, whole_pairs,
};

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
    #[arg(long, default_value = plan::DEFAULT_BOOK)]
    openings: PathBuf,
    /// Seed for shuffling the openings (same seed, same games at fixed nodes or depth).
    #[arg(long, default_value_t = 1, value_parser = super::seed_arg)]
    seed: u64,
    /// Most games to play (whole pairs: each opening twice, colours reversed; an odd number
    /// is rounded up, and said so).
    #[arg(long, default_value_t = plan::DEFAULT_GAMES, value_parser = count::<u32, 1>)]
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
    /// The settings, and the time the match has taken over every run, are kept beside it in
    /// FILE.match.json.
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
    #[arg(long, default_value_t = plan::DEFAULT_MAX_PLIES, value_parser = count::<u32, 1>)]
    max_plies: u32,
    /// Transposition table per engine per game, megabytes (0 to 16384).
    #[arg(long, default_value_t = plan::DEFAULT_HASH_MB, value_parser = hash_arg)]
    hash: usize,
    /// Where the games are played (`--executor slurm`: in batches of job arrays).
    #[command(flatten)]
    executor: ExecutorArgs,
}

/// Parses a `BASE+INC` time control in seconds ([`spec::parse_tc`]).
pub(super) fn parse_tc(text: &str) -> Result<MoveLimit, UserError> {
    spec::parse_tc(text).map_err(UserError::from_display)
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

/// `--concurrency` does nothing on Slurm, where the job array's tasks play the games.
fn say_idle_concurrency(args: &MatchArgs) {
    if args.executor.is_slurm() && args.concurrency.is_some() {
        eprintln!(
            "warning: --concurrency: with --executor slurm the games run in the job array's tasks (a pair per CPU: --shards x --cpus-per-task a batch), so it does nothing here"
        );
    }
}

/// Runs the command: the plan of the arguments, its outputs checked, the sides resolved, the
/// match prepared and opened, played, and its result said (the exit from its verdict).
pub fn run(args: MatchArgs, ui: super::Ui) -> Result<()> {
    let plan = plan_of(&args);
    plan.check().map_err(UserError::from_display)?;
    let mut lines = Vec::new();
    let outputs = plan.check_outputs(&marginal::tune::prepare::RESULT_FORMATS, &mut lines);
    said(lines, outputs).map_err(UserError::from_display)?;
    // Interrupts are caught from here on: one while the engines are checked ends the match
    // before its first game, with exit 130 and its (empty) report, like one during the games.
    let flag = super::executor::interrupt_flag()?;
    say_idle_concurrency(&args);
    let engine_a = engine_def(plan.a.engine.as_deref(), None, &[], ui.max_faults)?;
    let engine_b = engine_def(plan.b.engine.as_deref(), None, &[], ui.max_faults)?;
    let margins_a =
        setting_from(&engine_a, &args.a, &[]).map_err(|e| UserError(format!("--a: {e}")))?;
    let margins_b =
        setting_from(&engine_b, &args.b, &[]).map_err(|e| UserError(format!("--b: {e}")))?;
    let mut lines = Vec::new();
    let prepared = plan.prepare(margins_a, margins_b, &mut lines);
    let prepared = said(lines, prepared).map_err(UserError::from_display)?;
    let executor = args.executor.build(prepared.config.concurrency)?;
    // The output files are opened before the first game, so a bad path fails at once; a PGN's
    // games are checked (and an unfinished pair cut off) before the JSON report is touched.
    let pgn = plan.pgn.as_deref();
    let session = (prepared.open()).map_err(|e| {
        // Stopped while its --pgn pipe waited for a reader: an interrupt, said as such.
        if flag.load(std::sync::atomic::Ordering::Relaxed) {
            Interrupted(e.to_string()).into()
        } else {
            session_error(e, pgn)
        }
    })?;
    whole_pairs(args.games, "--games");
    let total = session.total_pairs();
    let batch = (!executor.streams()).then(|| executor.batch_pairs());
    println!("{}", prepared.header(total, batch));
    for line in (session.resumed()).map_or_else(Vec::new, |r| prepared.resumed_lines(r, total)) {
        println!("{line}");
    }

    let sprt = prepared.config.sprt;
    let result = play(session, executor.as_ref(), sprt.as_ref(), pgn, ui.printer)?;
    // The report is written before the summary is printed: a reader that goes (`| head -1`)
    // ends marginal at the next line printed, and must not take the report with it.
    let written = (plan.json.as_ref())
        .map(|path| write_report(path, &prepared.report(&result)))
        .transpose();
    prepared.summary(&result).iter().for_each(say);
    written?;
    // The exit: interrupted (130, with the command that resumes), every game of a side lost
    // to faults (2), the SPRT's H0 accepted (1), else 0.
    match prepared.verdict(&result) {
        Verdict::Passed => Ok(()),
        Verdict::Interrupted(why) => Err(Interrupted(why).into()),
        Verdict::Unmeasured(why) => Err(UserError(why).into()),
        Verdict::Rejected(why) => Err(Failed(why).into()),
    }
}

/// The plan of the match the arguments ask for.
fn plan_of(args: &MatchArgs) -> MatchPlan {
    MatchPlan {
        a: SidePlan {
            margins: args.a.clone(),
            engine: args.a_engine.clone(),
        },
        b: SidePlan {
            margins: args.b.clone(),
            engine: args.b_engine.clone(),
        },
        openings: args.openings.clone(),
        seed: args.seed,
        games: args.games,
        concurrency: args.concurrency,
        nodes: args.nodes,
        depth: args.depth,
        tc: args.tc.clone(),
        sprt: args.sprt.clone(),
        resign: args.resign.clone(),
        draw: args.draw.clone(),
        max_plies: args.max_plies,
        hash_mb: args.hash,
        pgn: args.pgn.clone(),
        resume: args.resume,
        json: args.json.clone(),
        force: args.force,
    }
}

/// Plays the session with a progress bar (hidden on Slurm, which reports by job array).
fn play(
    session: Session,
    executor: &dyn marginal::scoring::exec::Runner,
    sprt: Option<&SprtParams>,
    pgn: Option<&std::path::Path>,
    printer: Printer,
) -> Result<MatchResult> {
    let bar = printer.bar(
        (session.total_pairs() * 2) as u64,
        "[{bar:30}] {pos}/{len} games {msg}",
    );
    if !executor.streams() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let interrupt = super::executor::interrupt_flag()?;
    let played = session.play(executor, &interrupt, &PairBar::of_match(&bar, sprt));
    let length = bar.length().unwrap_or(0);
    end_progress(&bar, || {
        format!("{}/{length} games {}", bar.position(), bar.message())
    });
    played.map_err(|e| session_error(e, pgn))
}

/// Writes the JSON report once the games are played, in one step: a match killed before then
/// leaves the file that was there (an earlier report, which a resumed match replaces) whole.
fn write_report(path: &Path, report: &MatchReport) -> Result<()> {
    let text = serde_json::to_string_pretty(report)? + "\n";
    marginal::formats::write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write the JSON report {}", path.display()))?;
    println!("report written to {}", path.display());
    Ok(())
}
