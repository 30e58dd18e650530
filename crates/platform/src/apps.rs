//! Which apps are terminals and which are web browsers on an operating system: the OS's knowledge, not
//! the engine's. Each backend supplies the rules of the desktop it drives (in [`crate::OsRules`]), and
//! the guards ask them — a shell behind a window is judged by the terminal rules, an address bar by the
//! browser list — without knowing any OS's app names.

/// The app rules of one operating system's desktop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppRules {
    /// Window classes of terminal emulators, lower case, matched whole: the class a backend reports
    /// in [`crate::WindowInfo::class`] (an X11 `WM_CLASS`, a Wayland app id, a macOS bundle id).
    pub terminal_classes: &'static [&'static str],
    /// Web browsers by the application name accessibility reports, lower case, matched as whole
    /// words ("Google Chrome" holds "chrome"; "Archive Utility" does not hold "arc").
    pub browsers: Vec<&'static str>,
}

/// Browsers every desktop may run, by the name their accessibility tree gives the application.
const CROSS_PLATFORM_BROWSERS: &[&str] = &[
    "chromium",
    "chrome",
    "firefox",
    "brave",
    "microsoft edge",
    "vivaldi",
    "opera",
    "librewolf",
    "waterfox",
    "qutebrowser",
];

/// Browsers only Linux desktops run.
const LINUX_ONLY_BROWSERS: &[&str] = &["epiphany", "falkon", "konqueror", "midori"];

/// Browsers only Macs run.
const MACOS_ONLY_BROWSERS: &[&str] = &["safari", "arc", "orion", "duckduckgo"];

/// Bundle identifiers (lower case) of macOS terminal emulators: what the macOS backend reports as a
/// window's class.
pub const MACOS_TERMINAL_BUNDLES: &[&str] = &[
    "com.apple.terminal",
    "com.googlecode.iterm2",
    "io.alacritty",
    "org.alacritty",
    "net.kovidgoyal.kitty",
    "com.github.wez.wezterm",
    "com.mitchellh.ghostty",
    "dev.warp.warp-stable",
    "co.zeit.hyper",
    "org.tabby",
];

impl AppRules {
    /// A Linux desktop: terminals by X11 class or Wayland app id ([`crate::paste::TERMINAL_CLASSES`]).
    pub fn linux() -> Self {
        AppRules {
            terminal_classes: crate::paste::TERMINAL_CLASSES,
            browsers: [CROSS_PLATFORM_BROWSERS, LINUX_ONLY_BROWSERS].concat(),
        }
    }

    /// A macOS desktop: terminals by bundle id (Terminal.app, iTerm2, …), Safari among the browsers.
    pub fn macos() -> Self {
        AppRules {
            terminal_classes: MACOS_TERMINAL_BUNDLES,
            browsers: [CROSS_PLATFORM_BROWSERS, MACOS_ONLY_BROWSERS].concat(),
        }
    }

    /// Whether a window class names a terminal emulator here.
    pub fn is_terminal_class(&self, class: &str) -> bool {
        let class = class.trim().to_ascii_lowercase();
        self.terminal_classes.contains(&class.as_str())
    }

    /// Whether an application name (as accessibility reports it) is a web browser's.
    pub fn is_browser(&self, app: &str) -> bool {
        let app_words = words(app);
        self.browsers.iter().any(|b| {
            let name = words(b);
            !name.is_empty() && app_words.windows(name.len()).any(|w| w == name.as_slice())
        })
    }
}

/// The words of an application name, lower case ("chromium-browser" is "chromium", "browser").
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_os_knows_its_own_terminals_and_browsers() {
        let linux = AppRules::linux();
        assert!(linux.is_terminal_class("XTerm"));
        assert!(linux.is_terminal_class(" org.gnome.Console "));
        assert!(!linux.is_terminal_class("com.apple.Terminal"));
        assert!(linux.is_browser("Chromium") && linux.is_browser("Google Chrome") && linux.is_browser("Epiphany"));
        assert!(!linux.is_browser("Safari"));
        let mac = AppRules::macos();
        assert!(mac.is_terminal_class("com.apple.Terminal") && mac.is_terminal_class("com.googlecode.iTerm2"));
        assert!(!mac.is_terminal_class("xterm"), "an X11 class is no bundle id");
        assert!(!mac.is_terminal_class("Terminal"), "classes are bundle ids on a Mac, not names");
        assert!(mac.is_browser("Safari") && mac.is_browser("Firefox"));
        assert!(!mac.is_browser("Finder") && !mac.is_browser(""));
        assert!(mac.is_browser("Arc") && !mac.is_browser("Archive Utility"), "whole words");
        assert!(linux.is_browser("chromium-browser") && linux.is_browser("Microsoft Edge Beta"));
        assert!(!linux.is_browser("Edge Detector") && !linux.is_browser("Operations"));
    }

    #[test]
    fn the_lists_are_lower_case_distinct_and_share_the_cross_platform_browsers() {
        let (linux, mac) = (AppRules::linux().browsers, AppRules::macos().browsers);
        for list in [&linux[..], &mac[..], MACOS_TERMINAL_BUNDLES] {
            for (i, c) in list.iter().enumerate() {
                assert_eq!(*c, c.to_lowercase(), "{c}");
                assert!(!list[i + 1..].contains(c), "{c} twice");
            }
        }
        for b in CROSS_PLATFORM_BROWSERS {
            assert!(linux.contains(b) && mac.contains(b), "{b}");
        }
    }
}
