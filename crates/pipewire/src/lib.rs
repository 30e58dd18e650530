//! Video frames from PipeWire, the way GNOME (mutter's screen casts), KDE and the desktop portal
//! hand out the screen on Wayland.
//!
//! - [`pod`]: SPA PODs, the binary values formats and buffers are negotiated with (pure).
//! - [`format`]: the formats accepted (32-bit RGB in any byte order) and their conversion to BGRX.
//! - [`VideoStream`]: one node's frames, the latest always at hand, on PipeWire's own thread.
//!
//! The library is loaded at run time (`ffi`), so nothing here needs PipeWire to build, and a
//! machine without it gets [`PipewireError::Unavailable`] instead of failing to start.
#![cfg(target_os = "linux")]

mod error;
mod ffi;
pub mod format;
pub mod pod;
mod stream;

pub use error::PipewireError;
pub use format::{PixelOrder, VideoFormat};
pub use stream::{Remote, VideoFrame, VideoStream};

/// Whether the PipeWire library can be loaded here (the error says why not).
pub fn available() -> Result<(), PipewireError> {
    ffi::lib().map(|_| ()).map_err(PipewireError::Unavailable)
}
