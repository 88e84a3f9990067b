//! Units of work and the one way to run them.
//!
//! A [`Job`] is one evaluation's worth of searching: a setting over suite positions, or two
//! settings playing game pairs. Every pipeline (suites, game pairs, calibration games, the
//! quality objective's searches) hands its jobs to a [`Runner`], and both places work runs are
//! Runners: [`local::Local`] runs them on this machine (suite positions on the one pool,
//! [`local::pool`]; game pairs through the one queue, [`queue`]), telling of each position or
//! pair as it finishes; [`slurm::Slurm`] cuts each job into shards ([`Sharded::new`]), writes
//! each shard as a [`Unit`] (JSON), has `marginal work` run it on a node ([`run_unit`]), reads
//! back each [`UnitResult`] and puts the shards together again in a fixed order
//! ([`Sharded::merge`]). A position's search depends only on the position, the setting and the
//! limits, and a game pair only on its opening, the two settings and the rules, so the results
//! are the same on either, whatever the sharding or the thread count.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::engine::{EngineDef, Setting, bench};
use crate::formats::epd::EpdRecord;
use crate::formats::{Fnv, uci_move};
use crate::scoring::games::game::EnginePlayer;
use crate::scoring::games::game::{
    GameConfig, GameOutcome, GameRecord, MoveLimit, Player, Termination,
};
use crate::scoring::games::matches::{PairRecord, play_pair};
use crate::scoring::suite::run::{PositionResult, RunConfig, SuiteLimit, SuitePosition};

pub mod local;
pub mod queue;
pub mod slurm;

/// The `format` of a [`Unit`] file.
pub const UNIT_FORMAT: &str = "marginal-unit/1";
/// The `format` of a [`UnitResult`] file.
pub const RESULT_FORMAT: &str = "marginal-result/1";

/// Searching to do: one evaluation's positions, or one comparison's game pairs.
#[derive(Debug, Clone)]
pub enum Job {
    /// A setting over suite positions.
    Suite(SuiteJob),
    /// Two settings playing game pairs.
    Games(GamesJob),
}

/// A setting over suite positions.
#[derive(Debug, Clone)]
pub struct SuiteJob {
    /// What is searched with.
    pub setting: Setting,
    /// Limits and table size.
    pub config: RunConfig,
    /// The positions.
    pub positions: Vec<SuitePosition>,
    /// A cost hint per position (the reference's nodes): it orders the searches and is the
    /// node count of a position an external engine faulted on (see [`local::run`]).
    pub costs: Vec<u64>,
}

/// Two settings playing game pairs (each opening twice, colours reversed).
#[derive(Debug, Clone)]
pub struct GamesJob {
    /// Side A's name and setting.
    pub a: (String, Setting),
    /// Side B's name and setting.
    pub b: (String, Setting),
    /// Transposition table per engine per game, megabytes.
    pub hash_mb: usize,
    /// How each game is played.
    pub game: GameConfig,
    /// The pairs: index in the match, and opening.
    pub pairs: Vec<(usize, Chess)>,
}

/// What a job produced.
#[derive(Debug, Clone)]
pub enum Done {
    /// One result per position, in the job's order.
    Suite(Vec<PositionResult>),
    /// One record per pair, in the job's order.
    Games(Vec<PairRecord>),
}

impl Done {
    /// The positions' results (empty for games).
    pub fn into_positions(self) -> Vec<PositionResult> {
        match self {
            Done::Suite(r) => r,
            Done::Games(_) => Vec::new(),
        }
    }

    /// The pairs (empty for positions).
    pub fn into_pairs(self) -> Vec<PairRecord> {
        match self {
            Done::Games(p) => p,
            Done::Suite(_) => Vec::new(),
        }
    }
}

/// Why a unit or its result cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WorkError(pub String);

/// A position or pair just finished, as a [`Runner`] on this machine tells of it.
#[derive(Debug, Clone, Copy)]
pub enum Finished<'a> {
    /// The position at this index of its job, and its result.
    Position(usize, &'a PositionResult),
    /// A game pair.
    Pair(&'a PairRecord),
}

/// What is told of each position or pair as it finishes: its job's index in the batch, and
/// what finished. Called from the worker threads, in no fixed order for positions (pairs come
/// in their job's order).
pub type OnDone<'a> = dyn Fn(usize, Finished<'_>) + Sync + 'a;

impl Job {
    /// Runs the job on the current rayon pool; `on_done` is told of each finished position
    /// or pair.
    pub fn run(&self, on_done: &(dyn Fn(Finished<'_>) + Sync)) -> Done {
        match self {
            Job::Suite(j) => Done::Suite(local::run_each(
                &j.positions,
                &j.setting,
                &j.config,
                Some(&j.costs),
                &|i, r| on_done(Finished::Position(i, r)),
            )),
            Job::Games(j) => {
                let (a, b) = (&j.a, &j.b);
                let factory_a = || -> Box<dyn Player> {
                    Box::new(EnginePlayer::new(a.0.clone(), a.1.clone(), j.hash_mb))
                };
                let factory_b = || -> Box<dyn Player> {
                    Box::new(EnginePlayer::new(b.0.clone(), b.1.clone(), j.hash_mb))
                };
                // Through the one queue of game pairs, on as many threads as the current pool.
                let play = |(index, opening): &(usize, Chess), _: &dyn Fn() -> bool| {
                    let opening = std::slice::from_ref(opening);
                    Some(play_pair(*index, &factory_a, &factory_b, opening, &j.game))
                };
                let mut pairs = Vec::with_capacity(j.pairs.len());
                let workers = rayon::current_num_threads();
                let calm = std::sync::atomic::AtomicBool::new(false);
                queue::play_in_order(
                    &j.pairs,
                    workers,
                    "job-games",
                    &calm,
                    &play,
                    &mut |_, pair| {
                        on_done(Finished::Pair(&pair));
                        pairs.push(pair);
                        queue::Flow::Go
                    },
                );
                Done::Games(pairs)
            }
        }
    }

    /// Positions or pairs in the job.
    pub fn len(&self) -> usize {
        match self {
            Job::Suite(j) => j.positions.len(),
            Job::Games(j) => j.pairs.len(),
        }
    }

    /// Whether the job holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A job cut into shards, and how to put their results back together.
#[derive(Debug, Clone)]
pub struct Sharded {
    /// The shards, each a job of its own.
    pub shards: Vec<Job>,
    /// For each shard, the indices of its items in the whole job.
    placement: Vec<Vec<usize>>,
    len: usize,
}

impl Sharded {
    /// Cuts `job` into at most `n` non-empty shards. Positions are dealt by their cost hint,
    /// the most expensive first, each to the shard with the least cost so far (ties to the
    /// lower shard), so the shards take about as long; pairs are cut into consecutive runs.
    /// The cut depends only on the job and `n`.
    pub fn new(job: &Job, n: usize) -> Sharded {
        let len = job.len();
        let n = n.clamp(1, len.max(1));
        let mut placement: Vec<Vec<usize>> = vec![Vec::new(); n];
        match job {
            Job::Suite(j) => {
                let mut order: Vec<usize> = (0..len).collect();
                order.sort_by_key(|&i| (std::cmp::Reverse(j.costs[i]), i));
                let mut load = vec![0u128; n];
                for i in order {
                    let s = (0..n).min_by_key(|&s| (load[s], s)).unwrap_or(0);
                    load[s] += u128::from(j.costs[i]) + 1;
                    placement[s].push(i);
                }
                for p in &mut placement {
                    p.sort_unstable();
                }
            }
            Job::Games(_) => {
                for (s, p) in placement.iter_mut().enumerate() {
                    *p = (s * len / n..(s + 1) * len / n).collect();
                }
            }
        }
        placement.retain(|p| !p.is_empty());
        let shards = placement
            .iter()
            .map(|items| match job {
                Job::Suite(j) => Job::Suite(SuiteJob {
                    setting: j.setting.clone(),
                    config: j.config,
                    positions: items.iter().map(|&i| j.positions[i].clone()).collect(),
                    costs: items.iter().map(|&i| j.costs[i]).collect(),
                }),
                Job::Games(j) => Job::Games(GamesJob {
                    a: j.a.clone(),
                    b: j.b.clone(),
                    hash_mb: j.hash_mb,
                    game: j.game,
                    pairs: items.iter().map(|&i| j.pairs[i].clone()).collect(),
                }),
            })
            .collect();
        Sharded {
            shards,
            placement,
            len,
        }
    }

    /// The whole job's result from its shards' results (in shard order).
    ///
    /// # Errors
    /// A shard's result is of the wrong kind or size.
    pub fn merge(&self, done: Vec<Done>) -> Result<Done, WorkError> {
        if done.len() != self.shards.len() {
            return Err(WorkError(format!(
                "{} results for {} shards",
                done.len(),
                self.shards.len()
            )));
        }
        let mut positions: Vec<Option<PositionResult>> = vec![None; self.len];
        let mut pairs: Vec<Option<PairRecord>> = vec![None; self.len];
        let mut games = false;
        for (s, (items, d)) in self.placement.iter().zip(done).enumerate() {
            let n = match &d {
                Done::Suite(r) => r.len(),
                Done::Games(p) => p.len(),
            };
            if n != items.len() {
                return Err(WorkError(format!(
                    "shard {s}: {n} results for {} items",
                    items.len()
                )));
            }
            match d {
                Done::Suite(results) => {
                    for (&i, r) in items.iter().zip(results) {
                        positions[i] = Some(r);
                    }
                }
                Done::Games(records) => {
                    games = true;
                    for (&i, r) in items.iter().zip(records) {
                        pairs[i] = Some(r);
                    }
                }
            }
        }
        let missing = || WorkError("a shard's result is of the other kind".into());
        if games {
            pairs
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .map(Done::Games)
                .ok_or_else(missing)
        } else {
            positions
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .map(Done::Suite)
                .ok_or_else(missing)
        }
    }
}

/// A unit of work as a worker reads it: self-contained (the engine's description, the
/// values, the positions or openings, the limits), so it runs the same on any node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    /// [`UNIT_FORMAT`].
    pub format: String,
    /// The marginal version that wrote it.
    pub marginal: String,
    /// The writer's built-in engine signature ([`bench::signature`], hex): a worker whose
    /// built-in engine searches differently refuses a unit that uses it.
    pub engine_signature: String,
    /// The writer's executable (path, size, modification time): a worker that is the very
    /// same file skips computing the signature (a bench search, a quarter of a second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable: Option<String>,
    /// The work.
    #[serde(flatten)]
    pub work: UnitWork,
}

/// What a unit holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum UnitWork {
    /// Positions to search with one setting.
    Suite {
        /// The setting.
        setting: Box<SettingSpec>,
        /// Limits and table size.
        config: RunConfig,
        /// The positions.
        positions: Vec<UnitPosition>,
    },
    /// Game pairs between two settings.
    Games {
        /// Side A.
        a: Box<PlayerSpec>,
        /// Side B.
        b: Box<PlayerSpec>,
        /// Table size per engine per game, megabytes.
        hash_mb: usize,
        /// The rules of each game.
        game: GameConfig,
        /// The pairs.
        pairs: Vec<UnitPair>,
    },
}

/// A setting as a unit carries it: the engine's whole description and its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingSpec {
    /// The engine.
    pub engine: EngineDef,
    /// One value per row.
    pub values: Vec<i32>,
    /// Whether it is the reference setting (which also sets the reference options).
    pub reference: bool,
}

/// A named side of a games unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerSpec {
    /// The player's name (PGN tags).
    pub name: String,
    /// Its setting.
    #[serde(flatten)]
    pub setting: SettingSpec,
}

/// A suite position as a unit carries it: what searching and judging need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitPosition {
    /// Suite (file) name.
    pub suite: String,
    /// Line in the suite file.
    pub line: usize,
    /// EPD `id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The position.
    pub fen: String,
    /// `bm` moves, UCI.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub best_moves: Vec<String>,
    /// `am` moves, UCI.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid_moves: Vec<String>,
    /// STS points per move, UCI.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<(String, u32)>,
    /// Mate distance, moves (`bm #N`, `dm N`; see [`EpdRecord::mate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// The cost hint.
    pub cost: u64,
}

/// A game pair as a unit carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitPair {
    /// Its index in the match.
    pub index: usize,
    /// The opening, FEN.
    pub opening: String,
}

/// What a worker wrote for a unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitResult {
    /// [`RESULT_FORMAT`].
    pub format: String,
    /// The digest of the unit file it answers ([`digest`]).
    pub unit: String,
    /// Wall-clock seconds the work took on the worker.
    pub seconds: f64,
    /// The results.
    #[serde(flatten)]
    pub output: UnitOutput,
}

/// A unit's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum UnitOutput {
    /// One result per position, in the unit's order.
    Suite {
        /// The results.
        positions: Vec<PositionResult>,
    },
    /// One record per pair, in the unit's order.
    Games {
        /// The pairs.
        pairs: Vec<PairOut>,
    },
}

/// A game pair as a result file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairOut {
    /// Pair index.
    pub index: usize,
    /// A with White.
    pub first: GameOut,
    /// A with Black.
    pub second: GameOut,
}

/// A game as a result file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameOut {
    /// The opening, FEN.
    pub start: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The moves, UCI.
    pub moves: Vec<String>,
    /// The result.
    pub outcome: GameOutcome,
    /// Why it ended.
    pub termination: Termination,
    /// Moves White and Black made past the node budget (absent in older result files: none).
    #[serde(default)]
    pub overshot: [u32; 2],
}

/// This process's executable as a stamp: its path, size and modification time (None when
/// they cannot be read). The same stamp means the same file, hence the same engine.
fn executable() -> Option<String> {
    static STAMP: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    STAMP
        .get_or_init(|| {
            let path = std::env::current_exe().ok()?;
            let meta = std::fs::metadata(&path).ok()?;
            let modified = meta
                .modified()
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?;
            Some(format!(
                "{} {} {}",
                path.display(),
                meta.len(),
                modified.as_nanos()
            ))
        })
        .clone()
}

/// The hex digest (FNV-1a) of a unit file's bytes: what its result names.
pub fn digest(bytes: &[u8]) -> String {
    let mut h = Fnv::new();
    h.write(bytes);
    format!("{:016x}", h.finish())
}

fn fen_of(position: &Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

fn position_of(fen: &str) -> Result<Chess, WorkError> {
    Fen::from_ascii(fen.as_bytes())
        .map_err(|e| WorkError(format!("bad FEN '{fen}': {e}")))?
        .into_position::<Chess>(CastlingMode::Standard)
        .map_err(|e| WorkError(format!("bad FEN '{fen}': {e}")))
}

fn move_of(position: &Chess, uci: &str) -> Result<shakmaty::Move, WorkError> {
    UciMove::from_ascii(uci.as_bytes())
        .ok()
        .and_then(|m| m.to_move(position).ok())
        .ok_or_else(|| WorkError(format!("illegal move '{uci}' in {}", fen_of(position))))
}

impl SettingSpec {
    /// The spec of `setting`.
    pub fn of(setting: &Setting) -> SettingSpec {
        SettingSpec {
            engine: (**setting.def()).clone(),
            values: setting.values().to_vec(),
            reference: setting.is_reference(),
        }
    }

    /// The setting it describes (the built-in engine must be this binary's).
    ///
    /// # Errors
    /// The built-in engine's rows differ from this binary's, or a value is out of range.
    pub fn setting(&self) -> Result<Setting, WorkError> {
        let def = if self.engine.is_builtin() {
            let builtin = EngineDef::builtin();
            if *builtin != self.engine {
                return Err(WorkError(
                    "the unit's built-in engine has other rows than this marginal's".into(),
                ));
            }
            builtin
        } else {
            Arc::new(self.engine.clone())
        };
        Setting::from_values(&def, self.values.clone(), self.reference).map_err(WorkError)
    }
}

impl Unit {
    /// The unit of a job (a shard of one).
    pub fn of(job: &Job) -> Unit {
        let work = match job {
            Job::Suite(j) => UnitWork::Suite {
                setting: Box::new(SettingSpec::of(&j.setting)),
                config: j.config,
                positions: j
                    .positions
                    .iter()
                    .zip(&j.costs)
                    .map(|(p, &cost)| UnitPosition {
                        suite: p.suite.clone(),
                        line: p.record.line,
                        id: p.record.id.clone(),
                        fen: fen_of(&p.record.position),
                        best_moves: p.record.best_moves.iter().cloned().map(uci_move).collect(),
                        avoid_moves: p.record.avoid_moves.iter().cloned().map(uci_move).collect(),
                        points: p
                            .record
                            .points
                            .iter()
                            .map(|(m, n)| (uci_move(*m), *n))
                            .collect(),
                        mate: p.record.mate,
                        cost,
                    })
                    .collect(),
            },
            Job::Games(j) => UnitWork::Games {
                a: Box::new(PlayerSpec {
                    name: j.a.0.clone(),
                    setting: SettingSpec::of(&j.a.1),
                }),
                b: Box::new(PlayerSpec {
                    name: j.b.0.clone(),
                    setting: SettingSpec::of(&j.b.1),
                }),
                hash_mb: j.hash_mb,
                game: j.game,
                pairs: j
                    .pairs
                    .iter()
                    .map(|(index, opening)| UnitPair {
                        index: *index,
                        opening: fen_of(opening),
                    })
                    .collect(),
            },
        };
        Unit {
            format: UNIT_FORMAT.into(),
            marginal: env!("CARGO_PKG_VERSION").into(),
            engine_signature: format!("{:016x}", bench::signature()),
            executable: executable(),
            work,
        }
    }

    /// The unit's limits are ones a command could have written: a node count and plies of
    /// at least 1, a depth of at most [`MAX_DEPTH`](crate::engine::MAX_DEPTH), and tables
    /// that fit: at most [`MAX_HASH_MB`](crate::engine::MAX_HASH_MB) each, and as many as
    /// this pool's threads search at once (two a game) granted by the allocator.
    fn check_limits(&self) -> Result<(), WorkError> {
        use crate::engine::{MAX_DEPTH, MAX_HASH_MB};
        let bad = |what: String| Err(WorkError(what));
        let (hash_mb, per_thread) = match &self.work {
            UnitWork::Suite { config, .. } => {
                match config.limit {
                    SuiteLimit::Nodes(0) => return bad("nodes 0: a search needs at least 1".into()),
                    SuiteLimit::Depth(d) if d == 0 || d > MAX_DEPTH => {
                        return bad(format!("depth {d}: a depth is 1 to {MAX_DEPTH} plies"));
                    }
                    _ => {}
                }
                (config.hash_mb, 1)
            }
            UnitWork::Games { hash_mb, game, .. } => {
                match game.limit {
                    MoveLimit::Nodes(0) => return bad("nodes 0: a move needs at least 1".into()),
                    MoveLimit::Depth(d) if d == 0 || d > MAX_DEPTH => {
                        return bad(format!("depth {d}: a depth is 1 to {MAX_DEPTH} plies"));
                    }
                    _ => {}
                }
                if game.max_plies == 0 {
                    return bad("max_plies 0: a game needs at least 1 ply".into());
                }
                (*hash_mb, 2)
            }
        };
        if hash_mb > MAX_HASH_MB {
            return bad(format!(
                "hash_mb {hash_mb}: a table is 0 to {MAX_HASH_MB} MB"
            ));
        }
        let tables = rayon::current_num_threads() * per_thread;
        crate::engine::tt::TranspositionTable::can_allocate_many(hash_mb, tables).map_err(|e| {
            WorkError(format!(
                "hash_mb {hash_mb}: {e} for each of {tables} searches at once; give fewer --threads"
            ))
        })
    }

    /// The job the unit describes, checked against this binary.
    ///
    /// # Errors
    /// Another format, another built-in engine, a bad FEN or move, a value out of range.
    pub fn job(&self) -> Result<Job, WorkError> {
        if self.format != UNIT_FORMAT {
            return Err(WorkError(format!(
                "format '{}': this marginal reads {UNIT_FORMAT}",
                self.format
            )));
        }
        let uses_builtin = match &self.work {
            UnitWork::Suite { setting, .. } => setting.engine.is_builtin(),
            UnitWork::Games { a, b, .. } => {
                a.setting.engine.is_builtin() || b.setting.engine.is_builtin()
            }
        };
        let ours = || format!("{:016x}", bench::signature());
        let same_file = self.executable.is_some() && self.executable == executable();
        if uses_builtin && !same_file && self.engine_signature != ours() {
            return Err(WorkError(format!(
                "written by a marginal whose engine signature is {} (marginal {}); this one's is {} (marginal {}): run the same build on every node",
                self.engine_signature,
                self.marginal,
                ours(),
                env!("CARGO_PKG_VERSION")
            )));
        }
        self.check_limits()?;
        match &self.work {
            UnitWork::Suite {
                setting,
                config,
                positions,
            } => {
                let setting = setting.setting()?;
                let mut records = Vec::with_capacity(positions.len());
                for p in positions {
                    let position = position_of(&p.fen)?;
                    let moves = |list: &[String]| {
                        list.iter()
                            .map(|m| move_of(&position, m))
                            .collect::<Result<Vec<_>, _>>()
                    };
                    let points = p
                        .points
                        .iter()
                        .map(|(m, n)| Ok((move_of(&position, m)?, *n)))
                        .collect::<Result<Vec<_>, WorkError>>()?;
                    records.push(SuitePosition {
                        suite: p.suite.clone(),
                        record: EpdRecord {
                            line: p.line,
                            fen: p.fen.clone(),
                            id: p.id.clone(),
                            best_moves: moves(&p.best_moves)?,
                            avoid_moves: moves(&p.avoid_moves)?,
                            mate: p.mate,
                            points,
                            ops: Vec::new(),
                            position,
                        },
                    });
                }
                Ok(Job::Suite(SuiteJob {
                    setting,
                    config: *config,
                    positions: records,
                    costs: positions.iter().map(|p| p.cost).collect(),
                }))
            }
            UnitWork::Games {
                a,
                b,
                hash_mb,
                game,
                pairs,
            } => Ok(Job::Games(GamesJob {
                a: (a.name.clone(), a.setting.setting()?),
                b: (b.name.clone(), b.setting.setting()?),
                hash_mb: *hash_mb,
                game: *game,
                pairs: pairs
                    .iter()
                    .map(|p| Ok((p.index, position_of(&p.opening)?)))
                    .collect::<Result<Vec<_>, WorkError>>()?,
            })),
        }
    }
}

fn game_out(g: &GameRecord) -> GameOut {
    GameOut {
        start: fen_of(&g.start),
        white: g.white.clone(),
        black: g.black.clone(),
        moves: g.moves.iter().cloned().map(uci_move).collect(),
        outcome: g.outcome,
        termination: g.termination.clone(),
        overshot: g.overshot,
    }
}

fn game_record(g: &GameOut) -> Result<GameRecord, WorkError> {
    let start = position_of(&g.start)?;
    let mut position = start.clone();
    let mut moves = Vec::with_capacity(g.moves.len());
    for m in &g.moves {
        let mv = move_of(&position, m)?;
        position.play_unchecked(mv);
        moves.push(mv);
    }
    Ok(GameRecord {
        start,
        white: g.white.clone(),
        black: g.black.clone(),
        moves,
        outcome: g.outcome,
        termination: g.termination.clone(),
        overshot: g.overshot,
    })
}

impl UnitResult {
    /// The result file of `done`, the output of the unit file whose digest is `unit`.
    pub fn new(unit: String, seconds: f64, done: &Done) -> UnitResult {
        let output = match done {
            Done::Suite(r) => UnitOutput::Suite {
                positions: r.clone(),
            },
            Done::Games(pairs) => UnitOutput::Games {
                pairs: pairs
                    .iter()
                    .map(|p| PairOut {
                        index: p.index,
                        first: game_out(&p.first),
                        second: game_out(&p.second),
                    })
                    .collect(),
            },
        };
        UnitResult {
            format: RESULT_FORMAT.into(),
            unit,
            seconds,
            output,
        }
    }

    /// The results, checked to answer the unit file whose digest is `unit`.
    ///
    /// # Errors
    /// Another format or unit, or a game with an illegal move.
    pub fn done(&self, unit: &str) -> Result<Done, WorkError> {
        if self.format != RESULT_FORMAT {
            return Err(WorkError(format!(
                "format '{}', not {RESULT_FORMAT}",
                self.format
            )));
        }
        if self.unit != unit {
            return Err(WorkError(format!("answers unit {}, not {unit}", self.unit)));
        }
        match &self.output {
            UnitOutput::Suite { positions } => Ok(Done::Suite(positions.clone())),
            UnitOutput::Games { pairs } => pairs
                .iter()
                .map(|p| {
                    Ok(PairRecord {
                        index: p.index,
                        first: game_record(&p.first)?,
                        second: game_record(&p.second)?,
                    })
                })
                .collect::<Result<Vec<_>, WorkError>>()
                .map(Done::Games),
        }
    }
}

/// Runs a unit file's text: parses it, runs its job on the current rayon pool and returns
/// the result file's text. What `marginal work` does.
///
/// # Errors
/// The text is not a unit this binary can run.
pub fn run_unit(text: &str) -> Result<String, WorkError> {
    let unit: Unit = serde_json::from_str(text)
        .map_err(|e| WorkError(format!("line {}: not a unit of work: {e}", e.line())))?;
    let job = unit.job()?;
    let start = std::time::Instant::now();
    let done = job.run(&|_| {});
    let result = UnitResult::new(
        digest(text.as_bytes()),
        start.elapsed().as_secs_f64(),
        &done,
    );
    serde_json::to_string(&result).map_err(|e| WorkError(e.to_string()))
}

/// Runs jobs somewhere and hands back their results: the seam between scoring and where the
/// searching happens (named so as not to be taken for argmin's `Executor`, which runs the
/// solvers). On this machine it is [`local::Local`], on a cluster [`slurm::Slurm`]; the
/// results are the same.
pub trait Runner: Send + Sync + std::fmt::Debug {
    /// Runs `jobs` as one batch and returns their results, in order.
    ///
    /// # Errors
    /// The batch could not be run (a task kept failing, the scheduler refused it) or was
    /// interrupted.
    fn run(&self, jobs: &[Job]) -> Result<Vec<Done>, ExecError>;

    /// As [`Runner::run`], telling `on_done` of each position or pair as it finishes (for
    /// progress bars, and to keep each as it finishes). A runner on this machine tells of
    /// each; one elsewhere, which reports its batches to its own observer, tells of none (the
    /// default).
    ///
    /// # Errors
    /// As [`Runner::run`].
    fn run_each(&self, jobs: &[Job], on_done: &OnDone<'_>) -> Result<Vec<Done>, ExecError> {
        let _ = on_done;
        self.run(jobs)
    }

    /// Whether [`Runner::run_each`] tells of each position as it finishes (a runner on this
    /// machine): only then is keeping them as they finish, so that an interrupted run is taken
    /// up where it stopped, worth it. The default: no.
    fn streams(&self) -> bool {
        false
    }

    /// Game pairs the default [`Runner::play`] hands to [`Runner::run`] at once (a job array
    /// on a cluster): after each batch its pairs are taken in order, so a larger batch plays
    /// more pairs in vain after a stop but waits on fewer batches. The default: 1.
    fn batch_pairs(&self) -> usize {
        1
    }

    /// Plays `job`'s pairs, giving each to `take` in the job's order, until all are played,
    /// `take` says [`queue::Flow::Stop`] (the pairs beyond are discarded) or `interrupt` is
    /// raised (no pair starts then). The default hands them to [`Runner::run`] in batches of
    /// [`Runner::batch_pairs`], reading `interrupt` before each; a runner on this machine
    /// streams them through the one queue of game pairs and abandons the games in flight at
    /// an interrupt. What `take` sees is the same either way, up to where it stops.
    ///
    /// # Errors
    /// As [`Runner::run`], or the runner gave back other pairs than those asked for.
    fn play(
        &self,
        job: &GamesJob,
        interrupt: &AtomicBool,
        take: &mut dyn FnMut(PairRecord) -> queue::Flow,
    ) -> Result<(), ExecError> {
        let order: Vec<(usize, usize)> = (0..job.pairs.len()).map(|p| (0, p)).collect();
        let jobs = std::slice::from_ref(job);
        self.play_all(jobs, &order, None, interrupt, &mut |_, pair| take(pair))
    }

    /// Plays pairs of several matches in one fixed order: `order[k] = (j, p)` is pair
    /// `jobs[j].pairs[p]`. Each is given to `take` with its place `k`, strictly in that order,
    /// until all are played, `take` says [`queue::Flow::Stop`] (the pairs beyond are discarded),
    /// or `interrupt` is raised (no pair starts then). What `take` sees is the same on any
    /// runner and at any thread count, up to where it stops.
    ///
    /// The default hands them to [`Runner::run`] in batches of `batch` (else
    /// [`Runner::batch_pairs`]) consecutive pairs of `order` (one job a match in the batch),
    /// reading `interrupt` before each: a caller that stops early (an SPRT) wants small
    /// batches, one that plays every pair (a calibration) one batch, a single job array. A runner on this machine streams them through the one queue of game pairs; there
    /// each pair is checked, as it finishes, for an engine given up on (too many faults in a
    /// row: the pair may hold games not played, and is not given), and after an interrupt the
    /// pairs that finished beyond one abandoned are given too, in order, so that a caller
    /// keeping each pair loses none that was played.
    ///
    /// # Errors
    /// As [`Runner::run`]; the runner gave back other pairs than those asked for; or
    /// [`ExecError::GaveUp`] (the pairs before it were given).
    fn play_all(
        &self,
        jobs: &[GamesJob],
        order: &[(usize, usize)],
        batch: Option<usize>,
        interrupt: &AtomicBool,
        take: &mut dyn FnMut(usize, PairRecord) -> queue::Flow,
    ) -> Result<(), ExecError> {
        let size = batch.unwrap_or_else(|| self.batch_pairs()).max(1);
        for (c, chunk) in order.chunks(size).enumerate() {
            if interrupt.load(Ordering::Relaxed) {
                return Ok(());
            }
            for (i, pair) in played_in_batch(self, jobs, chunk)?.into_iter().enumerate() {
                if take(c * size + i, pair) == queue::Flow::Stop {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// Plays the pairs `chunk` names (see [`Runner::play_all`]) as one batch of `runner`, one job a
/// match (its pairs in the chunk's order), and returns them in the chunk's order.
///
/// # Errors
/// As [`Runner::run`], or the runner gave back other pairs than those asked for.
fn played_in_batch<R: Runner + ?Sized>(
    runner: &R,
    jobs: &[GamesJob],
    chunk: &[(usize, usize)],
) -> Result<Vec<PairRecord>, ExecError> {
    let mut matches: Vec<usize> = Vec::new();
    for &(j, _) in chunk {
        if !matches.contains(&j) {
            matches.push(j);
        }
    }
    let batch: Vec<Job> = (matches.iter())
        .map(|&j| {
            Job::Games(GamesJob {
                a: jobs[j].a.clone(),
                b: jobs[j].b.clone(),
                hash_mb: jobs[j].hash_mb,
                game: jobs[j].game,
                pairs: (chunk.iter().filter(|c| c.0 == j))
                    .map(|&(_, p)| jobs[j].pairs[p].clone())
                    .collect(),
            })
        })
        .collect();
    let done = runner.run(&batch)?;
    let mut played: Vec<std::vec::IntoIter<PairRecord>> = Vec::with_capacity(batch.len());
    for (asked, done) in batch.iter().zip(done.into_iter().map(Done::into_pairs)) {
        let Job::Games(asked) = asked else {
            unreachable!("a batch of game pairs")
        };
        if !done
            .iter()
            .map(|p| p.index)
            .eq(asked.pairs.iter().map(|c| c.0))
        {
            let from = done.first().map(|p| format!(" from pair {}", p.index));
            return Err(ExecError::Failed(format!(
                "asked for game pairs {:?}, got {} pair(s) back{}",
                asked.pairs.iter().map(|c| c.0).collect::<Vec<_>>(),
                done.len(),
                from.unwrap_or_default()
            )));
        }
        played.push(done.into_iter());
    }
    if played.len() != batch.len() {
        return Err(ExecError::Failed(format!(
            "asked for {} jobs of game pairs, got {} back",
            batch.len(),
            played.len()
        )));
    }
    (chunk.iter())
        .map(|(j, _)| {
            let m = matches.iter().position(|m| m == j).unwrap_or(0);
            played[m]
                .next()
                .ok_or_else(|| ExecError::Failed("a pair went missing".into()))
        })
        .collect()
}

/// Why an executor could not finish a batch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// A signal stopped it; the jobs submitted were cancelled.
    #[error("interrupted: {0}")]
    Interrupted(String),
    /// The batch could not be run.
    #[error("{0}")]
    Failed(String),
    /// The run gave up on an engine after too many faults in a row (the searches after it
    /// were not run): why, naming the engine.
    #[error("{0}")]
    GaveUp(String),
}

/// Fails with why the run gave up on an engine of `settings` (too many faults in a row, see
/// [`crate::engine::external::Breaker`]): the searches after that were not run, so no result
/// of the batch may be used.
///
/// # Errors
/// [`ExecError::GaveUp`] naming the engine, the faults and the last one.
pub fn gave_up<'a>(settings: impl IntoIterator<Item = &'a Setting>) -> Result<(), ExecError> {
    match settings.into_iter().find_map(|s| s.def().gave_up()) {
        Some(why) => Err(ExecError::GaveUp(why)),
        None => Ok(()),
    }
}

/// Runs jobs in this process through the whole unit path: each job cut into shards, each
/// shard written as a unit file's text, run by [`run_unit`], its result text read back and
/// the shards merged. It gives what a cluster gives, without one (for tests).
#[derive(Debug, Clone, Copy)]
pub struct InProcess {
    /// Shards per job.
    pub shards: usize,
}

impl Runner for InProcess {
    fn batch_pairs(&self) -> usize {
        self.shards
    }

    fn run(&self, jobs: &[Job]) -> Result<Vec<Done>, ExecError> {
        let fail = |e: WorkError| ExecError::Failed(e.to_string());
        jobs.iter()
            .map(|job| {
                let sharded = Sharded::new(job, self.shards);
                let done = sharded
                    .shards
                    .iter()
                    .map(|shard| {
                        let text = serde_json::to_string(&Unit::of(shard))
                            .map_err(|e| WorkError(e.to_string()))?;
                        let out = run_unit(&text)?;
                        let result: UnitResult =
                            serde_json::from_str(&out).map_err(|e| WorkError(e.to_string()))?;
                        result.done(&digest(text.as_bytes()))
                    })
                    .collect::<Result<Vec<_>, WorkError>>()
                    .map_err(fail)?;
                sharded.merge(done).map_err(fail)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::epd::parse_line;
    use crate::params::Margins;

    pub(super) fn positions(n: usize) -> Vec<SuitePosition> {
        let text = include_str!("../../../data/suites/wac.epd");
        text.lines()
            .take(n)
            .enumerate()
            .map(|(i, l)| SuitePosition {
                suite: "wac".into(),
                record: parse_line(l, i + 1).unwrap().unwrap(),
            })
            .collect()
    }

    pub(super) fn suite_job(n: usize) -> Job {
        let positions = positions(n);
        let costs = (0..n as u64).map(|i| (i * 7919) % 13 * 100).collect();
        Job::Suite(SuiteJob {
            setting: Margins::default().with("futility_margin", 150).into(),
            config: RunConfig {
                limit: SuiteLimit::Nodes(2000),
                hash_mb: 1,
            },
            positions,
            costs,
        })
    }

    #[test]
    fn sharded_suite_runs_equal_the_whole_run_for_any_shard_count() {
        let job = suite_job(12);
        let whole = job.run(&|_| {}).into_positions();
        assert_eq!(whole.len(), 12);
        for shards in [1, 2, 5, 12, 40] {
            let sharded = Sharded::new(&job, shards);
            assert_eq!(sharded.shards.len(), shards.min(12));
            let total: usize = sharded.shards.iter().map(Job::len).sum();
            assert_eq!(total, 12);
            let got = InProcess { shards }
                .run(std::slice::from_ref(&job))
                .unwrap();
            assert_eq!(got[0].clone().into_positions(), whole, "{shards} shards");
        }
    }

    #[test]
    fn units_carry_mate_records() {
        let text = include_str!("../../../data/suites/matetrack_500.epd");
        let Job::Suite(mut j) = suite_job(2) else {
            unreachable!()
        };
        j.positions = text
            .lines()
            .take(2)
            .enumerate()
            .map(|(i, l)| SuitePosition {
                suite: "matetrack".into(),
                record: parse_line(l, i + 1).unwrap().unwrap(),
            })
            .collect();
        let job = Job::Suite(j);
        let Job::Suite(back) = Unit::of(&job).job().unwrap() else {
            unreachable!()
        };
        let mates: Vec<Option<i32>> = back.positions.iter().map(|p| p.record.mate).collect();
        assert_eq!(mates, [Some(1), Some(2)]);
        let whole = job.run(&|_| {}).into_positions();
        // The mate in one is solved by its score, here and through units.
        assert!(whole[0].solved);
        let got = InProcess { shards: 2 }
            .run(std::slice::from_ref(&job))
            .unwrap();
        assert_eq!(got[0].clone().into_positions(), whole);
    }

    #[test]
    fn sharding_balances_the_cost_hints() {
        let Job::Suite(mut j) = suite_job(6) else {
            unreachable!()
        };
        j.costs = vec![100, 1, 1, 90, 5, 5];
        let sharded = Sharded::new(&Job::Suite(j.clone()), 2);
        let loads: Vec<u64> = sharded
            .placement
            .iter()
            .map(|p| p.iter().map(|&i| j.costs[i]).sum())
            .collect();
        assert_eq!(sharded.placement[0], vec![0, 1, 2]);
        assert_eq!(loads, vec![102, 100]);
    }

    /// Pairs 4, 5 and 6 of a match of short games.
    pub(super) fn games_job() -> GamesJob {
        let openings = positions(3);
        let game = GameConfig {
            limit: MoveLimit::Nodes(300),
            ..GameConfig::default()
        };
        GamesJob {
            a: (
                "A".into(),
                Margins::default().with("razor_margin", 900).into(),
            ),
            b: ("B".into(), Margins::default().into()),
            hash_mb: 1,
            game,
            pairs: (4..7)
                .map(|i| (i, openings[i % 3].record.position.clone()))
                .collect(),
        }
    }

    /// Whether two lists of pairs hold the same games.
    pub(super) fn same_pairs(x: &[PairRecord], y: &[PairRecord]) -> bool {
        let game = |g: &GameRecord| {
            (
                g.moves.clone(),
                g.outcome,
                g.termination.clone(),
                g.white.clone(),
                g.black.clone(),
            )
        };
        x.len() == y.len()
            && x.iter().zip(y).all(|(p, q)| {
                p.index == q.index
                    && game(&p.first) == game(&q.first)
                    && game(&p.second) == game(&q.second)
            })
    }

    #[test]
    fn sharded_game_pairs_equal_the_whole_run() {
        let job = Job::Games(games_job());
        let whole = job.run(&|_| {}).into_pairs();
        let got = InProcess { shards: 2 }
            .run(std::slice::from_ref(&job))
            .unwrap()
            .remove(0)
            .into_pairs();
        assert_eq!(got.len(), 3);
        assert!(same_pairs(&whole, &got));
    }

    #[test]
    fn a_unit_from_another_engine_or_format_is_refused() {
        let Job::Suite(j) = suite_job(1) else {
            unreachable!()
        };
        let mut unit = Unit::of(&Job::Suite(j));
        assert!(unit.executable.is_some());
        unit.engine_signature = "0000000000000000".into();
        // The very same executable is trusted without the bench search.
        assert!(unit.job().is_ok());
        unit.executable = Some("/elsewhere/marginal 1 2".into());
        let e = unit.job().unwrap_err().0;
        assert!(e.contains("run the same build on every node"), "{e}");
        unit.format = "marginal-unit/0".into();
        assert!(unit.job().unwrap_err().0.contains("marginal-unit/1"));
        let e = run_unit("{\"format\": 3}").unwrap_err().0;
        assert!(e.contains("not a unit of work"), "{e}");
    }

    #[test]
    fn a_unit_with_limits_no_command_writes_is_refused() {
        let Job::Suite(j) = suite_job(1) else {
            unreachable!()
        };
        let unit = Unit::of(&Job::Suite(j));
        let with = |limit: SuiteLimit, hash_mb: usize| {
            let mut u = unit.clone();
            if let UnitWork::Suite { config, .. } = &mut u.work {
                *config = RunConfig { limit, hash_mb };
            }
            u.job().err().map(|e| e.0)
        };
        assert_eq!(with(SuiteLimit::Nodes(100), 1), None);
        assert!(
            with(SuiteLimit::Nodes(0), 1)
                .unwrap()
                .starts_with("nodes 0")
        );
        assert!(
            with(SuiteLimit::Depth(0), 1)
                .unwrap()
                .starts_with("depth 0")
        );
        assert!(
            with(SuiteLimit::Depth(100_000), 1)
                .unwrap()
                .starts_with("depth 100000")
        );
        let e = with(SuiteLimit::Nodes(100), 999_999).unwrap();
        assert!(
            e.starts_with("hash_mb 999999: a table is 0 to 16384 MB"),
            "{e}"
        );
    }

    #[test]
    fn a_result_must_answer_its_unit() {
        let job = suite_job(2);
        let done = job.run(&|_| {});
        let result = UnitResult::new("aaaa".into(), 0.5, &done);
        assert!(result.done("aaaa").is_ok());
        let e = result.done("bbbb").unwrap_err().0;
        assert!(e.contains("not bbbb"), "{e}");
    }
}
