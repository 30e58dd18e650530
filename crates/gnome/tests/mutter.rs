//! Input through mutter's remote-desktop session, on a private headless mutter, checked by what the
//! GTK probe app itself received.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use handrail_dbus::wire::{Arg, Call};
use handrail_dbus::Bus;
use handrail_gnome::{MutterInput, MutterSession};
use handrail_platform::{Input, Key, KeyCombo, Modifiers, MouseButton, Point, Rect, ScrollDirection};

const WAIT: Duration = Duration::from_secs(20);
const SIZE: (u32, u32) = (1280, 800);

/// A private GNOME compositor: its own session bus, PipeWire and WirePlumber, and a headless mutter
/// with one virtual monitor. Every process is in a process group of its own and ended when dropped.
struct Gnome {
    dir: PathBuf,
    bus: String,
    display: String,
    children: Vec<Child>,
}

fn spawn_in(dir: &Path, bus: &str, program: &str, args: &[&str], log: &str) -> Child {
    let log = std::fs::File::create(dir.join(log)).expect("log file");
    Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .env("GSETTINGS_BACKEND", "memory")
        .env("NO_AT_BRIDGE", "1")
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("log"))
        .stderr(log)
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e} (scripts/setup-desktop installs it)"))
}

impl Gnome {
    fn start() -> Gnome {
        let dir = std::env::temp_dir().join(format!("handrail-gnome-test-{}-{}", std::process::id(), rand_suffix()));
        std::fs::create_dir_all(dir.join("run")).expect("dir");
        // The runtime directory's sockets are the session's own: private, as a login's is.
        let private = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o700);
        std::fs::set_permissions(dir.join("run"), private).expect("chmod");
        // The bus gets the private home and runtime directory too: services it activates (gvfsd and
        // its FUSE mount) otherwise settle in the real home and outlive the test.
        let mut daemon = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .env("XDG_RUNTIME_DIR", dir.join("run"))
            .env("GIO_USE_VFS", "local")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("dbus-daemon");
        let mut line = String::new();
        BufReader::new(daemon.stdout.take().expect("stdout")).read_line(&mut line).expect("bus address");
        let bus = line.trim().to_owned();
        let mut gnome =
            Gnome { dir: dir.clone(), bus: bus.clone(), display: "wayland-handrail".into(), children: vec![daemon] };
        gnome.children.push(spawn_in(&dir, &bus, "pipewire", &[], "pipewire.log"));
        gnome.wait_for(|| dir.join("run/pipewire-0").exists(), "PipeWire's socket");
        gnome.children.push(spawn_in(&dir, &bus, "wireplumber", &[], "wireplumber.log"));
        let monitor = format!("{}x{}", SIZE.0, SIZE.1);
        let display = gnome.display.clone();
        gnome.children.push(spawn_in(
            &dir,
            &bus,
            "mutter",
            &["--headless", "--wayland", "--no-x11", "--virtual-monitor", &monitor, "--wayland-display", &display],
            "mutter.log",
        ));
        let address = bus.clone();
        gnome.wait_for(|| has_owner(&address, "org.gnome.Mutter.RemoteDesktop"), "mutter on the session bus");
        gnome
    }

    fn wait_for(&mut self, mut ready: impl FnMut() -> bool, what: &str) {
        let deadline = Instant::now() + WAIT;
        while !ready() {
            for c in &mut self.children {
                if let Ok(Some(status)) = c.try_wait() {
                    panic!("waiting for {what}: a process exited ({status}); logs in {}", self.dir.display());
                }
            }
            assert!(Instant::now() < deadline, "{what} not ready in {WAIT:?}; logs in {}", self.dir.display());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts the probe app full-screen (mutter says nowhere where a window lies; full-screen, its
    /// surface starts at the monitor's origin), and reads its widgets' geometry.
    fn probe(&self) -> Probe {
        let mut child = Command::new("/usr/bin/python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/apps/conformance_gtk.py"))
            .args(["--title", "gnome probe", "--fullscreen"])
            .env("HOME", &self.dir)
            .env("XDG_RUNTIME_DIR", self.dir.join("run"))
            .env("DBUS_SESSION_BUS_ADDRESS", &self.bus)
            .env("WAYLAND_DISPLAY", &self.display)
            .env("GDK_BACKEND", "wayland")
            .env("GSETTINGS_BACKEND", "memory")
            .env("NO_AT_BRIDGE", "1")
            .env_remove("DISPLAY")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
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
        for l in said {
            let f: Vec<&str> = l.split(' ').collect();
            if let ["geometry", name, x, y, w, h] = f[..] {
                let n = |s: &str| s.parse::<i32>().expect("number");
                let rect = Rect::new(n(x), n(y), n(w) as u32, n(h) as u32);
                probe.geometry.push((name.replace('_', " "), rect));
            }
        }
        probe
    }
}

impl Drop for Gnome {
    fn drop(&mut self) {
        for c in self.children.iter_mut().rev() {
            // The whole process group: what the child started goes too.
            if let Ok(pid) = i32::try_from(c.id()) {
                // SAFETY: kill(2) with a process group this test started; no memory is involved.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            let _ = c.wait();
        }
        if std::thread::panicking() {
            // The compositor's and PipeWire's logs, for the failure.
            eprintln!("logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

fn has_owner(address: &str, name: &str) -> bool {
    let Ok(mut bus) = Bus::connect(address, Duration::from_secs(2), Box::new(|_| {})) else { return false };
    let args = [Arg::Str(name.into())];
    let call = Call {
        destination: "org.freedesktop.DBus",
        path: "/org/freedesktop/DBus",
        interface: "org.freedesktop.DBus",
        member: "NameHasOwner",
        args: &args,
        flags: 0,
    };
    bus.call(&call, Duration::from_secs(2), "NameHasOwner")
        .ok()
        .and_then(|m| m.first().ok())
        .is_some_and(|v| v == handrail_dbus::wire::Value::Bool(true))
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

    fn center(&self, name: &str) -> Point {
        let (_, r) =
            self.geometry.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name}: {:?}", self.geometry));
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
fn clicks_keys_text_scroll_and_drag_reach_a_gtk_app_on_mutter() {
    let gnome = Gnome::start();
    let session = MutterSession::start(&gnome.bus).expect("a remote-desktop session");
    let streams = session.streams().to_vec();
    assert_eq!(streams.len(), 1, "{streams:?}");
    assert_eq!(streams[0].area, Rect::new(0, 0, SIZE.0, SIZE.1), "{streams:?}");
    let input = MutterInput::new(session);
    let mut probe = gnome.probe();
    eprintln!("the probe's widgets: {:?}", probe.geometry);

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
