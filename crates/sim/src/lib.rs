//! A simulated desktop implementing every handrail platform trait, for fast deterministic engine tests.
//!
//! A [`SimDesktop`] holds a world of windows and widgets behind one lock; [`SimDesktop::desktop`] hands
//! the engine boxed trait objects that all share it, while the test keeps the `SimDesktop` to build the
//! scene, poke it and check what happened.
//!
//! * **Virtual time.** [`Clock::now`](handrail_platform::Clock::now) reads a clock that moves only in
//!   settle waits, by 10 ms per input event, and through [`SimDesktop::advance`]. Nothing sleeps.
//! * **Pixels.** Captures are real BGRX frames: flat rectangles, and text drawn as a block pattern per
//!   character, so any label or value change changes pixels. Password values are drawn as bullets.
//! * **Accessibility and OCR** report the same world (OCR of a frame this sim captured reads the screen
//!   as it was at capture time). Secure fields never carry a value in either.
//! * **Input** behaves like a toolkit: a click raises its window, focuses entries and lists (others
//!   are reached by Tab; see [`Widget::focus_on_click`]), toggles checkboxes, selects tabs and list
//!   items, and runs the widget's reactions; typing goes to the focused entry; Tab, Shift+Tab, Return,
//!   Space, Backspace, Ctrl+A and Escape do what they usually do; window shortcuts come first. Points
//!   off the screen are `PlatformError::Invalid`.
//! * **Hooks** for assertions: a log of every trait call ([`SimDesktop::calls`]), a count of side
//!   effects, and a [`fingerprint`](SimDesktop::fingerprint) of the whole world to prove a refusal
//!   changed nothing.
//!
//! ```
//! use std::time::Duration;
//! use handrail_platform::{MouseButton, Rect, SettleRequest, Size};
//! use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};
//!
//! let sim = SimDesktop::new(Size::new(1280, 800));
//! let win = sim.add_window(WindowSpec::new("Mousepad", "Untitled 1").bounds(Rect::new(100, 100, 600, 400)));
//! let status = sim.add_widget(win, Widget::text("Ready").at(110, 140, 120, 20));
//! let save = sim.add_widget(
//!     win,
//!     Widget::button("Save").at(110, 170, 64, 24).on_click(Reaction::set_label(status, "Saved").after(Duration::from_millis(200))),
//! );
//!
//! let desktop = sim.desktop();
//! let mut watch = desktop.settle.watch().unwrap();
//! desktop.input.click(sim.widget(save).bounds.center(), MouseButton::Left, 1).unwrap();
//! let report = watch.wait(&SettleRequest::default()).unwrap();
//! assert!(report.saw_change && report.settled);
//! assert_eq!(sim.widget(status).label, "Saved");
//! ```

mod ax;
mod backend;
mod layout;
mod render;
mod spec;
mod world;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handrail_platform::{AxHealth, Desktop, MouseButton, Point, Rect, ScrollDirection, SettleRequest, Size};

pub use render::PgmEncoder;
pub use spec::{
    Action, Reaction, Widget, WidgetId, WidgetKind, WidgetRef, WindowId, WindowKind, WindowRef, WindowSpec,
};
pub use world::TypingFault;

use backend::{
    Shared, SimAccessibility, SimClock, SimEncoder, SimInput, SimNetwork, SimOcr, SimScreen, SimSettle, SimShellFiles,
    SimWindows,
};
use world::World;

/// One call the engine made through a platform trait, in order. `Clock::now` is not logged (it is
/// called constantly and changes nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimCall {
    ScreenSize,
    Monitors,
    Capture {
        area: Option<Rect>,
        max_size: Option<Size>,
    },
    MovePointer(Point),
    Click {
        at: Point,
        button: MouseButton,
        count: u8,
    },
    Drag {
        from: Point,
        to: Point,
    },
    Scroll {
        at: Option<Point>,
        direction: ScrollDirection,
        notches: u32,
    },
    /// The combination as `KeyCombo` displays it, e.g. `"ctrl+s"`.
    Key(String),
    TypeText(String),
    /// Text typed the other way than the preferred one (a second attempt).
    TypeTextAlternate(String),
    Frontmost,
    Stack,
    /// A window raised by its handle.
    Activate(u64),
    LaunchApp(String),
    OpenUrl(String),
    AxSnapshot,
    /// The engine said the layout may have moved (see `Accessibility::layout_may_have_moved`).
    AxLayoutMayHaveMoved,
    Ocr {
        region: Option<Rect>,
    },
    Encode,
    Watch,
    Wait(SettleRequest),
    WaitForChange(Duration),
    /// Whether paths exist, asked for a terminal's shell.
    FileStates {
        terminal_pid: u32,
        paths: Vec<String>,
    },
}

impl SimCall {
    /// Input, app launches and URL opens: the calls that can change a real desktop.
    pub fn is_side_effect(&self) -> bool {
        matches!(
            self,
            SimCall::MovePointer(_)
                | SimCall::Click { .. }
                | SimCall::Drag { .. }
                | SimCall::Scroll { .. }
                | SimCall::Key(_)
                | SimCall::TypeText(_)
                | SimCall::TypeTextAlternate(_)
                | SimCall::LaunchApp(_)
                | SimCall::OpenUrl(_)
        )
    }
}

/// A widget as it is now, for assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidgetState {
    pub id: WidgetId,
    pub window: WindowId,
    pub kind: WidgetKind,
    pub label: String,
    /// Entries' text (password entries included: the sim knows what a person typed).
    pub value: String,
    pub checked: bool,
    pub enabled: bool,
    /// Visible and in an open window.
    pub shown: bool,
    /// Holds keyboard focus (in the frontmost window).
    pub focused: bool,
    pub selected: bool,
    /// An entry's whole text is selected (typing replaces it).
    pub select_all: bool,
    pub bounds: Rect,
    pub key: Option<String>,
    pub items: Vec<String>,
    /// A terminal's lines run, oldest first.
    pub ran: Vec<String>,
    /// First visible item of a list.
    pub offset: usize,
    pub selected_row: Option<usize>,
}

/// A window as it is now, for assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    pub id: WindowId,
    pub app: String,
    pub title: String,
    pub kind: WindowKind,
    pub bounds: Rect,
    pub open: bool,
    /// The window keyboard input goes to (popups never are).
    pub frontmost: bool,
    pub pid: u32,
}

/// The simulated desktop. Cheap to clone; clones share one world.
#[derive(Clone)]
pub struct SimDesktop {
    shared: Shared,
}

impl std::fmt::Debug for SimDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let w = self.shared.lock();
        f.debug_struct("SimDesktop")
            .field("screen", &w.screen)
            .field("now", &w.now)
            .field("windows", &w.state.stack.len())
            .finish_non_exhaustive()
    }
}

impl SimDesktop {
    /// An empty desktop (no windows) of `screen` pixels at virtual time zero.
    pub fn new(screen: Size) -> Self {
        Self { shared: Shared(Arc::new(Mutex::new(World::new(screen)))) }
    }

    /// Trait objects over this world, for the engine. The encoder is a full-size [`PgmEncoder`];
    /// replace `desktop.encoder` for another format.
    pub fn desktop(&self) -> Desktop {
        let s = &self.shared;
        Desktop {
            screen: Box::new(SimScreen(s.clone())),
            input: Box::new(SimInput(s.clone())),
            windows: Box::new(SimWindows(s.clone())),
            settle: Box::new(SimSettle(s.clone())),
            accessibility: Box::new(SimAccessibility(s.clone())),
            ocr: Box::new(SimOcr(s.clone())),
            encoder: Box::new(SimEncoder { shared: s.clone(), inner: PgmEncoder::new() }),
            clock: Box::new(SimClock(s.clone())),
            network: Box::new(SimNetwork(s.clone())),
            files: Box::new(SimShellFiles(s.clone())),
            // The simulated desktop plays a Linux desktop.
            rules: handrail_platform::OsRules::linux(),
        }
    }

    pub fn screen_size(&self) -> Size {
        self.shared.lock().screen
    }

    // ---- building the scene ----

    /// Opens a window at the front, with the spec's widgets.
    pub fn add_window(&self, spec: WindowSpec) -> WindowId {
        self.shared.lock().open_window(spec)
    }

    /// Adds a widget on top of `window`'s others.
    ///
    /// # Panics
    /// When `window` is not from this desktop.
    pub fn add_widget(&self, window: WindowId, widget: Widget) -> WidgetId {
        match self.shared.lock().add_widget(window, widget) {
            Some(id) => id,
            None => panic!("{window} is not a window of this SimDesktop"),
        }
    }

    /// `window`'s widgets in the order they were added (dialogs opened by reactions included).
    pub fn widgets_of(&self, window: WindowId) -> Vec<WidgetId> {
        self.shared.lock().window(window).map(|w| w.widgets.clone()).unwrap_or_default()
    }

    /// A widget by [`Widget::key`], else by label; open windows front to back, then closed ones.
    pub fn find(&self, key_or_label: &str) -> Option<WidgetId> {
        self.shared.lock().find(key_or_label)
    }

    /// The frontmost open window whose title contains `title_part`.
    pub fn find_window(&self, title_part: &str) -> Option<WindowId> {
        let w = self.shared.lock();
        let found = w.open_windows().rev().find(|win| win.title.contains(title_part)).map(|win| win.id);
        found
    }

    /// Makes `name` launchable by `Windows::launch_app` (case-insensitively); launching opens `spec`, or
    /// raises its window when one of the same app is already open.
    pub fn register_app(&self, name: impl Into<String>, spec: WindowSpec) {
        self.shared.lock().register_app(name.into(), spec, Duration::ZERO);
    }

    /// Like [`register_app`](Self::register_app), but the window appears `delay` after the launch (and
    /// `Launched::pid` is `None`).
    pub fn register_app_delayed(&self, name: impl Into<String>, spec: WindowSpec, delay: Duration) {
        self.shared.lock().register_app(name.into(), spec, delay);
    }

    /// Runs `reaction` `after` (plus its own delay) from now; at once when both are zero. Such reactions
    /// have no source window, so [`WindowRef::This`] does nothing.
    pub fn schedule(&self, after: Duration, reaction: Reaction) {
        let mut w = self.shared.lock();
        w.schedule(after + reaction.delay, reaction.action, None);
        let now = w.now;
        w.advance_to(now);
    }

    /// The browser's network guard refuses a request now (`url` as it would be reported: redacted); the
    /// engine's next call reports it. See [`Reaction::block_request`] for one caused by an action.
    pub fn block_request(&self, method: impl Into<String>, url: impl Into<String>, reason: impl Into<String>) {
        self.act(Reaction::block_request(method, url, reason).action);
    }

    /// Splits the screen into these monitors (screen coordinates); until called, the whole screen is
    /// one monitor.
    pub fn set_monitors(&self, monitors: Vec<handrail_platform::Monitor>) {
        self.shared.lock().monitors = Some(monitors);
    }

    /// What terminals' shells find on disk from now on: these paths (as a command line names them) in
    /// these states, every other path [`FileState::Absent`]. Until called, every path is
    /// [`FileState::Unknown`], as on a desktop that cannot look.
    pub fn set_shell_files(&self, files: &[(&str, handrail_platform::FileState)]) {
        self.shared.lock().shell_files = Some(files.iter().map(|(p, s)| ((*p).to_string(), *s)).collect());
    }

    /// Blocked requests not yet taken by the engine.
    pub fn pending_blocked(&self) -> Vec<handrail_platform::BlockedRequest> {
        self.shared.lock().blocked.clone()
    }

    /// Lets virtual time pass, applying reactions that fall due.
    pub fn advance(&self, by: Duration) {
        self.shared.lock().advance_by(by);
    }

    /// Makes the desktop's clock also count real time: each reading adds the wall-clock time passed
    /// since the previous one (waits still jump ahead instantly). For a server that a real client
    /// talks to, where idle gaps and per-window budgets are measured in real seconds; tests that want
    /// determinism leave it off.
    pub fn follow_wall_clock(&self) -> &Self {
        self.shared.lock().follow_wall_clock();
        self
    }

    // ---- the world changing by itself (a person at the keyboard, an app updating) ----

    fn act(&self, action: Action) {
        self.shared.lock().apply(&action, None);
    }

    /// Sets a widget's value directly, as a person typing would (e.g. into a password field).
    pub fn set_value(&self, widget: WidgetId, value: impl Into<String>) {
        self.act(Action::SetValue(widget.into(), value.into()));
    }

    pub fn set_label(&self, widget: WidgetId, label: impl Into<String>) {
        self.act(Action::SetLabel(widget.into(), label.into()));
    }

    pub fn set_checked(&self, widget: WidgetId, checked: bool) {
        if self.try_widget(widget).is_some_and(|s| s.checked != checked) {
            self.act(Action::ToggleChecked(widget.into()));
        }
    }

    pub fn set_enabled(&self, widget: WidgetId, enabled: bool) {
        self.act(Action::SetEnabled(widget.into(), enabled));
    }

    pub fn set_visible(&self, widget: WidgetId, visible: bool) {
        self.act(if visible { Action::Show(widget.into()) } else { Action::Hide(widget.into()) });
    }

    /// Moves a widget (a target that moved after it was observed).
    pub fn move_widget(&self, widget: WidgetId, bounds: Rect) {
        self.act(Action::MoveWidget(widget.into(), bounds));
    }

    pub fn focus(&self, widget: WidgetId) {
        self.act(Action::Focus(widget.into()));
    }

    pub fn set_title(&self, window: WindowId, title: impl Into<String>) {
        self.act(Action::SetTitle(window.into(), title.into()));
    }

    pub fn close_window(&self, window: WindowId) {
        self.shared.lock().close_window(window);
    }

    pub fn raise_window(&self, window: WindowId) {
        self.shared.lock().raise(window);
    }

    // ---- health of the observation sources ----

    /// `Unavailable` and `PermissionRequired` give no nodes; `Partial` leaves out one app's nodes (see
    /// [`set_ax_missing_app`](Self::set_ax_missing_app); the frontmost app by default).
    pub fn set_ax_health(&self, health: AxHealth) {
        self.shared.lock().ax_health = health;
    }

    /// How much virtual time each accessibility snapshot takes (none by default). The snapshot reads
    /// the tree as it was when it began; reactions that fall due while it reads are applied after.
    pub fn set_ax_read_time(&self, read_time: Duration) {
        self.shared.lock().ax_read_time = read_time;
    }

    /// The next `count` accessibility snapshots come back `Unavailable`, then they answer again (a
    /// registry that missed its deadline on a busy machine).
    pub fn miss_next_ax_snapshots(&self, count: u32) {
        self.miss_ax_snapshots_after(0, count);
    }

    /// Like [`miss_next_ax_snapshots`](Self::miss_next_ax_snapshots), after `answered` more snapshots
    /// answered (the look after an action missing, the one before it not).
    pub fn miss_ax_snapshots_after(&self, answered: u32, count: u32) {
        let mut w = self.shared.lock();
        w.ax_misses_in = answered;
        w.ax_misses = count;
    }

    /// The next `count` accessibility snapshots come back `Partial`, without the app
    /// [`set_ax_missing_app`](Self::set_ax_missing_app) names (the frontmost by default), then whole
    /// again (one app that missed the registry's deadline on a busy machine).
    pub fn miss_app_in_next_ax_snapshots(&self, count: u32) {
        self.shared.lock().ax_partial_misses = count;
    }

    /// Which app a `Partial` snapshot leaves out (`None`: the frontmost).
    pub fn set_ax_missing_app(&self, app: Option<&str>) {
        self.shared.lock().ax_missing_app = app.map(str::to_string);
    }

    /// The next text typed the preferred way meets `fault` (faults queue up, one per text); a text
    /// typed the other way ([`TextRoute::Alternate`](handrail_platform::TextRoute)) arrives unless
    /// [`SimDesktop::fail_next_alternate_typing`] says otherwise.
    pub fn fail_next_typing(&self, fault: TypingFault) {
        self.shared.lock().typing_faults.push_back(fault);
    }

    /// The next text typed the other way (a second attempt) meets `fault`.
    pub fn fail_next_alternate_typing(&self, fault: TypingFault) {
        self.shared.lock().alternate_faults.push_back(fault);
    }

    pub fn set_ocr_available(&self, available: bool) {
        self.shared.lock().ocr_available = available;
    }

    // ---- looking ----

    /// A widget's current state, or `None` for an id from another desktop.
    pub fn try_widget(&self, id: WidgetId) -> Option<WidgetState> {
        let w = self.shared.lock();
        let d = w.widget(id)?;
        Some(WidgetState {
            id,
            window: d.window,
            kind: d.kind(),
            label: d.w.label.clone(),
            value: d.w.value.clone(),
            checked: d.w.checked,
            enabled: d.w.enabled,
            shown: w.is_shown(id),
            focused: w.focused() == Some(id),
            selected: d.w.selected,
            select_all: d.select_all,
            bounds: d.bounds(),
            key: d.w.key.clone(),
            items: d.w.items.clone(),
            ran: d.w.ran.clone(),
            offset: d.offset,
            selected_row: d.selected_row,
        })
    }

    /// A widget's current state.
    ///
    /// # Panics
    /// When `id` is not from this desktop.
    pub fn widget(&self, id: WidgetId) -> WidgetState {
        match self.try_widget(id) {
            Some(state) => state,
            None => panic!("{id} is not a widget of this SimDesktop"),
        }
    }

    pub fn try_window(&self, id: WindowId) -> Option<WindowState> {
        let w = self.shared.lock();
        let win = w.window(id)?;
        Some(WindowState {
            id,
            app: win.app.clone(),
            title: win.title.clone(),
            kind: win.kind,
            bounds: win.bounds,
            open: win.open,
            frontmost: w.front_window() == Some(id),
            pid: win.pid,
        })
    }

    /// A window's current state.
    ///
    /// # Panics
    /// When `id` is not from this desktop.
    pub fn window(&self, id: WindowId) -> WindowState {
        match self.try_window(id) {
            Some(state) => state,
            None => panic!("{id} is not a window of this SimDesktop"),
        }
    }

    /// Open windows, front first.
    pub fn windows(&self) -> Vec<WindowState> {
        let ids: Vec<WindowId> = self.shared.lock().state.stack.iter().rev().copied().collect();
        ids.into_iter().filter_map(|id| self.try_window(id)).collect()
    }

    pub fn frontmost_title(&self) -> Option<String> {
        self.shared.lock().frontmost_info().map(|i| i.title)
    }

    pub fn frontmost_app(&self) -> Option<String> {
        self.shared.lock().frontmost_info().map(|i| i.app)
    }

    /// The widget keyboard input goes to.
    pub fn focused(&self) -> Option<WidgetId> {
        self.shared.lock().focused()
    }

    pub fn pointer(&self) -> Point {
        self.shared.lock().state.pointer
    }

    /// Virtual time since the desktop was created.
    pub fn now(&self) -> Duration {
        self.shared.lock().now
    }

    /// How many visible changes the world has had (settle waits compare it).
    pub fn change_count(&self) -> u64 {
        self.shared.lock().changes
    }

    /// URLs passed to `Windows::open_url`, in order.
    pub fn opened_urls(&self) -> Vec<String> {
        self.shared.lock().state.opened_urls.clone()
    }

    // ---- the call log ----

    pub fn calls(&self) -> Vec<SimCall> {
        self.shared.lock().calls.clone()
    }

    pub fn clear_calls(&self) {
        self.shared.lock().calls.clear();
    }

    /// Input, launch and URL calls attempted so far (rejected ones included: an attempt is what a guard
    /// must prevent).
    pub fn side_effects(&self) -> usize {
        self.shared.lock().calls.iter().filter(|c| c.is_side_effect()).count()
    }

    /// A hash of everything a person could notice: windows, stacking, widgets and their values, focus,
    /// selection, pointer, pending reactions and opened URLs. Time, the call log and caches are left
    /// out, so pure reads (capture, snapshot, OCR, frontmost, settle with nothing due) never change it.
    pub fn fingerprint(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.shared.lock().state.hash(&mut h);
        h.finish()
    }
}

#[cfg(test)]
mod tests;
