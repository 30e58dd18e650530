//! The boundary between handrail's engine and a desktop.
//!
//! A backend (X11 today; Wayland, macOS and Windows later; a simulated desktop for tests) implements the
//! traits in [`traits`] and hands them to the engine as a [`Desktop`]. Only plain data crosses this
//! boundary: no protocol types, no engine types. Coordinates are **screen** pixels unless a type says
//! otherwise; OCR lines are in the coordinates of the frame that was read.

pub mod absent;
mod apps;
mod cancel;
pub mod click_spacing;
pub mod drag;
mod element;
mod frame;
mod geometry;
mod input;
pub mod keysym;
mod monitor;
mod network;
pub mod paste;
mod policy;
mod rules;
pub mod traits;
pub mod window_relative;

pub use apps::{AppRules, MACOS_TERMINAL_BUNDLES};
pub use cancel::{wait_slice, Cancel, CANCEL_CHECK_EVERY};
pub use element::{AxHealth, AxNode, AxSnapshot, OcrHealth, OcrLine, Role, States};
pub use frame::{EncodedImage, Frame};
pub use geometry::{Point, Rect, Size};
pub use input::{Key, KeyCombo, Modifiers, MouseButton, ScrollDirection};
pub use monitor::Monitor;
pub use network::BlockedRequest;
pub use policy::{KeyPolicy, KeyRule};
pub use rules::OsRules;
pub use traits::{
    check_typed_length, Accessibility, AxLimits, Clock, Desktop, Encoder, FileState, Input, Launched, NetworkPolicy,
    Ocr, Screen, Settle, SettleReport, SettleRequest, SettleWatch, ShellFiles, StackedWindow, SystemClock, TextRoute,
    WindowInfo, WindowKind, Windows, MAX_TYPED_CHARS,
};

/// Why a backend call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The facility does not exist here (no OCR engine, no browser, no DAMAGE extension…).
    #[error("{0} is not available")]
    Unavailable(String),
    /// A named thing (application, key name) was not found; the message lists close matches.
    #[error("{0}")]
    NotFound(String),
    /// The request was understood but cannot be carried out (e.g. a key name with no keysym).
    #[error("{0}")]
    Invalid(String),
    /// The call did not finish in time.
    #[error("{0} timed out")]
    Timeout(String),
    /// Anything else the backend reports (connection lost, protocol error…).
    #[error("{0}")]
    Failed(String),
    /// The caller cancelled the call; `sent`: its input had already been sent.
    #[error("the call was cancelled {}", if *sent { "after its input was sent" } else { "before any input was sent" })]
    Cancelled { sent: bool },
}
