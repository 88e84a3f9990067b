//! Opening books: one FEN or EPD position a line (4 or 6 FEN fields, EPD operations ignored).

use std::path::Path;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};

use super::{DataFileError, Parsed, epd, parse_lines, read_bytes};

/// A parsed book: its playable positions (legal, not already finished) in file order, and the
/// lines that were not positions, each with its reason.
pub type Book = Parsed<Chess>;

/// Parses one book line: the FEN fields (4, or 6 with clocks) before any EPD operations,
/// read by the EPD parser's own [`epd::parse_position`]. A position whose game is already
/// decided is refused, since every game from it would end at once with the same result: no
/// legal move, a dead draw (neither side can mate), or a halfmove clock at the fifty-move
/// rule's 100.
pub fn parse_line(text: &str) -> Result<Option<Chess>, String> {
    let Some((pos, fen, rest)) = epd::parse_position(text).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if rest.split_whitespace().next() == Some("moves") {
        return Err(format!(
            "'{fen}' is followed by a move list ('{}'), which a book line does not play: give the position after the moves",
            crate::formats::excerpt(rest.trim())
        ));
    }
    if pos.legal_moves().is_empty() {
        return Err(format!("'{fen}' is already finished (no legal move)"));
    }
    if pos.is_insufficient_material() {
        return Err(format!(
            "'{fen}' is a dead draw (neither side has the material to mate): every game from it is drawn at once"
        ));
    }
    if pos.halfmoves() >= 100 {
        return Err(format!(
            "'{fen}' has a halfmove clock of {} (the fifty-move rule draws at 100): every game from it is drawn at once; reset the clock field to 0",
            pos.halfmoves()
        ));
    }
    Ok(Some(pos))
}

/// Reads a book file.
///
/// # Errors
/// [`DataFileError::Unreadable`], or [`DataFileError::Empty`] or
/// [`DataFileError::Unusable`] when no line is a playable position.
pub fn read(path: &Path) -> Result<Book, DataFileError> {
    let name = path.display().to_string();
    let book = parse_lines(&name, &read_bytes(path, "opening book ")?, |line, _| {
        parse_line(line)
    });
    if book.records.is_empty() {
        return Err(match book.skipped.first() {
            None => DataFileError::Empty {
                path: name,
                what: "usable opening positions",
            },
            Some(first) => DataFileError::Unusable {
                path: name,
                what: "opening positions",
                count: book.skipped.len(),
                first: Box::new(first.clone()),
            },
        });
    }
    Ok(book)
}

/// Shuffles positions reproducibly: the same seed gives the same order on every machine
/// (ChaCha8, independent of the platform).
pub fn shuffle(positions: &mut [Chess], seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    positions.shuffle(&mut rng);
}

/// Refuses a book of `have` openings for `pairs` game pairs, each from its own opening:
/// the message names `option`, the `book`, what the pairs are `of`, and the `fix`.
///
/// # Errors
/// The message, when `have < pairs`.
pub fn enough(
    option: &str,
    book: &Path,
    have: usize,
    pairs: usize,
    of: &str,
    fix: &str,
) -> Result<(), String> {
    if have < pairs {
        return Err(format!(
            "{option} {}: {have} opening(s) for the {pairs} pairs of {of}: give a larger book or {fix}",
            book.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_four_or_six_fields_and_epd_ops() {
        assert!(
            parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap()
                .is_some()
        );
        assert!(
            parse_line("r1bq1rk1/ppp2ppp/5n2/2bp4/2NPP3/2P5/PP3PPP/RNBQK2R w KQ d6")
                .unwrap()
                .is_some()
        );
        assert!(
            parse_line("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"x\";")
                .unwrap()
                .is_some()
        );
        assert!(parse_line("").unwrap().is_none());
        assert!(parse_line("# comment").unwrap().is_none());
        assert!(parse_line("not a fen").is_err());
        assert!(parse_line("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
        // Checkmated already: not an opening.
        assert!(parse_line("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").is_err());
        // A UCI-style move list after the FEN is refused, not silently dropped.
        let e = parse_line("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4")
            .unwrap_err();
        assert!(e.contains("move list ('moves e2e4')"), "{e}");
        // Drawn already: kings alone, or the fifty-move clock run out.
        let e = parse_line("7k/8/6K1/8/8/8/8/8 w - - 0 1").unwrap_err();
        assert!(e.contains("dead draw"), "{e}");
        let e = parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 150 80")
            .unwrap_err();
        assert!(e.contains("halfmove clock of 150"), "{e}");
        assert!(
            parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 99 80")
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn shuffle_is_reproducible() {
        let mut a: Vec<Chess> = Vec::new();
        let mut pos = Chess::default();
        for _ in 0..10 {
            let m = pos.legal_moves()[0];
            pos.play_unchecked(m);
            a.push(pos.clone());
        }
        let mut b = a.clone();
        let mut c = a.clone();
        shuffle(&mut b, 7);
        shuffle(&mut c, 7);
        assert_eq!(b, c);
        let mut d = a.clone();
        shuffle(&mut d, 8);
        assert_ne!(b, d);
    }
}
