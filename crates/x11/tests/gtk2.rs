//! A real GTK 2 app (GTK's own demo, `gtk-demo` from gtk2.0-examples) on X11: GIMP 2.10 and other
//! older apps are built with GTK 2, which joins the accessibility bus only through the `gail` and
//! `atk-bridge` modules a session names in `GTK_MODULES` (as Debian's and Ubuntu's do). Its demos
//! must be listed by the accessibility tree, and activating one must open its window, as the X server
//! reports.

mod common;

use std::time::{Duration, Instant};

use handrail_core::{Config, Engine, Mode, Status, Turn, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_x11::windows::X11Windows;

use common::{act_on, see_within};

const DEMO: &str = "Button Boxes";

/// The titles of the windows the X server's window manager lists.
fn window_titles(sandbox: &Sandbox) -> Vec<String> {
    let conn = handrail_x11::Conn::open(&sandbox.display()).expect("the sandbox's X server");
    let windows = X11Windows::new(conn, common::launch_env(sandbox));
    let stack = windows.client_windows().expect("client list");
    stack.into_iter().filter_map(|w| windows.window_info(w).ok()).map(|i| i.title).collect()
}

#[test]
fn a_gtk2_apps_widgets_are_on_the_accessibility_bus_and_reached_by_id() {
    assert!(
        std::path::Path::new("/usr/bin/gtk-demo").exists(),
        "GTK 2's demo is installed (scripts/setup-desktop installs gtk2.0-examples)"
    );
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

    let listed = |o: &handrail_core::Outcome| {
        o.observation
            .as_ref()
            .and_then(|obs| obs.elements.iter().find(|e| e.label == DEMO && e.source.has_ax()))
            .cloned()
    };
    let seen = see_within(&mut engine, Duration::from_secs(60), |o| listed(o).is_some());
    let demo = listed(&seen).expect("listed");
    assert_eq!(demo.app, "Gtk-demo", "named by the app's own accessible name: {demo:?}");
    assert!(!window_titles(&sandbox).iter().any(|t| t == DEMO), "the demo is not open yet");

    // GTK 2's demo list opens a demo on a double click.
    let opened = act_on(&mut engine, &seen, "double_click", &demo, &[]);
    assert_eq!(opened.status, Status::Ok, "{}", opened.text());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !window_titles(&sandbox).iter().any(|t| t == DEMO) {
        assert!(
            Instant::now() < deadline,
            "the demo's window never opened: {:?}\n{}",
            window_titles(&sandbox),
            opened.text()
        );
        std::thread::sleep(Duration::from_millis(100)); // polling the X server, not a settle wait
    }
    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}
