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
    for path in paths {
        let name = path.display().to_string();
        let bytes = read_bytes(path, "")?;
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
