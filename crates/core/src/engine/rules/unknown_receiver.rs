//! Keyboard input nobody can place: a person watching sees where it goes; with nobody watching it
//! waits until its receiver is known (the pre-action look may still find it).

use super::{Guard, Judging};
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::Rule;
use crate::turn::Mode;

pub(super) struct UnknownReceiver;

impl Guard for UnknownReceiver {
    fn rule(&self) -> Rule {
        Rule::UnknownReceiver
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        if let (Some(why), Mode::Unattended) = (&j.found.unknown_receiver, engine.session.turn.mode) {
            let message = format!(
                "refusing {}: it acts on whatever has focus, and {why}; with nobody watching, keyboard input \
                 must reach a known element: give the target (type with element_id) or click it first",
                j.summary
            );
            if !j.defer_unplaced {
                return Err(self.refuse(message));
            }
            j.judged.unplaced = Some(message);
        }
        Ok(())
    }
}
