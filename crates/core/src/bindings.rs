//! Key bindings that accessibility reports for an element's actions, and whether a pressed combination
//! triggers one.
//!
//! A mnemonic (`alt+d` on a "_Delete" button) or an accelerator activates its element wherever focus is,
//! so the guards judge such a key press as a click on that element. Toolkits report bindings in GTK
//! accelerator syntax: `<Alt>d`, `<Control><Shift>s`, `<Primary>q`; menu items give
//! `mnemonic;path;accelerator` (`d;<Alt>e:d;<Control>Delete`), where a path step `a:b` is a sequence of
//! presses. Some report `Alt+D`. A binding that does not parse (GTK names a mnemonic on a non-ASCII letter
//! by its keysym, `<Alt>Cyrillic_u`; a toolkit may use a syntax of its own) is not dropped silently:
//! [`Bindings::unreadable`] says so, and the guards then treat the element's bindings as unknown, never
//! as "no binding".

use handrail_platform::{KeyCombo, Modifiers};

use crate::keys::parse_key_combo;

/// Longest binding string read; toolkits report a few dozen characters at most.
const MAX_BINDING_LEN: usize = 256;

/// What one reported binding string says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    /// Every single-press combination read, deduplicated. Sequences (`<Alt>e:d`) contribute their last
    /// press, which is what triggers the item once its menu is open.
    pub combos: Vec<KeyCombo>,
    /// Some non-empty part could not be read: the element may have bindings not in `combos`.
    pub unreadable: bool,
}

/// Reads one reported binding string (see the module docs).
pub fn parse_bindings(reported: &str) -> Bindings {
    let mut out = Bindings::default();
    if reported.len() > MAX_BINDING_LEN {
        out.unreadable = true;
        return out;
    }
    for field in reported.split(';') {
        let Some(last) = field.split(':').map(str::trim).rfind(|s| !s.is_empty()) else {
            continue;
        };
        match parse_one(last) {
            Some(combo) if !out.combos.contains(&combo) => out.combos.push(combo),
            Some(_) => {}
            None => out.unreadable = true,
        }
    }
    out
}

/// One press: `<Mod>…key` or `Mod+…+key`.
fn parse_one(press: &str) -> Option<KeyCombo> {
    if !press.starts_with('<') {
        return parse_key_combo(press).ok();
    }
    let mut modifiers = Modifiers::default();
    let mut rest = press;
    while let Some(after) = rest.strip_prefix('<') {
        let (name, tail) = after.split_once('>')?;
        match name.to_ascii_lowercase().as_str() {
            "control" | "ctrl" | "ctl" | "primary" => modifiers.ctrl = true,
            "alt" | "mod1" => modifiers.alt = true,
            "shift" | "shft" => modifiers.shift = true,
            "super" | "meta" | "hyper" | "mod4" => modifiers.super_key = true,
            // A release binding still fires on this key.
            "release" => {}
            _ => return None,
        }
        rest = tail;
    }
    let key = parse_key_combo(rest).ok()?;
    let m = key.modifiers;
    modifiers.ctrl |= m.ctrl;
    modifiers.alt |= m.alt;
    modifiers.shift |= m.shift;
    modifiers.super_key |= m.super_key;
    Some(KeyCombo { modifiers, key: key.key })
}

/// Whether pressing `pressed` triggers `binding`.
///
/// Generous on purpose, since a match only ever adds a guard check: shift is ignored for letters
/// (mnemonics are case-insensitive), and a binding of a bare character (a menu item's mnemonic, or a
/// toolkit that leaves the modifier out) is triggered by that character with or without alt.
pub fn triggers(pressed: &KeyCombo, binding: &KeyCombo) -> bool {
    if pressed.key != binding.key {
        return false;
    }
    let (p, b) = (pressed.modifiers, binding.modifiers);
    let character = binding.key.as_char();
    if b.is_empty() && character.is_some() {
        return !p.ctrl && !p.super_key;
    }
    let shift_matters = !character.is_some_and(char::is_alphabetic);
    p.ctrl == b.ctrl && p.alt == b.alt && p.super_key == b.super_key && (!shift_matters || p.shift == b.shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn combo(s: &str) -> KeyCombo {
        parse_key_combo(s).unwrap_or_else(|e| panic!("test combo {s:?}: {e}"))
    }

    #[test]
    fn reads_toolkit_syntax() {
        let cases: &[(&str, &[&str])] = &[
            ("<Alt>d", &["alt+d"]),
            ("<Control><Shift>s", &["ctrl+shift+s"]),
            ("<Primary>q", &["ctrl+q"]),
            ("<Mod1>x", &["alt+x"]),
            ("Alt+D", &["alt+d"]),
            ("d;<Alt>e:d;<Control>Delete", &["d", "ctrl+delete"]),
            ("<Alt>f;<Alt>f;", &["alt+f"]),
            ("", &[]),
            (";;", &[]),
            ("<Bogus>d", &[]),
            ("<Alt", &[]),
            ("<Alt>", &[]),
            ("KP_Enter", &[]),
            ("<Super>BackSpace", &["super+backspace"]),
        ];
        for (reported, want) in cases {
            let got: Vec<String> = parse_bindings(reported).combos.iter().map(|c| c.to_string()).collect();
            assert_eq!(got, *want, "{reported:?}");
        }
    }

    #[test]
    fn bindings_that_cannot_be_read_are_flagged_not_dropped() {
        for reported in ["<Alt>Cyrillic_u", "<Bogus>d", "<Alt", "KP_Enter", "<Alt>d;<Alt>Thai_kokai"] {
            assert!(parse_bindings(reported).unreadable, "{reported:?}");
        }
        for reported in ["", ";;", "<Alt>d", "d;<Alt>e:d;<Control>Delete"] {
            assert!(!parse_bindings(reported).unreadable, "{reported:?}");
        }
        assert!(parse_bindings(&"<Alt>d;".repeat(60)).unreadable, "too long to read is unreadable");
    }

    #[test]
    fn which_presses_trigger_a_binding() {
        let cases: &[(&str, &str, bool)] = &[
            ("alt+d", "alt+d", true),
            ("alt+shift+d", "alt+d", true),
            ("d", "alt+d", false),
            ("ctrl+d", "alt+d", false),
            ("alt+e", "alt+d", false),
            // A bare mnemonic letter: with or without alt, never with ctrl or super.
            ("d", "d", true),
            ("alt+d", "d", true),
            ("shift+d", "d", true),
            ("ctrl+d", "d", false),
            ("ctrl+delete", "ctrl+delete", true),
            ("ctrl+shift+delete", "ctrl+delete", false),
            ("delete", "ctrl+delete", false),
            ("ctrl+shift+s", "ctrl+shift+s", true),
            ("ctrl+s", "ctrl+shift+s", true),
            ("ctrl+1", "ctrl+shift+1", false),
        ];
        for (pressed, binding, want) in cases {
            assert_eq!(triggers(&combo(pressed), &combo(binding)), *want, "{pressed} on {binding}");
        }
    }

    proptest! {
        /// Any reported string parses without panicking, and everything it yields is a binding that
        /// its own press triggers (so a reported binding can never be unmatchable).
        #[test]
        fn any_report_parses_to_triggerable_bindings(s in ".{0,80}") {
            let read = parse_bindings(&s);
            for b in &read.combos {
                prop_assert!(triggers(b, b), "{b} does not trigger itself");
            }
            // Nothing is lost silently: a non-empty field that yields no combination is flagged.
            let fields = s.split(';').filter(|f| f.split(':').any(|p| !p.trim().is_empty())).count();
            prop_assert!(read.unreadable || read.combos.len() <= fields);
            if read.combos.is_empty() && fields > 0 {
                prop_assert!(read.unreadable, "{s:?} read as no binding at all");
            }
        }

        #[test]
        fn gtk_spelling_agrees_with_plus_spelling(
            ctrl: bool, alt: bool, shift: bool, sup: bool, key in "[a-z0-9]|delete|backspace|return|f[1-9]"
        ) {
            let mut gtk = String::new();
            let mut plus = Vec::new();
            for (on, g, p) in [(ctrl, "<Control>", "ctrl"), (alt, "<Alt>", "alt"), (shift, "<Shift>", "shift"), (sup, "<Super>", "super")] {
                if on { gtk.push_str(g); plus.push(p); }
            }
            gtk.push_str(&key);
            plus.push(&key);
            prop_assert_eq!(parse_bindings(&gtk), Bindings { combos: vec![combo(&plus.join("+"))], unreadable: false });
        }
    }
}
