//! Typing of every script into a real Chromium input arrives exactly, 20 times out of 20. The page
//! copies the input's value into its title, which X11 exposes as the window title: the readback needs
//! no accessibility at all.

use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_platform::{Input, KeyCombo, Modifiers, Windows};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::input::X11Input;
use handrail_x11::windows::{LaunchEnv, X11Windows};
use handrail_x11::Conn;

const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>ready</title></head>
<body><input id="t" autofocus style="font-size:20px;width:600px"
 oninput="document.title = '[' + this.value + ']'"></body></html>"#;

const RUNS: usize = 20;

fn title(windows: &X11Windows) -> String {
    windows.frontmost().ok().flatten().map(|w| w.title).unwrap_or_default()
}

/// Waits (bounded) until the page title shows `[text]`; returns what it showed last.
fn read_back(windows: &X11Windows, text: &str) -> String {
    let want = format!("[{text}]");
    // Generous: on a loaded 2-core machine Chromium can take seconds to repaint its title.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let t = title(windows);
        if t.starts_with(&want) || Instant::now() >= deadline {
            return t;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn combo(ctrl: bool, key: &str) -> KeyCombo {
    KeyCombo { modifiers: Modifiers { ctrl, ..Modifiers::default() }, key: key.into() }
}

#[test]
fn every_script_arrives_exactly_in_chromium() {
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

    for text in ["Hello, world! 123", "สวัสดีครับ ภาษาไทย", "日本語のテキスト 中文", "👍🎉 ok", "Mixed ไทย 日本 👍 end"]
    {
        let mut exact = 0;
        let mut wrong = Vec::new();
        for _ in 0..RUNS {
            input.key(&combo(true, "a")).expect("select all");
            input.key(&combo(false, "backspace")).expect("clear");
            read_back(&windows, "");
            input.type_text(text).expect("types");
            let last = read_back(&windows, text);
            if last.starts_with(&format!("[{text}]")) {
                exact += 1;
            } else {
                wrong.push(last);
            }
        }
        assert_eq!(exact, RUNS, "{text:?} arrived exactly {exact}/{RUNS} times; wrong titles {wrong:?}");
    }
    drop(windows);
    sandbox.stop().expect("clean teardown");
}
