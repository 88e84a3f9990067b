//! `marginal tune --objective games` and `--confirm`: the command-line side of
//! `marginal::tune::games` (the opening book, the settings, the confirmation match and what
//! goes into the tuned file).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use marginal::engine::Setting;
use marginal::formats::{Fnv, openings, read_bytes};
use marginal::scoring::exec::Runner;
use marginal::scoring::games::game::{GameConfig, MoveLimit};
use marginal::scoring::games::matches::{MatchConfig, MatchReport, MatchStats, PairRecord};
use marginal::scoring::games::session::{self, RecordPlan, Session, SessionError};
use marginal::scoring::games::stats::SprtParams;
use marginal::tune::file::GamesRecord;
use marginal::tune::games::{
    CONFIRM_BOOKS, DEFAULT_BOOK, DEFAULT_PAIRS, GamesProblem, GamesSettings, confirm_summary,
    interleave_openings, log_path,
};
use marginal::tune::space::Space;
use serde::{Deserialize, Serialize};
use shakmaty::Chess;
use std::sync::atomic::AtomicBool;

use super::super::executor::exec_error;
use super::super::match_cmd::parse_sprt;
use super::super::{UserError, progress_bar, threads};
use super::TuneArgs;
use super::solver::SolverKind;

/// What the solver optimises.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectiveKind {
    /// The suite objective on the training positions.
    #[default]
    Suite,
    /// Self-play at fixed nodes: SPSA plays theta+ against theta-.
    Games,
}

impl ObjectiveKind {
    /// For serde's `skip_serializing_if`: the suite objective is not written into the recorded
    /// arguments, so runs that do not use the games objective keep their run ids.
    pub fn is_suite(&self) -> bool {
        *self == ObjectiveKind::Suite
    }

    /// The name in the tuned file's provenance.
    pub fn name(self) -> &'static str {
        match self {
            ObjectiveKind::Suite => "suite",
            ObjectiveKind::Games => "games",
        }
    }
}

/// The default SPRT of `--confirm`.
pub const DEFAULT_CONFIRM_SPRT: &str = "0,5,0.05,0.05";

/// What the games objective and `--confirm` need, checked before anything runs.
pub struct GamesSetup {
    /// The book in file order (when games are played at all).
    book: Vec<Chess>,
    /// Its path and FNV-1a hash of its bytes.
    book_path: PathBuf,
    book_hash: u64,
    /// The books of `--confirm`, each in file order (empty without `--confirm`).
    confirm_books: Vec<(PathBuf, Vec<Chess>)>,
    /// The design of `--confirm`'s SPRT.
    sprt: SprtParams,
}

impl TuneArgs {
    fn pairs(&self) -> u32 {
        self.pairs.unwrap_or(DEFAULT_PAIRS)
    }

    fn race_book_path(&self) -> PathBuf {
        self.race_openings
            .clone()
            .unwrap_or_else(|| PathBuf::from(RACE_BOOK))
    }

    fn book_path(&self) -> PathBuf {
        self.openings
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_BOOK))
    }

    /// The per-move limit of the games: `--nodes` (default 5,000) or `--depth`.
    fn move_limit(&self) -> MoveLimit {
        match self.depth {
            Some(d) => MoveLimit::Depth(d),
            None => MoveLimit::Nodes(self.nodes.unwrap_or(self.default_nodes())),
        }
    }

    /// Whether any games are played (the games objective or `--confirm`).
    pub(super) fn plays_games(&self) -> bool {
        self.objective == ObjectiveKind::Games || self.confirm.is_some()
    }

    /// The books of `--confirm`: as given, or the default three less the games objective's
    /// own book (a confirmation plays books the tune did not).
    fn confirm_book_paths(&self) -> Vec<PathBuf> {
        if !self.confirm_openings.is_empty() {
            return self.confirm_openings.clone();
        }
        let tuned_on = (self.objective == ObjectiveKind::Games).then(|| self.book_path());
        CONFIRM_BOOKS
            .iter()
            .map(PathBuf::from)
            .filter(|p| Some(p) != tuned_on.as_ref())
            .collect()
    }
}

/// Checks the games options and reads the book (when games are played).
///
/// # Errors
/// `--pairs 0`, `--confirm 0`, a bad `--confirm-sprt`, an unreadable or empty book.
pub fn setup(args: &TuneArgs) -> Result<Option<GamesSetup>, UserError> {
    if args.pairs == Some(0) {
        return Err(UserError("--pairs 0: play at least one game pair".into()));
    }
    if args.confirm == Some(0) {
        return Err(UserError("--confirm 0: play at least two games".into()));
    }
    let sprt_text = args.confirm_sprt.as_deref().unwrap_or(DEFAULT_CONFIRM_SPRT);
    let sprt = parse_sprt(sprt_text)
        .map_err(|e| UserError(e.0.replacen("--sprt", "--confirm-sprt", 1)))?;
    if let Some(path) = &args.openings
        && args.objective != ObjectiveKind::Games
    {
        return Err(UserError(format!(
            "--openings {}: the book of --objective games; --confirm plays --confirm-openings",
            path.display()
        )));
    }
    if !args.plays_games() {
        if !args.confirm_openings.is_empty() {
            return Err(UserError(
                "--confirm-openings: only with --confirm GAMES".into(),
            ));
        }
        return Ok(None);
    }
    let confirm_books = confirm_books(args)?;
    let book_path = args.book_path();
    if args.objective != ObjectiveKind::Games {
        return Ok(Some(GamesSetup {
            book: Vec::new(),
            book_path,
            book_hash: 0,
            confirm_books,
            sprt,
        }));
    }
    let book = openings::read(&book_path).map_err(|e| UserError(format!("--openings: {e}")))?;
    for line in &book.skipped {
        eprintln!("{line}");
    }
    super::super::enough_openings(
        "--openings",
        &book_path,
        book.records.len(),
        args.pairs() as usize,
        "an iteration (--pairs)",
        "fewer --pairs",
    )?;
    let bytes = read_bytes(&book_path, "opening book ")
        .map_err(|e| UserError(format!("--openings: {e}")))?;
    let mut h = Fnv::new();
    h.write(&bytes);
    Ok(Some(GamesSetup {
        book: book.records,
        book_path,
        book_hash: h.finish(),
        confirm_books,
        sprt,
    }))
}

/// The books of `--confirm`, each long enough for its share of the pairs (none without it).
fn confirm_books(args: &TuneArgs) -> Result<Vec<(PathBuf, Vec<Chess>)>, UserError> {
    let mut confirm_books = Vec::new();
    if args.confirm.is_some() {
        for path in args.confirm_book_paths() {
            let book =
                openings::read(&path).map_err(|e| UserError(format!("--confirm-openings: {e}")))?;
            for line in &book.skipped {
                eprintln!("{line}");
            }
            confirm_books.push((path, book.records));
        }
        // The confirmation's pairs go to its books in turn, each pair from its own opening.
        let pairs = args.confirm.unwrap_or(0).div_ceil(2) as usize;
        let each = pairs.div_ceil(confirm_books.len().max(1));
        for (path, book) in &confirm_books {
            super::super::enough_openings(
                "--confirm-openings",
                path,
                book.len(),
                each,
                &format!("--confirm {} it plays", args.confirm.unwrap_or(0)),
                "fewer --confirm games",
            )?;
        }
    }
    Ok(confirm_books)
}

/// Prepares the recorded arguments for the run id: `--confirm` and `--confirm-sprt` run after
/// tuning and do not change its result (a rerun with another confirmation resumes the same
/// run), nor do `--pairs` and `--openings` under the suite objective. Returns the hash of the
/// book's bytes under the games objective, which the run id includes.
pub fn for_run_id(recorded: &mut TuneArgs) -> Option<u64> {
    recorded.confirm = None;
    recorded.confirm_sprt = None;
    recorded.confirm_openings.clear();
    if recorded.objective != ObjectiveKind::Games {
        recorded.pairs = None;
        recorded.openings = None;
        if recorded.solver() == SolverKind::Race {
            return file_hash(&recorded.race_book_path());
        }
        return None;
    }
    file_hash(&recorded.book_path())
}

fn file_hash(path: &Path) -> Option<u64> {
    let bytes = read_bytes(path, "").ok()?;
    let mut h = Fnv::new();
    h.write(&bytes);
    Some(h.finish())
}

/// The default book of the race's games: one no confirmation book shares.
pub const RACE_BOOK: &str = "data/openings/8mvs_+90_+99_1k.epd";

/// The games of `--solver race`: one problem per round, each a candidate against the defaults
/// on its own openings of the race book (shuffled with --seed; round r plays the openings
/// after round r - 1's), logged in the checkpoint directory. None when no round is raced.
///
/// # Errors
/// An unreadable book, or one with fewer openings than the rounds' pairs.
pub fn race_problems(
    args: &TuneArgs,
    space: &Space,
    rounds: &[u32],
    dir: &Path,
    executor: Option<std::sync::Arc<dyn Runner>>,
) -> Result<Vec<GamesProblem>> {
    if rounds.is_empty() || args.objective != ObjectiveKind::Suite {
        return Ok(Vec::new());
    }
    let path = args.race_book_path();
    let book = openings::read(&path).map_err(|e| UserError(format!("--race-openings: {e}")))?;
    for line in &book.skipped {
        eprintln!("{line}");
    }
    let mut book = book.records;
    let needed: u64 = rounds.iter().map(|&p| u64::from(p)).sum();
    if (book.len() as u64) < needed {
        return Err(UserError(format!(
            "--race-openings {}: {} openings, fewer than the {needed} pairs of the race (--race-pairs {}): give a larger book or fewer pairs",
            path.display(),
            book.len(),
            rounds.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        ))
        .into());
    }
    openings::shuffle(&mut book, args.seed);
    let mut offset = 0usize;
    let mut problems = Vec::with_capacity(rounds.len());
    for (r, &pairs) in rounds.iter().enumerate() {
        let mut openings = book.clone();
        openings.rotate_left(offset);
        offset += pairs as usize;
        let settings = GamesSettings {
            game: GameConfig {
                limit: args.move_limit(),
                ..GameConfig::default()
            },
            pairs,
            concurrency: threads(args.threads),
            hash_mb: args.scoring.hash,
        };
        let log = dir.join(format!("race-games-{}.jsonl", r + 1));
        let problem = GamesProblem::new(space.clone(), openings, settings, Some(&log))
            .with_context(|| format!("cannot open the race's games log {}", log.display()))?
            .with_executor(executor.clone())
            .with_progress(games_lines());
        problems.push(problem);
    }
    Ok(problems)
}

/// The games objective of a run: the book shuffled with --seed, the games' settings, the log
/// in the checkpoint directory.
pub fn problem(
    args: &TuneArgs,
    setup: &GamesSetup,
    space: &Space,
    dir: &Path,
) -> Result<GamesProblem> {
    let mut book = setup.book.clone();
    openings::shuffle(&mut book, args.seed);
    let settings = GamesSettings {
        game: GameConfig {
            limit: args.move_limit(),
            ..GameConfig::default()
        },
        pairs: args.pairs(),
        concurrency: threads(args.threads),
        hash_mb: args.scoring.hash,
    };
    let what = if args.solver().is_spsa() {
        "theta+ against theta-"
    } else {
        "each candidate against the defaults (on the same openings every time)"
    };
    println!(
        "objective: games, {what} for {} pair(s) ({} games) at {}, {} openings from {} (shuffled, seed {})",
        settings.pairs,
        2 * settings.pairs,
        settings.game.limit.per_move(),
        book.len(),
        setup.book_path.display(),
        args.seed
    );
    super::super::enough_openings(
        "--openings",
        &setup.book_path,
        book.len(),
        settings.pairs as usize,
        "each comparison",
        "fewer --pairs",
    )?;
    let wanted = settings.pairs as usize * args.iterations as usize;
    if args.solver().is_spsa() && book.len() < wanted {
        eprintln!(
            "warning: --openings {}: {} openings for {} iterations x {} pairs = {wanted} pairs: openings repeat (each about {:.1} times), so the comparisons share games' starts",
            setup.book_path.display(),
            book.len(),
            args.iterations,
            settings.pairs,
            wanted as f64 / book.len() as f64
        );
    }
    GamesProblem::new(space.clone(), book, settings, Some(&log_path(dir)))
        .map(|problem| problem.with_progress(games_lines()))
        .with_context(|| format!("cannot open the games log in {}", dir.display()))
}

/// Progress within an evaluation's games (an iteration of a slow engine can take minutes): a
/// plain line at most every 5 seconds, none with --quiet and none for its last pair (the
/// iteration's own line follows).
fn games_lines() -> marginal::tune::games::GamesProgress {
    let start = Instant::now();
    let last = std::sync::Mutex::new(start);
    std::sync::Arc::new(move |played: u64, total: u64| {
        if super::super::quiet() {
            return;
        }
        let Ok(mut last) = last.lock() else {
            return;
        };
        if played >= total {
            // The evaluation's own line comes now: the next line is 5 s after it.
            *last = Instant::now();
        } else if last.elapsed() >= Duration::from_secs(5) {
            *last = Instant::now();
            println!(
                "  games {played}/{total} of this evaluation ({:.0} s)",
                start.elapsed().as_secs_f64()
            );
        }
    })
}

/// What the games objective adds to the tuned file: the log's name and size and every
/// comparison.
pub fn record(problem: &GamesProblem, setup: &GamesSetup) -> GamesRecord {
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

/// `--confirm GAMES`: the tuned set against the defaults with the SPRT, printed in one line;
/// through `executor` (a cluster) in batches of [`ExecutorArgs::batch_pairs`] pairs when there
/// is one (the same games count).
///
/// # Errors
/// The executor could not play the games (exit 2) or was interrupted (exit 130).
///
/// [`ExecutorArgs::batch_pairs`]: super::super::executor::ExecutorArgs::batch_pairs
pub fn run_confirm(
    args: &TuneArgs,
    setup: &GamesSetup,
    tuned: Setting,
    games: u32,
    executor: Option<&dyn Runner>,
) -> Result<MatchReport> {
    let books: Vec<Vec<Chess>> = setup.confirm_books.iter().map(|(_, b)| b.clone()).collect();
    let book = interleave_openings(&books, args.seed);
    let config = MatchConfig {
        game: GameConfig {
            limit: args.move_limit(),
            ..GameConfig::default()
        },
        games: games.max(2),
        concurrency: threads(args.threads),
        sprt: Some(setup.sprt),
    };
    println!(
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
    );
    let bar = progress_bar(
        u64::from(config.games.div_ceil(2) * 2),
        "[{bar:30}] {pos}/{len} confirmation games",
    );
    let baseline = Setting::defaults(tuned.def());
    if executor.is_some() {
        // The cluster reports by job array, not by game.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // The pairs go to a PGN in the checkpoint as they finish, so an interrupted confirmation
    // keeps them and the rerun plays only the rest (the games of a match with --pgn, --resume).
    let plan = args.checkpoint.as_ref().map(|dir| {
        let path = confirm_pgn(dir);
        let asked = session::Asked {
            a: "tuned",
            b: "default",
            seed: args.seed,
            hash_mb: args.scoring.hash,
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
        args.scoring.hash,
        config,
        book,
        plan.as_ref(),
    )
    .map_err(confirm_error)?;
    if let (Some(resumed), Some(plan)) = (session.resumed(), &plan)
        && resumed.pairs > 0
    {
        bar.suspend(|| {
            println!(
                "confirm: resuming from {}: {} of {} pairs played before",
                plan.path.display(),
                resumed.pairs,
                session.total_pairs()
            );
        });
    }
    let played = session.play(
        executor,
        args.executor.batch_pairs(),
        &AtomicBool::new(false),
        &mut |_: &PairRecord, s: &MatchStats| bar.set_position(s.games),
    );
    bar.finish_and_clear();
    let result = played.map_err(confirm_error)?;
    let report = MatchReport::new(&result, &config, "tuned", "baseline");
    println!("confirm: {}", confirm_summary(&report));
    Ok(report)
}

/// Where a tune keeps its confirmation games.
pub fn confirm_pgn(checkpoint: &Path) -> PathBuf {
    checkpoint.join("confirm.pgn")
}

/// The command's error for a confirmation that could not be played.
fn confirm_error(e: SessionError) -> anyhow::Error {
    match e {
        SessionError::Record(e) => UserError(format!("--confirm: {}", e.0)).into(),
        SessionError::Write(e) => {
            anyhow::Error::new(e).context("cannot write the confirmation games")
        }
        SessionError::Exec(e) => exec_error(e),
    }
}
