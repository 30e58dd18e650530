//! Password fields (SPEC §5.6): anything that puts characters into one — typing, single keys, a
//! paste, text dropped onto it — is refused.

use super::{Guard, Judging};
use crate::engine::judge::how;
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::effect::Effect;
use crate::guard::password::PASSWORD_REFUSAL;
use crate::guard::Rule;

pub(super) struct Password;

impl Guard for Password {
    fn rule(&self) -> Rule {
        Rule::PasswordField
    }

    fn judge(&self, _: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        if let Some(reach) = j.found.reaches.iter().find(|r| r.effect == Effect::EntersText) {
            let via = if reach.is_target { String::new() } else { format!(" ({})", how(reach)) };
            return Err(self.refuse(format!("{PASSWORD_REFUSAL}{via}")));
        }
        Ok(())
    }
}
