//! The Slurm executor: each batch of jobs becomes one Slurm job array.
//!
//! Every job of a batch is cut into shards ([`Sharded`]); each shard is written as a unit file
//! (`unit-I.json`) in a batch directory under the shared work directory, named by a digest of
//! every unit, and one job array runs `marginal work unit-I.json --out result-I.json` for each
//! (`sbatch --array`). The executor polls `squeue` until the array has left the queue, reads
//! the results, resubmits the tasks whose result is missing or does not answer its unit (a
//! task that failed, was killed or was lost with its node) up to a bounded number of times,
//! and stops with an error naming a task that keeps failing, with its log. A raised interrupt
//! flag cancels the array (`scancel`) and waits until it has left the queue.
//!
//! A batch directory is kept until its results are merged: a run interrupted while jobs were
//! out writes the same units again when it resumes (the units depend only on the work), finds
//! the results already there and submits only what is missing.
//!
//! Runs may share one work directory: each holds the batch directories it uses (a lock file
//! beside each, [`crate::formats::lock`]), and a run whose batch another live run holds (the
//! same work at the same time) takes a directory of its own (`batch-D-1`, ...), so neither
//! writes into nor removes the other's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Done, ExecError, Job, Runner, Sharded, Unit, UnitResult, digest};
use crate::formats::{lock, write_atomic};
use crate::progress::{Cluster, Event, Shared};

/// Slurm's default `MaxArraySize`: task ids must be below it.
pub const MAX_TASKS: usize = 1001;

/// How batches are submitted.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmConfig {
    /// The partition (`--partition`); the cluster's default without one.
    pub partition: Option<String>,
    /// Shards per job: positions or pairs are dealt into this many units.
    pub shards: usize,
    /// The shared directory the units, results and logs go to (it must be visible at the same
    /// path on every node).
    pub workdir: PathBuf,
    /// CPUs per task (`--cpus-per-task`); `marginal work` runs that many threads.
    pub cpus_per_task: usize,
    /// How many times a failed task is resubmitted before the run stops.
    pub retries: u32,
    /// The marginal binary the tasks run (the same build, at a path every node sees).
    pub exe: PathBuf,
    /// How often `squeue` is asked.
    pub poll: Duration,
}

/// Default shards per evaluation.
pub const DEFAULT_SHARDS: usize = 8;
/// Default CPUs per array task.
pub const DEFAULT_CPUS_PER_TASK: usize = 1;
/// Default resubmissions of a failed task.
pub const DEFAULT_RETRIES: u32 = 2;
/// Default work directory.
pub const DEFAULT_WORKDIR: &str = ".marginal-work";
/// The environment variable naming the marginal binary the array tasks run, when it is not
/// this one's path (a cluster whose nodes see the build elsewhere).
pub const WORKER_ENV: &str = "MARGINAL_WORKER";

impl SlurmConfig {
    /// The configuration of the options given, each left out taking its default (8 shards,
    /// `.marginal-work`, 1 CPU a task, 2 retries): the work directory made absolute, the
    /// tasks running `$MARGINAL_WORKER` or else this binary.
    ///
    /// # Errors
    /// The work directory cannot be made absolute, or this binary cannot be found.
    pub fn new(
        partition: Option<String>,
        shards: Option<usize>,
        workdir: Option<PathBuf>,
        cpus_per_task: Option<usize>,
        retries: Option<u32>,
    ) -> Result<SlurmConfig, String> {
        let exe = match std::env::var_os(WORKER_ENV) {
            Some(path) => PathBuf::from(path),
            None => std::env::current_exe()
                .map_err(|e| format!("cannot find the marginal binary: {e}"))?,
        };
        let workdir = workdir.unwrap_or_else(|| PathBuf::from(DEFAULT_WORKDIR));
        let workdir = std::path::absolute(&workdir)
            .map_err(|e| format!("--workdir {}: {e}", workdir.display()))?;
        Ok(SlurmConfig {
            partition,
            shards: shards.unwrap_or(DEFAULT_SHARDS),
            workdir,
            cpus_per_task: cpus_per_task.unwrap_or(DEFAULT_CPUS_PER_TASK),
            retries: retries.unwrap_or(DEFAULT_RETRIES),
            exe,
            poll: Duration::from_millis(200),
        })
    }
}

/// Runs batches as Slurm job arrays. See the module documentation.
pub struct Slurm {
    config: SlurmConfig,
    interrupt: Arc<AtomicBool>,
    observer: Shared,
}

impl std::fmt::Debug for Slurm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slurm")
            .field("config", &self.config)
            .finish()
    }
}

impl Slurm {
    /// An executor with `config`, stopped by `interrupt` (raise it from a signal handler; the
    /// library installs none), reporting what it does to `observer` ([`Event::Cluster`]; the
    /// library prints nothing).
    pub fn new(config: SlurmConfig, interrupt: Arc<AtomicBool>, observer: Shared) -> Slurm {
        Slurm {
            config,
            interrupt,
            observer,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SlurmConfig {
        &self.config
    }

    /// Checks that `sbatch` and `squeue` answer and the work directory can be written: what a
    /// run needs before it starts.
    ///
    /// # Errors
    /// A command is missing or fails, or the directory cannot be created.
    pub fn check(&self) -> Result<(), ExecError> {
        std::fs::create_dir_all(&self.config.workdir).map_err(|e| {
            ExecError::Failed(format!(
                "cannot create the work directory {}: {e}",
                self.config.workdir.display()
            ))
        })?;
        run_command("squeue", &["-h", "-o", "%i"]).map(|_| ())?;
        let mut args = vec!["-h", "-o", "%P"];
        if let Some(p) = &self.config.partition {
            args.extend(["-p", p.as_str()]);
        }
        let partitions = run_command("sinfo", &args)?;
        if partitions.trim().is_empty() {
            return Err(ExecError::Failed(match &self.config.partition {
                Some(p) => format!("Slurm has no partition '{p}' (sinfo lists none)"),
                None => "Slurm lists no partition (sinfo)".into(),
            }));
        }
        Ok(())
    }

    fn submit(&self, dir: &Path, script: &Path, tasks: &[usize]) -> Result<String, ExecError> {
        let list = tasks
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let name = format!(
            "marginal-{}",
            dir.file_name().unwrap_or_default().to_string_lossy()
        );
        let mut args = vec![
            "--parsable".to_string(),
            format!("--job-name={name}"),
            format!("--array={list}"),
            format!("--output={}", dir.join("log-%a.txt").display()),
            "--open-mode=append".to_string(),
            format!("--cpus-per-task={}", self.config.cpus_per_task),
            "--ntasks=1".to_string(),
            format!("--chdir={}", dir.display()),
        ];
        if let Some(p) = &self.config.partition {
            args.push(format!("--partition={p}"));
        }
        args.push(script.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_command("sbatch", &args)?;
        // --parsable prints "jobid" or "jobid;cluster".
        let id = out.trim().split(';').next().unwrap_or("").to_string();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
            return Err(ExecError::Failed(format!(
                "sbatch printed '{}', not a job id",
                out.trim()
            )));
        }
        Ok(id)
    }

    /// Waits until job `id` has left the queue; cancels it on an interrupt.
    fn wait(&self, id: &str) -> Result<(), ExecError> {
        let mut errors = 0;
        loop {
            if self.interrupt.load(Ordering::Relaxed) {
                return Err(self.cancel(id));
            }
            match queued(id) {
                Ok(false) => return Ok(()),
                Ok(true) => errors = 0,
                Err(e) => {
                    errors += 1;
                    if errors > 60 {
                        return Err(ExecError::Failed(format!(
                            "squeue keeps failing while job {id} is out: {e}"
                        )));
                    }
                }
            }
            sleep_unless(&self.interrupt, self.config.poll);
        }
    }

    /// Cancels job `id` and waits (at most a minute) until it has left the queue.
    fn cancel(&self, id: &str) -> ExecError {
        let cancelled = run_command("scancel", &[id]);
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(false) = queued(id) {
                return ExecError::Interrupted(format!(
                    "cancelled Slurm job {id}; the finished units are kept and a rerun reuses them"
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        ExecError::Interrupted(format!(
            "scancel {id} {}, and the job is still in the queue after a minute",
            match cancelled {
                Ok(_) => "was sent".to_string(),
                Err(e) => format!("failed ({e})"),
            }
        ))
    }
}

/// Whether job `id` (any of its tasks) is still in the queue.
fn queued(id: &str) -> Result<bool, String> {
    let out = Command::new("squeue")
        .args(["-h", "-j", id, "-o", "%i"])
        .output()
        .map_err(|e| format!("cannot run squeue: {e}"))?;
    if out.status.success() {
        return Ok(!String::from_utf8_lossy(&out.stdout).trim().is_empty());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    // A job that left the queue long enough ago is unknown to squeue.
    if err.contains("Invalid job id") {
        return Ok(false);
    }
    Err(format!("squeue: {} {}", out.status, err.trim()))
}

fn run_command(program: &str, args: &[&str]) -> Result<String, ExecError> {
    let out = Command::new(program).args(args).output().map_err(|e| {
        ExecError::Failed(format!(
            "cannot run {program}: {e} (is Slurm installed and on PATH?)"
        ))
    })?;
    if !out.status.success() {
        return Err(ExecError::Failed(format!(
            "{program} {}: {} {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn sleep_unless(flag: &AtomicBool, total: Duration) {
    let end = Instant::now() + total;
    while !flag.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= end {
            break;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// A shell word: `'...'` with inner quotes escaped.
fn quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

/// The last lines of a task's log, as the reason it failed.
fn log_tail(dir: &Path, task: usize) -> String {
    let path = dir.join(format!("log-{task}.txt"));
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            if lines.is_empty() {
                format!("no result and an empty log ({})", path.display())
            } else {
                let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
                format!("no result; log {}: {tail}", path.display())
            }
        }
        Err(_) => format!(
            "no result and no log ({}): the task never ran or was cancelled",
            path.display()
        ),
    }
}

struct Batch {
    dir: PathBuf,
    digests: Vec<String>,
    /// Held while this run uses the directory: another run of the same work takes another
    /// (`None` on a file system that takes no flock).
    _lock: Option<lock::Held>,
}

impl Batch {
    fn result_path(&self, task: usize) -> PathBuf {
        self.dir.join(format!("result-{task}.json"))
    }

    /// Task `task`'s result, when it is there and answers its unit.
    fn result(&self, task: usize) -> Option<(Done, f64)> {
        let text = std::fs::read_to_string(self.result_path(task)).ok()?;
        let result: UnitResult = serde_json::from_str(&text).ok()?;
        let done = result.done(&self.digests[task]).ok()?;
        Some((done, result.seconds))
    }
}

impl Runner for Slurm {
    /// One pair per CPU of the array: `shards x cpus-per-task`.
    fn batch_pairs(&self) -> usize {
        self.config.shards * self.config.cpus_per_task
    }

    fn run(&self, jobs: &[Job]) -> Result<Vec<Done>, ExecError> {
        let start = Instant::now();
        let sharded: Vec<Sharded> = jobs
            .iter()
            .map(|j| Sharded::new(j, self.config.shards))
            .collect();
        let texts = unit_texts(&sharded)?;
        let units = texts.len();
        let (batch, script) = self.write_batch(&texts)?;

        let mut results: Vec<Option<(Done, f64)>> = (0..units).map(|i| batch.result(i)).collect();
        let reused = results.iter().filter(|r| r.is_some()).count();
        if reused > 0 {
            self.observer.event(&Event::Cluster(Cluster::Reused {
                dir: &batch.dir,
                done: reused,
                units,
            }));
        }
        self.run_pending(&batch, &script, &mut results)?;

        let (merged, work_seconds) = merge_results(&sharded, results, &batch)?;
        // Merged: the batch's files are no longer needed for a resume.
        let _ = std::fs::remove_dir_all(&batch.dir);
        self.observer.event(&Event::Cluster(Cluster::Finished {
            units,
            seconds: start.elapsed().as_secs_f64(),
            work_seconds,
        }));
        Ok(merged)
    }
}

/// The text of each shard's unit, in order; refused past what one job array holds.
fn unit_texts(sharded: &[Sharded]) -> Result<Vec<String>, ExecError> {
    let texts: Vec<String> = sharded
        .iter()
        .flat_map(|s| &s.shards)
        .map(|shard| serde_json::to_string_pretty(&Unit::of(shard)))
        .collect::<Result<_, _>>()
        .map_err(|e| ExecError::Failed(format!("cannot write a unit: {e}")))?;
    let units = texts.len();
    if units > MAX_TASKS {
        return Err(ExecError::Failed(format!(
            "{units} units in one batch: more than a job array holds ({MAX_TASKS}); use fewer --shards"
        )));
    }
    Ok(texts)
}

/// The error of a batch file that cannot be written.
fn write_error(what: &str, path: &Path, e: std::io::Error) -> ExecError {
    ExecError::Failed(format!("cannot write {what} {}: {e}", path.display()))
}

/// Merges the results of each job's shards, in order; the merged results and the seconds
/// the tasks worked in all.
fn merge_results(
    sharded: &[Sharded],
    results: Vec<Option<(Done, f64)>>,
    batch: &Batch,
) -> Result<(Vec<Done>, f64), ExecError> {
    let mut done = results.into_iter().map(|r| r.expect("every result read"));
    let mut work_seconds = 0.0;
    let mut merged = Vec::with_capacity(sharded.len());
    for s in sharded {
        let parts: Vec<Done> = (&mut done)
            .take(s.shards.len())
            .map(|(d, secs)| {
                work_seconds += secs;
                d
            })
            .collect();
        merged.push(
            s.merge(parts)
                .map_err(|e| ExecError::Failed(format!("batch {}: {e}", batch.dir.display())))?,
        );
    }
    Ok((merged, work_seconds))
}

impl Slurm {
    /// Writes the batch's directory (named by its units' digests), the units not already
    /// there and the task script; the batch and the script's path.
    fn write_batch(&self, texts: &[String]) -> Result<(Batch, PathBuf), ExecError> {
        let digests: Vec<String> = texts.iter().map(|t| digest(t.as_bytes())).collect();
        let (dir, held) =
            self.hold_batch(&format!("batch-{}", digest(digests.join(",").as_bytes())))?;
        std::fs::create_dir_all(&dir).map_err(|e| write_error("the batch directory", &dir, e))?;
        for (i, text) in texts.iter().enumerate() {
            let path = dir.join(format!("unit-{i}.json"));
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                write_atomic(&path, text.as_bytes())
                    .map_err(|e| write_error("the unit", &path, e))?;
            }
        }
        let script = dir.join("task.sh");
        let body = format!(
            "#!/bin/sh\n# One task of a marginal batch: runs the unit of its array index.\nexec {} work \"unit-$SLURM_ARRAY_TASK_ID.json\" --out \"result-$SLURM_ARRAY_TASK_ID.json\"\n",
            quote(&self.config.exe)
        );
        write_atomic(&script, body.as_bytes())
            .map_err(|e| write_error("the task script", &script, e))?;
        Ok((
            Batch {
                dir,
                digests,
                _lock: held,
            },
            script,
        ))
    }

    /// The batch directory `name` in the work directory, held for this run: when another run
    /// sharing the work directory holds it (the same work at the same time), the first free
    /// of `name-1`, `name-2`, ...; so each run writes, and removes, only its own batches. A
    /// directory left by a run that ended (killed) is free: its results are reused. On a file
    /// system that takes no flock, `name` itself, unheld.
    fn hold_batch(&self, name: &str) -> Result<(PathBuf, Option<lock::Held>), ExecError> {
        let workdir = &self.config.workdir;
        std::fs::create_dir_all(workdir)
            .map_err(|e| write_error("the work directory", workdir, e))?;
        for k in 0..1000 {
            let dir = match k {
                0 => workdir.join(name),
                k => workdir.join(format!("{name}-{k}")),
            };
            match lock::hold(&dir) {
                Ok(held) => return Ok((dir, Some(held))),
                Err(lock::LockError::Busy { .. }) => {}
                // A work directory whose file system takes no flock: used as before locks.
                Err(lock::LockError::Unsupported { .. }) => return Ok((dir, None)),
                Err(e) => return Err(ExecError::Failed(e.to_string())),
            }
        }
        Err(ExecError::Failed(format!(
            "{}: 1000 runs hold a batch of this work: let some end first",
            workdir.display()
        )))
    }

    /// Submits the tasks without a result as job arrays, again after a failure up to the
    /// retries, until every task has its result.
    fn run_pending(
        &self,
        batch: &Batch,
        script: &Path,
        results: &mut [Option<(Done, f64)>],
    ) -> Result<(), ExecError> {
        let units = results.len();
        let mut attempt = 0;
        loop {
            let pending: Vec<usize> = (0..units).filter(|&i| results[i].is_none()).collect();
            if pending.is_empty() {
                break;
            }
            if attempt > self.config.retries {
                let task = pending[0];
                return Err(ExecError::Failed(format!(
                    "task {task} of batch {} failed {attempt} times, the last: {} (unit {})",
                    batch.dir.display(),
                    log_tail(&batch.dir, task),
                    batch.dir.join(format!("unit-{task}.json")).display()
                )));
            }
            if self.interrupt.load(Ordering::Relaxed) {
                return Err(ExecError::Interrupted(
                    "before submitting a job array".into(),
                ));
            }
            let job = self.submit(&batch.dir, script, &pending)?;
            self.observer.event(&Event::Cluster(Cluster::Submitted {
                dir: &batch.dir,
                job: &job,
                tasks: &pending,
                attempt,
            }));
            self.wait(&job)?;
            for &task in &pending {
                results[task] = batch.result(task);
                if results[task].is_none() {
                    self.observer.event(&Event::Cluster(Cluster::TaskFailed {
                        task,
                        attempt,
                        reason: &log_tail(&batch.dir, task),
                    }));
                }
            }
            attempt += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slurm(workdir: &Path) -> Slurm {
        let config = SlurmConfig::new(None, None, Some(workdir.to_path_buf()), None, None).unwrap();
        Slurm::new(
            config,
            Arc::new(AtomicBool::new(false)),
            Arc::new(crate::progress::Silent),
        )
    }

    #[test]
    fn runs_sharing_a_workdir_each_hold_their_own_batch_and_reuse_a_freed_one() {
        let workdir =
            std::env::temp_dir().join(format!("marginal-slurm-share-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&workdir);
        let (a, b) = (slurm(&workdir), slurm(&workdir));
        // The same work at the same time: the second run takes a directory of its own.
        let (dir_a, held_a) = a.hold_batch("batch-d").unwrap();
        let (dir_b, held_b) = b.hold_batch("batch-d").unwrap();
        assert_eq!(dir_a, workdir.join("batch-d"));
        assert_eq!(dir_b, workdir.join("batch-d-1"));
        // A batch whose run ended is free again: a resume finds its results there.
        drop(held_a);
        let (again, _held) = a.hold_batch("batch-d").unwrap();
        assert_eq!(again, workdir.join("batch-d"));
        drop(held_b);
        let _ = std::fs::remove_dir_all(&workdir);
    }
}
