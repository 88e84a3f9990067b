//! The machine's own threads: the one place marginal builds a thread pool. Work that runs on
//! this machine (suite searches, game pairs, a Slurm node's unit of work) runs on a pool made
//! here, sized by the caller (`--threads`, `--concurrency`, the node's CPUs); results never
//! depend on the size, only the wall time does. Suite positions are searched here ([`run`]: a
//! suite job, or a suite's run with no executor); game pairs go through [`super::queue`].

use std::sync::Mutex;

use rayon::prelude::*;

use crate::engine::{Setting, Worker};
use crate::scoring::suite::run::{PositionResult, RunConfig, SuiteLimit, SuitePosition, run_one};

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
/// (A [`super::Job`] of suite positions runs here, as does a suite's run with no executor.)
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
    use super::*;

    #[test]
    fn a_pool_has_the_threads_asked_for_and_at_least_one() {
        assert_eq!(pool(3, "test").unwrap().current_num_threads(), 3);
        assert_eq!(pool(0, "test").unwrap().current_num_threads(), 1);
    }
}
