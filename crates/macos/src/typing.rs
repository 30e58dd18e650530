//! How text becomes keyboard events on a Mac. Characters go as Unicode text events
//! (`CGEventKeyboardSetUnicodeString`), whatever the script or layout, so what arrives is exactly
//! what was asked; line breaks and tabs go as the Return and Tab keys, which apps act on (a text
//! event holding "\n" is not a Return to most of them). A text event carries at most
//! [`MAX_UNITS`] UTF-16 units and never splits a character (a surrogate pair) or a character from
//! the marks that follow it (Thai vowels and tone marks, combining accents, emoji modifiers and
//! zero-width joiners), so no app sees half a grapheme.

use crate::keycodes::code;

/// UTF-16 units one text event carries at most (macOS's own limit is 20).
pub const MAX_UNITS: usize = 20;

/// One keyboard event to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypingStep {
    /// A text event carrying these UTF-16 units.
    Text(Vec<u16>),
    /// Press and release a key (Return, Tab).
    Key(u16),
}

/// The events that type `text`.
pub fn plan(text: &str) -> Vec<TypingStep> {
    let mut steps = Vec::new();
    let mut chunk: Vec<u16> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let key = match c {
            '\n' => Some(code::RETURN),
            '\r' => {
                // "\r\n" is one line break.
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                Some(code::RETURN)
            }
            '\t' => Some(code::TAB),
            _ => None,
        };
        if let Some(key) = key {
            if !chunk.is_empty() {
                steps.push(TypingStep::Text(std::mem::take(&mut chunk)));
            }
            steps.push(TypingStep::Key(key));
            continue;
        }
        // A character with the marks that belong to it, kept in one event.
        let mut cluster = String::from(c);
        while let Some(&next) = chars.peek() {
            if joins_previous(next) || cluster.ends_with('\u{200D}') {
                cluster.push(next);
                chars.next();
            } else {
                break;
            }
        }
        let units: Vec<u16> = cluster.encode_utf16().collect();
        if !chunk.is_empty() && chunk.len() + units.len() > MAX_UNITS {
            steps.push(TypingStep::Text(std::mem::take(&mut chunk)));
        }
        if units.len() > MAX_UNITS {
            // A cluster longer than one event (a long run of marks) goes in pieces on char boundaries.
            let mut piece = Vec::new();
            for ch in cluster.chars() {
                let mut buf = [0u16; 2];
                let u = ch.encode_utf16(&mut buf);
                if piece.len() + u.len() > MAX_UNITS {
                    steps.push(TypingStep::Text(std::mem::take(&mut piece)));
                }
                piece.extend_from_slice(u);
            }
            chunk = piece;
        } else {
            chunk.extend(units);
        }
    }
    if !chunk.is_empty() {
        steps.push(TypingStep::Text(chunk));
    }
    steps
}

/// Characters that belong to the one before them: combining marks (Latin accents, Thai vowels above
/// and below and tone marks, Devanagari signs…), variation selectors, emoji modifiers and the zero-width
/// joiner.
fn joins_previous(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F            // combining diacritical marks
        | 0x0483..=0x0489
        | 0x0591..=0x05BD
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963
        | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E   // Thai
        | 0x0EB1 | 0x0EB4..=0x0EBC | 0x0EC8..=0x0ECD   // Lao
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF
        | 0x3099..=0x309A          // kana voicing marks
        | 0xFE00..=0xFE0F          // variation selectors
        | 0xFE20..=0xFE2F
        | 0x1F3FB..=0x1F3FF        // emoji skin tones
        | 0x200D                   // zero-width joiner
        | 0xE0020..=0xE007F        // tag characters (flags of regions)
        | 0xE0100..=0xE01EF)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text_of(steps: &[TypingStep]) -> String {
        let mut out = String::new();
        for s in steps {
            match s {
                TypingStep::Text(u) => out.push_str(&String::from_utf16(u).expect("whole characters")),
                TypingStep::Key(code::RETURN) => out.push('\n'),
                TypingStep::Key(code::TAB) => out.push('\t'),
                TypingStep::Key(k) => panic!("key {k}"),
            }
        }
        out
    }

    #[test]
    fn line_breaks_and_tabs_are_keys() {
        assert_eq!(
            plan("a\tb\r\nc\n"),
            vec![
                TypingStep::Text(vec![97]),
                TypingStep::Key(code::TAB),
                TypingStep::Text(vec![98]),
                TypingStep::Key(code::RETURN),
                TypingStep::Text(vec![99]),
                TypingStep::Key(code::RETURN),
            ]
        );
        assert!(plan("").is_empty());
    }

    #[test]
    fn thai_marks_and_emoji_stay_with_their_character() {
        // 19 'x' then "กั้" (ก + mai han-akat + mai tho): the cluster moves whole to the next event.
        let text = format!("{}กั้", "x".repeat(19));
        let steps = plan(&text);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1], TypingStep::Text("กั้".encode_utf16().collect()));
        let family = "👨‍👩‍👧"; // joined by zero-width joiners: 8 units
        let steps = plan(&format!("{}{family}", "y".repeat(15)));
        assert_eq!(steps[1], TypingStep::Text(family.encode_utf16().collect()));
    }

    proptest! {
        /// Whatever the text, the events type exactly it, none is over the limit, and none holds half
        /// a character.
        #[test]
        fn events_type_exactly_the_text(text in "[a-zก-๛\u{0300}-\u{036F}é😀👍🏽\u{200D}\n\t 。日本]{0,80}") {
            let steps = plan(&text);
            for s in &steps {
                if let TypingStep::Text(u) = s {
                    prop_assert!(!u.is_empty() && u.len() <= MAX_UNITS, "{} units", u.len());
                }
            }
            prop_assert_eq!(text_of(&steps), text.replace("\r\n", "\n").replace('\r', "\n"));
        }
    }
}
