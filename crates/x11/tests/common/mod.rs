//! What the engine-driving desktop tests of this crate share.
#![allow(dead_code)]

use handrail_core::RawArgs;
use handrail_platform::Desktop;
use handrail_sandbox::{Sandbox, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

/// The desktop a user runs handrail on, on `sandbox`: X11 with the accessibility bus and Tesseract.
pub fn full_desktop(sandbox: &Sandbox) -> Desktop {
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    let ax = handrail_atspi::AtspiSource::new(sandbox.bus_address());
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    X11Desktop::connect(X11Options::new(sandbox.display(), launch), Box::new(ax), Box::new(ocr)).expect("connects")
}

pub fn raw(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}
