//! handrail on GNOME: a desktop driven through mutter's own D-Bus interfaces.
//!
//! GNOME's compositor, mutter, offers no wlroots protocols (no screencopy, no virtual pointer or
//! keyboard): what it offers remote tools is a remote-desktop session for input and screen-cast
//! sessions whose frames come as PipeWire streams — the interfaces the desktop portal wraps, and
//! that a process on mutter's session bus may use without a dialog.
//!
//! Built so far: the session ([`mutter`]: one remote-desktop session, a screen-cast stream per
//! monitor, tied to it), input through it ([`input`]: pointer, buttons, wheel, keys and text as
//! keysyms), the screen from the streams' frames ([`screen`], through `handrail-pipewire`) and
//! settle from those frames ([`settle`], through `handrail-damage`). Windows, the portal path and a
//! `Desktop` assembled from these are not built yet.

mod error;
pub mod input;
pub mod mutter;
pub mod screen;
pub mod settle;

pub use error::GnomeError;
pub use input::MutterInput;
pub use mutter::{MutterSession, Stream};
pub use screen::MutterScreen;
pub use settle::MutterSettle;
