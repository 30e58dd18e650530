//! The engine's settings: what the model can do, budgets, waits, limits, and how refusals name the
//! settings that change them.

use std::time::Duration;

use handrail_platform::{AxLimits, SettleRequest, Size};

use crate::guard::url::UrlPolicy;
use crate::render::Listing;

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

/// Where the boundary markers that frame screen text come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markers {
    /// The operating system's randomness, fresh for every call: a page cannot know the marker that
    /// will close its text. What every real desktop and server uses.
    Os,
    /// A sequence from this seed: byte-identical results run after run, for tests.
    Seeded(u64),
}
