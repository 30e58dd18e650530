//! The structured result of a `computer` call: the same facts as the text the model reads, as types a
//! program can rely on. These types *are* the format: MCP's structured content, the declared output
//! schema ([`crate::schema`]) and the audit and trace records are all built from them, nowhere else.
//!
//! Compatibility: fields are only ever added within a [`RESULT_VERSION`]; a removed or retyped field
//! bumps it. Absent facts are `null`, never missing keys.

use handrail_core::diff::{ElementRef as CoreRef, SemanticDiff, StateChange as CoreStateChange, VisualDiff};
use handrail_core::observation::{Element as CoreElement, Observation as CoreObservation, Source};
use handrail_core::{ExpectOutcome, GuardDecision, Outcome, Reason, Rule, Status, TypingCheck};
use handrail_platform::{AxHealth, BlockedRequest, OcrHealth, Rect};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of the structured result (and of the records built from its parts).
pub const RESULT_VERSION: u32 = 1;

/// `[x, y, width, height]` in screenshot coordinates.
pub type Bounds = [i64; 4];

pub(crate) fn bounds(r: &Rect) -> Bounds {
    [r.x.into(), r.y.into(), r.width.into(), r.height.into()]
}

/// The result's status: the tag every text result starts with, without brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusCode {
    Ok,
    NoVisibleChange,
    Refused,
    Unsupported,
    Stale,
    Limit,
    Error,
}

impl From<Status> for StatusCode {
    fn from(s: Status) -> Self {
        match s {
            Status::Ok => StatusCode::Ok,
            Status::NoVisibleChange => StatusCode::NoVisibleChange,
            Status::Refused => StatusCode::Refused,
            Status::Unsupported => StatusCode::Unsupported,
            Status::Stale => StatusCode::Stale,
            Status::Limit => StatusCode::Limit,
            Status::Error => StatusCode::Error,
        }
    }
}

/// What the guards decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Guard {
    /// Every check passed.
    Passed,
    /// A destructive target the user's own request asks for (`marker`: what matched).
    AllowedByIntent { marker: String },
    /// A destructive target the person allowed when asked.
    AllowedByPerson { marker: String },
    /// Refused by `rule` (a stable code, as in `reason`).
    Refused { rule: RuleCode },
    /// The call stopped before the guards (gate, arguments, budgets, staleness, targets).
    NotReached,
}

impl From<&GuardDecision> for Guard {
    fn from(g: &GuardDecision) -> Self {
        match g {
            GuardDecision::Passed => Guard::Passed,
            GuardDecision::AllowedByIntent { marker } => Guard::AllowedByIntent { marker: marker.clone() },
            GuardDecision::AllowedByPerson { marker } => Guard::AllowedByPerson { marker: marker.clone() },
            GuardDecision::Refused { rule } => Guard::Refused { rule: RuleCode::from(*rule) },
            GuardDecision::NotReached => Guard::NotReached,
        }
    }
}

/// The rule a refusal names: every code a guard can refuse by, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleCode {
    /// A removal the user's request does not ask for (a click, drag, drop, activation key, or Delete
    /// on a selection).
    DestructiveTarget,
    /// A key combination that deletes permanently or ends the session.
    DangerousHotkey,
    /// Characters into a password field.
    PasswordField,
    /// A Tab inside typed text.
    FocusMovesWhileTyping,
    /// A line a terminal would run that the request does not back.
    TerminalCommand,
    /// Keyboard input, with nobody watching, whose receiver cannot be told.
    UnknownReceiver,
    /// An address outside the URL rules.
    Url,
    /// The same action again after it changed nothing, without looking first.
    UnobservedRepeat,
    /// A visible text that matches several targets.
    AmbiguousTarget,
}

impl From<Rule> for RuleCode {
    fn from(rule: Rule) -> Self {
        match rule {
            Rule::DestructiveTarget => RuleCode::DestructiveTarget,
            Rule::DangerousHotkey => RuleCode::DangerousHotkey,
            Rule::PasswordField => RuleCode::PasswordField,
            Rule::FocusMovesWhileTyping => RuleCode::FocusMovesWhileTyping,
            Rule::TerminalCommand => RuleCode::TerminalCommand,
            Rule::UnknownReceiver => RuleCode::UnknownReceiver,
            Rule::Url => RuleCode::Url,
            Rule::UnobservedRepeat => RuleCode::UnobservedRepeat,
            Rule::AmbiguousTarget => RuleCode::AmbiguousTarget,
        }
    }
}

/// How an `expect` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExpectResult {
    Verified,
    ExpectationNotMet,
    ExpectUnknown,
}

impl From<&ExpectOutcome> for ExpectResult {
    fn from(o: &ExpectOutcome) -> Self {
        match o {
            ExpectOutcome::Verified => ExpectResult::Verified,
            ExpectOutcome::NotMet { .. } => ExpectResult::ExpectationNotMet,
            ExpectOutcome::Unknown { .. } => ExpectResult::ExpectUnknown,
        }
    }
}

/// An `expect` and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Expectation {
    /// `focus`, `app`, `window` or `text`.
    pub kind: String,
    pub value: String,
    pub result: ExpectResult,
    /// What was seen instead, or why it could not be checked.
    pub detail: Option<String>,
}

/// Milliseconds spent in each phase of the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Timings {
    pub capture: u64,
    pub settle: u64,
    /// Whether the screen settled before the ceiling; `null` when no settle wait ran.
    pub settled: Option<bool>,
    pub observe: u64,
    pub encode: u64,
    pub total: u64,
}

pub(crate) fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl From<&handrail_core::Timings> for Timings {
    fn from(t: &handrail_core::Timings) -> Self {
        Timings {
            capture: ms(t.capture),
            settle: ms(t.settle),
            settled: t.settled,
            observe: ms(t.observe),
            encode: ms(t.encode),
            total: ms(t.total),
        }
    }
}

/// A request the browser's network guard refused (URL without credentials).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Blocked {
    pub method: String,
    pub url: String,
    pub reason: String,
}

impl From<&BlockedRequest> for Blocked {
    fn from(b: &BlockedRequest) -> Self {
        // Already redacted by the guard that recorded them; redacted again so no path can leak one.
        Blocked { method: b.method.clone(), url: crate::audit::redact_url(&b.url), reason: b.reason.clone() }
    }
}

/// Whether typed text reached the element that received it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Typing {
    Arrived {
        element: String,
    },
    /// The first attempt did not arrive (`first_held`: what the field held then); sent again the other
    /// way, it did.
    ArrivedOnRetry {
        element: String,
        first_held: String,
    },
    /// The field holds `holds` instead; `retried`: a second attempt was made the other way.
    NotArrived {
        element: String,
        holds: String,
        retried: bool,
    },
    /// The text could not be read back, and why.
    Unchecked {
        why: String,
    },
}

impl From<&TypingCheck> for Typing {
    fn from(t: &TypingCheck) -> Self {
        match t {
            TypingCheck::Arrived { element } => Typing::Arrived { element: element.to_string() },
            TypingCheck::ArrivedOnRetry { element, first } => {
                Typing::ArrivedOnRetry { element: element.to_string(), first_held: first.clone() }
            }
            TypingCheck::NotArrived { element, holds, retried } => {
                Typing::NotArrived { element: element.to_string(), holds: holds.clone(), retried: *retried }
            }
            TypingCheck::Unchecked { why } => Typing::Unchecked { why: why.clone() },
        }
    }
}

/// An element named by a change or a target: id (absent for elements that were never listed), role,
/// label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ElementRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub id: Option<String>,
    pub role: String,
    pub label: String,
}

impl From<&CoreRef> for ElementRef {
    fn from(r: &CoreRef) -> Self {
        ElementRef {
            id: r.id.is_assigned().then(|| r.id.to_string()),
            role: r.role.as_str().to_string(),
            label: r.label.clone(),
        }
    }
}

/// An element an action aimed at, with its box when it was aimed at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Target {
    pub id: String,
    pub role: String,
    pub label: String,
    pub bounds: Bounds,
}

impl From<&CoreElement> for Target {
    fn from(e: &CoreElement) -> Self {
        Target {
            id: e.id.to_string(),
            role: e.role.as_str().to_string(),
            label: e.label.clone(),
            bounds: bounds(&e.bounds),
        }
    }
}

/// A value that changed from `before` to `after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    pub before: Option<String>,
    pub after: Option<String>,
}

/// Focus moving from one element to another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FocusChange {
    pub before: Option<ElementRef>,
    pub after: Option<ElementRef>,
}

/// An element whose states (checked, disabled, selected, expanded) changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StateChange {
    pub element: ElementRef,
    pub before: Vec<String>,
    pub after: Vec<String>,
}

impl From<&CoreStateChange> for StateChange {
    fn from(c: &CoreStateChange) -> Self {
        StateChange {
            element: (&c.element).into(),
            before: c.before.names().map(str::to_string).collect(),
            after: c.after.names().map(str::to_string).collect(),
        }
    }
}

/// What changed in meaning: accessibility facts and OCR text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SemanticChanges {
    pub app: Option<Change>,
    pub window: Option<Change>,
    pub focus: Option<FocusChange>,
    pub added: Vec<ElementRef>,
    pub removed: Vec<ElementRef>,
    /// Elements whose value changed (the values are not repeated; secure ones never are).
    pub value_changed: Vec<ElementRef>,
    pub state_changed: Vec<StateChange>,
    pub text_added: Vec<String>,
    pub text_removed: Vec<String>,
}

impl From<&SemanticDiff> for SemanticChanges {
    fn from(s: &SemanticDiff) -> Self {
        let change = |p: &Option<(Option<String>, Option<String>)>| {
            p.as_ref().map(|(b, a)| Change { before: b.clone(), after: a.clone() })
        };
        let refs = |v: &[CoreRef]| v.iter().map(ElementRef::from).collect();
        SemanticChanges {
            app: change(&s.app),
            window: change(&s.window),
            focus: s.focus.as_ref().map(|(b, a)| FocusChange {
                before: b.as_ref().map(ElementRef::from),
                after: a.as_ref().map(ElementRef::from),
            }),
            added: refs(&s.added),
            removed: refs(&s.removed),
            value_changed: refs(&s.value_changed),
            state_changed: s.state_changed.iter().map(StateChange::from).collect(),
            text_added: s.text_added.clone(),
            text_removed: s.text_removed.clone(),
        }
    }
}

/// What changed in pixels: a tile diff of a small greyscale thumbnail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VisualChanges {
    /// Share of tiles that changed, 0 to 1.
    pub changed_fraction: f64,
    pub bounds: Option<Bounds>,
    pub changed_tiles: u32,
    pub total_tiles: u32,
}

impl From<&VisualDiff> for VisualChanges {
    fn from(v: &VisualDiff) -> Self {
        VisualChanges {
            changed_fraction: v.changed_fraction,
            bounds: v.bounds.as_ref().map(bounds),
            changed_tiles: v.changed_tiles,
            total_tiles: v.total_tiles,
        }
    }
}

/// Both channels of evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Changes {
    pub semantic: SemanticChanges,
    pub visual: VisualChanges,
}

/// A window, dialog or pop-up that opened or closed since the previous observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WindowEvent {
    /// `opened` or `closed`.
    pub event: String,
    pub title: String,
    pub app: String,
    /// `normal`, `dialog` or `popup`.
    pub kind: String,
}

/// Accessibility health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AxState {
    Ok,
    Partial,
    Unavailable,
    PermissionRequired,
}

impl From<AxHealth> for AxState {
    fn from(h: AxHealth) -> Self {
        match h {
            AxHealth::Ok => AxState::Ok,
            AxHealth::Partial => AxState::Partial,
            AxHealth::Unavailable => AxState::Unavailable,
            AxHealth::PermissionRequired => AxState::PermissionRequired,
        }
    }
}

/// OCR health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OcrState {
    Ok,
    Off,
    Unavailable,
    Failed,
}

impl From<OcrHealth> for OcrState {
    fn from(h: OcrHealth) -> Self {
        match h {
            OcrHealth::Ok => OcrState::Ok,
            OcrHealth::Off => OcrState::Off,
            OcrHealth::Unavailable => OcrState::Unavailable,
            OcrHealth::Failed => OcrState::Failed,
        }
    }
}

/// Where an element's facts came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ElementSource {
    #[serde(rename = "ax")]
    Ax,
    #[serde(rename = "ocr")]
    Ocr,
    #[serde(rename = "ax+ocr")]
    AxOcr,
    /// A top-level window, as the window manager reports it.
    #[serde(rename = "wm")]
    Window,
}

impl From<Source> for ElementSource {
    fn from(s: Source) -> Self {
        match s {
            Source::Ax => ElementSource::Ax,
            Source::Ocr => ElementSource::Ocr,
            Source::AxOcr => ElementSource::AxOcr,
            Source::Window => ElementSource::Window,
        }
    }
}

/// One thing on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Element {
    pub id: String,
    pub role: String,
    pub label: String,
    /// What it holds or shows; never present for secure fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub value: Option<String>,
    pub bounds: Bounds,
    pub states: Vec<String>,
    pub source: ElementSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub window: Option<String>,
    /// The monitor it is on (`m1`, `m2`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub monitor: Option<String>,
}

impl Element {
    fn of(e: &CoreElement, obs: &CoreObservation) -> Self {
        let present = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Element {
            id: e.id.to_string(),
            role: e.role.as_str().to_string(),
            label: e.label.clone(),
            value: e.value.clone().filter(|_| !e.is_secure()),
            bounds: bounds(&e.bounds),
            states: e.states.names().map(str::to_string).collect(),
            source: e.source.into(),
            app: present(&e.app),
            window: present(&e.window),
            monitor: obs.monitor_of(e).map(|m| m.tag()),
        }
    }
}

/// A monitor the screen is shown on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Monitor {
    /// `m1`, `m2`, … left to right.
    pub id: String,
    pub name: String,
    pub bounds: Bounds,
    pub primary: bool,
}

/// An observation (`obs_N`): what the screen showed, without the image bytes (edges send those as
/// image content or a resource).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    pub id: String,
    pub app: Option<String>,
    pub window: Option<String>,
    /// The focused element's id.
    pub focus: Option<String>,
    pub ax: AxState,
    /// What the accessibility tree left out and why, one line each naming the application (a
    /// container with too many children to read, …). Empty when nothing is known to be missing.
    #[serde(default)]
    pub ax_notes: Vec<String>,
    pub ocr: OcrState,
    /// `[width, height]` of the real screen.
    pub screen: [u32; 2],
    /// `[width, height]` of the screenshot, the space of every box.
    pub image: [u32; 2],
    /// Screen pixels per screenshot pixel.
    pub scale: f64,
    pub image_mime: Option<String>,
    /// For `inspect`: the region shown at full resolution.
    pub inspect_region: Option<Bounds>,
    pub monitors: Vec<Monitor>,
    pub elements: Vec<Element>,
}

impl From<&CoreObservation> for Observation {
    fn from(o: &CoreObservation) -> Self {
        Observation {
            id: o.id.to_string(),
            app: o.app.clone(),
            window: o.window.clone(),
            focus: o.focused().map(|e| e.id.to_string()),
            ax: o.ax.into(),
            ax_notes: o.ax_notes.clone(),
            ocr: o.ocr.into(),
            screen: [o.screen.width, o.screen.height],
            image: [o.image_size.width, o.image_size.height],
            scale: o.scale,
            image_mime: o.image.as_ref().map(|i| i.mime.to_string()),
            inspect_region: o.inspect.as_ref().map(|d| bounds(&d.region)),
            monitors: o
                .monitors
                .iter()
                .map(|m| Monitor { id: m.tag(), name: m.name.clone(), bounds: bounds(&m.bounds), primary: m.primary })
                .collect(),
            elements: o.elements.iter().map(|e| Element::of(e, o)).collect(),
        }
    }
}

/// Blocked requests listed at most per result; `blocked_count` always has the full number.
pub const MAX_BLOCKED_LISTED: usize = 64;

/// The structured result of a `computer` call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ComputerResult {
    /// [`RESULT_VERSION`].
    pub version: u32,
    pub status: StatusCode,
    /// The text result's leading tag, e.g. `[ok+verified]`.
    pub tag: String,
    /// Why the call did not run as asked: a stable code (`vision_required`, `invalid_arguments`,
    /// `observation_budget`, `action_ceiling`, `stale_observation`, `no_observation`,
    /// `unknown_element`, `no_match`, `ambiguous_target`, `window_target`, `not_visible`,
    /// `target_changed`, `invalid_region`, `desktop_failed`, `text_not_arrived`, or a guard's rule such
    /// as `destructive_target`, `password_field`, `dangerous_hotkey`, `url`, `terminal_command`,
    /// `unknown_receiver`, `unobserved_repeat`); `null` when it ran.
    pub reason: Option<String>,
    /// The action, when it was understood.
    pub action: Option<String>,
    /// What was attempted, e.g. `click e3` (typed text only by length).
    pub summary: String,
    /// Why it was refused or failed, or what to do next, in words.
    pub message: Option<String>,
    pub guard: Guard,
    /// The elements the action aimed at, as resolved (drag: source, then destination).
    pub targets: Vec<Target>,
    pub expect: Option<Expectation>,
    /// Whether the action changed anything on its target's window; `null` when nothing ran.
    pub changed: Option<bool>,
    pub changes: Option<Changes>,
    /// The changes lay only outside the target's window, in this window.
    pub elsewhere: Option<String>,
    pub timings_ms: Timings,
    pub blocked: Vec<Blocked>,
    pub blocked_count: usize,
    pub typing: Option<Typing>,
    /// Regions where an animation began with this action and was not waited for.
    pub animating: Vec<Bounds>,
    pub windows: Vec<WindowEvent>,
    pub observation: Option<Observation>,
    /// The id to use next: the one this call published, or the latest one.
    pub latest_observation: Option<String>,
}

impl From<&Outcome> for ComputerResult {
    fn from(o: &Outcome) -> Self {
        ComputerResult {
            version: RESULT_VERSION,
            status: o.status.into(),
            tag: o.tag(),
            reason: o.reason.map(|r: Reason| r.as_str().to_string()),
            action: o.action.map(|a| a.as_str().to_string()),
            summary: o.summary.clone(),
            message: o.message.clone(),
            guard: (&o.guard).into(),
            targets: o.targets.iter().map(Target::from).collect(),
            expect: o.expect.as_ref().map(|(e, outcome)| Expectation {
                kind: e.kind.as_str().to_string(),
                value: e.value.clone(),
                result: outcome.into(),
                detail: match outcome {
                    ExpectOutcome::Verified => None,
                    ExpectOutcome::NotMet { observed } => Some(observed.clone()),
                    ExpectOutcome::Unknown { why } => Some(why.clone()),
                },
            }),
            changed: o.changes.as_ref().map(|c| c.any() && o.elsewhere.is_none()),
            changes: o.changes.as_ref().map(|c| Changes { semantic: (&c.semantic).into(), visual: (&c.visual).into() }),
            elsewhere: o.elsewhere.clone(),
            timings_ms: (&o.timings).into(),
            blocked: o.blocked.iter().take(MAX_BLOCKED_LISTED).map(Blocked::from).collect(),
            blocked_count: o.blocked.len(),
            typing: o.typing.as_ref().map(Typing::from),
            animating: o.animating.iter().map(bounds).collect(),
            windows: o
                .windows
                .iter()
                .map(|w| WindowEvent {
                    event: if w.opened { "opened" } else { "closed" }.to_string(),
                    title: w.window.title.clone(),
                    app: w.window.app.clone(),
                    kind: w.window.kind.as_str().to_string(),
                })
                .collect(),
            observation: o.observation.as_deref().map(Observation::from),
            latest_observation: o.observation.as_ref().map(|ob| ob.id).or(o.latest).map(|id| id.to_string()),
        }
    }
}
