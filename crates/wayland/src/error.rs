//! Errors of the Wayland backend, and how they reach the engine.

use handrail_platform::PlatformError;

/// Why talking to the compositor failed.
#[derive(Debug, thiserror::Error)]
pub enum WaylandError {
    /// The compositor's socket could not be reached.
    #[error("cannot connect to the Wayland compositor at {path}: {reason}")]
    Connect { path: String, reason: String },
    /// The connection broke, or the compositor sent a protocol error.
    #[error("the Wayland connection failed: {0}")]
    Connection(String),
    /// The compositor lacks a protocol this part of the backend needs.
    #[error("the compositor does not offer {protocol} ({why})")]
    MissingProtocol { protocol: &'static str, why: &'static str },
    /// The compositor's own IPC (sway's) failed.
    #[error("compositor IPC: {0}")]
    Ipc(String),
    /// A system call failed (memfd, mmap, poll).
    #[error("{what}: {source}")]
    Os {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

impl WaylandError {
    pub(crate) fn os(what: &'static str) -> WaylandError {
        WaylandError::Os { what, source: std::io::Error::last_os_error() }
    }
}

impl From<wayland_client::DispatchError> for WaylandError {
    fn from(e: wayland_client::DispatchError) -> Self {
        WaylandError::Connection(e.to_string())
    }
}

impl From<wayland_client::backend::WaylandError> for WaylandError {
    fn from(e: wayland_client::backend::WaylandError) -> Self {
        WaylandError::Connection(e.to_string())
    }
}

impl From<WaylandError> for PlatformError {
    fn from(e: WaylandError) -> Self {
        match e {
            WaylandError::MissingProtocol { .. } => PlatformError::Unavailable(e.to_string()),
            other => PlatformError::Failed(other.to_string()),
        }
    }
}
