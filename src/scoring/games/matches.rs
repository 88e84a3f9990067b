//! Self-play matches: game pairs (each opening twice, colours reversed), played in parallel,
//! scored with the pentanomial model and stopped by an SPRT.
//!
//! Determinism: each game starts with fresh players (fresh transposition tables), so a game
//! depends only on its opening, colours, margins and limits. Pairs are counted strictly in
//! index order, and the SPRT is checked after each pair in that order, so the pairs that count
//! (and where the match stops) are the same for any number of threads. Games finished beyond
//! the stopping point are discarded.
//!
//! Interruption and resumption: [`run_match_from`] stops starting pairs when its `interrupt`
//! flag is raised (by a caller's signal handler; the library installs none) and abandons the
//! games in flight; the pairs counted are still a prefix `0..k` in index order. Given those `k`
//! pairs back (e.g. read from the PGN), it goes on from pair `k` and counts exactly what an
//! uninterrupted run counts.
//!
//! Elsewhere: [`run_match_streamed`] counts the same way pairs played by someone else (a
//! runner, on this machine or a cluster: [`super::remote::run_match_on`]), so a match on a
//! cluster counts what it counts here.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use crate::progress::{Count, Event, Score, Work};
use crate::scoring::exec::queue::{Flow, play_in_order};

use super::game::{GameConfig, GameOutcome, GameRecord, Player, Termination, play_game_until};
use super::stats::{
    EloEstimate, EloSummary, GameResult, Pentanomial, SprtDecision, SprtParams, Wdl, finite,
    sprt_decide, sprt_llr,
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
    /// Games lost to an engine fault (crash, hang, illegal move, garbage:
    /// [`Termination::PlayerFailure`]) by A, and by B.
    pub fault_losses: (u64, u64),
    /// Moves A, and B, made past the node budget (an external engine stopped beyond `go
    /// nodes`, its last PV within the budget played).
    pub overshot: (u64, u64),
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
        // A has White in the first game, Black in the second.
        let ([w1, b1], [w2, b2]) = (pair.first.overshot, pair.second.overshot);
        self.overshot.0 += u64::from(w1) + u64::from(b2);
        self.overshot.1 += u64::from(b1) + u64::from(w2);
        // A flag against a bare king is a draw: nobody's time loss.
        for (game, result) in [(&pair.first, first), (&pair.second, second)] {
            let losses = match game.termination {
                Termination::TimeForfeit => &mut self.time_losses,
                Termination::PlayerFailure(_) => &mut self.fault_losses,
                _ => continue,
            };
            match result {
                GameResult::Loss => losses.0 += 1,
                GameResult::Win => losses.1 += 1,
                GameResult::Draw => {}
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

    /// What observers are told after a pair: the pairs counted of `total_pairs`, and the
    /// running score ([`Event::Pair`]).
    pub fn pair_event(&self, total_pairs: u64) -> Event<'static> {
        let e = EloSummary::from(self.estimate());
        Event::Pair {
            count: Count::new(Work::Pairs, self.games / 2, total_pairs),
            score: Score {
                games: self.games,
                score: Some(self.score()).filter(|_| self.games > 0),
                elo: e.elo,
                interval: e.lower.zip(e.upper),
                llr: self.llr,
            },
        }
    }
}

/// A finished match.
#[derive(Debug, Clone)]
pub struct MatchResult {
    /// The counted pairs, in index order.
    pub pairs: Vec<PairRecord>,
    /// Totals.
    pub stats: MatchStats,
    /// Wall-clock time of this run.
    pub elapsed: Duration,
    /// How many of `pairs` were given from an earlier run rather than played now.
    pub earlier: usize,
    /// Wall-clock time of the earlier runs of a resumed match, as its record noted it (zero
    /// for a new match).
    pub earlier_elapsed: Duration,
    /// Whether the interrupt flag stopped the match before its end (all games played, or the
    /// SPRT decided).
    pub interrupted: bool,
}

/// Plays pair `index`: A White then B White, from the same opening.
pub fn play_pair(
    index: usize,
    a: &PlayerFactory<'_>,
    b: &PlayerFactory<'_>,
    openings: &[Chess],
    game: &GameConfig,
) -> PairRecord {
    play_pair_until(index, a, b, openings, game, &|| false).expect("never abandoned")
}

/// Plays pair `index` as [`play_pair`] does, or abandons it (`None`) as soon as `abandon()`
/// says so before a move of either game.
pub fn play_pair_until(
    index: usize,
    a: &PlayerFactory<'_>,
    b: &PlayerFactory<'_>,
    openings: &[Chess],
    game: &GameConfig,
    abandon: &dyn Fn() -> bool,
) -> Option<PairRecord> {
    let opening = &openings[index % openings.len()];
    let (mut pa, mut pb) = (a(), b());
    let first = play_game_until(pa.as_mut(), pb.as_mut(), opening, game, abandon)?;
    let (mut pa, mut pb) = (a(), b());
    let second = play_game_until(pb.as_mut(), pa.as_mut(), opening, game, abandon)?;
    Some(PairRecord {
        index,
        first,
        second,
    })
}

/// Runs a match of A against B over `openings` (already shuffled). `on_pair` sees each counted
/// pair and the totals after it, in index order (for progress and for writing PGN as games
/// finish, so nothing is lost if the run is interrupted).
///
/// # Example
///
/// Two game pairs of the built-in engine's default margins against pruning off, at 300 nodes
/// a move, from two openings:
///
/// ```
/// use marginal::engine::Setting;
/// use marginal::params::Margins;
/// use marginal::scoring::games::game::{EnginePlayer, GameConfig, MoveLimit, Player};
/// use marginal::scoring::games::matches::{MatchConfig, run_match};
/// use shakmaty::{Chess, Position};
///
/// let (a, b): (Setting, Setting) = (Margins::default().into(), Margins::off().into());
/// let after_e4 = {
///     let mut pos = Chess::default();
///     let e4 = pos
///         .legal_moves()
///         .into_iter()
///         .find(|m| m.to().to_string() == "e4")
///         .unwrap();
///     pos.play_unchecked(e4);
///     pos
/// };
/// let openings = [Chess::default(), after_e4];
/// let config = MatchConfig {
///     game: GameConfig {
///         limit: MoveLimit::Nodes(300),
///         max_plies: 120,
///         ..GameConfig::default()
///     },
///     games: 4,
///     concurrency: 2,
///     sprt: None,
/// };
/// let fa = || -> Box<dyn Player> { Box::new(EnginePlayer::new("default", a.clone(), 1)) };
/// let fb = || -> Box<dyn Player> { Box::new(EnginePlayer::new("off", b.clone(), 1)) };
/// let mut seen = Vec::new();
/// let result = run_match(&fa, &fb, &openings, &config, &mut |pair, _| seen.push(pair.index));
///
/// assert_eq!(seen, [0, 1]);
/// assert_eq!(result.pairs.len(), 2);
/// assert_eq!(result.stats.games, 4);
/// assert_eq!(result.stats.wdl.total_games(), 4);
/// assert!(!result.interrupted);
/// // Each pair plays its opening twice, A White then B White.
/// for pair in &result.pairs {
///     assert_eq!(pair.first.white, "default");
///     assert_eq!(pair.second.white, "off");
///     assert_eq!(pair.first.start, openings[pair.index]);
/// }
/// ```
pub fn run_match(
    a: &PlayerFactory<'_>,
    b: &PlayerFactory<'_>,
    openings: &[Chess],
    config: &MatchConfig,
    on_pair: &mut dyn FnMut(&PairRecord, &MatchStats),
) -> MatchResult {
    run_match_from(
        a,
        b,
        openings,
        config,
        Vec::new(),
        &AtomicBool::new(false),
        on_pair,
    )
}

/// Runs a match as [`run_match`] does, going on after `earlier` and stopping early when
/// `interrupt` is raised.
///
/// `earlier` are pairs `0..k` of this same match (same players, openings and config) from an
/// earlier run, in index order: they are counted first, in order, as if just played (`on_pair`
/// does not see them), and play starts at pair `k`. If they already end the match (all pairs,
/// or an SPRT decision), nothing is played.
///
/// `interrupt` is read between moves: once it is raised no pair starts, the games in flight
/// are abandoned, and the result holds the pairs counted so far, a prefix in index order with
/// `interrupted` set (unless the match had already ended). Raise it from a signal handler; the
/// library installs none.
///
/// # Panics
/// If `earlier` is not pairs `0..k` in order, or holds more pairs than the match has.
pub fn run_match_from(
    a: &PlayerFactory<'_>,
    b: &PlayerFactory<'_>,
    openings: &[Chess],
    config: &MatchConfig,
    earlier: Vec<PairRecord>,
    interrupt: &AtomicBool,
    on_pair: &mut dyn FnMut(&PairRecord, &MatchStats),
) -> MatchResult {
    let start = Instant::now();
    let mut tally = Tally::new(config, earlier);
    // The pairs after the earlier ones, unless those already end the match; counted strictly
    // in index order, so that the SPRT sees them in that order at any thread count.
    let to_play: Vec<usize> = if tally.done() {
        Vec::new()
    } else {
        (tally.pairs.len()..tally.total_pairs).collect()
    };
    // What finished beyond the end of the match, or beyond a pair abandoned at an interrupt,
    // is discarded.
    let _beyond = play_in_order(
        &to_play,
        config.concurrency,
        "games",
        interrupt,
        &|&index, abandon| play_pair_until(index, a, b, openings, &config.game, abandon),
        &mut |_, pair| {
            if tally.count(pair, on_pair) {
                Flow::Stop
            } else {
                Flow::Go
            }
        },
    );
    let interrupted = !tally.done() && interrupt.load(Ordering::Relaxed);
    tally.finish(start, interrupted)
}

/// A match stopped by the `play` of [`run_match_streamed`] failing: its error, and the match
/// as counted until then (a prefix of whole pairs in index order, `interrupted` set).
#[derive(Debug)]
pub struct Stopped<E> {
    /// What `play` returned.
    pub error: E,
    /// The pairs counted before the failure.
    pub result: MatchResult,
}

/// Plays a range of pairs, giving each to the taker in index order until it says stop.
pub type StreamPairs<'a, E> =
    dyn FnMut(Range<usize>, &mut dyn FnMut(PairRecord) -> Flow) -> Result<(), E> + 'a;

/// Runs a match as [`run_match_from`] does, its pairs played by someone else as a stream:
/// `play(range, take)` plays pairs `range` (pair `i` from the match's openings, A with White
/// first) and gives each to `take` in index order, until `take` says [`Flow::Stop`] (the pairs
/// beyond are discarded) or `interrupt` is raised. The pairs counted, the totals and where the
/// match stops are those of [`run_match_from`] (see [`super::remote::run_match_on`], which
/// plays them through a runner).
///
/// # Errors
/// `play` failed: its error with the match counted so far ([`Stopped`], `interrupted` set).
///
/// # Panics
/// As [`run_match_from`].
pub fn run_match_streamed<E>(
    config: &MatchConfig,
    earlier: Vec<PairRecord>,
    interrupt: &AtomicBool,
    play: &mut StreamPairs<'_, E>,
    on_pair: &mut dyn FnMut(&PairRecord, &MatchStats),
) -> Result<MatchResult, Box<Stopped<E>>> {
    let start = Instant::now();
    let mut tally = Tally::new(config, earlier);
    let to_play = if tally.done() {
        0..0
    } else {
        tally.pairs.len()..tally.total_pairs
    };
    let played = play(to_play, &mut |pair| {
        if tally.count(pair, on_pair) {
            Flow::Stop
        } else {
            Flow::Go
        }
    });
    if let Err(error) = played {
        let result = tally.finish(start, true);
        return Err(Box::new(Stopped { error, result }));
    }
    let interrupted = !tally.done() && interrupt.load(Ordering::Relaxed);
    Ok(tally.finish(start, interrupted))
}

/// The counting of a match, shared by the ways of playing it: the pairs counted (a prefix in
/// index order), the totals after them, and whether the match has ended (all pairs counted,
/// or the SPRT decided).
struct Tally<'c> {
    config: &'c MatchConfig,
    total_pairs: usize,
    earlier: usize,
    pairs: Vec<PairRecord>,
    stats: MatchStats,
}

impl<'c> Tally<'c> {
    /// The match of `config` with `earlier` (pairs `0..k`) counted.
    fn new(config: &'c MatchConfig, earlier: Vec<PairRecord>) -> Tally<'c> {
        let total_pairs = (config.games as usize).div_ceil(2).max(1);
        assert!(
            earlier.len() <= total_pairs && earlier.iter().enumerate().all(|(i, p)| p.index == i),
            "earlier pairs must be pairs 0..k of the match, in order"
        );
        let mut stats = MatchStats::default();
        for pair in &earlier {
            stats.add(pair, config.sprt.as_ref());
        }
        Tally {
            config,
            total_pairs,
            earlier: earlier.len(),
            pairs: earlier,
            stats,
        }
    }

    /// Whether the match has ended.
    fn done(&self) -> bool {
        self.pairs.len() >= self.total_pairs
            || matches!(
                self.stats.decision,
                Some(SprtDecision::AcceptH0 | SprtDecision::AcceptH1)
            )
    }

    /// Counts `pair`, the next one in index order, shows it to `on_pair`, and says whether
    /// the match has ended.
    fn count(
        &mut self,
        pair: PairRecord,
        on_pair: &mut dyn FnMut(&PairRecord, &MatchStats),
    ) -> bool {
        debug_assert_eq!(pair.index, self.pairs.len());
        self.stats.add(&pair, self.config.sprt.as_ref());
        on_pair(&pair, &self.stats);
        self.pairs.push(pair);
        self.done()
    }

    fn finish(self, start: Instant, interrupted: bool) -> MatchResult {
        MatchResult {
            pairs: self.pairs,
            stats: self.stats,
            elapsed: start.elapsed(),
            earlier: self.earlier,
            earlier_elapsed: Duration::ZERO,
            interrupted,
        }
    }
}

/// The `format` tag of a [`MatchReport`]; bumped when a field changes meaning or goes away.
pub const MATCH_REPORT_FORMAT: &str = "marginal-match/1";

/// The whole result of a match, for machines (`marginal match --json`, `tune --confirm`,
/// `check`): counts, pentanomial, Elo and normalized Elo with their 95% intervals, LOS, the
/// SPRT when one ran, time losses, and every counted game. Everything is from engine A's
/// point of view.
///
/// It serializes to JSON and reads back into the same value (bit for bit with serde_json's
/// `float_roundtrip` feature; without it serde_json's faster float parser may be one unit in
/// the last place off). Every statistic that can be undefined is an `Option`, `None` (`null`
/// in JSON) exactly when it is not defined (see [`EloSummary`]): Elo when A scored 0% or 100%
/// (`±∞`), an interval end that reaches a 0% or 100% score, and the intervals, nElo and LOS
/// while every pair scored the same (after one pair, say), when they are conventions rather
/// than estimates. Use [`MatchReport::estimate`] for the exact values with their infinities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    /// Always [`MATCH_REPORT_FORMAT`].
    pub format: String,
    /// Engine A's name (as the caller gave it, e.g. its margin-set spec).
    pub a: String,
    /// Engine B's name.
    pub b: String,
    /// How the match was run (limits, adjudication, most games, concurrency, SPRT design).
    pub config: MatchConfig,
    /// Games counted (two per pair).
    pub games: u64,
    /// Game pairs counted.
    pub pairs: u64,
    /// A's wins, draws and losses.
    pub wdl: Wdl,
    /// A's score per game, 0..1 (`None`: no game was counted).
    pub score: Option<f64>,
    /// Pentanomial pair counts (LL, LD, WL+DD, WD, WW from A's side).
    pub pentanomial: Pentanomial,
    /// Elo and normalized Elo with their 95% intervals, and LOS, from the pentanomial counts
    /// (`null` where infinite).
    pub elo: EloSummary,
    /// The SPRT, when one ran.
    pub sprt: Option<SprtReport>,
    /// Games lost on time.
    pub time_losses: Losses,
    /// Games lost to an engine fault (crash, hang, illegal move, garbage); each game's reason
    /// is its `termination`. Absent (in reports written before it) reads as none.
    #[serde(default)]
    pub fault_losses: Losses,
    /// Moves made past the node budget by each side's engine (it does not stop at `go nodes`
    /// exactly: marginal stopped it and played its last PV within the budget). Absent (in
    /// reports written before it) reads as none.
    #[serde(default)]
    pub overshot_moves: Losses,
    /// Wall-clock time of the match, seconds: every run of a resumed match counted, as its
    /// PGN's settings record noted it (a match resumed from a record written before marginal
    /// kept that time counts the last run only).
    pub elapsed_seconds: f64,
    /// Every counted game in play order: pair by pair, A with White first.
    pub game_results: Vec<GameEntry>,
    /// Whether the match was interrupted before its end (the counts are those of the whole
    /// pairs played until then). Written only when true; absent reads as false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// The SPRT part of a [`MatchReport`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    /// The design: `elo0`, `elo1` (normalized Elo), `alpha`, `beta`.
    pub params: SprtParams,
    /// Log-likelihood ratio after the last counted pair (`null` if not finite, which a valid
    /// design never gives).
    pub llr: Option<f64>,
    /// Lower LLR bound, `ln(beta/(1-alpha))`: H0 is accepted at or below it.
    pub lower: Option<f64>,
    /// Upper LLR bound, `ln((1-beta)/alpha)`: H1 is accepted at or above it.
    pub upper: Option<f64>,
    /// The decision after the last counted pair.
    pub decision: SprtDecision,
}

/// Games each engine lost one way (on time: a flag against a bare king is a draw, nobody's
/// loss; or to an engine fault).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Losses {
    /// Games A lost that way.
    pub a: u64,
    /// Games B lost that way.
    pub b: u64,
}

impl From<(u64, u64)> for Losses {
    fn from((a, b): (u64, u64)) -> Losses {
        Losses { a, b }
    }
}

/// One counted game of a [`MatchReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameEntry {
    /// Pair index (0-based, as in [`PairRecord::index`]).
    pub pair: usize,
    /// Game within the pair: 1 (A with White) or 2 (A with Black), as in the PGN round `N.1`,
    /// `N.2` (with `N` = pair + 1).
    pub game: u8,
    /// The opening position, FEN.
    pub opening: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Whether A had White.
    pub a_white: bool,
    /// The result as PGN writes it: `1-0`, `0-1` or `1/2-1/2`.
    #[serde(with = "pgn_result")]
    pub result: GameOutcome,
    /// The result for A.
    pub a_result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Plies played from the opening.
    pub plies: usize,
}

impl GameEntry {
    /// The entry for game `game` (1 or 2) of pair `pair`.
    pub fn new(pair: usize, game: u8, record: &GameRecord, a_white: bool) -> GameEntry {
        GameEntry {
            pair,
            game,
            opening: Fen::from_position(&record.start, EnPassantMode::Legal).to_string(),
            white: record.white.clone(),
            black: record.black.clone(),
            a_white,
            result: record.outcome,
            a_result: result_for_a(record, a_white),
            termination: record.termination.clone(),
            plies: record.moves.len(),
        }
    }
}

/// [`GameOutcome`] as its PGN result string.
mod pgn_result {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::GameOutcome;

    pub fn serialize<S: Serializer>(outcome: &GameOutcome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(outcome.pgn())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<GameOutcome, D::Error> {
        let text = String::deserialize(d)?;
        GameOutcome::from_pgn(&text)
            .ok_or_else(|| D::Error::custom(format!("unknown result '{text}'")))
    }
}

impl MatchReport {
    /// The report of `result`, a match run with `config` between engines named `a` and `b`.
    /// The counts are those of `result.stats`; the SPRT part is present when `config.sprt` is.
    pub fn new(result: &MatchResult, config: &MatchConfig, a: &str, b: &str) -> MatchReport {
        let s = &result.stats;
        let sprt = config.sprt.map(|params| {
            let llr = s.llr.unwrap_or_else(|| sprt_llr(&s.pentanomial, &params));
            let (lower, upper) = params.bounds();
            SprtReport {
                params,
                llr: finite(llr),
                lower: finite(lower),
                upper: finite(upper),
                decision: s.decision.unwrap_or_else(|| sprt_decide(llr, &params)),
            }
        });
        let game_results = result
            .pairs
            .iter()
            .flat_map(|p| {
                [
                    GameEntry::new(p.index, 1, &p.first, true),
                    GameEntry::new(p.index, 2, &p.second, false),
                ]
            })
            .collect();
        MatchReport {
            format: MATCH_REPORT_FORMAT.to_string(),
            a: a.to_string(),
            b: b.to_string(),
            config: *config,
            games: s.games,
            pairs: s.pentanomial.total_pairs(),
            wdl: s.wdl,
            score: Some(s.score()).filter(|_| s.games > 0),
            pentanomial: s.pentanomial,
            elo: s.estimate().into(),
            sprt,
            time_losses: s.time_losses.into(),
            fault_losses: s.fault_losses.into(),
            overshot_moves: s.overshot.into(),
            elapsed_seconds: (result.earlier_elapsed + result.elapsed).as_secs_f64(),
            game_results,
            interrupted: result.interrupted,
        }
    }

    /// Elo, normalized Elo, their intervals and LOS with their exact values (infinities
    /// included), recomputed from the pentanomial counts.
    pub fn estimate(&self) -> EloEstimate {
        self.pentanomial.estimate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(outcome: GameOutcome, termination: Termination) -> GameRecord {
        GameRecord {
            start: Chess::default(),
            white: "w".into(),
            black: "b".into(),
            moves: Vec::new(),
            outcome,
            termination,
            overshot: [0, 0],
        }
    }

    #[test]
    fn moves_past_the_node_budget_count_for_the_side_that_made_them() {
        let past = |white, black| GameRecord {
            overshot: [white, black],
            ..game(GameOutcome::Draw, Termination::FiftyMoves)
        };
        let mut stats = MatchStats::default();
        // A is White in the first game (3 of its moves past the budget, B's 1), Black in the
        // second (A's 5, B's 0).
        stats.add(
            &PairRecord {
                index: 0,
                first: past(3, 1),
                second: past(0, 5),
            },
            None,
        );
        assert_eq!(stats.overshot, (8, 1));
        let result = MatchResult {
            pairs: Vec::new(),
            stats,
            elapsed: Duration::ZERO,
            earlier: 0,
            earlier_elapsed: Duration::ZERO,
            interrupted: false,
        };
        let config = MatchConfig {
            game: GameConfig::default(),
            games: 2,
            concurrency: 1,
            sprt: None,
        };
        let report = MatchReport::new(&result, &config, "a", "b");
        assert_eq!(report.overshot_moves, Losses { a: 8, b: 1 });
        // Reports written before the count read as none.
        let mut old = serde_json::to_value(&report).unwrap();
        old.as_object_mut().unwrap().remove("overshot_moves");
        let read: MatchReport = serde_json::from_value(old).unwrap();
        assert_eq!(read.overshot_moves, Losses::default());
    }

    #[test]
    fn faults_and_flags_count_against_the_side_that_lost() {
        let crash = || Termination::PlayerFailure("engine crashed (exit status: 3)".into());
        let mut stats = MatchStats::default();
        // A (White) crashes; then A (Black) wins as B (White) crashes.
        stats.add(
            &PairRecord {
                index: 0,
                first: game(GameOutcome::BlackWins, crash()),
                second: game(GameOutcome::BlackWins, crash()),
            },
            None,
        );
        // A flags with White; B flags against A's bare king with White (a draw).
        stats.add(
            &PairRecord {
                index: 1,
                first: game(GameOutcome::BlackWins, Termination::TimeForfeit),
                second: game(GameOutcome::Draw, Termination::TimeForfeit),
            },
            None,
        );
        assert_eq!(stats.fault_losses, (1, 1));
        assert_eq!(stats.time_losses, (1, 0));
        let result = MatchResult {
            pairs: Vec::new(),
            stats,
            elapsed: Duration::ZERO,
            earlier: 0,
            earlier_elapsed: Duration::ZERO,
            interrupted: false,
        };
        let config = MatchConfig {
            game: GameConfig::default(),
            games: 4,
            concurrency: 1,
            sprt: None,
        };
        let report = MatchReport::new(&result, &config, "a", "b");
        assert_eq!(report.fault_losses, Losses { a: 1, b: 1 });
        let mut old = serde_json::to_value(&report).unwrap();
        old.as_object_mut().unwrap().remove("fault_losses");
        let read: MatchReport = serde_json::from_value(old).unwrap();
        assert_eq!(read.fault_losses, Losses::default());
    }
}
