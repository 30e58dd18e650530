//! The real backends (X11, wlroots Wayland and GNOME) as conformance backends: a private sandbox
//! each, the accessibility bus on, and `testdata/apps/conformance_gtk.py` (GTK 3) or
//! `conformance_gtk4.py` (GTK 4, the same widgets and lines) as the probe, read through its stdout.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use handrail_desktops::Session as Backend;
use handrail_gnome::{PortalOptions, RouteChoice, ShellWindows};
use handrail_platform::absent::NoOcr;
use handrail_platform::{Desktop, Rect};
use handrail_portal::TokenFile;
use handrail_sandbox::{Sandbox, SandboxOptions, Session, REMOVED_ENV};
use handrail_testkit::LineApp;
use handrail_wayland::{LaunchEnv, SwayIpc};

use crate::{Harness, Probe};

const SCREEN: (u32, u32) = (1280, 800);
/// Bound on the probe starting and its window becoming active.
const START: Duration = Duration::from_secs(20);

/// Which toolkit the probe is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolkit {
    Gtk3,
    /// What GNOME's own apps are built with.
    Gtk4,
}

impl Toolkit {
    fn probe_script(self) -> PathBuf {
        let name = match self {
            Toolkit::Gtk3 => "conformance_gtk.py",
            Toolkit::Gtk4 => "conformance_gtk4.py",
        };
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/apps").join(name)
    }
}

pub struct RealHarness {
    /// Which desktop the sandbox runs.
    protocol: Session,
    toolkit: Toolkit,
    /// GNOME Shell runs from a root file system (GNOME 48), not the machine's.
    own_root: bool,
    via: GnomeVia,
    // Dropped after the desktop (fields drop in order): connections close before the server goes.
    desktop: Desktop,
    sandbox: Sandbox,
}

/// A private X11 desktop (Xvfb, openbox, the accessibility bus).
pub fn x11() -> RealHarness {
    start(Session::X11)
}

/// A private Wayland desktop (headless sway, the accessibility bus).
pub fn wayland() -> RealHarness {
    start(Session::Sway)
}

/// A private GNOME desktop (headless GNOME Shell with handrail's extension, the accessibility bus).
pub fn gnome() -> RealHarness {
    start(Session::Gnome)
}

/// A private GNOME 48 desktop: GNOME Shell 48 from the Debian 13 root file system
/// (`scripts/setup-trixie`, at `handrail_sandbox::trixie_gnome_root()`), the machine's apps on it.
pub fn gnome_48() -> RealHarness {
    start_with(Session::Gnome, Some(handrail_sandbox::trixie_gnome_root()))
}

/// [`gnome_48`] with the GTK 4 probe: the toolkit of the apps a GNOME 48 desktop opens.
pub fn gnome_48_gtk4() -> RealHarness {
    RealHarness { toolkit: Toolkit::Gtk4, ..gnome_48() }
}

/// [`gnome_48_gtk4`] reached through the desktop portal (`xdg-desktop-portal` with GNOME's backend,
/// run in the sandbox), its consent dialog answered through accessibility by
/// `testdata/apps/portal_consent.py` as the person at the screen would.
pub fn gnome_48_portal() -> RealHarness {
    let root = Some(handrail_sandbox::trixie_gnome_root());
    RealHarness { toolkit: Toolkit::Gtk4, ..start_on(Session::Gnome, root, GnomeVia::Portal) }
}

/// How a GNOME harness reaches mutter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GnomeVia {
    Mutter,
    Portal,
}

fn start(protocol: Session) -> RealHarness {
    start_with(protocol, None)
}

fn start_with(protocol: Session, gnome_root: Option<PathBuf>) -> RealHarness {
    start_on(protocol, gnome_root, GnomeVia::Mutter)
}

fn start_on(protocol: Session, gnome_root: Option<PathBuf>, via: GnomeVia) -> RealHarness {
    let sandbox_root_given = gnome_root.is_some();
    let opts = SandboxOptions {
        size: SCREEN,
        session: protocol,
        // Tests run on short-lived threads; the reaper tears the desktop down if the binary dies.
        parent_death_signal: false,
        gnome_root,
        gnome_portal: via == GnomeVia::Portal,
        ..SandboxOptions::default()
    };
    let sandbox = Sandbox::start(opts)
        .expect("start the sandbox desktop (run scripts/setup-desktop, and scripts/setup-trixie for GNOME 48)");
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let ax = Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address()));
    // The desktop as handrail's assembler opens it for a sandbox, without OCR or a browser proxy.
    let mut backend = Backend::of_sandbox(&sandbox, launch);
    let mut person = None;
    if let (Backend::Gnome(options), GnomeVia::Portal) = (&mut backend, via) {
        options.route = RouteChoice::Portal(PortalOptions {
            token_file: Some(TokenFile(sandbox.root().join("portal-restore-token"))),
            consent_timeout: CONSENT,
        });
        person = Some(answer_consent(&sandbox, "share"));
    }
    let desktop = handrail_desktops::connect(backend, ax, Box::new(NoOcr)).expect("the sandbox's desktop");
    if let Some(mut person) = person {
        assert!(person.wait_for_within(START, |l| l == "answered share").is_some(), "the consent was answered");
    }
    match protocol {
        Session::Sway => background_drawn(&desktop, &SandboxOptions::default().background),
        // GNOME Shell draws its own background and top bar: start once it has stopped drawing.
        Session::Gnome => crate::wait_until_still(&desktop, "gnome"),
        Session::X11 => {}
    }
    RealHarness { protocol, toolkit: Toolkit::Gtk3, own_root: sandbox_root_given, via, desktop, sandbox }
}

/// Bound on the person answering GNOME's consent dialog (the helper waits 60 s for it to show).
const CONSENT: Duration = Duration::from_secs(90);

/// Starts `testdata/apps/portal_consent.py ANSWER` in `sandbox`: it waits for the portal's consent
/// dialog and answers it, printing `answered ANSWER`.
pub fn answer_consent(sandbox: &Sandbox, answer: &str) -> LineApp {
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/apps/portal_consent.py")).arg(answer);
    LineApp::spawn(command)
}

/// Waits until the desktop shows its background colour (`#rrggbb`). sway answers its IPC before the
/// swaybg it spawns has drawn, and on a busy machine that can take seconds: the checks compare
/// captures taken moments apart and must start from a desktop that has stopped drawing itself. (On
/// X11 the sandbox sets the root's colour before it returns.)
fn background_drawn(desktop: &Desktop, colour: &str) {
    let hex = |i: usize| colour.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok());
    let (Some(r), Some(g), Some(b)) = (hex(1), hex(3), hex(5)) else {
        panic!("the sandbox's background {colour:?} is not #rrggbb");
    };
    let corner = Rect::new(0, 0, 1, 1);
    let deadline = Instant::now() + START;
    loop {
        let pixel = desktop.screen.capture(Some(corner), None).ok().map(|f| f.row(0)[..3].to_vec());
        if pixel.as_deref() == Some(&[b, g, r][..]) {
            return;
        }
        assert!(Instant::now() < deadline, "the desktop never showed its background {colour}: the corner is {pixel:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl RealHarness {
    /// The sandbox the desktop runs in (for peer tools started inside it).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }
}

impl Harness for RealHarness {
    fn name(&self) -> &'static str {
        match self.protocol {
            Session::X11 => "x11",
            Session::Sway => "wayland",
            Session::Gnome if self.via == GnomeVia::Portal => "gnome 48 portal",
            Session::Gnome if self.own_root && self.toolkit == Toolkit::Gtk4 => "gnome 48 gtk4",
            Session::Gnome if self.own_root => "gnome 48",
            Session::Gnome => "gnome",
        }
    }

    fn desktop(&self) -> &Desktop {
        &self.desktop
    }

    fn expected_screen(&self) -> (u32, u32) {
        SCREEN
    }

    fn presses_any_character_key(&self) -> bool {
        self.protocol != Session::Gnome
    }

    fn next_scheduled_redraw(&self) -> Option<Duration> {
        // The top bar's clock (openbox and sway here show none).
        (self.protocol == Session::Gnome).then(crate::until_next_minute)
    }

    fn open_probe(&self, title: &str) -> Box<dyn Probe + '_> {
        let mut cmd = self.sandbox.command("/usr/bin/python3");
        cmd.arg(self.toolkit.probe_script()).args(["--title", title]).stdin(Stdio::null()).stderr(Stdio::null());
        let mut app = LineApp::spawn(cmd);
        let mut geometry = Vec::new();
        let ready = app.wait_for_within(START, |l| l == "ready");
        assert!(ready.is_some(), "{}: the probe never became ready: {:?}", self.name(), app.seen);
        for line in &app.seen {
            let f: Vec<&str> = line.split(' ').collect();
            if let ["geometry", name, x, y, w, h] = f[..] {
                let n = |v: &str| v.parse::<i32>().unwrap_or(0);
                geometry.push((name.replace('_', " "), Rect::new(n(x), n(y), n(w) as u32, n(h) as u32)));
            }
        }
        // Ready when its window is the active one. New windows take focus on X11 and sway; GNOME
        // gives none to a window that opened after the person's last input without an activation
        // token (it says the app "is ready" instead), so there the probe is raised as soon as it is
        // listed, as a person would click it.
        let deadline = Instant::now() + START;
        loop {
            let front = self.desktop.windows.frontmost().ok().flatten().map(|w| w.title);
            if front.as_deref() == Some(title) {
                break;
            }
            if self.protocol == Session::Gnome {
                let stack = self.desktop.windows.stack().unwrap_or_default();
                if let Some(w) = stack.into_iter().find(|w| w.info.title == title) {
                    self.desktop.windows.activate(w.handle).expect("activate the probe");
                    continue;
                }
            }
            if Instant::now() >= deadline {
                let stack = self.desktop.windows.stack();
                if let Some(w) = stack.ok().and_then(|s| s.into_iter().find(|w| w.info.title == title)) {
                    self.desktop.windows.activate(w.handle).expect("activate the probe");
                    break;
                }
                panic!("{}: the probe's window never became active (front: {front:?})", self.name());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if self.protocol != Session::X11 {
            // sway answers its IPC with the layout it is moving to, but shows a new window — and
            // sends it input — only once the app has drawn at its new size or 200 ms have passed.
            // Input sent before that goes where the window is not yet (a drag that never started
            // on a loaded machine), and a place read before it may lack the title bar the first
            // arrangement adds. Wait as an agent does, until the screen shows the window: a still
            // screen for longer than that 200 ms either already shows it or would have seen it
            // appear.
            crate::wait_until_still(&self.desktop, self.name());
        }
        // Wayland apps know only their own surface: place it where the compositor shows it.
        let origin = match self.protocol {
            Session::X11 => (0, 0),
            Session::Sway => {
                // sway lists a view before it has laid it out (a title bar comes with the first
                // arrangement): the place counts once two reads 100 ms apart agree.
                let ipc = SwayIpc::new(self.sandbox.sway_ipc().expect("sway IPC").to_owned());
                let deadline = Instant::now() + START;
                let mut last = None;
                loop {
                    let view = ipc.views().ok().and_then(|vs| vs.into_iter().find(|v| v.title == title));
                    let place = view.map(|v| (v.surface.x, v.surface.y));
                    if place.is_some() && place == last {
                        break place.unwrap_or_default();
                    }
                    assert!(Instant::now() < deadline, "sway never listed {title:?} at one place (last: {place:?})");
                    last = place;
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
            Session::Gnome => {
                // The extension's buffer rectangle: where the app's surface starts on screen.
                let shell = ShellWindows::connect(self.sandbox.bus_address()).expect("handrail's extension");
                let deadline = Instant::now() + START;
                let mut last = None;
                loop {
                    let window = shell.list().ok().and_then(|ws| ws.into_iter().find(|w| w.title == title));
                    let place = window.map(|w| (w.buffer.x, w.buffer.y));
                    if place.is_some() && place == last {
                        break place.unwrap_or_default();
                    }
                    assert!(Instant::now() < deadline, "GNOME never listed {title:?} at one place (last: {place:?})");
                    last = place;
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        };
        for (_, r) in &mut geometry {
            r.x += origin.0;
            r.y += origin.1;
        }
        Box::new(RealProbe { app, geometry, title: title.to_owned() })
    }
}

struct RealProbe {
    app: LineApp,
    geometry: Vec<(String, Rect)>,
    title: String,
}

impl Probe for RealProbe {
    fn bounds(&self, widget: &str) -> Rect {
        self.geometry
            .iter()
            .find(|(n, _)| n == widget)
            .map(|(_, r)| *r)
            .unwrap_or_else(|| panic!("the probe reported no geometry for {widget:?}: {:?}", self.geometry))
    }

    fn expect(&mut self, within: Duration, want: &dyn Fn(&str) -> bool) -> Option<String> {
        self.app.wait_for_within(within, want)
    }

    fn drain(&mut self) -> Vec<String> {
        self.app.pending()
    }

    fn said(&mut self) -> Vec<String> {
        self.app.pending();
        let after_ready = self.app.seen.iter().position(|l| l == "ready").map_or(0, |i| i + 1);
        self.app.seen[after_ready..].to_vec()
    }

    fn title(&self) -> &str {
        &self.title
    }
}
