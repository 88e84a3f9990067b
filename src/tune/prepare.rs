//! A tune made ready before its solver runs, and its tuned file written after: the options
//! checked, the positions and books read, the calibration found, the checkpoint opened, and
//! at the end the file and its plot written. What the user should hear comes back as
//! [`Said`]s, in order; nothing here prints.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::calibrated::{self, FoundCalibration};
use super::file::{TUNED_FORMAT, TunedFile};
use super::pipeline::Tuned;
use super::plan::{TuneOptions, TunePlan};
use super::remark::RunError;
use super::report;
use super::run;
use super::screen;
use super::setup::{self, Inputs};
use super::space::Space;
use crate::calibrate::trust::Calibration;
use crate::engine::EngineDef;
use crate::formats::lock;
use crate::formats::outputs::{self, OutputError};
use crate::progress::Said;
use crate::scoring::suite::{ScorerOptions, default_cache_dir};

/// The formats of the files that hold a run's result (a tuned file, a calibration report),
/// which another command's `--json` report never replaces.
pub const RESULT_FORMATS: [&str; 2] = [TUNED_FORMAT, crate::calibrate::report::FORMAT];

impl From<OutputError> for RunError {
    fn from(e: OutputError) -> RunError {
        RunError::Refused(e.0)
    }
}

/// Checks a run's options against each other and its output against its inputs, then reads
/// its books and positions ([`setup::inputs`]) and checks that `threads` workers' tables fit.
///
/// # Errors
/// Options that cannot run together, an output that is an input or cannot be written, a bad
/// book or suite, tables that do not fit.
pub fn check(
    plan: &TunePlan,
    space: &Space,
    threads: usize,
    lines: &mut Vec<Said>,
) -> Result<Inputs, RunError> {
    plan.check(lines)?;
    outputs::not_an_input(&plan.out, "--out", &plan.inputs())?;
    lines.extend(outputs::writable(&plan.out, "--out")?.map(Said::Note));
    let inputs = setup::inputs(plan, space, lines)?;
    let searches = setup::searches_at_once(plan, threads);
    crate::engine::tt::hash_fits(plan.scoring.hash, searches)
        .map_err(|e| RunError::Refused(e.to_string()))?;
    Ok(inputs)
}

/// A run whose checkpoint is open.
pub struct Opened {
    /// The calibration of its objective, when one was found.
    pub calibration: Option<FoundCalibration>,
    /// Its identity.
    pub run_id: String,
    /// Its checkpoint directory.
    pub dir: PathBuf,
}

/// Finds the calibration of the run's objective and with it what screens a race
/// ([`screen::choose`], said), works out the run's identity and opens its checkpoint (an
/// existing --out that is not this run's own is refused first); `opts` gets the directory.
/// The run's opening lines close what is said.
///
/// # Errors
/// A bad calibration, a checkpoint of another run, an output that may not be replaced, a
/// checkpoint that cannot be written.
pub fn open(
    plan: &TunePlan,
    opts: &mut TuneOptions,
    (def, space): (&Arc<EngineDef>, &Space),
    inputs: &mut Inputs,
    options: &ScorerOptions,
    threads: usize,
    lines: &mut Vec<Said>,
) -> Result<Opened, RunError> {
    let limit = options.config.limit;
    let calibration = calibrated::find_calibration(plan, options, def)?;
    let found = report::calibration_found(plan, limit, &calibration);
    lines.extend(found.into_iter().map(Said::Out));
    let choice = screen::choose(plan, calibration.as_ref(), limit, &def.name)?;
    if let Some(race) = inputs.solver.race.take() {
        let mut race = screen::apply(race, &choice);
        lines.push(Said::Out(format!("race screen: {}", race.screen_why)));
        // The calibration's games are at a node budget: at a clock, its spread is not the race's.
        let calibrated = calibration.as_ref().filter(|_| plan.tc.is_none());
        if plan.race_pairs.is_empty() {
            let stepped =
                calibrated.and_then(|(_, report, ..)| screen::step_rounds(&mut race, report));
            lines.extend(stepped.map(Said::Out));
        }
        let power = calibrated.and_then(|(path, report, ..)| {
            screen::power(&race, report, &path.display().to_string())
        });
        lines.extend(power.map(Said::Out));
        if race.screen_in_games && plan.screen.is_some() {
            lines.push(Said::Warning(format!(
                "--screen {} does nothing here: it is the suite screen's batch, and this race screens in games",
                plan.screen.unwrap_or_default()
            )));
        }
        inputs.solver.settings = serde_json::to_value(&race).expect("settings serialize");
        inputs.solver.race = Some(race);
    }
    let cache = default_cache_dir();
    let opening = run::Opening {
        plan,
        opts,
        def,
        train: &inputs.train,
        validation: &inputs.validation,
        cache: &cache,
    };
    let run_id = run::identity(&opening, lines)?;
    let dir = opts
        .checkpoint
        .clone()
        .unwrap_or_else(|| plan.checkpoint_dir(&cache, &run_id));
    lines.extend(hold_checkpoint(&dir)?.map(Said::Note));
    run::check_checkpoint(plan, &run_id, &dir)?;
    // A rerun or resume of this run (its checkpoint exists) writes the same set again.
    let force = opts.force || dir.exists();
    let note = outputs::fresh_json_output(&plan.out, "--out", force, &RESULT_FORMATS)?;
    lines.extend(note.map(Said::Note));
    outputs::plot_beside(&plan.out, "--out", opts.force, &plan.inputs())?;
    run::make_checkpoint(plan, opts, &run_id, def, &dir)?;
    opts.checkpoint = Some(dir.clone());
    let positions = (
        inputs.train.positions.len(),
        inputs.validation.positions.len(),
    );
    let in_games = inputs
        .solver
        .race
        .as_ref()
        .is_some_and(|r| r.screen_in_games);
    let start = report::start(plan, space, positions, limit, threads, &dir, in_games);
    lines.extend(start.into_iter().map(Said::Out));
    Ok(Opened {
        calibration,
        run_id,
        dir,
    })
}

/// Holds the checkpoint directory `dir` for this run ([`lock::hold_for_run`], its lock file
/// beside it): two runs never write one checkpoint. Returns the note of a stale lock taken over.
///
/// # Errors
/// Another run holds it, or its lock file cannot be made.
fn hold_checkpoint(dir: &Path) -> Result<Option<String>, RunError> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(parent);
    }
    match lock::hold_for_run(dir) {
        Ok(stale) => Ok(stale.map(|s| format!("--checkpoint: {s}"))),
        Err(e @ lock::LockError::Unsupported { .. }) => Ok(Some(format!("--checkpoint: {e}"))),
        Err(e) => Err(RunError::Refused(format!("--checkpoint {e}"))),
    }
}

/// What a finished run's judging says: the tuned set, the defaults and `off` on both sides,
/// and the calibration's note of the objective (returned for the file). The flag says whether
/// a --confirm match is worth playing: not when the tuned set is the defaults.
pub fn judged(
    plan: &TunePlan,
    options: &ScorerOptions,
    found: Option<FoundCalibration>,
    outcome: &Tuned,
    lines: &mut Vec<Said>,
) -> (Calibration, bool) {
    lines.push(Said::Out(String::new()));
    let (training, validation) = (&outcome.training, &outcome.validation);
    lines.push(Said::Out(report::side(
        "training",
        training,
        &outcome.paired.0,
    )));
    lines.push(Said::Out(report::side(
        "validation",
        validation,
        &outcome.paired.1,
    )));
    let calibration = calibrated::calibration(plan, options, found, training, validation);
    lines.push(Said::Out(format!("calibration: {}", calibration.note)));
    let margins = |name: &str| training.set(name).map(|s| &s.margins);
    let same_as_defaults = margins("tuned").is_some() && margins("tuned") == margins("default");
    if plan.confirm.is_some() && same_as_defaults {
        lines.push(Said::Note("--confirm: the tuned set is the defaults, so no confirmation match is played (it would play the defaults against themselves and measure nothing)".into()));
    }
    (calibration, !same_as_defaults)
}

/// Why a tuned file or its plot could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A games tune whose every game ended with an engine fault (exit 2).
    #[error("{0}")]
    Refused(String),
    /// The file or its plot could not be written.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] super::plot::PlotError),
}

/// How a finished run searched: the suite evaluations it searched and their seconds, its
/// worker threads (its wall and CPU time are in its tuned file's provenance).
pub struct Spent {
    /// Suite evaluations searched, and the seconds they took.
    pub searched: (usize, f64),
    /// Worker threads.
    pub threads: usize,
}

/// Writes the tuned file of a finished run to the plan's --out (unless it already holds this
/// run's result) and its plot beside it, with what to say of the set and the run.
///
/// # Errors
/// A games tune whose every game faulted, or a file that cannot be written.
pub fn write(
    plan: &TunePlan,
    opts: &TuneOptions,
    (file, space): (&TunedFile, &Space),
    spent: &Spent,
    lines: &mut Vec<Said>,
) -> Result<(), WriteError> {
    if let Some(refusal) = report::all_games_faulted(file) {
        return Err(WriteError::Refused(refusal));
    }
    lines.push(Said::Out(report::tuned_set(file)));
    lines.extend(report::nothing_moved(file, space));
    let out = &plan.out;
    if let Some(line) = report::already_written(out, opts.force, file) {
        lines.push(Said::Out(line));
        return Ok(());
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        |source| WriteError::Io { path, source }
    };
    file.write(out).map_err(io(out))?;
    let earlier = (opts.checkpoint.as_deref()).map(super::checkpoint::earlier_invocations);
    lines.push(Said::Out(report::written(
        out,
        file,
        earlier.map_or(0, |e| e.runs),
    )));
    lines.extend(report::faults(file, out).map(Said::Warning));
    lines.extend(report::time_losses(file, out).map(Said::Warning));
    lines.extend(report::speed(plan, file, spent.searched, spent.threads).map(Said::Out));
    // A device (--out /dev/null) has no place beside it for a plot.
    if crate::formats::is_stream(out) {
        lines.push(Said::Out(format!(
            "no plot: --out {} is not a file",
            out.display()
        )));
        return Ok(());
    }
    let svg = write_plot(out, file, space)?;
    lines.push(Said::Out(format!("plot written to {}", svg.display())));
    Ok(())
}

/// Draws `NAME.svg` beside the tuned file `out` from its document; returns its path.
///
/// # Errors
/// The plot cannot be drawn or written.
pub fn write_plot(out: &Path, file: &TunedFile, space: &Space) -> Result<PathBuf, WriteError> {
    let data = super::plot::PlotData::of_tuned(file, space);
    let path = out.with_extension("svg");
    let text = super::plot::svg(&data)?;
    outputs::write_plot(&path, &text).map_err(|source| WriteError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_that_is_an_input_is_refused_naming_it_before_any_work() {
        let mut plan = TunePlan::default();
        plan.out = plan.suites()[0].clone();
        let space = setup::space(&plan, &EngineDef::builtin(), &mut Vec::new()).unwrap();
        let mut lines = Vec::new();
        let e = check(&plan, &space, 1, &mut lines)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("--out") && e.contains(&*plan.out.to_string_lossy()),
            "{e}"
        );
    }

    #[test]
    fn a_batch_no_smaller_than_the_positions_is_warned_about() {
        let plan = TunePlan {
            batch: Some(1_000_000),
            solver: super::super::plan::SolverKind::Spsa,
            ..TunePlan::default()
        };
        let space = setup::space(&plan, &EngineDef::builtin(), &mut Vec::new()).unwrap();
        let mut lines = Vec::new();
        let inputs = check(&plan, &space, 1, &mut lines).unwrap();
        assert!(!inputs.train.positions.is_empty());
        let warned = lines.iter().any(|l| {
            matches!(l, Said::Warning(m) if m.starts_with("--batch 1000000") && m.contains("training positions"))
        });
        assert!(warned, "{lines:?}");
    }
}
