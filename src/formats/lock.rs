//! One writer per output: a run holds each file or directory it writes or resumes through a
//! lock file, so a second run on the same output is refused at once, naming the process that
//! holds it, instead of both writing and one result being lost.
//!
//! The lock is the operating system's: `flock(2)` (advisory, exclusive, never waited for) on a
//! lock file beside the output (`.NAME.lock`, following symbolic links) or, for a directory
//! that holds its own (a calibration's state), on a file inside it. The holder writes its
//! process id into the file, so a refusal can name it. The kernel releases a flock when its
//! process ends, however it ends: a lock file left by a killed run is simply taken again (and
//! said: "left by a run that ended"), never a reason to refuse. A run that ends normally
//! removes its lock files.
//!
//! flock works between processes of one machine on a local file system; over NFS it depends
//! on the server (Linux emulates it with NFS byte-range locks), so runs on several machines
//! should not share outputs.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why an output could not be held.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error(
        "{} is in use by another run ({}, which holds {}): one run at a time writes it; wait for that run to end (or stop it), or write elsewhere",
        output.display(),
        holder(*pid),
        lock.display()
    )]
    Busy {
        /// The output.
        output: PathBuf,
        /// Its lock file.
        lock: PathBuf,
        /// The holder's process id, when its lock file says it.
        pid: Option<u32>,
    },
    /// The lock file was made but its file system does not lock (flock fails with another
    /// error than "held"): the run can go on, unguarded.
    #[error(
        "{} cannot be locked ({error}): its file system takes no flock, so another run writing the same output at the same time is not kept out",
        lock.display()
    )]
    Unsupported {
        /// The lock file.
        lock: PathBuf,
        /// What flock said.
        error: std::io::Error,
    },
    /// The lock file cannot be made.
    #[error("cannot lock {}: {error}", lock.display())]
    Io {
        /// The lock file.
        lock: PathBuf,
        /// What happened.
        error: std::io::Error,
    },
}

/// The holder, for people: `pid N`, or that it has not written its id yet.
fn holder(pid: Option<u32>) -> String {
    pid.map_or_else(
        || "its process id not written yet".to_string(),
        |p| format!("pid {p}"),
    )
}

/// A held lock: released (and its file removed) when dropped, or by the kernel when the process
/// ends.
#[derive(Debug)]
pub struct Held {
    file: File,
    path: PathBuf,
    /// The process id a killed run left in the lock file, taken over.
    stale: Option<u32>,
}

impl Held {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What to say when the lock was left by a run that ended without removing it (killed):
    /// `None` for a fresh lock.
    pub fn stale_note(&self) -> Option<String> {
        self.stale.map(|pid| {
            format!(
                "{}: a lock left by a run that ended (pid {pid}) was taken over",
                self.path.display()
            )
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // Removed while still held, and only when the path is still this lock's file: a run
        // that opened it meanwhile finds it gone when it holds it, and makes a new one.
        if same_inode(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether `path` names the open `file` (not a file made there since).
fn same_inode(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The lock file of `output`: `.NAME.lock` beside the file (or directory) it names once its
/// symbolic links are followed, so every name of one output shares one lock.
pub fn lock_path(output: &Path) -> PathBuf {
    let target = super::link_target(output).unwrap_or_else(|_| output.to_path_buf());
    let name = target.file_name().map_or_else(
        || std::ffi::OsString::from("output"),
        std::ffi::OsStr::to_os_string,
    );
    let mut lock = std::ffi::OsString::from(".");
    lock.push(name);
    lock.push(".lock");
    target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(lock)
}

/// Whether a directory entry named `name` is a lock file ([`lock_path`]): a run's, not the
/// user's.
pub fn is_lock_file(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.len() > ".lock".len() + 1 && name.starts_with('.') && name.ends_with(".lock")
}

/// Holds `output` through its lock file ([`lock_path`]); its directory must exist.
///
/// # Errors
/// [`LockError::Busy`] when another process holds it; [`LockError::Io`] when the lock file
/// cannot be made.
pub fn hold(output: &Path) -> Result<Held, LockError> {
    hold_with(output, &lock_path(output))
}

/// Holds `output` through the lock file `lock` (a directory's own, inside it).
///
/// # Errors
/// As [`hold`].
pub fn hold_with(output: &Path, lock: &Path) -> Result<Held, LockError> {
    let io = |error| LockError::Io {
        lock: lock.to_path_buf(),
        error,
    };
    // A holder ending between our open and our flock removes the file we locked: then the
    // path names another file (or none), and the lock is taken again on what it names now.
    for _ in 0..100 {
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(lock)
            .map_err(io)?;
        // SAFETY: flock on a descriptor this function owns; released when it closes.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let error = std::io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
                // The file was made, but its file system takes no flock (some network ones).
                return Err(LockError::Unsupported {
                    lock: lock.to_path_buf(),
                    error,
                });
            }
            return Err(LockError::Busy {
                output: output.to_path_buf(),
                lock: lock.to_path_buf(),
                pid: read_pid(&mut file),
            });
        }
        if !same_inode(&file, lock) {
            continue;
        }
        let stale = read_pid(&mut file).filter(|&p| p != std::process::id());
        // The id is for people: a lock whose id cannot be written (a file-size limit of 0) is
        // held all the same.
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|_| file.write_all(format!("{}\n", std::process::id()).as_bytes()));
        return Ok(Held {
            file,
            path: lock.to_path_buf(),
            stale,
        });
    }
    Err(io(std::io::Error::other(
        "it kept being removed while it was taken",
    )))
}

/// The process id a lock file holds, if it holds one.
fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.take(64).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// The locks this process holds for the whole of its run ([`hold_for_run`]).
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Holds `output` until the run ends ([`release_all`], or the process's end): the outputs a
/// command checks before its work are written by it alone until it has finished. Holding an
/// output this process already holds does nothing. Returns what to say of a stale lock taken
/// over ([`Held::stale_note`]).
///
/// # Errors
/// As [`hold`].
pub fn hold_for_run(output: &Path) -> Result<Option<String>, LockError> {
    let lock = lock_path(output);
    let mut held = HELD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if held.iter().any(|h| h.path == lock) {
        return Ok(None);
    }
    let h = hold_with(output, &lock)?;
    let note = h.stale_note();
    held.push(h);
    Ok(note)
}

/// Releases every lock [`hold_for_run`] took (removing their files): called once the run has
/// ended. Never waits: while another thread is taking a lock, the locks stay held until the
/// process ends (and the kernel releases them).
pub fn release_all() {
    match HELD.try_lock() {
        Ok(mut held) => held.clear(),
        Err(std::sync::TryLockError::Poisoned(held)) => held.into_inner().clear(),
        Err(std::sync::TryLockError::WouldBlock) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        crate::testing::scratch("lock", name)
    }

    #[test]
    fn a_held_output_is_refused_naming_the_holders_pid_and_freed_when_dropped() {
        let d = dir("busy");
        let out = d.join("tuned.json");
        let first = hold(&out).unwrap();
        assert_eq!(first.path(), d.join(".tuned.json.lock"));
        assert_eq!(first.stale_note(), None);
        // flock is per open file: a second hold, even in this process, is another writer.
        let Err(e @ LockError::Busy { .. }) = hold(&out) else {
            panic!("a held output must be refused");
        };
        let text = e.to_string();
        assert!(text.contains(&out.display().to_string()), "{text}");
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        drop(first);
        assert!(!d.join(".tuned.json.lock").exists());
        let again = hold(&out).unwrap();
        assert_eq!(again.stale_note(), None);
        drop(again);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_lock_file_left_by_an_ended_process_is_taken_over_and_said() {
        let d = dir("stale");
        let out = d.join("report.json");
        // What a killed run leaves: its lock file with its pid, no process holding it.
        std::fs::write(lock_path(&out), "4194304\n").unwrap();
        let held = hold(&out).unwrap();
        let note = held.stale_note().unwrap();
        assert!(
            note.contains("left by a run that ended (pid 4194304)"),
            "{note}"
        );
        drop(held);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn every_name_of_an_output_shares_its_lock() {
        let d = dir("link");
        let out = d.join("games.pgn");
        let link = d.join("link.pgn");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        assert_eq!(lock_path(&link), lock_path(&out));
        let _held = hold(&out).unwrap();
        assert!(matches!(hold(&link), Err(LockError::Busy { .. })));
        drop(_held);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn holding_for_the_run_twice_in_one_process_is_one_hold() {
        let d = dir("run");
        let out = d.join("r.json");
        assert_eq!(hold_for_run(&out).unwrap(), None);
        assert_eq!(hold_for_run(&out).unwrap(), None);
        assert!(matches!(hold(&out), Err(LockError::Busy { .. })));
        std::fs::remove_dir_all(d).unwrap();
    }
}
