//! argmin checkpointing into a JSON file, written through a temporary file and a rename, so a
//! kill at any moment leaves the previous checkpoint or the new one, never half of one. The
//! file names the run it belongs to (`run`), so a checkpoint of another run is refused rather
//! than resumed. JSON keeps every `f64` exactly (shortest round-trip form written, serde_json's
//! `float_roundtrip` reading), so a resumed run is
//! bit-identical to an uninterrupted one.

use std::path::{Path, PathBuf};

use argmin::core::Error;
use argmin::core::checkpointing::{Checkpoint, CheckpointingFrequency};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::formats::write_atomic;

/// The format tag of checkpoint files.
pub const FORMAT: &str = "marginal-checkpoint/1";

/// A JSON checkpoint file for one run.
#[derive(Debug, Clone)]
pub struct JsonCheckpoint {
    path: PathBuf,
    run: String,
}

#[derive(Serialize, Deserialize)]
struct Saved<S, I> {
    format: String,
    run: String,
    solver: S,
    state: I,
}

impl JsonCheckpoint {
    /// A checkpoint at `path` for the run identified by `run` (a digest of its configuration).
    pub fn new(path: &Path, run: impl Into<String>) -> JsonCheckpoint {
        JsonCheckpoint {
            path: path.to_path_buf(),
            run: run.into(),
        }
    }

    /// Where it is written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, what: String) -> Error {
        anyhow::anyhow!("checkpoint {}: {what}", self.path.display())
    }

    /// A checkpoint that cannot be read as one: said with the way out (the solver starts its
    /// walk again; the evaluations logged beside it are reused, not searched again).
    fn corrupt(&self, what: String) -> Error {
        self.error(format!(
            "{what}: the file is damaged (cut short by a full disk or a copy?); delete it to start the solver's walk again (the evaluations logged in {} are reused, not searched again)",
            self.path
                .parent()
                .map_or_else(|| ".".to_string(), |d| d.display().to_string())
        ))
    }
}

impl<S: Serialize + DeserializeOwned, I: Serialize + DeserializeOwned> Checkpoint<S, I>
    for JsonCheckpoint
{
    fn save(&self, solver: &S, state: &I) -> Result<(), Error> {
        let saved = Saved {
            format: FORMAT.to_string(),
            run: self.run.clone(),
            solver,
            state,
        };
        let text = serde_json::to_vec(&saved)?;
        write_atomic(&self.path, &text).map_err(|e| self.error(format!("cannot write: {e}")))
    }

    fn load(&self) -> Result<Option<(S, I)>, Error> {
        let text = match std::fs::read(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.error(format!("cannot read: {e}"))),
        };
        let header: serde_json::Value = serde_json::from_slice(&text)
            .map_err(|e| self.corrupt(format!("line {}: not valid JSON ({e})", e.line())))?;
        if header.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(self.corrupt(format!(
                "line 1: not a marginal checkpoint (format {})",
                header.get("format").unwrap_or(&serde_json::Value::Null)
            )));
        }
        let run = header.get("run").and_then(|r| r.as_str()).unwrap_or("");
        if run != self.run {
            return Err(self.error(format!(
                "line 1: belongs to another run ({run}, this one is {}): use the same suites, \
                 parameters, limits, solver and seed, or another checkpoint directory",
                self.run
            )));
        }
        let saved: Saved<S, I> = serde_json::from_value(header)
            .map_err(|e| self.corrupt(format!("line 1: not a checkpoint of this solver ({e})")))?;
        Ok(Some((saved.solver, saved.state)))
    }

    fn frequency(&self) -> CheckpointingFrequency {
        CheckpointingFrequency::Always
    }
}

/// The file in a run's checkpoint directory that names the run it belongs to.
pub const RUN_FILE: &str = "run";

/// The file in a run's checkpoint directory that records the engine the run started with.
pub const ENGINE_FILE: &str = "engine.json";

/// The engine a run started with, as its checkpoint records it: a changed engine file is then
/// said as such on a resume or a rerun, rather than as another run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedEngine {
    /// Its name.
    pub name: String,
    /// Its engine file (or `--engine-cmd ...`); absent for marginal's own engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its signature then (an external engine's content digest, hex).
    pub signature: String,
}

/// Records in `dir` the engine the run starts with ([`ENGINE_FILE`]).
///
/// # Errors
/// The file cannot be written.
pub fn record_engine(dir: &Path, engine: &RecordedEngine) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(engine).map_err(std::io::Error::other)?;
    write_atomic(&dir.join(ENGINE_FILE), format!("{text}\n").as_bytes())
}

/// The engine `dir` records its run started with; None when it records none (a checkpoint
/// written before it was recorded) or the record cannot be read.
pub fn recorded_engine(dir: &Path) -> Option<RecordedEngine> {
    let text = std::fs::read(dir.join(ENGINE_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// The run `dir` belongs to, as its [`RUN_FILE`] names it.
pub fn recorded_run(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(RUN_FILE)).ok()?;
    Some(text.trim().to_string()).filter(|r| is_run_id(r))
}

/// Whether `text` is a run identity as marginal writes them (16 lowercase hex digits): a
/// [`RUN_FILE`] holding anything else is damaged, not another run's.
pub fn is_run_id(text: &str) -> bool {
    text.len() == 16
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A checkpoint in `dir` that belongs to another run than `run`: its path and its run (the
/// directory's [`RUN_FILE`], or a solver checkpoint in it). A run refuses such a directory
/// before it writes anything there or says it resumes.
pub fn foreign(dir: &Path, run: &str) -> Option<(PathBuf, String)> {
    let named = dir.join(RUN_FILE);
    // Read as bytes: a damaged record (not UTF-8) is still another run's, said as it reads.
    if let Ok(bytes) = std::fs::read(&named)
        && String::from_utf8_lossy(&bytes).trim() != run
    {
        return Some((named, String::from_utf8_lossy(&bytes).trim().to_string()));
    }
    let entries = std::fs::read_dir(dir).ok()?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths.into_iter().find_map(|path| {
        let text = std::fs::read(&path).ok()?;
        let value: serde_json::Value = serde_json::from_slice(&text).ok()?;
        let other = value.get("run")?.as_str()?;
        (value.get("format")?.as_str()? == FORMAT && other != run)
            .then(|| (path.clone(), other.to_string()))
    })
}

/// Reads a JSON-lines log of a checkpoint directory (evaluations, iterations): a record a line.
/// A last line without its newline was cut short by a kill: it is dropped from the file too,
/// so that what the resumed run appends starts a line of its own. Any other line that is not a
/// record is damage, refused naming the file and the line rather than silently lost (the run's
/// counts would then be wrong). A missing log holds nothing.
///
/// # Errors
/// The file cannot be read or shortened, or a whole line is not a record
/// ([`std::io::ErrorKind::InvalidData`], naming the file and line and what to do).
pub fn read_log<T: DeserializeOwned>(path: &Path) -> std::io::Result<Vec<T>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)?
            .set_len(whole as u64)?;
    }
    let mut records = Vec::new();
    for (i, line) in bytes[..whole].split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<T>(line) {
            Ok(record) => records.push(record),
            Err(e) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "{}:{}: not a record of this log ({e}): the checkpoint is damaged; delete that line to resume from the rest, or the directory {} to start again",
                        path.display(),
                        i + 1,
                        path.parent()
                            .map_or_else(|| ".".into(), |d| d.display().to_string())
                    ),
                ));
            }
        }
    }
    Ok(records)
}

/// The logs (`*.jsonl`) in a checkpoint directory whose last line was cut short (a run killed
/// while writing it): [`read_log`] drops that line, and a resumed run says so.
pub fn cut_logs(dir: &Path) -> Vec<PathBuf> {
    let mut cut: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.last().is_some_and(|&l| l != b'\n')))
        .collect();
    cut.sort();
    cut
}

/// The checkpoint's log of interrupted invocations: one line each, its wall seconds.
pub const INTERRUPTED_LOG: &str = "interrupted.jsonl";

/// Records in `dir` the wall-clock `seconds` and the `cpu_seconds` of an invocation that was
/// interrupted, for the resumed run's record of what the tune cost ([`earlier_invocations`]).
/// Best effort: a directory that cannot be written loses only those figures.
pub fn record_interrupted(dir: &Path, seconds: f64, cpu_seconds: f64) {
    let line = serde_json::json!({ "wall_seconds": seconds, "cpu_seconds": cpu_seconds });
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(INTERRUPTED_LOG))
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
}

/// Where a tune keeps its confirmation games (`--confirm`): a PGN in its checkpoint, so an
/// interrupted confirmation keeps them.
pub fn confirm_pgn(dir: &Path) -> PathBuf {
    dir.join("confirm.pgn")
}

/// Whole confirmation pairs kept in `dir` (two games each in the PGN; a pair cut short is
/// played again).
pub fn confirm_pairs_kept(dir: &Path) -> usize {
    std::fs::read_to_string(confirm_pgn(dir)).map_or(0, |t| t.matches("[Event ").count() / 2)
}

/// What the interrupted invocations a checkpoint records cost, and how many there were.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Earlier {
    /// Their wall-clock seconds.
    pub wall_seconds: f64,
    /// Their CPU seconds (0 for those recorded before CPU time was).
    pub cpu_seconds: f64,
    /// How many.
    pub runs: usize,
}

/// The interrupted invocations a checkpoint records ([`record_interrupted`]).
pub fn earlier_invocations(dir: &Path) -> Earlier {
    let text = std::fs::read_to_string(dir.join(INTERRUPTED_LOG)).unwrap_or_default();
    (text.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| Some((v["wall_seconds"].as_f64()?, v["cpu_seconds"].as_f64())))
        .fold(Earlier::default(), |e, (wall, cpu)| Earlier {
            wall_seconds: e.wall_seconds + wall,
            cpu_seconds: e.cpu_seconds + cpu.unwrap_or(0.0),
            runs: e.runs + 1,
        })
}

/// The game batches a checkpoint keeps: the games objective's (`games.jsonl`), the race's
/// finalists' (`race-games-N.jsonl`) and its games screen's (`screen-games-N.jsonl`), a line
/// each.
pub fn game_batches_kept(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let round_log = |prefix: &str| name.starts_with(prefix) && name.ends_with(".jsonl");
            name == "games.jsonl" || round_log("race-games-") || round_log("screen-games-")
        })
        .map(|e| std::fs::read_to_string(e.path()).map_or(0, |t| t.lines().count()))
        .sum()
}

/// The evaluations a checkpoint's log keeps, as the interrupt and the resumed run both say it:
/// the candidates searched, which only new work adds to ("48 searched candidates (195
/// evaluations logged, repeats answered from them)").
pub fn evaluations_kept(dir: &Path) -> String {
    let (lines, distinct) = super::cost::log_counts(&super::cost::log_path(dir));
    if lines == distinct {
        format!("{lines} evaluations")
    } else {
        format!(
            "{distinct} searched candidates ({lines} evaluations logged, repeats answered from them)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_keeps_its_whole_lines_and_refuses_damage_in_the_middle() {
        let dir = std::env::temp_dir().join(format!("marginal-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl");
        assert!(read_log::<u32>(&path).unwrap().is_empty());
        // A last line cut short by a kill: dropped, and cut from the file.
        std::fs::write(&path, "1\n2\n\n3\n[4").unwrap();
        assert_eq!(read_log::<u32>(&path).unwrap(), [1, 2, 3]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "1\n2\n\n3\n");
        // Before it is read, the cut is found (and said by a resumed run).
        std::fs::write(&path, "1\n[2").unwrap();
        assert_eq!(cut_logs(&dir), std::slice::from_ref(&path));
        read_log::<u32>(&path).unwrap();
        assert!(cut_logs(&dir).is_empty());
        // A whole line that is not a record: named, not skipped.
        std::fs::write(&path, "1\n{garbage\n3\n").unwrap();
        let e = read_log::<u32>(&path).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("log.jsonl:2: not a record"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_engine_and_the_run_a_checkpoint_records_read_back() {
        let dir = std::env::temp_dir().join(format!("marginal-engine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(recorded_engine(&dir), None);
        assert_eq!(recorded_run(&dir), None);
        let engine = RecordedEngine {
            name: "Toga II 3.0".into(),
            source: Some("engines/toga2.toml".into()),
            signature: "0123456789abcdef".into(),
        };
        record_engine(&dir, &engine).unwrap();
        assert_eq!(recorded_engine(&dir), Some(engine));
        std::fs::write(dir.join(RUN_FILE), "fa171b6ce3b6ac73\n").unwrap();
        assert_eq!(recorded_run(&dir).as_deref(), Some("fa171b6ce3b6ac73"));
        // The record is no solver checkpoint: it never makes the directory another run's.
        assert_eq!(foreign(&dir, "fa171b6ce3b6ac73"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn round_trip_and_refusals() {
        let dir = std::env::temp_dir().join(format!("marginal-ckpt-{}", std::process::id()));
        let path = dir.join("c.json");
        let c = JsonCheckpoint::new(&path, "run-a");
        let load = |c: &JsonCheckpoint| Checkpoint::<Vec<f64>, u64>::load(c);
        assert!(load(&c).unwrap().is_none());
        let solver = vec![0.1, 1.0 / 3.0, -2.5e-300];
        c.save(&solver, &7u64).unwrap();
        assert_eq!(load(&c).unwrap(), Some((solver, 7)));
        // Another run's checkpoint, a corrupt file and a foreign file are errors naming it.
        let other = JsonCheckpoint::new(&path, "run-b");
        let e = load(&other).unwrap_err().to_string();
        assert!(e.contains("another run") && e.contains("c.json"), "{e}");
        std::fs::write(&path, "{\"format\": \"marginal-checkpoint/1\", \"ru").unwrap();
        let e = load(&c).unwrap_err().to_string();
        assert!(
            e.contains("damaged") && e.contains("delete it") && !e.contains("not found"),
            "{e}"
        );
        std::fs::write(&path, "{\"format\": \"something/2\"}").unwrap();
        let e = load(&c).unwrap_err().to_string();
        // With the way out (campaign 20 D014: junk in place of spsa.json gave none).
        assert!(
            e.contains("not a marginal checkpoint") && e.contains("delete it"),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
