//! `marginal check`: re-measures a tuned file and says whether its set still holds (exit 0),
//! regressed (exit 1) or cannot be checked (exit 2). See [`marginal::check`] for the rules.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use marginal::check::plan::{CheckPlan, Updated};
use marginal::check::report::{self, Conclusion};
use marginal::check::{self, CheckReport, Prepared};
use marginal::progress::Said;
use marginal::scoring::games::session::SessionError;
use marginal::tune::file::TunedFile;
use marginal::tune::plan::EngineChoice;

use super::progress::{MeasureBar, PairBar, Printer, end_progress, said, say};
use super::{EngineArgs, Failed, Ui, UserError, count, threads_arg, whole_pairs};

/// Arguments of `marginal check`.
#[derive(Args)]
pub struct CheckArgs {
    /// The tuned file (`marginal-tuned/1`). Its suites are looked for as recorded (relative to
    /// the working directory), then relative to the file's directory and its ancestors.
    file: PathBuf,
    /// The external engine the file was tuned for (its engine file or command): the figures
    /// are measured with it.
    #[command(flatten)]
    engine: EngineArgs,
    /// Also play the tuned set against the defaults, at most N games, stopped by the
    /// non-regression SPRT nElo [-1.75, 0.25] (fishtest's bounds): H0 accepted is a regression.
    #[arg(long, value_name = "N", value_parser = count::<u32, 1>)]
    games: Option<u32>,
    /// The opening books of `--games`, their pairs in turn and judged pooled (repeat the
    /// option for several). Default: the two bundled balanced books and UHO
    /// (noob_3moves, popularpos_lichess, UHO_4060_v2), less the book the file's games objective
    /// tuned on.
    #[arg(long, value_name = "FILE")]
    openings: Vec<PathBuf>,
    /// Write the whole report (figures, changed positions, findings, verdict) as JSON.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Replace the output file when it exists (without it, marginal refuses to write over one).
    #[arg(long, requires = "json")]
    force: bool,
    /// Replace the file's recorded figures with those measured now (after an intended change
    /// of the engine or of the file), keeping the tuning run's provenance.
    #[arg(long)]
    update: bool,
    /// Worker threads (default: all cores; at most 256). Results are identical for any count.
    #[arg(long, value_parser = threads_arg())]
    threads: Option<usize>,
    /// Measure only N positions of each side (the same N on every run): each must come out as
    /// recorded, for a CI budget; the objectives are then tallied from the outcomes alone
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>, conflicts_with = "update")]
    sample: Option<usize>,
}

/// The plan of the check the arguments ask for.
fn plan_of(args: &CheckArgs) -> CheckPlan {
    CheckPlan {
        file: args.file.clone(),
        engine: EngineChoice {
            engine: args.engine.engine.clone(),
            engine_cmd: args.engine.engine_cmd.clone(),
            engine_options: args.engine.engine_options.clone(),
        },
        games: args.games,
        openings: args.openings.clone(),
        json: args.json.clone(),
        force: args.force,
        update: args.update,
        threads: args.threads,
        sample: args.sample,
    }
}

/// The engine that measures: the one given on the command line; else, for a file tuned for
/// an external engine described by an engine file, that file as the tuned file records it
/// (refused when its description changed since); else none (marginal's own).
fn engine(
    plan: &CheckPlan,
    args: &CheckArgs,
    file: &TunedFile,
    max_faults: usize,
) -> Result<Option<std::sync::Arc<marginal::engine::EngineDef>>> {
    if plan.engine_given() {
        let def = args.engine.def(max_faults)?;
        if let Some(warning) = plan.renamed_engine(file, &def) {
            say(&Said::Warning(warning));
        }
        return Ok(Some(def));
    }
    let Some(path) = plan.recorded_engine(file) else {
        return Ok(None);
    };
    let def = super::engine_def(Some(&path), None, &[], max_faults)?;
    let line = (plan.recorded_engine_line(file, &path, &def)).map_err(UserError::from_display)?;
    println!("{line}");
    Ok(Some(def))
}

/// The file prepared for the check with its engine ([`check::prepare`]), and the pool of its
/// searches.
fn prepare(
    plan: &CheckPlan,
    args: &CheckArgs,
    file: TunedFile,
    max_faults: usize,
) -> Result<(Prepared, rayon::ThreadPool)> {
    let engine = engine(plan, args, &file, max_faults)?;
    let prepared = plan
        .prepare(file, engine)
        .map_err(UserError::from_display)?;
    let pool = marginal::scoring::exec::local::pool(plan.threads(), "check")
        .context("cannot start worker threads")?;
    Ok((prepared, pool))
}

/// Runs the command.
pub fn run(args: CheckArgs, ui: Ui) -> Result<()> {
    let plan = plan_of(&args);
    plan.check().map_err(UserError::from_display)?;
    let file = TunedFile::read(&plan.file).map_err(UserError::from_display)?;
    let mut lines: Vec<Said> = plan
        .unused_options()
        .into_iter()
        .map(Said::Warning)
        .collect();
    let outputs = plan.check_outputs(&file, &marginal::tune::prepare::RESULT_FORMATS, &mut lines);
    said(lines, outputs).map_err(UserError::from_display)?;
    if !check::has_outcomes(&plan.file, &file).map_err(UserError::from_display)? {
        if plan.update {
            return update_without_outcomes(&plan, &args, file, ui);
        }
        return Err(UserError::from_display(check::CheckError::NoOutcomes {
            path: plan.file.display().to_string(),
        })
        .into());
    }
    let (prepared, pool) = prepare(&plan, &args, file, ui.max_faults)?;
    let threads = plan.threads();
    let pairs = plan.games.map(|n| whole_pairs(n, "--games"));
    let books = game_books(&args, &prepared, pairs)?;
    let given: Vec<String> = std::env::args().skip(1).collect();
    super::executor::stop_on_interrupt(plan.interrupted_message(&given))?;
    print_header(&plan, &prepared, threads);
    let started = std::time::Instant::now();
    let now = measure(&prepared, &pool, ui.printer)?;
    if let Some(why) = prepared.unmeasured(&now, prepared.def.fix_hint()) {
        return Err(UserError(why).into());
    }
    if let Some(warning) = prepared.faults_warning(&now) {
        say(&Said::Warning(warning));
    }
    if prepared.searched_alike(&now) {
        let how = "alike under the tuned set, the defaults and everything off";
        eprintln!("{}", super::ignored_options(how));
    }
    let games = match (pairs, books) {
        (Some(n), Some(books)) => Some(play(&prepared, books, n, threads, ui.printer)?),
        _ => None,
    };
    let report = prepared.judge(&now, games);
    plan.write_report(&report)
        .context("cannot write the --json report")?;
    for side in &report.sides {
        report::side_lines(side)
            .iter()
            .for_each(|l| println!("{l}"));
    }
    if let Some(g) = &report.games {
        println!("{}", report::games_line(g));
    }
    if let Some(out) = &plan.json {
        println!("report written to {}", out.display());
    }
    // What the check cost, for a CI budget (an external engine at depth can take minutes).
    println!(
        "cost: {:.0} s wall on {threads} thread(s) for the searches{}",
        started.elapsed().as_secs_f64(),
        if report.games.is_some() {
            " and games"
        } else {
            ""
        }
    );
    if plan.update {
        return write_update(&plan, &prepared, &now, Some(&report));
    }
    conclude(&report)
}

/// What is checked: the file, its calibration, the engine and the suites.
fn print_header(plan: &CheckPlan, prepared: &Prepared, threads: usize) {
    println!("marginal check {}", plan.file.display());
    println!(
        "calibration: {}",
        super::calibration_note(prepared.file.calibration.as_ref(), &prepared.file.margins)
    );
    println!("{}", report::engine_line(&prepared.engine));
    println!("{}", prepared.suites_line(threads));
}

/// Measures the sets with a progress bar: the side, the run (the reference when it is not
/// cached, then the sets) and its positions.
fn measure(
    prepared: &check::Prepared,
    pool: &rayon::ThreadPool,
    printer: Printer,
) -> Result<marginal::check::Measurement> {
    // The counts are in the message, drawn last: a plain line never shows the bar's counts
    // before its message says what they count.
    let bar = printer.bar(0, "[{bar:30}] {msg}");
    let observer: marginal::progress::Shared = std::sync::Arc::new(MeasureBar::new(&bar));
    let now = pool.install(|| prepared.measure_observed(&observer));
    end_progress(&bar, || bar.message());
    now.map_err(super::executor::exec_error)
}

/// The books of `games` games, read before the suites are measured, so a bad one fails at once.
fn game_books(
    args: &CheckArgs,
    prepared: &Prepared,
    games: Option<u32>,
) -> Result<Option<check::GameBooks>> {
    let Some(n) = games else {
        return Ok(None);
    };
    let books = prepared
        .read_books(&args.openings, n)
        .map_err(UserError::from_display)?;
    Ok(Some(books))
}

/// Plays the non-regression match with a progress bar.
fn play(
    prepared: &Prepared,
    books: check::GameBooks,
    games: u32,
    threads: usize,
    printer: Printer,
) -> Result<check::GamesCheck> {
    println!("{}", report::games_plan_line(games));
    let opened = prepared
        .open_games(books, games, threads)
        .map_err(games_error)?;
    if let Some(note) = opened.note() {
        say(&Said::Warning(note.into()));
    }
    if let Some(line) = report::games_resumed_line(&opened) {
        println!("{line}");
    }
    let bar = printer.bar(
        u64::from(games.max(2).div_ceil(2) * 2),
        "[{bar:30}] {pos}/{len} games",
    );
    let result = opened.play(&PairBar::new(&bar));
    bar.finish_and_clear();
    result.map_err(games_error)
}

/// The command's error for a non-regression match that could not be played.
fn games_error(e: SessionError) -> anyhow::Error {
    match e {
        SessionError::Record(e) => UserError(format!("--games: {}", e.0)).into(),
        SessionError::Write(e) => anyhow::Error::new(e).context("cannot keep the games of --games"),
        SessionError::Exec(e) => super::executor::exec_error(e),
    }
}

/// Prints the verdict and its notes; a regression is exit status 1, a check that can give no
/// verdict 2.
fn conclude(report: &CheckReport) -> Result<()> {
    let (lines, conclusion) = report.conclusion();
    for line in lines {
        println!("{line}");
    }
    match conclusion {
        Conclusion::Holds => Ok(()),
        Conclusion::Unusable(why) => Err(UserError(why).into()),
        Conclusion::Regressed(why) => Err(Failed(why).into()),
    }
}

/// `--update`: writes the figures measured now into the file, recording this command line
/// (unless they are the recorded ones), and says what it did.
fn write_update(
    plan: &CheckPlan,
    prepared: &Prepared,
    now: &check::Measurement,
    report: Option<&CheckReport>,
) -> Result<()> {
    let command_line = std::env::args().collect::<Vec<_>>().join(" ");
    let file = plan.file.display();
    let updated = (plan.update(prepared, now, report, command_line))
        .with_context(|| format!("cannot write {file}"))?;
    match updated {
        Updated::Unchanged => println!(
            "{file}: the figures measured now are the recorded ones: the file is left as it is"
        ),
        Updated::Written(None) => {
            println!("updated {file}: figures and per-position outcomes measured now")
        }
        Updated::Written(Some(before)) => println!(
            "updated {file}: the figures measured now replace the recorded ones ({before} before the update)"
        ),
    }
    Ok(())
}

/// `--update` of a file written before per-position outcomes were recorded: nothing to compare
/// position by position, so the totals are shown and the file gets its outcomes.
fn update_without_outcomes(
    plan: &CheckPlan,
    args: &CheckArgs,
    file: TunedFile,
    ui: Ui,
) -> Result<()> {
    let recorded = (file.training.clone(), file.validation.clone());
    let (prepared, pool) = prepare(plan, args, file, ui.max_faults)?;
    println!(
        "marginal check {} --update: the file records no per-position outcomes; measuring them",
        plan.file.display()
    );
    let now = measure(&prepared, &pool, ui.printer)?;
    for (name, then, now) in [
        ("training", &recorded.0, &now.training),
        ("validation", &recorded.1, &now.validation),
    ] {
        report::totals_lines(name, then, now)
            .iter()
            .for_each(|l| println!("{l}"));
    }
    write_update(plan, &prepared, &now, None)
}
