//! The one call layer every edge of handrail goes through (the MCP server, `handrail agent`, the
//! demo): a decoded call runs on the engine in its turn, is recorded in the trace and the audit log,
//! and comes back as what ran. Edges only decode their protocol and present the result.
//!
//! Invariant: **every call that reaches the engine is recorded here, once**: its trace step (when
//! tracing) and its audit line (when auditing), with the turn it ran in. Calls that never reach the
//! engine (`read_image`) are recorded through [`Records::audit`].

mod audit;
pub mod reset;
mod turns;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use handrail_core::{CallHooks, Engine, Outcome, RawArgs, Status, Turn, TurnSource};
use handrail_trace::{Step, TraceWriter};
use handrail_wire::{AuditContext, AuditRecord};

pub use audit::AuditLog;
pub use reset::{Cleaned, DesktopReset, ResetError, TaskTraceRoot};
pub use turns::{MetaError, TurnDefaults, TurnMeta, Turns, META_INTENT, META_MODE, META_TURN};

/// The verdict recorded for a call whose refusal is a question handed to the person, to be answered
/// by the host retrying the call.
pub const ASKED_VERDICT: &str = "[input_required] asked the person";

/// Milliseconds since the Unix epoch, as records carry them.
pub fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A call the engine ran: its outcome, the turn it ran in and the arguments as decoded.
#[derive(Debug)]
pub struct Ran {
    pub outcome: Outcome,
    pub turn: Turn,
    pub args: RawArgs,
    /// The refusal is a question handed on to the person (see [`handrail_core::Confirm::deferred`]).
    pub asked: bool,
}

/// The engine with its turns, trace and audit log. Lives on the thread that owns the engine.
pub struct Calls {
    engine: Engine,
    trace: Option<TraceWriter>,
    records: Records,
    /// The desktop's own part of a reset, when it can be reset.
    reset: Option<Box<dyn reset::DesktopReset>>,
    /// Where per-task traces go, when they are recorded.
    task_traces: Option<TaskTraceRoot>,
    task_trace_count: u32,
}

impl std::fmt::Debug for Calls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calls").field("engine", &self.engine).finish_non_exhaustive()
    }
}

/// What other threads may touch while the engine runs: the turns (a new MCP session starts one) and
/// the audit log (calls that never reach the engine).
#[derive(Debug, Clone)]
pub struct Records {
    turns: Arc<Mutex<Turns>>,
    audit: Option<Arc<Mutex<AuditLog>>>,
    /// The folder the current task trace is recorded in (task traces only).
    trace_dir: Arc<Mutex<Option<PathBuf>>>,
}

impl Records {
    /// A client opened a new session: for clients that name no turns, a new turn begins.
    pub fn session_started(&self) {
        if let Ok(mut t) = self.turns.lock() {
            t.session_started();
        }
    }

    /// The turn now in effect.
    pub fn current_turn(&self) -> Turn {
        self.turns.lock().map(|t| t.current().clone()).unwrap_or_default()
    }

    /// The folder the current task's trace is recorded in, when task traces are on and one is.
    pub fn trace_dir(&self) -> Option<PathBuf> {
        self.trace_dir.lock().ok().and_then(|d| d.clone())
    }

    fn set_trace_dir(&self, dir: Option<PathBuf>) {
        if let Ok(mut d) = self.trace_dir.lock() {
            *d = dir;
        }
    }

    /// Appends a record (when auditing).
    pub fn audit(&self, record: &AuditRecord) {
        if let Some(log) = &self.audit {
            if let Ok(mut log) = log.lock() {
                log.write(record);
            }
        }
    }
}

impl Calls {
    /// The engine starts in the defaults' turn.
    pub fn new(
        mut engine: Engine,
        defaults: TurnDefaults,
        audit: Option<AuditLog>,
        trace: Option<TraceWriter>,
    ) -> Self {
        let turns = Turns::new(defaults);
        engine.begin_turn_from(turns.current().clone(), turns.source());
        let records = Records {
            turns: Arc::new(Mutex::new(turns)),
            audit: audit.map(|a| Arc::new(Mutex::new(a))),
            trace_dir: Arc::new(Mutex::new(None)),
        };
        Calls { engine, trace, records, reset: None, task_traces: None, task_trace_count: 0 }
    }

    pub fn records(&self) -> Records {
        self.records.clone()
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Looks at the screen once without publishing or recording anything (see
    /// [`Engine::warm_up`]).
    pub fn warm_up(&mut self) -> Result<handrail_core::WarmUp, handrail_core::WarmUpError> {
        self.engine.warm_up()
    }

    /// Writes the report of the task trace being recorded, if any (when the server stops).
    pub fn finish_task_trace(&mut self) -> Option<PathBuf> {
        self.task_traces.as_ref()?;
        let dir = self.trace.take()?.dir().to_path_buf();
        if let Err(e) = handrail_trace::report::write_report(&dir) {
            log::warn!("the task trace's report in {} could not be written: {e}", dir.display());
        }
        Some(dir)
    }

    /// The trace being recorded, if any.
    pub fn trace(&self) -> Option<&TraceWriter> {
        self.trace.as_ref()
    }

    /// Runs one call: resolves its turn from `meta`, runs it on the engine with `hooks` (a way to ask
    /// the person, to report progress, to cancel — for this call only), and records it. `args` is the
    /// decoded arguments, or why they could not be decoded (the capability gate still answers first).
    pub fn call(&mut self, meta: &TurnMeta, args: Result<RawArgs, String>, hooks: CallHooks) -> Result<Ran, MetaError> {
        let new_turn = match self.records.turns.lock() {
            Ok(mut t) => t.resolve(meta)?,
            Err(_) => None,
        };
        if let Some((turn, source)) = new_turn {
            let how = if source == TurnSource::Host { "named by the host" } else { "inferred" };
            log::info!("turn {:?} begins ({}, {how})", turn.id, turn.mode.as_str());
            self.engine.begin_turn_from(turn, source);
        }
        self.engine.set_hooks(hooks);
        let before = self.engine.latest().cloned();
        let (outcome, args) = match args {
            Ok(raw) => (self.engine.call_args(&raw), raw),
            Err(problem) => (self.engine.refuse_arguments(&problem), RawArgs::default()),
        };
        let hooks = self.engine.take_hooks();
        let asked = outcome.status == Status::Refused && hooks.confirm.is_some_and(|c| c.deferred());
        let turn = self.engine.turn().clone();
        if let Ok(mut t) = self.records.turns.lock() {
            t.ran(&turn, self.engine.turn_source());
        }
        let ran = Ran { outcome, turn, args, asked };
        self.record(&ran, before.as_ref());
        Ok(ran)
    }

    fn record(&mut self, ran: &Ran, before: Option<&Arc<handrail_core::Observation>>) {
        let unix_ms = unix_ms();
        if let Some(trace) = self.trace.as_mut() {
            let step =
                Step { unix_ms, turn: &ran.turn, tool: "computer", args: &ran.args, before, outcome: &ran.outcome };
            if let Err(e) = trace.record(step) {
                // A trace is a record for people, not part of the call: the call stands, and tracing
                // stops rather than leaving a trace with holes in it (or a warning on every call). What
                // was recorded stays readable.
                log::warn!(
                    "tracing stopped after {} steps: {e}; calls go on without a trace (the trace in {} keeps the \
                     steps before this one)",
                    trace.steps(),
                    trace.dir().display()
                );
                self.trace = None;
            }
        }
        let ctx = AuditContext { unix_ms, turn: &ran.turn.id, mode: ran.turn.mode.as_str(), tool: "computer" };
        let mut record = AuditRecord::of_call(ctx, &ran.args, &ran.outcome);
        if ran.asked {
            record.verdict = ASKED_VERDICT.to_string();
        }
        self.records.audit(&record);
    }
}
