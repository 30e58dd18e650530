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

/// A key, by what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// The key that types this character (letters in lower case: `ctrl+S` is `ctrl+s`; shift is a
    /// modifier of its own).
    Char(char),
    Return,
    Tab,
    Escape,
    Backspace,
    Delete,
    Insert,
    Home,
    End,
    PageUp,
    PageDown,
    Left,
    Right,
    Up,
    Down,
    Space,
    Menu,
    Print,
    /// F1…F24.
    F(u8),
    /// A modifier pressed on its own.
    Ctrl,
    Alt,
    Shift,
    Super,
}

/// The named keys with their canonical names (what [`Key`]'s `Display` writes), F-keys aside.
const NAMED: [(Key, &str); 21] = [
    (Key::Return, "return"),
    (Key::Tab, "tab"),
    (Key::Escape, "escape"),
    (Key::Backspace, "backspace"),
    (Key::Delete, "delete"),
    (Key::Insert, "insert"),
    (Key::Home, "home"),
    (Key::End, "end"),
    (Key::PageUp, "page_up"),
    (Key::PageDown, "page_down"),
    (Key::Left, "left"),
    (Key::Right, "right"),
    (Key::Up, "up"),
    (Key::Down, "down"),
    (Key::Space, "space"),
    (Key::Menu, "menu"),
    (Key::Print, "print"),
    (Key::Ctrl, "ctrl"),
    (Key::Alt, "alt"),
    (Key::Shift, "shift"),
    (Key::Super, "super"),
];

impl Key {
    /// The key with this canonical name (`return`, `page_up`, `f5`, `a`, `ก`…), as `Display` writes it.
    pub fn from_name(name: &str) -> Option<Key> {
        let mut chars = name.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Some(Key::Char(c));
        }
        if let Some((key, _)) = NAMED.iter().find(|(_, n)| *n == name) {
            return Some(*key);
        }
        let n: u8 = name.strip_prefix('f')?.parse().ok()?;
        (1..=24).contains(&n).then_some(Key::F(n))
    }

    /// The character this key types, for character keys.
    pub fn as_char(self) -> Option<char> {
        match self {
            Key::Char(c) => Some(c),
            _ => None,
        }
    }

    /// A modifier pressed on its own.
    pub fn is_modifier(self) -> bool {
        matches!(self, Key::Ctrl | Key::Alt | Key::Shift | Key::Super)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Char(c) => write!(f, "{c}"),
            Key::F(n) => write!(f, "f{n}"),
            other => {
                let name = NAMED.iter().find(|(k, _)| k == other).map_or("?", |(_, n)| n);
                f.write_str(name)
            }
        }
    }
}

/// A key combination in canonical form: modifiers plus one key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    pub modifiers: Modifiers,
    pub key: Key,
}

impl KeyCombo {
    /// `key` with no modifiers.
    pub fn plain(key: Key) -> Self {
        KeyCombo { modifiers: Modifiers::default(), key }
    }

    /// `key` with ctrl.
    pub fn ctrl(key: Key) -> Self {
        KeyCombo { modifiers: Modifiers { ctrl: true, ..Modifiers::default() }, key }
    }
}

impl std::fmt::Display for KeyCombo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for m in self.modifiers.names() {
            write!(f, "{m}+")?;
        }
        write!(f, "{}", self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_name_reads_back() {
        let mut keys: Vec<Key> = NAMED.iter().map(|(k, _)| *k).collect();
        keys.extend((1..=24).map(Key::F));
        keys.extend(['a', '/', 'ก', '+', '7'].map(Key::Char));
        for k in keys {
            assert_eq!(Key::from_name(&k.to_string()), Some(k), "{k}");
        }
        assert_eq!(Key::from_name("f25"), None);
        assert_eq!(Key::from_name("f0"), None);
        assert_eq!(Key::from_name("enter"), None, "aliases are the parser's business, not this");
    }
}
