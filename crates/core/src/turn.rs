//! Turns: one user request, its intent, its mode and its budgets.

/// Whether a person is watching the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// A person is watching (the default).
    #[default]
    Interactive,
    /// Scheduled or triggered with nobody watching: stricter guards, smaller budgets, never asks.
    Unattended,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Interactive => "interactive",
            Mode::Unattended => "unattended",
        }
    }
}
