//! The desktop service's answers beside MCP, on the same HTTP listener: liveness (`GET /healthz`),
//! readiness (`GET /readyz`), reset (`POST /reset`) and, when the server offers them, a harness's task
//! set-up (`PUT`/`GET /files/PATH`, `POST /run`). A fleet manager reads the first two; an evaluation or
//! RL harness calls the others between and around tasks.
//!
//! Compatibility as for the `computer` result: fields are only added within a [`SERVICE_VERSION`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of these answers.
pub const SERVICE_VERSION: u32 = 1;

/// `GET /healthz`: whether the process can still serve (its engine thread runs and its desktop's own
/// processes are alive). A failing answer means restart it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    pub version: u32,
    pub alive: bool,
    /// What is broken, when something is.
    pub problem: Option<String>,
}

/// `GET /readyz`: whether the desktop takes calls. Ready only once a first real observation of the
/// screen succeeded (capture, accessibility, OCR), and not after a reset that could not clean up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Readiness {
    pub version: u32,
    pub ready: bool,
    /// Why not, when not.
    pub why: Option<String>,
    /// How long the first observation took, once it ran.
    pub first_observation_ms: Option<u64>,
    /// Elements it listed.
    pub elements: Option<usize>,
    /// Resets done since the server started.
    pub resets: u64,
}

/// `POST /reset`'s body (all optional; an empty body is an empty request). The next task's turn can be
/// named here, as a host names turns in `_meta`; calls that name the same turn continue it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    /// The new turn's id (else the next inferred one: `default#N`).
    #[serde(default)]
    pub turn: Option<String>,
    /// The user's own words for the next task (backs destructive actions, as `handrail/intent` does).
    #[serde(default)]
    pub intent: Option<String>,
    /// `interactive` or `unattended`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Record the next task's calls as a trace of its own (the server needs `--task-traces DIR`).
    #[serde(default)]
    pub trace: bool,
}

/// An app the reset closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClosedApp {
    pub pid: u32,
    /// The process name (`chromium`, `mousepad`, …).
    pub name: String,
    /// Titles of the windows it had open.
    pub windows: Vec<String>,
    /// It ignored SIGTERM and was killed.
    pub forced: bool,
}

/// What happened to the managed browser's profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BrowserProfile {
    /// The old profile directory was removed; the next browser start gets a new, empty one.
    Replaced,
    /// There was none (the browser had not been started since the last reset).
    Fresh,
}

/// Whether anything can still be pasted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClipboardState {
    /// Every selection (clipboard, primary, secondary) is unowned, read back from the display server.
    Empty,
    /// A selection still has an owner.
    NotEmpty,
    /// The display server cannot be asked (Wayland without a data-control protocol); every app that
    /// could own one was closed.
    OwnersClosed,
}

/// How long each step of a reset took, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResetTimings {
    /// Waiting for the call in progress (cancelled) and any queued before the reset.
    pub queued: u64,
    pub close_apps: u64,
    /// Windows left, their clients, the selections.
    pub display: u64,
    pub browser_profile: u64,
    /// Files the last task left in the private home.
    pub home: u64,
    /// The new turn and the trace.
    pub turn: u64,
    pub total: u64,
}

/// The task trace a reset finished or began.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TaskTraces {
    /// The trace of the task that ended (its `report.html` is written).
    pub finished: Option<String>,
    /// The folder the next task's calls are recorded in.
    pub recording: Option<String>,
}

/// `POST /reset`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResetReport {
    pub version: u32,
    /// No app, no window and nothing on the clipboard is left: the desktop is as it was when it became
    /// ready. A reset that is not clean makes the service unready.
    pub clean: bool,
    /// The turn now in effect: every observation id from before is stale.
    pub turn: String,
    pub closed: Vec<ClosedApp>,
    /// Windows closed by ending their X client (their process was not one of the sandbox's apps).
    pub windows_closed: Vec<String>,
    /// Titles of windows still open afterwards (none when clean).
    pub windows_left: Vec<String>,
    /// Processes still alive afterwards, as `name (pid)`.
    pub apps_left: Vec<String>,
    pub browser_profile: BrowserProfile,
    pub clipboard: ClipboardState,
    /// Entries of the private home the last task created, removed (paths relative to the home).
    pub home_removed: Vec<String>,
    pub traces: TaskTraces,
    pub duration_ms: u64,
    pub timings_ms: ResetTimings,
}

/// `PUT /files/PATH`'s answer: the file is in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileWritten {
    pub version: u32,
    /// Where it is inside the desktop (absolute), for the commands and apps that open it.
    pub path: String,
    pub bytes: u64,
}

/// `POST /run`'s body: a command run inside the desktop's session (its display, buses and home), the
/// way a harness sets a task up (`gsettings set …`, `libreoffice --calc report.xlsx`) or checks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The program and its arguments (no shell: use `["sh", "-c", "…"]` for one).
    pub argv: Vec<String>,
    /// Wait for it to exit and answer with its output (the default), or answer once it started and
    /// leave it running as one of the desktop's apps.
    #[serde(default = "waits")]
    pub wait: bool,
    /// When waiting: how long at most, in milliseconds (default 30,000, at most 600,000); then it is
    /// killed with everything it started.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

fn waits() -> bool {
    true
}

/// `POST /run`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    pub version: u32,
    pub pid: u32,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// It ran past `timeout_ms` and was killed.
    pub timed_out: bool,
    /// Not waited for: it runs on (a reset closes it).
    pub running: bool,
    /// The start of its standard output and error (UTF-8, invalid bytes replaced; at most 64 KiB each).
    pub stdout: String,
    pub stderr: String,
    /// An output was longer than 64 KiB and was cut.
    pub truncated: bool,
    pub duration_ms: u64,
}

/// An error answer of the service endpoints (bad request, no reset on this desktop, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServiceError {
    pub version: u32,
    pub error: String,
}

impl ServiceError {
    pub fn new(error: impl Into<String>) -> Self {
        Self { version: SERVICE_VERSION, error: error.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_requests_refuse_unknown_fields_and_take_an_empty_object() {
        assert_eq!(serde_json::from_str::<ResetRequest>("{}").ok(), Some(ResetRequest::default()));
        let named: ResetRequest =
            serde_json::from_str(r#"{"turn": "task-1", "mode": "unattended", "trace": true}"#).expect("decodes");
        assert_eq!(named.turn.as_deref(), Some("task-1"));
        assert!(named.trace);
        assert!(serde_json::from_str::<ResetRequest>(r#"{"turns": "x"}"#).is_err());
        assert!(serde_json::from_str::<ResetRequest>(r#"{"trace": "yes"}"#).is_err());
    }

    #[test]
    fn run_requests_wait_by_default_and_refuse_unknown_fields() {
        let plain: RunRequest = serde_json::from_str(r#"{"argv": ["true"]}"#).expect("decodes");
        assert_eq!(plain, RunRequest { argv: vec!["true".into()], wait: true, timeout_ms: None });
        let detached: RunRequest = serde_json::from_str(r#"{"argv": ["app"], "wait": false}"#).expect("decodes");
        assert!(!detached.wait);
        assert!(serde_json::from_str::<RunRequest>(r#"{"argv": "true"}"#).is_err());
        assert!(serde_json::from_str::<RunRequest>(r#"{"argv": ["true"], "shell": true}"#).is_err());
        assert!(serde_json::from_str::<RunRequest>(r#"{}"#).is_err());
    }
}
