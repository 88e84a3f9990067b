//! Calibration: how well each cheap objective ranks margin sets the way games do, for one
//! engine at one game limit.
//!
//! A calibration measures K margin sets (the engine's defaults, a Latin hypercube over a region
//! of its tunable rows, and any sets the user adds) twice: by every cheap objective
//! ([`crate::scoring::cheap`]), and in paired games against the defaults on one or more opening
//! books (the same openings for every set, so the sets are compared on equal terms). Then, for
//! each objective, Spearman's rho and Kendall's tau against the pooled Elo, with bootstrap
//! intervals over the sets, and the least-squares slope (Elo per objective point); beside them
//! the noise ceiling: how well the games agree with themselves (book against book, and the
//! even pairs against the odd ones), since no objective can rank sets better than the games
//! that judge it.
//!
//! The games come in rounds ([`rounds`]): after the first, the sets not yet separated from a
//! rank neighbour play more, until the games' own ceiling reaches a target or a budget of games
//! is spent; the report says which ended them. Beside each objective's rho it gives its rho
//! over the better half of the sets by Elo (where a tune's finalists live), and the calibration's
//! power: the smallest rho these sets and games could tell from zero
//! ([`report::Power`], whose documentation gives the formula).
//!
//! Everything finished is kept on disk as it finishes ([`store`]), so a calibration killed at
//! any point and rerun goes on and ends with the same report.

pub mod design;
pub mod plan;
pub mod plot;
pub mod prepare;
pub mod rank;
pub mod report;
pub mod rounds;
pub mod store;
pub mod table;
pub mod trust;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use shakmaty::Chess;

use crate::engine::Setting;
use crate::progress::{self, Count, Event, Observer};
use crate::scoring::cheap::CheapObjective;
use crate::scoring::exec::queue::Flow;
use crate::scoring::exec::{ExecError, GamesJob, Runner};
use crate::scoring::games::game::{GameConfig, Termination};
use crate::scoring::games::matches::{PairRecord, result_for_a};

pub use design::RegionDim;
pub use rank::Bootstrap;
pub use report::Report;
use rounds::{Next, Round, Rules, Schedule};
use store::{ObjectiveLine, PairLine, RunLine, Store, StoreError};

/// The smallest number of sets a rank correlation means anything over.
pub const MIN_SETS: usize = 4;

/// An opening book the sets play on.
#[derive(Debug, Clone)]
pub struct Book {
    /// Its path as given.
    pub path: String,
    /// Its positions, shuffled by the seed: pair `i` starts from `positions[i]`.
    pub positions: Vec<Chess>,
    /// FNV-1a hash of the positions in book order (before shuffling).
    pub hash: u64,
}

/// One margin set of the calibration.
#[derive(Debug, Clone)]
pub struct CalibrationSet {
    /// Its name: `default`, `lhs-1`.., a tuned file's path or the `--margins` text.
    pub name: String,
    /// Where it came from: `defaults`, `design`, `file` or `margins`.
    pub origin: String,
    /// The setting.
    pub setting: Setting,
}

/// Everything a calibration runs.
pub struct Config {
    /// The sets; the first is the engine's defaults, which every set plays against.
    pub sets: Vec<CalibrationSet>,
    /// The region the design was drawn from.
    pub region: Vec<RegionDim>,
    /// The seed (design, book order, bootstrap).
    pub seed: u64,
    /// The cheap objectives.
    pub objectives: Vec<Box<dyn CheapObjective>>,
    /// The books.
    pub books: Vec<Book>,
    /// How each game is played.
    pub game: GameConfig,
    /// Game pairs per set on each book in the first round.
    pub pairs_per_book: usize,
    /// The games' ceiling on rho at which the rounds stop ([`rounds`]).
    pub ceiling_target: f64,
    /// Games in all, every round counted, past which no round is played.
    pub max_games: u64,
    /// Transposition table per engine per game, megabytes.
    pub hash_mb: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The bootstrap of the intervals.
    pub bootstrap: Bootstrap,
    /// Where finished work is kept.
    pub state_dir: PathBuf,
    /// Where the games are played ([`Runner::play_all`]): on this machine
    /// ([`Local`](crate::scoring::exec::local::Local): streamed through the one queue of game
    /// pairs on `concurrency` threads), or on a cluster (in batches). The pairs, and the order
    /// they are kept in, are the same either way.
    pub executor: Arc<dyn Runner>,
    /// What preparing the objectives took before this run (their reference runs, made or read
    /// from the cache; [`prepare::objectives_into`]): counted in this run's cost.
    pub preparation: Spent,
}

/// Wall and CPU time spent, seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// Wall time.
    pub wall_seconds: f64,
    /// CPU time of marginal and its finished engine processes.
    pub cpu_seconds: f64,
}

impl Spent {
    /// The time from `start` (and `cpu`, [`crate::progress::cpu_seconds`] then) to now.
    pub(crate) fn since(start: Instant, cpu: f64) -> Spent {
        Spent {
            wall_seconds: start.elapsed().as_secs_f64(),
            cpu_seconds: crate::progress::cpu_seconds() - cpu,
        }
    }
}

/// Why a calibration stopped.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// The state directory.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An objective could not be measured.
    #[error("objective {objective} on set {set}: {why}")]
    Objective {
        /// The objective.
        objective: String,
        /// The set.
        set: String,
        /// Why.
        why: String,
    },
    /// Every game of a set ended by an engine's fault: the engine does not play.
    #[error("every game of set '{set}' so far ({games}) ended by an engine fault; the last: {why}")]
    Faults {
        /// The set.
        set: String,
        /// Games.
        games: usize,
        /// The last fault.
        why: String,
    },
    /// The executor could not play the games.
    #[error("the cluster could not play the games: {0}")]
    Exec(ExecError),
    /// Stopped by the interrupt flag; what was finished is kept.
    #[error("interrupted: {objectives} objective values and {pairs} game pairs are kept in {dir}")]
    Interrupted {
        /// Objective values kept.
        objectives: usize,
        /// Pairs kept.
        pairs: usize,
        /// The state directory.
        dir: String,
    },
}

impl Config {
    /// Everything that decides the games, as canonical JSON (the store's identity; objective
    /// values are kept by their objective's key, so objectives may be added on a rerun).
    pub fn identity(&self) -> serde_json::Value {
        self.identity_signed(&self.sets[0].setting.def().signature())
    }

    /// The identity with each signature that names the engine
    /// ([`crate::engine::EngineDef::signatures`]), its own first: a state recorded with one of
    /// them is this calibration's.
    pub fn identities(&self) -> Vec<serde_json::Value> {
        let signatures = self.sets[0].setting.def().signatures();
        signatures.iter().map(|s| self.identity_signed(s)).collect()
    }

    fn identity_signed(&self, signature: &str) -> serde_json::Value {
        serde_json::json!({
            "format": report::FORMAT,
            "engine": signature,
            "sets": self.sets.iter().map(|s| s.setting.to_string()).collect::<Vec<_>>(),
            "books": self.books.iter().map(|b| format!("{:016x} {}", b.hash, b.positions.len())).collect::<Vec<_>>(),
            "seed": self.seed,
            "game": serde_json::to_value(self.game).expect("game config serializes"),
            "pairs_per_book": self.pairs_per_book,
            "hash_mb": self.hash_mb,
        })
    }

    /// Whether set `i` plays games (the defaults' own games against themselves are not played:
    /// its Elo is 0 by definition).
    fn plays(&self, i: usize) -> bool {
        self.sets[i].setting != self.sets[0].setting
    }

    /// What decides its rounds of games.
    pub fn rules(&self) -> Rules {
        Rules {
            plays: (0..self.sets.len()).map(|s| self.plays(s)).collect(),
            book_sizes: self.books.iter().map(|b| b.positions.len()).collect(),
            first: self.pairs_per_book,
            target: self.ceiling_target,
            max_games: self.max_games,
        }
    }
}

/// Runs (or resumes) a calibration and reports it. `interrupt` is read between positions'
/// objectives and between moves; once raised, the finished work is kept and
/// [`CalibrateError::Interrupted`] returned.
///
/// # Example
/// A calibration of marginal's own engine in miniature, from its plan: four sets (the
/// defaults and three of the design), one pair each on one book at 100 nodes a move, no
/// cheap objective, a budget of that first round alone; rerun, it reads its games back
/// instead of playing them.
/// ```
/// use std::sync::atomic::AtomicBool;
/// use std::sync::Mutex;
/// use marginal::calibrate::{self, plan::{self, CalibratePlan}};
/// use marginal::progress::{Event, Silent, Work};
/// use marginal::engine::EngineDef;
/// use marginal::scoring::games::game::MoveLimit;
///
/// let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
/// let state = std::env::temp_dir().join(format!("marginal-doc-calibrate-{}", std::process::id()));
/// let plan = CalibratePlan {
///     engine: None,
///     limit: MoveLimit::Nodes(100),
///     objectives: Vec::new(),
///     suites: Vec::new(),
///     count_repeats: false,
///     mate_suite: root.join("data/suites/matetrack_short.epd"),
///     quality_positions: root.join("data/positions/games_600.epd"),
///     quality_deep: 16,
///     referee: root.join(plan::DEFAULT_REFEREE),
///     referee_nodes: plan::DEFAULT_REFEREE_NODES,
///     books: vec![root.join("data/openings/noob_3moves_1k.epd")],
///     sets: 4,
///     region: Vec::new(),
///     margins: Vec::new(),
///     games: 2,
///     ceiling: 0.8,
///     max_games: Some(6),
///     seed: 1,
///     hash_mb: 1,
///     concurrency: 2,
///     resamples: 100,
///     out: state.join("calibration.json"),
///     force: false,
///     state: Some(state.clone()),
/// };
/// let def = EngineDef::builtin();
/// let region = calibrate::design::region(&def, &plan.region).unwrap();
/// let sets = plan.sets(&def, &region, &|_| unreachable!("no --margins")).unwrap();
/// let books = plan.read_books(plan.pairs_per_book(1), &mut |_| {}).unwrap();
/// let mut config = plan.config(sets, region, books, std::sync::Arc::new(marginal::scoring::exec::local::Local::new(2)));
/// config.state_dir = plan.state_dir(&config);
/// let calm = AtomicBool::new(false);
/// let report = calibrate::run(&config, &calm, &Silent).unwrap();
/// assert_eq!(report.sets.len(), 4);
/// assert_eq!(report.sets[0].pooled.games, 0, "the defaults are the yardstick");
/// assert!(report.sets[1..].iter().all(|s| s.pooled.games == 2));
/// assert_eq!(report.stopped, Some(calibrate::rounds::Stop::Budget));
/// // The same plan again resumes: its 3 pairs are read back, none played.
/// let resumed = Mutex::new(None);
/// let again = calibrate::run(&config, &calm, &|e: &Event<'_>| {
///     if let Event::Resumed(counts) = e {
///         let pairs = counts.iter().find(|c| c.work == Work::Pairs).unwrap();
///         *resumed.lock().unwrap() = Some(pairs.done);
///     }
/// })
/// .unwrap();
/// assert_eq!(*resumed.lock().unwrap(), Some(3));
/// let pairs = |r: &calibrate::Report| r.sets.iter().map(|s| s.pooled.pentanomial).collect::<Vec<_>>();
/// assert_eq!(pairs(&again), pairs(&report));
/// std::fs::remove_dir_all(&state).unwrap();
/// ```
///
/// # Errors
/// See [`CalibrateError`].
pub fn run(
    config: &Config,
    interrupt: &AtomicBool,
    observer: &dyn Observer,
) -> Result<Report, CalibrateError> {
    let store = Store::open(&config.state_dir, &config.identities())?;
    let start = Instant::now();
    let cpu = crate::progress::cpu_seconds();
    let evaluations = AtomicUsize::new(0);
    let games = AtomicUsize::new(0);
    let result = work(config, &store, interrupt, observer, &evaluations, &games);
    let spent = Spent::since(start, cpu);
    let this = RunLine {
        wall_seconds: spent.wall_seconds + config.preparation.wall_seconds,
        cpu_seconds: Some(spent.cpu_seconds + config.preparation.cpu_seconds),
        objective_evaluations: evaluations.load(Ordering::Relaxed),
        games: games.load(Ordering::Relaxed),
    };
    store.add_run(&this)?;
    let (values, pairs, schedule) = result?;
    let runs: Vec<RunLine> = store.earlier_runs.iter().copied().chain([this]).collect();
    Ok(report::build(
        config,
        &values,
        &pairs,
        &schedule,
        report::Cost {
            wall_seconds: runs.iter().map(|r| r.wall_seconds).sum(),
            cpu_seconds: runs.iter().map(|r| r.cpu_seconds).sum(),
            threads: config.concurrency,
            objective_evaluations: runs.iter().map(|r| r.objective_evaluations).sum(),
            games: runs.iter().map(|r| r.games).sum(),
            runs: runs.len(),
            last_run_seconds: this.wall_seconds,
        },
    ))
}

/// The calibration's work: the objectives, then the games.
fn work(
    config: &Config,
    store: &Store,
    interrupt: &AtomicBool,
    observer: &dyn Observer,
    evaluations: &AtomicUsize,
    games_played: &AtomicUsize,
) -> Result<(Vec<ObjectiveLine>, Vec<PairLine>, Schedule), CalibrateError> {
    let work = Work {
        config,
        store,
        interrupt,
        observer,
        evaluations,
        games_played,
    };
    let keys: Vec<String> = config.objectives.iter().map(|o| o.key()).collect();
    let mut values = work.earlier_values(&keys);
    work.say_resumed(values.len(), keys.len());
    work.measure_objectives(&keys, &mut values)?;
    let (pairs, schedule) = work.play_games()?;
    Ok((values, pairs, schedule))
}

/// A game pair to play: (set, book, pair).
type Task = (usize, usize, usize);

/// What the steps of a calibration's work share: its configuration and store, the interrupt,
/// the observer, and the counts of this run's work.
struct Work<'a> {
    config: &'a Config,
    store: &'a Store,
    interrupt: &'a AtomicBool,
    observer: &'a dyn Observer,
    evaluations: &'a AtomicUsize,
    games_played: &'a AtomicUsize,
}

/// Per set: games played this run, those ended by a fault, and the last fault.
type FaultCounts = Vec<(usize, usize, String)>;

impl Work<'_> {
    /// The error of an interrupted calibration: what its state directory keeps.
    fn interrupted(&self) -> CalibrateError {
        CalibrateError::Interrupted {
            objectives: values_len(self.store),
            pairs: pairs_len(self.store),
            dir: self.config.state_dir.display().to_string(),
        }
    }

    /// Whether the interrupt was raised.
    fn is_interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }

    /// The stored values of the objectives this run measures (the values of others stay in
    /// the store, out of the report).
    fn earlier_values(&self, keys: &[String]) -> Vec<ObjectiveLine> {
        (self.store.earlier_objectives.iter())
            .filter(|v| keys.contains(&v.objective))
            .cloned()
            .collect()
    }

    /// Tells the observer of the work found finished, if any: objective values (of
    /// `objectives` a set) and game pairs.
    fn say_resumed(&self, earlier_objectives: usize, objectives: usize) {
        let config = self.config;
        let earlier_pairs = self.store.earlier_pairs.len();
        if earlier_objectives + earlier_pairs > 0 {
            let first: usize = config.rules().first_round().iter().sum();
            let counts = [
                Count::new(
                    progress::Work::Objectives,
                    earlier_objectives as u64,
                    (config.sets.len() * objectives) as u64,
                ),
                Count::new(
                    progress::Work::Pairs,
                    earlier_pairs as u64,
                    (first * config.books.len()).max(earlier_pairs) as u64,
                ),
            ];
            self.observer.event(&Event::Resumed(&counts));
        }
    }

    /// The cheap objectives, set by set, each value kept as it is measured.
    fn measure_objectives(
        &self,
        keys: &[String],
        values: &mut Vec<ObjectiveLine>,
    ) -> Result<(), CalibrateError> {
        let config = self.config;
        let total = config.sets.len() * config.objectives.len();
        for s in 0..config.sets.len() {
            for (o, objective) in config.objectives.iter().enumerate() {
                if values.iter().any(|v| v.set == s && v.objective == keys[o]) {
                    continue;
                }
                let line = self.measure_one(s, objective.as_ref(), &keys[o])?;
                let value = line.value;
                values.push(line);
                self.observer.event(&Event::Measured {
                    set: s,
                    name: &objective.name(),
                    value,
                    count: Count::new(
                        progress::Work::Objectives,
                        values.len() as u64,
                        total as u64,
                    ),
                });
            }
        }
        Ok(())
    }

    /// Measures one objective on set `s` and keeps the value in the store.
    fn measure_one(
        &self,
        s: usize,
        objective: &dyn CheapObjective,
        key: &str,
    ) -> Result<ObjectiveLine, CalibrateError> {
        if self.is_interrupted() {
            return Err(self.interrupted());
        }
        let set = &self.config.sets[s];
        let measured =
            objective
                .measure(&set.setting)
                .map_err(|why| CalibrateError::Objective {
                    objective: objective.name(),
                    set: set.name.clone(),
                    why,
                })?;
        if self.is_interrupted() {
            // A measurement cut short by the interrupt may have faulted: not kept.
            return Err(self.interrupted());
        }
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        let line = ObjectiveLine {
            set: s,
            objective: key.to_string(),
            value: measured.value,
            summary: measured.summary,
            faults: measured.faults,
            overshot: measured.overshot,
        };
        self.store.add_objective(&line)?;
        Ok(line)
    }

    /// The games, round after round ([`rounds`]): each round's pairs not yet played go through
    /// the executor as one batch ([`Runner::play_all`]: on this machine streamed through the
    /// one queue of game pairs, on a cluster one job array), in task order; each is kept, and
    /// its faults counted, in that order (the same at any thread count), and the first failure
    /// stops them all. After an interrupt the pairs finished beyond one abandoned are kept too.
    /// Each decision is made from the pairs of the rounds before it alone, so a resumed
    /// calibration replays the same rounds. Returns the pairs of the rounds played.
    fn play_games(&self) -> Result<(Vec<PairLine>, Schedule), CalibrateError> {
        let rules = self.config.rules();
        let books = self.config.books.len();
        let mut pairs: Vec<PairLine> = self.store.earlier_pairs.clone();
        let mut planned = vec![0; self.config.sets.len()];
        let mut add = rules.first_round();
        let mut faults: FaultCounts = vec![(0, 0, String::new()); self.config.sets.len()];
        let mut rounds: Vec<Round> = Vec::new();
        loop {
            let tasks = rounds::tasks(&planned, &add, books);
            for (p, a) in planned.iter_mut().zip(&add) {
                *p += a;
            }
            self.play_round(&tasks, &planned, &mut pairs, &mut faults)?;
            let ceiling = rounds::ceiling(&planned, &pairs, books);
            rounds.push(Round {
                sets: add.iter().filter(|&&a| a > 0).count(),
                pairs_per_book: add.iter().copied().max().unwrap_or(0),
                games: 2 * tasks.len() as u64,
                ceiling,
            });
            match rules.next(&planned, &pairs) {
                Next::Stop(stopped) => {
                    pairs.retain(|p| p.pair < planned[p.set]);
                    return Ok((pairs, Schedule { rounds, stopped }));
                }
                Next::Round(more) => {
                    let shown = ceiling.map_or("n/a".into(), |c| format!("{c:.2}"));
                    self.observer.say(progress::Said::Note(format!(
                        "after round {}, the games' ceiling on rho is {shown}, below {:.2}: in round {}, {} sets not yet apart from a rank neighbour play up to {} more pairs on each book",
                        rounds.len(),
                        rules.target,
                        rounds.len() + 1,
                        more.iter().filter(|&&a| a > 0).count(),
                        more.iter().copied().max().unwrap_or(0),
                    )));
                    add = more;
                }
            }
        }
    }

    /// Plays the pairs of a round's `tasks` not yet kept, as one batch; `planned` holds the
    /// pairs per book of each set through this round (for the progress counts).
    fn play_round(
        &self,
        tasks: &[Task],
        planned: &[usize],
        pairs: &mut Vec<PairLine>,
        faults: &mut FaultCounts,
    ) -> Result<(), CalibrateError> {
        let done: HashSet<Task> = (pairs.iter()).map(|p| (p.set, p.book, p.pair)).collect();
        let missing: Vec<Task> = (tasks.iter())
            .filter(|t| !done.contains(t))
            .copied()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let books = self.config.books.len();
        let total_pairs: usize = planned.iter().sum::<usize>() * books;
        let mut counted = (pairs.iter()).filter(|p| p.pair < planned[p.set]).count();
        let (jobs, order) = self.games_jobs(&missing);
        let mut failure = None;
        let mut keep = |k: usize, record: PairRecord| {
            let (set, book, _) = missing[k];
            match self.keep_pair(set, book, &record, pairs, faults) {
                Ok(()) => {
                    counted += 1;
                    self.observer.event(&Event::Done(Count::new(
                        progress::Work::Pairs,
                        counted as u64,
                        total_pairs as u64,
                    )));
                    Flow::Go
                }
                Err(e) => {
                    failure = Some(e);
                    Flow::Stop
                }
            }
        };
        // A runner that takes batches gets the round in one: a single job array.
        let batch = Some(order.len());
        let played =
            (self.config.executor).play_all(&jobs, &order, batch, self.interrupt, &mut keep);
        if let Some(e) = failure {
            return Err(e);
        }
        played.map_err(|e| match e {
            ExecError::Interrupted(_) => self.interrupted(),
            e => CalibrateError::Exec(e),
        })?;
        let kept: HashSet<Task> = (pairs.iter()).map(|p| (p.set, p.book, p.pair)).collect();
        if self.is_interrupted() || !missing.iter().all(|t| kept.contains(t)) {
            return Err(self.interrupted());
        }
        Ok(())
    }

    /// The tasks as matches of the executor: one a (set, book), in order of its first task,
    /// each set against the defaults, pair `i` from the book's position `i` (modulo its size);
    /// and, for each task in order, its (match, pair of the match) ([`Runner::play_all`]).
    fn games_jobs(&self, tasks: &[Task]) -> (Vec<GamesJob>, Vec<(usize, usize)>) {
        let config = self.config;
        let mut keys: Vec<(usize, usize)> = Vec::new();
        let mut jobs: Vec<GamesJob> = Vec::new();
        let mut order = Vec::with_capacity(tasks.len());
        for &(set, book, pair) in tasks {
            let j = keys
                .iter()
                .position(|&k| k == (set, book))
                .unwrap_or_else(|| {
                    keys.push((set, book));
                    jobs.push(GamesJob {
                        a: (
                            config.sets[set].name.clone(),
                            config.sets[set].setting.clone(),
                        ),
                        b: ("default".to_string(), config.sets[0].setting.clone()),
                        hash_mb: config.hash_mb,
                        game: config.game,
                        pairs: Vec::new(),
                    });
                    jobs.len() - 1
                });
            let positions = &config.books[book].positions;
            let opening = positions[pair % positions.len()].clone();
            jobs[j].pairs.push((pair, opening));
            order.push((j, jobs[j].pairs.len() - 1));
        }
        (jobs, order)
    }

    /// Keeps a played pair in the store and counts its faults against its set.
    fn keep_pair(
        &self,
        set: usize,
        book: usize,
        record: &PairRecord,
        pairs: &mut Vec<PairLine>,
        faults: &mut FaultCounts,
    ) -> Result<(), CalibrateError> {
        let line = pair_line(set, book, record);
        let (why, count) = (fault_of(record), line.faults);
        self.store.add_pair(&line)?;
        pairs.push(line);
        self.games_played.fetch_add(2, Ordering::Relaxed);
        self.count_faults(faults, set, count, why)
    }

    /// Counts a pair's faults against its set: an engine that faults in every one of its first
    /// games does not play, and stops the work.
    fn count_faults(
        &self,
        faults: &mut FaultCounts,
        set: usize,
        count: u8,
        why: String,
    ) -> Result<(), CalibrateError> {
        let entry = &mut faults[set];
        entry.0 += 2;
        entry.1 += usize::from(count);
        if count > 0 {
            entry.2 = why;
        }
        if entry.0 >= 8 && entry.1 == entry.0 {
            return Err(CalibrateError::Faults {
                set: self.config.sets[set].name.clone(),
                games: entry.0,
                why: entry.2.clone(),
            });
        }
        Ok(())
    }
}

/// The store's line of a finished pair.
fn pair_line(set: usize, book: usize, record: &PairRecord) -> PairLine {
    let faults = [&record.first, &record.second]
        .iter()
        .filter(|g| matches!(g.termination, Termination::PlayerFailure(_)))
        .count() as u8;
    PairLine {
        set,
        book,
        pair: record.index,
        first: result_for_a(&record.first, true).into(),
        second: result_for_a(&record.second, false).into(),
        faults,
    }
}

/// The last engine fault of a pair, if any.
fn fault_of(record: &PairRecord) -> String {
    let mut why = String::new();
    for game in [&record.first, &record.second] {
        if let Termination::PlayerFailure(w) = &game.termination {
            why.clone_from(w);
        }
    }
    why
}

fn count_lines(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.matches('\n').count())
        .unwrap_or(0)
}

fn values_len(store: &Store) -> usize {
    count_lines(&store.dir().join("objectives.jsonl"))
}

fn pairs_len(store: &Store) -> usize {
    count_lines(&store.dir().join("pairs.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineDef;
    use crate::scoring::exec::InProcess;
    use crate::scoring::exec::local::Local;
    use crate::scoring::games::game::MoveLimit;

    /// The configuration of a small calibration of the built-in engine at 100 nodes on one
    /// book, `sets` sets, `games` games a set in the first round, kept in `dir`, through
    /// `runner`; `adjust` changes the plan first.
    fn small(
        dir: &std::path::Path,
        sets: usize,
        games: u32,
        runner: Arc<dyn Runner>,
        adjust: impl FnOnce(&mut plan::CalibratePlan),
    ) -> Config {
        let _ = std::fs::remove_dir_all(dir);
        let mut p = plan::tests::plan();
        (p.limit, p.sets, p.games, p.hash_mb) = (MoveLimit::Nodes(100), sets, games, 1);
        (p.concurrency, p.state, p.resamples) = (2, Some(dir.to_path_buf()), 200);
        p.books.truncate(1);
        adjust(&mut p);
        let def = EngineDef::builtin();
        let region = design::region(&def, &p.region).unwrap();
        let sets = p
            .sets(&def, &region, &|_| unreachable!("no --margins"))
            .unwrap();
        let books = p.read_books(p.pairs_per_book(1), &mut |_| {}).unwrap();
        let mut config = p.config(sets, region, books, runner);
        config.state_dir = dir.to_path_buf();
        config
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        crate::testing::scratch("calibrate", name)
    }

    /// A runner on this machine that records each batch it is handed: its pairs, and the
    /// batch size asked for.
    #[derive(Debug)]
    struct Counting {
        inner: Local,
        batches: std::sync::Mutex<Vec<(usize, Option<usize>)>>,
    }

    impl Runner for Counting {
        fn run(
            &self,
            jobs: &[crate::scoring::exec::Job],
        ) -> Result<Vec<crate::scoring::exec::Done>, ExecError> {
            self.inner.run(jobs)
        }
        fn play_all(
            &self,
            jobs: &[GamesJob],
            order: &[(usize, usize)],
            batch: Option<usize>,
            interrupt: &AtomicBool,
            take: &mut dyn FnMut(usize, PairRecord) -> Flow,
        ) -> Result<(), ExecError> {
            self.batches.lock().unwrap().push((order.len(), batch));
            self.inner.play_all(jobs, order, batch, interrupt, take)
        }
    }

    #[test]
    fn rounds_stop_at_the_target_or_the_budget_each_played_as_one_batch_and_say_which() {
        // A target no games reach: rounds until the budget, each one batch of the runner.
        let dir = scratch("budget");
        let counting = Arc::new(Counting {
            inner: Local::new(2),
            batches: Default::default(),
        });
        let budget = 5 * 8 + 5 * 4 + 5 * 4 + 6;
        let config = small(&dir, 6, 8, counting.clone(), |p| {
            (p.ceiling, p.max_games) = (1.0, Some(budget));
        });
        let report = run(&config, &AtomicBool::new(false), &crate::progress::Silent).unwrap();
        assert_eq!(report.stopped, Some(rounds::Stop::Budget));
        assert_eq!(
            (report.ceiling_target, report.max_games),
            (Some(1.0), Some(budget))
        );
        let games: u64 = report.rounds.iter().map(|r| r.games).sum();
        assert!(
            games <= budget && budget - games < 2 * 5,
            "{games} of {budget}: {:?}",
            report.rounds
        );
        assert!(report.rounds.len() >= 3, "{:?}", report.rounds);
        assert_eq!(
            report.rounds[0].games,
            5 * 8,
            "the first round: every set, 8 games"
        );
        let played: u64 = report.sets.iter().map(|s| s.pooled.games).sum();
        assert_eq!(played, games, "the report counts the pairs of the rounds");
        let batches = counting.batches.lock().unwrap().clone();
        assert_eq!(batches.len(), report.rounds.len(), "{batches:?}");
        for ((pairs, batch), round) in batches.iter().zip(&report.rounds) {
            assert_eq!((2 * *pairs as u64, *batch), (round.games, Some(*pairs)));
        }
        // Sets get unequal games, each set as many on every book (one book here) in each half.
        assert!(report.sets[1..].iter().all(|s| s.even.games == s.odd.games));
        assert!(
            crate::calibrate::table::lines(&report)
                .iter()
                .any(|l| l.contains("stopped: the games' budget (--max-games) was spent"))
        );
        // A target the first round reaches: no second round, and the report says why.
        let first = report.rounds[0]
            .ceiling
            .expect("a ceiling after the first round");
        let config = small(&dir, 6, 8, Arc::new(Local::new(2)), |p| {
            (p.ceiling, p.max_games) = (first.max(0.01), Some(budget));
        });
        let report = run(&config, &AtomicBool::new(false), &crate::progress::Silent).unwrap();
        assert_eq!(report.stopped, Some(rounds::Stop::Ceiling));
        assert_eq!(report.rounds.len(), 1);
        assert!(report.games_could_judge());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_interrupted_calibration_resumed_replays_the_same_rounds_and_report() {
        let dir = scratch("rounds-resume");
        let setup = |p: &mut plan::CalibratePlan| (p.ceiling, p.max_games) = (1.0, Some(5 * 8 * 3));
        let config = small(&dir, 6, 8, Arc::new(Local::new(2)), setup);
        let whole = run(&config, &AtomicBool::new(false), &crate::progress::Silent).unwrap();
        assert!(whole.rounds.len() >= 2, "{:?}", whole.rounds);
        // The same, interrupted in its second round, then resumed.
        let config = small(&dir, 6, 8, Arc::new(Local::new(2)), setup);
        let interrupt = AtomicBool::new(false);
        let first_round = whole.rounds[0].games as usize / 2;
        let stop = |e: &Event<'_>| {
            if let Event::Done(c) = e
                && c.done as usize >= first_round + 3
            {
                interrupt.store(true, Ordering::Relaxed);
            }
        };
        let cut = run(&config, &interrupt, &stop);
        assert!(
            matches!(cut, Err(CalibrateError::Interrupted { .. })),
            "{cut:?}"
        );
        let kept = std::fs::read_to_string(dir.join("pairs.jsonl"))
            .unwrap()
            .lines()
            .count();
        assert!(kept > first_round, "{kept} pairs kept");
        let mut resumed = run(&config, &AtomicBool::new(false), &crate::progress::Silent).unwrap();
        resumed.cost = whole.cost.clone();
        assert_eq!(resumed, whole);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cost_counts_each_runs_preparing_of_the_objectives() {
        let dir = scratch("cost-preparation");
        let setup = |p: &mut plan::CalibratePlan| (p.ceiling, p.max_games) = (1.0, Some(32));
        let mut config = small(&dir, 4, 4, Arc::new(Local::new(2)), setup);
        let (calm, silent) = (AtomicBool::new(false), &crate::progress::Silent);
        let bare = run(&config, &calm, silent).unwrap().cost;
        // A second run (everything read back) after a preparation of 300 s wall, 500 s CPU.
        config.preparation = Spent {
            wall_seconds: 300.0,
            cpu_seconds: 500.0,
        };
        let prepared = run(&config, &calm, silent).unwrap().cost;
        assert_eq!((prepared.runs, prepared.games), (2, bare.games));
        assert!(prepared.last_run_seconds >= 300.0, "{prepared:?}");
        assert!(
            prepared.wall_seconds >= bare.wall_seconds + 300.0,
            "{prepared:?}"
        );
        let cpu = |c: &report::Cost| c.cpu_seconds.unwrap();
        assert!(cpu(&prepared) >= cpu(&bare) + 500.0, "{prepared:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_rerun_with_a_larger_budget_goes_on_from_the_games_kept() {
        let (dir, fresh_dir) = (scratch("rounds-budget"), scratch("rounds-budget-fresh"));
        let budget = |max: u64| {
            move |p: &mut plan::CalibratePlan| (p.ceiling, p.max_games) = (1.0, Some(max))
        };
        let (calm, silent) = (AtomicBool::new(false), &crate::progress::Silent);
        let local = || -> Arc<dyn Runner> { Arc::new(Local::new(2)) };
        let fresh = run(
            &small(&fresh_dir, 6, 8, local(), budget(150)),
            &calm,
            silent,
        )
        .unwrap();
        assert_eq!(fresh.stopped, Some(rounds::Stop::Budget));
        // The same calibration with a smaller budget first (its last round cut short), then
        // with the larger one in the same state directory: the same report, no game played
        // twice.
        let smaller = small(&dir, 6, 8, local(), budget(90));
        let larger = small(&dir, 6, 8, local(), budget(150));
        let first = run(&smaller, &calm, silent).unwrap();
        assert_eq!(first.rounds.iter().map(|r| r.games).sum::<u64>(), 90);
        let mut again = run(&larger, &calm, silent).unwrap();
        assert_eq!((again.cost.runs, again.cost.games), (2, fresh.cost.games));
        again.cost = fresh.cost.clone();
        assert_eq!(again, fresh);
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&fresh_dir).unwrap();
    }

    #[test]
    fn the_games_and_the_order_they_are_kept_in_are_the_same_at_any_thread_count_and_on_any_runner()
    {
        // 0 threads: in batches through units of work, as on a cluster.
        let kept = |threads: usize| {
            let dir = std::env::temp_dir().join(format!(
                "marginal-calibrate-threads-{threads}-{}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            let mut p = plan::tests::plan();
            (p.limit, p.sets, p.games, p.hash_mb) = (MoveLimit::Nodes(100), 4, 6, 1);
            (p.concurrency, p.state) = (threads, Some(dir.clone()));
            p.books.truncate(1);
            let def = EngineDef::builtin();
            let region = design::region(&def, &p.region).unwrap();
            let sets = p
                .sets(&def, &region, &|_| unreachable!("no --margins"))
                .unwrap();
            let books = p.read_books(p.pairs_per_book(1), &mut |_| {}).unwrap();
            let runner: Arc<dyn Runner> = match threads {
                0 => Arc::new(InProcess { shards: 2 }),
                n => Arc::new(Local::new(n)),
            };
            let mut config = p.config(sets, region, books, runner);
            config.state_dir = dir.clone();
            run(&config, &AtomicBool::new(false), &crate::progress::Silent).unwrap();
            let pairs = std::fs::read_to_string(dir.join("pairs.jsonl")).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            pairs
        };
        let one = kept(1);
        assert!(
            one.lines().count() >= 3 * 3,
            "3 sets play 3 pairs each, then rounds"
        );
        assert_eq!(kept(4), one);
        assert_eq!(kept(0), one);
    }
}
