//! Sources for facilities a desktop does not have. They report absence honestly (`ax=unavailable`,
//! `ocr=unavailable`) so the engine keeps working on the visual path.

use crate::element::AxSnapshot;
use crate::frame::{EncodedImage, Frame};
use crate::geometry::{Point, Rect, Size};
use crate::input::{KeyCombo, MouseButton, ScrollDirection};
use crate::network::BlockedRequest;
use crate::traits::{
    Accessibility, AxLimits, Desktop, Encoder, FileState, Input, Launched, NetworkPolicy, Ocr, Screen, Settle,
    SettleWatch, ShellFiles, WindowInfo, Windows,
};
use crate::{OcrLine, PlatformError};

/// No accessibility bus: every snapshot is `AxHealth::Unavailable`.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAccessibility;

impl Accessibility for NoAccessibility {
    fn snapshot(&self, _limits: &AxLimits) -> AxSnapshot {
        AxSnapshot::unavailable()
    }
}

/// No OCR engine installed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoOcr;

impl Ocr for NoOcr {
    fn available(&self) -> bool {
        false
    }

    fn recognize(&self, _frame: &Frame, _region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError> {
        Err(PlatformError::Unavailable("OCR".into()))
    }
}

/// No network guard in front of the browser: nothing is ever reported blocked. The engine's own URL
/// checks (`open_url`, addresses typed into a browser's address bar) still apply.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNetworkPolicy;

impl NetworkPolicy for NoNetworkPolicy {
    fn take_blocked(&self) -> Vec<BlockedRequest> {
        Vec::new()
    }
}

/// No way to look at a terminal's files: every path is [`FileState::Unknown`], so a command that
/// would replace a file is judged as if the file existed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoShellFiles;

impl ShellFiles for NoShellFiles {
    fn file_states(&self, _terminal_pid: u32, paths: &[String]) -> Vec<FileState> {
        vec![FileState::Unknown; paths.len()]
    }
}

/// A desktop that was deliberately not opened: every facility refuses. It stands in when the main
/// model cannot see, so the capability gate is not the only thing between such a model and the
/// screen — there is no screen behind it to touch.
#[derive(Debug, Clone, Copy, Default)]
pub struct NotOpened;

const NOT_OPENED: &str = "the desktop (not opened: the main model cannot see)";

fn not_opened<T>() -> Result<T, PlatformError> {
    Err(PlatformError::Unavailable(NOT_OPENED.into()))
}

impl Screen for NotOpened {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        not_opened()
    }

    fn capture(&self, _area: Option<Rect>, _max_size: Option<Size>) -> Result<Frame, PlatformError> {
        not_opened()
    }
}

impl Input for NotOpened {
    fn move_pointer(&self, _to: Point) -> Result<(), PlatformError> {
        not_opened()
    }

    fn click(&self, _at: Point, _button: MouseButton, _count: u8) -> Result<(), PlatformError> {
        not_opened()
    }

    fn drag(&self, _from: Point, _to: Point) -> Result<(), PlatformError> {
        not_opened()
    }

    fn scroll(&self, _at: Option<Point>, _direction: ScrollDirection, _notches: u32) -> Result<(), PlatformError> {
        not_opened()
    }

    fn key(&self, _combo: &KeyCombo) -> Result<(), PlatformError> {
        not_opened()
    }

    fn type_text(&self, _text: &str) -> Result<(), PlatformError> {
        not_opened()
    }
}

impl Windows for NotOpened {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        not_opened()
    }

    fn launch_app(&self, _name: &str) -> Result<Launched, PlatformError> {
        not_opened()
    }

    fn open_url(&self, _url: &str) -> Result<Launched, PlatformError> {
        not_opened()
    }
}

impl Settle for NotOpened {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        not_opened()
    }
}

impl Encoder for NotOpened {
    fn encode(&self, _frame: &Frame) -> Result<EncodedImage, PlatformError> {
        not_opened()
    }
}

/// A [`Desktop`] with nothing behind it (see [`NotOpened`]).
pub fn not_opened_desktop() -> Desktop {
    Desktop {
        screen: Box::new(NotOpened),
        input: Box::new(NotOpened),
        windows: Box::new(NotOpened),
        settle: Box::new(NotOpened),
        accessibility: Box::new(NoAccessibility),
        ocr: Box::new(NoOcr),
        encoder: Box::new(NotOpened),
        clock: Box::new(crate::traits::SystemClock::default()),
        network: Box::new(NoNetworkPolicy),
        files: Box::new(NoShellFiles),
        // Nothing is ever pressed here; the strictest known policy is as good as any.
        rules: crate::OsRules::linux(),
    }
}
