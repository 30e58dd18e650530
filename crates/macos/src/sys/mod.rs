//! The Mac desktop from the system's frameworks (built for macOS only).

mod ax;
mod ax_element;
mod cf;
mod displays;
mod input;
mod keyboard;
mod ocr;
mod screen;
mod settle;
mod shared;
mod windows;

use handrail_platform::absent::{NoNetworkPolicy, NoShellFiles};
use handrail_platform::{Desktop, Ocr, OsRules, PlatformError, SystemClock};

pub use ax::MacAccessibility;
pub use input::MacInput;
pub use ocr::VisionOcr;
pub use screen::MacScreen;
pub use settle::MacSettle;
pub use windows::MacWindows;

/// How to open the Mac's desktop.
#[derive(Debug, Clone, Default)]
pub struct MacOptions {
    /// OCR's languages as BCP 47 codes ("en-US", "th-TH", "de-DE"); empty: Vision's own choice.
    pub ocr_languages: Vec<String>,
    /// Read no text by OCR (accessibility only).
    pub no_ocr: bool,
}

/// The person's own Mac desktop.
pub struct MacDesktop;

impl MacDesktop {
    /// Opens the desktop. Missing permissions are not an error here: each part says so when used
    /// (`ax=permission_required`, a capture or an input refused with where to grant it).
    pub fn connect(options: MacOptions) -> Result<Desktop, PlatformError> {
        let host = crate::permission::host_app(|k| std::env::var(k).ok());
        let shared = shared::Shared::new(host);
        let ocr: Box<dyn Ocr> = if options.no_ocr {
            Box::new(handrail_platform::absent::NoOcr)
        } else {
            Box::new(VisionOcr::new(options.ocr_languages)?)
        };
        Ok(Desktop {
            screen: Box::new(MacScreen::new(shared.clone())),
            input: Box::new(MacInput::new(shared.clone())),
            windows: Box::new(MacWindows::new(shared.clone())),
            settle: Box::new(MacSettle::start(shared.clone())?),
            accessibility: Box::new(MacAccessibility::new(shared)),
            ocr,
            encoder: handrail_imaging::encoder(handrail_imaging::ImageFormat::default()),
            clock: Box::new(SystemClock::default()),
            network: Box::new(NoNetworkPolicy),
            files: Box::new(NoShellFiles),
            rules: OsRules::macos(),
        })
    }
}
