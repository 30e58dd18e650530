//! Returning the desktop to a clean state between tasks: every app closed, a fresh browser profile, the
//! clipboard empty, the home as it was, and a new turn so every observation id from before is stale.
//!
//! The call layer does the parts every desktop shares (the request, the turn, the task trace, the
//! report); a [`DesktopReset`] the edge provides does the desktop's own (a sandbox knows its apps and
//! its browser profile). Both run on the engine thread, between calls, never during one.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use handrail_core::{Turn, TurnSource};
use handrail_platform::Desktop;
use handrail_trace::TraceWriter;
use handrail_wire::service::{
    BrowserProfile, ClipboardState, ClosedApp, ResetRequest, ResetTimings, TaskTraces, SERVICE_VERSION,
};
use handrail_wire::ResetReport;
use serde_json::{Map, Value};

use crate::turns::{MetaError, TurnDefaults, TurnMeta, META_INTENT, META_MODE, META_TURN};
use crate::{unix_ms, Calls};

/// What the desktop's own part of a reset did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    pub closed: Vec<ClosedApp>,
    pub windows_closed: Vec<String>,
    pub windows_left: Vec<String>,
    pub apps_left: Vec<String>,
    pub browser_profile: BrowserProfile,
    pub clipboard: ClipboardState,
    pub home_removed: Vec<String>,
    /// `close_apps`, `display`, `browser_profile` and `home`; the rest is filled in by the call layer.
    pub timings: ResetTimings,
}

impl Cleaned {
    /// Nothing of the last task is left.
    pub fn is_clean(&self) -> bool {
        self.windows_left.is_empty() && self.apps_left.is_empty() && self.clipboard != ClipboardState::NotEmpty
    }
}

/// The desktop's own part of a reset. Runs on the engine thread with the engine's desktop, which it
/// may read (the windows it is about to close) but never act on through the engine's pipeline.
pub trait DesktopReset: Send {
    fn clean(&mut self, desktop: &Desktop) -> Result<Cleaned, ResetError>;
}

/// Why a reset could not be done. Everything but `Failed` is found before anything is changed.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    #[error("this desktop cannot be reset: {0}")]
    Unsupported(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("the reset failed: {0}")]
    Failed(String),
}

impl ResetError {
    /// Whether the request itself is at fault (the caller may fix and retry).
    pub fn is_bad_request(&self) -> bool {
        matches!(self, ResetError::BadRequest(_))
    }
}

impl From<MetaError> for ResetError {
    fn from(e: MetaError) -> Self {
        ResetError::BadRequest(e.to_string().replace("`_meta.handrail/", "`"))
    }
}

/// Where task traces go: each reset that asks for one starts `ROOT/NNNN-<turn>`.
#[derive(Debug, Clone)]
pub struct TaskTraceRoot {
    pub root: PathBuf,
    /// Who records (named in each trace).
    pub recorder: String,
}

/// The reset request's turn, checked by the same rules as a request's `_meta`.
fn requested_turn(request: &ResetRequest) -> Result<TurnMeta, ResetError> {
    let mut meta = Map::new();
    for (key, value) in [(META_TURN, &request.turn), (META_INTENT, &request.intent), (META_MODE, &request.mode)] {
        if let Some(v) = value {
            meta.insert(key.to_string(), Value::String(v.clone()));
        }
    }
    Ok(TurnMeta::from_meta(&meta)?)
}

/// A turn id as a folder name: letters, digits, `-`, `_` and `.` kept, the rest `_`, at most 60.
fn folder_safe(id: &str) -> String {
    let safe: String =
        id.chars().take(60).map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    safe.trim_start_matches('.').to_string()
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Calls {
    /// Lets this desktop be reset (see [`Calls::reset`]).
    pub fn with_reset(mut self, reset: Box<dyn DesktopReset>) -> Self {
        self.reset = Some(reset);
        self
    }

    /// Records each task whose reset asks for it as a trace of its own under `root`.
    pub fn with_task_traces(mut self, root: TaskTraceRoot) -> Self {
        self.task_traces = Some(root);
        self
    }

    /// Returns the desktop to a clean state and starts a new turn. `queued` is how long the request
    /// waited for the engine thread. A bad request changes nothing.
    pub fn reset(&mut self, request: &ResetRequest, queued: Duration) -> Result<ResetReport, ResetError> {
        let t0 = Instant::now();
        let meta = requested_turn(request)?;
        if request.trace && self.task_traces.is_none() {
            return Err(ResetError::BadRequest(
                "`trace` needs a server started with --task-traces DIR (where task traces go)".into(),
            ));
        }
        let Some(hook) = self.reset.as_mut() else {
            return Err(ResetError::Unsupported(
                "only a private --sandbox desktop is reset: on any other, the apps are not handrail's to close".into(),
            ));
        };
        let cleaned = hook.clean(self.engine.desktop())?;
        // What the browser's guard refused belongs to the last task; the next one must not hear of it.
        let dropped = self.engine.desktop().network.take_blocked().len();
        if dropped > 0 {
            log::debug!("reset: {dropped} refused request(s) of the last task dropped");
        }

        let t_turn = Instant::now();
        let traces = self.next_task_trace(request.trace, meta.id.as_deref())?;
        let (turn, source) = match self.records.turns.lock() {
            Ok(mut turns) => turns.reset(&meta),
            Err(_) => return Err(ResetError::Failed("the turn state is unusable".into())),
        };
        log::info!("reset: turn {:?} begins ({})", turn.id, turn.mode.as_str());
        self.engine.begin_turn_from(turn.clone(), source);
        let turn_took = t_turn.elapsed();

        let clean = cleaned.is_clean();
        let total = t0.elapsed() + queued;
        let timings = ResetTimings { queued: ms(queued), turn: ms(turn_took), total: ms(total), ..cleaned.timings };
        Ok(ResetReport {
            version: SERVICE_VERSION,
            clean,
            turn: turn.id,
            closed: cleaned.closed,
            windows_closed: cleaned.windows_closed,
            windows_left: cleaned.windows_left,
            apps_left: cleaned.apps_left,
            browser_profile: cleaned.browser_profile,
            clipboard: cleaned.clipboard,
            home_removed: cleaned.home_removed,
            traces,
            duration_ms: ms(total),
            timings_ms: timings,
        })
    }

    /// Ends the task trace being recorded (its report written) and starts the next one if asked.
    fn next_task_trace(&mut self, wanted: bool, turn: Option<&str>) -> Result<TaskTraces, ResetError> {
        let Some(root) = self.task_traces.clone() else {
            return Ok(TaskTraces { finished: None, recording: None });
        };
        let finished = self.trace.take().map(|t| t.dir().to_path_buf());
        if let Some(dir) = &finished {
            if let Err(e) = handrail_trace::report::write_report(dir) {
                log::warn!("the task trace's report in {} could not be written: {e}", dir.display());
            }
        }
        self.records.set_trace_dir(None);
        let recording = if wanted {
            self.task_trace_count += 1;
            let name = format!("{:04}-{}", self.task_trace_count, folder_safe(turn.unwrap_or("task")));
            let dir = root.root.join(name);
            let writer = TraceWriter::create(&dir, &root.recorder, unix_ms())
                .map_err(|e| ResetError::Failed(format!("starting the task trace in {}: {e}", dir.display())))?;
            self.records.set_trace_dir(Some(dir.clone()));
            self.trace = Some(writer);
            Some(dir)
        } else {
            None
        };
        let shown = |p: Option<PathBuf>| p.map(|p| p.display().to_string());
        Ok(TaskTraces { finished: shown(finished), recording: shown(recording) })
    }
}

/// The turn a reset starts: the one the request names (a host turn, whose successors the host names
/// too), else the inferred turn after `last_inferred` with the command line's intent and mode unless
/// the request gives its own.
pub(crate) fn reset_turn(last_inferred: &str, defaults: &TurnDefaults, meta: &TurnMeta) -> (Turn, TurnSource) {
    match &meta.id {
        Some(id) => (
            Turn {
                id: id.clone(),
                intent: meta.intent.clone().unwrap_or_default(),
                mode: meta.mode.unwrap_or(defaults.mode),
            },
            TurnSource::Host,
        ),
        None => (
            Turn {
                id: handrail_core::turn::next_inferred_id(last_inferred),
                intent: meta.intent.clone().unwrap_or_else(|| defaults.intent.clone()),
                mode: meta.mode.unwrap_or(defaults.mode),
            },
            defaults.source,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_ids_become_safe_folder_names() {
        assert_eq!(folder_safe("miniwob/click-test/3"), "miniwob_click-test_3");
        assert_eq!(folder_safe("../../etc"), "_.._etc");
        assert_eq!(folder_safe(&"x".repeat(100)).len(), 60);
    }

    #[test]
    fn a_reset_request_is_checked_like_meta() {
        let bad = ResetRequest { mode: Some("robot".into()), ..ResetRequest::default() };
        let e = requested_turn(&bad).expect_err("refused");
        assert!(e.is_bad_request());
        assert!(e.to_string().contains("mode"), "{e}");
        assert!(!e.to_string().contains("_meta"), "{e}");
        let blank = ResetRequest { turn: Some(" ".into()), ..ResetRequest::default() };
        assert!(requested_turn(&blank).is_err());
    }

    #[test]
    fn a_reset_without_a_turn_id_moves_to_the_next_inferred_one() {
        let defaults = TurnDefaults { intent: "tidy up".into(), ..TurnDefaults::default() };
        let (t, source) = reset_turn("default#4", &defaults, &TurnMeta::default());
        assert_eq!(
            (t.id.as_str(), t.intent.as_str(), t.mode),
            ("default#5", "tidy up", handrail_core::Mode::Interactive)
        );
        assert_eq!(source, defaults.source);
        let meta = TurnMeta { id: Some("task-10".into()), intent: Some("save it".into()), mode: None };
        let (t, source) = reset_turn("default#4", &defaults, &meta);
        assert_eq!((t.id.as_str(), t.intent.as_str(), source), ("task-10", "save it", TurnSource::Host));
    }
}
