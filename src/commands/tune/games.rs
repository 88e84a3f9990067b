//! `marginal tune --objective games` and `--confirm`: the command-line side of
//! `marginal::tune::games` (the opening book, the settings, the confirmation match and what
//! goes into the tuned file).

use std::path::{Path, PathBuf};

use anyhow::Result;
use marginal::engine::Setting;
use marginal::scoring::exec::Runner;
use marginal::scoring::games::game::GameConfig;
use marginal::scoring::games::matches::{MatchConfig, MatchReport};
use marginal::scoring::games::session::{self, RecordPlan, Session, SessionError};
use marginal::tune::games::{GamesProblem, confirm_summary, interleave_openings};
use marginal::tune::setup::{self, GamesSetup};
use marginal::tune::space::Space;
use shakmaty::Chess;
use std::sync::atomic::AtomicBool;

use super::super::executor::exec_error;
use super::super::progress::{PairBar, Printer};
use super::super::{UserError, threads};
use super::Tune;
use marginal::tune::plan::ObjectiveKind;

/// `--objective`: what the solver optimises (the library's [`ObjectiveKind`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ObjectiveArg {
    /// The suite objective on the training positions.
    #[default]
    Suite,
    /// Self-play at fixed nodes: SPSA plays theta+ against theta-.
    Games,
}

impl From<ObjectiveArg> for ObjectiveKind {
    fn from(arg: ObjectiveArg) -> ObjectiveKind {
        match arg {
            ObjectiveArg::Suite => ObjectiveKind::Suite,
            ObjectiveArg::Games => ObjectiveKind::Games,
        }
    }
}

/// The games objective of a run ([`setup::games_problem`]), said first.
pub fn problem(args: &Tune, setup: &GamesSetup, space: &Space, dir: &Path) -> Result<GamesProblem> {
    let what = if args.plan.solver.is_spsa() {
        "theta+ against theta-"
    } else {
        "each candidate against the defaults (on the same openings every time)"
    };
    let pairs = args.plan.pairs();
    println!(
        "objective: games, {what} for {pairs} pair(s) ({} games) at {}, {} openings from {} (shuffled, seed {})",
        2 * pairs,
        args.plan.move_limit().per_move(),
        setup.book.len(),
        setup.book_path.display(),
        args.plan.seed
    );
    let mut remarks = Vec::new();
    let threads = threads(args.opts.threads);
    let problem = setup::games_problem(&args.plan, setup, space, dir, threads, &mut remarks);
    super::say_remarks(remarks);
    problem.map_err(super::run_error)
}

/// The race's games ([`setup::race_problems`]).
pub fn race_problems(
    args: &Tune,
    space: &Space,
    rounds: &[u32],
    dir: &Path,
    executor: Option<std::sync::Arc<dyn Runner>>,
) -> Result<Vec<GamesProblem>> {
    let mut remarks = Vec::new();
    let threads = threads(args.opts.threads);
    let problems = setup::race_problems(&args.plan, space, rounds, dir, threads, &mut remarks);
    super::say_remarks(remarks);
    Ok(problems
        .map_err(super::run_error)?
        .into_iter()
        .map(|p| p.with_executor(executor.clone()))
        .collect())
}

/// Says what the confirmation plays.
fn say_confirm(config: &MatchConfig, setup: &GamesSetup) {
    println!(
        "confirm: tuned against default, at most {} games at {}, pairs in turn from {}, SPRT nElo [{}, {}] (alpha {}, beta {})",
        config.games.div_ceil(2) * 2,
        config.game.limit.per_move(),
        setup
            .confirm_books
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        setup.sprt.elo0,
        setup.sprt.elo1,
        setup.sprt.alpha,
        setup.sprt.beta
    );
}

/// Where the confirmation's pairs go as they finish: a PGN in the checkpoint, so an
/// interrupted confirmation keeps them and the rerun plays only the rest (the games of a match
/// with --pgn, --resume). None without a checkpoint.
fn confirm_record(
    args: &Tune,
    (tuned, baseline): (&Setting, &Setting),
    book: &[Chess],
    config: &MatchConfig,
) -> Option<RecordPlan> {
    args.opts.checkpoint.as_ref().map(|dir| {
        let path = confirm_pgn(dir);
        let asked = session::Asked {
            a: "tuned",
            b: "default",
            seed: args.plan.seed,
            hash_mb: args.plan.scoring.hash,
        };
        RecordPlan {
            resume: path.exists(),
            settings: session::settings(&asked, (tuned, baseline), book, config),
            path,
        }
    })
}

/// `--confirm GAMES`: the tuned set against the defaults with the SPRT, printed in one line;
/// through `executor` (a cluster) in batches of [`ExecutorArgs::batch_pairs`] pairs when there
/// is one (the same games count).
///
/// # Errors
/// The executor could not play the games (exit 2) or was interrupted (exit 130).
///
/// [`ExecutorArgs::batch_pairs`]: super::super::executor::ExecutorArgs::batch_pairs
pub fn run_confirm(
    args: &Tune,
    setup: &GamesSetup,
    tuned: Setting,
    games: u32,
    executor: Option<&dyn Runner>,
    printer: Printer,
) -> Result<MatchReport> {
    let books: Vec<Vec<Chess>> = setup.confirm_books.iter().map(|(_, b)| b.clone()).collect();
    let book = interleave_openings(&books, args.plan.seed);
    let config = MatchConfig {
        game: GameConfig {
            limit: args.plan.move_limit(),
            ..GameConfig::default()
        },
        games: games.max(2),
        concurrency: threads(args.opts.threads),
        sprt: Some(setup.sprt),
    };
    say_confirm(&config, setup);
    let bar = printer.bar(
        u64::from(config.games.div_ceil(2) * 2),
        "[{bar:30}] {pos}/{len} confirmation games",
    );
    let baseline = Setting::defaults(tuned.def());
    if executor.is_some() {
        // The cluster reports by job array, not by game.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let plan = confirm_record(args, (&tuned, &baseline), &book, &config);
    let side = |name: &str, setting: Setting| session::Side {
        name: name.to_string(),
        setting,
    };
    let session = Session::open(
        side("tuned", tuned),
        side("baseline", baseline),
        args.plan.scoring.hash,
        config,
        book,
        plan.as_ref(),
    )
    .map_err(confirm_error)?;
    if let (Some(resumed), Some(plan)) = (session.resumed(), &plan)
        && resumed.pairs > 0
    {
        bar.suspend(|| {
            println!(
                "confirm: resuming from {}: {} of {} pairs played before",
                plan.path.display(),
                resumed.pairs,
                session.total_pairs()
            );
        });
    }
    let played = session.play(
        executor,
        args.executor.batch_pairs(),
        &AtomicBool::new(false),
        &PairBar::new(&bar),
    );
    bar.finish_and_clear();
    let result = played.map_err(confirm_error)?;
    let report = MatchReport::new(&result, &config, "tuned", "baseline");
    println!("confirm: {}", confirm_summary(&report));
    Ok(report)
}

/// Where a tune keeps its confirmation games.
pub fn confirm_pgn(checkpoint: &Path) -> PathBuf {
    checkpoint.join("confirm.pgn")
}

/// The command's error for a confirmation that could not be played.
fn confirm_error(e: SessionError) -> anyhow::Error {
    match e {
        SessionError::Record(e) => UserError(format!("--confirm: {}", e.0)).into(),
        SessionError::Write(e) => {
            anyhow::Error::new(e).context("cannot write the confirmation games")
        }
        SessionError::Exec(e) => exec_error(e),
    }
}
