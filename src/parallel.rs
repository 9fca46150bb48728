//! Order-preserving parallel map over a slice, on all cores, on rayon's
//! one pool of threads.

/// Maps `items` with `f` on up to `available_parallelism` threads; the result
/// is in input order. Small inputs are mapped on the calling thread.
pub fn map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    map_owned(items.iter().collect(), f)
}

/// Like [`map`], consuming the items.
pub fn map_owned<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    use rayon::prelude::*;
    if items.len() < 64 || threads() < 2 {
        return items.into_iter().map(&f).collect();
    }
    // One pool for the whole run: its threads (and their allocator
    // caches) are kept from batch to batch.
    items.into_par_iter().with_min_len(16).map(&f).collect()
}

/// The cores available, asked once: the standard library reads the
/// cgroup files under /proc and /sys on every call, which cost more than
/// checking a small message when it was asked per message.
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_input_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let out = super::map(&items, |x| x * 2);
        assert!(out.iter().enumerate().all(|(i, v)| *v == i as u64 * 2));
        let owned = super::map_owned(items, |x| x + 1);
        assert!(owned.iter().enumerate().all(|(i, v)| *v == i as u64 + 1));
    }
}
