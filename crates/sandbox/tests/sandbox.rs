//! Real-process tests of the sandbox: real Xvfb, dbus-daemon, at-spi-bus-launcher and openbox. They need
//! the packages from scripts/setup-desktop. Every X/D-Bus client here runs through `Sandbox::command`,
//! so the host's own display (if any) is never touched. Desktops are started one at a time (2-core
//! machines) and every sandbox is stopped by its Drop guard even when an assertion fails.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{mpsc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_sandbox::{marked_processes, run_inside, Sandbox, SandboxError, SandboxOptions, Shutdown, SignalWatcher};

static DESKTOPS: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    // A failed test poisons the lock; the next one may still run.
    DESKTOPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn init_log() {
    handrail_sandbox::log_to_stderr();
}

/// Exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rfind(')').and_then(|i| stat[i + 1..].trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

fn socket(n: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X11-unix/X{n}"))
}

fn lock(n: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X{n}-lock"))
}

/// Whether the sandbox `id` gave display `n` back: its lock and socket are gone, or another X server
/// has taken the number since (the suite runs tests, and so desktops, side by side): the lock then
/// names a live process that does not carry `id`'s marker.
fn display_released(n: u32, id: &str) -> bool {
    let owned_by_another = || {
        std::fs::read_to_string(lock(n)).ok().and_then(|t| t.trim().parse::<u32>().ok()).is_some_and(|owner| {
            alive(owner)
                && !std::fs::read(format!("/proc/{owner}/environ"))
                    .is_ok_and(|e| e.split(|b| *b == 0).any(|kv| kv == format!("HANDRAIL_SANDBOX={id}").as_bytes()))
        })
    };
    // An X server writes its lock before it makes its socket: read the lock again after the socket.
    (!lock(n).exists() && !socket(n).exists()) || owned_by_another()
}

/// Poll `cond` every 10 ms for at most `limit`.
fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Run a command to completion with a 15 s bound (output read on a thread so large output cannot block).
fn output(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn helper");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(15)) {
        Ok(out) => out.expect("helper output"),
        Err(_) => {
            let _ = Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
            panic!("helper {cmd:?} did not finish in 15 s");
        }
    }
}

fn run(sb: &Sandbox, program: &str, args: &[&str]) -> (bool, String) {
    let mut cmd = sb.command(program);
    cmd.args(args);
    let out = output(cmd);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

fn assert_all_gone(id: &str, pids: &[u32], root: &Path, display: u32) {
    for &pid in pids {
        if alive(pid) {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let marked = std::fs::read(format!("/proc/{pid}/environ"))
                .map(|e| e.split(|b| *b == 0).any(|kv| kv == format!("HANDRAIL_SANDBOX={id}").as_bytes()))
                .unwrap_or(false);
            panic!(
                "pid {pid} still alive after stop: {:?} stat {stat:?} has marker {marked}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            );
        }
    }
    assert_eq!(marked_processes(id), Vec::<u32>::new(), "processes with the marker survived");
    assert!(!root.exists(), "{} not removed", root.display());
    assert!(display_released(display, id), "{} or {} not removed", socket(display).display(), lock(display).display());
}

#[test]
fn desktop_answers_and_is_fully_removed() {
    let _g = one_at_a_time();
    init_log();
    let sb = Sandbox::start(SandboxOptions::default()).expect("start sandbox");
    let n = sb.display_number();
    assert!(n >= 90, "auto display should be >= 90, got {n}");
    assert_eq!(sb.display(), format!(":{n}"));
    assert_ne!(std::env::var("DISPLAY").ok().as_deref(), Some(sb.display().as_str()), "must not be the host display");
    let t = sb.timings();
    eprintln!("start timings: {t:?}");
    assert!(t.total < Duration::from_secs(5), "start took {:?}", t.total);

    // Private directories.
    assert_eq!(mode(sb.root()), 0o700);
    assert_eq!(mode(sb.runtime_dir()), 0o700);
    let env: Vec<(String, String)> = sb.env();
    let get = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    assert_eq!(get("DISPLAY").as_deref(), Some(sb.display().as_str()));
    assert_eq!(get("HANDRAIL_SANDBOX").as_deref(), Some(sb.id()));
    assert_eq!(get("ACCESSIBILITY_ENABLED").as_deref(), Some("1"));
    for k in ["XDG_RUNTIME_DIR", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "TMPDIR"] {
        let v = get(k).unwrap_or_else(|| panic!("{k} missing"));
        assert!(Path::new(&v).starts_with(sb.root()), "{k}={v} outside the sandbox root");
        assert!(Path::new(&v).is_dir(), "{k}={v} does not exist");
    }

    // Commands get the sandbox's display and never a way to the host's session.
    let cmd = sb.command("true");
    let envs: Vec<(String, Option<String>)> = cmd
        .get_envs()
        .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned())))
        .collect();
    assert!(envs.contains(&("DISPLAY".to_owned(), Some(sb.display()))), "{envs:?}");
    for removed in ["WAYLAND_DISPLAY", "XAUTHORITY", "AT_SPI_BUS_ADDRESS"] {
        assert!(envs.contains(&(removed.to_owned(), None)), "{removed} not removed: {envs:?}");
    }

    // The X server answers, with the requested size.
    let (ok, text) = run(&sb, "xdpyinfo", &[]);
    assert!(ok, "xdpyinfo failed: {text}");
    assert!(text.contains("1280x800 pixels"), "unexpected xdpyinfo: {text}");
    assert!(text.contains(&format!("name of display:    {}", sb.display())), "{text}");

    // The session bus answers.
    let (ok, text) = run(
        &sb,
        "dbus-send",
        &[
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetId",
        ],
    );
    assert!(ok, "session bus did not answer: {text}");
    assert!(sb.bus_address().contains(&sb.runtime_dir().display().to_string()), "{}", sb.bus_address());

    // The accessibility bus is reachable the way clients look it up.
    let (ok, text) = run(
        &sb,
        "dbus-send",
        &["--session", "--print-reply=literal", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"],
    );
    assert!(ok && text.trim().starts_with("unix:"), "GetAddress: {text}");
    assert_eq!(sb.a11y_bus_address(), Some(text.trim()));

    // The window manager speaks EWMH.
    let (ok, text) = run(&sb, "xprop", &["-root", "_NET_SUPPORTING_WM_CHECK", "_NET_SUPPORTED"]);
    assert!(ok && text.contains("window id #"), "no EWMH WM: {text}");
    assert!(text.contains("_NET_ACTIVE_WINDOW"), "WM does not support _NET_ACTIVE_WINDOW: {text}");
    // The root window is the light background (read back with ImageMagick, from scripts/setup-desktop).
    let (ok, text) = run(&sb, "import", &["-window", "root", "-crop", "1x1+5+5", "txt:-"]);
    assert!(ok, "import failed: {text}");
    assert!(text.to_uppercase().contains("#E0E0E0"), "background not set: {text}");

    // Everything recorded is alive and carries the marker.
    let id = sb.id().to_owned();
    let root = sb.root().to_path_buf();
    let pids = sb.pids();
    assert!(pids.len() >= 4, "expected Xvfb, dbus, a11y, openbox: {pids:?}");
    let marked = sb.processes();
    for pid in &pids {
        assert!(alive(*pid), "{pid} not running");
        assert!(marked.contains(pid), "{pid} lacks the marker; marked = {marked:?}");
    }
    let reaper = sb.reaper_pid().expect("reaper");
    assert!(alive(reaper));
    assert!(socket(n).exists() && lock(n).exists());

    let report = sb.stop().expect("stop");
    eprintln!("stop report: {report:?}");
    assert!(report.killed.is_empty(), "needed SIGKILL: {report:?}");
    assert!(report.duration < Duration::from_secs(3));
    let mut all = pids.clone();
    all.extend(&marked);
    all.push(reaper);
    assert_all_gone(&id, &all, &root, n);
}

/// openbox claims the screen before it manages windows; a window mapped in that gap stayed unmapped
/// for good (2 of 60 starts under load when start() returned on `_NET_SUPPORTING_WM_CHECK`). An app
/// launched the moment start() returns must show, every time.
#[test]
fn a_window_mapped_the_moment_start_returns_is_managed() {
    let _g = one_at_a_time();
    init_log();
    for round in 1..=12 {
        let opts = SandboxOptions { accessibility: false, ..Default::default() };
        let sb = Sandbox::start(opts).expect("start sandbox");
        let mut app = sb.spawn("xmessage", ["-geometry", "+300+200", "managed?"]).expect("xmessage");
        let mut window = None;
        let managed = eventually(Duration::from_secs(10), || {
            let (_, t) = run(&sb, "xprop", &["-root", "_NET_CLIENT_LIST"]);
            // `_NET_CLIENT_LIST(WINDOW): window id # 0x…`, with nothing after `#` while it is empty.
            window = t
                .split("window id # ")
                .nth(1)
                .and_then(|w| w.split([',', ' ', '\n']).next())
                .filter(|w| w.starts_with("0x"))
                .map(str::to_owned);
            window.is_some()
        });
        let (_, viewable) = run(&sb, "xwininfo", &["-id", window.as_deref().unwrap_or("0")]);
        let _ = app.kill();
        let _ = app.wait();
        sb.stop().expect("stop");
        assert!(managed, "start {round}: xmessage was never managed by openbox: {viewable}");
        assert!(viewable.contains("IsViewable"), "start {round}: {viewable}");
    }
}

#[test]
fn apps_and_their_reparented_helpers_die_on_stop() {
    let _g = one_at_a_time();
    init_log();
    let sb = Sandbox::start(SandboxOptions::default()).expect("start sandbox");
    let n = sb.display_number();
    let id = sb.id().to_owned();
    let root = sb.root().to_path_buf();

    // A real X client…
    let mut xterm = sb.spawn("xterm", ["-e", "sleep", "300"]).expect("xterm");
    // …a child with a grandchild…
    let mut tree = sb.command("sh");
    tree.args(["-c", "sleep 300 & echo $!; wait"]).stdout(Stdio::piped());
    let mut tree = tree.spawn().expect("sh");
    let mut line = String::new();
    BufReader::new(tree.stdout.take().expect("stdout")).read_line(&mut line).expect("grandchild pid");
    let grandchild: u32 = line.trim().parse().expect("pid");
    // …and a daemon that detaches completely (re-parented to init, like at-spi2-registryd).
    let pidfile = std::env::temp_dir().join(format!("handrail-sandbox-test-{}.pid", std::process::id()));
    let (ok, text) = run(
        &sb,
        "sh",
        &["-c", &format!("setsid sleep 301 </dev/null >/dev/null 2>&1 & echo $! > {}", pidfile.display())],
    );
    assert!(ok, "{text}");
    let daemon: u32 = std::fs::read_to_string(&pidfile).expect("pidfile").trim().parse().expect("pid");
    let _ = std::fs::remove_file(&pidfile);

    // Wait until xterm is really on the display (openbox lists managed clients).
    let mapped = eventually(Duration::from_secs(10), || {
        let (_, t) = run(&sb, "xprop", &["-root", "_NET_CLIENT_LIST"]);
        t.contains("window id #")
    });
    assert!(mapped, "xterm never appeared in _NET_CLIENT_LIST");
    let marked = sb.processes();
    for pid in [xterm.id(), tree.id(), grandchild, daemon] {
        assert!(marked.contains(&pid), "{pid} not found by marker: {marked:?}");
    }
    assert!(sb.pids().contains(&xterm.id()), "spawn() should record the pid");

    let mut all = sb.pids();
    all.extend(&marked);
    sb.stop().expect("stop");
    // Our own children become zombies until reaped; reap them (bounded) and check the rest.
    for child in [&mut xterm, &mut tree] {
        let exited = eventually(Duration::from_secs(3), || matches!(child.try_wait(), Ok(Some(_))));
        assert!(exited, "app {} survived stop", child.id());
    }
    assert_all_gone(&id, &all, &root, n);
}

/// A Python process listening on a Unix socket at `path` until it is killed; it prints `ready` once
/// listening. SIGTERM ends it at once, leaving the socket file (as it leaves LibreOffice's).
const LISTENER: &str = "import socket, sys, time\n\
s = socket.socket(socket.AF_UNIX)\n\
s.bind(sys.argv[1])\n\
s.listen()\n\
print('ready', flush=True)\n\
time.sleep(300)\n";

/// A listener started by [`listen`]; dropping it ends the process and removes its socket file, also
/// when an assertion failed.
struct Listener {
    child: Child,
    path: PathBuf,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.path);
    }
}

fn listen(mut command: Command, path: &Path) -> Listener {
    command.args(["-c", LISTENER]).arg(path).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = command.spawn().expect("python3 starts");
    let stdout = child.stdout.take().expect("stdout");
    let listener = Listener { child, path: path.to_path_buf() };
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).expect("listener's line");
    assert_eq!(line.trim(), "ready", "the listener is listening at {}", path.display());
    listener
}

/// An app of the desktop that listens outside the sandbox's directory (LibreOffice binds its
/// `/tmp/OSL_PIPE_*` whatever TMPDIR says) leaves its socket file when it is ended: closing the apps
/// and the stop remove it. A socket someone else listens on beside it stays, as does its listener.
#[test]
fn sockets_the_desktop_left_outside_its_directory_are_removed() {
    let _g = one_at_a_time();
    init_log();
    let tag = format!("{}-{}", std::process::id(), Instant::now().elapsed().as_nanos());
    let path = |name: &str| std::env::temp_dir().join(format!("handrail-sandbox-test-{name}-{tag}.sock"));
    let (closed_app, stopped_app, someone_elses) = (path("closed"), path("stopped"), path("other"));
    let sb = Sandbox::start(SandboxOptions::default()).expect("start sandbox");
    let mut other = listen(Command::new("python3"), &someone_elses);

    let mut app = listen(sb.command("python3"), &closed_app);
    let closed = sb.process_handle().close_apps(Duration::from_secs(2));
    let _ = app.child.wait();
    assert!(!closed_app.exists(), "the closed app's socket stayed: {closed:?}");
    assert_eq!(closed.removed_sockets, vec![closed_app.clone()], "{closed:?}");

    let mut app = listen(sb.command("python3"), &stopped_app);
    let report = sb.stop().expect("stop");
    let _ = app.child.wait();
    assert!(!stopped_app.exists(), "the app's socket stayed at stop: {report:?}");
    assert_eq!(report.removed_sockets, vec![stopped_app.clone()], "{report:?}");

    assert!(someone_elses.exists(), "a socket nobody of the desktop bound was removed");
    assert!(matches!(other.child.try_wait(), Ok(None)), "the other listener still runs");
}

const OWNER_ENV: &str = "HANDRAIL_SANDBOX_TEST_OWNER";

/// Not a test on its own: when re-executed with `HANDRAIL_SANDBOX_TEST_OWNER` set, this process owns a
/// sandbox, reports it on stdout and waits to be killed (or for stdin to close).
#[test]
fn owner_process() {
    let Ok(mode) = std::env::var(OWNER_ENV) else { return };
    let opts = SandboxOptions { parent_death_signal: mode != "reaper-only", ..Default::default() };
    let sb = Sandbox::start(opts).expect("owner: start");
    let mut app = sb.spawn("sleep", ["300"]).expect("owner: app");
    let (ok, _) = run(&sb, "sh", &["-c", "setsid sleep 302 </dev/null >/dev/null 2>&1 &"]);
    assert!(ok);
    let pids = sb.pids();
    let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
    println!(
        "READY {} {} {} {} {}",
        sb.id(),
        sb.display_number(),
        sb.root().display(),
        sb.reaper_pid().unwrap_or(0),
        pids.join(",")
    );
    std::io::stdout().flush().expect("flush");
    // Block until the parent test kills us; if it dies instead, stdin closes and we stop normally.
    let mut sink = String::new();
    let _ = std::io::stdin().read_line(&mut sink);
    drop(sb);
    let _ = app.wait();
}

/// Kills the owner on drop, so a failing test never leaves it behind.
struct Owner(Child);

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn owner_killed_with_sigkill(mode: &str) {
    let _g = one_at_a_time();
    let exe = std::env::current_exe().expect("test binary");
    let mut child = Command::new(exe)
        .args(["--exact", "owner_process", "--nocapture", "--test-threads=1"])
        .env(OWNER_ENV, mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn owner");
    let stdout = child.stdout.take().expect("owner stdout");
    let mut owner = Owner(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // libtest prints "test owner_process ... " without a newline before the test's output.
            if let Some(i) = line.find("READY ") {
                let _ = tx.send(line[i + "READY ".len()..].trim().to_owned());
                return;
            }
        }
    });
    let ready = rx.recv_timeout(Duration::from_secs(30)).expect("owner never reported READY");
    let fields: Vec<&str> = ready.split(' ').collect();
    assert_eq!(fields.len(), 5, "{ready}");
    let (id, display, root) =
        (fields[0].to_owned(), fields[1].parse::<u32>().expect("display"), PathBuf::from(fields[2]));
    let reaper: u32 = fields[3].parse().expect("reaper pid");
    let pids: Vec<u32> = fields[4].split(',').map(|p| p.parse().expect("pid")).collect();
    let before = marked_processes(&id);
    assert!(before.len() > pids.len(), "expected infra, app and daemon: {before:?}");
    assert!(alive(reaper) && root.exists());

    // SIGKILL: no destructor, no signal handler runs in the owner.
    owner.0.kill().expect("kill -9 owner");
    let _ = owner.0.wait();
    let t0 = Instant::now();
    let clean = eventually(Duration::from_secs(10), || {
        marked_processes(&id).is_empty() && !root.exists() && !alive(reaper) && display_released(display, &id)
    });
    eprintln!("{mode}: cleaned up {:?} after the owner's SIGKILL", t0.elapsed());
    assert!(
        clean,
        "left behind: marked {:?}, root exists {}, reaper alive {}",
        marked_processes(&id),
        root.exists(),
        alive(reaper)
    );
    let mut all = pids;
    all.extend(before);
    assert_all_gone(&id, &all, &root, display);
}

#[test]
fn reaper_cleans_up_after_owner_sigkill() {
    owner_killed_with_sigkill("reaper-only");
}

#[test]
fn owner_sigkill_with_parent_death_signal() {
    owner_killed_with_sigkill("default");
}

#[test]
fn run_inside_returns_the_exit_status() {
    let _g = one_at_a_time();
    init_log();
    let idfile = std::env::temp_dir().join(format!("handrail-sandbox-test-{}.id", std::process::id()));
    let script = format!(
        "echo \"$HANDRAIL_SANDBOX $DISPLAY\" > {}; xprop -root _NET_SUPPORTING_WM_CHECK | grep -q 'window id' || exit 1; exit 7",
        idfile.display()
    );
    let status = run_inside(SandboxOptions::default(), "sh", ["-c", script.as_str()]).expect("run_inside");
    assert_eq!(status.code(), Some(7));
    let text = std::fs::read_to_string(&idfile).expect("id file");
    let _ = std::fs::remove_file(&idfile);
    let (id, display) = text.trim().split_once(' ').expect("id and display");
    let n: u32 = display.trim_start_matches(':').parse().expect("display number");
    assert_eq!(marked_processes(id), Vec::<u32>::new());
    assert!(display_released(n, id), "display :{n} was not given back");

    let status = run_inside(SandboxOptions::default(), "false", std::iter::empty::<&str>()).expect("run_inside");
    assert_eq!(status.code(), Some(1));
}

#[test]
fn sigterm_stops_a_waiting_sandbox() {
    let _g = one_at_a_time();
    init_log();
    let watcher = SignalWatcher::install().expect("watcher");
    let mut sb = Sandbox::start(SandboxOptions::default()).expect("start");
    let (id, n, root) = (sb.id().to_owned(), sb.display_number(), sb.root().to_path_buf());
    let pids = sb.pids();
    let me = std::process::id().to_string();
    let killer = Command::new("kill").args(["-TERM", &me]).status().expect("kill");
    assert!(killer.success());
    let why = sb.wait_for_shutdown(&watcher).expect("wait");
    assert_eq!(why, Shutdown::Signal(libc::SIGTERM));
    sb.stop().expect("stop");
    drop(watcher);
    assert_all_gone(&id, &pids, &root, n);
}

#[test]
fn display_in_use_and_bad_options_are_refused() {
    let _g = one_at_a_time();
    init_log();
    let sb = Sandbox::start(SandboxOptions { accessibility: false, window_manager: false, ..Default::default() })
        .expect("start");
    let n = sb.display_number();
    assert_eq!(sb.a11y_bus_address(), None);
    let taken = Sandbox::start(SandboxOptions { display: Some(n), ..Default::default() });
    assert!(matches!(taken, Err(SandboxError::Display(_))), "{taken:?}");
    // An automatic second sandbox skips the busy display (and may take a lower one that another
    // test's desktop gave back meanwhile).
    let second = Sandbox::start(SandboxOptions { accessibility: false, window_manager: false, ..Default::default() })
        .expect("second sandbox");
    assert_ne!(second.display_number(), n);
    let bad = Sandbox::start(SandboxOptions { size: (10, 10), ..Default::default() });
    assert!(matches!(bad, Err(SandboxError::InvalidOption(_))), "{bad:?}");
    second.stop().expect("stop second");
    sb.stop().expect("stop first");
}

#[test]
fn sandboxes_started_at_the_same_moment_each_own_their_x_server() {
    let _g = one_at_a_time();
    init_log();
    // Several rounds of four starters released together: each round is a fresh race for :90, :91…
    for round in 0..4 {
        let barrier = std::sync::Barrier::new(4);
        let sandboxes: Vec<Sandbox> = std::thread::scope(|s| {
            let starters: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        // The starter threads end before the check: no parent-death signal tied to them.
                        let opts = SandboxOptions {
                            accessibility: false,
                            window_manager: false,
                            parent_death_signal: false,
                            ..Default::default()
                        };
                        Sandbox::start(opts).expect("sandbox starts")
                    })
                })
                .collect();
            starters.into_iter().map(|h| h.join().expect("starter thread")).collect()
        });
        let mut numbers: Vec<u32> = sandboxes.iter().map(Sandbox::display_number).collect();
        for sb in &sandboxes {
            let n = sb.display_number();
            let owner: u32 = std::fs::read_to_string(lock(n))
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or_else(|| panic!("round {round}: :{n} has no readable lock"));
            assert!(
                sb.pids().contains(&owner),
                "round {round}: :{n} is served by pid {owner}, not by its sandbox {:?}",
                sb.pids()
            );
        }
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), 4, "round {round}: two sandboxes share a display");
        for sb in sandboxes {
            sb.stop().expect("stop");
        }
    }
}

/// A process the desktop needs exiting under a running sandbox is heard from another thread, with how
/// it ended; the exits of the sandbox's own stop are not. Every step's order is fixed by the test's own
/// calls (see `ExitWatch`'s promise), so nothing here depends on which thread runs first.
#[test]
fn a_process_of_the_desktop_exiting_is_heard_but_not_the_stop() {
    let _one = one_at_a_time();
    init_log();
    let mut sb = Sandbox::start(SandboxOptions { parent_death_signal: false, ..Default::default() }).expect("start");
    let mut watch = sb.exit_watch().expect("watch");
    let mut unread = sb.exit_watch().expect("a second watch");
    let (heard, heard_rx) = mpsc::channel();
    let waiting = std::thread::spawn(move || {
        let _ = heard.send(watch.wait());
        watch
    });
    let openbox = sb.pids()[3];
    let (ok, _) = run(&sb, "kill", &["-KILL", &openbox.to_string()]);
    assert!(ok);
    let exited = heard_rx.recv_timeout(Duration::from_secs(10)).expect("heard within 10 s").expect("an exit");
    assert_eq!(exited.process, "openbox");
    assert_eq!(exited.pid, openbox);
    assert_eq!(exited.how, "killed by signal 9");
    assert_eq!(exited.role(), "window manager");
    assert!(!exited.desktop_gone());
    let mut watch = waiting.join().expect("watch thread");

    // A watch taken before the exit and read only now, before the stop, still reports it: once.
    let late = unread.wait().expect("an exit read late is still news before the stop");
    assert_eq!((late.process, late.pid), ("openbox", openbox));
    // A watch taken after the exit does not cover the exited process.
    let mut after = sb.exit_watch().expect("a watch taken after the exit");

    // The stop ends the wait of every watch without a word about the processes it ends: a wait that
    // is blocked when it begins, and waits made after it.
    let (blocked_tx, blocked_rx) = mpsc::channel();
    let blocked = std::thread::spawn(move || {
        let _ = blocked_tx.send(());
        unread.wait()
    });
    blocked_rx.recv().expect("the waiting thread started");
    sb.stop().expect("stop");
    assert_eq!(watch.wait(), None);
    assert_eq!(after.wait(), None);
    assert_eq!(blocked.join().expect("watch thread"), None);
}

/// An exit that is ready beside the stop is not reported, even if no one read it before: the stop
/// makes it old news. Deterministic: the exit happens, then the stop, then the first read.
#[test]
fn an_exit_unread_when_the_stop_begins_is_not_reported() {
    let _one = one_at_a_time();
    init_log();
    let mut sb = Sandbox::start(SandboxOptions { parent_death_signal: false, ..Default::default() }).expect("start");
    let mut watch = sb.exit_watch().expect("watch");
    let mut witness = sb.exit_watch().expect("a second watch");
    let openbox = sb.pids()[3];
    let (ok, _) = run(&sb, "kill", &["-KILL", &openbox.to_string()]);
    assert!(ok);
    // The exit has happened (another watch has heard it) before the stop begins.
    assert_eq!(witness.wait().map(|e| e.process), Some("openbox"));
    sb.stop().expect("stop");
    assert_eq!(watch.wait(), None, "an exit before the stop, read after it, is not news");
}

/// The X server's extensions, as a client sees them (`xdpyinfo -queryExtensions`).
fn x_extensions(sb: &Sandbox) -> String {
    let (ok, out) = run(sb, "xdpyinfo", &["-queryExtensions"]);
    assert!(ok, "xdpyinfo failed: {out}");
    out
}

/// RSS of the sandbox's X server, in KiB.
fn x_server_rss_kib(sb: &Sandbox) -> u64 {
    let pid = sb
        .processes()
        .into_iter()
        .find(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "Xvfb"));
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid.expect("Xvfb runs"))).expect("status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("a number")
}

#[test]
fn opengl_is_offered_only_when_asked_for() {
    let _g = one_at_a_time();
    init_log();
    let plain = Sandbox::start(SandboxOptions { accessibility: false, window_manager: false, ..Default::default() })
        .expect("start");
    let without = x_extensions(&plain);
    assert!(!without.contains("GLX"), "GLX is offered by default:\n{without}");
    assert!(without.contains("MIT-SHM") && without.contains("XTEST"), "{without}");
    let plain_rss = x_server_rss_kib(&plain);
    plain.stop().expect("stop");

    let gl = Sandbox::start(SandboxOptions {
        accessibility: false,
        window_manager: false,
        opengl: true,
        ..Default::default()
    })
    .expect("start with OpenGL");
    assert!(x_extensions(&gl).contains("GLX"), "GLX is missing with opengl");
    let gl_rss = x_server_rss_kib(&gl);
    gl.stop().expect("stop");
    // What leaving GLX out saves, in resident memory of the X server (measured ~55 MB here).
    assert!(gl_rss > plain_rss + 20 * 1024, "X server RSS {plain_rss} KiB without GLX, {gl_rss} KiB with");
}
