//! handrail's X11 backend.
//!
//! - [`capture`]: MIT-SHM screen capture with a GetImage fallback, BGRX straight into resize and encode.
//! - [`input`]: XTEST pointer, buttons, wheel, keys and text of any script.
//! - [`windows`]: EWMH frontmost window and activation, apps from XDG desktop entries, a browser
//!   launched with accessibility on.
//! - [`tidy`]: what a reset needs from the X server: the windows left, ending a window's client,
//!   emptying the selections.
//! - [`settle`]: waits on DAMAGE events until the screen is quiet, ignoring regions that were already
//!   animating.
//! - [`placement`]: accessibility nodes a toolkit gave in window coordinates (GTK 4), moved onto the
//!   screen by their window's place.
//!
//! [`X11Desktop::connect`] assembles them into a [`Desktop`] for the engine, with whatever accessibility
//! and OCR sources the caller has.
#![cfg(target_os = "linux")]

pub mod capture;
mod conn;
mod error;
mod held;
pub mod input;
mod monitors;
pub mod placement;
pub mod settle;
pub mod tidy;
pub mod windows;

use std::sync::Arc;

use handrail_imaging::ImageFormat;
use handrail_platform::absent::NoNetworkPolicy;
use handrail_platform::{Accessibility, Desktop, Ocr, SystemClock};

pub use conn::{Atoms, Conn};
pub use error::X11Error;
pub use held::{held_down, HeldDown};

use capture::{CaptureMethod, X11Screen};
use input::{InputOptions, X11Input};
use placement::PlacedAccessibility;
use settle::{SettleOptions, X11Settle};
use windows::{LaunchEnv, X11Windows};

/// Everything needed to drive one X display.
#[derive(Debug, Clone)]
pub struct X11Options {
    /// The display to drive, e.g. `":90"`. Always explicit: handrail never picks up `$DISPLAY` silently.
    pub display: String,
    /// Environment and browser profile for the apps and URLs handrail opens.
    pub launch: LaunchEnv,
    pub capture: CaptureMethod,
    pub input: InputOptions,
    pub settle: SettleOptions,
    /// Format of the screenshots sent to the model.
    pub image_format: ImageFormat,
}

impl X11Options {
    pub fn new(display: impl Into<String>, launch: LaunchEnv) -> Self {
        Self {
            display: display.into(),
            launch,
            capture: CaptureMethod::default(),
            input: InputOptions::default(),
            settle: SettleOptions::default(),
            image_format: ImageFormat::default(),
        }
    }
}

/// Builds [`Desktop`]s over X11.
#[derive(Debug)]
pub struct X11Desktop;

impl X11Desktop {
    /// Connects to the display and assembles a desktop. Capture, input and window queries share one
    /// connection; settle and the clipboard open their own (they consume events).
    pub fn connect(
        options: X11Options,
        accessibility: Box<dyn Accessibility>,
        ocr: Box<dyn Ocr>,
    ) -> Result<Desktop, X11Error> {
        let conn = Conn::open(&options.display)?;
        let screen = X11Screen::with_method(Arc::clone(&conn), options.capture)?;
        let input = X11Input::with_options(Arc::clone(&conn), options.input)?;
        let settle = X11Settle::with_options(&options.display, options.settle)?;
        let accessibility = Box::new(PlacedAccessibility::new(accessibility, Arc::clone(&conn)));
        let windows = X11Windows::new(conn, options.launch);
        Ok(Desktop {
            screen: Box::new(screen),
            input: Box::new(input),
            windows: Box::new(windows),
            settle: Box::new(settle),
            accessibility,
            ocr,
            encoder: handrail_imaging::encoder(options.image_format),
            clock: Box::new(SystemClock::default()),
            // The caller puts its browser's network guard here, if it started one.
            network: Box::new(NoNetworkPolicy),
            // X clients on this machine: their shells' files are this machine's /proc.
            files: Box::new(handrail_procfs::ProcShellFiles),
            // X11 desktops here are Linux desktops.
            rules: handrail_platform::OsRules::linux(),
        })
    }
}
