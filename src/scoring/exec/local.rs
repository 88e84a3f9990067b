//! The machine's own threads: the one place marginal builds a thread pool. Work that runs on
//! this machine (suite searches, game pairs, a Slurm node's unit of work) runs on a pool made
//! here, sized by the caller (`--threads`, `--concurrency`, the node's CPUs); results never
//! depend on the size, only the wall time does.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_has_the_threads_asked_for_and_at_least_one() {
        assert_eq!(pool(3, "test").unwrap().current_num_threads(), 3);
        assert_eq!(pool(0, "test").unwrap().current_num_threads(), 1);
    }
}
