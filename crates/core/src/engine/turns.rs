//! Turns and budgets: starting a turn, inferring one for hosts that name none, and the windows budgets
//! refill in.

use super::config::Budgets;
use super::Engine;
use crate::turn::{next_inferred_id, Mode, TurnSource};

/// One user request: the person's own words and whether they are watching.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Turn {
    pub id: String,
    /// The user's words, supplied by the host — never by the model.
    pub intent: String,
    pub mode: Mode,
}

impl Engine {
    /// Starts a turn: older observation ids become invalid, budgets refill, remembered targets are
    /// forgotten. Ids keep counting so none is ever reused.
    pub fn begin_turn(&mut self, turn: Turn) {
        self.begin_turn_from(turn, TurnSource::Host);
    }

    /// Starts a turn whose successors come from `source`: the host's, or inferred from idle time (see
    /// [`TurnSource`]).
    pub fn begin_turn_from(&mut self, turn: Turn, source: TurnSource) {
        let s = &mut self.session;
        s.turn = turn;
        s.source = source;
        s.last_call = None;
        s.window_start = None;
        s.latest = None;
        s.tracker.forget();
        s.mutations = 0;
        s.observations = 0;
        s.last_clicked = None;
        s.unchanged = None;
        // A person may have typed at the prompt between turns.
        s.terminal = None;
    }

    /// Where this turn's successors come from.
    pub fn turn_source(&self) -> TurnSource {
        self.session.source
    }

    /// Without host turns: a call after the idle gap starts the next inferred turn, and a budget window
    /// that has passed refills the budgets.
    pub(super) fn infer_turn(&mut self) {
        let TurnSource::Inferred { idle_gap, window } = self.session.source else {
            return;
        };
        let now = self.desktop.clock.now();
        if let Some(idle) = self.session.last_call.map(|t| now.saturating_sub(t)).filter(|idle| *idle >= idle_gap) {
            let turn = Turn { id: next_inferred_id(&self.session.turn.id), ..self.session.turn.clone() };
            log::info!("turn {:?} begins: the client was idle for {} s", turn.id, idle.as_secs());
            self.begin_turn_from(turn, TurnSource::Inferred { idle_gap, window });
            return;
        }
        if self.session.window_start.is_some_and(|start| now.saturating_sub(start) >= window) {
            self.session.window_start = None;
            self.session.mutations = 0;
            self.session.observations = 0;
        }
    }

    /// Counts a call against the window (inferred turns), opening the window at the first one.
    pub(super) fn open_window(&mut self) {
        if self.session.window_start.is_none() {
            self.session.window_start = Some(self.desktop.clock.now());
        }
    }

    /// What a `[limit]` says about when calls are accepted again and what changes the limit.
    pub(super) fn refill_note(&self, knob: &str) -> String {
        match self.session.source {
            TurnSource::Host => format!("the next turn refills it; {knob} changes it"),
            TurnSource::Inferred { window, .. } => {
                let now = self.desktop.clock.now();
                let start = self.session.window_start.unwrap_or(now);
                let left = (start + window).saturating_sub(now);
                // Whole seconds, rounded up: at that time the call is accepted.
                let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
                format!(
                    "this host sends no turns, so it holds per {} s window: calls are accepted again in {secs} s; \
                     {knob} changes it, {} the window",
                    window.as_secs(),
                    self.config.knobs.window
                )
            }
        }
    }

    pub(super) fn budgets(&self) -> Budgets {
        match self.session.turn.mode {
            Mode::Interactive => self.config.interactive,
            Mode::Unattended => self.config.unattended,
        }
    }
}
