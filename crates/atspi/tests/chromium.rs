//! `AtspiSource` against Chromium on a private sandbox desktop, showing a local form served by a tiny
//! HTTP server on 127.0.0.1.

mod common;

use std::time::{Duration, Instant};

use common::{find, form_html, launch_chromium, serve, test_limits, wait_for, x_tool, FORM_SECRET};
use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxHealth, AxNode, AxSnapshot, Role, States};

fn attr<'a>(n: &'a AxNode, key: &str) -> Option<&'a str> {
    n.attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn chromium_form_roles_labels_and_secure_password() {
    let sandbox = common::start_sandbox();
    let source = AtspiSource::new(sandbox.bus_address());
    let limits = test_limits();
    let url = serve(form_html());
    let _chromium = launch_chromium(&sandbox, &url);

    // Chromium exposes a page as it lays it out: on a busy machine a look can list the form but not
    // yet the paragraphs after it, so the wait is for the page's last paragraph too.
    let snap = wait_for(&source, &limits, Duration::from_secs(60), |s| {
        find(s, Role::Button, "Delete account").is_some()
            && s.nodes.iter().any(|n| n.role() == Role::PasswordEntry)
            && s.nodes.iter().any(|n| n.role() == Role::Text && n.name == "ยินดีต้อนรับกลับสู่บัญชีของคุณ")
    })
    .unwrap_or_else(|s| panic!("the whole form page never appeared:\n{}", common::dump(&s)));
    assert_eq!(snap.health, AxHealth::Ok);

    let doc =
        snap.nodes.iter().find(|n| n.role() == Role::Document && n.name == "Handrail Form").expect("page document");
    assert_eq!(doc.native_role, "document web");
    assert_eq!(doc.app, "Chromium");
    let inside_doc = |n: &AxNode| {
        n.bounds.x >= doc.bounds.x
            && n.bounds.y >= doc.bounds.y
            && n.bounds.x + n.bounds.width as i32 <= doc.bounds.x + doc.bounds.width as i32
            && n.bounds.y + n.bounds.height as i32 <= doc.bounds.y + doc.bounds.height as i32
    };

    let heading = find(&snap, Role::Heading, "Account settings").expect("heading");
    assert!(inside_doc(heading));

    let user = find(&snap, Role::Entry, "Username").expect("labelled text input");
    assert_eq!(user.value.as_deref(), Some("alice"));
    assert_eq!(attr(user, "id"), Some("user"));
    assert!(user.states.contains(States::EDITABLE));
    assert!(inside_doc(user));

    // A <select> carries the option it shows (read from its hidden popup's selection).
    let country = find(&snap, Role::ComboBox, "Country").expect("labelled select");
    assert_eq!(country.value.as_deref(), Some("Guinea"), "{country:?}");
    assert_eq!(attr(country, "id"), Some("country"));

    let pw = snap.nodes.iter().find(|n| n.role() == Role::PasswordEntry).expect("password input");
    assert_eq!(pw.name, "Password");
    assert_eq!(pw.native_role, "password text");
    assert!(pw.states.contains(States::SECURE));
    assert_eq!(pw.value, None);
    assert_eq!(attr(pw, "id"), Some("pw"));

    let delete = find(&snap, Role::Button, "Delete account").expect("button");
    assert_eq!(attr(delete, "id"), Some("del"));
    assert!(inside_doc(delete));
    assert!(delete.bounds.width > 40 && delete.bounds.height > 10);

    let english = snap.nodes.iter().find(|n| n.role() == Role::Text && n.name == "Welcome back to your account.");
    assert!(english.is_some_and(|n| attr(n, "id") == Some("en")), "English paragraph:\n{}", common::dump(&snap));
    let thai = snap.nodes.iter().find(|n| n.role() == Role::Text && n.name == "ยินดีต้อนรับกลับสู่บัญชีของคุณ");
    assert!(thai.is_some(), "Thai paragraph:\n{}", common::dump(&snap));

    // The preset password never appears anywhere, in any form.
    for n in &snap.nodes {
        let leaked = [n.name.as_str(), n.description.as_str(), n.value.as_deref().unwrap_or_default()]
            .iter()
            .chain(n.attributes.iter().map(|(_, v)| v).map(|v| v.as_str()).collect::<Vec<_>>().iter())
            .any(|t| t.contains(FORM_SECRET));
        assert!(!leaked, "secret leaked: {n:?}");
    }

    // One focused node at most that takes any room (Chromium's omnibox popups keep focused documents of
    // their own; right after start their windows may say they are shown a moment, their documents 0x0,
    // which the engine never lists).
    let focused = snap.nodes.iter().filter(|n| n.states.contains(States::FOCUSED) && !n.bounds.is_empty());
    assert!(focused.count() <= 1, "{}", common::dump(&snap));

    // A warm snapshot reuses the page and equals a cold walk.
    // (One look that walked nothing does not promise the next reuses: on a loaded machine an event can
    // still come late and have a window read again, or an app can miss a look's deadline, which
    // leaves its windows out of that look.)
    let warm = wait_for(&source, &limits, Duration::from_secs(10), |_| {
        let stats = source.last_stats();
        stats.windows_walked == 0 && stats.windows_reused >= 1
    })
    .unwrap_or_else(|s| panic!("windows kept being re-walked, or none was reused:\n{}", common::dump(&s)));
    source.clear_cache();
    let cold = source.snapshot(&limits);
    for (w, c) in warm.nodes.iter().zip(&cold.nodes) {
        assert_eq!(w, c, "every field of every node");
    }
}

/// A page that, once its button is pressed, changes by itself in steps, then stops: a paragraph's
/// text, a list that grows, a heading hidden and shown again, the button renamed, the document's
/// title. (It waits for the press, so that the test reads it before its first step however slowly a
/// loaded machine shows it; its button is named "Start 0" once the press is heard.)
const STEPS_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Steps 0</title></head>
<body><h1 id="h">Progress</h1><p id="p">Waiting</p><ul id="l"><li>first</li></ul>
<button id="b">Not yet</button><p>Fixed text that never changes.</p>
<script>
let step = 0;
let timer = null;
document.getElementById('b').onclick = () => { if (!timer) timer = setInterval(() => {
  step++;
  document.getElementById('p').textContent = 'Step ' + step + ' of 6';
  const li = document.createElement('li'); li.textContent = 'item ' + step; document.getElementById('l').appendChild(li);
  document.getElementById('h').style.display = step % 2 ? 'none' : '';
  document.getElementById('b').textContent = 'Start ' + step;
  document.title = 'Steps ' + step;
  if (step === 6) clearInterval(timer);
}, 600); };
// Named Start 0 once pressing it does something.
document.getElementById('b').textContent = 'Start 0';
</script></body></html>"#;

/// Events name what changed; a snapshot reads again those nodes and subtrees of a cached window (a
/// text leaf the cache never held is traced to its paragraph) instead of the whole window, and what it
/// gives equals a fresh walk of the page.
#[test]
fn a_changing_page_is_read_again_in_parts_and_equals_a_fresh_walk() {
    let sandbox = common::start_sandbox();
    let source = AtspiSource::new(sandbox.bus_address());
    let limits = test_limits();
    let url = serve(STEPS_PAGE.to_string());
    let _chromium = launch_chromium(&sandbox, &url);
    let step = |s: &handrail_platform::AxSnapshot, n: u32| find(s, Role::Text, &format!("Step {n} of 6")).is_some();
    let page = wait_for(&source, &limits, Duration::from_secs(60), |s| find(s, Role::Button, "Start 0").is_some())
        .unwrap_or_else(|s| panic!("the page never appeared:\n{}", common::dump(&s)));
    let start = find(&page, Role::Button, "Start 0").expect("the Start button").bounds;
    let (x, y) = ((start.x + start.width as i32 / 2).to_string(), (start.y + start.height as i32 / 2).to_string());
    x_tool(&sandbox, "xdotool", &["mousemove", &x, &y, "click", "1"]);

    // Through the steps: snapshots that read parts only, and what they cost.
    let mut parted = Vec::new();
    let mut walked = Vec::new();
    let done = wait_for(&source, &limits, Duration::from_secs(30), |s| {
        let stats = source.last_stats();
        if stats.windows_walked == 0 && stats.windows_patched > 0 {
            parted.push(stats.calls);
        } else if stats.windows_walked > 0 {
            walked.push(stats.calls);
        }
        step(s, 6)
    })
    .unwrap_or_else(|s| panic!("the page never reached its last step:\n{}", common::dump(&s)));
    eprintln!("snapshots reading parts: calls {parted:?}; walking windows: calls {walked:?}");
    assert!(parted.len() >= 2, "changes were read in parts: {parted:?} (walks: {walked:?})");
    assert!(find(&done, Role::Button, "Start 6").is_some(), "{}", common::dump(&done));

    // Still now: the cached page, parts spliced in, equals a fresh walk.
    let (warm, cold_calls) = still_cache_equals_a_fresh_walk(sandbox.bus_address(), &source, &limits);
    // Reading what changed costs a fraction of walking the page.
    assert!(parted.iter().all(|&c| c * 3 < cold_calls), "parts cost {parted:?}, a walk {cold_calls}");
    assert_eq!(warm.nodes.iter().filter(|n| n.role() == Role::ListItem).count(), 7, "{}", common::dump(&warm));
    sandbox.stop().expect("clean teardown");
}

/// A page still loading a picture: the browser's toolbar offers Stop until the load ends.
const LOADING_PAGE: &str = r#"<!doctype html><html><head><title>Loading</title></head><body>
<p>Text shown before the picture arrives.</p><img src="/slow" alt="late picture"></body></html>"#;

/// When a page finishes loading, Chromium turns its Stop button back into Reload without an event for
/// that button; the load's own event has the window read again whole, so a cached snapshot never keeps
/// the toolbar of a page still loading.
#[test]
fn a_finished_load_has_the_browser_window_read_again() {
    let sandbox = common::start_sandbox();
    let source = AtspiSource::new(sandbox.bus_address());
    let limits = test_limits();
    let url = serve(LOADING_PAGE.to_string());
    let _chromium = launch_chromium(&sandbox, &url);
    let reload = |s: &handrail_platform::AxSnapshot| {
        s.nodes.iter().find(|n| n.role() == Role::Button && n.name == "Reload").map(|n| n.description.clone())
    };
    let loading = wait_for(&source, &limits, Duration::from_secs(60), |s| {
        find(s, Role::Text, "Text shown before the picture arrives.").is_some()
    })
    .unwrap_or_else(|s| panic!("the page never appeared:\n{}", common::dump(&s)));
    assert_eq!(
        reload(&loading).as_deref(),
        Some("Stop loading this page"),
        "the page was read while its picture was loading:\n{}",
        common::dump(&loading)
    );
    // Once the load has ended (as a source of its own sees it), and still: what the cache gives equals
    // a fresh walk.
    let fresh = AtspiSource::new(sandbox.bus_address());
    wait_for(&fresh, &limits, Duration::from_secs(20), |s| reload(s).as_deref() == Some("Reload this page"))
        .unwrap_or_else(|s| panic!("the load never ended:\n{}", common::dump(&s)));
    let (warm, _) = still_cache_equals_a_fresh_walk(sandbox.bus_address(), &source, &limits);
    assert_eq!(reload(&warm).as_deref(), Some("Reload this page"), "{}", common::dump(&warm));
    sandbox.stop().expect("clean teardown");
}

/// Chromium announces no scroll inside a page (its own settings page scrolls an element), and shows
/// the rows scrolled into view without an event for them (they were left out as not shown): told that
/// the layout may have moved, as the engine tells it after a scroll, a source gives what a fresh walk
/// gives, places and rows scrolled into view included.
#[test]
fn rows_of_chromiums_settings_scrolled_into_view_are_listed() {
    let sandbox = common::start_sandbox();
    let source = AtspiSource::new(sandbox.bus_address());
    let limits = test_limits();
    let _chromium = launch_chromium(&sandbox, "about:blank");
    wait_for(&source, &limits, Duration::from_secs(60), |s| find(s, Role::Entry, "Address and search bar").is_some())
        .unwrap_or_else(|s| panic!("Chromium never showed its address bar:\n{}", common::dump(&s)));
    x_tool(&sandbox, "xdotool", &["key", "ctrl+l"]);
    x_tool(&sandbox, "xdotool", &["type", "chrome://settings/privacy\n"]);
    let link = |s: &AxSnapshot, name: &str| {
        s.nodes
            .iter()
            .find(|n| n.role() == Role::Link && n.name.starts_with(name) && !n.states.contains(States::OFFSCREEN))
            .cloned()
    };
    let page = wait_for(&source, &limits, Duration::from_secs(30), |s| link(s, "Delete browsing data").is_some())
        .unwrap_or_else(|s| panic!("the privacy settings never appeared:\n{}", common::dump(&s)));
    let doc =
        page.nodes.iter().find(|n| n.role() == Role::Document && n.name.starts_with("Settings")).expect("settings");
    let (x, y) = (doc.bounds.x + doc.bounds.width as i32 / 2, doc.bounds.y + doc.bounds.height as i32 / 2);
    // To the page's end, as a person's wheel would: turned again until the last row shows (on a busy
    // machine a page still laying itself out once let thirty turns pass without moving).
    let (x, y) = (x.to_string(), y.to_string());
    let fresh = AtspiSource::new(sandbox.bus_address());
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        x_tool(&sandbox, "xdotool", &["mousemove", &x, &y, "click", "--repeat", "30", "--delay", "20", "5"]);
        // Chromium announces nothing of it: the engine says so after its own scrolls.
        source.layout_may_have_moved();
        match wait_for(&fresh, &limits, Duration::from_secs(5), |s| link(s, "Site settings").is_some()) {
            Ok(_) => break,
            Err(s) if Instant::now() > deadline => {
                panic!("a fresh walk never listed the last row:\n{}", common::dump(&s))
            }
            Err(_) => {}
        }
    }
    let (warm, _) = still_cache_equals_a_fresh_walk(sandbox.bus_address(), &source, &limits);
    assert!(link(&warm, "Site settings").is_some(), "{}", common::dump(&warm));
    sandbox.stop().expect("clean teardown");
}

/// Waits until a snapshot reads nothing again (no window walked or patched), then asserts that what the
/// cache gives equals a fresh walk, every field of every node; that snapshot, and the calls of the walk.
///
/// Chromium changes on its own now and then (a few seconds after a load it adds the tab's memory use to
/// the tab's name, and announces it): a change that lands between the cache's read and the fresh walk
/// is in the walk and not yet in the cache. So the walk, by a source of its own, is compared with the
/// cache read just before it and, once the events it brought are read, just after it: one of them must
/// equal it exactly.
fn still_cache_equals_a_fresh_walk(
    bus: &str,
    source: &AtspiSource,
    limits: &handrail_platform::AxLimits,
) -> (AxSnapshot, usize) {
    let still = || {
        wait_for(source, limits, Duration::from_secs(10), |_| {
            let s = source.last_stats();
            s.windows_walked == 0 && s.windows_patched == 0
        })
        .unwrap_or_else(|s| panic!("the page never went still:\n{}", common::dump(&s)))
    };
    let before = still();
    let walker = AtspiSource::new(bus);
    let cold = walker.snapshot(limits);
    let cold_calls = walker.last_stats().calls;
    let line =
        |n: &AxNode| format!("{:?} {:?} {:?} {:?} {:?} {:?}", n.role(), n.name, n.value, n.states, n.bounds, n.parent);
    let lines = |s: &AxSnapshot| s.nodes.iter().map(line).collect::<Vec<String>>();
    let warm = if lines(&before) == lines(&cold) { before } else { still() };
    assert_eq!(lines(&warm), lines(&cold), "the cached page equals a fresh walk");
    for (w, c) in warm.nodes.iter().zip(&cold.nodes) {
        assert_eq!(w, c, "every field of every node");
    }
    (warm, cold_calls)
}
