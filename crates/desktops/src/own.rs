//! The desktop of a system without Linux's sandboxes: the Mac's own (macOS); elsewhere none (the
//! edges offer the simulated one).

use crate::error::Result;
use crate::DesktopCheck;
use handrail_core::guard::url::UrlPolicy;
use handrail_platform::absent::not_opened_desktop;
use handrail_platform::Desktop;

/// Which desktop a command works on.
#[derive(Debug, Clone, Default)]
pub struct DesktopChoice {
    /// OCR's languages (`--ocr-lang`, BCP 47 codes on a Mac: en-US+th-TH), else Vision's own choice.
    /// Only a Mac's desktop reads text; elsewhere there is none to open.
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    pub ocr_languages: Option<String>,
}

/// What a command started and must stop: nothing here (the person's own desktop stays as it is).
#[derive(Debug)]
pub struct Running;

impl Running {
    /// Nothing started.
    pub fn none() -> Running {
        Running
    }

    /// Only a private sandbox is reset between tasks; the person's own desktop never is.
    pub fn reset_hook(&self) -> Result<Option<Box<dyn handrail_calls::DesktopReset>>> {
        Ok(None)
    }

    pub fn desktop_check(&self) -> Option<DesktopCheck> {
        None
    }

    pub fn stop(self) -> Result<()> {
        Ok(())
    }
}

/// Nothing to watch: there is no sandbox.
pub fn watch_sandbox(_who: &'static str, _running: &mut Running) {}

/// Opens the chosen desktop. A model that cannot see gets one that is never opened. On a Mac the
/// browser is the person's own: no URL-policy proxy stands in front of it, and the engine's own URL
/// checks (`open_url`, an address bar's text) are what hold `policy`.
pub fn open_desktop(who: &str, choice: &DesktopChoice, sees: bool, policy: &UrlPolicy) -> Result<(Desktop, Running)> {
    if !sees {
        eprintln!("{who}: the main model cannot see (or is not declared); the desktop is not opened");
        return Ok((not_opened_desktop(), Running));
    }
    if !policy.allowed_domains.is_empty() {
        eprintln!("{who}: --allow-domain is checked on the URLs handrail opens and addresses typed into a browser");
    }
    own_desktop(who, choice).map(|d| (d, Running))
}

#[cfg(target_os = "macos")]
fn own_desktop(who: &str, choice: &DesktopChoice) -> Result<Desktop> {
    let options = handrail_macos::MacOptions {
        ocr_languages: choice
            .ocr_languages
            .as_deref()
            .map(|l| l.split('+').map(str::to_owned).collect())
            .unwrap_or_default(),
        no_ocr: false,
    };
    eprintln!("{who}: serving this Mac's desktop");
    crate::error::Doing::doing(handrail_macos::MacDesktop::connect(options), "opening the Mac's desktop")
}

#[cfg(not(target_os = "macos"))]
fn own_desktop(_who: &str, _choice: &DesktopChoice) -> Result<Desktop> {
    Err(crate::error::DesktopError::Refused(
        "handrail drives Linux and macOS desktops; here only --simulated is available".into(),
    ))
}
