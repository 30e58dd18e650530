//! The rules a guard refuses by: a closed set of stable codes, the same in results (`guard.rule`,
//! `reason`), audit logs and traces.

/// A rule a refusal names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A target whose label marks a removal the user's request does not ask for (SPEC §5.4), reached
    /// by a click, a drag, a drop, an activation key or the Delete key on a selection.
    DestructiveTarget,
    /// A key combination that deletes permanently or ends the session (SPEC §5.5).
    DangerousHotkey,
    /// Characters into a password field, or a terminal asking for a password (SPEC §5.6).
    PasswordField,
    /// A Tab inside typed text: what follows it lands somewhere nobody judged.
    FocusMovesWhileTyping,
    /// A line a terminal would run that the user's request does not back.
    TerminalCommand,
    /// Keyboard input, with nobody watching, whose receiver cannot be told.
    UnknownReceiver,
    /// An address outside the URL rules (credentials, schemes, allowed domains; SPEC §5.8).
    Url,
    /// The same action again after it changed nothing, without looking first.
    UnobservedRepeat,
    /// A visible text that matches several targets.
    AmbiguousTarget,
}

impl Rule {
    /// Every rule, in the order the guards are tried.
    pub const ALL: [Rule; 9] = [
        Rule::DestructiveTarget,
        Rule::DangerousHotkey,
        Rule::FocusMovesWhileTyping,
        Rule::PasswordField,
        Rule::TerminalCommand,
        Rule::UnknownReceiver,
        Rule::Url,
        Rule::UnobservedRepeat,
        Rule::AmbiguousTarget,
    ];

    /// The stable code.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::DestructiveTarget => "destructive_target",
            Rule::DangerousHotkey => "dangerous_hotkey",
            Rule::PasswordField => "password_field",
            Rule::FocusMovesWhileTyping => "focus_moves_while_typing",
            Rule::TerminalCommand => "terminal_command",
            Rule::UnknownReceiver => "unknown_receiver",
            Rule::Url => "url",
            Rule::UnobservedRepeat => "unobserved_repeat",
            Rule::AmbiguousTarget => "ambiguous_target",
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_snake_case_words() {
        let codes: std::collections::BTreeSet<&str> = Rule::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(codes.len(), Rule::ALL.len());
        for code in codes {
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{code}");
        }
    }
}
