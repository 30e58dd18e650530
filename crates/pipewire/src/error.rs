//! What can go wrong reading a PipeWire stream.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum PipewireError {
    /// The library is not installed (or not PipeWire 0.3/1.x): nothing can be streamed.
    #[error("PipeWire is not available: {0}")]
    Unavailable(String),
    #[error("could not reach the PipeWire daemon: {0}")]
    Connect(String),
    #[error("{0} failed")]
    Failed(&'static str),
    /// The stream failed or its producer went away.
    #[error("PipeWire stream: {0}")]
    Stream(String),
    #[error("{0}")]
    Invalid(String),
}
