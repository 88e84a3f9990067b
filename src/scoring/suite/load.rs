//! Suites loaded for scoring: every file parsed once into one flat position list, with a hash
//! of the files' contents (part of every cache key).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::run::SuitePosition;
use crate::formats::epd::{ParsedSuite, parse_bytes};
use crate::formats::{DataFileError, Fnv, SkippedLine, read_bytes};

/// Why suites could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// A file could not be read or has no positions.
    #[error(transparent)]
    File(#[from] DataFileError),
    /// `--strict` and some lines were bad.
    #[error("{count} bad line(s) with --strict; first: {first}")]
    Strict {
        /// How many lines were bad.
        count: usize,
        /// The first bad line, as `file:line: reason`.
        first: SkippedLine,
    },
    /// `--strict` and a file is not valid UTF-8 (the EPD standard's text is ASCII).
    #[error(
        "{path}:{line}: not valid UTF-8 text (--strict reads EPD as the standard writes it; convert the file, or drop --strict to read it with the bad bytes replaced)"
    )]
    NotUtf8 {
        /// The file.
        path: String,
        /// The 1-based line of the first bad byte.
        line: usize,
    },
}

/// One suite file of a [`LoadedSuites`]: its records live in the flattened position list.
#[derive(Debug, Clone)]
pub struct SuiteFile {
    /// The path, as given.
    pub path: String,
    /// How many of the positions came from this file (they are consecutive, in file order).
    pub positions: usize,
    /// Lines that could not be parsed.
    pub skipped: Vec<SkippedLine>,
    /// FNV-1a hash of the file's bytes (provenance: which version of the suite was used).
    pub hash: u64,
}

/// How a position that repeats an earlier one (the same FEN, in the same file or another) is
/// scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Repeats {
    /// Once: the repeat is left out, the first line kept.
    #[default]
    Once,
    /// As often as it appears: a repeat weighs double (the only rule before repeats were
    /// scored once, and so the rule of a tuned file that names none).
    Each,
}

impl Repeats {
    /// The rule of `--count-repeats` (given or not).
    pub fn counted(count_repeats: bool) -> Repeats {
        if count_repeats {
            Repeats::Each
        } else {
            Repeats::Once
        }
    }

    /// The rule of a record made before the rule was recorded.
    pub fn each() -> Repeats {
        Repeats::Each
    }

    /// Whether it is the rule of old records (kept out of new files' text when it is not).
    pub fn is_each(&self) -> bool {
        *self == Repeats::Each
    }
}

/// A position an earlier line already gave (the same placement, side, castling, en passant
/// and halfmove clock, however its FEN was written: `... w - -` is `... w - - 0 1`).
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    /// The repeating line's file.
    pub suite: String,
    /// Its 1-based line.
    pub line: usize,
    /// The file of the first line with the FEN.
    pub first_suite: String,
    /// That line.
    pub first_line: usize,
    /// The FEN of the first line, as written there.
    pub fen: String,
}

/// What makes two lines the same position, the one rule for repeats everywhere (a suite's
/// repeats, a held-out position that is also a training one, calibration's suites): its FEN as
/// shakmaty writes it (an en passant square only where a capture is legal) up to the clocks:
/// placement, side to move, castling and en passant. The fullmove number no search reads, and
/// the halfmove clock (below 100, as the loader demands) matters only to a search a hundred
/// plies deep.
///
/// ```
/// use marginal::scoring::suite::repeat_key;
/// let position = |fen: &str| {
///     let fen: shakmaty::fen::Fen = fen.parse().unwrap();
///     fen.into_position::<shakmaty::Chess>(shakmaty::CastlingMode::Standard).unwrap()
/// };
/// let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
/// assert_eq!(repeat_key(&position(start)), repeat_key(&position(&format!("{start} 7 40"))));
/// ```
pub fn repeat_key(position: &shakmaty::Chess) -> String {
    let fen = shakmaty::fen::Fen::from_position(position, shakmaty::EnPassantMode::Legal);
    let text = fen.to_string();
    text.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// Parsed suites, flattened into one position list.
#[derive(Debug, Clone)]
pub struct LoadedSuites {
    /// Each file: path, position count, skipped lines.
    pub files: Vec<SuiteFile>,
    /// Every position scored, in file order.
    pub positions: Vec<SuitePosition>,
    /// Stable hash of the files' contents and, when repeats were left out, of that (for cache
    /// keys: a run that scores a repeat once is not one that scores it twice).
    pub content_hash: u64,
    /// How repeated positions are scored.
    pub rule: Repeats,
    /// The positions that repeat an earlier one, in file order: left out of `positions` by
    /// [`Repeats::Once`], kept in it by [`Repeats::Each`].
    pub repeats: Vec<Repeat>,
}

impl LoadedSuites {
    /// Applies `rule` to positions that repeat an earlier one: finds them and, for
    /// [`Repeats::Once`], leaves them out (each file's count too) and marks the content hash.
    fn apply(&mut self, rule: Repeats) {
        self.rule = rule;
        // The first line of each position: its file, line and FEN as written.
        let mut first: std::collections::HashMap<String, (String, usize, String)> =
            std::collections::HashMap::new();
        let mut keep = Vec::with_capacity(self.positions.len());
        for p in &self.positions {
            let key = repeat_key(&p.record.position);
            let twin = first.get(key.as_str()).cloned();
            keep.push(twin.is_none() || rule == Repeats::Each);
            match twin {
                Some((first_suite, first_line, fen)) => self.repeats.push(Repeat {
                    suite: p.suite.clone(),
                    line: p.record.line,
                    first_suite,
                    first_line,
                    fen,
                }),
                None => {
                    first.insert(key, (p.suite.clone(), p.record.line, p.record.fen.clone()));
                }
            }
        }
        if rule == Repeats::Each || self.repeats.is_empty() {
            return;
        }
        let mut kept = keep.iter();
        for file in &mut self.files {
            file.positions = kept.by_ref().take(file.positions).filter(|&&k| k).count();
        }
        let mut kept = keep.into_iter();
        self.positions.retain(|_| kept.next() == Some(true));
        let mut h = Fnv::new();
        h.write(&self.content_hash.to_le_bytes());
        h.write(b"repeats once");
        self.content_hash = h.finish();
    }

    /// Every skipped line of every file.
    pub fn skipped(&self) -> impl Iterator<Item = &SkippedLine> {
        self.files.iter().flat_map(|f| f.skipped.iter())
    }

    /// The position index range of each file, in file order.
    pub fn ranges(&self) -> impl Iterator<Item = (&SuiteFile, std::ops::Range<usize>)> {
        let mut start = 0;
        self.files.iter().map(move |f| {
            let range = start..start + f.positions;
            start = range.end;
            (f, range)
        })
    }
}

impl LoadedSuites {
    /// Splits the positions in two by `first` (file order and file grouping kept): those for
    /// which it holds, and the rest. Each part's content hash is the whole's with `tag` and the
    /// side mixed in, so their reference runs are cached apart.
    pub fn partition(
        self,
        tag: &str,
        mut first: impl FnMut(&SuitePosition) -> bool,
    ) -> (LoadedSuites, LoadedSuites) {
        let hash = |side: u8| {
            let mut h = Fnv::new();
            h.write(&self.content_hash.to_le_bytes());
            h.write(tag.as_bytes());
            h.write(&[side]);
            h.finish()
        };
        let part = |side: u8| LoadedSuites {
            files: Vec::new(),
            positions: Vec::new(),
            content_hash: hash(side),
            rule: self.rule,
            repeats: Vec::new(),
        };
        let mut parts = [part(0), part(1)];
        let mut side_of = std::collections::HashMap::new();
        // A position counted each time it appears goes where its first appearance went, so no
        // position is on both sides under other move clocks.
        let mut side_of_key = std::collections::HashMap::new();
        let ranges: Vec<(SuiteFile, std::ops::Range<usize>)> =
            self.ranges().map(|(f, r)| (f.clone(), r)).collect();
        let mut positions = self.positions.into_iter();
        for (file, range) in ranges {
            for part in &mut parts {
                part.files.push(SuiteFile {
                    path: file.path.clone(),
                    positions: 0,
                    skipped: file.skipped.clone(),
                    hash: file.hash,
                });
            }
            for position in positions.by_ref().take(range.len()) {
                let side = *side_of_key
                    .entry(repeat_key(&position.record.position))
                    .or_insert_with(|| usize::from(!first(&position)));
                side_of.insert(position.record.fen.clone(), side);
                let part = &mut parts[side];
                part.files.last_mut().expect("pushed above").positions += 1;
                part.positions.push(position);
            }
        }
        // A repeat has the FEN of a position kept, so it falls on that position's side.
        for repeat in self.repeats {
            parts[side_of[&repeat.fen]].repeats.push(repeat);
        }
        let [a, b] = parts;
        (a, b)
    }
}

/// Reads and parses suite files, each once, and scores a repeated position by `rule`. Bad lines
/// are kept as skipped lines (fatal with `strict`).
///
/// # Errors
/// A file that cannot be read or has no positions; with `strict`, any bad line.
pub fn load_suites(
    paths: &[PathBuf],
    strict: bool,
    rule: Repeats,
) -> Result<LoadedSuites, SuiteError> {
    let mut files = Vec::new();
    let mut positions = Vec::new();
    let mut hash = Fnv::new();
    let repeats: Vec<usize> = repeated_files(paths).into_iter().map(|(i, _)| i).collect();
    for (i, path) in paths.iter().enumerate() {
        if repeats.contains(&i) {
            continue;
        }
        let name = path.display().to_string();
        let bytes = read_bytes(path, "")?;
        if strict && let Err(e) = std::str::from_utf8(&bytes) {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            return Err(SuiteError::NotUtf8 { path: name, line });
        }
        hash.write(&bytes);
        hash.write(&[0xff]);
        let ParsedSuite {
            records, skipped, ..
        } = parse_bytes(&name, &bytes)?;
        let mut own = Fnv::new();
        own.write(&bytes);
        files.push(SuiteFile {
            path: name.clone(),
            positions: records.len(),
            skipped,
            hash: own.finish(),
        });
        positions.extend(records.into_iter().map(|record| SuitePosition {
            suite: name.clone(),
            record,
        }));
    }
    let mut loaded = LoadedSuites {
        files,
        positions,
        content_hash: hash.finish(),
        rule,
        repeats: Vec::new(),
    };
    loaded.apply(rule);
    if strict {
        let bad: Vec<&SkippedLine> = loaded.skipped().collect();
        if let Some(first) = bad.first() {
            return Err(SuiteError::Strict {
                count: bad.len(),
                first: (*first).clone(),
            });
        }
    }
    Ok(loaded)
}

/// Files named more than once (the same file, however spelled: `./` or a link resolve to
/// it): the index of each repeat and of its first naming. [`load_suites`] reads each file once.
pub fn repeated_files(paths: &[PathBuf]) -> Vec<(usize, usize)> {
    let canonical: Vec<PathBuf> = paths
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    (0..paths.len())
        .filter_map(|i| {
            canonical[..i]
                .iter()
                .position(|c| *c == canonical[i])
                .map(|first| (i, first))
        })
        .collect()
}

/// What is odd in the suites a command reads, as warnings (without `warning: `): a file
/// named twice (read once) and positions that repeat an earlier one (scored once, or as often
/// as they appear with --count-repeats), naming the first of each.
pub fn odd_suites(paths: &[PathBuf], suites: &[&LoadedSuites]) -> Vec<String> {
    let mut warnings: Vec<String> = repeated_files(paths)
        .into_iter()
        .map(|(i, first)| {
            format!(
                "{} is named twice (as {} before): read once",
                paths[i].display(),
                paths[first].display()
            )
        })
        .collect();
    let repeats: Vec<_> = suites.iter().flat_map(|s| &s.repeats).collect();
    if let Some(again) = repeats.first() {
        let rule = match suites[0].rule {
            Repeats::Once => {
                "each is scored once, at its first line (--count-repeats scores every line)"
            }
            Repeats::Each => {
                "each is scored as often as it appears (--count-repeats), so a repeat weighs double"
            }
        };
        warnings.push(format!(
            "{} position(s) repeat an earlier one (the first: {}:{} is {}:{}, {}): {rule}",
            repeats.len(),
            again.suite,
            again.line,
            again.first_suite,
            again.first_line,
            again.fen
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_repeats_scores_each_line_and_without_it_once() {
        assert_eq!(Repeats::counted(true), Repeats::Each);
        assert_eq!(Repeats::counted(false), Repeats::Once);
    }

    /// Two suite files in a fresh directory: the first with a position repeated within it, the
    /// second repeating one of the first's (written with its clocks).
    fn two_files(name: &str) -> Vec<PathBuf> {
        let dir = std::env::temp_dir().join(format!("marginal-load-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, c) = (
            "4k3/8/8/8/8/8/8/4K2R w K - bm O-O;",
            "4k3/8/8/8/8/8/4P3/4K3 w - - bm e4;",
            "4k3/8/8/8/8/8/8/R3K3 w Q - bm O-O-O;",
        );
        let first = dir.join("first.epd");
        let second = dir.join("second.epd");
        std::fs::write(&first, format!("{a}\n{b}\n{a}\n")).unwrap();
        // The second file gives `b` with clocks the first leaves out (a halfmove clock and a
        // fullmove number): the same position.
        let b_with_clocks = b.replace(" - - ", " - - 5 12 ");
        std::fs::write(&second, format!("{c}\n{b_with_clocks}\n")).unwrap();
        vec![first, second]
    }

    #[test]
    fn a_repeated_position_is_scored_once_unless_each_is_asked() {
        let paths = two_files("once");
        let once = load_suites(&paths, false, Repeats::Once).unwrap();
        let each = load_suites(&paths, false, Repeats::Each).unwrap();
        assert_eq!(each.positions.len(), 5);
        assert_eq!(once.positions.len(), 3);
        let counts = |s: &LoadedSuites| s.files.iter().map(|f| f.positions).collect::<Vec<_>>();
        assert_eq!(counts(&once), [2, 1]);
        assert_eq!(counts(&each), [3, 2]);
        // Both rules name the same repeats: line 3 of the first file, line 2 of the second.
        for s in [&once, &each] {
            let named: Vec<(bool, usize, bool, usize)> = (s.repeats.iter())
                .map(|r| {
                    let first = |path: &str| path.ends_with("first.epd");
                    (first(&r.suite), r.line, first(&r.first_suite), r.first_line)
                })
                .collect();
            assert_eq!(named, [(true, 3, true, 1), (false, 2, true, 2)]);
        }
        // What is kept is each FEN's first line, in file order.
        let lines: Vec<usize> = once.positions.iter().map(|p| p.record.line).collect();
        assert_eq!(lines, [1, 2, 1]);
        // A run that scores repeats once is cached apart from one that scores them each time;
        // without repeats the rule changes nothing.
        assert_ne!(once.content_hash, each.content_hash);
        let single = [paths[1].clone()];
        assert_eq!(
            load_suites(&single, false, Repeats::Once)
                .unwrap()
                .content_hash,
            load_suites(&single, false, Repeats::Each)
                .unwrap()
                .content_hash
        );
        let _ = std::fs::remove_dir_all(paths[0].parent().unwrap());
    }

    #[test]
    fn a_repeat_goes_to_the_side_of_its_first() {
        let paths = two_files("side");
        for rule in [Repeats::Once, Repeats::Each] {
            let loaded = load_suites(&paths, false, rule).unwrap();
            let (a, b) = loaded.partition("t", |p| p.record.fen.contains("4P3"));
            assert_eq!(a.repeats.len(), 1, "{rule:?}");
            assert_eq!(b.repeats.len(), 1, "{rule:?}");
            assert!(a.repeats[0].fen.contains("4P3") && !b.repeats[0].fen.contains("4P3"));
            assert_eq!((a.rule, b.rule), (rule, rule));
        }
        let _ = std::fs::remove_dir_all(paths[0].parent().unwrap());
    }

    #[test]
    fn a_position_counted_each_time_is_on_one_side_whatever_its_clocks() {
        let paths = two_files("clocks");
        let each = load_suites(&paths, false, Repeats::Each).unwrap();
        // The predicate tells the two lines of `b` apart by their clocks: both still go where
        // the first went.
        assert!(
            each.positions
                .iter()
                .any(|p| p.record.fen.contains(" 5 12"))
        );
        let (a, b) = each.partition("t", |p| !p.record.fen.contains(" 5 12"));
        let on = |s: &LoadedSuites| {
            s.positions
                .iter()
                .filter(|p| p.record.fen.contains("4P3"))
                .count()
        };
        assert_eq!((on(&a), on(&b)), (2, 0));
        let _ = std::fs::remove_dir_all(paths[0].parent().unwrap());
    }
}
