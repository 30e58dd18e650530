//! AT-SPI role names and state bits, mapped into handrail's vocabulary.

use handrail_platform::{Role, States};

/// AT-SPI state bit numbers (`AtspiStateType`), as far as they are used here.
pub mod bit {
    pub const ACTIVE: u32 = 1;
    pub const CHECKED: u32 = 4;
    pub const EDITABLE: u32 = 7;
    pub const ENABLED: u32 = 8;
    pub const EXPANDED: u32 = 10;
    pub const FOCUSABLE: u32 = 11;
    pub const FOCUSED: u32 = 12;
    pub const MULTI_LINE: u32 = 17;
    pub const PRESSED: u32 = 20;
    pub const SELECTED: u32 = 23;
    pub const SENSITIVE: u32 = 24;
    pub const SHOWING: u32 = 25;
    pub const VISIBLE: u32 = 30;
    pub const IS_DEFAULT: u32 = 39;
    pub const READ_ONLY: u32 = 43;
}

/// The 64-bit AT-SPI state set (sent as two 32-bit words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AtspiStates(pub u64);

impl AtspiStates {
    pub fn from_words(words: &[u32]) -> Self {
        let lo = u64::from(words.first().copied().unwrap_or(0));
        let hi = u64::from(words.get(1).copied().unwrap_or(0));
        Self(lo | (hi << 32))
    }

    pub fn has(self, bit: u32) -> bool {
        bit < 64 && self.0 & (1 << bit) != 0
    }

    /// Showing and visible: drawn on screen (as far as the toolkit knows).
    pub fn on_screen(self) -> bool {
        self.has(bit::SHOWING) && self.has(bit::VISIBLE)
    }
}

/// Whether the HTML `class` attribute a web element exposes has `token` among its classes.
pub fn has_class(attributes: &[(String, String)], token: &str) -> bool {
    attributes.iter().any(|(k, v)| k == "class" && v.split_ascii_whitespace().any(|c| c == token))
}

/// A terminal drawn by xterm.js — the web terminal of ttyd, JupyterLab, VS Code and most browser
/// IDEs — known by the `xterm` class of its root element, whatever role the browser gives it
/// (Chromium: a "section"). Its input is a hidden text area; its screen a canvas.
pub fn is_web_terminal(attributes: &[(String, String)]) -> bool {
    has_class(attributes, "xterm")
}

/// True for role names whose contents are secret: their text is never read.
pub fn is_secret_role(native: &str) -> bool {
    native.contains("password")
}

/// Maps an AT-SPI role name (`GetRoleName`, e.g. "push button") to a [`Role`].
pub fn map_role(native: &str, states: AtspiStates) -> Role {
    if is_secret_role(native) {
        return Role::PasswordEntry;
    }
    match native {
        "push button" | "button" | "push button menu" => Role::Button,
        "toggle button" => Role::ToggleButton,
        // GTK3 single- and multi-line text widgets are both "text"; web inputs are "entry".
        // VTE (xfce4-terminal, GNOME Terminal…) exposes the whole screen as one "terminal".
        "terminal" => Role::Terminal,
        // GNOME Shell's labels (the Clutter text inside an St label) are "text" too, but not
        // editable and neither enabled nor sensitive (they say focusable all the same): words on the
        // screen, not fields. A read-only GTK entry stays an entry: it is enabled.
        "text"
            if !states.has(bit::EDITABLE)
                && (!states.has(bit::FOCUSABLE) || (!states.has(bit::ENABLED) && !states.has(bit::SENSITIVE))) =>
        {
            Role::Text
        }
        "text" | "entry" | "editbar" => {
            if states.has(bit::MULTI_LINE) {
                Role::TextArea
            } else {
                Role::Entry
            }
        }
        "check box" | "check button" => Role::Checkbox,
        "radio button" => Role::RadioButton,
        "combo box" => Role::ComboBox,
        "menu item" | "check menu item" | "radio menu item" | "tearoff menu item" => Role::MenuItem,
        "menu" => Role::Menu,
        "menu bar" => Role::MenuBar,
        "page tab" => Role::Tab,
        "link" => Role::Link,
        "list item" | "tree item" => Role::ListItem,
        "label" | "static" | "paragraph" | "caption" | "description value" | "comment" | "block quote" => Role::Text,
        "heading" => Role::Heading,
        "image" | "icon" | "image map" => Role::Image,
        "dialog" | "file chooser" | "color chooser" | "font chooser" => Role::Dialog,
        "alert" | "notification" => Role::Alert,
        "frame" | "window" => Role::Window,
        "tool bar" => Role::ToolBar,
        "list" | "list box" | "tree" => Role::List,
        "table" | "tree table" => Role::Table,
        "table cell" | "column header" | "row header" | "table column header" | "table row header" => Role::Cell,
        "scroll bar" => Role::ScrollBar,
        "document web"
        | "document frame"
        | "document text"
        | "document email"
        | "document spreadsheet"
        | "document presentation" => Role::Document,
        "slider" => Role::Slider,
        "spin button" => Role::SpinButton,
        _ => Role::Other,
    }
}

/// Maps AT-SPI states to handrail's.
pub fn map_states(native: &str, role: Role, s: AtspiStates) -> States {
    let mut out = States::empty();
    out.set(States::FOCUSED, s.has(bit::FOCUSED));
    // Toolkits drop ENABLED (GTK: and SENSITIVE) on insensitive widgets only.
    out.set(States::DISABLED, !s.has(bit::ENABLED) && !s.has(bit::SENSITIVE));
    let checked = s.has(bit::CHECKED) || (role == Role::ToggleButton && s.has(bit::PRESSED));
    out.set(States::CHECKED, checked);
    out.set(States::EDITABLE, s.has(bit::EDITABLE) && !s.has(bit::READ_ONLY));
    out.set(States::SELECTED, s.has(bit::SELECTED));
    out.set(States::EXPANDED, s.has(bit::EXPANDED));
    out.set(States::FOCUSABLE, s.has(bit::FOCUSABLE));
    out.set(States::DEFAULT, s.has(bit::IS_DEFAULT));
    out.set(States::OFFSCREEN, !s.on_screen());
    out.set(States::SECURE, is_secret_role(native));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(bits: &[u32]) -> AtspiStates {
        AtspiStates(bits.iter().fold(0u64, |a, b| a | (1 << b)))
    }

    #[test]
    fn roles_map_as_documented() {
        let none = AtspiStates::default();
        for (native, role) in [
            ("push button", Role::Button),
            ("toggle button", Role::ToggleButton),
            ("entry", Role::Entry),
            ("text", Role::Text),
            ("password text", Role::PasswordEntry),
            ("check box", Role::Checkbox),
            ("radio button", Role::RadioButton),
            ("combo box", Role::ComboBox),
            ("check menu item", Role::MenuItem),
            ("radio menu item", Role::MenuItem),
            ("menu", Role::Menu),
            ("menu bar", Role::MenuBar),
            ("page tab", Role::Tab),
            ("link", Role::Link),
            ("list item", Role::ListItem),
            ("label", Role::Text),
            ("static", Role::Text),
            ("paragraph", Role::Text),
            ("heading", Role::Heading),
            ("icon", Role::Image),
            ("dialog", Role::Dialog),
            ("alert", Role::Alert),
            ("frame", Role::Window),
            ("tool bar", Role::ToolBar),
            ("table cell", Role::Cell),
            ("scroll bar", Role::ScrollBar),
            ("document web", Role::Document),
            ("slider", Role::Slider),
            ("spin button", Role::SpinButton),
            ("filler", Role::Other),
        ] {
            assert_eq!(map_role(native, none), role, "{native}");
        }
        assert_eq!(map_role("text", st(&[bit::EDITABLE])), Role::Entry);
        let read_only = st(&[bit::FOCUSABLE, bit::ENABLED, bit::SENSITIVE]);
        assert_eq!(map_role("text", read_only), Role::Entry, "a read-only field is still a field");
        assert_eq!(map_role("text", st(&[bit::FOCUSABLE])), Role::Text, "GNOME Shell's label text");
        assert_eq!(map_role("text", st(&[bit::EDITABLE, bit::MULTI_LINE])), Role::TextArea);
        // A terminal stays a terminal, single- or multi-line.
        assert_eq!(map_role("terminal", st(&[bit::MULTI_LINE])), Role::Terminal);
        let attrs =
            |class: &str| vec![("class".to_string(), class.to_string()), ("tag".to_string(), "div".to_string())];
        assert!(is_web_terminal(&attrs("terminal xterm focus")));
        assert!(is_web_terminal(&attrs("xterm")));
        assert!(!is_web_terminal(&attrs("xterm-screen")));
        assert!(!is_web_terminal(&attrs("my-xterm-theme")));
        assert!(!is_web_terminal(&[("id".to_string(), "xterm".to_string())]));
        assert!(has_class(&attrs("terminal xterm focus"), "focus"));
        assert!(!has_class(&attrs("terminal xterm"), "focus"));
        assert_eq!(map_role("terminal", none), Role::Terminal);
    }

    #[test]
    fn states_map() {
        let s = st(&[bit::FOCUSED, bit::ENABLED, bit::SENSITIVE, bit::SHOWING, bit::VISIBLE, bit::EDITABLE]);
        let m = map_states("text", Role::Entry, s);
        assert!(m.contains(States::FOCUSED | States::EDITABLE));
        assert!(!m.contains(States::DISABLED) && !m.contains(States::OFFSCREEN));
        let m = map_states("password text", Role::PasswordEntry, st(&[bit::SHOWING]));
        assert!(m.contains(States::SECURE | States::DISABLED | States::OFFSCREEN));
        assert!(map_states("toggle button", Role::ToggleButton, st(&[bit::PRESSED, bit::ENABLED]))
            .contains(States::CHECKED));
        assert!(AtspiStates::from_words(&[0, 1 << (bit::READ_ONLY - 32)]).has(bit::READ_ONLY));
    }
}
