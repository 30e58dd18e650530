//! An agent driving the engine on a real desktop, shared by the desktop tests of this crate.
#![allow(dead_code)]

pub mod tools;

use handrail_core::{Engine, Mode, Outcome, RawArgs, Turn};
use handrail_sandbox::{Sandbox, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

/// A sandbox the test owns (so its X server outlives any `handrail serve` on it), with the GTK probe
/// app up (every widget's geometry reported, then "ready").
pub fn desktop_with_probe() -> (Sandbox, handrail_testkit::LineApp) {
    let sandbox = Sandbox::start(handrail_sandbox::SandboxOptions { parent_death_signal: false, ..Default::default() })
        .expect("sandbox starts (run scripts/setup-desktop)");
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(tools::probe_app());
    let mut app = handrail_testkit::LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "the probe app came up: {:?}", app.seen);
    (sandbox, app)
}

/// An xterm beside the app under test ([`handrail_testkit::TerminalBeside`]) on `sandbox`.
pub fn terminal_beside(sandbox: &Sandbox) -> handrail_testkit::TerminalBeside {
    handrail_testkit::TerminalBeside::start(|program| sandbox.command(program))
}

/// How apps and the browser start on `sandbox`: its environment, a browser profile of its own, and
/// none of the variables that would point them at the machine's own desktop.
pub fn sandbox_launch(sandbox: &Sandbox) -> LaunchEnv {
    let mut l = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    l.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    l
}

/// The sandbox's desktop, read through accessibility only (no OCR), launching with `launch`.
pub fn accessible_desktop(sandbox: &Sandbox, launch: LaunchEnv) -> handrail_platform::Desktop {
    X11Desktop::connect(
        X11Options::new(sandbox.display(), launch),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(handrail_platform::absent::NoOcr),
    )
    .expect("desktop")
}

/// The sandbox's desktop as a person's handrail reads it: accessibility and Tesseract OCR (for what
/// accessibility leaves out, like the items of a file manager's icon view).
pub fn full_desktop(sandbox: &Sandbox, launch: LaunchEnv) -> handrail_platform::Desktop {
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    assert!(ocr.unavailable_reason().is_none(), "Tesseract is installed (scripts/setup-desktop)");
    X11Desktop::connect(
        X11Options::new(sandbox.display(), launch),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(ocr),
    )
    .expect("desktop")
}

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
