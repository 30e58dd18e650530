//! What the engine-driving desktop tests of this crate share.
#![allow(dead_code)]

use std::time::Duration;

use handrail_core::{Element, Engine, Outcome, RawArgs};
use handrail_platform::Desktop;
use handrail_sandbox::{Sandbox, REMOVED_ENV};
use handrail_testkit::LineApp;
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

/// The desktop a user runs handrail on, on `sandbox`: X11 with the accessibility bus and Tesseract.
pub fn full_desktop(sandbox: &Sandbox) -> Desktop {
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    let ax = handrail_atspi::AtspiSource::new(sandbox.bus_address());
    X11Desktop::connect(X11Options::new(sandbox.display(), launch_env(sandbox)), Box::new(ax), Box::new(ocr))
        .expect("connects")
}

/// How apps are launched on `sandbox`: in its session, without the variables a sandbox removes.
pub fn launch_env(sandbox: &Sandbox) -> LaunchEnv {
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    launch
}

pub fn raw(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

/// The element `role` `label` in `o`'s observation.
pub fn find<'a>(o: &'a Outcome, role: &str, label: &str) -> Option<&'a Element> {
    o.observation.as_ref()?.elements.iter().find(|e| e.role.as_str() == role && e.label == label)
}

/// Observes until `ready` holds (the tree arrives a moment after the window), bounded.
pub fn see_until(engine: &mut Engine, ready: impl Fn(&Outcome) -> bool) -> Outcome {
    see_within(engine, Duration::from_secs(12), ready)
}

/// Observes until `ready` holds, for at most `within` (an app's first start on a fresh machine, its
/// libraries not yet cached, can take long).
pub fn see_within(engine: &mut Engine, within: Duration, ready: impl Fn(&Outcome) -> bool) -> Outcome {
    let start = std::time::Instant::now();
    loop {
        let o = engine.call_args(&raw(&[("action", "see")]));
        if ready(&o) {
            return o;
        }
        assert!(start.elapsed() < within, "never ready:\n{}", o.text());
        std::thread::sleep(Duration::from_millis(200)); // polling interval, not a settle wait
    }
}

/// What the file at `path` holds once `done` accepts it (an app saving it), or what it last held after
/// `within`: what the app wrote, read from the file itself.
pub fn file_once(path: &std::path::Path, within: Duration, done: impl Fn(&str) -> bool) -> String {
    let start = std::time::Instant::now();
    loop {
        let held = std::fs::read_to_string(path).unwrap_or_default();
        if done(&held) || start.elapsed() > within {
            return held;
        }
        std::thread::sleep(Duration::from_millis(200)); // polling the file, not a settle wait
    }
}

/// `command` (an app of the sandbox) started with its output discarded; killed when dropped.
pub fn start_app(mut command: std::process::Command) -> handrail_testkit::Spawned {
    let program = command.get_program().to_string_lossy().into_owned();
    let child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} starts (scripts/setup-desktop installs it): {e}"));
    handrail_testkit::Spawned(child)
}

/// As a model writes in an editor: looks until a text area is listed, types `text` into it (which
/// must be read back from the editor), saves with ctrl+s. The first look, and what `file` then holds
/// as the editor wrote it.
pub fn type_into_editor_and_save(engine: &mut Engine, text: &str, file: &std::path::Path) -> (Outcome, String) {
    let is_editor = |e: &&Element| e.role.as_str() == "text_area";
    let see = see_within(engine, Duration::from_secs(60), |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(|e| is_editor(&e)))
    });
    let editor =
        see.observation.as_ref().and_then(|obs| obs.elements.iter().find(is_editor)).cloned().expect("the editor");
    let o = act_on(engine, &see, "type", &editor, &[("text", text)]);
    assert_eq!(o.status, handrail_core::Status::Ok, "{}", o.text());
    assert!(matches!(o.typing, Some(handrail_core::TypingCheck::Arrived { .. })), "read back: {}", o.text());
    let o = engine.call_args(&raw(&[("action", "key"), ("keys", "ctrl+s")]));
    assert!(matches!(o.status, handrail_core::Status::Ok | handrail_core::Status::NoVisibleChange), "{}", o.text());
    let saved = file_once(file, Duration::from_secs(20), |held| !held.is_empty());
    (see, saved)
}

/// A test app of testdata/apps (`script` with `args`), started on `sandbox` and ready (it says so).
pub fn testdata_app(sandbox: &Sandbox, script: &str, args: &[&str]) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(format!("{}/../../testdata/apps/{script}", env!("CARGO_MANIFEST_DIR"))).args(args);
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "{script} came up: {:?}", app.seen);
    app
}

/// `action` on the element `role` `label` of `o`'s observation, with `extra` arguments.
pub fn act(engine: &mut Engine, o: &Outcome, action: &str, role: &str, label: &str, extra: &[(&str, &str)]) -> Outcome {
    let e = find(o, role, label).unwrap_or_else(|| panic!("no {role} {label:?}:\n{}", o.text()));
    act_on(engine, o, action, e, extra)
}

/// `action` on `element` of `o`'s observation, with `extra` arguments.
pub fn act_on(engine: &mut Engine, o: &Outcome, action: &str, element: &Element, extra: &[(&str, &str)]) -> Outcome {
    let obs = o.observation.as_ref().map(|obs| obs.id.to_string()).expect("an observation");
    let id = element.id.to_string();
    let mut args = vec![("action", action), ("observation_id", obs.as_str()), ("element_id", id.as_str())];
    args.extend_from_slice(extra);
    engine.call_args(&raw(&args))
}
