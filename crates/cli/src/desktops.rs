//! Building a [`Desktop`] for the commands: a private sandbox, or an X display that already runs.

use std::path::PathBuf;

use anyhow::{Context, Result};
use handrail_platform::absent::{NoAccessibility, NoOcr};
use handrail_platform::{Accessibility, Desktop, Ocr};
use handrail_sandbox::{Sandbox, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

/// Tesseract when it can be loaded; otherwise the accessibility path alone, said once on stderr.
pub fn ocr_or_none(who: &str) -> Box<dyn Ocr> {
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    match ocr.unavailable_reason() {
        None => Box::new(ocr),
        Some(why) => {
            eprintln!("{who}: OCR is unavailable ({why}); continuing with accessibility only");
            Box::new(NoOcr)
        }
    }
}

/// The desktop of a running sandbox, with AT-SPI and OCR.
pub fn sandbox_desktop(sandbox: &Sandbox, who: &str) -> Result<Desktop> {
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    launch.log_dir = Some(sandbox.root().join("logs"));
    let accessibility: Box<dyn Accessibility> = if sandbox.options().accessibility {
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address()))
    } else {
        Box::new(NoAccessibility)
    };
    X11Desktop::connect(X11Options::new(sandbox.display(), launch), accessibility, ocr_or_none(who))
        .context("connecting to the sandbox desktop")
}

/// An X display that is already running (`:0`, or one a test harness started), with its session bus
/// from `DBUS_SESSION_BUS_ADDRESS` when set.
pub fn display_desktop(display: &str, who: &str) -> Result<Desktop> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let profile = runtime.join(format!("handrail-browser-{}", std::process::id()));
    let launch = LaunchEnv::new(vec![("DISPLAY".into(), display.to_string())], profile);
    let accessibility: Box<dyn Accessibility> = match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
        Ok(bus) if !bus.is_empty() => Box::new(handrail_atspi::AtspiSource::new(bus)),
        _ => {
            eprintln!("{who}: DBUS_SESSION_BUS_ADDRESS is not set; the accessibility tree is unavailable");
            Box::new(NoAccessibility)
        }
    };
    X11Desktop::connect(X11Options::new(display, launch), accessibility, ocr_or_none(who))
        .with_context(|| format!("connecting to X display {display}"))
}
