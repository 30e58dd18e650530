//! A Tab inside typed text: it moves focus, and what follows would land in an element nobody judged.

use super::{Guard, Judging};
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::Rule;

pub(super) struct TabInText;

impl Guard for TabInText {
    fn rule(&self) -> Rule {
        Rule::FocusMovesWhileTyping
    }

    fn judge(&self, _: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        if j.found.crosses_focus {
            return Err(self.refuse(
                "refusing to type text with a Tab inside it: the Tab moves focus, and what follows it would land in \
                 an element that cannot be checked beforehand; type up to the Tab, press the key tab, then type the rest"
                    .into(),
            ));
        }
        Ok(())
    }
}
