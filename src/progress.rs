//! What a pipeline reports while it runs: one event type and one observer for every pipeline
//! (suite, match, tune, calibrate, check) and for the executor under them.
//!
//! The library prints nothing: a command hands a pipeline its [`Observer`] (the terminal
//! printer, with bars on a terminal and plain lines elsewhere) and the pipeline reports
//! [`Event`]s to it. What a pipeline has to say to the user (a result line, a note, a warning,
//! the bad lines of an input) is one type, [`Said`]: told to the observer as it happens
//! ([`Observer::say`]), or returned by a step that only checks or renders. Events carry plain figures, so that any layer may report without knowing
//! the layers above it; this module uses nothing of the crate but the game statistics'
//! plain counts and their text (a front end may print an event's own words: [`Score::status`],
//! a [`Cluster`] event's line).
//!
//! ```
//! use marginal::progress::{Count, Event, Observer, Work};
//! use std::sync::Mutex;
//!
//! let seen = Mutex::new(Vec::new());
//! let observer = |event: &Event<'_>| {
//!     if let Event::Done(count) = event {
//!         seen.lock().unwrap().push(count.done);
//!     }
//! };
//! observer.event(&Event::Done(Count::new(Work::Pairs, 1, 2)));
//! observer.event(&Event::Done(Count::new(Work::Pairs, 2, 2)));
//! assert_eq!(*seen.lock().unwrap(), vec![1, 2]);
//! ```

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::scoring::games::stats::{Shown, SprtParams, Wdl};

/// What a [`Count`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Positions of a suite searched (by a margin set, or by the sets a check measures).
    Positions,
    /// Positions of a reference run searched (a suite's, or the quality or referee objective's deep one).
    ReferencePositions,
    /// Game pairs played (a match, a calibration, a check's games).
    Pairs,
    /// Game pairs played within one evaluation of a games objective.
    EvaluationPairs,
    /// Objective values measured (a calibration).
    Objectives,
}

/// How far some work has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// What is counted.
    pub work: Work,
    /// Done so far (earlier runs' work included).
    pub done: u64,
    /// In all.
    pub total: u64,
}

impl Count {
    /// `done` of `total` units of `work`.
    pub fn new(work: Work, done: u64, total: u64) -> Count {
        Count { work, done, total }
    }
}

/// A match's running score, after a pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Games played.
    pub games: u64,
    /// The first side's score, from 0 to 1 (none before the first game).
    pub score: Option<f64>,
    /// The Elo estimate (none while it is not defined).
    pub elo: Option<f64>,
    /// Its 95% interval.
    pub interval: Option<(f64, f64)>,
    /// The SPRT's log-likelihood ratio, when the match runs one.
    pub llr: Option<f64>,
}

impl Score {
    /// The running score for people: score, Elo with its half interval, and with `sprt` the
    /// LLR and its bounds (`n/a` where not defined yet).
    pub fn status(&self, sprt: Option<&SprtParams>) -> String {
        let mut s = format!(
            "score {}  Elo {:+.1} +- {:.1}",
            percent(self.score),
            Shown(self.elo),
            Shown(self.interval.map(|(lo, hi)| (hi - lo) / 2.0))
        );
        if let (Some(llr), Some(p)) = (self.llr, sprt) {
            let (lo, hi) = p.bounds();
            s.push_str(&format!("  LLR {llr:.2} ({lo:.2}, {hi:.2})"));
        }
        s
    }
}

/// A share as a percentage with one decimal, or `n/a` (without a `%`) when not defined.
pub fn percent(share: Option<f64>) -> String {
    match share {
        Some(x) if x.is_finite() => format!("{:.1}%", 100.0 * x),
        _ => Shown(None).to_string(),
    }
}

/// A tune's solver iteration as it ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Iteration<'a> {
    /// The iteration, from 1 (0: the start of Nelder-Mead or the swarm).
    pub iteration: u64,
    /// Iterations in the run.
    pub iterations: u64,
    /// The iterate's margin values, in the space's row order.
    pub values: &'a [i32],
    /// The iterate's objective, when the solver measured it.
    pub objective: Option<f64>,
    /// The objectives evaluated in this iteration (SPSA's two probes; none for games).
    pub evaluated: &'a [f64],
    /// SPSA's result of the comparison (SPSA only).
    pub spsa_result: Option<f64>,
}

/// The stage a race's evaluation belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The global screen on a mini-batch.
    Screen,
    /// A screened set on every training position.
    Full,
    /// A compass-search neighbour.
    Local,
    /// A point of the line through the base set (all tuned rows scaled together).
    Line,
    /// A round of games against the base set.
    Games,
    /// A round of the games screen: the design and the line in short paired games against the
    /// base set, the better half going on (when no trusted objective screens).
    #[serde(rename = "screen-games")]
    ScreenGames,
}

impl Stage {
    /// The stage in words, as the race's lines say it (`round`: a local search's).
    pub fn describe(self, round: usize) -> String {
        match self {
            Stage::Screen => "global screen".to_string(),
            Stage::Full => "kept (on every training position)".to_string(),
            Stage::Local => format!("local round {round}"),
            Stage::Line => "the line through the defaults (all margins scaled)".to_string(),
            Stage::Games => format!("race round {round}"),
            Stage::ScreenGames => format!("games screen round {round}"),
        }
    }
}

/// One step of a race.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RaceStep<'a> {
    /// The stage.
    pub stage: Stage,
    /// The round (local search or games; 0 for the screen and the full scores).
    pub round: usize,
    /// The tuned rows' values.
    pub values: &'a [i32],
    /// The suite objective or, in games, the Elo against the base set so far.
    pub score: f64,
    /// Games: pairs played by the set so far and their results.
    pub games: Option<(u64, Wdl)>,
    /// Whether it read back from a log rather than searched or played.
    pub cached: bool,
    /// The work of its kind done so far and planned in all, for an ETA: suite evaluations in
    /// the suite stages, game pairs in the games (the screen's and the race's).
    pub work: (u64, u64),
}

/// A stage of a race starting: `sets` to score (suite stages) or to play `pairs` pairs each
/// against the base set (games stages).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RaceStage {
    /// The stage.
    pub stage: Stage,
    /// Its round (1 on: local search, games; 0 otherwise).
    pub round: usize,
    /// The sets it scores or plays.
    pub sets: usize,
    /// Game pairs each set plays in it (0: a suite stage).
    pub pairs: u32,
    /// Whether a calibrated objective scores it instead of the suite objective (the race's
    /// plan names it).
    pub by_objective: bool,
}

/// The time left in a stream of work, from the rate of the work done so far in this run
/// (work read back from a log costs no time and is not counted in the rate).
#[derive(Debug, Default, Clone)]
pub struct Eta {
    last: Option<std::time::Instant>,
    done: u64,
    fresh: u64,
    seconds: f64,
}

impl Eta {
    /// Work starts (again) at `now`: the time from here counts.
    pub fn mark(&mut self, now: std::time::Instant) {
        self.last = Some(now);
    }

    /// The work reached `done` of `total` at `now` (`cached`: read back from a log); returns
    /// the seconds left at the rate so far, once one is known.
    pub fn step(
        &mut self,
        (done, total): (u64, u64),
        cached: bool,
        now: std::time::Instant,
    ) -> Option<f64> {
        let units = done.saturating_sub(self.done);
        self.done = done;
        if let (Some(last), false) = (self.last, cached) {
            self.seconds += now.saturating_duration_since(last).as_secs_f64();
            self.fresh += units;
        }
        self.last = Some(now);
        (self.fresh > 0)
            .then(|| self.seconds / self.fresh as f64 * total.saturating_sub(done) as f64)
    }
}

/// What a cluster executor is doing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cluster<'a> {
    /// A job array was submitted.
    Submitted {
        /// The batch directory.
        dir: &'a Path,
        /// The scheduler's job id.
        job: &'a str,
        /// The task ids submitted.
        tasks: &'a [usize],
        /// 0 for the first submission, then each resubmission.
        attempt: u32,
    },
    /// Results of an earlier, interrupted run were found and are reused.
    Reused {
        /// The batch directory.
        dir: &'a Path,
        /// How many units already had their result.
        done: usize,
        /// Units in the batch.
        units: usize,
    },
    /// A task left the queue without a valid result; it will be resubmitted.
    TaskFailed {
        /// The task id.
        task: usize,
        /// The submission it failed in.
        attempt: u32,
        /// Why, from its log.
        reason: &'a str,
    },
    /// A batch is complete.
    Finished {
        /// Units in the batch.
        units: usize,
        /// Wall-clock seconds from writing the units to reading the last result.
        seconds: f64,
        /// Seconds the tasks spent working, summed.
        work_seconds: f64,
    },
    /// A batch was cancelled (interrupted): what was counted so far is kept.
    Cancelled {
        /// Why.
        why: &'a str,
    },
}

impl std::fmt::Display for Cluster<'_> {
    /// What the cluster did, in one line for people (`slurm: ...`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Cluster::Submitted {
                job,
                tasks,
                attempt: 0,
                ..
            } => write!(f, "slurm: job {job}: {} task(s) submitted", tasks.len()),
            Cluster::Submitted {
                job,
                tasks,
                attempt,
                ..
            } => {
                let list: Vec<String> = tasks.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "slurm: job {job}: task(s) {} resubmitted (attempt {})",
                    list.join(","),
                    attempt + 1
                )
            }
            Cluster::Reused { dir, done, units } => write!(
                f,
                "slurm: {done} of {units} unit(s) already done in {} (an interrupted run's): reused",
                dir.display()
            ),
            Cluster::TaskFailed {
                task,
                attempt,
                reason,
            } => write!(
                f,
                "slurm: task {task} failed (attempt {}): {reason}",
                attempt + 1
            ),
            Cluster::Finished {
                units,
                seconds,
                work_seconds,
            } => write!(
                f,
                "slurm: {units} unit(s) done in {seconds:.2} s ({work_seconds:.2} s of work in the tasks)"
            ),
            Cluster::Cancelled { why } => write!(f, "slurm: {why}"),
        }
    }
}

/// Something a pipeline has to say to the user, for the front end to print: one line of its
/// result, a note, a warning, or the bad lines of an input it skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// A line of the result (standard output).
    Out(String),
    /// Worth knowing (`note: ...` on standard error).
    Note(String),
    /// Probably not what the user meant (`warning: ...` on standard error).
    Warning(String),
    /// The bad lines of an input file, skipped (`warning: ...` on standard error, the first
    /// few listed and the rest counted).
    Skipped(Vec<String>),
}

impl Said {
    /// The bad lines of an input, skipped (`lines`, each as its file, line and reason): none
    /// to say when there are none.
    pub fn skipped<T: std::fmt::Display>(lines: impl IntoIterator<Item = T>) -> Option<Said> {
        let lines: Vec<String> = lines.into_iter().map(|l| l.to_string()).collect();
        (!lines.is_empty()).then_some(Said::Skipped(lines))
    }
}

/// Something a pipeline did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event<'a> {
    /// The pipeline has something to say to the user.
    Said(&'a Said),
    /// A calibration started preparing an objective (its reference run may take minutes).
    Preparing {
        /// The objective's name.
        objective: &'a str,
        /// Its search limit, in words.
        limit: &'a str,
        /// Whether its reference is a deep search (the quality or referee objective's).
        deep: bool,
    },
    /// The objective being prepared is ready, or failed: its reference run is over.
    Prepared,
    /// Work of an earlier run was found finished (one count per kind of work).
    Resumed(&'a [Count]),
    /// A named part of the work started (a check's side: `training`, `validation`).
    Started {
        /// Its name.
        what: &'a str,
    },
    /// A unit of work was done.
    Done(Count),
    /// A calibration measured an objective value.
    Measured {
        /// The set's index.
        set: usize,
        /// The objective's name.
        name: &'a str,
        /// Its value.
        value: f64,
        /// Values measured so far, and in all.
        count: Count,
    },
    /// A match counted a pair: the pairs so far and the running score.
    Pair {
        /// Pairs played so far, and in all.
        count: Count,
        /// The running score.
        score: Score,
    },
    /// A tune's solver ended an iteration.
    Iteration(Iteration<'a>),
    /// A race scored a set (a suite evaluation or a finalist's round of games).
    Race(RaceStep<'a>),
    /// A stage of a race started.
    RaceStage(RaceStage),
    /// A race ended, with its verdict for people.
    RaceDone {
        /// How the set was chosen.
        verdict: &'a str,
    },
    /// The cluster executor under a pipeline did something.
    Cluster(Cluster<'a>),
}

/// Receives a pipeline's events. Pipelines may report from several threads at once, so an
/// observer takes `&self` and keeps any state behind a lock.
pub trait Observer: Sync {
    /// Something happened.
    fn event(&self, event: &Event<'_>);

    /// The pipeline has `said` something to the user ([`Event::Said`]).
    fn say(&self, said: Said) {
        self.event(&Event::Said(&said));
    }
}

impl<F: Fn(&Event<'_>) + Sync> Observer for F {
    fn event(&self, event: &Event<'_>) {
        self(event)
    }
}

/// An observer that work running on other threads (a solver's, a cluster's) keeps.
pub type Shared = Arc<dyn Observer + Send + Sync>;

/// The observer of a run nobody watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn event(&self, _event: &Event<'_>) {}
}

/// CPU time of this process and its finished children (the external engines it ran and
/// waited for), seconds: what a run says it cost.
pub fn cpu_seconds() -> f64 {
    let time = |who| {
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes into the struct it is given.
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return 0.0;
        }
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
        t(u.ru_utime) + t(u.ru_stime)
    };
    time(libc::RUSAGE_SELF) + time(libc::RUSAGE_CHILDREN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn an_observer_sees_events_from_several_threads() {
        let seen = Mutex::new(0u64);
        let observer = |event: &Event<'_>| {
            if let Event::Done(c) = event {
                *seen.lock().unwrap() += c.done;
            }
        };
        std::thread::scope(|s| {
            for i in 1..=4 {
                let o = &observer;
                s.spawn(move || o.event(&Event::Done(Count::new(Work::Pairs, i, 4))));
            }
        });
        assert_eq!(*seen.lock().unwrap(), 10);
        Silent.event(&Event::RaceDone { verdict: "none" });
    }

    #[test]
    fn what_a_pipeline_says_reaches_its_observer_and_no_skipped_lines_say_nothing() {
        let heard = Mutex::new(Vec::new());
        let observer = |event: &Event<'_>| {
            if let Event::Said(said) = event {
                heard.lock().unwrap().push((*said).clone());
            }
        };
        observer.say(Said::Warning("--suite given: ignored".into()));
        observer.event(&Event::Prepared);
        assert_eq!(Said::skipped(Vec::<String>::new()), None);
        let skipped = Said::skipped(["b.epd:3: bad FEN"]).unwrap();
        observer.say(skipped.clone());
        let warning = Said::Warning("--suite given: ignored".into());
        assert_eq!(*heard.lock().unwrap(), vec![warning, skipped]);
    }

    #[test]
    fn a_match_status_says_score_elo_and_llr() {
        let score = Score {
            games: 4,
            score: Some(0.625),
            elo: Some(88.7),
            interval: Some((-10.0, 190.0)),
            llr: Some(0.5),
        };
        let sprt = SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lo, hi) = sprt.bounds();
        let expected = format!("score 62.5%  Elo +88.7 +- 100.0  LLR 0.50 ({lo:.2}, {hi:.2})");
        assert_eq!(score.status(Some(&sprt)), expected);
        let none = Score {
            games: 0,
            score: None,
            elo: None,
            interval: None,
            llr: None,
        };
        assert_eq!(none.status(None), "score n/a  Elo n/a +- n/a");
    }

    #[test]
    fn cluster_lines_say_what_slurm_did() {
        let tasks = [0, 2, 5];
        let submitted = |attempt| Cluster::Submitted {
            dir: Path::new("/w/b"),
            job: "7",
            tasks: &tasks,
            attempt,
        };
        let said = |c: Cluster<'_>| c.to_string();
        assert_eq!(said(submitted(0)), "slurm: job 7: 3 task(s) submitted");
        let again = "slurm: job 7: task(s) 0,2,5 resubmitted (attempt 2)";
        assert_eq!(said(submitted(1)), again);
        let failed = Cluster::TaskFailed {
            task: 2,
            attempt: 0,
            reason: "oom",
        };
        assert_eq!(said(failed), "slurm: task 2 failed (attempt 1): oom");
        let cancelled = Cluster::Cancelled { why: "interrupted" };
        assert_eq!(said(cancelled), "slurm: interrupted");
    }
}
