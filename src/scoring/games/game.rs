//! One game between two players: the rules (mate, stalemate, threefold repetition, fifty
//! moves, insufficient material), optional adjudication, a ply cap, and real clocks.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position};

use crate::engine::score::MATE_BOUND;
use crate::engine::{Board, Limits, Setting, Worker};

/// A move chosen by a player.
#[derive(Debug, Clone, Copy)]
pub struct PlayerMove {
    /// The move (checked for legality by the game).
    pub mv: Move,
    /// The player's own score of the position, side to move's view, eval units (if it has one).
    pub score: Option<i32>,
    /// An external engine went past its node budget and was stopped: the move is its last PV
    /// within the budget.
    pub overshot: bool,
}

/// Why a player could not move.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlayerError(pub String);

/// What a player is asked to move in: the game so far and the limit.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The game's start position.
    pub start: &'a Chess,
    /// The moves played from it.
    pub moves: &'a [Move],
    /// The position they reach, which has legal moves.
    pub position: &'a Chess,
    /// The Zobrist keys of the game's earlier positions (oldest first), for repetitions.
    pub history: &'a [u64],
    /// The limit of this move.
    pub limits: &'a Limits,
}

/// Anything that can play: marginal's own engine or an external UCI engine, each with a
/// margin set ([`EnginePlayer`]), or a test's scripted player. The match code sees only this
/// trait.
pub trait Player: Send {
    /// The name written into PGN headers.
    fn name(&self) -> &str;
    /// Called before each game (clears learnt state).
    fn new_game(&mut self);
    /// Chooses a move.
    ///
    /// # Errors
    /// The player cannot move (an external engine's fault): the game is lost by it, with the
    /// reason.
    fn choose(&mut self, turn: &Turn<'_>) -> Result<PlayerMove, PlayerError>;
}

/// An engine playing with a margin set: marginal's own search with its own transposition
/// table, or an external engine's process (restarted after a fault).
pub struct EnginePlayer {
    name: String,
    worker: Worker,
    /// A fault of `new_game`, reported by the next move.
    pending: Option<String>,
}

impl EnginePlayer {
    /// A player named `name` searching with `setting` and a `hash_mb` table.
    pub fn new(
        name: impl Into<String>,
        setting: impl Into<Setting>,
        hash_mb: usize,
    ) -> EnginePlayer {
        EnginePlayer {
            name: name.into(),
            worker: Worker::new(&setting.into(), hash_mb),
            pending: None,
        }
    }

    /// The same player, whose built-in search stops at once when `flag` is set (see
    /// [`Worker::set_stop_flag`]).
    pub fn stopped_by(mut self, flag: Arc<AtomicBool>) -> EnginePlayer {
        self.worker.set_stop_flag(Some(flag));
        self
    }
}

impl Player for EnginePlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) {
        self.pending = self.worker.new_game().err().map(|f| f.to_string());
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<PlayerMove, PlayerError> {
        if let Some(fault) = self.pending.take() {
            return Err(PlayerError(fault));
        }
        let r = self
            .worker
            .search(
                turn.start,
                turn.moves,
                turn.history,
                turn.position,
                turn.limits,
            )
            .map_err(|f| PlayerError(f.to_string()))?;
        let mv = r
            .best_move
            .ok_or_else(|| PlayerError("no move in a position with legal moves".into()))?;
        Ok(PlayerMove {
            mv,
            score: r.score,
            overshot: r.overshot,
        })
    }
}

/// The per-move limit of a game.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveLimit {
    /// Fixed nodes per move (deterministic).
    Nodes(u64),
    /// Fixed depth per move (deterministic).
    Depth(u32),
    /// A real clock: `base` for the game plus `increment` per move; running out loses.
    Clock {
        /// Time for the whole game.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
}

impl MoveLimit {
    /// As a match header says it: `5000 nodes/move`, `depth 8/move`, or for a clock, which
    /// is a game's and not a move's, `a clock of 10+0.1 s (base+increment)`.
    pub fn per_move(&self) -> String {
        match self {
            MoveLimit::Clock { .. } => format!("a clock of {self} (base+increment)"),
            _ => format!("{self}/move"),
        }
    }
}

/// In words: `5000 nodes`, `depth 8`, `10+0.1 s`.
impl std::fmt::Display for MoveLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveLimit::Nodes(n) => write!(f, "{n} nodes"),
            MoveLimit::Depth(d) => write!(f, "depth {d}"),
            MoveLimit::Clock { base, increment } => {
                write!(f, "{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

/// Resign adjudication: both players see the score beyond `score` (one side winning) for
/// `moves` consecutive moves each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignRule {
    /// Threshold, eval units.
    pub score: i32,
    /// Consecutive moves of each side.
    pub moves: u32,
}

/// Draw adjudication: from move `after_move` on, both players' scores stay within
/// `+-score` for `moves` consecutive moves each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    /// Threshold, eval units.
    pub score: i32,
    /// Consecutive moves of each side.
    pub moves: u32,
    /// First full-move number at which the rule applies.
    pub after_move: u32,
}

/// How a game is played.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GameConfig {
    /// Per-move limit.
    pub limit: MoveLimit,
    /// Optional resign adjudication.
    pub resign: Option<ResignRule>,
    /// Optional draw adjudication.
    pub draw: Option<DrawRule>,
    /// Plies after which the game is a draw.
    pub max_plies: u32,
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            limit: MoveLimit::Nodes(5_000),
            resign: None,
            draw: None,
            max_plies: 400,
        }
    }
}

/// Result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameOutcome {
    /// 1-0.
    WhiteWins,
    /// 0-1.
    BlackWins,
    /// 1/2-1/2.
    Draw,
}

impl GameOutcome {
    /// The PGN result string.
    pub fn pgn(self) -> &'static str {
        match self {
            GameOutcome::WhiteWins => "1-0",
            GameOutcome::BlackWins => "0-1",
            GameOutcome::Draw => "1/2-1/2",
        }
    }

    /// The outcome a PGN result string stands for (`1-0`, `0-1`, `1/2-1/2`), if it is one.
    pub fn from_pgn(text: &str) -> Option<GameOutcome> {
        [
            GameOutcome::WhiteWins,
            GameOutcome::BlackWins,
            GameOutcome::Draw,
        ]
        .into_iter()
        .find(|o| o.pgn() == text)
    }

    fn win_for(color: Color) -> GameOutcome {
        match color {
            Color::White => GameOutcome::WhiteWins,
            Color::Black => GameOutcome::BlackWins,
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Termination {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The same position occurred three times.
    ThreefoldRepetition,
    /// Fifty moves by each side without a capture or pawn move.
    FiftyMoves,
    /// Neither side can mate.
    InsufficientMaterial,
    /// Adjudicated as a win: both players agreed the score was decisive.
    ResignAdjudication,
    /// Adjudicated as a draw: both players agreed the score was near zero.
    DrawAdjudication,
    /// The ply cap was reached.
    PlyCap,
    /// A player's clock ran out.
    TimeForfeit,
    /// A player failed (error or illegal move) and loses.
    PlayerFailure(String),
}

impl Termination {
    /// The PGN `Termination` tag value (the standard's vocabulary).
    pub fn pgn_tag(&self) -> &'static str {
        match self {
            Termination::ResignAdjudication
            | Termination::DrawAdjudication
            | Termination::PlyCap => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::PlayerFailure(_) => "rules infraction",
            _ => "normal",
        }
    }

    /// A human description, written as the game's final PGN comment.
    pub fn describe(&self) -> String {
        match self {
            Termination::Checkmate => "checkmate".into(),
            Termination::Stalemate => "stalemate".into(),
            Termination::ThreefoldRepetition => "threefold repetition".into(),
            Termination::FiftyMoves => "fifty-move rule".into(),
            Termination::InsufficientMaterial => "insufficient material".into(),
            Termination::ResignAdjudication => "resign adjudication".into(),
            Termination::DrawAdjudication => "draw adjudication".into(),
            Termination::PlyCap => "ply cap".into(),
            Termination::TimeForfeit => "loss on time".into(),
            Termination::PlayerFailure(why) => format!("{PLAYER_FAILURE}{why}"),
        }
    }

    /// The termination [`Termination::describe`] wrote as `text`, if it is one (for reading
    /// games back from PGN).
    pub fn from_description(text: &str) -> Option<Termination> {
        if let Some(why) = text.strip_prefix(PLAYER_FAILURE) {
            return Some(Termination::PlayerFailure(why.to_string()));
        }
        Termination::WITHOUT_DETAIL
            .into_iter()
            .find(|t| t.describe() == text)
    }

    /// Every termination that carries no detail (all but [`Termination::PlayerFailure`]).
    pub const WITHOUT_DETAIL: [Termination; 9] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::ThreefoldRepetition,
        Termination::FiftyMoves,
        Termination::InsufficientMaterial,
        Termination::ResignAdjudication,
        Termination::DrawAdjudication,
        Termination::PlyCap,
        Termination::TimeForfeit,
    ];
}

/// How [`Termination::describe`] opens the description of a player's failure.
const PLAYER_FAILURE: &str = "player failure: ";

/// A finished game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The opening position the game started from.
    pub start: Chess,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The moves played.
    pub moves: Vec<Move>,
    /// The result.
    pub outcome: GameOutcome,
    /// Why it ended.
    pub termination: Termination,
    /// Moves White and Black made after going past the node budget (an external engine that
    /// does not stop at `go nodes` exactly; its last PV within the budget was played).
    pub overshot: [u32; 2],
}

/// Plays one game from `opening`.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    opening: &Chess,
    config: &GameConfig,
) -> GameRecord {
    play_game_until(white, black, opening, config, &|| false)
        .expect("a game that is never abandoned ends")
}

/// Plays one game from `opening` as [`play_game`] does, but abandons it (`None`) when
/// `abandon()` says so before a move (checked before every move, so an interrupted match stops
/// within one move's search) or when a player fails (checked again then, so a failure caused
/// by stopping the engines is not scored). The game is then lost: nothing of it is returned.
pub fn play_game_until(
    white: &mut dyn Player,
    black: &mut dyn Player,
    opening: &Chess,
    config: &GameConfig,
    abandon: &dyn Fn() -> bool,
) -> Option<GameRecord> {
    white.new_game();
    black.new_game();
    let mut game = GameState::new(opening, config);
    let (white_name, black_name) = (white.name().to_string(), black.name().to_string());
    let finish = |game: GameState, outcome, termination| {
        Some(GameRecord {
            start: opening.clone(),
            white: white_name.clone(),
            black: black_name.clone(),
            moves: game.moves,
            outcome,
            termination,
            overshot: game.overshot,
        })
    };
    loop {
        if let Some((outcome, termination)) = game.ended_by_rules(config) {
            return finish(game, outcome, termination);
        }

        if abandon() {
            return None;
        }
        let pos = game.board.pos();
        let side = pos.turn();
        let limits = move_limits(config, &game.clocks, side);
        let player: &mut dyn Player = match side {
            Color::White => white,
            Color::Black => black,
        };
        let started = Instant::now();
        let chosen = player.choose(&Turn {
            start: opening,
            moves: &game.moves,
            position: pos,
            history: &game.keys,
            limits: &limits,
        });
        let spent = started.elapsed();
        if let Some(outcome) = charge_clock(config, &mut game.clocks, side, spent, pos) {
            return finish(game, outcome, Termination::TimeForfeit);
        }
        let chosen = match chosen {
            Ok(c) if pos.is_legal(c.mv) => c,
            Ok(c) => {
                let why = format!("illegal move {}", c.mv);
                return finish(
                    game,
                    GameOutcome::win_for(!side),
                    Termination::PlayerFailure(why),
                );
            }
            // A failure while the game is being abandoned may be the caller's own doing (an
            // interrupted match kills the engines): the game is abandoned, not lost.
            Err(_) if abandon() => return None,
            Err(e) => {
                return finish(
                    game,
                    GameOutcome::win_for(!side),
                    Termination::PlayerFailure(e.to_string()),
                );
            }
        };
        game.play(chosen, side);

        if let Some((outcome, termination)) = game.ended_by_adjudication(config) {
            return finish(game, outcome, termination);
        }
    }
}

/// A game being played: the board, the keys of its earlier positions and how often each
/// position was seen, the moves, the scores and the clocks.
struct GameState {
    // The board carries the Zobrist key incrementally (threefold repetition, engine history).
    board: Board,
    keys: Vec<u64>,
    seen: HashMap<u64, u32>,
    moves: Vec<Move>,
    // White-point-of-view scores, one per ply (None when a player gave none).
    scores: Vec<Option<i32>>,
    clocks: [Duration; 2],
    // Moves made past the node budget, White's and Black's.
    overshot: [u32; 2],
}

impl GameState {
    /// A game at `opening`, no move played, the clocks at `config`'s base time.
    fn new(opening: &Chess, config: &GameConfig) -> Self {
        let board = Board::new(opening.clone());
        let mut seen: HashMap<u64, u32> = HashMap::new();
        seen.insert(board.hash(), 1);
        let clocks = match config.limit {
            MoveLimit::Clock { base, .. } => [base, base],
            _ => [Duration::ZERO; 2],
        };
        GameState {
            board,
            keys: Vec::new(),
            seen,
            moves: Vec::new(),
            scores: Vec::new(),
            clocks,
            overshot: [0; 2],
        }
    }

    /// How the rules end the game before the next move, if they do (the ply cap last).
    fn ended_by_rules(&self, config: &GameConfig) -> Option<(GameOutcome, Termination)> {
        let pos = self.board.pos();
        // The rules, in the order FIDE applies them.
        if pos.is_checkmate() {
            return Some((GameOutcome::win_for(!pos.turn()), Termination::Checkmate));
        }
        if pos.is_stalemate() {
            return Some((GameOutcome::Draw, Termination::Stalemate));
        }
        if pos.is_insufficient_material() {
            return Some((GameOutcome::Draw, Termination::InsufficientMaterial));
        }
        if self.seen.get(&self.board.hash()).copied().unwrap_or(0) >= 3 {
            return Some((GameOutcome::Draw, Termination::ThreefoldRepetition));
        }
        if pos.halfmoves() >= 100 {
            return Some((GameOutcome::Draw, Termination::FiftyMoves));
        }
        if self.moves.len() as u32 >= config.max_plies {
            return Some((GameOutcome::Draw, Termination::PlyCap));
        }
        None
    }

    /// Plays `side`'s move `chosen`, keeping its score from White's point of view.
    fn play(&mut self, chosen: PlayerMove, side: Color) {
        self.scores.push(chosen.score.map(|s| match side {
            Color::White => s,
            Color::Black => -s,
        }));
        self.keys.push(self.board.hash());
        self.board = self.board.play(chosen.mv);
        self.moves.push(chosen.mv);
        self.overshot[usize::from(side == Color::Black)] += u32::from(chosen.overshot);
        *self.seen.entry(self.board.hash()).or_insert(0) += 1;
    }

    /// How adjudication ends the game after a move, if it does.
    fn ended_by_adjudication(&self, config: &GameConfig) -> Option<(GameOutcome, Termination)> {
        let pos = self.board.pos();
        let outcome = adjudicate(config, &self.scores, pos.fullmoves().get())?;
        // Mate on the board takes precedence: it is checked at the top of the loop first.
        if pos.is_checkmate() {
            return None;
        }
        let termination = if outcome == GameOutcome::Draw {
            Termination::DrawAdjudication
        } else {
            Termination::ResignAdjudication
        };
        Some((outcome, termination))
    }
}

/// The limits of `side`'s next move under `config`'s limit (its clock's time under a clock).
fn move_limits(config: &GameConfig, clocks: &[Duration; 2], side: Color) -> Limits {
    match config.limit {
        MoveLimit::Nodes(n) => Limits::nodes(n),
        MoveLimit::Depth(d) => Limits::depth(d),
        MoveLimit::Clock { increment, .. } => Limits {
            time_left: Some(clocks[side as usize]),
            increment: Some(increment),
            ..Limits::default()
        },
    }
}

/// Under a clock, takes the `spent` time of `side`'s move from its clock and adds the
/// increment; the game's outcome if the move took more time than the clock had.
fn charge_clock(
    config: &GameConfig,
    clocks: &mut [Duration; 2],
    side: Color,
    spent: Duration,
    pos: &Chess,
) -> Option<GameOutcome> {
    if let MoveLimit::Clock { increment, .. } = config.limit {
        let clock = &mut clocks[side as usize];
        if spent > *clock {
            // Out of time: a loss, unless the opponent cannot possibly mate.
            let outcome = if pos.has_insufficient_material(!side) {
                GameOutcome::Draw
            } else {
                GameOutcome::win_for(!side)
            };
            return Some(outcome);
        }
        *clock = *clock - spent + increment;
    }
    None
}

/// Applies the adjudication rules to the White-view scores of the plies so far.
fn adjudicate(config: &GameConfig, scores: &[Option<i32>], fullmove: u32) -> Option<GameOutcome> {
    let last = |n: u32| -> Option<Vec<i32>> {
        let plies = 2 * n as usize;
        if n == 0 || scores.len() < plies {
            return None;
        }
        scores[scores.len() - plies..].iter().copied().collect()
    };
    if let Some(rule) = config.resign
        && let Some(s) = last(rule.moves)
    {
        if s.iter().all(|&v| v >= rule.score) {
            return Some(GameOutcome::WhiteWins);
        }
        if s.iter().all(|&v| v <= -rule.score) {
            return Some(GameOutcome::BlackWins);
        }
    }
    if let Some(rule) = config.draw
        && fullmove >= rule.after_move
        && let Some(s) = last(rule.moves)
        && s.iter()
            .all(|&v| v.abs() <= rule.score && v.abs() < MATE_BOUND)
    {
        return Some(GameOutcome::Draw);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Margins;

    #[test]
    fn results_and_terminations_read_back_from_their_pgn_text() {
        for outcome in [
            GameOutcome::WhiteWins,
            GameOutcome::BlackWins,
            GameOutcome::Draw,
        ] {
            assert_eq!(GameOutcome::from_pgn(outcome.pgn()), Some(outcome));
        }
        assert_eq!(GameOutcome::from_pgn("*"), None);
        let failure = Termination::PlayerFailure("illegal move e2e5".into());
        for termination in Termination::WITHOUT_DETAIL.into_iter().chain([failure]) {
            assert_eq!(
                Termination::from_description(&termination.describe()),
                Some(termination)
            );
        }
        assert_eq!(Termination::from_description("resigned"), None);
    }

    /// A player that cannot move, as an engine whose process was killed.
    struct Failing;

    impl Player for Failing {
        fn name(&self) -> &str {
            "failing"
        }
        fn new_game(&mut self) {}
        fn choose(&mut self, _: &Turn<'_>) -> Result<PlayerMove, PlayerError> {
            Err(PlayerError("engine crashed (signal: 9 (SIGKILL))".into()))
        }
    }

    #[test]
    fn a_failure_loses_the_game_unless_it_is_being_abandoned() {
        let config = GameConfig::default();
        let game = play_game(&mut Failing, &mut Failing, &Chess::default(), &config);
        assert_eq!(
            (game.outcome, game.termination),
            (
                GameOutcome::BlackWins,
                Termination::PlayerFailure("engine crashed (signal: 9 (SIGKILL))".into())
            )
        );
        // Not yet abandoned before the move, abandoned when the failure comes back.
        let asked = std::cell::Cell::new(0);
        let abandon = || {
            asked.set(asked.get() + 1);
            asked.get() > 1
        };
        let game = play_game_until(
            &mut Failing,
            &mut Failing,
            &Chess::default(),
            &config,
            &abandon,
        );
        assert!(game.is_none());
        assert_eq!(asked.get(), 2);
    }

    #[test]
    fn a_game_is_abandoned_before_a_move_when_asked() {
        let mut a = EnginePlayer::new("A", Margins::default(), 1);
        let mut b = EnginePlayer::new("B", Margins::default(), 1);
        let config = GameConfig {
            limit: MoveLimit::Nodes(100),
            ..GameConfig::default()
        };
        let moves = std::cell::Cell::new(0);
        let abandon = || {
            moves.set(moves.get() + 1);
            moves.get() > 5
        };
        let game = play_game_until(&mut a, &mut b, &Chess::default(), &config, &abandon);
        assert!(game.is_none());
        assert_eq!(moves.get(), 6, "asked once before each move");
    }
}
