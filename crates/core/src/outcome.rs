//! The result of one call: a status a program can parse, evidence, timings and the new observation.

use std::sync::Arc;
use std::time::Duration;

use handrail_platform::{BlockedRequest, Rect};

use crate::diff::{SemanticDiff, VisualDiff};
use crate::ids::{ElementId, ObservationId};
use crate::observation::Observation;
use crate::request::{ActionKind, Expect};

/// The leading tag of every result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The action ran and the screen changed (or an observation was published).
    Ok,
    /// The action ran and nothing changed, on either channel.
    NoVisibleChange,
    /// A guard refused; nothing was done.
    Refused,
    /// The model cannot use this tool.
    Unsupported,
    /// The observation or target is out of date; nothing was done.
    Stale,
    /// A budget is used up; nothing was done.
    Limit,
    /// Bad arguments or a platform failure.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NoVisibleChange => "no_visible_change",
            Status::Refused => "refused",
            Status::Unsupported => "unsupported",
            Status::Stale => "stale",
            Status::Limit => "limit",
            Status::Error => "error",
        }
    }
}

/// Why a call did not run as asked, as a stable code programs can match on; the message says the
/// same in words. A guard's refusal carries the guard's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The model cannot see images.
    VisionRequired,
    /// The arguments are malformed, incomplete or contradictory.
    InvalidArguments,
    /// The observation budget (see/inspect) of the turn or window is used up.
    ObservationBudget,
    /// The action ceiling of the turn or window is reached.
    ActionCeiling,
    /// The observation id given is not the latest one.
    StaleObservation,
    /// There is no observation in this turn to target yet.
    NoObservation,
    /// The element id is not in the latest observation.
    UnknownElement,
    /// No element shows the target text.
    NoMatch,
    /// The target text matches several elements.
    AmbiguousTarget,
    /// A window element was given to an action that cannot act on a window.
    WindowTarget,
    /// The target has no visible part in the observation.
    NotVisible,
    /// The target moved, vanished or was covered since the observation; nothing was done.
    TargetChanged,
    /// The region to inspect lies outside the screenshot.
    InvalidRegion,
    /// A guard refused, by this rule (`destructive_target`, `password_field`, `dangerous_hotkey`, `url`, …).
    Guard(crate::guard::Rule),
    /// The desktop failed while the call ran.
    DesktopFailed,
    /// Typed text did not reach the element that received it.
    TextNotArrived,
    /// The caller cancelled the call.
    Cancelled,
}

impl Reason {
    /// The stable code.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::VisionRequired => "vision_required",
            Reason::InvalidArguments => "invalid_arguments",
            Reason::ObservationBudget => "observation_budget",
            Reason::ActionCeiling => "action_ceiling",
            Reason::StaleObservation => "stale_observation",
            Reason::NoObservation => "no_observation",
            Reason::UnknownElement => "unknown_element",
            Reason::NoMatch => "no_match",
            Reason::AmbiguousTarget => "ambiguous_target",
            Reason::WindowTarget => "window_target",
            Reason::NotVisible => "not_visible",
            Reason::TargetChanged => "target_changed",
            Reason::InvalidRegion => "invalid_region",
            Reason::Guard(rule) => rule.as_str(),
            Reason::DesktopFailed => "desktop_failed",
            Reason::TextNotArrived => "text_not_arrived",
            Reason::Cancelled => "cancelled",
        }
    }

    /// The status a result with this reason carries.
    pub fn status(self) -> Status {
        match self {
            Reason::VisionRequired => Status::Unsupported,
            Reason::ObservationBudget | Reason::ActionCeiling => Status::Limit,
            Reason::StaleObservation | Reason::NotVisible | Reason::TargetChanged => Status::Stale,
            Reason::AmbiguousTarget | Reason::Guard(_) => Status::Refused,
            Reason::InvalidArguments
            | Reason::NoObservation
            | Reason::UnknownElement
            | Reason::NoMatch
            | Reason::WindowTarget
            | Reason::InvalidRegion
            | Reason::DesktopFailed
            | Reason::TextNotArrived
            | Reason::Cancelled => Status::Error,
        }
    }
}

/// How an `expect` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectOutcome {
    Verified,
    /// Not met within the wait; `observed` says what was there instead.
    NotMet {
        observed: String,
    },
    /// Could not be checked (e.g. no accessibility); `why` says what to use instead.
    Unknown {
        why: String,
    },
}

impl ExpectOutcome {
    pub fn suffix(&self) -> &'static str {
        match self {
            ExpectOutcome::Verified => "verified",
            ExpectOutcome::NotMet { .. } => "expectation_not_met",
            ExpectOutcome::Unknown { .. } => "expect_unknown",
        }
    }
}

/// Which guard decided, for audit logs and traces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardDecision {
    /// Every check passed.
    Passed,
    /// A destructive target was allowed because the user's intent asked for it (or the person confirmed).
    AllowedByIntent {
        marker: String,
    },
    AllowedByPerson {
        marker: String,
    },
    /// Refused by the named rule.
    Refused {
        rule: crate::guard::Rule,
    },
    /// The call never reached the guards (gate, arguments, budgets, staleness).
    NotReached,
}

/// Milliseconds spent in each phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Timings {
    pub capture: Duration,
    pub settle: Duration,
    /// Whether the screen settled before the ceiling (None when no settle wait ran).
    pub settled: Option<bool>,
    pub observe: Duration,
    pub encode: Duration,
    pub total: Duration,
}

/// Whether text `type` sent is in the element that received it, read back from that element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypingCheck {
    /// The element holds the text as meant.
    Arrived { element: ElementId },
    /// The first attempt did not arrive (`first` is what the element held then); sent again the other
    /// way (keys instead of a paste, or the reverse), it did.
    ArrivedOnRetry { element: ElementId, first: String },
    /// The element does not hold the text as meant; `holds` is what it holds. `retried`: a second
    /// attempt was made the other way (only when nothing half-typed would be left behind).
    NotArrived { element: ElementId, holds: String, retried: bool },
    /// The text could not be read back, and why (no accessibility, a secret field, a newline that may
    /// have submitted the field…).
    Unchecked { why: String },
}

impl TypingCheck {
    pub fn as_str(&self) -> &'static str {
        match self {
            TypingCheck::Arrived { .. } => "arrived",
            TypingCheck::ArrivedOnRetry { .. } => "arrived_on_retry",
            TypingCheck::NotArrived { .. } => "not_arrived",
            TypingCheck::Unchecked { .. } => "unchecked",
        }
    }
}

/// What changed, on both channels.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Changes {
    pub semantic: SemanticDiff,
    pub visual: VisualDiff,
}

impl Changes {
    pub fn any(&self) -> bool {
        !self.semantic.is_empty() || self.visual.changed()
    }
}

/// The full result of one call. [`Outcome::text`] renders it for the model; edges serialise the same
/// facts for programs.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub status: Status,
    /// Why the call did not run as asked; `None` for `ok` and `no_visible_change`.
    pub reason: Option<Reason>,
    /// None when the action name itself was not understood.
    pub action: Option<ActionKind>,
    /// A short description of what was attempted, e.g. `click e3`.
    pub summary: String,
    /// Why it was refused or failed, in the tool's own words.
    pub message: Option<String>,
    pub guard: GuardDecision,
    /// The elements the action aimed at, as resolved against the latest observation (drag: source, then
    /// destination); empty for actions without a target and calls that stopped before resolving one.
    pub targets: Vec<crate::observation::Element>,
    pub expect: Option<(Expect, ExpectOutcome)>,
    pub changes: Option<Changes>,
    pub timings: Timings,
    /// The observation published by this call (the latest one afterwards).
    pub observation: Option<Arc<Observation>>,
    /// The latest observation id when this call published none (so the model knows what to use).
    pub latest: Option<ObservationId>,
    /// Requests the browser's network guard refused since the previous call (oldest first; URLs without
    /// credentials). The page chose these URLs: they are shown as data, inside the screen markers.
    pub blocked: Vec<BlockedRequest>,
    /// For `type`: whether the text reached the element that received it.
    pub typing: Option<TypingCheck>,
    /// Windows, dialogs and pop-ups that opened or closed since the previous observation, whoever
    /// caused it.
    pub windows: Vec<crate::visibility::WindowEvent>,
    /// The screen changed, but only outside the target's window and app (named here): the input did
    /// not visibly reach its target. The status is then `no_visible_change`.
    pub elsewhere: Option<String>,
    /// Regions (screenshot coordinates) where an animation began with this action, in a window it
    /// opened, and was still going when the rest of the screen settled (a spinner, a progress bar):
    /// the wait did not hold for it, so what it shows may still change.
    pub animating: Vec<Rect>,
    /// Marks the start and end of text read off the screen in [`Outcome::text`].
    pub boundary: String,
    pub(crate) listing: crate::render::Listing,
}

impl Outcome {
    /// The tag line's tag, e.g. `[ok+verified]`.
    pub fn tag(&self) -> String {
        match &self.expect {
            Some((_, outcome)) => format!("[{}+{}]", self.status.as_str(), outcome.suffix()),
            None => format!("[{}]", self.status.as_str()),
        }
    }

    /// The text block shown to the model.
    pub fn text(&self) -> String {
        crate::render::outcome_text(self)
    }
}
