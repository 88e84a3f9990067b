//! Loading suites, and the reference run computed once and cached on disk.
//!
//! The reference (pruning off, or any named margin set) is the yardstick of the objective. It is
//! keyed by the suites' content, the limits, the table size, the reference margins and the
//! engine's signature, so a changed engine or suite never reuses a stale reference, and an
//! optimizer evaluating thousands of candidates pays for it once.

use std::path::{Path, PathBuf};

use super::epd::{EpdFileError, ParsedSuite, SkippedLine, parse_bytes};
use super::objective::{Objective, ObjectiveParams, evaluate};
use super::suite::{self, Fnv, PositionResult, RunConfig, SuitePosition, engine_signature};
use crate::params::Margins;

/// Why suites could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// A file could not be read or has no positions.
    #[error(transparent)]
    File(#[from] EpdFileError),
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
pub struct SuiteFile {
    /// The path, as given.
    pub path: String,
    /// How many of the positions came from this file (they are consecutive, in file order).
    pub positions: usize,
    /// Lines that could not be parsed.
    pub skipped: Vec<SkippedLine>,
}

/// Parsed suites, flattened into one position list.
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
}

/// Reads and parses suite files. Bad lines are kept as skipped lines (fatal with `strict`).
pub fn load_suites(paths: &[PathBuf], strict: bool) -> Result<LoadedSuites, SuiteError> {
    let mut files = Vec::new();
    let mut positions = Vec::new();
    let mut hash = Fnv::new();
    for path in paths {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| EpdFileError::Unreadable {
            path: name.clone(),
            source,
        })?;
        hash.write(&bytes);
        hash.write(&[0xff]);
        let ParsedSuite {
            records, skipped, ..
        } = parse_bytes(&name, &bytes)?;
        files.push(SuiteFile {
            path: name.clone(),
            positions: records.len(),
            skipped,
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

/// The directory for cached reference runs: `$MARGINAL_CACHE_DIR`, else `.marginal-cache`.
pub fn default_cache_dir() -> PathBuf {
    std::env::var_os("MARGINAL_CACHE_DIR")
        .map_or_else(|| PathBuf::from(".marginal-cache"), PathBuf::from)
}

/// The cache key of a reference run.
pub fn reference_key(suites: &LoadedSuites, margins: &Margins, config: &RunConfig) -> u64 {
    let mut h = Fnv::new();
    h.write(&suites.content_hash.to_le_bytes());
    h.write(&engine_signature().to_le_bytes());
    h.write(margins.to_string().as_bytes());
    h.write(format!("{:?}", config).as_bytes());
    h.finish()
}

/// Runs the reference, or reads it from the cache. Returns the results and whether they came
/// from the cache. A damaged cache file is ignored and rewritten.
pub fn reference_run(
    suites: &LoadedSuites,
    margins: &Margins,
    config: &RunConfig,
    cache_dir: Option<&Path>,
    on_done: &(dyn Fn() + Sync),
) -> (Vec<PositionResult>, bool) {
    let path = cache_dir.map(|dir| {
        dir.join(format!(
            "reference-{:016x}.json",
            reference_key(suites, margins, config)
        ))
    });
    if let Some(path) = &path
        && let Ok(text) = std::fs::read_to_string(path)
        && let Ok(results) = serde_json::from_str::<Vec<PositionResult>>(&text)
        && results.len() == suites.positions.len()
    {
        return (results, true);
    }
    let results = suite::run(&suites.positions, margins, config, None, on_done);
    if let Some(path) = &path {
        // A cache that cannot be written only costs time later: say so, carry on.
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                let tmp = path.with_extension("json.tmp");
                std::fs::write(&tmp, serde_json::to_string(&results).unwrap_or_default())?;
                std::fs::rename(&tmp, path)
            });
        if let Err(e) = written {
            eprintln!(
                "warning: cannot write reference cache {}: {e}",
                path.display()
            );
        }
    }
    (results, false)
}

/// A suite objective ready to score candidates: positions, limits and the reference, computed
/// once. This is what an optimizer calls.
pub struct SuiteScorer {
    /// The positions.
    pub suites: LoadedSuites,
    /// Limits and table size.
    pub config: RunConfig,
    /// The reference run's results.
    pub reference: Vec<PositionResult>,
    /// The reference's node counts: the schedule of every candidate run.
    reference_costs: Vec<u64>,
    /// Objective parameters.
    pub params: ObjectiveParams,
}

impl SuiteScorer {
    /// Builds a scorer, running (or loading) the reference.
    pub fn new(
        suites: LoadedSuites,
        reference_margins: &Margins,
        config: RunConfig,
        params: ObjectiveParams,
        cache_dir: Option<&Path>,
    ) -> SuiteScorer {
        let (reference, _) = reference_run(&suites, reference_margins, &config, cache_dir, &|| {});
        SuiteScorer {
            suites,
            config,
            reference_costs: suite::costs(&reference),
            reference,
            params,
        }
    }

    /// Scores a candidate margin set (on the current rayon pool).
    pub fn score(&self, margins: &Margins) -> (Objective, Vec<PositionResult>) {
        let results = suite::run(
            &self.suites.positions,
            margins,
            &self.config,
            Some(&self.reference_costs),
            &|| {},
        );
        let objective = evaluate(&results, &self.reference, &self.params);
        (objective, results)
    }
}
