//! handrail on GNOME: a desktop driven through mutter's own D-Bus interfaces and GNOME Shell.
//!
//! GNOME's compositor, mutter, offers no wlroots protocols (no screencopy, no virtual pointer or
//! keyboard): what it offers remote tools is a remote-desktop session for input and screen-cast
//! sessions whose frames come as PipeWire streams — the interfaces the desktop portal wraps, and
//! that a process on mutter's session bus may use without a dialog.
//!
//! - [`mutter`]: one remote-desktop session, a screen-cast stream per monitor, tied to it.
//! - [`input`]: pointer, buttons, wheel, keys and text as keysyms through that session; text the
//!   keymap cannot type pasted through the session's clipboard (`clipboard`).
//! - [`screen`]: the streams' latest frames composed into the screen (through `handrail-pipewire`).
//! - [`settle`]: settle from those frames (through `handrail-damage`).
//! - [`shell`] and [`windows`]: the window stack, focus and raising through handrail's GNOME Shell
//!   extension (`handrail-gnome-extension`); launching through `handrail-launch`.
//! - accessibility: AT-SPI's window-relative bounds moved onto the screen by each window's buffer
//!   origin (`handrail_platform::window_relative`).
//!
//! [`GnomeDesktop::connect`] assembles them into a [`Desktop`]. The portal path (for sessions whose
//! mutter interfaces are closed to other processes) is not built yet.

mod clipboard;
pub mod display;
mod error;
pub mod input;
pub mod mutter;
pub mod screen;
pub mod settle;
pub mod shell;
pub mod windows;

pub use display::{MonitorScale, MonitorScales};
pub use error::GnomeError;
pub use input::MutterInput;
pub use mutter::{MutterSession, Stream};
pub use screen::MutterScreen;
pub use settle::MutterSettle;
pub use shell::{ShellWindow, ShellWindows};
pub use windows::GnomeWindows;

use std::path::PathBuf;
use std::sync::Arc;

use handrail_imaging::ImageFormat;
use handrail_launch::LaunchEnv;
use handrail_platform::absent::NoNetworkPolicy;
use handrail_platform::window_relative::WindowRelative;
use handrail_platform::{Accessibility, Desktop, Ocr, SystemClock};

/// Everything needed to drive one GNOME session.
#[derive(Debug, Clone)]
pub struct GnomeOptions {
    /// The session bus GNOME Shell serves mutter's interfaces and the extension on.
    pub bus_address: String,
    /// PipeWire's socket for the screen casts; `None` uses the session's default daemon.
    pub pipewire: Option<PathBuf>,
    /// Environment and browser profile for the apps and URLs handrail opens.
    pub launch: LaunchEnv,
    /// Format of the screenshots sent to the model.
    pub image_format: ImageFormat,
}

impl GnomeOptions {
    pub fn new(bus_address: impl Into<String>, pipewire: Option<PathBuf>, launch: LaunchEnv) -> GnomeOptions {
        GnomeOptions { bus_address: bus_address.into(), pipewire, launch, image_format: ImageFormat::default() }
    }
}

/// Builds [`Desktop`]s on GNOME.
#[derive(Debug)]
pub struct GnomeDesktop;

impl GnomeDesktop {
    /// Opens a remote-desktop session with a screen cast of every monitor, checks that handrail's
    /// extension answers, and assembles a desktop. `accessibility` reports window-relative bounds,
    /// as AT-SPI does on Wayland; they are moved onto the screen here.
    pub fn connect(
        options: GnomeOptions,
        accessibility: Box<dyn Accessibility>,
        ocr: Box<dyn Ocr>,
    ) -> Result<Desktop, GnomeError> {
        // The extension first: without it nothing can be placed, and saying so beats a session
        // opened for nothing.
        let shell = ShellWindows::connect(&options.bus_address)?;
        let session = Arc::new(MutterSession::start(&options.bus_address)?);
        let screen = MutterScreen::open(Arc::clone(&session), options.pipewire.as_deref())?;
        let settle = MutterSettle::start(&screen)
            .map_err(|e| GnomeError::Unexpected(format!("watching the screen casts: {e}")))?;
        let scales = MonitorScales::connect(&options.bus_address)?;
        let windows = Arc::new(GnomeWindows::new(shell, options.launch, session.layout()).scaled_by(scales));
        let accessibility = WindowRelative::new(accessibility, Arc::clone(&windows));
        let focused = Arc::clone(&windows);
        let input = MutterInput::new(session).pasting_with(Box::new(move || {
            use handrail_platform::Windows;
            match focused.frontmost() {
                Ok(Some(front)) => handrail_platform::paste::paste_key_for([front.class.as_str()]),
                _ => handrail_platform::paste::PasteKey::CtrlV,
            }
        }));
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
            // Apps of this machine: their shells' files are this machine's /proc.
            files: Box::new(handrail_procfs::ProcShellFiles),
            keys: handrail_platform::KeyPolicy::linux(),
        })
    }
}
