//! A client-side limit of requests per minute over a sliding 60-second
//! window, so that a free API tier is never pushed into 429s.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);

/// Allows at most `rpm` requests in any 60 seconds.
#[derive(Debug)]
pub struct RateLimiter {
    rpm: usize,
    sent: Mutex<VecDeque<Instant>>,
}

impl RateLimiter {
    /// A limiter of `rpm` requests a minute (0 means no limit).
    pub fn new(rpm: u32) -> Self {
        RateLimiter {
            rpm: rpm as usize,
            sent: Mutex::new(VecDeque::new()),
        }
    }

    /// Takes a slot at `now` and returns `None`, or returns how long to wait.
    pub fn try_acquire(&self, now: Instant) -> Option<Duration> {
        if self.rpm == 0 {
            return None;
        }
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        while sent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= WINDOW)
        {
            sent.pop_front();
        }
        if sent.len() < self.rpm {
            sent.push_back(now);
            return None;
        }
        let oldest = *sent.front()?;
        Some(WINDOW - now.duration_since(oldest))
    }

    /// Waits for a slot.
    pub fn acquire(&self) {
        while let Some(wait) = self.try_acquire(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_window_waits_for_its_oldest_request() {
        let limiter = RateLimiter::new(2);
        let t0 = Instant::now();
        assert_eq!(limiter.try_acquire(t0), None);
        assert_eq!(limiter.try_acquire(t0 + Duration::from_secs(10)), None);
        assert_eq!(
            limiter.try_acquire(t0 + Duration::from_secs(20)),
            Some(Duration::from_secs(40))
        );
        // When the first request leaves the window, a slot opens.
        assert_eq!(limiter.try_acquire(t0 + Duration::from_secs(60)), None);
        assert_eq!(
            limiter.try_acquire(t0 + Duration::from_secs(61)),
            Some(Duration::from_secs(9))
        );
    }

    #[test]
    fn zero_means_unlimited() {
        let limiter = RateLimiter::new(0);
        let t0 = Instant::now();
        for _ in 0..1000 {
            assert_eq!(limiter.try_acquire(t0), None);
        }
    }
}
