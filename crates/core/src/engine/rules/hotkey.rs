//! Dangerous key combinations (SPEC §5.5): refused always, whatever the request.

use super::{Guard, Judging};
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::hotkey::hotkey_refusal;
use crate::guard::Rule;
use crate::request::Command;

pub(super) struct Hotkey;

impl Guard for Hotkey {
    fn rule(&self) -> Rule {
        Rule::DangerousHotkey
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        if let Command::Key { combo } = &j.request.command {
            if let Some(message) = hotkey_refusal(combo, &engine.desktop.rules.keys) {
                return Err(self.refuse(message));
            }
        }
        Ok(())
    }
}
