//! Which windows are terminals, and which key pastes into a window: rules every backend and the
//! guards share, by the window's class (X11 `WM_CLASS` class or instance, Wayland app id).

/// Window classes, lower case, of terminal emulators. ctrl+v is not paste there (`^V` is
/// literal-next in shells); shift+Insert is.
pub const TERMINAL_CLASSES: &[&str] = &[
    "xterm",
    "uxterm",
    "urxvt",
    "rxvt",
    "rxvt-unicode",
    "aterm",
    "eterm",
    "st",
    "st-256color",
    "alacritty",
    "kitty",
    "foot",
    "footclient",
    "wezterm",
    "org.wezfurlong.wezterm",
    "xfce4-terminal",
    "gnome-terminal",
    "gnome-terminal-server",
    "org.gnome.terminal",
    "org.gnome.console",
    "kgx",
    "org.gnome.ptyxis",
    "ptyxis",
    "konsole",
    "org.kde.konsole",
    "yakuake",
    "tilix",
    "com.gexperts.tilix",
    "terminator",
    "lxterminal",
    "qterminal",
    "mate-terminal",
    "sakura",
    "terminology",
    "ghostty",
    "com.mitchellh.ghostty",
    "guake",
    "tilda",
    "cool-retro-term",
    "io.elementary.terminal",
    "deepin-terminal",
    "x-terminal-emulator",
];

/// Window classes of editors with no dependable paste key (Emacs scrolls on ctrl+v, Vim starts a
/// visual block or inserts a literal, and what shift+Insert does depends on the mode): they get keys
/// only.
pub const NO_PASTE_KEY_CLASSES: &[&str] = &["emacs", "gvim", "vim"];

/// Whether a window class names a terminal emulator.
pub fn is_terminal_class(class: &str) -> bool {
    let class = class.trim().to_ascii_lowercase();
    TERMINAL_CLASSES.contains(&class.as_str())
}

/// How text is pasted into a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasteKey {
    /// ctrl+v with the text on the clipboard: GTK, Qt, Chromium, Firefox, LibreOffice…
    CtrlV,
    /// shift+Insert (X11 backends also put the text on PRIMARY): terminals.
    ShiftInsert,
    /// No dependable paste key: type everything as keys.
    None,
}

/// The paste key for a window whose class parts are `parts` (X11 gives instance and class; a
/// Wayland app id is one part). Unknown classes paste with ctrl+v.
pub fn paste_key_for<'a>(parts: impl IntoIterator<Item = &'a str>) -> PasteKey {
    let parts: Vec<String> = parts.into_iter().map(|p| p.trim().to_ascii_lowercase()).collect();
    let is = |list: &[&str]| parts.iter().any(|p| list.contains(&p.as_str()));
    if is(TERMINAL_CLASSES) {
        PasteKey::ShiftInsert
    } else if is(NO_PASTE_KEY_CLASSES) {
        PasteKey::None
    } else {
        PasteKey::CtrlV
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminals_paste_with_shift_insert_editors_without_keys_others_with_ctrl_v() {
        assert_eq!(paste_key_for(["org.gnome.Terminal"]), PasteKey::ShiftInsert);
        assert_eq!(paste_key_for(["xterm", "XTerm"]), PasteKey::ShiftInsert);
        assert_eq!(paste_key_for(["emacs", "Emacs"]), PasteKey::None);
        assert_eq!(paste_key_for(["org.gnome.TextEditor"]), PasteKey::CtrlV);
        assert_eq!(paste_key_for([]), PasteKey::CtrlV);
        assert!(is_terminal_class(" Org.Gnome.Console "));
        assert!(!is_terminal_class("chromium"));
    }

    #[test]
    fn the_lists_are_lower_case_and_distinct() {
        for list in [TERMINAL_CLASSES, NO_PASTE_KEY_CLASSES] {
            for (i, c) in list.iter().enumerate() {
                assert_eq!(*c, c.to_ascii_lowercase(), "{c}");
                assert!(!list[i + 1..].contains(c), "{c} twice");
            }
        }
    }
}
