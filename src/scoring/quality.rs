//! Move quality on game positions: how much worse the move a margin set chooses is than the
//! engine's own best move at a much larger budget (a "centipawn loss"), averaged over positions
//! drawn from real games.
//!
//! For each position the reference is the engine's default setting at the deep limit: its best
//! move and score. A candidate's move that differs is valued by a deep search of the position
//! after it (the negated score); its loss is `reference score - move value`, clamped to
//! `0..=cap` so that one mate score cannot outweigh the rest. Deep results are cached on disk
//! (the reference per position list, each move's value per position and move), so after the
//! first evaluations a candidate costs its own searches and the deep searches of moves no
//! earlier candidate chose.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::engine::Setting;
use crate::engine::setting::Program;
use crate::formats::epd::EpdRecord;
use crate::formats::{Fnv, Sealed, uci_move, write_atomic};
use crate::progress::{Count, Event, Observer, Silent, Work};
use crate::scoring::exec::local::Local;
use crate::scoring::exec::{Done, ExecError, Job, Runner, SuiteJob};
use crate::scoring::suite::SuiteLimit;
use crate::scoring::suite::journal;
use crate::scoring::suite::run::{self, PositionResult, RunConfig, SuitePosition};

/// Default clamp of one position's loss, eval units (about centipawns).
pub const DEFAULT_CAP: i32 = 400;

/// One deep search's finding: the move (UCI) and its score, side to move's view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Deep {
    best_move: Option<String>,
    score: i32,
}

/// What one candidate scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// Mean loss per position, eval units (lower is better).
    pub mean_loss: f64,
    /// Positions where the chosen move was the deep reference's.
    pub agree: usize,
    /// Positions scored.
    pub positions: usize,
    /// Nodes the candidate searched in all.
    pub nodes: u64,
    /// Positions an external engine faulted on (scored at the cap).
    pub faults: usize,
    /// Positions on which an external engine went past the node budget and was stopped.
    pub overshot: usize,
}

/// A position the deep reference search faulted on: no yardstick there, so it is left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceFault {
    /// Position index, in the positions given.
    pub index: usize,
    /// Its FEN.
    pub fen: String,
    /// The fault.
    pub why: String,
}

impl std::fmt::Display for ReferenceFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "position {} ({}): {}", self.index, self.fen, self.why)
    }
}

/// Why move quality could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum QualityError {
    /// The deep reference faulted on every position: there is no yardstick at all.
    #[error(
        "the deep reference search faulted on every one of the {count} positions (first: {first})"
    )]
    Reference {
        /// Positions.
        count: usize,
        /// The first fault.
        first: ReferenceFault,
    },
    /// The executor could not run the deep reference.
    #[error("the executor could not run the deep reference: {0}")]
    Exec(#[from] ExecError),
}

/// How a [`MoveQuality`] searches: the limits, the table, where deep results are cached, and
/// where the searches run.
#[derive(Debug, Clone)]
pub struct QualityConfig {
    /// The candidates' per-position limit.
    pub limit: SuiteLimit,
    /// The deep reference's.
    pub deep: SuiteLimit,
    /// Transposition table per search, megabytes.
    pub hash_mb: usize,
    /// Where deep results are cached (none: no cache).
    pub cache_dir: Option<PathBuf>,
    /// What the cache files' names start with: `quality` when the engine judges itself,
    /// `referee` when another engine judges it (the files are keyed by the judge either way).
    pub cache_name: &'static str,
    /// Where the searches run: on this machine ([`Local`]) or on a cluster. The results are
    /// the same either way.
    pub executor: Arc<dyn Runner>,
}

/// Positions, limits and the deep reference, ready to score candidates.
pub struct MoveQuality {
    positions: Vec<Chess>,
    fens: Vec<String>,
    limit: SuiteLimit,
    deep: SuiteLimit,
    hash_mb: usize,
    cap: i32,
    defaults: Setting,
    reference: Vec<Deep>,
    values: Mutex<HashMap<(usize, String), i32>>,
    cache: Option<PathBuf>,
    reference_faults: Vec<ReferenceFault>,
    warnings: Vec<String>,
    executor: Arc<dyn Runner>,
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Searches `positions` with `setting` at `limit`, as a suite job of `executor`. One result a
/// position, in order; `on_done` sees how many are searched after each, as the executor tells
/// of them ([`Runner::run_each`]: on this machine; a cluster reports its own progress).
fn search_all(
    positions: &[Chess],
    setting: &Setting,
    config: RunConfig,
    executor: &dyn Runner,
    on_done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<PositionResult>, ExecError> {
    let job = Job::Suite(SuiteJob {
        setting: setting.clone(),
        config,
        positions: suite_positions(positions),
        costs: run::no_hint(&config, positions.len()),
    });
    let count = AtomicUsize::new(0);
    let done = executor
        .run_each(std::slice::from_ref(&job), &|_, _| {
            on_done(count.fetch_add(1, Ordering::Relaxed) + 1);
        })?
        .pop();
    Ok(done.map(Done::into_positions).unwrap_or_default())
}

/// `positions` as the positions of a suite job.
fn suite_positions(positions: &[Chess]) -> Vec<SuitePosition> {
    positions
        .iter()
        .enumerate()
        .map(|(i, pos)| SuitePosition {
            suite: "quality".to_string(),
            record: EpdRecord {
                line: i + 1,
                position: pos.clone(),
                fen: fen_of(pos),
                id: None,
                best_moves: Vec::new(),
                avoid_moves: Vec::new(),
                mate: None,
                points: Vec::new(),
                ops: Vec::new(),
            },
        })
        .collect()
}

/// [`search_all`] of the deep reference, each position kept in the journal at `journal` as
/// it finishes (when there is one and the executor tells of each), so that an interrupted
/// reference is taken up where it stopped; the journal's damaged lines are said in
/// `warnings`, their positions searched again.
fn search_kept(
    positions: &[Chess],
    defaults: &Setting,
    (deep, executor): (RunConfig, &dyn Runner),
    on_done: &(dyn Fn(usize) + Sync),
    journal: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Vec<PositionResult>, ExecError> {
    let Some(journal) = journal.filter(|_| executor.streams()) else {
        return search_all(positions, defaults, deep, executor, on_done);
    };
    let count = AtomicUsize::new(0);
    let run = journal::run_kept(
        executor,
        &suite_positions(positions),
        defaults,
        &deep,
        None,
        journal,
        &|| on_done(count.fetch_add(1, Ordering::Relaxed) + 1),
    )?;
    warnings.extend(journal::damaged_warning(journal, &run.damaged));
    Ok(run.results)
}

/// The search's result, or its fault.
fn searched(r: &PositionResult) -> Result<&PositionResult, &str> {
    r.fault.as_deref().map_or(Ok(r), Err)
}

/// The cache files of a deep reference by `defaults` at `deep` with a `hash_mb` table (unless
/// its engine file sets one: a referee's does) (the reference of these `fens`, and the values
/// of moves), in `cache_dir`, their names starting with `name`; none without it.
fn cache_paths(
    defaults: &Setting,
    (deep, hash_mb): (SuiteLimit, usize),
    fens: &[String],
    (cache_dir, name): (Option<&Path>, &str),
) -> (Option<PathBuf>, Option<PathBuf>) {
    let mut key = Fnv::new();
    key.write(defaults.def().signature().as_bytes());
    key.write(defaults.to_string().as_bytes());
    // An engine file that sets its own table size is searched with it, whatever --hash says.
    let file_sets_hash = match &defaults.def().program {
        Program::Uci(p) => p
            .options
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("Hash")),
        Program::Builtin => false,
    };
    if file_sets_hash {
        key.write(format!("{deep:?} hash of the file").as_bytes());
    } else {
        key.write(format!("{deep:?} {hash_mb}").as_bytes());
    }
    let mut list = key.clone();
    for fen in fens {
        list.write(fen.as_bytes());
        list.write(b"\n");
    }
    let reference_path =
        cache_dir.map(|d| d.join(format!("{name}-reference-{:016x}.json", list.finish())));
    let cache = cache_dir.map(|d| d.join(format!("{name}-moves-{:016x}.json", key.finish())));
    (reference_path, cache)
}

/// The deep reference cached at `path`, if it is there (`Ok(None)` when it is not); a file
/// that is there but not whole, sealed and of `count` positions is damaged: what is wrong.
fn read_reference(path: Option<&Path>, count: usize) -> Result<Option<Vec<Deep>>, String> {
    let Some(text) = path.and_then(|p| std::fs::read_to_string(p).ok()) else {
        return Ok(None);
    };
    let reference = serde_json::from_str::<Sealed<Vec<Deep>>>(&text)
        .map_err(|e| e.to_string())
        .and_then(Sealed::open)?;
    if reference.len() == count {
        Ok(Some(reference))
    } else {
        Err(format!("{} results for {count} positions", reference.len()))
    }
}

/// The warning that the cache file at `path` was damaged (`why`) and is computed afresh.
fn damaged(path: Option<&Path>, why: &str) -> String {
    let path = path.map_or(String::new(), |p| p.display().to_string());
    format!(
        "the cached deep results {path} were damaged ({why}): they are searched afresh and replaced"
    )
}

/// Searches the deep reference of `positions` (with their `fens`), leaving out the positions
/// it faulted on, and caches it at `path` when it has no fault; the reference and its faults.
fn search_reference(
    (positions, fens): (&mut Vec<Chess>, &mut Vec<String>),
    defaults: &Setting,
    config: &QualityConfig,
    on_searched: &(dyn Fn(usize) + Sync),
    (path, warnings): (Option<&Path>, &mut Vec<String>),
) -> Result<(Vec<Deep>, Vec<ReferenceFault>), QualityError> {
    let mut reference_faults = Vec::new();
    let count = positions.len();
    let mut out = Vec::with_capacity(count);
    let mut kept = vec![true; count];
    let deep = RunConfig {
        limit: config.deep,
        hash_mb: config.hash_mb,
    };
    let journal = path.map(|p| p.with_extension("partial.jsonl"));
    let found = search_kept(
        positions,
        defaults,
        (deep, config.executor.as_ref()),
        on_searched,
        journal.as_deref(),
        warnings,
    )?;
    for (index, found) in found.iter().enumerate() {
        match searched(found) {
            Ok(r) => out.push(Deep {
                best_move: r.best_move.clone(),
                score: r.score,
            }),
            Err(why) => {
                kept[index] = false;
                reference_faults.push(ReferenceFault {
                    index,
                    fen: fens[index].clone(),
                    why: why.to_string(),
                });
            }
        }
    }
    if out.is_empty()
        && let Some(first) = reference_faults.first()
    {
        return Err(QualityError::Reference {
            count,
            first: first.clone(),
        });
    }
    // A position without a yardstick is left out, and a reference with faults (an
    // accident of this run) is not cached.
    let mut keep = kept.iter().copied();
    positions.retain(|_| keep.next().unwrap_or(true));
    let mut keep = kept.iter().copied();
    fens.retain(|_| keep.next().unwrap_or(true));
    if let Some(p) = path.filter(|_| reference_faults.is_empty()) {
        // A cache that cannot be written only costs time on the next run (its journal stays).
        let written = write_atomic(
            p,
            serde_json::to_string(&Sealed::new(&out))
                .unwrap_or_default()
                .as_bytes(),
        );
        if let (Ok(()), Some(journal)) = (written, journal) {
            let _ = std::fs::remove_file(journal);
        }
    }
    Ok((out, reference_faults))
}

/// The cached deep values of moves at `path`, keyed by position index in `fens` and move
/// (none when the file is not there); a file that is there but not whole and sealed is
/// damaged: what is wrong.
fn read_values(
    path: Option<&Path>,
    fens: &[String],
) -> Result<HashMap<(usize, String), i32>, String> {
    let Some(text) = path.and_then(|p| std::fs::read_to_string(p).ok()) else {
        return Ok(HashMap::new());
    };
    let entries = serde_json::from_str::<Sealed<Vec<(String, String, i32)>>>(&text)
        .map_err(|e| e.to_string())
        .and_then(Sealed::open)?;
    let index: HashMap<&str, usize> = fens
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_str(), i))
        .collect();
    // The file holds the moves of every position list judged so: those of other lists are
    // not this one's.
    Ok(entries
        .into_iter()
        .filter_map(|(fen, mv, v)| index.get(fen.as_str()).map(|&i| ((i, mv), v)))
        .collect())
}

impl MoveQuality {
    /// Prepares the objective: `positions` searched at `limit`, judged against the engine's
    /// defaults at `deep`; deep results cached in `cache_dir` (none: no cache); searched in
    /// this process.
    ///
    /// # Errors
    /// The deep reference faulted on every position.
    pub fn new(
        positions: Vec<Chess>,
        defaults: Setting,
        limit: SuiteLimit,
        deep: SuiteLimit,
        hash_mb: usize,
        cache_dir: Option<&Path>,
    ) -> Result<MoveQuality, QualityError> {
        let config = QualityConfig {
            limit,
            deep,
            hash_mb,
            cache_dir: cache_dir.map(Path::to_path_buf),
            cache_name: "quality",
            executor: Arc::new(Local::on_current_pool()),
        };
        Self::prepare(positions, defaults, config, &Silent)
    }

    /// [`MoveQuality::new`] as `config` says, with `observer` told of each position the deep
    /// reference has searched ([`Event::Done`] of [`Work::ReferencePositions`]; not when the
    /// reference is read from the cache, nor when an executor searches it).
    ///
    /// # Errors
    /// The deep reference faulted on every position (one it faulted on is left out, see
    /// [`MoveQuality::reference_faults`]), or the executor could not search it.
    pub fn prepare(
        positions: Vec<Chess>,
        defaults: Setting,
        config: QualityConfig,
        observer: &dyn Observer,
    ) -> Result<MoveQuality, QualityError> {
        let total = positions.len() as u64;
        let on_searched = |done: usize| {
            let count = Count::new(Work::ReferencePositions, done as u64, total);
            observer.event(&Event::Done(count));
        };
        let fens: Vec<String> = positions.iter().map(fen_of).collect();
        let (deep, hash_mb) = (config.deep, config.hash_mb);
        let cache_dir = config.cache_dir.as_deref();
        let (reference_path, cache) = cache_paths(
            &defaults,
            (deep, hash_mb),
            &fens,
            (cache_dir, config.cache_name),
        );
        let mut warnings = Vec::new();
        let cached =
            read_reference(reference_path.as_deref(), positions.len()).unwrap_or_else(|why| {
                warnings.push(damaged(reference_path.as_deref(), &why));
                None
            });
        let (mut positions, mut fens) = (positions, fens);
        let (reference, reference_faults) = match cached {
            Some(r) => (r, Vec::new()),
            None => search_reference(
                (&mut positions, &mut fens),
                &defaults,
                &config,
                &on_searched,
                (reference_path.as_deref(), &mut warnings),
            )?,
        };
        let values = read_values(cache.as_deref(), &fens).unwrap_or_else(|why| {
            warnings.push(damaged(cache.as_deref(), &why));
            HashMap::new()
        });
        Ok(MoveQuality {
            positions,
            fens,
            limit: config.limit,
            deep,
            hash_mb,
            cap: DEFAULT_CAP,
            defaults,
            reference,
            values: Mutex::new(values),
            cache,
            reference_faults,
            warnings,
            executor: config.executor,
        })
    }

    /// The positions the deep reference search faulted on, left out of the objective (none
    /// when the reference was read from the cache: only a whole reference is cached).
    pub fn reference_faults(&self) -> &[ReferenceFault] {
        &self.reference_faults
    }

    /// What preparing found wrong without stopping: a damaged cache file, named, searched
    /// afresh and replaced.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The positions scored.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The candidates' per-position limit and the deep reference's.
    pub fn limits(&self) -> (SuiteLimit, SuiteLimit) {
        (self.limit, self.deep)
    }

    /// Scores `setting`: its move on every position at the limit, each valued by the deep
    /// reference (new moves searched deep and cached).
    ///
    /// # Errors
    /// The executor could not run the searches (never in this process).
    pub fn score(&self, setting: &Setting) -> Result<Quality, ExecError> {
        let config = |limit| RunConfig {
            limit,
            hash_mb: self.hash_mb,
        };
        let executor = self.executor.as_ref();
        let found = search_all(
            &self.positions,
            setting,
            config(self.limit),
            executor,
            &|_| {},
        )?;
        let chosen: Vec<Option<String>> = found
            .iter()
            .map(|r| searched(r).ok().and_then(|s| s.best_move.clone()))
            .collect();
        // Deep values of the moves not yet known.
        let missing: Vec<(usize, String)> = {
            let values = self.values.lock().expect("values lock");
            let mut m: Vec<(usize, String)> = chosen
                .iter()
                .enumerate()
                .filter_map(|(i, mv)| {
                    let mv = mv.as_ref()?;
                    (Some(mv) != self.reference[i].best_move.as_ref()
                        && !values.contains_key(&(i, mv.clone())))
                    .then(|| (i, mv.clone()))
                })
                .collect();
            m.dedup();
            m
        };
        if !missing.is_empty() {
            let children: Vec<Chess> = missing
                .iter()
                .map(|(i, mv)| {
                    let pos = &self.positions[*i];
                    let m = pos
                        .legal_moves()
                        .into_iter()
                        .find(|m| uci_move(*m) == *mv)
                        .expect("a searched move is legal");
                    pos.clone().play(m).expect("a legal move plays")
                })
                .collect();
            let deep = search_all(
                &children,
                &self.defaults,
                config(self.deep),
                executor,
                &|_| {},
            )?;
            let mut values = self.values.lock().expect("values lock");
            for ((i, mv), child) in missing.into_iter().zip(&deep) {
                // A fault in the deep search of a move leaves it unvalued: it costs the cap.
                if let Ok(child) = searched(child) {
                    values.insert((i, mv), -child.score);
                }
            }
            self.save(&values);
        }
        let values = self.values.lock().expect("values lock");
        let mut total = 0i64;
        let mut agree = 0;
        for (i, mv) in chosen.iter().enumerate() {
            let loss = match mv {
                None => self.cap,
                Some(mv) if Some(mv) == self.reference[i].best_move.as_ref() => {
                    agree += 1;
                    0
                }
                Some(mv) => values.get(&(i, mv.clone())).map_or(self.cap, |v| {
                    (self.reference[i].score - v).clamp(0, self.cap)
                }),
            };
            total += i64::from(loss);
        }
        let ok = || found.iter().filter_map(|r| searched(r).ok());
        Ok(Quality {
            mean_loss: total as f64 / self.positions.len().max(1) as f64,
            agree,
            positions: self.positions.len(),
            nodes: ok().map(|s| s.nodes).sum(),
            faults: found.iter().filter(|r| r.fault.is_some()).count(),
            overshot: ok().filter(|s| s.overshot).count(),
        })
    }

    fn save(&self, values: &HashMap<(usize, String), i32>) {
        if let Some(path) = &self.cache {
            let mut entries: Vec<(String, String, i32)> = values
                .iter()
                .map(|((i, mv), v)| (self.fens[*i].clone(), mv.clone(), *v))
                .collect();
            entries.sort();
            let _ = write_atomic(
                path,
                serde_json::to_string(&Sealed::new(&entries))
                    .unwrap_or_default()
                    .as_bytes(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::openings;
    use crate::params::Margins;

    fn positions() -> Vec<Chess> {
        [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r3k2r/ppp2ppp/2n5/3q4/3P4/2N5/PP3PPP/R2QK2R w KQkq - 0 12",
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        ]
        .iter()
        .map(|f| openings::parse_line(f).unwrap().unwrap())
        .collect()
    }

    #[test]
    fn the_reference_loses_nothing_and_a_crippled_search_loses_more() {
        let defaults: Setting = Margins::default().into();
        let q = MoveQuality::new(
            positions(),
            defaults.clone(),
            SuiteLimit::Nodes(20_000),
            SuiteLimit::Nodes(20_000),
            4,
            None,
        )
        .unwrap();
        let same = q.score(&defaults).unwrap();
        assert_eq!((same.mean_loss, same.agree, same.positions), (0.0, 3, 3));
        let shallow = MoveQuality::new(
            positions(),
            defaults.clone(),
            SuiteLimit::Depth(1),
            SuiteLimit::Nodes(50_000),
            4,
            None,
        )
        .unwrap();
        let a = shallow.score(&defaults).unwrap();
        assert!(a.mean_loss >= 0.0 && a.mean_loss <= f64::from(DEFAULT_CAP));
        // Deterministic, and the second call values moves from its memory.
        assert_eq!(a, shallow.score(&defaults).unwrap());
    }

    #[test]
    fn an_executor_searches_what_this_process_searches() {
        let defaults: Setting = Margins::default().into();
        let config = |executor: Arc<dyn Runner>| QualityConfig {
            limit: SuiteLimit::Depth(2),
            deep: SuiteLimit::Nodes(20_000),
            hash_mb: 4,
            cache_dir: None,
            cache_name: "quality",
            executor,
        };
        let here = Arc::new(Local::new(3));
        let here = MoveQuality::prepare(positions(), defaults.clone(), config(here), &Silent);
        let cluster = crate::scoring::exec::InProcess { shards: 2 };
        let there = MoveQuality::prepare(
            positions(),
            defaults.clone(),
            config(Arc::new(cluster)),
            &Silent,
        );
        let (here, there) = (here.unwrap(), there.unwrap());
        assert_eq!(here.reference, there.reference);
        let off: Setting = Margins::off().into();
        assert_eq!(here.score(&off).unwrap(), there.score(&off).unwrap());
    }

    #[test]
    fn an_interrupted_deep_reference_is_taken_up_from_its_journal_naming_its_damaged_lines() {
        let dir = crate::testing::scratch("quality", "journal");
        let defaults: Setting = Margins::default().into();
        let deep = SuiteLimit::Nodes(30_000);
        let config_of = || QualityConfig {
            limit: SuiteLimit::Depth(2),
            deep,
            hash_mb: 4,
            cache_dir: Some(dir.clone()),
            cache_name: "quality",
            executor: Arc::new(Local::new(2)),
        };
        let build =
            || MoveQuality::prepare(positions(), defaults.clone(), config_of(), &Silent).unwrap();
        let whole = build();
        let fens: Vec<String> = positions().iter().map(fen_of).collect();
        let (reference, _) = cache_paths(&defaults, (deep, 4), &fens, (Some(&dir), "quality"));
        let reference = reference.unwrap();
        let journal = reference.with_extension("partial.jsonl");
        assert!(
            reference.exists() && !journal.exists(),
            "whole, it keeps no journal"
        );
        // Killed after two positions, the second one's line damaged since.
        std::fs::remove_file(&reference).unwrap();
        let config = RunConfig {
            limit: deep,
            hash_mb: 4,
        };
        let two = suite_positions(&positions()[..2]);
        journal::run_kept(
            &Local::new(1),
            &two,
            &defaults,
            &config,
            None,
            &journal,
            &|| {},
        )
        .unwrap();
        let text = std::fs::read_to_string(&journal).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        std::fs::write(&journal, format!("{}\n{}x\n", lines[0], lines[1])).unwrap();
        let searched = AtomicUsize::new(0);
        let observer = |e: &Event<'_>| {
            if let Event::Done(c) = e {
                searched.store(c.done as usize, Ordering::Relaxed);
            }
        };
        let resumed = MoveQuality::prepare(positions(), defaults.clone(), config_of(), &observer);
        let resumed = resumed.unwrap();
        assert_eq!(resumed.reference, whole.reference);
        assert_eq!(
            searched.into_inner(),
            3,
            "every position told of, the kept one first"
        );
        let line = format!("{}:2", journal.display());
        assert!(
            resumed.warnings().iter().any(|w| w.contains(&line)),
            "{line}: {:?}",
            resumed.warnings()
        );
        assert!(!journal.exists(), "whole again, the journal is gone");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_cache_gives_the_same_scores() {
        let dir = std::env::temp_dir().join(format!("marginal-quality-{}", std::process::id()));
        let defaults: Setting = Margins::default().into();
        let build = || {
            MoveQuality::new(
                positions(),
                defaults.clone(),
                SuiteLimit::Depth(2),
                SuiteLimit::Nodes(30_000),
                4,
                Some(&dir),
            )
            .unwrap()
        };
        let first = build().score(&Margins::off().into()).unwrap();
        let second = build().score(&Margins::off().into()).unwrap();
        assert_eq!(first, second);
        // A cache edited by hand (still valid JSON) is not trusted: the edited reference would
        // make every move a capped loss, yet the scores stay those searched.
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let mut cache: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            if name.starts_with("quality-reference-") {
                for deep in cache["value"].as_array_mut().unwrap() {
                    deep["best_move"] = serde_json::Value::from("a1a2");
                    deep["score"] = serde_json::Value::from(5000);
                }
                std::fs::write(&path, serde_json::to_vec(&cache).unwrap()).unwrap();
            }
        }
        let again = build();
        let third = again.score(&Margins::off().into()).unwrap();
        assert_eq!(first, third);
        // Said, naming the file, and searched afresh: never dropped in silence.
        let [warning] = again.warnings() else {
            panic!("one warning: {:?}", again.warnings())
        };
        assert!(
            warning.contains("quality-reference-") && warning.contains("afresh"),
            "{warning}"
        );
        assert!(build().warnings().is_empty(), "replaced, it is whole again");
        // A moves file cut short (a full disk) is said too.
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().contains("quality-moves-") {
                std::fs::write(&path, b"{\"digest\": \"00").unwrap();
            }
        }
        let cut = build();
        assert!(
            cut.warnings().iter().any(|w| w.contains("quality-moves-")),
            "{:?}",
            cut.warnings()
        );
        assert_eq!(first, cut.score(&Margins::off().into()).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
