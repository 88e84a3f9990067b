//! What screens the race's design (`--screen-by`): the suite objective when a calibration
//! trusts it for this engine and limit (its rank correlation with games excludes 0), short
//! paired games against the defaults when none does. A screen by an objective that does not
//! rank sets as games do picks finalists at random at best, and the race's games can only
//! choose among them; a games screen costs games but ranks by what the tune is for.
//!
//! `--screen-by auto` looks at every objective the calibration found for the engine (the
//! report holding the tune's suite objective) trusts at the tune's limit, and picks the best
//! by [`best_trusted`]: the cheapest trusted objective (suite, mates, quality, referee, in that
//! order) unless a dearer one is clearly better, its rho's lower bound above the cheaper one's
//! rho. The race's screen runs the suite objective or games only: when the best is another
//! objective (move quality, the referee), the reason says so, and the suite objective screens
//! if it is trusted, else games. The built-in engine's shipped calibration trusts the suite
//! (rho 0.66 [0.21, 0.93]) and the referee (0.66 [0.25, 0.88]); 0.25 is not above 0.66, so the
//! suite screens, with no Stockfish needed.
//!
//! With `--tc` the games play at a clock, and no suite objective (a node budget or depth a
//! position) was calibrated against them: the screen is in games unless `--screen-by suite`
//! says otherwise with the suite's own limit (`--nodes` or `--depth`).

use super::calibrated::FoundCalibration;
use super::plan::{ScreenBy, SolverKind, TunePlan};
use super::race::RaceSettings;
use super::remark::RunError;
use crate::calibrate::Report;
use crate::calibrate::rank::Interval;
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

/// The automatic choice: games at a clock; else, among the objectives the calibration found
/// for this engine trusts at this limit, the one [`best_trusted`] picks, when the screen can
/// run it (the suite objective); else the suite objective when it is trusted; else games.
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
    let trusted = trusted_at(report, *o, limit);
    let suite_rho = report.objectives[*o].rho;
    let rho = said_rho(suite_rho);
    let suite_trusted = trusted.iter().any(|t| t.index == *o);
    let Some(best) = best_trusted(&trusted) else {
        return games(format!(
            "the suite objective at {limit} is untrusted for {engine} ({file}: {rho}, its lower bound at or below 0), and no other objective it measured at {limit} is trusted"
        ));
    };
    let others: Vec<String> = (trusted.iter())
        .filter(|t| t.index != best.index)
        .map(|t| format!("{} {}", t.name, said_rho(Some(t.rho))))
        .collect();
    if best.index == *o {
        let mut why =
            format!("the suite objective at {limit} is trusted for {engine} ({file}: {rho})");
        if !others.is_empty() {
            why.push_str(&format!(
                " and calibrates best: no dearer trusted objective's lower bound is above its rho ({})",
                others.join("; ")
            ));
        }
        return suite(why);
    }
    let best_said = format!(
        "{} calibrates best for {engine} ({file}: {}; {})",
        best.name,
        said_rho(Some(best.rho)),
        BEST_RULE
    );
    let cannot = "but the race's screen runs only the suite objective or games";
    if suite_trusted {
        suite(format!(
            "{best_said}, {cannot}: the suite objective at {limit}, trusted ({rho}), screens"
        ))
    } else {
        games(format!(
            "{best_said}, {cannot}, and the suite objective at {limit} is untrusted ({rho})"
        ))
    }
}

/// The rule [`best_trusted`] follows, in words.
pub const BEST_RULE: &str =
    "the cheapest trusted objective, unless a dearer one's rho lower bound is above its rho";

/// An objective a calibration trusts.
#[derive(Debug, Clone, PartialEq)]
pub struct Trusted {
    /// Its index in the report.
    pub index: usize,
    /// Its name, as the report gives it.
    pub name: String,
    /// Its rank correlation with games.
    pub rho: Interval,
}

/// What an objective needs beyond the engine, cheapest first: the suite objective and the mate
/// suite need only the engine; move quality the engine's own deep searches; the referee
/// another engine (Stockfish) and its searches.
const COST_ORDER: [&str; 4] = ["suite", "mates", "quality", "referee"];

fn cost_rank(name: &str) -> usize {
    let kind = name.split([' ', '(']).next().unwrap_or("");
    COST_ORDER
        .iter()
        .position(|&k| k == kind)
        .unwrap_or(COST_ORDER.len())
}

/// The objectives of `report` it trusts (rho's lower bound above 0, games that could judge)
/// at the suite `limit` (its name's limit; objective `found`, the tune's own, whatever its
/// name), cheapest first ([`COST_ORDER`]; within a kind `found` first, then report order).
pub fn trusted_at(report: &Report, found: usize, limit: SuiteLimit) -> Vec<Trusted> {
    let at = limit.to_string();
    let mut trusted: Vec<Trusted> = (report.objectives.iter().enumerate())
        .filter(|&(i, obj)| {
            i == found
                || obj.name.split_once('(').is_some_and(|(_, rest)| {
                    rest.strip_prefix(at.as_str())
                        .is_some_and(|r| r.starts_with([',', ')']))
                })
        })
        .filter(|&(i, _)| Calibration::from_report(report, "", i, 0.0).status == "trusted")
        .filter_map(|(i, obj)| {
            Some(Trusted {
                index: i,
                name: obj.name.clone(),
                rho: obj.rho?,
            })
        })
        .collect();
    trusted.sort_by_key(|t| (cost_rank(&t.name), t.index != found));
    trusted
}

/// The trusted objective that screens best, by [`BEST_RULE`]: the cheapest of `trusted`
/// (cheapest first) is kept unless a dearer one is clearly better, its rho's lower bound above
/// the kept one's rho; then that one is kept and the next compared with it. Equal or merely
/// higher rho does not displace a cheaper objective: the intervals of a calibration of a dozen
/// sets overlap, and the cheaper objective needs less (no other engine).
pub fn best_trusted(trusted: &[Trusted]) -> Option<&Trusted> {
    let mut best = trusted.first()?;
    for t in &trusted[1..] {
        if t.rho.lower > best.rho.value {
            best = t;
        }
    }
    Some(best)
}

fn said_rho(rho: Option<Interval>) -> String {
    rho.map(|r| format!("rho {:+.2} [{:+.2}, {:+.2}]", r.value, r.lower, r.upper))
        .unwrap_or_else(|| "no rho".into())
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

    /// The shipped calibration of the built-in engine, found for the suite at 5,000 nodes.
    fn builtin() -> FoundCalibration {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tuned/calibration-builtin-nodes5000.json"
        ));
        let report = crate::calibrate::report::read(&path).unwrap();
        let o = (report.objectives.iter())
            .position(|o| o.key.starts_with("suite"))
            .unwrap();
        (path, report, o, None)
    }

    fn index(found: &FoundCalibration, kind: &str) -> usize {
        (found.1.objectives.iter())
            .position(|o| o.name.starts_with(kind))
            .unwrap()
    }

    fn rho(value: f64, lower: f64, upper: f64) -> Option<Interval> {
        Some(Interval {
            value,
            lower,
            upper,
        })
    }

    #[test]
    fn the_builtin_calibration_trusts_suite_and_referee_and_the_cheaper_suite_screens() {
        let found = builtin();
        let trusted = trusted_at(&found.1, found.2, limit());
        let names: Vec<&str> = trusted.iter().map(|t| t.name.as_str()).collect();
        assert!(
            names.len() == 2 && names[0].starts_with("suite") && names[1].starts_with("referee"),
            "{names:?}"
        );
        // The referee's lower bound (0.25) is above the suite's (0.21) but not above its rho
        // (0.66): not clearly better, so the suite, which needs no Stockfish, is kept.
        assert_eq!(best_trusted(&trusted).unwrap().index, found.2);
        let c = choose(&TunePlan::default(), Some(&found), limit(), "marginal").unwrap();
        assert!(!c.games, "{c:?}");
        assert!(
            c.why.contains("suite objective at 5000 nodes is trusted")
                && c.why.contains("calibrates best")
                && c.why.contains("referee"),
            "{c:?}"
        );
    }

    #[test]
    fn a_clearly_better_objective_is_chosen_and_the_reason_says_the_screen_cannot_run_it() {
        let mut found = builtin();
        let referee = index(&found, "referee");
        found.1.objectives[referee].rho = rho(0.9, 0.7, 0.97);
        let trusted = trusted_at(&found.1, found.2, limit());
        assert_eq!(best_trusted(&trusted).unwrap().index, referee);
        let c = choose(&TunePlan::default(), Some(&found), limit(), "marginal").unwrap();
        // The suite is trusted: it screens, and the reason names the better objective.
        assert!(!c.games, "{c:?}");
        assert!(
            c.why.starts_with("referee (5000 nodes")
                && c.why.contains("calibrates best")
                && c.why.contains("runs only the suite objective or games")
                && c.why.contains("the suite objective at 5000 nodes, trusted"),
            "{c:?}"
        );
        // With the suite untrusted, the best trusted objective cannot screen: games do.
        found.1.objectives[found.2].rho = rho(0.3, -0.1, 0.6);
        let c = choose(&TunePlan::default(), Some(&found), limit(), "marginal").unwrap();
        assert!(c.games, "{c:?}");
        assert!(
            c.why.contains("referee (5000 nodes")
                && c.why.contains("is untrusted")
                && c.why.ends_with("screening in games"),
            "{c:?}"
        );
    }

    #[test]
    fn equal_or_slightly_higher_rho_keeps_the_cheaper_objective_and_other_limits_do_not_count() {
        let t = |index, name: &str, r: Option<Interval>| Trusted {
            index,
            name: name.into(),
            rho: r.unwrap(),
        };
        let suite = t(0, "suite (5000 nodes)", rho(0.6, 0.2, 0.9));
        let quality = t(
            1,
            "quality (5000 nodes, ref 80000 nodes)",
            rho(0.7, 0.6, 0.9),
        );
        let referee = t(
            2,
            "referee (5000 nodes, Stockfish at 500000 nodes)",
            rho(0.8, 0.65, 0.95),
        );
        // Quality's lower bound 0.6 is not above the suite's 0.6: the suite stays.
        let all = [suite.clone(), quality.clone()];
        assert_eq!(best_trusted(&all).unwrap().index, 0);
        // The referee's 0.65 is above 0.6: it wins.
        let all = [suite, quality, referee];
        assert_eq!(best_trusted(&all).unwrap().index, 2);
        assert!(best_trusted(&[]).is_none());
        // At 300 nodes only the tune's own objective (found by its key) is looked at: the
        // referee measured at 5,000 nodes is another limit.
        let found = builtin();
        let trusted = trusted_at(&found.1, found.2, SuiteLimit::Nodes(300));
        assert_eq!(trusted.len(), 1, "{trusted:?}");
        assert_eq!(trusted[0].index, found.2);
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
