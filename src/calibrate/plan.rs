//! A calibration's plan: everything a run needs, as the command line gives it
//! ([`CalibratePlan`]), and the steps that turn it into a [`Config`]: the objectives' specs,
//! the sets (the defaults, the added sets and the design), the books, the pair budget and the
//! state directory. Nothing here prints: what a step has to say is returned to the caller.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use super::{Book, CalibrationSet, Config, MIN_SETS, RegionDim, design};
use crate::engine::{EngineDef, MAX_DEPTH, Setting};
use crate::formats::{DataFileError, Fnv, SkippedLine, openings, outputs};
use crate::scoring::exec::Runner;
use crate::scoring::games::game::{GameConfig, MoveLimit};
use crate::scoring::suite::{Repeats, SuiteLimit, default_cache_dir, load_suites};

use super::rank::Bootstrap;

/// The objectives measured when none is named.
pub const DEFAULT_OBJECTIVES: [&str; 3] = ["suite", "quality", "mates"];

/// The referee objective's engine file when none is named: Stockfish, as Debian packages it.
pub const DEFAULT_REFEREE: &str = "engines/stockfish.toml";

/// The referee's node budget a search when none is named: about half a second of Stockfish
/// 15.1 on one core of a 2020s machine, 100 times the games' default 5,000 nodes.
pub const DEFAULT_REFEREE_NODES: u64 = 500_000;

/// The opening books played when none is named: two balanced books.
pub const DEFAULT_BOOKS: [&str; 2] = [
    "data/openings/noob_3moves_1k.epd",
    "data/openings/popularpos_lichess_1k.epd",
];

/// The mate suite of the mates objective when none is named.
pub const DEFAULT_MATE_SUITE: &str = "data/suites/matetrack_short.epd";

/// The quality objective's positions when none are named.
pub const DEFAULT_QUALITY_POSITIONS: &str = "data/positions/games_600.epd";

/// The games' ceiling on rho the rounds of games aim for when none is given.
pub const DEFAULT_CEILING: f64 = 0.8;

fn default_ceiling() -> f64 {
    DEFAULT_CEILING
}

/// The games' budget when none is given, in first rounds' games.
pub const BUDGET_ROUNDS: u64 = 4;

/// The books to play: those given, or [`DEFAULT_BOOKS`] when none is.
pub fn books_or_default(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() {
        DEFAULT_BOOKS.map(PathBuf::from).to_vec()
    } else {
        given.to_vec()
    }
}

/// Everything a calibration runs, as the user gave it (with the defaults filled in). The
/// engine's definition and the executor are resolved by the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibratePlan {
    /// The engine file, or `None` for marginal's own engine (or an engine command).
    pub engine: Option<PathBuf>,
    /// The games' per-move limit.
    pub limit: MoveLimit,
    /// The cheap objectives, each `KIND`, `KIND:nodes=N` or `KIND:depth=D` as given (parsed
    /// by [`CalibratePlan::objective_specs`]).
    pub objectives: Vec<String>,
    /// The suites of the suite objective.
    pub suites: Vec<PathBuf>,
    /// Score a repeated suite position each time it appears.
    pub count_repeats: bool,
    /// The mate suite of the mates objective.
    pub mate_suite: PathBuf,
    /// Positions from games for the quality objective.
    pub quality_positions: PathBuf,
    /// The quality objective's deep reference, as a multiple of its limit.
    pub quality_deep: u64,
    /// The referee objective's engine file.
    pub referee: PathBuf,
    /// The referee's node budget a search.
    pub referee_nodes: u64,
    /// The opening books.
    pub books: Vec<PathBuf>,
    /// Margin sets in all.
    pub sets: usize,
    /// The design's region overrides, `name=LO..HI`.
    pub region: Vec<String>,
    /// Margin sets to add, as given (a tuned file or name=value assignments).
    pub margins: Vec<String>,
    /// Games per set against the defaults in the first round, before rounding to whole pairs
    /// on every book.
    pub games: u32,
    /// The games' ceiling on rho at which the rounds of games stop.
    #[serde(default = "default_ceiling")]
    pub ceiling: f64,
    /// Games in all, every round counted (`None`: [`BUDGET_ROUNDS`] times the first round's).
    #[serde(default)]
    pub max_games: Option<u64>,
    /// Seed of the design, the books' order and the bootstrap.
    pub seed: u64,
    /// Transposition table per search, megabytes.
    pub hash_mb: usize,
    /// Games (and searches) at once.
    pub concurrency: usize,
    /// Bootstrap resamples of the intervals.
    pub resamples: usize,
    /// The report.
    pub out: PathBuf,
    /// Replace `out` when it is not this calibration's own report.
    pub force: bool,
    /// Where finished work is kept (`None`: a directory named after the calibration in the
    /// reference cache).
    pub state: Option<PathBuf>,
}

/// A cheap objective's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectiveKind {
    /// The suite objective.
    Suite,
    /// The move-quality objective, judged by the engine's own deep search.
    Quality,
    /// The mates objective.
    Mates,
    /// Move quality judged by a stronger engine, the referee, at its node budget.
    Referee,
}

impl ObjectiveKind {
    /// Whether its reference is a deep search of game positions (quality, referee).
    pub fn is_deep(self) -> bool {
        matches!(self, ObjectiveKind::Quality | ObjectiveKind::Referee)
    }
}

impl std::fmt::Display for ObjectiveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ObjectiveKind::Suite => "suite",
            ObjectiveKind::Quality => "quality",
            ObjectiveKind::Mates => "mates",
            ObjectiveKind::Referee => "referee",
        })
    }
}

/// One objective to measure: its kind at its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectiveSpec {
    /// The kind.
    pub kind: ObjectiveKind,
    /// Its search limit.
    pub limit: SuiteLimit,
}

/// Why a plan cannot be carried out: a bad option, or an input that cannot serve.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// An `--objectives` entry that is not `KIND`, `KIND:nodes=N` or `KIND:depth=D`.
    #[error("--objectives '{spec}': {why}")]
    Objective {
        /// The entry.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// An `--objectives` entry given twice.
    #[error("--objectives: '{0}' is given twice")]
    Twice(String),
    /// A `--margins` set that cannot be resolved.
    #[error("--margins: {0}")]
    Margins(String),
    /// A `--margins` set equal to one before it.
    #[error("--margins '{spec}' is the same set as '{same}': each set is measured once")]
    SameSet {
        /// The set as given.
        spec: String,
        /// The name of the set it equals.
        same: String,
    },
    /// Fewer sets than a calibration needs, or than the defaults and the added sets.
    #[error(
        "--sets {sets}: a calibration needs at least {MIN_SETS} sets and room for the defaults and the {added} --margins"
    )]
    TooFewSets {
        /// Sets asked for.
        sets: usize,
        /// Sets added by --margins.
        added: usize,
    },
    /// A book or a suite that cannot be read.
    #[error(transparent)]
    Data(#[from] DataFileError),
    /// A suite that cannot be loaded.
    #[error("{0}")]
    Suite(String),
    /// A book holding the same positions as one before it.
    #[error("--openings {path} holds the same positions as {same}: give each book once")]
    SameBook {
        /// The book.
        path: String,
        /// The book it repeats.
        same: String,
    },
    /// A book with fewer positions than the pairs each set plays on it.
    #[error(
        "--openings {path}: {have} positions for {pairs} pairs per set on it: give fewer --games or a larger book"
    )]
    SmallBook {
        /// The book.
        path: String,
        /// Its positions.
        have: usize,
        /// Pairs per set on it.
        pairs: usize,
    },
    /// A check before any work: the message names the option, the path and the fix.
    #[error("{0}")]
    Check(String),
    /// A mate suite without a mate record.
    #[error(
        "--mate-suite {path}: none of its {positions} positions has a mate record (`bm #N` or `dm N`), so the mates objective would score 0 for every set: give a mate suite (data/suites/matetrack_short.epd), or leave mates out of --objectives"
    )]
    NoMates {
        /// The suite.
        path: String,
        /// Its positions.
        positions: usize,
    },
}

impl CalibratePlan {
    /// The objectives' limit where an entry names none: the games' nodes or depth; 5,000
    /// nodes under a clock.
    pub fn objective_limit(&self) -> SuiteLimit {
        match self.limit {
            MoveLimit::Depth(d) => SuiteLimit::Depth(d),
            MoveLimit::Nodes(n) => SuiteLimit::Nodes(n),
            MoveLimit::Clock { .. } => SuiteLimit::Nodes(5_000),
        }
    }

    /// The objectives' entries (the default three when none is given).
    pub fn objective_entries(&self) -> Vec<String> {
        if self.objectives.is_empty() {
            DEFAULT_OBJECTIVES.map(String::from).to_vec()
        } else {
            self.objectives.clone()
        }
    }

    /// Every objective entry parsed, each checked before any is prepared (a reference run can
    /// take minutes).
    ///
    /// # Errors
    /// [`PlanError::Objective`] or [`PlanError::Twice`].
    pub fn objective_specs(&self) -> Result<Vec<ObjectiveSpec>, PlanError> {
        let mut seen: Vec<ObjectiveSpec> = Vec::new();
        for spec in &self.objective_entries() {
            let parsed = parse_objective(spec, self.objective_limit())?;
            if seen.contains(&parsed) {
                return Err(PlanError::Twice(spec.clone()));
            }
            seen.push(parsed);
        }
        Ok(seen)
    }

    /// How a suite position that repeats an earlier one is scored.
    pub fn repeats(&self) -> Repeats {
        if self.count_repeats {
            Repeats::Each
        } else {
            Repeats::Once
        }
    }

    /// The sets: the defaults, then each `--margins` set (by `resolve`, which gives a set as
    /// users write it), then the design over `region` for the rest ([`design::design`]: its
    /// corners and a maximin Latin hypercube; a design point equal to a set before it is left
    /// out).
    ///
    /// # Errors
    /// A set that does not resolve or repeats one; too few sets.
    pub fn sets(
        &self,
        def: &Arc<EngineDef>,
        region: &[RegionDim],
        resolve: &dyn Fn(&str) -> Result<Setting, String>,
    ) -> Result<Vec<CalibrationSet>, PlanError> {
        let defaults = Setting::defaults(def);
        let mut sets = vec![CalibrationSet {
            name: "default".into(),
            origin: "defaults".into(),
            setting: defaults.clone(),
        }];
        for spec in &self.margins {
            let setting = resolve(spec).map_err(PlanError::Margins)?;
            if let Some(same) = sets.iter().find(|s| s.setting == setting) {
                return Err(PlanError::SameSet {
                    spec: spec.clone(),
                    same: same.name.clone(),
                });
            }
            let origin = if Path::new(spec).is_file() {
                "file"
            } else {
                "margins"
            };
            sets.push(CalibrationSet {
                name: spec.clone(),
                origin: origin.into(),
                setting,
            });
        }
        if self.sets < MIN_SETS || self.sets < sets.len() {
            return Err(PlanError::TooFewSets {
                sets: self.sets,
                added: sets.len() - 1,
            });
        }
        let design = design::design(&defaults, region, self.sets - sets.len(), self.seed);
        for (name, setting) in design {
            if sets.iter().any(|s| s.setting == setting) {
                continue;
            }
            sets.push(CalibrationSet {
                name,
                origin: "design".into(),
                setting,
            });
        }
        Ok(sets)
    }

    /// Game pairs per set on each of `books` books: the games, in whole pairs, split evenly.
    pub fn pairs_per_book(&self, books: usize) -> usize {
        (self.games as usize).div_ceil(2).div_ceil(books.max(1))
    }

    /// Pairs per book as first estimated, before the books are read (as if at least two).
    pub fn estimated_pairs_per_book(&self) -> usize {
        self.pairs_per_book(self.books.len().max(2))
    }

    /// The books, each checked to hold `pairs` positions and to differ from the others, and
    /// shuffled by the seed. `on_skipped` hears each book's bad lines as it is read.
    ///
    /// # Errors
    /// A book that cannot be read, repeats another or is too small.
    pub fn read_books(
        &self,
        pairs: usize,
        on_skipped: &mut dyn FnMut(&[SkippedLine]),
    ) -> Result<Vec<Book>, PlanError> {
        let mut out: Vec<Book> = Vec::new();
        for path in &self.books {
            let book = openings::read(path)?;
            on_skipped(&book.skipped);
            let hash = book_hash(&book.records);
            if let Some(same) = out.iter().find(|b| b.hash == hash) {
                return Err(PlanError::SameBook {
                    path: path.display().to_string(),
                    same: same.path.clone(),
                });
            }
            if book.records.len() < pairs {
                return Err(PlanError::SmallBook {
                    path: path.display().to_string(),
                    have: book.records.len(),
                    pairs,
                });
            }
            let mut positions = book.records;
            openings::shuffle(&mut positions, self.seed);
            out.push(Book {
                path: path.display().to_string(),
                positions,
                hash,
            });
        }
        Ok(out)
    }

    /// The books ([`CalibratePlan::read_books`]), each checked to hold the pairs each set
    /// plays on it (a shorter book would replay a pair and count it twice), and what the plan
    /// says of its games ([`CalibratePlan::games_said`]).
    ///
    /// # Errors
    /// A book that cannot be read, repeats another or is too small.
    pub fn books(
        &self,
        on_skipped: &mut dyn FnMut(&[SkippedLine]),
    ) -> Result<(Vec<Book>, GamesSaid), PlanError> {
        let books = self.read_books(self.estimated_pairs_per_book(), on_skipped)?;
        let pairs = self.pairs_per_book(books.len());
        for book in &books {
            let (path, have) = (Path::new(&book.path), book.positions.len());
            openings::enough(
                "--openings",
                path,
                have,
                pairs,
                "each set on it",
                "fewer --games",
            )
            .map_err(PlanError::Check)?;
        }
        self.check_budget(pairs, books.len())?;
        let said = self.games_said(pairs, books.len());
        Ok((books, said))
    }

    /// Games of the first round, `pairs_per_book` on each of `books` books for every set but
    /// the defaults.
    pub fn first_round_games(&self, pairs_per_book: usize, books: usize) -> u64 {
        2 * (pairs_per_book * books) as u64 * self.sets.saturating_sub(1) as u64
    }

    /// The games' budget: `max_games`, or [`BUDGET_ROUNDS`] first rounds.
    pub fn budget(&self, pairs_per_book: usize, books: usize) -> u64 {
        (self.max_games)
            .unwrap_or_else(|| BUDGET_ROUNDS * self.first_round_games(pairs_per_book, books))
    }

    /// Refuses a ceiling outside 0..=1 and a budget below the first round's games.
    ///
    /// # Errors
    /// [`PlanError::Check`] naming the option, its value and the fix.
    pub fn check_budget(&self, pairs_per_book: usize, books: usize) -> Result<(), PlanError> {
        if !(self.ceiling > 0.0 && self.ceiling <= 1.0) {
            return Err(PlanError::Check(format!(
                "--ceiling {}: the games' ceiling on rho lies between 0 and 1: give e.g. --ceiling {DEFAULT_CEILING}",
                self.ceiling
            )));
        }
        let first = self.first_round_games(pairs_per_book, books);
        match self.max_games {
            Some(max) if max < first => Err(PlanError::Check(format!(
                "--max-games {max}: the first round alone plays {first} games ({} sets besides the defaults x {} games): give --max-games {first} or more, or fewer --games or --sets",
                self.sets - 1,
                2 * pairs_per_book * books
            ))),
            _ => Ok(()),
        }
    }

    /// The files the calibration reads, each with the option that names it: no output may be
    /// one of them.
    pub fn inputs(&self) -> Vec<(&'static str, &Path)> {
        let mut inputs: Vec<(&str, &Path)> = vec![
            ("--mate-suite", self.mate_suite.as_path()),
            ("--quality-positions", self.quality_positions.as_path()),
            ("--referee", self.referee.as_path()),
        ];
        inputs.extend(self.suites.iter().map(|f| ("--suite", f.as_path())));
        inputs.extend(self.books.iter().map(|f| ("--openings", f.as_path())));
        inputs.extend(self.margins.iter().map(|f| ("--margins", Path::new(f))));
        if let Some(f) = &self.engine {
            inputs.push(("--engine", f.as_path()));
        }
        inputs
    }

    /// Refuses, before any work, an `out` that is an input, cannot be written, or is a file
    /// other than a calibration report (a device such as `/dev/null` is written through), and
    /// a `state` that cannot hold this calibration's work: a file, a directory of other
    /// files, or `out` itself (the state directory of a calibration is fine: the same one
    /// resumes, another's is refused when it is opened). Returns the note of a directory it
    /// created for `out`.
    ///
    /// # Errors
    /// [`PlanError::Check`] naming the option, the path and the fix.
    pub fn check_outputs(&self) -> Result<Option<String>, PlanError> {
        self.check_state()?;
        let check = |e: outputs::OutputError| PlanError::Check(e.0);
        outputs::not_an_input(&self.out, "--out", &self.inputs()).map_err(check)?;
        let note = outputs::writable(&self.out, "--out").map_err(check)?;
        if self.out.is_file() && super::report::read(&self.out).is_err() {
            return Err(PlanError::Check(format!(
                "--out {} already exists and is not a calibration report: marginal does not write over it; give another --out",
                self.out.display()
            )));
        }
        Ok(note)
    }

    /// The `state` half of [`CalibratePlan::check_outputs`].
    fn check_state(&self) -> Result<(), PlanError> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        if state.exists() && !state.is_dir() {
            return Err(PlanError::Check(format!(
                "--state {}: it is a file, not a directory: give a directory (it is created if missing)",
                state.display()
            )));
        }
        super::store::check_dir(state).map_err(|e| PlanError::Check(e.to_string()))?;
        let same = |a: &Path, b: &Path| {
            a == b
                || a.canonicalize()
                    .is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b))
        };
        if same(&self.out, state) {
            return Err(PlanError::Check(format!(
                "--out {} is the --state directory: the report is a file; name one outside it (the default --out is calibration.json)",
                self.out.display()
            )));
        }
        Ok(())
    }

    /// What the plan says of the games it plays, `pairs_per_book` on each of `books` books:
    /// a warning when a set plays too few for a verdict, and a note when the games asked for
    /// become another number.
    pub fn games_said(&self, pairs_per_book: usize, books: usize) -> GamesSaid {
        let played = 2 * pairs_per_book * books;
        GamesSaid {
            warning: (played < 100).then(|| format!(
                "--games {}: {played} games a set are too few for a verdict (a set that wins or loses every pair has no Elo, and the ranks are mostly noise); the shipped calibrations play 300 to 400 a set",
                self.games
            )),
            note: (played != self.games as usize).then(|| format!(
                "--games {} becomes {played} per set: whole pairs, as many on each of the {books} books",
                self.games
            )),
        }
    }

    /// The configuration of the games (the objectives are added once prepared, and the state
    /// directory once chosen: see [`CalibratePlan::state_dir`]).
    pub fn config(
        &self,
        sets: Vec<CalibrationSet>,
        region: Vec<RegionDim>,
        books: Vec<Book>,
        executor: Arc<dyn Runner>,
    ) -> Config {
        Config {
            sets,
            region,
            seed: self.seed,
            objectives: Vec::new(),
            pairs_per_book: self.pairs_per_book(books.len()),
            ceiling_target: self.ceiling,
            max_games: self.budget(self.pairs_per_book(books.len()), books.len()),
            books,
            game: GameConfig {
                limit: self.limit,
                resign: None,
                draw: None,
                max_plies: 400,
            },
            hash_mb: self.hash_mb,
            concurrency: self.concurrency,
            bootstrap: Bootstrap {
                resamples: self.resamples,
                seed: self.seed,
            },
            state_dir: PathBuf::new(),
            executor,
            preparation: super::Spent::default(),
        }
    }

    /// Where the calibration of `config` keeps its work: `state`, or a directory of the
    /// reference cache named after the hash of the configuration's identity (the first of its
    /// identities whose directory exists, else its own).
    pub fn state_dir(&self, config: &Config) -> PathBuf {
        self.state.clone().unwrap_or_else(|| {
            let dirs: Vec<PathBuf> = (config.identities().iter())
                .map(|identity| {
                    let mut hash = Fnv::new();
                    hash.write(identity.to_string().as_bytes());
                    default_cache_dir().join(format!("calibration-{:016x}", hash.finish()))
                })
                .collect();
            let found = dirs.iter().find(|d| d.exists());
            found.unwrap_or(&dirs[0]).clone()
        })
    }

    /// Refuses a mate suite with no mate record (every set would score 0 and the objective
    /// say nothing).
    ///
    /// # Errors
    /// [`PlanError::Suite`] or [`PlanError::NoMates`].
    pub fn check_mate_suite(&self) -> Result<(), PlanError> {
        let files = std::slice::from_ref(&self.mate_suite);
        let suites = load_suites(files, false, self.repeats())
            .map_err(|e| PlanError::Suite(e.to_string()))?;
        if !suites.positions.iter().any(|p| p.record.mate.is_some()) {
            return Err(PlanError::NoMates {
                path: self.mate_suite.display().to_string(),
                positions: suites.positions.len(),
            });
        }
        Ok(())
    }

    /// The quality objective's deep reference limit for its limit `limit`.
    pub fn deep_limit(&self, limit: SuiteLimit) -> SuiteLimit {
        match limit {
            SuiteLimit::Nodes(n) => SuiteLimit::Nodes(n.saturating_mul(self.quality_deep)),
            SuiteLimit::Depth(d) => {
                SuiteLimit::Depth((d + (self.quality_deep / 4).max(1) as u32).min(100))
            }
        }
    }

    /// The quality objective's source, as its key names it: the positions' file and the hash
    /// of their FENs.
    pub fn quality_source(&self, positions: &[Chess]) -> String {
        let mut hash = Fnv::new();
        for p in positions {
            hash.write(fen(p).as_bytes());
        }
        format!(
            "{} {:016x}",
            self.quality_positions.display(),
            hash.finish()
        )
    }
}

/// What a plan says of its games: see [`CalibratePlan::games_said`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamesSaid {
    /// A warning: too few games a set for a verdict.
    pub warning: Option<String>,
    /// A note: the games asked for become another number.
    pub note: Option<String>,
}

fn fen(p: &Chess) -> String {
    Fen::from_position(p, EnPassantMode::Legal).to_string()
}

/// FNV-1a hash of a book's positions in book order, a FEN a line.
fn book_hash(positions: &[Chess]) -> u64 {
    let mut hash = Fnv::new();
    for p in positions {
        hash.write(fen(p).as_bytes());
        hash.write(b"\n");
    }
    hash.finish()
}

/// One `--objectives` entry: KIND, KIND:nodes=N or KIND:depth=D.
///
/// # Errors
/// [`PlanError::Objective`], saying what is wrong and what to write.
pub fn parse_objective(text: &str, default: SuiteLimit) -> Result<ObjectiveSpec, PlanError> {
    let bad = |why: String| PlanError::Objective {
        spec: text.to_string(),
        why,
    };
    let (kind, limit) = match text.split_once(':') {
        None => (text.trim(), None),
        Some((kind, limit)) => (kind.trim(), Some(limit.trim())),
    };
    let kind = match kind {
        "suite" => ObjectiveKind::Suite,
        "quality" => ObjectiveKind::Quality,
        "mates" => ObjectiveKind::Mates,
        "referee" => ObjectiveKind::Referee,
        _ => return Err(bad(not_a_kind(kind, limit.is_some()))),
    };
    let limit = match limit {
        None => default,
        Some(limit) => parse_limit(limit).map_err(bad)?,
    };
    Ok(ObjectiveSpec { kind, limit })
}

/// Why `kind` (before a ':' when `limited`) is not an objective's kind.
fn not_a_kind(kind: &str, limited: bool) -> String {
    if kind.is_empty() {
        format!(
            "no objective{}: give KIND, KIND:nodes=N or KIND:depth=D, KIND one of suite, quality, mates, referee (comma-separated)",
            if limited {
                " before ':'"
            } else {
                " (a comma too many?)"
            }
        )
    } else if kind.contains('=') {
        format!(
            "'{kind}' is a limit without its objective: write KIND:{kind}, KIND one of suite, quality, mates, referee (a comma starts the next objective, and each takes one limit)"
        )
    } else {
        format!("'{kind}' is not an objective: the kinds are suite, quality, mates and referee")
    }
}

/// The limit of an `--objectives` entry, after its ':': one of nodes=N and depth=D.
fn parse_limit(text: &str) -> Result<SuiteLimit, String> {
    const FORMS: &str = "nodes=N or depth=D";
    if text.is_empty() {
        return Err(format!(
            "nothing after ':': give one limit, {FORMS}, or leave out the ':' for the games' limit"
        ));
    }
    if text.matches('=').count() > 1 {
        return Err(format!(
            "'{text}' is more than one limit: an objective takes one, {FORMS} (to measure it at both, list it twice: KIND:depth=D,KIND:nodes=N)"
        ));
    }
    let Some((key, value)) = text.split_once('=') else {
        return Err(match text {
            "nodes" | "depth" => format!("'{text}' has no value: {text}=N"),
            _ => format!("'{text}' is not a limit: give {FORMS}"),
        });
    };
    let (key, value) = (key.trim(), value.trim());
    let (max, takes) = match key {
        "nodes" => (
            u64::MAX,
            "nodes=N takes a whole number of nodes, at least 1".to_string(),
        ),
        "depth" => (
            u64::from(MAX_DEPTH),
            format!("depth=D takes a whole number of plies, 1 to {MAX_DEPTH}"),
        ),
        _ => return Err(format!("'{key}' is not a limit: give {FORMS}")),
    };
    match value.parse::<i128>() {
        Ok(n) if (1..=i128::from(max)).contains(&n) => Ok(if key == "nodes" {
            SuiteLimit::Nodes(n as u64)
        } else {
            SuiteLimit::Depth(n as u32)
        }),
        Ok(_) => Err(format!("{key}={value} is out of range: {takes}")),
        Err(_) if value.is_empty() => Err(format!("'{key}=' has no value: {takes}")),
        Err(_) => Err(format!("'{value}' is not a whole number: {takes}")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scoring::exec::local::Local;

    fn data(path: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
    }

    /// The plan of `marginal calibrate` with its defaults, at 5,000 nodes.
    pub(crate) fn plan() -> CalibratePlan {
        CalibratePlan {
            engine: None,
            limit: MoveLimit::Nodes(5_000),
            objectives: Vec::new(),
            suites: vec![data("data/suites/wac.epd"), data("data/suites/ecm.epd")],
            count_repeats: false,
            mate_suite: data("data/suites/matetrack_short.epd"),
            quality_positions: data("data/positions/games_600.epd"),
            quality_deep: 16,
            referee: DEFAULT_REFEREE.into(),
            referee_nodes: DEFAULT_REFEREE_NODES,
            books: DEFAULT_BOOKS.map(data).to_vec(),
            sets: 12,
            region: Vec::new(),
            margins: Vec::new(),
            games: 400,
            ceiling: DEFAULT_CEILING,
            max_games: None,
            seed: 1,
            hash_mb: 4,
            concurrency: 2,
            resamples: 4000,
            out: "calibration.json".into(),
            force: false,
            state: None,
        }
    }

    #[test]
    fn an_output_that_is_an_input_or_a_state_that_is_a_file_is_refused() {
        let mut p = plan();
        p.out = p.mate_suite.clone();
        let why = p.check_outputs().unwrap_err().to_string();
        assert!(
            why.starts_with("--out") && why.contains("is --mate-suite"),
            "{why}"
        );
        let mut p = plan();
        p.state = Some(p.quality_positions.clone());
        let why = p.check_outputs().unwrap_err().to_string();
        assert!(
            why.starts_with("--state") && why.contains("not a directory"),
            "{why}"
        );
        // Every file it reads is an input, the default books too.
        let p = plan();
        let inputs = p.inputs();
        assert!(
            inputs
                .iter()
                .any(|(o, f)| *o == "--openings" && f.ends_with("noob_3moves_1k.epd"))
        );
    }

    #[test]
    fn a_book_shorter_than_its_pairs_is_refused_with_the_fix() {
        let mut p = plan();
        p.books.truncate(1);
        p.games = 2002;
        let why = p.books(&mut |_| {}).unwrap_err().to_string();
        assert!(
            why.starts_with("--openings")
                && why.contains("1001 pairs")
                && why.contains("fewer --games"),
            "{why}"
        );
        p.games = 400;
        let (books, said) = p.books(&mut |_| {}).unwrap();
        assert_eq!((books.len(), said.warning), (1, None));
    }

    #[test]
    fn the_plan_round_trips_through_json() {
        let mut p = plan();
        p.limit = MoveLimit::Depth(7);
        p.objectives = vec!["suite:nodes=500".into(), "mates".into()];
        p.margins = vec!["futility_margin=90".into()];
        p.state = Some("state".into());
        let text = serde_json::to_string(&p).unwrap();
        let back: CalibratePlan = serde_json::from_str(&text).unwrap();
        assert_eq!(back, p);
        // A field the plan does not know is refused, not dropped.
        let mut value = serde_json::to_value(&p).unwrap();
        value["gmaes"] = 400.into();
        assert!(serde_json::from_value::<CalibratePlan>(value).is_err());
    }

    #[test]
    fn the_design_starts_with_the_defaults_and_stays_within_the_region() {
        let def = EngineDef::builtin();
        let region = design::region(&def, &[]).unwrap();
        let p = plan();
        let no_margins = |_: &str| -> Result<Setting, String> { unreachable!() };
        let sets = p.sets(&def, &region, &no_margins).unwrap();
        assert_eq!(sets.len(), p.sets);
        assert_eq!(sets[0].setting, Setting::defaults(&def));
        assert_eq!(
            (sets[0].name.as_str(), sets[0].origin.as_str()),
            ("default", "defaults")
        );
        for (i, s) in sets.iter().enumerate().skip(1) {
            assert_eq!(s.origin, "design");
            let name = match i {
                1 => "corner-LLLL".to_string(),
                2 => "corner-HHHH".to_string(),
                i => format!("lhs-{}", i - 2),
            };
            assert_eq!(s.name, name);
            assert_ne!(s.setting, sets[0].setting);
            for d in &region {
                let v = s.setting.values()[d.index];
                assert!(
                    (d.lower..=d.upper).contains(&v),
                    "{} {v} outside {d:?}",
                    s.name
                );
            }
        }
        // The same seed draws the same design; another seed another.
        let again = p.sets(&def, &region, &no_margins).unwrap();
        assert!(sets.iter().zip(&again).all(|(a, b)| a.setting == b.setting));
        let other = CalibratePlan { seed: 2, ..plan() };
        let other = other.sets(&def, &region, &no_margins).unwrap();
        assert!(
            sets.iter()
                .zip(&other)
                .skip(1)
                .any(|(a, b)| a.setting != b.setting)
        );
    }

    #[test]
    fn added_sets_are_refused_when_they_repeat_one_or_leave_too_few() {
        let def = EngineDef::builtin();
        let region = design::region(&def, &[]).unwrap();
        let defaults = |_: &str| Ok(Setting::defaults(&def));
        let p = CalibratePlan {
            margins: vec!["default".into()],
            ..plan()
        };
        let e = p.sets(&def, &region, &defaults).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--margins 'default' is the same set as 'default': each set is measured once"
        );
        let refused = |s: &str| Err(format!("{s}: no such file"));
        let e = p.sets(&def, &region, &refused).unwrap_err();
        assert_eq!(e.to_string(), "--margins: default: no such file");
        let p = CalibratePlan { sets: 3, ..plan() };
        let e = p.sets(&def, &region, &defaults).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--sets 3: a calibration needs at least 4 sets"),
            "{e}"
        );
    }

    #[test]
    fn games_become_whole_pairs_split_evenly_over_the_books() {
        let p = plan();
        assert_eq!(p.estimated_pairs_per_book(), 100);
        assert_eq!(p.pairs_per_book(2), 100);
        assert_eq!(
            p.games_said(100, 2),
            GamesSaid {
                warning: None,
                note: None
            }
        );
        let odd = CalibratePlan {
            games: 401,
            ..plan()
        };
        assert_eq!(odd.pairs_per_book(2), 101);
        assert_eq!(odd.pairs_per_book(3), 67);
        let said = odd.games_said(101, 2);
        assert_eq!(said.warning, None);
        assert_eq!(
            said.note.as_deref(),
            Some("--games 401 becomes 404 per set: whole pairs, as many on each of the 2 books")
        );
        // One book given: estimated as if two, then the real split.
        let one = CalibratePlan {
            books: vec![data(DEFAULT_BOOKS[0])],
            ..plan()
        };
        assert_eq!(
            (one.estimated_pairs_per_book(), one.pairs_per_book(1)),
            (100, 200)
        );
        let few = CalibratePlan {
            games: 30,
            ..plan()
        };
        let said = few.games_said(few.pairs_per_book(2), 2);
        assert!(
            said.warning
                .unwrap()
                .starts_with("--games 30: 32 games a set are too few")
        );
    }

    #[test]
    fn the_budget_defaults_to_four_first_rounds_and_holds_the_first() {
        let p = plan();
        assert_eq!(p.first_round_games(100, 2), 11 * 400);
        assert_eq!(p.budget(100, 2), 4 * 11 * 400);
        assert!(p.check_budget(100, 2).is_ok());
        let given = CalibratePlan {
            max_games: Some(4_400),
            ..plan()
        };
        assert_eq!(given.budget(100, 2), 4_400);
        assert!(given.check_budget(100, 2).is_ok());
        let short = CalibratePlan {
            max_games: Some(4_000),
            ..plan()
        };
        let e = short.check_budget(100, 2).unwrap_err().to_string();
        assert!(
            e.starts_with("--max-games 4000: ") && e.contains("--max-games 4400 or more"),
            "{e}"
        );
        for bad in [0.0, 1.5, f64::NAN] {
            let p = CalibratePlan {
                ceiling: bad,
                ..plan()
            };
            let e = p.check_budget(100, 2).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--ceiling {bad}: ")) && e.contains("--ceiling 0.8"),
                "{e}"
            );
        }
    }

    #[test]
    fn objectives_default_to_all_three_at_the_games_limit() {
        let specs = plan().objective_specs().unwrap();
        let kinds: Vec<String> = specs.iter().map(|s| s.kind.to_string()).collect();
        assert_eq!(kinds, DEFAULT_OBJECTIVES);
        assert!(specs.iter().all(|s| s.limit == SuiteLimit::Nodes(5_000)));
        let clock = CalibratePlan {
            limit: MoveLimit::Depth(6),
            objectives: vec!["suite:nodes=300".into(), "suite".into()],
            ..plan()
        };
        assert_eq!(
            clock.objective_specs().unwrap(),
            vec![
                ObjectiveSpec {
                    kind: ObjectiveKind::Suite,
                    limit: SuiteLimit::Nodes(300)
                },
                ObjectiveSpec {
                    kind: ObjectiveKind::Suite,
                    limit: SuiteLimit::Depth(6)
                },
            ]
        );
        // The referee is a kind of its own, searched deep as quality is.
        let referee = parse_objective("referee:nodes=500", SuiteLimit::Nodes(1)).unwrap();
        assert_eq!(
            (referee.kind, referee.limit, referee.kind.is_deep()),
            (ObjectiveKind::Referee, SuiteLimit::Nodes(500), true)
        );
        let twice = CalibratePlan {
            objectives: vec!["mates".into(), " mates".into()],
            ..plan()
        };
        assert_eq!(
            twice.objective_specs().unwrap_err().to_string(),
            "--objectives: ' mates' is given twice"
        );
        let bad = |s: &str| {
            parse_objective(s, SuiteLimit::Nodes(1))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            bad("nodes=5"),
            "--objectives 'nodes=5': 'nodes=5' is a limit without its objective: write KIND:nodes=5, KIND one of suite, quality, mates, referee (a comma starts the next objective, and each takes one limit)"
        );
        assert!(
            bad("suite:depth=0").ends_with(
                "depth=0 is out of range: depth=D takes a whole number of plies, 1 to 100"
            ),
            "{}",
            bad("suite:depth=0")
        );
        assert!(bad("").contains("no objective (a comma too many?)"));
    }

    #[test]
    fn the_state_directory_is_named_after_what_decides_the_games() {
        let def = EngineDef::builtin();
        let region = design::region(&def, &[]).unwrap();
        let none = |_: &str| -> Result<Setting, String> { unreachable!() };
        let config = |p: &CalibratePlan| {
            let sets = p.sets(&def, &region, &none).unwrap();
            p.config(sets, region.clone(), Vec::new(), Arc::new(Local::new(1)))
        };
        let p = plan();
        let dir = p.state_dir(&config(&p));
        assert!(dir.starts_with(default_cache_dir()));
        assert!(
            dir.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("calibration-")
        );
        // What does not decide the games leaves it as it is: the objectives, the threads.
        let same = CalibratePlan {
            objectives: vec!["suite".into()],
            concurrency: 7,
            ..plan()
        };
        assert_eq!(same.state_dir(&config(&same)), dir);
        let other = CalibratePlan {
            games: 200,
            ..plan()
        };
        assert_ne!(other.state_dir(&config(&other)), dir);
        let given = CalibratePlan {
            state: Some("mine".into()),
            ..plan()
        };
        assert_eq!(given.state_dir(&config(&given)), Path::new("mine"));
    }

    #[test]
    fn a_book_given_twice_or_too_small_is_refused() {
        let twice = CalibratePlan {
            books: vec![data(DEFAULT_BOOKS[0]), data(DEFAULT_BOOKS[0])],
            ..plan()
        };
        let mut heard = 0;
        let e = twice.read_books(10, &mut |_| heard += 1).unwrap_err();
        assert!(matches!(e, PlanError::SameBook { .. }), "{e}");
        assert_eq!(heard, 2, "each book's bad lines are said as it is read");
        let e = plan().read_books(100_000, &mut |_| {}).unwrap_err();
        assert!(
            matches!(e, PlanError::SmallBook { pairs: 100_000, .. }),
            "{e}"
        );
        let books = plan().read_books(100, &mut |_| {}).unwrap();
        assert_eq!(books.len(), 2);
        assert!(books.iter().all(|b| b.positions.len() >= 100));
    }
}
