//! Dangerous hotkeys (SPEC §5.5): combinations that delete permanently or end the session.
//!
//! Checked on the canonical [`KeyCombo`] from [`crate::keys::parse_key_combo`], so names, case, aliases
//! (`cmd`, `meta`, `win` are `super`) and order cannot slip a combination past. Which combinations are
//! dangerous is the desktop's OS policy ([`KeyPolicy`], supplied by the backend): its rules require a set
//! of modifiers rather than an exact set, so extra modifiers never make a dangerous combination safe.

use handrail_platform::{KeyCombo, KeyPolicy};

/// The full refusal for a combination `keys` says is dangerous on this desktop, or `None` when it may
/// be pressed: what the engine answers (rule `dangerous_hotkey`). Which combinations those are is the
/// OS's policy, supplied by the backend.
pub fn hotkey_refusal(combo: &KeyCombo, keys: &KeyPolicy) -> Option<String> {
    keys.dangerous(combo).map(|why| {
        format!("refusing to press {}: it {why}; dangerous hotkeys are always refused", crate::keys::canonical(combo))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::parse_key_combo;

    fn check(keys: &str) -> Option<&'static str> {
        match parse_key_combo(keys) {
            Ok(c) => KeyPolicy::linux().dangerous(&c),
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
        let linux = KeyPolicy::linux();
        let msg = c.as_ref().and_then(|c| hotkey_refusal(c, &linux)).unwrap_or_default();
        assert!(msg.starts_with("refusing to press super+backspace: it deletes"), "{msg}");
        assert!(msg.contains("always refused"), "{msg}");
        assert_eq!(parse_key_combo("ctrl+s").ok().as_ref().and_then(|c| hotkey_refusal(c, &linux)), None);
    }
}
