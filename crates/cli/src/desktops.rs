//! The desktop a command works on: the simulated one, or what `handrail-desktops` assembles for this
//! system; and whether the main model sees images.

use std::time::Duration;

use anyhow::Result;
use handrail_core::guard::url::UrlPolicy;
use handrail_core::Vision;
pub use handrail_desktops::*;
use handrail_platform::Desktop;

/// Opens the desktop chosen: the built-in simulated one when `simulated`, else the system's (see
/// `handrail_desktops::open_desktop`). A model that cannot see gets one that is never opened.
pub fn open(
    who: &str,
    choice: &DesktopChoice,
    simulated: bool,
    sees: bool,
    policy: &UrlPolicy,
) -> Result<(Desktop, Running)> {
    if sees && simulated {
        // A real client idles in real time: idle-gap turns and budget windows must see it pass.
        let mut desktop = crate::demo::simulated_scene().follow_wall_clock().desktop();
        desktop.encoder = handrail_imaging::encoder(handrail_imaging::ImageFormat::default());
        return Ok((desktop, Running::none()));
    }
    Ok(open_desktop(who, choice, sees, policy)?)
}

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
