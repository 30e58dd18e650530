//! An agent driving the engine on a real desktop, shared by the desktop tests of this crate.
#![allow(dead_code)]

use handrail_core::{Engine, Mode, Outcome, RawArgs, Turn};

pub fn args(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

/// Calls the `computer` tool as a model would, with argument name/value pairs.
pub struct Agent {
    pub engine: Engine,
}

impl Agent {
    pub fn call(&mut self, pairs: &[(&str, &str)]) -> Outcome {
        self.engine.call_args(&args(pairs))
    }

    pub fn turn(&mut self, id: &str, intent: &str, mode: Mode) {
        self.engine.begin_turn(Turn { id: id.into(), intent: intent.into(), mode });
    }

    pub fn see(&mut self) -> Outcome {
        self.call(&[("action", "see")])
    }

    pub fn key(&mut self, keys: &str) -> Outcome {
        self.call(&[("action", "key"), ("keys", keys)])
    }

    pub fn type_text(&mut self, text: &str) -> Outcome {
        self.call(&[("action", "type"), ("text", text)])
    }
}
