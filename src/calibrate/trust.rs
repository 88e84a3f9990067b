//! What a calibration says about a tuned set: whether the objective it was tuned on ranks
//! margin sets as games do, and the Elo it predicts for the set against the defaults. `tune`
//! records it in the tuned file; `check` and `export` show it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::rank::Interval;
use super::report::{self, Report};

/// The calibration of a tuned file's objective, as the file records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// `trusted` (rho's lower bound above 0), `untrusted`, or `none` (no calibration for this
    /// engine, limit and objective).
    pub status: String,
    /// The calibration report it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The objective, as the report names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<String>,
    /// The games' per-move limit in the calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_limit: Option<String>,
    /// Margin sets the calibration measured.
    #[serde(default)]
    pub sets: usize,
    /// Spearman's rho against the pooled Elo, with its interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho: Option<Interval>,
    /// Elo per objective point, with its interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slope: Option<Interval>,
    /// The tuned set's objective less the defaults', on the calibration's positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective_gain: Option<f64>,
    /// Predicted Elo against the defaults: slope x gain, with the slope's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_elo: Option<Interval>,
    /// One plain line.
    pub note: String,
}

impl Calibration {
    /// No calibration was found.
    pub fn none(what: &str) -> Calibration {
        Calibration {
            status: "none".into(),
            file: None,
            objective: None,
            game_limit: None,
            sets: 0,
            rho: None,
            slope: None,
            objective_gain: None,
            predicted_elo: None,
            note: format!(
                "no calibration of {what}: nothing says this objective ranks margin sets as games do; run `marginal calibrate` and pass --calibration"
            ),
        }
    }

    /// What `report`'s objective `o` says of a set whose objective beats the defaults' by
    /// `gain` points.
    pub fn from_report(report: &Report, file: &str, o: usize, gain: f64) -> Calibration {
        let obj = &report.objectives[o];
        let trusted = obj.rho.is_some_and(|r| r.lower > 0.0);
        let predicted = obj.slope.map(|s| {
            let (a, b) = (s.lower * gain, s.upper * gain);
            Interval {
                value: s.value * gain,
                lower: a.min(b),
                upper: a.max(b),
            }
        });
        let note = match (&predicted, trusted) {
            (Some(p), true) => format!(
                "{}; predicted {:+.1} Elo [{:+.1}, {:+.1}] against the defaults at {} (from {})",
                obj.verdict, p.value, p.lower, p.upper, report.game_limit, file
            ),
            _ => format!(
                "{}; untrusted: rho's lower bound is at or below 0, so the objective's gain says nothing of games (from {})",
                obj.verdict, file
            ),
        };
        Calibration {
            status: if trusted { "trusted" } else { "untrusted" }.into(),
            file: Some(file.to_string()),
            objective: Some(obj.name.clone()),
            game_limit: Some(report.game_limit.clone()),
            sets: report.sets.len(),
            rho: obj.rho,
            slope: obj.slope,
            objective_gain: Some(gain),
            predicted_elo: predicted,
            note,
        }
    }
}

/// The calibration reports in `dir` (`*.json` files that are reports) for the engine with
/// `signature` that measured an objective with `key`: each report's path, itself and the
/// objective's index, in file name order.
pub fn find(dir: &Path, signature: &str, key: &str) -> Vec<(PathBuf, Report, usize)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let r = report::read(&p).ok()?;
            let o = r.objectives.iter().position(|o| o.key == key)?;
            (r.engine_signature == signature).then_some((p, r, o))
        })
        .collect()
}
