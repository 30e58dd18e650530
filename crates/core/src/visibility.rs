//! What a person can see: elements of windows covered by other windows are not on screen.
//!
//! The accessibility tree reports every window's elements with their bounds, whether or not another
//! window lies over them; a click at such bounds lands on whatever is drawn on top. So each element is
//! assigned to the top-level window it belongs to ([`owner_of`]), its visible part is its bounds minus
//! every window stacked above that one ([`uncovered`]), and an element with no visible part is left out
//! of the observation ([`clip`]), counted per window so the model knows that window exists.
//!
//! Invariants: text read off the pixels (OCR) is visible by construction and never clipped; an element
//! whose window cannot be told is kept (nothing is judged covered on a guess); with a single window
//! nothing is ever hidden.

use handrail_platform::{Rect, Role, StackedWindow, States, WindowKind};

use crate::ids::ElementId;
use crate::observation::{Element, ElementDetail, Source};

/// A top-level window as an observation shows it. Bounds are in **screenshot** coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenWindow {
    /// The backend's handle, for raising it.
    pub handle: u64,
    pub title: String,
    pub app: String,
    pub class: String,
    pub pid: Option<u32>,
    pub kind: WindowKind,
    pub bounds: Rect,
    pub minimized: bool,
    pub active: bool,
}

impl ScreenWindow {
    /// From what the platform reports, with bounds mapped by `scale` (screen pixels per screenshot pixel).
    pub fn of(w: &StackedWindow, scale: f64) -> ScreenWindow {
        let b = w.info.bounds;
        ScreenWindow {
            handle: w.handle,
            title: w.info.title.clone(),
            app: w.info.app.clone(),
            class: w.info.class.clone(),
            pid: w.info.pid,
            kind: w.kind,
            bounds: if scale == 1.0 { b } else { b.scaled(1.0 / scale) },
            minimized: w.minimized,
            active: w.active,
        }
    }

    /// Draws over what lies below it.
    fn covers(&self) -> bool {
        !self.minimized && !self.bounds.is_empty()
    }

    fn same_app(&self, other: &ScreenWindow) -> bool {
        match (self.pid, other.pid) {
            (Some(a), Some(b)) => a == b,
            _ => self.class.is_empty() || other.class.is_empty() || self.class.eq_ignore_ascii_case(&other.class),
        }
    }

    /// Its title, quoted, with its app: `"Title" of "App"`.
    pub fn describe_short(&self) -> String {
        let title = if self.title.is_empty() {
            "(untitled)".to_string()
        } else {
            crate::render::quote_clipped(&self.title, 60)
        };
        if self.app.is_empty() {
            title
        } else {
            format!("{title} of {}", crate::render::quote_clipped(&self.app, 40))
        }
    }

    /// How a person would name it: `"Title" (dialog, app "Name")`.
    pub fn describe(&self) -> String {
        let title = if self.title.is_empty() {
            "(untitled)".to_string()
        } else {
            crate::render::quote_clipped(&self.title, 60)
        };
        let app = if self.app.is_empty() {
            String::new()
        } else {
            format!(", app {}", crate::render::quote_clipped(&self.app, 40))
        };
        format!("{title} ({}{app})", self.kind.as_str())
    }
}

/// How many elements of one window are covered by windows in front of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenCount {
    /// Index into the observation's windows.
    pub window: usize,
    pub count: usize,
}

/// The elements that are visible, with `focus` and parent links remapped to them, and what was left out.
#[derive(Debug, Clone, Default)]
pub struct Clipped {
    pub elements: Vec<Element>,
    pub focus: Option<usize>,
    pub hidden: Vec<HiddenCount>,
    /// The elements left out (ids unassigned), for telling "covered now" from "gone", and for the
    /// guards: keyboard input reaches a focused element and its window's key bindings, covered or not.
    pub hidden_elements: Vec<Element>,
    /// Index into `hidden_elements` of the focused element, when it is covered.
    pub hidden_focus: Option<usize>,
}

/// Index into `windows` (bottom to top) of the window `e` belongs to, `None` when it cannot be told.
///
/// By title first (the accessibility tree names each element's window), then by app; among several
/// candidates the topmost one containing the element's centre. An element lying within a pop-up of the
/// same app stacked above that window is drawn in the pop-up (toolkits list a menu's items under the
/// window that opened it). Text read off the pixels belongs to the topmost window under it.
pub fn owner_of(e: &Element, windows: &[ScreenWindow]) -> Option<usize> {
    if windows.is_empty() {
        return None;
    }
    let centre = e.bounds.center();
    if e.source.is_ocr_only() {
        return windows.iter().rposition(|w| w.covers() && w.bounds.contains(centre));
    }
    let pick = |candidates: Vec<usize>| -> Option<usize> {
        match candidates[..] {
            [] => None,
            [only] => Some(only),
            _ => candidates
                .iter()
                .rev()
                .copied()
                .find(|&i| windows[i].bounds.contains(centre))
                .or(candidates.last().copied()),
        }
    };
    let by_title = pick(
        windows
            .iter()
            .enumerate()
            .filter(|(_, w)| w.kind != WindowKind::Popup && titles_match(&w.title, &e.window))
            .map(|(i, _)| i)
            .collect(),
    );
    let owner = by_title.or_else(|| {
        pick(
            windows
                .iter()
                .enumerate()
                .filter(|(_, w)| w.kind != WindowKind::Popup && apps_match(w, &e.app))
                .map(|(i, _)| i)
                .collect(),
        )
    })?;
    // Drawn in a pop-up of the same app above its window?
    let inside_popup = windows.iter().enumerate().skip(owner + 1).rev().find(|(_, p)| {
        p.kind == WindowKind::Popup && p.covers() && p.same_app(&windows[owner]) && mostly_inside(&e.bounds, &p.bounds)
    });
    Some(inside_popup.map_or(owner, |(i, _)| i))
}

/// The accessibility tree's window name and the window manager's title name the same window: equal, or
/// the title is the name with the app's suffix (`"Page - Chromium"` for `"Page"`).
fn titles_match(window_title: &str, ax_window: &str) -> bool {
    let (t, a) = (window_title.trim(), ax_window.trim());
    if a.is_empty() {
        return false;
    }
    t == a || t.strip_prefix(a).is_some_and(|rest| [" - ", " — ", " – "].iter().any(|sep| rest.starts_with(sep)))
}

fn apps_match(w: &ScreenWindow, app: &str) -> bool {
    let app = app.trim();
    !app.is_empty() && (w.app.eq_ignore_ascii_case(app) || w.class.eq_ignore_ascii_case(app))
}

/// At least nine tenths of `inner` lies within `outer`.
fn mostly_inside(inner: &Rect, outer: &Rect) -> bool {
    let area = inner.area();
    area > 0 && inner.intersection(outer).map_or(0, |r| r.area()) * 10 >= area * 9
}

/// The parts of `bounds` that none of `covers` overlaps, as disjoint rectangles.
pub fn uncovered(bounds: Rect, covers: &[Rect]) -> Vec<Rect> {
    let mut parts = if bounds.is_empty() { Vec::new() } else { vec![bounds] };
    for cover in covers {
        parts = parts.into_iter().flat_map(|p| subtract(p, cover)).collect();
        if parts.is_empty() {
            break;
        }
    }
    parts
}

/// `a` minus `b`: up to four disjoint rectangles (above, below, left, right of the overlap).
fn subtract(a: Rect, b: &Rect) -> Vec<Rect> {
    let Some(o) = a.intersection(b) else { return vec![a] };
    let (ax1, ay1, ax2, ay2) = (i64::from(a.x), i64::from(a.y), a.right(), a.bottom());
    let (ox1, oy1, ox2, oy2) = (i64::from(o.x), i64::from(o.y), o.right(), o.bottom());
    let rect = |x1: i64, y1: i64, x2: i64, y2: i64| {
        let (Ok(x), Ok(y), Ok(w), Ok(h)) =
            (i32::try_from(x1), i32::try_from(y1), u32::try_from(x2 - x1), u32::try_from(y2 - y1))
        else {
            return None;
        };
        Some(Rect::new(x, y, w, h)).filter(|r| !r.is_empty())
    };
    [rect(ax1, ay1, ax2, oy1), rect(ax1, oy2, ax2, ay2), rect(ax1, oy1, ox1, oy2), rect(ox2, oy1, ax2, oy2)]
        .into_iter()
        .flatten()
        .collect()
}

/// Bounds of the windows drawn over window `owner` (index into `windows`, bottom to top).
pub fn covers_above(windows: &[ScreenWindow], owner: usize) -> Vec<Rect> {
    windows.iter().skip(owner + 1).filter(|w| w.covers()).map(|w| w.bounds).collect()
}

/// The visible parts of `e`, given its window: all of it when the window is unknown.
pub fn visible_parts(e: &Element, windows: &[ScreenWindow]) -> Vec<Rect> {
    match owner_index(e, windows) {
        Some(i) if windows[i].minimized => Vec::new(),
        Some(i) => uncovered(e.bounds, &covers_above(windows, i)),
        None => vec![e.bounds],
    }
}

/// The window `e` was assigned to, by its handle.
fn owner_index(e: &Element, windows: &[ScreenWindow]) -> Option<usize> {
    e.owner.and_then(|h| windows.iter().position(|w| w.handle == h))
}

/// Assigns every element its window and leaves out those with no visible part.
pub fn clip(elements: Vec<Element>, focus: Option<usize>, windows: &[ScreenWindow]) -> Clipped {
    let mut kept = Vec::with_capacity(elements.len());
    let mut new_index: Vec<Option<usize>> = Vec::with_capacity(elements.len());
    let mut hidden: Vec<HiddenCount> = Vec::new();
    let mut hidden_elements = Vec::new();
    let mut hidden_focus = None;
    for (i, mut e) in elements.into_iter().enumerate() {
        let owner = owner_of(&e, windows);
        e.owner = owner.map(|i| windows[i].handle);
        if owner.is_some_and(|i| is_title_bar_text(&e, &windows[i])) {
            // The window's own element names it already.
            new_index.push(None);
            continue;
        }
        let visible = owner.is_none() || !visible_parts(&e, windows).is_empty();
        if visible {
            new_index.push(Some(kept.len()));
            kept.push(e);
        } else {
            new_index.push(None);
            if let Some(i) = owner {
                match hidden.iter_mut().find(|h| h.window == i) {
                    Some(h) => h.count += 1,
                    None => hidden.push(HiddenCount { window: i, count: 1 }),
                }
            }
            if focus == Some(i) {
                hidden_focus = Some(hidden_elements.len());
            }
            hidden_elements.push(e);
        }
    }
    for e in &mut kept {
        // A hidden parent is skipped over to the nearest kept ancestor... which merge does not record,
        // so the link is dropped rather than pointing at the wrong element.
        e.detail.parent = e.detail.parent.and_then(|p| new_index.get(p).copied().flatten());
    }
    hidden.sort_by_key(|h| std::cmp::Reverse(h.window));
    Clipped {
        elements: kept,
        focus: focus.and_then(|f| new_index.get(f).copied().flatten()),
        hidden,
        hidden_elements,
        hidden_focus,
    }
}

/// Height of the band at the top of a window where its title bar's text is read.
const TITLE_BAND: i64 = 40;

/// Text read off a window's title bar: its title again (or the start of it, where the bar cut it short).
fn is_title_bar_text(e: &Element, w: &ScreenWindow) -> bool {
    if !e.source.is_ocr_only()
        || w.kind == WindowKind::Popup
        || i64::from(e.bounds.y) >= i64::from(w.bounds.y) + TITLE_BAND
    {
        return false;
    }
    let (text, title) = (crate::text::normalize(&e.label), crate::text::normalize(&w.title));
    let text = text.trim_end_matches(['…', '.']).trim_end();
    !text.is_empty() && (text == title || (text.chars().count() >= 10 && title.starts_with(text)))
}

/// One element per window (pop-ups excluded: they are part of what they pop up from), front first, so a
/// window behind others can be raised by clicking it.
pub fn window_elements(windows: &[ScreenWindow], image: Rect) -> Vec<Element> {
    windows
        .iter()
        .rev()
        .filter(|w| w.kind != WindowKind::Popup)
        .map(|w| {
            let mut states = States::empty();
            states.set(States::ACTIVE, w.active);
            states.set(States::MINIMIZED, w.minimized);
            Element {
                id: ElementId::UNASSIGNED,
                role: Role::Window,
                label: w.title.clone(),
                value: None,
                bounds: w.bounds.clamped_to(&image),
                states,
                source: Source::Window,
                app: w.app.clone(),
                window: w.title.clone(),
                owner: Some(w.handle),
                detail: ElementDetail { native_role: w.kind.as_str().into(), ..ElementDetail::default() },
            }
        })
        .collect()
}

/// A window that opened or closed between two observations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowEvent {
    pub opened: bool,
    pub window: ScreenWindow,
}

/// Windows of `after` not in `before` (opened, front first), then those of `before` gone from `after`
/// (closed). A window keeps its handle while it lives, whatever its title does.
pub fn window_events(before: &[ScreenWindow], after: &[ScreenWindow]) -> Vec<WindowEvent> {
    let has = |list: &[ScreenWindow], w: &ScreenWindow| list.iter().any(|o| o.handle == w.handle);
    let opened =
        after.iter().rev().filter(|w| !has(before, w)).map(|w| WindowEvent { opened: true, window: w.clone() });
    let closed =
        before.iter().rev().filter(|w| !has(after, w)).map(|w| WindowEvent { opened: false, window: w.clone() });
    opened.chain(closed).collect()
}
