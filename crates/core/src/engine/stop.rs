//! Every way a call ends before it acts, as one value, and the one place it becomes a result.

use crate::guard::Rule;
use crate::ids::ObservationId;
use crate::outcome::{GuardDecision, Outcome, Reason, Status, Timings};
use crate::render::Listing;
use crate::request::ActionKind;

/// Why a call stops before acting (or stopped acting), and what to tell the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stop {
    pub reason: Reason,
    pub message: Option<String>,
}

impl Stop {
    pub fn new(reason: Reason, message: impl Into<String>) -> Stop {
        Stop { reason, message: Some(message.into()) }
    }

    /// A guard's refusal by `rule`.
    pub fn refused(rule: Rule, message: impl Into<String>) -> Stop {
        Stop::new(Reason::Guard(rule), message)
    }

    /// The result: its status follows from the reason; a refusal names its rule as the guard's
    /// decision. `latest` is the observation id the model should use next.
    pub fn into_outcome(self, action: Option<ActionKind>, summary: String, latest: Option<ObservationId>) -> Outcome {
        let guard = match self.reason {
            Reason::Guard(rule) => GuardDecision::Refused { rule },
            Reason::AmbiguousTarget => GuardDecision::Refused { rule: Rule::AmbiguousTarget },
            _ => GuardDecision::NotReached,
        };
        let mut o = blank(self.reason.status(), action, summary, latest);
        o.reason = Some(self.reason);
        o.message = self.message;
        o.guard = guard;
        o
    }
}

/// An outcome with nothing in it yet but its status and what was attempted.
pub(crate) fn blank(
    status: Status,
    action: Option<ActionKind>,
    summary: String,
    latest: Option<ObservationId>,
) -> Outcome {
    Outcome {
        status,
        reason: None,
        action,
        summary,
        message: None,
        guard: GuardDecision::NotReached,
        targets: Vec::new(),
        expect: None,
        changes: None,
        timings: Timings::default(),
        observation: None,
        latest,
        blocked: Vec::new(),
        typing: None,
        windows: Vec::new(),
        elsewhere: None,
        animating: Vec::new(),
        boundary: String::new(),
        listing: Listing::default(),
    }
}
