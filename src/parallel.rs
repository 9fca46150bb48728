//! Order-preserving parallel map over a slice, on all cores, on rayon's
//! one pool of threads.

/// Batches [`pipelined`] has checked at once, beside the one consumed.
const IN_FLIGHT: usize = 3;

/// Fewer items than this are mapped on the calling thread.
const SMALL: usize = 64;

/// Maps `items` with `f` on up to `available_parallelism` threads; the result
/// is in input order. Small inputs are mapped on the calling thread.
pub fn map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    map_owned(items.iter().collect(), f)
}

/// Like [`map`], consuming the items.
pub fn map_owned<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    use rayon::prelude::*;
    if items.len() < SMALL || threads() < 2 {
        return items.into_iter().map(&f).collect();
    }
    // One pool for the whole run: its threads (and their allocator
    // caches) are kept from batch to batch.
    items.into_par_iter().with_min_len(16).map(&f).collect()
}

/// Maps batches on the pool while the calling thread makes the next batch
/// and consumes the one before: reading and reporting overlap checking
/// instead of taking turns with it. Batches are consumed in order; at most
/// two are in flight, so memory stays bounded by the batch size. `produce`
/// gives `None` at the end; an error from either side stops the run (the
/// batch being checked is finished and dropped). A first batch of fewer
/// than 64 items is mapped on the calling thread, without the pool.
pub fn pipelined<T: Send + Sync, U: Send, E>(
    mut produce: impl FnMut() -> Result<Option<Vec<T>>, E>,
    f: impl Fn(&T) -> U + Sync + Send,
    mut consume: impl FnMut(Vec<T>, Vec<U>) -> Result<(), E>,
) -> Result<(), E> {
    let mut first = produce()?;
    if let Some(batch) = first.take_if(|b| b.len() < SMALL) {
        // A first batch this small is most often the whole input (batches
        // are full but the last): checked on this thread, without starting
        // the pool's threads, which a run over one small file would
        // otherwise pay for in its start-up.
        let out = batch.iter().map(&f).collect();
        consume(batch, out)?;
        first = produce()?;
    }
    let Some(first) = first else {
        return Ok(());
    };
    let f = &f;
    rayon::in_place_scope(|scope| {
        let mut ahead = Some(first);
        let mut in_flight = std::collections::VecDeque::with_capacity(IN_FLIGHT);
        let mut produced_all = false;
        loop {
            // Keep the pool fed: up to IN_FLIGHT batches checked at once,
            // so that it never waits while this thread reads and reports.
            while !produced_all && in_flight.len() < IN_FLIGHT {
                let batch = match ahead.take() {
                    Some(batch) => Some(batch),
                    None => produce()?,
                };
                let Some(batch) = batch else {
                    produced_all = true;
                    break;
                };
                let (done, result) = std::sync::mpsc::sync_channel(1);
                scope.spawn(move |_| {
                    let out = map(&batch, f);
                    let _ = done.send((batch, out));
                });
                in_flight.push_back(result);
            }
            let Some(result) = in_flight.pop_front() else {
                return Ok(());
            };
            // A job that panicked dropped its sender: the panic goes on
            // when the scope ends.
            if let Ok((batch, out)) = std::sync::mpsc::Receiver::recv(&result) {
                consume(batch, out)?;
            }
        }
    })
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
    fn pipelined_batches_are_consumed_in_order_and_errors_stop_it() {
        let mut next = 0;
        let mut seen = Vec::new();
        let produce = |next: &mut u64| {
            *next += 1;
            (*next <= 50).then(|| (0..100).map(|i| *next * 1000 + i).collect::<Vec<u64>>())
        };
        super::pipelined(
            || Ok::<_, ()>(produce(&mut next)),
            |x| x * 2,
            |batch, out| {
                assert_eq!(out, batch.iter().map(|x| x * 2).collect::<Vec<_>>());
                seen.push(batch[0] / 1000);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (1..=50).collect::<Vec<u64>>());
        let mut consumed = 0;
        let mut made = 0;
        let stopped = super::pipelined(
            || {
                made += 1;
                Ok(Some(vec![made; 10]))
            },
            |x| *x,
            |_, _| {
                consumed += 1;
                if consumed == 3 { Err("stop") } else { Ok(()) }
            },
        );
        assert_eq!(stopped, Err("stop"));
        assert_eq!(consumed, 3);
    }

    #[test]
    fn a_small_first_batch_is_checked_here_and_the_rest_still_on_the_pool() {
        let here = std::thread::current().id();
        let mut sizes = vec![3, 500, 500, 2].into_iter();
        let mut seen = Vec::new();
        super::pipelined(
            || Ok::<_, ()>(sizes.next().map(|n| vec![0u8; n])),
            |_| std::thread::current().id(),
            |batch, threads| {
                seen.push((batch.len(), threads.iter().all(|t| *t == here)));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, [(3, true), (500, false), (500, false), (2, false)]);
        let mut once = Some(vec![1, 2, 3]);
        let mut out = Vec::new();
        super::pipelined(
            || Ok::<_, ()>(once.take()),
            |x| x * 10,
            |_, o| {
                out.extend(o);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(out, [10, 20, 30]);
    }

    #[test]
    fn keeps_input_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let out = super::map(&items, |x| x * 2);
        assert!(out.iter().enumerate().all(|(i, v)| *v == i as u64 * 2));
        let owned = super::map_owned(items, |x| x + 1);
        assert!(owned.iter().enumerate().all(|(i, v)| *v == i as u64 + 1));
    }
}
