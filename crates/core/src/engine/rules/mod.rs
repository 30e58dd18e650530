//! The guards, one module each, in the order every action's effects meet them (`judge.rs` runs the
//! list once against the latest observation and, for keyboard input, again against the pre-action
//! look). Each guard reads what the action reaches ([`crate::guard::effect`]) and refuses by its own
//! [`Rule`], in its own words; the pure judgments behind them live in [`crate::guard`].
//!
//! Adding a guard is one module here, one entry in [`GUARDS`] and one row in the guard audit table
//! (`crates/core/tests/guard_audit.rs`), which checks that every rule has one.

mod address_bar;
mod destructive;
mod hotkey;
mod open_url;
mod password;
mod selection_delete;
mod tab_in_text;
mod terminal;
mod unknown_receiver;

use super::judge::Judged;
use super::stop::Stop;
use super::Engine;
use crate::guard::effect::{InputEffects, Scene};
use crate::guard::Rule;
use crate::request::Request;

/// One action being judged: what it reaches, on which screen, and what was decided so far.
pub(super) struct Judging<'j, 'a> {
    pub request: &'j Request,
    /// The action in a few words, for refusals.
    pub summary: &'j str,
    pub found: &'j InputEffects<'a>,
    pub scene: &'j Scene<'a>,
    pub judged: &'j mut Judged,
    /// A receiver this scene cannot tell is left for the pre-action look to find.
    pub defer_unplaced: bool,
}

/// A guard: judges an action's effects and refuses by its rule, or lets it pass (recording what it
/// allowed in `judged`).
pub(super) trait Guard: Sync {
    /// The rule its refusals name.
    fn rule(&self) -> Rule;

    fn judge(&self, engine: &mut Engine, judging: &mut Judging<'_, '_>) -> Result<(), Stop>;

    /// A refusal by this guard's rule.
    fn refuse(&self, message: String) -> Stop {
        Stop::refused(self.rule(), message)
    }
}

/// Every guard, in the order they are tried: the first refusal ends the judgment. A dangerous hotkey
/// is refused whatever it lands on, so its reason (it deletes for good, it ends the session) is the
/// one given, rather than the target's.
pub(super) const GUARDS: [&dyn Guard; 9] = [
    &hotkey::Hotkey,
    &destructive::Destructive,
    &selection_delete::SelectionDelete,
    &tab_in_text::TabInText,
    &password::Password,
    &terminal::Terminal,
    &unknown_receiver::UnknownReceiver,
    &address_bar::AddressBar,
    &open_url::OpenUrl,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules refusals name outside the list: the no-blind-repeat rule (`pipeline.rs`) and a text
    /// target that matches several elements (`targets.rs`).
    const PIPELINE_RULES: [Rule; 2] = [Rule::UnobservedRepeat, Rule::AmbiguousTarget];

    #[test]
    fn every_rule_is_named_by_a_guard_or_the_pipeline() {
        let mut named: Vec<Rule> = GUARDS.iter().map(|g| g.rule()).chain(PIPELINE_RULES).collect();
        named.sort();
        named.dedup();
        let mut all = Rule::ALL.to_vec();
        all.sort();
        assert_eq!(named, all);
    }
}
