//! What a calibration has finished, on disk: its identity, each set's objective values, and
//! each game pair, appended line by line as they finish, so a run killed at any point and
//! rerun goes on from there and ends with the same report.
//!
//! The directory holds `identity.json` (everything that decides the results; a rerun with
//! other settings is refused, never mixed in), `objectives.jsonl` and `pairs.jsonl`. A line
//! cut short by a kill is ignored.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::formats::{lock, write_atomic};
use crate::scoring::games::stats::GameResult;

/// One set's value of one objective.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveLine {
    /// Set index.
    pub set: usize,
    /// The objective's key ([`crate::scoring::cheap::CheapObjective::key`]): values are kept
    /// by key, so a rerun that adds an objective reuses the games and the other values.
    pub objective: String,
    /// The value (higher is better).
    pub value: f64,
    /// Its account for people.
    pub summary: String,
    /// Positions an external engine faulted on.
    #[serde(default)]
    pub faults: usize,
    /// Positions an external engine overshot its node budget on.
    #[serde(default)]
    pub overshot: usize,
}

/// One finished game pair of a set against the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairLine {
    /// Set index.
    pub set: usize,
    /// Book index.
    pub book: usize,
    /// Pair index within the book (its opening).
    pub pair: usize,
    /// The set's result with White.
    pub first: Outcome,
    /// The set's result with Black.
    pub second: Outcome,
    /// Games of the pair that ended by an engine's fault.
    #[serde(default)]
    pub faults: u8,
}

/// What one run of the calibration did (kept so the report's cost covers every run).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunLine {
    /// Wall time, seconds.
    pub wall_seconds: f64,
    /// CPU time of marginal and its engine processes, seconds (`None`: not measured).
    #[serde(default)]
    pub cpu_seconds: Option<f64>,
    /// Objective values measured.
    pub objective_evaluations: usize,
    /// Games played.
    pub games: usize,
}

/// A game's result for the candidate set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Won.
    W,
    /// Drawn.
    D,
    /// Lost.
    L,
}

impl From<GameResult> for Outcome {
    fn from(r: GameResult) -> Outcome {
        match r {
            GameResult::Win => Outcome::W,
            GameResult::Draw => Outcome::D,
            GameResult::Loss => Outcome::L,
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(o: Outcome) -> GameResult {
        match o {
            Outcome::W => GameResult::Win,
            Outcome::D => GameResult::Draw,
            Outcome::L => GameResult::Loss,
        }
    }
}

/// Why the store cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An I/O error on a file of the store.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What happened.
        error: std::io::Error,
    },
    /// A line of a record file, with whole lines after it, is not a record: cutting the file
    /// there would lose them.
    #[error(
        "{path}:{line}: not a record of this calibration ({message}); the lines after it are kept: fix or delete this line, or delete the file to play its work again"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// Another process is working on the same calibration.
    #[error(
        "{path}: another marginal calibrate ({}) is working on this calibration; wait for it, or stop it first",
        pid.map_or_else(|| "its process id not written yet".to_string(), |p| format!("pid {p}"))
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// The process that holds it, when its lock file says it.
        pid: Option<u32>,
    },
    /// The directory belongs to a calibration with other settings.
    #[error(
        "{path} holds a calibration with other settings ({what}): give another --state (or none: each calibration then keeps its own directory), or delete the directory to start afresh"
    )]
    Foreign {
        /// The identity file.
        path: PathBuf,
        /// The first difference.
        what: String,
    },
    /// The directory holds files and is no calibration's state directory (no identity.json):
    /// the user's own files, never written among.
    #[error(
        "--state {path} holds files and is not a calibration's state directory (it has no identity.json; it holds {holds}): marginal does not write its state among them; give a new or empty directory, or the --state directory of the same calibration to resume it"
    )]
    NotAStore {
        /// The directory.
        path: PathBuf,
        /// What it holds, for people: a few names, and how many more.
        holds: String,
    },
}

/// The files a calibration's state directory holds (and `identity.json.PID-N.tmp` while it is
/// written).
const STORE_FILES: [&str; 5] = [
    "identity.json",
    "lock",
    "objectives.jsonl",
    "pairs.jsonl",
    "runs.jsonl",
];

/// Refuses `dir` when it holds anything but a calibration's own files and has no
/// `identity.json`: a directory of the user's is never written into. A missing or empty
/// directory, or a calibration's (to resume, or refused by [`Store::open`] if another's), is
/// fine; so is one that cannot be read (opening it then says why).
///
/// # Errors
/// [`StoreError::NotAStore`], naming a few of the files it holds.
pub fn check_dir(dir: &Path) -> Result<(), StoreError> {
    if dir.join("identity.json").exists() {
        return Ok(());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut foreign: Vec<String> = entries
        .flatten()
        .filter(|e| !STORE_FILES.iter().any(|f| e.file_name() == **f))
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !(name.starts_with("identity.json.") && name.ends_with(".tmp"))
        })
        .map(|e| {
            let slash = if e.path().is_dir() { "/" } else { "" };
            format!("'{}{slash}'", e.file_name().to_string_lossy())
        })
        .collect();
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    let holds = match foreign.len() {
        n @ 1..=3 => foreign.join(if n == 2 { " and " } else { ", " }),
        n => format!("{} and {} more", foreign[..3].join(", "), n - 3),
    };
    Err(StoreError::NotAStore {
        path: dir.to_path_buf(),
        holds,
    })
}

/// An open store: what was finished before, and the files to append to.
pub struct Store {
    dir: PathBuf,
    objectives: Mutex<File>,
    pairs: Mutex<File>,
    runs: Mutex<File>,
    /// Held (flock) while the store is open: one run at a time appends to it.
    _lock: lock::Held,
    /// Earlier runs.
    pub earlier_runs: Vec<RunLine>,
    /// Objective values finished earlier.
    pub earlier_objectives: Vec<ObjectiveLine>,
    /// Pairs finished earlier.
    pub earlier_pairs: Vec<PairLine>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |error| StoreError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The whole lines of a JSON-lines file that parse (a last line cut short is dropped, and cut
/// from the file so appends start on a fresh line).
fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(path)(e)),
    };
    let mut out = Vec::new();
    let mut whole = 0;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if !line.ends_with('\n') {
            break;
        }
        match serde_json::from_str::<T>(line.trim_end()) {
            Ok(v) => {
                out.push(v);
                whole += line.len();
            }
            // The last line, written when the run stopped: cut short, dropped.
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        }
    }
    if whole < text.len() {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io(path))?;
        file.set_len(whole as u64).map_err(io(path))?;
    }
    Ok(out)
}

impl Store {
    /// Opens (or creates) the store in `dir` for a calibration with the first of `identities`
    /// (canonical JSON of everything that decides its results; a store made with any of them
    /// is opened, as the same engine may have been recorded under another signature).
    ///
    /// # Errors
    /// The directory cannot be written, holds another calibration, or holds files and is no
    /// calibration's ([`check_dir`]).
    pub fn open(dir: &Path, identities: &[serde_json::Value]) -> Result<Store, StoreError> {
        let identity = &identities[0];
        check_dir(dir)?;
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let lock_path = dir.join("lock");
        let lock = lock::hold_with(dir, &lock_path).map_err(|e| match e {
            lock::LockError::Busy { pid, .. } => StoreError::Busy {
                path: lock_path.clone(),
                pid,
            },
            lock::LockError::Io { error, .. } | lock::LockError::Unsupported { error, .. } => {
                io(&lock_path)(error)
            }
        })?;
        let id_path = dir.join("identity.json");
        match std::fs::read_to_string(&id_path) {
            Ok(text) => {
                let then: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| StoreError::Foreign {
                        path: id_path.clone(),
                        what: format!("unreadable: {e}"),
                    })?;
                if !identities.contains(&then) {
                    return Err(StoreError::Foreign {
                        what: first_difference(&then, identity),
                        path: id_path,
                    });
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let text = serde_json::to_string_pretty(identity).expect("identity serializes");
                write_atomic(&id_path, text.as_bytes()).map_err(io(&id_path))?;
            }
            Err(e) => return Err(io(&id_path)(e)),
        }
        let (op, pp) = (dir.join("objectives.jsonl"), dir.join("pairs.jsonl"));
        let earlier_objectives = read_lines(&op)?;
        let earlier_pairs = read_lines(&pp)?;
        let rp = dir.join("runs.jsonl");
        let earlier_runs = read_lines(&rp)?;
        let append = |p: &Path| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(io(p))
        };
        Ok(Store {
            objectives: Mutex::new(append(&op)?),
            pairs: Mutex::new(append(&pp)?),
            runs: Mutex::new(append(&rp)?),
            _lock: lock,
            earlier_runs,
            dir: dir.to_path_buf(),
            earlier_objectives,
            earlier_pairs,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn append<T: Serialize>(
        &self,
        file: &Mutex<File>,
        name: &str,
        value: &T,
    ) -> Result<(), StoreError> {
        let line = serde_json::to_string(value).expect("a line serializes") + "\n";
        let path = self.dir.join(name);
        let mut f = file.lock().expect("store lock");
        // One write a line: a kill leaves a whole line or a tail that the next open drops.
        f.write_all(line.as_bytes()).map_err(io(&path))?;
        f.flush().map_err(io(&path))
    }

    /// Keeps an objective value.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn add_objective(&self, line: &ObjectiveLine) -> Result<(), StoreError> {
        self.append(&self.objectives, "objectives.jsonl", line)
    }

    /// Keeps what a run did.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn add_run(&self, line: &RunLine) -> Result<(), StoreError> {
        self.append(&self.runs, "runs.jsonl", line)
    }

    /// Keeps a finished pair.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn add_pair(&self, line: &PairLine) -> Result<(), StoreError> {
        self.append(&self.pairs, "pairs.jsonl", line)
    }
}

/// The first key whose value differs between two identities, as `key: then -> now`.
fn first_difference(then: &serde_json::Value, now: &serde_json::Value) -> String {
    if let (Some(a), Some(b)) = (then.as_object(), now.as_object()) {
        for (k, v) in b {
            match a.get(k) {
                Some(w) if w == v => {}
                Some(w) => {
                    let short = |x: &serde_json::Value| crate::formats::excerpt(&x.to_string());
                    return format!("{k}: {} then, {} now", short(w), short(v));
                }
                None => return format!("{k}: absent then"),
            }
        }
        for k in a.keys() {
            if !b.contains_key(k) {
                return format!("{k}: absent now");
            }
        }
    }
    "another format".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("marginal-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_directory_of_other_files_is_never_opened() {
        let d = dir("foreign-files");
        let id = [json!({"a": 1})];
        // Missing, empty, or holding only a calibration's files (killed before its identity
        // was written): used.
        check_dir(&d).unwrap();
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("lock"), "").unwrap();
        drop(Store::open(&d, &id).unwrap());
        // A calibration's directory stays usable whatever else lands in it.
        std::fs::write(d.join("README"), "mine").unwrap();
        drop(Store::open(&d, &id).unwrap());
        let _ = std::fs::remove_dir_all(&d);
        // The user's files: refused, naming a few, and nothing is written.
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for f in ["a.txt", "b.txt", "c.txt", "d.txt"] {
            std::fs::write(d.join(f), "mine").unwrap();
        }
        let Err(e @ StoreError::NotAStore { .. }) = Store::open(&d, &id) else {
            panic!("a directory of other files must be refused");
        };
        let text = e.to_string();
        assert!(
            text.contains("it holds 'a.txt', 'b.txt', 'c.txt' and 2 more)"),
            "{text}"
        );
        assert!(
            text.starts_with(&format!("--state {} holds files", d.display())),
            "{text}"
        );
        assert!(!d.join("lock").exists() && !d.join("identity.json").exists());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn lines_survive_a_reopen_and_a_cut_tail_is_dropped() {
        let d = dir("reopen");
        let id = [json!({"a": 1, "b": "x"})];
        let s = Store::open(&d, &id).unwrap();
        let pair = PairLine {
            set: 1,
            book: 0,
            pair: 3,
            first: Outcome::W,
            second: Outcome::D,
            faults: 0,
        };
        s.add_pair(&pair).unwrap();
        s.add_objective(&ObjectiveLine {
            set: 0,
            objective: "suite".into(),
            value: 1.5,
            summary: "s".into(),
            faults: 0,
            overshot: 0,
        })
        .unwrap();
        drop(s);
        // A kill in the middle of a line.
        let mut f = OpenOptions::new()
            .append(true)
            .open(d.join("pairs.jsonl"))
            .unwrap();
        f.write_all(b"{\"set\":2,\"bo").unwrap();
        drop(f);
        let s = Store::open(&d, &id).unwrap();
        assert_eq!(s.earlier_pairs, [pair]);
        assert_eq!(s.earlier_objectives.len(), 1);
        s.add_pair(&pair).unwrap();
        // One run at a time.
        assert!(matches!(Store::open(&d, &id), Err(StoreError::Busy { .. })));
        drop(s);
        assert_eq!(Store::open(&d, &id).unwrap().earlier_pairs.len(), 2);
        let Err(StoreError::Foreign { what, .. }) = Store::open(&d, &[json!({"a": 2, "b": "x"})])
        else {
            panic!("another identity must be refused");
        };
        assert!(what.starts_with("a: 1 then, 2 now"), "{what}");
        // The same calibration under another of its identities (the engine's former signature).
        let former = [json!({"a": 2, "b": "x"}), id[0].clone()];
        assert_eq!(Store::open(&d, &former).unwrap().earlier_pairs.len(), 2);
        // A bad line with whole lines after it is named, and nothing is cut.
        let path = d.join("pairs.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(1, "garbage");
        let broken = lines.join("\n") + "\n";
        std::fs::write(&path, &broken).unwrap();
        let Err(e @ StoreError::Corrupt { line: 2, .. }) = Store::open(&d, &id) else {
            panic!("a corrupt middle line must be refused");
        };
        assert!(e.to_string().contains("pairs.jsonl:2: not a record"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
        let _ = std::fs::remove_dir_all(&d);
    }
}
