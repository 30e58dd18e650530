//! Building a [`handrail_platform::Desktop`] for the commands, from the parts of the system handrail
//! runs on: Linux's desktops (`linux`), the Mac's own (`macos`), and elsewhere only the simulated one.
//! Each offers the same names — `DesktopChoice`, `open_desktop`, `Running` — so the commands build
//! on every system.

use std::time::Duration;

use handrail_core::Vision;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::*;
#[cfg(not(target_os = "linux"))]
mod own;
#[cfg(not(target_os = "linux"))]
pub use own::*;

/// Decides whether the main model sees images (see `handrail_models::decide`) and says so on stderr.
pub fn decide_vision(who: &str, declared: Option<bool>, endpoint: Option<&str>, model: Option<&str>) -> Vision {
    let probed = match endpoint {
        Some(endpoint) if declared.is_none() => match handrail_models::probe(endpoint, model, Duration::from_secs(5)) {
            Ok(report) => Some(report),
            Err(e) => {
                eprintln!("{who}: could not ask the model server ({e})");
                None
            }
        },
        _ => None,
    };
    let decision = handrail_models::decide(declared, probed.as_ref(), model);
    let verdict = match &decision.vision {
        Vision::Capable => "the main model sees images",
        Vision::TextOnly { .. } => "the main model is text-only",
        Vision::Unknown { .. } => "the main model's vision is unknown",
    };
    eprintln!("{who}: {verdict} ({})", decision.why);
    decision.vision
}
