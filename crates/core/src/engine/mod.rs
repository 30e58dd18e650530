//! The engine: one pipeline per call.
//!
//! ```text
//! capability gate → arguments → budgets → staleness → guards → re-check target → act → settle
//!   → observe → semantic + visual diff → expect → result
//! ```
//!
//! Nothing touches the desktop before the capability gate, argument validation, budgets, staleness and
//! the guards have all passed; the only desktop reads before acting are the target re-check's capture
//! and accessibility snapshot.

use std::sync::Arc;
use std::time::Duration;

use handrail_platform::{
    AxHealth, AxLimits, AxSnapshot, Desktop, MouseButton, OcrHealth, PlatformError, Point, Rect, SettleReport,
    SettleRequest, SettleWatch, Size,
};

use crate::diff::attribution::{place, Placement, Scene as AttributionScene};
use crate::diff::{SemanticDiff, StateView, Thumbnail, VisualDiff};
use crate::guard::effect::keeps_focus;
use crate::guard::terminal::{is_terminal_element, PendingLine, TerminalId};
use crate::guard::url::{redact_credentials, vet_url, UrlPolicy};
use crate::identity::{centre_distance, drift_tolerance, match_elements, IdTracker};
use crate::ids::ObservationId;
use crate::merge::Geometry;
use crate::observation::{Element, FrontWindow, InspectDetail, Observation, Source};
use crate::outcome::{Changes, ExpectOutcome, GuardDecision, Outcome, Status, Timings, TypingCheck};
use crate::render::{quote_clipped, Listing};
use crate::request::{ActionKind, Command, Expect, ExpectKind, InspectSubject, PointerKind, RawArgs, Request, Target};
use crate::text::{
    contains_normalized, contains_phrase, contains_phrase_ignoring_spaces, has_unspaced_script, normalize,
    squash_spaces,
};
use crate::turn::{next_inferred_id, Mode, TurnSource};
use crate::visibility::{self, ScreenWindow};

mod aim;
mod judge;
mod look;
mod typing;
mod visited;

use judge::Judged;

/// The exact refusal for models that cannot see.
pub const UNSUPPORTED: &str = "computer requires a vision-capable model";

/// Whether the main model can see images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vision {
    Capable,
    TextOnly {
        model: String,
    },
    /// Nobody said; fail closed.
    Unknown {
        model: Option<String>,
    },
}

/// Per-turn budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    /// Actions that may change the desktop.
    pub mutations: u32,
    /// `see` and `inspect` calls.
    pub observations: u32,
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct Config {
    pub vision: Vision,
    /// Screenshots are downscaled to fit inside this (aspect kept).
    pub max_image: Option<Size>,
    pub settle: SettleRequest,
    /// How long `expect` keeps looking after the screen settled.
    pub expect_timeout: Duration,
    pub interactive: Budgets,
    pub unattended: Budgets,
    pub url_policy: UrlPolicy,
    pub ax_limits: AxLimits,
    pub ocr: bool,
    pub listing: Listing,
    /// Set-of-marks: draw each listed element's box and id on the screenshot sent to the model. A call's
    /// `marks` argument overrides it for that call.
    pub marks: bool,
    /// Where the per-call boundary markers come from.
    pub markers: Markers,
    /// How refusals name the settings that change them.
    pub knobs: Knobs,
}

/// How `[limit]` and intent refusals tell the model which setting changes them, in the words of the
/// edge in use (its flags, its protocol). The defaults are `handrail serve`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knobs {
    /// What sets the action ceiling.
    pub max_actions: String,
    /// What sets the observation budget.
    pub max_observations: String,
    /// What sets the budget window (turns the edge infers).
    pub window: String,
    /// How the user's words reach the turn, for a refusal that had no intent to go by.
    pub intent: String,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            max_actions: "--max-actions N".into(),
            max_observations: "--max-observations N".into(),
            window: "--budget-window SECONDS".into(),
            intent: "a host passes the user's own words in the request's _meta as \"handrail/intent\" (with \
                     \"handrail/turn\"); a person starting the server passes --intent \"<the request>\"; a host with MCP elicitation asks the person instead"
                .into(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            vision: Vision::Unknown { model: None },
            max_image: Some(Size::new(1280, 1280)),
            settle: SettleRequest::default(),
            expect_timeout: Duration::from_millis(3000),
            interactive: Budgets { mutations: 50, observations: 100 },
            unattended: Budgets { mutations: 20, observations: 40 },
            url_policy: UrlPolicy::default(),
            ax_limits: AxLimits::default(),
            ocr: true,
            listing: Listing::default(),
            marks: false,
            markers: Markers::Os,
            knobs: Knobs::default(),
        }
    }
}

/// One user request: the person's own words and whether they are watching.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Turn {
    pub id: String,
    /// The user's words, supplied by the host — never by the model.
    pub intent: String,
    pub mode: Mode,
}

/// Asks the person (e.g. through MCP elicitation) whether an action the intent does not back may run.
pub trait Confirm: Send {
    /// `Some(true)` to allow, `Some(false)` to refuse, `None` when nobody can be asked.
    fn confirm(&mut self, question: &str) -> Option<bool>;
}

/// What the session remembers within a turn.
#[derive(Debug, Default)]
struct Session {
    turn: Turn,
    source: TurnSource,
    /// When the latest call ended (inferred turns: the idle gap counts from here).
    last_call: Option<Duration>,
    /// When the budget window began (inferred turns; `None` until a call is counted after a refill).
    window_start: Option<Duration>,
    latest: Option<Arc<Observation>>,
    tracker: IdTracker,
    last_observation: u64,
    mutations: u32,
    observations: u32,
    /// The element most recently clicked or typed into (receives keyboard input when focus cannot be
    /// read); forgotten after any key that may have moved focus.
    last_clicked: Option<Element>,
    /// An action that changed nothing; repeating it is refused until the screen is observed again.
    unchanged: Option<Signature>,
    /// The line at a terminal's prompt, while every input since it was known went to that terminal.
    terminal: Option<(TerminalId, PendingLine)>,
    rng: u64,
    /// Whether this call's screenshots carry set-of-marks.
    marks: bool,
}

/// Identifies "the same action on the same target".
#[derive(Debug, Clone, PartialEq, Eq)]
struct Signature {
    action: ActionKind,
    target: String,
    payload: String,
}

/// Where an action aims: the element and the screen point to use.
#[derive(Debug, Clone)]
struct Aim {
    element: Element,
    point: Point,
}

/// A fresh look at the screen before publication.
struct Fresh {
    obs: Observation,
    capture: Duration,
    observe: Duration,
    encode: Duration,
}

/// The engine driving one desktop.
pub struct Engine {
    desktop: Desktop,
    config: Config,
    confirm: Option<Box<dyn Confirm>>,
    session: Session,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("config", &self.config).finish_non_exhaustive()
    }
}

fn desktop_failed(action: ActionKind, summary: String, e: PlatformError, latest: Option<ObservationId>) -> Outcome {
    bare(Status::Error, Some(action), summary, Some(format!("the desktop failed: {e}")), latest)
}

/// Where the boundary markers that frame screen text come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markers {
    /// The operating system's randomness, fresh for every call: a page cannot know the marker that
    /// will close its text. What every real desktop and server uses.
    Os,
    /// A sequence from this seed: byte-identical results run after run, for tests.
    Seeded(u64),
}

/// Builds an outcome with no observation.
fn bare(
    status: Status,
    action: Option<ActionKind>,
    summary: String,
    message: Option<String>,
    latest: Option<ObservationId>,
) -> Outcome {
    Outcome {
        status,
        action,
        summary,
        message,
        guard: GuardDecision::NotReached,
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

impl Engine {
    pub fn new(desktop: Desktop, config: Config) -> Self {
        let rng = match config.markers {
            Markers::Seeded(seed) => seed,
            Markers::Os => 0,
        };
        Self { desktop, config, confirm: None, session: Session { rng, ..Session::default() } }
    }

    /// Lets the engine ask the person about destructive targets in interactive turns.
    pub fn set_confirm(&mut self, confirm: Box<dyn Confirm>) {
        self.confirm = Some(confirm);
    }

    /// Nobody can be asked any more: destructive targets the intent does not back are refused.
    pub fn clear_confirm(&mut self) {
        self.confirm = None;
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn set_vision(&mut self, vision: Vision) {
        self.config.vision = vision;
    }

    pub fn turn(&self) -> &Turn {
        &self.session.turn
    }

    /// The latest published observation of this turn.
    pub fn latest(&self) -> Option<&Arc<Observation>> {
        self.session.latest.as_ref()
    }

    /// Starts a turn: older observation ids become invalid, budgets refill, remembered targets are
    /// forgotten. Ids keep counting so none is ever reused.
    pub fn begin_turn(&mut self, turn: Turn) {
        self.begin_turn_from(turn, TurnSource::Host);
    }

    /// Starts a turn whose successors come from `source`: the host's, or inferred from idle time (see
    /// [`TurnSource`]).
    pub fn begin_turn_from(&mut self, turn: Turn, source: TurnSource) {
        let s = &mut self.session;
        s.turn = turn;
        s.source = source;
        s.last_call = None;
        s.window_start = None;
        s.latest = None;
        s.tracker.forget();
        s.mutations = 0;
        s.observations = 0;
        s.last_clicked = None;
        s.unchanged = None;
        // A person may have typed at the prompt between turns.
        s.terminal = None;
    }

    /// Where this turn's successors come from.
    pub fn turn_source(&self) -> TurnSource {
        self.session.source
    }

    /// Without host turns: a call after the idle gap starts the next inferred turn, and a budget window
    /// that has passed refills the budgets.
    fn infer_turn(&mut self) {
        let TurnSource::Inferred { idle_gap, window } = self.session.source else {
            return;
        };
        let now = self.desktop.clock.now();
        if let Some(idle) = self.session.last_call.map(|t| now.saturating_sub(t)).filter(|idle| *idle >= idle_gap) {
            let turn = Turn { id: next_inferred_id(&self.session.turn.id), ..self.session.turn.clone() };
            log::info!("turn {:?} begins: the client was idle for {} s", turn.id, idle.as_secs());
            self.begin_turn_from(turn, TurnSource::Inferred { idle_gap, window });
            return;
        }
        if self.session.window_start.is_some_and(|start| now.saturating_sub(start) >= window) {
            self.session.window_start = None;
            self.session.mutations = 0;
            self.session.observations = 0;
        }
    }

    /// Counts a call against the window (inferred turns), opening the window at the first one.
    fn open_window(&mut self) {
        if self.session.window_start.is_none() {
            self.session.window_start = Some(self.desktop.clock.now());
        }
    }

    /// What a `[limit]` says about when calls are accepted again and what changes the limit.
    fn refill_note(&self, knob: &str) -> String {
        match self.session.source {
            TurnSource::Host => format!("the next turn refills it; {knob} changes it"),
            TurnSource::Inferred { window, .. } => {
                let now = self.desktop.clock.now();
                let start = self.session.window_start.unwrap_or(now);
                let left = (start + window).saturating_sub(now);
                // Whole seconds, rounded up: at that time the call is accepted.
                let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
                format!(
                    "this host sends no turns, so it holds per {} s window: calls are accepted again in {secs} s; \
                     {knob} changes it, {} the window",
                    window.as_secs(),
                    self.config.knobs.window
                )
            }
        }
    }

    fn budgets(&self) -> Budgets {
        match self.session.turn.mode {
            Mode::Interactive => self.config.interactive,
            Mode::Unattended => self.config.unattended,
        }
    }

    fn next_boundary(&mut self) -> String {
        if self.config.markers == Markers::Os {
            let mut bytes = [0u8; 6];
            match getrandom::fill(&mut bytes) {
                Ok(()) => return bytes.iter().map(|b| format!("{b:02x}")).collect(),
                // Never seen on Linux; the sequence below is still not something a page can know.
                Err(e) => log::warn!("the system's randomness failed ({e}); boundary markers come from a sequence"),
            }
        }
        // splitmix64 over the seed: reproducible, for tests on the simulated desktop.
        self.session.rng = self.session.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.session.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        format!("{:012x}", (z ^ (z >> 31)) & 0xFFFF_FFFF_FFFF)
    }

    fn gate(&self) -> Option<Outcome> {
        match &self.config.vision {
            Vision::Capable => None,
            Vision::TextOnly { .. } => Some(bare(Status::Unsupported, None, UNSUPPORTED.into(), None, None)),
            Vision::Unknown { model } => {
                let named = model
                    .as_deref()
                    .map_or_else(|| "the model".to_string(), |m| format!("model {}", quote_clipped(m, 60)));
                Some(bare(
                    Status::Unsupported,
                    None,
                    UNSUPPORTED.into(),
                    Some(format!(
                        "{named} is not known to accept images; declare it (e.g. --vision yes, or a known vision model name) if it does"
                    )),
                    None,
                ))
            }
        }
    }

    /// Runs one call from raw arguments: the capability gate comes before even the arguments are read.
    pub fn call_args(&mut self, args: &RawArgs) -> Outcome {
        if let Some(refusal) = self.gate() {
            return refusal;
        }
        match Request::from_args(args) {
            Ok(request) => self.run(request),
            Err(e) => {
                let action = args.action.as_deref().and_then(ActionKind::parse);
                let summary = action.map_or_else(|| "call".to_string(), |a| a.as_str().to_string());
                bare(Status::Error, action, summary, Some(e.to_string()), self.latest_id())
            }
        }
    }

    /// The result for arguments an edge could not even decode (wrong JSON types, unknown names): the
    /// capability gate still answers first, then the problem is reported as `[error]`.
    pub fn refuse_arguments(&mut self, problem: &str) -> Outcome {
        if let Some(refusal) = self.gate() {
            return refusal;
        }
        bare(Status::Error, None, "call".to_string(), Some(problem.to_string()), self.latest_id())
    }

    /// Runs one validated call.
    pub fn call(&mut self, request: Request) -> Outcome {
        if let Some(refusal) = self.gate() {
            return refusal;
        }
        self.run(request)
    }

    fn latest_id(&self) -> Option<ObservationId> {
        self.session.latest.as_ref().map(|o| o.id)
    }

    fn run(&mut self, request: Request) -> Outcome {
        self.infer_turn();
        let started = self.desktop.clock.now();
        self.session.marks = request.marks.unwrap_or(self.config.marks);
        let before = self.session.latest.clone();
        let mut outcome = self.run_inner(&request);
        if let (Some(before), Some(after)) = (&before, &outcome.observation) {
            outcome.windows = visibility::window_events(&before.windows, &after.windows);
        }
        // After the action settled and the screen was observed again: whatever the browser tried and
        // the network guard refused meanwhile (a redirect, a script, a subresource) is reported now.
        // Every call that passed the gate drains it, so a see or a refused call loses nothing either.
        outcome.blocked = self.desktop.network.take_blocked();
        for b in &mut outcome.blocked {
            // Backends report URLs redacted; made sure here, before anything renders or records them.
            b.url = crate::guard::url::redact_credentials(&b.url);
        }
        self.undo_forbidden_visit(before.as_deref(), &mut outcome);
        outcome.timings.total = self.desktop.clock.now().saturating_sub(started);
        if outcome.boundary.is_empty() {
            outcome.boundary = self.next_boundary();
        }
        outcome.listing = self.config.listing;
        self.session.last_call = Some(self.desktop.clock.now());
        log::info!(
            "turn={} action={} status={} guard={:?} total_ms={}",
            self.session.turn.id,
            request.action,
            outcome.status.as_str(),
            outcome.guard,
            outcome.timings.total.as_millis()
        );
        outcome
    }

    fn run_inner(&mut self, request: &Request) -> Outcome {
        let action = request.action;
        let summary = summarize(request);
        let latest = self.latest_id();

        // Budgets.
        let budgets = self.budgets();
        let mode = self.session.turn.mode;
        let per = match self.session.source {
            TurnSource::Host => "of this turn",
            TurnSource::Inferred { .. } => "of this turn and window",
        };
        if action.is_observation() {
            if self.session.observations >= budgets.observations {
                let note = self.refill_note(&self.config.knobs.max_observations);
                return bare(
                    Status::Limit,
                    Some(action),
                    summary,
                    Some(format!(
                        "the observation budget {per} ({} see/inspect calls, {} mode) is used up; {note}",
                        budgets.observations,
                        mode.as_str()
                    )),
                    latest,
                );
            }
        } else if self.session.mutations >= budgets.mutations {
            let note = self.refill_note(&self.config.knobs.max_actions);
            return bare(
                Status::Limit,
                Some(action),
                summary,
                Some(format!(
                    "the action ceiling {per} ({} actions, {} mode) is reached; {note}",
                    budgets.mutations,
                    mode.as_str()
                )),
                latest,
            );
        }

        // Staleness of the observation id.
        if let Some(given) = request.observation.filter(|given| latest != Some(*given)) {
            let why = match latest {
                Some(l) => format!("{given} is not the latest observation; the latest is {l}: use its element ids"),
                None => format!("{given} is not an observation of this turn; call see first"),
            };
            return bare(Status::Stale, Some(action), summary, Some(why), latest);
        }

        // Targets resolve against the latest observation.
        let aims = match self.resolve_targets(request) {
            Ok(a) => a,
            Err(o) => return *o,
        };

        match &request.command {
            Command::See => return self.see(action, summary),
            Command::Inspect(subject) => {
                let region = match subject {
                    InspectSubject::Region(r) => *r,
                    InspectSubject::Target(_) => aims.first().map_or(Rect::default(), |a| a.element.bounds),
                };
                return self.inspect(action, summary, region);
            }
            _ => {}
        }

        // Guards.
        let judged = match self.guards(request, &aims) {
            Ok(g) => g,
            Err(o) => return *o,
        };

        // An action that changed nothing is not repeated blindly.
        let signature = signature(request);
        if self.session.unchanged.as_ref() == Some(&signature) {
            let mut o = bare(
                Status::Refused,
                Some(action),
                summary,
                Some(
                    "this same action changed nothing last time; observe first (see or inspect), find the target again, then retry"
                        .into(),
                ),
                latest,
            );
            o.guard = GuardDecision::Refused { rule: "unobserved_repeat" };
            return o;
        }

        self.act_and_verify(request, summary, aims, judged, signature)
    }

    fn resolve_targets(&self, request: &Request) -> Result<Vec<Aim>, Box<Outcome>> {
        let targets: Vec<&Target> = match &request.command {
            Command::Drag { from, to } => vec![from, to],
            _ => request.target().into_iter().collect(),
        };
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        let action = request.action;
        let Some(obs) = self.session.latest.clone() else {
            return Err(Box::new(bare(
                Status::Error,
                Some(action),
                summarize(request),
                Some("there is no observation in this turn yet; call see first, then target its element ids".into()),
                None,
            )));
        };
        let mut aims = Vec::new();
        for target in targets {
            let element = match target {
                Target::Element(id) => obs.element(*id).cloned().ok_or_else(|| {
                    Box::new(bare(
                        Status::Error,
                        Some(action),
                        summarize(request),
                        Some(format!("{id} is not in {} (the latest observation); use an id it lists", obs.id)),
                        Some(obs.id),
                    ))
                })?,
                Target::Text(text) => self.find_text(&obs, text).map_err(|(status, msg)| {
                    let mut o = bare(status, Some(action), summarize(request), Some(msg), Some(obs.id));
                    if status == Status::Refused {
                        o.guard = GuardDecision::Refused { rule: "ambiguous_target" };
                    }
                    Box::new(o)
                })?,
            };
            if element.source == Source::Window && !acts_on_windows(&request.command) {
                return Err(Box::new(bare(
                    Status::Error,
                    Some(action),
                    summarize(request),
                    Some(format!(
                        "{} is a window: click it to raise it, or target an element inside it for {}",
                        element.id, action
                    )),
                    Some(obs.id),
                )));
            }
            let Some(point) = aim::aim_point(&element, &obs.elements, &obs.windows) else {
                return Err(Box::new(bare(
                    Status::Stale,
                    Some(action),
                    summarize(request),
                    Some(format!("{} is not visible in {}; see again", element.id, obs.id)),
                    Some(obs.id),
                )));
            };
            let point = obs.to_screen(point);
            aims.push(Aim { element, point });
        }
        Ok(aims)
    }

    fn find_text(&self, obs: &Observation, text: &str) -> Result<Element, (Status, String)> {
        // A window's title names the page inside it: text is looked for in what windows show first,
        // and only then among the titles.
        let (inside, windows): (Vec<&Element>, Vec<&Element>) =
            obs.elements.iter().partition(|e| e.source != Source::Window);
        let found = Self::matching(&inside, text);
        let found = if found.is_empty() { Self::matching(&windows, text) } else { found };
        match found.as_slice() {
            [] => Err((
                Status::Error,
                format!(
                    "no element in {} shows the text {}; target an element id instead",
                    obs.id,
                    quote_clipped(text, 60)
                ),
            )),
            [one] => Ok((*one).clone()),
            many => {
                let listed: Vec<String> =
                    many.iter().take(8).map(|e| crate::render::element_line(e, &self.config.listing)).collect();
                let more = if many.len() > 8 { format!("\n… {} more", many.len() - 8) } else { String::new() };
                Err((
                    Status::Refused,
                    format!(
                        "the text {} matches {} elements in {}; target one by element_id:\n{}{more}",
                        quote_clipped(text, 60),
                        many.len(),
                        obs.id,
                        listed.join("\n")
                    ),
                ))
            }
        }
    }

    /// Elements showing `text`: exactly (after normalising), else containing it.
    fn matching<'e>(elements: &[&'e Element], text: &str) -> Vec<&'e Element> {
        let wanted = normalize(text);
        let exact: Vec<&Element> =
            elements.iter().copied().filter(|e| e.visible_texts().any(|t| normalize(t) == wanted)).collect();
        if !exact.is_empty() {
            return exact;
        }
        let squashed = squash_spaces(text);
        elements
            .iter()
            .copied()
            .filter(|e| {
                e.visible_texts().any(|t| {
                    contains_normalized(t, text) || (!squashed.is_empty() && squash_spaces(t).contains(&squashed))
                })
            })
            .collect()
    }

    fn see(&mut self, action: ActionKind, summary: String) -> Outcome {
        self.open_window();
        self.session.observations += 1;
        self.session.unchanged = None;
        match self.fresh(None) {
            Ok(fresh) => self.published(Status::Ok, action, summary, fresh),
            Err(e) => self.platform_error(action, summary, e),
        }
    }

    fn inspect(&mut self, action: ActionKind, summary: String, region: Rect) -> Outcome {
        let latest = self.session.latest.clone();
        let image_rect = latest.as_ref().map(|o| Rect::from_size(o.image_size));
        let region = match image_rect {
            Some(bounds) => region.clamped_to(&bounds),
            None => {
                return bare(
                    Status::Error,
                    Some(action),
                    summary,
                    Some("inspect needs an observation of this turn; call see first".into()),
                    None,
                )
            }
        };
        if region.is_empty() {
            return bare(
                Status::Error,
                Some(action),
                summary,
                Some("`region` lies outside the screenshot".into()),
                self.latest_id(),
            );
        }
        self.open_window();
        self.session.observations += 1;
        self.session.unchanged = None;
        match self.fresh(Some(region)) {
            Ok(fresh) => self.published(Status::Ok, action, summary, fresh),
            Err(e) => self.platform_error(action, summary, e),
        }
    }

    fn platform_error(&self, action: ActionKind, summary: String, e: PlatformError) -> Outcome {
        desktop_failed(action, summary, e, self.latest_id())
    }

    /// Captures and builds an observation (not yet published). With `inspect`, the image is a
    /// full-resolution crop of that region (screenshot coordinates) and the listing is detailed.
    fn fresh(&mut self, inspect: Option<Rect>) -> Result<Fresh, PlatformError> {
        let Engine { desktop, config, session, .. } = self;
        observe(desktop, config, &mut session.tracker, inspect, session.marks)
    }

    fn publish(&mut self, mut obs: Observation) -> Arc<Observation> {
        self.session.last_observation += 1;
        obs.id = ObservationId(self.session.last_observation);
        let obs = Arc::new(obs);
        self.session.latest = Some(obs.clone());
        obs
    }

    fn published(&mut self, status: Status, action: ActionKind, summary: String, fresh: Fresh) -> Outcome {
        let Fresh { obs, capture, observe, encode, .. } = fresh;
        let obs = self.publish(obs);
        let mut o = bare(status, Some(action), summary, None, Some(obs.id));
        o.timings.capture = capture;
        o.timings.observe = observe;
        o.timings.encode = encode;
        o.observation = Some(obs);
        o
    }

    fn act_and_verify(
        &mut self,
        request: &Request,
        summary: String,
        mut aims: Vec<Aim>,
        judged: Judged,
        signature: Signature,
    ) -> Outcome {
        let action = request.action;

        // Probe: what is there right now, to re-check the target and to diff against.
        let probe = match self.probe() {
            Ok(p) => p,
            Err(e) => return self.platform_error(action, summary, e),
        };
        if let Some(latest) = self.session.latest.clone() {
            for aim in &mut aims {
                if let Err(why) = recheck(aim, &latest, &probe) {
                    self.session.unchanged = None;
                    return match self.fresh(None) {
                        Ok(fresh) => {
                            let mut o = self.published(Status::Stale, action, summary, fresh);
                            o.message = Some(format!("{why}; nothing was done — use the fresh observation below"));
                            o
                        }
                        Err(e) => self.platform_error(action, summary, e),
                    };
                }
            }
        }
        // Keys act on whatever has focus now, which may not be what the observation showed.
        let (guard, terminal_after) = match self.guards_on_probe(request, &aims, &probe, judged) {
            Ok(j) => (j.decision, j.terminal),
            Err(o) => return *o,
        };
        // Whatever happens next, the line is only known again if this input reaches its terminal.
        self.session.terminal = None;

        self.open_window();
        self.session.mutations += 1;
        let typed_into = match &request.command {
            Command::Type { text, .. } => Some(typing::receiver_before(text, &aims, &probe)),
            _ => None,
        };
        let acted = act_settle_observe(
            &self.desktop,
            &self.config,
            &mut self.session.tracker,
            request,
            &aims,
            self.session.marks,
            typed_into.as_ref(),
        );
        let Acted { settle: settle_report, settle_time, fresh, expect: expect_outcome, typing } = match acted {
            Ok(a) => a,
            Err(e) => {
                // Best effort: show what the screen looks like after the failure.
                let mut o = self.platform_error(action, summary, e);
                if let Ok(fresh) = self.fresh(None) {
                    let published = self.published(Status::Error, action, String::new(), fresh);
                    o.observation = published.observation;
                    o.latest = None;
                }
                return o;
            }
        };

        // Diff: semantics against the probe (fresher than the last observation); OCR text against the
        // last observation when OCR ran then; pixels against the probe's capture.
        let ocr_before = self
            .session
            .latest
            .as_ref()
            .filter(|o| o.ocr == OcrHealth::Ok && fresh.obs.ocr == OcrHealth::Ok)
            .map(|o| o.elements.clone());
        let before_view = StateView {
            app: probe.app.as_deref(),
            window: probe.window.as_deref(),
            focus: probe.focus,
            elements: &probe.elements,
        };
        let semantic = SemanticDiff::between(before_view, StateView::of(&fresh.obs), ocr_before.as_deref());
        let scale = fresh.obs.scale;
        let to_image = |r: &Rect| if scale == 1.0 { *r } else { r.scaled(1.0 / scale) };
        let ignored: Vec<Rect> = settle_report.ignored.iter().map(to_image).collect();
        let animating: Vec<Rect> = settle_report.began.iter().map(to_image).collect();
        let visual = VisualDiff::between(&probe.thumbnail, &fresh.obs.thumbnail, &ignored);
        let changes = Changes { semantic, visual };
        let elsewhere = match aims.first().filter(|_| reaches_its_target(&request.command)) {
            Some(aim) => aim.element.owner.and_then(|target_window| {
                let scene = AttributionScene { target_window, before: &probe.windows, after: &fresh.obs.windows };
                match place(&changes, &scene) {
                    Placement::Elsewhere { target_window } => Some(target_window),
                    Placement::OnTarget | Placement::Unknown => None,
                }
            }),
            None => None,
        };
        // A change only elsewhere is no evidence the action reached its target: it counts as none for
        // the no-blind-repeat rule.
        let changed = changes.any() && elsewhere.is_none();

        if changed {
            self.session.unchanged = None;
        } else {
            self.session.unchanged = Some(signature);
        }
        if matches!(request.command, Command::Pointer { kind, .. } if kind != PointerKind::Hover)
            || matches!(request.command, Command::Type { target: Some(_), .. })
        {
            self.session.last_clicked = aims.first().map(|a| a.element.clone());
        }
        let focus_may_have_moved = match &request.command {
            Command::Key { combo } => !keeps_focus(combo),
            Command::Type { text, .. } => text.contains(['\t', '\n', '\r']),
            Command::OpenApp { .. } | Command::OpenUrl { .. } | Command::Drag { .. } => true,
            _ => false,
        };
        if focus_may_have_moved {
            self.session.last_clicked = None;
        }
        self.session.terminal = match &request.command {
            // A terminal handrail just opened starts at an empty prompt.
            Command::OpenApp { .. } => fresh_terminal(&fresh.obs),
            _ => terminal_after,
        };
        let status = if changed { Status::Ok } else { Status::NoVisibleChange };
        let mut o = self.published(status, action, summary, fresh);
        o.guard = guard;
        o.changes = Some(changes);
        o.expect = request.expect.clone().zip(expect_outcome);
        o.timings.settle = settle_time;
        o.timings.settled = Some(settle_report.settled);
        o.animating = animating;
        if let Some(window) = &elsewhere {
            let target = aims.first().map(|a| a.element.id.to_string()).unwrap_or_default();
            o.message = Some(format!(
                "the action ran, but nothing changed on {target} or its window {window}: the only changes were elsewhere \
                 (see the evidence), so the input may not have reached its target — observe, find the target again, and \
                 retry differently"
            ));
        } else if !changed {
            o.message = Some(
                "the action ran but nothing changed on screen; do not assume it worked — observe, find the target again, and retry differently"
                    .into(),
            );
        }
        o.elsewhere = elsewhere;
        if let Some(TypingCheck::NotArrived { element, retried, .. }) = &typing {
            o.status = Status::Error;
            let again = if *retried { ", also when sent again the other way" } else { "" };
            o.message = Some(format!(
                "the text did not arrive as typed in {element}{again}; what it holds is shown below — clear the \
                 field and type again, or check it with see"
            ));
        }
        o.typing = typing;
        o
    }

    fn probe(&mut self) -> Result<Probe, PlatformError> {
        let d = &self.desktop;
        let frame = d.screen.capture(None, self.config.max_image)?;
        let ax = d.accessibility.snapshot(&self.config.ax_limits);
        let front = d.windows.frontmost().ok().flatten();
        let geo = Geometry { image: frame.size, scale: frame.scale() };
        let windows = look::read_windows(d, frame.scale());
        let mut merged = look::visible_elements(&ax, &[], geo, front.as_ref(), &windows);
        self.session.tracker.peek(&mut merged.elements);
        Ok(Probe {
            thumbnail: Thumbnail::of(&frame),
            ax: ax.health,
            app: front.as_ref().map(|w| w.app.clone()),
            front: front.as_ref().map(|w| FrontWindow::of(w, frame.scale())),
            window: front.map(|w| w.title),
            focus: merged.focus,
            elements: merged.elements,
            covered: merged.hidden_elements,
            covered_focus: merged.hidden_focus,
            windows,
        })
    }
}

/// The frontmost terminal of `obs`, at the empty prompt of a terminal just opened.
fn fresh_terminal(obs: &Observation) -> Option<(TerminalId, PendingLine)> {
    let focused = obs.focused().filter(|e| is_terminal_element(e));
    let front = obs.front.as_ref();
    (focused.is_some() || front.is_some_and(FrontWindow::is_terminal))
        .then(|| (TerminalId::new(front, focused), PendingLine::empty()))
}

/// What acting produced: how the wait went, the observation after, and the expectation's outcome.
struct Acted {
    settle: SettleReport,
    /// Settle time including any waits while checking `expect`.
    settle_time: Duration,
    fresh: Fresh,
    expect: Option<ExpectOutcome>,
    /// For `type`: whether the text reached its receiver.
    typing: Option<TypingCheck>,
}

/// Acts, waits for the screen to settle, observes, and keeps looking while an expectation is unmet
/// and the screen keeps changing (bounded by `expect_timeout`).
fn act_settle_observe(
    desktop: &Desktop,
    config: &Config,
    tracker: &mut IdTracker,
    request: &Request,
    aims: &[Aim],
    marks: bool,
    typed_into: Option<&Result<Element, String>>,
) -> Result<Acted, PlatformError> {
    let mut watch = desktop.settle.watch()?;
    perform(desktop, request, aims, &config.url_policy)?;
    let (settle, mut settle_time, mut fresh) = settle_and_observe(desktop, config, tracker, marks, &mut *watch)?;
    let typing = match (typed_into, &request.command) {
        (Some(Ok(before)), Command::Type { text, .. }) => {
            let mut typed = typing::Typed { desktop, config, tracker: &mut *tracker, marks, watch: &mut *watch };
            Some(typed.verify(text, before, &mut fresh, &mut settle_time)?)
        }
        (Some(Err(why)), _) => Some(TypingCheck::Unchecked { why: why.clone() }),
        _ => None,
    };
    let mut expect_outcome = request.expect.as_ref().map(|e| check_expect(e, &fresh.obs));
    if let Some(expect) = request.expect.as_ref().filter(|e| expect_outcome.as_ref().is_some_and(|o| !settled_on(e, o)))
    {
        let deadline = desktop.clock.now() + config.expect_timeout;
        loop {
            let remaining = deadline.saturating_sub(desktop.clock.now());
            if remaining.is_zero() || !watch.wait_for_change(remaining)? {
                break;
            }
            settle_time += watch.wait(&config.settle)?.waited;
            fresh = observe(desktop, config, tracker, None, marks)?;
            let outcome = check_expect(expect, &fresh.obs);
            let done = settled_on(expect, &outcome);
            expect_outcome = Some(outcome);
            if done {
                break;
            }
        }
    }
    Ok(Acted { settle, settle_time, fresh, expect: expect_outcome, typing })
}

/// How long the screen must have been still before the observation is taken while the rest of the
/// quiet period runs (see [`settle_and_observe`]).
const OBSERVE_AFTER_STILL: Duration = Duration::from_millis(40);

/// Waits for the screen to settle and observes it, overlapping the two: the observation is taken
/// once the screen has been still for [`OBSERVE_AFTER_STILL`], and kept if nothing changes until the
/// quiet period is over; otherwise the wait goes on as usual and the screen is observed again. The
/// observation either way shows a screen that stayed unchanged from its capture to the end of a
/// full quiet period.
fn settle_and_observe(
    desktop: &Desktop,
    config: &Config,
    tracker: &mut IdTracker,
    marks: bool,
    watch: &mut dyn SettleWatch,
) -> Result<(SettleReport, Duration, Fresh), PlatformError> {
    let quiet = config.settle.quiet;
    let early = SettleRequest { quiet: quiet.min(OBSERVE_AFTER_STILL), ..config.settle };
    let first = watch.wait(&early)?;
    if !first.saw_change || !first.settled || early.quiet >= quiet {
        let fresh = observe(desktop, config, tracker, None, marks)?;
        return Ok((first.clone(), first.waited, fresh));
    }
    let captured = desktop.clock.now();
    let fresh = observe(desktop, config, tracker, None, marks)?;
    let rest = (quiet - early.quiet).saturating_sub(desktop.clock.now().saturating_sub(captured));
    let ceiling = config.settle.ceiling.saturating_sub(first.waited);
    let check = watch.wait(&SettleRequest { response_window: rest, quiet, ceiling })?;
    let waited = first.waited + check.waited;
    let mut report = SettleReport { waited, saw_change: true, ..check.clone() };
    if !check.saw_change {
        // Still since the capture: what the observation shows is what the screen settled on.
        report.ignored = first.ignored;
        report.began = if check.began.is_empty() { first.began } else { check.began };
        return Ok((report, waited, fresh));
    }
    // It changed again after the capture; the check waited that out: look again.
    Ok((report, waited, observe(desktop, config, tracker, None, marks)?))
}

/// What the screen looks like just before an action.
struct Probe {
    thumbnail: Thumbnail,
    ax: AxHealth,
    app: Option<String>,
    window: Option<String>,
    front: Option<FrontWindow>,
    focus: Option<usize>,
    elements: Vec<Element>,
    /// Elements no part of which is visible (windows in front cover them).
    covered: Vec<Element>,
    /// Index into `covered` of the focused element, when it is covered.
    covered_focus: Option<usize>,
    windows: Vec<ScreenWindow>,
}

/// Checks the target is still where the observation said; updates its point when it drifted slightly.
fn recheck(aim: &mut Aim, latest: &Observation, probe: &Probe) -> Result<(), String> {
    let e = &aim.element;
    if e.source == Source::Window {
        return match probe.windows.iter().find(|w| Some(w.handle) == e.owner) {
            Some(_) => Ok(()),
            None => Err(format!("{} window {} is closed", e.id, quote_clipped(&e.label, 40))),
        };
    }
    if e.source.has_ax() && matches!(probe.ax, AxHealth::Ok | AxHealth::Partial) {
        let partner = match_elements(&probe.elements, std::slice::from_ref(e))[0];
        let Some(pi) = partner else {
            if match_elements(&probe.covered, std::slice::from_ref(e))[0].is_some() {
                return Err(covered_now(e, e, &probe.windows));
            }
            // Not nearby: is the same element somewhere else, or gone?
            let elsewhere = probe
                .elements
                .iter()
                .filter(|p| p.role == e.role && p.app == e.app && normalize(&p.label) == normalize(&e.label))
                .min_by(|a, b| centre_distance(&a.bounds, &e.bounds).total_cmp(&centre_distance(&b.bounds, &e.bounds)));
            return Err(match elsewhere {
                Some(now) => format!(
                    "{} {} {} moved from {} to {}",
                    e.id,
                    e.role,
                    quote_clipped(&e.label, 40),
                    e.bounds,
                    now.bounds
                ),
                None => format!("{} {} {} is no longer on screen", e.id, e.role, quote_clipped(&e.label, 40)),
            });
        };
        let now = &probe.elements[pi];
        if centre_distance(&now.bounds, &e.bounds) > drift_tolerance(&e.bounds) {
            return Err(format!(
                "{} {} {} moved from {} to {}",
                e.id,
                e.role,
                quote_clipped(&e.label, 40),
                e.bounds,
                now.bounds
            ));
        }
        // Followed by the same offset inside the box, so a point chosen clear of an overlap stays clear.
        let old = latest.to_screen(e.bounds.center());
        let new = latest.to_screen(now.bounds.center());
        aim.point = Point::new(aim.point.x + new.x - old.x, aim.point.y + new.y - old.y);
        // A window may have moved over part of it since: the point must still be on what is visible.
        let shot = Point::new(
            (f64::from(aim.point.x) / latest.scale).round() as i32,
            (f64::from(aim.point.y) / latest.scale).round() as i32,
        );
        if !visibility::visible_parts(now, &probe.windows).iter().any(|r| r.contains(shot)) {
            let Some(p) = aim::aim_point(now, &probe.elements, &probe.windows) else {
                return Err(covered_now(e, now, &probe.windows));
            };
            aim.point = latest.to_screen(p);
        }
        return Ok(());
    }
    if latest.thumbnail.region_changed(&probe.thumbnail, &e.bounds) {
        return Err(format!("the pixels under {} {} changed since {}", e.id, quote_clipped(&e.label, 40), latest.id));
    }
    Ok(())
}

/// Whether `command`'s effect should show on its target's window (pointing at something shows what
/// lies under the pointer, which may be anywhere).
fn reaches_its_target(command: &Command) -> bool {
    match command {
        Command::Pointer { kind, .. } => *kind != PointerKind::Hover,
        Command::Drag { .. } | Command::Scroll { .. } => true,
        Command::Type { target, .. } => target.is_some(),
        _ => false,
    }
}

/// Whether `command` may target a window element: raising it (click), pointing at it, inspecting it.
fn acts_on_windows(command: &Command) -> bool {
    matches!(command, Command::Pointer { kind: PointerKind::Click | PointerKind::Hover, .. } | Command::Inspect(_))
}

/// The refusal for a target (`e`, as observed) that no longer has a visible part (`now`, as it is).
fn covered_now(e: &Element, now: &Element, windows: &[ScreenWindow]) -> String {
    format!(
        "{} {} {} is covered by {} now: no part of it is visible",
        e.id,
        e.role,
        quote_clipped(&e.label, 40),
        covering_window(now, windows)
    )
}

/// How a person would name the window drawn over most of `e`.
fn covering_window(e: &Element, windows: &[ScreenWindow]) -> String {
    let owner = e.owner.and_then(|h| windows.iter().position(|w| w.handle == h));
    windows
        .iter()
        .enumerate()
        .rev()
        .filter(|(i, w)| owner.is_none_or(|o| *i > o) && !w.minimized)
        .max_by_key(|(_, w)| w.bounds.intersection(&e.bounds).map_or(0, |r| r.area()))
        .map_or_else(
            || "another window".to_string(),
            |(_, w)| format!("the {} {}", w.kind.as_str(), w.describe_short()),
        )
}

/// Performs the action on the desktop.
fn perform(desktop: &Desktop, request: &Request, aims: &[Aim], policy: &UrlPolicy) -> Result<(), PlatformError> {
    let first = aims.first().map(|a| a.point);
    let need = |p: Option<Point>| p.ok_or_else(|| PlatformError::Invalid("the action has no target".into()));
    match &request.command {
        // A window is raised through the window manager: a click at a point of it could land on
        // whatever lies in front, and a minimised window has no point at all.
        Command::Pointer { kind: PointerKind::Click, .. }
            if aims.first().is_some_and(|a| a.element.source == Source::Window) =>
        {
            let handle = aims
                .first()
                .and_then(|a| a.element.owner)
                .ok_or_else(|| PlatformError::Invalid("the window element has no window handle".into()))?;
            desktop.windows.activate(handle)
        }
        Command::Pointer { kind, .. } => {
            let p = need(first)?;
            match kind {
                PointerKind::Click => desktop.input.click(p, MouseButton::Left, 1),
                PointerKind::DoubleClick => desktop.input.click(p, MouseButton::Left, 2),
                PointerKind::TripleClick => desktop.input.click(p, MouseButton::Left, 3),
                PointerKind::RightClick => desktop.input.click(p, MouseButton::Right, 1),
                PointerKind::Hover => desktop.input.move_pointer(p),
            }
        }
        Command::Drag { .. } => {
            let to = aims.get(1).map(|a| a.point);
            desktop.input.drag(need(first)?, need(to)?)
        }
        Command::Type { text, target } => {
            // A target that already has focus is typed into as it is: clicking it again would move
            // the caret and drop a selection the agent just made (select all, then type to replace).
            let focused = aims.first().is_some_and(|a| a.element.states.contains(handrail_platform::States::FOCUSED));
            if target.is_some() && !focused {
                desktop.input.click(need(first)?, MouseButton::Left, 1)?;
            }
            desktop.input.type_text(text)
        }
        Command::Key { combo } => desktop.input.key(combo),
        Command::Scroll { direction, amount, .. } => desktop.input.scroll(first, *direction, *amount),
        Command::OpenApp { app } => desktop.windows.launch_app(app).map(|_| ()),
        Command::OpenUrl { url } => {
            // Vetted again here so the URL that is opened is exactly the normalised, checked one.
            let vetted = vet_url(url, policy).map_err(|e| PlatformError::Invalid(e.to_string()))?;
            desktop.windows.open_url(&vetted).map(|_| ())
        }
        Command::See | Command::Inspect(_) => Ok(()),
    }
}

/// Looks at the screen: capture, accessibility, OCR, merge, ids, thumbnail, encode.
fn observe(
    desktop: &Desktop,
    config: &Config,
    tracker: &mut IdTracker,
    inspect: Option<Rect>,
    marks: bool,
) -> Result<Fresh, PlatformError> {
    let clock = &desktop.clock;
    let t0 = clock.now();
    let frame = desktop.screen.capture(None, config.max_image)?;
    if !frame.is_consistent() {
        return Err(PlatformError::Failed("the captured frame is inconsistent with its size".into()));
    }
    let t1 = clock.now();
    let ax: AxSnapshot = desktop.accessibility.snapshot(&config.ax_limits);
    let front = desktop.windows.frontmost().ok().flatten();
    let scale = frame.scale();
    let geo = Geometry { image: frame.size, scale };
    let windows = look::read_windows(desktop, scale);
    let monitors = look::read_monitors(desktop, scale, Rect::from_size(frame.size));
    let (lines, ocr) = if !config.ocr {
        (Vec::new(), OcrHealth::Off)
    } else if !desktop.ocr.available() {
        (Vec::new(), OcrHealth::Unavailable)
    } else {
        // Text the accessibility tree already gives need not be read twice.
        let opaque =
            front.as_ref().map(|w| FrontWindow::of(w, scale)).filter(FrontWindow::is_terminal).map(|f| f.bounds);
        let ax_only = look::visible_elements(&ax, &[], geo, front.as_ref(), &windows);
        desktop.ocr.skip_regions(&ax_text_regions(&ax_only.elements, opaque));
        // Terminal text (small monospace glyphs) reads best with settings of its own.
        desktop.ocr.terminal_regions(opaque.as_slice());
        match desktop.ocr.recognize(&frame, None) {
            Ok(lines) => (lines, OcrHealth::Ok),
            Err(e) => {
                log::warn!("OCR failed: {e}");
                (Vec::new(), OcrHealth::Failed)
            }
        }
    };
    let mut merged = look::visible_elements(&ax, &lines, geo, front.as_ref(), &windows);
    tracker.assign(&mut merged.elements);
    let thumbnail = Thumbnail::of(&frame);
    let focused_app = merged.focus.and_then(|i| merged.elements.get(i)).map(|e| e.app.clone());
    let t2 = clock.now();

    // The image: the screenshot, or a full-resolution crop of the inspected region.
    let (image, inspect_detail) = match inspect {
        None if marks => {
            let shown = crate::render::listed_count(&merged.elements, &windows, &monitors, &config.listing);
            let boxes: Vec<(Rect, String)> =
                merged.elements[..shown].iter().map(|e| (e.bounds, e.id.to_string())).collect();
            let mut marked = frame.clone();
            handrail_imaging::draw::draw_marks(&mut marked, &boxes);
            (desktop.encoder.encode(&marked)?, None)
        }
        None => (desktop.encoder.encode(&frame)?, None),
        Some(region) => {
            let screen_region = if scale == 1.0 { region } else { region.scaled(scale) };
            let crop = desktop.screen.capture(Some(screen_region), None)?;
            let inside: Vec<usize> = merged
                .elements
                .iter()
                .enumerate()
                .filter(|(_, e)| e.bounds.intersects(&region))
                .map(|(i, _)| i)
                .collect();
            (desktop.encoder.encode(&crop)?, Some(InspectDetail { region, elements: inside }))
        }
    };
    let t3 = clock.now();

    let obs = Observation {
        id: ObservationId(0),
        screen: frame.screen,
        image_size: frame.size,
        scale,
        app: front.as_ref().map(|w| w.app.clone()).filter(|a| !a.is_empty()).or(focused_app),
        front: front.as_ref().map(|w| FrontWindow::of(w, scale)),
        window: front.map(|w| w.title),
        focus: merged.focus,
        ax: ax.health,
        ocr,
        elements: merged.elements,
        windows,
        monitors,
        hidden: merged.hidden,
        covered: merged.hidden_elements,
        covered_focus: merged.hidden_focus,
        image: Some(image),
        thumbnail,
        inspect: inspect_detail,
        taken_at: t3,
        screenshot: Some(Arc::new(frame)),
    };
    Ok(Fresh { obs, capture: t1.saturating_sub(t0), observe: t2.saturating_sub(t1), encode: t3.saturating_sub(t2) })
}

/// Whether an expectation's outcome is final. Unmet ones may still come true while the screen changes;
/// so may text the sources could not confirm (it can reach the accessibility tree a moment later).
fn settled_on(expect: &Expect, outcome: &ExpectOutcome) -> bool {
    match outcome {
        ExpectOutcome::Verified => true,
        ExpectOutcome::NotMet { .. } => false,
        ExpectOutcome::Unknown { .. } => expect.kind != ExpectKind::Text,
    }
}

/// Bounds of elements whose accessible label is the text they show (static text, buttons, links, menu
/// items…): OCR need not read those again. Inputs are left to OCR (their text is content), and so are
/// containers and anything unnamed. Nothing under `opaque` is skipped: a frontmost window that exposes no
/// accessibility (a terminal emulator) covers whatever the tree reports there, so only OCR sees it.
fn ax_text_regions(elements: &[Element], opaque: Option<Rect>) -> Vec<Rect> {
    use handrail_platform::Role;
    elements
        .iter()
        .filter(|e| !e.label.trim().is_empty() && !e.is_secure())
        .filter(|e| opaque.is_none_or(|o| !o.intersects(&e.bounds)))
        .filter(|e| {
            matches!(
                e.role,
                Role::Text
                    | Role::Heading
                    | Role::Button
                    | Role::ToggleButton
                    | Role::Link
                    | Role::MenuItem
                    | Role::Menu
                    | Role::Tab
                    | Role::ListItem
                    | Role::Checkbox
                    | Role::RadioButton
                    | Role::Cell
            )
        })
        .map(|e| e.bounds)
        .collect()
}

/// Checks an expectation against an observation.
fn check_expect(expect: &Expect, obs: &Observation) -> ExpectOutcome {
    let want = &expect.value;
    match expect.kind {
        ExpectKind::Focus => {
            if !matches!(obs.ax, AxHealth::Ok | AxHealth::Partial) {
                return ExpectOutcome::Unknown {
                    why: format!("focus cannot be read (ax={}); use expect text: instead", obs.ax.as_str()),
                };
            }
            match obs.focused() {
                Some(f) if contains_phrase(&f.label, want) || normalize(f.role.as_str()) == normalize(want) => {
                    ExpectOutcome::Verified
                }
                Some(f) => ExpectOutcome::NotMet {
                    observed: format!("focus is on {} {} {}", f.id, f.role, quote_clipped(&f.label, 40)),
                },
                None => ExpectOutcome::Unknown {
                    why: "no focused element is reported (focus inside web content may not be exposed); use expect text: instead".into(),
                },
            }
        }
        ExpectKind::App => match &obs.app {
            Some(app) if contains_phrase(app, want) => ExpectOutcome::Verified,
            Some(app) => ExpectOutcome::NotMet { observed: format!("the frontmost app is {}", quote_clipped(app, 40)) },
            None => ExpectOutcome::Unknown { why: "the frontmost app cannot be read".into() },
        },
        ExpectKind::Window => match &obs.window {
            Some(title) if contains_phrase(title, want) => ExpectOutcome::Verified,
            Some(title) => {
                ExpectOutcome::NotMet { observed: format!("the window title is {}", quote_clipped(title, 60)) }
            }
            None => ExpectOutcome::Unknown { why: "the window title cannot be read".into() },
        },
        ExpectKind::Text => {
            let squashed = squash_spaces(want);
            // OCR invents and drops spaces inside words; accessible text is what the app holds, exactly.
            let ocr = |e: &Element| e.source == Source::Ocr;
            let seen = obs.elements.iter().any(|e| {
                e.visible_texts().any(|t| {
                    contains_phrase(t, want)
                        || (ocr(e) && contains_phrase_ignoring_spaces(t, want))
                        || (has_unspaced_script(want) && squash_spaces(t).contains(&squashed))
                })
            }) || obs.window.as_deref().is_some_and(|w| contains_phrase(w, want));
            if seen {
                ExpectOutcome::Verified
            } else if obs.ocr != OcrHealth::Ok && obs.ax == AxHealth::Unavailable {
                ExpectOutcome::Unknown { why: "neither OCR nor accessibility is available to read text".into() }
            } else if obs.ocr != OcrHealth::Ok {
                ExpectOutcome::Unknown {
                    why: format!(
                        "the text is not in the accessibility tree and OCR is {} to read the pixels",
                        obs.ocr.as_str()
                    ),
                }
            } else {
                ExpectOutcome::NotMet { observed: format!("{} is not visible", quote_clipped(want, 60)) }
            }
        }
    }
}

fn target_key(t: &Target) -> String {
    match t {
        Target::Element(id) => id.to_string(),
        Target::Text(s) => format!("text:{}", normalize(s)),
    }
}

fn signature(request: &Request) -> Signature {
    let target = match &request.command {
        Command::Drag { from, to } => format!("{}>{}", target_key(from), target_key(to)),
        _ => request.target().map(target_key).unwrap_or_default(),
    };
    let payload = match &request.command {
        Command::Type { text, .. } => text.clone(),
        Command::Key { combo } => combo.to_string(),
        Command::Scroll { direction, amount, .. } => format!("{}:{amount}", direction.as_str()),
        Command::OpenApp { app } => normalize(app),
        Command::OpenUrl { url } => url.clone(),
        _ => String::new(),
    };
    Signature { action: request.action, target, payload }
}

/// A one-line description of the call, without anything typed (which could be sensitive).
fn summarize(request: &Request) -> String {
    let a = request.action.as_str();
    match &request.command {
        Command::See => a.to_string(),
        Command::Inspect(InspectSubject::Region(r)) => format!("{a} region {r}"),
        Command::Inspect(InspectSubject::Target(t)) | Command::Pointer { target: t, .. } => format!("{a} {t}"),
        Command::Drag { from, to } => format!("{a} {from} → {to}"),
        Command::Type { target, text } => {
            let n = text.chars().count();
            match target {
                Some(t) => format!("{a} {n} characters into {t}"),
                None => format!("{a} {n} characters into the focused field"),
            }
        }
        Command::Key { combo } => format!("{a} {combo}"),
        Command::Scroll { target, direction, amount } => match target {
            Some(t) => format!("{a} {} {amount} over {t}", direction.as_str()),
            None => format!("{a} {} {amount}", direction.as_str()),
        },
        Command::OpenApp { app } => format!("{a} {}", quote_clipped(app, 60)),
        Command::OpenUrl { url } => format!("{a} {}", quote_clipped(&redact_credentials(url), 100)),
    }
}
