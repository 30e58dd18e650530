//! What key combinations mean on an operating system: which keys paste, which select all, and which
//! hotkeys destroy data or end the session. This is the OS's policy, not the engine's: each backend
//! supplies the policy of the desktop it drives ([`KeyPolicy::linux`] for X11 and Wayland desktops;
//! [`KeyPolicy::macos`] shows what a macOS backend hands over), and the engine's guards judge keys by
//! it without knowing any OS.
//!
//! Rules match a key and a set of modifiers that must *all* be held, with more allowed (extra
//! modifiers never make a dangerous combination safe: `ctrl+shift+delete` still holds shift+delete),
//! and optionally modifiers that must not be.

use crate::input::{Key, KeyCombo, Modifiers};

/// One rule: any of `keys`, with at least the modifiers of `with` and none of `without`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRule {
    pub keys: &'static [Key],
    pub with: Modifiers,
    pub without: Modifiers,
    /// What the combination does, completing "it …" (for dangerous hotkeys).
    pub does: &'static str,
}

impl KeyRule {
    pub fn matches(&self, combo: &KeyCombo) -> bool {
        let m = combo.modifiers;
        let held = |need: bool, has: bool| !need || has;
        let free = |banned: bool, has: bool| !(banned && has);
        self.keys.contains(&combo.key)
            && held(self.with.ctrl, m.ctrl)
            && held(self.with.alt, m.alt)
            && held(self.with.shift, m.shift)
            && held(self.with.super_key, m.super_key)
            && free(self.without.ctrl, m.ctrl)
            && free(self.without.alt, m.alt)
            && free(self.without.shift, m.shift)
            && free(self.without.super_key, m.super_key)
    }
}

/// The key policy of one operating system's desktop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPolicy {
    /// Which OS, for messages and tests.
    pub os: &'static str,
    /// Combinations that paste the clipboard.
    pub paste: Vec<KeyRule>,
    /// The combination that selects all text in a field.
    pub select_all: KeyCombo,
    /// The combination that closes a browser's tab (its window when it is the last).
    pub close_tab: KeyCombo,
    /// The combination that takes a browser back one page.
    pub go_back: KeyCombo,
    /// Combinations that destroy data or end the session, first match wins: always refused.
    pub dangerous: Vec<KeyRule>,
    /// Keys that delete what is selected in a list, tree, table, icon view or mail list (on a receiver
    /// that takes no text, where they remove characters instead): judged as removals.
    pub delete_selection: Vec<KeyRule>,
}

const NO_MODIFIERS: Modifiers = Modifiers { ctrl: false, alt: false, shift: false, super_key: false };
const CTRL: Modifiers = Modifiers { ctrl: true, ..NO_MODIFIERS };
const ALT: Modifiers = Modifiers { alt: true, ..NO_MODIFIERS };
const SHIFT: Modifiers = Modifiers { shift: true, ..NO_MODIFIERS };
const SUPER: Modifiers = Modifiers { super_key: true, ..NO_MODIFIERS };
const CTRL_ALT: Modifiers = Modifiers { ctrl: true, alt: true, ..NO_MODIFIERS };
const CTRL_ALT_SHIFT: Modifiers = Modifiers { ctrl: true, alt: true, shift: true, ..NO_MODIFIERS };
const SUPER_SHIFT: Modifiers = Modifiers { super_key: true, shift: true, ..NO_MODIFIERS };
const SUPER_ALT: Modifiers = Modifiers { super_key: true, alt: true, ..NO_MODIFIERS };
const SUPER_CTRL: Modifiers = Modifiers { super_key: true, ctrl: true, ..NO_MODIFIERS };

/// F1…F12: with ctrl+alt they select a virtual terminal on Linux.
const VT_KEYS: &[Key] = &[
    Key::F(1),
    Key::F(2),
    Key::F(3),
    Key::F(4),
    Key::F(5),
    Key::F(6),
    Key::F(7),
    Key::F(8),
    Key::F(9),
    Key::F(10),
    Key::F(11),
    Key::F(12),
];

fn rule(keys: &'static [Key], with: Modifiers, does: &'static str) -> KeyRule {
    KeyRule { keys, with, without: NO_MODIFIERS, does }
}

impl KeyPolicy {
    /// A Linux desktop (GNOME, KDE, Xfce, sway…): ctrl+v, ctrl+shift+v (terminals) and shift+insert
    /// paste; ctrl+a selects all. Refused: ctrl+alt+delete (log out or restart), ctrl+alt+backspace
    /// (kills the X session), super+shift with delete or backspace (empties the Trash), super with
    /// delete or backspace (deletes the selected files), shift+delete (deletes permanently, bypassing
    /// the Trash), ctrl+alt+shift+page up/down (restart or shut down without confirmation on KDE),
    /// ctrl+alt+F1…F12 (switches to a text console). Plain delete and backspace, shift+backspace,
    /// ctrl+backspace and ctrl+delete (delete a word) are fine.
    pub fn linux() -> Self {
        KeyPolicy {
            os: "linux",
            paste: vec![
                KeyRule { keys: &[Key::Char('v')], with: CTRL, without: ALT, does: "pastes" },
                KeyRule {
                    keys: &[Key::Insert],
                    with: SHIFT,
                    without: Modifiers { ctrl: true, alt: true, ..NO_MODIFIERS },
                    does: "pastes",
                },
            ],
            select_all: KeyCombo { modifiers: CTRL, key: Key::Char('a') },
            close_tab: KeyCombo { modifiers: CTRL, key: Key::Char('w') },
            go_back: KeyCombo { modifiers: ALT, key: Key::Left },
            dangerous: vec![
                rule(&[Key::Delete], CTRL_ALT, "ends the session (log out or restart)"),
                rule(&[Key::Backspace], CTRL_ALT, "kills the graphical session"),
                rule(&[Key::Delete, Key::Backspace], SUPER_SHIFT, "empties the Trash or deletes permanently"),
                rule(&[Key::Delete, Key::Backspace], SUPER, "deletes the selected files"),
                rule(&[Key::Delete], SHIFT, "permanently deletes, bypassing the Trash"),
                rule(&[Key::PageUp, Key::PageDown], CTRL_ALT_SHIFT, "restarts or shuts down without confirmation"),
                rule(VT_KEYS, CTRL_ALT, "switches to a text console, leaving the desktop"),
            ],
            // Delete with any modifiers: file managers, mail clients and web lists delete what is
            // selected (ctrl: some file managers' move to Trash).
            delete_selection: vec![rule(&[Key::Delete], NO_MODIFIERS, "deletes what is selected")],
        }
    }

    /// A macOS desktop (cmd is the super modifier): cmd+v pastes, cmd+a selects all. Refused:
    /// cmd+option+delete (deletes immediately, bypassing the Trash), cmd+shift+delete (empties the
    /// Trash), cmd+delete (moves the selected files to the Trash), ctrl+cmd+q (locks the screen),
    /// cmd+shift+q (logs out).
    pub fn macos() -> Self {
        KeyPolicy {
            os: "macos",
            paste: vec![KeyRule { keys: &[Key::Char('v')], with: SUPER, without: NO_MODIFIERS, does: "pastes" }],
            select_all: KeyCombo { modifiers: SUPER, key: Key::Char('a') },
            close_tab: KeyCombo { modifiers: SUPER, key: Key::Char('w') },
            go_back: KeyCombo { modifiers: SUPER, key: Key::Char('[') },
            dangerous: vec![
                rule(&[Key::Delete, Key::Backspace], SUPER_ALT, "deletes immediately, bypassing the Trash"),
                rule(&[Key::Delete, Key::Backspace], SUPER_SHIFT, "empties the Trash"),
                rule(&[Key::Delete, Key::Backspace], SUPER, "moves the selected files to the Trash"),
                rule(&[Key::Char('q')], SUPER_CTRL, "locks the screen"),
                rule(&[Key::Char('q')], SUPER_SHIFT, "logs out"),
            ],
            // The Mac's delete key is backspace: Mail and Finder's lists delete what is selected with it
            // (and forward delete), with or without cmd.
            delete_selection: vec![rule(&[Key::Delete, Key::Backspace], NO_MODIFIERS, "deletes what is selected")],
        }
    }

    /// What `combo` would destroy or end, when it is a dangerous hotkey here.
    pub fn dangerous(&self, combo: &KeyCombo) -> Option<&'static str> {
        self.dangerous.iter().find(|r| r.matches(combo)).map(|r| r.does)
    }

    /// Whether `combo`, on a receiver that takes no text, deletes what is selected there.
    pub fn deletes_selection(&self, combo: &KeyCombo) -> bool {
        self.delete_selection.iter().any(|r| r.matches(combo))
    }

    /// Whether `combo` pastes the clipboard here.
    pub fn is_paste(&self, combo: &KeyCombo) -> bool {
        self.paste.iter().any(|r| r.matches(combo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn combo(mods: Modifiers, key: Key) -> KeyCombo {
        KeyCombo { modifiers: mods, key }
    }

    #[test]
    fn linux_refuses_what_destroys_or_ends_and_allows_editing() {
        let p = KeyPolicy::linux();
        for (mods, key) in [
            (SHIFT, Key::Delete),
            (Modifiers { ctrl: true, shift: true, ..NO_MODIFIERS }, Key::Delete),
            (SUPER, Key::Backspace),
            (SUPER_SHIFT, Key::Delete),
            (CTRL_ALT, Key::Backspace),
            (CTRL_ALT, Key::Delete),
            (CTRL_ALT_SHIFT, Key::PageDown),
            (CTRL_ALT, Key::F(3)),
        ] {
            assert!(p.dangerous(&combo(mods, key)).is_some(), "{}", combo(mods, key));
        }
        for (mods, key) in [
            (NO_MODIFIERS, Key::Delete),
            (NO_MODIFIERS, Key::Backspace),
            (SHIFT, Key::Backspace),
            (CTRL, Key::Backspace),
            (CTRL, Key::Delete),
            (CTRL_ALT, Key::F(13)),
            (CTRL, Key::Char('s')),
        ] {
            assert_eq!(p.dangerous(&combo(mods, key)), None, "{}", combo(mods, key));
        }
        assert!(p.is_paste(&combo(CTRL, Key::Char('v'))));
        assert!(p.is_paste(&combo(Modifiers { ctrl: true, shift: true, ..NO_MODIFIERS }, Key::Char('v'))));
        assert!(p.is_paste(&combo(SHIFT, Key::Insert)));
        assert!(!p.is_paste(&combo(CTRL_ALT, Key::Char('v'))));
        assert!(!p.is_paste(&combo(SUPER, Key::Char('v'))));
    }

    #[test]
    fn macos_has_its_own_keys() {
        let p = KeyPolicy::macos();
        assert!(p.is_paste(&combo(SUPER, Key::Char('v'))));
        assert!(!p.is_paste(&combo(CTRL, Key::Char('v'))));
        assert!(p.dangerous(&combo(SUPER, Key::Backspace)).is_some());
        assert!(p.dangerous(&combo(SHIFT, Key::Delete)).is_none(), "forward-delete text on a Mac");
        assert_eq!(p.select_all, combo(SUPER, Key::Char('a')));
        assert_eq!((p.close_tab.to_string(), p.go_back.to_string()), ("super+w".into(), "super+[".into()));
        let linux = KeyPolicy::linux();
        assert_eq!((linux.close_tab.to_string(), linux.go_back.to_string()), ("ctrl+w".into(), "alt+left".into()));
        assert!(p.deletes_selection(&combo(NO_MODIFIERS, Key::Backspace)), "Mail deletes a message with it");
        assert!(p.deletes_selection(&combo(SUPER, Key::Delete)));
        assert!(!p.deletes_selection(&combo(SUPER, Key::Char('d'))));
    }

    #[test]
    fn on_linux_delete_with_any_modifiers_deletes_a_selection_and_backspace_does_not() {
        let p = KeyPolicy::linux();
        for mods in [NO_MODIFIERS, CTRL, SHIFT, ALT, CTRL_ALT] {
            assert!(p.deletes_selection(&combo(mods, Key::Delete)), "{}", combo(mods, Key::Delete));
        }
        assert!(!p.deletes_selection(&combo(NO_MODIFIERS, Key::Backspace)));
        assert!(!p.deletes_selection(&combo(NO_MODIFIERS, Key::Char('d'))));
    }
}
