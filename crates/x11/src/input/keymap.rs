//! The server's keyboard mapping, cached: which keycode (and whether shift) produces a keysym or a
//! character, which keycodes carry each modifier, and which keycodes are free to borrow.
//!
//! Only the first group's first two levels are used (plain and shifted): they are what every toolkit
//! agrees on. A character reachable only through AltGr or a second group is treated as absent and typed
//! through a spare keycode instead.

use std::collections::HashMap;

use handrail_platform::Modifiers;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, Keycode};

use crate::error::X11Error;
use handrail_platform::keysym::{self, Keysym, NO_SYMBOL};

/// How to produce one keysym: a keycode, pressed with or without shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stroke {
    pub keycode: Keycode,
    pub shift: bool,
}

/// Core modifier rows of GetModifierMapping, in protocol order.
const SHIFT_ROW: usize = 0;
const CONTROL_ROW: usize = 2;

/// A snapshot of the keyboard mapping.
#[derive(Debug, Clone, Default)]
pub struct Keymap {
    min_keycode: Keycode,
    per_keycode: u8,
    /// `per_keycode` keysyms for each keycode from `min_keycode` up.
    syms: Vec<Keysym>,
    by_keysym: HashMap<Keysym, Stroke>,
    by_char: HashMap<char, Stroke>,
    /// Keycodes of each of the eight modifiers (shift, lock, control, mod1…mod5).
    modifier_rows: Vec<Vec<Keycode>>,
    /// Keycodes with no keysym at all when the map was read.
    empty: Vec<Keycode>,
}

impl Keymap {
    /// Reads the whole mapping (two round trips).
    pub fn load(conn: &impl Connection) -> Result<Keymap, X11Error> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let count = max.saturating_sub(min).saturating_add(1);
        let map_cookie = conn.get_keyboard_mapping(min, count)?;
        let mod_cookie = conn.get_modifier_mapping()?;
        let map = map_cookie.reply()?;
        let mods = mod_cookie.reply()?;
        let per = usize::from(mods.keycodes_per_modifier());
        let modifier_rows = if per == 0 {
            vec![Vec::new(); 8]
        } else {
            mods.keycodes.chunks(per).map(|row| row.iter().copied().filter(|&k| k != 0).collect()).collect()
        };
        Ok(Keymap::from_parts(min, map.keysyms_per_keycode, map.keysyms, modifier_rows))
    }

    /// Builds the lookup tables from raw protocol data (also used by unit tests).
    pub fn from_parts(
        min_keycode: Keycode,
        per_keycode: u8,
        syms: Vec<Keysym>,
        modifier_rows: Vec<Vec<Keycode>>,
    ) -> Keymap {
        let mut km = Keymap { min_keycode, per_keycode, syms, modifier_rows, ..Keymap::default() };
        km.index();
        km
    }

    fn index(&mut self) {
        self.by_keysym.clear();
        self.by_char.clear();
        self.empty.clear();
        let per = usize::from(self.per_keycode.max(1));
        let modifier_keycodes: Vec<Keycode> = self.modifier_rows.iter().flatten().copied().collect();
        // Two passes so that an unshifted stroke always wins over a shifted one, whichever keycode comes
        // first: `<` unshifted on the 102nd key beats shift+comma.
        for want_shift in [false, true] {
            for (i, chunk) in self.syms.chunks(per).enumerate() {
                let Some(keycode) = u8::try_from(i).ok().and_then(|i| self.min_keycode.checked_add(i)) else {
                    break;
                };
                if !want_shift && chunk.iter().all(|&s| s == NO_SYMBOL) {
                    self.empty.push(keycode);
                }
                let plain = chunk.first().copied().unwrap_or(NO_SYMBOL);
                let shifted = match chunk.get(1).copied().unwrap_or(NO_SYMBOL) {
                    NO_SYMBOL => keysym::upper_case(plain).unwrap_or(NO_SYMBOL),
                    s => s,
                };
                let ks = if want_shift { shifted } else { plain };
                if ks == NO_SYMBOL {
                    continue;
                }
                // A modifier keysym is only trusted on a keycode that really carries a modifier (Xvfb lists
                // `NoSymbol Alt_L` placeholders on spare keycodes).
                if is_modifier_keysym(ks) && !modifier_keycodes.contains(&keycode) {
                    continue;
                }
                let stroke = Stroke { keycode, shift: want_shift };
                self.by_keysym.entry(ks).or_insert(stroke);
                if let Some(c) = keysym::to_char(ks) {
                    self.by_char.entry(c).or_insert(stroke);
                }
            }
        }
    }

    /// How to type `ks`, if the keyboard has it on a plain or shifted level.
    pub fn stroke_for_keysym(&self, ks: Keysym) -> Option<Stroke> {
        self.by_keysym.get(&ks).copied()
    }

    /// How to type `c`, if the keyboard has it (under any keysym spelling) on a plain or shifted level.
    pub fn stroke_for_char(&self, c: char) -> Option<Stroke> {
        self.by_char.get(&c).copied()
    }

    /// Keycodes that had no keysym when the map was read.
    pub fn empty_keycodes(&self) -> &[Keycode] {
        &self.empty
    }

    /// The keysyms per keycode of this map, for ChangeKeyboardMapping.
    pub fn keysyms_per_keycode(&self) -> u8 {
        self.per_keycode.max(1)
    }

    /// Every keycode that carries a modifier (including Caps Lock and Num Lock).
    pub fn modifier_keycodes(&self) -> impl Iterator<Item = Keycode> + '_ {
        self.modifier_rows.iter().flatten().copied()
    }

    /// Records that `keycode` now produces `ks` on both levels (after we remapped it).
    pub fn set_borrowed(&mut self, keycode: Keycode, ks: Keysym) {
        self.set_syms(keycode, ks);
    }

    /// Records that `keycode` is empty again.
    pub fn set_returned(&mut self, keycode: Keycode) {
        self.set_syms(keycode, NO_SYMBOL);
    }

    fn set_syms(&mut self, keycode: Keycode, ks: Keysym) {
        let per = usize::from(self.per_keycode.max(1));
        let Some(idx) = keycode.checked_sub(self.min_keycode).map(usize::from) else { return };
        if let Some(slot) = self.syms.get_mut(idx * per..idx * per + per) {
            slot.fill(NO_SYMBOL);
            if ks != NO_SYMBOL {
                slot[0] = ks;
                if let Some(s) = slot.get_mut(1) {
                    *s = ks;
                }
            }
            self.index();
        }
    }

    /// The keycode to press for each modifier in `mods`, in the order ctrl, alt, shift, super (the
    /// order they are pressed; they are released in reverse).
    pub fn modifier_keycodes_for(&self, mods: &Modifiers) -> Result<Vec<Keycode>, String> {
        let mut out = Vec::new();
        for (on, name) in [(mods.ctrl, "ctrl"), (mods.alt, "alt"), (mods.shift, "shift"), (mods.super_key, "super")] {
            if on {
                out.push(self.modifier_keycode(name).ok_or_else(|| format!("the keyboard has no {name} key"))?);
            }
        }
        Ok(out)
    }

    /// The keycode of a modifier by canonical name: a keycode in the modifier mapping whose keysym is
    /// that modifier's, so the server really applies the modifier.
    pub fn modifier_keycode(&self, name: &str) -> Option<Keycode> {
        let (wanted, fallback_row): (&[Keysym], Option<usize>) = match name {
            "shift" => (&[keysym::SHIFT_L, keysym::SHIFT_R], Some(SHIFT_ROW)),
            "ctrl" => (&[keysym::CONTROL_L, keysym::CONTROL_R], Some(CONTROL_ROW)),
            "alt" => (&[keysym::ALT_L, keysym::ALT_R, keysym::META_L, keysym::META_R], None),
            "super" => (&[keysym::SUPER_L, keysym::SUPER_R], None),
            _ => return None,
        };
        wanted
            .iter()
            .find_map(|&ks| self.stroke_for_keysym(ks).filter(|s| !s.shift).map(|s| s.keycode))
            .or_else(|| fallback_row.and_then(|r| self.modifier_rows.get(r)).and_then(|row| row.first().copied()))
    }

    /// The keycode for shift, used for shifted strokes.
    pub fn shift_keycode(&self) -> Option<Keycode> {
        self.modifier_keycode("shift")
    }

    /// The keycode of Caps Lock, if the keyboard has one.
    pub fn caps_lock_keycode(&self) -> Option<Keycode> {
        self.stroke_for_keysym(keysym::CAPS_LOCK).map(|s| s.keycode)
    }
}

fn is_modifier_keysym(ks: Keysym) -> bool {
    // Shift_L … Hyper_R, plus ISO_Level3_Shift/Mode_switch style keys.
    (0xffe1..=0xffee).contains(&ks) || ks == 0xfe03 || ks == 0xff7e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny US-like map: keycodes 8..=14, 4 keysyms each.
    fn sample() -> Keymap {
        let syms = vec![
            0,
            0,
            0,
            0, // 8: empty
            0x61,
            0x41,
            0x61,
            0x41, // 9: a A
            0x2c,
            0x3c,
            0,
            0, // 10: comma less
            0x3c,
            0x3e,
            0,
            0, // 11: less greater (102nd key)
            keysym::SHIFT_L,
            0,
            0,
            0, // 12: Shift_L
            0,
            keysym::ALT_L,
            0,
            0, // 13: NoSymbol Alt_L placeholder (not a modifier keycode)
            0xe9,
            0,
            0,
            0, // 14: é with implicit É
        ];
        Keymap::from_parts(8, 4, syms, vec![vec![12], vec![], vec![], vec![], vec![], vec![], vec![], vec![]])
    }

    #[test]
    fn finds_plain_and_shifted_strokes() {
        let km = sample();
        assert_eq!(km.stroke_for_char('a'), Some(Stroke { keycode: 9, shift: false }));
        assert_eq!(km.stroke_for_char('A'), Some(Stroke { keycode: 9, shift: true }));
        assert_eq!(km.stroke_for_char('<'), Some(Stroke { keycode: 11, shift: false }));
        assert_eq!(km.stroke_for_char('É'), Some(Stroke { keycode: 14, shift: true }));
        assert_eq!(km.stroke_for_char('ก'), None);
        assert_eq!(km.empty_keycodes(), &[8]);
        assert_eq!(km.shift_keycode(), Some(12));
        // The placeholder Alt_L is not a modifier keycode, so there is no alt here.
        assert_eq!(km.modifier_keycode("alt"), None);
    }

    #[test]
    fn borrowing_and_returning_keycodes_updates_lookups() {
        let mut km = sample();
        km.set_borrowed(8, 0x0100_0e01);
        assert_eq!(km.stroke_for_char('ก'), Some(Stroke { keycode: 8, shift: false }));
        assert!(km.empty_keycodes().is_empty());
        km.set_returned(8);
        assert_eq!(km.stroke_for_char('ก'), None);
        assert_eq!(km.empty_keycodes(), &[8]);
    }
}
