//! Who gets a worker on a listening face (`serve`, the desk): a bound on
//! the connections open at once, on those one client address holds, on
//! the requests in hand, and a request rate per client address; and
//! `accept` errors that pass (no descriptor left) waited out instead of
//! ending the server.
//!
//! A connection is open while its request head is read (under a whole-head
//! deadline, so a byte a second does not extend it) and while it is
//! handled; only a connection whose head has arrived takes one of the
//! `max_connections` places. Clients that never finish their head hold
//! their own threads, not the places of requests that did arrive; and one
//! client address takes at most half the places, so that requests that
//! arrived and then trickle their bodies leave room for everyone else.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many connections may be open for each place among requests in hand.
pub const OPEN_PER_PLACE: usize = 16;

/// The fewest connections that may be open, however few the places.
pub const MIN_OPEN: usize = 1024;

/// The default `--max-per-client`.
pub const MAX_PER_CLIENT: usize = 256;

/// The bounds of one listening face.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Requests handled at once (their head arrived); more get 503.
    pub max_connections: usize,
    /// Connections one client address may hold open; more are closed.
    pub max_per_client: usize,
    /// Requests per second allowed from one client address; more get 429.
    pub rate: Option<u32>,
}

/// The counts behind [`Limits`], shared by the accepting thread and the workers.
#[derive(Debug)]
pub struct Admission {
    pub limits: Limits,
    open: AtomicUsize,
    in_hand: AtomicUsize,
    per_client: Mutex<HashMap<IpAddr, Held>>,
    /// Each client's token bucket: tokens left, when last filled.
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Admission {
    pub fn new(limits: Limits) -> Arc<Admission> {
        Arc::new(Admission {
            limits: Limits {
                max_connections: limits.max_connections.max(1),
                max_per_client: limits.max_per_client.max(1),
                ..limits
            },
            open: AtomicUsize::new(0),
            in_hand: AtomicUsize::new(0),
            per_client: Mutex::default(),
            buckets: Mutex::default(),
        })
    }

    /// The most connections open at once.
    pub fn max_open(&self) -> usize {
        self.limits
            .max_connections
            .saturating_mul(OPEN_PER_PLACE)
            .max(MIN_OPEN)
    }

    /// Connections open now (read or handled).
    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// What `accept` gave, admitted: the connection (blocking) and its
    /// ticket, or `None` to go on — an error that passes waited out
    /// ([`AcceptBackoff`]), or a connection closed at once because the
    /// server or its client holds too many. `Err` for an error that does
    /// not pass.
    pub fn take(
        self: &Arc<Self>,
        accepted: std::io::Result<(std::net::TcpStream, std::net::SocketAddr)>,
        backoff: &mut AcceptBackoff,
    ) -> std::io::Result<Option<(std::net::TcpStream, Ticket)>> {
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Ok(None),
            Err(e) => return backoff.failed(e).map(|()| None),
        };
        backoff.succeeded();
        let Some(ticket) = self.connect(peer.ip()) else {
            return Ok(None);
        };
        stream.set_nonblocking(false)?;
        Ok(Some((stream, ticket)))
    }

    /// A connection from `peer`: its ticket, or `None` (close it at once)
    /// when the server holds as many as it may, or this client does.
    pub fn connect(self: &Arc<Self>, peer: IpAddr) -> Option<Ticket> {
        if self.open.load(Ordering::SeqCst) >= self.max_open() {
            return None;
        }
        let mut clients = self.per_client.lock().ok()?;
        let held = clients.entry(peer).or_default();
        if held.open >= self.limits.max_per_client {
            return None;
        }
        held.open += 1;
        self.open.fetch_add(1, Ordering::SeqCst);
        Some(Ticket {
            admission: Arc::clone(self),
            peer,
            in_hand: false,
        })
    }
}

/// What one client address holds.
#[derive(Debug, Default)]
struct Held {
    /// Connections open.
    open: usize,
    /// Places among the requests in hand.
    in_hand: usize,
}

/// One admitted connection; dropping it gives its places back.
#[derive(Debug)]
pub struct Ticket {
    admission: Arc<Admission>,
    peer: IpAddr,
    in_hand: bool,
}

impl Ticket {
    /// Its request's head arrived: takes a place among the requests in
    /// hand, or says there is none (503).
    /// One client address gets at most half the places (one, when there
    /// is one).
    pub fn start(&mut self) -> bool {
        if self.in_hand {
            return true;
        }
        let admission = &self.admission;
        let Ok(mut clients) = admission.per_client.lock() else {
            return false;
        };
        let Some(held) = clients.get_mut(&self.peer) else {
            return false;
        };
        let share = (admission.limits.max_connections / 2).max(1);
        if held.in_hand >= share {
            return false;
        }
        let taken = admission
            .in_hand
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < admission.limits.max_connections).then_some(n + 1)
            })
            .is_ok();
        held.in_hand += usize::from(taken);
        self.in_hand = taken;
        taken
    }

    /// The client's token bucket: true when this request is one too many.
    pub fn over_rate(&self) -> bool {
        let Some(rate) = self.admission.limits.rate else {
            return false;
        };
        let Ok(mut buckets) = self.admission.buckets.lock() else {
            return false;
        };
        let now = Instant::now();
        let full = f64::from(rate);
        // Forget clients whose bucket is full again (bounded memory).
        if buckets.len() > 4096 {
            buckets.retain(|_, (tokens, last)| {
                *tokens + now.duration_since(*last).as_secs_f64() * full < full
            });
        }
        let (tokens, last) = buckets.entry(self.peer).or_insert((full, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * full).min(full);
        *last = now;
        if *tokens < 1.0 {
            return true;
        }
        *tokens -= 1.0;
        false
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let admission = &self.admission;
        if self.in_hand {
            admission.in_hand.fetch_sub(1, Ordering::SeqCst);
        }
        admission.open.fetch_sub(1, Ordering::SeqCst);
        if let Ok(mut clients) = admission.per_client.lock()
            && let Some(held) = clients.get_mut(&self.peer)
        {
            held.open -= 1;
            held.in_hand -= usize::from(self.in_hand);
            if held.open == 0 {
                clients.remove(&self.peer);
            }
        }
    }
}

/// Waits out `accept` errors that pass — no descriptor left (EMFILE,
/// ENFILE), no memory for a socket, a connection aborted before it was
/// taken — sleeping longer each time in a row, up to a second, and saying
/// so on stderr at most every ten seconds.
#[derive(Debug, Default)]
pub struct AcceptBackoff {
    delay: Duration,
    warned: Option<Instant>,
}

impl AcceptBackoff {
    /// A connection was taken: the next failure waits the shortest time.
    pub fn succeeded(&mut self) {
        self.delay = Duration::ZERO;
    }

    /// Waits after `e`, or gives it back when it does not pass.
    pub fn failed(&mut self, e: std::io::Error) -> std::io::Result<()> {
        use rustix::io::Errno;
        let passes = Errno::from_io_error(&e).is_some_and(|errno| {
            [
                Errno::MFILE,
                Errno::NFILE,
                Errno::NOBUFS,
                Errno::NOMEM,
                Errno::CONNABORTED,
                Errno::PROTO,
            ]
            .contains(&errno)
        });
        if !passes {
            return Err(e);
        }
        if self
            .warned
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(10))
        {
            eprintln!("aiproto: warning: cannot take a connection ({e}); waiting, still serving");
            self.warned = Some(Instant::now());
        }
        self.delay = (self.delay * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
        std::thread::sleep(self.delay);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_taken_and_given_back_per_client() {
        let admission = Admission::new(Limits {
            max_connections: 1,
            max_per_client: 2,
            rate: None,
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let mut first = admission.connect(a).unwrap();
        let second = admission.connect(a).unwrap();
        assert!(admission.connect(a).is_none(), "a third from one client");
        let mut other = admission.connect(b).unwrap();
        assert!(first.start());
        assert!(!other.start(), "one request in hand at a time");
        drop(first);
        assert!(other.start());
        drop(second);
        assert!(admission.connect(a).is_some());
        drop(other);
        assert_eq!(admission.open(), 0);
    }

    #[test]
    fn one_client_takes_at_most_half_the_places() {
        let admission = Admission::new(Limits {
            max_connections: 4,
            max_per_client: 100,
            rate: None,
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let mut mine: Vec<Ticket> = (0..3).map(|_| admission.connect(a).unwrap()).collect();
        assert!(mine[0].start() && mine[1].start());
        assert!(!mine[2].start(), "a third place of four to one client");
        let mut other = admission.connect(b).unwrap();
        assert!(other.start(), "the others' half");
        mine.truncate(1);
        assert!(admission.connect(a).unwrap().start(), "a place given back");
    }

    #[test]
    fn the_rate_is_counted_per_client() {
        let admission = Admission::new(Limits {
            max_connections: 8,
            max_per_client: 8,
            rate: Some(2),
        });
        let a = admission.connect("10.0.0.1".parse().unwrap()).unwrap();
        let b = admission.connect("10.0.0.2".parse().unwrap()).unwrap();
        assert!(!a.over_rate() && !a.over_rate());
        assert!(a.over_rate(), "a third request within the second");
        assert!(!b.over_rate(), "another client has its own bucket");
    }

    #[test]
    fn running_out_of_descriptors_is_waited_out_and_other_errors_are_not() {
        let mut backoff = AcceptBackoff::default();
        let error =
            |errno: rustix::io::Errno| std::io::Error::from_raw_os_error(errno.raw_os_error());
        assert!(backoff.failed(error(rustix::io::Errno::MFILE)).is_ok());
        assert!(backoff.failed(error(rustix::io::Errno::MFILE)).is_ok());
        assert_eq!(backoff.delay, Duration::from_millis(20));
        backoff.succeeded();
        assert!(backoff.failed(error(rustix::io::Errno::BADF)).is_err());
    }
}
