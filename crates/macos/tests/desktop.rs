//! The Mac's own desktop, end to end: run on a Mac with `cargo test -p handrail-macos` after granting
//! the app the tests run in (Terminal, iTerm2, …) Accessibility and Screen Recording in System
//! Settings › Privacy & Security. What TextEdit received is read back from TextEdit itself (through
//! AppleScript), never from handrail's own observation. Built for macOS only; on Linux these are
//! type-checked by scripts/check-targets and never run.
#![cfg(target_os = "macos")]

use std::process::Command;
use std::time::{Duration, Instant};

use handrail_macos::{MacDesktop, MacOptions};
use handrail_platform::{AxHealth, AxLimits, Desktop, Key, KeyCombo, Modifiers, Role, SettleRequest};

fn desktop() -> Desktop {
    MacDesktop::connect(MacOptions::default()).expect("the Mac's desktop")
}

fn osascript(script: &str) -> String {
    let out = Command::new("/usr/bin/osascript").args(["-e", script]).output().expect("osascript runs");
    assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim_end_matches('\n').to_owned()
}

/// A fresh TextEdit document in front, closed (without saving) when dropped.
struct TextEdit;

impl TextEdit {
    fn open(d: &Desktop) -> TextEdit {
        d.windows.launch_app("TextEdit").expect("TextEdit starts");
        osascript("tell application \"TextEdit\" to make new document");
        osascript("tell application \"TextEdit\" to activate");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let front = d.windows.frontmost().expect("the frontmost window");
            if front.is_some_and(|f| f.class == "com.apple.TextEdit") {
                return TextEdit;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("TextEdit did not come to the front");
    }

    fn text(&self) -> String {
        osascript("tell application \"TextEdit\" to get text of front document")
    }

    /// What TextEdit holds once it holds `want`, or what it holds after 5 s.
    fn text_once(&self, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let text = self.text();
            if text == want || Instant::now() >= deadline {
                return text;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for TextEdit {
    fn drop(&mut self) {
        let _ = Command::new("/usr/bin/osascript")
            .args(["-e", "tell application \"TextEdit\" to close front document saving no"])
            .status();
    }
}

#[test]
fn the_permissions_are_granted_or_said_never_a_crash() {
    let d = desktop();
    let snapshot = d.accessibility.snapshot(&AxLimits::default());
    assert!(
        matches!(snapshot.health, AxHealth::Ok | AxHealth::Partial),
        "grant Accessibility to the app running the tests: {:?} {:?}",
        snapshot.health,
        snapshot.notes
    );
    let frame = d.screen.capture(None, None).expect("grant Screen Recording to the app running the tests");
    assert_eq!(frame.size, d.screen.screen_size().expect("the screen's size"));
    assert!(frame.is_consistent());
}

#[test]
fn typed_text_arrives_exactly_in_every_script() {
    let d = desktop();
    let doc = TextEdit::open(&d);
    let text = "Hello, สวัสดีครับ, こんにちは, Grüße, 👍🏽\tdone";
    d.input.type_text(text).expect("typing");
    assert_eq!(doc.text_once(text), text);
    // cmd+a then backspace empties it: combinations and keys reach the app too.
    let cmd = Modifiers { super_key: true, ..Modifiers::default() };
    d.input.key(&KeyCombo { modifiers: cmd, key: Key::Char('a') }).expect("cmd+a");
    d.input.key(&KeyCombo { modifiers: Modifiers::default(), key: Key::Backspace }).expect("backspace");
    assert_eq!(doc.text_once(""), "");
}

#[test]
fn vision_reads_what_was_typed_off_the_screen() {
    let d = desktop();
    let doc = TextEdit::open(&d);
    let mut watch = d.settle.watch().expect("watching the screen");
    d.input.type_text("Quarterly report 2026").expect("typing");
    assert_eq!(doc.text_once("Quarterly report 2026"), "Quarterly report 2026");
    // Drawn, not only stored: the screen is read once it has settled.
    watch.wait(&SettleRequest::default()).expect("the screen settles");
    drop(watch);
    let frame = d.screen.capture(None, None).expect("a capture");
    let lines = d.ocr.recognize(&frame, None).expect("Vision reads the screen");
    assert!(lines.iter().any(|l| l.text.contains("Quarterly report")), "{lines:?}");
}

#[test]
fn the_text_view_is_listed_focused_in_textedits_window() {
    let d = desktop();
    let _doc = TextEdit::open(&d);
    let snapshot = d.accessibility.snapshot(&AxLimits::default());
    let view =
        snapshot.nodes.iter().find(|n| n.app == "TextEdit" && n.role == Some(Role::TextArea)).unwrap_or_else(|| {
            panic!("no text area in TextEdit among {} nodes: {:?}", snapshot.nodes.len(), snapshot.notes)
        });
    assert!(view.states.contains(handrail_platform::States::FOCUSED), "{view:?}");
    let screen = d.screen.screen_size().expect("size");
    assert!(handrail_platform::Rect::from_size(screen).contains_rect(&view.bounds), "{view:?} on {screen:?}");
}
