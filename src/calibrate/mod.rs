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
//! Everything finished is kept on disk as it finishes ([`store`]), so a calibration killed at
//! any point and rerun goes on and ends with the same report.

pub mod design;
pub mod plot;
pub mod rank;
pub mod report;
pub mod store;
pub mod trust;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use shakmaty::Chess;

use crate::engine::Setting;
use crate::scoring::cheap::CheapObjective;
use crate::scoring::exec::{ExecError, GamesJob, Runner};
use crate::scoring::games::game::{EnginePlayer, GameConfig, Player, Termination};
use crate::scoring::games::matches::{PairRecord, play_pair_until, result_for_a};
use crate::scoring::games::remote::play_pairs;

pub use design::RegionDim;
pub use rank::Bootstrap;
pub use report::Report;
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
    /// Game pairs per set on each book.
    pub pairs_per_book: usize,
    /// Transposition table per engine per game, megabytes.
    pub hash_mb: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The bootstrap of the intervals.
    pub bootstrap: Bootstrap,
    /// Where finished work is kept.
    pub state_dir: PathBuf,
    /// Where the games are played: through this executor (a cluster: each set's missing pairs
    /// on a book as one job, all of them in one batch), or with `None` in this process. The
    /// pairs are the same either way.
    pub executor: Option<Arc<dyn Runner>>,
}

/// Progress of a calibration, for the observer.
#[derive(Debug, Clone)]
pub enum Event {
    /// Work found finished from an earlier run.
    Resumed {
        /// Objective values already measured.
        objectives: usize,
        /// Game pairs already played.
        pairs: usize,
    },
    /// An objective value was measured.
    Objective {
        /// Set index.
        set: usize,
        /// Objective name.
        name: String,
        /// Its value.
        value: f64,
        /// Values done, and in all.
        done: usize,
        /// In all.
        total: usize,
    },
    /// A game pair finished.
    Pair {
        /// Pairs done (earlier ones included).
        done: usize,
        /// In all.
        total: usize,
    },
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
        serde_json::json!({
            "format": report::FORMAT,
            "engine": self.sets[0].setting.def().signature(),
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
}

/// Runs (or resumes) a calibration and reports it. `interrupt` is read between positions'
/// objectives and between moves; once raised, the finished work is kept and
/// [`CalibrateError::Interrupted`] returned.
///
/// # Errors
/// See [`CalibrateError`].
pub fn run(
    config: &Config,
    interrupt: &AtomicBool,
    observe: &(dyn Fn(Event) + Sync),
) -> Result<Report, CalibrateError> {
    let store = Store::open(&config.state_dir, &config.identity())?;
    let start = Instant::now();
    let cpu = cpu_seconds();
    let evaluations = AtomicUsize::new(0);
    let games = AtomicUsize::new(0);
    let result = work(config, &store, interrupt, observe, &evaluations, &games);
    let this = RunLine {
        wall_seconds: start.elapsed().as_secs_f64(),
        cpu_seconds: Some(cpu_seconds() - cpu),
        objective_evaluations: evaluations.load(Ordering::Relaxed),
        games: games.load(Ordering::Relaxed),
    };
    store.add_run(&this)?;
    let (values, pairs) = result?;
    let runs: Vec<RunLine> = store.earlier_runs.iter().copied().chain([this]).collect();
    Ok(report::build(
        config,
        &values,
        &pairs,
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

/// CPU time of this process and its finished children (external engines), seconds.
fn cpu_seconds() -> f64 {
    let time = |who| {
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes into the struct it is given.
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return 0.0;
        }
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
        t(u.ru_utime) + t(u.ru_stime)
    };
    time(libc::RUSAGE_SELF) + time(libc::RUSAGE_CHILDREN)
}

/// The calibration's work: the objectives, then the games.
fn work(
    config: &Config,
    store: &Store,
    interrupt: &AtomicBool,
    observe: &(dyn Fn(Event) + Sync),
    evaluations: &AtomicUsize,
    games_played: &AtomicUsize,
) -> Result<(Vec<ObjectiveLine>, Vec<PairLine>), CalibrateError> {
    let keys: Vec<String> = config.objectives.iter().map(|o| o.key()).collect();
    // Values of objectives this run does not measure stay in the store, out of the report.
    let mut values: Vec<ObjectiveLine> = store
        .earlier_objectives
        .iter()
        .filter(|v| keys.contains(&v.objective))
        .cloned()
        .collect();
    let pairs: Mutex<Vec<PairLine>> = Mutex::new(store.earlier_pairs.clone());
    let (earlier_objectives, earlier_pairs) = (values.len(), store.earlier_pairs.len());
    if earlier_objectives + earlier_pairs > 0 {
        observe(Event::Resumed {
            objectives: earlier_objectives,
            pairs: earlier_pairs,
        });
    }
    let interrupted = || CalibrateError::Interrupted {
        objectives: values_len(store),
        pairs: pairs_len(store),
        dir: config.state_dir.display().to_string(),
    };

    // The cheap objectives, set by set.
    let total = config.sets.len() * config.objectives.len();
    for (s, set) in config.sets.iter().enumerate() {
        for (o, objective) in config.objectives.iter().enumerate() {
            if values.iter().any(|v| v.set == s && v.objective == keys[o]) {
                continue;
            }
            if interrupt.load(Ordering::Relaxed) {
                return Err(interrupted());
            }
            let measured =
                objective
                    .measure(&set.setting)
                    .map_err(|why| CalibrateError::Objective {
                        objective: objective.name(),
                        set: set.name.clone(),
                        why,
                    })?;
            if interrupt.load(Ordering::Relaxed) {
                // A measurement cut short by the interrupt may have faulted: not kept.
                return Err(interrupted());
            }
            evaluations.fetch_add(1, Ordering::Relaxed);
            let line = ObjectiveLine {
                set: s,
                objective: keys[o].clone(),
                value: measured.value,
                summary: measured.summary,
                faults: measured.faults,
                overshot: measured.overshot,
            };
            store.add_objective(&line)?;
            values.push(line);
            observe(Event::Objective {
                set: s,
                name: objective.name(),
                value: measured.value,
                done: values.len(),
                total,
            });
        }
    }

    // The games: every (pair, book, set) not yet played, pair-major so that a partial run has
    // games of every set.
    let done: HashSet<(usize, usize, usize)> = pairs
        .lock()
        .expect("pairs lock")
        .iter()
        .map(|p| (p.set, p.book, p.pair))
        .collect();
    let playing: Vec<usize> = (0..config.sets.len())
        .filter(|&s| config.plays(s))
        .collect();
    let total_pairs = playing.len() * config.books.len() * config.pairs_per_book;
    let mut tasks: Vec<(usize, usize, usize)> = Vec::new();
    for pair in 0..config.pairs_per_book {
        for book in 0..config.books.len() {
            for &set in &playing {
                if !done.contains(&(set, book, pair)) {
                    tasks.push((set, book, pair));
                }
            }
        }
    }
    if let Some(executor) = &config.executor {
        let done = total_pairs - tasks.len();
        let mut groups: Vec<((usize, usize), Vec<usize>)> = Vec::new();
        for &(set, book, pair) in &tasks {
            match groups.iter_mut().find(|(k, _)| *k == (set, book)) {
                Some((_, p)) => p.push(pair),
                None => groups.push(((set, book), vec![pair])),
            }
        }
        let mut counted = done;
        for ((set, book), mut wanted) in groups {
            if interrupt.load(Ordering::Relaxed) {
                return Err(interrupted());
            }
            wanted.sort_unstable();
            // Missing pairs come in runs (a resumed calibration misses a tail): one job a run.
            let mut start = 0;
            while start < wanted.len() {
                let mut end = start + 1;
                while end < wanted.len() && wanted[end] == wanted[end - 1] + 1 {
                    end += 1;
                }
                let range = wanted[start]..wanted[end - 1] + 1;
                let players = GamesJob {
                    a: (
                        config.sets[set].name.clone(),
                        config.sets[set].setting.clone(),
                    ),
                    b: ("default".to_string(), config.sets[0].setting.clone()),
                    hash_mb: config.hash_mb,
                    game: config.game,
                    pairs: Vec::new(),
                };
                let played = play_pairs(
                    executor.as_ref(),
                    &players,
                    &config.books[book].positions,
                    range,
                )
                .map_err(|e| match e {
                    ExecError::Interrupted(_) => interrupted(),
                    e => CalibrateError::Exec(e),
                })?;
                for record in played {
                    let line = pair_line(set, book, &record);
                    store.add_pair(&line)?;
                    pairs.lock().expect("pairs lock").push(line);
                    games_played.fetch_add(2, Ordering::Relaxed);
                    counted += 1;
                    observe(Event::Pair {
                        done: counted,
                        total: total_pairs,
                    });
                }
                start = end;
            }
        }
        return Ok((values, pairs.into_inner().expect("pairs lock")));
    }
    let counted = AtomicUsize::new(total_pairs - tasks.len());
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<CalibrateError>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let abandon = || stop.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed);
    let defaults = &config.sets[0].setting;
    let fault_counts: Mutex<Vec<(usize, usize, String)>> =
        Mutex::new(vec![(0, 0, String::new()); config.sets.len()]);
    let workers = config.concurrency.clamp(1, tasks.len().max(1));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("cannot start game threads");
    pool.scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|_| {
                loop {
                    if abandon() {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(set, book, pair)) = tasks.get(k) else {
                        break;
                    };
                    let candidate = Arc::new(config.sets[set].setting.clone());
                    let name = config.sets[set].name.clone();
                    let hash = config.hash_mb;
                    let a = move || -> Box<dyn Player> {
                        Box::new(EnginePlayer::new(name.clone(), (*candidate).clone(), hash))
                    };
                    let b = || -> Box<dyn Player> {
                        Box::new(EnginePlayer::new(
                            "default".to_string(),
                            defaults.clone(),
                            hash,
                        ))
                    };
                    let positions = &config.books[book].positions;
                    let Some(record) =
                        play_pair_until(pair, &a, &b, positions, &config.game, &abandon)
                    else {
                        break;
                    };
                    // After too many faults in a row the engine was given up on: this pair
                    // may hold games not played, so it is not kept.
                    if let Err(e) = crate::scoring::exec::gave_up([defaults]) {
                        *failure.lock().expect("failure lock") = Some(CalibrateError::Exec(e));
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    let line = pair_line(set, book, &record);
                    let why = fault_of(&record);
                    let faults = line.faults;
                    if let Err(e) = store.add_pair(&line) {
                        *failure.lock().expect("failure lock") = Some(e.into());
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    pairs.lock().expect("pairs lock").push(line);
                    games_played.fetch_add(2, Ordering::Relaxed);
                    {
                        let mut f = fault_counts.lock().expect("faults lock");
                        let entry = &mut f[set];
                        entry.0 += 2;
                        entry.1 += usize::from(faults);
                        if faults > 0 {
                            entry.2 = why;
                        }
                        // An engine that faults in every one of its first games does not play.
                        if entry.0 >= 8 && entry.1 == entry.0 {
                            *failure.lock().expect("failure lock") = Some(CalibrateError::Faults {
                                set: config.sets[set].name.clone(),
                                games: entry.0,
                                why: entry.2.clone(),
                            });
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    let done = counted.fetch_add(1, Ordering::Relaxed) + 1;
                    observe(Event::Pair {
                        done,
                        total: total_pairs,
                    });
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("failure lock") {
        return Err(e);
    }
    let pairs = pairs.into_inner().expect("pairs lock");
    if interrupt.load(Ordering::Relaxed) || pairs.len() < total_pairs {
        return Err(interrupted());
    }
    Ok((values, pairs))
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
