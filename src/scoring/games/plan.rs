//! What a match plays: the typed plan any front end (the `match` command, a test, a doc
//! example) builds ([`MatchPlan`]), and the steps that carry it out before and after the games:
//! its outputs checked ([`MatchPlan::check_outputs`]), its rules and book read
//! ([`MatchPlan::prepare`]), its record opened ([`Prepared::open`]). The sides' engines and
//! margin sets are resolved by the caller (a margin set may be a tuned file, which this layer
//! does not read), and so is the executor. Nothing here prints: what a step has to say is
//! returned ([`Said`]).
//!
//! A plan keeps what the user asked for, with unset options left `None`; its methods give the
//! values the match uses ([`MatchPlan::limit`], [`MatchPlan::concurrency`], ...).
//!
//! # Example
//!
//! Two game pairs of the built-in engine's defaults against pruning off, at 300 nodes a move,
//! from the bundled book:
//!
//! ```
//! use marginal::engine::Setting;
//! use marginal::params::Margins;
//! use marginal::scoring::games::plan::MatchPlan;
//! use marginal::progress::Event;
//! use marginal::scoring::exec::local::Local;
//! use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
//!
//! let mut plan = MatchPlan::new("default", "off");
//! plan.openings = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
//!     .join(marginal::scoring::games::plan::DEFAULT_BOOK);
//! plan.games = 4;
//! plan.nodes = Some(300);
//! plan.max_plies = 120;
//! plan.concurrency = Some(2);
//! plan.check().unwrap();
//!
//! let (a, b): (Setting, Setting) = (Margins::default().into(), Margins::off().into());
//! let mut said = Vec::new();
//! let prepared = plan.prepare(a, b, &mut said).unwrap();
//! let session = prepared.open().unwrap();
//! let pairs = AtomicUsize::new(0);
//! let observer = |event: &Event<'_>| {
//!     if let Event::Pair { .. } = event {
//!         pairs.fetch_add(1, Ordering::Relaxed);
//!     }
//! };
//! let result = session
//!     .play(&Local::new(2), &AtomicBool::new(false), &observer)
//!     .unwrap();
//!
//! assert_eq!(pairs.load(Ordering::Relaxed), 2);
//! assert_eq!(result.stats.games, 4);
//! assert!(prepared.verdict(&result).is_passed());
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use super::game::{GameConfig, MoveLimit};
use super::matches::{MATCH_REPORT_FORMAT, MatchConfig, MatchReport, MatchResult};
use super::record;
use super::session::{self, Resumed, Session, SessionError};
use super::spec;
use super::stats::SprtParams;
use crate::engine::Setting;
use crate::formats::openings;
use crate::formats::outputs::{self, OutputError};
use crate::progress::Said;

pub use super::summary::Verdict;

/// The book a match plays when none is given.
pub const DEFAULT_BOOK: &str = "data/openings/UHO_4060_v2_2k.epd";

/// Nodes per move when no limit is given.
pub const DEFAULT_NODES: u64 = 5_000;

/// Most games when not given.
pub const DEFAULT_GAMES: u32 = 200;

/// Plies after which a game is drawn, when not given.
pub const DEFAULT_MAX_PLIES: u32 = 400;

/// Transposition table per engine per game, megabytes, when not given.
pub const DEFAULT_HASH_MB: usize = 4;

/// The most games played at once.
pub const MAX_CONCURRENCY: usize = 256;

/// A plan that cannot run as given (a match's, a check's): the message names the option or
/// file, the value and the fix (a user error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(pub String);

impl From<OutputError> for PlanError {
    fn from(e: OutputError) -> Self {
        PlanError(e.0)
    }
}

/// One side of a match as the user gave it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SidePlan {
    /// Its margin set: a built-in name, a tuned file or name=value assignments.
    pub margins: String,
    /// The engine file of an external engine (`None`: marginal's own engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<PathBuf>,
}

impl SidePlan {
    /// A side of marginal's own engine with the margin set `margins`.
    pub fn builtin(margins: &str) -> SidePlan {
        SidePlan {
            margins: margins.to_string(),
            engine: None,
        }
    }
}

/// Everything a match needs, as the user gave it: the sides, the book and its seed, the games,
/// the per-move limit, the SPRT, adjudication, the hash, the games at once, and its outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchPlan {
    /// Side A (the one the statistics speak for).
    pub a: SidePlan,
    /// Side B.
    pub b: SidePlan,
    /// The opening book, one FEN/EPD position a line.
    pub openings: PathBuf,
    /// Seed of the book's shuffle.
    pub seed: u64,
    /// Most games (whole pairs: an odd count is rounded up).
    pub games: u32,
    /// Games at once (`None`: every core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Fixed nodes per move (without a limit: [`DEFAULT_NODES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Fixed depth per move, plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Time control `BASE+INC` in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    /// The SPRT, `ELO0,ELO1,ALPHA,BETA` in normalized Elo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<String>,
    /// Resign adjudication `SCORE:MOVES`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<String>,
    /// Draw adjudication `SCORE:MOVES:AFTER`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<String>,
    /// Plies after which a game is drawn.
    pub max_plies: u32,
    /// Transposition table per engine per game, megabytes.
    pub hash_mb: usize,
    /// The PGN record of the games (and its settings record beside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgn: Option<PathBuf>,
    /// Go on from the whole pairs of `pgn`.
    #[serde(default)]
    pub resume: bool,
    /// The JSON report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<PathBuf>,
    /// Replace the `json` report when it exists.
    #[serde(default)]
    pub force: bool,
}

impl Default for MatchPlan {
    /// marginal's own defaults against themselves, with every option at its default.
    fn default() -> Self {
        MatchPlan::new("default", "default")
    }
}

impl MatchPlan {
    /// A match of marginal's own engine with margin set `a` against `b`, every other option
    /// at its default.
    pub fn new(a: &str, b: &str) -> MatchPlan {
        MatchPlan {
            a: SidePlan::builtin(a),
            b: SidePlan::builtin(b),
            openings: PathBuf::from(DEFAULT_BOOK),
            seed: 1,
            games: DEFAULT_GAMES,
            concurrency: None,
            nodes: None,
            depth: None,
            tc: None,
            sprt: None,
            resign: None,
            draw: None,
            max_plies: DEFAULT_MAX_PLIES,
            hash_mb: DEFAULT_HASH_MB,
            pgn: None,
            resume: false,
            json: None,
            force: false,
        }
    }

    /// Refuses a plan no command line gives: a count out of range, two per-move limits,
    /// `resume` without a PGN. (What the options' texts say is checked when the rules are
    /// read, [`MatchPlan::rules`].)
    ///
    /// # Errors
    /// Names the field, its value and what it must be.
    pub fn check(&self) -> Result<(), PlanError> {
        let refuse = |why: String| Err(PlanError(why));
        if self.games == 0 {
            return refuse("--games 0: a match plays at least 1 game".into());
        }
        if self.max_plies == 0 {
            return refuse("--max-plies 0: a game has at least 1 ply".into());
        }
        if let Some(n) = self.concurrency
            && !(1..=MAX_CONCURRENCY).contains(&n)
        {
            return refuse(format!(
                "--concurrency {n}: games at once are 1 to {MAX_CONCURRENCY}"
            ));
        }
        let limits = [
            self.nodes.is_some(),
            self.depth.is_some(),
            self.tc.is_some(),
        ];
        if limits.iter().filter(|&&given| given).count() > 1 {
            return refuse(
                "--nodes, --depth and --tc each set the per-move limit: give one of them".into(),
            );
        }
        if self.nodes == Some(0) || self.depth == Some(0) {
            return refuse("--nodes and --depth are at least 1".into());
        }
        if self.resume && self.pgn.is_none() {
            return refuse("--resume goes on from the games of --pgn FILE: give it".into());
        }
        Ok(())
    }

    /// Games at once: as asked, else every core.
    pub fn concurrency(&self) -> usize {
        self.concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1)
    }

    /// Game pairs of the whole match.
    pub fn pairs(&self) -> usize {
        self.games.max(2).div_ceil(2) as usize
    }

    /// The per-move limit: `tc`, else `depth`, else `nodes` (default [`DEFAULT_NODES`]).
    ///
    /// # Errors
    /// A time control that does not parse.
    pub fn limit(&self) -> Result<MoveLimit, PlanError> {
        Ok(match (&self.tc, self.depth, self.nodes) {
            (Some(tc), _, _) => spec::parse_tc(tc).map_err(|e| PlanError(e.to_string()))?,
            (None, Some(d), _) => MoveLimit::Depth(d.clamp(1, 100)),
            (None, None, n) => MoveLimit::Nodes(n.unwrap_or(DEFAULT_NODES).max(1)),
        })
    }

    /// The rules of every game (the per-move limit, adjudication, the ply cap) and the SPRT.
    ///
    /// # Errors
    /// An option's text that does not parse, naming the option.
    pub fn rules(&self) -> Result<(GameConfig, Option<SprtParams>), PlanError> {
        let limit = self.limit()?;
        let parsed = |e: spec::SpecError| PlanError(e.to_string());
        let sprt = (self.sprt.as_deref().map(spec::parse_sprt))
            .transpose()
            .map_err(parsed)?;
        let game = GameConfig {
            limit,
            resign: (self.resign.as_deref().map(spec::parse_resign))
                .transpose()
                .map_err(parsed)?,
            draw: (self.draw.as_deref().map(spec::parse_draw))
                .transpose()
                .map_err(parsed)?,
            max_plies: self.max_plies.max(1),
        };
        Ok((game, sprt))
    }

    /// The files a match reads, each with its option: no output may be one of them.
    pub fn inputs(&self) -> Vec<(&'static str, &Path)> {
        let mut inputs: Vec<(&str, &Path)> = vec![("the opening book", self.openings.as_path())];
        for (what, side) in [("--a", &self.a), ("--b", &self.b)] {
            if side.margins.ends_with(".json") {
                inputs.push((what, Path::new(side.margins.as_str())));
            }
        }
        for (what, side) in [("--a-engine", &self.a), ("--b-engine", &self.b)] {
            if let Some(file) = &side.engine {
                inputs.push((what, file.as_path()));
            }
        }
        inputs
    }

    /// Checks the outputs before any work (`--force` without a report to replace is said to do
    /// nothing): no output
    /// onto an input or onto another output, a new match's PGN empty (the way on is
    /// `--resume`), a report that replaces only what it may, every output writable. `results`
    /// are the formats of the files a report never replaces (a tuned file, a calibration).
    /// What is worth saying (a directory created) goes to `said`.
    ///
    /// # Errors
    /// Names the option, the file and the fix.
    pub fn check_outputs(&self, results: &[&str], said: &mut Vec<Said>) -> Result<(), PlanError> {
        said.extend(self.idle_force().map(Said::Warning));
        let inputs = self.inputs();
        for (option, out) in [("--pgn", &self.pgn), ("--json", &self.json)] {
            if let Some(out) = out {
                outputs::not_an_input(out, option, &inputs)?;
            }
        }
        if let Some(pgn) = &self.pgn {
            let what = format!("--pgn {}: its settings record", pgn.display());
            outputs::not_an_input(&record::record_path(pgn), &what, &inputs)?;
        }
        if let (Some(pgn), Some(json)) = (&self.pgn, &self.json) {
            outputs_apart(pgn, json)?;
        }
        // A rerun's games are named first: the way on is --resume, whatever the report says.
        if let (Some(pgn), false) = (&self.pgn, self.resume) {
            record::refuse_filled(pgn).map_err(|e| PlanError(e.to_string()))?;
        }
        // Only a match that has games to go on from may write its report again unasked.
        let resuming = self.resume
            && (self.pgn.as_ref()).is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0));
        if let Some(out) = &self.json {
            self.json_output(out, resuming, results, said)?;
        }
        if let Some(pgn) = &self.pgn {
            said.extend(outputs::writable(pgn, "--pgn")?.map(Said::Note));
        }
        Ok(())
    }

    /// `force` replaces the report: without one it does nothing (said), and a PGN is never
    /// written over.
    fn idle_force(&self) -> Option<String> {
        if !self.force || self.json.is_some() {
            return None;
        }
        let pgn = match &self.pgn {
            Some(pgn) => format!(
                ": a --pgn file is never written over, even with --force; continue its match with --resume, or name another --pgn than {}",
                pgn.display()
            ),
            None => String::new(),
        };
        Some(format!(
            "--force does nothing here: it replaces the --json report only, and no --json FILE is given{pgn}"
        ))
    }

    /// The report `out` may be written: no settings record; a resumed match writes its own
    /// report again (any other file there is kept), a new one a fresh output.
    fn json_output(
        &self,
        out: &Path,
        resuming: bool,
        results: &[&str],
        said: &mut Vec<Said>,
    ) -> Result<(), PlanError> {
        not_a_settings_record(out)?;
        if !resuming {
            let note = outputs::fresh_json_output(out, "--json", self.force, results)?;
            said.extend(note.map(Said::Note));
            return Ok(());
        }
        let is_match_report = |text: String| {
            // An empty file is what a match killed before its report left (older versions
            // emptied --json at the start): nothing of the user's to keep.
            text.trim().is_empty()
                || serde_json::from_str::<serde_json::Value>(&text)
                    .is_ok_and(|v| v["format"] == MATCH_REPORT_FORMAT)
        };
        if !self.force && out.is_file() && !outputs::read_output(out).is_some_and(is_match_report) {
            return Err(PlanError(format!(
                "--json {} exists and is not a match report: marginal does not replace it; give another --json, or add --force to replace it",
                out.display()
            )));
        }
        said.extend(outputs::writable(out, "--json")?.map(Said::Note));
        Ok(())
    }

    /// Prepares the match of `a` against `b` (the sides' margin sets, resolved by the caller):
    /// says when they are twins, reads the rules and the book (its skipped lines, repeated
    /// openings and a `draw` that never applies said in `said`), and checks that the book has
    /// an opening for every pair and that the tables fit.
    ///
    /// # Errors
    /// A rule that does not parse, a book that cannot be read or is too short, tables that do
    /// not fit.
    pub fn prepare(
        &self,
        a: Setting,
        b: Setting,
        said: &mut Vec<Said>,
    ) -> Result<Prepared, PlanError> {
        if a.def().signature() == b.def().signature() && a.uci_options() == b.uci_options() {
            said.push(Said::Warning(format!(
                "--a '{}' and --b '{}' are the same margin set of the same engine: the match can only measure 0 Elo (useful as a check of the statistics, nothing more)",
                self.a.margins, self.b.margins
            )));
        }
        let (game, sprt) = self.rules()?;
        let book = self.read_book(&game, said)?;
        let concurrency = self.concurrency();
        crate::engine::tt::hash_fits(self.hash_mb, 2 * concurrency)
            .map_err(|e| PlanError(e.to_string()))?;
        let config = MatchConfig {
            game,
            games: self.games.max(2),
            concurrency,
            sprt,
        };
        Ok(Prepared {
            plan: self.clone(),
            a,
            b,
            config,
            book,
        })
    }

    /// The opening book: its skipped lines, its repeated openings and a `draw` that no game
    /// would reach said, and enough openings for the games.
    fn read_book(&self, game: &GameConfig, said: &mut Vec<Said>) -> Result<Vec<Chess>, PlanError> {
        let book = openings::read(&self.openings).map_err(|e| PlanError(e.to_string()))?;
        said.extend(Said::skipped(&book.skipped));
        let latest = (book.records.iter())
            .map(|p| shakmaty::Position::fullmoves(p).get())
            .max()
            .unwrap_or(1);
        said.extend(self.draw_never_applies(game, latest).map(Said::Warning));
        let mut seen = std::collections::HashSet::new();
        let repeats = (book.records.iter())
            .filter(|p| {
                let fen = shakmaty::fen::Fen::from_position(*p, shakmaty::EnPassantMode::Legal);
                !seen.insert(fen.to_string())
            })
            .count();
        if repeats > 0 {
            said.push(Said::Warning(format!(
                "{}: {repeats} opening(s) repeat an earlier one: each is played as often as it appears; remove the repeats to play each once",
                self.openings.display()
            )));
        }
        openings::enough(
            "--openings",
            &self.openings,
            book.records.len(),
            self.pairs(),
            &format!("--games {}", self.games),
            &format!("at most --games {}", 2 * book.records.len()),
        )
        .map_err(PlanError)?;
        Ok(book.records)
    }

    /// A `draw` rule from a move that no game reaches (every game ends within `max_plies` of
    /// its opening, and the book's openings start at most at move `latest`).
    fn draw_never_applies(&self, game: &GameConfig, latest: u32) -> Option<String> {
        let (rule, text) = (game.draw?, self.draw.as_ref()?);
        let last = latest + game.max_plies.div_ceil(2);
        (rule.after_move > last).then(|| format!(
            "--draw {text} starts at move {}, but with --max-plies {} no game of this book goes past move {last}: it never adjudicates",
            rule.after_move, game.max_plies
        ))
    }
}

/// Refuses a report that is the PGN or its settings record however named (a link to either).
fn outputs_apart(pgn: &Path, json: &Path) -> Result<(), PlanError> {
    let record = record::record_path(pgn);
    outputs::not_an_input(
        json,
        "--json",
        &[
            ("--pgn", pgn),
            ("--pgn's settings record", record.as_path()),
        ],
    )?;
    outputs::not_an_input(pgn, "--pgn", &[("--json", json)])?;
    if pgn == json {
        return Err(PlanError(format!(
            "--pgn {} and --json {} would write the same file: give the report another name",
            pgn.display(),
            json.display()
        )));
    }
    if record == json {
        return Err(PlanError(format!(
            "--json {} is where --pgn {} keeps its settings record (the PGN's name with .match.json, read by --resume): give the report another name",
            json.display(),
            pgn.display()
        )));
    }
    Ok(())
}

/// Refuses a report onto the settings record of a match (`FILE.pgn.match.json`), even with
/// `force`: replaced, that match could never be resumed.
fn not_a_settings_record(out: &Path) -> Result<(), PlanError> {
    let is_record = outputs::read_output(out).is_some_and(|text| {
        serde_json::from_str::<serde_json::Value>(&text)
            .is_ok_and(|v| v["format"] == record::RECORD_FORMAT)
    });
    if is_record {
        return Err(PlanError(format!(
            "--json {} is the settings record of a match's PGN file: marginal never replaces it, even with --force (that match could not be resumed without it); give another --json",
            out.display()
        )));
    }
    Ok(())
}

/// A match ready to open: the plan, the sides, the rules and the book (in its file's order).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The plan.
    pub plan: MatchPlan,
    /// Side A's margin set (and engine).
    pub a: Setting,
    /// Side B's.
    pub b: Setting,
    /// The games' rules, their number, the games at once and the SPRT.
    pub config: MatchConfig,
    /// The openings as the book lists them.
    pub book: Vec<Chess>,
}

impl Prepared {
    /// Opens the match: its settings taken (what a resume must share), the book shuffled by
    /// the seed, and the PGN record opened (new, or resumed from its whole pairs) before the
    /// first game, so a bad file fails at once.
    ///
    /// # Errors
    /// The record cannot be started or resumed.
    pub fn open(&self) -> Result<Session, SessionError> {
        let plan = &self.plan;
        let asked = session::Asked {
            a: &plan.a.margins,
            b: &plan.b.margins,
            seed: plan.seed,
            hash_mb: plan.hash_mb,
        };
        let settings = session::settings(&asked, (&self.a, &self.b), &self.book, &self.config);
        let mut positions = self.book.clone();
        openings::shuffle(&mut positions, plan.seed);
        let record = plan.pgn.as_ref().map(|path| session::RecordPlan {
            path: path.clone(),
            resume: plan.resume,
            settings,
        });
        Session::open(
            side("A", &plan.a.margins, self.a.clone()),
            side("B", &plan.b.margins, self.b.clone()),
            plan.hash_mb,
            self.config,
            positions,
            record.as_ref(),
        )
    }

    /// The match's first line: the sides, the games, the limit, the book and where the games
    /// run (`batch`: on a cluster in batches of that many pairs).
    pub fn header(&self, total_pairs: usize, batch: Option<usize>) -> String {
        let at_once = match batch {
            Some(batch) => format!("on Slurm in batches of {batch} pairs"),
            None => format!("{} at once", self.config.concurrency),
        };
        let plan = &self.plan;
        format!(
            "marginal match: A {} vs B {}, up to {} games at {}, {} openings from {} (seed {}), {at_once}",
            labelled(&plan.a.margins, &self.a),
            labelled(&plan.b.margins, &self.b),
            total_pairs * 2,
            self.config.game.limit.per_move(),
            self.book.len(),
            plan.openings.display(),
            plan.seed
        )
    }

    /// What the PGN record held when the match opened it: a pair cut off its end, and
    /// (resuming) the pairs that count.
    pub fn resumed_lines(&self, resumed: Resumed, total: usize) -> Vec<String> {
        let Some(path) = &self.plan.pgn else {
            return Vec::new();
        };
        let (resume, stream) = (self.plan.resume, crate::formats::is_stream(path));
        let path = path.display();
        let mut lines = Vec::new();
        if let Some((bytes, games)) = resumed.dropped {
            let whole = if games > 0 {
                ", a first game without its partner among them"
            } else {
                ""
            };
            lines.push(format!(
                "resume: dropped the unfinished pair at the end of {path} ({bytes} bytes{whole})"
            ));
        }
        let (pairs, games) = (resumed.pairs, 2 * resumed.pairs);
        if resume && stream {
            lines.push(format!(
                "resume: {path} is a device or pipe, written to and never read: no pair counts, the match starts from pair 1"
            ));
        } else if resume && pairs >= total {
            lines.push(format!(
                "resume: {pairs} whole pairs ({games} games) in {path} count: the match is complete, no pair is left to play"
            ));
        } else if resume {
            lines.push(format!(
                "resume: {pairs} whole pairs ({games} games) in {path} count; play goes on from pair {}",
                pairs + 1
            ));
        }
        lines
    }

    /// The JSON report of a played match.
    pub fn report(&self, result: &MatchResult) -> MatchReport {
        let plan = &self.plan;
        MatchReport::new(result, &self.config, &plan.a.margins, &plan.b.margins)
    }

    /// The result in lines, as the match command says it ([`super::summary::summary`]).
    pub fn summary(&self, result: &MatchResult) -> Vec<Said> {
        let plan = &self.plan;
        let mut said =
            super::summary::summary(result, self.config.sprt.as_ref(), plan.pgn.as_deref());
        said.extend(super::summary::time_trouble(
            result,
            &self.config.game.limit,
            [plan.a.engine.as_deref(), plan.b.engine.as_deref()],
        ));
        said
    }

    /// What a played match comes to ([`Verdict::of`]).
    pub fn verdict(&self, result: &MatchResult) -> Verdict {
        let plan = &self.plan;
        Verdict::of(
            result,
            self.config.sprt.as_ref(),
            plan.pgn.as_deref(),
            [plan.a.engine.as_deref(), plan.b.engine.as_deref()],
        )
    }
}

/// A side of the match, named by its letter, its engine (when external) and its set.
fn side(letter: &str, spec: &str, setting: Setting) -> session::Side {
    let name = if setting.def().is_builtin() {
        format!("{letter} {spec}")
    } else {
        format!("{letter} {} {spec}", setting.def().name)
    };
    session::Side { name, setting }
}

/// A side as the header names it: its margin set, and its engine when that is not the
/// built-in one (`'default' (Toga II 3.0, engines/toga2.toml)`).
fn labelled(spec: &str, setting: &Setting) -> String {
    let def = setting.def();
    match &def.source {
        None => format!("'{spec}'"),
        Some(source) => format!("'{spec}' ({}, {source})", def.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Margins;

    fn data(path: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
    }

    #[test]
    fn a_plan_round_trips_through_json() {
        let plan = MatchPlan {
            a: SidePlan {
                margins: "tuned/spsa-suite.json".into(),
                engine: Some("engines/toga2.toml".into()),
            },
            tc: Some("10+0.1".into()),
            sprt: Some("0,5,0.05,0.05".into()),
            pgn: Some("games.pgn".into()),
            resume: true,
            ..MatchPlan::new("x", "off")
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<MatchPlan>(&text).unwrap(), plan);
        let unknown = text.replacen('{', "{\"gmaes\": 2,", 1);
        let e = serde_json::from_str::<MatchPlan>(&unknown).unwrap_err();
        assert!(e.to_string().contains("gmaes"), "{e}");
    }

    #[test]
    fn a_default_plan_plays_the_documented_defaults() {
        let plan = MatchPlan::default();
        plan.check().unwrap();
        assert_eq!(plan.limit().unwrap(), MoveLimit::Nodes(DEFAULT_NODES));
        assert_eq!(plan.pairs(), 100);
        let (game, sprt) = plan.rules().unwrap();
        assert_eq!(game.max_plies, DEFAULT_MAX_PLIES);
        assert!(sprt.is_none() && game.resign.is_none() && game.draw.is_none());
        assert_eq!(
            plan.inputs(),
            [("the opening book", Path::new(DEFAULT_BOOK))]
        );
        assert!(plan.concurrency() >= 1);
    }

    #[test]
    fn a_bad_plan_is_refused_naming_the_option_and_value() {
        for (plan, says) in [
            (
                MatchPlan {
                    games: 0,
                    ..MatchPlan::default()
                },
                "--games 0",
            ),
            (
                MatchPlan {
                    nodes: Some(100),
                    depth: Some(4),
                    ..MatchPlan::default()
                },
                "give one of them",
            ),
            (
                MatchPlan {
                    resume: true,
                    ..MatchPlan::default()
                },
                "--pgn",
            ),
            (
                MatchPlan {
                    concurrency: Some(1000),
                    ..MatchPlan::default()
                },
                "--concurrency 1000",
            ),
        ] {
            let e = plan.check().unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        let bad_tc = MatchPlan {
            tc: Some("fast".into()),
            ..MatchPlan::default()
        };
        let e = bad_tc.rules().unwrap_err().to_string();
        assert!(e.contains("fast"), "{e}");
    }

    #[test]
    fn force_without_a_report_is_said_to_do_nothing() {
        let plan = MatchPlan {
            force: true,
            ..MatchPlan::default()
        };
        let mut said = Vec::new();
        plan.check_outputs(&[], &mut said).unwrap();
        let [Said::Warning(w)] = &said[..] else {
            panic!("one warning: {said:?}")
        };
        assert!(
            w.contains("--force does nothing") && w.contains("--json"),
            "{w}"
        );
        // With a PGN: it is never written over, even with --force; the way on is --resume.
        let file = std::env::temp_dir().join(format!("marginal-force-{}.pgn", std::process::id()));
        let pgn = MatchPlan {
            pgn: Some(file),
            ..plan
        };
        let mut said = Vec::new();
        pgn.check_outputs(&[], &mut said).unwrap();
        let [Said::Warning(w)] = &said[..] else {
            panic!("one warning: {said:?}")
        };
        assert!(
            w.contains("never written over") && w.contains("--resume"),
            "{w}"
        );
    }

    #[test]
    fn the_report_is_neither_the_pgn_nor_its_settings_record() {
        let pgn = std::env::temp_dir().join(format!("marginal-plan-{}.pgn", std::process::id()));
        for json in [pgn.clone(), record::record_path(&pgn)] {
            let plan = MatchPlan {
                pgn: Some(pgn.clone()),
                json: Some(json.clone()),
                ..MatchPlan::default()
            };
            let e = plan.check_outputs(&[], &mut Vec::new()).unwrap_err();
            assert!(e.0.contains(&json.display().to_string()), "{e}");
        }
    }

    #[test]
    fn twins_are_said_and_a_short_book_is_refused() {
        let plan = MatchPlan {
            openings: data("data/openings/8mvs_+90_+99_1k.epd"),
            games: 100_000,
            ..MatchPlan::default()
        };
        let mut said = Vec::new();
        let e = plan
            .prepare(
                Margins::default().into(),
                Margins::default().into(),
                &mut said,
            )
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--openings") && e.contains("--games 100000"),
            "{e}"
        );
        assert!(
            matches!(&said[0], Said::Warning(w) if w.contains("same margin set")),
            "{said:?}"
        );
    }
}
