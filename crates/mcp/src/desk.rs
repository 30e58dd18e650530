//! The engine's own thread: every `computer` call, from every client and session, runs here one at a
//! time, because there is one desktop and one engine. The call layer (`handrail-calls`) on this thread
//! resolves turns and records the trace and the audit log, so they see calls in the order they ran.
//!
//! Stopping ([`Desk::stop`]) cancels the call in progress and waits for the thread to finish it and to
//! drop the engine: a process that exited while a call was sending input would leave keys or buttons
//! held down on the desktop (nothing else would release them), and the desktop's connections would
//! never give back what they borrowed (keycodes, the clipboard).

use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use handrail_calls::{Calls, MetaError, Ran, Records, TurnMeta};
use handrail_core::{CallHooks, Turn};
use handrail_platform::Cancel;
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

enum Work {
    Call(Box<Job>),
    /// Finish: drop the engine and end the thread.
    Stop,
}

/// What the engine thread is doing, for [`Desk::stop`].
#[derive(Default)]
struct State {
    /// No new call starts.
    closing: bool,
    /// The cancel flag of the call running now.
    current: Option<Cancel>,
    /// The thread ended and dropped the engine.
    finished: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is plain flags; a panic while holding the lock cannot leave them inconsistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks the thread finished however it ends, a panic included.
struct Finished(Arc<Shared>);

impl Drop for Finished {
    fn drop(&mut self) {
        self.0.lock().finished = true;
        self.0.changed.notify_all();
    }
}

/// The handle the server holds on the engine thread.
#[derive(Clone)]
pub struct Desk {
    jobs: mpsc::Sender<Work>,
    records: Records,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk").finish_non_exhaustive()
    }
}

impl Desk {
    /// Starts the engine thread. It ends when the last `Desk` handle is dropped, or on [`Desk::stop`].
    pub fn start(mut calls: Calls) -> std::io::Result<Self> {
        let (jobs, inbox) = mpsc::channel::<Work>();
        let records = calls.records();
        let shared = Arc::new(Shared::default());
        let on_thread = shared.clone();
        std::thread::Builder::new().name("handrail-engine".into()).spawn(move || {
            let finished = Finished(on_thread.clone());
            while let Ok(Work::Call(mut job)) = inbox.recv() {
                let cancel = job.hooks.cancel.get_or_insert_with(Cancel::new).clone();
                {
                    let mut state = on_thread.lock();
                    if state.closing {
                        // Queued before the stop: never started; the caller hears the desk is gone.
                        continue;
                    }
                    state.current = Some(cancel);
                }
                let answer = calls.call(&job.turn, job.args, job.hooks);
                on_thread.lock().current = None;
                // Recorded by the call layer either way: a caller that has gone (a cancelled request)
                // loses only the reply.
                let _ = job.reply.send(answer);
            }
            // The engine and its desktop go before the thread says it finished.
            drop(calls);
            drop(finished);
        })?;
        Ok(Self { jobs, records, shared })
    }

    /// Runs one call on the engine thread.
    pub async fn call(
        &self,
        turn: TurnMeta,
        args: Result<handrail_core::RawArgs, String>,
        hooks: CallHooks,
    ) -> Result<Result<Ran, MetaError>, DeskGone> {
        if self.shared.lock().closing {
            return Err(DeskGone);
        }
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs.send(Work::Call(Box::new(Job { turn, args, hooks, reply }))).map_err(|_| DeskGone)?;
        answer.await.map_err(|_| DeskGone)
    }

    /// Stops the engine: no new call starts, the one running is cancelled (its waits end at once; the
    /// input it is sending is finished and released), then the engine and its desktop are dropped.
    /// Blocks until that is done or `within` passed; true when it is done.
    pub fn stop(&self, within: Duration) -> bool {
        let mut state = self.shared.lock();
        state.closing = true;
        if let Some(cancel) = &state.current {
            log::info!("stopping: cancelling the call in progress");
            cancel.cancel();
        }
        let _ = self.jobs.send(Work::Stop);
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, within, |s| !s.finished)
            .unwrap_or_else(PoisonError::into_inner);
        if !state.finished {
            log::warn!("the engine did not finish its call within {within:?}; stopping without it");
        }
        state.finished
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
}

/// The engine thread stopped (it panicked or the process is shutting down).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the desktop engine is no longer running")]
pub struct DeskGone;
