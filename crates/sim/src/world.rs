//! The simulated world: windows, widgets, virtual time, and what input does to them.
//!
//! Everything here is deterministic: time moves only when told to, reactions run in (due, sequence)
//! order, and nothing depends on the host.

use std::collections::VecDeque;
use std::time::Duration;

use handrail_platform::{
    AxHealth, BlockedRequest, Key, KeyCombo, Launched, MouseButton, PlatformError, Point, Rect, ScrollDirection, Size,
    StackedWindow, WindowInfo, WindowKind as PlatformWindowKind,
};

use crate::spec::{
    normalize_combo, Action, Reaction, Widget, WidgetId, WidgetKind, WidgetRef, WindowId, WindowKind, WindowRef,
    WindowSpec,
};
use crate::SimCall;

/// Height of a window's title bar.
pub(crate) const TITLE_H: u32 = 24;
/// Height of one row of a [`WidgetKind::List`].
pub(crate) const ROW_H: u32 = 24;
/// Virtual time each input event takes, so delayed reactions can fall between events.
pub(crate) const INPUT_STEP: Duration = Duration::from_millis(10);
/// A spinner changes its pixels this often.
pub(crate) const SPINNER_STEP: Duration = Duration::from_millis(100);
/// The app name `open_url` uses for its browser window.
pub(crate) const BROWSER: &str = "Browser";
/// How many captures OCR can still read as they were (see [`World::remember_text`]).
const TEXT_CACHE: usize = 8;

#[derive(Debug, Clone, Hash)]
pub(crate) struct WindowData {
    pub id: WindowId,
    pub app: String,
    pub class: String,
    pub title: String,
    pub kind: WindowKind,
    pub bounds: Rect,
    pub open: bool,
    /// Bottom to top: later widgets are drawn over earlier ones and win hit tests.
    pub widgets: Vec<WidgetId>,
    /// The widget holding keyboard focus while this window is frontmost.
    pub focus: Option<WidgetId>,
    pub shortcuts: Vec<(String, Reaction)>,
    pub pid: u32,
    /// Where the next auto-laid-out widget goes, below the content top.
    layout_y: u32,
}

impl WindowData {
    /// Where widgets are drawn: inside the 1 px frame and below the title bar.
    pub fn content(&self) -> Rect {
        let b = self.bounds;
        let top = if self.kind == WindowKind::Popup { 1 } else { TITLE_H };
        Rect::new(b.x + 1, b.y + top as i32, b.width.saturating_sub(2), b.height.saturating_sub(top + 1))
    }

    pub fn title_bar(&self) -> Option<Rect> {
        let b = self.bounds;
        (self.kind != WindowKind::Popup).then(|| {
            Rect::new(b.x + 1, b.y + 1, b.width.saturating_sub(2), (TITLE_H - 1).min(b.height.saturating_sub(1)))
        })
    }
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct WidgetData {
    pub id: WidgetId,
    pub window: WindowId,
    /// The widget's current state (the spec it was built from, mutated since).
    pub w: Widget,
    /// First visible item of a list.
    pub offset: usize,
    pub selected_row: Option<usize>,
    /// An entry's whole text is selected: the next typing replaces it.
    pub select_all: bool,
    /// A terminal's caret, in characters from the end of its line (0: at the end).
    pub caret_back: usize,
}

impl WidgetData {
    pub fn bounds(&self) -> Rect {
        self.w.bounds.unwrap_or_default()
    }

    pub fn kind(&self) -> WidgetKind {
        self.w.kind
    }

    pub fn visible_rows(&self) -> usize {
        (self.bounds().height / ROW_H) as usize
    }
}

#[derive(Debug, Clone, Hash)]
struct Pending {
    due: Duration,
    seq: u64,
    action: Action,
    source: Option<WindowId>,
}

/// Everything a person could notice about the desktop; what [`World::fingerprint`] hashes. Time, the
/// call log and caches live outside it so pure reads cannot change it.
#[derive(Debug, Clone, Default, Hash)]
pub(crate) struct State {
    pub windows: Vec<WindowData>,
    pub widgets: Vec<WidgetData>,
    /// Open windows, bottom to top.
    pub stack: Vec<WindowId>,
    pub pointer: Point,
    pub hovered: Option<WidgetId>,
    pending: Vec<Pending>,
    next_seq: u64,
    pub opened_urls: Vec<String>,
}

struct App {
    name: String,
    spec: WindowSpec,
    delay: Duration,
}

/// Screen text as it was when a frame was captured, keyed by the frame's content.
struct CachedText {
    key: u64,
    lines: Vec<(String, Rect)>,
}

pub(crate) struct World {
    pub screen: Size,
    pub state: State,
    pub now: Duration,
    pub calls: Vec<SimCall>,
    /// Bumped on every visible change; settle waits compare it.
    pub changes: u64,
    pub last_change_at: Duration,
    apps: Vec<App>,
    pub ax_health: AxHealth,
    pub ax_missing_app: Option<String>,
    pub ocr_available: bool,
    /// Virtual time an accessibility snapshot takes; it reads the tree as it was when it began (apps
    /// answering a busy machine's walk slowly).
    pub ax_read_time: Duration,
    /// How many of the next snapshots come back `Unavailable` (a registry that missed its deadline).
    pub ax_misses: u32,
    /// Snapshots that still answer before those misses begin.
    pub ax_misses_in: u32,
    /// Snapshots still to come back `Partial`, without the app [`World::ax_missing_app`] names.
    pub ax_partial_misses: u32,
    text_cache: VecDeque<CachedText>,
    /// Requests the simulated network guard refused, until `NetworkPolicy::take_blocked` drains them.
    pub blocked: Vec<BlockedRequest>,
    /// Faults for the next texts typed the preferred way, oldest first.
    pub typing_faults: VecDeque<TypingFault>,
    /// Faults for the next texts typed the other way (a second attempt), oldest first.
    pub alternate_faults: VecDeque<TypingFault>,
    /// What terminals' shells find on disk, by path as typed; `None`: nothing can be told.
    pub shell_files: Option<std::collections::BTreeMap<String, handrail_platform::FileState>>,
    /// The monitors the screen is split into; `None`: the whole screen is one.
    pub monitors: Option<Vec<handrail_platform::Monitor>>,
    /// When set, the wall-clock instant up to which real time has been added to `now`
    /// (see [`World::follow_wall_clock`]).
    wall_anchor: Option<std::time::Instant>,
}

/// What goes wrong with a text typed the preferred way (a paste that arrives empty, a garbled one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypingFault {
    /// Nothing arrives.
    Lost,
    /// This arrives instead.
    Garbled(String),
}

/// Sets `slot` and reports whether that changed it.
fn replace<T: PartialEq>(slot: &mut T, new: T) -> bool {
    if *slot == new {
        false
    } else {
        *slot = new;
        true
    }
}

impl World {
    pub fn new(screen: Size) -> Self {
        Self {
            screen,
            state: State::default(),
            now: Duration::ZERO,
            calls: Vec::new(),
            changes: 0,
            last_change_at: Duration::ZERO,
            apps: Vec::new(),
            ax_health: AxHealth::Ok,
            ax_missing_app: None,
            ocr_available: true,
            ax_read_time: Duration::ZERO,
            ax_misses: 0,
            ax_misses_in: 0,
            ax_partial_misses: 0,
            text_cache: VecDeque::new(),
            blocked: Vec::new(),
            typing_faults: VecDeque::new(),
            alternate_faults: VecDeque::new(),
            shell_files: None,
            monitors: None,
            wall_anchor: None,
        }
    }

    /// From now on, real time that passes is added to virtual time whenever the clock is read, on top
    /// of the instant jumps waits make. A server on the simulated desktop is spoken to by a real
    /// client that idles in real time; budgets measured per time window must clear for it.
    pub fn follow_wall_clock(&mut self) {
        self.wall_anchor.get_or_insert_with(std::time::Instant::now);
    }

    /// Virtual time, after adding the real time passed since the last reading when following the
    /// wall clock. Reactions falling due in that time are applied.
    pub fn clock_now(&mut self) -> Duration {
        if let Some(anchor) = self.wall_anchor {
            let wall = std::time::Instant::now();
            self.wall_anchor = Some(wall);
            self.advance_by(wall.saturating_duration_since(anchor));
        }
        self.now
    }

    /// Records a visible change at the current time.
    fn changed(&mut self) {
        self.changes += 1;
        self.last_change_at = self.now;
    }

    // ---- lookups ----

    pub fn window(&self, id: WindowId) -> Option<&WindowData> {
        self.state.windows.get(id.0)
    }

    fn window_mut(&mut self, id: WindowId) -> Option<&mut WindowData> {
        self.state.windows.get_mut(id.0)
    }

    pub fn widget(&self, id: WidgetId) -> Option<&WidgetData> {
        self.state.widgets.get(id.0)
    }

    fn widget_mut(&mut self, id: WidgetId) -> Option<&mut WidgetData> {
        self.state.widgets.get_mut(id.0)
    }

    /// Visible and in an open window.
    pub fn is_shown(&self, id: WidgetId) -> bool {
        self.widget(id).is_some_and(|d| d.w.visible && self.window(d.window).is_some_and(|w| w.open))
    }

    /// Open windows, bottom to top.
    pub fn open_windows(&self) -> impl DoubleEndedIterator<Item = &WindowData> + '_ {
        self.state.stack.iter().filter_map(|id| self.window(*id))
    }

    /// The topmost window that is not a popup: the one keyboard input goes to.
    pub fn front_window(&self) -> Option<WindowId> {
        self.open_windows().rev().find(|w| w.kind != WindowKind::Popup).map(|w| w.id)
    }

    /// The widget keyboard input goes to.
    pub fn focused(&self) -> Option<WidgetId> {
        let focus = self.window(self.front_window()?)?.focus?;
        (self.is_shown(focus) && self.widget(focus).is_some_and(|d| d.w.enabled)).then_some(focus)
    }

    pub fn frontmost_info(&self) -> Option<WindowInfo> {
        let w = self.window(self.front_window()?)?;
        Some(WindowInfo {
            app: w.app.clone(),
            class: w.class.clone(),
            title: w.title.clone(),
            pid: Some(w.pid),
            bounds: w.bounds,
        })
    }

    /// Open windows bottom to top as the platform reports them; window handles are `WindowId + 1`.
    pub fn stacked(&self) -> Vec<StackedWindow> {
        let front = self.front_window();
        self.open_windows()
            .map(|w| StackedWindow {
                handle: w.id.0 as u64 + 1,
                info: WindowInfo {
                    app: w.app.clone(),
                    class: w.class.clone(),
                    title: w.title.clone(),
                    pid: Some(w.pid),
                    bounds: w.bounds,
                },
                kind: match w.kind {
                    WindowKind::Normal => PlatformWindowKind::Normal,
                    WindowKind::Dialog => PlatformWindowKind::Dialog,
                    WindowKind::Popup => PlatformWindowKind::Popup,
                },
                minimized: false,
                active: Some(w.id) == front,
            })
            .collect()
    }

    /// Raises the open window with `handle` (see [`World::stacked`]).
    pub fn activate_window(&mut self, handle: u64) -> Result<(), PlatformError> {
        let id = handle
            .checked_sub(1)
            .and_then(|i| usize::try_from(i).ok())
            .map(WindowId)
            .filter(|id| self.window(*id).is_some_and(|w| w.open))
            .ok_or_else(|| PlatformError::NotFound(format!("window {handle:#x} does not exist")))?;
        self.raise(id);
        Ok(())
    }

    fn top_window_at(&self, p: Point) -> Option<WindowId> {
        self.open_windows().rev().find(|w| w.bounds.contains(p)).map(|w| w.id)
    }

    /// The topmost shown widget of `win` under `p`, skipping `except`.
    fn widget_at(&self, win: WindowId, p: Point, except: Option<WidgetId>) -> Option<WidgetId> {
        let w = self.window(win)?;
        if !w.content().contains(p) {
            return None;
        }
        w.widgets
            .iter()
            .rev()
            .copied()
            .filter(|id| Some(*id) != except && self.is_shown(*id))
            .find(|id| self.widget(*id).is_some_and(|d| d.bounds().contains(p)))
    }

    fn hit(&self, p: Point) -> Option<(WindowId, Option<WidgetId>)> {
        let win = self.top_window_at(p)?;
        Some((win, self.widget_at(win, p, None)))
    }

    /// A widget by key or label (keys first), preferring `source`, then open windows front to back,
    /// then anything (a closed window's widgets still answer).
    fn resolve(&self, target: &WidgetRef, source: Option<WindowId>) -> Option<WidgetId> {
        let key = match target {
            WidgetRef::Id(id) => return self.widget(*id).map(|d| d.id),
            WidgetRef::Key(key) => key,
        };
        let mut order: Vec<WindowId> = source.into_iter().collect();
        order.extend(self.state.stack.iter().rev().copied());
        order.extend(self.state.windows.iter().map(|w| w.id));
        for by_key in [true, false] {
            for win in &order {
                let Some(w) = self.window(*win) else { continue };
                let found = w.widgets.iter().copied().find(|id| {
                    self.widget(*id).is_some_and(|d| {
                        if by_key {
                            d.w.key.as_deref() == Some(key.as_str())
                        } else {
                            d.w.label == *key
                        }
                    })
                });
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }

    pub fn find(&self, key_or_label: &str) -> Option<WidgetId> {
        self.resolve(&WidgetRef::Key(key_or_label.to_string()), None)
    }

    fn resolve_window(&self, target: WindowRef, source: Option<WindowId>) -> Option<WindowId> {
        match target {
            WindowRef::Id(id) => self.window(id).map(|w| w.id),
            WindowRef::This => source,
        }
    }

    /// Spinners on screen now.
    pub fn shown_spinners(&self) -> Vec<WidgetId> {
        self.state
            .widgets
            .iter()
            .filter(|d| d.kind() == WidgetKind::Spinner && self.is_shown(d.id))
            .map(|d| d.id)
            .collect()
    }

    /// True while a spinner not in `ignored` is on screen (its pixels keep changing).
    pub fn animating(&self, ignored: &[WidgetId]) -> bool {
        self.shown_spinners().iter().any(|id| !ignored.contains(id))
    }

    // ---- building ----

    fn default_window_bounds(&self) -> Rect {
        let n = self.state.stack.len() as u32;
        let w = 640.min(self.screen.width);
        let h = 480.min(self.screen.height);
        let x = (80 + 24 * n).min(self.screen.width - w);
        let y = (60 + 24 * n).min(self.screen.height - h);
        Rect::new(x as i32, y as i32, w, h)
    }

    /// Opens a window at the front.
    pub fn open_window(&mut self, spec: WindowSpec) -> WindowId {
        let id = WindowId(self.state.windows.len());
        let bounds = spec.bounds.unwrap_or_else(|| self.default_window_bounds());
        self.state.windows.push(WindowData {
            id,
            class: spec.class.unwrap_or_else(|| spec.app.clone()),
            app: spec.app,
            title: spec.title,
            kind: spec.kind,
            bounds,
            open: true,
            widgets: Vec::new(),
            focus: None,
            shortcuts: spec.shortcuts,
            pid: 1000 + id.0 as u32,
            layout_y: 0,
        });
        self.state.stack.push(id);
        for widget in spec.widgets {
            self.add_widget(id, widget);
        }
        self.changed();
        id
    }

    pub fn add_widget(&mut self, window: WindowId, mut widget: Widget) -> Option<WidgetId> {
        let id = WidgetId(self.state.widgets.len());
        let win = self.state.windows.get_mut(window.0)?;
        if widget.bounds.is_none() {
            let size = natural_size(&widget);
            let c = win.content();
            widget.bounds = Some(Rect::new(c.x + 11, c.y + 8 + win.layout_y as i32, size.width, size.height));
            win.layout_y += size.height + 8;
        }
        win.widgets.push(id);
        if widget.initial_focus {
            win.focus = Some(id);
        }
        let on_screen = win.open && widget.visible;
        self.state.widgets.push(WidgetData {
            id,
            window,
            w: widget,
            offset: 0,
            selected_row: None,
            select_all: false,
            caret_back: 0,
        });
        if on_screen {
            self.changed();
        }
        Some(id)
    }

    pub fn register_app(&mut self, name: String, spec: WindowSpec, delay: Duration) {
        self.apps.retain(|a| a.name != name);
        self.apps.push(App { name, spec, delay });
    }

    pub fn close_window(&mut self, id: WindowId) {
        let Some(w) = self.window_mut(id) else { return };
        if !w.open {
            return;
        }
        w.open = false;
        self.state.stack.retain(|s| *s != id);
        if self.state.hovered.is_some_and(|h| self.widget(h).is_some_and(|d| d.window == id)) {
            self.state.hovered = None;
        }
        self.changed();
    }

    pub fn raise(&mut self, id: WindowId) {
        if self.state.stack.last() == Some(&id) {
            return;
        }
        if let Some(pos) = self.state.stack.iter().position(|s| *s == id) {
            self.state.stack.remove(pos);
            self.state.stack.push(id);
            self.changed();
        }
    }

    // ---- time and reactions ----

    pub fn schedule(&mut self, delay: Duration, action: Action, source: Option<WindowId>) {
        let seq = self.state.next_seq;
        self.state.next_seq += 1;
        self.state.pending.push(Pending { due: self.now + delay, seq, action, source });
    }

    /// Triggers `reactions` from a widget of `source`; immediate ones apply before this returns.
    fn run_hooks(&mut self, reactions: Vec<Reaction>, source: WindowId) {
        for r in reactions {
            self.schedule(r.delay, r.action, Some(source));
        }
        self.advance_to(self.now);
    }

    pub fn next_due(&self) -> Option<Duration> {
        self.state.pending.iter().map(|p| p.due).min()
    }

    /// Moves time forward to `t`, applying every reaction due by then in (due, sequence) order.
    pub fn advance_to(&mut self, t: Duration) {
        loop {
            let next = self
                .state
                .pending
                .iter()
                .enumerate()
                .filter(|(_, p)| p.due <= t)
                .min_by_key(|(_, p)| (p.due, p.seq))
                .map(|(i, _)| i);
            let Some(i) = next else { break };
            let p = self.state.pending.remove(i);
            self.now = self.now.max(p.due);
            self.apply(&p.action, p.source);
        }
        self.now = self.now.max(t);
    }

    pub fn advance_by(&mut self, d: Duration) {
        self.advance_to(self.now + d);
    }

    /// Applies one action now. `source` is the window whose widget triggered it.
    pub fn apply(&mut self, action: &Action, source: Option<WindowId>) {
        match action {
            Action::Nothing => {}
            Action::BlockRequest(b) => self.blocked.push(b.clone()),
            Action::SetLabel(t, s) => self.edit(t, source, |d| replace(&mut d.w.label, s.clone())),
            Action::SetValue(t, s) => self.edit(t, source, |d| {
                let was_selected = std::mem::take(&mut d.select_all);
                d.caret_back = 0;
                replace(&mut d.w.value, s.clone()) || was_selected
            }),
            Action::Show(t) => self.set_visible(t, source, true),
            Action::Hide(t) => self.set_visible(t, source, false),
            Action::SetEnabled(t, on) => self.edit(t, source, |d| replace(&mut d.w.enabled, *on)),
            Action::ToggleChecked(t) => self.edit(t, source, |d| {
                d.w.checked = !d.w.checked;
                true
            }),
            Action::MoveWidget(t, r) => self.edit(t, source, |d| replace(&mut d.w.bounds, Some(*r))),
            Action::Focus(t) => {
                if let Some(id) = self.resolve(t, source) {
                    self.focus_widget(id);
                }
            }
            Action::OpenWindow(spec) => {
                self.open_window((**spec).clone());
            }
            Action::CloseWindow(r) => {
                if let Some(win) = self.resolve_window(*r, source) {
                    self.close_window(win);
                }
            }
            Action::SetTitle(r, title) => {
                let Some(win) = self.resolve_window(*r, source) else {
                    return;
                };
                let Some(w) = self.window_mut(win) else {
                    return;
                };
                if replace(&mut w.title, title.clone()) && w.open {
                    self.changed();
                }
            }
        }
    }

    fn edit(&mut self, target: &WidgetRef, source: Option<WindowId>, f: impl FnOnce(&mut WidgetData) -> bool) {
        if let Some(id) = self.resolve(target, source) {
            self.edit_id(id, f);
        }
    }

    /// Edits a widget; a screen change only when `f` changed something and the widget is on screen.
    fn edit_id(&mut self, id: WidgetId, f: impl FnOnce(&mut WidgetData) -> bool) {
        let Some(d) = self.widget_mut(id) else { return };
        if f(d) && self.is_shown(id) {
            self.changed();
        }
    }

    fn set_visible(&mut self, target: &WidgetRef, source: Option<WindowId>, on: bool) {
        let Some(id) = self.resolve(target, source) else {
            return;
        };
        let Some(d) = self.widget_mut(id) else { return };
        if !replace(&mut d.w.visible, on) {
            return;
        }
        let win = d.window;
        if !on && self.state.hovered == Some(id) {
            self.state.hovered = None;
        }
        if self.window(win).is_some_and(|w| w.open) {
            self.changed();
        }
    }

    fn focus_widget(&mut self, id: WidgetId) {
        let Some(win) = self.widget(id).map(|d| d.window) else {
            return;
        };
        let Some(w) = self.window_mut(win) else {
            return;
        };
        if replace(&mut w.focus, Some(id)) && w.open {
            self.changed();
        }
    }

    // ---- input ----

    /// Input coordinates must be on the screen.
    pub fn check_point(&self, p: Point) -> Result<(), PlatformError> {
        if Rect::from_size(self.screen).contains(p) {
            Ok(())
        } else {
            Err(PlatformError::Invalid(format!("point {},{} is outside the {} screen", p.x, p.y, self.screen)))
        }
    }

    /// Moves the pointer; arriving over a widget runs its hover reactions.
    pub fn move_pointer(&mut self, to: Point) {
        self.state.pointer = to;
        let target = self.hit(to).and_then(|(_, w)| w);
        if target == self.state.hovered {
            return;
        }
        self.state.hovered = target;
        let Some(d) = target.and_then(|id| self.widget(id)) else {
            return;
        };
        if d.w.enabled && !d.w.hooks.hover.is_empty() {
            let (hooks, win) = (d.w.hooks.hover.clone(), d.window);
            self.run_hooks(hooks, win);
        }
    }

    /// Closes open popups other than `keep`; true when any closed (the click that did it is spent).
    fn dismiss_popups(&mut self, keep: Option<WindowId>) -> bool {
        let popups: Vec<WindowId> =
            self.open_windows().filter(|w| w.kind == WindowKind::Popup && Some(w.id) != keep).map(|w| w.id).collect();
        for p in &popups {
            self.close_window(*p);
        }
        !popups.is_empty()
    }

    pub fn click(&mut self, at: Point, button: MouseButton, count: u8) {
        self.move_pointer(at);
        let target = self.top_window_at(at);
        if self.dismiss_popups(target) {
            return;
        }
        let Some(win) = target else { return };
        self.raise(win);
        let Some(id) = self.widget_at(win, at, None) else {
            return;
        };
        let Some(d) = self.widget(id) else { return };
        if !d.w.enabled {
            return;
        }
        let (kind, bounds, offset) = (d.kind(), d.bounds(), d.offset);
        let (focusable, focus_on_click) = (d.w.focusable, d.w.focus_on_click);
        match button {
            MouseButton::Left => {
                // By default only entries and lists take focus from the mouse (see
                // `Widget::focus_on_click`), so a click on a button wired to nothing changes nothing.
                if focusable && focus_on_click {
                    self.focus_widget(id);
                }
                if kind.is_entry() {
                    // A triple click selects the whole text, so typing next replaces it.
                    self.edit_id(id, |d| replace(&mut d.select_all, count >= 3 && !d.w.value.is_empty()));
                } else if kind == WidgetKind::List {
                    let row = offset + ((at.y - bounds.y).max(0) as u32 / ROW_H) as usize;
                    self.edit_id(id, |d| row < d.w.items.len() && replace(&mut d.selected_row, Some(row)));
                }
                self.activate(id, count);
            }
            MouseButton::Right => {
                let hooks = self.widget(id).map(|d| d.w.hooks.right_click.clone()).unwrap_or_default();
                self.run_hooks(hooks, win);
            }
            MouseButton::Middle => {}
        }
    }

    /// What a click (or Return/Space) does to a widget besides focusing it.
    fn activate(&mut self, id: WidgetId, count: u8) {
        let Some(d) = self.widget(id) else { return };
        let (win, kind) = (d.window, d.kind());
        let mut hooks = d.w.hooks.click.clone();
        if count >= 2 {
            hooks.extend(d.w.hooks.double_click.iter().cloned());
        }
        match kind {
            WidgetKind::Checkbox => self.edit_id(id, |d| {
                d.w.checked = !d.w.checked;
                true
            }),
            WidgetKind::Tab | WidgetKind::ListItem => self.select_exclusive(id),
            _ => {}
        }
        self.run_hooks(hooks, win);
        if kind == WidgetKind::MenuItem && self.window(win).is_some_and(|w| w.kind == WindowKind::Popup) {
            self.close_window(win);
        }
    }

    /// Selects `id` and deselects its siblings of the same kind (tabs of a tab bar, items of a list).
    fn select_exclusive(&mut self, id: WidgetId) {
        let Some(d) = self.widget(id) else { return };
        let (kind, win) = (d.kind(), d.window);
        let siblings: Vec<WidgetId> = self.window(win).map(|w| w.widgets.clone()).unwrap_or_default();
        for s in siblings {
            if self.widget(s).is_some_and(|d| d.kind() == kind) {
                self.edit_id(s, |d| replace(&mut d.w.selected, s == id));
            }
        }
    }

    pub fn drag(&mut self, from: Point, to: Point) {
        self.move_pointer(from);
        let target = self.top_window_at(from);
        if self.dismiss_popups(target) {
            self.move_pointer(to);
            return;
        }
        let source = target.and_then(|win| {
            self.raise(win);
            self.widget_at(win, from, None)
        });
        let dragged = source.filter(|id| self.widget(*id).is_some_and(|d| d.w.draggable && d.w.enabled));
        if let Some(id) = dragged {
            self.edit_id(id, |d| {
                let b = d.bounds();
                let moved = Rect::new(to.x - (b.width / 2) as i32, to.y - (b.height / 2) as i32, b.width, b.height);
                replace(&mut d.w.bounds, Some(moved))
            });
            let drop_target = self.top_window_at(to).and_then(|win| Some((win, self.widget_at(win, to, Some(id))?)));
            if let Some((win, on)) = drop_target {
                let hooks = self.widget(on).map(|d| d.w.hooks.drop.clone()).unwrap_or_default();
                self.run_hooks(hooks, win);
            }
        }
        self.move_pointer(to);
    }

    pub fn scroll(&mut self, at: Option<Point>, direction: ScrollDirection, notches: u32) {
        if let Some(p) = at {
            self.move_pointer(p);
        }
        let Some((_, Some(id))) = self.hit(self.state.pointer) else {
            return;
        };
        self.edit_id(id, |d| {
            if d.kind() != WidgetKind::List || !d.w.enabled {
                return false;
            }
            let max = d.w.items.len().saturating_sub(d.visible_rows().max(1));
            let n = notches as usize;
            let offset = match direction {
                ScrollDirection::Down => d.offset.saturating_add(n).min(max),
                ScrollDirection::Up => d.offset.saturating_sub(n).min(max),
                ScrollDirection::Left | ScrollDirection::Right => d.offset,
            };
            replace(&mut d.offset, offset)
        });
    }

    pub fn key(&mut self, combo: &KeyCombo) {
        let name = normalize_combo(&combo.to_string());
        if name == "escape" && self.escape() {
            return;
        }
        let Some(front) = self.front_window() else {
            return;
        };
        let bound: Vec<Reaction> = self
            .window(front)
            .map(|w| w.shortcuts.iter().filter(|(k, _)| *k == name).map(|(_, r)| r.clone()).collect())
            .unwrap_or_default();
        if !bound.is_empty() {
            self.run_hooks(bound, front);
            return;
        }
        if let Some(id) = self.mnemonic_target(combo, front) {
            self.activate(id, 1);
            return;
        }
        if let Some(id) = self.focused().filter(|id| self.widget(*id).is_some_and(|d| d.kind() == WidgetKind::Terminal))
        {
            return self.terminal_key(id, combo, &name);
        }
        // In a multi-line editor Return and Tab are text.
        if let Some(id) = self.focused().filter(|id| self.widget(*id).is_some_and(|d| d.kind() == WidgetKind::TextArea))
        {
            match name.as_str() {
                "return" => return self.insert_text(id, "\n"),
                "tab" => return self.insert_text(id, "\t"),
                _ => {}
            }
        }
        match name.as_str() {
            "tab" => return self.cycle_focus(front, true),
            "shift+tab" => return self.cycle_focus(front, false),
            _ => {}
        }
        let Some(id) = self.focused() else { return };
        let Some(d) = self.widget(id) else { return };
        let kind = d.kind();
        if kind.is_entry() {
            match name.as_str() {
                "return" => {
                    let hooks = d.w.hooks.submit.clone();
                    if hooks.is_empty() {
                        if let Some(default) = self.default_button(d.window) {
                            self.activate(default, 1);
                        }
                    }
                    self.run_hooks(hooks, front);
                }
                "backspace" => self.edit_id(id, |d| {
                    if std::mem::take(&mut d.select_all) {
                        d.w.value.clear();
                        true
                    } else {
                        d.w.value.pop().is_some()
                    }
                }),
                "delete" => self.edit_id(id, |d| {
                    // The caret sits at the end, so Delete only removes a selection.
                    let selected = std::mem::take(&mut d.select_all);
                    if selected {
                        d.w.value.clear();
                    }
                    selected
                }),
                "ctrl+a" => self.edit_id(id, |d| replace(&mut d.select_all, !d.w.value.is_empty())),
                "space" => self.insert_text(id, " "),
                _ => {
                    if let Some(ch) = printable(combo) {
                        self.insert_text(id, &ch);
                    }
                }
            }
            return;
        }
        if matches!(name.as_str(), "return" | "space")
            && !matches!(kind, WidgetKind::List | WidgetKind::Text | WidgetKind::Spinner)
        {
            self.activate(id, 1);
        }
    }

    /// The widget whose mnemonic `combo` presses: alt+letter (shift ignored) in the front window, or
    /// the bare letter in the topmost popup menu.
    fn mnemonic_target(&self, combo: &KeyCombo, front: WindowId) -> Option<WidgetId> {
        let m = combo.modifiers;
        if m.ctrl || m.super_key {
            return None;
        }
        let letter = combo.key.as_char()?;
        let popup = self.open_windows().rev().find(|w| w.kind == WindowKind::Popup).map(|w| w.id);
        let win = if m.alt { popup.unwrap_or(front) } else { popup? };
        let w = self.window(win)?;
        w.widgets
            .iter()
            .copied()
            .find(|id| self.widget(*id).is_some_and(|d| d.w.mnemonic == Some(letter) && d.w.enabled && d.w.visible))
    }

    fn default_button(&self, win: WindowId) -> Option<WidgetId> {
        let w = self.window(win)?;
        w.widgets.iter().copied().find(|id| self.widget(*id).is_some_and(|d| d.w.default_button && d.w.enabled))
    }

    /// Escape closes the topmost popup, else a frontmost dialog; true when it did.
    fn escape(&mut self) -> bool {
        let popup = self.open_windows().rev().find(|w| w.kind == WindowKind::Popup).map(|w| w.id);
        let dialog = self.front_window().filter(|id| self.window(*id).is_some_and(|w| w.kind == WindowKind::Dialog));
        match popup.or(dialog) {
            Some(win) => {
                self.close_window(win);
                true
            }
            None => false,
        }
    }

    fn cycle_focus(&mut self, win: WindowId, forward: bool) {
        let Some(w) = self.window(win) else { return };
        let ring: Vec<WidgetId> = w
            .widgets
            .iter()
            .copied()
            .filter(|id| self.widget(*id).is_some_and(|d| d.w.focusable && d.w.enabled && d.w.visible))
            .collect();
        let len = ring.len();
        if len == 0 {
            return;
        }
        let current = w.focus.and_then(|f| ring.iter().position(|x| *x == f));
        let next = match (current, forward) {
            (None, true) => 0,
            (None, false) => len - 1,
            (Some(i), true) => (i + 1) % len,
            (Some(i), false) => (i + len - 1) % len,
        };
        self.focus_widget(ring[next]);
    }

    /// A key at a shell prompt, edited as readline would (emacs keys; the caret may move).
    fn terminal_key(&mut self, id: WidgetId, combo: &KeyCombo, name: &str) {
        self.edit_id(id, |d| {
            let chars: Vec<char> = d.w.value.chars().collect();
            let at = chars.len() - d.caret_back.min(chars.len());
            let (before, after) = chars.split_at(at);
            let (mut before, after): (String, String) = (before.iter().collect(), after.iter().collect());
            match name {
                "return" | "ctrl+m" | "ctrl+j" => {
                    d.w.ran.push(std::mem::take(&mut d.w.value));
                    d.caret_back = 0;
                    return true;
                }
                "ctrl+c" => {
                    d.w.value.clear();
                    d.caret_back = 0;
                    return true;
                }
                "left" | "ctrl+b" => {
                    d.caret_back = (d.caret_back + 1).min(chars.len());
                    return true;
                }
                "right" | "ctrl+f" => {
                    d.caret_back = d.caret_back.saturating_sub(1);
                    return true;
                }
                "home" | "ctrl+a" => {
                    d.caret_back = chars.len();
                    return true;
                }
                "end" | "ctrl+e" => {
                    d.caret_back = 0;
                    return true;
                }
                "delete" | "ctrl+d" if !after.is_empty() => {
                    d.w.value = before + &after.chars().skip(1).collect::<String>();
                    d.caret_back -= 1;
                    return true;
                }
                "backspace" => {
                    before.pop();
                }
                "ctrl+u" => before.clear(),
                "ctrl+w" => {
                    let kept = before.trim_end().rsplit_once(' ').map_or(0, |(head, _)| head.len() + 1);
                    before.truncate(kept);
                }
                "tab" => {
                    let start = before.rfind(' ').map_or(0, |i| i + 1);
                    let word = before[start..].to_string();
                    if let Some(full) = d.w.items.iter().find(|c| !word.is_empty() && c.starts_with(&word)) {
                        before.truncate(start);
                        before.push_str(full);
                    }
                }
                "up" => {
                    d.w.value = d.w.ran.last().cloned().unwrap_or_default();
                    d.caret_back = 0;
                    return true;
                }
                "space" => before.push(' '),
                _ => match printable(combo) {
                    Some(ch) => before.push_str(&ch),
                    None => return false,
                },
            }
            // The caret stays before what followed it.
            d.w.value = before + &after;
            true
        });
    }

    fn insert_text(&mut self, id: WidgetId, text: &str) {
        self.edit_id(id, |d| {
            if !d.w.enabled || !d.kind().is_entry() || text.is_empty() {
                return false;
            }
            if std::mem::take(&mut d.select_all) {
                d.w.value = text.to_string();
                d.caret_back = 0;
            } else {
                // At the caret (a terminal's may have moved; everywhere else it is at the end).
                let chars: Vec<char> = d.w.value.chars().collect();
                let at = chars.len() - d.caret_back.min(chars.len());
                d.w.value =
                    chars[..at].iter().copied().chain(text.chars()).chain(chars[at..].iter().copied()).collect();
            }
            true
        });
    }

    /// Types as a keyboard would: text goes into a focused entry; a Tab moves focus, a newline is
    /// Return, and on anything else each character is a key press (a space activates a focused button,
    /// a letter may be a menu's mnemonic).
    pub fn type_text(&mut self, text: &str) {
        let mut run = String::new();
        for c in text.chars() {
            let in_entry = self.focused().and_then(|id| self.widget(id)).is_some_and(|d| d.kind().is_entry());
            let key = match c {
                '\t' => Some(Key::Tab),
                '\n' | '\r' => Some(Key::Return),
                ' ' if !in_entry => Some(Key::Space),
                _ if !in_entry => Some(Key::Char(c)),
                _ => None,
            };
            match key {
                None => run.push(c),
                Some(key) => {
                    self.flush_typed(&mut run);
                    self.key(&KeyCombo::plain(key));
                }
            }
        }
        self.flush_typed(&mut run);
    }

    fn flush_typed(&mut self, run: &mut String) {
        if let Some(id) = self.focused().filter(|_| !run.is_empty()) {
            self.insert_text(id, run);
        }
        run.clear();
    }

    // ---- applications ----

    pub fn launch_app(&mut self, name: &str) -> Result<Launched, PlatformError> {
        let wanted = name.trim().to_lowercase();
        let Some(app) = self.apps.iter().find(|a| a.name.to_lowercase() == wanted) else {
            return Err(PlatformError::NotFound(self.not_found_message(name.trim())));
        };
        let (found, spec, delay) = (app.name.clone(), app.spec.clone(), app.delay);
        // Like most desktop apps, a second launch raises the running instance.
        let running =
            self.open_windows().rev().find(|w| w.app == spec.app && w.kind != WindowKind::Popup).map(|w| w.id);
        let pid = match running {
            Some(win) => {
                self.raise(win);
                self.window(win).map(|w| w.pid)
            }
            None if delay.is_zero() => {
                let win = self.open_window(spec);
                self.window(win).map(|w| w.pid)
            }
            None => {
                self.schedule(delay, Action::OpenWindow(Box::new(spec)), None);
                None
            }
        };
        Ok(Launched { app: found, pid })
    }

    fn not_found_message(&self, wanted: &str) -> String {
        let w = wanted.to_lowercase();
        let close: Vec<&str> = self
            .apps
            .iter()
            .filter(|a| {
                let n = a.name.to_lowercase();
                let limit = (n.chars().count().max(w.chars().count()) / 3).max(2);
                !w.is_empty() && (n.contains(&w) || w.contains(&n) || edit_distance(&n, &w) <= limit)
            })
            .map(|a| a.name.as_str())
            .collect();
        if close.is_empty() {
            format!("no application named {wanted:?} (no close matches)")
        } else {
            format!("no application named {wanted:?}; close matches: {}", close.join(", "))
        }
    }

    /// Shows `url` in the browser window, opening one the first time.
    pub fn open_url(&mut self, url: &str) -> Launched {
        self.state.opened_urls.push(url.to_string());
        let title = format!("{url} - {BROWSER}");
        let existing =
            self.open_windows().rev().find(|w| w.app == BROWSER && w.kind != WindowKind::Popup).map(|w| w.id);
        let win = match existing {
            Some(win) => {
                self.apply(&Action::SetTitle(WindowRef::Id(win), title), None);
                let address = self.resolve(&WidgetRef::Key("address".into()), Some(win));
                if let Some(address) = address.filter(|a| self.widget(*a).is_some_and(|d| d.window == win)) {
                    self.apply(&Action::SetValue(WidgetRef::Id(address), url.to_string()), None);
                }
                self.raise(win);
                win
            }
            None => {
                let screen = Rect::from_size(self.screen);
                let spec = WindowSpec::new(BROWSER, title).bounds(screen).widget(
                    Widget::entry("Address").key("address").value(url).at(
                        8,
                        TITLE_H as i32 + 6,
                        screen.width.saturating_sub(16),
                        24,
                    ),
                );
                self.open_window(spec)
            }
        };
        Launched { app: BROWSER.to_string(), pid: self.window(win).map(|w| w.pid) }
    }

    // ---- OCR memory ----

    /// Keeps the screen's text as of a capture, so OCR of that frame reads what it showed even after the
    /// world moved on (the engine may OCR a "before" frame after acting).
    pub fn remember_text(&mut self, key: u64, lines: Vec<(String, Rect)>) {
        self.text_cache.retain(|c| c.key != key);
        self.text_cache.push_back(CachedText { key, lines });
        while self.text_cache.len() > TEXT_CACHE {
            self.text_cache.pop_front();
        }
    }

    pub fn remembered_text(&self, key: u64) -> Option<Vec<(String, Rect)>> {
        self.text_cache.iter().find(|c| c.key == key).map(|c| c.lines.clone())
    }
}

/// The character a plain (or shifted) key types, if any.
fn printable(combo: &KeyCombo) -> Option<String> {
    let m = combo.modifiers;
    if m.ctrl || m.alt || m.super_key {
        return None;
    }
    let ch = combo.key.as_char()?;
    Some(if m.shift { ch.to_uppercase().collect() } else { ch.to_string() })
}

/// Size for a widget laid out automatically: enough for its text.
fn natural_size(w: &Widget) -> Size {
    let text = crate::layout::GLYPH_ADVANCE * w.label.chars().count() as u32;
    match w.kind {
        WidgetKind::Entry | WidgetKind::PasswordEntry => Size::new(200, 24),
        WidgetKind::TextArea => Size::new(300, 96),
        WidgetKind::Spinner => Size::new(24, 24),
        WidgetKind::List => Size::new(200, ROW_H * w.items.len().clamp(1, 6) as u32),
        WidgetKind::Checkbox => Size::new(text + 28, 24),
        WidgetKind::Text | WidgetKind::Link => Size::new(text + 12, 20),
        _ => Size::new((text + 12).max(64), 24),
    }
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
