//! File formats, parsed once into typed values: EPD test suites, opening books and engine
//! files (margin-set and tuned files are `tune::file`'s); and the small pieces every data file
//! shares: JSON documents with errors that name the key and line ([`json`]), reading a file
//! into lines with the reasons for skipped lines, stable content hashes, write-then-rename,
//! and the checks of output paths before a run ([`outputs`]).
//!
//! The first stage of the data flow: this folder imports nothing from the engine, scoring or
//! commands (only the parameter table, for engine files' rows).

pub mod engine_file;
pub mod epd;
pub mod json;
pub mod lock;
pub mod openings;
pub mod outputs;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A line of a data file that was not blank or a comment but could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedLine {
    /// The path (or name) of the file, for messages.
    pub path: String,
    /// 1-based line number.
    pub line: usize,
    /// The line's text, without line terminator and surrounding whitespace or control
    /// characters.
    pub text: String,
    /// Why it was skipped.
    pub reason: String,
}

impl fmt::Display for SkippedLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.reason)
    }
}

/// A data file parsed line by line: the good records and the lines that were skipped, each
/// with its reason. Blank and `#` comment lines appear in neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<T> {
    /// The path (or name) of the file, as given for messages.
    pub path: String,
    /// Successfully parsed lines, in file order.
    pub records: Vec<T>,
    /// Lines that could not be parsed, in file order.
    pub skipped: Vec<SkippedLine>,
}

/// Why a data file could not be used at all.
#[derive(Debug, thiserror::Error)]
pub enum DataFileError {
    /// The file could not be read.
    #[error("cannot read {kind}{path}: {source}")]
    Unreadable {
        /// What kind of file, with a trailing space ("opening book "), or empty.
        kind: &'static str,
        /// The file's path.
        path: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file has nothing usable in it.
    #[error("{path}: no {what}")]
    Empty {
        /// The file's path.
        path: String,
        /// What was expected ("positions", "usable opening positions").
        what: &'static str,
    },
    /// Every line that is not blank or a comment is bad (a binary file, another format).
    #[error("{path}: no usable {what}: all {count} line(s) are bad; the first: {first}")]
    Unusable {
        /// The file's path.
        path: String,
        /// What was expected ("positions", "opening positions").
        what: &'static str,
        /// Bad lines.
        count: usize,
        /// The first bad line.
        first: Box<SkippedLine>,
    },
}

/// Most characters of a line or value quoted in a message.
pub const EXCERPT_CHARS: usize = 100;

/// `text` as it can be quoted in a message (an error, a UCI `info string`): at most
/// [`EXCERPT_CHARS`] characters, control characters shown as `?` (undecodable bytes stay the
/// visible U+FFFD of a lossy decode), and what was cut said.
pub fn excerpt(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(EXCERPT_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    let total = text.chars().count();
    if total > EXCERPT_CHARS {
        out.push_str(&format!("... ({} more characters)", total - EXCERPT_CHARS));
    }
    out
}

/// The data files bundled inside the binary, by the path they have in the repository: an
/// installed `marginal` finds the default suites and opening books from any directory.
const BUNDLED: [(&str, &[u8]); 10] = [
    (
        "data/suites/wac.epd",
        include_bytes!("../../data/suites/wac.epd"),
    ),
    (
        "data/suites/ecm.epd",
        include_bytes!("../../data/suites/ecm.epd"),
    ),
    (
        "data/suites/bk.epd",
        include_bytes!("../../data/suites/bk.epd"),
    ),
    (
        "data/suites/sts.epd",
        include_bytes!("../../data/suites/sts.epd"),
    ),
    (
        "data/openings/UHO_4060_v2_2k.epd",
        include_bytes!("../../data/openings/UHO_4060_v2_2k.epd"),
    ),
    (
        "data/openings/noob_3moves_1k.epd",
        include_bytes!("../../data/openings/noob_3moves_1k.epd"),
    ),
    (
        "data/openings/popularpos_lichess_1k.epd",
        include_bytes!("../../data/openings/popularpos_lichess_1k.epd"),
    ),
    (
        "data/openings/8mvs_+90_+99_1k.epd",
        include_bytes!("../../data/openings/8mvs_+90_+99_1k.epd"),
    ),
    (
        "data/suites/matetrack_short.epd",
        include_bytes!("../../data/suites/matetrack_short.epd"),
    ),
    (
        "data/positions/games_600.epd",
        include_bytes!("../../data/positions/games_600.epd"),
    ),
];

/// The bundled copy of a data file named by its repository path (`data/suites/wac.epd`,
/// `./data/...`), if there is one.
pub fn bundled(path: &Path) -> Option<&'static [u8]> {
    let name: Vec<_> = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    BUNDLED
        .iter()
        .find(|(p, _)| Path::new(p).components().eq(name.iter().copied()))
        .map(|(_, bytes)| *bytes)
}

/// Reads a whole data file; `kind` names the kind of file in the error, with a trailing space
/// ("opening book "), or is empty. A bundled file (see [`bundled`]) that is not on disk is
/// read from the binary; a file on disk always wins.
///
/// # Errors
/// [`DataFileError::Unreadable`], naming the file.
pub fn read_bytes(path: &Path, kind: &'static str) -> Result<Vec<u8>, DataFileError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && bundled(path).is_some() => {
            Ok(bundled(path).unwrap_or_default().to_vec())
        }
        Err(source) => Err(DataFileError::Unreadable {
            kind,
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Characters ignored around a line: whitespace, control characters (CR, NUL) and a
/// byte-order mark.
pub(crate) fn is_junk(c: char) -> bool {
    c.is_whitespace() || c.is_control() || c == '\u{feff}'
}

/// A line without its surrounding junk (see [`is_junk`]).
pub(crate) fn trim_line(text: &str) -> &str {
    text.trim_matches(is_junk)
}

/// Parses a data file's contents line by line: `parse` gets each line and its 1-based number
/// and returns a record, `None` for a line to ignore (blank, comment), or an error that becomes
/// a [`SkippedLine`]. Bytes that are not valid UTF-8 are replaced rather than rejected; `\n`
/// and `\r\n` endings are both accepted, and `\r` alone in a file with no `\n`.
pub fn parse_lines<T, E: fmt::Display>(
    path: &str,
    bytes: &[u8],
    mut parse: impl FnMut(&str, usize) -> Result<Option<T>, E>,
) -> Parsed<T> {
    let mut parsed = Parsed {
        path: path.to_owned(),
        records: Vec::new(),
        skipped: Vec::new(),
    };
    let text = String::from_utf8_lossy(bytes);
    // A file with old Mac line ends (CR alone, no LF anywhere) is read line by line too.
    let lines: Box<dyn Iterator<Item = &str>> = if !text.contains('\n') && text.contains('\r') {
        Box::new(text.split_terminator('\r'))
    } else {
        Box::new(text.lines())
    };
    for (index, raw) in lines.enumerate() {
        let line = index + 1;
        match parse(raw, line) {
            Ok(Some(record)) => parsed.records.push(record),
            Ok(None) => {}
            Err(err) => parsed.skipped.push(SkippedLine {
                path: path.to_owned(),
                line,
                text: excerpt(trim_line(raw)),
                reason: err.to_string(),
            }),
        }
    }
    parsed
}

/// Bad lines listed before the rest are said in one line ([`skipped_lines`]).
pub const SKIPPED_LISTED: usize = 20;

/// The bad lines of a suite or book as said to the user, each after `prefix`: the first
/// [`SKIPPED_LISTED`], then one line saying how many more (a binary given as a suite has tens
/// of thousands).
pub fn skipped_lines<T: fmt::Display>(
    lines: impl IntoIterator<Item = T>,
    prefix: &str,
) -> Vec<String> {
    let mut said = Vec::new();
    let mut more = 0usize;
    for (i, line) in lines.into_iter().enumerate() {
        if i < SKIPPED_LISTED {
            said.push(format!("{prefix}{line}"));
        } else {
            more += 1;
        }
    }
    if more > 0 {
        said.push(format!(
            "{prefix}... and {more} more bad line(s), not listed (the first {SKIPPED_LISTED} are above): is this the file meant?"
        ));
    }
    said
}

/// Writes `bytes` to `path` through a temporary file (`NAME.PID-N.tmp`, this writer's own) and
/// a rename, so a crash never leaves half a file and writers of one file never mix theirs.
/// Creates the parent directory.
///
/// # Errors
/// The I/O error of creating, writing or renaming.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // The command's own output (`/dev/stdout` when it goes to a file) is written after what
    // was printed, never over it.
    if let Some(mut stream) = standard_stream(path) {
        return std::io::Write::write_all(&mut stream, bytes);
    }
    // A device or a pipe (`/dev/null`, `/dev/stdout`, through any links) is written through,
    // never renamed over.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        let mut device = open_to_write(path)?;
        return std::io::Write::write_all(&mut device, bytes);
    }
    // A symbolic link is followed, even to a file not made yet: the link stays, the file it
    // names is written.
    let path = link_target(path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // create_dir_all would say only "File exists" of a file or device in the way.
        if dir.exists() && !dir.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir)?;
    }
    // A temporary of this writer's own: two runs (or threads) writing one shared file (a
    // cache) each rename a whole file of theirs, never one the other is writing.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}-{n}.tmp", std::process::id()));
    through_temporary(Path::new(&tmp), &path, |tmp| std::fs::write(tmp, bytes)).map_err(limit_said)
}

/// The flag the command's SIGINT and SIGTERM handlers raise ([`stop_waiting_on`]).
static STOP: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::OnceLock::new();

/// Gives the library the flag that a SIGINT or SIGTERM raises: a write that waits for the
/// reader of a named pipe ([`open_to_write`]) gives up when it is raised. Only the first call
/// counts.
pub fn stop_waiting_on(flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    let _ = STOP.set(flag);
}

/// How often a write to a named pipe that has no reader yet looks again.
const FIFO_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Opens `path` (created when missing, truncated when a regular file) to write it. A named
/// pipe without a reader is waited for, as any Unix writer does, but by polling, so that a
/// SIGINT or SIGTERM (the flag given to [`stop_waiting_on`]) ends the wait with an error of
/// kind `Interrupted` naming the pipe, instead of a wait that no signal but SIGKILL ends (a
/// blocking `open` is restarted after the handler).
///
/// # Errors
/// The I/O error of opening; `Interrupted` when stopped while waiting for a reader.
pub fn open_to_write(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    if !fifo {
        return std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(std::fs::metadata(path).is_ok_and(|m| m.is_file()))
            .open(path);
    }
    loop {
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path);
        match opened {
            Ok(file) => {
                use std::os::fd::AsRawFd;
                // Writes block again once the reader is there (a full pipe waits for it).
                // SAFETY: fcntl on a descriptor this function owns.
                unsafe {
                    let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
                    libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
                }
                return Ok(file);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if STOP
                    .get()
                    .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
                {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::Interrupted,
                        format!(
                            "interrupted while waiting for a reader of the named pipe {} (nothing read it): start its reader (e.g. `cat {}`) before the run writes it",
                            path.display(),
                            path.display()
                        ),
                    ));
                }
                std::thread::sleep(FIFO_POLL);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Writes `path` by `write` into `tmp` then a rename over `path`; on any error (writing,
/// renaming) the temporary is removed, so nothing half-written stays behind.
fn through_temporary(
    tmp: &Path,
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let written = write(tmp).and_then(|()| std::fs::rename(tmp, path));
    if written.is_err() && std::fs::symlink_metadata(tmp).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(tmp);
    }
    written
}

/// An I/O error that says which limit of the system it ran into, when it is one: the file-size
/// limit (`ulimit -f`, EFBIG), a full disk (ENOSPC), a read-only file system (EROFS), too many
/// open files (EMFILE, ENFILE). Any other error is given back as it is.
#[must_use]
pub fn limit_said(e: std::io::Error) -> std::io::Error {
    let limit = match e.raw_os_error() {
        Some(libc::EFBIG) => "the file-size limit (ulimit -f) was reached",
        Some(libc::ENOSPC) => "the disk is full: free some space",
        Some(libc::EDQUOT) => "the disk quota is used up",
        Some(libc::EROFS) => "the file system is read-only",
        Some(libc::EMFILE) => "too few file descriptors (ulimit -n)",
        Some(libc::ENFILE) => "the system's table of open files is full",
        _ => return e,
    };
    std::io::Error::new(e.kind(), format!("{e}: {limit}"))
}

/// The process's standard output and the path that named it, kept for that output once
/// [`keep_stdout_for`] has sent what the process prints to standard error.
static KEPT_STDOUT: std::sync::OnceLock<(std::os::fd::OwnedFd, PathBuf)> =
    std::sync::OnceLock::new();

/// Whether the open file `fd` is the file `target` describes.
fn same_file(fd: std::os::fd::BorrowedFd<'_>, target: &std::fs::Metadata) -> Option<std::fs::File> {
    use std::os::unix::fs::MetadataExt;
    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let meta = file.metadata().ok()?;
    (meta.dev() == target.dev() && meta.ino() == target.ino()).then_some(file)
}

/// The process's own standard output or error when `path` names the file, pipe or device it
/// writes to (`/dev/stdout`, `/dev/fd/2`, or the file a shell redirected it to): a handle
/// sharing its offset, so what is written through it follows what the command printed
/// instead of writing over it from the start. Standard output is flushed first. After
/// [`keep_stdout_for`], the standard output kept is the one meant.
pub fn standard_stream(path: &Path) -> Option<std::fs::File> {
    use std::io::Write;
    use std::os::fd::AsFd;
    let _ = std::io::stdout().flush();
    // `/dev/stdout` names standard error once standard output is diverted: the path that
    // named the output kept still means it.
    if let Some((kept, named)) = KEPT_STDOUT.get()
        && named == path
    {
        return kept.try_clone().ok().map(std::fs::File::from);
    }
    let target = std::fs::metadata(path).ok()?;
    KEPT_STDOUT
        .get()
        .and_then(|(kept, _)| same_file(kept.as_fd(), &target))
        .or_else(|| same_file(std::io::stdout().as_fd(), &target))
        .or_else(|| same_file(std::io::stderr().as_fd(), &target))
}

/// When `path` names the process's standard output and standard error goes elsewhere
/// (`--json /dev/stdout | jq`, or `--json r.json > r.json`), keeps standard output for that
/// file alone: from now on what the process prints to standard output goes to standard
/// error, and [`standard_stream`] gives the output kept, so the file holds only what is
/// written to it. Returns whether it did (once per process).
pub fn keep_stdout_for(path: &Path) -> bool {
    use std::io::Write;
    use std::os::fd::{AsFd, AsRawFd};
    let Ok(target) = std::fs::metadata(path) else {
        return false;
    };
    let out = std::io::stdout();
    if KEPT_STDOUT.get().is_some()
        || same_file(out.as_fd(), &target).is_none()
        || same_file(std::io::stderr().as_fd(), &target).is_some()
    {
        return false;
    }
    let _ = out.lock().flush();
    let Ok(kept) = out.as_fd().try_clone_to_owned() else {
        return false;
    };
    // SAFETY: dup2(2) on the process's own standard descriptors; both are open.
    if unsafe { libc::dup2(std::io::stderr().as_raw_fd(), out.as_raw_fd()) } < 0 {
        return false;
    }
    KEPT_STDOUT.set((kept, path.to_path_buf())).is_ok()
}

/// Whether `path` is no place for files beside it: a device, a pipe, or the command's own
/// output (a plot or record "beside" `/dev/null` or `/dev/stdout` would land in `/dev`).
pub fn is_stream(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file()) || standard_stream(path).is_some()
}

/// The file `path` names once its symbolic links are followed, whether or not that file exists
/// yet (a dangling link names the file it would make); `path` itself when it is no link.
///
/// # Errors
/// A loop of links (more than 40 in a row), or a link that cannot be read.
pub fn link_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(path);
        }
        let target = std::fs::read_link(&path)?;
        path = match path.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// FNV-1a, 64-bit: a stable hash of file contents and cache keys (std's hasher is not
/// guaranteed stable across releases).
#[derive(Debug, Clone)]
pub struct Fnv(u64);

impl Fnv {
    /// A fresh hasher.
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

/// A value stored with the digest of its JSON, so that a file this program wrote is told from
/// one edited by hand: an edit that still parses (a node count changed to 1) no longer passes
/// for the program's own figures. Layout changes (spacing, line breaks) keep the digest.
#[derive(Serialize, Deserialize)]
pub struct Sealed<T> {
    /// FNV-1a of the value's compact JSON, hex.
    pub digest: String,
    /// The value.
    pub value: T,
}

impl<T: Serialize> Sealed<T> {
    fn digest_of(value: &T) -> String {
        let mut h = Fnv::new();
        h.write(&serde_json::to_vec(value).unwrap_or_default());
        format!("{:016x}", h.finish())
    }

    /// The value sealed with its digest.
    pub fn new(value: T) -> Sealed<T> {
        Sealed {
            digest: Self::digest_of(&value),
            value,
        }
    }

    /// The value, when its digest still matches it.
    ///
    /// # Errors
    /// The value was changed after it was sealed (the message says so).
    pub fn open(self) -> Result<T, String> {
        let digest = Self::digest_of(&self.value);
        if digest == self.digest {
            Ok(self.value)
        } else {
            Err(format!(
                "its figures do not match their digest (edited after it was written: {} recorded, {digest} now)",
                self.digest
            ))
        }
    }
}

/// A move in UCI notation (`e2e4`, `e7e8q`, castling as king to its destination).
pub fn uci_move(m: shakmaty::Move) -> String {
    shakmaty::uci::UciMove::from_move(m, shakmaty::CastlingMode::Standard).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_stable() {
        let mut h = Fnv::new();
        h.write(b"marginal");
        // FNV-1a 64 of "marginal", computed independently.
        assert_eq!(h.finish(), 0x2819_408b_a73b_7506);
    }

    #[test]
    fn a_file_where_a_directory_belongs_is_named_as_such() {
        // MARGINAL_CACHE_DIR=/dev/null: the cache goes inside a device.
        let e = write_atomic(Path::new("/dev/null/cache.json"), b"{}").unwrap_err();
        assert_eq!(e.to_string(), "/dev/null is not a directory");
    }

    #[test]
    fn lines_become_records_skips_or_nothing() {
        let parsed = parse_lines("f.txt", b"1\n\n x \r\n3\xff\n", |line, _| {
            let t = trim_line(line);
            if t.is_empty() {
                Ok(None)
            } else {
                t.parse::<u32>().map(Some).map_err(|e| e.to_string())
            }
        });
        assert_eq!(parsed.records, vec![1]);
        assert_eq!(parsed.skipped.len(), 2);
        assert_eq!(
            parsed.skipped[0].to_string().split(": ").next(),
            Some("f.txt:3")
        );
        assert_eq!(parsed.skipped[0].text, "x");
        assert_eq!(parsed.skipped[1].line, 4);
    }

    #[test]
    fn old_mac_line_ends_are_lines() {
        let number = |line: &str, _| {
            let t = trim_line(line);
            t.parse::<u32>()
                .map(|n| (!t.is_empty()).then_some(n))
                .map_err(|e| e.to_string())
        };
        let parsed = parse_lines("f.txt", b"1\r2\rx\r", number);
        assert_eq!(parsed.records, vec![1, 2]);
        assert_eq!(parsed.skipped[0].line, 3);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("marginal-atomic-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (tmp, path) = (dir.join("out.json.tmp"), dir.join("out.json"));
        // Half written, then the write fails (as a full disk or a file-size limit fails it).
        let e = through_temporary(&tmp, &path, |t| {
            std::fs::write(t, b"half")?;
            Err(std::io::Error::from_raw_os_error(libc::EFBIG))
        })
        .unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EFBIG));
        assert!(!tmp.exists() && !path.exists());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failed_rename_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("marginal-atomic-r-{}", std::process::id()));
        // The file's place is taken by a directory that is not empty: the rename fails.
        let path = dir.join("out.json");
        std::fs::create_dir_all(path.join("inside")).unwrap();
        let tmp = dir.join("out.json.tmp");
        through_temporary(&tmp, &path, |t| std::fs::write(t, b"whole")).unwrap_err();
        assert!(!tmp.exists());
        assert!(path.join("inside").is_dir());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_write_into_a_vanished_directory_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("marginal-atomic-v-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (tmp, path) = (dir.join("out.json.tmp"), dir.join("out.json"));
        through_temporary(&tmp, &path, |t| {
            std::fs::write(t, b"whole")?;
            std::fs::remove_dir_all(&dir)?;
            Ok(())
        })
        .unwrap_err();
        assert!(!dir.exists());
    }

    #[test]
    fn limits_are_named_in_write_errors() {
        let said = |errno| limit_said(std::io::Error::from_raw_os_error(errno)).to_string();
        assert!(
            said(libc::EFBIG).contains("ulimit -f"),
            "{}",
            said(libc::EFBIG)
        );
        assert!(said(libc::ENOSPC).contains("disk is full"));
        assert!(said(libc::EMFILE).contains("ulimit -n"));
        // Other errors are left as they are.
        assert_eq!(
            said(libc::ENOENT),
            std::io::Error::from_raw_os_error(libc::ENOENT).to_string()
        );
    }

    #[test]
    fn atomic_write_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("marginal-atomic-{}", std::process::id()));
        let path = dir.join("sub/out.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn skipped_lines_are_listed_up_to_a_limit_then_counted() {
        let said = skipped_lines(1..=SKIPPED_LISTED + 3, "warning: ");
        assert_eq!(said.len(), SKIPPED_LISTED + 1);
        assert_eq!(said[0], "warning: 1");
        assert!(
            said[SKIPPED_LISTED].contains("3 more bad line(s)"),
            "{said:?}"
        );
        assert_eq!(skipped_lines(["a"], ""), vec!["a".to_string()]);
    }
}
