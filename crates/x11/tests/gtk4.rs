//! A real GTK 4 app (testdata/apps/gtk4_probe.py) on X11: what every recent GNOME app is built from.
//! GTK 4 sets SHOWING on windows only, answers window coordinates when asked for screen ones and
//! names unnamed widgets after their class; the elements listed must still be the ones drawn, where
//! they are drawn, and acting on them must reach the app, as the app itself reports.

mod common;

use handrail_core::{Config, Engine, Mode, Outcome, Status, Turn, TypingCheck, Vision};
use handrail_platform::Rect;
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::LineApp;
use handrail_x11::windows::X11Windows;

use common::{find, raw, see_until};

const TITLE: &str = "GTK 4 probe";

fn probe(sandbox: &Sandbox) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/gtk4_probe.py")).args(["--title", TITLE]);
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "the GTK 4 probe came up: {:?}", app.seen);
    app
}

fn act(engine: &mut Engine, o: &Outcome, action: &str, role: &str, label: &str, extra: &[(&str, &str)]) -> Outcome {
    let obs = o.observation.as_ref().map(|obs| obs.id.to_string()).expect("an observation");
    let id = find(o, role, label).unwrap_or_else(|| panic!("no {role} {label:?}:\n{}", o.text())).id.to_string();
    let mut args = vec![("action", action), ("observation_id", obs.as_str()), ("element_id", id.as_str())];
    args.extend_from_slice(extra);
    engine.call_args(&raw(&args))
}

/// The probe window's client area on the screen, as the X server places it.
fn window_area(sandbox: &Sandbox) -> Rect {
    let conn = handrail_x11::Conn::open(&sandbox.display()).expect("the sandbox's X server");
    let windows = X11Windows::new(conn, common::launch_env(sandbox));
    let stack = windows.client_windows().expect("client list");
    let info = stack
        .into_iter()
        .filter_map(|w| windows.window_info(w).ok())
        .find(|i| i.title == TITLE)
        .expect("the probe's window is managed");
    info.bounds
}

#[test]
fn gtk4_widgets_are_listed_where_they_are_drawn_and_reached_by_id() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let mut app = probe(&sandbox);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "gtk4".into(), intent: "say hello and take notes".into(), mode: Mode::Interactive });

    let see = see_until(&mut engine, |o| find(o, "button", "Say hello").is_some());
    let text = see.text();
    eprintln!("{text}");
    assert!(text.contains("ax=ok"), "{text}");
    // Every drawn control is listed, by its own name…
    for (role, label) in [("button", "Say hello"), ("entry", "Name"), ("password_entry", "PIN"), ("text_area", "Notes")]
    {
        assert!(find(&see, role, label).is_some(), "{role} {label:?}:\n{text}");
    }
    // …never what is not drawn (the stack's hidden page), nor a class name for a name.
    assert!(!text.contains("Hidden action"), "{text}");
    for class in ["GtkImage", "GtkScrollbar", "GtkStackPage", "GtkRange"] {
        assert!(!text.contains(class), "{class}:\n{text}");
    }
    // Where they are drawn: inside the window as the X server places it (frame included), not at
    // the window-relative spot GTK reports.
    let window = window_area(&sandbox);
    let elements = &see.observation.as_ref().expect("observation").elements;
    let accessible: Vec<_> = elements.iter().filter(|e| e.app.contains("gtk4_probe")).collect();
    assert!(accessible.len() >= 4, "{text}");
    for e in &accessible {
        assert!(
            window.contains_rect(&e.bounds),
            "{} {:?} at {} outside the window {window}",
            e.role,
            e.label,
            e.bounds
        );
    }

    // A click by id lands on the button: the app says so, and the page's new text is read.
    let o = act(&mut engine, &see, "click", "button", "Say hello", &[("expect", "text:Hello to you too")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert!(app.wait_for(|l| l == "clicked hello").is_some(), "{:?}", app.seen);

    // Typing into the entry and the text view by id: exactly what arrived, read back from each.
    let see = see_until(&mut engine, |o| find(o, "entry", "Name").is_some());
    let o = act(&mut engine, &see, "type", "entry", "Name", &[("text", "Grace Hopper")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == r#"name="Grace Hopper""#).is_some(), "{:?}", app.seen);
    let see = see_until(&mut engine, |o| find(o, "text_area", "Notes").is_some());
    let o = act(&mut engine, &see, "type", "text_area", "Notes", &[("text", "one\n\ttwo")]);
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == r#"notes="one\n\ttwo""#).is_some(), "{:?}", app.seen);
    // The password entry is one: typing into it is refused, and the app hears nothing.
    let see = see_until(&mut engine, |o| find(o, "password_entry", "PIN").is_some());
    let o = act(&mut engine, &see, "type", "password_entry", "PIN", &[("text", "1234")]);
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    app.pending();
    let heard = |l: &String| l == "clicked hidden" || l == "clicked icon" || l.starts_with("pin-length");
    assert!(!app.seen.iter().any(heard), "{:?}", app.seen);

    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}
