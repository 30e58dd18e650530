//! Which key types which character on the Mac's current keyboard layout.
//!
//! The backend asks the system's layout (`UCKeyTranslate` on the current keyboard input source) what
//! each of the 128 virtual keys types with no modifier, shift, option and option+shift, and hands the
//! answers to [`KeyboardLayout::from_translations`]; everything after that is here, pure. Key
//! combinations (`cmd+z`) are pressed on the key that types their character *on this layout* — `z` is
//! where `y` is on a German keyboard — the way a person presses them. On a layout that types no Latin
//! letters (Russian, Thai, Greek…) macOS reads cmd shortcuts by the US layout's keys, and so does this.
//! Text is never typed through this table: Unicode text goes as text events, in any script.

use std::collections::BTreeMap;

use crate::keycodes::KeyError;

/// Modifier states the table is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Plain,
    Shift,
    Option,
    OptionShift,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Plain, Level::Shift, Level::Option, Level::OptionShift];

    pub fn shift(self) -> bool {
        matches!(self, Level::Shift | Level::OptionShift)
    }

    pub fn option(self) -> bool {
        matches!(self, Level::Option | Level::OptionShift)
    }
}

/// The key (and the modifiers it needs) that types a character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stroke {
    pub code: u16,
    pub level: Level,
}

/// One answer of the system's layout: virtual key `code` at `level` types `text` (empty for none);
/// `dead` when the key is a dead key there (it types nothing until the next key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub code: u16,
    pub level: Level,
    pub text: String,
    pub dead: bool,
}

/// A keyboard layout, as far as handrail presses keys on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyboardLayout {
    /// The input source's name, for messages ("U.S.", "German", "Thai").
    pub name: String,
    strokes: BTreeMap<char, Stroke>,
}

/// The US (ANSI) layout's letter, digit and punctuation keys (`kVK_ANSI_*`): how macOS reads cmd
/// shortcuts when the current layout types no Latin letters.
pub const US_ANSI: &[(char, u16)] = &[
    ('a', 0x00),
    ('s', 0x01),
    ('d', 0x02),
    ('f', 0x03),
    ('h', 0x04),
    ('g', 0x05),
    ('z', 0x06),
    ('x', 0x07),
    ('c', 0x08),
    ('v', 0x09),
    ('b', 0x0B),
    ('q', 0x0C),
    ('w', 0x0D),
    ('e', 0x0E),
    ('r', 0x0F),
    ('y', 0x10),
    ('t', 0x11),
    ('1', 0x12),
    ('2', 0x13),
    ('3', 0x14),
    ('4', 0x15),
    ('6', 0x16),
    ('5', 0x17),
    ('=', 0x18),
    ('9', 0x19),
    ('7', 0x1A),
    ('-', 0x1B),
    ('8', 0x1C),
    ('0', 0x1D),
    (']', 0x1E),
    ('o', 0x1F),
    ('u', 0x20),
    ('[', 0x21),
    ('i', 0x22),
    ('p', 0x23),
    ('l', 0x25),
    ('j', 0x26),
    ('\'', 0x27),
    ('k', 0x28),
    (';', 0x29),
    ('\\', 0x2A),
    (',', 0x2B),
    ('/', 0x2C),
    ('n', 0x2D),
    ('m', 0x2E),
    ('.', 0x2F),
    ('`', 0x32),
];

impl KeyboardLayout {
    /// The layout from the system's answers. A character several keys type is pressed on the one
    /// needing the fewest modifiers (then the lowest code); keypad keys (codes 0x41–0x5C apart from
    /// F-keys) are passed over when a main key types the same, as people use the main keys.
    pub fn from_translations(name: &str, answers: impl IntoIterator<Item = Translation>) -> KeyboardLayout {
        let mut strokes: BTreeMap<char, Stroke> = BTreeMap::new();
        for t in answers {
            let mut chars = t.text.chars();
            let (Some(ch), None) = (chars.next(), chars.next()) else { continue };
            if t.dead || ch.is_control() {
                continue;
            }
            let new = Stroke { code: t.code, level: t.level };
            let better = match strokes.get(&ch) {
                None => true,
                Some(old) => rank(new) < rank(*old),
            };
            if better {
                strokes.insert(ch, new);
            }
        }
        KeyboardLayout { name: name.to_owned(), strokes }
    }

    /// The US layout itself (what a Mac with no other layout has).
    pub fn us() -> KeyboardLayout {
        let answers = US_ANSI.iter().map(|&(ch, code)| Translation {
            code,
            level: Level::Plain,
            text: ch.to_string(),
            dead: false,
        });
        KeyboardLayout::from_translations("U.S.", answers)
    }

    /// The key typing `ch` here, when one does.
    pub fn stroke(&self, ch: char) -> Option<Stroke> {
        self.strokes.get(&ch).copied()
    }

    /// Whether this layout types Latin letters (else macOS reads cmd shortcuts by the US keys).
    pub fn types_latin(&self) -> bool {
        ('a'..='z').filter(|c| self.strokes.contains_key(c)).count() >= 20
    }

    /// The key to press for the character key of a combination: the key that types `ch` on this
    /// layout; with `command` held on a non-Latin layout, the US layout's key for an ASCII character.
    /// Letters are looked up in lower case (shift is the combination's own modifier).
    pub fn combo_key(&self, ch: char, command: bool) -> Result<u16, KeyError> {
        let ch = ch.to_lowercase().next().unwrap_or(ch);
        if command && !self.types_latin() {
            if let Some(&(_, code)) = US_ANSI.iter().find(|(c, _)| *c == ch) {
                return Ok(code);
            }
        }
        match self.stroke(ch) {
            // Only a key that types it without option: option is a modifier the caller did not ask for.
            Some(Stroke { code, level }) if !level.option() => Ok(code),
            _ => Err(KeyError::NotOnLayout { ch, layout: self.name.clone() }),
        }
    }
}

/// Fewer modifiers first, main keys before the keypad, then the lower code.
fn rank(s: Stroke) -> (u8, bool, u16) {
    let modifiers = u8::from(s.level.shift()) + 2 * u8::from(s.level.option());
    (modifiers, is_keypad(s.code), s.code)
}

/// The numeric keypad's codes (`kVK_ANSI_Keypad*`).
fn is_keypad(code: u16) -> bool {
    matches!(code, 0x41 | 0x43 | 0x45 | 0x47 | 0x4B | 0x4C | 0x4E | 0x51..=0x59 | 0x5B | 0x5C)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(code: u16, level: Level, text: &str) -> Translation {
        Translation { code, level, text: text.into(), dead: false }
    }

    #[test]
    fn a_character_is_pressed_on_the_key_with_fewest_modifiers() {
        let layout = KeyboardLayout::from_translations(
            "test",
            [
                t(0x1D, Level::Plain, "0"),
                t(0x52, Level::Plain, "0"),
                t(0x12, Level::Shift, "!"),
                t(0x12, Level::Plain, "1"),
            ],
        );
        assert_eq!(layout.stroke('0'), Some(Stroke { code: 0x1D, level: Level::Plain }), "main row before keypad");
        assert_eq!(layout.stroke('!'), Some(Stroke { code: 0x12, level: Level::Shift }));
        assert_eq!(layout.stroke('x'), None);
    }

    #[test]
    fn dead_keys_control_characters_and_strings_are_not_strokes() {
        let mut dead = t(0x21, Level::Option, "´");
        dead.dead = true;
        let layout =
            KeyboardLayout::from_translations("test", [dead, t(0x24, Level::Plain, "\r"), t(0x00, Level::Plain, "ab")]);
        assert_eq!(layout.stroke('´'), None);
        assert_eq!(layout.stroke('\r'), None);
        assert_eq!(layout.stroke('a'), None);
    }

    #[test]
    fn the_us_layout_has_every_ansi_key_once() {
        let us = KeyboardLayout::us();
        assert!(us.types_latin());
        for &(ch, code) in US_ANSI {
            assert_eq!(us.combo_key(ch, true), Ok(code), "{ch}");
        }
        let mut codes: Vec<u16> = US_ANSI.iter().map(|(_, c)| *c).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), US_ANSI.len());
        assert_eq!(us.combo_key('Z', true), Ok(0x06), "letters in lower case");
        assert_eq!(
            us.combo_key('ก', false),
            Err(KeyError::NotOnLayout { ch: 'ก', layout: "U.S.".into() }),
            "Thai is typed as text, not pressed on a US key"
        );
    }
}
