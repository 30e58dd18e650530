//! The engine: one pipeline per call.
//!
//! ```text
//! capability gate → arguments → budgets → staleness → guards → pointer arrives → guards on what is
//!   under it → re-check target → act → settle → observe → semantic + visual diff → expect → result
//! ```
//!
//! Nothing touches the desktop before the capability gate, argument validation, budgets, staleness and
//! the guards have all passed. Before acting, the desktop is only read (the pre-action look's capture
//! and accessibility snapshot) and, for an action that presses a button, the pointer is moved onto its
//! target with no button down, so the press is judged on what the target shows under the pointer.

use std::sync::Arc;
use std::time::Duration;

use handrail_platform::{Desktop, Point};

use crate::guard::terminal::{PendingLine, TerminalId};
use crate::identity::IdTracker;
use crate::ids::ObservationId;
use crate::observation::{Element, Observation};
use crate::outcome::{Outcome, Reason};
use crate::render::quote_clipped;
use crate::request::{ActionKind, RawArgs, Request};
use crate::turn::TurnSource;
use crate::visibility;

mod act;
mod aim;
mod arrival;
mod config;
mod expect;
mod hooks;
mod judge;
mod look;
mod observe;
mod pipeline;
mod recheck;
mod rules;
mod settle;
mod stop;
mod summary;
mod targets;
mod turns;
mod typing;
mod visited;

pub use config::{Budgets, Config, Knobs, Markers, Vision, UNSUPPORTED};
pub use hooks::{CallHooks, Confirm, Progress};
pub use observe::{WarmUp, WarmUpError};
pub use turns::Turn;

use stop::Stop;
use summary::Signature;

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
    /// Pages the URL-policy proxy refused in this session (newest last, at most
    /// [`visited::REFUSED_PAGES`]): a browser shows its block page at such an address, also when its
    /// history brings it back there later, and nothing reached that host.
    refused_pages: std::collections::VecDeque<String>,
    rng: u64,
    /// Whether this call's screenshots carry set-of-marks.
    marks: bool,
}

/// Where an action aims: the element and the screen point to use.
#[derive(Debug, Clone)]
struct Aim {
    element: Element,
    point: Point,
}

/// The engine driving one desktop.
pub struct Engine {
    desktop: Desktop,
    config: Config,
    confirm: Option<Box<dyn Confirm>>,
    progress: Option<Box<dyn Progress>>,
    cancel: Option<handrail_platform::Cancel>,
    session: Session,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Engine {
    pub fn new(desktop: Desktop, config: Config) -> Self {
        let rng = match config.markers {
            Markers::Seeded(seed) => seed,
            Markers::Os => 0,
        };
        Self {
            desktop,
            config,
            confirm: None,
            progress: None,
            cancel: None,
            session: Session { rng, ..Session::default() },
        }
    }

    /// Lets the engine ask the person about destructive targets in interactive turns.
    pub fn set_confirm(&mut self, confirm: Box<dyn Confirm>) {
        self.confirm = Some(confirm);
    }

    /// Nobody can be asked any more: destructive targets the intent does not back are refused.
    pub fn clear_confirm(&mut self) {
        self.confirm = None;
    }

    /// Takes back the way of asking the person set for the last call (to learn whether it deferred a
    /// question); nobody can be asked afterwards.
    pub fn take_confirm(&mut self) -> Option<Box<dyn Confirm>> {
        self.confirm.take()
    }

    /// Lends the engine the hooks of the next call (replacing any left from an earlier one).
    pub fn set_hooks(&mut self, hooks: CallHooks) {
        self.confirm = hooks.confirm;
        self.progress = hooks.progress;
        self.cancel = hooks.cancel;
    }

    /// Takes the hooks of the last call back.
    pub fn take_hooks(&mut self) -> CallHooks {
        CallHooks { confirm: self.confirm.take(), progress: self.progress.take(), cancel: self.cancel.take() }
    }

    /// The desktop the engine drives, for edges that look at it outside a call (a reset listing the
    /// windows it closed). Calls never go around the engine through it.
    pub fn desktop(&self) -> &Desktop {
        &self.desktop
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
            Vision::TextOnly { .. } => Some(Stop { reason: Reason::VisionRequired, message: None }.into_outcome(
                None,
                UNSUPPORTED.into(),
                None,
            )),
            Vision::Unknown { model } => {
                let named = model
                    .as_deref()
                    .map_or_else(|| "the model".to_string(), |m| format!("model {}", quote_clipped(m, 60)));
                let why = format!(
                    "{named} is not known to accept images; declare it (e.g. --vision yes, or a known vision model name) if it does"
                );
                Some(Stop::new(Reason::VisionRequired, why).into_outcome(None, UNSUPPORTED.into(), None))
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
                Stop::new(Reason::InvalidArguments, e.to_string()).into_outcome(action, summary, self.latest_id())
            }
        }
    }

    /// The result for arguments an edge could not even decode (wrong JSON types, unknown names): the
    /// capability gate still answers first, then the problem is reported as `[error]`.
    pub fn refuse_arguments(&mut self, problem: &str) -> Outcome {
        if let Some(refusal) = self.gate() {
            return refusal;
        }
        Stop::new(Reason::InvalidArguments, problem).into_outcome(None, "call".to_string(), self.latest_id())
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
        self.remember_refused(&outcome.blocked);
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
}
