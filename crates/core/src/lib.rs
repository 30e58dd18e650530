//! handrail's engine: observe → act → verify, with every guard, independent of any platform.
//!
//! The [`Engine`] drives a [`handrail_platform::Desktop`]. Each call runs one pipeline (see
//! [`engine`]); results are [`Outcome`]s that render to the text block the model reads and carry the same
//! facts as plain data for programs. This crate does no I/O of its own and knows no protocol.

pub mod bindings;
pub mod diff;
pub mod engine;
pub mod guard;
pub mod identity;
pub mod ids;
pub mod keys;
pub mod merge;
pub mod models;
pub mod monitors;
pub mod observation;
pub mod outcome;
pub mod render;
pub mod request;
pub mod text;
pub mod turn;
pub mod visibility;

pub use engine::{
    Budgets, CallHooks, Config, Confirm, Engine, Knobs, Markers, Progress, Turn, Vision, WarmUp, WarmUpError,
    UNSUPPORTED,
};
pub use guard::Rule;
pub use ids::{ElementId, ObservationId};
pub use observation::{Element, Observation, Source};
pub use outcome::{Changes, ExpectOutcome, GuardDecision, Outcome, Reason, Status, Timings, TypingCheck};
pub use request::{ActionKind, ArgError, RawArgs, Request};
pub use turn::{Mode, TurnSource};
