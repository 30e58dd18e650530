//! Keysyms: canonical key names and characters to X keysyms, and keysyms back to characters. X11 types
//! with them, and so do desktops whose remote-input interfaces take keysyms (GNOME's).
//!
//! Only what handrail needs: the named keys of [`crate::KeyCombo`], any Unicode character
//! (Latin-1 keysyms equal their code point; everything else has a Unicode keysym, `0x0100_0000 + cp`),
//! and the reverse for the legacy keysym ranges a keyboard layout is likely to carry for the scripts
//! handrail is used with (Latin-1, Thai). A keysym we cannot read back as a character only means we do
//! not find that character on the keyboard and type it through a spare keycode instead, which is always
//! correct, just slower.

/// An X keysym (the protocol's 32-bit keysym value).
pub type Keysym = u32;

/// The empty keysym.
pub const NO_SYMBOL: Keysym = 0;

pub const SHIFT_L: Keysym = 0xffe1;
pub const SHIFT_R: Keysym = 0xffe2;
pub const CONTROL_L: Keysym = 0xffe3;
pub const CONTROL_R: Keysym = 0xffe4;
pub const CAPS_LOCK: Keysym = 0xffe5;
pub const META_L: Keysym = 0xffe7;
pub const META_R: Keysym = 0xffe8;
pub const ALT_L: Keysym = 0xffe9;
pub const ALT_R: Keysym = 0xffea;
pub const SUPER_L: Keysym = 0xffeb;
pub const SUPER_R: Keysym = 0xffec;
pub const RETURN: Keysym = 0xff0d;
pub const TAB: Keysym = 0xff09;
pub const INSERT: Keysym = 0xff63;

/// The keysym of `F1`; `F2`…`F35` follow it contiguously.
const F1: Keysym = 0xffbe;

/// Named keys (canonical names as produced by `handrail_core::keys::parse_key_combo`) and their keysyms.
const NAMED: &[(&str, Keysym)] = &[
    ("return", RETURN),
    ("tab", TAB),
    ("escape", 0xff1b),
    ("backspace", 0xff08),
    ("delete", 0xffff),
    ("insert", INSERT),
    ("home", 0xff50),
    ("end", 0xff57),
    ("page_up", 0xff55),
    ("page_down", 0xff56),
    ("left", 0xff51),
    ("up", 0xff52),
    ("right", 0xff53),
    ("down", 0xff54),
    ("space", 0x20),
    ("menu", 0xff67),
    ("print", 0xff61),
    // Bare modifiers pressed on their own.
    ("ctrl", CONTROL_L),
    ("alt", ALT_L),
    ("shift", SHIFT_L),
    ("super", SUPER_L),
];

/// The keysym of a canonical key name: a named key, `f1`…`f24`, or a single character.
///
/// A key press is sent as the keyboard layout of its script would send it: a Thai letter as its
/// legacy `Thai_*` keysym, which is what apps match mnemonics and shortcuts against (GTK compares the
/// keyval of `_ล` with the event's, and a Unicode keysym for the same letter is another keyval).
/// Typed text needs no such care: apps read the character, not the keyval.
pub fn for_key_name(name: &str) -> Option<Keysym> {
    if let Some((_, ks)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Some(*ks);
    }
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return legacy_for_char(c).or_else(|| for_char(c));
    }
    let n: u32 = name.strip_prefix('f')?.parse().ok()?;
    ((1..=24).contains(&n) && name[1..] == n.to_string()).then(|| F1 + n - 1)
}

/// The keysym that types `c`. Control characters have none (newline and tab are typed as the keys
/// Return and Tab); everything else has one.
pub fn for_char(c: char) -> Option<Keysym> {
    let cp = u32::from(c);
    match cp {
        0x20..=0x7e | 0xa0..=0xff => Some(cp),
        _ if c.is_control() => None,
        _ => Some(0x0100_0000 + cp),
    }
}

/// The legacy keysym a keyboard layout uses for `c`, where keysymdef.h has one beyond Latin-1 (Thai:
/// the inverse of [`to_char`]'s table).
fn legacy_for_char(c: char) -> Option<Keysym> {
    let cp = u32::from(c);
    let ks = match cp {
        0x0e01..=0x0e5f => cp - 0x0e01 + 0x0da1,
        _ => return None,
    };
    (to_char(ks) == Some(c)).then_some(ks)
}

/// The character a keysym types, for the ranges a keyboard layout plausibly carries (see module docs).
pub fn to_char(ks: Keysym) -> Option<char> {
    match ks {
        0x20..=0x7e | 0xa0..=0xff => char::from_u32(ks),
        // Unicode keysyms. 0x0100_0000..0x0100_00ff would duplicate Latin-1 and are not used by layouts.
        0x0100_0100..=0x0110_ffff => char::from_u32(ks - 0x0100_0000),
        // Thai (keysymdef.h "Thai_*"): contiguous with U+0E01…U+0E59, with unassigned gaps.
        0x0da1..=0x0dda | 0x0ddf..=0x0df9 => char::from_u32(ks - 0x0da1 + 0x0e01),
        0x20ac => Some('€'),
        _ => None,
    }
}

/// The upper-case partner of a keysym the core protocol leaves implicit: when a keycode lists only a
/// lower-case letter, shift gives its upper case (X11 protocol, section 5 "Keyboards").
pub fn upper_case(ks: Keysym) -> Option<Keysym> {
    let c = to_char(ks)?;
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) if u != c => for_char(u),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_have_keysyms() {
        for name in [
            "return",
            "tab",
            "escape",
            "backspace",
            "delete",
            "insert",
            "home",
            "end",
            "page_up",
            "page_down",
            "left",
            "right",
            "up",
            "down",
            "space",
            "menu",
            "print",
            "ctrl",
            "alt",
            "shift",
            "super",
            "f1",
            "f12",
            "f24",
            "a",
            "/",
            "+",
            "-",
            "ก",
            "é",
        ] {
            assert!(for_key_name(name).is_some(), "{name}");
        }
        assert_eq!(for_key_name("f1"), Some(0xffbe));
        assert_eq!(for_key_name("f24"), Some(0xffd5));
        assert_eq!(for_key_name("a"), Some(0x61));
        // Key presses of Thai letters use the layout's keysyms (Thai_kokai, Thai_lochula).
        assert_eq!(for_key_name("ก"), Some(0x0da1));
        assert_eq!(for_key_name("ล"), Some(0x0dc5));
        assert_eq!(for_key_name("ж"), Some(0x0100_0436));
        for cp in 0x0e01..=0x0e5f {
            if let Some(c) = char::from_u32(cp) {
                if let Some(ks) = for_key_name(&c.to_string()) {
                    assert_eq!(to_char(ks), Some(c), "{c} round-trips through {ks:#x}");
                }
            }
        }
        for bad in ["f0", "f25", "f01", "", "enter", "ctrl+a"] {
            assert_eq!(for_key_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn characters_round_trip() {
        for c in ['a', 'Z', ' ', '~', 'é', 'ÿ', 'ก', 'ไ', '日', '👍', '€'] {
            let ks = for_char(c);
            assert!(ks.is_some(), "{c}");
            assert_eq!(ks.and_then(to_char), Some(c), "{c}");
        }
        assert_eq!(for_char('\n'), None);
        assert_eq!(for_char('\u{7f}'), None);
    }

    #[test]
    fn legacy_thai_keysyms_read_back() {
        assert_eq!(to_char(0x0da1), Some('ก'));
        assert_eq!(to_char(0x0dd4), Some('ิ'));
        assert_eq!(to_char(0x0df9), Some('๙'));
        assert_eq!(to_char(0xff0d), None);
    }

    #[test]
    fn implicit_upper_case() {
        assert_eq!(upper_case(0x61), Some(0x41));
        assert_eq!(upper_case(0xe9), Some(0xc9));
        assert_eq!(upper_case(0x31), None);
        assert_eq!(upper_case(0x41), None);
    }
}
