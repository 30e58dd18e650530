//! The vocabulary tests build a simulated desktop from: widgets, windows and the reactions they trigger.

use std::fmt;
use std::time::Duration;

use handrail_platform::{BlockedRequest, Rect, Role};

/// A window of one [`SimDesktop`](crate::SimDesktop). Never reused, even after the window closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WindowId(pub(crate) usize);

/// A widget of one [`SimDesktop`](crate::SimDesktop). Never reused, even after its window closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WidgetId(pub(crate) usize);

impl fmt::Display for WindowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "win{}", self.0)
    }
}

impl fmt::Display for WidgetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "w{}", self.0)
    }
}

/// What a widget is; decides how it is drawn, reported to accessibility and operated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WidgetKind {
    Button,
    /// A one-line text field; its label is the accessible name and the placeholder drawn when empty.
    Entry,
    /// A text field whose value accessibility never reports and pixels show as bullets.
    PasswordEntry,
    /// A multi-line text editor (GTK's text view, say): Return starts a new line and Tab is a
    /// character in it; its text is its value, and its last line is drawn.
    TextArea,
    Checkbox,
    MenuItem,
    /// A menu title (e.g. "File" in a menu bar); give it an `on_click` that opens a popup.
    Menu,
    /// A static label.
    Text,
    Link,
    ListItem,
    Tab,
    /// An animation whose pixels change every 100 ms of virtual time, forever.
    Spinner,
    /// A scrollable list of text items, one row (24 px) each; scrolling moves one item per notch.
    List,
    /// A shell prompt (`$ ` and the line being edited) that runs lines on Return, as readline edits
    /// them: Backspace, ctrl+u, ctrl+w, ctrl+c; Tab completes the last word from the widget's items;
    /// Up recalls the last line run. Reported with the `terminal` role.
    Terminal,
}

impl WidgetKind {
    /// The accessibility role this kind is reported as.
    pub fn role(self) -> Role {
        match self {
            WidgetKind::Button => Role::Button,
            WidgetKind::Entry => Role::Entry,
            WidgetKind::PasswordEntry => Role::PasswordEntry,
            WidgetKind::TextArea => Role::TextArea,
            WidgetKind::Checkbox => Role::Checkbox,
            WidgetKind::MenuItem => Role::MenuItem,
            WidgetKind::Menu => Role::Menu,
            WidgetKind::Text => Role::Text,
            WidgetKind::Link => Role::Link,
            WidgetKind::ListItem => Role::ListItem,
            WidgetKind::Tab => Role::Tab,
            WidgetKind::Spinner => Role::Image,
            WidgetKind::List => Role::List,
            WidgetKind::Terminal => Role::Terminal,
        }
    }

    /// AT-SPI style role names, so `inspect` output looks like a real desktop's.
    pub fn native_role(self) -> &'static str {
        match self {
            WidgetKind::Button => "push button",
            WidgetKind::Entry => "text",
            WidgetKind::PasswordEntry => "password text",
            WidgetKind::TextArea => "text",
            WidgetKind::Checkbox => "check box",
            WidgetKind::MenuItem => "menu item",
            WidgetKind::Menu => "menu",
            WidgetKind::Text => "label",
            WidgetKind::Link => "link",
            WidgetKind::ListItem => "list item",
            WidgetKind::Tab => "page tab",
            WidgetKind::Spinner => "animation",
            WidgetKind::List => "list",
            WidgetKind::Terminal => "terminal",
        }
    }

    pub(crate) fn is_entry(self) -> bool {
        matches!(self, WidgetKind::Entry | WidgetKind::PasswordEntry | WidgetKind::TextArea | WidgetKind::Terminal)
    }

    fn default_focusable(self) -> bool {
        matches!(
            self,
            WidgetKind::Button
                | WidgetKind::Entry
                | WidgetKind::PasswordEntry
                | WidgetKind::TextArea
                | WidgetKind::Terminal
                | WidgetKind::Checkbox
                | WidgetKind::Link
                | WidgetKind::Tab
                | WidgetKind::List
        )
    }

    pub(crate) fn actions(self) -> &'static [&'static str] {
        match self {
            WidgetKind::Button
            | WidgetKind::Checkbox
            | WidgetKind::MenuItem
            | WidgetKind::Menu
            | WidgetKind::Link
            | WidgetKind::ListItem
            | WidgetKind::Tab => &["click"],
            WidgetKind::Entry | WidgetKind::PasswordEntry => &["activate"],
            WidgetKind::Text | WidgetKind::Spinner | WidgetKind::List | WidgetKind::Terminal | WidgetKind::TextArea => {
                &[]
            }
        }
    }
}

/// How a window behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WindowKind {
    #[default]
    Normal,
    /// Reported with role `Dialog`; Escape closes it.
    Dialog,
    /// A context or drop-down menu: no title bar, never "frontmost", closed by Escape, by a click
    /// outside it (which the click spends, as in GTK) and after one of its menu items is activated.
    Popup,
}

/// Which widget a reaction acts on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WidgetRef {
    Id(WidgetId),
    /// A widget's [`Widget::key`], else its label: looked up when the reaction runs, in the window the
    /// reaction came from first, then in open windows front to back. This is how a dialog's own widgets,
    /// which get ids only when it opens, are referred to.
    Key(String),
}

impl From<WidgetId> for WidgetRef {
    fn from(id: WidgetId) -> Self {
        WidgetRef::Id(id)
    }
}

impl From<&str> for WidgetRef {
    fn from(key: &str) -> Self {
        WidgetRef::Key(key.to_string())
    }
}

impl From<String> for WidgetRef {
    fn from(key: String) -> Self {
        WidgetRef::Key(key)
    }
}

/// Which window a reaction acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowRef {
    Id(WindowId),
    /// The window holding the widget that triggered the reaction (nothing for [`SimDesktop::schedule`](crate::SimDesktop::schedule)).
    This,
}

impl From<WindowId> for WindowRef {
    fn from(id: WindowId) -> Self {
        WindowRef::Id(id)
    }
}

/// What a reaction does to the world.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    Nothing,
    SetLabel(WidgetRef, String),
    SetValue(WidgetRef, String),
    Show(WidgetRef),
    Hide(WidgetRef),
    SetEnabled(WidgetRef, bool),
    ToggleChecked(WidgetRef),
    Focus(WidgetRef),
    /// New bounds in screen coordinates: "a target that moves".
    MoveWidget(WidgetRef, Rect),
    /// Opens a window (a dialog, a popup menu…) at the front.
    OpenWindow(Box<WindowSpec>),
    CloseWindow(WindowRef),
    SetTitle(WindowRef, String),
    /// The browser's network guard refuses a request (a link to a forbidden host, say). Nothing on the
    /// screen changes; the engine hears of it through `Desktop::network`.
    BlockRequest(BlockedRequest),
}

/// An [`Action`] with a delay: immediate by default, or `.after(d)` of virtual time, which passes only
/// in settle waits, per input event (10 ms) and through [`SimDesktop::advance`](crate::SimDesktop::advance).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reaction {
    pub action: Action,
    pub delay: Duration,
}

impl Reaction {
    pub fn new(action: Action) -> Self {
        Self { action, delay: Duration::ZERO }
    }

    /// Runs `delay` after being triggered instead of at once.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Does nothing (a button wired to nothing needs no reaction at all; this is for explicitness).
    pub fn nothing() -> Self {
        Self::new(Action::Nothing)
    }

    pub fn set_label(target: impl Into<WidgetRef>, label: impl Into<String>) -> Self {
        Self::new(Action::SetLabel(target.into(), label.into()))
    }

    pub fn set_value(target: impl Into<WidgetRef>, value: impl Into<String>) -> Self {
        Self::new(Action::SetValue(target.into(), value.into()))
    }

    pub fn show(target: impl Into<WidgetRef>) -> Self {
        Self::new(Action::Show(target.into()))
    }

    pub fn hide(target: impl Into<WidgetRef>) -> Self {
        Self::new(Action::Hide(target.into()))
    }

    pub fn set_enabled(target: impl Into<WidgetRef>, enabled: bool) -> Self {
        Self::new(Action::SetEnabled(target.into(), enabled))
    }

    pub fn toggle_checked(target: impl Into<WidgetRef>) -> Self {
        Self::new(Action::ToggleChecked(target.into()))
    }

    pub fn focus(target: impl Into<WidgetRef>) -> Self {
        Self::new(Action::Focus(target.into()))
    }

    pub fn move_widget(target: impl Into<WidgetRef>, bounds: Rect) -> Self {
        Self::new(Action::MoveWidget(target.into(), bounds))
    }

    pub fn open_window(spec: WindowSpec) -> Self {
        Self::new(Action::OpenWindow(Box::new(spec)))
    }

    pub fn close_window(window: impl Into<WindowRef>) -> Self {
        Self::new(Action::CloseWindow(window.into()))
    }

    /// Closes the window of the widget that triggered it (a dialog's OK/Cancel).
    pub fn close_this_window() -> Self {
        Self::new(Action::CloseWindow(WindowRef::This))
    }

    pub fn set_title(window: impl Into<WindowRef>, title: impl Into<String>) -> Self {
        Self::new(Action::SetTitle(window.into(), title.into()))
    }

    /// The network guard refuses `method url` for `reason` (`url` as it would be reported: redacted).
    pub fn block_request(method: impl Into<String>, url: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(Action::BlockRequest(BlockedRequest {
            method: method.into(),
            url: url.into(),
            reason: reason.into(),
        }))
    }
}

/// Reactions a widget runs on each kind of event.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Hooks {
    /// Left click, or Return/Space while focused (activation).
    pub click: Vec<Reaction>,
    /// Additionally, on a click with count ≥ 2.
    pub double_click: Vec<Reaction>,
    pub right_click: Vec<Reaction>,
    /// When the pointer arrives over the widget.
    pub hover: Vec<Reaction>,
    /// When a draggable widget is dropped on this one.
    pub drop: Vec<Reaction>,
    /// Return in a focused entry.
    pub submit: Vec<Reaction>,
}

/// A widget description, built with chained methods and handed to
/// [`SimDesktop::add_widget`](crate::SimDesktop::add_widget) or [`WindowSpec::widget`].
///
/// Bounds are screen coordinates. Without `.at(..)` the widget is laid out automatically: stacked
/// top to bottom in its window's content area, sized to its text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Widget {
    pub(crate) kind: WidgetKind,
    pub(crate) label: String,
    pub(crate) value: String,
    pub(crate) checked: bool,
    pub(crate) enabled: bool,
    pub(crate) visible: bool,
    pub(crate) focusable: bool,
    pub(crate) focus_on_click: bool,
    pub(crate) initial_focus: bool,
    pub(crate) ax_visible: bool,
    /// Whether accessibility reports the text it holds (its value).
    pub(crate) ax_text: bool,
    pub(crate) ocr_visible: bool,
    pub(crate) draggable: bool,
    pub(crate) selected: bool,
    pub(crate) bounds: Option<Rect>,
    pub(crate) key: Option<String>,
    pub(crate) items: Vec<String>,
    pub(crate) mnemonic: Option<char>,
    pub(crate) default_button: bool,
    pub(crate) attributes: Vec<(String, String)>,
    /// A terminal's lines run, oldest first.
    pub(crate) ran: Vec<String>,
    pub(crate) hooks: Hooks,
}

impl Widget {
    pub fn new(kind: WidgetKind, label: impl Into<String>) -> Self {
        Self {
            kind,
            label: label.into(),
            value: String::new(),
            checked: false,
            enabled: true,
            visible: true,
            focusable: kind.default_focusable(),
            focus_on_click: kind.is_entry() || kind == WidgetKind::List,
            initial_focus: false,
            ax_visible: true,
            ax_text: true,
            ocr_visible: true,
            draggable: false,
            selected: false,
            bounds: None,
            key: None,
            items: Vec::new(),
            mnemonic: None,
            default_button: false,
            attributes: Vec::new(),
            ran: Vec::new(),
            hooks: Hooks::default(),
        }
    }

    pub fn button(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Button, label)
    }

    /// A text field named `label` (its accessible name and empty-state placeholder).
    pub fn entry(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Entry, label)
    }

    /// A multi-line text editor named `label`.
    pub fn text_area(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::TextArea, label)
    }

    /// A shell prompt; `completions` are what Tab may complete the last word to.
    pub fn terminal<S: Into<String>>(label: impl Into<String>, completions: impl IntoIterator<Item = S>) -> Self {
        Self::new(WidgetKind::Terminal, label).items(completions)
    }

    pub fn password(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::PasswordEntry, label)
    }

    pub fn checkbox(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Checkbox, label)
    }

    pub fn menu_item(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::MenuItem, label)
    }

    pub fn menu(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Menu, label)
    }

    pub fn text(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Text, label)
    }

    /// Text only pixels (and so OCR) know about, like text painted on a canvas.
    pub fn canvas_text(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Text, label).ax_hidden()
    }

    pub fn link(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Link, label)
    }

    pub fn list_item(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::ListItem, label)
    }

    pub fn tab(label: impl Into<String>) -> Self {
        Self::new(WidgetKind::Tab, label)
    }

    /// A busy indicator (accessible name "Loading").
    pub fn spinner() -> Self {
        Self::new(WidgetKind::Spinner, "Loading")
    }

    pub fn list<S: Into<String>>(label: impl Into<String>, items: impl IntoIterator<Item = S>) -> Self {
        Self::new(WidgetKind::List, label).items(items)
    }

    /// Bounds in screen coordinates.
    pub fn at(self, x: i32, y: i32, width: u32, height: u32) -> Self {
        self.bounds(Rect::new(x, y, width, height))
    }

    pub fn bounds(mut self, bounds: Rect) -> Self {
        self.bounds = Some(bounds);
        self
    }

    pub fn value(mut self, value: impl Into<String>) -> Self {
        self.value = value.into();
        self
    }

    pub fn checked(mut self, checked: bool) -> Self {
        self.checked = checked;
        self
    }

    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    pub fn disabled(self) -> Self {
        self.enabled(false)
    }

    /// Starts hidden (show it with [`Reaction::show`]).
    pub fn hidden(mut self) -> Self {
        self.visible = false;
        self
    }

    pub fn focusable(mut self, focusable: bool) -> Self {
        self.focusable = focusable;
        self
    }

    /// Whether a left click gives it keyboard focus (and so a focus ring). Entries and lists do by
    /// default; other widgets, like buttons on macOS and the web, are reached by Tab instead, so a click
    /// on a button wired to nothing changes nothing visible. Implies `focusable` when set.
    pub fn focus_on_click(mut self, on: bool) -> Self {
        self.focus_on_click = on;
        self.focusable |= on;
        self
    }

    /// Has keyboard focus in its window when the window opens.
    pub fn focused(mut self) -> Self {
        self.initial_focus = true;
        self
    }

    /// Absent from the accessibility tree (only pixels and OCR know it).
    pub fn ax_hidden(mut self) -> Self {
        self.ax_visible = false;
        self
    }

    /// Drawn, but OCR does not read it (stylised text, an icon).
    pub fn ocr_hidden(mut self) -> Self {
        self.ocr_visible = false;
        self
    }

    /// A drag starting on it moves it so its centre lands on the drop point.
    pub fn draggable(mut self) -> Self {
        self.draggable = true;
        self
    }

    /// Starts selected (tabs and list items).
    pub fn selected(mut self) -> Self {
        self.selected = true;
        self
    }

    /// A name for [`WidgetRef::Key`] and [`SimDesktop::find`](crate::SimDesktop::find); never shown.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Alt + `letter` activates it from anywhere in its window, as GTK's "_Delete" does for `d`; in a
    /// popup menu the bare letter does too. Accessibility reports it as the key binding `<Alt>letter`.
    pub fn mnemonic(mut self, letter: char) -> Self {
        self.mnemonic = Some(letter.to_ascii_lowercase());
        self
    }

    /// The default button of its window: Return in one of the window's entries (one without its own
    /// submit reaction) activates it. Reported with the `DEFAULT` state.
    pub fn default_button(mut self) -> Self {
        self.default_button = true;
        self
    }

    /// An attribute accessibility reports for it (a toolkit class, an HTML id).
    /// Its accessible value stays empty whatever it holds, as GTK 4.8 answers a request for all of a
    /// field's text: what it holds shows only on screen.
    pub fn text_unreported(mut self) -> Self {
        self.ax_text = false;
        self
    }

    pub fn attribute(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.attributes.push((name.into(), value.into()));
        self
    }

    pub fn items<S: Into<String>>(mut self, items: impl IntoIterator<Item = S>) -> Self {
        self.items = items.into_iter().map(Into::into).collect();
        self
    }

    pub fn on_click(mut self, reaction: Reaction) -> Self {
        self.hooks.click.push(reaction);
        self
    }

    pub fn on_double_click(mut self, reaction: Reaction) -> Self {
        self.hooks.double_click.push(reaction);
        self
    }

    pub fn on_right_click(mut self, reaction: Reaction) -> Self {
        self.hooks.right_click.push(reaction);
        self
    }

    pub fn on_hover(mut self, reaction: Reaction) -> Self {
        self.hooks.hover.push(reaction);
        self
    }

    pub fn on_drop(mut self, reaction: Reaction) -> Self {
        self.hooks.drop.push(reaction);
        self
    }

    pub fn on_submit(mut self, reaction: Reaction) -> Self {
        self.hooks.submit.push(reaction);
        self
    }
}

/// A window description: for [`SimDesktop::add_window`](crate::SimDesktop::add_window),
/// [`SimDesktop::register_app`](crate::SimDesktop::register_app) and [`Reaction::open_window`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WindowSpec {
    pub(crate) app: String,
    pub(crate) title: String,
    pub(crate) kind: WindowKind,
    pub(crate) bounds: Option<Rect>,
    pub(crate) widgets: Vec<Widget>,
    pub(crate) shortcuts: Vec<(String, Reaction)>,
    /// The window class the platform reports; the app's name when not given.
    pub(crate) class: Option<String>,
}

impl WindowSpec {
    pub fn new(app: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            app: app.into(),
            title: title.into(),
            kind: WindowKind::Normal,
            bounds: None,
            widgets: Vec::new(),
            shortcuts: Vec::new(),
            class: None,
        }
    }

    /// The window class the platform reports (X11 `WM_CLASS`, e.g. `XTerm`).
    pub fn class(mut self, class: impl Into<String>) -> Self {
        self.class = Some(class.into());
        self
    }

    pub fn dialog(app: impl Into<String>, title: impl Into<String>) -> Self {
        Self { kind: WindowKind::Dialog, ..Self::new(app, title) }
    }

    /// A popup menu at `bounds`; fill it with [`Widget::menu_item`]s.
    pub fn popup(app: impl Into<String>, bounds: Rect) -> Self {
        Self { kind: WindowKind::Popup, ..Self::new(app, "") }.bounds(bounds)
    }

    /// Bounds in screen coordinates, frame and 24 px title bar included. Without them the window gets
    /// 640x480 (or the screen, if smaller), cascaded from the top left.
    pub fn bounds(mut self, bounds: Rect) -> Self {
        self.bounds = Some(bounds);
        self
    }

    pub fn at(self, x: i32, y: i32, width: u32, height: u32) -> Self {
        self.bounds(Rect::new(x, y, width, height))
    }

    pub fn widget(mut self, widget: Widget) -> Self {
        self.widgets.push(widget);
        self
    }

    /// A keyboard shortcut handled while this window is frontmost, e.g. `"ctrl+s"` (modifier order, case
    /// and aliases such as `cmd`/`super` or `enter`/`return` do not matter).
    pub fn on_key(mut self, combo: &str, reaction: Reaction) -> Self {
        self.shortcuts.push((normalize_combo(combo), reaction));
        self
    }
}

/// Canonical `ctrl+alt+shift+super+key` form, matching [`KeyCombo`](handrail_platform::KeyCombo)'s
/// `Display`, so shortcuts written by hand match what the engine sends.
pub(crate) fn normalize_combo(combo: &str) -> String {
    let trimmed = combo.trim();
    // A trailing '+' after a separator is the plus key itself ("ctrl++", or "+" alone).
    let (body, plus_key) = if trimmed == "+" {
        ("", true)
    } else if let Some(rest) = trimmed.strip_suffix("++") {
        (rest, true)
    } else {
        (trimmed, false)
    };
    let parts: Vec<String> = body.split('+').map(|p| p.trim().to_lowercase()).filter(|p| !p.is_empty()).collect();
    let mut mods = [false; 4];
    let mut key = plus_key.then(|| "+".to_string());
    for (i, part) in parts.iter().enumerate() {
        let part = alias(part);
        let slot = ["ctrl", "alt", "shift", "super"].iter().position(|m| *m == part);
        let is_last = i + 1 == parts.len() && key.is_none();
        match slot {
            Some(m) if !is_last => mods[m] = true,
            _ => key = Some(part.to_string()),
        }
    }
    let mut out = String::new();
    for (on, name) in mods.iter().zip(["ctrl", "alt", "shift", "super"]) {
        if *on {
            out.push_str(name);
            out.push('+');
        }
    }
    out.push_str(key.as_deref().unwrap_or(""));
    out
}

fn alias(name: &str) -> &str {
    match name {
        "control" => "ctrl",
        "cmd" | "command" | "meta" | "win" | "logo" => "super",
        "enter" => "return",
        "esc" => "escape",
        "del" => "delete",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_combo;

    #[test]
    fn combos_normalise() {
        assert_eq!(normalize_combo("Ctrl+S"), "ctrl+s");
        assert_eq!(normalize_combo("shift+CTRL+t"), "ctrl+shift+t");
        assert_eq!(normalize_combo("cmd+Enter"), "super+return");
        assert_eq!(normalize_combo("super"), "super");
        assert_eq!(normalize_combo("ctrl++"), "ctrl++");
        assert_eq!(normalize_combo("+"), "+");
        assert_eq!(normalize_combo("esc"), "escape");
    }
}
