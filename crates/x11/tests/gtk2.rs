//! A real GTK 2 app (GTK's own demo, `gtk-demo` from gtk2.0-examples) on X11: GIMP 2.10 and other
//! older apps are built with GTK 2, which joins the accessibility bus only through the `gail` and
//! `atk-bridge` modules a session names in `GTK_MODULES` (as Debian's and Ubuntu's do). Its demos
//! must be listed by the accessibility tree, and activating one must open its window; the items of
//! an open menu (which GTK 2 never marks as showing) must be listed and reached by id, as the X
//! server reports the windows the app then opens.

mod common;

use std::time::{Duration, Instant};

use handrail_core::{Config, Element, Engine, Mode, Outcome, Status, Turn, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_x11::windows::X11Windows;

use common::{act_on, see_within};

const DEMO: &str = "Button Boxes";
const MENU_DEMO: &str = "Application main window";
const MENU_DEMO_TITLE: &str = "Application Window";

/// The element labelled `label` that the accessibility tree lists (not only read off the screen).
fn listed(o: &Outcome, label: &str) -> Option<Element> {
    o.observation.as_ref()?.elements.iter().find(|e| e.label == label && e.source.has_ax()).cloned()
}

/// The element `role` `label` that the accessibility tree lists (a menu's item, not the toolbar's
/// button of the same name).
fn listed_as(o: &Outcome, role: &str, label: &str) -> Option<Element> {
    o.observation.as_ref()?.elements.iter().find(|e| e.label == label && e.role.as_str() == role).cloned()
}

/// Waits until the X server's window titles satisfy `done`, bounded.
fn wait_for_window(sandbox: &Sandbox, done: impl Fn(&[String]) -> bool, after: &Outcome) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done(&window_titles(sandbox)) {
        assert!(Instant::now() < deadline, "no such window: {:?}\n{}", window_titles(sandbox), after.text());
        std::thread::sleep(Duration::from_millis(100)); // polling the X server, not a settle wait
    }
}

/// The titles of the windows the X server's window manager lists.
fn window_titles(sandbox: &Sandbox) -> Vec<String> {
    let conn = handrail_x11::Conn::open(&sandbox.display()).expect("the sandbox's X server");
    let windows = X11Windows::new(conn, common::launch_env(sandbox));
    let stack = windows.client_windows().expect("client list");
    stack.into_iter().filter_map(|w| windows.window_info(w).ok()).map(|i| i.title).collect()
}

#[test]
fn a_gtk2_apps_widgets_and_menu_items_are_on_the_accessibility_bus_and_reached_by_id() {
    assert!(
        std::path::Path::new("/usr/bin/gtk-demo").exists(),
        "GTK 2's demo is installed (scripts/setup-desktop installs gtk2.0-examples)"
    );
    handrail_sandbox::log_to_stderr();
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let app = common::start_app(sandbox.command("gtk-demo"));
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn {
        id: "gtk2".into(),
        intent: "look at the button boxes demo".into(),
        mode: Mode::Interactive,
    });

    let seen = see_within(&mut engine, Duration::from_secs(60), |o| listed(o, DEMO).is_some());
    let demo = listed(&seen, DEMO).expect("listed");
    assert_eq!(demo.app, "Gtk-demo", "named by the app's own accessible name: {demo:?}");
    assert!(!window_titles(&sandbox).iter().any(|t| t == DEMO), "the demo is not open yet");

    // GTK 2's demo list opens a demo on a double click.
    let opened = act_on(&mut engine, &seen, "double_click", &demo, &[]);
    assert_eq!(opened.status, Status::Ok, "{}", opened.text());
    wait_for_window(&sandbox, |titles| titles.iter().any(|t| t == DEMO), &opened);

    // A menu: the demo "Application main window" has File > Quit, which answers with a message box.
    let seen = see_within(&mut engine, Duration::from_secs(20), |o| listed(o, MENU_DEMO).is_some());
    let opened = act_on(&mut engine, &seen, "double_click", &listed(&seen, MENU_DEMO).expect("listed"), &[]);
    wait_for_window(&sandbox, |titles| titles.iter().any(|t| t == MENU_DEMO_TITLE), &opened);
    let seen = see_within(&mut engine, Duration::from_secs(20), |o| {
        o.observation.as_ref().is_some_and(|obs| obs.window.as_deref() == Some(MENU_DEMO_TITLE))
            && listed(o, "File").is_some()
    });
    let file = act_on(&mut engine, &seen, "click", &listed(&seen, "File").expect("listed"), &[]);
    let quit = listed_as(&file, "menu_item", "Quit")
        .unwrap_or_else(|| panic!("the open File menu's items are listed:\n{}", file.text()));
    let windows_before = window_titles(&sandbox).len();
    let chosen = act_on(&mut engine, &file, "click", &quit, &[]);
    assert_eq!(chosen.status, Status::Ok, "{}", chosen.text());
    wait_for_window(&sandbox, |titles| titles.len() > windows_before, &chosen);
    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}
