//! The reference run, computed once and cached on disk.
//!
//! The reference (pruning off, or any named margin set) is the yardstick of the objective. It is
//! keyed by the suites' content, the limits, the table size, the reference margins and the
//! engine's signature, so a changed engine or suite never reuses a stale reference, and an
//! optimizer evaluating thousands of candidates pays for it once.

use std::path::{Path, PathBuf};

use super::journal;
use super::load::LoadedSuites;
use super::run::{self, PositionResult, RunConfig};
use crate::engine::{EngineDef, Setting};
use crate::formats::{Fnv, Sealed, write_atomic};
use crate::scoring::exec::{Done, ExecError, Job, Runner, SuiteJob};

/// The directory for cached reference runs: `$MARGINAL_CACHE_DIR`, else `.marginal-cache`.
pub fn default_cache_dir() -> PathBuf {
    // Set but empty counts as not set (not as the working directory).
    std::env::var_os("MARGINAL_CACHE_DIR")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(".marginal-cache"), PathBuf::from)
}

/// The cache key of a reference run.
pub fn reference_key(suites: &LoadedSuites, setting: &Setting, config: &RunConfig) -> u64 {
    let mut h = Fnv::new();
    h.write(&suites.content_hash.to_le_bytes());
    h.write(setting.def().signature().as_bytes());
    h.write(setting.to_string().as_bytes());
    if !setting.def().is_builtin() {
        for (name, value) in setting.uci_options() {
            h.write(format!("{name}={value};").as_bytes());
        }
    }
    h.write(format!("{:?}", config).as_bytes());
    h.finish()
}

/// Where a run of `setting` keeps its finished positions in `cache_dir` while it runs (its
/// journal, removed once the run is cached or scored): the reference run's when `reference`,
/// else a scored run's.
pub fn journal_path(
    cache_dir: &Path,
    suites: &LoadedSuites,
    setting: &Setting,
    config: &RunConfig,
    reference: bool,
) -> PathBuf {
    let key = reference_key(suites, setting, config);
    let kind = if reference { "reference" } else { "run" };
    cache_dir.join(format!("{kind}-{key:016x}.partial.jsonl"))
}

/// How many positions an interrupted run of `setting` kept in `cache_dir` (see
/// [`journal_path`]): what the next run takes up rather than searches.
pub fn kept(
    cache_dir: &Path,
    suites: &LoadedSuites,
    setting: &Setting,
    config: &RunConfig,
    reference: bool,
) -> usize {
    let path = journal_path(cache_dir, suites, setting, config, reference);
    journal::count(&path, suites.positions.len())
}

/// A reference run's results, where they came from, and what went wrong on the way (a cache
/// that could not be written only costs time later, so it is a warning, not an error).
pub struct Reference {
    /// One result per position, in position order.
    pub results: Vec<PositionResult>,
    /// Whether they were read from the cache.
    pub cached: bool,
    /// Whether the cache holds them now (read from it, or written to it by this run).
    pub stored: bool,
    /// How many positions were taken from an interrupted run of the same reference (kept as
    /// they finished) rather than searched by this one.
    pub kept: usize,
    /// Problems with the cache.
    pub warnings: Vec<String>,
}

/// Runs the reference, or reads it from the cache in `cache_dir`. A damaged cache file is
/// ignored and rewritten; a run in which an external engine faulted is not written (a
/// warning says so). The positions are searched through `executor`; `on_done` is called once
/// per position it tells of ([`Runner::run_each`]: those searched on this machine).
///
/// # Errors
/// The executor could not run the positions.
pub fn reference_run(
    suites: &LoadedSuites,
    setting: &Setting,
    config: &RunConfig,
    cache_dir: Option<&Path>,
    executor: &dyn Runner,
    on_done: &(dyn Fn() + Sync),
) -> Result<Reference, ExecError> {
    let path = cache_dir.map(|dir| {
        dir.join(format!(
            "reference-{:016x}.json",
            reference_key(suites, setting, config)
        ))
    });
    let mut warnings = Vec::new();
    if let Some(path) = &path
        && path.exists()
    {
        match read_cached(path, suites.positions.len()) {
            Ok(results) => {
                return Ok(Reference {
                    results,
                    cached: true,
                    stored: true,
                    kept: 0,
                    warnings,
                });
            }
            Err(e) => warnings.push(format!(
                "the cached reference {} was damaged ({e}): it is searched afresh and replaced",
                path.display()
            )),
        }
    }
    // Run here with a cache, the positions are kept as they finish: an interrupted reference
    // run is taken up where it stopped.
    let journal = cache_dir.map(|dir| journal_path(dir, suites, setting, config, true));
    let kept_in = journal.as_deref().filter(|_| executor.streams());
    let journal::Kept {
        results,
        kept,
        damaged,
    } = search_reference(suites, setting, config, kept_in, executor, on_done)?;
    if let Some(journal) = kept_in {
        warnings.extend(journal::damaged_warning(journal, &damaged));
    }
    let mut stored = false;
    // A fault is an accident of this run, not a property of the reference: a run with faults
    // is used once and never kept as the yardstick of later runs.
    let faults = results.iter().filter(|r| r.fault.is_some()).count();
    if faults > 0 && path.is_some() {
        warnings.push(format!(
            "the reference run is not cached: the engine faulted on {faults} position(s){}",
            if kept_in.is_some() {
                " (the others are kept: a rerun searches only these)"
            } else {
                ""
            }
        ));
    } else if let Some(path) = &path {
        match write_cached(path, &results) {
            Ok(()) => {
                stored = true;
                if let Some(journal) = &journal {
                    let _ = std::fs::remove_file(journal);
                }
            }
            Err(e) => warnings.push(format!(
                "cannot write reference cache {}: {e}",
                path.display()
            )),
        }
    }
    Ok(Reference {
        results,
        cached: false,
        stored,
        kept,
        warnings,
    })
}

/// The cached reference at `path`, if it is sealed whole and has `count` results; else what
/// is wrong with it.
fn read_cached(path: &Path, count: usize) -> Result<Vec<PositionResult>, String> {
    std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            serde_json::from_slice::<Sealed<Vec<PositionResult>>>(&bytes).map_err(|e| e.to_string())
        })
        .and_then(Sealed::open)
        .and_then(|results| {
            if results.len() == count {
                Ok(results)
            } else {
                Err(format!("{} results for {} positions", results.len(), count))
            }
        })
}

/// Searches the reference through `executor`, kept in `journal` as the positions finish when
/// there is one; the results, how many were kept from an earlier run, and the journal's
/// damaged lines.
fn search_reference(
    suites: &LoadedSuites,
    setting: &Setting,
    config: &RunConfig,
    journal: Option<&Path>,
    executor: &dyn Runner,
    on_done: &(dyn Fn() + Sync),
) -> Result<journal::Kept, ExecError> {
    if let Some(journal) = journal {
        let run = journal::run_kept(
            executor,
            &suites.positions,
            setting,
            config,
            None,
            journal,
            on_done,
        )?;
        return Ok(run);
    }
    let job = Job::Suite(SuiteJob {
        setting: setting.clone(),
        config: *config,
        positions: suites.positions.clone(),
        costs: run::no_hint(config, suites.positions.len()),
    });
    let mut done = executor.run_each(std::slice::from_ref(&job), &|_, _| on_done())?;
    Ok(journal::Kept {
        results: done.pop().map(Done::into_positions).unwrap_or_default(),
        kept: 0,
        damaged: Vec::new(),
    })
}

/// Why a run of `def` measured nothing, when the engine faulted on every position of it
/// (`run` names the run in the message); `None` when it searched one, or there was none.
pub fn nothing_searched<'r>(
    def: &EngineDef,
    run: &str,
    results: impl IntoIterator<Item = &'r PositionResult>,
) -> Option<String> {
    let mut count = 0;
    let mut first = None;
    for r in results {
        count += 1;
        match r.fault.as_deref() {
            None => return None,
            Some(f) => first = first.or(Some(f)),
        }
    }
    Some(format!(
        "the engine {} faulted on every one of the {count} positions (first: {}) of {run}: nothing was searched, so no objective is reported; {}",
        def.source.as_deref().unwrap_or(&def.name),
        first?,
        def.fix_hint()
    ))
}

/// Writes `results` sealed to the cache file `path`.
fn write_cached(path: &Path, results: &[PositionResult]) -> std::io::Result<()> {
    serde_json::to_vec(&Sealed::new(results))
        .map_err(std::io::Error::other)
        .and_then(|bytes| write_atomic(path, &bytes))
}
