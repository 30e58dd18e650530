//! The engine's own thread: every `computer` call, from every client and session, runs here one at a
//! time, because there is one desktop and one engine. The call layer (`handrail-calls`) on this thread
//! resolves turns and records the trace and the audit log, so they see calls in the order they ran.
//! A reset runs here too, between calls: the call in progress when it is asked for is cancelled, calls
//! queued before it run first, calls after it run in its new turn.
//!
//! The thread also keeps what the service endpoints report: whether it still runs (liveness) and
//! whether the desktop has been seen (readiness: the first observation, a warm-up look or a call's).
//!
//! Stopping ([`Desk::stop`]) cancels the call in progress and waits for the thread to finish it and to
//! drop the engine: a process that exited while a call was sending input would leave keys or buttons
//! held down on the desktop (nothing else would release them), and the desktop's connections would
//! never give back what they borrowed (keycodes, the clipboard).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use handrail_calls::{Calls, MetaError, Ran, Records, ResetError, TurnMeta};
use handrail_core::{CallHooks, Turn};
use handrail_platform::Cancel;
use handrail_wire::service::{Readiness, ResetReport, ResetRequest, SERVICE_VERSION};
use handrail_wire::AuditRecord;

/// What one `computer` call asks of the engine thread.
pub struct Job {
    pub turn: TurnMeta,
    /// Decoded arguments, or why they could not be decoded.
    pub args: Result<handrail_core::RawArgs, String>,
    /// How this call asks the person, reports progress and learns it was cancelled.
    pub hooks: CallHooks,
    pub reply: tokio::sync::oneshot::Sender<Result<Ran, MetaError>>,
}

/// A reset asked of the engine thread.
struct ResetJob {
    request: ResetRequest,
    asked: Instant,
    reply: tokio::sync::oneshot::Sender<Result<ResetReport, ResetError>>,
}

enum Work {
    Call(Box<Job>),
    Reset(ResetJob),
    /// Finish: drop the engine and end the thread.
    Stop,
}

/// Readiness as the engine thread last found it.
#[derive(Debug, Default)]
struct Ready {
    /// The first observation: how long it took and how many elements it listed.
    seen: Option<(Duration, usize)>,
    /// Why the desktop cannot take calls (a failed look, a reset that left things behind).
    problem: Option<String>,
    resets: u64,
}

/// What the engine thread is doing, for [`Desk::stop`] and [`Desk::reset`].
#[derive(Debug, Default)]
struct Lifecycle {
    /// No new call starts.
    closing: bool,
    /// The cancel flag of the call running now.
    current: Option<Cancel>,
    /// The thread ended and dropped the engine.
    finished: bool,
}

/// What the engine thread shares with the handles and the service endpoints.
#[derive(Debug, Default)]
struct State {
    running: AtomicBool,
    lifecycle: Mutex<Lifecycle>,
    changed: Condvar,
    ready: Mutex<Ready>,
}

impl State {
    // Both hold plain data: still consistent if a holder panicked.
    fn lifecycle(&self) -> MutexGuard<'_, Lifecycle> {
        self.lifecycle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ready(&self) -> MutexGuard<'_, Ready> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks the thread ended however it ends, a panic included.
struct Finished(Arc<State>);

impl Drop for Finished {
    fn drop(&mut self) {
        self.0.running.store(false, Ordering::SeqCst);
        self.0.lifecycle().finished = true;
        self.0.changed.notify_all();
    }
}

/// The handle the server holds on the engine thread.
#[derive(Clone)]
pub struct Desk {
    jobs: mpsc::Sender<Work>,
    records: Records,
    state: Arc<State>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk").finish_non_exhaustive()
    }
}

impl Desk {
    /// Starts the engine thread. With `warm_up`, it first looks at the screen once (see
    /// [`Calls::warm_up`]) so readiness turns on before any client calls. It ends when the last `Desk`
    /// handle is dropped, or on [`Desk::stop`].
    pub fn start(mut calls: Calls, warm_up: bool) -> std::io::Result<Self> {
        let (jobs, inbox) = mpsc::channel::<Work>();
        let records = calls.records();
        let state = Arc::new(State::default());
        state.running.store(true, Ordering::SeqCst);
        let shared = state.clone();
        std::thread::Builder::new().name("handrail-engine".into()).spawn(move || {
            let finished = Finished(shared.clone());
            if warm_up {
                match calls.warm_up() {
                    Ok(w) => {
                        log::info!("first observation: {} elements in {} ms", w.elements, w.took.as_millis());
                        shared.ready().seen = Some((w.took, w.elements));
                    }
                    Err(e) => {
                        log::warn!("the first observation failed: {e}");
                        shared.ready().problem = Some(format!("the first observation failed: {e}"));
                    }
                }
            }
            while let Ok(work) = inbox.recv() {
                match work {
                    Work::Call(mut job) => {
                        let cancel = job.hooks.cancel.get_or_insert_with(Cancel::new).clone();
                        {
                            let mut lifecycle = shared.lifecycle();
                            if lifecycle.closing {
                                // Queued before the stop: never started; the caller hears the desk is gone.
                                continue;
                            }
                            lifecycle.current = Some(cancel);
                        }
                        let job = *job;
                        let ran = calls.call(&job.turn, job.args, job.hooks);
                        shared.lifecycle().current = None;
                        if let Ok(ran) = &ran {
                            note_observation(&shared, ran);
                        }
                        // Recorded by the call layer either way: a caller that has gone (a cancelled
                        // request) loses only the reply.
                        let _ = job.reply.send(ran);
                    }
                    Work::Reset(job) => {
                        if shared.lifecycle().closing {
                            continue;
                        }
                        let report = calls.reset(&job.request, job.asked.elapsed());
                        note_reset(&shared, &report);
                        let _ = job.reply.send(report);
                    }
                    Work::Stop => break,
                }
            }
            if let Some(dir) = calls.finish_task_trace() {
                log::info!("the last task trace is in {}", dir.display());
            }
            // The engine and its desktop go before the thread says it finished.
            drop(calls);
            drop(finished);
        })?;
        Ok(Self { jobs, records, state })
    }

    /// Runs one call on the engine thread.
    pub async fn call(
        &self,
        turn: TurnMeta,
        args: Result<handrail_core::RawArgs, String>,
        hooks: CallHooks,
    ) -> Result<Result<Ran, MetaError>, DeskGone> {
        if self.state.lifecycle().closing {
            return Err(DeskGone);
        }
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs.send(Work::Call(Box::new(Job { turn, args, hooks, reply }))).map_err(|_| DeskGone)?;
        answer.await.map_err(|_| DeskGone)
    }

    /// Resets the desktop on the engine thread (see [`Calls::reset`]); the call in progress is
    /// cancelled first, as a client's cancellation would.
    pub async fn reset(&self, request: ResetRequest) -> Result<Result<ResetReport, ResetError>, DeskGone> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let asked = Instant::now();
        {
            let lifecycle = self.state.lifecycle();
            if lifecycle.closing {
                return Err(DeskGone);
            }
            if let Some(cancel) = &lifecycle.current {
                cancel.cancel();
            }
        }
        self.jobs.send(Work::Reset(ResetJob { request, asked, reply })).map_err(|_| DeskGone)?;
        answer.await.map_err(|_| DeskGone)
    }

    /// Stops the engine: no new call starts, the one running is cancelled (its waits end at once; the
    /// input it is sending is finished and released), then the engine and its desktop are dropped.
    /// Blocks until that is done or `within` passed; true when it is done.
    pub fn stop(&self, within: Duration) -> bool {
        let mut lifecycle = self.state.lifecycle();
        lifecycle.closing = true;
        if let Some(cancel) = &lifecycle.current {
            log::info!("stopping: cancelling the call in progress");
            cancel.cancel();
        }
        let _ = self.jobs.send(Work::Stop);
        let (lifecycle, _) = self
            .state
            .changed
            .wait_timeout_while(lifecycle, within, |l| !l.finished)
            .unwrap_or_else(PoisonError::into_inner);
        if !lifecycle.finished {
            log::warn!("the engine did not finish its call within {within:?}; stopping without it");
        }
        lifecycle.finished
    }

    /// Whether the engine thread still runs.
    pub fn alive(&self) -> bool {
        self.state.running.load(Ordering::SeqCst)
    }

    /// Whether the desktop takes calls: seen once, and no failed look or unclean reset since.
    pub fn readiness(&self) -> Readiness {
        let ready = self.state.ready();
        let why = if !self.alive() {
            Some("the engine thread has stopped".to_string())
        } else if let Some(problem) = &ready.problem {
            Some(problem.clone())
        } else if ready.seen.is_none() {
            Some("the desktop has not been observed yet".to_string())
        } else {
            None
        };
        Readiness {
            version: SERVICE_VERSION,
            ready: why.is_none(),
            why,
            first_observation_ms: ready.seen.map(|(d, _)| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            elements: ready.seen.map(|(_, n)| n),
            resets: ready.resets,
        }
    }

    /// Records a call that did not go through the engine (`read_image`).
    pub fn audit(&self, record: &AuditRecord) {
        self.records.audit(record);
    }

    /// A client initialised a new MCP session: for clients that name no turns, a new turn begins.
    pub fn session_started(&self) {
        self.records.session_started();
    }

    /// The turn now in effect (for records of calls outside the engine).
    pub fn current_turn(&self) -> Turn {
        self.records.current_turn()
    }

    /// The folder the current task trace is recorded in (task traces only).
    pub fn task_trace_dir(&self) -> Option<std::path::PathBuf> {
        self.records.trace_dir()
    }
}

/// A call that published an observation has seen the desktop (readiness without a warm-up look).
fn note_observation(state: &State, ran: &Ran) {
    let Some(obs) = ran.outcome.observation.as_ref() else { return };
    let mut ready = state.ready();
    if ready.seen.is_none() {
        ready.seen = Some((ran.outcome.timings.capture + ran.outcome.timings.observe, obs.elements.len()));
        if ready.problem.as_deref().is_some_and(|p| p.starts_with("the first observation failed")) {
            ready.problem = None;
        }
    }
}

/// A clean reset makes the desktop ready again; one that left things behind, or failed midway, takes
/// it out of rotation until a later reset is clean.
fn note_reset(state: &State, report: &Result<ResetReport, ResetError>) {
    let mut ready = state.ready();
    match report {
        Ok(r) => {
            ready.resets += 1;
            ready.problem = (!r.clean).then(|| {
                format!(
                    "the last reset left {} window(s), {} process(es) and a clipboard that is {:?}",
                    r.windows_left.len(),
                    r.apps_left.len(),
                    r.clipboard
                )
            });
        }
        Err(ResetError::Failed(why)) => ready.problem = Some(format!("the last reset failed: {why}")),
        // Refused before anything changed.
        Err(_) => {}
    }
}

/// The engine thread stopped (it panicked or the process is shutting down).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the desktop engine is no longer running")]
pub struct DeskGone;
