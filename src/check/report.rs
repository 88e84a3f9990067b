//! A check in words and in its conclusion: what the measurement says about the engine (it
//! measured nothing, it faulted, it ignores the margins), the header, sides, changed positions
//! and games as lines ([`side_lines`], ...), and the [`Conclusion`] of a report, on which a
//! front end decides its exit. Nothing here prints.

use super::{
    CheckReport, EngineCheck, FindingKind, GamesCheck, Measurement, NODES_TOLERANCE,
    OBJECTIVE_TOLERANCE, Prepared, SIGNIFICANCE, SideCheck, Verdict,
};
use crate::scoring::games::stats::SprtDecision;
use crate::scoring::suite::SuiteLimit;
use crate::tune::file::{PositionOutcome, Side};
use crate::tune::games::match_summary;

/// Changed positions listed per side (the JSON report has them all).
pub const SHOWN: usize = 12;

/// What a check comes to, for the exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conclusion {
    /// The set holds.
    Holds,
    /// No verdict can be given (a record that contradicts itself, an engine that faulted):
    /// unusable input, with what to do.
    Unusable(String),
    /// The set regressed.
    Regressed(String),
}

impl CheckReport {
    /// The closing lines of the check (notes, the verdict and its findings) and its
    /// conclusion: a record that contradicts its own outcomes is unusable input, not a measured
    /// regression; figures moved by an engine's faults measure the engine, not the margins.
    pub fn conclusion(&self) -> (Vec<String>, Conclusion) {
        let mut lines = Vec::new();
        if !self.margins_as_measured {
            lines.push(format!(
                "note: the file's margins are not the ones its figures were measured with (edited after the run?): `marginal check {} --update` records the figures of the margins it holds now",
                self.file
            ));
        }
        if let Some(g) = &self.games
            && (g.report.sprt.as_ref()).is_some_and(|s| s.decision == SprtDecision::Continue)
        {
            lines.push(format!(
                "note: the games reached no SPRT decision in {} games: no regression shown, none excluded (more --games narrows it)",
                g.report.games
            ));
        }
        let update = format!("marginal check {} --update", self.file);
        if let Some(f) = (self.findings.iter()).find(|f| f.kind == FindingKind::RecordContradicted)
        {
            let fix = if self.margins_as_measured {
                format!(
                    "restore the file (from git or a copy), or record what it gives now with `{update}`"
                )
            } else {
                format!(
                    "its margins were changed after the run: `{update}` measures these margins and records their figures (or restore the file)"
                )
            };
            let why = format!("{}: {}; {fix}", self.file, f.message);
            return (lines, Conclusion::Unusable(why));
        }
        if self.verdict == Verdict::Holds {
            let defaults = match self.sample {
                Some(s) => format!(
                    "; on a sample of {}, not fewer solutions than the defaults on validation",
                    s.asked
                ),
                None => " and of the defaults on validation".to_string(),
            };
            lines.push(format!(
                "verdict: holds (no significant loss of solutions at p < {SIGNIFICANCE}, nodes within +{:.0}%, objective within {OBJECTIVE_TOLERANCE} of the record{defaults})",
                100.0 * NODES_TOLERANCE
            ));
            return (lines, Conclusion::Holds);
        }
        let conclusion = self.regressed(&mut lines);
        (lines, conclusion)
    }

    /// A regressed verdict with its findings; unusable when the engine faulted during the
    /// check, since its figures then measure the engine and not the margins.
    fn regressed(&self, lines: &mut Vec<String>) -> Conclusion {
        let faults: usize = self.sides.iter().map(|s| s.faults).sum();
        lines.push(if faults > 0 {
            "verdict: none (the engine faulted; these findings would call it regressed)".into()
        } else {
            "verdict: regressed".into()
        });
        lines.extend(self.findings.iter().map(|f| format!("  - {}", f.message)));
        if faults > 0 {
            return Conclusion::Unusable(format!(
                "{}: the engine faulted on {faults} search(es) during the check, so these findings may be its faults, not its margins: no verdict on the set (exit 2, not a regression); fix the engine (or its engine file) and check again",
                self.file
            ));
        }
        // A hand edit of the margins is the likely cause, and not the engine's: said last,
        // where the eye lands.
        let edited = if self.margins_as_measured {
            String::new()
        } else {
            format!(
                "; its margins are not the ones its figures were measured with (edited since the run), so the figures moved with the edit: if the edit was deliberate, `marginal check {} --update` records the figures of these margins",
                self.file
            )
        };
        Conclusion::Regressed(format!(
            "{}: the tuned set regressed ({} finding(s)){edited}",
            self.file,
            self.findings.len()
        ))
    }
}

impl Prepared {
    /// Why nothing was measured, when an engine gave no move on any position of any set (it
    /// faulted on every search): no verdict can be given. `fix` says what to fix.
    pub fn unmeasured(&self, now: &Measurement, fix: &str) -> Option<String> {
        let outcomes = || {
            [&now.training, &now.validation]
                .into_iter()
                .flat_map(|side| side.sets.iter())
                .flat_map(|set| set.positions.iter())
        };
        if outcomes().next().is_none() || outcomes().any(|p| p.best_move.is_some()) {
            return None;
        }
        Some(format!(
            "the engine {} gave no move on any position of any set (it faulted on every search): nothing was measured, so no verdict is given; {fix}",
            self.engine_name()
        ))
    }

    /// The engine as messages name it: its source, else its name.
    fn engine_name(&self) -> &str {
        self.def.source.as_deref().unwrap_or(&self.def.name)
    }

    /// How many searches an external engine faulted on during the measurement: each is scored
    /// unsolved at the reference's node count, so the figures it touches move with it.
    pub fn faults_warning(&self, now: &Measurement) -> Option<String> {
        let (training, validation) = (now.training.faults, now.validation.faults);
        (training + validation > 0).then(|| format!(
            "the engine {} faulted on {} search(es) during the check (training {training}, validation {validation}): each is scored unsolved at the reference's nodes, so figures it touches move, and a finding below may be the faults' rather than the margins'",
            self.engine_name(),
            training + validation
        ))
    }

    /// Whether an external engine searched every position of both sides to a fixed depth
    /// alike under the tuned set, the defaults and everything off although their margins
    /// differ: it most likely ignores the options that carry them.
    pub fn searched_alike(&self, now: &Measurement) -> bool {
        // At a node budget every search spends the budget, so equal node counts say nothing.
        let depth = matches!(self.options.config.limit, SuiteLimit::Depth(_));
        if self.def.is_builtin() || !depth {
            return false;
        }
        let sides = [&now.training, &now.validation];
        // A side without positions (a small file's split) has nothing to compare.
        let all_alike = sides.iter().filter(|side| side.positions > 0).all(|side| {
            let tuned = side.set("tuned");
            side.sets.iter().all(|set| {
                tuned.is_some_and(|t| t.positions == set.positions && !set.positions.is_empty())
            })
        });
        let margins: Vec<_> = now.training.sets.iter().map(|s| &s.margins).collect();
        let differ = margins.windows(2).any(|w| w[0] != w[1]);
        let positions: usize = sides.iter().map(|s| s.positions).sum();
        all_alike && differ && positions >= 3
    }

    /// The line of the suites: their files and hashes, the positions on each side and the
    /// split, the limit and the threads.
    pub fn suites_line(&self, threads: usize) -> String {
        let files: Vec<String> = (self.training.files.iter())
            .map(|f| format!("{} ({:016x})", f.path, f.hash))
            .collect();
        format!(
            "suites: {} as recorded; {} training and {} validation positions ({}) at {} per position, {threads} thread(s)",
            files.join(", "),
            self.training.positions.len(),
            self.validation.positions.len(),
            self.file.provenance.suites.split,
            self.options.config.limit
        ) + &self.sample.map_or(String::new(), |s| format!(
            "; --sample {}: {} of {} training and {} of {} validation positions, the lowest FNV-1a hashes of their positions, each objective tallied from the outcomes alone (move, solution, nodes: a solution's whole credit, the speed against the reference set)",
            s.asked, s.training.0, s.training.1, s.validation.0, s.validation.1
        ))
    }
}

/// Which engine measures, and whether its figures must come out identical.
pub fn engine_line(e: &EngineCheck) -> String {
    match (&e.external, e.same) {
        (None, true) => format!(
            "engine: signature {} as recorded (bench {} nodes): every figure must come out identical",
            e.signature, e.bench_nodes
        ),
        (None, false) => format!(
            "engine: signature {} differs from the file's {} (bench {} nodes, recorded {}): the engine changed since the figures were measured, so they may move; judging by the statistics",
            e.signature, e.recorded_signature, e.bench_nodes, e.recorded_bench_nodes
        ),
        (Some(external), true) => format!(
            "engine: {external}, content digest {} as recorded: every figure must come out identical (the digest covers the engine's description, not its program: a rebuilt engine shows as changed figures)",
            e.signature
        ),
        (Some(external), false) if e.described_alike => format!(
            "engine: {external}, content digest {} as recorded; its engine file says its searches do not repeat exactly (deterministic = false), so figures may move by a few nodes: judging by the statistics",
            e.signature
        ),
        (Some(external), false) => format!(
            "engine: {external}, content digest {} differs from the recorded {}: the description changed since the figures were measured, so they may move; judging by the statistics",
            e.signature, e.recorded_signature
        ),
    }
}

/// The line that opens the non-regression match of `games` games.
pub fn games_plan_line(games: u32) -> String {
    let n = super::NON_REGRESSION;
    format!(
        "games: tuned against default, at most {} games, SPRT nElo [{}, {}] (alpha {}, beta {}): H0 accepted is a regression",
        games.max(2).div_ceil(2) * 2,
        n.elo0,
        n.elo1,
        n.alpha,
        n.beta
    )
}

/// The line of a match resumed from its record, if any pair was kept.
pub fn games_resumed_line(games: &super::GamesMatch) -> Option<String> {
    match (games.record(), games.resumed()) {
        (Some(path), (kept @ 1.., total)) => Some(format!(
            "games: resuming from {}: {kept} of {total} pairs played before",
            path.display()
        )),
        _ => None,
    }
}

/// The games' line: the books and the match against the defaults.
pub fn games_line(g: &GamesCheck) -> String {
    format!(
        "games ({}): {}",
        g.openings.join(", "),
        match_summary(
            &g.report,
            "H1 accepted: no regression",
            "H0 accepted: the tuned set is weaker than the defaults (a regression)"
        )
    )
}

/// A side of the check: each set recorded against now, the tuned set per suite, the paired
/// tests, and the positions whose tuned outcome changed.
pub fn side_lines(side: &SideCheck) -> Vec<String> {
    if side.positions == 0 {
        return vec![format!(
            "{}: no positions (the file's split left none), so nothing is judged on this side",
            side.side
        )];
    }
    let mut lines = vec![
        format!(
            "{} ({} positions), recorded -> now:",
            side.side, side.positions
        ),
        format!(
            "  {:<8} {:^14} {:^26} {:^20}",
            "set", "solved", "nodes", "objective"
        ),
    ];
    for s in &side.sets {
        let mark = if s.recorded == s.now {
            ""
        } else {
            "  (changed)"
        };
        let line = format!(
            "  {:<8} {:>5} -> {:<5} {:>11} -> {:<11} {:>8.3} -> {:<8.3}{mark}",
            s.name,
            s.recorded.solved,
            s.now.solved,
            s.recorded.nodes,
            s.now.nodes,
            s.recorded.value,
            s.now.value
        );
        lines.push(line.trim_end().to_string());
    }
    let suites: Vec<String> = (side.suites.iter())
        .map(|s| {
            format!(
                "{} {} -> {} ({} changed)",
                s.path, s.solved_recorded, s.solved_now, s.changed
            )
        })
        .collect();
    lines.push(format!(
        "  tuned set per suite, solved: {}",
        suites.join(", ")
    ));
    let r = &side.tuned_now_vs_recorded;
    lines.push(format!(
        "  tuned now against recorded: {} solved now only, {} recorded only, McNemar p = {:.4}",
        r.only_a, r.only_b, r.p_value
    ));
    let d = &side.tuned_vs_default;
    lines.push(format!(
        "  tuned against default (now): {} solved by tuned only, {} by default only, McNemar p = {:.4}",
        d.only_a, d.only_b, d.p_value
    ));
    lines.extend(changed_lines(side));
    lines
}

/// The positions whose tuned outcome changed, solved flips first, at most [`SHOWN`].
fn changed_lines(side: &SideCheck) -> Vec<String> {
    let tuned: Vec<_> = side.changed.iter().filter(|c| c.set == "tuned").collect();
    if tuned.is_empty() {
        return Vec::new();
    }
    let mut lines =
        vec!["  positions whose tuned outcome changed (suite:line id: move before -> now):".into()];
    let show = |o: &PositionOutcome| {
        format!(
            "{} ({}, {} nodes)",
            o.best_move.as_deref().unwrap_or("none"),
            if o.solved { "solved" } else { "unsolved" },
            o.nodes
        )
    };
    // Solved flips first: they are what the verdict rests on.
    let mut ordered = tuned.clone();
    ordered.sort_by_key(|c| c.before.solved == c.now.solved);
    for c in ordered.iter().take(SHOWN) {
        lines.push(format!(
            "    {}:{} {}: {} -> {}  [{}]",
            c.suite,
            c.line,
            c.id.as_deref().unwrap_or("-"),
            show(&c.before),
            show(&c.now),
            c.fen
        ));
    }
    if tuned.len() > SHOWN {
        lines.push(format!(
            "    ... and {} more (--json OUT lists them all)",
            tuned.len() - SHOWN
        ));
    }
    lines
}

/// A side's totals, recorded against now, for a file that records no per-position outcomes.
pub fn totals_lines(name: &str, then: &Side, now: &Side) -> Vec<String> {
    let mut lines = vec![format!(
        "{name} ({} positions), recorded -> now:",
        now.positions
    )];
    for set in &now.sets {
        let o = &set.objective;
        lines.push(match then.set(&set.name).map(|s| s.objective) {
            Some(b) => format!(
                "  {:<8} solved {} -> {}, nodes {} -> {}, objective {:.3} -> {:.3}",
                set.name, b.solved, o.solved, b.nodes, o.nodes, b.value, o.value
            ),
            None => format!(
                "  {:<8} solved {}, nodes {}, objective {:.3}",
                set.name, o.solved, o.nodes, o.value
            ),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{FORMAT, Finding};

    fn report(findings: Vec<Finding>, as_measured: bool) -> CheckReport {
        let engine = EngineCheck {
            external: None,
            signature: "s".into(),
            recorded_signature: "s".into(),
            bench_nodes: 1,
            recorded_bench_nodes: 1,
            same: true,
            described_alike: true,
        };
        CheckReport {
            format: FORMAT.into(),
            file: "t.json".into(),
            marginal: "0".into(),
            engine,
            margins_as_measured: as_measured,
            margins: crate::tune::file::Values(serde_json::Map::new()),
            sides: Vec::new(),
            sample: None,
            games: None,
            verdict: if findings.is_empty() {
                Verdict::Holds
            } else {
                Verdict::Regressed
            },
            findings,
        }
    }

    #[test]
    fn a_report_concludes_as_its_findings_say() {
        let (lines, c) = report(Vec::new(), true).conclusion();
        assert_eq!(c, Conclusion::Holds);
        assert!(
            lines.last().unwrap().starts_with("verdict: holds"),
            "{lines:?}"
        );
        let slower = Finding {
            kind: FindingKind::MoreNodes,
            message: "training: slower".into(),
        };
        let (lines, c) = report(vec![slower], false).conclusion();
        let Conclusion::Regressed(why) = c else {
            panic!("{c:?}")
        };
        assert!(why.contains("t.json") && why.contains("--update"), "{why}");
        assert!(lines[0].starts_with("note:") && lines.contains(&"  - training: slower".into()));
        let contradicted = Finding {
            kind: FindingKind::RecordContradicted,
            message: "the record says otherwise".into(),
        };
        let (_, c) = report(vec![contradicted], true).conclusion();
        assert!(matches!(c, Conclusion::Unusable(w) if w.contains("restore the file")));
    }
}
