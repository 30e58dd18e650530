//! Menu items' keyboard shortcuts as macOS accessibility reports them (`AXMenuItemCmdChar`,
//! `AXMenuItemCmdVirtualKey`, `AXMenuItemCmdGlyph`, `AXMenuItemCmdModifiers`), written the way
//! handrail's binding reader takes them (`cmd+shift+s`). A shortcut that cannot be written (a glyph
//! not known here) comes out as a string the reader marks unreadable, so the guards treat the item's
//! shortcuts as unknown rather than as none.

/// `AXMenuItemCmdModifiers` bits (`kAXMenuItemModifier*`): command is held unless `NO_COMMAND`.
pub mod modifier {
    pub const SHIFT: i64 = 1 << 0;
    pub const OPTION: i64 = 1 << 1;
    pub const CONTROL: i64 = 1 << 2;
    pub const NO_COMMAND: i64 = 1 << 3;
}

/// What a menu item reports about its shortcut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MenuShortcut {
    /// `AXMenuItemCmdChar`: the character, as shown ("S", "," ); empty when a glyph is used.
    pub char: String,
    /// `AXMenuItemCmdGlyph` (`kMenu*Glyph`), when the key is drawn as a glyph (delete, arrows…).
    pub glyph: Option<i64>,
    /// `AXMenuItemCmdModifiers`.
    pub modifiers: i64,
}

/// `kMenu*Glyph` values of keys handrail can name.
fn glyph_key(glyph: i64) -> Option<&'static str> {
    Some(match glyph {
        0x02 => "tab",
        0x09 => "space",
        0x0A => "delete",
        0x0B | 0x04 => "return",
        0x17 => "backspace",
        0x1B => "escape",
        0x64 => "left",
        0x65 => "right",
        0x68 => "up",
        0x6A => "down",
        0x6F => "f1",
        0x70 => "f2",
        0x71 => "f3",
        0x72 => "f4",
        0x73 => "f5",
        0x74 => "f6",
        0x75 => "f7",
        0x76 => "f8",
        0x77 => "f9",
        0x78 => "f10",
        0x79 => "f11",
        0x7A => "f12",
        0x62 => "page_up",
        0x6B => "page_down",
        _ => return None,
    })
}

/// The shortcut as a binding string, `None` when the item has none.
pub fn binding(shortcut: &MenuShortcut) -> Option<String> {
    let key = match (shortcut.char.trim(), shortcut.glyph) {
        ("", None) => return None,
        ("", Some(glyph)) => match glyph_key(glyph) {
            Some(k) => k.to_owned(),
            // Not a key name: the reader marks it unreadable.
            None => return Some(format!("<Glyph{glyph}>")),
        },
        (c, _) => {
            let mut chars = c.chars();
            match (chars.next(), chars.next()) {
                (Some(ch), None) => ch.to_lowercase().collect(),
                _ => return Some(format!("<Unreadable>{c}")),
            }
        }
    };
    let m = shortcut.modifiers;
    let mut parts: Vec<&str> = Vec::new();
    if m & modifier::CONTROL != 0 {
        parts.push("ctrl");
    }
    if m & modifier::OPTION != 0 {
        parts.push("alt");
    }
    if m & modifier::SHIFT != 0 {
        parts.push("shift");
    }
    if m & modifier::NO_COMMAND == 0 {
        parts.push("cmd");
    }
    parts.push(&key);
    Some(parts.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortcut(char: &str, glyph: Option<i64>, modifiers: i64) -> Option<String> {
        binding(&MenuShortcut { char: char.into(), glyph, modifiers })
    }

    #[test]
    fn finders_move_to_trash_and_save_as_read_as_keys() {
        assert_eq!(shortcut("", Some(0x17), 0).as_deref(), Some("cmd+backspace"), "Move to Trash");
        assert_eq!(
            shortcut("", Some(0x17), modifier::OPTION).as_deref(),
            Some("alt+cmd+backspace"),
            "Delete Immediately"
        );
        assert_eq!(shortcut("S", None, modifier::SHIFT).as_deref(), Some("shift+cmd+s"));
        assert_eq!(shortcut(",", None, 0).as_deref(), Some("cmd+,"));
        assert_eq!(shortcut("Q", None, modifier::CONTROL).as_deref(), Some("ctrl+cmd+q"));
        assert_eq!(shortcut("", Some(0x1B), modifier::NO_COMMAND).as_deref(), Some("escape"));
        assert_eq!(shortcut("", None, 0), None);
    }

    #[test]
    fn what_cannot_be_named_is_not_silently_dropped() {
        assert_eq!(shortcut("", Some(0x8A), 0).as_deref(), Some("<Glyph138>"));
        assert_eq!(shortcut("ab", None, 0).as_deref(), Some("<Unreadable>ab"));
    }
}
