//! Errors of the X11 backend.

use handrail_platform::PlatformError;

/// What went wrong talking to the X server.
#[derive(Debug, thiserror::Error)]
pub enum X11Error {
    #[error("cannot connect to X display {display}: {reason}")]
    Connect { display: String, reason: String },
    #[error("the X server lacks the {0} extension")]
    MissingExtension(&'static str),
    #[error("X connection error: {0}")]
    Connection(#[from] x11rb::errors::ConnectionError),
    #[error("X request failed: {0}")]
    Reply(#[from] x11rb::errors::ReplyError),
    #[error("X request failed: {0}")]
    ReplyOrId(#[from] x11rb::errors::ReplyOrIdError),
    #[error("{0}")]
    Other(String),
}

impl From<X11Error> for PlatformError {
    fn from(e: X11Error) -> Self {
        match e {
            X11Error::MissingExtension(name) => PlatformError::Unavailable(format!("the X {name} extension")),
            other => PlatformError::Failed(other.to_string()),
        }
    }
}
