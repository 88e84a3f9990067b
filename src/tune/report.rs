//! What `marginal tune` says, as text: the plan of a run, the judged figures of a finished one,
//! what it wrote and what to make of it. Renderers only: each returns the lines, the command
//! prints them (as [`Said`]: standard output for a result line).

use std::path::Path;

use super::calibrated::FoundCalibration;
use super::cost::Evaluation;
use super::file::{Side, TunedFile};
use super::plan::{ObjectiveKind, RACE_BOOK, SolverKind, TuneOptions, TunePlan};
use super::race::RaceSettings;
use super::setup::GamesSetup;
use super::space::Space;
use crate::engine::EngineDef;
use crate::progress::Said;
use crate::scoring::games::matches::MatchConfig;
use crate::scoring::paired::PairedComparison;
use crate::scoring::suite::SuiteLimit;

/// The two lines that open a run: the solver (a race screened `in_games` said so), seed and
/// space; the positions, limit, threads and checkpoint.
pub fn start(
    plan: &TunePlan,
    space: &Space,
    (train, validation): (usize, usize),
    limit: SuiteLimit,
    threads: usize,
    dir: &Path,
    in_games: bool,
) -> [String; 2] {
    [
        format!(
            "marginal tune: {}{}, seed {}, tuning {space}",
            match in_games {
                true => "race (games screen, then games among the finalists)",
                false => plan.solver.label(),
            },
            if plan.solver == SolverKind::Race {
                String::new()
            } else {
                format!(", {} iterations", plan.iterations)
            },
            plan.seed
        ),
        format!(
            "training {train} positions, validation {validation} positions, {limit} per position{}, {threads} thread(s); checkpoint {}",
            match plan.tc {
                Some(_) => format!(", games at {}", plan.move_limit().per_move()),
                None => String::new(),
            },
            dir.display()
        ),
    ]
}

/// The race's plan: its design, the positions screened, the sets kept, the local rounds and
/// the games of its finalists (`raced`: whether any round plays games).
pub fn race_plan(
    settings: &RaceSettings,
    plan: &TunePlan,
    train_positions: usize,
    raced: bool,
) -> String {
    let games = if !raced {
        "no games (--race-pairs 0): the best suite objective wins".to_string()
    } else {
        format!(
            "{} finalists in {} games at most ({} pairs a round) on {}",
            settings.finalists,
            settings.games(),
            settings
                .rounds
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            plan.race_openings
                .as_deref()
                .unwrap_or(Path::new(RACE_BOOK))
                .display(),
        )
    };
    if settings.screen_in_games {
        let pairs: Vec<String> = settings.screen_pairs.iter().map(u32::to_string).collect();
        return format!(
            "race: {} design points and {} of the line screened in games against the defaults ({} games at most, {} pairs a round, the better half going on), then {games}; {} games at most in all",
            settings.design,
            settings.line.len(),
            settings.screen_games(),
            pairs.join(", "),
            settings.screen_games() + settings.games()
        );
    }
    if let Some(objective) = &settings.screen_objective {
        return format!(
            "race: {} design points screened by {}, {} kept, {} local rounds, {games}",
            settings.design,
            objective.name,
            settings.keep.min(settings.design + 1),
            settings.local_rounds,
        );
    }
    format!(
        "race: {} design points screened on {} positions, {} kept, {} local rounds, {games}",
        settings.design,
        settings.screen_positions.min(train_positions),
        settings.keep.min(settings.design + 1),
        settings.local_rounds,
    )
}

/// What the games objective plays.
pub fn games_objective(plan: &TunePlan, setup: &GamesSetup) -> String {
    let what = if plan.solver.is_spsa() {
        "theta+ against theta-"
    } else {
        "each candidate against the defaults (on the same openings every time)"
    };
    let pairs = plan.pairs();
    format!(
        "objective: games, {what} for {pairs} pair(s) ({} games) at {}, {} openings from {} (shuffled, seed {})",
        2 * pairs,
        plan.move_limit().per_move(),
        setup.book.len(),
        setup.book_path.display(),
        plan.seed
    )
}

/// What the confirmation plays.
pub fn confirm(config: &MatchConfig, setup: &GamesSetup) -> String {
    format!(
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
    )
}

/// Which calibration the run's objective has, or that it has none (no line for a games tune
/// without one).
pub fn calibration_found(
    plan: &TunePlan,
    limit: SuiteLimit,
    found: &Option<FoundCalibration>,
) -> Vec<String> {
    match found {
        Some((path, report, o, caveat)) => {
            let mut lines = vec![format!(
                "calibration {}: {}",
                path.display(),
                report.objectives[*o].verdict
            )];
            lines.extend(caveat.iter().map(|c| format!("  ({c})")));
            lines
        }
        None if plan.objective == ObjectiveKind::Suite => vec![format!(
            "calibration: none of the suite objective at {limit} for this engine (marginal calibrate measures one)"
        )],
        None => Vec::new(),
    }
}

/// Which engine a resumed run of an external engine took: the one its checkpoint records, or
/// the file given with --engine (none for a fresh run or marginal's own engine).
pub fn resumed_engine(opts: &TuneOptions, def: &EngineDef) -> Option<String> {
    if opts.resume.is_none() || def.is_builtin() {
        return None;
    }
    let source = def.source.as_deref().unwrap_or_default();
    Some(if opts.engine_as_is {
        format!(
            "engine: {} ({source}), given with --engine: taken as it is now",
            def.name
        )
    } else {
        format!(
            "engine: {} ({source}), as the checkpoint records it",
            def.name
        )
    })
}

/// The command that resumes the run of `dir` (with its engine file as it is now, when the run
/// was resumed so).
pub fn resume_command(dir: &Path, engine: Option<&Path>) -> String {
    match engine {
        Some(file) => format!(
            "marginal tune --resume {} --engine {}",
            dir.display(),
            file.display()
        ),
        None => format!("marginal tune --resume {}", dir.display()),
    }
}

/// What an interrupted run keeps in `dir`, and how to go on: the evaluations and game batches
/// of its logs and `confirm_pairs` whole confirmation pairs.
pub fn interrupted(dir: &Path, resume: &str, confirm_pairs: usize) -> String {
    format!(
        "interrupted: {} and {} game batches{} are kept in {}; rerun the same command, or `{resume}`, to go on from them",
        super::checkpoint::evaluations_kept(dir),
        super::checkpoint::game_batches_kept(dir),
        if confirm_pairs > 0 {
            format!(", and {confirm_pairs} confirmation pairs,")
        } else {
            String::new()
        },
        dir.display(),
    )
}

/// One side's judged figures: a table of the sets and the paired test of tuned against
/// default (a line of its own when the side has no positions).
pub fn side(name: &str, side: &Side, paired: &PairedComparison) -> String {
    if side.positions == 0 {
        return format!(
            "{name}: no positions (the split left none), so no set is judged on this side"
        );
    }
    let mut lines = vec![
        format!("{name} ({} positions):", side.positions),
        format!(
            "  {:<8} {:>9} {:>8} {:>12} {:>7} {:>9}",
            "set", "objective", "solved", "nodes", "ratio", "accuracy"
        ),
    ];
    for s in &side.sets {
        let o = &s.objective;
        lines.push(format!(
            "  {:<8} {:>9.3} {:>8} {:>12} {:>7.3} {:>9.3}",
            s.name, o.value, o.solved, o.nodes, o.node_ratio, o.accuracy
        ));
    }
    lines.push(format!(
        "  tuned against default: {} solved by tuned only, {} by default only, McNemar exact p = {:.4}",
        paired.only_a, paired.only_b, paired.p_value
    ));
    lines.join("\n")
}

/// A tuned file's calibration as one line: its note, or that it has none.
pub fn calibration_note(
    c: Option<&crate::calibrate::trust::Calibration>,
    margins: &super::file::Values,
) -> String {
    match c {
        // A file tuned without a calibration: its note speaks to `tune`; here, say what the
        // reader of the file can do.
        Some(c) if c.status == "none" => "none recorded: this set was tuned without a calibration, so nothing says its objective ranks margin sets as games do (see docs/calibration.md: `marginal calibrate`, then `marginal tune --calibration FILE`)".to_string(),
        Some(c) => {
            let value_of = |name: &str| margins.0.get(name).and_then(serde_json::Value::as_i64);
            let c = crate::calibrate::trust::refreshed(c, &value_of);
            // The status first: it speaks of the objective, and the note may end on an
            // extrapolation that is the set's.
            match c.status.as_str() {
                "trusted" | "untrusted" => format!("the objective is {}: {}", c.status, c.note),
                _ => c.note,
            }
        }
        None => "none recorded (the file predates `marginal calibrate`): nothing in it says its objective ranks margin sets as games do; `marginal calibrate` measures that, and docs/calibration.md gives the shipped calibrations (tuned/calibration-*.json)".to_string(),
    }
}

/// The refusal of a games tune whose every game ended with an engine fault: it measured
/// nothing of the margins, so no tuned file is written (as `match` and `calibrate` refuse such
/// games).
pub fn all_games_faulted(file: &TunedFile) -> Option<String> {
    file.all_games_faulted().map(|games| format!(
        "every one of the {games} games of the tune ended with an engine fault: no evaluation measured the margins, so no tuned file is written; fix the engine (or its engine file or --engine-cmd line) and tune again"
    ))
}

/// The tuned set by its tuned rows (the file holds every row).
pub fn tuned_set(file: &TunedFile) -> String {
    let tuned: Vec<String> = (file.tuned.iter())
        .filter_map(|name| file.margins.0.get(name).map(|v| format!("{name}={v}")))
        .collect();
    format!("tuned set: {}", tuned.join(", "))
}

/// When a tune changed nothing: every suite evaluation (3 or more) scored the same (the
/// margins made no difference: an external engine most likely ignores its options), the set
/// found is the one the tune started from, or it measures as the defaults do; and when `off`
/// scored above the tuned set on the suite objective.
pub fn nothing_moved(file: &TunedFile, space: &Space) -> Vec<Said> {
    let objectives: Vec<f64> = (file.evaluations.iter())
        .map(|e| e.evaluation.objective)
        .collect();
    if objectives.len() >= 3 && objectives.iter().all(|&o| o == objectives[0]) {
        return vec![Said::Warning(format!(
            "every one of the {} evaluations scored the same objective ({:.3}): no margin tried changed a search on these positions; an external engine most likely ignores the options that carry them (check its answers to `setoption` and the option names in its engine file)",
            objectives.len(),
            objectives[0]
        ))];
    }
    let mut lines = Vec::new();
    let start = space.base.values();
    let moved = space.dims.iter().any(|d| {
        file.margins
            .0
            .get(&d.name)
            .and_then(serde_json::Value::as_i64)
            != start.get(d.index).map(|&v| i64::from(v))
    });
    // The race says so itself when the defaults are kept.
    let said_by_race = file.provenance.solver == "race";
    if !moved && !said_by_race {
        let hint = match file.provenance.solver.as_str() {
            "spsa" => {
                ": SPSA's steps were too small to move a margin by a whole unit; raise --r-end (the final learning rate, 0.002 by default) or --iterations (docs/tuning.md)"
            }
            _ => ": the search found nothing better than it",
        };
        lines.push(Said::Out(format!(
            "note: the tuned set is the one the tune started from{hint}"
        )));
    } else if moved && !said_by_race && file.measures_as_defaults() {
        lines.push(Said::Out(
            "note: the tuned set measures the same as the defaults on the training and the validation positions (objective, solved and nodes): it moved the margins too little to change a search, so no gain was found; tune longer (--iterations) or on more positions".into(),
        ));
    }
    // `off` (every margin test disabled) is no candidate of a tune, but a user should know
    // when it scored better on the objective the tune maximised than the set it wrote.
    let value = |name: &str| file.training.set(name).map(|s| s.objective.value);
    if let (Some(off), Some(tuned), "suite") = (
        value("off"),
        value("tuned"),
        file.provenance.objective.as_str(),
    ) && off > tuned
    {
        lines.push(Said::Out(format!(
            "note: `off` (no margin test) scores above the tuned set on the training positions ({off:.3} against {tuned:.3}): at this node budget these positions reward no pruning; tune at a larger --nodes or on more positions"
        )));
    }
    lines
}

/// Where the tuned file went, the work and the wall and CPU time it took (with the interrupted
/// runs it resumed: their time, as its provenance records it, and their count).
pub fn written(out: &Path, file: &TunedFile, earlier_runs: usize) -> String {
    let p = &file.provenance;
    // The provenance counts every game of the run (a games objective's, a race's screen and
    // finalists'); suite evaluations are the log's.
    let work = match (file.evaluations.len(), file.provenance.games) {
        (evaluations, 0) => format!("{evaluations} evaluations"),
        (0, games) => format!("{games} games"),
        (evaluations, games) => format!("{evaluations} evaluations, {games} games"),
    };
    let cpu = |seconds: f64| {
        if seconds > 0.0 {
            format!(", {:.1} CPU min", seconds / 60.0)
        } else {
            String::new()
        }
    };
    let earlier = if earlier_runs > 0 {
        format!(
            "; {:.0} s{} with the {earlier_runs} interrupted run(s) it resumed",
            p.wall_seconds + p.earlier_wall_seconds,
            cpu(p.cpu_seconds + p.earlier_cpu_seconds)
        )
    } else {
        String::new()
    };
    format!(
        "tuned set written to {} ({work}, {:.0} s{}{earlier})",
        out.display(),
        p.wall_seconds,
        cpu(p.cpu_seconds)
    )
}

/// The warning of a run in which the engine faulted: which engine (its name and file), how
/// often while tuning and while judging.
pub fn faults(file: &TunedFile, out: &Path) -> Option<String> {
    let p = &file.provenance;
    (p.faults > 0).then(|| {
        let judged = file.training.faults + file.validation.faults;
        let engine = (file.engine.as_ref()).map_or("the engine".into(), |e| {
            format!("the engine {} ({})", e.name, e.source)
        });
        format!(
            "{engine} faulted {} time(s) over the run: {} while tuning, {judged} while judging the tuned set, the defaults and off (training {}, validation {}); suite positions are scored unsolved and games lost, so the figures count them (provenance.faults in {})",
            p.faults,
            p.faults - judged as u64,
            file.training.faults,
            file.validation.faults,
            out.display()
        )
    })
}

/// The line of a solver's iteration (SPSA's, or Nelder-Mead's and the swarm's) with the
/// `margins` after it, `seconds` into the run; `best` is the best objective so far, updated.
pub fn iteration_line(
    i: &crate::progress::Iteration<'_>,
    best: &mut f64,
    margins: &str,
    seconds: f64,
) -> String {
    if let Some(result) = i.spsa_result {
        let objectives = if i.evaluated.is_empty() {
            String::new()
        } else {
            *best = i.evaluated.iter().copied().fold(*best, f64::max);
            let probes: Vec<String> = i.evaluated.iter().map(|o| format!("{o:.3}")).collect();
            format!("  objective {}  best {best:.3}", probes.join("/"))
        };
        let (k, n) = (i.iteration, i.iterations);
        return format!(
            "iteration {k:>3}/{n}: {margins}  result {result:+.3}{objectives}  ({seconds:.0} s)"
        );
    }
    let objective = i.objective.unwrap_or(f64::NAN);
    *best = best.max(objective);
    let step = match i.iteration {
        0 => "start".to_string(),
        k => format!("iteration {k:>3}/{}", i.iterations),
    };
    format!(
        "{step}: {margins}  objective {objective:.3}  best {best:.3}  ({} evaluated, {seconds:.0} s)",
        i.evaluated.len(),
    )
}

/// A race's stage starting, as its progress says it.
pub fn race_stage_line(s: &crate::progress::RaceStage) -> String {
    let what = s.stage.describe(s.round);
    if s.pairs == 0 {
        let on = match s.by_objective {
            true => "the screen's objective",
            false => "the suite objective",
        };
        return format!("race {what}: scoring {} sets on {on}", s.sets);
    }
    format!(
        "{what}: {} sets, {} pairs each against the defaults ({} games)",
        s.sets,
        s.pairs,
        2 * u64::from(s.pairs) * s.sets as u64
    )
}

/// The time left of a kind of work (`of`), when known: `; about 12 min left in the games`.
pub fn left(seconds: Option<f64>, of: &str) -> String {
    match seconds {
        Some(s) if s >= 5400.0 => format!("; about {:.1} h left {of}", s / 3600.0),
        Some(s) if s >= 90.0 => format!("; about {:.0} min left {of}", s / 60.0),
        Some(s) => format!("; about {s:.0} s left {of}"),
        None => String::new(),
    }
}

/// The warning of a run whose games were lost on time (at a clock): how many, and what to do.
pub fn time_losses(file: &TunedFile, out: &Path) -> Option<String> {
    let (n, games) = (file.provenance.time_losses, file.provenance.games);
    (n > 0).then(|| {
        format!(
            "{n} game(s) of the run were lost on time (of {games} tuning games, plus the confirmation's): at this clock the engines overrun it, so the results measure flagging as well as play; give a longer --tc, or more increment (provenance.time_losses in {})",
            out.display()
        )
    })
}

/// The speed of the suite evaluations this invocation searched (none when it searched none).
pub fn speed(
    plan: &TunePlan,
    file: &TunedFile,
    (searched, search_seconds): (usize, f64),
    threads: usize,
) -> Option<String> {
    (searched > 0).then(|| {
        let each = search_seconds / searched as f64;
        format!(
            "speed: {searched} evaluations searched in {search_seconds:.1} s on {threads} thread(s): {each:.2} s each ({} positions at {}), {:.1} per minute{}",
            plan.batch
                .map_or(file.training.positions, |b| b.min(file.training.positions)),
            file.provenance.limit,
            60.0 / each,
            if plan.solver.is_spsa() {
                format!(", {:.2} s per SPSA iteration", 2.0 * each)
            } else {
                String::new()
            }
        )
    })
}

/// Whether `out` already holds this run's result (the same run, set and figures: a rerun of a
/// finished tune replays its checkpoint): it is then left as it is, keeping the cost of the
/// run that found the set and anything `check --update` added; the line says so. `force`
/// writes afresh.
pub fn already_written(out: &Path, force: bool, file: &TunedFile) -> Option<String> {
    if force || !out.is_file() {
        return None;
    }
    let old = TunedFile::read(out).ok()?;
    let same = old.provenance.run == file.provenance.run
        && old.margins == file.margins
        && old.training.sets == file.training.sets
        && old.validation.sets == file.validation.sets;
    same.then(|| {
        let p = &old.provenance;
        format!(
            "{} already holds this run's result (the same set and figures; the run that found it took {:.0} s): left as it is, with that run's record; --force writes it afresh",
            out.display(),
            p.wall_seconds + p.earlier_wall_seconds,
        )
    })
}

/// What a rerun goes on from (the evaluations and game batches its checkpoint `dir` keeps,
/// the best objective of `logged` so far and its margins), and that objective; none when it
/// keeps nothing.
pub fn resuming(dir: &Path, logged: &[Evaluation], space: &Space) -> Option<(String, Option<f64>)> {
    let batches = super::checkpoint::game_batches_kept(dir);
    let best = (logged.iter())
        .filter(|e| e.batch.is_none())
        .max_by(|a, b| a.objective.total_cmp(&b.objective));
    let mut kept = Vec::new();
    if !logged.is_empty() {
        kept.push(super::checkpoint::evaluations_kept(dir));
    }
    if batches > 0 {
        kept.push(format!("{batches} game batches"));
    }
    if kept.is_empty() {
        return None;
    }
    let margins = |values: &[i32]| {
        (space.dims.iter().zip(values))
            .map(|(d, v)| format!("{} {v}", d.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let line = format!(
        "resuming from {}: {} in its log{}; finished work is not searched or played again",
        dir.display(),
        kept.join(" and "),
        best.map_or(String::new(), |e| format!(
            ", best objective so far {:.3} at {}",
            e.objective,
            margins(&e.values)
        ))
    );
    Some((line, best.map(|e| e.objective)))
}

/// A set's values as `a / b / c`.
pub fn slashed(values: &[i32]) -> String {
    let values: Vec<String> = values.iter().map(i32::to_string).collect();
    values.join(" / ")
}

/// The line of a finalist's round of games in a race, `seconds` into the run.
pub fn race_round_line(step: &crate::progress::RaceStep<'_>, seconds: f64) -> String {
    let (pairs, wdl) = step.games.unwrap_or_default();
    format!(
        "{}: {}  {:+.1} Elo against the defaults after {} games (+{} ={} -{}){}  ({seconds:.0} s)",
        step.stage.describe(step.round),
        slashed(step.values),
        step.score,
        2 * pairs,
        wdl.wins,
        wdl.draws,
        wdl.losses,
        if step.cached { ", from the log" } else { "" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::paired::PairedComparison;

    #[test]
    fn the_written_line_counts_a_races_games_beside_its_evaluations_and_its_wall_and_cpu_time() {
        let shipped = |name: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tuned")
                .join(name);
            let mut file = TunedFile::read(&path).unwrap();
            (file.provenance.wall_seconds, file.provenance.cpu_seconds) = (1.0, 0.0);
            let line = written(Path::new("t.json"), &file, 0);
            (file, line)
        };
        // Screened in games: no suite evaluation, only games.
        let (mut file, line) = shipped("gnuchess-race.json");
        assert!(file.evaluations.is_empty() && file.provenance.games > 0);
        let games = file.provenance.games;
        assert!(line.contains(&format!("({games} games, 1 s)")), "{line}");
        // Its CPU time when recorded, and with the interrupted run it resumed.
        file.provenance.cpu_seconds = 90.0;
        let line = written(Path::new("t.json"), &file, 0);
        assert!(
            line.contains(&format!("({games} games, 1 s, 1.5 CPU min)")),
            "{line}"
        );
        let p = &mut file.provenance;
        (p.earlier_wall_seconds, p.earlier_cpu_seconds) = (2.0, 30.0);
        let line = written(Path::new("t.json"), &file, 1);
        let resumed =
            "1 s, 1.5 CPU min; 3 s, 2.0 CPU min with the 1 interrupted run(s) it resumed)";
        assert!(line.contains(resumed), "{line}");
        // Screened by the suite, finalists in games: both.
        let (file, line) = shipped("race-seed1.json");
        let both = format!(
            "({} evaluations, {} games, 1 s)",
            file.evaluations.len(),
            file.provenance.games
        );
        assert!(line.contains(&both), "{line}");
    }

    #[test]
    fn iteration_lines_name_the_margins_and_keep_the_best() {
        let mut best = f64::NEG_INFINITY;
        let iteration = |iteration, objective, spsa_result| crate::progress::Iteration {
            iteration,
            iterations: 20,
            values: &[100, 200],
            objective,
            evaluated: &[0.5, 0.25],
            spsa_result,
        };
        let line = |i, best: &mut f64| iteration_line(&i, best, "a 100, b 200", 3.0);
        let start = line(iteration(0, Some(0.75), None), &mut best);
        let said = "start: a 100, b 200  objective 0.750  best 0.750  (2 evaluated, 3 s)";
        assert_eq!(start, said);
        let worse = line(iteration(3, Some(0.5), None), &mut best);
        let said = "iteration   3/20: a 100, b 200  objective 0.500  best 0.750  (2 evaluated, ";
        assert!(worse.starts_with(said), "{worse}");
        let spsa = line(iteration(4, None, Some(-1.5)), &mut best);
        let said =
            "iteration   4/20: a 100, b 200  result -1.500  objective 0.500/0.250  best 0.750  (";
        assert!(spsa.starts_with(said), "{spsa}");
        best = 2.0;
        let resumed = line(iteration(5, Some(1.0), None), &mut best);
        assert!(resumed.contains("objective 1.000  best 2.000"), "{resumed}");
    }

    #[test]
    fn a_side_without_positions_says_so_in_one_line() {
        let side_of = Side {
            positions: 0,
            sets: Vec::new(),
            faults: 0,
        };
        let paired = PairedComparison::new(&[], &[]).unwrap();
        let text = side("validation", &side_of, &paired);
        assert!(text.starts_with("validation: no positions"), "{text}");
        assert_eq!(text.lines().count(), 1);
    }

    #[test]
    fn the_resume_command_names_the_engine_file_taken_as_it_is() {
        let dir = Path::new("cache/tune-x");
        assert_eq!(
            resume_command(dir, None),
            "marginal tune --resume cache/tune-x"
        );
        let with = resume_command(dir, Some(Path::new("e.toml")));
        assert!(
            with.ends_with("--resume cache/tune-x --engine e.toml"),
            "{with}"
        );
    }

    #[test]
    fn a_fresh_checkpoint_has_nothing_to_resume_from() {
        let dir = std::env::temp_dir().join(format!("marginal-report-{}", std::process::id()));
        let space =
            Space::new(crate::params::Margins::default(), &["futility_margin"], &[]).unwrap();
        assert!(resuming(&dir, &[], &space).is_none());
    }
}
