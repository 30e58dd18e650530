//! A real GTK 4 app (testdata/apps/gtk4_probe.py) on X11: what every recent GNOME app is built from.
//! GTK 4 sets SHOWING on windows only, answers window coordinates when asked for screen ones and
//! names unnamed widgets after their class; the elements listed must still be the ones drawn, where
//! they are drawn, and acting on them must reach the app, as the app itself reports.

mod common;

use handrail_core::{Config, Element, Engine, Mode, Outcome, Status, Turn, TypingCheck, Vision};
use handrail_platform::Rect;
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::TerminalBeside;
use handrail_x11::windows::X11Windows;

use common::{act_on, see_until, testdata_app};

const TITLE: &str = "GTK 4 probe";
/// A second GTK 4 window beside it, with controls of the same names.
const SECOND: &str = "GTK 4 second";

/// The element `role` `label` of the window titled `window`.
fn find_in<'a>(o: &'a Outcome, window: &str, role: &str, label: &str) -> Option<&'a Element> {
    o.observation.as_ref()?.elements.iter().find(|e| e.window == window && e.role.as_str() == role && e.label == label)
}

/// The window titled `title` on the screen (frame included), as the X server places it.
fn window_area(sandbox: &Sandbox, title: &str) -> Rect {
    let conn = handrail_x11::Conn::open(&sandbox.display()).expect("the sandbox's X server");
    let windows = X11Windows::new(conn, common::launch_env(sandbox));
    let stack = windows.client_windows().expect("client list");
    let info = stack
        .into_iter()
        .filter_map(|w| windows.window_info(w).ok())
        .find(|i| i.title == title)
        .unwrap_or_else(|| panic!("{title:?} is managed"));
    info.bounds
}

#[test]
fn gtk4_widgets_are_listed_where_they_are_drawn_and_reached_by_id() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    // Several windows, as on a person's desktop: a terminal, a second GTK 4 window whose controls
    // have the same names, and the probe in front (mapped last, so the window manager activates it).
    let _terminal = TerminalBeside::start(|program| sandbox.command(program));
    let mut second = testdata_app(&sandbox, "gtk4_probe.py", &["--title", SECOND]);
    let mut app = testdata_app(&sandbox, "gtk4_probe.py", &["--title", TITLE]);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "gtk4".into(), intent: "say hello and take notes".into(), mode: Mode::Interactive });

    let see = see_until(&mut engine, |o| {
        find_in(o, TITLE, "button", "Say hello").is_some() && find_in(o, SECOND, "button", "Say hello").is_some()
    });
    let text = see.text();
    eprintln!("{text}");
    assert!(text.contains("ax=ok"), "{text}");
    // Every drawn control is listed, by its own name…
    for (role, label) in [("button", "Say hello"), ("entry", "Name"), ("password_entry", "PIN"), ("text_area", "Notes")]
    {
        assert!(find_in(&see, TITLE, role, label).is_some(), "{role} {label:?}:\n{text}");
    }
    // …never what is not drawn (the stack's hidden page), nor a class name for a name.
    assert!(!text.contains("Hidden action"), "{text}");
    for class in ["GtkImage", "GtkScrollbar", "GtkStackPage", "GtkRange"] {
        assert!(!text.contains(class), "{class}:\n{text}");
    }
    // Where they are drawn: inside their own window as the X server places it (frame included), not
    // at the window-relative spot GTK reports, nor in the other GTK 4 window.
    let elements = &see.observation.as_ref().expect("observation").elements;
    for title in [TITLE, SECOND] {
        let window = window_area(&sandbox, title);
        let accessible: Vec<_> =
            elements.iter().filter(|e| e.window == title && e.source.has_ax() && e.role.as_str() != "window").collect();
        assert!(accessible.len() >= 4, "{title}:\n{text}");
        for e in &accessible {
            assert!(
                window.contains_rect(&e.bounds),
                "{} {:?} of {title:?} at {} outside its window {window}",
                e.role,
                e.label,
                e.bounds
            );
        }
    }

    // A click by id lands on the button of the window it names: that app says so, and the window's
    // new text is read; the other window's app hears nothing.
    let hello = find_in(&see, TITLE, "button", "Say hello").expect("listed above");
    let o = act_on(&mut engine, &see, "click", hello, &[("expect", "text:Hello to you too")]);
    assert_eq!(o.tag(), "[ok+verified]", "{}", o.text());
    assert!(app.wait_for(|l| l == "clicked hello").is_some(), "{:?}", app.seen);
    let see = see_until(&mut engine, |o| find_in(o, SECOND, "button", "Say hello").is_some());
    let other = find_in(&see, SECOND, "button", "Say hello").expect("listed");
    let o = act_on(&mut engine, &see, "click", other, &[]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert!(second.wait_for(|l| l == "clicked hello").is_some(), "{:?}", second.seen);
    app.pending();
    assert_eq!(app.seen.iter().filter(|l| *l == "clicked hello").count(), 1, "{:?}", app.seen);

    // Typing into the entry and the text view by id: exactly what arrived, read back from each.
    // (In the first window, now behind the second: typing by id brings it back.)
    let type_in = |engine: &mut Engine, role: &str, label: &str, text: &str| {
        let see = see_until(engine, |o| find_in(o, TITLE, role, label).is_some());
        let target = find_in(&see, TITLE, role, label).expect("listed");
        act_on(engine, &see, "type", target, &[("text", text)])
    };
    let o = type_in(&mut engine, "entry", "Name", "Grace Hopper");
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == r#"name="Grace Hopper""#).is_some(), "{:?}", app.seen);
    let o = type_in(&mut engine, "text_area", "Notes", "one\n\ttwo");
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l == r#"notes="one\n\ttwo""#).is_some(), "{:?}", app.seen);
    // The password entry is one: typing into it is refused, and the app hears nothing.
    let o = type_in(&mut engine, "password_entry", "PIN", "1234");
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    app.pending();
    let heard = |l: &String| l == "clicked hidden" || l == "clicked icon" || l.starts_with("pin-length");
    assert!(!app.seen.iter().any(heard), "{:?}", app.seen);
    // Nothing typed reached the second window.
    second.pending();
    assert!(!second.seen.iter().any(|l| l.starts_with("name=\"G") || l.starts_with("notes=\"o")), "{:?}", second.seen);

    drop(engine);
    drop((app, second));
    sandbox.stop().expect("clean teardown");
}
