//! Independent items worked on over the machine's cores, their results in the items' order, so
//! what comes out does not depend on how many threads there were: one core (or the WASM build)
//! works through them in turn and gets the same result.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Below this much work (in the caller's units, say keys) threads are not started: starting and
/// joining them costs more than they save.
pub const WORTH_THREADS: usize = 200_000;

/// `f` of every item, in order: over threads when `work` reaches `WORTH_THREADS`, each thread
/// taking the next item not yet taken (items of very different sizes share out evenly).
pub fn map<T: Sync, R: Send>(items: &[T], work: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    // The WASM fallback works through them in turn: its threads are the host's workers, started
    // on demand, which would cost more than these items take.
    let cores = if cfg!(target_family = "wasm") { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
    let threads = cores.min(items.len());
    if threads < 2 || work < WORTH_THREADS {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order_with_or_without_threads() {
        let items: Vec<u64> = (0..1000).collect();
        let slow = |&n: &u64| (0..(n % 7) * 1000).fold(n, |h, k| h.wrapping_mul(31).wrapping_add(k));
        let alone = map(&items, 0, slow);
        let threaded = map(&items, WORTH_THREADS, slow);
        assert_eq!(alone, threaded);
        assert_eq!(alone[3], slow(&3));
        assert!(map(&Vec::<u64>::new(), WORTH_THREADS, slow).is_empty());
    }

    #[test]
    fn a_panic_in_an_item_reaches_the_caller() {
        let items: Vec<u32> = (0..64).collect();
        let outcome = std::panic::catch_unwind(|| map(&items, WORTH_THREADS, |&n| if n == 40 { panic!("item 40") } else { n }));
        assert!(outcome.is_err());
    }
}
