//! What accessibility and OCR sources report: roles, states, nodes and recognised lines.

use crate::geometry::Rect;

/// The role vocabulary every backend maps its native roles into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Button,
    ToggleButton,
    Entry,
    PasswordEntry,
    TextArea,
    /// A terminal emulator's screen: typed text goes to a shell, its text is the screen's.
    Terminal,
    Link,
    Checkbox,
    RadioButton,
    ComboBox,
    ListItem,
    MenuItem,
    Menu,
    MenuBar,
    Tab,
    Slider,
    SpinButton,
    Text,
    Heading,
    Image,
    Dialog,
    Window,
    Alert,
    ToolBar,
    List,
    Table,
    Cell,
    ScrollBar,
    Document,
    /// Anything else; containers are usually pruned unless they carry a name.
    Other,
}

impl Role {
    pub const ALL: [Role; 30] = [
        Role::Button,
        Role::ToggleButton,
        Role::Entry,
        Role::PasswordEntry,
        Role::TextArea,
        Role::Terminal,
        Role::Link,
        Role::Checkbox,
        Role::RadioButton,
        Role::ComboBox,
        Role::ListItem,
        Role::MenuItem,
        Role::Menu,
        Role::MenuBar,
        Role::Tab,
        Role::Slider,
        Role::SpinButton,
        Role::Text,
        Role::Heading,
        Role::Image,
        Role::Dialog,
        Role::Window,
        Role::Alert,
        Role::ToolBar,
        Role::List,
        Role::Table,
        Role::Cell,
        Role::ScrollBar,
        Role::Document,
        Role::Other,
    ];

    /// The short name used in observations (stable: clients parse it).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Button => "button",
            Role::ToggleButton => "toggle_button",
            Role::Entry => "entry",
            Role::PasswordEntry => "password_entry",
            Role::TextArea => "text_area",
            Role::Terminal => "terminal",
            Role::Link => "link",
            Role::Checkbox => "checkbox",
            Role::RadioButton => "radio",
            Role::ComboBox => "combo_box",
            Role::ListItem => "list_item",
            Role::MenuItem => "menu_item",
            Role::Menu => "menu",
            Role::MenuBar => "menu_bar",
            Role::Tab => "tab",
            Role::Slider => "slider",
            Role::SpinButton => "spin_button",
            Role::Text => "text",
            Role::Heading => "heading",
            Role::Image => "image",
            Role::Dialog => "dialog",
            Role::Window => "window",
            Role::Alert => "alert",
            Role::ToolBar => "toolbar",
            Role::List => "list",
            Role::Table => "table",
            Role::Cell => "cell",
            Role::ScrollBar => "scrollbar",
            Role::Document => "document",
            Role::Other => "other",
        }
    }

    /// Something a person would click, type into or otherwise operate.
    pub fn is_interactive(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::ToggleButton
                | Role::Entry
                | Role::PasswordEntry
                | Role::TextArea
                | Role::Terminal
                | Role::Link
                | Role::Checkbox
                | Role::RadioButton
                | Role::ComboBox
                | Role::ListItem
                | Role::MenuItem
                | Role::Menu
                | Role::Tab
                | Role::Slider
                | Role::SpinButton
                | Role::ScrollBar
        )
    }

    /// Accepts typed text.
    pub fn is_text_input(self) -> bool {
        matches!(
            self,
            Role::Entry | Role::PasswordEntry | Role::TextArea | Role::Terminal | Role::SpinButton | Role::ComboBox
        )
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A small set of element states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct States(u16);

impl States {
    pub const FOCUSED: States = States(1);
    pub const DISABLED: States = States(1 << 1);
    pub const CHECKED: States = States(1 << 2);
    pub const EDITABLE: States = States(1 << 3);
    /// Contents are secret (a password field): never read, stored or shown.
    pub const SECURE: States = States(1 << 4);
    pub const OFFSCREEN: States = States(1 << 5);
    pub const SELECTED: States = States(1 << 6);
    pub const EXPANDED: States = States(1 << 7);
    pub const FOCUSABLE: States = States(1 << 8);
    /// The default button of its window or form: Return in one of its fields activates it.
    pub const DEFAULT: States = States(1 << 9);
    /// A window that is the active one (it receives keyboard input).
    pub const ACTIVE: States = States(1 << 10);
    /// A window that is minimised (iconified): nothing of it is on screen.
    pub const MINIMIZED: States = States(1 << 11);

    const NAMES: [(States, &'static str); 12] = [
        (States::FOCUSED, "focused"),
        (States::DISABLED, "disabled"),
        (States::CHECKED, "checked"),
        (States::EDITABLE, "editable"),
        (States::SECURE, "secure"),
        (States::OFFSCREEN, "offscreen"),
        (States::SELECTED, "selected"),
        (States::EXPANDED, "expanded"),
        (States::FOCUSABLE, "focusable"),
        (States::DEFAULT, "default"),
        (States::ACTIVE, "active"),
        (States::MINIMIZED, "minimized"),
    ];

    pub const fn empty() -> States {
        States(0)
    }

    pub const fn union(self, other: States) -> States {
        States(self.0 | other.0)
    }

    pub const fn contains(self, other: States) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn insert(&mut self, other: States) {
        self.0 |= other.0;
    }

    pub fn remove(&mut self, other: States) {
        self.0 &= !other.0;
    }

    pub fn set(&mut self, other: States, on: bool) {
        if on {
            self.insert(other)
        } else {
            self.remove(other)
        }
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Names of the states that are set, in a fixed order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES.into_iter().filter(move |(s, _)| self.contains(*s)).map(|(_, n)| n)
    }
}

impl std::ops::BitOr for States {
    type Output = States;
    fn bitor(self, rhs: States) -> States {
        self.union(rhs)
    }
}

/// One node of an accessibility tree, flattened. Bounds are in **screen** coordinates.
///
/// Backends must never fill `value` for a secure field (role `PasswordEntry` or state `SECURE`); the engine
/// drops it again anyway.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AxNode {
    pub role: Option<Role>,
    /// The backend's own role name, kept for `inspect`.
    pub native_role: String,
    pub name: String,
    pub value: Option<String>,
    pub description: String,
    pub bounds: Rect,
    pub states: States,
    pub app: String,
    pub window: String,
    /// Actions the node offers (e.g. "click", "activate").
    pub actions: Vec<String>,
    /// The keys that trigger those actions, as the toolkit reports them (GTK accelerator syntax such as
    /// `<Alt>d`, or `mnemonic;path;accelerator` for menu items), one string per action. Empty strings are
    /// actions without a key.
    pub key_bindings: Vec<String>,
    /// Other attributes worth showing in `inspect` (e.g. the HTML id of a web element).
    pub attributes: Vec<(String, String)>,
    /// Index of the parent node in the same snapshot.
    pub parent: Option<usize>,
    /// `bounds` are relative to the node's window, not the screen: the toolkit gave nothing better
    /// (GTK 4 on X11 answers window coordinates even when asked for screen ones). The desktop backend
    /// moves such nodes onto the screen, or leaves them out, before anything else reads them.
    pub window_relative: bool,
}

impl AxNode {
    pub fn role(&self) -> Role {
        self.role.unwrap_or(Role::Other)
    }

    pub fn is_secure(&self) -> bool {
        self.role == Some(Role::PasswordEntry) || self.states.contains(States::SECURE)
    }
}

/// How well the accessibility source answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxHealth {
    Ok,
    /// Some applications did not answer in time; the nodes are what did.
    Partial,
    /// No accessibility bus or service.
    Unavailable,
    /// The platform requires a permission the user has not granted.
    PermissionRequired,
}

impl AxHealth {
    pub fn as_str(self) -> &'static str {
        match self {
            AxHealth::Ok => "ok",
            AxHealth::Partial => "partial",
            AxHealth::Unavailable => "unavailable",
            AxHealth::PermissionRequired => "permission_required",
        }
    }
}

/// A flattened accessibility tree of what is on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct AxSnapshot {
    pub health: AxHealth,
    pub nodes: Vec<AxNode>,
    /// What a `Partial` snapshot left out and why, one line each, naming the application ("LibreOffice
    /// Calc: table \"Sheet Sheet1\" has 2147483647 children, …"). A partial snapshot may have none
    /// (an application that stopped answering is counted, not named).
    pub notes: Vec<String>,
}

impl AxSnapshot {
    pub fn new(health: AxHealth, nodes: Vec<AxNode>) -> Self {
        Self { health, nodes, notes: Vec::new() }
    }

    pub fn unavailable() -> Self {
        Self::new(AxHealth::Unavailable, Vec::new())
    }

    pub fn focused(&self) -> Option<usize> {
        self.nodes.iter().position(|n| n.states.contains(States::FOCUSED))
    }

    /// Keeps the nodes whose `keep` entry is true (one per node, in order); parent indices follow
    /// the nodes they name, and a parent left out leaves its children without one. A snapshot that
    /// lost nodes is no longer whole: `Ok` becomes `Partial`. Returns how many were left out.
    pub fn retain(&mut self, keep: &[bool]) -> usize {
        let mut new_index = vec![None; self.nodes.len()];
        let mut n = 0;
        for (i, slot) in new_index.iter_mut().enumerate() {
            if keep.get(i).copied().unwrap_or(true) {
                *slot = Some(n);
                n += 1;
            }
        }
        let dropped = self.nodes.len() - n;
        if dropped == 0 {
            return 0;
        }
        let nodes = std::mem::take(&mut self.nodes);
        self.nodes = nodes
            .into_iter()
            .enumerate()
            .filter(|(i, _)| new_index[*i].is_some())
            .map(|(_, mut node)| {
                node.parent = node.parent.and_then(|p| new_index.get(p).copied().flatten());
                node
            })
            .collect();
        if self.health == AxHealth::Ok {
            self.health = AxHealth::Partial;
        }
        dropped
    }
}

/// How well the OCR source answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OcrHealth {
    Ok,
    Unavailable,
    Failed,
    /// OCR was not asked for (disabled by configuration).
    Off,
}

impl OcrHealth {
    pub fn as_str(self) -> &'static str {
        match self {
            OcrHealth::Ok => "ok",
            OcrHealth::Unavailable => "unavailable",
            OcrHealth::Failed => "failed",
            OcrHealth::Off => "off",
        }
    }
}

/// A line (or label) of recognised text. Bounds are in the coordinates of the frame that was read.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrLine {
    pub text: String,
    pub bounds: Rect,
    /// 0..=100
    pub confidence: f32,
}
