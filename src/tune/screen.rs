//! What screens the race's design (`--screen-by`): the suite objective when a calibration
//! trusts it for this engine and limit (its rank correlation with games excludes 0), short
//! paired games against the defaults when none does. A screen by an objective that does not
//! rank sets as games do picks finalists at random at best, and the race's games can only
//! choose among them; a games screen costs games but ranks by what the tune is for.
//!
//! With `--tc` the games play at a clock, and no suite objective (a node budget or depth a
//! position) was calibrated against them: the screen is in games unless `--screen-by suite`
//! says otherwise with the suite's own limit (`--nodes` or `--depth`).

use super::calibrated::FoundCalibration;
use super::plan::{ScreenBy, SolverKind, TunePlan};
use super::race::RaceSettings;
use super::remark::RunError;
use crate::calibrate::trust::Calibration;
use crate::scoring::suite::SuiteLimit;

/// Game pairs each candidate plays in the games screen's first round (doubling each round).
pub const FIRST_SCREEN_PAIRS: u32 = 2;

/// The screen a race runs, and why in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenChoice {
    /// Whether it screens in games.
    pub games: bool,
    /// Why, for people (the progress and the tuned file say it).
    pub why: String,
}

/// The screen of `plan`'s race with `engine` (its name) at the suite `limit`, given the
/// calibration `found` for its objective (see the module documentation).
///
/// # Errors
/// Contradictory options: `--screen-by games` with
/// `--race-pairs 0` (the games screen feeds the race's games), `--screen-by suite` with
/// `--tc` and neither `--nodes` nor `--depth`.
pub fn choose(
    plan: &TunePlan,
    found: Option<&FoundCalibration>,
    limit: SuiteLimit,
    engine: &str,
) -> Result<ScreenChoice, RunError> {
    let asked = plan.screen_by.unwrap_or_default();
    if plan.solver != SolverKind::Race {
        // (--screen-by given here is said to do nothing: TunePlan::unused_options.)
        return Ok(suite("the solver is not the race".into()));
    }
    let no_games = !plan.race_pairs.is_empty() && plan.race_pairs.iter().all(|&p| p == 0);
    let given_limit = plan.nodes.is_some() || plan.depth.is_some();
    match asked {
        ScreenBy::Games if no_games => Err(RunError::Refused(
            "--screen-by games with --race-pairs 0: the games screen picks the finalists of the race's games, and --race-pairs 0 races none; drop one of them".into(),
        )),
        ScreenBy::Suite if plan.tc.is_some() && !given_limit => Err(RunError::Refused(format!(
            "--screen-by suite with --tc {}: the suite objective searches a node budget or a depth a position, not a clock; give --nodes N or --depth D for the suite screen, or screen in games (drop --screen-by suite)",
            plan.tc.as_deref().unwrap_or_default()
        ))),
        ScreenBy::Suite => Ok(suite(format!(
            "the suite objective at {limit} screens, as --screen-by suite asks"
        ))),
        ScreenBy::Games => Ok(games("--screen-by games asks".into())),
        ScreenBy::Auto if no_games => Ok(suite(
            "--race-pairs 0 races no games: the suite objective screens and decides".into(),
        )),
        ScreenBy::Auto => Ok(auto(plan, found, limit, engine)),
    }
}

/// The automatic choice: games at a clock; else the suite objective when its calibration
/// trusts it, else games.
fn auto(
    plan: &TunePlan,
    found: Option<&FoundCalibration>,
    limit: SuiteLimit,
    engine: &str,
) -> ScreenChoice {
    if let Some(tc) = &plan.tc {
        return games(format!(
            "--tc {tc}: no suite objective is calibrated against games at a clock"
        ));
    }
    let Some((path, report, o, _)) = found else {
        return games(format!(
            "no calibration of the suite objective for {engine} at {limit} (none in tuned/ fits; `marginal calibrate` makes one, --calibration names it)"
        ));
    };
    let file = path.display().to_string();
    let calibration = Calibration::from_report(report, &file, *o, 0.0);
    let rho = calibration
        .rho
        .map(|r| format!("rho {:+.2} [{:+.2}, {:+.2}]", r.value, r.lower, r.upper))
        .unwrap_or_else(|| "no rho".into());
    if calibration.status == "trusted" {
        suite(format!(
            "the suite objective at {limit} is trusted for {engine} ({file}: {rho})"
        ))
    } else {
        games(format!(
            "the suite objective at {limit} is untrusted for {engine} ({file}: {rho}, its lower bound at or below 0)"
        ))
    }
}

fn suite(why: String) -> ScreenChoice {
    ScreenChoice { games: false, why }
}

fn games(why: String) -> ScreenChoice {
    ScreenChoice {
        games: true,
        why: format!("{why}: screening in games"),
    }
}

/// The race's settings with `choice` applied: the games screen's rounds when it screens in
/// games, and why either way.
pub fn apply(settings: RaceSettings, choice: &ScreenChoice) -> RaceSettings {
    if choice.games {
        settings.with_games_screen(FIRST_SCREEN_PAIRS, choice.why.clone())
    } else {
        RaceSettings {
            screen_why: choice.why.clone(),
            ..settings
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit() -> SuiteLimit {
        SuiteLimit::Nodes(5000)
    }

    #[test]
    fn the_shipped_builtin_calibration_screens_by_suite_and_none_screens_in_games() {
        let (path, report) = (
            std::path::PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tuned/calibration-builtin-nodes5000.json"
            )),
            crate::calibrate::report::read(std::path::Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tuned/calibration-builtin-nodes5000.json"
            )))
            .unwrap(),
        );
        let o = report
            .objectives
            .iter()
            .position(|o| o.key.starts_with("suite"))
            .unwrap();
        let found = (path, report, o, None);
        let plan = TunePlan::default();
        let c = choose(&plan, Some(&found), limit(), "marginal").unwrap();
        assert!(!c.games, "{c:?}");
        assert!(c.why.contains("trusted") && c.why.contains("rho"), "{c:?}");
        let c = choose(&plan, None, limit(), "Toga II").unwrap();
        assert!(c.games, "{c:?}");
        assert!(
            c.why.contains("no calibration") && c.why.contains("Toga II"),
            "{c:?}"
        );
        assert!(c.why.contains("5000 nodes"), "{c:?}");
    }

    #[test]
    fn an_untrusted_calibration_screens_in_games_naming_its_file() {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tuned/calibration-toga2-nodes10000.json"
        ));
        let report = crate::calibrate::report::read(&path).unwrap();
        let o = report
            .objectives
            .iter()
            .position(|o| o.key.starts_with("suite"))
            .unwrap();
        let found = (path, report, o, None);
        let c = choose(&TunePlan::default(), Some(&found), limit(), "Toga II").unwrap();
        assert!(c.games, "{c:?}");
        assert!(
            c.why.contains("untrusted") && c.why.contains("calibration-toga2-nodes10000.json"),
            "{c:?}"
        );
    }

    #[test]
    fn a_clock_screens_in_games_and_contradictions_are_refused() {
        let tc = TunePlan {
            tc: Some("10+0.1".into()),
            ..TunePlan::default()
        };
        let c = choose(&tc, None, limit(), "e").unwrap();
        assert!(c.games && c.why.contains("--tc 10+0.1"), "{c:?}");
        let forced = TunePlan {
            screen_by: Some(ScreenBy::Suite),
            ..tc.clone()
        };
        let e = choose(&forced, None, limit(), "e").unwrap_err().to_string();
        assert!(
            e.contains("--screen-by suite") && e.contains("--tc") && e.contains("--nodes"),
            "{e}"
        );
        let with_nodes = TunePlan {
            nodes: Some(3000),
            ..forced
        };
        assert!(!choose(&with_nodes, None, limit(), "e").unwrap().games);
        let no_race = TunePlan {
            screen_by: Some(ScreenBy::Games),
            race_pairs: vec![0],
            ..TunePlan::default()
        };
        let e = choose(&no_race, None, limit(), "e")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--screen-by games") && e.contains("--race-pairs 0"),
            "{e}"
        );
        let spsa = TunePlan {
            screen_by: Some(ScreenBy::Games),
            solver: SolverKind::Spsa,
            ..TunePlan::default()
        };
        // With another solver it does nothing, and is said so (TunePlan::unused_options).
        assert!(!choose(&spsa, None, limit(), "e").unwrap().games);
        let said = spsa.unused_options();
        assert!(
            said.len() == 1 && said[0].contains("--screen-by games") && said[0].contains("spsa"),
            "{said:?}"
        );
    }

    #[test]
    fn the_games_screen_halves_the_design_and_line_down_to_the_finalists() {
        let s = apply(
            RaceSettings::new(3, 1),
            &ScreenChoice {
                games: true,
                why: "w".into(),
            },
        );
        // 36 design points and 8 of the line: 44, 22, then 16 finalists.
        assert_eq!(s.screen_pairs, vec![2, 4]);
        assert_eq!(s.screen_games(), 44 * 4 + 22 * 8);
        assert_eq!(s.games(), 2048);
        let suite = apply(
            RaceSettings::new(3, 1),
            &ScreenChoice {
                games: false,
                why: "w".into(),
            },
        );
        assert!(!suite.screen_in_games && suite.screen_pairs.is_empty());
    }
}
