//! Destructive targets (SPEC §5.4): everything an action activates or drops onto, however it gets
//! there, judged by its label (and the visible text it was targeted by) against the user's request.

use super::{Guard, Judging};
use crate::engine::judge::{how, text_targets};
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::destructive::check_destructive;
use crate::guard::effect::Effect;
use crate::guard::Rule;

pub(super) struct Destructive;

impl Guard for Destructive {
    fn rule(&self) -> Rule {
        Rule::DestructiveTarget
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        let reached = j.found.reaches.iter().filter(|r| matches!(r.effect, Effect::Activates | Effect::DropsOnto));
        for reach in reached {
            if j.judged.already(reach.element, reach.effect) {
                continue;
            }
            let mut labels = vec![reach.element.label.clone()];
            if reach.is_target {
                labels.extend(text_targets(&j.request.command));
            }
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            let turn = &engine.session.turn;
            let via =
                if reach.is_target { String::new() } else { format!(" (this action reaches it: {})", how(reach)) };
            let verdict = check_destructive(&labels, turn.mode, &turn.intent);
            engine.decide_destructive(verdict, reach, &via, j.judged)?;
            j.judged.record(reach.element.id, reach.effect);
        }
        Ok(())
    }
}
