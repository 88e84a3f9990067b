// SPDX-License-Identifier: GPL-3.0-or-later
//! Parsing of EPD (Extended Position Description) test-suite files.
//!
//! An EPD line is a FEN position (4 fields, or 6 when the halfmove clock and
//! fullmove number are given) followed by operations such as
//! `bm Qg6; id "WAC.001";`. This module copes with the layouts found in real
//! suites:
//!
//! * the usual `FEN bm Qg6; id "WAC.001";`,
//! * Bratko-Kopec's `FEN ; bm Qd1 + ; id BK.01` (a stray `;` after the FEN,
//!   a check sign split from its move, an unquoted id, trailing NUL bytes),
//! * the Strategic Test Suite's `c0 "f5=10, Be5+=2"` points with the same
//!   moves in UCI notation in `c9`,
//! * CRLF line endings and quoted operands containing `;`,
//! * the mate suites' `bm #3` / `bm #-3` (not a move: the side to move mates,
//!   or is mated, in 3 moves), the EPD standard's `dm 3`, and matetrack's
//!   free-text annotations after them (`00:00 @ C0/R-2/K2/P9/X35;`,
//!   `Duals(4);`, `00'40" (Gustav);`).
//!
//! Moves are resolved against the position with [`shakmaty`]: SAN first,
//! UCI (`e2e4`) as a fallback.

use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move};
use thiserror::Error;

use super::{DataFileError, Parsed, excerpt, is_junk, parse_lines, read_bytes, trim_line};

/// One parsed EPD line: a legal position with its operations resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdRecord {
    /// 1-based line number in the source text (as passed to [`parse_line`]).
    pub line: usize,
    /// The position described by the FEN part of the line.
    pub position: Chess,
    /// The FEN as given, its fields joined by single spaces: 4 fields, or 6
    /// when the halfmove clock and fullmove number were present.
    pub fen: String,
    /// The `id` operand, without quotes (`None` if absent or empty).
    pub id: Option<String>,
    /// Moves of the `bm` (best move) operation, in the order given.
    pub best_moves: Vec<Move>,
    /// Moves of the `am` (avoid move) operation, in the order given.
    pub avoid_moves: Vec<Move>,
    /// Mate distance in moves, from `bm #N` / `bm #-N` (a `bm` whose only operand is `#N`)
    /// or `dm N`: positive, the side to move mates in N moves; negative, the side to move
    /// is mated in |N| moves (against its best defence). Never 0; `None` when the line has
    /// neither.
    pub mate: Option<i32>,
    /// STS-style `c0 "f5=10, Be5+=2"` move/points pairs, in the order given;
    /// empty if there is no `c0` or it is a plain comment.
    pub points: Vec<(Move, u32)>,
    /// Every operation in order as `(opcode, operand text)`. The operand text
    /// is the raw text between the opcode and the terminating `;`, trimmed,
    /// with the double quotes delimiting quoted strings removed. Free-text
    /// annotations of a mate record (text between `;` that does not start
    /// with an opcode) are not operations and are not kept.
    pub ops: Vec<(String, String)>,
}

/// Why one EPD line could not be turned into an [`EpdRecord`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EpdError {
    /// The FEN part is malformed or describes an illegal position.
    #[error("bad FEN{}: {reason}", if .fen.is_empty() { String::new() } else { format!(" '{}'", excerpt(.fen)) })]
    BadFen {
        /// The FEN text as found on the line.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A move is not legal in the position, or not readable as SAN or UCI.
    #[error("illegal move '{}' in {}", excerpt(.mv), excerpt(.opcode))]
    IllegalMove {
        /// The move as written.
        mv: String,
        /// The operation it appeared in (`bm`, `am`, `c0`, `c9`).
        opcode: String,
    },
    /// A SAN move matches more than one legal move.
    #[error("ambiguous move '{}' in {}", excerpt(.mv), excerpt(.opcode))]
    AmbiguousMove {
        /// The move as written.
        mv: String,
        /// The operation it appeared in.
        opcode: String,
    },
    /// The line has neither `bm`, `am`, `dm` nor a move=points `c0` operation.
    #[error(
        "no bm, am or dm operation, and no c0 of move=points pairs (such as c0 \"f5=10, Be5+=2\"; any other c0 is a comment)"
    )]
    NoMoves,
    /// A `bm` or `am` operation lists no moves.
    #[error("{opcode} operation lists no moves")]
    EmptyMoveList {
        /// The operation (`bm` or `am`).
        opcode: String,
    },
    /// A mate distance (`#N` in `bm`, `N` in `dm`) is not a whole number of
    /// moves, or is 0 (or, in `dm`, negative).
    #[error("bad mate distance '{}' in {opcode}: expected {expected}", excerpt(.operand))]
    BadMate {
        /// The operation (`bm` or `dm`).
        opcode: String,
        /// The operand as written (`#0`, `#x`, `0`).
        operand: String,
        /// What a valid operand looks like.
        expected: &'static str,
    },
    /// A `bm` lists a mate distance (`#N`) beside other operands.
    #[error("bm mate distance '{}' must be its only operand", excerpt(.operand))]
    MateWithMoves {
        /// The mate operand as written.
        operand: String,
    },
    /// `bm #N` and `dm M` give different mate distances.
    #[error("bm #{bm} disagrees with dm {dm}")]
    MateConflict {
        /// The `bm` mate distance, moves.
        bm: i32,
        /// The `dm` mate distance, moves.
        dm: i32,
    },
    /// An opcode does not start with a letter or contains characters other
    /// than letters, digits and `_`.
    #[error("invalid opcode '{}'", excerpt(.opcode))]
    InvalidOpcode {
        /// The offending opcode text.
        opcode: String,
    },
    /// A quoted operand has no closing `"`.
    #[error("unterminated quote in {} operation", excerpt(.opcode))]
    UnterminatedQuote {
        /// The operation containing the open quote.
        opcode: String,
    },
    /// An operation this parser interprets (`bm`, `am`, `dm`, `id`, `c0`, `c9`)
    /// appears more than once.
    #[error("duplicate {opcode} operation")]
    DuplicateOperation {
        /// The repeated opcode.
        opcode: String,
    },
    /// A move is both a best move (`bm`) and one to avoid (`am`): the record contradicts itself.
    #[error("move '{mv}' is in both bm and am: a position cannot ask for a move and forbid it")]
    BestAndAvoid {
        /// The move, in UCI notation.
        mv: String,
    },
    /// A `bm` move is not among the `c0` moves with the most points, which score the position.
    #[error(
        "bm move '{mv}' is not a c0 move with the most points ({top}): the position is scored by c0, so the two must agree"
    )]
    BestNotTop {
        /// The move, in UCI notation.
        mv: String,
        /// The most points c0 gives.
        top: u32,
    },
    /// The side to move has no legal move: there is nothing to search or find.
    #[error("the game is already over here ({how}): the side to move has no move to find")]
    Finished {
        /// `checkmate` or `stalemate`.
        how: &'static str,
    },
    /// The halfmove clock has reached the fifty-move rule's 100: the draw can be claimed at
    /// once, so the search answers a drawn game, not the position.
    #[error(
        "halfmove clock {halfmoves}: at 100 or more the fifty-move rule lets either side claim the draw, so a search scores the position as drawn; set the clock field to 0 (or leave both clock fields out)"
    )]
    FiftyMoves {
        /// The clock as written on the line.
        halfmoves: String,
    },
    /// A `c0` list of move=points pairs has an entry that is not one.
    #[error(
        "c0 entry '{entry}' is not move=points (such as f5=10) while the others are: fix or remove it"
    )]
    BadPoints {
        /// The entry as written.
        entry: String,
    },
    /// `c9` lists a different number of moves than the `c0` points.
    #[error("c9 lists {c9} moves but c0 lists {c0}")]
    C9CountMismatch {
        /// Number of move=points pairs in `c0`.
        c0: usize,
        /// Number of UCI moves in `c9`.
        c9: usize,
    },
    /// A `c0` move and the `c9` move at the same position are different moves.
    #[error("c0 move '{}' disagrees with c9 move '{}'", excerpt(.c0), excerpt(.c9))]
    C9Conflict {
        /// The `c0` move as written.
        c0: String,
        /// The `c9` move as written.
        c9: String,
    },
}

/// A parsed suite file: its records and the lines skipped, each with its reason.
pub type ParsedSuite = Parsed<EpdRecord>;

/// Parses one EPD line. `line` is the 1-based line number stored in the
/// record.
///
/// Returns `Ok(None)` for blank lines and lines starting with `#`.
/// Surrounding whitespace and control characters (CR, NUL, BOM) are ignored.
///
/// # Errors
///
/// Returns an [`EpdError`] if the FEN is malformed or illegal, an operation
/// is malformed, a move or mate distance cannot be read, or there is no
/// `bm`, `am`, `dm` or move=points `c0` operation. Text between `;` that
/// does not start with an opcode is an error too, except after the first
/// operation of a mate record (`bm #N`, `dm N`), where it is matetrack's
/// free-text annotation and ignored.
pub fn parse_line(text: &str, line: usize) -> Result<Option<EpdRecord>, EpdError> {
    let Some((position, fen, rest)) = parse_position(text)? else {
        return Ok(None);
    };

    if shakmaty::Position::legal_moves(&position).is_empty() {
        return Err(EpdError::Finished {
            how: if shakmaty::Position::is_check(&position) {
                "checkmate"
            } else {
                "stalemate"
            },
        });
    }
    if shakmaty::Position::halfmoves(&position) >= 100 {
        // As written: a clock too large for a number is not quoted as the largest one.
        let written = fen.split_whitespace().nth(4).map(str::to_string);
        return Err(EpdError::FiftyMoves {
            halfmoves: written
                .unwrap_or_else(|| shakmaty::Position::halfmoves(&position).to_string()),
        });
    }
    let (operations, annotation) = parse_operations(rest)?;
    let mate = mate_of(&operations)?;
    if let Some(error) = annotation
        && mate.is_none()
    {
        return Err(error);
    }
    let interpreted = interpret(&position, &operations)?;
    if interpreted.best_moves.is_empty()
        && interpreted.avoid_moves.is_empty()
        && interpreted.points.is_empty()
        && mate.is_none()
    {
        return Err(EpdError::NoMoves);
    }

    Ok(Some(EpdRecord {
        line,
        position,
        fen,
        id: interpreted.id,
        best_moves: interpreted.best_moves,
        avoid_moves: interpreted.avoid_moves,
        mate,
        points: interpreted.points,
        ops: operations
            .into_iter()
            .map(|op| (op.opcode.to_owned(), op.text))
            .collect(),
    }))
}

/// Parses a whole suite given as text. Every line ends up as a record, a
/// [`SkippedLine`](crate::formats::SkippedLine) (with `path_for_messages` and the reason), or is ignored
/// as blank or comment. Lines are numbered from 1; `\n` and `\r\n` endings
/// are both accepted.
pub fn parse_str(path_for_messages: &str, text: &str) -> ParsedSuite {
    parse_lines(path_for_messages, text.as_bytes(), |raw, line| {
        parse_line(raw, line)
    })
}

/// Parses the position part of an EPD or FEN line: 4 FEN fields, or 6 when the halfmove
/// clock and fullmove number follow. Returns the position, its FEN (fields joined by single
/// spaces) and the rest of the line (the operations), or `Ok(None)` for blank lines and lines
/// starting with `#`. Also used for opening books.
///
/// # Errors
///
/// [`EpdError::BadFen`] if the fields are missing, malformed or describe an illegal position.
pub fn parse_position(text: &str) -> Result<Option<(Chess, String, &str)>, EpdError> {
    let text = trim_line(text);
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let (fields, rest) = split_fen(text)?;
    let fen = fields.join(" ");
    let position = Fen::from_ascii(fen.as_bytes())
        .map_err(|e| e.to_string())
        .and_then(|f| {
            f.into_position::<Chess>(CastlingMode::Standard)
                .map_err(|e| e.to_string())
        })
        .map_err(|reason| EpdError::BadFen {
            fen: fen.clone(),
            reason,
        })?;
    Ok(Some((position, fen, rest)))
}

/// Reads and parses a suite file (see [`parse_str`]). Bytes that are not
/// valid UTF-8 are replaced rather than rejected.
///
/// # Errors
///
/// [`DataFileError::Unreadable`] if the file cannot be read,
/// [`DataFileError::Empty`] if it yields neither records nor skipped
/// lines (empty, or only blank and comment lines), and
/// [`DataFileError::Unusable`] if every line is bad.
pub fn parse_file(path: &Path) -> Result<ParsedSuite, DataFileError> {
    parse_bytes(&path.display().to_string(), &read_bytes(path, "")?)
}

/// Parses the contents of a suite file already read (`path` names it in messages). Bytes that
/// are not valid UTF-8 are replaced rather than rejected.
///
/// # Errors
///
/// [`DataFileError::Empty`] if it yields neither records nor skipped lines.
pub fn parse_bytes(path: &str, bytes: &[u8]) -> Result<ParsedSuite, DataFileError> {
    let suite = parse_lines(path, bytes, parse_line);
    if suite.records.is_empty() {
        return Err(match suite.skipped.first() {
            None => DataFileError::Empty {
                path: path.to_string(),
                what: "positions",
            },
            Some(first) => DataFileError::Unusable {
                path: path.to_string(),
                what: "positions",
                count: suite.skipped.len(),
                first: Box::new(first.clone()),
            },
        });
    }
    Ok(suite)
}

// ---------------------------------------------------------------------------
// Lexing helpers
// ---------------------------------------------------------------------------

fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b.is_ascii_control()
}

fn skip_spaces(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && is_space(bytes[pos]) {
        pos += 1;
    }
    pos
}

/// Reads the next FEN field starting at `pos`: returns its byte range, or
/// `None` at the end of the line or at a `;` (which ends the FEN).
fn next_fen_field(bytes: &[u8], pos: usize) -> Option<(usize, usize)> {
    let start = skip_spaces(bytes, pos);
    if start >= bytes.len() || bytes[start] == b';' {
        return None;
    }
    let mut end = start;
    while end < bytes.len() && !is_space(bytes[end]) && bytes[end] != b';' {
        end += 1;
    }
    Some((start, end))
}

fn is_number(field: &str) -> bool {
    !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit())
}

/// Splits the FEN fields off the front of a line; returns them and the rest
/// of the line (the operations).
fn split_fen(text: &str) -> Result<(Vec<&str>, &str), EpdError> {
    let bytes = text.as_bytes();
    let mut fields = Vec::with_capacity(6);
    let mut pos = 0;
    while fields.len() < 4 {
        match next_fen_field(bytes, pos) {
            Some((start, end)) => {
                fields.push(&text[start..end]);
                pos = end;
            }
            None if fields.is_empty() => {
                return Err(EpdError::BadFen {
                    fen: String::new(),
                    reason: format!(
                        "the line has no FEN before '{}' (a comment line starts with #)",
                        excerpt(
                            text.chars()
                                .next()
                                .map(String::from)
                                .as_deref()
                                .unwrap_or("")
                        )
                    ),
                });
            }
            None => {
                return Err(EpdError::BadFen {
                    fen: fields.join(" "),
                    reason: format!("expected at least 4 fields, found {}", fields.len()),
                });
            }
        }
    }
    // Opcodes start with a letter, so numeric fields 5 and 6 can only be the
    // halfmove clock and fullmove number.
    if let Some((s5, e5)) = next_fen_field(bytes, pos) {
        let halfmoves = &text[s5..e5];
        // A negative clock is a clock written wrong, not an opcode (opcodes start with a letter).
        let negative = |field: &str| field.strip_prefix('-').is_some_and(is_number);
        let sixth = next_fen_field(bytes, e5).map(|(s6, e6)| &text[s6..e6]);
        for (field, what) in [
            (Some(halfmoves), "halfmove clock"),
            (sixth, "fullmove number"),
        ] {
            if let Some(field) = field.filter(|f| negative(f)) {
                return Err(EpdError::BadFen {
                    fen: format!(
                        "{} {halfmoves}{}",
                        fields.join(" "),
                        sixth.map_or(String::new(), |f| format!(" {f}"))
                    ),
                    reason: format!(
                        "{what} '{field}' is negative: the clocks are whole numbers (the halfmove clock 0 to 99), or leave both out"
                    ),
                });
            }
            if !is_number(halfmoves) {
                break;
            }
        }
        if is_number(halfmoves) {
            match next_fen_field(bytes, e5) {
                Some((s6, e6)) if is_number(&text[s6..e6]) => {
                    fields.push(halfmoves);
                    fields.push(&text[s6..e6]);
                    pos = e6;
                }
                _ => {
                    fields.push(halfmoves);
                    return Err(EpdError::BadFen {
                        fen: fields.join(" "),
                        reason: format!("halfmove clock '{halfmoves}' without fullmove number"),
                    });
                }
            }
        }
    }
    Ok((fields, &text[pos..]))
}

/// One operation as written on the line.
#[derive(Debug)]
struct Operation<'a> {
    opcode: &'a str,
    /// Raw operand text, trimmed, delimiting quotes removed.
    text: String,
    /// Operand tokens: quoted strings (without quotes) or bare words.
    tokens: Vec<&'a str>,
}

fn valid_opcode(opcode: &str) -> bool {
    let mut chars = opcode.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits the operation part of a line into operations, respecting double
/// quotes (a `;` inside quotes does not end an operation). Empty operations
/// (`;;`, a leading `;`) are ignored and the final `;` is optional.
///
/// After the first operation, text up to the next `;` that does not start
/// with an opcode (matetrack's `00:00 @ C0/R-2/K2/P9/X35`, `00'40" (Gustav)`)
/// is skipped as an annotation, quotes and all; the error it would be comes
/// back beside the operations (the first such), for the caller to raise
/// unless the record is a mate record. Before any operation it is an error.
fn parse_operations(text: &str) -> Result<(Vec<Operation<'_>>, Option<EpdError>), EpdError> {
    let bytes = text.as_bytes();
    let mut ops = Vec::new();
    let mut annotation = None;
    let mut pos = 0;
    loop {
        while pos < bytes.len() && (is_space(bytes[pos]) || bytes[pos] == b';') {
            pos += 1;
        }
        if pos >= bytes.len() {
            break;
        }
        let start = pos;
        while pos < bytes.len() && !is_space(bytes[pos]) && bytes[pos] != b';' && bytes[pos] != b'"'
        {
            pos += 1;
        }
        let opcode = &text[start..pos];
        if !valid_opcode(opcode) {
            // Report the whole offending word, e.g. `"id"` or `12`.
            let mut end = pos;
            while end < bytes.len() && !is_space(bytes[end]) && bytes[end] != b';' {
                end += 1;
            }
            let error = EpdError::InvalidOpcode {
                opcode: text[start..end].to_owned(),
            };
            if ops.is_empty() {
                return Err(error);
            }
            annotation.get_or_insert(error);
            while pos < bytes.len() && bytes[pos] != b';' {
                pos += 1;
            }
            continue;
        }

        let operand_start = pos;
        let mut tokens = Vec::new();
        loop {
            pos = skip_spaces(bytes, pos);
            if pos >= bytes.len() || bytes[pos] == b';' {
                break;
            }
            if bytes[pos] == b'"' {
                let inner = pos + 1;
                let close = text[inner..].find('"').map(|i| inner + i).ok_or_else(|| {
                    EpdError::UnterminatedQuote {
                        opcode: opcode.to_owned(),
                    }
                })?;
                tokens.push(&text[inner..close]);
                pos = close + 1;
            } else {
                let word = pos;
                while pos < bytes.len()
                    && !is_space(bytes[pos])
                    && bytes[pos] != b';'
                    && bytes[pos] != b'"'
                {
                    pos += 1;
                }
                tokens.push(&text[word..pos]);
            }
        }
        let raw = text[operand_start..pos].trim_matches(is_junk);
        ops.push(Operation {
            opcode,
            text: raw.replace('"', ""),
            tokens,
        });
    }
    Ok((ops, annotation))
}

// ---------------------------------------------------------------------------
// Interpretation of operations
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Interpreted {
    id: Option<String>,
    best_moves: Vec<Move>,
    avoid_moves: Vec<Move>,
    points: Vec<(Move, u32)>,
}

fn interpret(pos: &Chess, ops: &[Operation<'_>]) -> Result<Interpreted, EpdError> {
    const INTERPRETED: [&str; 6] = ["bm", "am", "dm", "id", "c0", "c9"];
    for (i, op) in ops.iter().enumerate() {
        if INTERPRETED.contains(&op.opcode) && ops[..i].iter().any(|o| o.opcode == op.opcode) {
            return Err(EpdError::DuplicateOperation {
                opcode: op.opcode.to_owned(),
            });
        }
    }
    let find = |opcode: &str| ops.iter().find(|op| op.opcode == opcode);

    let mut out = Interpreted {
        id: find("id")
            .map(|op| op.text.clone())
            .filter(|s| !s.is_empty()),
        ..Interpreted::default()
    };
    // Interpret in line order so that the first bad move reported is the
    // first one on the line.
    for op in ops {
        match op.opcode {
            // A mate distance (`bm #3`, read by `mate_of`) is not a move.
            "bm" if words(op).any(is_mate_word) => {}
            "bm" => out.best_moves = resolve_move_list(pos, op)?,
            "am" => out.avoid_moves = resolve_move_list(pos, op)?,
            "c0" => {
                let pairs = points_pairs(&op.text).map_err(|entry| EpdError::BadPoints {
                    entry: excerpt(&entry),
                })?;
                if let Some(pairs) = pairs {
                    out.points = resolve_points(pos, &pairs, find("c9"))?;
                }
            }
            _ => {}
        }
    }
    // A c9 of UCI moves without a c0 to pair with still names moves of the position: each must
    // be legal (a c9 of other text is a comment).
    if find("c0").is_none()
        && let Some(words) = find("c9").and_then(uci_words)
        && let Some(bad) = words.iter().find(|w| {
            UciMove::from_ascii(w.as_bytes())
                .ok()
                .and_then(|uci| uci.to_move(pos).ok())
                .is_none()
        })
    {
        return Err(EpdError::IllegalMove {
            mv: (*bad).to_owned(),
            opcode: "c9".to_owned(),
        });
    }
    // A position scored by its c0 points must not say otherwise in bm: each best move is one of
    // the c0 moves with the most points.
    if let Some(top) = out.points.iter().map(|(_, p)| *p).max()
        && let Some(m) = out
            .best_moves
            .iter()
            .find(|m| !out.points.iter().any(|(c, p)| c == *m && *p == top))
    {
        return Err(EpdError::BestNotTop {
            mv: m.to_uci(CastlingMode::Standard).to_string(),
            top,
        });
    }
    if let Some(m) = out.best_moves.iter().find(|m| out.avoid_moves.contains(m)) {
        return Err(EpdError::BestAndAvoid {
            mv: m.to_uci(CastlingMode::Standard).to_string(),
        });
    }
    Ok(out)
}

/// The words of a `bm`/`am` operand: its tokens split at spaces and commas.
fn words<'t>(op: &Operation<'t>) -> impl Iterator<Item = &'t str> {
    op.tokens
        .iter()
        .flat_map(|t| t.split(|c: char| c == ',' || is_junk(c)))
        .filter(|w| !w.is_empty())
}

/// Whether a `bm` word is a mate distance (`#3`, `#-3`, or a bad one such as
/// `#x`): `#` followed by more than check and glyph signs (a lone `#` is the
/// mate sign of the move before it).
fn is_mate_word(word: &str) -> bool {
    word.starts_with('#') && !is_suffix_only(word)
}

/// Reads a nonzero whole number of moves, optionally negative (`3`, `-3`).
fn mate_number(text: &str) -> Option<i32> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !is_number(digits) {
        return None;
    }
    text.parse().ok().filter(|&n| n != 0)
}

/// The mate distance of the line, moves (see [`EpdRecord::mate`]): from a
/// `bm` whose only operand is `#N`, or from `dm N`; both must agree.
fn mate_of(ops: &[Operation<'_>]) -> Result<Option<i32>, EpdError> {
    let find = |opcode: &str| ops.iter().find(|op| op.opcode == opcode);
    let bm = match find("bm").and_then(|op| words(op).find(|w| is_mate_word(w)).map(|w| (op, w))) {
        None => None,
        Some((op, word)) if words(op).count() > 1 => {
            return Err(EpdError::MateWithMoves {
                operand: word.to_owned(),
            });
        }
        Some((_, word)) => Some(mate_number(&word[1..]).ok_or_else(|| EpdError::BadMate {
            opcode: "bm".to_owned(),
            operand: word.to_owned(),
            expected: "#N or #-N, N a nonzero whole number of moves",
        })?),
    };
    let dm = match find("dm") {
        None => None,
        Some(op) => {
            Some(
                mate_number(&op.text)
                    .filter(|&n| n > 0)
                    .ok_or_else(|| EpdError::BadMate {
                        opcode: "dm".to_owned(),
                        operand: op.text.clone(),
                        expected: "a positive whole number of moves",
                    })?,
            )
        }
    };
    match (bm, dm) {
        (Some(bm), Some(dm)) if bm != dm => Err(EpdError::MateConflict { bm, dm }),
        (bm, dm) => Ok(bm.or(dm)),
    }
}

/// Whether a token is only annotation: check/mate signs or `!`/`?` glyphs
/// (e.g. the `+` in Bratko-Kopec's `bm Qd1 +`).
fn is_suffix_only(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| matches!(b, b'+' | b'#' | b'!' | b'?'))
}

/// Removes trailing `+`, `#`, `!` and `?` from a move and maps the zero
/// castling spelling (`0-0`) to the letter one.
fn move_core(token: &str) -> String {
    let core = token.trim_end_matches(['+', '#', '!', '?']);
    match core {
        "0-0" => "O-O".to_owned(),
        "0-0-0" => "O-O-O".to_owned(),
        _ => core.to_owned(),
    }
}

/// Resolves one move written in SAN (annotations allowed) or, failing that,
/// in UCI notation.
fn resolve_move(pos: &Chess, token: &str, opcode: &str) -> Result<Move, EpdError> {
    let core = move_core(token);
    let san_error = match San::from_ascii(core.as_bytes()) {
        Ok(san) => match san.to_move(pos) {
            Ok(m) => return Ok(m),
            Err(e) => Some(e),
        },
        Err(_) => None,
    };
    if let Some(m) = UciMove::from_ascii(core.as_bytes())
        .ok()
        .and_then(|uci| uci.to_move(pos).ok())
    {
        return Ok(m);
    }
    let (mv, opcode) = (token.to_owned(), opcode.to_owned());
    Err(match san_error {
        Some(SanError::AmbiguousSan) => EpdError::AmbiguousMove { mv, opcode },
        _ => EpdError::IllegalMove { mv, opcode },
    })
}

/// Resolves the moves of a `bm`/`am` operation: separated by spaces (or
/// commas), with check signs possibly standing alone after their move.
fn resolve_move_list(pos: &Chess, op: &Operation<'_>) -> Result<Vec<Move>, EpdError> {
    let mut moves: Vec<Move> = Vec::new();
    let mut previous: Option<&str> = None;
    for word in words(op) {
        if is_suffix_only(word) {
            if previous.is_none() {
                return Err(EpdError::IllegalMove {
                    mv: word.to_owned(),
                    opcode: op.opcode.to_owned(),
                });
            }
            continue;
        }
        let m = resolve_move(pos, word, op.opcode)?;
        if !moves.contains(&m) {
            moves.push(m);
        }
        previous = Some(word);
    }
    if moves.is_empty() {
        return Err(EpdError::EmptyMoveList {
            opcode: op.opcode.to_owned(),
        });
    }
    Ok(moves)
}

/// Reads `"f5=10, Be5+=2"` as move/points pairs; `Ok(None)` if no entry is in that form
/// (then the `c0` is an ordinary comment), and the first entry that is not when others are
/// (`"f5=abc, Be5+=2"`: a points list with a broken entry, which would otherwise be dropped).
fn points_pairs(text: &str) -> Result<Option<Vec<(&str, u32)>>, String> {
    fn pair(part: &str) -> Option<(&str, u32)> {
        // rsplit: promotions such as `e8=Q=10` contain '=' themselves.
        let (mv, points) = part.rsplit_once('=')?;
        let mv = mv.trim_matches(is_junk);
        let points = points.trim_matches(is_junk);
        if mv.is_empty() || mv.contains(is_junk) || !is_number(points) {
            return None;
        }
        Some((mv, points.parse().ok()?))
    }
    let mut pairs = Vec::new();
    let mut broken = None;
    for part in text.split(',') {
        let part = part.trim_matches(is_junk);
        if part.is_empty() {
            continue;
        }
        match pair(part) {
            Some(p) => pairs.push(p),
            None => broken = broken.or(Some(part)),
        }
    }
    match (pairs.is_empty(), broken) {
        (true, _) => Ok(None),
        (false, None) => Ok(Some(pairs)),
        (false, Some(part)) => Err(part.to_string()),
    }
}

/// The words of a `c9` made only of UCI moves (`None` for a `c9` of other text: a comment).
fn uci_words<'t>(op: &'t Operation<'_>) -> Option<Vec<&'t str>> {
    let words: Vec<&str> = op.text.split(is_junk).filter(|w| !w.is_empty()).collect();
    let moves = !words.is_empty()
        && words
            .iter()
            .all(|w| UciMove::from_ascii(w.as_bytes()).is_ok());
    moves.then_some(words)
}

/// Resolves `c0` move/points pairs. A `c9` made only of UCI moves is the
/// same list in UCI notation: it must have the same length, each of its
/// moves must be legal and agree with the `c0` move at the same index, and
/// it resolves `c0` moves whose SAN does not.
fn resolve_points(
    pos: &Chess,
    pairs: &[(&str, u32)],
    c9: Option<&Operation<'_>>,
) -> Result<Vec<(Move, u32)>, EpdError> {
    let c9_words = c9.and_then(uci_words);
    if let Some(words) = &c9_words
        && words.len() != pairs.len()
    {
        return Err(EpdError::C9CountMismatch {
            c0: pairs.len(),
            c9: words.len(),
        });
    }

    let mut points = Vec::with_capacity(pairs.len());
    for (i, &(san, value)) in pairs.iter().enumerate() {
        let from_c0 = resolve_move(pos, san, "c0");
        let from_c9 = match &c9_words {
            Some(words) => Some(
                UciMove::from_ascii(words[i].as_bytes())
                    .ok()
                    .and_then(|uci| uci.to_move(pos).ok())
                    .map(|m| (words[i], m))
                    .ok_or_else(|| EpdError::IllegalMove {
                        mv: words[i].to_owned(),
                        opcode: "c9".to_owned(),
                    })?,
            ),
            None => None,
        };
        let m = match (from_c0, from_c9) {
            (Ok(a), Some((word, b))) if a != b => {
                return Err(EpdError::C9Conflict {
                    c0: san.to_owned(),
                    c9: word.to_owned(),
                });
            }
            (Ok(a), _) => a,
            (Err(_), Some((_, b))) => b,
            (Err(e), None) => return Err(e),
        };
        points.push((m, value));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    fn uci(m: &Move) -> String {
        UciMove::from_standard(*m).to_string()
    }

    fn ucis(moves: &[Move]) -> Vec<String> {
        moves.iter().map(uci).collect()
    }

    fn record(text: &str) -> EpdRecord {
        parse_line(text, 1)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .unwrap_or_else(|| panic!("{text}: ignored"))
    }

    fn error(text: &str) -> EpdError {
        match parse_line(text, 1) {
            Err(e) => e,
            Ok(r) => panic!("{text}: expected an error, got {r:?}"),
        }
    }

    const WAC1: &str =
        r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#;

    #[test]
    fn plain_wac_line() {
        let r = parse_line(WAC1, 7).unwrap().unwrap();
        assert_eq!(r.line, 7);
        assert_eq!(
            r.fen,
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -"
        );
        assert_eq!(r.id.as_deref(), Some("WAC.001"));
        assert_eq!(ucis(&r.best_moves), ["g3g6"]);
        assert!(r.avoid_moves.is_empty());
        assert!(r.points.is_empty());
        assert_eq!(
            r.ops,
            [
                ("bm".to_owned(), "Qg6".to_owned()),
                ("id".to_owned(), "WAC.001".to_owned())
            ]
        );
        assert_eq!(r.position.turn(), shakmaty::Color::White);
    }

    #[test]
    fn bratko_kopec_layout() {
        let text = "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - ; bm Qd1 + ; id BK.01 \0\r";
        let r = record(text);
        assert_eq!(r.fen, "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - -");
        assert_eq!(ucis(&r.best_moves), ["d6d1"]);
        assert_eq!(r.id.as_deref(), Some("BK.01"));
        assert_eq!(
            r.ops,
            [
                ("bm".to_owned(), "Qd1 +".to_owned()),
                ("id".to_owned(), "BK.01".to_owned())
            ]
        );
    }

    #[test]
    fn bratko_kopec_double_space_and_two_moves() {
        let r = record(
            "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - -  ; bm Nd5 a4; id BK.05",
        );
        assert_eq!(ucis(&r.best_moves), ["c3d5", "a2a4"]);
    }

    #[test]
    fn six_field_fen() {
        let r =
            record("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 bm e4; id \"start\";");
        assert_eq!(
            r.fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert_eq!(ucis(&r.best_moves), ["e2e4"]);
        assert_eq!(r.ops.len(), 2);

        // Semicolon right after the fullmove number, odd numbers kept.
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - 12 57; bm e4;");
        assert_eq!(r.fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 12 57");
        assert_eq!(r.position.halfmoves(), 12);
        assert_eq!(r.position.fullmoves().get(), 57);
        assert_eq!(r.ops, [("bm".to_owned(), "e4".to_owned())]);
    }

    #[test]
    fn four_field_fen_with_ops_starting_with_digit_like_words() {
        // `c0` is alphanumeric but starts with a letter: not a FEN field.
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - c0 \"x\"; bm e4;");
        assert_eq!(r.fen, "4k3/8/8/8/8/8/4P3/4K3 w - -");
        assert_eq!(r.ops[0], ("c0".to_owned(), "x".to_owned()));
    }

    #[test]
    fn lone_numeric_fifth_field_is_an_error() {
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - 12 bm e4;");
        assert_eq!(
            e.to_string(),
            "bad FEN '4k3/8/8/8/8/8/4P3/4K3 w - - 12': halfmove clock '12' without fullmove number"
        );
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - 12");
        assert!(matches!(e, EpdError::BadFen { .. }), "{e}");
    }

    #[test]
    fn negative_clocks_are_named_as_clocks() {
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - -5 1 bm e4;");
        assert_eq!(
            e.to_string(),
            "bad FEN '4k3/8/8/8/8/8/4P3/4K3 w - - -5 1': halfmove clock '-5' is negative: the clocks are whole numbers (the halfmove clock 0 to 99), or leave both out"
        );
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - 0 -1 bm e4;");
        assert!(
            e.to_string().contains("fullmove number '-1' is negative"),
            "{e}"
        );
    }

    #[test]
    fn numeric_opcode_is_rejected() {
        // Three numbers: the first two are FEN fields, the third can't be an
        // opcode.
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 2 bm e4;");
        assert_eq!(e, EpdError::InvalidOpcode { opcode: "2".into() });
        assert_eq!(e.to_string(), "invalid opcode '2'");
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; 3c x;");
        assert_eq!(
            e,
            EpdError::InvalidOpcode {
                opcode: "3c".into()
            }
        );
    }

    #[test]
    fn check_mate_and_glyph_suffixes() {
        // Fool's-mate-like: black to mate with Qh4#.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq -";
        for bm in [
            "Qh4#", "Qh4+", "Qh4", "Qh4 #", "Qh4 +", "Qh4!", "Qh4!!", "Qh4#!?", "Qh4 !",
        ] {
            let r = record(&format!("{fen} bm {bm};"));
            assert_eq!(ucis(&r.best_moves), ["d8h4"], "{bm}");
        }
        // Suffix tokens after each of several moves.
        let r = record("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1 + Qc5 + ;");
        assert_eq!(ucis(&r.best_moves), ["d6d1", "d6c5"]);
        // A suffix with no move before it.
        let e = error(&format!("{fen} bm + Qh4;"));
        assert_eq!(e.to_string(), "illegal move '+' in bm");
    }

    #[test]
    fn multiple_best_moves() {
        let r = record(
            "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - ; bm Qd2 Qe1; id BK.14",
        );
        assert_eq!(ucis(&r.best_moves), ["d1d2", "d1e1"]);
        // Commas as separators, and a repeated move counted once.
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - bm e4, e3 e4;");
        assert_eq!(ucis(&r.best_moves), ["e2e4", "e2e3"]);
    }

    #[test]
    fn avoid_moves() {
        let r = record(r#"8/1p6/p5R1/k7/Prpp4/K7/1NP5/8 w - - am Rd6; bm Rb6 Rg5+; id "WAC.274";"#);
        assert_eq!(ucis(&r.avoid_moves), ["g6d6"]);
        assert_eq!(ucis(&r.best_moves), ["g6b6", "g6g5"]);
        // am alone is enough for a record.
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - am e3;");
        assert!(r.best_moves.is_empty());
        assert_eq!(ucis(&r.avoid_moves), ["e2e3"]);
    }

    const STS1: &str = r#"1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id "STS(v1.0) Undermine.001"; c0 "f5=10, Be5+=2, Bf2=3, Bg4=2"; c7 "f5 Be5+ Bf2 Bg4"; c8 "10 2 3 2"; c9 "f4f5 d4e5 d4f2 f3g4";"#;

    #[test]
    fn sts_points_with_c9() {
        let r = record(STS1);
        assert_eq!(r.id.as_deref(), Some("STS(v1.0) Undermine.001"));
        assert_eq!(ucis(&r.best_moves), ["f4f5"]);
        let pts: Vec<(String, u32)> = r.points.iter().map(|(m, p)| (uci(m), *p)).collect();
        assert_eq!(
            pts,
            [
                ("f4f5".to_owned(), 10),
                ("d4e5".to_owned(), 2),
                ("d4f2".to_owned(), 3),
                ("f3g4".to_owned(), 2)
            ]
        );
        let opcodes: Vec<&str> = r.ops.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(opcodes, ["bm", "id", "c0", "c7", "c8", "c9"]);
        assert_eq!(r.ops[2].1, "f5=10, Be5+=2, Bf2=3, Bg4=2");
        assert_eq!(r.ops[5].1, "f4f5 d4e5 d4f2 f3g4");
    }

    #[test]
    fn sts_points_without_c9_or_bm() {
        let r = record(r#"4k3/8/8/8/8/8/4P3/4K3 w - - c0 "e4=10, e3=5";"#);
        assert!(r.best_moves.is_empty());
        let pts: Vec<(String, u32)> = r.points.iter().map(|(m, p)| (uci(m), *p)).collect();
        assert_eq!(pts, [("e2e4".to_owned(), 10), ("e2e3".to_owned(), 5)]);
    }

    #[test]
    fn bm_must_be_a_top_move_of_c0() {
        let e = error(r#"4k3/8/8/8/8/8/4P3/4K3 w - - bm e3; c0 "e4=10, e3=5";"#);
        assert!(
            e.to_string().contains("bm move 'e2e3' is not a c0 move"),
            "{e}"
        );
        assert!(
            record(r#"4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; c0 "e4=10, e3=5";"#)
                .points
                .len()
                == 2
        );
    }

    #[test]
    fn finished_positions_are_refused() {
        let e = error("7k/5Q2/6K1/8/8/8/8/8 b - - dm 1;");
        assert!(e.to_string().contains("(stalemate)"), "{e}");
        let e = error("7k/6Q1/6K1/8/8/8/8/8 b - - bm Kh7;");
        assert!(e.to_string().contains("(checkmate)"), "{e}");
    }

    #[test]
    fn a_clock_past_the_fifty_move_rule_is_refused() {
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - 99999 1 bm e4;");
        assert!(e.to_string().starts_with("halfmove clock 99999: "), "{e}");
        // Quoted as written, not as the largest number a clock holds.
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - 99999999999999999999 1 bm e4;");
        assert!(
            e.to_string()
                .starts_with("halfmove clock 99999999999999999999: "),
            "{e}"
        );
        assert_eq!(
            record("4k3/8/8/8/8/8/4P3/4K3 w - - 99 60 bm e4;")
                .position
                .halfmoves(),
            99
        );
    }

    #[test]
    fn a_c9_without_c0_names_legal_moves() {
        let e = error(r#"4k3/8/8/8/8/8/8/4K3 w - - bm Kd1; c9 "e2e4";"#);
        assert_eq!(e.to_string(), "illegal move 'e2e4' in c9");
        // Legal moves, or a c9 that is a comment, pass.
        record(r#"4k3/8/8/8/8/8/8/4K3 w - - bm Kd1; c9 "e1d1 e1f1";"#);
        record(r#"4k3/8/8/8/8/8/8/4K3 w - - bm Kd1; c9 "a remark";"#);
    }

    #[test]
    fn c9_resolves_unreadable_c0_san() {
        // `e2-e4` is not SAN shakmaty reads; c9 supplies the move.
        let r = record(r#"4k3/8/8/8/8/8/4P3/4K3 w - - c0 "e2-e4=10, e3=5"; c9 "e2e4 e2e3";"#);
        assert_eq!(
            ucis(&r.points.iter().map(|p| p.0).collect::<Vec<_>>()),
            ["e2e4", "e2e3"]
        );
        // Without c9 the same c0 is an error.
        let e = error(r#"4k3/8/8/8/8/8/4P3/4K3 w - - c0 "e2-e4=10, e3=5";"#);
        assert_eq!(e.to_string(), "illegal move 'e2-e4' in c0");
    }

    #[test]
    fn c9_cross_check_failures() {
        let base = "4k3/8/8/8/8/8/4P3/4K3 w - - c0 \"e4=10, e3=5\";";
        let e = error(&format!("{base} c9 \"e2e3 e2e4\";"));
        assert_eq!(e.to_string(), "c0 move 'e4' disagrees with c9 move 'e2e3'");
        let e = error(&format!("{base} c9 \"e2e4\";"));
        assert_eq!(e.to_string(), "c9 lists 1 moves but c0 lists 2");
        let e = error(&format!("{base} c9 \"e2e4 e2e5\";"));
        assert_eq!(e.to_string(), "illegal move 'e2e5' in c9");
        // A c9 that is not a UCI list is just a comment.
        let r = record(&format!("{base} c9 \"see the book\";"));
        assert_eq!(r.points.len(), 2);
    }

    #[test]
    fn promotion_in_c0_points() {
        let r = record(r#"8/4P2k/8/8/8/8/8/4K3 w - - c0 "e8=Q=10, e8=N=1";"#);
        let pts: Vec<(String, u32)> = r.points.iter().map(|(m, p)| (uci(m), *p)).collect();
        assert_eq!(pts, [("e7e8q".to_owned(), 10), ("e7e8n".to_owned(), 1)]);
    }

    #[test]
    fn c0_comment_is_not_points() {
        let text = r#"r3r1k1/5p2/pQ1b2pB/1p6/4p3/6P1/Pq2BP1P/2R3K1 b - - bm Ba3 Be5 Bf8 e3; c0 "All win but e3 is best."; id "WAC.150";"#;
        let r = record(text);
        assert!(r.points.is_empty());
        assert_eq!(r.best_moves.len(), 4);
        assert_eq!(
            r.ops[1],
            ("c0".to_owned(), "All win but e3 is best.".to_owned())
        );
        // A comment c0 alone does not make a record.
        assert_eq!(
            error(r#"4k3/8/8/8/8/8/4P3/4K3 w - - c0 "just a note";"#),
            EpdError::NoMoves
        );
        assert_eq!(points_pairs("a=b"), Ok(None));
        assert_eq!(points_pairs("Nunn, 1992"), Ok(None));
        assert_eq!(points_pairs("e4=10, nonsense"), Err("nonsense".to_string()));
        assert_eq!(points_pairs("f5=abc, Be5+=2"), Err("f5=abc".to_string()));
        assert_eq!(points_pairs("e 4=10"), Ok(None));
        assert_eq!(points_pairs(""), Ok(None));
        assert_eq!(points_pairs("e4=10,"), Ok(Some(vec![("e4", 10)])));
    }

    #[test]
    fn quoted_semicolons() {
        let r = record(r#"4k3/8/8/8/8/8/4P3/4K3 w - - id "odd;id"; c1 "a; b;c" ; bm e4; c2 "";"#);
        assert_eq!(r.id.as_deref(), Some("odd;id"));
        assert_eq!(
            r.ops,
            [
                ("id".to_owned(), "odd;id".to_owned()),
                ("c1".to_owned(), "a; b;c".to_owned()),
                ("bm".to_owned(), "e4".to_owned()),
                ("c2".to_owned(), String::new()),
            ]
        );
    }

    #[test]
    fn operations_without_operands_and_final_semicolon() {
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - noop; bm e4 ;; id x y");
        assert_eq!(
            r.ops,
            [
                ("noop".to_owned(), String::new()),
                ("bm".to_owned(), "e4".to_owned()),
                ("id".to_owned(), "x y".to_owned()),
            ]
        );
    }

    #[test]
    fn unterminated_quote() {
        let e = error(r#"4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; id "oops;"#);
        assert_eq!(e.to_string(), "unterminated quote in id operation");
    }

    #[test]
    fn duplicate_and_empty_operations() {
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; bm e3;");
        assert_eq!(e.to_string(), "duplicate bm operation");
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - bm ; id x;");
        assert_eq!(e.to_string(), "bm operation lists no moves");
        // Uninterpreted opcodes may repeat.
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; c5 a; c5 b;");
        assert_eq!(r.ops.len(), 3);
    }

    #[test]
    fn bad_fen() {
        let e = error("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;");
        assert_eq!(
            e.to_string(),
            "bad FEN 'rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -': invalid board part in fen"
        );
        let e = error("xyz w - - bm e4;");
        assert!(e.to_string().starts_with("bad FEN 'xyz w - -': "), "{e}");
        let e = error("4k3/8/8/8/8/8/4P3/4K3 x - - bm e4;");
        assert!(e.to_string().contains("invalid turn"), "{e}");
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w");
        assert_eq!(
            e.to_string(),
            "bad FEN '4k3/8/8/8/8/8/4P3/4K3 w': expected at least 4 fields, found 2"
        );
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - ; bm e4;");
        assert!(matches!(e, EpdError::BadFen { .. }), "{e}");
    }

    #[test]
    fn illegal_position_is_bad_fen() {
        // White to move while the black king is in check from the rook.
        let e = error("4k3/8/8/8/8/8/8/4RK2 w - - bm Re2;");
        match &e {
            EpdError::BadFen { fen, reason } => {
                assert_eq!(fen, "4k3/8/8/8/8/8/8/4RK2 w - -");
                assert!(reason.starts_with("illegal position"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        // No kings at all.
        let e = error("8/8/8/8/8/8/8/8 w - - bm e4;");
        assert!(e.to_string().contains("illegal position"), "{e}");
        // Castling rights without the rook.
        let e = error("4k3/8/8/8/8/8/8/4K3 w K - bm Kd1;");
        assert!(e.to_string().contains("invalid castling rights"), "{e}");
    }

    #[test]
    fn illegal_moves() {
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - bm Qh9;");
        assert_eq!(e.to_string(), "illegal move 'Qh9' in bm");
        assert_eq!(
            e,
            EpdError::IllegalMove {
                mv: "Qh9".into(),
                opcode: "bm".into()
            }
        );
        // Well-formed SAN that no piece can play.
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - bm e5;");
        assert_eq!(e.to_string(), "illegal move 'e5' in bm");
        // Black's move in a position with White to move.
        let e = error("4k3/4p3/8/8/8/8/4P3/4K3 w - - am e5;");
        assert_eq!(e.to_string(), "illegal move 'e5' in am");
        // Illegal UCI too.
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - bm e2e5;");
        assert_eq!(e.to_string(), "illegal move 'e2e5' in bm");
        // The first bad move on the line is the one reported.
        let e = error("4k3/8/8/8/8/8/4P3/4K3 w - - am Kd1 Kz1; bm Qa1;");
        assert_eq!(e.to_string(), "illegal move 'Kz1' in am");
    }

    #[test]
    fn ambiguous_move() {
        // Knights on b1 and f3 can both reach d2.
        let e = error("4k3/8/8/8/8/5N2/8/1N2K3 w - - bm Nd2;");
        assert_eq!(e.to_string(), "ambiguous move 'Nd2' in bm");
        assert_eq!(
            e,
            EpdError::AmbiguousMove {
                mv: "Nd2".into(),
                opcode: "bm".into()
            }
        );
        // Disambiguated forms work.
        let r = record("4k3/8/8/8/8/5N2/8/1N2K3 w - - bm Nbd2 Nfd2;");
        assert_eq!(ucis(&r.best_moves), ["b1d2", "f3d2"]);
    }

    #[test]
    fn uci_fallback_and_castling() {
        let r = record("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm e1g1 O-O-O;");
        assert_eq!(ucis(&r.best_moves), ["e1g1", "e1c1"]);
        let r = record("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm O-O-O; am 0-0;");
        assert_eq!(ucis(&r.avoid_moves), ["e1g1"]);
        // The same move asked for and forbidden (written two ways) contradicts itself.
        assert!(matches!(
            error("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm e1g1; am 0-0;"),
            EpdError::BestAndAvoid { mv } if mv == "e1g1"
        ));
        let r = record("4k3/8/8/8/8/8/4P3/4K3 w - - bm e2e4 Ke1d1;");
        assert_eq!(ucis(&r.best_moves), ["e2e4", "e1d1"]);
        // `e7e8q` is not SAN, so this goes through the UCI fallback.
        assert!(San::from_ascii(b"e7e8q").is_err());
        let r = record("8/4P2k/8/8/8/8/8/4K3 w - - bm e7e8q e8=N+;");
        assert_eq!(ucis(&r.best_moves), ["e7e8q", "e7e8n"]);
    }

    #[test]
    fn en_passant_san() {
        let r = record("4k3/8/8/3pP3/8/8/8/4K3 w - d6 bm exd6;");
        assert_eq!(r.fen, "4k3/8/8/3pP3/8/8/8/4K3 w - d6");
        assert_eq!(ucis(&r.best_moves), ["e5d6"]);
    }

    #[test]
    fn missing_best_move() {
        let e = error(r#"4k3/8/8/8/8/8/4P3/4K3 w - - id "x";"#);
        assert_eq!(e, EpdError::NoMoves);
        assert!(
            e.to_string()
                .starts_with("no bm, am or dm operation, and no c0 of move=points pairs"),
            "{e}"
        );
        assert_eq!(error("4k3/8/8/8/8/8/4P3/4K3 w - -"), EpdError::NoMoves);
        assert_eq!(error("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"), EpdError::NoMoves);
    }

    /// White (Ra1, Kg6) mates the black king on h8 in one: Ra8#.
    const MATE1: &str = "7k/8/6K1/8/8/8/8/R7 w - -";

    #[test]
    fn bm_mate_distance_is_not_a_move() {
        let r = record(&format!("{MATE1} bm #1;"));
        assert_eq!(r.mate, Some(1));
        assert!(r.best_moves.is_empty() && r.avoid_moves.is_empty());
        assert_eq!(r.ops, [("bm".to_owned(), "#1".to_owned())]);
        // Black to move is mated in 3: a negative distance (taken as given).
        let r = record("7k/8/6K1/8/8/8/8/R7 b - - bm #-3; id \"x\";");
        assert_eq!(r.mate, Some(-3));
        assert_eq!(r.id.as_deref(), Some("x"));
        // Moves keep their mate signs, and a lone `#` after a move is still a sign.
        for bm in ["Ra8#", "Ra8 #", "Ra8#!"] {
            let r = record(&format!("{MATE1} bm {bm};"));
            assert_eq!(
                (ucis(&r.best_moves), r.mate),
                (vec!["a1a8".to_owned()], None)
            );
        }
        assert_eq!(record(WAC1).mate, None);
    }

    #[test]
    fn dm_and_bm_mate_distances() {
        let r = record(&format!("{MATE1} dm 2;"));
        assert_eq!(r.mate, Some(2));
        assert!(r.best_moves.is_empty());
        let r = record(&format!("{MATE1} bm #1; dm 1;"));
        assert_eq!(r.mate, Some(1));
        // dm beside real moves: both kept.
        let r = record(&format!("{MATE1} bm Ra8#; dm 1;"));
        assert_eq!(
            (ucis(&r.best_moves), r.mate),
            (vec!["a1a8".to_owned()], Some(1))
        );
        let e = error(&format!("{MATE1} bm #1; dm 2;"));
        assert_eq!(e, EpdError::MateConflict { bm: 1, dm: 2 });
        assert_eq!(e.to_string(), "bm #1 disagrees with dm 2");
        let e = error(&format!("{MATE1} dm 1; bm #-1;"));
        assert_eq!(e.to_string(), "bm #-1 disagrees with dm 1");
        assert_eq!(
            error(&format!("{MATE1} dm 1; dm 1;")).to_string(),
            "duplicate dm operation"
        );
    }

    #[test]
    fn bad_mate_distances_are_named() {
        let bm = "expected #N or #-N, N a nonzero whole number of moves";
        for (op, value) in [
            ("bm #0", "#0"),
            ("bm #-0", "#-0"),
            ("bm #x", "#x"),
            ("bm #3x", "#3x"),
            ("bm #+3", "#+3"),
            ("bm #99999999999", "#99999999999"),
        ] {
            let e = error(&format!("{MATE1} {op};"));
            assert_eq!(
                e.to_string(),
                format!("bad mate distance '{value}' in bm: {bm}"),
                "{op}"
            );
        }
        let dm = "expected a positive whole number of moves";
        for (op, value) in [("dm 0", "0"), ("dm -2", "-2"), ("dm x", "x"), ("dm", "")] {
            let e = error(&format!("{MATE1} {op};"));
            assert_eq!(
                e.to_string(),
                format!("bad mate distance '{value}' in dm: {dm}"),
                "{op}"
            );
        }
        let e = error(&format!("{MATE1} bm #1 Ra8;"));
        assert_eq!(
            e.to_string(),
            "bm mate distance '#1' must be its only operand"
        );
        let e = error(&format!("{MATE1} bm Ra8 #1;"));
        assert_eq!(
            e,
            EpdError::MateWithMoves {
                operand: "#1".into()
            }
        );
        // A lone mate sign is still no move.
        assert_eq!(
            error(&format!("{MATE1} bm #;")).to_string(),
            "illegal move '#' in bm"
        );
        // A mate distance in am is no move either.
        assert_eq!(
            error(&format!("{MATE1} am #1;")).to_string(),
            "illegal move '#1' in am"
        );
    }

    #[test]
    fn matetrack_annotations_follow_only_mate_records() {
        let r = record(&format!(
            "{MATE1} bm #1; --:-- @ C0/R-4/K5/P10/X39; 00'40\" (Gustav); ep; Duals(4); c0 \"was bm #3\";"
        ));
        assert_eq!(r.mate, Some(1));
        assert_eq!(
            r.ops,
            [
                ("bm".to_owned(), "#1".to_owned()),
                ("ep".to_owned(), String::new()),
                ("c0".to_owned(), "was bm #3".to_owned()),
            ]
        );
        assert_eq!(record(&format!("{MATE1} dm 1; 00:16;")).mate, Some(1));
        // Elsewhere a word that is no opcode is still an error, whatever follows it.
        let e = error(&format!("{MATE1} bm Ra8; 00:16; bm #1;"));
        assert_eq!(e.to_string(), "invalid opcode '00:16'");
        // So it is before the first operation.
        let e = error(&format!("{MATE1} 00:16; bm #1;"));
        assert_eq!(e.to_string(), "invalid opcode '00:16'");
    }

    /// Every line of a bundled mate suite is a mate record.
    fn mate_suite(name: &str) -> Vec<EpdRecord> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/suites")
            .join(name);
        let suite = parse_file(&path).unwrap();
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(suite.skipped, [], "{name}");
        assert_eq!(suite.records.len(), lines, "{name}");
        for r in &suite.records {
            assert!(r.best_moves.is_empty() && r.mate.is_some_and(|n| n != 0));
        }
        suite.records
    }

    #[test]
    fn every_mate_suite_line_parses() {
        let classic = mate_suite("classic280.epd");
        assert_eq!(classic.len(), 280);
        assert_eq!(classic[0].mate, Some(15));
        assert_eq!(classic.iter().filter(|r| r.mate < Some(0)).count(), 53);
        let matetrack = mate_suite("matetrack_500.epd");
        assert_eq!(matetrack.len(), 515);
        assert_eq!(matetrack[0].mate, Some(1));
        assert_eq!(matetrack.iter().filter(|r| r.mate < Some(0)).count(), 1);
    }

    #[test]
    fn blank_and_comment_lines() {
        for text in [
            "",
            "   ",
            "\t\r",
            "\0",
            "\u{feff}",
            "# a comment",
            "  # indented",
            "#",
        ] {
            assert_eq!(parse_line(text, 3), Ok(None), "{text:?}");
        }
    }

    #[test]
    fn empty_id_is_none() {
        let r = record(r#"4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; id "";"#);
        assert_eq!(r.id, None);
        assert_eq!(r.ops[1], ("id".to_owned(), String::new()));
    }

    #[test]
    fn parse_str_accounts_for_every_line() {
        let text = format!(
            "# header\r\n{WAC1}\r\n\r\n4k3/8/8/8/8/8/4P3/4K3 w - - bm Qh9;\r\n{STS1}\r\n   \n4k3/8/8/8/8/8/4P3/4K3 w - - bm e4;"
        );
        let suite = parse_str("mem.epd", &text);
        assert_eq!(suite.path, "mem.epd");
        assert_eq!(
            suite.records.iter().map(|r| r.line).collect::<Vec<_>>(),
            [2, 5, 7]
        );
        assert_eq!(suite.skipped.len(), 1);
        let s = &suite.skipped[0];
        assert_eq!(s.line, 4);
        assert_eq!(s.text, "4k3/8/8/8/8/8/4P3/4K3 w - - bm Qh9;");
        assert_eq!(s.reason, "illegal move 'Qh9' in bm");
        assert_eq!(s.to_string(), "mem.epd:4: illegal move 'Qh9' in bm");
    }

    #[test]
    fn parse_str_of_nothing() {
        let suite = parse_str("none", "");
        assert!(suite.records.is_empty() && suite.skipped.is_empty());
    }

    #[test]
    fn skipped_line_serde_derives() {
        fn assert_serde<T: serde::Serialize + for<'de> serde::Deserialize<'de>>() {}
        assert_serde::<crate::formats::SkippedLine>();
    }

    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("marginal-epd-{}-{name}", std::process::id()))
    }

    #[test]
    fn parse_file_reads_records() {
        let path = temp_path("ok.epd");
        std::fs::write(&path, format!("{WAC1}\nnot a fen\n")).unwrap();
        let suite = parse_file(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(suite.path, path.display().to_string());
        assert_eq!(suite.records.len(), 1);
        assert_eq!(suite.skipped.len(), 1);
        assert_eq!(suite.skipped[0].line, 2);
        assert!(
            suite.skipped[0]
                .to_string()
                .starts_with(&format!("{}:2: bad FEN", path.display()))
        );
    }

    #[test]
    fn a_file_of_only_bad_lines_is_unusable_and_quoted_briefly() {
        let path = temp_path("bad.epd");
        let long = "\u{1}".repeat(500);
        // A line of control characters alone is blank (junk is trimmed), not bad.
        std::fs::write(&path, format!("junk\n{long}\n")).unwrap();
        let e = parse_file(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        let DataFileError::Unusable { count, first, .. } = &e else {
            panic!("{e:?}");
        };
        assert_eq!((*count, first.line), (1, 1));
        let message = e.to_string();
        assert!(message.contains("no usable positions"), "{message}");
        let wide = format!("{}\u{fffd} w - -\n", "x".repeat(500));
        let text = parse_bytes("x.epd", wide.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            text.len() < 300 && !text.contains(char::is_control),
            "{text}"
        );
        assert!(text.contains("more characters"), "{text}");
    }

    #[test]
    fn unreadable_file() {
        let path = temp_path("does-not-exist.epd");
        let e = parse_file(&path).unwrap_err();
        assert!(matches!(e, DataFileError::Unreadable { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("cannot read {}: ", path.display())),
            "{msg}"
        );
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn empty_file() {
        for (name, contents) in [("empty.epd", ""), ("comments.epd", "# only\n\n  \n")] {
            let path = temp_path(name);
            std::fs::write(&path, contents).unwrap();
            let e = parse_file(&path).unwrap_err();
            std::fs::remove_file(&path).unwrap();
            assert_eq!(e.to_string(), format!("{}: no positions", path.display()));
        }
    }
}
