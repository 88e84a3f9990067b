//! A real Slurm cluster for the Slurm tests, when this machine has one (`.ci/slurm up`, as root,
//! starts a single-node one): whether it answers, skipping with the reason when it does not,
//! and Slurm's commands run with a deadline so a stuck controller fails a test instead of
//! hanging it.

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Longest wait for one Slurm command (sinfo, squeue, sbatch, scancel).
pub const COMMAND_LIMIT: Duration = Duration::from_secs(10);

/// How long [`available`] keeps asking for an idle node (one that is just starting may be
/// `unknown` or `idle*` for a moment).
const NODE_WAIT: Duration = Duration::from_secs(5);

/// The commands the tests use, each needed on PATH.
const COMMANDS: [&str; 4] = ["sinfo", "sbatch", "squeue", "scontrol"];

/// Ok when Slurm's commands are on PATH, the controller answers and a node is idle, mixed or
/// allocated (it can run jobs, now or when its current ones end); otherwise the reason.
pub fn available() -> Result<(), String> {
    let missing: Vec<&str> = COMMANDS.into_iter().filter(|c| !on_path(c)).collect();
    if !missing.is_empty() {
        return Err(format!("{} not on PATH", missing.join(", ")));
    }
    // scontrol ping answers at once; sinfo and squeue retry for 9 s when no controller runs.
    match run_for("scontrol", &["ping"], NODE_WAIT) {
        Ok(ping) if ping.contains("is UP") => {}
        Ok(ping) => return Err(format!("slurmctld is not up: {}", ping.trim())),
        Err(e) => return Err(format!("slurmctld is not up: {e}")),
    }
    let deadline = Instant::now() + NODE_WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let reason = match run_for(
            "sinfo",
            &["-h", "-o", "%T"],
            left.max(Duration::from_secs(1)),
        ) {
            Ok(states) => {
                let ready = states
                    .lines()
                    .any(|s| matches!(s.trim(), "idle" | "mixed" | "allocated"));
                if ready {
                    return Ok(());
                }
                format!("no node idle (sinfo: {:?})", states.trim())
            }
            Err(e) => e,
        };
        if Instant::now() >= deadline {
            return Err(reason);
        }
        thread::sleep(Duration::from_millis(250));
    }
}

/// True when a Slurm cluster answers; otherwise prints `skipped TEST: REASON` to stderr and
/// returns false, for the test to return early.
pub fn skip_unless_available(test: &str) -> bool {
    match available() {
        Ok(()) => true,
        Err(reason) => {
            eprintln!("skipped {test}: {reason} (run .ci/slurm up as root)");
            false
        }
    }
}

/// True when `squeue` shows no pending, running or completing job of the current user (false
/// also when squeue cannot be asked).
pub fn queue_empty() -> bool {
    run("squeue", &["-h", "--me", "-o", "%i"]).is_ok_and(|jobs| jobs.trim().is_empty())
}

/// Waits up to `limit` until `squeue -h -j JOB` lists nothing (every task of the job or array
/// finished, failed or was cancelled; finished jobs are not listed without `-t all`).
pub fn wait_gone(job: &str, limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    loop {
        // After MinJobAge squeue no longer knows the job and fails: gone as well.
        match run("squeue", &["-h", "-j", job]) {
            Ok(out) if out.trim().is_empty() => return Ok(()),
            Err(e) if e.contains("Invalid job id") => return Ok(()),
            Ok(out) if Instant::now() >= deadline => {
                return Err(format!("job {job} still queued after {limit:?}:\n{out}"));
            }
            Err(e) if Instant::now() >= deadline => return Err(e),
            _ => thread::sleep(Duration::from_millis(200)),
        }
    }
}

/// Runs `program ARGS` for at most [`COMMAND_LIMIT`]: its standard output when it succeeds,
/// otherwise what went wrong (with its standard error).
pub fn run(program: &str, args: &[&str]) -> Result<String, String> {
    run_for(program, args, COMMAND_LIMIT)
}

/// [`run`] with a deadline of `limit`; a command still running then is killed.
fn run_for(program: &str, args: &[&str], limit: Duration) -> Result<String, String> {
    let shown = format!("{program} {}", args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    // Read on threads so a full pipe cannot stall the command.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown} did not answer within {limit:?}"));
            }
            Err(e) => return Err(format!("waiting for {shown}: {e}")),
        }
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    if status.success() {
        return Ok(out);
    }
    // What it said about the failure: its standard error, or else its first line of output.
    let said = match err.trim() {
        "" => out.lines().next().unwrap_or("").trim(),
        err => err,
    };
    Err(format!("{shown} failed ({status}): {said}"))
}

/// Whether `command` is an executable file in a directory of PATH.
fn on_path(command: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(command))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Holds the cluster for one test at a time (the tests of a file run on parallel threads; on a
/// cluster of two CPUs they would wait on each other's tasks, and `queue_empty` would see
/// another test's jobs).
pub fn lock() -> std::sync::MutexGuard<'static, ()> {
    static CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());
    CLUSTER.lock().unwrap_or_else(|e| e.into_inner())
}

/// The cluster, held for `test` ([`lock`]) when one answers; otherwise `None`, with
/// `skipped TEST: REASON` printed ([`skip_unless_available`]).
pub fn hold(test: &str) -> Option<std::sync::MutexGuard<'static, ()>> {
    skip_unless_available(test).then(lock)
}
