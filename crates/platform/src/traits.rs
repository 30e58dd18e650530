//! The traits a desktop backend implements.
//!
//! They are deliberately small and synchronous: the engine performs one call at a time, and a backend
//! that needs concurrency inside (walking an accessibility tree with many calls in flight, say) keeps
//! it inside. All are object safe so a [`Desktop`] can be assembled from any mix of implementations.

use std::time::Duration;

use crate::element::{AxSnapshot, OcrLine};
use crate::frame::{EncodedImage, Frame};
use crate::geometry::{Point, Rect, Size};
use crate::input::{KeyCombo, MouseButton, ScrollDirection};
use crate::monitor::Monitor;
use crate::network::BlockedRequest;
use crate::PlatformError;

/// Grabs pixels.
pub trait Screen: Send {
    /// Size of the real screen in pixels.
    fn screen_size(&self) -> Result<Size, PlatformError>;

    /// Captures `area` of the screen (the whole screen when `None`), downscaled so it fits inside
    /// `max_size` when one is given (aspect ratio kept, never upscaled).
    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError>;

    /// The monitors the screen is shown on, in screen coordinates, in any order. Backends that cannot
    /// tell monitors apart report the whole screen as one.
    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        Ok(vec![Monitor::whole(self.screen_size()?)])
    }
}

/// Synthesises input. Points are in **screen** coordinates.
///
/// Implementations must leave no button or modifier pressed when a call returns, including on error.
pub trait Input: Send {
    fn move_pointer(&self, to: Point) -> Result<(), PlatformError>;
    /// Presses and releases `button` `count` times at `at` (2 = double click, 3 = triple click).
    fn click(&self, at: Point, button: MouseButton, count: u8) -> Result<(), PlatformError>;
    /// Presses the left button at `from`, moves through intermediate points and releases at `to`.
    fn drag(&self, from: Point, to: Point) -> Result<(), PlatformError>;
    /// Scrolls `notches` wheel steps, over `at` when given (else wherever the pointer is).
    fn scroll(&self, at: Option<Point>, direction: ScrollDirection, notches: u32) -> Result<(), PlatformError>;
    fn key(&self, combo: &KeyCombo) -> Result<(), PlatformError>;
    /// Types `text` exactly as given, in order, whatever its script.
    fn type_text(&self, text: &str) -> Result<(), PlatformError>;
    /// Types `text` by `route`: [`TextRoute::Alternate`] sends it the other way than [`Input::type_text`]
    /// would (key events where it would paste, a paste where it would send keys), for a second attempt
    /// after the first did not arrive. Backends with a single way use it for both.
    fn type_text_via(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        let _ = route;
        self.type_text(text)
    }
}

/// Longest text one `type_text` call types, in characters: bounds the burst of input events (and the
/// time) of one call on every backend.
pub const MAX_TYPED_CHARS: usize = 100_000;

/// Refuses text longer than [`MAX_TYPED_CHARS`] before a backend sends any of it.
pub fn check_typed_length(text: &str) -> Result<(), PlatformError> {
    let n = text.chars().count();
    if n > MAX_TYPED_CHARS {
        return Err(PlatformError::Invalid(format!("text of {n} characters is too long (at most {MAX_TYPED_CHARS})")));
    }
    Ok(())
}

/// Which way text is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextRoute {
    /// The backend's own choice (what [`Input::type_text`] does).
    #[default]
    Preferred,
    /// The other way than the preferred one.
    Alternate,
}

/// What the frontmost window is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WindowInfo {
    pub app: String,
    /// The class the window declares (X11 `WM_CLASS` class, else its instance; a Wayland app id), as
    /// the app spells it: what tells a terminal emulator from other apps whatever its human name.
    pub class: String,
    pub title: String,
    pub pid: Option<u32>,
    /// Screen coordinates, frame included when the backend knows it.
    pub bounds: Rect,
}

/// What a top-level window is to the person looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WindowKind {
    #[default]
    Normal,
    /// A dialog (transient for another window, or typed as one).
    Dialog,
    /// A menu, tooltip, drop-down or notification drawn over everything, unmanaged by the window
    /// manager (X11 override-redirect).
    Popup,
}

impl WindowKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WindowKind::Normal => "window",
            WindowKind::Dialog => "dialog",
            WindowKind::Popup => "pop-up",
        }
    }
}

/// One top-level window in the stack.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StackedWindow {
    /// The backend's handle for the window (an X window id), for [`Windows::activate`]. Stable while
    /// the window exists; may be reused after it closed.
    pub handle: u64,
    pub info: WindowInfo,
    pub kind: WindowKind,
    /// Minimised (iconified): not drawn, covers nothing.
    pub minimized: bool,
    /// The active window, which receives keyboard input.
    pub active: bool,
}

/// What launching produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Launched {
    /// The name the application was found under (e.g. the desktop entry's Name).
    pub app: String,
    pub pid: Option<u32>,
}

/// Windows and applications.
pub trait Windows: Send {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError>;
    /// Starts an application by a human name (desktop entry name, executable name). An unknown name is
    /// [`PlatformError::NotFound`] with close matches in its message.
    fn launch_app(&self, name: &str) -> Result<Launched, PlatformError>;
    /// Opens an already-vetted URL in the browser the backend manages.
    fn open_url(&self, url: &str) -> Result<Launched, PlatformError>;

    /// Every top-level window on screen, **bottom to top** as drawn: managed windows in the window
    /// manager's stacking order, then pop-ups (menus, tooltips) that lie over everything. What covers
    /// what is read from it, so a backend that cannot tell reports the frontmost window alone (the
    /// default), and nothing is ever judged covered.
    fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
        Ok(self
            .frontmost()?
            .map(|info| StackedWindow { handle: 0, info, kind: WindowKind::Normal, minimized: false, active: true })
            .into_iter()
            .collect())
    }

    /// Raises `handle` (from [`Windows::stack`]), restoring it when minimised, and makes it the active
    /// window; returns once the window manager says it is.
    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        Err(PlatformError::Unavailable(format!("activating window {handle:#x} on this desktop")))
    }
}

/// A backend's windows shared with another of its parts (the accessibility adapter placing nodes
/// by them) serve as the desktop's `windows` too.
impl<W: Windows + Sync + ?Sized> Windows for std::sync::Arc<W> {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        (**self).frontmost()
    }
    fn launch_app(&self, name: &str) -> Result<Launched, PlatformError> {
        (**self).launch_app(name)
    }
    fn open_url(&self, url: &str) -> Result<Launched, PlatformError> {
        (**self).open_url(url)
    }
    fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
        (**self).stack()
    }
    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        (**self).activate(handle)
    }
}

/// Parameters for waiting until the screen settles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleRequest {
    /// How long to wait for a first change before concluding the action changed nothing.
    pub response_window: Duration,
    /// How long the screen must stay quiet after its last change.
    pub quiet: Duration,
    /// Never wait longer than this in total.
    pub ceiling: Duration,
}

impl Default for SettleRequest {
    fn default() -> Self {
        Self {
            response_window: Duration::from_millis(400),
            quiet: Duration::from_millis(120),
            ceiling: Duration::from_millis(5000),
        }
    }
}

/// How a settle wait ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SettleReport {
    pub waited: Duration,
    /// False when the ceiling was hit while the screen was still changing.
    pub settled: bool,
    /// Whether any change the wait held for was seen at all (not an animation already running, nor
    /// one recognised in `began`).
    pub saw_change: bool,
    /// Regions (screen coordinates) that were already animating before the action and were ignored.
    pub ignored: Vec<Rect>,
    /// Regions (screen coordinates) where an animation began during the wait (a spinner in a window
    /// the action opened) and kept going: the wait did not hold for them once they were recognised.
    /// Their repaints are still changes: `wait_for_change` reports them.
    pub began: Vec<Rect>,
}

/// Watches for screen changes from the moment it is created.
pub trait SettleWatch {
    /// Blocks until the screen is quiet (see [`SettleRequest`]).
    fn wait(&mut self, request: &SettleRequest) -> Result<SettleReport, PlatformError>;
    /// Blocks until anything (not ignored) changes or `timeout` passes; true when something changed
    /// after the last `wait` or `wait_for_change` returned (what a `wait` waited out is not news).
    /// A zero `timeout` asks whether anything changed since then.
    fn wait_for_change(&mut self, timeout: Duration) -> Result<bool, PlatformError>;
    /// From now on, both waits return as soon as `cancel` is set (looking at it at least every
    /// [`crate::CANCEL_CHECK_EVERY`]): `wait` as not settled, `wait_for_change` as no change. Backends
    /// whose waits cannot be interrupted ignore it; their waits stay bounded by their ceilings.
    fn set_cancel(&mut self, cancel: crate::Cancel) {
        let _ = cancel;
    }
}

/// Knows when the screen has stopped changing.
pub trait Settle: Send {
    /// Starts watching. Call before acting, so changes the action causes are all seen.
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError>;
}

/// Limits for one accessibility walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxLimits {
    pub max_nodes: usize,
    /// Per-call timeout; an application slower than this is skipped and the snapshot is `Partial`.
    pub call_timeout: Duration,
    /// Whole-walk budget.
    pub deadline: Duration,
}

impl Default for AxLimits {
    fn default() -> Self {
        Self { max_nodes: 4000, call_timeout: Duration::from_millis(250), deadline: Duration::from_millis(1500) }
    }
}

/// Reads the accessibility tree. Never blocks past `limits.deadline`; no bus is `AxHealth::Unavailable`,
/// not an error.
pub trait Accessibility: Send {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot;

    /// Input was sent that can move what is shown without the toolkits saying so (a scroll, a drag,
    /// keys that scroll a view: Chromium announces no scroll of an element inside a page): the next
    /// snapshot asks again where every node it would reuse is, and whether one it left out as hidden
    /// is shown now. A source that reads everything afresh each time has nothing to do.
    fn layout_may_have_moved(&self) {}
}

/// Recognises text in pixels.
pub trait Ocr: Send {
    /// False when no engine is installed; `recognize` then returns `PlatformError::Unavailable`.
    fn available(&self) -> bool;
    /// Text lines inside `region` of `frame` (the whole frame when `None`), in the frame's coordinates.
    fn recognize(&self, frame: &Frame, region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError>;

    /// Regions (frame coordinates) whose text is already known from elsewhere — the accessibility tree
    /// — and need not be read again. A hint: an engine may ignore it. Applies to later `recognize` calls.
    fn skip_regions(&self, _regions: &[Rect]) {}

    /// Regions (frame coordinates) that show a terminal's character grid: monospace rows, often in a
    /// small bitmap font that general screen settings misread. A hint: an engine may read them with
    /// settings that suit such text, or ignore it. Applies to later `recognize` calls until replaced.
    fn terminal_regions(&self, _regions: &[Rect]) {}
}

/// Turns a frame into image bytes for the model.
pub trait Encoder: Send {
    fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError>;
}

/// What the network guard of the browser handrail launched refused. A backend without one (the user's
/// own browser, a simulated desktop that injects nothing) reports nothing: the engine's own URL checks
/// (`open_url`, a typed address bar) still hold there.
pub trait NetworkPolicy: Send {
    /// The requests refused since the last call, oldest first. Never blocks; URLs are already
    /// redacted (no credentials).
    fn take_blocked(&self) -> Vec<BlockedRequest>;
}

/// Whether a path a command line names exists, for the shell that would run the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileState {
    /// A file (or anything but a directory) is there: writing to it replaces what it holds.
    Existing,
    /// Nothing is there, or a directory (which a write to the path cannot replace).
    Absent,
    /// Cannot be told: no shell found behind the window, a remote shell, a path with variables…
    Unknown,
}

/// The files a terminal's shell sees, so that a command that would replace a file's contents is
/// judged by whether that file exists. Paths are resolved as the shell in front of the terminal
/// resolves them: against its working directory, its home (`~/…`) and its root. Backends that cannot
/// tell answer [`FileState::Unknown`]; the engine then judges as if the file existed.
pub trait ShellFiles: Send {
    /// One state per path, in order, for the shell of the terminal window owned by process
    /// `terminal_pid`.
    fn file_states(&self, terminal_pid: u32, paths: &[String]) -> Vec<FileState>;
}

/// A monotonic clock. Real desktops use the system clock; a simulated one keeps virtual time so waits
/// cost nothing.
pub trait Clock: Send {
    /// Time since an arbitrary fixed start.
    fn now(&self) -> Duration;
}

/// The system's monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    start: std::time::Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        Self { start: std::time::Instant::now() }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }
}

/// Everything the engine needs from one desktop.
pub struct Desktop {
    pub screen: Box<dyn Screen>,
    pub input: Box<dyn Input>,
    pub windows: Box<dyn Windows>,
    pub settle: Box<dyn Settle>,
    pub accessibility: Box<dyn Accessibility>,
    pub ocr: Box<dyn Ocr>,
    pub encoder: Box<dyn Encoder>,
    pub clock: Box<dyn Clock>,
    /// Requests the launched browser's network guard refused; [`crate::absent::NoNetworkPolicy`] when
    /// there is none.
    pub network: Box<dyn NetworkPolicy>,
    /// Which files a terminal's shell would overwrite; [`crate::absent::NoShellFiles`] when unknown.
    pub files: Box<dyn ShellFiles>,
    /// The rules of this desktop's OS: what its keys mean (paste, select all, dangerous hotkeys) and
    /// which apps are terminals and browsers.
    pub rules: crate::OsRules,
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Desktop { .. }")
    }
}
