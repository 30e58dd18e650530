//! Typing of every script into a real Chromium input is exact, or detectably not exact, never silently
//! wrong. The page copies the input's value into its title, which X11 exposes as the window title: the
//! readback needs no accessibility at all.
//!
//! Each attempt does what the engine does after typing: read the field back and, on a mismatch (or a
//! reported error), clear it and try once more by the other route (`TextRoute::Alternate`). The final
//! text must be exact every time; the preferred route must be the one that works (at most a quarter of
//! the attempts may need the retry), so typing that is really broken either way still fails. Retries are
//! printed. Scale numbers: `cargo bench -p handrail-x11 --bench typing_scale` (docs/BENCHMARKS.md).

use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_platform::{Input, KeyCombo, Modifiers, TextRoute, Windows};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::input::X11Input;
use handrail_x11::windows::{LaunchEnv, X11Windows};
use handrail_x11::Conn;

const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>ready</title></head>
<body><input id="t" autofocus style="font-size:20px;width:600px"
 oninput="document.title = '[' + this.value + ']'"></body></html>"#;

const RUNS: usize = 20;
/// How long a first attempt may take to show up before it counts as not arrived.
const FIRST_WAIT: Duration = Duration::from_secs(5);
/// Generous: on a loaded 2-core machine Chromium can take seconds to repaint its title.
const FINAL_WAIT: Duration = Duration::from_secs(15);

fn title(windows: &X11Windows) -> String {
    windows.frontmost().ok().flatten().map(|w| w.title).unwrap_or_default()
}

/// Waits (bounded) until the page title shows `[text]`; returns whether it did and what it showed last.
fn read_back(windows: &X11Windows, text: &str, within: Duration) -> (bool, String) {
    let want = format!("[{text}]");
    let deadline = Instant::now() + within;
    loop {
        let t = title(windows);
        if t.starts_with(&want) {
            return (true, t);
        }
        if Instant::now() >= deadline {
            return (false, t);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn combo(ctrl: bool, key: &str) -> KeyCombo {
    let key = handrail_platform::Key::from_name(key).unwrap_or_else(|| panic!("no key {key:?}"));
    KeyCombo { modifiers: Modifiers { ctrl, ..Modifiers::default() }, key }
}

fn clear(input: &X11Input, windows: &X11Windows) {
    input.key(&combo(true, "a")).expect("select all");
    input.key(&combo(false, "backspace")).expect("clear");
    // An input that was already empty fires no input event: the title still says "ready" then.
    let cleared = handrail_testkit::wait_until(FINAL_WAIT, Duration::from_millis(10), || {
        let t = title(windows);
        (t.starts_with("[]") || t.starts_with("ready")).then_some(())
    });
    assert!(cleared.is_some(), "the field was cleared: {:?}", title(windows));
}

#[test]
fn every_script_arrives_exactly_in_chromium_or_is_caught_and_retried() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let conn = Conn::open(&sandbox.display()).expect("connects");
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let windows = X11Windows::new(Arc::clone(&conn), launch);
    let input = X11Input::new(conn).expect("input");
    windows.open_url(&handrail_testkit::serve_page(PAGE)).expect("chromium opens the page");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !title(&windows).starts_with("ready") {
        assert!(Instant::now() < deadline, "the page loaded: {}", title(&windows));
        std::thread::sleep(Duration::from_millis(20));
    }

    let mut failures = Vec::new();
    for text in ["Hello, world! 123", "สวัสดีครับ ภาษาไทย", "日本語のテキスト 中文", "👍🎉 ok", "Mixed ไทย 日本 👍 end"]
    {
        let mut retries = Vec::new();
        for run in 0..RUNS {
            clear(&input, &windows);
            let first = input.type_text_via(text, TextRoute::Preferred);
            let (exact, last) = read_back(&windows, text, FIRST_WAIT);
            if first.is_ok() && exact {
                continue;
            }
            // Not exact, and detectably so: the engine would retry the other way.
            retries.push(format!("run {run}: {first:?}, read back {last:?}"));
            clear(&input, &windows);
            let second = input.type_text_via(text, TextRoute::Alternate);
            let (exact, last) = read_back(&windows, text, FINAL_WAIT);
            if second.is_err() || !exact {
                failures.push(format!("{text:?} run {run}: both routes failed: {second:?}, read back {last:?}"));
            }
        }
        eprintln!("{text:?}: {} exact first time, {} retried {retries:?}", RUNS - retries.len(), retries.len());
        assert!(
            retries.len() <= RUNS / 4,
            "{text:?}: the preferred route failed {} of {RUNS} times: {retries:?}",
            retries.len()
        );
    }
    assert!(failures.is_empty(), "not exact after the retry: {failures:?}");
    drop(windows);
    sandbox.stop().expect("clean teardown");
}
