//! The virtual keyboard's own XKB keymap, written here as text (no libxkbcommon needed).
//!
//! A Wayland virtual keyboard uploads its keymap; the compositor compiles it and hands it to the
//! focused client before the key events that follow, **in order** on the same connection. So any
//! character can be typed as a key: it only needs a keycode whose keysym is that character. The
//! keymap holds
//! - a US layout at the real evdev positions (letters, digits, punctuation with their shifted level,
//!   and every named key: Return, Tab, arrows, F1–F24…) plus modifiers, so keys carry the physical
//!   codes applications expect (Chromium's `KeyboardEvent.code`, shortcuts by key position);
//! - extra characters (Thai, CJK, emoji, accented letters…) on keycodes above 255, one character
//!   each at a single level. Keycodes past the evdev range name no physical key, so no application
//!   reads them as a media or browser key by position (a character on the keycode of "Back" would
//!   make Chromium go back). Up to [`EXTRA_SLOTS`] characters per keymap; a text with more is typed
//!   in parts, the keymap re-uploaded between them.
//!
//! Types and compatibility come from the compositor's `complete` sets (it compiles the keymap, with
//! its own xkeyboard-config data), so the text here stays short: keycodes and symbols.

use std::collections::HashMap;
use std::fmt::Write as _;

/// Characters a keymap holds beyond the US layout.
pub(crate) const EXTRA_SLOTS: usize = 256;
/// The XKB keycode of the first extra character (evdev code 256: past every physical key).
const EXTRA_BASE: u32 = 264;
/// XKB keycodes are evdev codes plus 8.
pub(crate) const EVDEV_OFFSET: u32 = 8;

/// A key of the base layout: its evdev code and its keysyms by level.
struct BaseKey {
    evdev: u32,
    syms: &'static [&'static str],
}

const fn k(evdev: u32, syms: &'static [&'static str]) -> BaseKey {
    BaseKey { evdev, syms }
}

/// The US layout and the named keys, at their evdev codes (linux/input-event-codes.h).
const BASE: &[BaseKey] = &[
    k(1, &["Escape"]),
    k(2, &["1", "exclam"]),
    k(3, &["2", "at"]),
    k(4, &["3", "numbersign"]),
    k(5, &["4", "dollar"]),
    k(6, &["5", "percent"]),
    k(7, &["6", "asciicircum"]),
    k(8, &["7", "ampersand"]),
    k(9, &["8", "asterisk"]),
    k(10, &["9", "parenleft"]),
    k(11, &["0", "parenright"]),
    k(12, &["minus", "underscore"]),
    k(13, &["equal", "plus"]),
    k(14, &["BackSpace"]),
    k(15, &["Tab", "ISO_Left_Tab"]),
    k(16, &["q", "Q"]),
    k(17, &["w", "W"]),
    k(18, &["e", "E"]),
    k(19, &["r", "R"]),
    k(20, &["t", "T"]),
    k(21, &["y", "Y"]),
    k(22, &["u", "U"]),
    k(23, &["i", "I"]),
    k(24, &["o", "O"]),
    k(25, &["p", "P"]),
    k(26, &["bracketleft", "braceleft"]),
    k(27, &["bracketright", "braceright"]),
    k(28, &["Return"]),
    k(29, &["Control_L"]),
    k(30, &["a", "A"]),
    k(31, &["s", "S"]),
    k(32, &["d", "D"]),
    k(33, &["f", "F"]),
    k(34, &["g", "G"]),
    k(35, &["h", "H"]),
    k(36, &["j", "J"]),
    k(37, &["k", "K"]),
    k(38, &["l", "L"]),
    k(39, &["semicolon", "colon"]),
    k(40, &["apostrophe", "quotedbl"]),
    k(41, &["grave", "asciitilde"]),
    k(42, &["Shift_L"]),
    k(43, &["backslash", "bar"]),
    k(44, &["z", "Z"]),
    k(45, &["x", "X"]),
    k(46, &["c", "C"]),
    k(47, &["v", "V"]),
    k(48, &["b", "B"]),
    k(49, &["n", "N"]),
    k(50, &["m", "M"]),
    k(51, &["comma", "less"]),
    k(52, &["period", "greater"]),
    k(53, &["slash", "question"]),
    k(54, &["Shift_R"]),
    k(56, &["Alt_L"]),
    k(57, &["space"]),
    k(58, &["Caps_Lock"]),
    k(59, &["F1"]),
    k(60, &["F2"]),
    k(61, &["F3"]),
    k(62, &["F4"]),
    k(63, &["F5"]),
    k(64, &["F6"]),
    k(65, &["F7"]),
    k(66, &["F8"]),
    k(67, &["F9"]),
    k(68, &["F10"]),
    k(69, &["Num_Lock"]),
    k(70, &["Scroll_Lock"]),
    k(87, &["F11"]),
    k(88, &["F12"]),
    k(97, &["Control_R"]),
    k(99, &["Print"]),
    k(100, &["Alt_R"]),
    k(102, &["Home"]),
    k(103, &["Up"]),
    k(104, &["Prior"]),
    k(105, &["Left"]),
    k(106, &["Right"]),
    k(107, &["End"]),
    k(108, &["Down"]),
    k(109, &["Next"]),
    k(110, &["Insert"]),
    k(111, &["Delete"]),
    k(119, &["Pause"]),
    k(125, &["Super_L"]),
    k(126, &["Super_R"]),
    k(127, &["Menu"]),
    k(183, &["F13"]),
    k(184, &["F14"]),
    k(185, &["F15"]),
    k(186, &["F16"]),
    k(187, &["F17"]),
    k(188, &["F18"]),
    k(189, &["F19"]),
    k(190, &["F20"]),
    k(191, &["F21"]),
    k(192, &["F22"]),
    k(193, &["F23"]),
    k(194, &["F24"]),
];

/// Which modifier each modifier key sets.
const MODIFIER_MAP: &[(&str, &[&str])] = &[
    ("Shift", &["Shift_L", "Shift_R"]),
    ("Lock", &["Caps_Lock"]),
    ("Control", &["Control_L", "Control_R"]),
    ("Mod1", &["Alt_L", "Alt_R"]),
    ("Mod2", &["Num_Lock"]),
    ("Mod4", &["Super_L", "Super_R"]),
];

/// One key press that produces what was asked for: an evdev code, with shift or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stroke {
    pub evdev: u32,
    pub shift: bool,
}

/// The keymap in force and the characters on its extra keycodes. See the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct Keymap {
    extra: Vec<char>,
}

impl Keymap {
    /// The stroke for a keysym name of the base layout (`Return`, `a`, `A`, `plus`).
    pub(crate) fn named(&self, keysym: &str) -> Option<Stroke> {
        BASE.iter().find_map(|key| {
            key.syms.iter().position(|s| *s == keysym).map(|level| Stroke { evdev: key.evdev, shift: level == 1 })
        })
    }

    /// The stroke typing `c`: the base layout's, else its extra keycode (None when not in the keymap).
    pub(crate) fn for_char(&self, c: char) -> Option<Stroke> {
        if let Some(name) = base_name(c) {
            return self.named(name);
        }
        let slot = self.extra.iter().position(|&e| e == c)?;
        Some(Stroke { evdev: EXTRA_BASE - EVDEV_OFFSET + slot as u32, shift: false })
    }

    /// Whether every character of `chars` can be typed with this keymap.
    #[cfg(test)]
    pub(crate) fn covers(&self, chars: &[char]) -> bool {
        chars.iter().all(|&c| self.for_char(c).is_some())
    }

    /// Makes room for `chars` (at most [`EXTRA_SLOTS`] new ones): characters already placed keep
    /// their keycodes while there is room; otherwise the extra keycodes start over with `chars`.
    /// Returns whether the keymap changed (and must be uploaded).
    pub(crate) fn make_room(&mut self, chars: &[char]) -> bool {
        let mut missing: Vec<char> = Vec::new();
        for &c in chars {
            if base_name(c).is_none() && !self.extra.contains(&c) && !missing.contains(&c) {
                missing.push(c);
            }
        }
        if missing.is_empty() {
            return false;
        }
        if self.extra.len() + missing.len() > EXTRA_SLOTS {
            self.extra.clear();
        }
        self.extra.extend(missing.into_iter().take(EXTRA_SLOTS));
        true
    }

    /// The keymap as XKB text, NUL-terminated as the protocol wants it.
    pub(crate) fn to_text(&self) -> String {
        let max_keycode = EXTRA_BASE + EXTRA_SLOTS as u32;
        let mut t = String::with_capacity(8 * 1024);
        t.push_str("xkb_keymap {\nxkb_keycodes \"handrail\" {\n");
        let _ = writeln!(t, "minimum = 8;\nmaximum = {max_keycode};");
        for key in BASE {
            let code = key.evdev + EVDEV_OFFSET;
            let _ = writeln!(t, "<K{code}> = {code};");
        }
        for slot in 0..self.extra.len() as u32 {
            let code = EXTRA_BASE + slot;
            let _ = writeln!(t, "<K{code}> = {code};");
        }
        t.push_str("};\nxkb_types \"handrail\" { include \"complete\" };\n");
        t.push_str("xkb_compatibility \"handrail\" { include \"complete\" };\n");
        t.push_str("xkb_symbols \"handrail\" {\n");
        for key in BASE {
            let _ = writeln!(t, "key <K{}> {{ [ {} ] }};", key.evdev + EVDEV_OFFSET, key.syms.join(", "));
        }
        for (slot, &c) in self.extra.iter().enumerate() {
            let _ = writeln!(t, "key <K{}> {{ [ {} ] }};", EXTRA_BASE + slot as u32, unicode_keysym(c));
        }
        for (modifier, syms) in MODIFIER_MAP {
            let _ = writeln!(t, "modifier_map {modifier} {{ {} }};", syms.join(", "));
        }
        t.push_str("};\n};\n\0");
        t
    }
}

/// The keysym name of a character the base layout types, if it does.
fn base_name(c: char) -> Option<&'static str> {
    const PUNCTUATION: &[(char, &str)] = &[
        (' ', "space"),
        ('!', "exclam"),
        ('"', "quotedbl"),
        ('#', "numbersign"),
        ('$', "dollar"),
        ('%', "percent"),
        ('&', "ampersand"),
        ('\'', "apostrophe"),
        ('(', "parenleft"),
        (')', "parenright"),
        ('*', "asterisk"),
        ('+', "plus"),
        (',', "comma"),
        ('-', "minus"),
        ('.', "period"),
        ('/', "slash"),
        (':', "colon"),
        (';', "semicolon"),
        ('<', "less"),
        ('=', "equal"),
        ('>', "greater"),
        ('?', "question"),
        ('@', "at"),
        ('[', "bracketleft"),
        ('\\', "backslash"),
        (']', "bracketright"),
        ('^', "asciicircum"),
        ('_', "underscore"),
        ('`', "grave"),
        ('{', "braceleft"),
        ('|', "bar"),
        ('}', "braceright"),
        ('~', "asciitilde"),
    ];
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    if c.is_ascii_alphanumeric() {
        let i = LETTERS.find(c)?;
        return LETTERS.get(i..i + 1);
    }
    PUNCTUATION.iter().find(|(p, _)| *p == c).map(|(_, n)| *n)
}

/// XKB's name for the keysym of any character: `U` and its code point in hex.
fn unicode_keysym(c: char) -> String {
    format!("U{:04X}", u32::from(c))
}

/// The keysym name of a canonical key name ([`handrail_platform::KeyCombo::key`]).
pub(crate) fn keysym_for_key_name(name: &str) -> Option<&'static str> {
    static NAMES: std::sync::OnceLock<HashMap<&'static str, &'static str>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut m = HashMap::from([
            ("return", "Return"),
            ("tab", "Tab"),
            ("escape", "Escape"),
            ("backspace", "BackSpace"),
            ("delete", "Delete"),
            ("insert", "Insert"),
            ("home", "Home"),
            ("end", "End"),
            ("page_up", "Prior"),
            ("page_down", "Next"),
            ("left", "Left"),
            ("right", "Right"),
            ("up", "Up"),
            ("down", "Down"),
            ("space", "space"),
            ("menu", "Menu"),
            ("print", "Print"),
            ("ctrl", "Control_L"),
            ("alt", "Alt_L"),
            ("shift", "Shift_L"),
            ("super", "Super_L"),
            ("caps_lock", "Caps_Lock"),
        ]);
        for (n, f) in FUNCTION_KEYS {
            m.insert(n, f);
        }
        m
    });
    names.get(name).copied()
}

const FUNCTION_KEYS: [(&str, &str); 24] = [
    ("f1", "F1"),
    ("f2", "F2"),
    ("f3", "F3"),
    ("f4", "F4"),
    ("f5", "F5"),
    ("f6", "F6"),
    ("f7", "F7"),
    ("f8", "F8"),
    ("f9", "F9"),
    ("f10", "F10"),
    ("f11", "F11"),
    ("f12", "F12"),
    ("f13", "F13"),
    ("f14", "F14"),
    ("f15", "F15"),
    ("f16", "F16"),
    ("f17", "F17"),
    ("f18", "F18"),
    ("f19", "F19"),
    ("f20", "F20"),
    ("f21", "F21"),
    ("f22", "F22"),
    ("f23", "F23"),
    ("f24", "F24"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_is_on_the_us_layout_with_shift_where_a_person_needs_it() {
        let km = Keymap::default();
        assert_eq!(km.for_char('a'), Some(Stroke { evdev: 30, shift: false }));
        assert_eq!(km.for_char('A'), Some(Stroke { evdev: 30, shift: true }));
        assert_eq!(km.for_char('+'), Some(Stroke { evdev: 13, shift: true }));
        assert_eq!(km.for_char(' '), Some(Stroke { evdev: 57, shift: false }));
        assert_eq!(km.for_char('ก'), None);
        assert_eq!(km.named("Return"), Some(Stroke { evdev: 28, shift: false }));
    }

    #[test]
    fn other_scripts_get_keycodes_past_the_physical_keys() {
        let mut km = Keymap::default();
        let text: Vec<char> = "สวัสดี 👍 漢字".chars().collect();
        assert!(km.make_room(&text));
        assert!(km.covers(&text));
        let thai = km.for_char('ส').expect("placed");
        assert!(thai.evdev >= 256 && !thai.shift);
        assert!(!km.make_room(&text), "nothing new to place");
        let keymap = km.to_text();
        assert!(keymap.contains("key <K264> { [ U0E2A ] };"), "{keymap}");
        assert!(keymap.contains("U1F44D"));
        assert!(keymap.ends_with('\0'));
        assert!(keymap.contains("modifier_map Control { Control_L, Control_R };"));
    }

    #[test]
    fn a_full_keymap_starts_over_and_keeps_places_while_there_is_room() {
        let mut km = Keymap::default();
        let first: Vec<char> = ('\u{4e00}'..'\u{4e10}').collect();
        km.make_room(&first);
        let place = km.for_char('\u{4e05}');
        km.make_room(&['\u{0e01}']);
        assert_eq!(km.for_char('\u{4e05}'), place, "kept while there is room");
        let many: Vec<char> = ('\u{5000}'..'\u{5100}').collect();
        km.make_room(&many);
        assert!(km.covers(&many));
        assert_eq!(km.for_char('\u{4e05}'), None, "started over");
    }

    #[test]
    fn every_named_key_has_a_keysym_on_the_keymap() {
        let km = Keymap::default();
        for name in ["return", "tab", "escape", "backspace", "delete", "page_up", "f1", "f24", "menu", "print", "super"]
        {
            let sym = keysym_for_key_name(name).unwrap_or_else(|| panic!("{name}"));
            assert!(km.named(sym).is_some(), "{name} → {sym}");
        }
    }
}
