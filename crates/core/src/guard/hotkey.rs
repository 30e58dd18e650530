//! Dangerous hotkeys (SPEC §5.5): combinations that delete permanently or end the session.
//!
//! Checked on the canonical [`KeyCombo`] from [`crate::keys::parse_key_combo`], so names, case, aliases
//! (`cmd`, `meta`, `win` are `super`) and order cannot slip a combination past. Extra modifiers do not make
//! a dangerous combination safe (`ctrl+shift+delete` still holds shift+delete), so rules require a set of
//! modifiers rather than an exact set.

use handrail_platform::{KeyCombo, Modifiers};

/// Why `combo` is refused, or `None` when it may be pressed.
///
/// Refused: shift+delete (permanent delete, bypassing the Trash); super with delete or backspace (delete
/// files, empty the Trash); ctrl+alt+backspace (kills the X session); ctrl+alt+delete (log out / reboot);
/// ctrl+alt+shift+page_up/page_down (reboot / shut down without confirmation on KDE); ctrl+alt+F1…F12
/// (switch to a text console, leaving the desktop). All also with further modifiers. Allowed: plain delete
/// and backspace, shift+backspace, ctrl+backspace and ctrl+delete (delete a word), and everything else.
pub fn dangerous_hotkey(combo: &KeyCombo) -> Option<&'static str> {
    let m = combo.modifiers;
    let has = |need: Modifiers| {
        (!need.ctrl || m.ctrl) && (!need.alt || m.alt) && (!need.shift || m.shift) && (!need.super_key || m.super_key)
    };
    let ctrl_alt = Modifiers { ctrl: true, alt: true, ..Modifiers::default() };
    let key = combo.key.as_str();
    match key {
        "delete" if has(ctrl_alt) => Some("ends the session (log out or restart)"),
        "backspace" if has(ctrl_alt) => Some("kills the graphical session"),
        "delete" | "backspace" if m.super_key && m.shift => Some("empties the Trash or deletes permanently"),
        "delete" | "backspace" if m.super_key => Some("deletes the selected files"),
        "delete" if m.shift => Some("permanently deletes, bypassing the Trash"),
        "page_up" | "page_down" if has(ctrl_alt) && m.shift => Some("restarts or shuts down without confirmation"),
        _ if has(ctrl_alt) && is_vt_key(key) => Some("switches to a text console, leaving the desktop"),
        _ => None,
    }
}

/// The full refusal message for a dangerous combination, or `None` when it may be pressed.
pub fn hotkey_refusal(combo: &KeyCombo) -> Option<String> {
    dangerous_hotkey(combo).map(|why| {
        format!("refusing to press {}: it {why}; dangerous hotkeys are always refused", crate::keys::canonical(combo))
    })
}

/// F1…F12, the keys that select a virtual terminal with ctrl+alt.
fn is_vt_key(key: &str) -> bool {
    matches!(key, "f1" | "f2" | "f3" | "f4" | "f5" | "f6" | "f7" | "f8" | "f9" | "f10" | "f11" | "f12")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::parse_key_combo;

    fn check(keys: &str) -> Option<&'static str> {
        match parse_key_combo(keys) {
            Ok(c) => dangerous_hotkey(&c),
            Err(e) => panic!("test input {keys:?} does not parse: {e}"),
        }
    }

    #[test]
    fn refuses_dangerous_combinations() {
        let refused = [
            "shift+delete",
            "Shift+Del",
            "delete+shift",
            "ctrl+shift+delete",
            "alt+shift+delete",
            "super+delete",
            "delete+super",
            "cmd+delete",
            "win+del",
            "super+backspace",
            "Meta+BackSpace",
            "command+backspace",
            "super+shift+delete",
            "CMD+Shift+Delete",
            "super+shift+backspace",
            "ctrl+super+delete",
            "alt+super+backspace",
            "ctrl+alt+backspace",
            "control+option+backspace",
            "ctrl+alt+shift+backspace",
            "ctrl+alt+delete",
            "ctrl+alt+del",
            "alt+ctrl+delete",
            "ctrl+alt+shift+delete",
            "ctrl+alt+super+delete",
            "ctrl+alt+shift+page_down",
            "ctrl+alt+shift+pgup",
            "ctrl+alt+f1",
            "ctrl+alt+F7",
            "ctrl+alt+f12",
            "ctrl+alt+shift+f2",
        ];
        for keys in refused {
            assert!(check(keys).is_some(), "{keys:?} should be refused");
        }
    }

    #[test]
    fn allows_ordinary_combinations() {
        let allowed = [
            "delete",
            "Delete",
            "backspace",
            "shift+backspace",
            "ctrl+backspace",
            "ctrl+delete",
            "alt+backspace",
            "alt+delete",
            "ctrl+shift+backspace",
            "ctrl+alt+f13",
            "ctrl+f1",
            "alt+f4",
            "ctrl+alt+t",
            "ctrl+alt+page_down",
            "ctrl+s",
            "super",
            "shift",
            "ctrl+shift",
            "super+l",
            "return",
        ];
        for keys in allowed {
            assert_eq!(check(keys), None, "{keys:?} should be allowed");
        }
    }

    #[test]
    fn reasons_and_messages() {
        assert_eq!(check("shift+delete"), Some("permanently deletes, bypassing the Trash"));
        assert_eq!(check("ctrl+alt+backspace"), Some("kills the graphical session"));
        let c = parse_key_combo("Meta+BackSpace").ok();
        let msg = c.as_ref().and_then(hotkey_refusal).unwrap_or_default();
        assert!(msg.starts_with("refusing to press super+backspace: it deletes"), "{msg}");
        assert!(msg.contains("always refused"), "{msg}");
        assert_eq!(parse_key_combo("ctrl+s").ok().as_ref().and_then(hotkey_refusal), None);
    }
}
