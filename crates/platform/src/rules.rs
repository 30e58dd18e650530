//! The rules of the operating system a desktop runs: what its keys mean and which of its apps are
//! terminals and browsers. A backend hands over its OS's rules in [`crate::Desktop::rules`]; the
//! engine's guards judge by them and name no OS themselves.

use crate::apps::AppRules;
use crate::policy::KeyPolicy;

/// One operating system's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OsRules {
    pub keys: KeyPolicy,
    pub apps: AppRules,
}

impl OsRules {
    /// Linux desktops (X11 and Wayland alike).
    pub fn linux() -> Self {
        OsRules { keys: KeyPolicy::linux(), apps: AppRules::linux() }
    }

    /// macOS (cmd is the super modifier; apps by bundle id).
    pub fn macos() -> Self {
        OsRules { keys: KeyPolicy::macos(), apps: AppRules::macos() }
    }

    /// Which OS, for messages and tests.
    pub fn os(&self) -> &'static str {
        self.keys.os
    }
}
