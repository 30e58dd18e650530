//! Addresses committed in a browser's address bar (Return, or a typed newline): the same URL rules as
//! `open_url` (SPEC §5.8).

use super::{Guard, Judging};
use crate::engine::judge::how;
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::effect::Effect;
use crate::guard::navigation::address_refusal;
use crate::guard::Rule;

pub(super) struct AddressBar;

impl Guard for AddressBar {
    fn rule(&self) -> Rule {
        Rule::Url
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        for reach in j.found.reaches.iter().filter(|r| r.effect == Effect::Commits) {
            if let Some(why) = reach.lines.iter().find_map(|l| address_refusal(l, &engine.config.url_policy)) {
                return Err(self.refuse(format!(
                    "refusing to open the address in the browser's address bar ({}): {why}",
                    how(reach)
                )));
            }
        }
        Ok(())
    }
}
