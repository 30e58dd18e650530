//! Two monitors on one real X screen: a 2560x800 Xvfb split by RandR 1.5 into two 1280x800 monitors
//! (`xrandr --setmonitor`, as a virtual-monitor setup or a docked laptop has them), a GTK app on each.
//! The observation names both monitors, every element says which one it is on, coordinates stay in
//! one screenshot space, and a click on the second monitor reaches the app there: each app says on its
//! stdout what it received.

mod common;

use std::time::Duration;

use handrail_core::{Config, Element, Engine, Mode, Outcome, Status, Turn, Vision};
use handrail_platform::{Rect, Screen as _};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::{wait_until, LineApp};
use handrail_x11::capture::X11Screen;
use handrail_x11::Conn;

use common::raw;

fn probe(sandbox: &Sandbox, title: &str, x: i32) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py"));
    command.args(["--title", title, "--at", &x.to_string(), "40"]);
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l.starts_with("geometry Change ")).is_some(), "{title} came up: {:?}", app.seen);
    app
}

/// Where the app says its Change button is, in screen coordinates.
fn change_geometry(app: &LineApp) -> Rect {
    let line = app.seen.iter().rev().find(|l| l.starts_with("geometry Change ")).expect("the app reported it");
    let n: Vec<i64> = line.split_whitespace().skip(2).filter_map(|s| s.parse().ok()).collect();
    Rect::new(n[0] as i32, n[1] as i32, n[2] as u32, n[3] as u32)
}

fn xrandr(sandbox: &Sandbox, args: &[&str]) {
    let status = sandbox
        .command("xrandr")
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("xrandr runs (x11-xserver-utils)");
    assert!(status.success(), "xrandr {args:?}: {status}");
}

fn change_button<'a>(o: &'a Outcome, window: &str) -> &'a Element {
    let obs = o.observation.as_ref().expect("an observation");
    obs.elements
        .iter()
        .find(|e| e.role.as_str() == "button" && e.label == "Change" && e.window == window)
        .unwrap_or_else(|| panic!("no Change button of {window:?}:\n{}", o.text()))
}

#[test]
fn two_monitors_are_reported_and_a_click_on_the_second_reaches_its_app() {
    handrail_sandbox::log_to_stderr();
    let opts = SandboxOptions { size: (2560, 800), parent_death_signal: false, ..SandboxOptions::default() };
    let sandbox = Sandbox::start(opts).expect("sandbox starts (run scripts/setup-desktop)");
    // The left monitor takes the screen's output (so RandR's automatic whole-screen monitor goes) and
    // is the primary one; the right one is virtual.
    xrandr(&sandbox, &["--setmonitor", "*LEFT-1", "1280/338x800/211+0+0", "screen"]);
    xrandr(&sandbox, &["--setmonitor", "RIGHT-1", "1280/338x800/211+1280+0", "none"]);

    // The backend reads them as the server has them, in screen coordinates.
    let screen = X11Screen::new(Conn::open(&sandbox.display()).expect("connects")).expect("capture");
    let mut monitors = screen.monitors().expect("RandR answers");
    monitors.sort_by_key(|m| m.bounds.x);
    let seen: Vec<(&str, Rect, bool)> = monitors.iter().map(|m| (m.name.as_str(), m.bounds, m.primary)).collect();
    assert_eq!(seen, [("LEFT-1", Rect::new(0, 0, 1280, 800), true), ("RIGHT-1", Rect::new(1280, 0, 1280, 800), false)]);

    let mut left = probe(&sandbox, "Left probe", 40);
    let mut right = probe(&sandbox, "Right probe", 1320);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn {
        id: "monitors".into(),
        intent: "press Change on the right".into(),
        mode: Mode::Interactive,
    });

    let mut last = String::new();
    let see = wait_until(Duration::from_secs(30), Duration::from_millis(200), || {
        let o = engine.call_args(&raw(&[("action", "see")]));
        let both = ["Left probe", "Right probe"].iter().all(|w| {
            o.observation.as_ref().is_some_and(|obs| {
                obs.elements.iter().any(|e| e.role.as_str() == "button" && e.label == "Change" && e.window == *w)
            })
        });
        last = o.text();
        both.then_some(o)
    })
    .unwrap_or_else(|| panic!("both apps' buttons never appeared:\n{last}"));
    let text = see.text();
    let obs = see.observation.as_ref().expect("an observation");
    assert_eq!(obs.scale, 2.0, "2560x800 is shown as 1280x400");
    assert!(text.contains(" monitors=2"), "{text}");
    assert!(text.contains("m1 monitor \"LEFT-1\" @ 0,0 640x400 primary\n"), "{text}");
    assert!(text.contains("m2 monitor \"RIGHT-1\" @ 640,0 640x400\n"), "{text}");
    for (window, tag, app) in [("Left probe", "m1", &left), ("Right probe", "m2", &right)] {
        let button = change_button(&see, window);
        assert_eq!(obs.monitor_of(button).map(|m| m.tag()).as_deref(), Some(tag), "{window}:\n{text}");
        // One coordinate space: the element's box, in screen pixels, is where the app says its button is.
        let real = change_geometry(app);
        let shown = button.bounds.scaled(obs.scale);
        let off = (shown.x - real.x).abs().max((shown.y - real.y).abs());
        assert!(off <= 4, "{window}: shown at {shown} (screen), the app says {real}");
    }

    let button = change_button(&see, "Right probe");
    let (obs_id, id) = (obs.id.to_string(), button.id.to_string());
    let o = engine.call_args(&raw(&[("action", "click"), ("observation_id", &obs_id), ("element_id", &id)]));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(right.wait_for(|l| l == "clicked Change").is_some(), "the right app got the click: {:?}", right.seen);
    left.pending();
    assert!(!left.seen.iter().any(|l| l == "clicked Change"), "the left app got nothing: {:?}", left.seen);
}
