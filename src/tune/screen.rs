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
//! rho. An objective other than the suite is prepared again from its key ([`prepare`]: its
//! positions, its deep reference or referee, from calibrate's cache) and scores steps 1 to 4
//! of the race instead of the suite objective; when it cannot be prepared here (its positions
//! missing, the referee not installed) the reason says so, and the suite objective screens if
//! it is trusted, else games. The built-in engine's shipped calibration trusts the suite (rho
//! 0.66 [0.21, 0.93]) and the referee (0.66 [0.25, 0.88]); 0.25 is not above 0.66, so the
//! suite screens, with no Stockfish needed.
//!
//! With `--tc` the games play at a clock, and no suite objective (a node budget or depth a
//! position) was calibrated against them: the screen is in games unless `--screen-by suite`
//! says otherwise with the suite's own limit (`--nodes` or `--depth`).

use super::calibrated::FoundCalibration;
use super::plan::{ScreenBy, SolverKind, TunePlan};
use super::race::{ObjectiveScorer, RaceSettings, ScreenObjective};
use super::remark::RunError;
use std::path::Path;
use std::sync::Arc;

use crate::calibrate::Report;
use crate::calibrate::plan::{
    CalibratePlan, DEFAULT_MATE_SUITE, DEFAULT_QUALITY_POSITIONS, DEFAULT_REFEREE,
    DEFAULT_REFEREE_NODES,
};
use crate::calibrate::rank::Interval;
use crate::calibrate::trust::Calibration;
use crate::engine::EngineDef;
use crate::formats::engine_file::EngineFile;
use crate::progress::Shared;
use crate::scoring::suite::ScorerOptions;
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
    /// The calibrated objective that screens instead of the suite objective, when one does.
    pub objective: Option<ScreenObjective>,
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
        // Games that could not rank the sets among themselves judge no objective, whatever its
        // rho: that is the reason then.
        let why = match report.ceiling.judging() {
            Some(c) if !report.games_could_judge() => format!(
                "{rho}, but its games could not judge: their ceiling on rho {c:.2} is below the target {:.2}",
                report.ceiling_target.unwrap_or_default()
            ),
            _ => format!("{rho}, its lower bound at or below 0"),
        };
        return games(format!(
            "the suite objective at {limit} is untrusted for {engine} ({file}: {why}), and no other objective it measured at {limit} is trusted"
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
    // The cheapest trusted objective, or one that displaced it: its lower bound is above the
    // cheapest one's rho ([`best_trusted`]).
    let cheapest = &trusted[0];
    let beats = if best.index == cheapest.index {
        "the cheapest objective trusted".to_string()
    } else {
        format!(
            "its lower bound above the rho of {}, {}",
            cheapest.name,
            said_rho(Some(cheapest.rho))
        )
    };
    let best_said = format!(
        "{} calibrates best for {engine} ({file}: {}, {beats})",
        best.name,
        said_rho(Some(best.rho)),
    );
    let obj = &report.objectives[best.index];
    let cannot = match runnable(&obj.name, &obj.key) {
        Ok(()) => {
            return ScreenChoice {
                games: false,
                why: format!(
                    "{best_said}: it scores the screen, the kept sets, the local rounds and the line instead of the suite objective"
                ),
                objective: Some(ScreenObjective {
                    name: obj.name.clone(),
                    key: obj.key.clone(),
                }),
            };
        }
        Err(why) => format!("but the race's screen cannot run it here ({why})"),
    };
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

/// The calibrate plan that prepares the objective `name` with `key` again: its kind and limit
/// from the name, its positions, deep limit or referee from the key (the referee's file is
/// [`DEFAULT_REFEREE`], the mate suite [`DEFAULT_MATE_SUITE`]; the key prepared is checked
/// against `key` after). `hash_mb`: the tune's table size.
fn calibrate_plan(name: &str, key: &str, hash_mb: usize) -> Result<CalibratePlan, String> {
    let kind = name.split([' ', '(']).next().unwrap_or("");
    let tokens: Vec<&str> = key.split(' ').collect();
    let limit_at = |i: usize| -> Option<SuiteLimit> {
        match (tokens.get(i)?, tokens.get(i + 1)?) {
            (&"depth", d) => d.parse().ok().map(SuiteLimit::Depth),
            (n, &"nodes") => n.parse().ok().map(SuiteLimit::Nodes),
            _ => None,
        }
    };
    let unreadable = || format!("its key {key:?} is not one marginal reads");
    let n = tokens.len();
    // quality PATH HASH LIMIT DEEP, referee SIGNATURE PATH HASH LIMIT DEEP, mates HASH LIMIT ...
    let (limit, deep, positions) = match kind {
        "quality" | "referee" if n >= 7 => {
            let first = if kind == "referee" { 2 } else { 1 };
            let path = tokens[first..n - 5].join(" ");
            (limit_at(n - 4), limit_at(n - 2), path)
        }
        "quality" | "referee" => return Err(unreadable()),
        "mates" => (limit_at(2), None, DEFAULT_QUALITY_POSITIONS.to_string()),
        "suite" => {
            return Err(
                "it is a suite objective on other suites or options than the tune's".into(),
            );
        }
        _ => {
            return Err(format!(
                "marginal cannot prepare a {kind} objective for the race"
            ));
        }
    };
    let limit = limit.ok_or_else(unreadable)?;
    let spec = match limit {
        SuiteLimit::Nodes(n) => format!("{kind}:nodes={n}"),
        SuiteLimit::Depth(d) => format!("{kind}:depth={d}"),
    };
    let (quality_deep, referee_nodes) = match (limit, deep) {
        (SuiteLimit::Nodes(n), Some(SuiteLimit::Nodes(m))) if kind == "quality" => {
            (m / n.max(1), DEFAULT_REFEREE_NODES)
        }
        (SuiteLimit::Depth(d), Some(SuiteLimit::Depth(e))) if kind == "quality" => {
            (u64::from(e.saturating_sub(d)) * 4, DEFAULT_REFEREE_NODES)
        }
        (_, Some(SuiteLimit::Nodes(m))) if kind == "referee" => (16, m),
        (_, None) if kind == "mates" => (16, DEFAULT_REFEREE_NODES),
        _ => return Err(unreadable()),
    };
    Ok(CalibratePlan {
        engine: None,
        limit: crate::scoring::games::game::MoveLimit::Nodes(5_000),
        objectives: vec![spec],
        suites: Vec::new(),
        count_repeats: false,
        mate_suite: DEFAULT_MATE_SUITE.into(),
        quality_positions: positions.into(),
        quality_deep,
        referee: DEFAULT_REFEREE.into(),
        referee_nodes,
        books: Vec::new(),
        sets: 0,
        region: Vec::new(),
        margins: Vec::new(),
        games: 0,
        ceiling: crate::calibrate::plan::DEFAULT_CEILING,
        max_games: None,
        seed: 1,
        hash_mb,
        concurrency: 1,
        resamples: 0,
        out: std::path::PathBuf::new(),
        force: false,
        state: None,
    })
}

/// Whether the race's screen can run the objective `name` with `key` here: an objective
/// marginal can prepare again from its key, its positions at hand, and for the referee its
/// engine installed (a default tune never needs Stockfish: see [`best_trusted`]).
fn runnable(name: &str, key: &str) -> Result<(), String> {
    let plan = calibrate_plan(name, key, 4)?;
    let kind = name.split([' ', '(']).next().unwrap_or("");
    let needed = if kind == "mates" {
        &plan.mate_suite
    } else {
        &plan.quality_positions
    };
    if !needed.is_file() {
        return Err(format!("its positions {} are not here", needed.display()));
    }
    if kind == "referee" {
        let file = EngineFile::read(&plan.referee)
            .map_err(|e| format!("the referee's engine file: {e}"))?;
        if !crate::calibrate::prepare::installed(&file.command) {
            return Err(format!(
                "its referee {} ({}) is not installed",
                file.command.display(),
                plan.referee.display()
            ));
        }
        let referee = crate::engine::EngineDef::from_file(&file);
        if !key.split(' ').nth(1).is_some_and(|s| referee.is_signed(s)) {
            return Err(format!(
                "{} is not the referee it was calibrated with (signature {})",
                plan.referee.display(),
                referee.signature()
            ));
        }
    }
    Ok(())
}

/// Below this reliability of the finalists' games, a race can hardly tell a better set from a
/// lucky one ([`power`]).
pub const RELIABLE_FINAL: f64 = 0.5;

/// The most a race steps its rounds up by itself ([`step_rounds`]): beyond four times the
/// default race's games, a games SPSA spends them better, and the power line says so.
pub const MAX_STEP: u32 = 4;

/// The least whole factor of every round's pairs that gives a finalist the games the
/// calibration `report` says rank its sets with [`RELIABLE_FINAL`]; None when a finalist's
/// games already do, the race plays none, or the calibration's games could not judge.
pub fn finalist_factor(race: &RaceSettings, report: &Report) -> Option<u32> {
    let last = 2.0 * race.rounds.iter().map(|&p| f64::from(p)).sum::<f64>();
    if last == 0.0 || report.reliability_at(last)? >= RELIABLE_FINAL {
        return None;
    }
    let needed = report.games_for_reliability(RELIABLE_FINAL)?;
    Some((needed / last).ceil() as u32).filter(|&f| f > 1)
}

/// Steps the race's rounds up to the finalists' games its calibration asks for
/// ([`finalist_factor`], at most [`MAX_STEP`] times), for a tune that did not choose its rounds
/// (--race-pairs): the line that says so, None when the rounds stay.
pub fn step_rounds(race: &mut RaceSettings, report: &Report) -> Option<String> {
    let factor = finalist_factor(race, report)?;
    let step = factor.min(MAX_STEP);
    let before = 2 * race.rounds.iter().sum::<u32>();
    race.rounds.iter_mut().for_each(|p| *p *= step);
    let list = |r: &[u32]| r.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let capped = if step < factor {
        format!(" (it asked for {factor} times; {MAX_STEP} is the most the race steps by itself)")
    } else {
        String::new()
    };
    Some(format!(
        "race pairs: a finalist's {before} games are too few to rank this engine's sets; every round's pairs times {step}{capped}: --race-pairs {} ({} games for the winner; give --race-pairs to choose them)",
        list(&race.rounds),
        2 * race.rounds.iter().sum::<u32>()
    ))
}

/// What the race's games can tell apart, from a calibration (`report`, read from `file`) of
/// this engine at this limit: how reliably its own games ranked its sets (their judging ceiling
/// squared, at their games a set), stepped by Spearman-Brown to the games screen's first round
/// (when it screens in games) and to a finalist's games over every round
/// ([`Report::reliability_at`]), with a warning when the finalists' fall short of
/// [`RELIABLE_FINAL`]. None when the race plays no games or the calibration's games have no
/// ceiling.
pub fn power(race: &RaceSettings, report: &Report, file: &str) -> Option<String> {
    let last = 2.0 * race.rounds.iter().map(|&p| f64::from(p)).sum::<f64>();
    if last == 0.0 {
        return None;
    }
    let (mean, lo, hi) = report.played()?;
    let own = report.reliability_at(mean)?;
    let first = (race.screen_pairs.first())
        .filter(|_| race.screen_in_games)
        .map(|&p| 2.0 * f64::from(p));
    let screen = match first {
        Some(g) => format!(
            "the games screen's first round ({g:.0} games a set) with {:.2}, ",
            report.reliability_at(g)?
        ),
        None => String::new(),
    };
    let final_reliability = report.reliability_at(last)?;
    let mut line = format!(
        "race power: {file}'s games ranked the margin sets of {} (pooled Elo {lo:+.0} to {hi:+.0} against the defaults) with reliability {own:.2} at {mean:.0} games a set; stepped to this race's games (Spearman-Brown): {screen}a finalist's {last:.0} games {final_reliability:.2}",
        report.engine
    );
    if final_reliability < RELIABLE_FINAL {
        line += &format!(
            "; below {RELIABLE_FINAL}, this race can hardly tell a better set from a lucky one: more pairs a round (--race-pairs) or a games SPSA (--objective games --solver spsa) spend the games where they count"
        );
        if let (Some(needed), Some(factor)) = (
            report.games_for_reliability(RELIABLE_FINAL),
            finalist_factor(race, report),
        ) {
            // Every round's pairs times the least whole factor that gives a finalist as many.
            let pairs: Vec<String> = race
                .rounds
                .iter()
                .map(|p| (p * factor).to_string())
                .collect();
            line += &format!(
                " ({RELIABLE_FINAL} takes about {:.0} games a finalist: --race-pairs {}, each round's pairs times {factor})",
                (needed / 10.0).ceil() * 10.0,
                pairs.join(",")
            );
        }
    }
    if race.surface {
        line += "; these are a set's own games: the response surface the race ranks by pools every set's";
    }
    Some(line)
}

/// The race's screening objective `screen` prepared for `def` (its reference searched, or read
/// from the cache calibrate keeps), its values logged in the checkpoint directory `dir`.
///
/// # Errors
/// It cannot be prepared, or prepared here it has another key than the calibration's (other
/// positions, another referee): the message says which.
pub fn prepare(
    screen: &ScreenObjective,
    def: &Arc<EngineDef>,
    options: &ScorerOptions,
    observer: &Shared,
    dir: &Path,
) -> Result<ObjectiveScorer, String> {
    let plan = calibrate_plan(&screen.name, &screen.key, options.config.hash_mb)?;
    observer.say(crate::progress::Said::Out(format!(
        "race screen: preparing {} (its reference searches, or read from the cache)",
        screen.name
    )));
    let prepared =
        crate::calibrate::prepare::objectives(&plan, &plan, def, &options.executor, observer)
            .map_err(|e| format!("the screen's objective {}: {e}", screen.name))?;
    let objective = prepared.into_iter().next().ok_or("no objective prepared")?;
    if objective.key() != screen.key {
        return Err(format!(
            "the screen's objective {} prepared here has key {:?}, its calibration's is {:?}: run the tune where the calibration ran, or screen with --screen-by suite or games",
            screen.name,
            objective.key(),
            screen.key
        ));
    }
    let mut hash = crate::formats::Fnv::new();
    hash.write(screen.key.as_bytes());
    let log = dir.join(format!("screen-objective-{:016x}.jsonl", hash.finish()));
    Ok(ObjectiveScorer::new(objective, Some(log)))
}

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
/// name), cheapest first (`COST_ORDER`; within a kind `found` first, then report order).
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

/// The trusted objective that screens best: the cheapest of `trusted`
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
    ScreenChoice {
        games: false,
        why,
        objective: None,
    }
}

fn games(why: String) -> ScreenChoice {
    ScreenChoice {
        games: true,
        why: format!("{why}: screening in games"),
        objective: None,
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
            screen_objective: choice.objective.clone(),
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
    fn a_clearly_better_objective_screens_and_one_that_cannot_run_here_is_said_so() {
        let mut found = builtin();
        let quality = index(&found, "quality");
        found.1.objectives[quality].rho = rho(0.9, 0.7, 0.97);
        let trusted = trusted_at(&found.1, found.2, limit());
        assert_eq!(best_trusted(&trusted).unwrap().index, quality);
        let c = choose(&TunePlan::default(), Some(&found), limit(), "marginal").unwrap();
        // Its positions are here (data/positions/games_600.epd): it screens.
        assert!(!c.games, "{c:?}");
        let o = c.objective.as_ref().expect("the quality objective screens");
        assert_eq!(o.key, found.1.objectives[quality].key);
        assert!(
            c.why.starts_with("quality (5000 nodes")
                && c.why.contains("calibrates best")
                && c.why.contains("instead of the suite objective"),
            "{c:?}"
        );
        let settings = apply(RaceSettings::new(4, 1), &c);
        assert_eq!(settings.screen_objective.as_ref(), Some(o));
        // Its positions elsewhere: the suite, trusted, screens, and the reason says why.
        let key = found.1.objectives[quality].key.clone();
        found.1.objectives[quality].key = key.replace("games_600.epd", "nowhere.epd");
        let c = choose(&TunePlan::default(), Some(&found), limit(), "marginal").unwrap();
        assert!(!c.games && c.objective.is_none(), "{c:?}");
        assert!(
            c.why.contains("cannot run it here")
                && c.why.contains("nowhere.epd")
                && c.why.contains("the suite objective at 5000 nodes, trusted"),
            "{c:?}"
        );
        // With the suite untrusted too, games screen.
        found.1.objectives[found.2].rho = rho(0.3, -0.1, 0.6);
        let c = choose(&TunePlan::default(), Some(&found), limit(), "marginal").unwrap();
        assert!(c.games, "{c:?}");
        assert!(
            c.why.contains("quality (5000 nodes")
                && c.why.contains("is untrusted")
                && c.why.ends_with("screening in games"),
            "{c:?}"
        );
    }

    #[test]
    fn the_referee_a_shipped_calibration_recorded_under_its_former_signature_is_still_it() {
        let found = builtin();
        let o = &found.1.objectives[index(&found, "referee")];
        let file = EngineFile::read(Path::new(DEFAULT_REFEREE)).unwrap();
        if !crate::calibrate::prepare::installed(&file.command) {
            // Without Stockfish the screen cannot run the referee, and says that instead.
            let e = runnable(&o.name, &o.key).unwrap_err();
            assert!(e.contains("is not installed"), "{e}");
            return;
        }
        // The shipped report names Stockfish by the digest of its engine file's text.
        let recorded = o.key.split(' ').nth(1).unwrap().to_string();
        assert_ne!(
            recorded,
            crate::engine::EngineDef::from_file(&file).signature()
        );
        runnable(&o.name, &o.key).unwrap();
        let other = o.key.replace(&recorded, "0000000000000000");
        let e = runnable(&o.name, &other).unwrap_err();
        assert!(
            e.contains("is not the referee it was calibrated with"),
            "{e}"
        );
    }

    #[test]
    fn the_race_says_how_reliably_its_games_rank_the_engines_sets() {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tuned/calibration-toga2-nodes10000.json"
        );
        let report = crate::calibrate::report::read(Path::new(file)).unwrap();
        let (mean, _, _) = report.played().unwrap();
        let r = |games: f64| report.reliability_at(games).unwrap();
        let race = RaceSettings::new(3, 1).with_games_screen(2, "games".into());
        let line = power(&race, &report, "T.json").unwrap();
        let finalist = 2 * race.rounds.iter().sum::<u32>();
        for said in [
            "race power: T.json's games ranked the margin sets of Toga II 3.0 (".to_string(),
            format!("with reliability {:.2} at {mean:.0} games a set", r(mean)),
            format!(
                "first round (4 games a set) with {:.2}, a finalist's {finalist} games {:.2}",
                r(4.0),
                r(f64::from(finalist))
            ),
        ] {
            assert!(line.contains(&said), "{said}: {line}");
        }
        // Toga's finalists play fewer games a set than its calibration did, so rank them less
        // reliably than it did, and too little to be trusted: said, with what to do.
        assert!(r(f64::from(finalist)) < r(mean) && r(f64::from(finalist)) < RELIABLE_FINAL);
        // What it would take: the games that step the calibration's reliability to the
        // threshold, and the rounds scaled by the least whole factor that plays them.
        let needed = report.games_for_reliability(RELIABLE_FINAL).unwrap();
        assert!((r(needed) - RELIABLE_FINAL).abs() < 1e-9);
        let factor = (needed / f64::from(finalist)).ceil() as u32;
        assert!(factor > 1 && r(f64::from(finalist * factor)) >= RELIABLE_FINAL);
        let scaled: Vec<String> = race
            .rounds
            .iter()
            .map(|p| (p * factor).to_string())
            .collect();
        assert!(
            line.contains(&format!(
                "--race-pairs {}, each round's pairs times {factor})",
                scaled.join(",")
            )),
            "{line}"
        );
        assert!(
            line.contains("can hardly tell a better set from a lucky one")
                && line.contains("--race-pairs")
                && line.contains("the response surface the race ranks by pools every set's"),
            "{line}"
        );
        // A suite screen with long rounds: only the finalists' games, reliable enough.
        let suite = RaceSettings {
            rounds: vec![1000],
            ..RaceSettings::new(3, 1)
        };
        let line = power(&suite, &report, "T.json").unwrap();
        assert!(
            !line.contains("first round")
                && !line.contains("lucky")
                && !line.contains("surface")
                && line.contains("a finalist's 2000 games"),
            "{line}"
        );
        // No games in the race: nothing to say.
        let none = RaceSettings {
            rounds: vec![0],
            ..suite
        };
        assert_eq!(power(&none, &report, "T.json"), None);
    }

    #[test]
    fn a_race_steps_its_rounds_up_to_the_games_its_calibration_asks_for() {
        let read = |name: &str| {
            let file = format!("{}/tuned/{name}", env!("CARGO_MANIFEST_DIR"));
            crate::calibrate::report::read(Path::new(&file)).unwrap()
        };
        // Toga II: a finalist's 480 games rank its sets below RELIABLE_FINAL; twice them reach it.
        let toga = read("calibration-toga2-nodes10000.json");
        let mut race = RaceSettings::new(3, 1);
        let line = step_rounds(&mut race, &toga).unwrap();
        assert_eq!(race.rounds, vec![32, 64, 128, 256], "{line}");
        assert!(
            line.contains("a finalist's 480 games are too few")
                && line.contains("times 2: --race-pairs 32,64,128,256 (960 games"),
            "{line}"
        );
        let finalist = f64::from(2 * race.rounds.iter().sum::<u32>());
        assert!(toga.reliability_at(finalist).unwrap() >= RELIABLE_FINAL);
        assert!(!power(&race, &toga, "T.json").unwrap().contains("lucky"));
        assert_eq!(
            step_rounds(&mut race, &toga),
            None,
            "stepped once is enough"
        );
        // The built-in engine's and Glaurung's finalists rank their sets well enough already,
        // and GNU Chess's calibration could not judge: their rounds stay.
        for name in [
            "calibration-builtin-nodes5000.json",
            "calibration-glaurung-nodes10000.json",
            "calibration-gnuchess-pruning-nodes10000.json",
        ] {
            let mut race = RaceSettings::new(3, 1);
            assert_eq!(step_rounds(&mut race, &read(name)), None, "{name}");
            assert_eq!(race.rounds, vec![16, 32, 64, 128], "{name}");
        }
        // A race far too short is stepped by MAX_STEP at most, and says what it asked for.
        let mut short = RaceSettings {
            rounds: vec![1],
            ..RaceSettings::new(3, 1)
        };
        let line = step_rounds(&mut short, &toga).unwrap();
        assert_eq!(short.rounds, vec![MAX_STEP], "{line}");
        assert!(
            line.contains("is the most the race steps by itself"),
            "{line}"
        );
    }

    #[test]
    fn a_calibrated_objective_is_prepared_again_from_its_key() {
        let found = builtin();
        let key = |kind| found.1.objectives[index(&found, kind)].key.clone();
        let name = |kind| found.1.objectives[index(&found, kind)].name.clone();
        let quality = calibrate_plan(&name("quality"), &key("quality"), 4).unwrap();
        assert_eq!(quality.objectives, vec!["quality:nodes=5000".to_string()]);
        assert_eq!(quality.quality_deep, 16);
        assert_eq!(
            quality.quality_positions,
            Path::new("data/positions/games_600.epd")
        );
        let referee = calibrate_plan(&name("referee"), &key("referee"), 4).unwrap();
        assert_eq!(referee.objectives, vec!["referee:nodes=5000".to_string()]);
        assert_eq!(referee.referee_nodes, 500_000);
        assert_eq!(referee.referee, Path::new(DEFAULT_REFEREE));
        let mates = calibrate_plan(&name("mates"), &key("mates"), 4).unwrap();
        assert_eq!(mates.objectives, vec!["mates:nodes=5000".to_string()]);
        let e = calibrate_plan("quality (5000 nodes)", "quality x", 4).unwrap_err();
        assert!(e.contains("quality x"), "{e}");
        let e = calibrate_plan(&name("suite"), &key("suite"), 4).unwrap_err();
        assert!(e.contains("suite objective on other suites"), "{e}");
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
        // Its games fell short of their ceiling target: the reason says so, not the rho alone.
        if !found.1.games_could_judge() {
            assert!(c.why.contains("its games could not judge"), "{c:?}");
        }
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
                objective: None,
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
                objective: None,
            },
        );
        assert!(!suite.screen_in_games && suite.screen_pairs.is_empty());
    }
}
