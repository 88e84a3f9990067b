//! What a plan's solver resolves to before any work: the solver of its kind with its settings
//! (the race's design, SPSA's schedule, Nelder-Mead's simplex, the swarm), its options checked
//! against the solver and objective in effect; and what its games need (the books, the
//! games objective's problem, the race's rounds, the confirmation's design).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use shakmaty::Chess;

use super::SplitError;
use super::file::GamesRecord;
use super::games::{GamesProblem, GamesSettings, interleave_openings, log_path as games_log_path};
use super::pipeline::Solver;
use super::plan::{ObjectiveKind, SolverKind, TunePlan};
use super::race::RaceSettings;
use super::run::RunError;
use super::solvers::{DEFAULT_PARTICLES, NelderMeadSettings, PsoSettings, SpsaSettings};
use super::space::{DEFAULT_PARAMS, ScheduleEnd, Space, SpaceError};
use crate::engine::{EngineDef, Setting};
use crate::formats::{Fnv, openings, read_bytes};
use crate::params::GOVERNED_BY;
use crate::progress::Said;
use crate::scoring::exec::Runner;
use crate::scoring::games::game::GameConfig;
use crate::scoring::games::matches::MatchConfig;
use crate::scoring::games::session::{self, RecordPlan, Session, SessionError};
use crate::scoring::games::spec::parse_sprt;
use crate::scoring::games::stats::SprtParams;
use crate::scoring::suite::{
    LoadedSuites, RunConfig, ScorerOptions, default_cache_dir, odd_suites,
};

/// A checked solver configuration.
pub struct SolverSetup {
    kind: SolverKind,
    /// The solver's settings, as the tuned file records them.
    pub settings: Value,
    nelder_mead: Option<NelderMeadSettings>,
    pso: Option<PsoSettings>,
    /// The race's settings (`--solver race`).
    pub race: Option<RaceSettings>,
}

impl SolverSetup {
    /// The library's solver for this setup.
    pub fn solver(&self, plan: &TunePlan) -> Solver {
        match (self.kind, &self.nelder_mead, &self.pso, &self.race) {
            (SolverKind::NelderMead, Some(s), _, _) => Solver::NelderMead(s.clone()),
            (SolverKind::Pso, _, Some(s), _) => Solver::Pso(s.clone()),
            (SolverKind::Race, _, _, Some(s)) => Solver::Race(s.clone()),
            _ => Solver::Spsa {
                iterations: plan.iterations,
                gain: plan.gain,
                batch: plan.batch,
            },
        }
    }
}

/// Checks the solver arguments and works out the settings.
pub fn solver_setup(plan: &TunePlan, space: &Space) -> Result<SolverSetup, RunError> {
    let kind = plan.solver;
    let particles = plan.particles.unwrap_or(DEFAULT_PARTICLES);
    if particles == 0 {
        return Err(RunError::Refused(
            "--particles 0: the swarm needs at least one particle".into(),
        ));
    }
    no_empty_rounds(&plan.race_pairs)?;
    if kind == SolverKind::Race && plan.objective != ObjectiveKind::Suite {
        return Err(RunError::Refused(
            "--solver race tunes on the suite objective and races games itself: --objective games runs with --solver spsa, nelder-mead or pso".into(),
        ));
    }
    let (mut nelder_mead, mut pso, mut race) = (None, None, None);
    let settings = match kind {
        SolverKind::Race => {
            let mut s = RaceSettings::new(space.dims.len(), plan.seed);
            if let Some(n) = plan.design {
                s.design = n;
            }
            if let Some(n) = plan.screen {
                s.screen_positions = n;
            }
            if let Some(n) = plan.finalists {
                s.finalists = n;
                s.keep = s.keep.max(n);
            }
            if !plan.race_pairs.is_empty() {
                s.rounds = plan.race_pairs.iter().copied().filter(|&p| p > 0).collect();
            }
            let value = serde_json::to_value(&s).expect("settings serialize");
            race = Some(s);
            value
        }
        SolverKind::Spsa => serde_json::to_value(
            SpsaSettings::new(space, plan.iterations, plan.seed, plan.gain)
                .map_err(|e| RunError::Refused(e.to_string()))?,
        )
        .expect("settings serialize"),
        SolverKind::NelderMead => {
            let s = NelderMeadSettings::new(space, plan.iterations);
            let value = serde_json::to_value(&s).expect("settings serialize");
            nelder_mead = Some(s);
            value
        }
        SolverKind::Pso => {
            let s = PsoSettings::new(space, plan.iterations, particles, plan.seed);
            let value = serde_json::to_value(&s).expect("settings serialize");
            pso = Some(s);
            value
        }
    };
    Ok(SolverSetup {
        kind,
        settings,
        nelder_mead,
        pso,
        race,
    })
}

/// Refuses a round of 0 pairs among others in --race-pairs (0 alone means no games).
fn no_empty_rounds(pairs: &[u32]) -> Result<(), RunError> {
    if pairs.len() > 1 && pairs.contains(&0) {
        let list: Vec<String> = pairs.iter().map(u32::to_string).collect();
        return Err(RunError::Refused(format!(
            "--race-pairs {}: a round of 0 pairs plays nothing; give 0 alone (no games: the best suite objective wins) or only positive pairs",
            list.join(",")
        )));
    }
    Ok(())
}

/// The default SPRT of the confirmation.
pub const DEFAULT_CONFIRM_SPRT: &str = "0,5,0.05,0.05";

/// What the games objective and the confirmation need, checked before anything runs.
pub struct GamesSetup {
    /// The book of the games objective in file order (empty when it plays none).
    pub book: Vec<Chess>,
    /// Its path.
    pub book_path: PathBuf,
    /// FNV-1a hash of its bytes (0 when the games objective plays none).
    pub book_hash: u64,
    /// The books of the confirmation, each in file order (empty without one).
    pub confirm_books: Vec<(PathBuf, Vec<Chess>)>,
    /// The design of the confirmation's SPRT.
    pub sprt: SprtParams,
}

/// Checks the games options of `plan` and reads its books, when it plays games at all; the
/// books' skipped lines go to `remarks`.
///
/// # Errors
/// `--pairs 0`, `--confirm 0`, a bad `--confirm-sprt`, an unreadable or too small book.
pub fn games_setup(
    plan: &TunePlan,
    remarks: &mut Vec<Said>,
) -> Result<Option<GamesSetup>, RunError> {
    let refused = |m: String| RunError::Refused(m);
    if plan.pairs == Some(0) {
        return Err(refused("--pairs 0: play at least one game pair".into()));
    }
    if plan.confirm == Some(0) {
        return Err(refused("--confirm 0: play at least two games".into()));
    }
    let sprt_text = plan.confirm_sprt.as_deref().unwrap_or(DEFAULT_CONFIRM_SPRT);
    let sprt =
        parse_sprt(sprt_text).map_err(|e| refused(e.0.replacen("--sprt", "--confirm-sprt", 1)))?;
    if !plan.plays_games() {
        return Ok(None);
    }
    let confirm_books = confirm_books(plan, remarks)?;
    let book_path = plan.book_path();
    if plan.objective != ObjectiveKind::Games {
        return Ok(Some(GamesSetup {
            book: Vec::new(),
            book_path,
            book_hash: 0,
            confirm_books,
            sprt,
        }));
    }
    let book = read_book("--openings", &book_path, remarks)?;
    openings::enough(
        "--openings",
        &book_path,
        book.len(),
        plan.pairs() as usize,
        "an iteration (--pairs)",
        "fewer --pairs",
    )
    .map_err(RunError::Refused)?;
    let bytes =
        read_bytes(&book_path, "opening book ").map_err(|e| refused(format!("--openings: {e}")))?;
    let mut h = Fnv::new();
    h.write(&bytes);
    Ok(Some(GamesSetup {
        book,
        book_path,
        book_hash: h.finish(),
        confirm_books,
        sprt,
    }))
}

/// The book of `option` at `path`, its skipped lines said in `remarks`.
fn read_book(option: &str, path: &Path, remarks: &mut Vec<Said>) -> Result<Vec<Chess>, RunError> {
    let book = openings::read(path).map_err(|e| RunError::Refused(format!("{option}: {e}")))?;
    remarks.extend(Said::skipped(&book.skipped));
    Ok(book.records)
}

/// The books of the confirmation, each long enough for its share of the pairs (none without
/// one).
fn confirm_books(
    plan: &TunePlan,
    remarks: &mut Vec<Said>,
) -> Result<Vec<(PathBuf, Vec<Chess>)>, RunError> {
    let Some(games) = plan.confirm else {
        return Ok(Vec::new());
    };
    let mut books = Vec::new();
    for path in plan.confirm_book_paths() {
        let book = read_book("--confirm-openings", &path, remarks)?;
        books.push((path, book));
    }
    // The confirmation's pairs go to its books in turn, each pair from its own opening.
    let each = (games.div_ceil(2) as usize).div_ceil(books.len().max(1));
    for (path, book) in &books {
        openings::enough(
            "--confirm-openings",
            path,
            book.len(),
            each,
            &format!("--confirm {games} it plays"),
            "fewer --confirm games",
        )
        .map_err(RunError::Refused)?;
    }
    Ok(books)
}

/// The games objective of a run: the book shuffled with the seed, the games' settings
/// (`threads` games at once), the log in the checkpoint directory `dir`. A book shorter than
/// SPSA's iterations' pairs is said in `remarks` (openings repeat).
///
/// # Errors
/// A book with fewer openings than a comparison's pairs, or a log that cannot be opened.
pub fn games_problem(
    plan: &TunePlan,
    setup: &GamesSetup,
    space: &Space,
    dir: &Path,
    threads: usize,
    remarks: &mut Vec<Said>,
) -> Result<GamesProblem, RunError> {
    let mut book = setup.book.clone();
    openings::shuffle(&mut book, plan.seed);
    let settings = GamesSettings {
        game: GameConfig {
            limit: plan.move_limit(),
            ..GameConfig::default()
        },
        pairs: plan.pairs(),
        concurrency: threads,
        hash_mb: plan.scoring.hash,
    };
    openings::enough(
        "--openings",
        &setup.book_path,
        book.len(),
        settings.pairs as usize,
        "each comparison",
        "fewer --pairs",
    )
    .map_err(RunError::Refused)?;
    let wanted = settings.pairs as usize * plan.iterations as usize;
    if plan.solver.is_spsa() && book.len() < wanted {
        remarks.push(Said::Warning(format!(
            "--openings {}: {} openings for {} iterations x {} pairs = {wanted} pairs: openings repeat (each about {:.1} times), so the comparisons share games' starts",
            setup.book_path.display(),
            book.len(),
            plan.iterations,
            settings.pairs,
            wanted as f64 / book.len() as f64
        )));
    }
    GamesProblem::new(space.clone(), book, settings, Some(&games_log_path(dir))).map_err(|source| {
        RunError::Io {
            what: format!("open the games log in {}", dir.display()),
            source,
        }
    })
}

/// The games of the race: one problem per round of the games screen (when it screens in
/// games), then one per race round, each a candidate against the defaults on its own openings
/// of the race book (shuffled with the seed; race round r plays the openings after round
/// r - 1's, and the screen's rounds those after the race's), `threads` games at once, logged
/// in the checkpoint directory `dir` (`screen-games-R.jsonl`, `race-games-R.jsonl`). None
/// when no round is raced.
///
/// # Errors
/// An unreadable book, one with fewer openings than the rounds' pairs, or a log that cannot
/// be opened.
pub fn race_problems(
    plan: &TunePlan,
    space: &Space,
    settings: &RaceSettings,
    dir: &Path,
    threads: usize,
    remarks: &mut Vec<Said>,
) -> Result<Vec<GamesProblem>, RunError> {
    let rounds = &settings.rounds;
    if rounds.is_empty() || plan.objective != ObjectiveKind::Suite {
        return Ok(Vec::new());
    }
    let path = plan.race_book_path();
    let mut book = read_book("--race-openings", &path, remarks)?;
    let screen: &[u32] = match settings.screen_in_games {
        true => &settings.screen_pairs,
        false => &[],
    };
    let needed: u64 = rounds.iter().chain(screen).map(|&p| u64::from(p)).sum();
    if (book.len() as u64) < needed {
        let list = |r: &[u32]| r.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let screened = match screen {
            [] => String::new(),
            s => format!(" and its games screen ({} pairs a round)", list(s)),
        };
        return Err(RunError::Refused(format!(
            "--race-openings {}: {} openings, fewer than the {needed} pairs of the race (--race-pairs {}){screened}: give a larger book or fewer pairs",
            path.display(),
            book.len(),
            list(rounds)
        )));
    }
    openings::shuffle(&mut book, plan.seed);
    let mut offset = 0usize;
    let mut problems = Vec::with_capacity(rounds.len() + screen.len());
    let named = (rounds.iter().enumerate()).map(|(r, p)| (format!("race-games-{}", r + 1), *p));
    let named = named
        .chain((screen.iter().enumerate()).map(|(r, p)| (format!("screen-games-{}", r + 1), *p)));
    for (name, pairs) in named {
        let mut openings = book.clone();
        openings.rotate_left(offset);
        offset += pairs as usize;
        let settings = GamesSettings {
            game: GameConfig {
                limit: plan.move_limit(),
                ..GameConfig::default()
            },
            pairs,
            concurrency: threads,
            hash_mb: plan.scoring.hash,
        };
        let log = dir.join(format!("{name}.jsonl"));
        let problem =
            GamesProblem::new(space.clone(), openings, settings, Some(&log)).map_err(|source| {
                RunError::Io {
                    what: format!("open the race's games log {}", log.display()),
                    source,
                }
            })?;
        problems.push(problem);
    }
    // The race plays the screen's rounds first.
    problems.rotate_right(screen.len());
    Ok(problems)
}

/// What the games objective adds to the tuned file: the log's name and size and every
/// comparison.
pub fn games_record(problem: &GamesProblem, setup: &GamesSetup) -> GamesRecord {
    let evaluations = problem.evaluations();
    GamesRecord {
        log: "games.jsonl".to_string(),
        comparisons: evaluations.len(),
        games: evaluations.iter().map(|e| 2 * e.pairs).sum(),
        pairs: u64::from(problem.settings().pairs),
        limit: problem.settings().game.limit,
        openings: setup.book_path.clone(),
        openings_hash: format!("{:016x}", setup.book_hash),
        evaluations,
    }
}

/// What a run reads and checks before it opens its checkpoint: the games and the solver it
/// plays with, and its training and validation positions.
pub struct Inputs {
    /// The games objective's and the confirmation's books and SPRT, when it plays games.
    pub games: Option<GamesSetup>,
    /// The solver and its settings.
    pub solver: SolverSetup,
    /// The training positions.
    pub train: LoadedSuites,
    /// The validation positions.
    pub validation: LoadedSuites,
}

/// Fewer held-out positions than this are warned about: the judged figures of a handful say
/// little.
pub const FEWEST_VALIDATION: usize = 30;

/// Checks the games and solver options of `plan` over `space`, reads the books and the
/// positions ([`split_positions`]); what is odd in them goes to `remarks`, with a --batch no
/// smaller than the training positions.
///
/// # Errors
/// As [`games_setup`], [`solver_setup`] and [`split_positions`].
pub fn inputs(plan: &TunePlan, space: &Space, remarks: &mut Vec<Said>) -> Result<Inputs, RunError> {
    let games = games_setup(plan, remarks)?;
    let solver = solver_setup(plan, space)?;
    let (train, validation) = split_positions(plan, remarks)?;
    if let Some(n) = plan.batch.filter(|&n| n >= train.positions.len()) {
        remarks.push(Said::Warning(format!(
            "--batch {n} is not smaller than the {} training positions: every comparison scores all of them, as without --batch",
            train.positions.len()
        )));
    }
    Ok(Inputs {
        games,
        solver,
        train,
        validation,
    })
}

/// The training and validation positions of `plan` ([`super::split`]): the suites' bad lines,
/// a file named twice, repeated positions and too few validation positions go to `remarks`.
///
/// # Errors
/// A suite that cannot be read, or a --holdout position that is also a training one.
pub fn split_positions(
    plan: &TunePlan,
    remarks: &mut Vec<Said>,
) -> Result<(LoadedSuites, LoadedSuites), RunError> {
    let (train, validation) = super::split(&plan.suites(), &plan.holdout, plan.scoring.repeats())
        .map_err(|e| {
        RunError::Refused(match e {
            SplitError::Overlap { .. } => format!("--holdout {e}"),
            SplitError::Suite(e) => e.to_string(),
        })
    })?;
    let mut seen = std::collections::HashSet::new();
    let bad = (train.skipped().chain(validation.skipped())).filter(|b| seen.insert(b.to_string()));
    remarks.extend(Said::skipped(bad));
    let named: Vec<PathBuf> = plan
        .suites()
        .into_iter()
        .chain(plan.holdout.clone())
        .collect();
    remarks.extend(
        odd_suites(&named, &[&train, &validation])
            .into_iter()
            .map(Said::Warning),
    );
    if validation.positions.len() < FEWEST_VALIDATION {
        remarks.push(Said::Warning(format!(
            "{} validation position(s): too few to judge the tuned set on positions it never saw (its paired test needs tens that differ); give at least {FEWEST_VALIDATION} held out ({} or more positions in all, a third held out), or --holdout FILE",
            validation.positions.len(),
            3 * FEWEST_VALIDATION
        )));
    }
    Ok((train, validation))
}

/// The suite scorers' options of a run of `plan` with `def`'s engine: its limit, table and
/// objective, `off` as the reference, the cache, and where the searching runs.
pub fn scorer_options(
    plan: &TunePlan,
    def: &Arc<EngineDef>,
    executor: Arc<dyn Runner>,
) -> ScorerOptions {
    ScorerOptions {
        config: RunConfig {
            limit: plan.limit(),
            hash_mb: plan.scoring.hash,
        },
        objective: plan.scoring.params(),
        reference: Setting::off(def),
        cache_dir: Some(default_cache_dir()),
        executor,
    }
}

/// The searches a run of `plan` makes at once with `threads` workers (a games tune's games
/// have two engines each): the transposition tables that must fit together.
pub fn searches_at_once(plan: &TunePlan, threads: usize) -> usize {
    if plan.plays_games() {
        2 * threads
    } else {
        threads
    }
}

/// The settings of the confirmation match (`--confirm`): `games` games at most (2 at least)
/// at the plan's per-move limit, `threads` games at once, stopped by the setup's SPRT.
pub fn confirm_config(
    plan: &TunePlan,
    setup: &GamesSetup,
    games: u32,
    threads: usize,
) -> MatchConfig {
    MatchConfig {
        game: GameConfig {
            limit: plan.move_limit(),
            ..GameConfig::default()
        },
        games: games.max(2),
        concurrency: threads,
        sprt: Some(setup.sprt),
    }
}

/// The confirmation match of `tuned` against the defaults as `config` says
/// ([`confirm_config`]), on the confirmation books in turn: its session opened, recording its
/// pairs in the checkpoint `dir` (when there is one) so that an interrupted confirmation goes
/// on from them; with its record.
///
/// # Errors
/// The record in `dir` is of another confirmation, or cannot be read or written.
pub fn confirm_session(
    plan: &TunePlan,
    setup: &GamesSetup,
    tuned: Setting,
    config: MatchConfig,
    dir: Option<&Path>,
) -> Result<(Session, Option<RecordPlan>), SessionError> {
    let books: Vec<Vec<Chess>> = setup.confirm_books.iter().map(|(_, b)| b.clone()).collect();
    let book = interleave_openings(&books, plan.seed);
    let baseline = Setting::defaults(tuned.def());
    let record = dir.map(|dir| {
        let path = super::checkpoint::confirm_pgn(dir);
        let asked = session::Asked {
            a: "tuned",
            b: "default",
            seed: plan.seed,
            hash_mb: plan.scoring.hash,
        };
        RecordPlan {
            resume: path.exists(),
            settings: session::settings(&asked, (&tuned, &baseline), &book, &config),
            path,
        }
    });
    let side = |name: &str, setting: Setting| session::Side {
        name: name.to_string(),
        setting,
    };
    let session = Session::open(
        side("tuned", tuned),
        side("baseline", baseline),
        plan.scoring.hash,
        config,
        book,
        record.as_ref(),
    )?;
    Ok((session, record))
}

/// The rows a plan that names none tunes: the four seed margins of marginal's own engine,
/// every row of an external engine's file.
pub fn default_params(def: &EngineDef) -> Vec<String> {
    if def.is_builtin() {
        DEFAULT_PARAMS.map(String::from).to_vec()
    } else {
        def.rows.iter().map(|r| r.name.clone()).collect()
    }
}

/// The search space of `plan` for `def`'s engine: its rows (`params`, else
/// [`default_params`]), bounds and schedule ends. A row fixed at one value among others, and
/// bounds that leave out a default, are said in `remarks`.
///
/// # Errors
/// A row, bound or schedule value the space refuses, or bounds that fix every row.
pub fn space(
    plan: &TunePlan,
    def: &Arc<EngineDef>,
    remarks: &mut Vec<Said>,
) -> Result<Space, RunError> {
    let params = if plan.params.is_empty() {
        default_params(def)
    } else {
        plan.params.clone()
    };
    let names = strs(&params);
    let space = Space::new(Setting::defaults(def), &names, &strs(&plan.bounds))
        .and_then(|s| s.with_schedule(ScheduleEnd::C, &strs(&plan.c_end)))
        .and_then(|s| s.with_schedule(ScheduleEnd::R, &strs(&plan.r_end)))
        .map_err(|e| match e {
            SpaceError::Empty => RunError::Refused(nothing_to_tune(plan, def)),
            e => RunError::Refused(e.to_string()),
        })?;
    fixed_rows(&space, remarks)?;
    idle_rows(&space, remarks)?;
    for (d, value) in space.base_outside() {
        remarks.push(Said::Warning(format!(
            "--bounds {}={}..{} leaves out its default {value}: tuning starts from {} (the nearest bound), and the defaults it is judged against stay at {value}",
            d.name,
            d.lower,
            d.upper,
            value.clamp(d.lower, d.upper)
        )));
    }
    Ok(space)
}

/// Why `plan` has no parameter to tune, naming the engine (its file, or the built-in engine)
/// and the fix.
fn nothing_to_tune(plan: &TunePlan, def: &EngineDef) -> String {
    let engine = match (&plan.engine.engine, &plan.engine.engine_cmd) {
        (Some(file), _) => format!("the engine file {}", file.display()),
        (None, Some(cmd)) => format!("--engine-cmd '{cmd}'"),
        (None, None) => "the built-in engine".to_string(),
    };
    if !plan.params.is_empty() {
        return format!(
            "no parameter to tune: --params names no row of {engine}; name one or more of its rows ({}), or leave out --params to tune its default rows",
            def.rows_hint()
        );
    }
    format!(
        "no parameter to tune: {engine} has no params rows; give it rows (\"name, uci option, default, min, max, step, r_end, off\", each with a positive step: docs/external-engines.md), or tune an engine's spin options with --engine-cmd and --engine-options"
    )
}

/// The strings of `v` as `&str`s.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Refuses bounds that leave nothing to search (every tuned row fixed at one value), and says
/// which rows a single value fixes among others (they are not tuned).
fn fixed_rows(space: &Space, remarks: &mut Vec<Said>) -> Result<(), RunError> {
    let fixed: Vec<String> = space
        .dims
        .iter()
        .filter(|d| d.lower == d.upper)
        .map(|d| format!("{}={}..{}", d.name, d.lower, d.upper))
        .collect();
    if fixed.len() == space.dims.len() {
        return Err(RunError::Refused(format!(
            "--bounds {}: every tuned row is fixed at one value, so there is nothing to search: widen a range, or tune other --params",
            fixed.join(" ")
        )));
    }
    if !fixed.is_empty() {
        remarks.push(Said::Warning(format!(
            "--bounds {}: a range of one value fixes the row: it is not tuned",
            fixed.join(" ")
        )));
    }
    Ok(())
}

/// Says, once a row, which tuned rows of the built-in engine act only while a switch that is
/// off in the base set is on: their values change no search, so the tune cannot move them
/// for a reason. Refuses a space where every tuned row is such a row.
fn idle_rows(space: &Space, remarks: &mut Vec<Said>) -> Result<(), RunError> {
    let base = &space.base;
    if !base.def().is_builtin() {
        return Ok(());
    }
    let idle: Vec<String> = space
        .dims
        .iter()
        .filter_map(|d| {
            let (_, switch) = GOVERNED_BY.iter().find(|(row, _)| *row == d.name)?;
            let s = base.def().find(switch)?;
            (base.values()[s] == 0).then(|| format!("{} (its switch {switch} is off)", d.name))
        })
        .collect();
    if idle.is_empty() {
        return Ok(());
    }
    let said = format!(
        "--params {}: the built-in engine's defaults, which every tuned set starts from, leave these rows' techniques off, so their values change no search",
        idle.join(", ")
    );
    if idle.len() == space.dims.len() {
        return Err(RunError::Refused(format!(
            "{said}: there is nothing to tune; tune rows whose techniques are on (`marginal params` shows each row's switch and default)"
        )));
    }
    remarks.push(Said::Warning(format!(
        "{said}: they are tuned to no purpose"
    )));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_rows_whose_switch_is_off_is_said_and_tuning_only_such_rows_is_refused() {
        let def = EngineDef::builtin();
        let mut p = TunePlan {
            params: vec!["lmp_base".into()],
            ..TunePlan::default()
        };
        let mut remarks = Vec::new();
        let Err(RunError::Refused(e)) = space(&p, &def, &mut remarks) else {
            panic!("a tune of lmp_base alone is refused");
        };
        assert!(
            e.contains("lmp_base")
                && e.contains("late_move_pruning")
                && e.contains("nothing to tune"),
            "{e}"
        );
        p.params = vec!["frontier".into(), "lmp_base".into()];
        let mut remarks = Vec::new();
        space(&p, &def, &mut remarks).expect("a tune with one live row runs");
        let warnings: Vec<&String> = remarks
            .iter()
            .filter_map(|r| match r {
                Said::Warning(m) if m.contains("lmp_base") => Some(m),
                _ => None,
            })
            .collect();
        assert_eq!(warnings.len(), 1, "{remarks:?}");
        assert!(warnings[0].contains("late_move_pruning") && !warnings[0].contains("frontier"));
        p.params = Vec::new();
        let mut remarks = Vec::new();
        space(&p, &def, &mut remarks).expect("the default rows");
        assert!(
            !remarks
                .iter()
                .any(|r| matches!(r, Said::Warning(m) if m.contains("change no search")))
        );
    }

    fn plan() -> TunePlan {
        TunePlan::default()
    }

    #[test]
    fn race_options_with_another_solver_are_said_to_do_nothing_naming_it() {
        let def = EngineDef::builtin();
        let space = space(&plan(), &def, &mut Vec::new()).unwrap();
        let spsa = TunePlan {
            solver: SolverKind::Spsa,
            design: Some(4),
            ..plan()
        };
        let setup = solver_setup(&spsa, &space).unwrap();
        assert!(setup.kind == SolverKind::Spsa && setup.race.is_none());
        let said = spsa.unused_options();
        assert!(
            said.len() == 1 && said[0].contains("--design 4") && said[0].contains("--solver spsa"),
            "{said:?}"
        );
        let games = TunePlan {
            objective: ObjectiveKind::Games,
            ..plan()
        };
        let e = solver_setup(&games, &space).err().unwrap().to_string();
        assert!(
            e.contains("--solver race tunes on the suite objective"),
            "{e}"
        );
        let race = TunePlan {
            design: Some(5),
            finalists: Some(20),
            race_pairs: vec![4, 8],
            ..plan()
        };
        let setup = solver_setup(&race, &space).unwrap();
        let settings = setup.race.expect("race settings");
        assert_eq!(settings.design, 5);
        assert_eq!(settings.rounds, vec![4, 8]);
        assert!(
            settings.keep >= 20,
            "every finalist is kept for the full score"
        );
    }

    #[test]
    fn no_parameter_to_tune_names_the_engine_file_and_the_fix() {
        let text = "name = \"bare\"\ncommand = \"/usr/games/toga2\"\n";
        let file =
            crate::formats::engine_file::EngineFile::parse(Path::new("e/bare.toml"), text).unwrap();
        let def = Arc::new(EngineDef::from_file(&file));
        let bare = TunePlan {
            engine: super::super::plan::EngineChoice {
                engine: Some("e/bare.toml".into()),
                ..Default::default()
            },
            ..plan()
        };
        let e = space(&bare, &def, &mut Vec::new())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("no parameter to tune")
                && e.contains("e/bare.toml")
                && e.contains("params rows")
                && e.contains("step"),
            "{e}"
        );
        let none = TunePlan {
            params: vec![" ".into()],
            ..plan()
        };
        let e = space(&none, &EngineDef::builtin(), &mut Vec::new())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("the built-in engine")
                && e.contains("--params")
                && e.contains("marginal params"),
            "{e}"
        );
    }

    #[test]
    fn bounds_that_fix_every_row_are_refused_and_one_fixed_row_is_said() {
        let def = EngineDef::builtin();
        let names = default_params(&def);
        let all: Vec<String> = names.iter().map(|n| format!("{n}=100..100")).collect();
        let fixed = TunePlan {
            bounds: all.clone(),
            ..plan()
        };
        let e = space(&fixed, &def, &mut Vec::new())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("nothing to search"), "{e}");
        let one = TunePlan {
            bounds: vec![all[0].clone()],
            ..plan()
        };
        let mut remarks = Vec::new();
        space(&one, &def, &mut remarks).unwrap();
        assert!(
            remarks
                .iter()
                .any(|r| matches!(r, Said::Warning(m) if m.contains("fixes the row"))),
            "{remarks:?}"
        );
    }

    #[test]
    fn games_options_are_checked_before_any_book_is_read() {
        let mut remarks = Vec::new();
        assert!(games_setup(&plan(), &mut remarks).unwrap().is_none());
        let zero = TunePlan {
            pairs: Some(0),
            ..plan()
        };
        let e = games_setup(&zero, &mut remarks).err().unwrap().to_string();
        assert!(e.starts_with("--pairs 0"), "{e}");
        let book = TunePlan {
            openings: Some("book.epd".into()),
            ..plan()
        };
        assert!(games_setup(&book, &mut remarks).unwrap().is_none());
        let said = book.unused_options();
        assert!(
            said.len() == 1 && said[0].contains("--openings book.epd"),
            "{said:?}"
        );
        let sprt = TunePlan {
            confirm: Some(10),
            confirm_sprt: Some("1,2".into()),
            ..plan()
        };
        let e = games_setup(&sprt, &mut remarks).err().unwrap().to_string();
        assert!(e.starts_with("--confirm-sprt"), "{e}");
    }
}
