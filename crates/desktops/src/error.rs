//! Why a desktop could not be opened, reset or stopped.

/// A failed step, or a request this system cannot meet.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// A step failed; `doing` says which ("connecting to X display :1"), the source why.
    #[error("{doing}")]
    Step {
        doing: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// What was asked cannot be done here; the message says why and what to do instead.
    #[error("{0}")]
    Refused(String),
}

pub type Result<T, E = DesktopError> = std::result::Result<T, E>;

/// Names the step a fallible call was, as its error's context.
#[cfg_attr(not(any(target_os = "linux", target_os = "macos")), allow(dead_code))]
pub(crate) trait Doing<T> {
    fn doing(self, what: &str) -> Result<T>;
    // Only Linux's desktops name steps after what they connect to.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn doing_with(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> Doing<T> for std::result::Result<T, E> {
    fn doing(self, what: &str) -> Result<T> {
        self.map_err(|e| DesktopError::Step { doing: what.to_owned(), source: Box::new(e) })
    }

    fn doing_with(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| DesktopError::Step { doing: what(), source: Box::new(e) })
    }
}

/// Refuses with a message (Linux's desktops refuse sessions they cannot drive).
#[cfg_attr(not(target_os = "linux"), allow(unused_macros))]
macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err($crate::error::DesktopError::Refused(format!($($arg)*)))
    };
}
#[cfg_attr(not(target_os = "linux"), allow(unused_imports))]
pub(crate) use refuse;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_names_itself_and_keeps_its_cause() {
        let e = std::fs::read("/nonexistent/handrail").doing("reading the token").expect_err("no such file");
        assert_eq!(e.to_string(), "reading the token");
        let cause = std::error::Error::source(&e).map(|s| s.to_string()).unwrap_or_default();
        assert!(cause.contains("No such file"), "{cause}");
    }
}
