//! What an edge lends the engine for one call: a way to ask the person, a way to report how the call
//! is getting on, and a flag its caller sets to cancel it.

use handrail_platform::Cancel;

/// Asks the person (e.g. through MCP elicitation) whether an action the intent does not back may run.
pub trait Confirm: Send {
    /// `Some(true)` to allow, `Some(false)` to refuse, `None` when nobody can be asked now.
    fn confirm(&mut self, question: &str) -> Option<bool>;

    /// Whether a question was handed on to be answered later (a host that retries the call with the
    /// person's answer): the refusal is then a question pending, not the final word.
    fn deferred(&self) -> bool {
        false
    }
}

/// Hears how a call is getting on while it waits (MCP progress notifications): one short line per
/// step, in order.
pub trait Progress: Send {
    fn report(&mut self, step: &str);
}

/// The hooks of one call; all optional.
#[derive(Default)]
pub struct CallHooks {
    pub confirm: Option<Box<dyn Confirm>>,
    pub progress: Option<Box<dyn Progress>>,
    /// Set by the edge when its caller gives up: the engine sends no further input, stops waiting at
    /// once and ends the call.
    pub cancel: Option<Cancel>,
}

impl std::fmt::Debug for CallHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallHooks")
            .field("confirm", &self.confirm.is_some())
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

/// The progress and cancel hooks while the engine acts and waits.
pub(super) struct Waiting<'a> {
    pub(super) progress: Option<&'a mut (dyn Progress + 'static)>,
    pub(super) cancel: Option<&'a Cancel>,
}

impl Waiting<'_> {
    pub(super) fn report(&mut self, step: &str) {
        if let Some(p) = self.progress.as_deref_mut() {
            p.report(step);
        }
    }

    pub(super) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(Cancel::is_cancelled)
    }
}
