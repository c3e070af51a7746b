//! The room's clock for rules that span hours (the rathole window, R26): the wall clock
//! in production, or a clock that runs `room.clock_scale` times faster, so that a test or
//! a demonstration lives through hours of a room in minutes with the real server, its
//! database and its house bots. Timers of a hand (the action clock, the pause between
//! hands) always run in real time.

use poker_store::now_ms;
use std::time::Instant;

/// The room's time: milliseconds since the epoch, running `scale` times as fast as the
/// wall clock from the moment the server started.
#[derive(Clone, Copy, Debug)]
pub struct RoomClock {
    /// The wall clock when this clock was made, in milliseconds since the epoch.
    origin_ms: i64,
    /// The same moment on the monotonic clock, from which scaled time is measured.
    origin: Instant,
    /// How many room milliseconds pass per real millisecond (1: the wall clock).
    scale: u32,
}

impl Default for RoomClock {
    /// The wall clock.
    fn default() -> RoomClock {
        RoomClock::new(1)
    }
}

impl RoomClock {
    /// A clock running `scale` times as fast as the wall clock (0 counts as 1).
    pub fn new(scale: u32) -> RoomClock {
        RoomClock {
            origin_ms: now_ms(),
            origin: Instant::now(),
            scale: scale.max(1),
        }
    }

    /// The room's time now, in milliseconds since the epoch.
    pub fn now_ms(&self) -> i64 {
        if self.scale == 1 {
            return now_ms();
        }
        let real = self.origin.elapsed().as_millis() as i64;
        self.origin_ms + real.saturating_mul(i64::from(self.scale))
    }

    /// The room's time now, in whole seconds since the epoch.
    pub fn now_secs(&self) -> u64 {
        (self.now_ms() / 1000).max(0) as u64
    }

    /// How many room milliseconds pass per real one.
    pub fn scale(&self) -> u32 {
        self.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_scaled_clock_runs_that_many_times_faster_and_the_default_is_the_wall_clock() {
        let wall = RoomClock::default();
        assert!((wall.now_ms() - now_ms()).abs() < 1000);
        let fast = RoomClock::new(1000);
        let before = fast.now_ms();
        std::thread::sleep(Duration::from_millis(20));
        let room = fast.now_ms() - before;
        // 20 real milliseconds or more are at least 20 room seconds.
        assert!(room >= 20_000, "{room} room ms");
        assert_eq!(RoomClock::new(0).scale(), 1);
    }
}
