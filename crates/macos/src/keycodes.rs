//! Keys as a Mac keyboard sends them: virtual key codes (the `kVK_*` constants of Carbon's
//! `Events.h`, the codes `CGEventCreateKeyboardEvent` takes) and the event flags of held modifiers.
//!
//! Keys that do not depend on the keyboard layout (Return, arrows, function keys, modifiers) have one
//! code everywhere. Character keys move with the layout (`z` and `y` trade places on a German
//! keyboard; `a` sits where `q` is on a French one): those come from [`crate::layout::KeyboardLayout`].

use handrail_platform::{Key, Modifiers};

/// `kVK_*` codes of the layout-independent keys.
pub mod code {
    pub const RETURN: u16 = 0x24;
    pub const TAB: u16 = 0x30;
    pub const SPACE: u16 = 0x31;
    /// The key labelled "delete" on a Mac: it deletes backwards.
    pub const DELETE: u16 = 0x33;
    pub const ESCAPE: u16 = 0x35;
    pub const COMMAND: u16 = 0x37;
    pub const SHIFT: u16 = 0x38;
    pub const OPTION: u16 = 0x3A;
    pub const CONTROL: u16 = 0x3B;
    /// The "help" key sits where Insert is on a PC keyboard; macOS has no Insert.
    pub const HELP: u16 = 0x72;
    pub const HOME: u16 = 0x73;
    pub const PAGE_UP: u16 = 0x74;
    pub const FORWARD_DELETE: u16 = 0x75;
    pub const END: u16 = 0x77;
    pub const PAGE_DOWN: u16 = 0x79;
    pub const LEFT_ARROW: u16 = 0x7B;
    pub const RIGHT_ARROW: u16 = 0x7C;
    pub const DOWN_ARROW: u16 = 0x7D;
    pub const UP_ARROW: u16 = 0x7E;
    /// F1…F20 in order (`kVK_F1` … `kVK_F20`): not contiguous.
    pub const F: [u16; 20] = [
        0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F, 0x69, 0x6B, 0x71, 0x6A, 0x40, 0x4F,
        0x50, 0x5A,
    ];
}

/// `CGEventFlags` bits of the modifiers handrail holds (`kCGEventFlagMask*`).
pub mod flag {
    pub const SHIFT: u64 = 0x0002_0000;
    pub const CONTROL: u64 = 0x0004_0000;
    pub const OPTION: u64 = 0x0008_0000;
    pub const COMMAND: u64 = 0x0010_0000;
    /// Set on arrow and navigation keys by the system's own keyboard driver; apps (text views
    /// especially) read cmd+arrow and option+arrow by it.
    pub const NUMERIC_PAD: u64 = 0x0020_0000;
    pub const FUNCTION: u64 = 0x0080_0000;
}

/// Why a key cannot be sent on a Mac.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("{0} has no key on a Mac keyboard")]
    NoSuchKey(String),
    #[error("no key of the current keyboard layout ({layout}) types {ch:?}; type it as text instead")]
    NotOnLayout { ch: char, layout: String },
}

/// The code of a layout-independent key; `None` for [`Key::Char`] (the layout's business) and keys a
/// Mac does not have.
pub fn fixed_code(key: Key) -> Option<u16> {
    Some(match key {
        Key::Return => code::RETURN,
        Key::Tab => code::TAB,
        Key::Space => code::SPACE,
        Key::Escape => code::ESCAPE,
        // handrail's names follow PC keyboards: backspace deletes backwards (the Mac's "delete"),
        // delete deletes forwards (the Mac's forward delete, fn+delete on a laptop).
        Key::Backspace => code::DELETE,
        Key::Delete => code::FORWARD_DELETE,
        Key::Home => code::HOME,
        Key::End => code::END,
        Key::PageUp => code::PAGE_UP,
        Key::PageDown => code::PAGE_DOWN,
        Key::Left => code::LEFT_ARROW,
        Key::Right => code::RIGHT_ARROW,
        Key::Up => code::UP_ARROW,
        Key::Down => code::DOWN_ARROW,
        Key::F(n @ 1..=20) => code::F[usize::from(n) - 1],
        Key::Ctrl => code::CONTROL,
        Key::Alt => code::OPTION,
        Key::Shift => code::SHIFT,
        Key::Super => code::COMMAND,
        Key::Insert | Key::Menu | Key::Print | Key::F(_) | Key::Char(_) => return None,
    })
}

/// The event flags for `modifiers` held while `key` is pressed (cmd is handrail's `super`).
pub fn flags(modifiers: Modifiers, key: Key) -> u64 {
    let mut f = 0;
    if modifiers.shift {
        f |= flag::SHIFT;
    }
    if modifiers.ctrl {
        f |= flag::CONTROL;
    }
    if modifiers.alt {
        f |= flag::OPTION;
    }
    if modifiers.super_key {
        f |= flag::COMMAND;
    }
    if matches!(key, Key::Left | Key::Right | Key::Up | Key::Down) {
        f |= flag::NUMERIC_PAD | flag::FUNCTION;
    }
    if matches!(key, Key::Home | Key::End | Key::PageUp | Key::PageDown | Key::Delete | Key::F(_)) {
        f |= flag::FUNCTION;
    }
    f
}

/// The modifier keys to press, in order, before `key` (and release in reverse after it).
pub fn modifier_codes(modifiers: Modifiers) -> Vec<u16> {
    let mut held = Vec::new();
    if modifiers.super_key {
        held.push(code::COMMAND);
    }
    if modifiers.ctrl {
        held.push(code::CONTROL);
    }
    if modifiers.alt {
        held.push(code::OPTION);
    }
    if modifiers.shift {
        held.push(code::SHIFT);
    }
    held
}

/// The event flag a modifier key's code holds down (0 for other keys).
pub fn modifier_flag(key_code: u16) -> u64 {
    match key_code {
        code::COMMAND => flag::COMMAND,
        code::CONTROL => flag::CONTROL,
        code::OPTION => flag::OPTION,
        code::SHIFT => flag::SHIFT,
        _ => 0,
    }
}

/// Why a named key has no Mac equivalent, for [`KeyError::NoSuchKey`].
pub fn missing_key_name(key: Key) -> String {
    match key {
        Key::Insert => "insert (Macs have none; shift+insert's paste is cmd+v)".into(),
        Key::Print => "print screen (cmd+shift+3 takes a screenshot)".into(),
        Key::Menu => "the menu key".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_keys_follow_carbons_table() {
        assert_eq!(fixed_code(Key::F(1)), Some(0x7A));
        assert_eq!(fixed_code(Key::F(5)), Some(0x60));
        assert_eq!(fixed_code(Key::F(12)), Some(0x6F));
        assert_eq!(fixed_code(Key::F(13)), Some(0x69));
        assert_eq!(fixed_code(Key::F(20)), Some(0x5A));
        assert_eq!(fixed_code(Key::F(21)), None);
        let mut seen = std::collections::BTreeSet::new();
        for c in code::F {
            assert!(seen.insert(c), "{c:#x} twice");
        }
    }

    #[test]
    fn pc_names_map_to_what_the_mac_keys_do() {
        assert_eq!(fixed_code(Key::Backspace), Some(code::DELETE), "deletes backwards");
        assert_eq!(fixed_code(Key::Delete), Some(code::FORWARD_DELETE));
        assert_eq!(fixed_code(Key::Super), Some(code::COMMAND));
        assert_eq!(fixed_code(Key::Alt), Some(code::OPTION));
        assert_eq!(fixed_code(Key::Insert), None);
        assert_eq!(fixed_code(Key::Char('a')), None, "the layout's business");
        assert!(missing_key_name(Key::Insert).contains("cmd+v"));
    }

    #[test]
    fn modifiers_become_flags_and_keys_to_hold() {
        let cmd_shift = Modifiers { super_key: true, shift: true, ..Modifiers::default() };
        assert_eq!(flags(cmd_shift, Key::Char('z')), flag::COMMAND | flag::SHIFT);
        assert_eq!(modifier_codes(cmd_shift), vec![code::COMMAND, code::SHIFT]);
        let option = Modifiers { alt: true, ..Modifiers::default() };
        assert_eq!(flags(option, Key::Left), flag::OPTION | flag::NUMERIC_PAD | flag::FUNCTION);
        assert_eq!(flags(Modifiers::default(), Key::Delete), flag::FUNCTION);
        assert_eq!(flags(Modifiers::default(), Key::Return), 0);
        assert!(modifier_codes(Modifiers::default()).is_empty());
        let all = Modifiers { ctrl: true, alt: true, shift: true, super_key: true };
        let held: u64 = modifier_codes(all).into_iter().map(modifier_flag).fold(0, |a, f| a | f);
        assert_eq!(held, flags(all, Key::Char('x')), "the keys held give the combination's flags");
        assert_eq!(modifier_flag(code::RETURN), 0);
    }
}
