//! The calibration of a tune's objective: the report (`marginal calibrate`) that says how far
//! the objective ranks margin sets as games do, looked up before any work so that a bad one
//! fails at once, and what it says of the tuned set afterwards.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::file::Side;
use super::plan::{ObjectiveKind, TunePlan};
use super::run::RunError;
use crate::calibrate::trust::Calibration;
use crate::engine::EngineDef;
use crate::scoring::cheap::suite_key;
use crate::scoring::suite::{Repeats, ScorerOptions};

/// A calibration report of the run's objective: its path, itself, the objective's index, and
/// what differs from the run's objective (a calibration that counted repeated positions each
/// time they appear, when the run counts them once).
pub type FoundCalibration = (PathBuf, crate::calibrate::Report, usize, Option<String>);

/// The calibration of the run's objective, looked up before any work so that a bad one fails
/// at once: from --calibration (refused when unreadable or for another engine, limit or
/// objective), else the first report in tuned/ that matches, else none. `Err(None)`-like
/// outcomes are `Ok(None)`; a games tune has none to look up. A report of the same objective
/// with repeated positions counted each time (so every report made before repeats were
/// scored once) is taken when there is none of the run's exact objective, and said to be so.
pub fn find_calibration(
    plan: &TunePlan,
    options: &ScorerOptions,
    def: &Arc<EngineDef>,
) -> Result<Option<FoundCalibration>, RunError> {
    if plan.objective != ObjectiveKind::Suite {
        return Ok(None);
    }
    let load = |rule| {
        crate::scoring::suite::load_suites(&plan.suites(), false, rule)
            .map_err(|e| RunError::Refused(e.to_string()))
    };
    let suites = load(plan.scoring.repeats())?;
    let mut keys = vec![(suite_key("suite", suites.content_hash, options), None)];
    if suites.rule == Repeats::Once && !suites.repeats.is_empty() {
        let each = load(Repeats::Each)?;
        keys.push((
            suite_key("suite", each.content_hash, options),
            Some(format!(
                "it measured the objective with the {} repeated position(s) counted each time they appear (--count-repeats); this run counts them once",
                suites.repeats.len()
            )),
        ));
    }
    let Some(path) = &plan.calibration else {
        return Ok(keys.into_iter().find_map(|(key, caveat)| {
            most_games(crate::calibrate::trust::find(
                Path::new("tuned"),
                &def.signatures(),
                &key,
            ))
            .map(|(path, report, o)| (path, report, o, caveat))
        }));
    };
    let report = crate::calibrate::report::read(path)
        .map_err(|e| RunError::Refused(format!("--calibration {e}")))?;
    if !def.is_signed(&report.engine_signature) {
        return Err(RunError::Refused(format!(
            "--calibration {}: it calibrates engine signature {}, this engine's is {}",
            path.display(),
            report.engine_signature,
            def.signature()
        )));
    }
    let found = keys.into_iter().find_map(|(key, caveat)| {
        let o = report.objectives.iter().position(|o| o.key == key)?;
        Some((o, caveat))
    });
    let Some((o, caveat)) = found else {
        return Err(RunError::Refused(format!(
            "--calibration {}: none of its objectives ({}) is this tune's (suite at {} on these suites, these weights)",
            path.display(),
            report
                .objectives
                .iter()
                .map(|o| o.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            options.config.limit
        )));
    };
    Ok(Some((path.clone(), report, o, caveat)))
}

/// Of several calibrations of an engine and objective (a first one kept beside the one made
/// again), the one with the most games: it judges best. The first in file name order among
/// equals.
fn most_games(
    found: Vec<(PathBuf, crate::calibrate::Report, usize)>,
) -> Option<(PathBuf, crate::calibrate::Report, usize)> {
    found
        .into_iter()
        .rev()
        .max_by_key(|(_, report, _)| report.cost.games)
}

/// What the calibration found before the run says of the tuned set.
pub fn calibration(
    plan: &TunePlan,
    options: &ScorerOptions,
    found: Option<FoundCalibration>,
    train: &Side,
    validation: &Side,
) -> Calibration {
    if plan.objective != ObjectiveKind::Suite {
        return Calibration {
            status: "games".into(),
            note: "tuned on games: its objective is what a calibration measures against".into(),
            ..Calibration::none("")
        };
    }
    let Some((path, report, o, caveat)) = found else {
        return Calibration::none(&format!(
            "the suite objective at {} for this engine",
            options.config.limit
        ));
    };
    // The objective is a mean over positions: the whole suite's is the position-weighted mean
    // of the training and validation sides'.
    let value = |side: &Side, name: &str| side.set(name).map_or(0.0, |s| s.objective.value);
    let (nt, nv) = (train.positions as f64, validation.positions as f64);
    let gain = (nt * (value(train, "tuned") - value(train, "default"))
        + nv * (value(validation, "tuned") - value(validation, "default")))
        / (nt + nv).max(1.0);
    let tuned = train.set("tuned").map(|s| &s.margins);
    let value_of = |name: &str| {
        tuned
            .and_then(|m| m.0.get(name))
            .and_then(serde_json::Value::as_i64)
    };
    let mut calibration = Calibration::from_report(&report, &path.display().to_string(), o, gain)
        .with_region(&report, &value_of);
    if let Some(caveat) = caveat {
        calibration.note = format!("{}; {caveat}", calibration.note);
    }
    calibration
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_several_calibrations_of_an_engine_the_one_with_the_most_games_is_read() {
        let tuned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned");
        let made_again = tuned.join("calibration-toga2-nodes10000.json");
        let report = crate::calibrate::report::read(&made_again).unwrap();
        let mates = report
            .objectives
            .iter()
            .find(|o| o.key.starts_with("mates"));
        let key = &mates.expect("it measured mates").key;
        // Toga II's first calibration, kept beside, measured the same mates objective.
        let found = crate::calibrate::trust::find(
            &tuned,
            std::slice::from_ref(&report.engine_signature),
            key,
        );
        let names: Vec<_> = found.iter().map(|(p, ..)| p.file_name().unwrap()).collect();
        assert!(names.len() >= 2, "{names:?}");
        let first = found.iter().map(|(_, r, _)| r.cost.games).min().unwrap();
        assert!(first < report.cost.games);
        let (path, picked, _) = most_games(found).unwrap();
        assert_eq!(path, made_again);
        assert_eq!(picked.cost.games, report.cost.games);
    }
}
