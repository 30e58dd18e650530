//! The engine driving a real X11 desktop: a private sandbox, a real GTK app, real input and settle.
//! (Accessibility and OCR sources are plugged in separately; here the desktop has neither, which is
//! itself a supported configuration: `ax=unavailable`, `ocr=unavailable`, the visual path works.)

use std::time::Duration;

use handrail_core::{Config, Engine, Mode, RawArgs, Status, Turn, TypingCheck, Vision};
use handrail_platform::absent::{NoAccessibility, NoOcr};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_testkit::LineApp;
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

fn args(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

/// The GTK probe app, up and ready; it prints what it receives.
fn probe_app(sandbox: &Sandbox) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py"));
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for_within(Duration::from_secs(10), |l| l == "ready").is_some(), "the probe app came up");
    app
}

/// Desktop tests in this binary run one at a time: two desktops at once on a 2-core machine make
/// timing-sensitive apps (and settle) needlessly noisy.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn the_engine_drives_a_real_desktop() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let mut app = probe_app(&sandbox);
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let desktop =
        X11Desktop::connect(X11Options::new(sandbox.display(), launch), Box::new(NoAccessibility), Box::new(NoOcr))
            .expect("connects");
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "x11".into(), intent: "fill in the form".into(), mode: Mode::Interactive });

    // The app says "ready" once its window is mapped; the window manager activates it a moment
    // later (on a busy machine, a second or more): look until it is the front window.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let see = loop {
        let see = engine.call_args(&args(&[("action", "see")]));
        if see.text().contains("window=\"handrail probe\"") || std::time::Instant::now() >= deadline {
            break see;
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(see.status, Status::Ok, "{}", see.text());
    let text = see.text();
    assert!(text.contains("ax=unavailable ocr=unavailable screen=1280x800 image=1280x800"), "{text}");
    assert!(text.contains("window=\"handrail probe\""), "{text}");
    let image = see.observation.as_ref().and_then(|o| o.image.clone()).expect("a screenshot");
    assert_eq!(image.mime, "image/jpeg");
    assert_eq!(&image.bytes[..2], &[0xFF, 0xD8]);

    // Focus moves to the Name entry; typed text of several scripts arrives exactly, and the result
    // reports a visible change.
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "tab")]));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let typed = "Ada สวัสดี 日本 👍";
    let o = engine.call_args(&args(&[("action", "type"), ("text", typed)]));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(app.wait_for(|l| l == format!("name={typed}")).is_some(), "the app received exactly the text");
    // Without accessibility nothing can be read back, and the result says so rather than claim it.
    assert!(matches!(o.typing, Some(TypingCheck::Unchecked { .. })), "{}", o.text());
    assert!(o.timings.settled == Some(true), "{}", o.text());

    // Pressing a bare modifier changes nothing, and the engine says so.
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "shift")]));
    assert_eq!(o.status, Status::NoVisibleChange, "{}", o.text());
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "shift")]));
    assert_eq!(o.status, Status::Refused, "a blind repeat is refused: {}", o.text());

    // Apps open and come to the front; the expectation is checked against the real window.
    let o = engine.call_args(&args(&[("action", "open_app"), ("app", "xterm"), ("expect", "app:xterm")]));
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());

    // Guards hold on a real desktop too: nothing reaches it.
    let o = engine.call_args(&args(&[("action", "key"), ("keys", "super+delete")]));
    assert_eq!(o.status, Status::Refused);
    let o = engine.call_args(&args(&[("action", "open_url"), ("url", "http://a:b@example.com")]));
    assert_eq!(o.status, Status::Refused);

    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}

fn id_of(engine: &Engine, role: &str, label: &str) -> (String, String) {
    let obs = engine.latest().expect("an observation");
    let e = obs
        .elements
        .iter()
        .find(|e| e.role.as_str() == role && e.label == label)
        .unwrap_or_else(|| panic!("no {role} {label:?} in:\n{:#?}", obs.elements));
    (obs.id.to_string(), e.id.to_string())
}

fn on(engine: &mut Engine, action: &str, role: &str, label: &str, extra: &[(&str, &str)]) -> handrail_core::Outcome {
    let (obs, id) = id_of(engine, role, label);
    let mut a = args(extra);
    a.action = Some(action.into());
    a.observation_id = Some(obs);
    a.element_id = Some(id);
    engine.call_args(&a)
}

#[test]
fn the_engine_targets_real_widgets_by_element_id() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let mut app = probe_app(&sandbox);
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let desktop = X11Desktop::connect(
        X11Options::new(sandbox.display(), launch),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(NoOcr),
    )
    .expect("connects");
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "ax".into(), intent: "fill in the form".into(), mode: Mode::Interactive });

    let see = engine.call_args(&args(&[("action", "see")]));
    assert!(see.text().contains("ax=ok"), "{}", see.text());

    // A click by element id that changes a label, verified through the accessibility tree.
    let o = on(&mut engine, "click", "button", "Change", &[("expect", "text:status: after")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert!(app.wait_for(|l| l == "status=after").is_some());

    // Typing into the Name entry by id; the value shows up in the fresh observation.
    let o = on(&mut engine, "type", "entry", "Name", &[("text", "Grace Hopper"), ("expect", "text:Grace Hopper")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert!(app.wait_for(|l| l == "name=Grace Hopper").is_some());
    // Read back from the entry itself through accessibility.
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(o.text().contains("typed: arrived"), "{}", o.text());
    // Spaces at either end of what was typed are part of it, read back as they are.
    let o = on(&mut engine, "type", "entry", "Name", &[("text", " and more ")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == "name=Grace Hopper and more ").is_some());

    // The password field, the destructive button: refused, and the app never hears of it.
    let o = on(&mut engine, "type", "password_entry", "Password", &[("text", "hunter2")]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    let o = on(&mut engine, "click", "button", "Delete account", &[]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());

    // A checkbox toggle is semantic evidence.
    let o = on(&mut engine, "click", "checkbox", "I agree", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(o.text().contains("state:"), "{}", o.text());
    assert!(app.wait_for(|l| l == "agree=True").is_some());

    // A button that does nothing: the first click moves the focus ring there (a real change); the
    // second changes nothing, and the engine says so.
    let o = on(&mut engine, "click", "button", "Does nothing", &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(o.text().contains("focus: e"), "{}", o.text());
    let o = on(&mut engine, "click", "button", "Does nothing", &[]);
    assert_eq!(o.status, Status::NoVisibleChange, "{}", o.text());

    drop(engine);
    let leaked =
        app.pending().into_iter().filter(|l| l.starts_with("password-length") || l == "delete-clicked").count();
    assert_eq!(leaked, 0, "refused actions reached the app");
    drop(app);
    sandbox.stop().expect("clean teardown");
}
