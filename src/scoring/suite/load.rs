//! Suites loaded for scoring: every file parsed once into one flat position list, with a hash
//! of the files' contents (part of every cache key).

use std::path::PathBuf;

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

/// Parsed suites, flattened into one position list.
#[derive(Debug, Clone)]
pub struct LoadedSuites {
    /// Each file: path, position count, skipped lines.
    pub files: Vec<SuiteFile>,
    /// Every position, in file order.
    pub positions: Vec<SuitePosition>,
    /// Stable hash of the files' contents (for cache keys).
    pub content_hash: u64,
}

impl LoadedSuites {
    /// Positions that repeat an earlier one (the same FEN), each with the first: a suite
    /// scores each as often as it appears, so a repeat weighs double.
    pub fn repeated_positions(&self) -> Vec<(&SuitePosition, &SuitePosition)> {
        let mut first: std::collections::HashMap<&str, &SuitePosition> =
            std::collections::HashMap::new();
        let mut repeats = Vec::new();
        for p in &self.positions {
            match first.get(p.record.fen.as_str()) {
                Some(earlier) => repeats.push((p, *earlier)),
                None => {
                    first.insert(&p.record.fen, p);
                }
            }
        }
        repeats
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
        let mut parts = [
            LoadedSuites {
                files: Vec::new(),
                positions: Vec::new(),
                content_hash: hash(0),
            },
            LoadedSuites {
                files: Vec::new(),
                positions: Vec::new(),
                content_hash: hash(1),
            },
        ];
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
                let part = &mut parts[usize::from(!first(&position))];
                part.files.last_mut().expect("pushed above").positions += 1;
                part.positions.push(position);
            }
        }
        let [a, b] = parts;
        (a, b)
    }
}

/// Reads and parses suite files, each once. Bad lines are kept as skipped lines (fatal with
/// `strict`).
///
/// # Errors
/// A file that cannot be read or has no positions; with `strict`, any bad line.
pub fn load_suites(paths: &[PathBuf], strict: bool) -> Result<LoadedSuites, SuiteError> {
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
    let loaded = LoadedSuites {
        files,
        positions,
        content_hash: hash.finish(),
    };
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
