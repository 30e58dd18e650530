//! Input, screen and settle through mutter's remote-desktop and screen-cast sessions, on a private
//! GNOME sandbox (a headless GNOME Shell), checked by what the GTK probe app itself received and
//! drew. Where the probe's window lies comes from handrail's GNOME Shell extension.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_damage::changed_cells;
use handrail_gnome::{MutterInput, MutterScreen, MutterSession, MutterSettle, ShellWindows};
use handrail_platform::{
    Frame, Input, Key, KeyCombo, Modifiers, MouseButton, Point, Rect, Screen, ScrollDirection, Settle, SettleRequest,
    Size,
};
use handrail_sandbox::{Sandbox, SandboxOptions, Session};
use handrail_testkit::LineApp;

const WAIT: Duration = Duration::from_secs(20);
const SIZE: (u32, u32) = (1280, 800);

/// A private GNOME desktop (handrail's sandbox: a headless GNOME Shell with one virtual monitor,
/// PipeWire and WirePlumber on a session bus of its own).
struct Gnome {
    sandbox: Sandbox,
}

impl Gnome {
    fn start() -> Gnome {
        let opts = SandboxOptions {
            session: Session::Gnome,
            size: SIZE,
            // Tests run on short-lived threads; the reaper tears the desktop down if the binary dies.
            parent_death_signal: false,
            ..SandboxOptions::default()
        };
        Gnome { sandbox: Sandbox::start(opts).expect("a GNOME sandbox (run scripts/setup-desktop)") }
    }

    fn bus(&self) -> &str {
        self.sandbox.bus_address()
    }

    fn pipewire(&self) -> PathBuf {
        self.sandbox.pipewire_socket().expect("PipeWire's socket")
    }

    /// Starts the probe app and reads its widgets' geometry, moved from its surface onto the
    /// screen by where GNOME Shell put the window (the extension's buffer rectangle) once it has
    /// the focus.
    fn probe(&self) -> Probe {
        let mut child = self
            .sandbox
            .command("/usr/bin/python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/apps/conformance_gtk.py"))
            .args(["--title", "gnome probe"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("probe");
        let (tx, lines) = mpsc::channel();
        let out = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut probe = Probe { child, lines, geometry: Vec::new() };
        let said = probe.until("ready", |l| l == "ready");
        let origin = self.window_origin("gnome probe");
        for l in said {
            let f: Vec<&str> = l.split(' ').collect();
            if let ["geometry", name, x, y, w, h] = f[..] {
                let n = |s: &str| s.parse::<i32>().expect("number");
                let rect = Rect::new(origin.x + n(x), origin.y + n(y), n(w) as u32, n(h) as u32);
                probe.geometry.push((name.replace('_', " "), rect));
            }
        }
        probe
    }

    /// Where the surface of the window titled `title` starts, once it has the focus and GNOME Shell
    /// gave the same place twice, 100 ms apart. GNOME gives no focus to a window that opened after
    /// the person's last input without an activation token (it says the app "is ready" instead), as
    /// the probe's does: it is raised through the extension, as a person would click it.
    fn window_origin(&self, title: &str) -> Point {
        let shell = ShellWindows::connect(self.bus()).expect("handrail's extension answers");
        let deadline = Instant::now() + WAIT;
        let mut last = None;
        loop {
            let windows = shell.list().expect("the windows");
            if let Some(w) = windows.iter().find(|w| w.title == title && !w.focus) {
                shell.activate(w.id).expect("raise the window");
            }
            let now = windows.iter().find(|w| w.title == title && w.focus).map(|w| w.buffer);
            if now.is_some() && now == last {
                let b = now.unwrap_or_default();
                return Point::new(b.x, b.y);
            }
            assert!(Instant::now() < deadline, "no focused window {title:?}: {windows:?}");
            last = now;
            std::thread::sleep(Duration::from_millis(100)); // polling GNOME Shell, not a settle wait
        }
    }
}

struct Probe {
    child: Child,
    lines: Receiver<String>,
    geometry: Vec<(String, Rect)>,
}

impl Probe {
    /// Lines said until one matches `done` (included); fails after [`WAIT`].
    fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + WAIT;
        let mut said = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let end = done(&l);
                    said.push(l);
                    if end {
                        return said;
                    }
                }
                Err(_) => panic!("the probe never said {what}; it said {said:?}"),
            }
        }
    }

    fn rect(&self, name: &str) -> Rect {
        self.geometry
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| *r)
            .unwrap_or_else(|| panic!("{name}: {:?}", self.geometry))
    }

    fn center(&self, name: &str) -> Point {
        let r = self.rect(name);
        Point::new(r.x + r.width as i32 / 2, r.y + r.height as i32 / 2)
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn clicks_keys_text_scroll_and_drag_reach_a_gtk_app_on_gnome() {
    let gnome = Gnome::start();
    let session = Arc::new(MutterSession::start(gnome.bus()).expect("a remote-desktop session"));
    let streams = session.streams().to_vec();
    assert_eq!(streams.len(), 1, "{streams:?}");
    assert_eq!(streams[0].area, Rect::new(0, 0, SIZE.0, SIZE.1), "{streams:?}");
    let screen = MutterScreen::open(session.clone(), Some(&gnome.pipewire())).expect("the screen cast");
    let settle = MutterSettle::start(&screen).expect("settle");
    let input = MutterInput::new(session);
    let mut probe = gnome.probe();
    eprintln!("the probe's widgets: {:?}", probe.geometry);
    // Input goes where the window is drawn: wait until it is.
    still(&settle);
    drop(settle);
    drop(screen);

    input.click(probe.center("Change"), MouseButton::Left, 1).expect("click");
    probe.until("the click", |l| l == "clicked Change");

    input.click(probe.center("Name"), MouseButton::Left, 1).expect("focus the entry");
    input.type_text("Hello, World 42!").expect("type");
    probe.until("the typed text", |l| l == "name=Hello, World 42!");

    let combo = KeyCombo {
        modifiers: Modifiers { ctrl: true, shift: true, ..Modifiers::default() },
        key: Key::from_name("k").expect("k"),
    };
    input.key(&combo).expect("key");
    probe.until("ctrl+shift+k", |l| l == "key k ctrl+shift");

    input.scroll(Some(probe.center("List")), ScrollDirection::Down, 3).expect("scroll");
    probe.until("a scroll down", |l| l.strip_prefix("scroll=").is_some_and(|v| v != "0"));

    input.drag(probe.center("Card"), probe.center("Drop here")).expect("drag");
    probe.until("the drop", |l| l == "dropped");

    let off_screen = input.click(Point::new(SIZE.0 as i32 + 5, 10), MouseButton::Left, 1);
    assert!(off_screen.is_err(), "a point on no monitor is refused: {off_screen:?}");
}

/// Waits until the screen has not changed for 300 ms (nothing animates on the probe).
fn still(settle: &dyn Settle) {
    let quiet = SettleRequest { response_window: Duration::from_millis(300), ..SettleRequest::default() };
    let deadline = Instant::now() + WAIT;
    loop {
        let report = settle.watch().expect("watch").wait(&quiet).expect("quiet");
        if report.settled && !report.saw_change && report.ignored.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "the screen never went still: {report:?}");
    }
}

/// Waits until nothing changes for 300 ms but what was already animating (a caret blinking).
fn quiet_but_animations(settle: &dyn Settle) {
    let quiet = SettleRequest { response_window: Duration::from_millis(300), ..SettleRequest::default() };
    let deadline = Instant::now() + WAIT;
    loop {
        let report = settle.watch().expect("watch").wait(&quiet).expect("quiet");
        if report.settled && !report.saw_change {
            return;
        }
        assert!(Instant::now() < deadline, "the screen never went quiet: {report:?}");
    }
}

/// The first capture within `within` that `shows` accepts, or the last one taken.
fn shown_within(screen: &dyn Screen, within: Duration, shows: impl Fn(&Frame) -> bool) -> Result<Frame, Frame> {
    let deadline = Instant::now() + within;
    loop {
        let frame = screen.capture(None, None).expect("capture");
        if shows(&frame) {
            return Ok(frame);
        }
        if Instant::now() >= deadline {
            return Err(frame);
        }
        std::thread::sleep(Duration::from_millis(20)); // polling interval, not a settle wait
    }
}

fn pixel(frame: &Frame, p: Point) -> [u8; 3] {
    let row = frame.row(p.y as u32);
    let at = p.x as usize * 4;
    [row[at], row[at + 1], row[at + 2]]
}

#[test]
fn the_screen_cast_shows_what_the_app_drew_and_settle_sees_it_change() {
    let gnome = Gnome::start();
    let session = Arc::new(MutterSession::start(gnome.bus()).expect("a remote-desktop session"));
    let screen = MutterScreen::open(session.clone(), Some(&gnome.pipewire())).expect("the screen cast");
    let settle = MutterSettle::start(&screen).expect("settle");
    let input = MutterInput::new(session);
    let (w, h) = SIZE;
    assert_eq!(screen.screen_size().expect("size"), Size::new(w, h));
    let monitors = screen.monitors().expect("monitors");
    assert_eq!(monitors.len(), 1, "{monitors:?}");
    assert_eq!((monitors[0].bounds, monitors[0].primary), (Rect::new(0, 0, w, h), true));
    // GNOME Shell's top bar is dark.
    still(&settle);
    let empty = screen.capture(None, None).expect("capture");
    assert_eq!((empty.size, empty.screen), (Size::new(w, h), Size::new(w, h)));
    let background = pixel(&empty, Point::new(4, 4));
    assert!(background.iter().all(|&c| c < 160), "the top bar at (4, 4): {background:?}");

    let mut probe = gnome.probe();
    let name = probe.rect("Name");
    // The entry's white shows where the extension placed it.
    let shown = shown_within(&screen, WAIT, |f| pixel(f, probe.center("Name")).iter().all(|&c| c > 200))
        .unwrap_or_else(|f| panic!("the entry never showed at {name:?}: {:?}", pixel(&f, probe.center("Name"))));
    still(&settle);
    assert_ne!(pixel(&shown, probe.center("Name")), background, "the entry at {name:?}");

    // Typing into the entry: settle waits for it, and the capture changes there and nowhere else.
    input.click(probe.center("Name"), MouseButton::Left, 1).expect("focus the entry");
    // Its caret now blinks: once settle has learnt that rhythm, nothing else moves.
    quiet_but_animations(&settle);
    let before = screen.capture(None, None).expect("capture");
    let mut watch = settle.watch().expect("watch");
    input.type_text("handrail").expect("type");
    probe.until("the typed text", |l| l == "name=handrail");
    // A loaded machine may take a while to redraw: what is checked is that the change is seen.
    let patient = SettleRequest { response_window: Duration::from_secs(3), ..SettleRequest::default() };
    let report = watch.wait(&patient).expect("settle");
    assert!(report.settled && report.saw_change, "{report:?}");
    let after = screen.capture(None, None).expect("capture");
    let changed = changed_cells(&before.pixels, &after.pixels, w, h, before.stride, 8);
    assert!(!changed.is_empty(), "the typed text is on the screen");
    let around = Rect::new(name.x - 8, name.y - 8, name.width + 16, name.height + 16);
    // GNOME Shell's top bar shows a clock, which may turn a minute meanwhile.
    let top_bar = Rect::new(0, 0, w, 32);
    for r in &changed {
        assert!(
            around.contains_rect(r) || top_bar.contains_rect(r),
            "a change at {r:?}, outside the entry {name:?} (and the top bar)"
        );
    }
    assert!(changed.iter().any(|r| around.contains_rect(r)), "the entry changed: {changed:?}");

    // A capture of an area is those pixels of the whole screen; a smaller one is scaled exactly.
    let area = Rect::new(100, 50, 200, 100);
    let part = screen.capture(Some(area), None).expect("area");
    assert_eq!((part.size, part.origin), (Size::new(200, 100), area));
    let half = screen.capture(None, Some(Size::new(w / 2, h / 2))).expect("half");
    assert!((half.scale() - 2.0).abs() < 1e-9, "scale {}", half.scale());
    assert!(screen.capture(Some(Rect::new(w as i32 + 10, 0, 10, 10)), None).is_err());
}

/// The GTK 4 app that holds the person's clipboard and reads it back (`clipboard_gtk4.py`).
struct ClipboardApp(LineApp);

impl ClipboardApp {
    /// Starts it and gives its window the focus (a Wayland app owns and reads the clipboard only
    /// then).
    fn start(gnome: &Gnome) -> ClipboardApp {
        let mut command = gnome.sandbox.command("/usr/bin/python3");
        command
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/apps/clipboard_gtk4.py"))
            .arg("clipboard probe")
            .stdin(Stdio::piped())
            .stderr(Stdio::null());
        let mut app = ClipboardApp(LineApp::spawn(command));
        gnome.window_origin("clipboard probe");
        app.until("ready", |l| l == "ready");
        app
    }

    fn tell(&mut self, command: &str) {
        self.0.tell(command);
    }

    /// The first line from now on that `done` accepts.
    fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let seen = self.0.seen.len();
        self.0
            .wait_for(done)
            .unwrap_or_else(|| panic!("the clipboard app never said {what}: {:?}", &self.0.seen[seen..]))
    }

    /// What the clipboard holds as the app reads it: plain text and HTML, JSON-quoted as it prints.
    fn read(&mut self) -> (String, String) {
        self.tell("read");
        let text = self.until("the clipboard's text", |l| l.starts_with("clipboard="));
        let html = self.until("the clipboard's HTML", |l| l.starts_with("html="));
        (text["clipboard=".len()..].to_owned(), html["html=".len()..].to_owned())
    }

    /// Reads the clipboard until it holds `text` as plain text and in bold as HTML; fails after
    /// [`WAIT`] with what it held.
    fn holds(&mut self, text: &str, when: &str) {
        let want = (format!("\"{text}\""), format!("\"<b>{text}</b>\""));
        let deadline = Instant::now() + WAIT;
        loop {
            let now = self.read();
            if now == want {
                return;
            }
            assert!(Instant::now() < deadline, "{when}, the clipboard holds {now:?}, not {want:?}");
            std::thread::sleep(Duration::from_millis(200)); // polling the app, not a settle wait
        }
    }
}

/// Text beyond the keymap goes through the session's clipboard; what the person had copied there
/// comes back afterwards, every type of it (checked by an app reading the clipboard through the
/// compositor): after one paste, after a second, and — when the person copied something new in
/// between — the newer copy.
#[test]
fn pasting_gives_the_persons_clipboard_back() {
    // What could not be kept is said in the log.
    handrail_sandbox::log_to_stderr();
    let gnome = Gnome::start();
    let session = Arc::new(MutterSession::start(gnome.bus()).expect("a remote-desktop session"));
    let input = MutterInput::new(session);
    let mut app = ClipboardApp::start(&gnome);
    let ctrl_c =
        KeyCombo { modifiers: Modifiers { ctrl: true, ..Modifiers::default() }, key: Key::from_name("c").expect("c") };
    app.tell("copy the person's words");
    input.key(&ctrl_c).expect("ctrl+c");
    app.until("copying", |l| l == "owned the person's words");
    app.holds("the person's words", "copied");

    input.type_text("สวัสดี").expect("type");
    app.until("the pasted text", |l| l == r#"name="สวัสดี""#);
    app.holds("the person's words", "after a paste");

    input.type_text(" ครับ").expect("type");
    app.until("the second paste", |l| l == r#"name="สวัสดี ครับ""#);
    app.holds("the person's words", "after a second paste");

    app.tell("copy newer words");
    input.key(&ctrl_c).expect("ctrl+c");
    app.until("copying again", |l| l == "owned newer words");
    input.type_text("!ü").expect("type");
    app.until("the third paste", |l| l == r#"name="สวัสดี ครับ!ü""#);
    app.holds("newer words", "after a copy and a paste");
}
