//! `marginal tune --objective games` and `--confirm`: the command-line side of
//! `marginal::tune::games` (the opening book, the settings, the confirmation match and what
//! goes into the tuned file).

use std::path::Path;

use anyhow::Result;
use marginal::engine::Setting;
use marginal::scoring::exec::Runner;
use marginal::scoring::games::matches::MatchReport;
use marginal::scoring::games::session::SessionError;
use marginal::tune::games::{GamesProblem, confirm_summary};
use marginal::tune::plan::ObjectiveKind;
use marginal::tune::report;
use marginal::tune::setup::{self, GamesSetup};
use marginal::tune::space::Space;
use std::sync::atomic::AtomicBool;

use super::super::executor::exec_error;
use super::super::progress::{PairBar, Printer};
use super::super::{UserError, threads};
use super::Tune;

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
    println!("{}", report::games_objective(&args.plan, setup));
    let mut remarks = Vec::new();
    let threads = threads(args.opts.threads);
    let problem = setup::games_problem(&args.plan, setup, space, dir, threads, &mut remarks);
    super::said(remarks, problem)
}

/// The race's games ([`setup::race_problems`]).
pub fn race_problems(
    args: &Tune,
    space: &Space,
    settings: &marginal::tune::race::RaceSettings,
    dir: &Path,
    executor: std::sync::Arc<dyn Runner>,
) -> Result<Vec<GamesProblem>> {
    let mut remarks = Vec::new();
    let threads = threads(args.opts.threads);
    let problems = setup::race_problems(&args.plan, space, settings, dir, threads, &mut remarks);
    Ok(super::said(remarks, problems)?
        .into_iter()
        .map(|p| p.with_executor(executor.clone()))
        .collect())
}

/// `--confirm GAMES`: the tuned set against the defaults with the SPRT, printed in one line;
/// played by `executor` (on a cluster in batches: the same games count).
///
/// # Errors
/// The executor could not play the games (exit 2) or was interrupted (exit 130).
pub fn run_confirm(
    args: &Tune,
    setup: &GamesSetup,
    tuned: Setting,
    games: u32,
    executor: &dyn Runner,
    printer: Printer,
) -> Result<MatchReport> {
    let threads = threads(args.opts.threads);
    let dir = args.opts.checkpoint.as_deref();
    let config = setup::confirm_config(&args.plan, setup, games, threads);
    println!("{}", report::confirm(&config, setup));
    let opened = setup::confirm_session(&args.plan, setup, tuned, config, dir);
    let (session, plan) = opened.map_err(confirm_error)?;
    let bar = printer.bar(
        u64::from(config.games.div_ceil(2) * 2),
        "[{bar:30}] {pos}/{len} confirmation games",
    );
    if !executor.streams() {
        // The cluster reports by job array, not by game.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
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
    let played = session.play(executor, &AtomicBool::new(false), &PairBar::new(&bar));
    bar.finish_and_clear();
    let result = played.map_err(confirm_error)?;
    let report = MatchReport::new(&result, &config, "tuned", "baseline");
    println!("confirm: {}", confirm_summary(&report));
    Ok(report)
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
