//! Standard PGN output of games: the Seven Tag Roster plus FEN/SetUp, PlyCount and
//! Termination; SAN moves with move numbers, lines of at most 80 characters. And the way back:
//! [`read_games`] reads what [`format_game`] wrote into the same games (for resuming a match
//! from its PGN), telling whole games from a last one cut short.

use std::fmt::Write as _;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use super::game::{GameOutcome, GameRecord, Termination};

/// Escapes a tag value (backslash and double quote).
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Today's date in PGN form (`YYYY.MM.DD`, UTC).
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Converts days since 1970-01-01 to a (year, month, day) civil date (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The tag of the moves each side made past the node budget (`"3 0"`), written when any was.
const OVERSHOT_TAG: &str = "MarginalOvershot";

/// Formats one game. `round` is e.g. `"12.2"` (pair 12, second game); `event` and `date` as
/// the tags should read.
pub fn format_game(game: &GameRecord, event: &str, round: &str, date: &str) -> String {
    let mut out = String::new();
    let start_fen = Fen::from_position(&game.start, EnPassantMode::Legal).to_string();
    let standard_start = game.start == Chess::default();
    let tags: Vec<(&str, String)> = [
        ("Event", event.to_string()),
        ("Site", "marginal".to_string()),
        ("Date", date.to_string()),
        ("Round", round.to_string()),
        ("White", game.white.clone()),
        ("Black", game.black.clone()),
        ("Result", game.outcome.pgn().to_string()),
    ]
    .into_iter()
    .chain((!standard_start).then(|| ("FEN", start_fen.clone())))
    .chain((!standard_start).then(|| ("SetUp", "1".to_string())))
    .chain([
        ("PlyCount", game.moves.len().to_string()),
        ("Termination", game.termination.pgn_tag().to_string()),
    ])
    // Moves past the node budget, White's and Black's, kept for a resumed match's count.
    .chain((game.overshot != [0, 0]).then(|| {
        let [white, black] = game.overshot;
        (OVERSHOT_TAG, format!("{white} {black}"))
    }))
    .collect();
    for (name, value) in tags {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(&value));
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let mut pos = game.start.clone();
    for (i, m) in game.moves.iter().enumerate() {
        let number = pos.fullmoves().get();
        let prefix = if pos.turn() == Color::White {
            format!("{number}. ")
        } else if i == 0 {
            format!("{number}... ")
        } else {
            String::new()
        };
        // SanPlus computes the check/mate suffix by playing the move. A move number stays on
        // the line of its move.
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, *m);
        tokens.push(format!("{prefix}{san}"));
    }
    tokens.push(format!("{{{}}}", game.termination.describe()));
    tokens.push(game.outcome.pgn().to_string());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// A game read back by [`read_games`].
#[derive(Debug, Clone)]
pub struct ReadGame {
    /// The game, as [`format_game`] was given it.
    pub record: GameRecord,
    /// Every tag, in file order, values unescaped.
    pub tags: Vec<(String, String)>,
    /// The game's first line in the file (1-based).
    pub line: usize,
    /// The byte offset just past the game (its closing blank line included).
    pub end: usize,
}

impl ReadGame {
    /// The value of tag `name`, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The whole games of a PGN file, and where they end.
#[derive(Debug, Clone)]
pub struct ReadPgn {
    /// The whole games, in file order.
    pub games: Vec<ReadGame>,
    /// Bytes of whole games from the start of the text (the end of the last one, 0 with none):
    /// anything after is a last game cut short (a run killed while writing it).
    pub whole: usize,
}

/// Why a PGN text is not games [`format_game`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct PgnError {
    /// The line (1-based) where it goes wrong.
    pub line: usize,
    /// What is wrong there.
    pub reason: String,
}

/// One line of the text: its bytes without the newline, whether it had one, its offset.
struct Line<'a> {
    text: &'a [u8],
    terminated: bool,
    end: usize,
}

/// Reads the games [`format_game`] wrote, one after another as `marginal match` appends them.
/// A game is whole once its closing blank line is there; a last game without it (cut short by
/// a kill) is left out, and [`ReadPgn::whole`] says where it begins. Each whole game is checked:
/// its tags, its start position (the `FEN` tag, else the standard one), every move legal from
/// it, the final comment a [`Termination`], the result token equal to the `Result` tag, and
/// `PlyCount` equal to the moves.
///
/// # Errors
/// A whole game that is not one [`format_game`] writes (an edited or foreign file), naming the
/// line.
pub fn read_games(text: &[u8]) -> Result<ReadPgn, PgnError> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for chunk in text.split_inclusive(|&b| b == b'\n') {
        offset += chunk.len();
        let terminated = chunk.ends_with(b"\n");
        let body = if terminated {
            &chunk[..chunk.len() - 1]
        } else {
            chunk
        };
        lines.push(Line {
            text: body.strip_suffix(b"\r").unwrap_or(body),
            terminated,
            end: offset,
        });
    }
    let blank = |l: &Line<'_>| l.terminated && l.text.iter().all(u8::is_ascii_whitespace);
    let mut out = ReadPgn {
        games: Vec::new(),
        whole: 0,
    };
    let mut i = 0;
    loop {
        // Blank lines between games are allowed.
        while i < lines.len() && blank(&lines[i]) {
            i += 1;
        }
        if i == lines.len() {
            break;
        }
        let first = i;
        // Tag pairs, one a line.
        while i < lines.len() && lines[i].terminated && lines[i].text.starts_with(b"[") {
            i += 1;
        }
        if i == lines.len() || !lines[i].terminated {
            break; // cut short in or after its tags
        }
        if i == first {
            return Err(PgnError {
                line: i + 1,
                reason: "expected a game's tags ('[Name \"value\"]')".into(),
            });
        }
        if !blank(&lines[i]) {
            return Err(PgnError {
                line: i + 1,
                reason: "expected the blank line after the tags".into(),
            });
        }
        i += 1;
        // The movetext, up to the closing blank line.
        let moves_start = i;
        while i < lines.len() && !blank(&lines[i]) {
            i += 1;
        }
        if i == lines.len() {
            break; // cut short before its closing blank line
        }
        if i == moves_start {
            return Err(PgnError {
                line: i + 1,
                reason: "a game without movetext (not even its result)".into(),
            });
        }
        let game = read_game(&lines[first..i], first)?;
        out.whole = lines[i].end;
        out.games.push(ReadGame {
            end: out.whole,
            ..game
        });
        i += 1;
    }
    Ok(out)
}

/// The moves past the node budget a game's tag holds (none without it, or unreadable: the
/// count is a report, never a reason to refuse a game).
fn overshot_of(tag: Option<&str>) -> [u32; 2] {
    let mut counts = tag.unwrap_or("").split_ascii_whitespace().map(str::parse);
    match (counts.next(), counts.next()) {
        (Some(Ok(white)), Some(Ok(black))) => [white, black],
        _ => [0, 0],
    }
}

/// Reads one whole game: tag lines, a blank line, movetext lines (`first` is the index of its
/// first line).
fn read_game(lines: &[Line<'_>], first: usize) -> Result<ReadGame, PgnError> {
    let game = GameLines { lines, first };
    let (tags, blank) = game.tags()?;
    let tag = |name: &str| tag_value(&tags, name);
    let start = game.start_position(tag("FEN"))?;
    let tag_outcome = tag("Result").and_then(GameOutcome::from_pgn);
    let (white, black) = match (tag("White"), tag("Black"), tag_outcome) {
        (Some(w), Some(b), Some(_)) => (w.to_string(), b.to_string()),
        _ => {
            return Err(game.err(
                0,
                "a game needs White, Black and a Result tag (1-0, 0-1 or 1/2-1/2)".into(),
            ));
        }
    };

    // The movetext: move numbers, SAN moves, one final comment, the result.
    let mut movetext = Movetext::new(start.clone());
    for index in blank + 1..lines.len() {
        let line = game.text(index)?;
        for token in line.split_ascii_whitespace() {
            movetext.take(token, index, &game)?;
        }
    }
    let outcome = game.check_result(&movetext, tag_outcome)?;
    let last = lines.len() - 1;
    let termination = movetext
        .comment
        .as_deref()
        .and_then(Termination::from_description)
        .ok_or_else(|| game.err(last, "no final comment saying how the game ended".into()))?;
    let moves = movetext.moves;
    if let Some(count) = tag("PlyCount")
        && count != moves.len().to_string()
    {
        return Err(game.err(
            0,
            format!(
                "PlyCount {count}, but the movetext has {} moves",
                moves.len()
            ),
        ));
    }
    Ok(ReadGame {
        record: GameRecord {
            start,
            white,
            black,
            moves,
            outcome,
            termination,
            overshot: overshot_of(tag(OVERSHOT_TAG)),
        },
        tags,
        line: first + 1,
        end: 0,
    })
}

/// The lines of one game and the index of its first line in the file, for errors.
struct GameLines<'l, 'a> {
    lines: &'l [Line<'a>],
    first: usize,
}

impl GameLines<'_, '_> {
    /// An error at the game's line `index` (0-based within the game).
    fn err(&self, index: usize, reason: String) -> PgnError {
        PgnError {
            line: self.first + index + 1,
            reason,
        }
    }

    /// The text of the game's line `index`, which must be UTF-8.
    fn text(&self, index: usize) -> Result<&str, PgnError> {
        std::str::from_utf8(self.lines[index].text)
            .map_err(|_| self.err(index, "not UTF-8 text".into()))
    }

    /// The tag pairs at the game's head, and the index of the line after them.
    fn tags(&self) -> Result<(Vec<(String, String)>, usize), PgnError> {
        let mut tags = Vec::new();
        let mut index = 0;
        while self.lines[index].text.starts_with(b"[") {
            let line = self.text(index)?;
            let tag = parse_tag(line)
                .ok_or_else(|| self.err(index, format!("not a tag pair: {line}")))?;
            tags.push(tag);
            index += 1;
        }
        Ok((tags, index))
    }

    /// The start position its FEN tag gives, the standard one without it.
    fn start_position(&self, fen: Option<&str>) -> Result<Chess, PgnError> {
        Ok(match fen {
            None => Chess::default(),
            Some(fen) => fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                .ok_or_else(|| self.err(0, format!("FEN tag '{fen}' is not a legal position")))?,
        })
    }

    /// The movetext's result, checked against the Result tag and against how its moves end.
    fn check_result(
        &self,
        movetext: &Movetext,
        tag_outcome: Option<GameOutcome>,
    ) -> Result<GameOutcome, PgnError> {
        let last = self.lines.len() - 1;
        let pos = &movetext.pos;
        let outcome = movetext
            .result
            .ok_or_else(|| self.err(last, "the movetext has no result".into()))?;
        if Some(outcome) != tag_outcome {
            return Err(self.err(
                last,
                format!("result {} differs from the Result tag", outcome.pgn()),
            ));
        }
        // A game its moves end (checkmate, stalemate) has the result they give, whatever the
        // tags say: an edited result would count a lost game as won.
        let by_moves = if pos.is_checkmate() {
            Some(match pos.turn() {
                shakmaty::Color::White => GameOutcome::BlackWins,
                shakmaty::Color::Black => GameOutcome::WhiteWins,
            })
        } else if pos.is_stalemate() {
            Some(GameOutcome::Draw)
        } else {
            None
        };
        if let Some(by_moves) = by_moves
            && by_moves != outcome
        {
            return Err(self.err(
                last,
                format!(
                    "result {}, but its moves end in {} ({})",
                    outcome.pgn(),
                    if pos.is_checkmate() {
                        "checkmate"
                    } else {
                        "stalemate"
                    },
                    by_moves.pgn()
                ),
            ));
        }
        Ok(outcome)
    }
}

/// The value of the tag `name`, if the game has it.
fn tag_value<'t>(tags: &'t [(String, String)], name: &str) -> Option<&'t str> {
    tags.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The movetext read so far: the position its moves reach, the moves, the final comment (and
/// one still open), the result.
struct Movetext {
    pos: Chess,
    moves: Vec<shakmaty::Move>,
    comment: Option<String>,
    open_comment: Option<String>,
    result: Option<GameOutcome>,
}

impl Movetext {
    /// Nothing read yet, from `start`.
    fn new(start: Chess) -> Self {
        Movetext {
            pos: start,
            moves: Vec::new(),
            comment: None,
            open_comment: None,
            result: None,
        }
    }

    /// Takes one token of the game's line `index`: a comment's word, a result, a move number
    /// or a SAN move.
    fn take(&mut self, token: &str, index: usize, game: &GameLines) -> Result<(), PgnError> {
        if let Some(open) = self.open_comment.as_mut() {
            open.push(' ');
            open.push_str(token);
        } else if token.starts_with('{') {
            self.open_comment = Some(token.to_string());
        } else if self.result.is_some() {
            return Err(game.err(index, format!("'{token}' after the result")));
        } else if let Some(outcome) = GameOutcome::from_pgn(token) {
            self.result = Some(outcome);
        } else if is_move_number(token) {
            // a move number
        } else {
            if self.comment.is_some() {
                return Err(game.err(index, format!("move '{token}' after the final comment")));
            }
            let mv = token
                .parse::<SanPlus>()
                .ok()
                .and_then(|san| san.san.to_move(&self.pos).ok())
                .ok_or_else(|| {
                    game.err(
                        index,
                        format!(
                            "'{token}' is not a legal move after {} plies",
                            self.moves.len()
                        ),
                    )
                })?;
            self.pos.play_unchecked(mv);
            self.moves.push(mv);
        }
        if let Some(open) = self.open_comment.take_if(|c| c.ends_with('}')) {
            if self.comment.is_some() {
                return Err(game.err(index, "more than one comment".into()));
            }
            self.comment = Some(open[1..open.len() - 1].to_string());
        }
        Ok(())
    }
}

/// Whether `token` is a move number: `12.` or `12...`.
fn is_move_number(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    !digits.is_empty() && digits.len() < token.len() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Parses a tag pair line `[Name "value"]`, unescaping the value.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.trim_end().strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(' ')?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?),
            '"' => return None,
            c => value.push(c),
        }
    }
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_413), (2025, 11, 21));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn tag_escaping() {
        assert_eq!(escape(r#"a "b" \c"#), r#"a \"b\" \\c"#);
    }

    use crate::params::Margins;
    use crate::scoring::games::game::{EnginePlayer, GameConfig, MoveLimit, play_game};

    /// Two engine games (one from the standard start, one from a FEN with Black to move) and a
    /// game lost by a player's failure, with a name to escape.
    fn games() -> Vec<GameRecord> {
        let config = GameConfig {
            limit: MoveLimit::Nodes(200),
            max_plies: 30,
            ..GameConfig::default()
        };
        let mut a = EnginePlayer::new("A \"quoted\" \\ name", Margins::default(), 1);
        let mut b = EnginePlayer::new("B", Margins::off(), 1);
        let sicilian: Chess = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut failed = play_game(&mut b, &mut a, &sicilian, &config);
        failed.termination = Termination::PlayerFailure("illegal move e2e5".into());
        vec![
            play_game(&mut a, &mut b, &Chess::default(), &config),
            play_game(&mut b, &mut a, &sicilian, &config),
            failed,
        ]
    }

    fn text_of(games: &[GameRecord]) -> String {
        games
            .iter()
            .enumerate()
            .map(|(i, g)| format_game(g, "test", &format!("1.{}", i + 1), "2026.01.02"))
            .collect()
    }

    #[test]
    fn games_read_back_as_written() {
        let games = games();
        let text = text_of(&games);
        let read = read_games(text.as_bytes()).unwrap();
        assert_eq!(read.whole, text.len());
        assert_eq!(read.games.len(), games.len());
        for (g, r) in games.iter().zip(&read.games) {
            let r = &r.record;
            assert_eq!(
                (&r.start, &r.white, &r.black, &r.moves),
                (&g.start, &g.white, &g.black, &g.moves)
            );
            assert_eq!((r.outcome, &r.termination), (g.outcome, &g.termination));
        }
        assert_eq!(read.games[1].tag("Round"), Some("1.2"));
        assert_eq!(read.games[0].line, 1);
        // Written again, the games give the same text.
        let records: Vec<GameRecord> = read.games.into_iter().map(|g| g.record).collect();
        assert_eq!(text_of(&records), text);
    }

    #[test]
    fn a_game_cut_short_anywhere_is_left_out() {
        let text = text_of(&games());
        let ends: Vec<usize> = read_games(text.as_bytes())
            .unwrap()
            .games
            .iter()
            .map(|g| g.end)
            .collect();
        for cut in 0..=text.len() {
            let read = read_games(&text.as_bytes()[..cut]).unwrap();
            let whole = ends.iter().filter(|&&end| end <= cut).count();
            assert_eq!(read.games.len(), whole, "cut at byte {cut}");
            assert_eq!(read.whole, if whole == 0 { 0 } else { ends[whole - 1] });
        }
    }

    #[test]
    fn an_edited_game_is_an_error_naming_its_line() {
        let text = text_of(&games());
        let first_move = text.lines().position(|l| l.starts_with("1. ")).unwrap();
        let cases = [
            (text.replacen("1. ", "1. Kxh8 ", 1), first_move + 1, "Kxh8"),
            (text.replacen("[Result \"", "[Result \"x", 1), 1, "Result"),
            (
                text.replacen("[PlyCount \"", "[PlyCount \"9", 1),
                1,
                "PlyCount",
            ),
            (
                text.replacen("{", "{no such end ", 1),
                first_move + 1,
                "comment",
            ),
            (text.replacen("\n\n", "\nstray\n", 1), 10, "blank line"),
        ];
        for (edited, line, word) in cases {
            let e = read_games(edited.as_bytes()).unwrap_err();
            assert!(e.reason.contains(word), "{e}");
            assert!(e.line >= line, "{e} (from line {line})");
        }
    }

    #[test]
    fn a_result_its_moves_contradict_is_an_error() {
        // Fool's mate: Black mates, so only 0-1 is the game's result.
        let start = Chess::default();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for san in ["f3", "e5", "g4", "Qh4#"] {
            let mv = san
                .parse::<shakmaty::san::SanPlus>()
                .unwrap()
                .san
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(mv);
            moves.push(mv);
        }
        let game = |outcome| GameRecord {
            start: start.clone(),
            white: "A".into(),
            black: "B".into(),
            moves: moves.clone(),
            outcome,
            termination: Termination::from_description("checkmate").unwrap(),
            overshot: [0, 0],
        };
        let text = format_game(&game(GameOutcome::BlackWins), "t", "1", "2026.01.02");
        assert_eq!(read_games(text.as_bytes()).unwrap().games.len(), 1);
        let edited = text.replace("0-1", "1-0");
        let e = read_games(edited.as_bytes()).unwrap_err();
        assert!(
            e.reason
                .contains("result 1-0, but its moves end in checkmate (0-1)"),
            "{e}"
        );
    }

    #[test]
    fn moves_past_the_node_budget_survive_the_pgn_a_match_resumes_from() {
        let game = GameRecord {
            start: Chess::default(),
            white: "A".into(),
            black: "B".into(),
            moves: Vec::new(),
            outcome: GameOutcome::Draw,
            termination: Termination::FiftyMoves,
            overshot: [4, 1],
        };
        let text = format_game(&game, "t", "1.1", "2026.01.02");
        assert!(text.contains("[MarginalOvershot \"4 1\"]"), "{text}");
        assert_eq!(
            read_games(text.as_bytes()).unwrap().games[0]
                .record
                .overshot,
            [4, 1]
        );
        // None past the budget: no tag, and a game without one reads as none.
        let none = GameRecord {
            overshot: [0, 0],
            ..game
        };
        let text = format_game(&none, "t", "1.1", "2026.01.02");
        assert!(!text.contains("MarginalOvershot"), "{text}");
        assert_eq!(
            read_games(text.as_bytes()).unwrap().games[0]
                .record
                .overshot,
            [0, 0]
        );
    }
}
