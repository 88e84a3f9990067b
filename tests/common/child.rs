//! marginal run as a child process whose output goes to files: waiting for it without ever
//! hanging a test, and what it left.

use std::path::Path;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How long any run may take before the test fails instead of hanging (a guard, not a speed
/// target).
pub const LIMIT: Duration = Duration::from_secs(300);

/// What a finished run left: its exit status and what it printed.
pub struct Run {
    /// How it ended.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

impl Run {
    /// The printed line that starts with `prefix`.
    pub fn line(&self, prefix: &str) -> &str {
        self.stdout
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line '{prefix}' in:\n{}{}", self.stdout, self.stderr))
    }

    /// Fails unless the run succeeded.
    pub fn assert_success(&self) {
        assert!(
            self.status.success(),
            "{}\n{}{}",
            self.status,
            self.stdout,
            self.stderr
        );
    }

    /// Fails unless `line` is a whole line of its output.
    pub fn assert_prints(&self, line: &str) {
        assert!(
            self.stdout.lines().any(|l| l == line),
            "no line '{line}' in:\n{}{}",
            self.stdout,
            self.stderr
        );
    }
}

/// Waits for `child`, whose output goes to `dir/NAME.out` and `dir/NAME.err`, at most
/// [`LIMIT`] (killing it and failing past that).
pub fn finish(dir: &Path, name: &str, mut child: Child) -> Run {
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("marginal {name} did not end within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
    Run {
        status,
        stdout: read("out"),
        stderr: read("err"),
    }
}

/// A running process, as /proc shows it.
pub struct Process {
    /// Its pid.
    pub pid: i32,
    /// Its command line, arguments separated by NUL (empty for a zombie).
    pub cmdline: Vec<u8>,
    /// Its working directory (empty when it cannot be read).
    pub cwd: std::path::PathBuf,
}

/// Every process /proc lists now.
pub fn processes() -> Vec<Process> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        found.push(Process { pid, cmdline, cwd });
    }
    found
}
