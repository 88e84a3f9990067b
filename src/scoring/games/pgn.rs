//! Standard PGN output of games: the Seven Tag Roster plus FEN/SetUp, PlyCount and
//! Termination; SAN moves with move numbers, lines of at most 80 characters.

use std::fmt::Write as _;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use super::game::GameRecord;

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
}
