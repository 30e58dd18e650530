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

/// An xterm in the bottom-left corner of a sandbox, beside the app under test, as a person's desktop
/// has more than one window; stopped when dropped.
pub struct TerminalBeside(std::process::Child);

impl TerminalBeside {
    /// Starts it and waits for its window. Tests start it before the app under test: the window manager
    /// activates the window mapped last, and a terminal mapping after the app would take the keyboard.
    pub fn start(sandbox: &Sandbox) -> TerminalBeside {
        let child = sandbox.command("xterm").args(["-geometry", "60x10+0+560"]).spawn().expect("xterm starts");
        let terminal = TerminalBeside(child);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !sandbox
            .command("xdotool")
            .args(["search", "--onlyvisible", "--class", "XTerm"])
            .output()
            .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
        {
            assert!(std::time::Instant::now() < deadline, "xterm's window never appeared");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        terminal
    }
}

impl Drop for TerminalBeside {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
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
