//! `AtspiSource` against GTK apps on a private sandbox desktop (never the host's bus or display).
//!
//! One sandbox serves the whole binary; tests take turns (focus and the set of apps are shared state).

mod common;

use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use common::{activate, click_node, find, spawn, test_limits, wait_for, x_geometry, x_tool, App};
use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxHealth, AxLimits, AxNode, AxSnapshot, Role, States};
use handrail_sandbox::Sandbox;
use handrail_testkit::LineApp;

struct Desk {
    sandbox: Sandbox,
    source: AtspiSource,
}

static DESK: OnceLock<Desk> = OnceLock::new();
static TURN: Mutex<()> = Mutex::new(());

fn desk() -> (&'static Desk, MutexGuard<'static, ()>) {
    let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let desk = DESK.get_or_init(|| {
        let sandbox = common::start_sandbox();
        let source = AtspiSource::new(sandbox.bus_address());
        Desk { sandbox, source }
    });
    (desk, turn)
}

fn window<'a>(snap: &'a AxSnapshot, title: &str) -> Option<&'a AxNode> {
    snap.nodes.iter().find(|n| n.parent.is_none() && n.name == title)
}

/// Nodes of the window titled `title`.
fn in_window<'a>(snap: &'a AxSnapshot, title: &'a str) -> impl Iterator<Item = &'a AxNode> + 'a {
    snap.nodes.iter().filter(move |n| n.window == title)
}

fn inside(outer: &handrail_platform::Rect, inner: &handrail_platform::Rect) -> bool {
    inner.x >= outer.x
        && inner.y >= outer.y
        && inner.x + inner.width as i32 <= outer.x + outer.width as i32
        && inner.y + inner.height as i32 <= outer.y + outer.height as i32
}

const FORM_TITLE: &str = "Handrail Login";

fn open_form(sandbox: &Sandbox) -> App {
    spawn(
        sandbox,
        "zenity",
        &["--forms", "--title", FORM_TITLE, "--text", "Sign in", "--add-entry=Name", "--add-password=Password"],
    )
}

fn form_fields(snap: &AxSnapshot) -> Option<(AxNode, AxNode)> {
    let name = in_window(snap, FORM_TITLE).find(|n| n.role() == Role::Entry)?.clone();
    let password = in_window(snap, FORM_TITLE).find(|n| n.role() == Role::PasswordEntry)?.clone();
    Some((name, password))
}

#[test]
fn gtk_buttons_have_roles_labels_and_true_bounds() {
    let (desk, _turn) = desk();
    let limits = test_limits();
    let _app = spawn(&desk.sandbox, "zenity", &["--question", "--title", "Handrail Question", "--text", "Proceed?"]);
    // The buttons can be listed while the window manager is still framing the window, which GTK
    // reports as a 1x1 window at the origin for that moment: wait for its real frame too.
    let snap = wait_for(&desk.source, &limits, Duration::from_secs(20), |s| {
        find(s, Role::Button, "Yes").is_some()
            && find(s, Role::Button, "No").is_some()
            && window(s, "Handrail Question").is_some_and(|w| w.bounds.width > 1 && w.bounds.height > 1)
    })
    .unwrap_or_else(|s| panic!("zenity buttons never appeared:\n{}", common::dump(&s)));
    assert_eq!(snap.health, AxHealth::Ok);

    let win = window(&snap, "Handrail Question").expect("the dialog window is listed").clone();
    assert_eq!(win.app, "zenity");
    let yes = find(&snap, Role::Button, "Yes").expect("Yes");
    let no = find(&snap, Role::Button, "No").expect("No");
    for b in [yes, no] {
        assert_eq!(b.native_role, "push button");
        assert_eq!(b.window, "Handrail Question");
        assert!(!b.states.contains(States::DISABLED), "{b:?}");
        assert!(!b.actions.is_empty(), "buttons offer actions: {b:?}");
        assert!(inside(&win.bounds, &b.bounds), "button {:?} inside window {:?}", b.bounds, win.bounds);
        assert!(b.bounds.width >= 20 && b.bounds.height >= 15, "{b:?}");
        // Parent links point backwards, into the same window.
        let p = b.parent.expect("a button has a parent");
        assert_eq!(snap.nodes[p].window, "Handrail Question");
    }
    let text = snap.nodes.iter().find(|n| n.role() == Role::Text && n.name == "Proceed?");
    assert!(text.is_some(), "the label is listed:\n{}", common::dump(&snap));

    // The X server's view of the same window: the accessible frame (which includes the window manager's
    // decorations) matches within a few pixels, and the buttons sit in the client area.
    let id = activate(&desk.sandbox, "Handrail Question");
    let client = x_geometry(&desk.sandbox, &id, false);
    let client = handrail_platform::Rect { x: client.0, y: client.1, width: client.2 as u32, height: client.3 as u32 };
    for b in [yes, no] {
        assert!(inside(&client, &b.bounds), "button {:?} inside the X client area {client:?}", b.bounds);
    }
    let (x, y, w, h) = x_geometry(&desk.sandbox, &id, true);
    let near = |a: i32, b: i32| (a - b).abs() <= 4;
    assert!(
        near(win.bounds.x, x)
            && near(win.bounds.y, y)
            && near(win.bounds.width as i32, w)
            && near(win.bounds.height as i32, h),
        "a11y {:?} vs X ({x},{y} {w}x{h})",
        win.bounds
    );
}

#[test]
fn password_entry_is_secure_and_its_text_is_never_read() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let limits = test_limits();
    let _app = open_form(sandbox);
    let snap = wait_for(&desk.source, &limits, Duration::from_secs(20), |s| form_fields(s).is_some())
        .unwrap_or_else(|s| panic!("form never appeared:\n{}", common::dump(&s)));
    let (_, password) = form_fields(&snap).expect("fields");
    assert_eq!(password.native_role, "password text");
    assert!(password.states.contains(States::SECURE));
    assert_eq!(password.value, None);

    activate(sandbox, FORM_TITLE);
    const SECRET: &str = "Zebra-9-secret";
    click_node(sandbox, &password);
    x_tool(sandbox, "xdotool", &["type", "--delay", "30", SECRET]);
    // Then type into the visible field: once its value shows up, the secret was typed before it.
    let (name, _) = form_fields(&snap).expect("fields");
    click_node(sandbox, &name);
    x_tool(sandbox, "xdotool", &["type", "--delay", "30", "visible-alice"]);
    let snap = wait_for(&desk.source, &limits, Duration::from_secs(10), |s| {
        form_fields(s).is_some_and(|(n, _)| n.value.as_deref() == Some("visible-alice"))
    })
    .unwrap_or_else(|s| panic!("typed text never showed in the entry's value:\n{}", common::dump(&s)));

    let (_, password) = form_fields(&snap).expect("fields");
    assert!(password.states.contains(States::SECURE));
    assert_eq!(password.value, None);
    for n in &snap.nodes {
        let texts = [Some(n.name.as_str()), n.value.as_deref(), Some(n.description.as_str())];
        for t in texts.into_iter().flatten() {
            assert!(!t.contains("Zebra") && !t.contains('•') && !t.contains('●'), "secret leaked in {n:?}");
        }
        assert!(n.attributes.iter().all(|(_, v)| !v.contains("Zebra")), "secret leaked in {n:?}");
    }
}

#[test]
fn focus_follows_a_click_through_events() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let limits = test_limits();
    let _app = open_form(sandbox);
    wait_for(&desk.source, &limits, Duration::from_secs(20), |s| form_fields(s).is_some())
        .unwrap_or_else(|s| panic!("form never appeared:\n{}", common::dump(&s)));
    activate(sandbox, FORM_TITLE);
    // Fields listed before the window manager framed and placed the window carry the place GTK
    // gave them then (a 1x1 window at the origin for a moment, on a busy machine for longer): click
    // where two looks after the activation agree, inside the framed window.
    let mut last = None;
    let snap = wait_for(&desk.source, &limits, Duration::from_secs(20), |s| {
        let framed = window(s, FORM_TITLE).map(|w| w.bounds).filter(|w| w.width > 1 && w.height > 1);
        let now = framed.and_then(|w| {
            let (n, p) = form_fields(s)?;
            (w.contains_rect(&n.bounds) && w.contains_rect(&p.bounds)).then_some((n.bounds, p.bounds))
        });
        let settled = now.is_some() && now == last;
        last = now;
        settled
    })
    .unwrap_or_else(|s| panic!("the form's fields never stayed put in its window:\n{}", common::dump(&s)));
    let (name, password) = form_fields(&snap).expect("fields");
    for target in [password, name] {
        click_node(sandbox, &target);
        let clicked = Instant::now();
        let snap = wait_for(&desk.source, &limits, Duration::from_secs(5), |s| {
            s.focused().is_some_and(|f| s.nodes[f].role() == target.role() && s.nodes[f].window == FORM_TITLE)
        })
        .unwrap_or_else(|s| {
            panic!(
                "focus never moved to {:?} clicked at {:?}:\n{}",
                target.role(),
                target.bounds.center(),
                common::dump(&s)
            )
        });
        eprintln!("focus on {:?} seen after {:?}", target.role(), clicked.elapsed());
        // Exactly one focused node.
        assert_eq!(snap.nodes.iter().filter(|n| n.states.contains(States::FOCUSED)).count(), 1);
    }
}

/// Stops a process for the duration and resumes (then kills) it afterwards, even if the test fails.
struct Stopped<'a> {
    sandbox: &'a Sandbox,
    pid: String,
}

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        let _ = self.sandbox.command("kill").args(["-CONT", &self.pid]).status();
    }
}

#[test]
fn a_hung_app_gives_partial_within_the_deadline() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let limits = test_limits();
    let hung = spawn(sandbox, "zenity", &["--info", "--title", "Handrail Hung", "--text", "I will freeze"]);
    let _alive = spawn(sandbox, "zenity", &["--info", "--title", "Handrail Alive", "--text", "Still here"]);
    wait_for(&desk.source, &limits, Duration::from_secs(20), |s| {
        window(s, "Handrail Hung").is_some() && window(s, "Handrail Alive").is_some()
    })
    .unwrap_or_else(|s| panic!("apps never appeared:\n{}", common::dump(&s)));

    let pid = hung.0.id().to_string();
    let stopped = Stopped { sandbox, pid: pid.clone() };
    let status = sandbox.command("kill").args(["-STOP", &pid]).status().expect("kill runs");
    assert!(status.success());

    let tight =
        AxLimits { max_nodes: 4000, call_timeout: Duration::from_millis(300), deadline: Duration::from_millis(1500) };
    for cold in [false, true] {
        if cold {
            desk.source.clear_cache();
        }
        let t = Instant::now();
        let snap = desk.source.snapshot(&tight);
        let took = t.elapsed();
        assert_eq!(snap.health, AxHealth::Partial, "cold={cold}:\n{}", common::dump(&snap));
        assert!(took <= tight.deadline + Duration::from_millis(100), "cold={cold}: took {took:?}");
        assert!(window(&snap, "Handrail Alive").is_some(), "the answering app is kept (cold={cold})");
        assert!(window(&snap, "Handrail Hung").is_none());
        eprintln!("hung app: cold={cold} partial snapshot in {took:?}");
    }

    // A deadline shorter than the call timeout bounds the walk too.
    let short =
        AxLimits { max_nodes: 4000, call_timeout: Duration::from_secs(5), deadline: Duration::from_millis(400) };
    let t = Instant::now();
    let snap = desk.source.snapshot(&short);
    assert_eq!(snap.health, AxHealth::Partial);
    assert!(t.elapsed() <= short.deadline + Duration::from_millis(100), "took {:?}", t.elapsed());

    drop(stopped);
    let snap = wait_for(&desk.source, &limits, Duration::from_secs(10), |s| {
        s.health == AxHealth::Ok && window(s, "Handrail Hung").is_some()
    });
    assert!(snap.is_ok(), "the app answers again after SIGCONT");
}

#[test]
fn node_cap_is_respected() {
    let (desk, _turn) = desk();
    let limits = test_limits();
    let _app = spawn(&desk.sandbox, "zenity", &["--info", "--title", "Handrail Capped", "--text", "Many words here"]);
    wait_for(&desk.source, &limits, Duration::from_secs(20), |s| window(s, "Handrail Capped").is_some())
        .unwrap_or_else(|s| panic!("never appeared:\n{}", common::dump(&s)));
    for cap in [0, 1, 5] {
        desk.source.clear_cache();
        let snap = desk.source.snapshot(&AxLimits { max_nodes: cap, ..limits });
        assert!(snap.nodes.len() <= cap, "cap {cap}: {}", snap.nodes.len());
        assert!(snap.nodes.iter().all(|n| n.parent.is_none_or(|p| p < snap.nodes.len())));
    }
}

#[test]
fn warm_snapshots_reuse_windows_and_match_a_cold_walk() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let limits = test_limits();
    let _app = spawn(sandbox, "zenity", &["--info", "--title", "Handrail Mover", "--text", "Move me"]);
    wait_for(&desk.source, &limits, Duration::from_secs(20), |s| window(s, "Handrail Mover").is_some())
        .unwrap_or_else(|s| panic!("never appeared:\n{}", common::dump(&s)));
    // Quiet screen: sooner or later nothing is re-walked and the window is reused. (One look that
    // walked nothing does not promise the next reuses: on a loaded machine an event can still come
    // late — the window manager activating a window after it mapped — and have it read again, or an
    // app can miss a look's deadline, which leaves its windows out of that look.)
    let warm = wait_for(&desk.source, &limits, Duration::from_secs(10), |_| {
        let stats = desk.source.last_stats();
        stats.windows_walked == 0 && stats.windows_reused >= 1
    })
    .unwrap_or_else(|s| panic!("windows kept being re-walked, or none was reused:\n{}", common::dump(&s)));
    desk.source.clear_cache();
    let cold = desk.source.snapshot(&limits);
    assert_eq!(warm.nodes, cold.nodes, "a reused window equals a fresh walk");

    // Moving the window: the reused nodes shift with it (screen coordinates).
    let id = activate(sandbox, "Handrail Mover");
    let before = window(&cold, "Handrail Mover").expect("window").bounds;
    x_tool(sandbox, "xdotool", &["windowmove", "--sync", &id, "40", "60"]);
    let moved = wait_for(&desk.source, &limits, Duration::from_secs(5), |s| {
        window(s, "Handrail Mover").is_some_and(|w| w.bounds.x != before.x || w.bounds.y != before.y)
    })
    .unwrap_or_else(|s| panic!("window bounds never changed:\n{}", common::dump(&s)));
    // Let stale post-map coordinates settle, then compare warm and cold again.
    wait_for(&desk.source, &limits, Duration::from_secs(10), |_| desk.source.last_stats().windows_walked == 0)
        .unwrap_or_else(|s| panic!("windows kept being re-walked:\n{}", common::dump(&s)));
    let warm = desk.source.snapshot(&limits);
    desk.source.clear_cache();
    let cold = desk.source.snapshot(&limits);
    assert_eq!(warm.nodes, cold.nodes, "after a move, cached nodes equal a fresh walk");
    assert_ne!(window(&moved, "Handrail Mover").map(|w| w.bounds), Some(before));
}

const VALUES_TITLE: &str = "Handrail Values";

/// The values app (testdata/apps/values_gtk.py), up and reporting what it holds on stdout.
fn values_app(sandbox: &Sandbox) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/values_gtk.py"));
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "the values app came up");
    app
}

/// What the app last said it holds under `key` (its `key=value` lines).
fn app_holds(app: &LineApp, key: &str) -> String {
    let prefix = format!("{key}=");
    let said = app.seen.iter().rev().find_map(|l| l.strip_prefix(&prefix));
    said.unwrap_or_else(|| panic!("the app never reported {key}: {:?}", app.seen)).to_owned()
}

/// The value of the first node of `role` in the values window.
fn value_of(snap: &AxSnapshot, role: Role) -> Option<String> {
    in_window(snap, VALUES_TITLE).find(|n| n.role() == role).and_then(|n| n.value.clone())
}

fn node_of(snap: &AxSnapshot, role: Role) -> AxNode {
    in_window(snap, VALUES_TITLE).find(|n| n.role() == role).cloned().expect("the node is listed")
}

/// Waits until the `role` node's value is what the app says it holds under `key`.
fn agrees(desk: &Desk, app: &LineApp, role: Role, key: &str) -> AxSnapshot {
    let want = app_holds(app, key);
    wait_for(&desk.source, &test_limits(), Duration::from_secs(10), |s| value_of(s, role).as_deref() == Some(&want))
        .unwrap_or_else(|s| panic!("{role:?} never showed the app's {key}={want:?}:\n{}", common::dump(&s)))
}

#[test]
fn combo_boxes_sliders_and_spin_buttons_carry_what_the_app_holds() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let mut app = values_app(sandbox);
    // As shown: the GTK combo's selection comes from its Selection interface, the others from Value/Text.
    let snap = agrees(desk, &app, Role::ComboBox, "combo");
    assert_eq!(value_of(&snap, Role::ComboBox).as_deref(), Some("Guinea"));
    agrees(desk, &app, Role::Slider, "scale");
    let snap = agrees(desk, &app, Role::SpinButton, "spin");
    assert_eq!(value_of(&snap, Role::Slider).as_deref(), Some("42"));
    assert_eq!(value_of(&snap, Role::SpinButton).as_deref(), Some("7"));

    // Changed through the widgets' own input handling, the new values are read (the cache follows).
    activate(sandbox, VALUES_TITLE);
    click_node(sandbox, &node_of(&snap, Role::ComboBox));
    let menu = wait_for(&desk.source, &test_limits(), Duration::from_secs(10), |s| {
        find(s, Role::MenuItem, "Norway").is_some()
    })
    .unwrap_or_else(|s| panic!("the combo's menu never opened:\n{}", common::dump(&s)));
    click_node(sandbox, find(&menu, Role::MenuItem, "Norway").expect("Norway"));
    assert!(app.wait_for(|l| l == "combo=Norway").is_some(), "the app selected Norway: {:?}", app.seen);
    agrees(desk, &app, Role::ComboBox, "combo");

    let spin = node_of(&snap, Role::SpinButton);
    let left_part = AxNode { bounds: handrail_platform::Rect { width: spin.bounds.width / 4, ..spin.bounds }, ..spin };
    click_node(sandbox, &left_part);
    x_tool(sandbox, "xdotool", &["key", "Up"]);
    assert!(app.wait_for(|l| l == "spin=8").is_some(), "the spin button went up: {:?}", app.seen);
    agrees(desk, &app, Role::SpinButton, "spin");

    // A click on the trough moves a GTK slider; whatever it moved to, the app and the tree agree.
    click_node(sandbox, &node_of(&snap, Role::Slider));
    assert!(app.wait_for(|l| l.starts_with("scale=") && l != "scale=42").is_some(), "the slider moved: {:?}", app.seen);
    agrees(desk, &app, Role::Slider, "scale");
}

const LIST_TITLE: &str = "Handrail Long List";

#[test]
fn rows_scrolled_out_of_a_long_list_are_left_out_for_two_calls_each() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py"));
    command.args(["--title", LIST_TITLE]);
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "the probe app came up");
    let limits = test_limits();
    let row = |s: &AxSnapshot, name: &str| in_window(s, LIST_TITLE).find(|n| n.name == name).cloned();
    wait_for(&desk.source, &limits, Duration::from_secs(20), |s| row(s, "Row 0").is_some())
        .unwrap_or_else(|s| panic!("the list's first row never appeared:\n{}", common::dump(&s)));

    desk.source.clear_cache();
    let cold = desk.source.snapshot(&limits);
    let stats = desk.source.last_stats();
    assert_eq!(cold.health, AxHealth::Ok, "{}", common::dump(&cold));
    let list = in_window(&cold, LIST_TITLE).find(|n| n.role() == Role::Table).expect("the list is listed").clone();
    // What is in view is listed, inside the list; what is scrolled away is not.
    let first = row(&cold, "Row 0").expect("Row 0 is in view");
    assert!(inside(&list.bounds, &first.bounds), "{:?} inside {:?}", first.bounds, list.bounds);
    for gone in ["Row 50", "Row 199"] {
        assert!(row(&cold, gone).is_none(), "{gone} is scrolled out of view but listed");
    }
    // GTK 3 says those rows are shown and visible; only their extents tell. Each costs its states and
    // extents, not all eight fields a listed node costs (1,740 calls for this walk before).
    let budget = 2 * 200 + 12 * stats.nodes;
    assert!(stats.calls <= budget, "{} calls for {} nodes (budget {budget})", stats.calls, stats.nodes);
}

/// A GTK dialog read in parts after a click into its entry and typing there (focus moves, the entry's
/// text changes, the default button stays default) equals a fresh walk, field by field.
#[test]
fn a_dialog_read_again_in_parts_after_focus_and_typing_equals_a_fresh_walk() {
    let (desk, _turn) = desk();
    let sandbox = &desk.sandbox;
    let limits = test_limits();
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/confirm_gtk.py"));
    command.args(["--title", "Handrail Parts"]);
    let mut app = LineApp::spawn(command);
    assert!(app.wait_for(|l| l == "ready").is_some(), "the dialog came up");
    let entry = |s: &AxSnapshot| in_window(s, "Handrail Parts").find(|n| n.role() == Role::Entry).cloned();
    let snap = wait_for(&desk.source, &limits, Duration::from_secs(20), |s| entry(s).is_some())
        .unwrap_or_else(|s| panic!("never appeared:\n{}", common::dump(&s)));
    wait_for(&desk.source, &limits, Duration::from_secs(10), |_| {
        let s = desk.source.last_stats();
        s.windows_walked == 0 && s.windows_patched == 0
    })
    .unwrap_or_else(|s| panic!("never still:\n{}", common::dump(&s)));
    activate(sandbox, "Handrail Parts");
    click_node(sandbox, &entry(&snap).expect("entry"));
    x_tool(sandbox, "xdotool", &["type", "--delay", "20", "old"]);
    assert!(app.wait_for(|l| l == "reason=old").is_some(), "{:?}", app.seen);
    let mut parted = false;
    let warm = wait_for(&desk.source, &limits, Duration::from_secs(10), |s| {
        let stats = desk.source.last_stats();
        parted |= stats.windows_patched > 0 && stats.windows_walked == 0;
        entry(s).is_some_and(|e| e.value.as_deref() == Some("old") && e.states.contains(States::FOCUSED))
    })
    .unwrap_or_else(|s| panic!("the typing never showed:\n{}", common::dump(&s)));
    desk.source.clear_cache();
    let cold = desk.source.snapshot(&limits);
    let mine = |s: &AxSnapshot| in_window(s, "Handrail Parts").cloned().collect::<Vec<_>>();
    assert_eq!(
        mine(&warm),
        mine(&cold),
        "read in parts: {parted}\nwarm:\n{}\ncold:\n{}",
        common::dump(&warm),
        common::dump(&cold)
    );
    assert!(parted, "the changes were read in parts");
    drop(app);
}
