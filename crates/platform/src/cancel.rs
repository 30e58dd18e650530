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
