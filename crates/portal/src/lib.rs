//! The desktop portal's remote-desktop session, spoken over `handrail-dbus`.
//!
//! `xdg-desktop-portal` is how a program reaches a Wayland desktop's screen and input when the
//! compositor's own interfaces are closed to it (a confined program, a desktop that keeps them to
//! itself): `org.freedesktop.portal.RemoteDesktop` for input, with `ScreenCast` sources for the
//! picture, the same on GNOME and KDE. Every step is a *request*: the call answers with a request
//! object, and the result comes later as that object's `Response` signal — after the person has
//! answered a dialog, for the step that asks them (`Start`).
//!
//! - [`request`]: handle tokens, the request objects they name, and responses.
//! - [`session`]: one remote-desktop session from creation to `Start` (devices, monitors, the
//!   clipboard, the restore token), its PipeWire remotes, and its input calls.
//! - [`token`]: the restore token kept between runs, so the person is asked once, not every start.
//!
//! Nothing here knows a desktop: the compositor behind the portal turns these calls into its own.
#![cfg(target_os = "linux")]

mod error;
pub mod request;
pub mod session;
pub mod token;

pub use error::PortalError;
pub use request::{Requests, Response};
pub use session::{PortalStream, StartOptions, Started};
pub use token::TokenFile;

/// The portal's bus name and object.
pub const DESTINATION: &str = "org.freedesktop.portal.Desktop";
pub const OBJECT: &str = "/org/freedesktop/portal/desktop";
pub const REMOTE_DESKTOP: &str = "org.freedesktop.portal.RemoteDesktop";
pub const SCREEN_CAST: &str = "org.freedesktop.portal.ScreenCast";
pub const CLIPBOARD: &str = "org.freedesktop.portal.Clipboard";
pub const SESSION: &str = "org.freedesktop.portal.Session";
