//! Input vocabulary: buttons, scroll directions and key combinations.

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MouseButton {
    Left,
    Middle,
    Right,
}

/// A scroll direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

impl ScrollDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            ScrollDirection::Up => "up",
            ScrollDirection::Down => "down",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        }
    }
}

/// A set of modifier keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Modifiers {
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    /// The logo key: `super`, `cmd`, `command`, `meta` and `win` all name it.
    pub super_key: bool,
}

impl Modifiers {
    pub fn is_empty(&self) -> bool {
        !(self.ctrl || self.alt || self.shift || self.super_key)
    }

    /// Canonical names in a fixed order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.ctrl {
            v.push("ctrl");
        }
        if self.alt {
            v.push("alt");
        }
        if self.shift {
            v.push("shift");
        }
        if self.super_key {
            v.push("super");
        }
        v
    }
}

/// A key combination in canonical form: modifiers plus one key.
///
/// `key` is a canonical key name: a single character (`"a"`, `"/"`, `"ก"`), or a named key in lower case
/// (`"return"`, `"tab"`, `"escape"`, `"backspace"`, `"delete"`, `"insert"`, `"home"`, `"end"`, `"page_up"`,
/// `"page_down"`, `"left"`, `"right"`, `"up"`, `"down"`, `"space"`, `"f1"`…`"f24"`, `"menu"`, `"print"`),
/// or a bare modifier (`"ctrl"`, `"alt"`, `"shift"`, `"super"`) pressed on its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    pub modifiers: Modifiers,
    pub key: String,
}

impl std::fmt::Display for KeyCombo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for m in self.modifiers.names() {
            write!(f, "{m}+")?;
        }
        f.write_str(&self.key)
    }
}
