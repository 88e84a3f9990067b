//! Self-play matches: game pairs (each opening twice, colours reversed), played in parallel,
//! scored with the pentanomial model and stopped by an SPRT.
//!
//! Determinism: each game starts with fresh players (fresh transposition tables), so a game
//! depends only on its opening, colours, margins and limits. Pairs are counted strictly in
//! index order, and the SPRT is checked after each pair in that order, so the pairs that count
//! (and where the match stops) are the same for any number of threads. Games finished beyond
//! the stopping point are discarded.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use super::game::{GameConfig, GameOutcome, GameRecord, Player, Termination, play_game};
use super::stats::{
    EloEstimate, GameResult, Pentanomial, SprtDecision, SprtParams, Wdl, sprt_decide, sprt_llr,
};

/// Builds a fresh player for one game (so each game has its own transposition table).
pub type PlayerFactory<'a> = dyn Fn() -> Box<dyn Player> + Sync + 'a;

/// How a match is run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// How each game is played.
    pub game: GameConfig,
    /// Most games to play (rounded up to whole pairs).
    pub games: u32,
    /// Games played at once.
    pub concurrency: usize,
    /// Stop early when the SPRT accepts a hypothesis.
    pub sprt: Option<SprtParams>,
}

/// One finished game pair, from engine A's point of view.
#[derive(Debug, Clone)]
pub struct PairRecord {
    /// Pair index (0-based); the opening is `openings[index % len]`.
    pub index: usize,
    /// A with White.
    pub first: GameRecord,
    /// A with Black, same opening.
    pub second: GameRecord,
}

/// Result of game `g` for the player who had `a_is_white`.
pub fn result_for_a(game: &GameRecord, a_is_white: bool) -> GameResult {
    match (game.outcome, a_is_white) {
        (GameOutcome::Draw, _) => GameResult::Draw,
        (GameOutcome::WhiteWins, true) | (GameOutcome::BlackWins, false) => GameResult::Win,
        _ => GameResult::Loss,
    }
}

/// Running totals of a match, from A's point of view.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MatchStats {
    /// Games counted.
    pub games: u64,
    /// Wins, draws, losses.
    pub wdl: Wdl,
    /// Pentanomial pair counts.
    pub pentanomial: Pentanomial,
    /// Games lost on time by A, and by B.
    pub time_losses: (u64, u64),
    /// Log-likelihood ratio of the SPRT (when one runs).
    pub llr: Option<f64>,
    /// The SPRT's decision (when one runs).
    pub decision: Option<SprtDecision>,
}

impl MatchStats {
    /// Adds a pair.
    pub fn add(&mut self, pair: &PairRecord, sprt: Option<&SprtParams>) {
        let first = result_for_a(&pair.first, true);
        let second = result_for_a(&pair.second, false);
        self.wdl.add_game(first);
        self.wdl.add_game(second);
        self.pentanomial.add_pair(first, second);
        self.games += 2;
        // A flag against a bare king is a draw: nobody's time loss.
        for (game, result) in [(&pair.first, first), (&pair.second, second)] {
            if game.termination == Termination::TimeForfeit {
                match result {
                    GameResult::Loss => self.time_losses.0 += 1,
                    GameResult::Win => self.time_losses.1 += 1,
                    GameResult::Draw => {}
                }
            }
        }
        if let Some(params) = sprt {
            let llr = sprt_llr(&self.pentanomial, params);
            self.llr = Some(llr);
            self.decision = Some(sprt_decide(llr, params));
        }
    }

    /// Elo, normalized Elo, their 95% intervals and LOS, from the pentanomial counts.
    pub fn estimate(&self) -> EloEstimate {
        self.pentanomial.estimate()
    }

    /// A's score, 0..1.
    pub fn score(&self) -> f64 {
        let total = self.wdl.total_games().max(1) as f64;
        (self.wdl.wins as f64 + 0.5 * self.wdl.draws as f64) / total
    }
}

/// A finished match.
pub struct MatchResult {
    /// The counted pairs, in index order.
    pub pairs: Vec<PairRecord>,
    /// Totals.
    pub stats: MatchStats,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// Plays pair `index`: A White then B White, from the same opening.
pub fn play_pair(
    index: usize,
    a: &PlayerFactory<'_>,
    b: &PlayerFactory<'_>,
    openings: &[Chess],
    game: &GameConfig,
) -> PairRecord {
    let opening = &openings[index % openings.len()];
    let (mut pa, mut pb) = (a(), b());
    let first = play_game(pa.as_mut(), pb.as_mut(), opening, game);
    let (mut pa, mut pb) = (a(), b());
    let second = play_game(pb.as_mut(), pa.as_mut(), opening, game);
    PairRecord {
        index,
        first,
        second,
    }
}

/// Runs a match of A against B over `openings` (already shuffled). `on_pair` sees each counted
/// pair and the totals after it, in index order (for progress and for writing PGN as games
/// finish, so nothing is lost if the run is interrupted).
pub fn run_match(
    a: &PlayerFactory<'_>,
    b: &PlayerFactory<'_>,
    openings: &[Chess],
    config: &MatchConfig,
    on_pair: &mut dyn FnMut(&PairRecord, &MatchStats),
) -> MatchResult {
    let start = Instant::now();
    let total_pairs = (config.games as usize).div_ceil(2).max(1);
    let workers = config.concurrency.clamp(1, total_pairs);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<PairRecord>();
    let mut stats = MatchStats::default();
    let mut pairs = Vec::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("cannot start match worker threads");

    std::thread::scope(|scope| {
        let worker_tx = tx.clone();
        let (next, stop) = (&next, &stop);
        let pool = &pool;
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let tx = worker_tx.clone();
                    s.spawn(move |_| {
                        loop {
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            if index >= total_pairs {
                                break;
                            }
                            let pair = play_pair(index, a, b, openings, &config.game);
                            if tx.send(pair).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
        });
        drop(tx);

        // Count pairs strictly in index order.
        let mut pending: BTreeMap<usize, PairRecord> = BTreeMap::new();
        let mut expected = 0usize;
        let mut done = false;
        for pair in rx {
            if done {
                continue; // beyond the stopping point: discarded
            }
            pending.insert(pair.index, pair);
            while let Some(pair) = pending.remove(&expected) {
                stats.add(&pair, config.sprt.as_ref());
                on_pair(&pair, &stats);
                pairs.push(pair);
                expected += 1;
                let decided = matches!(
                    stats.decision,
                    Some(SprtDecision::AcceptH0 | SprtDecision::AcceptH1)
                );
                if decided || expected >= total_pairs {
                    done = true;
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
    });

    MatchResult {
        pairs,
        stats,
        elapsed: start.elapsed(),
    }
}
