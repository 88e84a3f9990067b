//! The machine's own threads: the one place marginal builds a thread pool, and [`Local`], the
//! [`Runner`] that runs jobs here. Work that runs on this machine (suite searches, game pairs,
//! a Slurm node's unit of work) runs on a pool made here, sized by the caller (`--threads`,
//! `--concurrency`, the node's CPUs); results never depend on the size, only the wall time
//! does. Suite positions are searched here ([`run`]); game pairs go through [`super::queue`].

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rayon::prelude::*;

use super::queue::{Flow, play_in_order};
use super::{Done, ExecError, GamesJob, Job, OnDone, Runner};
use crate::engine::external::kill_all;
use crate::engine::{Setting, Worker};
use crate::scoring::games::game::{EnginePlayer, Player};
use crate::scoring::games::matches::{PairRecord, play_pair_until};
use crate::scoring::suite::run::{PositionResult, RunConfig, SuiteLimit, SuitePosition, run_one};

/// Runs jobs on this machine, on `threads` threads: a batch's suite positions on one pool
/// ([`pool`]), its game pairs through the one queue of game pairs ([`super::queue`]), which
/// plays them on threads of their own (a game waits on its engines, and would hold a search
/// thread meanwhile). It tells of each position or pair as it finishes
/// ([`Runner::run_each`]), and streams a match's pairs ([`Runner::play`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Local {
    /// Threads searching positions, or games played at once; 0: as many as the rayon pool
    /// it is called on.
    threads: usize,
}

impl Local {
    /// A runner on `threads` threads (at least one), on a pool of its own.
    pub fn new(threads: usize) -> Local {
        Local {
            threads: threads.max(1),
        }
    }

    /// A runner on the rayon pool it is called on (install a pool to choose the thread
    /// count), and as many game threads.
    pub fn on_current_pool() -> Local {
        Local { threads: 0 }
    }

    /// Threads searching positions, or games played at once, when called now.
    pub fn threads(&self) -> usize {
        match self.threads {
            0 => rayon::current_num_threads(),
            n => n,
        }
    }
}

impl Runner for Local {
    fn run(&self, jobs: &[Job]) -> Result<Vec<Done>, ExecError> {
        self.run_each(jobs, &|_, _| {})
    }

    fn run_each(&self, jobs: &[Job], on_done: &OnDone<'_>) -> Result<Vec<Done>, ExecError> {
        let run = || {
            (jobs.iter().enumerate())
                .map(|(j, job)| job.run(&|f| on_done(j, f)))
                .collect()
        };
        if self.threads == 0 {
            return Ok(run());
        }
        let pool = pool(self.threads, "local").map_err(|e| {
            ExecError::Failed(format!("cannot start {} threads: {e}", self.threads))
        })?;
        Ok(pool.install(run))
    }

    fn streams(&self) -> bool {
        true
    }

    fn play(
        &self,
        job: &GamesJob,
        interrupt: &AtomicBool,
        take: &mut dyn FnMut(PairRecord) -> Flow,
    ) -> Result<(), ExecError> {
        // Raised with the interrupt: a built-in search in progress ends at once (a long one
        // would hold the match for minutes), and its game is abandoned.
        let stop = Arc::new(AtomicBool::new(false));
        let player = |(name, setting): &(String, Setting)| -> Box<dyn Player> {
            Box::new(
                EnginePlayer::new(name.clone(), setting.clone(), job.hash_mb)
                    .stopped_by(stop.clone()),
            )
        };
        let (factory_a, factory_b) = (|| player(&job.a), || player(&job.b));
        let finished = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| stop_engines_on(interrupt, &finished, &stop));
            // What finished beyond a stop, or beyond a pair abandoned at an interrupt, is
            // discarded.
            let _beyond = play_in_order(
                &job.pairs,
                self.threads(),
                "games",
                interrupt,
                &|(index, opening), abandon| {
                    let opening = std::slice::from_ref(opening);
                    play_pair_until(*index, &factory_a, &factory_b, opening, &job.game, abandon)
                },
                &mut |_, pair| take(pair),
            );
            finished.store(true, Ordering::Relaxed);
        });
        Ok(())
    }

    fn play_all(
        &self,
        jobs: &[GamesJob],
        order: &[(usize, usize)],
        _batch: Option<usize>,
        interrupt: &AtomicBool,
        take: &mut dyn FnMut(usize, PairRecord) -> Flow,
    ) -> Result<(), ExecError> {
        let player = |(name, setting): &(String, Setting), hash: usize| -> Box<dyn Player> {
            Box::new(EnginePlayer::new(name.clone(), setting.clone(), hash))
        };
        let play = |&(j, p): &(usize, usize), abandon: &dyn Fn() -> bool| {
            let job = &jobs[j];
            let (index, opening) = &job.pairs[p];
            let (a, b) = (
                || player(&job.a, job.hash_mb),
                || player(&job.b, job.hash_mb),
            );
            let opening = std::slice::from_ref(opening);
            let record = play_pair_until(*index, &a, &b, opening, &job.game, abandon)?;
            // Checked here, on the worker, as the pair finishes: after too many faults in a row
            // an engine was given up on, and this pair may hold games not played.
            Some(super::gave_up([&job.a.1, &job.b.1]).map(|()| record))
        };
        let (mut failure, mut stopped) = (None, false);
        let mut give = |k: usize, played: Result<PairRecord, ExecError>| {
            if stopped {
                return Flow::Stop;
            }
            let flow = match played {
                Ok(pair) => take(k, pair),
                Err(e) => {
                    failure = Some(e);
                    Flow::Stop
                }
            };
            stopped = flow == Flow::Stop;
            flow
        };
        let beyond = play_in_order(order, self.threads(), "games", interrupt, &play, &mut give);
        // Interrupted: the pairs finished beyond one abandoned are given too.
        for (k, played) in beyond {
            if give(k, played) == Flow::Stop {
                break;
            }
        }
        failure.map_or(Ok(()), Err)
    }
}

/// Once `interrupt` is raised, raises `searches` (the built-in searches' stop flag) and kills
/// every external engine (again every few milliseconds, for any started since) until
/// `finished`: a game in flight then stops at once, even in a long search or against an engine
/// that would hang until its timeout, and is abandoned.
fn stop_engines_on(interrupt: &AtomicBool, finished: &AtomicBool, searches: &AtomicBool) {
    while !finished.load(Ordering::Relaxed) {
        if interrupt.load(Ordering::Relaxed) {
            searches.store(true, Ordering::Relaxed);
            kill_all();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A pool of `threads` worker threads (at least one), named after `what` they run.
///
/// # Errors
/// The operating system would not start the threads.
pub fn pool(threads: usize, what: &str) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    let what = what.to_string();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(move |i| format!("marginal-{what}-{i}"))
        .build()
}

/// Runs `setting` over `positions` on the current rayon pool (install a pool to choose the
/// thread count). `on_done` is called once per finished position (for progress bars).
/// (A [`super::Job`] of suite positions runs here, on [`Local`] or on a cluster's node.)
/// Results come back in the order of `positions`.
///
/// `cost_hint` (e.g. the reference run's node counts) schedules the most expensive positions
/// first, one per task, so no thread is left finishing a long search alone at the end. It
/// changes only the schedule, never a result; it is also the node count given to a position
/// an external engine faulted on (a fault neither speeds nor slows the run).
///
/// Workers (searchers, or external engine processes) are pooled: at most one per thread, each
/// cleared before every position.
pub fn run(
    positions: &[SuitePosition],
    setting: &Setting,
    config: &RunConfig,
    cost_hint: Option<&[u64]>,
    on_done: &(dyn Fn() + Sync),
) -> Vec<PositionResult> {
    run_each(positions, setting, config, cost_hint, &|_, _| on_done())
}

/// As [`run`], with `on_result` given each finished position's index and result as it
/// finishes (in no fixed order), before the run ends.
pub fn run_each(
    positions: &[SuitePosition],
    setting: &Setting,
    config: &RunConfig,
    cost_hint: Option<&[u64]>,
    on_result: &(dyn Fn(usize, &PositionResult) + Sync),
) -> Vec<PositionResult> {
    let mut order: Vec<usize> = (0..positions.len()).collect();
    let costs = cost_hint.filter(|c| c.len() == positions.len());
    if let Some(costs) = costs {
        order.sort_by_key(|&i| std::cmp::Reverse(costs[i]));
    }
    let fault_nodes = |i: usize| match (costs, config.limit) {
        (Some(c), _) => c[i],
        (None, SuiteLimit::Nodes(n)) => n,
        (None, SuiteLimit::Depth(_)) => 0,
    };
    let pool: Mutex<Vec<Worker>> = Mutex::new(Vec::new());
    let mut done: Vec<(usize, PositionResult)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let taken = pool.lock().ok().and_then(|mut p| p.pop());
            let mut worker = taken.unwrap_or_else(|| Worker::new(setting, config.hash_mb));
            let result = run_one(&mut worker, &positions[i], config, fault_nodes(i));
            if let Ok(mut p) = pool.lock() {
                p.push(worker);
            }
            on_result(i, &result);
            (i, result)
        })
        .collect();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::scoring::exec::tests::{games_job, same_pairs, suite_job};
    use crate::scoring::exec::{Finished, InProcess};

    #[test]
    fn local_runs_give_what_units_give_at_any_thread_count() {
        let jobs = [suite_job(7), Job::Games(games_job())];
        let units = InProcess { shards: 2 }.run(&jobs).unwrap();
        for threads in [1, 3] {
            let here = Local::new(threads).run(&jobs).unwrap();
            let positions = |d: &Done| d.clone().into_positions();
            assert_eq!(
                positions(&here[0]),
                positions(&units[0]),
                "{threads} threads"
            );
            let pairs = |d: &Done| d.clone().into_pairs();
            assert!(
                same_pairs(&pairs(&here[1]), &pairs(&units[1])),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn local_tells_of_each_position_and_pair_once_as_it_finishes() {
        let jobs = [suite_job(5), Job::Games(games_job())];
        let told: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
        let done = Local::new(3)
            .run_each(&jobs, &|j, f| {
                let item = match f {
                    Finished::Position(i, _) => i,
                    Finished::Pair(p) => p.index,
                };
                told.lock().unwrap().push((j, item));
            })
            .unwrap();
        let mut told = told.into_inner().unwrap();
        told.sort_unstable();
        assert_eq!(
            told,
            [
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 3),
                (0, 4),
                (1, 4),
                (1, 5),
                (1, 6)
            ]
        );
        assert_eq!(done[0].clone().into_positions().len(), 5);
        assert!(Local::new(1).streams() && !InProcess { shards: 1 }.streams());
    }

    #[test]
    fn local_play_streams_the_pairs_that_batches_give_and_stops_when_told() {
        let job = games_job();
        let units = InProcess { shards: 2 }
            .run(&[Job::Games(job.clone())])
            .unwrap();
        let units = units[0].clone().into_pairs();
        for runner in [&Local::new(2) as &dyn Runner, &InProcess { shards: 2 }] {
            let mut taken = Vec::new();
            let calm = AtomicBool::new(false);
            runner
                .play(&job, &calm, &mut |pair| {
                    taken.push(pair);
                    if taken.len() == 2 {
                        Flow::Stop
                    } else {
                        Flow::Go
                    }
                })
                .unwrap();
            assert!(same_pairs(&taken, &units[..2]), "{runner:?}");
        }
        // Raised before the first pair: none starts.
        let started = AtomicUsize::new(0);
        Local::new(2)
            .play(&job, &AtomicBool::new(true), &mut |_| {
                started.fetch_add(1, Ordering::Relaxed);
                Flow::Go
            })
            .unwrap();
        assert_eq!(started.load(Ordering::Relaxed), 0);
    }

    /// Two matches (the second with its sides' settings swapped), and an order of their pairs
    /// that goes back and forth between them.
    fn two_matches() -> (Vec<GamesJob>, Vec<(usize, usize)>) {
        let first = games_job();
        let mut second = first.clone();
        std::mem::swap(&mut second.a.1, &mut second.b.1);
        let order = vec![(1, 2), (0, 0), (0, 1), (1, 0), (0, 2), (1, 1)];
        (vec![first, second], order)
    }

    #[test]
    fn local_play_all_gives_in_its_order_the_pairs_that_batches_give_at_any_thread_count() {
        let (jobs, order) = two_matches();
        let whole: Vec<Job> = jobs.iter().cloned().map(Job::Games).collect();
        let units = InProcess { shards: 2 }.run(&whole).unwrap();
        let units: Vec<Vec<PairRecord>> = units.into_iter().map(Done::into_pairs).collect();
        let expected: Vec<PairRecord> = (order.iter()).map(|&(j, p)| units[j][p].clone()).collect();
        let runners: [&dyn Runner; 4] = [
            &Local::new(1),
            &Local::new(3),
            &InProcess { shards: 1 },
            &InProcess { shards: 4 },
        ];
        for runner in runners {
            let mut taken = Vec::new();
            let calm = AtomicBool::new(false);
            runner
                .play_all(&jobs, &order, None, &calm, &mut |k, pair| {
                    assert_eq!(k, taken.len(), "{runner:?}");
                    taken.push(pair);
                    Flow::Go
                })
                .unwrap();
            assert!(same_pairs(&taken, &expected), "{runner:?}");
        }
    }

    #[test]
    fn local_play_all_stops_when_told_and_starts_nothing_after_an_interrupt() {
        let (jobs, order) = two_matches();
        let mut all: Vec<PairRecord> = Vec::new();
        let calm = AtomicBool::new(false);
        InProcess { shards: 2 }
            .play_all(&jobs, &order, None, &calm, &mut |_, pair| {
                all.push(pair);
                Flow::Go
            })
            .unwrap();
        for runner in [&Local::new(3) as &dyn Runner, &InProcess { shards: 2 }] {
            let mut taken = Vec::new();
            runner
                .play_all(&jobs, &order, None, &calm, &mut |_, pair| {
                    taken.push(pair);
                    if taken.len() == 3 {
                        Flow::Stop
                    } else {
                        Flow::Go
                    }
                })
                .unwrap();
            assert!(same_pairs(&taken, &all[..3]), "{runner:?}");
        }
        let raised = AtomicBool::new(true);
        let mut given = 0;
        for runner in [&Local::new(3) as &dyn Runner, &InProcess { shards: 2 }] {
            (runner.play_all(&jobs, &order, None, &raised, &mut |_, _| {
                given += 1;
                Flow::Go
            }))
            .unwrap();
        }
        assert_eq!(given, 0);
    }

    #[test]
    fn a_pool_has_the_threads_asked_for_and_at_least_one() {
        assert_eq!(pool(3, "test").unwrap().current_num_threads(), 3);
        assert_eq!(pool(0, "test").unwrap().current_num_threads(), 1);
    }
}
