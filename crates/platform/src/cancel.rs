//! Cancelling a call that is waiting: the edge that received the call sets the flag (its client
//! cancelled the request); waits that check it stop at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A shared flag: cancelled once, cancelled for good. Cheap to clone; every clone sees the same flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

/// How long a wait that checks a [`Cancel`] may go without looking at it.
pub const CANCEL_CHECK_EVERY: Duration = Duration::from_millis(20);

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// How long a wait may sleep at once: all of `left` when nothing can cancel it, else at most
/// [`CANCEL_CHECK_EVERY`], so a cancel is seen in time.
pub fn wait_slice(cancel: Option<&Cancel>, left: Duration) -> Duration {
    match cancel {
        Some(_) => left.min(CANCEL_CHECK_EVERY),
        None => left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancellable_wait_sleeps_in_short_slices() {
        let long = Duration::from_secs(3);
        assert_eq!(wait_slice(None, long), long);
        assert_eq!(wait_slice(Some(&Cancel::new()), long), CANCEL_CHECK_EVERY);
        let short = Duration::from_millis(5);
        assert_eq!(wait_slice(Some(&Cancel::new()), short), short);
    }
}
