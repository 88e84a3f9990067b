//! A whole match as `marginal match` (and any other front end) plays it: the settings that
//! decide its games, its PGN record (new, or resumed from the whole pairs already in it), the
//! pairs played here or through an executor, each written to the PGN as it is counted, and an
//! interrupt that stops it cleanly.
//!
//! [`Session::open`] checks and opens the record before anything is played, so a bad file fails
//! at once; [`Session::play`] plays the rest and reports each counted pair to a
//! [`Observer`] ([`Event::Pair`], and [`Cluster::Cancelled`] when an executor's batch is
//! interrupted). Nothing here prints.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use super::game::MoveLimit;
use super::matches::{MatchConfig, MatchResult, MatchStats, PairRecord, Stopped};
use super::pgn;
use super::record::{self, MatchSetting, RecordError, Settings, Timekeeper};
use super::remote::run_match_on;
use crate::engine::Setting;
use crate::formats::Fnv;
use crate::progress::{Cluster, Event, Observer};
use crate::scoring::exec::{ExecError, GamesJob, Runner};

/// One side of a match: its name in the PGN and its margin set (and engine).
#[derive(Clone, Debug)]
pub struct Side {
    /// The name the PGN gives it.
    pub name: String,
    /// Its margin set.
    pub setting: Setting,
}

/// What the user asked for, as it decides the games: how each side was given (`--a`, `--b`),
/// the shuffle seed and the hash size.
#[derive(Clone, Debug)]
pub struct Asked<'a> {
    /// Side A as given (a set name, a tuned file, assignments).
    pub a: &'a str,
    /// Side B as given.
    pub b: &'a str,
    /// The seed that shuffled the book.
    pub seed: u64,
    /// Transposition table per engine, megabytes.
    pub hash_mb: usize,
}

/// The per-move limit as the options write it.
pub fn limit_option(limit: MoveLimit) -> String {
    match limit {
        MoveLimit::Nodes(n) => format!("--nodes {n}"),
        MoveLimit::Depth(d) => format!("--depth {d}"),
        MoveLimit::Clock { base, increment } => {
            format!("--tc {}+{}", base.as_secs_f64(), increment.as_secs_f64())
        }
    }
}

/// Everything that decides the games of a match (what a resumed run must share), as canonical
/// text: the sides as asked and their margins, the book (count and FNV-1a of its FENs, before
/// the shuffle), the seed, the games, the rules, the hash, the SPRT, and the engine of a side
/// that is not the built-in one.
pub fn settings(
    asked: &Asked<'_>,
    margins: (&Setting, &Setting),
    book: &[Chess],
    config: &MatchConfig,
) -> Settings {
    let mut hash = Fnv::new();
    for pos in book {
        hash.write(
            Fen::from_position(pos, EnPassantMode::Legal)
                .to_string()
                .as_bytes(),
        );
        hash.write(b"\n");
    }
    let game = &config.game;
    let none = || "none".to_string();
    // The signature that names the engine now, and its former ones (a record made under one of
    // them still resumes: see [`MatchSetting`]).
    let engine = |key: &'static str, setting: &Setting| {
        let def = setting.def();
        let source = def.source.as_deref().unwrap_or("");
        let mut lines = (def.signatures().into_iter())
            .map(|signature| format!("{} ({source}, {signature})", def.name));
        let now = lines.next().unwrap_or_default();
        MatchSetting::new(key, now).or_former(lines)
    };
    let mut listed: Settings = [
        ("--a", asked.a.to_string()),
        ("margins of A", margins.0.to_string()),
        ("--b", asked.b.to_string()),
        ("margins of B", margins.1.to_string()),
        (
            "--openings",
            format!("{} positions, FNV-1a {:016x}", book.len(), hash.finish()),
        ),
        ("--seed", asked.seed.to_string()),
        ("--games", (config.games.div_ceil(2) * 2).to_string()),
        ("per-move limit", limit_option(game.limit)),
        (
            "--resign",
            game.resign
                .map_or_else(none, |r| format!("{}:{}", r.score, r.moves)),
        ),
        (
            "--draw",
            game.draw.map_or_else(none, |d| {
                format!("{}:{}:{}", d.score, d.moves, d.after_move)
            }),
        ),
        ("--max-plies", game.max_plies.to_string()),
        ("--hash", asked.hash_mb.to_string()),
        (
            "--sprt",
            config.sprt.map_or_else(none, |p| {
                format!("{},{},{},{}", p.elo0, p.elo1, p.alpha, p.beta)
            }),
        ),
    ]
    .into_iter()
    .map(|(key, value)| MatchSetting::new(key, value))
    .collect();
    // Only an external engine adds a line, so the records of earlier matches still resume.
    for (key, setting) in [("engine of A", margins.0), ("engine of B", margins.1)] {
        if !setting.def().is_builtin() {
            listed.push(engine(key, setting));
        }
    }
    listed
}

/// Where the PGN record goes, and whether to resume from the pairs already in it.
#[derive(Clone, Debug)]
pub struct RecordPlan {
    /// The PGN file.
    pub path: PathBuf,
    /// Go on from its whole pairs (a missing or empty file starts a new match).
    pub resume: bool,
    /// The settings of this run, kept beside the PGN and checked on resume.
    pub settings: Settings,
}

/// How a resumed record stood when it was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resumed {
    /// Whole pairs read back from the PGN, which count.
    pub pairs: usize,
    /// What was cut off its end: bytes, and whole games among them (the first game of an
    /// unfinished pair).
    pub dropped: Option<(u64, usize)>,
}

/// Why a match could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The record cannot be started or resumed (unusable input).
    #[error("{0}")]
    Record(#[from] RecordError),
    /// A PGN write failed.
    #[error("cannot write the PGN file: {0}")]
    Write(std::io::Error),
    /// The executor failed (a cluster batch).
    #[error(transparent)]
    Exec(ExecError),
}

/// A match with its record opened, ready to play.
pub struct Session {
    a: Side,
    b: Side,
    hash_mb: usize,
    config: MatchConfig,
    openings: Vec<Chess>,
    pgn: Option<File>,
    timekeeper: Option<Timekeeper>,
    earlier: Vec<PairRecord>,
    resumed: Option<Resumed>,
}

impl Session {
    /// Opens a match between `a` and `b` on `openings` (already shuffled), with its PGN
    /// record when `record` is given: a new record refuses a file that holds games; a resumed
    /// one reads back and checks the whole pairs, and cuts an unfinished pair off the end.
    ///
    /// # Errors
    /// The record cannot be written, read or resumed ([`SessionError::Record`]).
    pub fn open(
        a: Side,
        b: Side,
        hash_mb: usize,
        config: MatchConfig,
        openings: Vec<Chess>,
        record: Option<&RecordPlan>,
    ) -> Result<Session, SessionError> {
        let total_pairs = config.games.div_ceil(2) as usize;
        let (pgn, timekeeper, earlier, resumed) = match record {
            None => (None, None, Vec::new(), None),
            Some(plan) => {
                let opened = if plan.resume {
                    record::resume(
                        &plan.path,
                        &plan.settings,
                        (&a.name, &b.name),
                        &openings,
                        total_pairs,
                    )?
                } else {
                    record::start(&plan.path, &plan.settings)?
                };
                let resumed = Resumed {
                    pairs: opened.earlier.len(),
                    dropped: opened.dropped,
                };
                (
                    Some(opened.file),
                    opened.timekeeper,
                    opened.earlier,
                    Some(resumed),
                )
            }
        };
        Ok(Session {
            a,
            b,
            hash_mb,
            config,
            openings,
            pgn,
            timekeeper,
            earlier,
            resumed,
        })
    }

    /// How the record stood when opened: `None` without a record.
    pub fn resumed(&self) -> Option<Resumed> {
        self.resumed
    }

    /// The pairs of the whole match.
    pub fn total_pairs(&self) -> usize {
        self.config.games.div_ceil(2) as usize
    }

    /// Plays the match to its end (all pairs, or an SPRT decision), or until `interrupt` is
    /// raised: then no new pair starts, external engines are killed so the games in flight
    /// stop at once, and the whole pairs counted are summed up (`interrupted` is set). The
    /// pairs are played by `executor` ([`Runner::play`]: streamed on this machine, in batches
    /// on a cluster) and counted in index order either way. Each counted pair goes to the PGN
    /// (both games in one write) and to `observer`; the record notes the time the match has
    /// taken every [`record::NOTE_EVERY`] and at its end, and the result counts the earlier
    /// runs'.
    ///
    /// # Errors
    /// A PGN write failed, or the executor failed for another reason than an interrupt.
    pub fn play(
        mut self,
        executor: &dyn Runner,
        interrupt: &AtomicBool,
        observer: &dyn Observer,
    ) -> Result<MatchResult, SessionError> {
        let (a, b) = (&self.a, &self.b);
        let mut pgn = self.pgn.take();
        let mut timekeeper = self.timekeeper.take();
        let earlier = std::mem::take(&mut self.earlier);
        let total_pairs = self.total_pairs() as u64;
        let date = pgn::today();
        let mut write_error: Option<std::io::Error> = None;
        let mut note_error: Option<RecordError> = None;
        // Why the match gave up on an engine (too many faults in a row): the pairs after it
        // were not played (their games fail at once), so they are neither written nor shown,
        // and the match ends with the reason; a resume goes on from the pairs written.
        let mut gave_up: Option<String> = None;
        let mut on_pair = |pair: &PairRecord, stats: &MatchStats| {
            if gave_up.is_none() {
                gave_up = crate::scoring::exec::gave_up([&a.setting, &b.setting])
                    .err()
                    .map(|e| e.to_string());
            }
            if gave_up.is_some() {
                return;
            }
            if let Some(out) = pgn.as_mut() {
                let round = pair.index + 1;
                let event = "marginal match";
                let text = pgn::format_game(&pair.first, event, &format!("{round}.1"), &date)
                    + &pgn::format_game(&pair.second, event, &format!("{round}.2"), &date);
                // Both games in one write: a pair reaches the file whole, or (killed in the
                // middle) as a tail that a resume drops.
                if write_error.is_none()
                    && let Err(e) = out.write_all(text.as_bytes())
                {
                    write_error = Some(e);
                }
            }
            note_error = note_error
                .take()
                .or_else(|| timekeeper.as_mut()?.tick().err());
            observer.event(&stats.pair_event(total_pairs));
        };
        let (a, b) = (&self.a, &self.b);
        let players = GamesJob {
            a: (a.name.clone(), a.setting.clone()),
            b: (b.name.clone(), b.setting.clone()),
            hash_mb: self.hash_mb,
            game: self.config.game,
            pairs: Vec::new(),
        };
        let played = run_match_on(
            executor,
            &players,
            &self.openings,
            &self.config,
            earlier,
            interrupt,
            &mut on_pair,
        );
        // The time this run took, noted however it ended.
        note_error = note_error.or_else(|| timekeeper.as_mut()?.note().err());
        let earlier_elapsed = timekeeper
            .as_ref()
            .map_or(Duration::ZERO, Timekeeper::earlier);
        let result = match played.map_err(|stopped| *stopped) {
            Ok(result) => Ok(result),
            // Cancelled: the pairs counted so far are summed up as after a local interrupt.
            Err(Stopped {
                error: ExecError::Interrupted(why),
                result,
            }) => {
                observer.event(&Event::Cluster(Cluster::Cancelled { why: &why }));
                Ok(result)
            }
            Err(Stopped { error, .. }) => Err(error),
        };
        if let Some(e) = write_error {
            return Err(SessionError::Write(crate::formats::limit_said(e)));
        }
        if let Some(e) = note_error {
            return Err(SessionError::Record(e));
        }
        if let Some(why) = gave_up {
            return Err(SessionError::Exec(ExecError::GaveUp(why)));
        }
        result
            .map(|result| MatchResult {
                earlier_elapsed,
                ..result
            })
            .map_err(SessionError::Exec)
    }
}
