//! handrail's Wayland backend, for wlroots compositors (sway, Hyprland, river, labwc, …).
//!
//! - [`capture`]: `wlr-screencopy-unstable-v1`, every output laid into one frame of the layout.
//! - [`input`]: `zwlr_virtual_pointer_v1` and `zwp_virtual_keyboard_v1` with a keymap of its own
//!   (`keymap`), so any script is typed as keys.
//! - [`windows`]: `zwlr_foreign_toplevel_management_v1` (list, app id, title, activation) and the
//!   compositor's IPC for geometry (`ipc`, sway's), since Wayland tells clients no global coordinates.
//! - [`settle`]: screencopy damage, watched on a thread of its own.
//! - accessibility: AT-SPI's window-relative bounds moved into screen coordinates by
//!   `handrail_platform::window_relative`, with the surface origins `windows` knows.
//!
//! [`WaylandDesktop::connect`] assembles them into a [`Desktop`]. Each part has its own connection.
#![cfg(target_os = "linux")]

pub mod capture;
mod conn;
mod error;
pub mod input;
mod ipc;
mod keymap;
pub mod pace;
mod screencopy;
mod seat_keymap;
pub mod settle;
mod shm;
pub mod windows;

use std::path::PathBuf;
use std::sync::Arc;

use handrail_imaging::ImageFormat;
use handrail_platform::absent::NoNetworkPolicy;
use handrail_platform::window_relative::WindowRelative;
use handrail_platform::{Accessibility, Desktop, Ocr, SystemClock};

pub use conn::{OutputInfo, Socket};
pub use error::WaylandError;
pub use handrail_launch::LaunchEnv;
pub use ipc::SwayIpc;
pub use seat_keymap::seat_keymap;

use capture::WaylandScreen;
use input::WaylandInput;
use settle::WaylandSettle;
use windows::WaylandWindows;

/// Everything needed to drive one wlroots compositor.
#[derive(Debug, Clone)]
pub struct WaylandOptions {
    /// The compositor's socket. Always explicit: handrail never picks up `$WAYLAND_DISPLAY` silently.
    pub socket: Socket,
    /// sway's IPC socket (`$SWAYSOCK`), for window geometry and stacking; `None` on other
    /// compositors, whose windows then have no known place on screen.
    pub sway_ipc: Option<PathBuf>,
    /// Environment and browser profile for the apps and URLs handrail opens.
    pub launch: LaunchEnv,
    /// Format of the screenshots sent to the model.
    pub image_format: ImageFormat,
}

impl WaylandOptions {
    pub fn new(socket: Socket, sway_ipc: Option<PathBuf>, launch: LaunchEnv) -> WaylandOptions {
        WaylandOptions { socket, sway_ipc, launch, image_format: ImageFormat::default() }
    }
}

/// Builds [`Desktop`]s over Wayland.
#[derive(Debug)]
pub struct WaylandDesktop;

impl WaylandDesktop {
    /// Connects every part to the compositor and assembles a desktop. `accessibility` reports
    /// window-relative bounds, as AT-SPI does on Wayland; they are moved into screen coordinates here.
    pub fn connect(
        options: WaylandOptions,
        accessibility: Box<dyn Accessibility>,
        ocr: Box<dyn Ocr>,
    ) -> Result<Desktop, WaylandError> {
        let screen = WaylandScreen::connect(&options.socket)?;
        let settle = WaylandSettle::connect(&options.socket)?;
        let ipc = options.sway_ipc.as_ref().map(|p| SwayIpc::new(p.clone()));
        let windows = Arc::new(WaylandWindows::connect(&options.socket, ipc, options.launch)?);
        let accessibility = WindowRelative::new(accessibility, Arc::clone(&windows));
        let under = Arc::clone(&windows);
        let input = WaylandInput::connect(&options.socket)?
            .pacing_drags_by(Box::new(move |from, to| pace::apps_at(&*under, from, to)));
        Ok(Desktop {
            screen: Box::new(screen),
            input: Box::new(input),
            windows: Box::new(windows),
            settle: Box::new(settle),
            accessibility: Box::new(accessibility),
            ocr,
            encoder: handrail_imaging::encoder(options.image_format),
            clock: Box::new(SystemClock::default()),
            // The caller puts its browser's network guard here, if it started one.
            network: Box::new(NoNetworkPolicy),
            // Wayland clients of this machine: their shells' files are this machine's /proc.
            files: Box::new(handrail_procfs::ProcShellFiles),
            // wlroots compositors run on Linux.
            rules: handrail_platform::OsRules::linux(),
        })
    }
}
