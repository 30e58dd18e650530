//! What the guest needs from the desktop it serves. The desktop side (a sandbox: its capture,
//! accessibility bus and session) implements [`GuestDesktop`]; the HTTP edge only translates.

use std::path::Path;
use std::time::Duration;

use handrail_platform::AxSnapshot;

/// Why a request was not carried out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuestError {
    /// The request is wrong; nothing changed.
    #[error("{0}")]
    BadRequest(String),
    /// The request names something outside what the desktop lets a harness reach.
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    TooLarge(String),
    /// The desktop could not do it.
    #[error("{0}")]
    Failed(String),
}

/// How a command that was waited for ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ran {
    pub exit_code: Option<i32>,
    /// The signal that ended it (the kill after a timeout included).
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// The exit status as Python's `subprocess` reports it: the code, or minus the signal.
    pub fn returncode(&self) -> i32 {
        self.exit_code.or(self.signal.map(|s| -s)).unwrap_or(-1)
    }
}

/// The desktop a guest serves. Calls block (capture, the bus, a command); the edge makes them off
/// its async runtime.
pub trait GuestDesktop: Send + Sync + 'static {
    /// The desktop user's private home (shown to tasks as `/home/user`).
    fn home(&self) -> &Path;
    /// The whole screen as PNG bytes.
    fn screenshot(&self) -> Result<Vec<u8>, GuestError>;
    /// The screen's size in pixels.
    fn screen_size(&self) -> Result<(u32, u32), GuestError>;
    /// The accessibility tree of every app on the desktop.
    fn accessibility(&self) -> Result<AxSnapshot, GuestError>;
    /// Runs `argv` in the desktop's session (in `cwd`, else the home) and waits at most `timeout`
    /// (then kills it and what it started).
    fn run(&self, argv: &[String], timeout: Duration, cwd: Option<&Path>) -> Result<Ran, GuestError>;
    /// Starts `argv` in the desktop's session and leaves it running, as one of its apps.
    fn launch(&self, argv: &[String]) -> Result<(), GuestError>;
    /// Writes `bytes` at `relative` under the home (folders made on the way).
    fn put_file(&self, relative: &str, bytes: &[u8]) -> Result<(), GuestError>;
    /// Reads the file at `relative` under the home, if at most `max` bytes.
    fn get_file(&self, relative: &str, max: u64) -> Result<Vec<u8>, GuestError>;
}
