//! Several real windows on a private desktop: two Chromium windows with different pages, and a zenity
//! dialog. What the observation lists is checked against the window stack, and what a click reached is
//! read back from the apps themselves: each page reports its clicks to a local server, zenity its answer
//! in its exit status.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use handrail_core::{Config, Engine, Mode, Outcome, RawArgs, Source, Status, Turn, Vision};
use handrail_platform::absent::NoOcr;
use handrail_platform::Windows;
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_testkit::wait_until;
use handrail_x11::windows::{LaunchEnv, X11Windows};
use handrail_x11::{Conn, X11Desktop, X11Options};

/// Request paths the pages sent, in order.
type Hits = Arc<Mutex<Vec<String>>>;

const BACK: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Back page</title></head><body>
<h1>Back page</h1>
<button style="font-size:24px" onclick="fetch('/hit/back-save')"
  onmousedown="fetch('/hit/back-save-down')" onmouseup="fetch('/hit/back-save-up')">Save</button>
<button style="font-size:24px" onclick="fetch('/hit/back-delete')">Delete account</button>
</body></html>"#;

const FRONT: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Front page</title></head><body>
<h1>Front page</h1>
<button style="font-size:24px" onclick="fetch('/hit/front-go')">Go</button>
</body></html>"#;

/// Serves `/back` and `/front` and records every `/hit/...` path.
fn serve(hits: Hits) -> String {
    handrail_testkit::serve_site(move |path| match path {
        "/back" => Some(BACK),
        "/front" => Some(FRONT),
        p if p.starts_with("/hit/") => {
            hits.lock().unwrap_or_else(|e| e.into_inner()).push(p.trim_start_matches("/hit/").to_string());
            Some("ok")
        }
        _ => None,
    })
}

fn args(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).unwrap_or_else(|e| panic!("bad test arguments: {e}"))
}

fn call(engine: &mut Engine, pairs: &[(&str, &str)]) -> Outcome {
    engine.call_args(&args(pairs))
}

/// Runs `action` on the element of the latest observation that `pick` chooses.
fn on(engine: &mut Engine, action: &str, what: &str, pick: impl Fn(&handrail_core::Element) -> bool) -> Outcome {
    let obs = engine.latest().expect("an observation");
    let e = obs.elements.iter().find(|e| pick(e)).unwrap_or_else(|| panic!("no {what} in:\n{:#?}", obs.elements));
    let (obs_id, id) = (obs.id.to_string(), e.id.to_string());
    call(engine, &[("action", action), ("observation_id", &obs_id), ("element_id", &id)])
}

fn is_window(title_start: &str) -> impl Fn(&handrail_core::Element) -> bool + '_ {
    move |e| e.source == Source::Window && e.label.starts_with(title_start)
}

fn is_button(label: &str) -> impl Fn(&handrail_core::Element) -> bool + '_ {
    move |e| e.source.has_ax() && e.role.as_str() == "button" && e.label == label
}

/// Sees until `done` holds for the observation (pages load and reach the accessibility tree a moment
/// after their window appears).
fn see_until(engine: &mut Engine, what: &str, done: impl Fn(&Outcome) -> bool) -> Outcome {
    let mut last = None;
    let found = wait_until(Duration::from_secs(30), Duration::from_millis(300), || {
        let o = call(engine, &[("action", "see")]);
        if done(&o) {
            return Some(o);
        }
        last = Some(o.text());
        None
    });
    found.unwrap_or_else(|| panic!("{what}; last observation:\n{}", last.unwrap_or_default()))
}

fn hits(h: &Hits) -> Vec<String> {
    h.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

struct Desk {
    sandbox: Sandbox,
    engine: Engine,
    /// A second view of the same display, as another program (the window manager, the user) has it.
    windows: X11Windows,
}

fn desk(intent: &str) -> Desk {
    handrail_sandbox::log_to_stderr();
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts (run scripts/setup-desktop)");
    let launch = || {
        let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
        launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
        launch
    };
    let desktop = X11Desktop::connect(
        X11Options::new(sandbox.display(), launch()),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(NoOcr),
    )
    .expect("connects");
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "stack".into(), intent: intent.into(), mode: Mode::Interactive });
    let windows = X11Windows::new(Conn::open(&sandbox.display()).expect("X connection"), launch());
    Desk { sandbox, engine, windows }
}

/// Desktop tests in this binary run one at a time (2 cores; Chromium is heavy).
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn a_covered_chromium_window_is_not_clicked_through_and_is_reached_once_raised() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let h: Hits = Arc::default();
    let base = serve(h.clone());
    let Desk { sandbox, mut engine, windows } = desk("save the back page");

    let o = call(&mut engine, &[("action", "open_url"), ("url", &format!("{base}/back"))]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    see_until(&mut engine, "the back page's Save is listed", |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(is_button("Save")))
    });
    let o = call(&mut engine, &[("action", "open_url"), ("url", &format!("{base}/front"))]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert!(o.text().contains("window opened: \"Front page"), "the new window is named:\n{}", o.text());
    let o = see_until(&mut engine, "the front page's Go is listed", |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(is_button("Go")))
    });
    let obs = o.observation.clone().expect("an observation");
    let text = o.text();

    // The stack as the window manager has it: the front page on top, wholly over the back one where
    // its buttons are.
    let stack = windows.stack().expect("the stack");
    let titles: Vec<&str> = stack.iter().map(|w| w.info.title.as_str()).collect();
    let back_i = titles.iter().position(|t| t.starts_with("Back page")).expect("the back window is stacked");
    let front_i = titles.iter().position(|t| t.starts_with("Front page")).expect("the front window is stacked");
    assert!(back_i < front_i, "front above back: {titles:?}");

    // Nothing of the covered page is listed, and the listing says it is there.
    assert!(!obs.elements.iter().any(is_button("Save")), "a covered button is listed:\n{text}");
    assert!(!obs.elements.iter().any(is_button("Delete account")), "{text}");
    assert!(text.contains("hidden: ") && text.contains("of window"), "{text}");
    assert!(obs.elements.iter().any(is_window("Back page")), "{text}");
    assert!(
        obs.elements.iter().any(|e| is_window("Front page")(e) && e.states.names().any(|s| s == "active")),
        "{text}"
    );

    // Its text matches nothing that could be clicked through.
    let o = call(&mut engine, &[("action", "click"), ("target_text", "Save")]);
    assert_eq!(o.status, Status::Error, "{}", o.text());

    // Raising it by its window element; then its own button is listed and a click reaches the page.
    let o = on(&mut engine, "click", "the back window", is_window("Back page"));
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let front = windows.frontmost().expect("frontmost").expect("a window");
    assert!(front.title.starts_with("Back page"), "the window manager raised it: {front:?}");
    let o = see_until(&mut engine, "the raised page's Save is listed", |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(is_button("Save")))
    });
    let listed = o.text();
    let o = on(&mut engine, "click", "Save", is_button("Save"));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let reached = wait_until(Duration::from_secs(10), Duration::from_millis(50), || {
        // All three, so that none arrives late among the hits counted below.
        let seen = hits(&h);
        ["back-save-down", "back-save-up", "back-save"].iter().all(|w| seen.iter().any(|s| s == w)).then_some(())
    });
    // The press and release are recorded apart from the click, so a failure says which of them the
    // page saw (a click needs both on the button).
    assert!(
        reached.is_some(),
        "the back page never received the click (it saw {:?})\nthe observation it was aimed on: {listed}\nthe click's result: {}",
        hits(&h),
        o.text()
    );

    // Something else raises the front window again (the user, another program): the observation that
    // showed Save is stale for it, and nothing is clicked through onto the front page.
    let see = call(&mut engine, &[("action", "see")]);
    assert!(see.observation.as_ref().is_some_and(|o| o.elements.iter().any(is_button("Save"))), "{}", see.text());
    let front_handle = windows
        .stack()
        .expect("the stack")
        .into_iter()
        .find(|w| w.info.title.starts_with("Front page"))
        .expect("the front window")
        .handle;
    Windows::activate(&windows, front_handle).expect("raised by someone else");
    let before = hits(&h).len();
    let o = on(&mut engine, "click", "Save", is_button("Save"));
    assert_eq!(o.status, Status::Stale, "{}", o.text());
    assert!(o.message.as_deref().unwrap_or_default().contains("covered by"), "{}", o.text());
    // An allowed click on the front page: once it has arrived, anything sent before it would have too.
    see_until(&mut engine, "the front page's Go is listed", |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(is_button("Go")))
    });
    let o = on(&mut engine, "click", "Go", is_button("Go"));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let reached = wait_until(Duration::from_secs(10), Duration::from_millis(50), || {
        hits(&h).contains(&"front-go".to_string()).then_some(())
    });
    assert!(reached.is_some(), "the front page received its own click: {:?}", hits(&h));
    assert_eq!(hits(&h)[before..], ["front-go".to_string()], "the refused click reached no page: {:?}", hits(&h));

    drop(engine);
    drop(windows);
    sandbox.stop().expect("clean teardown");
}

#[test]
fn a_dialog_that_opens_between_calls_is_named_and_can_be_answered() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Desk { sandbox, mut engine, windows } = desk("answer the question");
    let o = call(&mut engine, &[("action", "open_app"), ("app", "xterm")]);
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    call(&mut engine, &[("action", "see")]);

    // A dialog nobody asked handrail for: another program opens it.
    let mut zenity = sandbox.command("zenity");
    zenity.args(["--question", "--title", "Overwrite file?", "--text", "Overwrite notes.txt?"]);
    let mut child = zenity.spawn().expect("zenity starts");
    let o = see_until(&mut engine, "the dialog's Yes is listed", |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(is_button("Yes")))
    });
    let _ = o;
    // Which call saw it first is timing; every call since the last observation reports what opened, so
    // the stack must now hold it and its window element must say dialog.
    let obs = engine.latest().expect("an observation").clone();
    let dialog = obs.elements.iter().find(|e| is_window("Overwrite file?")(e)).expect("the dialog's window element");
    assert_eq!(dialog.detail.native_role, "dialog");
    assert!(windows.stack().expect("stack").iter().any(|w| w.info.title == "Overwrite file?"));

    let mut o = on(&mut engine, "click", "Yes", is_button("Yes"));
    // First listed, the dialog may still be being placed or sized (zenity lays itself out after it
    // maps): a click aimed where Yes was is refused as stale, and the agent clicks again from the
    // fresh observation that came with the refusal, as the refusal says to.
    if o.status == Status::Stale {
        o = on(&mut engine, "click", "Yes", is_button("Yes"));
    }
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    assert!(o.text().contains("dialog closed: \"Overwrite file?\""), "{}", o.text());
    let status = wait_until(Duration::from_secs(10), Duration::from_millis(50), || child.try_wait().ok().flatten())
        .expect("zenity ended");
    assert!(status.success(), "zenity was answered Yes: {status}");

    drop(engine);
    drop(windows);
    sandbox.stop().expect("clean teardown");
}
