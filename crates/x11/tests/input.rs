//! XTEST input on a real private desktop (Xvfb + openbox from `handrail-sandbox`), never the host display.
//!
//! One sandbox serves the whole binary; tests take a lock so they never share the keyboard at once.
//! Readback needs no accessibility: `zenity --entry` prints its entry's text when Return is pressed, and
//! an xterm running `cat > file` writes what the terminal received. Typed text is held to the engine's
//! rule: exact, or caught and exact on one second attempt by the other route, never silently wrong. xdotool-like helpers here only
//! *locate* windows (client list, geometry, pixels); every action goes through `X11Input`.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use handrail_core::keys::parse_key_combo;
use handrail_platform::{Input, MouseButton, PlatformError, Point, ScrollDirection, TextRoute};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_x11::input::{InputOptions, TypingStrategy, X11Input};
use handrail_x11::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, ImageFormat, MapState, Window,
    WindowClass,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::protocol::Event;
use x11rb::{CURRENT_TIME, NONE};

/// Runs per script for the exact-readback tests.
const RUNS: usize = 20;
/// Bound for anything we wait on (a window appearing, an app exiting).
const WAIT: Duration = Duration::from_secs(15);
/// Polling interval while waiting on another process (there is no event to wait on across processes).
const POLL: Duration = Duration::from_millis(10);

struct Desk {
    sandbox: Sandbox,
    conn: Arc<Conn>,
    input: X11Input,
}

static DESK: OnceLock<Desk> = OnceLock::new();
static SERIAL: Mutex<()> = Mutex::new(());

/// The shared desktop, with the lock that serialises tests using it.
fn desk() -> (MutexGuard<'static, ()>, &'static Desk) {
    let guard = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let desk = DESK.get_or_init(|| {
        let opts = SandboxOptions {
            // Input needs no accessibility; apps start faster without the bridge.
            accessibility: false,
            // Tests run on short-lived threads; the reaper tears the desktop down when the binary exits.
            parent_death_signal: false,
            ..SandboxOptions::default()
        };
        let sandbox = Sandbox::start(opts).expect("start the sandbox desktop (run scripts/setup-desktop)");
        let conn = Conn::open(&sandbox.display()).expect("connect to the sandbox");
        let input = X11Input::new(Arc::clone(&conn)).expect("create X11Input");
        Desk { sandbox, conn, input }
    });
    (guard, desk)
}

/// An application started in the sandbox, with its top-level window.
struct App {
    child: Child,
    window: Window,
}

impl Drop for App {
    fn drop(&mut self) {
        // Kill by our own child's pid only, if it is still running.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn prop32(conn: &Conn, window: Window, atom: Atom, type_: impl Into<Atom>) -> Vec<u32> {
    conn.conn
        .get_property(false, window, atom, type_, 0, 4096)
        .ok()
        .and_then(|c| c.reply().ok())
        .and_then(|r| r.value32().map(|v| v.collect()))
        .unwrap_or_default()
}

fn client_list(conn: &Conn) -> Vec<Window> {
    prop32(conn, conn.root, conn.atoms._NET_CLIENT_LIST, AtomEnum::WINDOW)
}

fn wait_until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        if start.elapsed() > WAIT {
            panic!("timed out waiting for {what}");
        }
        std::thread::sleep(POLL);
    }
}

/// Starts `program args` in the sandbox (UTF-8 locale) and waits for its mapped, active window.
fn launch(d: &Desk, program: &str, args: &[&str]) -> App {
    let child = d
        .sandbox
        .command(program)
        .args(args)
        .env("LANG", "C.UTF-8")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(
            std::fs::File::create(d.sandbox.root().join(format!("{program}.stderr")))
                .map(Stdio::from)
                .unwrap_or(Stdio::null()),
        )
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {program}: {e}"));
    let pid = child.id();
    let mut app = App { child, window: NONE };
    app.window = wait_until(&format!("a window of {program}"), || {
        if let Ok(Some(st)) = app.child.try_wait() {
            let err = std::fs::read_to_string(d.sandbox.root().join(format!("{program}.stderr"))).unwrap_or_default();
            panic!("{program} exited with {st} before showing a window: {err}");
        }
        // By pid, not "new in the client list": X reuses a dead client's window ids, and the window
        // manager may still list the previous app's window when the next one reuses its id.
        client_list(&d.conn).into_iter().find(|&w| {
            let pids = prop32(&d.conn, w, d.conn.atoms._NET_WM_PID, AtomEnum::CARDINAL);
            let viewable = d
                .conn
                .conn
                .get_window_attributes(w)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| a.map_state == MapState::VIEWABLE);
            viewable && pids.first() == Some(&pid)
        })
    });
    activate(d, app.window);
    app
}

/// Asks the window manager to activate `window` and waits until it has the input focus.
fn activate(d: &Desk, window: Window) {
    let c = &d.conn.conn;
    let msg = ClientMessageEvent::new(32, window, d.conn.atoms._NET_ACTIVE_WINDOW, [2u32, CURRENT_TIME, 0, 0, 0]);
    c.send_event(false, d.conn.root, EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY, msg)
        .expect("send _NET_ACTIVE_WINDOW");
    c.flush().expect("flush");
    wait_until("the window to get the focus", || {
        let focus = c.get_input_focus().ok()?.reply().ok()?.focus;
        is_within(d, focus, window).then_some(())
    });
}

fn is_within(d: &Desk, mut w: Window, ancestor: Window) -> bool {
    for _ in 0..16 {
        if w == ancestor {
            return true;
        }
        if w == NONE || w == d.conn.root {
            return false;
        }
        match d.conn.conn.query_tree(w).ok().and_then(|c| c.reply().ok()) {
            Some(t) => w = t.parent,
            None => return false,
        }
    }
    false
}

/// Waits for the app to exit; returns its exit code and stdout.
fn finish(mut app: App) -> (i32, String) {
    let status = wait_until("the app to exit", || app.child.try_wait().ok().flatten());
    let mut out = String::new();
    if let Some(mut s) = app.child.stdout.take() {
        s.read_to_string(&mut out).expect("read stdout");
    }
    (status.code().unwrap_or(-1), out)
}

/// Client-area rectangle of `window` in screen coordinates: (x, y, width, height).
fn geometry(d: &Desk, window: Window) -> (i32, i32, i32, i32) {
    let c = &d.conn.conn;
    let g = c.get_geometry(window).expect("geometry").reply().expect("geometry reply");
    let t = c.translate_coordinates(window, d.conn.root, 0, 0).expect("translate").reply().expect("translate reply");
    (i32::from(t.dst_x), i32::from(t.dst_y), i32::from(g.width), i32::from(g.height))
}

/// The bounding box (x0, y0, x1, y1) of pure white pixels in the window (a GTK entry's or list's
/// background; dialogs are grey), in window coordinates.
fn white_box(d: &Desk, window: Window) -> (i32, i32, i32, i32) {
    let (_, _, w, h) = geometry(d, window);
    wait_until("a white area (entry or list) to be drawn", || {
        let img =
            d.conn.conn.get_image(ImageFormat::Z_PIXMAP, window, 0, 0, w as u16, h as u16, !0).ok()?.reply().ok()?;
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, -1, -1);
        for y in 0..h {
            for x in 0..w {
                let i = ((y * w + x) * 4) as usize;
                if img.data.get(i..i + 3) == Some(&[255, 255, 255]) {
                    (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                }
            }
        }
        (x1 - x0 > 20 && y1 - y0 > 10).then_some((x0, y0, x1, y1))
    })
}

/// Whether the rectangle (x, y, width, height) of `window` has dark (text) pixels.
fn has_dark_pixels(d: &Desk, window: Window, (x, y, w, h): (i16, i16, u16, u16)) -> bool {
    let Some(img) =
        d.conn.conn.get_image(ImageFormat::Z_PIXMAP, window, x, y, w, h, !0).ok().and_then(|c| c.reply().ok())
    else {
        return false;
    };
    img.data.chunks_exact(4).any(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]) < 200)
}

fn key(d: &Desk, keys: &str) {
    let combo = parse_key_combo(keys).expect("valid key combination");
    d.input.key(&combo).unwrap_or_else(|e| panic!("key {keys}: {e}"));
}

/// Asserts no key and no button is down on the server.
fn assert_nothing_pressed(d: &Desk) {
    let keys = d.conn.conn.query_keymap().expect("query keymap").reply().expect("keymap reply").keys;
    let down: Vec<usize> = (0..256).filter(|&k| keys[k / 8] & (1 << (k % 8)) != 0).collect();
    assert!(down.is_empty(), "keycodes still pressed: {down:?}");
    let mask = u16::from(d.conn.conn.query_pointer(d.conn.root).expect("pointer").reply().expect("pointer").mask);
    assert_eq!(mask & 0x1f00, 0, "buttons still pressed (mask {mask:#x})");
}

/// Types `text` by `route` into a fresh `zenity --entry`, presses Return and returns what zenity
/// printed, or the error the typing call returned.
fn zenity_roundtrip(d: &Desk, text: &str, route: TextRoute) -> Result<String, PlatformError> {
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    let typed = d.input.type_text_via(text, route);
    key(d, "return");
    let (code, out) = finish(app);
    assert_eq!(code, 0, "zenity exit code");
    typed.map(|()| out.strip_suffix('\n').unwrap_or(&out).to_string())
}

/// Every run is exact, or — as the engine, which reads typed text back and sends a miss once more the
/// other way (`TextRoute::Alternate`), does — exact on that second attempt. Misses of the preferred
/// route stay rare (at most a quarter of the runs), so typing that is really broken still fails; a run
/// that is wrong both ways always fails.
fn exact_readback(text: &str) {
    let (_g, d) = desk();
    let mut retried = Vec::new();
    let mut wrong = Vec::new();
    for run in 0..RUNS {
        let first = zenity_roundtrip(d, text, TextRoute::Preferred);
        assert_nothing_pressed(d);
        if first.as_deref() == Ok(text) {
            continue;
        }
        retried.push((run, first.clone()));
        let second = zenity_roundtrip(d, text, TextRoute::Alternate);
        assert_nothing_pressed(d);
        if second.as_deref() != Ok(text) {
            wrong.push((run, first, second));
        }
    }
    assert!(wrong.is_empty(), "{} of {RUNS} runs wrong both ways for {text:?}: {wrong:?}", wrong.len());
    assert!(retried.len() <= RUNS / 4, "the preferred route missed {} of {RUNS} times: {retried:?}", retried.len());
    if !retried.is_empty() {
        eprintln!("{text:?}: {} of {RUNS} exact only on the second attempt: {retried:?}", retried.len());
    }
}

#[test]
fn types_english_exactly() {
    exact_readback("Hello, World! The quick brown fox (#42) jumps over the lazy dog: ~`|\\/<>?\"';[]{}+=_-*&^%$@");
}

#[test]
fn types_thai_exactly() {
    exact_readback("สวัสดีครับ ภาษาไทย");
}

#[test]
fn types_cjk_exactly() {
    exact_readback("日本語のテキスト 中文");
}

#[test]
fn types_emoji_exactly() {
    exact_readback("👍🎉");
}

#[test]
fn types_mixed_scripts_exactly() {
    exact_readback("Price: 42 € — สวัสดี 日本 👍 Ünïcödé done.");
}

/// A temporary file path inside the sandbox's private root.
fn temp_file(d: &Desk, name: &str) -> PathBuf {
    let p = d.sandbox.root().join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// Starts an xterm (fixed 6x13 font) running `cat > file`.
fn xterm_cat(d: &Desk, file: &std::path::Path) -> App {
    let cmd = format!("cat > '{}'", file.display());
    launch(d, "xterm", &["-fn", "fixed", "-geometry", "80x24", "-e", "sh", "-c", &cmd])
}

#[test]
fn xterm_receives_ascii_exactly() {
    let (_g, d) = desk();
    let file = temp_file(d, "xterm-ascii.txt");
    let app = xterm_cat(d, &file);
    let printable: String = (0x20u8..0x7f).map(char::from).collect();
    let text = format!("{printable}\nsecond line\twith a tab\n");
    d.input.type_text(&text).expect("type into xterm");
    key(d, "ctrl+d");
    let (code, _) = finish(app);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&file).expect("read cat output"), text);
    assert_nothing_pressed(d);
}

/// In a terminal, non-keyboard text is pasted with shift+Insert (ctrl+v would be `^V`).
#[test]
fn xterm_receives_thai_and_emoji_exactly() {
    let (_g, d) = desk();
    xterm_roundtrip(d, &d.input, "xterm-thai.txt", "สวัสดีครับ ภาษาไทย 👍 日本語\n");
}

/// The borrowed-keycode path (used in Emacs and Vim, and by the Keys strategy) types any script too.
#[test]
fn borrowed_keycodes_type_thai_and_emoji_into_a_terminal() {
    let (_g, d) = desk();
    let keys = X11Input::with_options(
        Arc::clone(&d.conn),
        InputOptions { typing: TypingStrategy::Keys, ..InputOptions::default() },
    )
    .expect("keys input");
    xterm_roundtrip(d, &keys, "xterm-keys.txt", "สวัสดีครับ ภาษาไทย 👍\n");
}

fn xterm_roundtrip(d: &Desk, input: &X11Input, name: &str, text: &str) {
    let file = temp_file(d, name);
    let app = xterm_cat(d, &file);
    input.type_text(text).expect("type into xterm");
    key(d, "ctrl+d");
    let (code, _) = finish(app);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&file).expect("read cat output"), text);
    assert_nothing_pressed(d);
}

#[test]
fn ctrl_a_then_typing_replaces_and_return_submits() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail", "--entry-text=old text"]);
    d.input.type_text(" more").expect("type");
    key(d, "ctrl+a");
    d.input.type_text("new ไทย").expect("type");
    key(d, "shift+Home"); // select back to the start...
    key(d, "right"); // ...and collapse the selection at its end
    d.input.type_text("!").expect("type");
    key(d, "Return");
    let (code, out) = finish(app);
    assert_eq!((code, out.as_str()), (0, "new ไทย!\n"));
    assert_nothing_pressed(d);
}

#[test]
fn escape_cancels_zenity_with_exit_code_1() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    d.input.type_text("discard me").expect("type");
    key(d, "escape");
    let (code, out) = finish(app);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_nothing_pressed(d);
}

#[test]
fn alt_f4_closes_the_window_through_the_window_manager() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    key(d, "alt+f4");
    let (code, _) = finish(app);
    assert_eq!(code, 1, "zenity closed by the window manager reports cancel");
    assert_nothing_pressed(d);
}

/// Every canonical key name maps to a key that can be pressed. The keys go to a terminal running
/// `cat > /dev/null`, where none of them can close or re-focus anything.
#[test]
fn every_named_key_can_be_pressed() {
    let (_g, d) = desk();
    let app = xterm_cat(d, std::path::Path::new("/dev/null"));
    let mut names: Vec<String> = [
        "tab",
        "shift+tab",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "page_up",
        "page_down",
        "left",
        "right",
        "up",
        "down",
        "space",
        "menu",
        "print",
        "escape",
        "ctrl",
        "alt",
        "shift",
        "super",
        "ctrl+plus",
        "ctrl+minus",
        "alt+shift+x",
        "ก",
        "é",
        "€",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    names.extend((1..=24).map(|n| format!("f{n}")));
    for name in &names {
        key(d, name);
        assert_nothing_pressed(d);
    }
    d.input.type_text("\n").expect("type");
    key(d, "ctrl+d");
    assert_eq!(finish(app).0, 0);
}

/// Centres of zenity --entry's Cancel and OK buttons: the button row fills the dialog's width in two
/// halves below the entry.
fn entry_dialog_buttons(d: &Desk, window: Window) -> (Point, Point) {
    let (x, y, w, h) = geometry(d, window);
    let (_, _, _, entry_bottom) = white_box(d, window);
    let row = y + (entry_bottom + h) / 2;
    (Point::new(x + w / 4, row), Point::new(x + 3 * w / 4, row))
}

#[test]
fn clicks_land_on_dialog_buttons() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    d.input.type_text("clicked ok").expect("type");
    let (_, ok) = entry_dialog_buttons(d, app.window);
    d.input.click(ok, MouseButton::Left, 1).expect("click OK");
    assert_eq!(finish(app), (0, "clicked ok\n".to_string()));

    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    d.input.type_text("clicked cancel").expect("type");
    let (cancel, _) = entry_dialog_buttons(d, app.window);
    d.input.click(cancel, MouseButton::Left, 1).expect("click Cancel");
    assert_eq!(finish(app), (1, String::new()));
    assert_nothing_pressed(d);
}

/// A point inside the first word of a zenity entry's text.
fn first_word_point(d: &Desk, window: Window) -> Point {
    let (x, y, _, _) = geometry(d, window);
    let (ex0, ey0, _, ey1) = white_box(d, window);
    Point::new(x + ex0 + 12, y + (ey0 + ey1) / 2)
}

#[test]
fn double_click_selects_a_word_and_triple_click_the_line() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    d.input.type_text("alpha beta gamma").expect("type");
    let p = first_word_point(d, app.window);
    d.input.click(p, MouseButton::Left, 2).expect("double click");
    d.input.type_text("X").expect("type over the word");
    key(d, "return");
    assert_eq!(finish(app), (0, "X beta gamma\n".to_string()));

    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    d.input.type_text("alpha beta gamma").expect("type");
    let p = first_word_point(d, app.window);
    d.input.click(p, MouseButton::Left, 3).expect("triple click");
    d.input.type_text("Y").expect("type over the line");
    key(d, "return");
    assert_eq!(finish(app), (0, "Y\n".to_string()));
    assert_nothing_pressed(d);
}

/// Mapped override-redirect children of the root: menus and popups.
fn popups(d: &Desk) -> Vec<Window> {
    let c = &d.conn.conn;
    let children = c.query_tree(d.conn.root).expect("tree").reply().expect("tree reply").children;
    children
        .into_iter()
        .filter(|&w| {
            c.get_window_attributes(w)
                .ok()
                .and_then(|a| a.reply().ok())
                .is_some_and(|a| a.override_redirect && a.map_state == MapState::VIEWABLE)
        })
        .collect()
}

#[test]
fn right_click_opens_a_context_menu() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    let before = popups(d);
    let p = first_word_point(d, app.window);
    d.input.click(p, MouseButton::Right, 1).expect("right click");
    wait_until("a context menu", || popups(d).iter().any(|w| !before.contains(w)).then_some(()));
    key(d, "escape"); // closes the menu
    wait_until("the menu to close", || (!popups(d).iter().any(|w| !before.contains(w))).then_some(()));
    key(d, "escape"); // cancels the dialog
    assert_eq!(finish(app).0, 1);
    assert_nothing_pressed(d);
}

/// Clicks the row at the middle of a 200-row zenity list after scrolling `notches` down over it, and
/// returns the row zenity reports.
fn list_row_after_scrolling(d: &Desk, notches: u32) -> u32 {
    let rows: Vec<String> = (1..=200).map(|i| i.to_string()).collect();
    let mut args = vec!["--list", "--column=Row", "--width=300", "--height=400"];
    args.extend(rows.iter().map(String::as_str));
    let app = launch(d, "zenity", &args);
    let (x, y, _, _) = geometry(d, app.window);
    let (lx0, ly0, lx1, ly1) = white_box(d, app.window);
    let middle = Point::new(x + (lx0 + lx1) / 2, y + (ly0 + ly1) / 2);
    if notches > 0 {
        d.input.scroll(Some(middle), ScrollDirection::Down, notches).expect("scroll");
    }
    d.input.click(middle, MouseButton::Left, 1).expect("click a row");
    key(d, "return");
    let (code, out) = finish(app);
    assert_eq!(code, 0);
    out.trim().parse().unwrap_or_else(|_| panic!("zenity printed {out:?}"))
}

#[test]
fn scroll_moves_a_list() {
    let (_g, d) = desk();
    let still = list_row_after_scrolling(d, 0);
    let scrolled = list_row_after_scrolling(d, 5);
    assert!(scrolled >= still + 5, "row {scrolled} after scrolling vs {still} without");
    assert_nothing_pressed(d);
}

#[test]
fn drag_moves_a_window_by_its_title_bar() {
    let (_g, d) = desk();
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    let (x, y, w, _) = geometry(d, app.window);
    let extents = prop32(&d.conn, app.window, d.conn.atoms._NET_FRAME_EXTENTS, AtomEnum::CARDINAL);
    let top = extents.get(2).copied().unwrap_or(20) as i32;
    let from = Point::new(x + w / 4, y - top / 2);
    let to = Point::new(from.x - 200, from.y + 150);
    let before = popups(d);
    d.input.drag(from, to).expect("drag");
    // The window manager follows the motion asynchronously: wait for the final position.
    wait_until("the window to move by the drag distance", || {
        let (nx, ny, _, _) = geometry(d, app.window);
        ((nx, ny) == (x - 200, y + 150)).then_some(())
    });
    // openbox shows a position popup while moving and holds the keyboard until the move ends, which
    // may be a moment after the popup went: an Escape it still took is pressed again.
    wait_until("the move to end", || (!popups(d).iter().any(|w| !before.contains(w))).then_some(()));
    let mut app = app;
    let deadline = Instant::now() + WAIT;
    while matches!(app.child.try_wait(), Ok(None)) && Instant::now() < deadline {
        key(d, "escape");
        let pressed = Instant::now();
        while matches!(app.child.try_wait(), Ok(None)) && pressed.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(POLL);
        }
    }
    assert_eq!(finish(app).0, 1);
    assert_nothing_pressed(d);
}

#[test]
fn drag_selects_terminal_text_and_middle_click_pastes_it() {
    let (_g, d) = desk();
    let file = temp_file(d, "xterm-drag.txt");
    let app = xterm_cat(d, &file);
    d.input.type_text("alpha beta gamma\n").expect("type");
    let (x, y, _, _) = geometry(d, app.window);
    // fixed is 6x13 with a 2-pixel border; "beta" is columns 6..=9 of the first row.
    let cell = |col: i32| x + 2 + col * 6;
    let row = y + 2 + 6;
    // Wait until the echo of "beta" is drawn, so there is text to select.
    wait_until("the terminal to echo the text", || {
        has_dark_pixels(d, app.window, (2 + 6 * 6, 2, 4 * 6, 13)).then_some(())
    });
    d.input.drag(Point::new(cell(6) + 1, row), Point::new(cell(10) + 1, row)).expect("drag");
    d.input.click(Point::new(cell(40), y + 2 + 13 * 5), MouseButton::Middle, 1).expect("middle click");
    d.input.type_text("\n").expect("type");
    key(d, "ctrl+d");
    assert_eq!(finish(app).0, 0);
    assert_eq!(std::fs::read_to_string(&file).expect("read cat output"), "alpha beta gamma\nbeta\n");
    assert_nothing_pressed(d);
}

/// Reads `selection` as UTF-8 text the way an application pastes it; None when nobody owns it.
fn read_selection(d: &Desk, selection: Atom) -> Option<String> {
    let (conn, _) = x11rb::connect(Some(&d.sandbox.display())).expect("connect");
    let root = conn.setup().roots[0].root;
    let utf8 = conn.intern_atom(false, b"UTF8_STRING").expect("intern").reply().expect("intern").atom;
    let prop = conn.intern_atom(false, b"_TEST_READ").expect("intern").reply().expect("intern").atom;
    let win = conn.generate_id().expect("id");
    conn.create_window(0, win, root, 0, 0, 1, 1, 0, WindowClass::INPUT_ONLY, 0, &CreateWindowAux::new())
        .expect("window");
    conn.convert_selection(win, selection, utf8, prop, CURRENT_TIME).expect("convert");
    conn.flush().expect("flush");
    let start = Instant::now();
    loop {
        assert!(start.elapsed() < WAIT, "no SelectionNotify");
        match conn.poll_for_event().expect("event") {
            Some(Event::SelectionNotify(n)) => {
                if n.property == NONE {
                    return None;
                }
                let r = conn.get_property(true, win, prop, AtomEnum::ANY, 0, 1 << 20).expect("get").reply().ok()?;
                return Some(String::from_utf8_lossy(&r.value).into_owned());
            }
            Some(_) => {}
            None => std::thread::sleep(POLL),
        }
    }
}

fn clipboard_atom(d: &Desk) -> Atom {
    d.conn.atoms.CLIPBOARD
}

#[test]
fn pasting_restores_the_previous_clipboard() {
    let (_g, d) = desk();
    // Another application owns the clipboard with "keep me".
    let owner = launch(d, "zenity", &["--entry", "--text=owner"]);
    d.input.type_text("keep me").expect("type");
    key(d, "ctrl+a");
    key(d, "ctrl+c");
    let owner_window = wait_until("zenity to own the clipboard", || {
        let o = d.conn.conn.get_selection_owner(clipboard_atom(d)).ok()?.reply().ok()?.owner;
        (o != NONE).then_some(o)
    });
    assert_eq!(read_selection(d, clipboard_atom(d)).as_deref(), Some("keep me"));

    // Typing Thai goes through the clipboard, which must hold "keep me" again afterwards (once the
    // pasting app has left the pasted text alone for a while: the restore is deferred).
    assert_eq!(zenity_roundtrip(d, "ภาษาไทย", TextRoute::Preferred).as_deref(), Ok("ภาษาไทย"));
    wait_until("the previous clipboard to come back", || {
        (read_selection(d, clipboard_atom(d)).as_deref() == Some("keep me")).then_some(())
    });
    activate(d, owner.window);
    key(d, "escape");
    drop(finish(owner));
    // The content outlives its first owner: handrail serves it now.
    let now_owner = d.conn.conn.get_selection_owner(clipboard_atom(d)).expect("owner").reply().expect("owner").owner;
    assert_ne!(now_owner, owner_window);
    assert_eq!(read_selection(d, clipboard_atom(d)).as_deref(), Some("keep me"));
    // And an application pastes it as before.
    let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
    key(d, "ctrl+v");
    key(d, "return");
    assert_eq!(finish(app), (0, "keep me\n".to_string()));
    assert_nothing_pressed(d);
}

#[test]
fn pasting_leaves_an_empty_clipboard_empty() {
    let (_g, d) = desk();
    d.conn.conn.set_selection_owner(NONE, clipboard_atom(d), CURRENT_TIME).expect("clear");
    d.conn.conn.flush().expect("flush");
    assert_eq!(zenity_roundtrip(d, "日本語", TextRoute::Preferred).as_deref(), Ok("日本語"));
    // Nobody owned the clipboard before, nobody afterwards (the restore is deferred until the app has
    // left the pasted text alone for a while).
    wait_until("the clipboard to be relinquished", || {
        let owner = d.conn.conn.get_selection_owner(clipboard_atom(d)).ok()?.reply().ok()?.owner;
        (owner == NONE).then_some(())
    });
    assert_nothing_pressed(d);
}

#[test]
fn a_paste_nobody_fetches_times_out_and_leaves_nothing_pressed() {
    let (_g, d) = desk();
    let input = X11Input::with_options(
        Arc::clone(&d.conn),
        InputOptions { typing: TypingStrategy::Clipboard, paste_timeout: Duration::from_millis(300) },
    )
    .expect("second input");
    // A question dialog has no text field: ctrl+v does nothing there.
    let app = launch(d, "zenity", &["--question", "--text=no text field here"]);
    let r = input.type_text("ไม่มีช่อง");
    assert!(matches!(r, Err(PlatformError::Timeout(_))), "{r:?}");
    assert_nothing_pressed(d);
    key(d, "escape");
    assert_eq!(finish(app).0, 1);
}

#[test]
fn creating_an_input_releases_latched_modifiers() {
    let (_g, d) = desk();
    let c = &d.conn.conn;
    // Simulate a crash that left shift and ctrl down.
    for kc in [50u8, 37] {
        c.xtest_fake_input(2, kc, CURRENT_TIME, NONE, 0, 0, 0).expect("press");
    }
    c.get_input_focus().expect("sync").reply().expect("sync");
    let keys = c.query_keymap().expect("keymap").reply().expect("keymap").keys;
    assert_ne!(keys[50 / 8] & (1 << (50 % 8)), 0, "shift is down before");
    let _fresh = X11Input::new(Arc::clone(&d.conn)).expect("new input");
    assert_nothing_pressed(d);
}

#[test]
fn control_characters_are_refused_before_anything_is_typed() {
    let (_g, d) = desk();
    let r = d.input.type_text("a\u{8}b");
    assert!(matches!(r, Err(PlatformError::Invalid(_))), "{r:?}");
    let r = d.input.click(Point::new(-1, 5), MouseButton::Left, 1);
    assert!(matches!(r, Err(PlatformError::Invalid(_))), "{r:?}");
    let r = d.input.click(Point::new(5, 5), MouseButton::Left, 4);
    assert!(matches!(r, Err(PlatformError::Invalid(_))), "{r:?}");
    assert_nothing_pressed(d);
}

/// openbox freezes the pointer on every press in a client window until it replays the press (its
/// click-to-focus grab); a release sent during the freeze used to lose about half of all clicks here.
#[test]
fn single_clicks_are_never_lost_to_the_window_managers_grab() {
    let (_g, d) = desk();
    for run in 0..10 {
        let app = launch(d, "zenity", &["--entry", "--text=handrail"]);
        d.input.type_text("alpha beta gamma").expect("type");
        let p = first_word_point(d, app.window);
        d.input.click(p, MouseButton::Left, 1).expect("click");
        d.input.type_text("X").expect("type at the click");
        key(d, "return");
        assert_eq!(finish(app), (0, "aXlpha beta gamma\n".to_string()), "run {run}");
    }
    assert_nothing_pressed(d);
}
