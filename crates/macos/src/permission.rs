//! The permissions macOS asks the person for, and what handrail does without them.
//!
//! Three are involved: **Accessibility** (reading other apps' elements), **Screen Recording**
//! (capturing anything but the desktop picture and handrail's own windows) and **posting events**
//! (synthesised input; granted with Accessibility in System Settings). None is ever a crash: without
//! Accessibility observations say `ax=permission_required` and the visual path (screenshot + OCR)
//! goes on; without Screen Recording a capture is refused with where to grant it; without input
//! every action that would press or type is refused before anything is sent.
//!
//! The system prompt is asked for at most once per permission in a process (macOS shows it once
//! and then only System Settings can change the answer); later checks only look. Accessibility
//! granted while handrail runs takes effect at the next check; Screen Recording only after a
//! restart, which the message says.

use std::collections::BTreeSet;

/// A permission macOS gates handrail's work behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Permission {
    Accessibility,
    ScreenRecording,
    PostEvents,
}

impl Permission {
    /// Where the person grants it.
    pub fn settings_pane(self) -> &'static str {
        match self {
            Permission::Accessibility | Permission::PostEvents => {
                "System Settings › Privacy & Security › Accessibility"
            }
            Permission::ScreenRecording => "System Settings › Privacy & Security › Screen & System Audio Recording",
        }
    }

    fn what_for(self) -> &'static str {
        match self {
            Permission::Accessibility => "reading the elements of other apps",
            Permission::ScreenRecording => "capturing the screen",
            Permission::PostEvents => "clicking and typing",
        }
    }
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    Granted,
    /// Not granted; the message says what is missing and where to grant it.
    Denied(String),
    /// Granted since the process started, but macOS applies it only to a new process.
    NeedsRestart(String),
}

/// The permission checks of one process (see the module docs).
#[derive(Debug, Default)]
pub struct Permissions {
    prompted: BTreeSet<Permission>,
    denied_at_first: BTreeSet<Permission>,
    checked: BTreeSet<Permission>,
}

impl Permissions {
    /// Checks `permission` with `probe`, which asks the system and shows its prompt when told to
    /// (`probe(true)`): only the first check of each permission prompts. `host` names the program
    /// the person must grant it to (the terminal or app handrail runs in: macOS grants the
    /// responsible app, not handrail's binary).
    pub fn check(&mut self, permission: Permission, host: &str, probe: impl FnOnce(bool) -> bool) -> Grant {
        let prompt = self.prompted.insert(permission);
        let granted = probe(prompt);
        let first = self.checked.insert(permission);
        if !granted {
            if first {
                self.denied_at_first.insert(permission);
            }
            return Grant::Denied(format!(
                "macOS has not given {host} the {} permission, needed for {}: grant it in {}{}",
                name(permission),
                permission.what_for(),
                permission.settings_pane(),
                if prompt { " (macOS has just asked)" } else { "" }
            ));
        }
        if permission == Permission::ScreenRecording && self.denied_at_first.contains(&permission) {
            return Grant::NeedsRestart(format!(
                "the Screen Recording permission was granted while handrail ran; macOS applies it when {host} \
                 restarts handrail"
            ));
        }
        Grant::Granted
    }
}

/// The app macOS grants permissions to when handrail runs from it: macOS asks about the responsible
/// app (the terminal, Claude Desktop, VS Code), not handrail's own binary. Read from the variables
/// such apps set (`get` is the environment); "the app that started handrail" when none says.
pub fn host_app(get: impl Fn(&str) -> Option<String>) -> String {
    let var = |k: &str| get(k).filter(|v| !v.trim().is_empty());
    if let Some(program) = var("TERM_PROGRAM") {
        return match program.as_str() {
            "Apple_Terminal" => "Terminal".to_owned(),
            "iTerm.app" => "iTerm2".to_owned(),
            "vscode" => "Visual Studio Code".to_owned(),
            "WarpTerminal" => "Warp".to_owned(),
            other => other.to_owned(),
        };
    }
    match var("__CFBundleIdentifier").as_deref() {
        Some("com.anthropic.claudefordesktop") => "Claude".to_owned(),
        Some(id) => id.to_owned(),
        None => "the app that started handrail".to_owned(),
    }
}

fn name(p: Permission) -> &'static str {
    match p {
        Permission::Accessibility | Permission::PostEvents => "Accessibility",
        Permission::ScreenRecording => "Screen Recording",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_is_shown_once_per_permission() {
        let mut p = Permissions::default();
        let mut prompts = Vec::new();
        for _ in 0..3 {
            p.check(Permission::Accessibility, "Terminal", |prompt| {
                prompts.push(prompt);
                false
            });
        }
        p.check(Permission::ScreenRecording, "Terminal", |prompt| {
            prompts.push(prompt);
            true
        });
        assert_eq!(prompts, [true, false, false, true]);
    }

    #[test]
    fn a_denial_says_what_and_where() {
        let mut p = Permissions::default();
        let Grant::Denied(why) = p.check(Permission::Accessibility, "iTerm2", |_| false) else { panic!("denied") };
        assert!(why.contains("iTerm2") && why.contains("Privacy & Security › Accessibility"), "{why}");
        assert!(why.contains("has just asked"), "{why}");
        let Grant::Denied(again) = p.check(Permission::Accessibility, "iTerm2", |_| false) else { panic!("denied") };
        assert!(!again.contains("has just asked"), "{again}");
        assert_eq!(p.check(Permission::Accessibility, "iTerm2", |_| true), Grant::Granted, "takes effect at once");
    }

    #[test]
    fn the_host_is_the_app_handrail_runs_in() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(host_app(env(&[("TERM_PROGRAM", "iTerm.app")])), "iTerm2");
        assert_eq!(
            host_app(env(&[("TERM_PROGRAM", "Apple_Terminal"), ("__CFBundleIdentifier", "com.apple.Terminal")])),
            "Terminal"
        );
        assert_eq!(host_app(env(&[("__CFBundleIdentifier", "com.anthropic.claudefordesktop")])), "Claude");
        assert_eq!(host_app(env(&[("TERM_PROGRAM", " ")])), "the app that started handrail");
    }

    #[test]
    fn screen_recording_granted_late_needs_a_restart() {
        let mut p = Permissions::default();
        assert!(matches!(p.check(Permission::ScreenRecording, "Claude", |_| false), Grant::Denied(_)));
        let Grant::NeedsRestart(why) = p.check(Permission::ScreenRecording, "Claude", |_| true) else {
            panic!("restart")
        };
        assert!(why.contains("restarts"), "{why}");
        let mut fresh = Permissions::default();
        assert_eq!(fresh.check(Permission::ScreenRecording, "Claude", |_| true), Grant::Granted);
    }
}
