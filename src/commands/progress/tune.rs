//! A tune's lines: one per solver iteration, or for the race one a stage and one a
//! finalist's games (the race's verdict said even with `--quiet`); and the games of an
//! evaluation under way.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use marginal::progress::{Count, Eta, Event, Iteration, Observer, RaceStep, Stage, Work};

use super::Printer;
use marginal::tune::report;

/// A tune's progress on standard output: one plain line per solver iteration (CI logs and
/// terminals alike), or for the race one a stage and one a finalist's games.
pub struct TuneLines {
    quiet: bool,
    names: Vec<String>,
    start: Instant,
    state: Mutex<TuneState>,
}

/// What the tune's lines remember: the best objective, and the race's stage under way (its
/// sets scored, those from the log, the best).
struct TuneState {
    best: f64,
    stage: Option<(Stage, usize)>,
    count: usize,
    cached: usize,
    race_best: Option<(f64, Vec<i32>)>,
    /// The time left in the suite stages and in the games, and the last said of the suite's.
    eta: [Eta; 2],
    left: String,
}

impl TuneLines {
    /// The lines of a tune of the rows `names`, started at `start`.
    pub fn new(printer: Printer, names: Vec<String>, start: Instant) -> TuneLines {
        let state = TuneState {
            best: f64::NEG_INFINITY,
            stage: None,
            count: 0,
            cached: 0,
            race_best: None,
            eta: Default::default(),
            left: String::new(),
        };
        TuneLines {
            quiet: printer.quiet,
            names,
            start,
            state: Mutex::new(state),
        }
    }

    /// `values` of the tuned rows, as `name value, name value`.
    pub fn margins(&self, values: &[i32]) -> String {
        let named = self.names.iter().zip(values);
        named
            .map(|(n, v)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The best objective found so far (by an earlier run, resumed).
    pub fn set_best(&self, best: f64) {
        self.lock().best = best;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TuneState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The line of a solver's iteration (SPSA's, or Nelder-Mead's and the swarm's).
    fn iteration(&self, i: &Iteration<'_>) -> String {
        let mut state = self.lock();
        let margins = self.margins(i.values);
        if let Some(result) = i.spsa_result {
            let objectives = if i.evaluated.is_empty() {
                String::new()
            } else {
                state.best = i.evaluated.iter().copied().fold(state.best, f64::max);
                let probes: Vec<String> = i.evaluated.iter().map(|o| format!("{o:.3}")).collect();
                format!("  objective {}  best {:.3}", probes.join("/"), state.best)
            };
            let (k, n, s) = (i.iteration, i.iterations, self.seconds());
            return format!(
                "iteration {k:>3}/{n}: {margins}  result {result:+.3}{objectives}  ({s:.0} s)"
            );
        }
        let objective = i.objective.unwrap_or(f64::NAN);
        state.best = state.best.max(objective);
        let step = match i.iteration {
            0 => "start".to_string(),
            k => format!("iteration {k:>3}/{}", i.iterations),
        };
        format!(
            "{step}: {margins}  objective {objective:.3}  best {:.3}  ({} evaluated, {:.0} s)",
            state.best,
            i.evaluated.len(),
            self.seconds()
        )
    }

    /// A race step: a finalist's games said at once, a suite evaluation counted in its stage.
    fn race(&self, s: &RaceStep<'_>) {
        let games = s.games.is_some();
        let eta = self.lock().eta[usize::from(games)].step(s.work, s.cached, Instant::now());
        let left = report::left(
            eta,
            ["in the suite stages", "in the games"][usize::from(games)],
        );
        if games {
            self.finish_stage();
            println!("{}{left}", report::race_round_line(s, self.seconds()));
            return;
        }
        if self.lock().stage != Some((s.stage, s.round)) {
            self.finish_stage();
        }
        let mut state = self.lock();
        state.stage = Some((s.stage, s.round));
        state.count += 1;
        state.cached += usize::from(s.cached);
        state.left = left;
        if state.race_best.as_ref().is_none_or(|(b, _)| s.score > *b) {
            state.race_best = Some((s.score, s.values.to_vec()));
        }
    }

    /// Says the race's stage under way, if any: how many sets, the best.
    fn finish_stage(&self) {
        let mut state = self.lock();
        let (Some((stage, round)), Some((best, values))) =
            (state.stage.take(), state.race_best.take())
        else {
            return;
        };
        let what = stage.describe(round);
        let cached = match state.cached {
            0 => String::new(),
            n => format!(" ({n} from the log)"),
        };
        println!(
            "race {what}: {} sets{cached}, best objective {best:.3} at {} ({})  ({:.0} s){}",
            state.count,
            report::slashed(&values),
            self.names.join(" / "),
            self.seconds(),
            state.left
        );
        state.count = 0;
        state.cached = 0;
    }
}

impl Observer for TuneLines {
    fn event(&self, event: &Event<'_>) {
        match event {
            Event::Iteration(i) if !self.quiet || i.spsa_result.is_none() => {
                // Nelder-Mead's and the swarm's best is kept even when quiet.
                let line = self.iteration(i);
                if !self.quiet {
                    println!("{line}");
                }
            }
            Event::Race(step) if !self.quiet => self.race(step),
            Event::RaceStage(stage) if !self.quiet => {
                self.finish_stage();
                self.lock().eta[usize::from(stage.pairs > 0)].mark(Instant::now());
                println!("{}", report::race_stage_line(stage));
            }
            Event::RaceDone { verdict } => {
                self.finish_stage();
                println!("race: {verdict}");
            }
            _ => {}
        }
    }
}

/// Progress within an evaluation's games (an iteration of a slow engine can take minutes): a
/// plain line at most every 5 seconds, none with --quiet and none for its last pair (the
/// iteration's own line follows).
pub struct EvaluationGames {
    quiet: bool,
    start: Instant,
    last: Mutex<Instant>,
}

impl EvaluationGames {
    /// The lines of a run started now.
    pub fn new(printer: Printer) -> EvaluationGames {
        let start = Instant::now();
        let last = Mutex::new(start);
        EvaluationGames {
            quiet: printer.quiet,
            start,
            last,
        }
    }
}

impl Observer for EvaluationGames {
    fn event(&self, event: &Event<'_>) {
        let Event::Done(
            c @ Count {
                work: Work::EvaluationPairs,
                ..
            },
        ) = event
        else {
            return;
        };
        let (Ok(mut last), false) = (self.last.lock(), self.quiet) else {
            return;
        };
        if c.done >= c.total {
            // The evaluation's own line comes now: the next line is 5 s after it.
            *last = Instant::now();
        } else if last.elapsed() >= Duration::from_secs(5) {
            *last = Instant::now();
            let (played, total) = (2 * c.done, 2 * c.total);
            let seconds = self.start.elapsed().as_secs_f64();
            println!("  games {played}/{total} of this evaluation ({seconds:.0} s)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_lines_name_the_margins_and_keep_the_best() {
        let names = vec!["a".to_string(), "b".to_string()];
        let lines = TuneLines::new(Printer::new(true), names, Instant::now());
        let iteration = |iteration, objective, spsa_result| Iteration {
            iteration,
            iterations: 20,
            values: &[100, 200],
            objective,
            evaluated: &[0.5, 0.25],
            spsa_result,
        };
        let start = lines.iteration(&iteration(0, Some(0.75), None));
        let said = "start: a 100, b 200  objective 0.750  best 0.750  (2 evaluated, ";
        assert!(start.starts_with(said), "{start}");
        let worse = lines.iteration(&iteration(3, Some(0.5), None));
        let said = "iteration   3/20: a 100, b 200  objective 0.500  best 0.750  (2 evaluated, ";
        assert!(worse.starts_with(said), "{worse}");
        let spsa = lines.iteration(&iteration(4, None, Some(-1.5)));
        let said =
            "iteration   4/20: a 100, b 200  result -1.500  objective 0.500/0.250  best 0.750  (";
        assert!(spsa.starts_with(said), "{spsa}");
        lines.set_best(2.0);
        let resumed = lines.iteration(&iteration(5, Some(1.0), None));
        assert!(resumed.contains("objective 1.000  best 2.000"), "{resumed}");
    }
}
