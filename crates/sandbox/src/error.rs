//! Errors of the sandbox: each names the step, the program and, where there is one, the tail of its stderr.

use std::io;
use std::time::Duration;

/// Why starting, using or stopping a sandbox failed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A [`crate::SandboxOptions`] value cannot work (bad size, depth, colour, display number).
    #[error("invalid sandbox option: {0}")]
    InvalidOption(String),

    /// A program the sandbox needs is not installed.
    #[error(
        "`{program}` was not found ({searched}); install the Debian package `{package}` \
         (scripts/setup-desktop installs everything the sandbox needs)"
    )]
    MissingProgram {
        /// The program's name, e.g. `Xvfb`.
        program: String,
        /// The Debian package that ships it.
        package: &'static str,
        /// Where it was looked for.
        searched: String,
    },

    /// A process could not be started at all.
    #[error("could not start {step} (`{program}`): {source}")]
    Spawn {
        /// The start-up step, e.g. `X server`.
        step: &'static str,
        /// The program.
        program: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },

    /// A step did not become ready in time.
    #[error("{step} did not become ready within {} ms{}", timeout.as_millis(), fmt_tail(.stderr))]
    Timeout {
        /// The start-up step.
        step: &'static str,
        /// The bound that was exceeded.
        timeout: Duration,
        /// The last lines the step's process wrote to stderr.
        stderr: String,
    },

    /// A process exited while it should have been starting up or serving.
    #[error("{step} exited before it was ready ({status}){}", fmt_tail(.stderr))]
    ExitedEarly {
        /// The start-up step.
        step: &'static str,
        /// Its exit status, as text.
        status: String,
        /// The last lines it wrote to stderr.
        stderr: String,
    },

    /// A step ran but reported failure (non-zero exit, unexpected answer).
    #[error("{step} failed: {detail}{}", fmt_tail(.stderr))]
    StepFailed {
        /// The step.
        step: &'static str,
        /// What went wrong.
        detail: String,
        /// The last lines of stderr, if any.
        stderr: String,
    },

    /// The requested display number is taken, or no free one was found.
    #[error("display {0}")]
    Display(String),

    /// A filesystem or OS call failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },

    /// A signal handler could not be installed (or one is already installed by this crate).
    #[error("signal handling: {0}")]
    Signals(String),

    /// A SIGINT/SIGTERM/SIGHUP arrived before the command could be started.
    #[error("interrupted by signal {0} before the command started")]
    Interrupted(i32),

    /// Teardown finished but left something behind.
    #[error("sandbox teardown incomplete: {detail}")]
    Teardown {
        /// PIDs still alive after SIGKILL.
        survivors: Vec<u32>,
        /// A human-readable summary.
        detail: String,
    },
}

impl SandboxError {
    pub(crate) fn io(what: impl Into<String>, source: io::Error) -> Self {
        SandboxError::Io { what: what.into(), source }
    }
}

fn fmt_tail(stderr: &str) -> String {
    let t = stderr.trim();
    if t.is_empty() {
        String::new()
    } else {
        format!("; stderr: {t}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_package_and_the_stderr_tail() {
        let e = SandboxError::MissingProgram {
            program: "at-spi-bus-launcher".into(),
            package: "at-spi2-core",
            searched: "/usr/libexec and PATH".into(),
        };
        let msg = e.to_string();
        assert!(msg.contains("at-spi-bus-launcher") && msg.contains("`at-spi2-core`"), "{msg}");
        let e = SandboxError::Timeout {
            step: "window manager (openbox)",
            timeout: Duration::from_secs(10),
            stderr: "cannot open display".into(),
        };
        assert_eq!(
            e.to_string(),
            "window manager (openbox) did not become ready within 10000 ms; stderr: cannot open display"
        );
        let e = SandboxError::Timeout { step: "X", timeout: Duration::from_millis(5), stderr: " ".into() };
        assert_eq!(e.to_string(), "X did not become ready within 5 ms");
    }
}
