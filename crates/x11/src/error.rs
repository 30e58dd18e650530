//! Errors of the X11 backend.

use handrail_platform::PlatformError;
use x11rb::errors::{ConnectionError, ReplyError, ReplyOrIdError};

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

impl X11Error {
    /// The connection's own failure when the connection itself broke (the server went away), as
    /// opposed to one request being refused: then every later request fails the same way.
    pub fn lost_connection(&self) -> Option<&ConnectionError> {
        let conn = match self {
            X11Error::Connection(c)
            | X11Error::Reply(ReplyError::ConnectionError(c))
            | X11Error::ReplyOrId(ReplyOrIdError::ConnectionError(c)) => c,
            _ => return None,
        };
        matches!(conn, ConnectionError::IoError(_) | ConnectionError::UnknownError).then_some(conn)
    }
}

impl From<X11Error> for PlatformError {
    fn from(e: X11Error) -> Self {
        match e {
            X11Error::MissingExtension(name) => PlatformError::Unavailable(format!("the X {name} extension")),
            // Said plainly: "Broken pipe" alone does not tell the model (or a person reading the
            // audit log) that no call can work any more.
            other => match other.lost_connection() {
                Some(cause) => PlatformError::Failed(format!(
                    "the X server is gone (its connection closed: {cause}); no call can reach the desktop until \
                     handrail is started on a running display"
                )),
                None => PlatformError::Failed(other.to_string()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_connection_says_the_server_is_gone() {
        let broken = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        for e in [
            X11Error::Connection(ConnectionError::IoError(broken)),
            X11Error::Reply(ReplyError::ConnectionError(ConnectionError::UnknownError)),
        ] {
            let said = PlatformError::from(e).to_string();
            assert!(said.starts_with("the X server is gone"), "{said}");
        }
        let refused = X11Error::Other("BadWindow".into());
        assert_eq!(PlatformError::from(refused).to_string(), "BadWindow");
    }
}
