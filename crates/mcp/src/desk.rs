//! The engine's own thread: every `computer` call, from every client and session, runs here one at a
//! time, because there is one desktop and one engine. The call layer (`handrail-calls`) on this thread
//! resolves turns and records the trace and the audit log, so they see calls in the order they ran.

use std::sync::mpsc;

use handrail_calls::{Calls, MetaError, Ran, Records, TurnMeta};
use handrail_core::{CallHooks, Turn};
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

/// The handle the server holds on the engine thread.
#[derive(Clone)]
pub struct Desk {
    jobs: mpsc::Sender<Job>,
    records: Records,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk").finish_non_exhaustive()
    }
}

impl Desk {
    /// Starts the engine thread. It ends when the last `Desk` handle is dropped.
    pub fn start(mut calls: Calls) -> std::io::Result<Self> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let records = calls.records();
        std::thread::Builder::new().name("handrail-engine".into()).spawn(move || {
            while let Ok(job) = inbox.recv() {
                // Recorded by the call layer either way: a caller that has gone (a cancelled request)
                // loses only the reply.
                let _ = job.reply.send(calls.call(&job.turn, job.args, job.hooks));
            }
        })?;
        Ok(Self { jobs, records })
    }

    /// Runs one call on the engine thread.
    pub async fn call(
        &self,
        turn: TurnMeta,
        args: Result<handrail_core::RawArgs, String>,
        hooks: CallHooks,
    ) -> Result<Result<Ran, MetaError>, DeskGone> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs.send(Job { turn, args, hooks, reply }).map_err(|_| DeskGone)?;
        answer.await.map_err(|_| DeskGone)
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
