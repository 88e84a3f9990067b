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
    /// `trusted` (rho's lower bound above 0, from games whose ceiling reached the report's
    /// target), `untrusted`, or `none` (no calibration for this engine, limit and objective).
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
        // Games whose ceiling fell short of the report's target could not judge: nothing is
        // trusted from them.
        let judged = report.games_could_judge();
        let trusted = judged && obj.rho.is_some_and(|r| r.lower > 0.0);
        // A set is not the line: its Elo scatters about it as the calibration's sets do, so
        // the interval is the slope's widened by 1.96 times that scatter.
        let scatter = scatter(report, o).unwrap_or(0.0);
        let predicted = obj.slope.map(|s| {
            let (a, b) = (s.lower * gain, s.upper * gain);
            Interval {
                value: s.value * gain,
                lower: a.min(b) - 1.96 * scatter,
                upper: a.max(b) + 1.96 * scatter,
            }
        });
        let note = match (&predicted, trusted) {
            (Some(p), true) => format!(
                "{}; predicted {:+.1} Elo [{:+.1}, {:+.1}] against the defaults at {} (from {})",
                obj.verdict, p.value, p.lower, p.upper, report.game_limit, file
            ),
            _ if !judged => format!(
                "{}; untrusted: the calibration's games could not judge, so the objective's gain says nothing of games (from {})",
                obj.verdict, file
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

/// The standard deviation, in Elo, of the calibration's sets about the least-squares line of
/// their pooled Elo on objective `o` (sets with a defined Elo; `None` with fewer than 3).
pub fn scatter(report: &Report, o: usize) -> Option<f64> {
    let (x, y): (Vec<f64>, Vec<f64>) = (report.sets.iter())
        .filter(|s| s.pooled.elo.is_finite())
        .filter_map(|s| Some((*s.objectives.get(o)?, s.pooled.elo)))
        .unzip();
    let line = super::rank::least_squares(&x, &y)?;
    (x.len() > 2).then(|| {
        let sum: f64 = (x.iter().zip(&y))
            .map(|(x, y)| (y - line.intercept - line.slope * x).powi(2))
            .sum();
        (sum / (x.len() as f64 - 2.0)).sqrt()
    })
}

/// The calibration a tuned file records, its prediction made again from the calibration report
/// it names when that report is at hand (so a file recorded before the prediction counted the
/// sets' scatter, or its region, shows them as they are now made); else as recorded.
/// `value_of` gives the tuned set's value of a row.
pub fn refreshed(recorded: &Calibration, value_of: &dyn Fn(&str) -> Option<i64>) -> Calibration {
    let (Some(file), Some(name), Some(gain)) =
        (&recorded.file, &recorded.objective, recorded.objective_gain)
    else {
        return recorded.clone();
    };
    let Ok(report) = report::read(Path::new(file)) else {
        return recorded.clone();
    };
    let Some(o) = report.objectives.iter().position(|obj| &obj.name == name) else {
        return recorded.clone();
    };
    let mut now = Calibration::from_report(&report, file, o, gain);
    // What the tune added after the report's name (a caveat) stays, the region's said anew.
    let from = format!("(from {file})");
    if let Some((_, rest)) = recorded.note.split_once(&from) {
        let rest = rest
            .split("; the set lies outside the region")
            .next()
            .unwrap_or("");
        now.note.push_str(rest);
    }
    now.with_region(&report, value_of)
}

/// The rows where a set (`value_of` a row's name) lies outside the region `report`'s sets
/// were drawn from, as `name value < lower` or `name value > upper`.
pub fn outside_region(report: &Report, value_of: &dyn Fn(&str) -> Option<i64>) -> Vec<String> {
    (report.region.iter())
        .filter_map(|d| {
            let v = value_of(&d.name)?;
            if v < i64::from(d.lower) {
                Some(format!("{} {v} < {}", d.name, d.lower))
            } else if v > i64::from(d.upper) {
                Some(format!("{} {v} > {}", d.name, d.upper))
            } else {
                None
            }
        })
        .collect()
}

impl Calibration {
    /// When the set lies outside the calibrated region, the note gives no Elo for it: the line
    /// is not known there, and its extrapolation is no estimate (race-seed2, 16 / 63 / 123 /
    /// 25, would be -10.6 and measured +76.0 in games). The figure stays in `predicted_elo`
    /// for the record; the note says why it is not one.
    pub fn with_region(mut self, report: &Report, value_of: &dyn Fn(&str) -> Option<i64>) -> Self {
        let outside = outside_region(report, value_of);
        if outside.is_empty() || self.predicted_elo.is_none() {
            return self;
        }
        let Some(file) = self.file.clone() else {
            return self;
        };
        let from = format!("(from {file})");
        if let Some((verdict, rest)) = self.note.split_once("; predicted ")
            && let Some((_, after)) = rest.split_once(&from)
        {
            self.note = format!(
                "{verdict}; no prediction for this set: it lies outside the region the calibration's sets were drawn from ({}), where the line is not known, so only games measure it (marginal match) {from}{after}",
                outside.join(", ")
            );
        }
        self
    }
}

/// The calibration reports in `dir` (`*.json` files that are reports) for the engine named by
/// one of `signatures` ([`crate::engine::EngineDef::signatures`]) that measured an objective with `key`: each report's path, itself and the
/// objective's index, in file name order.
pub fn find(dir: &Path, signatures: &[String], key: &str) -> Vec<(PathBuf, Report, usize)> {
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
            signatures
                .contains(&r.engine_signature)
                .then_some((p, r, o))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped calibration of the built-in engine: its suite objective's rho interval lies
    /// above zero, its quality objective's does not.
    fn shipped() -> (PathBuf, Report) {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json");
        let report = report::read(&path).expect("the shipped calibration reads");
        (path, report)
    }

    fn index_of(report: &Report, kind: &str) -> usize {
        (report.objectives.iter())
            .position(|o| o.name.starts_with(kind))
            .expect("the shipped calibration measures it")
    }

    #[test]
    fn an_objective_whose_rho_interval_excludes_zero_is_trusted_and_predicts_elo() {
        let (_, report) = shipped();
        let o = index_of(&report, "suite");
        let rho = report.objectives[o].rho.unwrap();
        assert!(rho.lower > 0.0, "the fixture's premise: {rho:?}");
        let slope = report.objectives[o].slope.unwrap();
        let c = Calibration::from_report(&report, "cal.json", o, 2.0);
        assert_eq!(c.status, "trusted");
        assert_eq!(c.sets, report.sets.len());
        assert_eq!(c.objective_gain, Some(2.0));
        let p = c.predicted_elo.unwrap();
        assert!(
            (p.value - 2.0 * slope.value).abs() < 1e-9,
            "{p:?} {slope:?}"
        );
        // The set's scatter about the line widens the slope's interval.
        assert!(
            p.lower < 2.0 * slope.lower && p.upper > 2.0 * slope.upper,
            "{p:?}"
        );
        assert!(c.note.contains("; predicted +"), "{}", c.note);
        assert!(c.note.ends_with("(from cal.json)"), "{}", c.note);
    }

    #[test]
    fn an_objective_whose_rho_interval_holds_zero_is_untrusted() {
        let (_, report) = shipped();
        let o = index_of(&report, "quality");
        let rho = report.objectives[o].rho.unwrap();
        assert!(
            rho.lower <= 0.0 && rho.upper > 0.0,
            "the fixture's premise: {rho:?}"
        );
        let c = Calibration::from_report(&report, "cal.json", o, 2.0);
        assert_eq!(c.status, "untrusted");
        assert!(
            c.note
                .contains("untrusted: rho's lower bound is at or below 0"),
            "{}",
            c.note
        );
        assert!(!c.note.contains("predicted"), "{}", c.note);
    }

    #[test]
    fn nothing_is_trusted_from_games_whose_ceiling_fell_short_of_the_target() {
        let (_, mut report) = shipped();
        let o = index_of(&report, "suite");
        let ceiling = report.ceiling.max_rho.unwrap();
        report.ceiling_target = Some(ceiling + 0.01);
        let c = Calibration::from_report(&report, "cal.json", o, 2.0);
        assert_eq!(c.status, "untrusted");
        assert!(c.note.contains("could not judge"), "{}", c.note);
        report.ceiling_target = Some(ceiling);
        let c = Calibration::from_report(&report, "cal.json", o, 2.0);
        assert_eq!(c.status, "trusted", "{}", c.note);
    }

    #[test]
    fn no_calibration_says_how_to_get_one() {
        let c = Calibration::none("suite at 5000 nodes");
        assert_eq!(c.status, "none");
        assert_eq!((c.file, c.rho, c.predicted_elo), (None, None, None));
        assert!(
            c.note.starts_with("no calibration of suite at 5000 nodes:"),
            "{}",
            c.note
        );
        assert!(c.note.contains("marginal calibrate"), "{}", c.note);
    }

    #[test]
    fn find_picks_the_report_of_the_same_engine_signature_and_objective_key() {
        let (path, report) = shipped();
        let dir = path.parent().unwrap();
        let o = index_of(&report, "mates");
        let key = &report.objectives[o].key;
        let signed = [report.engine_signature.clone()];
        let found = find(dir, &signed, key);
        assert_eq!(
            found.len(),
            1,
            "{:?}",
            found.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        assert_eq!(found[0].0, path);
        assert_eq!(found[0].2, o);
        // Another engine's signature, or an objective the report did not measure: none.
        assert!(find(dir, &["0000000000000000".into()], key).is_empty());
        assert!(find(dir, &signed, "suite 0 nodes").is_empty());
        assert!(find(&dir.join("no-such-dir"), &signed, key).is_empty());
    }

    #[test]
    fn a_set_outside_the_region_gets_no_prediction_in_its_note() {
        let (_, report) = shipped();
        let o = index_of(&report, "suite");
        let dim = &report.region[0];
        let (name, upper) = (dim.name.clone(), i64::from(dim.upper));
        let outside = |row: &str| (row == name).then_some(upper + 1);
        assert_eq!(
            outside_region(&report, &outside),
            vec![format!("{name} {} > {upper}", upper + 1)]
        );
        let inside = |row: &str| (row == name).then_some(upper);
        assert!(outside_region(&report, &inside).is_empty());
        let c = Calibration::from_report(&report, "cal.json", o, 2.0);
        let kept = c.clone().with_region(&report, &inside);
        assert_eq!(kept, c);
        let said = c.with_region(&report, &outside);
        assert!(
            said.note.contains("no prediction for this set"),
            "{}",
            said.note
        );
        assert!(said.predicted_elo.is_some(), "the figure stays on record");
    }
}
