//! The games objective: margin sets judged by self-play at a fixed node budget (or depth) per
//! move, through the same match code as `marginal match` ([`run_match`], fresh
//! [`EnginePlayer`]s for every game, game pairs with colours reversed).
//!
//! # SPSA: θ+ against θ−
//!
//! [`GamesProblem`] is an [`SpsaProblem`]: iteration `k` plays the probe θ+ against θ− for
//! `pairs` game pairs (each opening twice, colours reversed, both probes on the same openings)
//! and returns `W − L` from θ+'s side, as fishtest and OpenBench do. The parameter table's
//! `r_end` values are in those units, so no gain is applied (the suite objective's `--gain` is
//! not used).
//!
//! # Which openings: deterministic, different every iteration, resumable
//!
//! The book is shuffled once with the run's seed ([`openings::shuffle`](crate::formats::openings::shuffle)).
//! Iteration `k` plays the `pairs` openings that follow those of iteration `k − 1`: openings
//! `(k·pairs + i) mod len` for `i < pairs` (see [`spsa_window`]), so iterations never share an
//! opening until the book is used up (250 iterations at 8 pairs with the 2,002-position default
//! book) and the run then wraps around.
//!
//! An [`SpsaProblem`] is not told the iteration, so the problem counts its comparisons
//! (`compare` is called exactly once per iteration). argmin's checkpoint restores the solver
//! and its state but not the problem, so on a resume [`run_spsa_games`] reads the checkpoint
//! first and starts the count at the state's iteration (the number of iterations completed,
//! which is the iteration the resumed run does next). The comparison of iteration `k` is thus a
//! function of (seed, k, θ+, θ−) only, and games at fixed nodes or depth are deterministic, so a
//! resumed run is bit-identical to an uninterrupted one. The log keeps each iteration's result:
//! an iteration that was logged but not checkpointed before a kill is redone from the log
//! rather than replayed.
//!
//! # Other solvers: a cost against the base set
//!
//! As an argmin [`CostFunction`] (for Nelder-Mead, particle swarm), a candidate plays the base
//! set of the search space (the defaults) for `pairs` game pairs on a *fixed* set of openings,
//! the first `pairs` of the shuffled book ([`COST_WINDOW`]). The cost is then a deterministic
//! function of the margins (every candidate meets the same openings: common random numbers),
//! which simplex and swarm methods need to rank candidates, and it is cached by margin values
//! like the suite objective. The cost is minus the Elo of the candidate against the base,
//! from its score with one pseudo-draw added ([`regularized_elo`]) so that it stays finite
//! when one side wins every game.
//!
//! # Log
//!
//! Every comparison and cost evaluation is appended to `games.jsonl` in the checkpoint
//! directory ([`log_path`]) as one JSON line, a [`GamesEvaluation`]: the margins of both sides
//! as integer values, the openings used, W/D/L, the pentanomial counts, the result and the Elo.
//! The lines already there (an interrupted run of the same configuration) are read back.
//!
//! # Where the games run
//!
//! Each comparison's or cost's pairs are played by the problem's runner (on this machine by
//! default, or a cluster's: [`GamesProblem::with_executor`]) as one job, and counted here
//! ([`run_match_from`] given them all), so every evaluation is the same on any runner.
//! [`confirm_on`] plays a confirmation through a runner ([`run_match_on`]), counted as a local
//! one is.
//!
//! # Confirmation
//!
//! [`confirm`] plays a tuned set against a baseline with an SPRT and returns the library's
//! [`MatchReport`]; `marginal tune --confirm GAMES` puts it into the tuned file.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use argmin::core::checkpointing::Checkpoint;
use argmin::core::observers::Observe;
use argmin::core::{CostFunction, Error, State};
use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use super::checkpoint::JsonCheckpoint;
use super::space::Space;
use super::spsa::{Spsa, SpsaProblem, SpsaState};
use crate::engine::Setting;
use crate::progress::{Count, Event, Observer, Shared, Work};
use crate::scoring::exec::local::Local;
use crate::scoring::exec::{Done, ExecError, Finished, GamesJob, Job, Runner};
use crate::scoring::games::game::{EnginePlayer, GameConfig, Player};
use crate::scoring::games::matches::{
    MatchConfig, MatchReport, MatchResult, run_match, run_match_from,
};
use crate::scoring::games::remote::run_match_on;
use crate::scoring::games::stats::{
    EloSummary, Pentanomial, Shown, SprtDecision, Wdl, elo_from_score, finite,
};

/// The default opening book of the games objective and of `--confirm`.
pub const DEFAULT_BOOK: &str = "data/openings/UHO_4060_v2_2k.epd";

/// Default game pairs per SPSA iteration (and per cost evaluation).
pub const DEFAULT_PAIRS: u32 = 8;

/// The first opening (index into the shuffled book) of every cost evaluation.
pub const COST_WINDOW: usize = 0;

/// Added to the seed to shuffle the book for [`confirm`], so the confirmation meets the
/// openings in another order than tuning did (with a book smaller than a long run's games the
/// two cannot be disjoint).
pub const CONFIRM_SEED_SALT: u64 = 0x636f_6e66_6972_6d00; // "confirm"

/// What a logged line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GamesKind {
    /// An SPSA comparison: `a` is θ+, `b` is θ−.
    Spsa,
    /// A cost evaluation: `a` is the candidate, `b` the base set.
    Cost,
}

/// One logged comparison or cost evaluation, everything from side `a`'s point of view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GamesEvaluation {
    /// SPSA comparison or cost evaluation.
    pub kind: GamesKind,
    /// SPSA: the iteration (0-based); cost: the sequence number of the evaluation.
    pub index: u64,
    /// Side A's tuned values, in the space's order (θ+, or the candidate).
    pub a: Vec<i32>,
    /// Side B's tuned values (θ−, or the base set).
    pub b: Vec<i32>,
    /// Index into the shuffled book of the first opening played; pair `i` played opening
    /// `(first_opening + i) mod book length`.
    pub first_opening: usize,
    /// Game pairs played.
    pub pairs: u64,
    /// A's wins, draws and losses.
    pub wdl: Wdl,
    /// Pentanomial pair counts from A's side.
    pub pentanomial: Pentanomial,
    /// SPSA: `W − L` (the compare result); cost: the cost, `−Elo` with one pseudo-draw.
    pub result: f64,
    /// Pentanomial Elo of A against B (`null` when infinite: A won or lost everything).
    pub elo: Option<f64>,
    /// Whether it was read back from the log rather than played.
    pub cached: bool,
    /// Wall-clock time of the games, seconds.
    pub seconds: f64,
    /// Games lost to an engine fault (either side); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub faults: u64,
    /// Games lost on time (at a clock, `--tc`; either side); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_losses: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why a comparison or cost evaluation failed.
#[derive(Debug, thiserror::Error)]
pub enum GamesError {
    /// The log cannot be written.
    #[error("cannot write the games log: {0}")]
    Log(#[from] std::io::Error),
    /// The executor could not play the games (or was interrupted).
    #[error(transparent)]
    Exec(#[from] ExecError),
}

impl GamesError {
    /// As argmin's error, an executor's error as itself (so a caller can downcast it to an
    /// [`ExecError`]).
    fn into_argmin(self) -> Error {
        match self {
            GamesError::Exec(e) => Error::from(e),
            other => Error::from(other),
        }
    }
}

/// How the games of the objective are played.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GamesSettings {
    /// Per-game rules and the per-move limit (fixed nodes or depth for reproducibility).
    pub game: GameConfig,
    /// Game pairs per comparison.
    pub pairs: u32,
    /// Games played at once.
    pub concurrency: usize,
    /// Transposition table per engine per game, megabytes.
    pub hash_mb: usize,
}

/// The games objective over a search space: an [`SpsaProblem`] (θ+ against θ−) and a
/// [`CostFunction`] (a candidate against the base set). See the module documentation.
pub struct GamesProblem {
    space: Space,
    openings: Vec<Chess>,
    settings: GamesSettings,
    next_iteration: AtomicU64,
    state: Mutex<GamesState>,
    executor: Arc<dyn Runner>,
    observer: Option<Shared>,
}

struct GamesState {
    log: Option<File>,
    spsa: BTreeMap<u64, GamesEvaluation>,
    costs: HashMap<Vec<i32>, GamesEvaluation>,
    cost_count: u64,
}

/// The openings (indices into the shuffled book) of SPSA iteration `k`: `pairs` consecutive
/// ones from `k · pairs`, wrapping around a book of `len` positions.
pub fn spsa_window(k: u64, pairs: u32, len: usize) -> usize {
    let len = len.max(1) as u128;
    ((u128::from(k) * u128::from(pairs)) % len) as usize
}

/// Elo from A's score with one pseudo-draw added, `elo_from_score((points + ½) / (games + 1))`:
/// finite for any result, 0 for no games, and ordered like the score.
pub fn regularized_elo(wdl: &Wdl) -> f64 {
    let points = wdl.wins as f64 + 0.5 * wdl.draws as f64;
    elo_from_score((points + 0.5) / (wdl.total_games() as f64 + 1.0))
}

impl GamesProblem {
    /// The games objective over `space`, playing from `openings` (already shuffled with the
    /// run's seed; at least one). With `log`, every evaluation is appended to it as a JSON
    /// line, and the lines already there are read back (SPSA results by iteration, costs by
    /// margin values).
    ///
    /// # Errors
    /// The log cannot be read or opened for appending.
    ///
    /// # Panics
    /// If `openings` is empty.
    pub fn new(
        space: Space,
        openings: Vec<Chess>,
        settings: GamesSettings,
        log: Option<&Path>,
    ) -> Result<GamesProblem, std::io::Error> {
        assert!(!openings.is_empty(), "the games objective needs openings");
        let mut state = GamesState {
            log: None,
            spsa: BTreeMap::new(),
            costs: HashMap::new(),
            cost_count: 0,
        };
        if let Some(path) = log {
            for e in super::checkpoint::read_log::<GamesEvaluation>(path)? {
                match e.kind {
                    GamesKind::Spsa => {
                        state.spsa.insert(e.index, e);
                    }
                    GamesKind::Cost => {
                        state.cost_count = state.cost_count.max(e.index + 1);
                        state.costs.entry(e.a.clone()).or_insert(e);
                    }
                }
            }
            state.log = Some(OpenOptions::new().create(true).append(true).open(path)?);
        }
        Ok(GamesProblem {
            space,
            openings,
            settings,
            next_iteration: AtomicU64::new(0),
            state: Mutex::new(state),
            executor: Arc::new(Local::new(settings.concurrency)),
            observer: None,
        })
    }

    /// The same problem telling `observer` how its games go: after each pair, the pairs of
    /// the evaluation being played counted so far ([`Event::Done`] of
    /// [`Work::EvaluationPairs`]; not for games played through an executor, which come back
    /// at once).
    #[must_use]
    pub fn with_observer(mut self, observer: Shared) -> GamesProblem {
        self.observer = Some(observer);
        self
    }

    /// The same problem playing its games through `executor` (by default on this machine, on
    /// `settings.concurrency` threads). The evaluations are the same either way.
    #[must_use]
    pub fn with_executor(mut self, executor: Arc<dyn Runner>) -> GamesProblem {
        self.executor = executor;
        self
    }

    /// The search space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The settings.
    pub fn settings(&self) -> &GamesSettings {
        &self.settings
    }

    /// The shuffled book.
    pub fn openings(&self) -> &[Chess] {
        &self.openings
    }

    /// The iteration the next [`SpsaProblem::compare`] stands for (see the module
    /// documentation; [`run_spsa_games`] sets it from the checkpoint).
    pub fn set_next_iteration(&self, k: u64) {
        self.next_iteration.store(k, Ordering::SeqCst);
    }

    /// Every SPSA comparison (in iteration order), then every distinct cost evaluation (in
    /// the order first evaluated), including those read back from the log.
    pub fn evaluations(&self) -> Vec<GamesEvaluation> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut costs: Vec<GamesEvaluation> = state.costs.values().cloned().collect();
        costs.sort_by_key(|e| e.index);
        state.spsa.values().cloned().chain(costs).collect()
    }

    /// Plays `a` against `b` for the configured pairs from opening `first` on, here or through
    /// the executor (whose pairs are then counted as this run's own).
    fn play(&self, a: Setting, b: Setting, first: usize) -> Result<MatchResult, ExecError> {
        let len = self.openings.len();
        let pairs = self.settings.pairs.max(1) as usize;
        let window: Vec<Chess> = (0..pairs)
            .map(|i| self.openings[(first + i) % len].clone())
            .collect();
        let hash = self.settings.hash_mb;
        let factory_a = || -> Box<dyn Player> { Box::new(EnginePlayer::new("A", a.clone(), hash)) };
        let factory_b = || -> Box<dyn Player> { Box::new(EnginePlayer::new("B", b.clone(), hash)) };
        let config = MatchConfig {
            game: self.settings.game,
            games: 2 * pairs as u32,
            concurrency: self.settings.concurrency.max(1),
            sprt: None,
        };
        // The pairs played as one job, then counted.
        let job = Job::Games(GamesJob {
            a: ("A".into(), a.clone()),
            b: ("B".into(), b.clone()),
            hash_mb: hash,
            game: self.settings.game,
            pairs: (0..pairs).map(|i| (i, window[i].clone())).collect(),
        });
        let played = AtomicU64::new(0);
        let on_done = |_: usize, _: Finished<'_>| {
            if let Some(observer) = &self.observer {
                let n = played.fetch_add(1, Ordering::Relaxed) + 1;
                let count = Count::new(Work::EvaluationPairs, n, pairs as u64);
                observer.event(&Event::Done(count));
            }
        };
        let done = self
            .executor
            .run_each(std::slice::from_ref(&job), &on_done)?;
        let earlier = done.into_iter().next().map(Done::into_pairs);
        let earlier = earlier.unwrap_or_default();
        if !earlier.iter().map(|p| p.index).eq(0..pairs) {
            return Err(ExecError::Failed(format!(
                "asked for {pairs} game pairs, got {} back",
                earlier.len()
            )));
        }
        let result = run_match_from(
            &factory_a,
            &factory_b,
            &window,
            &config,
            earlier,
            &AtomicBool::new(false),
            &mut |_, _| {},
        );
        crate::scoring::exec::gave_up([&a, &b])?;
        Ok(result)
    }

    /// Plays and builds the evaluation (not yet logged).
    fn evaluate(
        &self,
        kind: GamesKind,
        index: u64,
        a: &[i32],
        b: &[i32],
        first: usize,
    ) -> Result<GamesEvaluation, ExecError> {
        let start = Instant::now();
        let r = self.play(self.space.margins_of(a), self.space.margins_of(b), first)?;
        let s = &r.stats;
        let result = match kind {
            GamesKind::Spsa => s.wdl.wins as f64 - s.wdl.losses as f64,
            GamesKind::Cost => -regularized_elo(&s.wdl),
        };
        Ok(GamesEvaluation {
            kind,
            index,
            a: a.to_vec(),
            b: b.to_vec(),
            first_opening: first,
            pairs: s.pentanomial.total_pairs(),
            wdl: s.wdl,
            pentanomial: s.pentanomial,
            result,
            elo: finite(s.estimate().elo),
            cached: false,
            seconds: start.elapsed().as_secs_f64(),
            faults: s.fault_losses.0 + s.fault_losses.1,
            time_losses: s.time_losses.0 + s.time_losses.1,
        })
    }

    fn log(&self, state: &mut GamesState, e: &GamesEvaluation) -> Result<(), std::io::Error> {
        if let Some(log) = state.log.as_mut() {
            let line = serde_json::to_string(e).map_err(std::io::Error::other)?;
            // A full disk or a file-size limit is named, as for every output.
            writeln!(log, "{line}")
                .and_then(|()| log.flush())
                .map_err(crate::formats::limit_said)?;
        }
        Ok(())
    }

    /// SPSA iteration `k`: `plus` against `minus` (integer values of the tuned parameters) on
    /// the openings of [`spsa_window`]; reads it from the log when this iteration with these
    /// probes is already there.
    ///
    /// # Errors
    /// The executor could not play the games, or the log cannot be written.
    pub fn compare_values(
        &self,
        k: u64,
        plus: &[i32],
        minus: &[i32],
    ) -> Result<GamesEvaluation, GamesError> {
        let first = spsa_window(k, self.settings.pairs, self.openings.len());
        let pairs = u64::from(self.settings.pairs.max(1));
        {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(e) = state.spsa.get(&k)
                && e.a == plus
                && e.b == minus
                && e.first_opening == first
                && e.pairs == pairs
            {
                return Ok(GamesEvaluation {
                    cached: true,
                    ..e.clone()
                });
            }
        }
        let e = self.evaluate(GamesKind::Spsa, k, plus, minus, first)?;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.log(&mut state, &e)?;
        state.spsa.insert(k, e.clone());
        Ok(e)
    }

    /// A candidate (integer values) against the base set on the fixed cost openings; from the
    /// cache when it was evaluated before.
    ///
    /// # Errors
    /// The executor could not play the games, or the log cannot be written.
    pub fn cost_values(&self, values: &[i32]) -> Result<GamesEvaluation, GamesError> {
        let cached = {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.costs.get(values).cloned()
        };
        if let Some(e) = cached {
            return Ok(GamesEvaluation { cached: true, ..e });
        }
        let base = self.space.values_of(&self.space.base);
        let first = COST_WINDOW % self.openings.len();
        let mut e = self.evaluate(GamesKind::Cost, 0, values, &base, first)?;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        e.index = state.cost_count;
        state.cost_count += 1;
        self.log(&mut state, &e)?;
        state.costs.entry(e.a.clone()).or_insert_with(|| e.clone());
        Ok(e)
    }
}

impl SpsaProblem for GamesProblem {
    /// `W − L` of θ+ against θ− over the iteration's game pairs.
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        let k = self.next_iteration.fetch_add(1, Ordering::SeqCst);
        let e = self
            .compare_values(k, &self.space.values(plus), &self.space.values(minus))
            .map_err(GamesError::into_argmin)?;
        Ok(e.result)
    }
}

impl CostFunction for GamesProblem {
    type Param = Vec<f64>;
    type Output = f64;

    /// Minus the (regularized) Elo of the margin set `x` stands for against the base set.
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        let e = self
            .cost_values(&self.space.values(x))
            .map_err(GamesError::into_argmin)?;
        Ok(e.result)
    }
}

/// The log file of a run's games inside its checkpoint directory.
pub fn log_path(checkpoint_dir: &Path) -> PathBuf {
    checkpoint_dir.join("games.jsonl")
}

/// Runs SPSA on the games objective from the space's start, or from the checkpoint when one
/// is there (then the problem's iteration count starts at the checkpoint's, so the resumed
/// run plays the same openings and ends bit-identical to an uninterrupted one). Returns the
/// final iterate and the problem (with every comparison).
///
/// # Errors
/// A bad configuration, a checkpoint of another run or a corrupt one, or an evaluation error.
pub fn run_spsa_games(
    problem: GamesProblem,
    iterations: u64,
    seed: u64,
    checkpoint: Option<(&Path, &str)>,
    observer: impl Observe<SpsaState> + 'static,
) -> Result<(Vec<f64>, GamesProblem), Error> {
    let solver = Spsa::new(super::spsa_params(problem.space()), iterations, seed)?;
    let start = problem.space().start();
    let checkpoint = checkpoint.map(|(path, run)| JsonCheckpoint::new(path, run));
    if let Some(c) = &checkpoint
        && let Some((_, state)) = Checkpoint::<Spsa, SpsaState>::load(c)?
    {
        problem.set_next_iteration(state.get_iter());
    }
    super::execute_spsa(problem, solver, start, iterations, checkpoint, observer)
}

/// The default books of a confirmation (`tune --confirm`): the two balanced books and UHO,
/// none of them the race's book. Books rank some margin sets differently (a set measured +55
/// on one balanced book, +2 on another and +7 on UHO), so one book is an anecdote; their pairs
/// alternate and the SPRT judges them pooled.
pub const CONFIRM_BOOKS: [&str; 3] = [
    "data/openings/noob_3moves_1k.epd",
    "data/openings/popularpos_lichess_1k.epd",
    DEFAULT_BOOK,
];

/// Several books as one confirmation order: each shuffled as [`confirm_openings`] shuffles
/// one, then taken in turn (pair `i` from book `i mod k`, while each lasts), so every prefix
/// of the match, where an SPRT may stop it, plays the books about equally.
pub fn interleave_openings(books: &[Vec<Chess>], seed: u64) -> Vec<Chess> {
    let shuffled: Vec<Vec<Chess>> = books.iter().map(|b| confirm_openings(b, seed)).collect();
    let longest = shuffled.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::with_capacity(shuffled.iter().map(Vec::len).sum());
    for i in 0..longest {
        for book in &shuffled {
            if let Some(p) = book.get(i) {
                out.push(p.clone());
            }
        }
    }
    out
}

/// The book order of [`confirm`]: the book shuffled with `seed + CONFIRM_SEED_SALT`.
pub fn confirm_openings(book: &[Chess], seed: u64) -> Vec<Chess> {
    let mut positions = book.to_vec();
    crate::formats::openings::shuffle(&mut positions, seed.wrapping_add(CONFIRM_SEED_SALT));
    positions
}

/// Plays `tuned` (engine A, named "tuned") against `baseline` (B, named "baseline") as
/// `config` says (at most `config.games` games, stopped by `config.sprt`) and returns the
/// match report. `observer` sees each pair counted ([`Event::Pair`]).
pub fn confirm(
    tuned: Setting,
    baseline: Setting,
    openings: &[Chess],
    config: &MatchConfig,
    hash_mb: usize,
    observer: &dyn Observer,
) -> MatchReport {
    let factory_a =
        || -> Box<dyn Player> { Box::new(EnginePlayer::new("tuned", tuned.clone(), hash_mb)) };
    let factory_b = || -> Box<dyn Player> {
        Box::new(EnginePlayer::new("baseline", baseline.clone(), hash_mb))
    };
    let pairs = u64::from(config.games.div_ceil(2));
    let result = run_match(&factory_a, &factory_b, openings, config, &mut |_, s| {
        observer.event(&s.pair_event(pairs));
    });
    MatchReport::new(&result, config, "tuned", "baseline")
}

/// [`confirm`], with the games played by `runner` ([`run_match_on`]: on this machine, or on a
/// cluster in batches of its [`Runner::batch_pairs`]): the pairs counted and the report's
/// figures are those of [`confirm`] (only the wall-clock time differs). `observer` sees each
/// pair counted ([`Event::Pair`]).
///
/// # Errors
/// The runner could not play a batch, or was interrupted, or an engine was given up on.
pub fn confirm_on(
    runner: &dyn Runner,
    tuned: Setting,
    baseline: Setting,
    openings: &[Chess],
    config: &MatchConfig,
    hash_mb: usize,
    observer: &dyn Observer,
) -> Result<MatchReport, ExecError> {
    let players = GamesJob {
        a: ("tuned".into(), tuned),
        b: ("baseline".into(), baseline),
        hash_mb,
        game: config.game,
        pairs: Vec::new(),
    };
    let pairs = u64::from(config.games.div_ceil(2));
    let calm = AtomicBool::new(false);
    let result = run_match_on(
        runner,
        &players,
        openings,
        config,
        Vec::new(),
        &calm,
        &mut |_, s| {
            observer.event(&s.pair_event(pairs));
        },
    )
    .map_err(|stopped| stopped.error)?;
    crate::scoring::exec::gave_up([&players.a.1, &players.b.1])?;
    Ok(MatchReport::new(&result, config, "tuned", "baseline"))
}

/// One line for people: games, W/D/L, Elo with its 95% interval, and the SPRT's LLR, bounds
/// and verdict.
pub fn confirm_summary(report: &MatchReport) -> String {
    match_summary(
        report,
        "H1 accepted: tuned is stronger",
        "H0 accepted: tuned is not stronger",
    )
}

/// As [`confirm_summary`], with the words for each SPRT verdict (`accept_h1`, `accept_h0`).
/// A statistic not defined yet (an infinite Elo or nElo, e.g. after one pair) reads `n/a`.
pub fn match_summary(report: &MatchReport, accept_h1: &str, accept_h0: &str) -> String {
    let e = EloSummary::from(report.estimate());
    let mut line = format!(
        "{} games: +{} ={} -{}, Elo {:+.1} [{:+.1}, {:+.1}], nElo {:+.1}",
        report.games,
        report.wdl.wins,
        report.wdl.draws,
        report.wdl.losses,
        Shown(e.elo),
        Shown(e.lower),
        Shown(e.upper),
        Shown(e.nelo)
    );
    if let Some(s) = &report.sprt {
        let verdict = match s.decision {
            SprtDecision::AcceptH1 => accept_h1,
            SprtDecision::AcceptH0 => accept_h0,
            SprtDecision::Continue => "no decision within the games allowed",
        };
        line.push_str(&format!(
            ", SPRT nElo [{}, {}]: LLR {:.2}, bounds ({:.2}, {:.2}): {verdict}",
            s.params.elo0,
            s.params.elo1,
            Shown(s.llr),
            Shown(s.lower),
            Shown(s.upper)
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Margins;
    use crate::scoring::games::game::MoveLimit;
    use shakmaty::Position;

    fn book(n: usize) -> Vec<Chess> {
        let mut out = Vec::new();
        let mut pos = Chess::default();
        for i in 0..n {
            let moves = pos.legal_moves();
            let m = moves[i % moves.len()];
            pos.play_unchecked(m);
            out.push(pos.clone());
        }
        out
    }

    fn problem(log: Option<&Path>) -> GamesProblem {
        let space = Space::new(Margins::default(), &["frontier", "delta"], &[]).unwrap();
        let settings = GamesSettings {
            game: GameConfig {
                limit: MoveLimit::Nodes(200),
                max_plies: 60,
                ..GameConfig::default()
            },
            pairs: 2,
            concurrency: 2,
            hash_mb: 1,
        };
        GamesProblem::new(space, book(6), settings, log).unwrap()
    }

    #[test]
    fn windows_move_on_and_wrap() {
        assert_eq!(spsa_window(0, 8, 2002), 0);
        assert_eq!(spsa_window(1, 8, 2002), 8);
        assert_eq!(spsa_window(250, 8, 2002), 2000);
        assert_eq!(spsa_window(251, 8, 2002), 6);
        assert_eq!(
            spsa_window(u64::MAX, 8, 7),
            ((u128::from(u64::MAX) * 8) % 7) as usize
        );
    }

    #[test]
    fn regularized_elo_is_finite_and_ordered() {
        let w = |wins, draws, losses| Wdl {
            wins,
            draws,
            losses,
        };
        assert_eq!(regularized_elo(&w(0, 0, 0)), 0.0);
        assert_eq!(regularized_elo(&w(3, 2, 3)), 0.0);
        let all = regularized_elo(&w(4, 0, 0));
        assert!(all.is_finite() && all > regularized_elo(&w(3, 1, 0)));
        assert_eq!(regularized_elo(&w(0, 0, 4)), -all);
    }

    #[test]
    fn progress_sees_each_pair_of_an_evaluation() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shown = seen.clone();
        let p = problem(None).with_observer(Arc::new(move |e: &Event<'_>| {
            if let Event::Done(c) = e {
                shown.lock().unwrap().push((c.work, c.done, c.total));
            }
        }));
        p.compare(&[150.0, 230.0], &[100.0, 170.0]).unwrap();
        let pairs = |done| (Work::EvaluationPairs, done, 2);
        assert_eq!(*seen.lock().unwrap(), vec![pairs(1), pairs(2)]);
    }

    #[test]
    fn comparisons_are_deterministic_logged_and_read_back() {
        let dir = std::env::temp_dir().join(format!("marginal-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = log_path(&dir);
        let _ = std::fs::remove_file(&log);
        let p = problem(Some(&log));
        let plus = [150.0, 230.0];
        let minus = [100.0, 170.0];
        let r0 = p.compare(&plus, &minus).unwrap();
        let r1 = p.compare(&plus, &minus).unwrap();
        let e = p.evaluations();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].index, e[0].first_opening), (0, 0));
        assert_eq!((e[1].index, e[1].first_opening), (1, 2));
        assert_eq!(e[0].a, vec![150, 230]);
        assert_eq!(e[0].pairs, 2);
        assert_eq!(e[0].wdl.total_games(), 4);
        assert_eq!(r0, e[0].wdl.wins as f64 - e[0].wdl.losses as f64);
        // The same iterations on a fresh problem give the same results.
        let q = problem(None);
        assert_eq!(q.compare(&plus, &minus).unwrap(), r0);
        assert_eq!(q.compare(&plus, &minus).unwrap(), r1);
        // Cost: against the base set, cached by values.
        let c = p.cost(&vec![150.0, 230.0]).unwrap();
        assert!(c.is_finite());
        assert_eq!(p.cost(&vec![150.2, 229.9]).unwrap(), c);
        // Read back: iteration 1 is not replayed, the cost is cached.
        let lines = || std::fs::read_to_string(&log).unwrap().lines().count();
        assert_eq!(lines(), 3);
        let back = problem(Some(&log));
        assert_eq!(back.evaluations().len(), 3);
        back.set_next_iteration(1);
        assert_eq!(back.compare(&plus, &minus).unwrap(), r1);
        assert!(
            back.compare_values(1, &[150, 230], &[100, 170])
                .unwrap()
                .cached
        );
        assert!(back.cost_values(&[150, 230]).unwrap().cached);
        assert_eq!(lines(), 3);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn evaluations_through_an_executor_equal_the_local_ones() {
        use crate::scoring::exec::InProcess;
        let local = problem(None);
        let remote = problem(None).with_executor(Arc::new(InProcess { shards: 2 }));
        let (plus, minus) = ([150, 230], [100, 170]);
        let fields = |e: &GamesEvaluation| {
            (
                e.kind,
                e.index,
                e.first_opening,
                e.pairs,
                e.wdl,
                e.pentanomial,
                e.result,
                e.elo,
            )
        };
        for k in [0, 1] {
            let x = local.compare_values(k, &plus, &minus).unwrap();
            let y = remote.compare_values(k, &plus, &minus).unwrap();
            assert_eq!(y.wdl.total_games(), 4);
            assert_eq!(fields(&x), fields(&y), "iteration {k}");
        }
        let x = local.cost_values(&plus).unwrap();
        let y = remote.cost_values(&plus).unwrap();
        assert_eq!(fields(&x), fields(&y));
        assert!(!y.cached);
    }

    /// Fails every batch, as a cluster that cannot run anything (or a Ctrl-C) would.
    #[derive(Debug)]
    struct Refuses(ExecError);

    impl Runner for Refuses {
        fn run(
            &self,
            _: &[crate::scoring::exec::Job],
        ) -> Result<Vec<crate::scoring::exec::Done>, ExecError> {
            Err(self.0.clone())
        }
    }

    #[test]
    fn an_executors_error_reaches_the_solver_as_itself() {
        let interrupted = ExecError::Interrupted("cancelled job 7".into());
        let p = problem(None).with_executor(Arc::new(Refuses(interrupted.clone())));
        let e = p.compare(&[150.0, 230.0], &[100.0, 170.0]).unwrap_err();
        assert_eq!(e.downcast::<ExecError>().unwrap(), interrupted);
        let e = p.cost(&vec![150.0, 230.0]).unwrap_err();
        assert_eq!(e.downcast::<ExecError>().unwrap(), interrupted);
        assert!(p.evaluations().is_empty());
    }

    #[test]
    fn a_confirmation_through_an_executor_equals_the_local_one() {
        use crate::scoring::exec::InProcess;
        use crate::scoring::games::stats::SprtParams;
        let config = MatchConfig {
            game: GameConfig {
                limit: MoveLimit::Nodes(200),
                max_plies: 60,
                ..GameConfig::default()
            },
            games: 8,
            concurrency: 2,
            sprt: Some(SprtParams {
                elo0: -300.0,
                elo1: 300.0,
                alpha: 0.4,
                beta: 0.4,
            }),
        };
        let (tuned, base): (Setting, Setting) = (
            Margins::default().with("razor_margin", 900).into(),
            Margins::default().into(),
        );
        let openings = book(4);
        let local = confirm(
            tuned.clone(),
            base.clone(),
            &openings,
            &config,
            1,
            &crate::progress::Silent,
        );
        let seen = Mutex::new(Vec::new());
        let remote = confirm_on(
            &InProcess { shards: 3 },
            tuned,
            base,
            &openings,
            &config,
            1,
            &|e: &Event<'_>| {
                if let Event::Pair { count, score } = e {
                    seen.lock().unwrap().push((count.done, score.games));
                }
            },
        )
        .unwrap();
        assert!(local.games >= 2);
        let each: Vec<(u64, u64)> = (1..=local.pairs).map(|p| (p, 2 * p)).collect();
        assert_eq!(seen.into_inner().unwrap(), each);
        let figures = |r: &MatchReport| {
            (
                r.games,
                r.pairs,
                r.wdl,
                r.pentanomial,
                r.sprt,
                r.game_results.clone(),
            )
        };
        assert_eq!(figures(&local), figures(&remote));
    }
}
