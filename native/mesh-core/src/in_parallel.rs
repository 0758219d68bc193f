//! Independent items worked on over the machine's cores, their results in the items' order, so
//! what comes out does not depend on how many threads there were: one core (or the WASM build)
//! works through them in turn and gets the same result.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Animation keys (or key values) from which tracks are read, judged or stored over several
/// threads: about 10 ms of work, against tens of microseconds to start and join a thread.
pub const KEYS_WORTH_THREADS: usize = 200_000;

/// How many threads to work on: the machine's cores when the caller judges the work worth them
/// (`threaded`: starting and joining a thread costs tens of microseconds), else one. The WASM
/// fallback always works on one: its threads are the host's workers, started on demand, which
/// would cost more than these items take.
pub fn threads(threaded: bool) -> usize {
    if !threaded || cfg!(target_family = "wasm") {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` of every item, in order: over `threads(threaded)` threads, each taking the next item not
/// yet taken (items of very different sizes share out evenly).
pub fn map<T: Sync, R: Send>(items: &[T], threaded: bool, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads(threaded).min(items.len());
    if threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let run = || loop {
        let n = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(n) else { break };
        let result = f(item);
        results.lock().unwrap_or_else(|e| e.into_inner())[n] = Some(result);
    };
    std::thread::scope(|scope| {
        // This thread is one of the workers; a thread the system will not start leaves its share
        // to the others.
        for _ in 1..threads {
            let _ = std::thread::Builder::new().spawn_scoped(scope, run);
        }
        run();
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|r| r.expect("every item was worked on")).collect()
}

/// `f` of each index below `count`, in order: over `threads(threaded)` threads, the indices cut
/// into two runs a thread, each run worked on by one (for items too cheap to be taken one by one).
pub fn indexed<R: Send>(count: usize, threaded: bool, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let threads = threads(threaded);
    if threads < 2 {
        return (0..count).map(f).collect();
    }
    let step = count.div_ceil(threads * 2).max(1);
    let starts: Vec<usize> = (0..count).step_by(step).collect();
    map(&starts, true, |&start| (start..(start + step).min(count)).map(&f).collect::<Vec<R>>()).into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order_with_or_without_threads() {
        let items: Vec<u64> = (0..1000).collect();
        let slow = |&n: &u64| (0..(n % 7) * 1000).fold(n, |h, k| h.wrapping_mul(31).wrapping_add(k));
        let alone = map(&items, false, slow);
        let threaded = map(&items, true, slow);
        assert_eq!(alone, threaded);
        assert_eq!(alone[3], slow(&3));
        assert!(map(&Vec::<u64>::new(), true, slow).is_empty());
    }

    #[test]
    fn indices_in_runs_answer_every_one_in_order_with_or_without_threads() {
        for count in [0, 1, 2, 3, 7, 1000, 1001] {
            let square = |i: usize| i * i;
            let expected: Vec<usize> = (0..count).map(square).collect();
            assert_eq!(indexed(count, true, square), expected);
            assert_eq!(indexed(count, false, square), expected);
        }
    }

    #[test]
    fn a_panic_in_an_item_reaches_the_caller() {
        let items: Vec<u32> = (0..64).collect();
        let outcome = std::panic::catch_unwind(|| map(&items, true, |&n| if n == 40 { panic!("item 40") } else { n }));
        assert!(outcome.is_err());
    }
}
