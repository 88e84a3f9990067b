//! `--executor` and its options, shared by `suite`, `tune` and `match`: where the searching
//! runs. `local` (the default) searches in this process; `slurm` writes each batch as units of
//! work under `--workdir` and runs them as one Slurm job array (see
//! docs/cluster.md). The results are the same either way.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::ValueEnum;
use marginal::scoring::exec::local::Local;
use marginal::scoring::exec::slurm::{Slurm, SlurmConfig};
use marginal::scoring::exec::{ExecError, Runner};

use super::{INTERRUPTED_STATUS, Interrupted, UserError, count};

/// Where the searching runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ExecutorKind {
    /// This machine, on --threads threads.
    #[default]
    Local,
    /// A Slurm cluster: one job array per batch of evaluations.
    Slurm,
}

/// The executor options.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ExecutorArgs {
    /// Where the searching runs: `local` (this machine) or `slurm` (each batch of
    /// evaluations as one Slurm job array; --workdir must be on a filesystem every node sees,
    /// and this marginal binary at the same path on every node, or at $MARGINAL_WORKER).
    /// Results are identical.
    #[arg(long, value_enum, default_value_t = ExecutorKind::Local)]
    pub executor: ExecutorKind,
    /// Slurm: the partition to submit to (default: the cluster's default partition).
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Slurm: units (array tasks) each evaluation's positions or game pairs are dealt into
    /// (default 8).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    pub shards: Option<usize>,
    /// Slurm: the shared directory for units, results and task logs (default
    /// .marginal-work). A batch's files are removed once merged; an interrupted run's are
    /// kept, and rerunning reuses its finished units.
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// Slurm: CPUs per array task (`marginal work` runs that many threads; default 1).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    pub cpus_per_task: Option<usize>,
    /// Slurm: times a failed or lost task is resubmitted before the run stops (default 2).
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
}

impl ExecutorArgs {
    /// Whether work runs on a cluster.
    pub fn is_slurm(&self) -> bool {
        self.executor == ExecutorKind::Slurm
    }

    /// The executor: this machine's on `threads` threads, or a checked Slurm executor whose
    /// first Ctrl-C (SIGINT or SIGTERM) cancels the job array out (a second one ends marginal
    /// at once).
    ///
    /// # Errors
    /// Slurm does not answer (a Slurm option without `--executor slurm` is said to do nothing).
    pub fn build(&self, threads: usize) -> Result<Arc<dyn Runner>> {
        if !self.is_slurm() {
            let given = [
                ("--partition", self.partition.clone()),
                ("--shards", self.shards.map(|n| n.to_string())),
                (
                    "--workdir",
                    self.workdir.as_ref().map(|d| d.display().to_string()),
                ),
                ("--cpus-per-task", self.cpus_per_task.map(|n| n.to_string())),
                ("--retries", self.retries.map(|n| n.to_string())),
            ];
            for (name, value) in given.iter().filter_map(|(n, v)| Some((n, v.as_ref()?))) {
                eprintln!(
                    "warning: {name} {value} does nothing with --executor local (this machine's threads): it is for --executor slurm"
                );
            }
            return Ok(Arc::new(Local::new(threads)));
        }
        let config = SlurmConfig::new(
            self.partition.clone(),
            self.shards,
            self.workdir.clone(),
            self.cpus_per_task,
            self.retries,
        )
        .map_err(UserError)?;
        let flag = interrupt_flag()?;
        // An interrupt cancels the job array and waits for it to leave the queue: said at once,
        // with the way to stop without waiting.
        let watched = Arc::clone(&flag);
        std::thread::spawn(move || {
            while !watched.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
            eprintln!(
                "\ninterrupted: cancelling the Slurm job array (scancel) and waiting, at most a minute, for it to leave the queue; the finished units are kept. Interrupt again to stop at once (the job may then stay queued: see squeue)"
            );
        });
        let slurm = Slurm::new(config, flag, Arc::new(super::progress::ClusterLines));
        slurm
            .check()
            .map_err(|e| UserError(format!("--executor slurm: {e}")))?;
        Ok(Arc::new(slurm))
    }
}

/// The command's error for an executor's: exit 130 when interrupted, 2 when the cluster
/// could not run the work.
pub fn exec_error(e: ExecError) -> anyhow::Error {
    match e {
        ExecError::Interrupted(m) => Interrupted(m).into(),
        ExecError::Failed(m) => UserError(format!("--executor slurm: {m}")).into(),
        ExecError::GaveUp(m) => UserError(m).into(),
    }
}

/// The command's error for an optimizer's (argmin) error: an executor's error keeps its
/// exit status; anything else is exit 2.
pub fn solver_error(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<ExecError>() {
        Ok(x) => exec_error(x),
        Err(e) => UserError(format!("{e}")).into(),
    }
}

/// Raises the returned flag at the first SIGINT (Ctrl-C), SIGTERM or SIGHUP; a second one, half a
/// second or more later, ends the process at once with [`INTERRUPTED_STATUS`]. A signal that
/// comes again within [`DUPLICATE`] is the same request delivered twice (`timeout` and a shell
/// both signal the process group, so one Ctrl-C or one `timeout -s INT` can arrive twice), and
/// the run still stops in order, saying what it kept. The handlers are installed once: every
/// call returns the same flag.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    if let Some(flag) = FLAG.get() {
        return Ok(flag.clone());
    }
    let flag = install()?;
    Ok(FLAG.get_or_init(|| flag).clone())
}

/// For a command, or a phase of one, that keeps nothing unfinished (suite, check, calibrate's
/// preparation): at the first SIGINT or SIGTERM, says on standard error `message` (what is
/// kept, how to go on), ends the external engines and exits with [`INTERRUPTED_STATUS`],
/// instead of dying silently with the signal's status. Raising the returned flag ends the
/// watch (the next phase handles interrupts itself).
///
/// # Errors
/// The signal handlers cannot be installed.
pub fn stop_on_interrupt(message: String) -> Result<Arc<AtomicBool>> {
    use std::sync::atomic::Ordering;
    let flag = interrupt_flag()?;
    let done = Arc::new(AtomicBool::new(false));
    let watch_done = Arc::clone(&done);
    std::thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            if watch_done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if watch_done.load(Ordering::Relaxed) {
            return;
        }
        eprintln!("\n{message}");
        marginal::engine::external::kill_all();
        marginal::formats::lock::release_all();
        std::process::exit(i32::from(INTERRUPTED_STATUS));
    });
    Ok(done)
}

/// Two signals closer than this are one request delivered twice.
const DUPLICATE: std::time::Duration = std::time::Duration::from_millis(500);

fn install() -> Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;
    let flag = Arc::new(AtomicBool::new(false));
    marginal::formats::stop_waiting_on(Arc::clone(&flag));
    let origin = Instant::now();
    // Nanoseconds after `origin` of the first signal.
    let first = Arc::new(AtomicU64::new(0));
    // SIGHUP (a closed terminal or CI session) stops a run as SIGTERM does, unless it is
    // ignored (`nohup`), when it stays so.
    for signal in [SIGINT, SIGTERM]
        .into_iter()
        .chain((!ignored(SIGHUP)).then_some(SIGHUP))
    {
        let (flag, first) = (Arc::clone(&flag), Arc::clone(&first));
        let handler = move || {
            // Only atomics and the monotonic clock (clock_gettime, async-signal-safe).
            let now = u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
            if !flag.swap(true, Ordering::SeqCst) {
                first.store(now, Ordering::SeqCst);
            } else if now.saturating_sub(first.load(Ordering::SeqCst))
                >= DUPLICATE.as_nanos() as u64
            {
                const SAID: &[u8] = b"\ninterrupted again: stopped at once; finished work is kept (a rerun resumes it), and a Slurm job being cancelled may still be queued (see squeue)\n";
                // SAFETY: write(2) on the standard error descriptor is async-signal-safe.
                let _ = unsafe { libc::write(2, SAID.as_ptr().cast(), SAID.len()) };
                signal_hook::low_level::exit(i32::from(INTERRUPTED_STATUS));
            }
        };
        // SAFETY: the handler touches only atomics and reads the monotonic clock, and ends the
        // process with `_exit`; it allocates nothing and takes no lock.
        unsafe { signal_hook::low_level::register(signal, handler) }
            .context("cannot install the SIGINT/SIGTERM/SIGHUP handler")?;
    }
    Ok(flag)
}

/// Whether `signal` is ignored by this process (as `nohup` leaves SIGHUP).
fn ignored(signal: i32) -> bool {
    // SAFETY: sigaction(2) only reads the action into a zeroed struct of ours.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    let read = unsafe { libc::sigaction(signal, std::ptr::null(), &raw mut old) };
    read == 0 && old.sa_sigaction == libc::SIG_IGN
}
