//! What a played match comes to, as values and text: its summary in lines ([`summary`]: the
//! counts, pentanomial, Elo, the SPRT, the faults, the speed), and its [`Verdict`] (passed,
//! interrupted, unmeasured, rejected), on which a front end decides its exit. Nothing here
//! prints.

use std::path::Path;

use super::game::{MoveLimit, Termination};
use super::matches::{MatchResult, MatchStats, result_for_a};
use super::stats::{EloSummary, GameResult, Shown, SprtDecision, SprtParams, sprt_llr};
use crate::progress::{Said, percent};

/// What a played match comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Played to its end, and not rejected.
    Passed,
    /// Stopped by an interrupt: the message says what was kept and how to go on.
    Interrupted(String),
    /// A side (or both) lost every game to a fault: nothing of the margins was measured.
    Unmeasured(String),
    /// The SPRT accepted H0.
    Rejected(String),
}

impl Verdict {
    /// Whether the match passed.
    pub fn is_passed(&self) -> bool {
        *self == Verdict::Passed
    }

    /// The verdict of `result`, a match with the SPRT `sprt`, its games written to `pgn`, and
    /// the engine files of A and B (`None`: marginal's own engine): interrupted, every game of
    /// a side lost to faults, the SPRT's H0 accepted, else passed (in that order).
    pub fn of(
        result: &MatchResult,
        sprt: Option<&SprtParams>,
        pgn: Option<&Path>,
        engines: [Option<&Path>; 2],
    ) -> Verdict {
        let s = &result.stats;
        if result.interrupted {
            let way_on = match pgn {
                Some(path) => format!(
                    "; the same command with --resume goes on from {}",
                    path.display()
                ),
                None => "; nothing is kept for a rerun, which plays them again (--pgn FILE keeps the games, and --resume goes on from them)".to_string(),
            };
            return Verdict::Interrupted(format!(
                "interrupted after {} whole pairs{way_on}",
                s.pentanomial.total_pairs(),
            ));
        }
        if let Some(why) = every_game_faulted(result, engines) {
            return Verdict::Unmeasured(why);
        }
        if let (Some(params), Some(SprtDecision::AcceptH0)) = (sprt, s.decision) {
            return Verdict::Rejected(format!(
                "the SPRT nElo [{}, {}] accepted H0: A is not stronger",
                params.elo0, params.elo1
            ));
        }
        Verdict::Passed
    }
}

/// A side whose engine lost every game to a fault measured nothing of its margins: says so,
/// naming the engine and its first fault.
fn every_game_faulted(result: &MatchResult, engines: [Option<&Path>; 2]) -> Option<String> {
    let games = 2 * result.stats.pentanomial.total_pairs();
    let (a, b) = result.stats.fault_losses;
    for (side, lost, engine, loss) in [
        ("A", a, engines[0], GameResult::Loss),
        ("B", b, engines[1], GameResult::Win),
    ] {
        if games == 0 || lost < games {
            continue;
        }
        let first = (result.pairs.iter())
            .flat_map(|p| [(&p.first, true), (&p.second, false)])
            .find_map(|(game, a_white)| match &game.termination {
                Termination::PlayerFailure(why) if result_for_a(game, a_white) == loss => {
                    Some(why.as_str())
                }
                _ => None,
            })
            .unwrap_or("a fault");
        let engine = engine.map_or_else(
            || "marginal's own engine".to_string(),
            |p| p.display().to_string(),
        );
        return Some(format!(
            "engine {side} ({engine}) lost every one of the {games} games to a fault (first: {first}): no Elo here measures its margins; fix the engine or its engine file"
        ));
    }
    // Both sides fault: every game ends with a fault of whoever moves first, and the score
    // measures the colours, not the margins.
    (games > 0 && a + b >= games).then(|| format!(
        "every one of the {games} games ended with an engine fault (A lost {a}, B lost {b}; the reasons are above): no Elo here measures the margins; fix the engines or their engine files"
    ))
}

/// An SPRT's verdict in words. What the hypotheses say depends on the bounds: "stronger" only
/// when H0 is that A is no stronger (elo0 >= 0); below 0 (a non-regression test) H1 says A
/// loses at most what elo1 allows.
pub fn sprt_verdict(
    params: &SprtParams,
    decision: Option<SprtDecision>,
    interrupted: bool,
) -> String {
    match decision {
        Some(SprtDecision::AcceptH1) if params.elo0 >= 0.0 => {
            format!("H1 accepted: A is stronger (nElo {} or more)", params.elo1)
        }
        Some(SprtDecision::AcceptH1) => format!(
            "H1 accepted: A's nElo is {} or more (no regression beyond that)",
            params.elo1
        ),
        Some(SprtDecision::AcceptH0) if params.elo0 >= 0.0 => {
            format!(
                "H0 accepted: A is not stronger (nElo {} or less)",
                params.elo0
            )
        }
        Some(SprtDecision::AcceptH0) => {
            format!("H0 accepted: A is weaker (nElo {} or less)", params.elo0)
        }
        _ if interrupted => "no decision (interrupted)".into(),
        _ => "no decision yet".into(),
    }
}

/// A's score (not defined before the first game).
pub fn score(stats: &MatchStats) -> Option<f64> {
    Some(stats.score()).filter(|_| stats.games > 0)
}

/// The result in lines: counts, pentanomial, Elo and nElo with their intervals and LOS (`n/a`
/// where not defined yet), the SPRT, time losses, faults and speed; for an interrupted match,
/// the whole pairs played, marked as such; and where the games were written (`pgn`).
pub fn summary(result: &MatchResult, sprt: Option<&SprtParams>, pgn: Option<&Path>) -> Vec<Said> {
    let s = &result.stats;
    let e = EloSummary::from(s.estimate());
    let p = s.pentanomial;
    let mut out = Vec::new();
    if result.interrupted {
        out.push(format!(
            "interrupted: the {} whole pairs played count; the games in flight were abandoned",
            p.total_pairs()
        ));
    }
    let (w, d, l) = (s.wdl.wins, s.wdl.draws, s.wdl.losses);
    out.push(format!(
        "games {}: A +{w} ={d} -{l} (score {})",
        s.games,
        percent(score(s))
    ));
    out.push(format!(
        "pentanomial [LL LD WL+DD WD WW] = [{} {} {} {} {}]",
        p.ll, p.ld, p.wl_dd, p.wd, p.ww
    ));
    out.push(format!(
        "Elo {:+.2} [{:+.2}, {:+.2}] (95%), nElo {:+.2} [{:+.2}, {:+.2}], LOS {}",
        Shown(e.elo),
        Shown(e.lower),
        Shown(e.upper),
        Shown(e.nelo),
        Shown(e.nelo_lower),
        Shown(e.nelo_upper),
        percent(e.los)
    ));
    out.extend(sprt.map(|params| sprt_line(params, result)));
    out.push(format!(
        "time losses: A {}, B {}",
        s.time_losses.0, s.time_losses.1
    ));
    let (a, b) = s.overshot;
    if a + b > 0 {
        out.push(format!(
            "moves past the node budget: A {a}, B {b} (the engine does not stop at go nodes exactly: marginal stopped it and played its last PV within the budget, or where it gave none, its shortest search's move, go depth 1)"
        ));
    }
    let mut said: Vec<Said> = out.into_iter().map(Said::Out).collect();
    said.extend(faults(result));
    said.push(Said::Out(speed(result)));
    if let Some(path) = pgn {
        // Removed during the match (it or its directory): the games went to a file no longer
        // named, and saying they were written there would be untrue.
        said.push(if std::fs::symlink_metadata(path).is_ok() {
            Said::Out(format!("games written to {}", path.display()))
        } else {
            Said::Warning(format!(
                "the PGN file {} was removed during the match (it or its directory): its games are lost; the figures here (and a --json report) keep the result; play again with --pgn to have the games",
                path.display()
            ))
        });
    }
    said
}

/// The SPRT's line: its design, the LLR and its bounds, and its verdict.
fn sprt_line(params: &SprtParams, result: &MatchResult) -> String {
    let s = &result.stats;
    let (lo, hi) = params.bounds();
    let verdict = sprt_verdict(params, s.decision, result.interrupted);
    format!(
        "SPRT nElo [{}, {}], alpha {}, beta {}: LLR {:.3}, bounds ({lo:.3}, {hi:.3}): {verdict}",
        params.elo0,
        params.elo1,
        params.alpha,
        params.beta,
        // No pair yet: the LLR of no data, 0 (as the report writes it).
        Shown(Some(
            s.llr.unwrap_or_else(|| sprt_llr(&s.pentanomial, params))
        ))
    )
}

/// The games played here, the time they took and their rate (and those read from the PGN).
fn speed(result: &MatchResult) -> String {
    let played = result.stats.games - 2 * result.earlier as u64;
    let seconds = result.elapsed.as_secs_f64();
    let earlier = match (result.earlier, result.earlier_elapsed.as_secs_f64()) {
        (0, _) => String::new(),
        (pairs, 0.0) => format!(" (and {} from the PGN)", 2 * pairs),
        (pairs, before) => format!(
            " (and {} from the PGN, played in {before:.1} s before)",
            2 * pairs
        ),
    };
    format!(
        "{played} games in {seconds:.1} s: {:.1} games/min{earlier}",
        played as f64 / (seconds / 60.0).max(1e-9)
    )
}

/// How many games each side lost to engine faults, and why (each reason once, with how many
/// games it ended); a warning when faults decided more than a tenth of the games.
fn faults(result: &MatchResult) -> Vec<Said> {
    let (a, b) = result.stats.fault_losses;
    let mut said = vec![Said::Out(format!(
        "games lost to engine faults: A {a}, B {b}"
    ))];
    let mut reasons: Vec<(&str, &str, usize)> = Vec::new();
    for pair in &result.pairs {
        for (game, a_white) in [(&pair.first, true), (&pair.second, false)] {
            let Termination::PlayerFailure(why) = &game.termination else {
                continue;
            };
            let side = match result_for_a(game, a_white) {
                GameResult::Loss => "A",
                GameResult::Win => "B",
                GameResult::Draw => continue,
            };
            match reasons.iter_mut().find(|(s, w, _)| *s == side && *w == why) {
                Some(seen) => seen.2 += 1,
                None => reasons.push((side, why, 1)),
            }
        }
    }
    reasons.sort();
    for (side, why, games) in reasons {
        let s = if games == 1 { "" } else { "s" };
        said.push(Said::Out(format!("  {side}: {why} ({games} game{s})")));
    }
    // More than a tenth of the games decided by faults: the Elo measures the faults.
    let games = 2 * result.stats.pentanomial.total_pairs();
    if games > 0 && 10 * (a + b) > games {
        said.push(Said::Warning(format!(
            "{} of the {games} games ({:.0}%) were lost to engine faults: the Elo measures the faults as much as the margins; fix the engine (the reasons are above) before reading it",
            a + b,
            100.0 * (a + b) as f64 / games as f64
        )));
    }
    said
}

/// A side that lost more than a tenth of the games on time cannot keep the clock on this
/// machine: a warning naming it (its engine file, or marginal's own engine), the time control
/// and the fix, since its Elo then measures its clock handling as much as its margins. None
/// when no side did (or the games had no clock).
pub fn time_trouble(
    result: &MatchResult,
    limit: &MoveLimit,
    engines: [Option<&Path>; 2],
) -> Vec<Said> {
    let games = 2 * result.stats.pentanomial.total_pairs();
    let (a, b) = result.stats.time_losses;
    if !matches!(limit, MoveLimit::Clock { .. }) || games == 0 {
        return Vec::new();
    }
    [("A", a, engines[0]), ("B", b, engines[1])]
        .into_iter()
        .filter(|&(_, lost, _)| 10 * lost > games)
        .map(|(side, lost, engine)| {
            let engine = engine.map_or_else(
                || "marginal's own engine".to_string(),
                |p| p.display().to_string(),
            );
            Said::Warning(format!(
                "engine {side} ({engine}) lost {lost} of the {games} games on time at --tc {limit}: it cannot keep this time control on this machine, and the Elo measures its clock as much as its margins; give a longer --tc, or fewer games at once (--concurrency)"
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty(interrupted: bool) -> MatchResult {
        MatchResult {
            pairs: Vec::new(),
            stats: MatchStats::default(),
            interrupted,
            earlier: 0,
            earlier_elapsed: std::time::Duration::ZERO,
            elapsed: std::time::Duration::from_secs(1),
        }
    }

    /// A result of 10 games (5 pairs), A losing `flags` of them on time, with moves past the
    /// node budget as given.
    fn flagged(flags: u64, overshot: (u64, u64)) -> MatchResult {
        let mut result = empty(false);
        result.stats.pentanomial.wl_dd = 5;
        result.stats.games = 10;
        result.stats.time_losses = (flags, 0);
        result.stats.overshot = overshot;
        result
    }

    #[test]
    fn a_side_that_cannot_keep_the_clock_is_warned_of_naming_engine_tc_and_fix() {
        let clock = MoveLimit::Clock {
            base: std::time::Duration::from_millis(50),
            increment: std::time::Duration::ZERO,
        };
        let toga = Path::new("engines/toga2.toml");
        let said = time_trouble(&flagged(3, (0, 0)), &clock, [Some(toga), None]);
        let [Said::Warning(text)] = said.as_slice() else {
            panic!("one warning expected: {said:?}");
        };
        for needed in [
            "engine A",
            "engines/toga2.toml",
            "3 of the 10 games",
            "0.05+0",
            "longer --tc",
        ] {
            assert!(text.contains(needed), "{needed} missing: {text}");
        }
        // One flag in ten games is the clock's noise; a node budget has no clock.
        assert!(time_trouble(&flagged(1, (0, 0)), &clock, [Some(toga), None]).is_empty());
        assert!(time_trouble(&flagged(3, (0, 0)), &MoveLimit::Nodes(5000), [None; 2]).is_empty());
    }

    #[test]
    fn moves_past_the_node_budget_are_said_per_side_only_when_there_are_any() {
        let text = |r: &MatchResult| {
            summary(r, None, None)
                .iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let said = text(&flagged(0, (7, 0)));
        assert!(
            said.contains("moves past the node budget: A 7, B 0"),
            "{said}"
        );
        assert!(said.contains("last PV within the budget"), "{said}");
        assert!(!text(&flagged(0, (0, 0))).contains("node budget"));
    }

    #[test]
    fn an_interrupted_match_says_how_to_go_on() {
        let pgn = Some(Path::new("g.pgn"));
        let Verdict::Interrupted(why) = Verdict::of(&empty(true), None, pgn, [None; 2]) else {
            panic!("not interrupted");
        };
        assert!(why.contains("--resume") && why.contains("g.pgn"), "{why}");
        assert!(Verdict::of(&empty(false), None, pgn, [None; 2]).is_passed());
    }

    #[test]
    fn the_summary_of_no_games_shows_nothing_undefined_as_a_number() {
        // A file that is there (the tests run in the crate's directory).
        let lines = summary(&empty(false), None, Some(Path::new("Cargo.toml")));
        let Said::Out(first) = &lines[0] else {
            panic!("{lines:?}")
        };
        assert!(first.contains("n/a"), "{first}");
        assert_eq!(
            lines.last(),
            Some(&Said::Out("games written to Cargo.toml".into()))
        );
    }

    #[test]
    fn a_pgn_gone_at_the_end_is_said_lost_not_written() {
        let lines = summary(&empty(false), None, Some(Path::new("no-such-dir/g.pgn")));
        let Some(Said::Warning(said)) = lines.last() else {
            panic!("{lines:?}")
        };
        assert!(
            said.contains("no-such-dir/g.pgn") && said.contains("lost"),
            "{said}"
        );
    }

    #[test]
    fn the_hypotheses_are_worded_by_the_bounds() {
        let gain = SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let nonreg = SprtParams {
            elo0: -1.75,
            elo1: 0.25,
            ..gain
        };
        let h0 = Some(SprtDecision::AcceptH0);
        assert!(sprt_verdict(&gain, h0, false).contains("not stronger"));
        assert!(sprt_verdict(&nonreg, h0, false).contains("weaker"));
        assert!(sprt_verdict(&gain, None, true).contains("interrupted"));
    }
}
