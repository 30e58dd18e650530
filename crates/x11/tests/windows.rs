//! `X11Windows` on a real private desktop (Xvfb + openbox + buses from `handrail-sandbox`), never the
//! host's display.
//!
//! One sandbox serves the whole binary and tests take turns (the frontmost window is shared state).
//! Every process a test starts gets the sandbox environment, whose marker makes teardown (the sandbox's
//! reaper, when this binary exits) kill it; tests also stop what they started when they finish.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use handrail_platform::{PlatformError, Rect, WindowInfo, Windows};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::windows::{LaunchEnv, X11Windows};
use handrail_x11::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, CreateWindowAux, PropMode, Window, WindowClass};
use x11rb::wrapper::ConnectionExt as _;

struct Desk {
    /// `frontmost()` right after the desktop started, before any window existed.
    initial_frontmost: Result<Option<WindowInfo>, PlatformError>,
    sandbox: Sandbox,
    conn: Arc<Conn>,
    windows: X11Windows,
}

static DESK: OnceLock<Desk> = OnceLock::new();
static TURN: Mutex<()> = Mutex::new(());

fn init_log() {
    handrail_sandbox::log_to_stderr();
}

/// A desktop entry that exercises Exec quoting and field codes: `\\"` in the file is `\"` after the
/// string escapes, a literal quote after the quoting rules; `%%` is `%`; `%F` disappears.
const NOTE_ENTRY: &str = r#"[Desktop Entry]
Type=Application
Name=Handrail Note
Exec=xterm -T "Note \\"quoted\\" 100%% sure" %F
"#;

/// A terminal app: runs inside a terminal emulator.
const SLEEPER_ENTRY: &str = "[Desktop Entry]\nType=Application\nName=Handrail Sleeper\nExec=sleep 120\nTerminal=true\n";

/// An executable only reachable through the PATH fallback (exec keeps the pid).
const FAKE_APP: &str = "#!/bin/sh\nexec xterm -T 'Fake App' -class FakeApp\n";

/// The shared desktop, and this test's turn on it.
fn desk() -> (&'static Desk, MutexGuard<'static, ()>) {
    let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let desk = DESK.get_or_init(|| {
        init_log();
        // Test threads end after each test; PR_SET_PDEATHSIG would then kill the desktop under the next
        // test. The reaper still cleans up when this binary exits.
        let opts = SandboxOptions { parent_death_signal: false, ..Default::default() };
        let sandbox = Sandbox::start(opts).expect("sandbox starts (run scripts/setup-desktop)");
        let conn = Conn::open(&sandbox.display()).expect("X connection");

        let data_home = sandbox.home().join(".local/share/applications");
        std::fs::create_dir_all(&data_home).expect("applications dir");
        std::fs::write(data_home.join("handrail-note.desktop"), NOTE_ENTRY).expect("entry");
        std::fs::write(data_home.join("handrail-sleeper.desktop"), SLEEPER_ENTRY).expect("entry");
        let bin = sandbox.root().join("bin");
        std::fs::create_dir_all(&bin).expect("bin dir");
        let fake = bin.join("handrail-fake-app");
        std::fs::write(&fake, FAKE_APP).expect("script");
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");

        let mut vars = sandbox.env();
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        vars.push(("PATH".into(), format!("{}:{path}", bin.display())));
        let mut env = LaunchEnv::new(vars, sandbox.root().join("browser-profile"));
        env.removed = REMOVED_ENV.iter().map(|v| v.to_string()).collect();
        env.log_dir = Some(sandbox.root().join("logs"));
        let windows = X11Windows::new(Arc::clone(&conn), env);
        let initial_frontmost = windows.frontmost();
        Desk { initial_frontmost, sandbox, conn, windows }
    });
    (desk, turn)
}

/// Stops what a test started when it ends, pass or fail, and waits (bounded) until their windows are
/// gone so the next test starts from a quiet desktop.
struct Cleanup {
    desk: &'static Desk,
    pids: Vec<u32>,
    children: Vec<Child>,
}

impl Cleanup {
    fn new(desk: &'static Desk) -> Cleanup {
        Cleanup { desk, pids: Vec::new(), children: Vec::new() }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let mut pids = self.pids.clone();
        for pid in &self.pids {
            if let Ok(pid) = i32::try_from(*pid) {
                // SAFETY: plain kill(2) on a pid this test started.
                unsafe { libc::kill(pid, libc::SIGTERM) };
            }
        }
        for child in &mut self.children {
            pids.push(child.id());
            let _ = child.kill();
            let _ = child.wait();
        }
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(3) && self.desk.pids_with_windows().iter().any(|p| pids.contains(p)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        if t0.elapsed() > Duration::from_millis(500) {
            eprintln!("cleanup: windows of {pids:?} took {:?} to go", t0.elapsed());
        }
    }
}

impl Desk {
    /// Starts a test program with the sandbox environment (xterm's font warnings muted).
    fn spawn(&self, cleanup: &mut Cleanup, program: &str, args: &[&str]) {
        let child = self.sandbox.command(program).args(args).stderr(Stdio::null()).spawn().expect("spawn in sandbox");
        cleanup.children.push(child);
    }

    /// Polls (20 ms) until `f` gives a value, or panics after `limit`.
    fn eventually<T>(&self, what: &str, limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(v) = f() {
                return v;
            }
            assert!(Instant::now() < deadline, "timed out after {limit:?} waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The client window whose title is exactly `title`, waiting for it to appear.
    fn window_titled(&self, title: &str) -> Window {
        self.eventually(&format!("a window titled {title:?}"), Duration::from_secs(10), || {
            let clients = self.windows.client_windows().ok()?;
            clients.into_iter().find(|w| self.windows.window_info(*w).is_ok_and(|i| i.title == title))
        })
    }

    fn pids_with_windows(&self) -> Vec<u32> {
        let clients = self.windows.client_windows().unwrap_or_default();
        clients.into_iter().filter_map(|w| self.windows.window_info(w).ok()?.pid).collect()
    }

    fn frontmost(&self) -> WindowInfo {
        self.windows.frontmost().expect("frontmost").expect("a window is active")
    }

    /// The frame's outer rectangle, found independently of `X11Windows`: the ancestor of `window` that
    /// is a child of the root.
    fn frame_rect(&self, window: Window) -> Rect {
        let c = &self.conn.conn;
        let mut w = window;
        loop {
            let tree = c.query_tree(w).expect("query_tree").reply().expect("tree");
            if tree.parent == tree.root {
                break;
            }
            w = tree.parent;
        }
        let g = c.get_geometry(w).expect("geometry").reply().expect("geometry");
        let b = u32::from(g.border_width);
        Rect::new(g.x.into(), g.y.into(), u32::from(g.width) + 2 * b, u32::from(g.height) + 2 * b)
    }

    fn client_rect(&self, window: Window) -> Rect {
        let c = &self.conn.conn;
        let g = c.get_geometry(window).expect("geometry").reply().expect("geometry");
        let t = c.translate_coordinates(window, self.conn.root, 0, 0).expect("translate").reply().expect("translate");
        Rect::new(t.dst_x.into(), t.dst_y.into(), g.width.into(), g.height.into())
    }
}

#[test]
fn frontmost_reports_title_app_pid_and_frame_bounds() {
    let (desk, _turn) = desk();
    let mut cleanup = Cleanup::new(desk);
    desk.spawn(&mut cleanup, "xterm", &["-T", "Known Title", "-geometry", "60x20+100+80"]);
    let pid = cleanup.children[0].id();
    let window = desk.window_titled("Known Title");
    desk.windows.activate(window).expect("activate");

    let info = desk.frontmost();
    assert_eq!(info.title, "Known Title");
    assert_eq!(info.app, "XTerm", "WM_CLASS XTerm maps to the desktop entry's Name");
    assert_eq!(info.pid, Some(pid));
    let client = desk.client_rect(window);
    assert_eq!(info.bounds, desk.frame_rect(window), "bounds are the window manager's frame");
    assert!(info.bounds.contains_rect(&client) && info.bounds.height > client.height, "frame includes the title bar");
    assert_eq!((info.bounds.x, info.bounds.y), (100, 80), "user-specified position is the frame's");
    assert_eq!(desk.windows.active_window().expect("active"), Some(window));
}

#[test]
fn frontmost_is_none_when_nothing_is_active() {
    let (desk, _turn) = desk();
    assert_eq!(desk.initial_frontmost, Ok(None));
}

#[test]
fn activating_a_missing_or_unmanaged_window_fails_clearly() {
    let (desk, _turn) = desk();
    let mut env = desk.windows.launch_env().clone();
    env.activate_timeout = Duration::from_millis(300);
    let windows = X11Windows::new(Arc::clone(&desk.conn), env);

    let c = &desk.conn.conn;
    let gone = c.generate_id().expect("id");
    c.create_window(0, gone, desk.conn.root, 0, 0, 10, 10, 0, WindowClass::INPUT_OUTPUT, 0, &Default::default())
        .expect("create")
        .check()
        .expect("created");
    c.destroy_window(gone).expect("destroy").check().expect("destroyed");
    let err = windows.activate(gone).expect_err("gone");
    assert!(matches!(&err, PlatformError::NotFound(m) if m.contains("does not exist")), "{err:?}");

    let err = windows.activate(desk.conn.root).expect_err("the root is no client");
    assert!(
        matches!(&err, PlatformError::Timeout(m) if m.contains("not a window the window manager manages")),
        "{err:?}"
    );
}

#[test]
fn window_info_falls_back_to_wm_name_wm_class_and_process_name() {
    let (desk, _turn) = desk();
    let c = &desk.conn.conn;
    let atoms = &desk.conn.atoms;
    let create = || {
        let w = c.generate_id().expect("id");
        let aux = CreateWindowAux::new();
        c.create_window(0, w, desk.conn.root, 30, 40, 200, 100, 0, WindowClass::INPUT_OUTPUT, 0, &aux)
            .expect("create")
            .check()
            .expect("created");
        w
    };
    // Legacy properties only: a Latin-1 WM_NAME and a WM_CLASS, no pid.
    let legacy = create();
    c.change_property8(PropMode::REPLACE, legacy, AtomEnum::WM_NAME, AtomEnum::STRING, b"Caf\xe9 Latin").expect("name");
    c.change_property8(PropMode::REPLACE, legacy, atoms.WM_CLASS, AtomEnum::STRING, b"handrail-probe\0HandrailProbe\0")
        .expect("class");
    // No WM_CLASS but a pid: the process name is the last resort.
    let bare = create();
    c.change_property32(PropMode::REPLACE, bare, atoms._NET_WM_PID, AtomEnum::CARDINAL, &[std::process::id()])
        .expect("pid");
    c.sync().expect("sync");

    let info = desk.windows.window_info(legacy).expect("info");
    assert_eq!(
        info,
        WindowInfo {
            app: "HandrailProbe".into(),
            class: "HandrailProbe".into(),
            title: "Café Latin".into(),
            pid: None,
            bounds: Rect::new(30, 40, 200, 100)
        }
    );
    let info = desk.windows.window_info(bare).expect("info");
    let comm = std::fs::read_to_string("/proc/self/comm").expect("comm");
    assert_eq!((info.app.as_str(), info.title.as_str()), (comm.trim_end(), ""));
    assert_eq!(info.pid, Some(std::process::id()));
    for w in [legacy, bare] {
        c.destroy_window(w).expect("destroy");
    }
    c.flush().expect("flush");
}

#[test]
fn activation_switches_frontmost_between_two_windows() {
    let (desk, _turn) = desk();
    let mut cleanup = Cleanup::new(desk);
    desk.spawn(&mut cleanup, "xterm", &["-T", "Alpha", "-geometry", "40x10+50+50"]);
    desk.spawn(&mut cleanup, "xterm", &["-T", "Beta", "-geometry", "40x10+400+300"]);
    let alpha = desk.window_titled("Alpha");
    let beta = desk.window_titled("Beta");
    for (window, title) in [(alpha, "Alpha"), (beta, "Beta"), (alpha, "Alpha"), (beta, "Beta")] {
        let t = Instant::now();
        desk.windows.activate(window).expect("activate");
        eprintln!("activate {title}: {:?}", t.elapsed());
        assert_eq!(desk.frontmost().title, title);
    }
    // Already active: returns at once.
    desk.windows.activate(beta).expect("activate again");
    assert_eq!(desk.frontmost().title, "Beta");
}

#[test]
fn launches_by_desktop_entry_name_and_program_name() {
    let (desk, _turn) = desk();
    let mut cleanup = Cleanup::new(desk);
    for (name, app) in [("XTerm", "XTerm"), ("xterm", "XTerm"), ("GTK+ Demo", "GTK+ Demo"), ("gtk3-demo", "GTK+ Demo")]
    {
        let pids_before = desk.pids_with_windows();
        let t = Instant::now();
        let launched = desk.windows.launch_app(name).expect(name);
        eprintln!("launch_app({name:?}) → window active in {} ms", t.elapsed().as_millis());
        cleanup.pids.extend(launched.pid);
        assert_eq!(launched.app, app, "{name}");
        assert!(launched.pid.is_some());
        let front = desk.frontmost();
        assert_eq!(front.app, app, "the new window is frontmost");
        assert_eq!(front.pid, launched.pid);
        assert!(launched.pid.is_some_and(|p| !pids_before.contains(&p)), "a new instance each time");
    }
}

#[test]
fn launches_entries_with_quoted_exec_and_terminal_apps() {
    let (desk, _turn) = desk();
    let mut cleanup = Cleanup::new(desk);

    let launched = desk.windows.launch_app("handrail note").expect("entry in XDG_DATA_HOME");
    cleanup.pids.extend(launched.pid);
    assert_eq!(launched.app, "Handrail Note");
    let front = desk.frontmost();
    assert_eq!(front.title, r#"Note "quoted" 100% sure"#, "quotes kept, %% is %, %F removed");
    assert_eq!(front.pid, launched.pid);

    let launched = desk.windows.launch_app("Handrail Sleeper").expect("terminal entry");
    cleanup.pids.extend(launched.pid);
    assert_eq!(launched.app, "Handrail Sleeper");
    let front = desk.frontmost();
    assert_eq!(front.pid, launched.pid, "the terminal window around the program is frontmost");
    // Debian's x-terminal-emulator: xterm, or a terminal installed with a higher priority.
    assert!(
        handrail_platform::AppRules::linux().is_terminal_class(&front.class),
        "runs in a terminal emulator: {front:?}"
    );
}

#[test]
fn launches_an_executable_from_path_when_no_entry_matches() {
    let (desk, _turn) = desk();
    let mut cleanup = Cleanup::new(desk);
    let launched = desk.windows.launch_app("handrail-fake-app").expect("PATH fallback");
    cleanup.pids.extend(launched.pid);
    assert_eq!(launched.app, "FakeApp", "named after its window's class");
    let front = desk.frontmost();
    assert_eq!((front.title.as_str(), front.app.as_str()), ("Fake App", "FakeApp"));
    assert_eq!(front.pid, launched.pid);
}

#[test]
fn unknown_or_refused_names_start_nothing_and_suggest_close_matches() {
    let (desk, _turn) = desk();
    let before = desk.pids_with_windows();

    let err = desk.windows.launch_app("xtrem").expect_err("unknown name");
    let PlatformError::NotFound(msg) = &err else { panic!("expected NotFound, got {err:?}") };
    assert!(msg.contains("\"xtrem\"") && msg.contains("XTerm") && msg.contains("UXTerm"), "{msg}");

    let err = desk.windows.launch_app("qqqqzzzz").expect_err("nothing close");
    assert!(matches!(&err, PlatformError::NotFound(m) if m.contains("no close matches")), "{err:?}");

    // Deny-listed programs are not started through PATH even though they exist there.
    let long = "x".repeat(10_000);
    for name in ["kill", "../bin/xterm", "", "-xterm", long.as_str()] {
        let err = desk.windows.launch_app(name).expect_err(name);
        assert!(matches!(err, PlatformError::NotFound(_)), "{:?}: {err:?}", name.get(..20));
    }
    let started: Vec<u32> = desk.pids_with_windows().into_iter().filter(|p| !before.contains(p)).collect();
    assert_eq!(started, [], "no new windows");
}

#[test]
fn an_app_that_exits_without_a_window_is_reported() {
    let (desk, _turn) = desk();
    // zenity without a dialog type prints usage and exits 255.
    let t = Instant::now();
    let err = desk.windows.launch_app("zenity").expect_err("no window");
    assert!(matches!(&err, PlatformError::Failed(m) if m.contains("exited")), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(5), "reported when it exits, not at the timeout");
}

/// Serves two pages on 127.0.0.1 (file URLs are refused by the engine's guard).
fn serve_pages() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    port
}

fn answer(mut stream: TcpStream) {
    let mut request_line = String::new();
    let Ok(clone) = stream.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Skip the headers.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/");
    let (status, body) = match path {
        "/one" => ("200 OK", "<!doctype html><title>Handrail Page One</title><h1>One</h1><input id=q>"),
        "/two" => ("200 OK", "<!doctype html><title>Handrail Page Two</title><h1>Two</h1>"),
        _ => ("404 Not Found", "<!doctype html><title>Not found</title>"),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

#[test]
fn open_url_shows_the_page_in_chromium_and_reuses_it() {
    let (desk, _turn) = desk();
    if !["/usr/bin/chromium", "/usr/bin/chromium-browser"].iter().any(|p| std::path::Path::new(p).exists()) {
        let err = desk.windows.open_url("http://127.0.0.1:9/").expect_err("no browser");
        assert!(matches!(&err, PlatformError::Unavailable(m) if m.contains("chromium")), "{err:?}");
        eprintln!("chromium is not installed: only checked that open_url says so (apt-get install chromium)");
        return;
    }
    let mut cleanup = Cleanup::new(desk);
    let port = serve_pages();

    let t = Instant::now();
    let first = desk.windows.open_url(&format!("http://127.0.0.1:{port}/one")).expect("open_url");
    eprintln!("open_url (cold start) → window active in {} ms", t.elapsed().as_millis());
    cleanup.pids.extend(first.pid);
    assert!(first.app.contains("Chromium"), "{first:?}");
    let front = desk.eventually("the page title", Duration::from_secs(15), || {
        desk.windows.frontmost().ok().flatten().filter(|f| f.title.contains("Handrail Page One"))
    });
    eprintln!("page title in the window after {} ms", t.elapsed().as_millis());
    assert_eq!(front.pid, first.pid);
    assert_eq!(front.app, first.app);

    let t = Instant::now();
    let second = desk.windows.open_url(&format!("http://127.0.0.1:{port}/two")).expect("second open_url");
    eprintln!("open_url (running browser) → window active in {} ms", t.elapsed().as_millis());
    assert_eq!(second.pid, first.pid, "the running browser took the URL");
    desk.eventually("the second page's title", Duration::from_secs(15), || {
        desk.windows.frontmost().ok().flatten().filter(|f| f.title.contains("Handrail Page Two"))
    });

    // The browser's desktop entry opens the managed browser too (same profile, same process).
    let third = desk.windows.launch_app("chromium").expect("launch_app chromium");
    assert_eq!(third.app, "Chromium Web Browser");
    assert_eq!(third.pid, first.pid);

    // Only one browser process owns the profile (renderers and helpers carry `--type=`). The browser
    // process rewrites its command line into one space-separated string, hence substring matching.
    let profile = format!("--user-data-dir={}", desk.windows.launch_env().browser_profile.display());
    let browsers: Vec<u32> = std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            cmdline.contains(&profile) && !cmdline.contains("--type=")
        })
        .collect();
    assert_eq!(browsers, first.pid.into_iter().collect::<Vec<_>>(), "one browser process");
}

#[test]
fn open_url_without_a_browser_or_with_a_bad_url_is_refused() {
    let (desk, _turn) = desk();
    let mut env = desk.windows.launch_env().clone();
    env.browser = Some(PathBuf::from("/nonexistent/chromium"));
    let windows = X11Windows::new(Arc::clone(&desk.conn), env);
    let err = windows.open_url("https://example.com/").expect_err("no browser");
    assert!(matches!(&err, PlatformError::Unavailable(m) if m.contains("chromium")), "{err:?}");
    for bad in ["--renderer-cmd-prefix=x", "https://a b", ""] {
        let err = desk.windows.open_url(bad).expect_err(bad);
        assert!(matches!(err, PlatformError::Invalid(_)), "{bad:?}: {err:?}");
    }
}
