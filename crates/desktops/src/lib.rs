//! Assembles a [`handrail_platform::Desktop`] from its parts, for the system handrail runs on, and
//! keeps what it started until it is stopped: on Linux a private sandbox (X11, sway or GNOME), an X
//! display that already runs, or a running Wayland session (wlroots or GNOME), with AT-SPI, Tesseract
//! and a URL-policy proxy in front of the browser it launches, and the reset a sandbox offers
//! between tasks; on a Mac its own desktop (`handrail-macos`); elsewhere nothing (the edges offer the
//! simulated desktop themselves). Each system's module offers the same names — `DesktopChoice`,
//! `open_desktop`, `Running`, `watch_sandbox` — so the commands build on every system.

mod error;

pub use error::{DesktopError, Result};

/// Whether the desktop's own processes still run, for a server's liveness (`Err`: what is gone).
pub type DesktopCheck = std::sync::Arc<dyn Fn() -> std::result::Result<(), String> + Send + Sync>;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::*;
#[cfg(not(target_os = "linux"))]
mod own;
#[cfg(not(target_os = "linux"))]
pub use own::*;
