//! `marginal work UNIT.json --out RESULT.json`: runs one unit of work, as a Slurm array task
//! does (see [`marginal::scoring::work`]). The result is written whole or not at all, so a
//! task killed mid-run leaves no result and its unit is run again.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use marginal::formats::write_atomic;
use marginal::scoring::exec::run_unit;

use super::{UserError, threads_arg};

/// Arguments of `marginal work`.
#[derive(Args)]
pub struct WorkArgs {
    /// The unit of work (JSON, `marginal-unit/1`), as the executor wrote it.
    unit: PathBuf,
    /// Where to write the result (JSON, `marginal-result/1`).
    #[arg(long)]
    out: PathBuf,
    /// Worker threads (default: $SLURM_CPUS_PER_TASK, else all cores). Results are identical
    /// for any count.
    #[arg(long, value_parser = threads_arg())]
    threads: Option<usize>,
}

/// The CPUs Slurm gave the task ($SLURM_CPUS_PER_TASK), when it says: a value that is not a
/// count from 1 to 256 is refused (running on every core of a shared node instead would take
/// other jobs' CPUs).
fn slurm_cpus() -> Result<Option<usize>, UserError> {
    let Some(value) = std::env::var_os("SLURM_CPUS_PER_TASK") else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(Some(n)),
        _ => Err(UserError(format!(
            "SLURM_CPUS_PER_TASK='{text}' is not a CPU count from 1 to 256: fix the job's --cpus-per-task, or give --threads N"
        ))),
    }
}

/// Runs the command.
pub fn run(args: WorkArgs) -> Result<()> {
    super::not_an_input(&args.out, "--out", &[("the unit", args.unit.as_path())])?;
    // A rerun of a task replaces its own result; any other file there is kept.
    if args.out.is_file()
        && !super::read_output(&args.out)
            .is_some_and(|t| t.starts_with("{\"format\":\"marginal-result/"))
    {
        return Err(UserError(format!(
            "--out {} exists and is not a unit's result: marginal does not replace it; name another file",
            args.out.display()
        ))
        .into());
    }
    super::writable(&args.out, "--out")?;
    let text = std::fs::read_to_string(&args.unit)
        .map_err(|e| UserError(format!("cannot read {}: {e}", args.unit.display())))?;
    let threads = match args.threads {
        Some(n) => n,
        None => slurm_cpus()?.unwrap_or_else(|| super::threads(None)),
    };
    let pool = marginal::scoring::exec::local::pool(threads, "work")
        .context("cannot start worker threads")?;
    let result = pool
        .install(|| run_unit(&text))
        .map_err(|e| UserError(format!("{}: {e}", args.unit.display())))?;
    write_atomic(&args.out, result.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(())
}
