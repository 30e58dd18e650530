//! The Delete key on a selection (a list, tree, table, icon view, file manager): a removal, whatever
//! the selected things are called, judged like a destructive target.

use super::{Guard, Judging};
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::destructive::check_selection_delete;
use crate::guard::effect::Effect;
use crate::guard::Rule;

pub(super) struct SelectionDelete;

impl Guard for SelectionDelete {
    fn rule(&self) -> Rule {
        Rule::DestructiveTarget
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        for reach in j.found.reaches.iter().filter(|r| r.effect == Effect::DeletesSelection) {
            if j.judged.already(reach.element, Effect::DeletesSelection) {
                continue;
            }
            let turn = &engine.session.turn;
            let verdict = check_selection_delete(&reach.selection, &reach.element.label, turn.mode, &turn.intent);
            engine.decide_destructive(verdict, reach, "", j.judged)?;
            j.judged.record(reach.element.id, Effect::DeletesSelection);
        }
        Ok(())
    }
}
