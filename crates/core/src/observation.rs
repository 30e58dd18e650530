//! Elements and observations: what the model is shown and may refer to.

use std::sync::Arc;
use std::time::Duration;

use handrail_platform::{AxHealth, EncodedImage, OcrHealth, Rect, Role, Size, States};

use crate::diff::Thumbnail;
use crate::ids::{ElementId, ObservationId};

/// Where an element's facts came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    Ax,
    Ocr,
    /// Found by both; the label agrees with the pixels.
    AxOcr,
    /// A top-level window, as the window manager reports it.
    Window,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Ax => "ax",
            Source::Ocr => "ocr",
            Source::AxOcr => "ax+ocr",
            Source::Window => "wm",
        }
    }

    pub fn has_ax(self) -> bool {
        matches!(self, Source::Ax | Source::AxOcr)
    }

    /// Text read off the pixels and nothing else: no control behind it is known.
    pub fn is_ocr_only(self) -> bool {
        self == Source::Ocr
    }
}

/// One thing on screen. Bounds are in **screenshot** coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub id: ElementId,
    pub role: Role,
    pub label: String,
    /// Never set for secure fields.
    pub value: Option<String>,
    pub bounds: Rect,
    pub states: States,
    pub source: Source,
    pub app: String,
    pub window: String,
    /// Handle of the top-level window (in [`Observation::windows`]) the element is drawn in; `None` when
    /// it could not be told.
    pub owner: Option<u64>,
    /// Extra detail for `inspect`.
    pub detail: ElementDetail,
}

/// What the guards need of the frontmost window.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrontWindow {
    pub class: String,
    pub pid: Option<u32>,
    /// In screenshot coordinates.
    pub bounds: Rect,
}

impl FrontWindow {
    /// From what the platform reports, with bounds mapped by `scale` (screen pixels per screenshot
    /// pixel).
    pub fn of(info: &handrail_platform::WindowInfo, scale: f64) -> FrontWindow {
        let bounds = if scale == 1.0 { info.bounds } else { info.bounds.scaled(1.0 / scale) };
        FrontWindow { class: info.class.clone(), pid: info.pid, bounds }
    }
}

/// Facts only `inspect` shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ElementDetail {
    pub native_role: String,
    pub description: String,
    pub actions: Vec<String>,
    /// Key presses that trigger those actions (mnemonics, accelerators), as accessibility reports them.
    pub shortcuts: Vec<handrail_platform::KeyCombo>,
    /// Accessibility reported a binding that could not be read: `shortcuts` may be incomplete.
    pub shortcuts_unreadable: bool,
    pub attributes: Vec<(String, String)>,
    /// Index (in the same list) of the nearest listed ancestor.
    pub parent: Option<usize>,
    /// Sits inside a toolbar (how a browser's address bar is told from a field in a page).
    pub in_toolbar: bool,
    pub ocr_confidence: Option<f32>,
}

impl Element {
    /// An accessible element of app "App", window "W", with no states: the start of most unit tests.
    #[cfg(test)]
    pub(crate) fn for_test(role: Role, label: &str, bounds: Rect) -> Element {
        Element {
            id: ElementId::UNASSIGNED,
            role,
            label: label.into(),
            value: None,
            bounds,
            states: States::empty(),
            source: Source::Ax,
            app: "App".into(),
            window: "W".into(),
            owner: None,
            detail: ElementDetail::default(),
        }
    }

    pub fn is_secure(&self) -> bool {
        self.role == Role::PasswordEntry || self.states.contains(States::SECURE)
    }

    pub fn is_interactive(&self) -> bool {
        self.role.is_interactive()
    }

    /// An editor of many lines the keyboard types into, as accessibility reports one: an editable
    /// multi-line text (GTK's text view, Qt's text edits, a web page's text area). Return starts a
    /// new line there instead of submitting anything, so a newline is text. Terminals are not
    /// editors: their shell reads each line. (LibreOffice's documents report editable paragraphs
    /// inside a document instead, and are not counted here yet.)
    pub fn is_multi_line_editor(&self) -> bool {
        self.role == Role::TextArea && self.states.contains(States::EDITABLE) && !self.is_secure()
    }

    /// Whether a Tab typed here is a character of the text rather than a move of focus: in native
    /// multi-line editors (GTK's text view, Qt's text edits) it is; in a web
    /// page a text area leaves Tab to the browser, which moves focus, and a page's own editor may or
    /// may not take it, which nothing on the accessibility bus tells.
    pub fn takes_tab_as_text(&self) -> bool {
        self.is_multi_line_editor() && !self.is_web_content()
    }

    /// Part of a web page: browsers give every page element its HTML tag as an attribute.
    pub fn is_web_content(&self) -> bool {
        self.detail.attributes.iter().any(|(key, _)| key == "tag")
    }

    /// The text this element shows that may be matched against (secure values never are).
    pub fn visible_texts(&self) -> impl Iterator<Item = &str> {
        let value = if self.is_secure() { None } else { self.value.as_deref() };
        std::iter::once(self.label.as_str()).chain(value).filter(|s| !s.is_empty())
    }
}

/// Extra content of an observation published by `inspect`.
#[derive(Debug, Clone, PartialEq)]
pub struct InspectDetail {
    /// The inspected region in screenshot coordinates.
    pub region: Rect,
    /// Indices into `Observation::elements` of everything inside the region.
    pub elements: Vec<usize>,
}

/// One published observation (`obs_N`).
#[derive(Debug, Clone)]
pub struct Observation {
    pub id: ObservationId,
    pub screen: Size,
    /// Size of the screenshot the elements' coordinates refer to.
    pub image_size: Size,
    /// Screen pixels per screenshot pixel.
    pub scale: f64,
    pub app: Option<String>,
    pub window: Option<String>,
    /// The frontmost window, which receives keyboard input.
    pub front: Option<FrontWindow>,
    /// Index into `elements`.
    pub focus: Option<usize>,
    pub ax: AxHealth,
    /// What the accessibility tree left out and why ([`handrail_platform::AxSnapshot::notes`]).
    pub ax_notes: Vec<String>,
    pub ocr: OcrHealth,
    /// Interactive elements first, then the rest, each in reading order; one element per top-level
    /// window last, front first. Elements with no visible part are not among them.
    pub elements: Vec<Element>,
    /// Top-level windows bottom to top (empty when the backend cannot list them).
    pub windows: Vec<crate::visibility::ScreenWindow>,
    /// The monitors the screen is shown on, in reading order (one, the whole screen, when the backend
    /// cannot tell them apart).
    pub monitors: Vec<crate::monitors::ScreenMonitor>,
    /// Elements left out because windows in front cover them, per window.
    pub hidden: Vec<crate::visibility::HiddenCount>,
    /// The elements counted in `hidden`, never listed or addressable: the guards judge keyboard input
    /// that reaches them (a covered window may still hold focus). Ids are unassigned unless known.
    pub covered: Vec<Element>,
    /// Index into `covered` of the focused element, when it is covered.
    pub covered_focus: Option<usize>,
    /// The image sent to the model: the screenshot, or the zoomed crop for `inspect`.
    pub image: Option<EncodedImage>,
    pub thumbnail: Thumbnail,
    pub inspect: Option<InspectDetail>,
    pub taken_at: Duration,
    /// The whole screenshot at `image_size`, as captured (no marks): for traces, which draw their own
    /// overlays. Never serialised into results.
    pub screenshot: Option<Arc<handrail_platform::Frame>>,
}

impl Observation {
    pub fn element(&self, id: ElementId) -> Option<&Element> {
        self.elements.iter().find(|e| e.id == id)
    }

    /// The window `e` is drawn in.
    pub fn owner(&self, e: &Element) -> Option<&crate::visibility::ScreenWindow> {
        e.owner.and_then(|h| self.windows.iter().find(|w| w.handle == h))
    }

    /// The monitor `e` is shown on (the one showing most of it).
    pub fn monitor_of(&self, e: &Element) -> Option<&crate::monitors::ScreenMonitor> {
        crate::monitors::monitor_of(&e.bounds, &self.monitors)
    }

    pub fn focused(&self) -> Option<&Element> {
        self.focus.and_then(|i| self.elements.get(i))
    }

    /// Screen coordinates → screenshot coordinates.
    pub fn to_image(&self, p: handrail_platform::Point) -> handrail_platform::Point {
        handrail_platform::Point::new(
            (f64::from(p.x) / self.scale).round() as i32,
            (f64::from(p.y) / self.scale).round() as i32,
        )
    }

    /// Screenshot coordinates → screen coordinates.
    pub fn to_screen(&self, p: handrail_platform::Point) -> handrail_platform::Point {
        handrail_platform::Point::new(
            (f64::from(p.x) * self.scale).round() as i32,
            (f64::from(p.y) * self.scale).round() as i32,
        )
    }
}
