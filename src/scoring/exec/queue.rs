//! The one queue of game pairs on this machine: a match's pairs and a calibration's are handed
//! out from it to workers on threads of their own, in a fixed order, and their results handed
//! back in that same order, whatever finishes first. What the caller counts (a match's SPRT, a
//! calibration's faults) thus sees the same results in the same order at any thread count.
//!
//! The workers run on their own pool ([`super::local::pool`]), apart from the caller's: a game
//! worker waits on its engines for the whole game, and would hold a search thread meanwhile.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// What the taker of results wants after one: more, or an end to the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Go,
    /// Stop: no item starts, the items in flight are abandoned.
    Stop,
}

/// Plays one item, or gives it up (`None`) when the `abandon()` it is given says so.
pub type Play<'a, T, R> = dyn Fn(&T, &dyn Fn() -> bool) -> Option<R> + Sync + 'a;

/// Plays `items` on `workers` threads of their own (a pool named after `what`; at most one
/// thread an item), each handed out in order, and gives each result to `take` on the calling
/// thread, with its item's index, strictly in index order.
///
/// `play(item, abandon)` plays one item; it gives it up (`None`) when `abandon()` says so (read
/// it between moves). The work ends when every item is played, when `take` says
/// [`Flow::Stop`], or when `interrupt` is raised: then no item starts and the items in flight
/// are abandoned. Results that still arrive after an interrupt go on to `take` as long as they
/// continue the order.
///
/// Returns the results that finished but were not given to `take` (after a stop, or beyond an
/// item abandoned at an interrupt), in index order: a caller that keeps every finished item
/// may keep those too.
///
/// # Panics
/// The operating system would not start the worker threads.
///
/// # Example
/// Squares of ten numbers on three threads: taken in order, the sixth stops the work.
/// ```
/// use std::sync::atomic::AtomicBool;
/// use marginal::scoring::exec::queue::{Flow, play_in_order};
///
/// let items: Vec<u64> = (0..10).collect();
/// let mut taken = Vec::new();
/// let calm = AtomicBool::new(false);
/// let left = play_in_order(&items, 3, "doc", &calm, &|&n, _| Some(n * n), &mut |i, sq| {
///     taken.push((i, sq));
///     if i == 5 { Flow::Stop } else { Flow::Go }
/// });
/// assert_eq!(taken, [(0, 0), (1, 1), (2, 4), (3, 9), (4, 16), (5, 25)]);
/// assert!(left.iter().all(|&(i, sq)| i > 5 && sq == items[i] * items[i]));
/// ```
pub fn play_in_order<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    what: &str,
    interrupt: &AtomicBool,
    play: &Play<'_, T, R>,
    take: &mut dyn FnMut(usize, R) -> Flow,
) -> Vec<(usize, R)> {
    if items.is_empty() {
        return Vec::new();
    }
    let workers = workers.clamp(1, items.len());
    let pool = super::local::pool(workers, what).expect("cannot start game threads");
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    let mut pending: BTreeMap<usize, R> = BTreeMap::new();
    std::thread::scope(|scope| {
        let (next, stop, pool) = (&next, &stop, &pool);
        let abandon = move || stop.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed);
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let tx = tx.clone();
                    s.spawn(move |_| {
                        while !abandon() {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(k) else { break };
                            let Some(done) = play(item, &abandon) else {
                                break;
                            };
                            if tx.send((k, done)).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
        });
        let mut taken = 0;
        for (k, done) in rx {
            pending.insert(k, done);
            while !stop.load(Ordering::Relaxed)
                && let Some(done) = pending.remove(&taken)
            {
                taken += 1;
                if take(taken - 1, done) == Flow::Stop {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    pending.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Items that take longer the smaller they are, so that they finish out of order.
    fn slow(n: &u64) -> u64 {
        std::thread::sleep(Duration::from_millis(20 - n % 20));
        n * 3 + 1
    }

    fn all_taken(workers: usize) -> Vec<(usize, u64)> {
        let items: Vec<u64> = (0..40).collect();
        let mut taken = Vec::new();
        let left = play_in_order(
            &items,
            workers,
            "test",
            &AtomicBool::new(false),
            &|n, _| Some(slow(n)),
            &mut |i, r| {
                taken.push((i, r));
                Flow::Go
            },
        );
        assert!(left.is_empty());
        taken
    }

    #[test]
    fn every_item_is_taken_once_in_order_at_any_thread_count() {
        let one = all_taken(1);
        assert_eq!(
            one,
            (0..40).map(|i| (i, i as u64 * 3 + 1)).collect::<Vec<_>>()
        );
        assert_eq!(all_taken(4), one);
        assert_eq!(all_taken(64), one);
        let none = play_in_order(
            &[] as &[u64],
            4,
            "test",
            &AtomicBool::new(false),
            &|n, _| Some(*n),
            &mut |_, _| unreachable!("nothing to take"),
        );
        assert!(none.is_empty());
    }

    #[test]
    fn a_stop_ends_the_work_and_keeps_what_finished_beyond_it_apart() {
        let items: Vec<u64> = (0..40).collect();
        let started = AtomicUsize::new(0);
        let mut taken = Vec::new();
        let mut started_at_stop = 0;
        let left = play_in_order(
            &items,
            3,
            "test",
            &AtomicBool::new(false),
            &|n, _| {
                started.fetch_add(1, Ordering::Relaxed);
                Some(slow(n))
            },
            &mut |i, _| {
                taken.push(i);
                if i < 4 {
                    return Flow::Go;
                }
                started_at_stop = started.load(Ordering::Relaxed);
                Flow::Stop
            },
        );
        assert_eq!(taken, [0, 1, 2, 3, 4]);
        // After the stop a worker starts at most the item it was already taking.
        assert!(started.load(Ordering::Relaxed) <= started_at_stop + 3);
        assert!(started_at_stop < items.len());
        assert!(left.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(left.iter().all(|&(i, r)| i > 4 && r == i as u64 * 3 + 1));
    }

    #[test]
    fn an_interrupt_abandons_the_items_in_flight_and_starts_none() {
        let items: Vec<u64> = (0..40).collect();
        let interrupt = AtomicBool::new(false);
        let started = AtomicUsize::new(0);
        let mut taken = Vec::new();
        let left = play_in_order(
            &items,
            2,
            "test",
            &interrupt,
            &|&n, abandon| {
                started.fetch_add(1, Ordering::Relaxed);
                if n == 6 {
                    interrupt.store(true, Ordering::Relaxed);
                }
                // An item after it is in flight until the interrupt, then given up.
                while n > 6 && !abandon() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                (!abandon()).then_some(n)
            },
            &mut |i, n| {
                taken.push((i, n));
                Flow::Go
            },
        );
        // The items finished before the interrupt are taken in order up to the first one
        // abandoned (which one that is depends on the threads' timing); those finished beyond
        // it come back; no item after the interrupt gives a result, and none starts but the
        // one the other worker had taken.
        let in_order = |k: usize, &(i, n): &(usize, u64)| k == i && n == i as u64;
        assert!(
            taken.iter().enumerate().all(|(k, t)| in_order(k, t)),
            "{taken:?}"
        );
        assert!(taken.len() <= 6, "{taken:?}");
        let beyond = |&(i, n): &(usize, u64)| i > taken.len() && i < 6 && n == i as u64;
        assert!(left.iter().all(beyond), "{left:?} after {taken:?}");
        assert!(started.load(Ordering::Relaxed) <= 8);
    }
}
