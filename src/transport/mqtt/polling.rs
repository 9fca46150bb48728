//! An MQTT event loop driven in slices of time whose poll is never
//! cancelled: a connection still being made when a slice ends goes on in
//! the next one instead of starting again.
//!
//! rumqttc's blocking `Connection::recv_timeout` drops its poll when the
//! wait ends; a poll dropped while connecting throws the half-made
//! connection away, and the next one dials again. Every loop here waits in
//! slices of 50–500 ms (to see a signal, a deadline, an answer to send),
//! so a broker that needs longer for TCP, TLS and the CONNACK together (a
//! distant one, a loaded one, one hashing a password) was dialled again
//! and again and never reached, and each abandoned login cost it work.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

/// A poll under way: it gives the event loop back with what it produced.
type Underway<L, E> = Pin<Box<dyn Future<Output = (L, E)>>>;

/// An event loop `L` producing `E`, polled across calls of [`Polling::next`].
pub struct Polling<L, E> {
    runtime: tokio::runtime::Runtime,
    idle: Option<L>,
    underway: Option<Underway<L, E>>,
    poll: fn(L) -> Underway<L, E>,
}

impl<L, E> Polling<L, E> {
    /// `poll` starts one poll of the event loop it is given, and gives it back.
    pub fn new(event_loop: L, poll: fn(L) -> Underway<L, E>) -> Polling<L, E> {
        Polling {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a single-threaded tokio runtime builds"),
            idle: Some(event_loop),
            underway: None,
            poll,
        }
    }

    /// Up to `most` events into `events`: the first within `wait`, then
    /// those ready at once, all in one turn of the runtime (a publisher
    /// gets an event per message written: a turn for each took 8% more of
    /// `send --each`'s CPU at QoS 0). Nothing when none came
    /// within `wait`; the poll under way then stays for the next call. An
    /// event `go_on` refuses (a failure, after which the caller waits
    /// before the loop dials again) ends the batch.
    pub fn next_batch(
        &mut self,
        wait: Duration,
        most: usize,
        go_on: impl Fn(&E) -> bool,
        events: &mut Vec<E>,
    ) {
        let mut underway = match (self.underway.take(), self.idle.take()) {
            (Some(underway), _) => underway,
            (None, Some(event_loop)) => (self.poll)(event_loop),
            (None, None) => unreachable!("the event loop is either idle or being polled"),
        };
        let poll = self.poll;
        let after = self.runtime.block_on(async move {
            let (mut event_loop, event) = match tokio::time::timeout(wait, &mut underway).await {
                Ok(done) => done,
                Err(_) => return After::Underway(underway),
            };
            let mut more = go_on(&event);
            events.push(event);
            while more && events.len() < most {
                // Polled once: a poll not ready at once stays under way.
                let mut next = poll(event_loop);
                match std::future::poll_fn(|cx| Poll::Ready(next.as_mut().poll(cx))).await {
                    Poll::Ready((again, event)) => {
                        event_loop = again;
                        more = go_on(&event);
                        events.push(event);
                    }
                    Poll::Pending => return After::Underway(next),
                }
            }
            After::Idle(event_loop)
        });
        match after {
            After::Idle(event_loop) => self.idle = Some(event_loop),
            After::Underway(underway) => self.underway = Some(underway),
        }
    }
}

/// Where a turn of [`Polling::next_batch`] left the event loop.
enum After<L, E> {
    Idle(L),
    Underway(Underway<L, E>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A broker that takes 600 ms to answer a CONNECT (as a distant or a
    /// busy one does) is reached on the first connection by a client that
    /// looks every 50 ms; before, it was dialled again every slice, for ever.
    #[test]
    fn a_slow_connack_is_waited_for_not_dialled_again() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let dialled = Arc::new(AtomicUsize::new(0));
        let counted = dialled.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                counted.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let mut connect = [0u8; 256];
                    if stream.read(&mut connect).unwrap_or(0) == 0 {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(600));
                    let _ = stream.write_all(&[0x20, 0x02, 0x00, 0x00]);
                    // Held open until the client goes.
                    let _ = stream.read(&mut connect);
                });
            }
        });
        let options = rumqttc::MqttOptions::new("slow-connack", "127.0.0.1", port);
        let (_client, connection) = rumqttc::Client::new(options, 10);
        let mut polling = Polling::new(connection.eventloop, |mut event_loop| {
            Box::pin(async move {
                let event = event_loop.poll().await;
                (event_loop, event)
            })
        });
        let started = std::time::Instant::now();
        let connected = loop {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no CONNACK in 10 s"
            );
            let mut events = Vec::new();
            polling.next_batch(Duration::from_millis(50), 1, |_| true, &mut events);
            match events.pop() {
                Some(Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(ack)))) => break ack,
                Some(Err(e)) => panic!("the connection failed: {e}"),
                _ => {}
            }
        };
        assert_eq!(connected.code, rumqttc::ConnectReturnCode::Success);
        assert_eq!(dialled.load(Ordering::SeqCst), 1, "dialled more than once");
    }
}
