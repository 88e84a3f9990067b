//! `marginal check`: re-measures a tuned file and says whether its set still holds (exit 0),
//! regressed (exit 1) or cannot be checked (exit 2). See [`marginal::check`] for the rules.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use marginal::check::{
    self, CheckReport, NODES_TOLERANCE, NON_REGRESSION, OBJECTIVE_TOLERANCE, Prepared,
    SIGNIFICANCE, SideCheck, Verdict,
};
use marginal::formats::write_atomic;
use marginal::scoring::games::session::SessionError;
use marginal::scoring::games::stats::SprtDecision;
use marginal::tune::file::{Side, TunedFile};
use marginal::tune::games::match_summary;

use super::progress::{MeasureBar, PairBar, Printer, end_progress};
use super::{
    EngineArgs, Failed, Ui, UserError, count, not_an_input, threads, threads_arg, whole_pairs,
};

/// What an interrupted check says: what is kept, and how to go on.
fn interrupted_message(file: &Path, games: bool) -> String {
    // The command as given (--update, --games and all), so that the rerun does what was asked.
    let given: Vec<String> = std::env::args().skip(1).collect();
    let command = if given.is_empty() {
        format!("check {}", file.display())
    } else {
        given.join(" ")
    };
    let kept = if games {
        "the reference runs and the game pairs (--games) that finished are kept in the cache, not a partial measurement"
    } else {
        "the reference runs that finished are kept in the cache, not a partial measurement"
    };
    format!("interrupted: {kept}: rerun `marginal {command}` to go on")
}

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
    #[arg(long, value_name = "FILE", requires = "games")]
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
}

/// The engine that measures: the one given on the command line; else, for a file tuned for
/// an external engine described by an engine file, that file as the tuned file records it
/// (found beside the tuned file or above it, as suites are), refused when its description
/// changed since (then `--engine FILE` checks with it anyway); else none (marginal's own).
fn engine(
    args: &CheckArgs,
    file: &TunedFile,
    max_faults: usize,
) -> Result<Option<std::sync::Arc<marginal::engine::EngineDef>>> {
    let given = args.engine.engine.is_some() || args.engine.engine_cmd.is_some();
    if given {
        let def = args.engine.def(max_faults)?;
        // Another name on the same rows: said, then checked as the same engine described
        // anew (rows that differ are refused by prepare).
        if let Some(record) = &file.engine
            && record.name != def.name
            && check::another_engine(record, &def, &file.tuned).is_none()
        {
            eprintln!(
                "warning: {}: tuned for the engine '{}' ({}); {} names its engine '{}' but carries the file's rows and UCI options, so it is checked as that engine described anew (judging by the statistics)",
                args.file.display(),
                record.name,
                record.source,
                def.source.as_deref().unwrap_or(&def.name),
                def.name
            );
        }
        return Ok(Some(def));
    }
    let Some(record) = &file.engine else {
        return Ok(None);
    };
    if !record.source.ends_with(".toml") {
        // An engine given by its command line: prepare says how to give it again.
        return Ok(None);
    }
    let Ok(path) = check::locate(std::path::Path::new(&record.source), &args.file) else {
        // Not found: prepare names the file and the option.
        return Ok(None);
    };
    let def = super::engine_def(Some(&path), None, &[], max_faults)?;
    if def.signature() != record.signature {
        return Err(UserError(format!(
            "{}: the engine file {} changed since the file was tuned (content digest {}, recorded {}): \
             give --engine {} to check with it as it is now",
            args.file.display(),
            path.display(),
            def.signature(),
            record.signature,
            path.display()
        ))
        .into());
    }
    println!(
        "engine: {} ({}), as the tuned file records it",
        record.name,
        path.display()
    );
    Ok(Some(def))
}

/// An engine that gave no move on any position of any set faulted on every search: nothing was
/// measured, so no verdict is given (exit 2, naming the engine).
fn measured_something(
    prepared: &marginal::check::Prepared,
    now: &marginal::check::Measurement,
) -> Result<(), UserError> {
    let outcomes = || {
        [&now.training, &now.validation]
            .into_iter()
            .flat_map(|side| side.sets.iter())
            .flat_map(|set| set.positions.iter())
    };
    if outcomes().next().is_none() || outcomes().any(|p| p.best_move.is_some()) {
        return Ok(());
    }
    let def = &prepared.def;
    Err(UserError(format!(
        "the engine {} gave no move on any position of any set (it faulted on every search): nothing was measured, so no verdict is given; {}",
        def.source.as_deref().unwrap_or(&def.name),
        super::fix_engine(def)
    )))
}

/// Says how many searches an external engine faulted on during the measurement: each is scored
/// unsolved at the reference's node count, so the figures it touches move with it.
fn say_faults(prepared: &marginal::check::Prepared, now: &marginal::check::Measurement) {
    let (training, validation) = (now.training.faults, now.validation.faults);
    if training + validation > 0 {
        let def = &prepared.def;
        eprintln!(
            "warning: the engine {} faulted on {} search(es) during the check (training {training}, validation {validation}): each is scored unsolved at the reference's nodes, so figures it touches move, and a finding below may be the faults' rather than the margins'",
            def.source.as_deref().unwrap_or(&def.name),
            training + validation
        );
    }
}

/// Says when an external engine searched every position of both sides to a fixed depth alike
/// under the tuned set, the defaults and everything off although their margins differ: it most likely
/// ignores the options that carry them, so the check measures nothing of the file's set.
fn say_same_searches(prepared: &marginal::check::Prepared, now: &marginal::check::Measurement) {
    // At a node budget every search spends the budget, so equal node counts say nothing.
    let depth = matches!(
        prepared.options.config.limit,
        marginal::scoring::suite::SuiteLimit::Depth(_)
    );
    if prepared.def.is_builtin() || !depth {
        return;
    }
    let sides = [&now.training, &now.validation];
    // A side without positions (a small file's split) has nothing to compare.
    let all_alike = sides.iter().filter(|side| side.positions > 0).all(|side| {
        let tuned = side.set("tuned");
        side.sets.iter().all(|set| {
            tuned.is_some_and(|t| t.positions == set.positions && !set.positions.is_empty())
        })
    });
    let margins: Vec<_> = now.training.sets.iter().map(|s| &s.margins).collect();
    let differ = margins.windows(2).any(|w| w[0] != w[1]);
    let positions: usize = sides.iter().map(|s| s.positions).sum();
    if all_alike && differ && positions >= 3 {
        eprintln!(
            "{}",
            super::ignored_options("alike under the tuned set, the defaults and everything off")
        );
    }
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

/// Changed positions printed per side (the JSON report has them all).
const SHOWN: usize = 12;

/// Runs the command.
pub fn run(args: CheckArgs, ui: Ui) -> Result<()> {
    let file = TunedFile::read(&args.file).map_err(UserError::from_display)?;
    if let Some(out) = &args.json {
        // The checked file, the suites it names and the engine file: all read again.
        let recorded = super::recorded_inputs(&file, &args.file);
        let mut inputs: Vec<(&str, &Path)> = vec![("the checked file", args.file.as_path())];
        inputs.extend(recorded.iter().map(|(what, path)| (*what, path.as_path())));
        if let Some(engine) = &args.engine.engine {
            inputs.push(("--engine", engine.as_path()));
        }
        not_an_input(out, "--json", &inputs)?;
        super::fresh_json_output(out, "--json", args.force)?;
    }
    if !check::has_outcomes(&args.file, &file).map_err(UserError::from_display)? {
        if args.update {
            return update_without_outcomes(&args, file, ui);
        }
        return Err(UserError::from_display(check::CheckError::NoOutcomes {
            path: args.file.display().to_string(),
        })
        .into());
    }
    let prepared = {
        let engine = engine(&args, &file, ui.max_faults)?;
        check::prepare(&args.file, file, engine).map_err(UserError::from_display)?
    };
    let threads = threads(args.threads);
    let pool = marginal::scoring::exec::local::pool(threads, "check")
        .context("cannot start worker threads")?;

    let pairs = args.games.map(|n| whole_pairs(n, "--games"));
    let books = game_books(&args, &prepared, pairs)?;
    super::executor::stop_on_interrupt(interrupted_message(&args.file, args.games.is_some()))?;
    print_header(&args, &prepared, threads);
    let started = std::time::Instant::now();
    let now = measure(&prepared, &pool, ui.printer)?;
    measured_something(&prepared, &now)?;
    say_faults(&prepared, &now);
    say_same_searches(&prepared, &now);
    let games = match (pairs, books) {
        (Some(n), Some(books)) => Some(play(&prepared, books, n, threads, ui.printer)?),
        _ => None,
    };
    let report = prepared.judge(&now, games);
    write_json(&args, &report)?;
    for side in &report.sides {
        print_side(side);
    }
    if let Some(g) = &report.games {
        println!(
            "games ({}): {}",
            g.openings.join(", "),
            match_summary(
                &g.report,
                "H1 accepted: no regression",
                "H0 accepted: the tuned set is weaker than the defaults (a regression)"
            )
        );
    }
    if let Some(out) = &args.json {
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
    if args.update {
        return write_update(&args, &prepared, &now, &report);
    }
    verdict(&report)
}

/// What is checked: the file, its calibration, the engine and the suites.
fn print_header(args: &CheckArgs, prepared: &check::Prepared, threads: usize) {
    println!("marginal check {}", args.file.display());
    println!(
        "calibration: {}",
        super::calibration_note(prepared.file.calibration.as_ref(), &prepared.file.margins)
    );
    print_engine(&prepared.engine);
    let files: Vec<String> = prepared
        .training
        .files
        .iter()
        .map(|f| format!("{} ({:016x})", f.path, f.hash))
        .collect();
    println!(
        "suites: {} as recorded; {} training and {} validation positions ({}) at {} per position, {threads} thread(s)",
        files.join(", "),
        prepared.training.positions.len(),
        prepared.validation.positions.len(),
        prepared.file.provenance.suites.split,
        prepared.options.config.limit
    );
}

/// Which engine measures, and whether its figures must come out identical.
fn print_engine(e: &check::EngineCheck) {
    match (&e.external, e.same) {
        (None, true) => println!(
            "engine: signature {} as recorded (bench {} nodes): every figure must come out identical",
            e.signature, e.bench_nodes
        ),
        (None, false) => println!(
            "engine: signature {} differs from the file's {} (bench {} nodes, recorded {}): the engine changed since the figures were measured, so they may move; judging by the statistics",
            e.signature, e.recorded_signature, e.bench_nodes, e.recorded_bench_nodes
        ),
        (Some(external), true) => println!(
            "engine: {external}, content digest {} as recorded: every figure must come out identical (the digest covers the engine's description, not its program: a rebuilt engine shows as changed figures)",
            e.signature
        ),
        (Some(external), false) if e.signature == e.recorded_signature => println!(
            "engine: {external}, content digest {} as recorded; its engine file says its searches do not repeat exactly (deterministic = false), so figures may move by a few nodes: judging by the statistics",
            e.signature
        ),
        (Some(external), false) => println!(
            "engine: {external}, content digest {} differs from the recorded {}: the description changed since the figures were measured, so they may move; judging by the statistics",
            e.signature, e.recorded_signature
        ),
    }
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
    println!(
        "games: tuned against default, at most {} games, SPRT nElo [{}, {}] (alpha {}, beta {}): H0 accepted is a regression",
        games.max(2).div_ceil(2) * 2,
        NON_REGRESSION.elo0,
        NON_REGRESSION.elo1,
        NON_REGRESSION.alpha,
        NON_REGRESSION.beta
    );
    let opened = prepared
        .open_games(books, games, threads)
        .map_err(games_error)?;
    if let Some(note) = opened.note() {
        eprintln!("warning: {note}");
    }
    if let (Some(path), (kept @ 1.., total)) = (opened.record(), opened.resumed()) {
        println!(
            "games: resuming from {}: {kept} of {total} pairs played before",
            path.display()
        );
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

fn print_side(side: &SideCheck) {
    if side.positions == 0 {
        println!(
            "{}: no positions (the file's split left none), so nothing is judged on this side",
            side.side
        );
        return;
    }
    println!(
        "{} ({} positions), recorded -> now:",
        side.side, side.positions
    );
    println!(
        "  {:<8} {:^14} {:^26} {:^20}",
        "set", "solved", "nodes", "objective"
    );
    for s in &side.sets {
        let mark = if s.recorded == s.now {
            ""
        } else {
            "  (changed)"
        };
        let line = format!(
            "  {:<8} {:>5} -> {:<5} {:>11} -> {:<11} {:>8.3} -> {:<8.3}{mark}",
            s.name,
            s.recorded.solved,
            s.now.solved,
            s.recorded.nodes,
            s.now.nodes,
            s.recorded.value,
            s.now.value
        );
        println!("{}", line.trim_end());
    }
    let suites: Vec<String> = side
        .suites
        .iter()
        .map(|s| {
            format!(
                "{} {} -> {} ({} changed)",
                s.path, s.solved_recorded, s.solved_now, s.changed
            )
        })
        .collect();
    println!("  tuned set per suite, solved: {}", suites.join(", "));
    let r = &side.tuned_now_vs_recorded;
    println!(
        "  tuned now against recorded: {} solved now only, {} recorded only, McNemar p = {:.4}",
        r.only_a, r.only_b, r.p_value
    );
    let d = &side.tuned_vs_default;
    println!(
        "  tuned against default (now): {} solved by tuned only, {} by default only, McNemar p = {:.4}",
        d.only_a, d.only_b, d.p_value
    );
    print_changed(side);
}

/// The positions whose tuned outcome changed, solved flips first, at most [`SHOWN`].
fn print_changed(side: &SideCheck) {
    let tuned: Vec<_> = side.changed.iter().filter(|c| c.set == "tuned").collect();
    if !tuned.is_empty() {
        println!("  positions whose tuned outcome changed (suite:line id: move before -> now):");
        let show = |o: &marginal::tune::file::PositionOutcome| {
            format!(
                "{} ({}, {} nodes)",
                o.best_move.as_deref().unwrap_or("none"),
                if o.solved { "solved" } else { "unsolved" },
                o.nodes
            )
        };
        // Solved flips first: they are what the verdict rests on.
        let mut ordered = tuned.clone();
        ordered.sort_by_key(|c| c.before.solved == c.now.solved);
        for c in ordered.iter().take(SHOWN) {
            println!(
                "    {}:{} {}: {} -> {}  [{}]",
                c.suite,
                c.line,
                c.id.as_deref().unwrap_or("-"),
                show(&c.before),
                show(&c.now),
                c.fen
            );
        }
        if tuned.len() > SHOWN {
            println!(
                "    ... and {} more (--json OUT lists them all)",
                tuned.len() - SHOWN
            );
        }
    }
}

/// Writes the --json report, before it is printed: a reader that goes (`| head -1`) ends
/// marginal at the next line printed, and must not take the report with it.
fn write_json(args: &CheckArgs, report: &CheckReport) -> Result<()> {
    if let Some(out) = &args.json {
        write_atomic(
            out,
            (serde_json::to_string_pretty(report)? + "\n").as_bytes(),
        )
        .with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(())
}

/// Prints the verdict; a regression is exit status 1.
fn verdict(report: &CheckReport) -> Result<()> {
    if !report.margins_as_measured {
        println!(
            "note: the file's margins are not the ones its figures were measured with (edited after the run?): `marginal check {} --update` records the figures of the margins it holds now",
            report.file
        );
    }
    if let Some(g) = &report.games
        && g.report
            .sprt
            .as_ref()
            .is_some_and(|s| s.decision == SprtDecision::Continue)
    {
        println!(
            "note: the games reached no SPRT decision in {} games: no regression shown, none excluded (more --games narrows it)",
            g.report.games
        );
    }
    // A record that contradicts its own outcomes is unusable input, not a measured regression.
    if let Some(f) =
        (report.findings.iter()).find(|f| f.kind == check::FindingKind::RecordContradicted)
    {
        let update = format!("marginal check {} --update", report.file);
        let fix = if report.margins_as_measured {
            format!(
                "restore the file (from git or a copy), or record what it gives now with `{update}`"
            )
        } else {
            format!(
                "its margins were changed after the run: `{update}` measures these margins and records their figures (or restore the file)"
            )
        };
        return Err(UserError(format!("{}: {}; {fix}", report.file, f.message)).into());
    }
    match report.verdict {
        Verdict::Holds => {
            println!(
                "verdict: holds (no significant loss of solutions at p < {SIGNIFICANCE}, nodes within +{:.0}%, objective within {OBJECTIVE_TOLERANCE} of the record and of the defaults on validation)",
                100.0 * NODES_TOLERANCE
            );
            Ok(())
        }
        Verdict::Regressed => regressed(report),
    }
}

/// A regressed verdict: exit status 1 with the findings; 2 when the engine faulted during the
/// check, since its figures then measure the engine and not the margins.
fn regressed(report: &CheckReport) -> Result<()> {
    // Figures moved by an engine's faults measure the engine, not the margins: unusable
    // (exit 2), so that an engine's CI does not read a broken engine as a regression.
    let faults: usize = report.sides.iter().map(|s| s.faults).sum();
    if faults > 0 {
        println!("verdict: none (the engine faulted; these findings would call it regressed)");
    } else {
        println!("verdict: regressed");
    }
    for f in &report.findings {
        println!("  - {}", f.message);
    }
    if faults > 0 {
        return Err(UserError(format!(
            "{}: the engine faulted on {faults} search(es) during the check, so these findings may be its faults, not its margins: no verdict on the set (exit 2, not a regression); fix the engine (or its engine file) and check again",
            report.file
        ))
        .into());
    }
    // A hand edit of the margins is the likely cause, and not the engine's: said last,
    // where the eye lands.
    let edited = if report.margins_as_measured {
        String::new()
    } else {
        format!(
            "; its margins are not the ones its figures were measured with (edited since the run), so the figures moved with the edit: if the edit was deliberate, `marginal check {} --update` records the figures of these margins",
            report.file
        )
    };
    Err(Failed(format!(
        "{}: the tuned set regressed ({} finding(s)){edited}",
        report.file,
        report.findings.len()
    ))
    .into())
}

/// Writes the file with the figures measured now (atomically), recording this command line.
fn write_measured(
    path: &std::path::Path,
    prepared: &Prepared,
    now: &check::Measurement,
) -> Result<()> {
    let file = prepared.updated(now, std::env::args().collect::<Vec<_>>().join(" "));
    file.write(path)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `--update`: writes the figures measured now into the file.
fn write_update(
    args: &CheckArgs,
    prepared: &Prepared,
    now: &check::Measurement,
    report: &CheckReport,
) -> Result<()> {
    // The same figures measured again change nothing: the file (a shipped one, tracked by
    // git) is left as it is rather than rewritten for another command line.
    let mut same = prepared.updated(now, String::new());
    if let (Some(m), Some(old)) = (same.measured.as_mut(), prepared.file.measured.as_ref()) {
        m.command_line.clone_from(&old.command_line);
    }
    if same == prepared.file {
        println!(
            "{}: the figures measured now are the recorded ones: the file is left as it is",
            args.file.display()
        );
        return Ok(());
    }
    write_measured(&args.file, prepared, now)?;
    println!(
        "updated {}: the figures measured now replace the recorded ones ({} before the update)",
        args.file.display(),
        if report
            .findings
            .iter()
            .any(|f| f.kind == check::FindingKind::RecordContradicted)
        {
            "its record did not match its own outcomes"
        } else if report.verdict == Verdict::Holds {
            "it held"
        } else {
            "it had regressed"
        }
    );
    Ok(())
}

/// `--update` of a file written before per-position outcomes were recorded: nothing to compare
/// position by position, so the totals are shown and the file gets its outcomes.
fn update_without_outcomes(args: &CheckArgs, file: TunedFile, ui: Ui) -> Result<()> {
    let recorded = (file.training.clone(), file.validation.clone());
    let prepared = {
        let engine = engine(args, &file, ui.max_faults)?;
        check::prepare(&args.file, file, engine).map_err(UserError::from_display)?
    };
    let pool = marginal::scoring::exec::local::pool(threads(args.threads), "check")
        .context("cannot start worker threads")?;
    println!(
        "marginal check {} --update: the file records no per-position outcomes; measuring them",
        args.file.display()
    );
    let now = measure(&prepared, &pool, ui.printer)?;
    for (name, then, now) in [
        ("training", &recorded.0, &now.training),
        ("validation", &recorded.1, &now.validation),
    ] {
        print_totals(name, then, now);
    }
    write_measured(&args.file, &prepared, &now)?;
    println!(
        "updated {}: figures and per-position outcomes measured now",
        args.file.display()
    );
    Ok(())
}

fn print_totals(name: &str, then: &Side, now: &Side) {
    println!("{name} ({} positions), recorded -> now:", now.positions);
    for set in &now.sets {
        let before = then.set(&set.name).map(|s| s.objective);
        let o = &set.objective;
        match before {
            Some(b) => println!(
                "  {:<8} solved {} -> {}, nodes {} -> {}, objective {:.3} -> {:.3}",
                set.name, b.solved, o.solved, b.nodes, o.nodes, b.value, o.value
            ),
            None => println!(
                "  {:<8} solved {}, nodes {}, objective {:.3}",
                set.name, o.solved, o.nodes, o.value
            ),
        }
    }
}
