//! The table of a calibration report as `marginal calibrate` shows it: each set's values,
//! objectives and Elo per book and pooled; each objective's agreement and verdict; the
//! ceiling and the cost.

use std::path::Path;

use super::Config;
use super::report::{Games, Report, SetReport};
use crate::scoring::games::stats::Shown;

/// What a calibration of `config` will do, before it starts: the engine, the sets, the
/// objectives and the games.
pub fn plan_line(config: &Config) -> String {
    let def = config.sets[0].setting.def();
    format!(
        "marginal calibrate: {} ({}), {} sets ({} design), {} objectives, {} pairs per set on each of {} books at {} in the first round, then rounds until the games' ceiling on rho reaches {:.2} or {} games are played",
        def.name,
        def.source.as_deref().unwrap_or("built-in"),
        config.sets.len(),
        config.sets.iter().filter(|s| s.origin == "design").count(),
        config.objectives.len(),
        config.pairs_per_book,
        config.books.len(),
        config.game.limit.per_move(),
        config.ceiling_target,
        config.max_games
    )
}

/// The table, a line each: each set's values, objectives and Elo per book and pooled; then each
/// objective's agreement and verdict, and the ceiling.
pub fn lines(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    out.push(header(r));
    out.extend(r.sets.iter().map(set_line));
    out.push(String::new());
    let c = &r.ceiling;
    let shown = |i: &Option<super::rank::Interval>| i.map_or("n/a".to_string(), |i| i.to_string());
    out.push(format!(
        "games against themselves: book vs book rho {}, even vs odd pairs rho {}, reliability {}, ceiling on rho {}{}",
        shown(&c.book_vs_book),
        shown(&c.half_vs_half),
        c.reliability.map_or("n/a".into(), |x| format!("{x:.2}")),
        c.judging().map_or("n/a".into(), |x| format!("{x:.2}")),
        match (c.max_rho, c.book_max_rho) {
            (Some(h), Some(b)) => format!(" (even vs odd {h:.2}, by books {b:.2})"),
            _ => String::new(),
        },
    ));
    out.extend(rounds_line(r));
    // Through games of reliability R the least detectable true correlation is min_rho /
    // sqrt(R); above 1 (or R = 0) there is none.
    const NONE_DETECTABLE: &str = "none (these games are too unreliable to detect any)";
    if let Some(p) = &r.power {
        let f = |x: Option<f64>| x.map_or("n/a".to_string(), |x| format!("{x:.2}"));
        out.push(format!(
            "power: with {} sets the smallest rho told from zero is {}, and through these games the smallest true correlation {}",
            p.sets,
            f(p.min_rho),
            p.min_true_rho.map_or(NONE_DETECTABLE.to_string(), |x| format!("{x:.2}"))
        ));
    }
    for o in &r.objectives {
        out.push(format!(
            "{}: tau {}, better half rho {}, slope {} Elo per point{}",
            o.name,
            shown(&o.tau),
            shown(&o.top_half_rho),
            o.slope.map_or("n/a".into(), |s| s.to_string()),
            if o.faults + o.overshot > 0 {
                format!(" ({} faulted, {} overshot positions)", o.faults, o.overshot)
            } else {
                String::new()
            }
        ));
    }
    for o in &r.objectives {
        out.push(o.verdict.clone());
    }
    let c = &r.cost;
    out.push(format!(
        "cost: {:.0} s wall ({:.1} min), {} CPU minutes on {} threads, {} objective evaluations, {} games, over {} run(s)",
        c.wall_seconds,
        c.wall_seconds / 60.0,
        c.cpu_seconds
            .map_or("unmeasured".to_string(), |s| format!("{:.1}", s / 60.0)),
        c.threads,
        c.objective_evaluations,
        c.games,
        c.runs
    ));
    out
}

/// The rounds of games and why they stopped (none for a report made before rounds).
fn rounds_line(r: &Report) -> Option<String> {
    let stopped = r.stopped?;
    let games: u64 = r.rounds.iter().map(|x| x.games).sum();
    let target = r.ceiling_target.map_or("n/a".into(), |t| format!("{t:.2}"));
    let judged = r
        .ceiling
        .judging()
        .map_or("n/a".into(), |c| format!("{c:.2}"));
    Some(format!(
        "games: {} round(s), {games} games (budget {}); stopped: {} (ceiling {judged}, the lesser of even vs odd and book vs book; target {target}){}",
        r.rounds.len(),
        r.max_games.map_or("n/a".into(), |m| m.to_string()),
        stopped.said(),
        if r.games_could_judge() {
            String::new()
        } else {
            let more = r.games_for_target.map_or(String::new(), |g| {
                format!(" (at this spread of the sets, about {g} games in all would reach the target: give --max-games, or widen the region with --region so the sets lie further apart)")
            });
            format!(
                ": the games could not judge, so no objective is trusted from this calibration{more}"
            )
        }
    ))
}

/// The table's header: the rows of the region, the objectives, the books and the pooled Elo.
fn header(r: &Report) -> String {
    let names: Vec<&str> = r.region.iter().map(|d| d.name.as_str()).collect();
    let short = |n: &str| n.trim_end_matches("_margin").to_string();
    let mut header = format!("{:<12}", "set");
    for n in &names {
        header += &format!(" {:>11}", short(n));
    }
    let objectives: Vec<&str> = r.objectives.iter().map(|o| o.name.as_str()).collect();
    for o in &objectives {
        header += &format!(" {:>12}", super::plot::label(o, &objectives));
    }
    for b in &r.books {
        let name = Path::new(&b.path)
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().to_string());
        header += &format!(" {:>16}", name.chars().take(16).collect::<String>());
    }
    header += &format!(" {:>22} {:>6}", "pooled Elo [95%]", "draws");
    header
}

/// A set's line of the table.
fn set_line(s: &SetReport) -> String {
    let mut line = format!("{:<12}", s.name.chars().take(12).collect::<String>());
    for v in &s.values {
        line += &format!(" {v:>11}");
    }
    for v in &s.objectives {
        line += &format!(" {v:>12.3}");
    }
    for b in &s.books {
        line += &format!(" {:>16}", elo_text(b));
    }
    line += &pooled_text(&s.pooled);
    line
}

/// A set's Elo as the table shows it: `0 (not played)` for the defaults (the yardstick), `n/a`
/// when it is not defined (every pair won, or every pair lost: the report's JSON holds 0 there).
fn elo_text(g: &Games) -> String {
    let pairs: u64 = g.pentanomial.iter().sum();
    if pairs == 0 {
        return "0 (not played)".to_string();
    }
    let swept = pairs > 0 && (g.pentanomial[0] == pairs || g.pentanomial[4] == pairs);
    if swept {
        "n/a".to_string()
    } else {
        format!("{:+.1}", g.elo)
    }
}

/// A set's pooled cells: Elo, interval and draw rate; for the defaults, the yardstick, `0 (not
/// played)` and no draw rate.
fn pooled_text(g: &Games) -> String {
    if g.pentanomial.iter().sum::<u64>() == 0 {
        format!(" {:>22} {:>6}", "0 (not played)", "")
    } else {
        format!(
            " {:>7} {} {:>5.1}%",
            elo_text(g),
            interval_text(g),
            100.0 * g.draw_rate
        )
    }
}

/// A set's 95% interval as the table shows it: each end `n/a` where it is not defined (the
/// report's JSON holds null there: an end at a 0% or 100% score, or both while every pair
/// scored the same).
fn interval_text(g: &Games) -> String {
    let [lower, upper] = g.elo_interval.map(Shown);
    format!("[{lower:+.0}, {upper:+.0}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_line_a_set_between_its_header_and_its_verdicts() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json");
        let r = crate::calibrate::report::read(&path).unwrap();
        let lines = lines(&r);
        assert!(
            lines[0].starts_with("set") && lines[0].ends_with("pooled Elo [95%]  draws"),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].contains(" futility ") && lines[0].contains(" suite "),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("default") && lines[1].contains("0 (not played)"),
            "{}",
            lines[1]
        );
        let blank = lines.iter().position(String::is_empty).unwrap();
        assert_eq!(blank, 1 + r.sets.len());
        assert!(lines[blank + 1].starts_with("games against themselves: book vs book rho "));
        assert_eq!(
            lines[lines.len() - 1 - r.objectives.len()..lines.len() - 1],
            r.objectives
                .iter()
                .map(|o| o.verdict.clone())
                .collect::<Vec<_>>()[..]
        );
        assert!(lines.last().unwrap().starts_with("cost: "));
    }

    #[test]
    fn power_says_so_when_the_games_are_too_unreliable_to_detect_any_correlation() {
        let read = |name: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tuned")
                .join(name);
            lines(&crate::calibrate::report::read(&path).unwrap())
        };
        let power = |lines: Vec<String>| lines.into_iter().find(|l| l.starts_with("power: "));
        // GNU Chess's games had no ceiling: no true correlation could be detected through them.
        let none = power(read("calibration-gnuchess-pruning-nodes10000.json")).unwrap();
        assert!(
            none.ends_with(
                "the smallest true correlation none (these games are too unreliable to detect any)"
            ),
            "{none}"
        );
        // The built-in engine's could judge: a figure.
        let some = power(read("calibration-builtin-nodes5000.json")).unwrap();
        assert!(
            some.ends_with("the smallest true correlation 0.81"),
            "{some}"
        );
    }
}
