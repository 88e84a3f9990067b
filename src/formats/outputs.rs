//! Output paths checked before any work: a command refuses, at once and not after its run, an
//! output it could not write, one that would replace another run's result (without --force),
//! a file of another kind, or one of its own inputs; and it replaces freely only the plots it
//! drew itself ([`PLOT_MARK`]).
//!
//! Nothing here prints: what a command should say (a directory it created) is returned.

use std::path::{Path, PathBuf};

use super::{excerpt, keep_stdout_for, link_target, lock, standard_stream, write_atomic};

/// An output path the command must not write: the message names the option, the path and the
/// fix (a user error, exit status 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OutputError(pub String);

/// Checks before any work that `path` can be written (its directory exists or can be
/// created, and a file can be made there), without touching an existing file: a bad output
/// path fails at once instead of after the run. `option` names the output in messages.
///
/// A regular file is then held by this run until it ends ([`lock::hold_for_run`]): a second
/// run on the same output is refused here, naming the process that holds it.
///
/// Returns the note to say when it created the output's directory
/// (`{option}: created the directory {dir}`) or took over a lock left by a run that ended,
/// or `None`.
///
/// # Errors
/// The path cannot be written, or another run holds it: names the option, the path and why.
pub fn writable(path: &Path, option: &str) -> Result<Option<String>, OutputError> {
    let fail = |e: &dyn std::fmt::Display| {
        OutputError(format!("{option}: cannot write {}: {e}", path.display()))
    };
    if path.is_dir() {
        return Err(fail(&"it is a directory"));
    }
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(fail(
            &"it ends in '/', so it names a directory: name a file",
        ));
    }
    // The command's own standard output (`--json /dev/stdout | jq`) holds that output alone:
    // what the command says for people goes to standard error.
    if keep_stdout_for(path) {
        return Ok(None);
    }
    // A device or a pipe (/dev/null, a FIFO) is written once, directly, when the run writes
    // it: never opened to test it (a FIFO's reader would see the test's close as the end).
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return may_write(path).map(|()| None).map_err(|e| fail(&e));
    }
    // A symbolic link is written through, even to a file not made yet.
    let target = link_target(path).map_err(|e| fail(&e))?;
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut notes = Vec::new();
    if !dir.exists() {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        notes.push(format!("{option}: created the directory {}", dir.display()));
    }
    // Held until the run ends: a second run on this output is refused at once (its lock file
    // is also the proof that a file can be made in the directory).
    match lock::hold_for_run(&target) {
        Ok(stale) => notes.extend(stale.map(|s| format!("{option}: {s}"))),
        Err(e @ lock::LockError::Busy { .. }) => return Err(OutputError(format!("{option} {e}"))),
        Err(e @ lock::LockError::Unsupported { .. }) => notes.push(format!("{option}: {e}")),
        Err(lock::LockError::Io { error, .. }) => {
            return Err(fail(&format_args!(
                "no file can be made in its directory {}: {error}",
                dir.display()
            )));
        }
    }
    if target.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&target)
            .map_err(|e| fail(&e))?;
    }
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(note)
}

/// Whether this process may write `path` (access(2) with W_OK), asked without opening it.
fn may_write(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: access(2) reads the NUL-terminated path and nothing else.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Refuses to write over an existing `out` unless `force` (the command's --force): results
/// another run made are never replaced by accident; then checks that `out` can be written
/// ([`writable`], whose note it returns), so a bad path fails before the work and not after it.
///
/// # Errors
/// Names the option, the file and the fix.
pub fn fresh_output(out: &Path, option: &str, force: bool) -> Result<Option<String>, OutputError> {
    if !out.is_dir() && out.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(OutputError(format!(
            "{option} {} ends in '/', so it names a directory: name a file",
            out.display()
        )));
    }
    if out.is_dir() {
        return Err(OutputError(format!(
            "{option} {} is a directory: name a file in it",
            out.display()
        )));
    }
    // A device or a pipe (`/dev/null`) is written through and loses nothing; a regular file
    // (or a link to one) is another run's result.
    if !force && out.is_file() && standard_stream(out).is_none() {
        return Err(OutputError(format!(
            "{option} {} exists: marginal does not replace it; give another {option}, or add --force to replace it",
            out.display()
        )));
    }
    writable(out, option)
}

/// [`fresh_output`] for a JSON output (a report, a tuned file): `--force` replaces a JSON file,
/// never a file of another kind (an engine file, a suite, a book), as `--pgn` refuses what is
/// not a PGN. `results` are the `format` fields (`name/version`) of the files that hold a run's
/// result (a tuned file, a calibration report), which a `--json` report never replaces, even
/// with `force`.
///
/// # Errors
/// As [`fresh_output`], a file there that is not JSON, or a `--json` over a run's result.
pub fn fresh_json_output(
    out: &Path,
    option: &str,
    force: bool,
    results: &[&str],
) -> Result<Option<String>, OutputError> {
    if force && out.is_file() && standard_stream(out).is_none() {
        let mut head = Vec::new();
        let _ = std::fs::File::open(out)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut head));
        let text = String::from_utf8_lossy(&head);
        let first = text
            .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
            .chars()
            .next();
        // A report never goes over the result of a run (a tuned file, a calibration).
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let kind = results
            .iter()
            .map(|format| format.split_once('/').map_or(*format, |(f, _)| f))
            .find(|f| compact.contains(&format!("\"format\":\"{f}/")));
        if let (Some(kind), "--json") = (kind, option) {
            return Err(OutputError(format!(
                "--json {} is a {}/* file, the result of a run: even with --force, a report is not written over it; give another --json",
                out.display(),
                kind
            )));
        }
        if first.is_some_and(|c| c != '{') {
            return Err(OutputError(format!(
                "{option} {} exists and is no JSON file (it begins '{}'): even with --force, marginal writes its JSON only over a JSON file; give another {option}",
                out.display(),
                excerpt(text.trim_start().lines().next().unwrap_or(""))
                    .chars()
                    .take(40)
                    .collect::<String>()
            )));
        }
    }
    fresh_output(out, option, force)
}

/// The mark marginal puts in the plots it draws (an XML comment after the opening tag), so a
/// rerun knows it replaces its own plot and not a file of the user's.
pub const PLOT_MARK: &str = "<!-- drawn by marginal -->";

/// Whether `path` holds a plot marginal drew (marked; or, drawn before the mark, titled as
/// marginal titles its plots).
pub fn is_marginal_plot(path: &Path) -> bool {
    read_output(path).is_some_and(|t| {
        t.starts_with("<svg")
            && (t.contains(PLOT_MARK) || t.contains("marginal tune:") || t.contains("vs defaults"))
    })
}

/// Refuses to replace `svg`, the plot written beside an output, when it holds anything but a
/// plot marginal drew, unless `force`.
///
/// # Errors
/// Names the file and the fix.
pub fn fresh_plot(svg: &Path, force: bool) -> Result<(), OutputError> {
    if !force && svg.is_file() && !is_marginal_plot(svg) {
        return Err(OutputError(format!(
            "{} exists and is not a plot marginal drew: marginal does not replace it; move it, or add --force to replace it",
            svg.display()
        )));
    }
    Ok(())
}

/// The plot beside a tuned file (its name with `.svg`), checked as [`fresh_plot`] checks it,
/// and refused when it is the tuned file itself (a file named `*.svg`, or a link to the file)
/// or one of the command's `inputs`, which the plot would replace even with `force`.
///
/// # Errors
/// The plot would be the file or an input, or replace a file marginal did not draw.
pub fn plot_beside(
    file: &Path,
    option: &str,
    force: bool,
    inputs: &[(&str, &Path)],
) -> Result<PathBuf, OutputError> {
    let svg = file.with_extension("svg");
    not_an_input(&svg, "its plot", &[(option, file)]).map_err(|_| {
        let why = if svg == file {
            "give the tuned file a name ending in .json"
        } else {
            "the .svg there links to the tuned file: remove or move that link"
        };
        OutputError(format!(
            "{option} {}: its plot {} would be the tuned file itself: {why}",
            file.display(),
            svg.display()
        ))
    })?;
    not_an_input(
        &svg,
        &format!("{option} {}: its plot", file.display()),
        inputs,
    )?;
    fresh_plot(&svg, force)?;
    Ok(svg)
}

/// Writes an SVG plot, marked as marginal's ([`fresh_plot`] then replaces it freely).
///
/// # Errors
/// The I/O error of writing it.
pub fn write_plot(path: &Path, svg: &str) -> std::io::Result<()> {
    let marked = match svg.split_once('\n') {
        Some((tag, rest)) if tag.starts_with("<svg") => format!("{tag}\n{PLOT_MARK}\n{rest}"),
        _ => svg.to_string(),
    };
    // The same drawing (marked or drawn before the mark) is left as it is: redrawing a shipped
    // plot changes no file.
    if read_output(path).is_some_and(|old| old == marked || old == svg) {
        return Ok(());
    }
    write_atomic(path, marked.as_bytes())
}

/// The most bytes [`read_output`] reads of an existing output: 64 MB.
pub const READ_OUTPUT_LIMIT: u64 = 64 << 20;

/// The text of an existing output file, read to see what it holds: only a regular file (a
/// device such as /dev/full or /dev/zero reads forever) of at most [`READ_OUTPUT_LIMIT`] bytes.
pub fn read_output(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > READ_OUTPUT_LIMIT {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Refuses an output path that names one of the command's inputs (the same file, however it
/// is spelled: a symbolic link, `./` or a hard link resolve to it), so no command writes over
/// what it reads. `inputs` are each input's option (or "the suite", ...) and path.
///
/// # Errors
/// Names the output's option and path, and the input it is.
pub fn not_an_input(out: &Path, option: &str, inputs: &[(&str, &Path)]) -> Result<(), OutputError> {
    let resolved = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = std::fs::canonicalize(p) {
            return Some(c);
        }
        // Not there yet: its folder resolved, and its name (a link that points to a file not
        // made yet is that file).
        let p = &link_target(p).unwrap_or_else(|_| p.to_path_buf());
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some(std::fs::canonicalize(dir).ok()?.join(p.file_name()?))
    };
    let Some(target) = resolved(out) else {
        return Ok(());
    };
    // The same file under another name: a hard link (or a bind mount) has the same inode.
    let id = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| (m.dev(), m.ino()))
    };
    let out_id = id(out);
    for (what, input) in inputs {
        if resolved(input).as_ref() == Some(&target) || (out_id.is_some() && id(input) == out_id) {
            return Err(OutputError(format!(
                "{option} {} is {what} {}: marginal does not write over its input; name another output file",
                out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory of its own for one test, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir()
                .join(format!("marginal-outputs-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn not_an_input_refuses_an_output_that_is_an_input_through_a_symlink() {
        let dir = Scratch::new("symlink");
        let suite = dir.0.join("suite.epd");
        std::fs::write(&suite, "8/8/8/8/8/8/8/K6k w - - bm Kb1;\n").unwrap();
        let link = dir.0.join("out.json");
        std::os::unix::fs::symlink(&suite, &link).unwrap();
        let e = not_an_input(&link, "--json", &[("the suite", &suite)]).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "--json {} is the suite {}: marginal does not write over its input; name another output file",
                link.display(),
                suite.display()
            )
        );
        // The same file spelled with `./` in its path is the input too.
        let dotted = dir.0.join(".").join("suite.epd");
        assert!(not_an_input(&dotted, "--out", &[("the suite", &suite)]).is_err());
        // Another file, even one not made yet, is no input.
        let other = dir.0.join("report.json");
        assert_eq!(
            not_an_input(&other, "--json", &[("the suite", &suite)]),
            Ok(())
        );
    }

    #[test]
    fn not_an_input_refuses_a_hard_link_to_an_input() {
        let dir = Scratch::new("hardlink");
        let book = dir.0.join("book.epd");
        std::fs::write(&book, "x\n").unwrap();
        let twin = dir.0.join("twin.pgn");
        std::fs::hard_link(&book, &twin).unwrap();
        let e = not_an_input(&twin, "--pgn", &[("--book", &book)]).unwrap_err();
        assert!(
            e.0.starts_with(&format!("--pgn {} is --book ", twin.display())),
            "{e}"
        );
    }

    #[test]
    fn fresh_json_output_refuses_to_write_over_a_non_json_file_even_with_force() {
        let dir = Scratch::new("nonjson");
        let engine = dir.0.join("toga2.toml");
        std::fs::write(&engine, "name = \"Toga II\"\n").unwrap();
        let e = fresh_json_output(&engine, "--out", true, &[]).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "--out {} exists and is no JSON file (it begins 'name = \"Toga II\"'): even with --force, marginal writes its JSON only over a JSON file; give another --out",
                engine.display()
            )
        );
        // Without --force it is refused as any existing output is.
        let e = fresh_json_output(&engine, "--out", false, &[]).unwrap_err();
        assert!(e.0.ends_with("or add --force to replace it"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&engine).unwrap(),
            "name = \"Toga II\"\n"
        );
    }

    #[test]
    fn fresh_json_output_replaces_a_json_file_with_force_but_a_report_never_a_result() {
        let dir = Scratch::new("json");
        let old = dir.0.join("old.json");
        std::fs::write(&old, " {\"a\": 1}\n").unwrap();
        assert_eq!(fresh_json_output(&old, "--json", true, &[]), Ok(None));
        let tuned = dir.0.join("tuned.json");
        std::fs::write(&tuned, "{\n  \"format\": \"marginal-margins/1\"\n}\n").unwrap();
        let e = fresh_json_output(&tuned, "--json", true, &["marginal-margins/1"]).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "--json {} is a marginal-margins/* file, the result of a run: even with --force, a report is not written over it; give another --json",
                tuned.display()
            )
        );
        // A tuned file's own --out may replace it.
        assert_eq!(
            fresh_json_output(&tuned, "--out", true, &["marginal-margins/1"]),
            Ok(None)
        );
    }

    #[test]
    fn fresh_output_refuses_an_existing_file_without_force_and_a_directory() {
        let dir = Scratch::new("fresh");
        let out = dir.0.join("r.json");
        std::fs::write(&out, "{}").unwrap();
        let e = fresh_output(&out, "--json", false).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "--json {} exists: marginal does not replace it; give another --json, or add --force to replace it",
                out.display()
            )
        );
        assert_eq!(fresh_output(&out, "--json", true), Ok(None));
        let e = fresh_output(&dir.0, "--out", true).unwrap_err();
        assert!(e.0.ends_with("is a directory: name a file in it"), "{e}");
    }

    #[test]
    fn writable_creates_a_missing_directory_and_returns_the_note() {
        let dir = Scratch::new("writable");
        let out = dir.0.join("new").join("deeper").join("r.json");
        let note = writable(&out, "--out").unwrap();
        let made = dir.0.join("new").join("deeper");
        assert_eq!(
            note,
            Some(format!("--out: created the directory {}", made.display()))
        );
        assert!(made.is_dir());
        // Now there: nothing more to say, and nothing was written.
        assert_eq!(writable(&out, "--out"), Ok(None));
        assert!(!out.exists());
        let e = writable(&made, "--out").unwrap_err();
        assert_eq!(
            e.0,
            format!("--out: cannot write {}: it is a directory", made.display())
        );
    }

    #[test]
    fn a_plot_marginal_drew_is_replaced_freely_and_a_users_file_only_with_force() {
        let dir = Scratch::new("plot");
        let svg = dir.0.join("tuned.svg");
        write_plot(&svg, "<svg width=\"10\">\n<rect/>\n</svg>\n").unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(
            text.starts_with(&format!("<svg width=\"10\">\n{PLOT_MARK}\n")),
            "{text}"
        );
        assert!(is_marginal_plot(&svg));
        assert_eq!(fresh_plot(&svg, false), Ok(()));
        std::fs::write(&svg, "<svg>my own drawing</svg>").unwrap();
        let e = fresh_plot(&svg, false).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "{} exists and is not a plot marginal drew: marginal does not replace it; move it, or add --force to replace it",
                svg.display()
            )
        );
        assert_eq!(fresh_plot(&svg, true), Ok(()));
    }

    #[test]
    fn plot_beside_refuses_a_plot_that_would_be_the_tuned_file_itself() {
        let dir = Scratch::new("beside");
        let file = dir.0.join("set.svg");
        let e = plot_beside(&file, "--out", true, &[]).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "--out {}: its plot {} would be the tuned file itself: give the tuned file a name ending in .json",
                file.display(),
                file.display()
            )
        );
        let json = dir.0.join("set.json");
        assert_eq!(
            plot_beside(&json, "--out", false, &[]),
            Ok(dir.0.join("set.svg"))
        );
    }

    #[test]
    fn read_output_reads_no_device() {
        assert_eq!(read_output(Path::new("/dev/zero")), None);
        assert_eq!(read_output(Path::new("/no/such/marginal/file")), None);
    }
}
