//! A suite score as `marginal suite` prints it: the header, the per-suite table, the summary
//! of the objective, the faults and the per-position lines. Renderers only: each returns the
//! text (lines joined by `\n`, no final newline), and the command prints it.

use super::{
    LoadedSuites, Objective, PositionResult, PositionScore, RunConfig, SuiteLimit, SuiteScore,
};
use crate::engine::{EngineDef, Setting};
use crate::formats::SKIPPED_LISTED;

/// The opening lines: positions, files, limit, the margins (`spec` with its `sets`) and the
/// reference; the external engine; the bad lines skipped.
pub fn header(
    suites: &LoadedSuites,
    config: &RunConfig,
    (spec, sets): (&str, &[String]),
    reference: &str,
    def: &EngineDef,
) -> String {
    let mut lines = vec![format!(
        "marginal suite: {} positions from {} file(s) at {}, margins '{}', reference '{}'",
        suites.positions.len(),
        suites.files.len(),
        config.limit,
        if sets.is_empty() {
            spec.to_string()
        } else {
            format!("{spec}' with '{}", sets.join(", "))
        },
        reference,
    )];
    if let Some(source) = &def.source {
        lines.push(format!("engine: {} ({source})", def.name));
    }
    let skipped = suites.skipped().count();
    if skipped > 0 {
        let listed = if skipped > SKIPPED_LISTED {
            format!("the first {SKIPPED_LISTED} listed on stderr")
        } else {
            "listed on stderr".to_string()
        };
        lines.push(format!("{skipped} bad line(s) skipped ({listed})"));
    }
    lines.join("\n")
}

/// The warning when the reference run searches with the set's own values (the speed part is
/// then 0 by construction).
pub fn same_as_reference(reference: &str, def: &EngineDef) -> String {
    format!(
        "warning: the reference run ('{reference}') searches with the same values as the set scored: the node ratio is 1 and the speed part 0 by construction; give another --reference{}",
        if def.is_builtin() {
            ""
        } else {
            ", or off values to the engine's rows (NAME=OFF in --engine-options, or the engine file's off column)"
        }
    )
}

/// Where the reference run came from (`cached`: read from the cache; `stored`: written to it).
pub fn reference_line(reference: &str, cached: bool, stored: bool) -> String {
    format!(
        "reference '{reference}'{}",
        if cached {
            " (cached)"
        } else if !stored {
            ": computed (not cached)"
        } else {
            ": computed and cached"
        }
    )
}

/// The table, the mates, the objective and its parts, the prunes (after a blank line).
pub fn summary(score: &SuiteScore) -> String {
    let mut lines = vec![String::new(), table(score)];
    if let Some(m) = &score.mates {
        lines.push(format!(
            "mates: {} positions, found {} (exact {}), wrong {}, missed {}, mate score {:.1}",
            m.positions,
            m.found,
            m.exact,
            m.wrong,
            m.missed,
            m.score()
        ));
    }
    let total = &score.objective;
    lines.push(String::new());
    lines.push(format!(
        "objective {:.3} = accuracy {:.3} + {} x speed {:.3}",
        total.value, total.accuracy, score.objective_params.weight, total.speed
    ));
    lines.push(format!(
        "  accuracy: solution credit in % (early share {}); speed: mean doublings saved against the reference",
        score.objective_params.early
    ));
    // An external engine does not say what it pruned.
    if score.engine.is_none() {
        lines.push(format!("pruned: {}", score.prunes));
    }
    lines.join("\n")
}

/// The per-suite table (and the total when there are several suites).
pub fn table(score: &SuiteScore) -> String {
    let width = (score.suites.iter().map(|s| s.path.len()))
        .max()
        .unwrap_or(5)
        .max(5);
    let mut lines = vec![format!(
        "{:<width$} {:>9} {:>14} {:>11} {:>13} {:>13} {:>6} {:>6} {:>8}",
        "suite",
        "positions",
        "solved",
        "points",
        "nodes",
        "ref nodes",
        "ratio",
        "agree",
        "|dscore|"
    )];
    let row = |name: &str, o: &Objective| {
        format!(
            "{:<width$} {:>9} {:>6} ({:>5.1}%) {:>11} {:>13} {:>13} {:>6.3} {:>5.1}% {:>8.1}",
            name,
            o.positions,
            o.solved,
            100.0 * o.solved as f64 / o.positions.max(1) as f64,
            format!("{}/{}", o.points, o.max_points),
            o.nodes,
            o.reference_nodes,
            o.node_ratio,
            o.agreement,
            o.score_difference
        )
    };
    for s in &score.suites {
        if s.positions == 0 && s.repeats > 0 {
            lines.push(format!(
                "{:<width$} {:>9}  (all {} of its positions repeat earlier lines, scored there once)",
                s.path, 0, s.repeats
            ));
        } else {
            lines.push(row(&s.path, &s.objective));
        }
    }
    if score.suites.len() > 1 {
        lines.push(row("total", &score.objective));
    }
    lines.join("\n")
}

/// The warning when the engine gave no node count the speed figures could use.
pub fn no_node_counts(total: &Objective) -> Option<String> {
    (total.nodes == 0 || total.reference_nodes == 0).then(|| format!(
        "warning: the engine reported no usable node count (no `info ... nodes N` it could read) in {}: nodes, ratio and the speed part of the objective say nothing; check its `info` lines",
        if total.reference_nodes == 0 {
            "the reference run"
        } else {
            "this run"
        }
    ))
}

/// Whether an external engine searched every position exactly as in the reference run (the
/// same move, node count and score; at least 3 positions to a fixed depth, 20 at a node
/// budget) although the margins differ: it most likely ignores the options that carry them.
pub fn same_searches(score: &SuiteScore, margins: &Setting) -> bool {
    let same = |p: &PositionScore| {
        p.result.fault.is_none()
            && p.result.nodes == p.reference_nodes
            && p.result.best_move == p.reference_best_move
            && p.result.score == p.reference_score
    };
    // At a node budget every search spends the budget, so equal node counts say little: only
    // many positions with the same move and score as well tell.
    let enough = match score.limit {
        SuiteLimit::Depth(_) => 3,
        _ => 20,
    };
    score.engine.is_some()
        && score.positions.len() >= enough
        && score.positions.iter().all(same)
        && margins.uci_options() != score.reference.margins.uci_options()
}

/// The positions an external engine faulted on (`suite:line id: reason`), in the run and in
/// the reference run, and how often it went past the node budget; empty when neither.
pub fn faults(score: &SuiteScore) -> String {
    let mut lines = Vec::new();
    let mut listed = |run: &str, faults: Vec<(&PositionResult, &str)>| {
        if faults.is_empty() {
            return;
        }
        lines.push(String::new());
        lines.push(format!(
            "{run}: engine faults on {} of {} positions (each scored unsolved; the engine was restarted):",
            faults.len(),
            score.positions.len()
        ));
        for (r, why) in faults {
            let id = r.id.as_deref().map_or(String::new(), |id| format!(" {id}"));
            lines.push(format!("  {}:{}{id}: {why}", r.suite, r.line));
        }
    };
    let positions = &score.positions;
    listed(
        "run",
        (positions.iter())
            .filter_map(|p| Some((&p.result, p.result.fault.as_deref()?)))
            .collect(),
    );
    listed(
        "reference run",
        (positions.iter())
            .filter_map(|p| Some((&p.result, p.reference_fault.as_deref()?)))
            .collect(),
    );
    let unmatched = (positions.iter())
        .filter(|p| p.result.fault.is_some() || p.reference_fault.is_some())
        .count();
    if unmatched > 0 {
        lines.push(format!(
            "nodes, ratio, agree and |dscore| compare the {} position(s) both runs searched; the {unmatched} with a fault in either run count in the speed part as the reference's speed (ratio 1)",
            positions.len() - unmatched
        ));
    }
    if score.overshot > 0 {
        lines.push(String::new());
        lines.push(format!(
            "stopped past the node budget on {} of {} positions: it does not stop at go nodes exactly; the last PV within the budget was taken (where it gave none, its shortest search's move, go depth 1)",
            score.overshot,
            positions.len()
        ));
    }
    lines.join("\n")
}

/// One line per position (`--verbose`), after a blank line and a heading.
pub fn positions(positions: &[PositionScore]) -> String {
    let mut lines = vec![
        String::new(),
        format!(
            "{:<28} {:<6} {:>6} {:>7} {:>10} {:>10} {:>10} {:<6}",
            "position", "move", "solved", "score", "nodes", "found at", "ref nodes", "ref"
        ),
    ];
    for p in positions {
        let r = &p.result;
        let name = (r.id.clone()).unwrap_or_else(|| format!("{}:{}", r.suite, r.line));
        let solved = if r.max_points > 1 {
            format!("{}/{}", r.points, r.max_points)
        } else if r.solved {
            "yes".to_string()
        } else {
            "no".to_string()
        };
        lines.push(format!(
            "{:<28} {:<6} {:>6} {:>7} {:>10} {:>10} {:>10} {:<6}",
            name,
            r.best_move.as_deref().unwrap_or("-"),
            solved,
            r.score,
            r.nodes,
            r.found_at,
            p.reference_nodes,
            p.reference_best_move.as_deref().unwrap_or("-")
        ));
    }
    lines.join("\n")
}

/// How fast the set's run went: `searched` positions in `elapsed` seconds `on` (threads, or
/// Slurm), with the positions `kept` from an earlier unfinished run.
pub fn speed(searched: usize, elapsed: f64, on: &str, kept: usize) -> String {
    let rate = searched as f64 / elapsed.max(1e-9);
    if kept == 0 {
        format!("{searched} positions in {elapsed:.2} s: {rate:.1} positions/s on {on}")
    } else {
        format!(
            "{searched} positions searched in {elapsed:.2} s: {rate:.1} positions/s on {on} ({kept} more kept from the earlier unfinished run)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_line_says_where_the_run_came_from() {
        assert_eq!(
            reference_line("off", true, true),
            "reference 'off' (cached)"
        );
        assert!(reference_line("off", false, false).ends_with("computed (not cached)"));
        assert!(reference_line("off", false, true).ends_with("computed and cached"));
    }

    #[test]
    fn speed_counts_the_positions_kept_apart() {
        assert_eq!(
            speed(10, 2.0, "1 thread(s)", 0),
            "10 positions in 2.00 s: 5.0 positions/s on 1 thread(s)"
        );
        assert!(
            speed(10, 2.0, "Slurm", 5).contains("(5 more kept from the earlier unfinished run)")
        );
    }
}
