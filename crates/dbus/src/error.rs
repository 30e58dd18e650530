//! What can go wrong talking to a message bus.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum DbusError {
    #[error("unsupported or malformed D-Bus address {0:?}")]
    Address(String),
    #[error("D-Bus I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("D-Bus authentication failed: {0}")]
    Auth(String),
    #[error("D-Bus protocol error: {0}")]
    Protocol(String),
    #[error("no answer to {what} within {after:?}")]
    Timeout { what: &'static str, after: Duration },
    #[error("{name}: {message}")]
    Remote { name: String, message: String },
    #[error("the D-Bus connection is closed")]
    Closed,
}
