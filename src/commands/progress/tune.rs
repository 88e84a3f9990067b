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
        report::iteration_line(i, &mut state.best, &self.margins(i.values), self.seconds())
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
            Event::Said(said) => super::say(said),
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
