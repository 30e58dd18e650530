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

use std::time::Duration;

/// A client idle this long has finished its request: its next call starts a new inferred turn.
///
/// Ten minutes, against the model latencies a task is made of: a local vision model on a CPU or a small
/// GPU takes 30–60 s per step, a reasoning model with a long think 2–3 minutes, and a person answering a
/// confirmation is inside a call, not between calls. Ten minutes is ten of the slowest ordinary steps, so
/// one task is not cut into turns; the window below, not the gap, is what refills budgets, so a long gap
/// costs little.
pub const DEFAULT_IDLE_GAP: Duration = Duration::from_secs(600);

/// Without host turns the budgets also hold per window of this length (from the first counted call
/// after a refill): 50 actions per 5 minutes stops a runaway loop within minutes, while a slow model
/// (30 s per step: 10 actions per window) never meets it.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(300);

/// Where turns come from. The edge decides: it knows whether its client names turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TurnSource {
    /// The host names each turn (MCP `_meta` `handrail/turn`, or one task of `handrail agent`):
    /// budgets hold per turn and the host's next turn refills them.
    #[default]
    Host,
    /// The host names none, so turns are inferred: a call after `idle_gap` without calls starts a new
    /// turn (the edge may also start one, e.g. on a new MCP session), and the budgets refill every
    /// `window` as well, so a host that never starts a turn is never locked out.
    Inferred { idle_gap: Duration, window: Duration },
}

impl TurnSource {
    /// Inferred turns with the default gap and window.
    pub fn inferred() -> Self {
        TurnSource::Inferred { idle_gap: DEFAULT_IDLE_GAP, window: DEFAULT_WINDOW }
    }
}

/// The id of the inferred turn after `id`: `default` → `default#2` → `default#3`.
pub fn next_inferred_id(id: &str) -> String {
    if let Some((base, n)) = id.rsplit_once('#') {
        if let Ok(n) = n.parse::<u64>() {
            return format!("{base}#{}", n.saturating_add(1));
        }
    }
    format!("{id}#2")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inferred_ids_count_up() {
        assert_eq!(next_inferred_id("default"), "default#2");
        assert_eq!(next_inferred_id("default#2"), "default#3");
        assert_eq!(next_inferred_id("a#b"), "a#b#2");
    }
}
