//! Linux desktops: a private sandbox (X11, sway or GNOME), an X display that already runs, or a
//! running Wayland session (wlroots or GNOME), chosen from the environment when not named.

use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Child, Stdio};

mod reset;

use crate::error::{refuse, DesktopError, Doing, Result};
use crate::DesktopCheck;
use handrail_core::guard::url::UrlPolicy;
use handrail_gnome::{GnomeDesktop, GnomeOptions, PortalOptions, RouteChoice};
use handrail_netguard::{PolicyProxy, CHROMIUM_NO_BYPASS_ARGS};
use handrail_platform::absent::{not_opened_desktop, NoAccessibility, NoOcr};
use handrail_platform::{Accessibility, Desktop, Ocr};
use handrail_sandbox::{ExitWatch, Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_wayland::{Socket, WaylandDesktop, WaylandOptions};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

/// Tesseract reading `languages` (`+`-separated model names; by default English, the desktop
/// locale's language and Thai, those installed) when it can be loaded. Otherwise the accessibility
/// path alone, said once on stderr; but languages asked for by name that cannot be read are an
/// error: the user said which text matters.
pub fn ocr_or_none(who: &str, languages: Option<&str>) -> Result<Box<dyn Ocr>> {
    let mut config = handrail_ocr::TesseractConfig::default();
    if let Some(l) = languages {
        config.languages = l.to_owned();
    }
    let chosen = config.languages.clone();
    let ocr = handrail_ocr::TesseractOcr::new(config);
    match (ocr.unavailable_reason(), languages) {
        (None, _) => {
            eprintln!("{who}: OCR reads {chosen}");
            Ok(Box::new(ocr))
        }
        (Some(why), Some(asked)) => refuse!("--ocr-lang {asked}: OCR cannot read these: {why}"),
        (Some(why), None) => {
            eprintln!("{who}: OCR is unavailable ({why}); continuing with accessibility only");
            Ok(Box::new(NoOcr))
        }
    }
}

/// Starts the URL-policy proxy for the browser a desktop launches and points `launch` at it: every
/// request of that browser, loopback included, is judged by `policy` (with no allowed domains it
/// still refuses credentials in URLs and schemes other than http and https).
pub fn start_browser_proxy(who: &str, policy: &UrlPolicy, launch: &mut LaunchEnv) -> Result<PolicyProxy> {
    let proxy = PolicyProxy::start(policy.clone()).doing("starting the URL-policy proxy for the browser")?;
    launch.browser_args = proxy.chromium_args();
    // QUIC and WebRTC's UDP would go around an HTTP proxy: off.
    launch.browser_args.extend(CHROMIUM_NO_BYPASS_ARGS.map(String::from));
    // Other browsers open_app starts go through it too, or not at all while domains are restricted.
    launch.policy_proxy = Some(proxy.addr());
    launch.refuse_unheld_browsers = !policy.allowed_domains.is_empty();
    eprintln!("{who}: the browser handrail opens goes through the URL-policy proxy on {}", proxy.addr());
    Ok(proxy)
}

/// Which real desktop to connect to, with the options of its backend.
pub enum Session {
    X11(X11Options),
    Wayland(WaylandOptions),
    Gnome(GnomeOptions),
}

impl Session {
    /// The options the desktop's apps are launched with.
    pub fn launch_env(&mut self) -> &mut LaunchEnv {
        match self {
            Session::X11(o) => &mut o.launch,
            Session::Wayland(o) => &mut o.launch,
            Session::Gnome(o) => &mut o.launch,
        }
    }

    /// The session a running sandbox serves, its apps started with `launch`.
    pub fn of_sandbox(sandbox: &Sandbox, launch: LaunchEnv) -> Session {
        match (sandbox.session(), sandbox.wayland_socket()) {
            (handrail_sandbox::Session::Gnome, _) => {
                Session::Gnome(GnomeOptions::new(sandbox.bus_address(), sandbox.pipewire_socket(), launch))
            }
            (_, Some(socket)) => Session::Wayland(WaylandOptions::new(
                Socket(socket.to_owned()),
                sandbox.sway_ipc().map(PathBuf::from),
                launch,
            )),
            (_, None) => Session::X11(X11Options::new(sandbox.display(), launch)),
        }
    }
}

/// Connects to `session`: the one place each Linux backend is opened.
pub fn connect(session: Session, accessibility: Box<dyn Accessibility>, ocr: Box<dyn Ocr>) -> Result<Desktop> {
    match session {
        Session::X11(options) => {
            let display = options.display.clone();
            X11Desktop::connect(options, accessibility, ocr).doing_with(|| format!("connecting to X display {display}"))
        }
        Session::Wayland(options) => {
            let socket = options.socket.0.display().to_string();
            WaylandDesktop::connect(options, accessibility, ocr)
                .doing_with(|| format!("connecting to the Wayland compositor at {socket}"))
        }
        Session::Gnome(options) => {
            let bus = options.bus_address.clone();
            GnomeDesktop::connect(options, accessibility, ocr)
                .doing_with(|| format!("connecting to GNOME on the session bus {bus}"))
        }
    }
}

/// Connects to `session` with a browser held to `policy`: the proxy starts first (the browser's
/// launch options name it) and becomes the desktop's `network`, so it runs as long as the desktop
/// and the engine reports what it refused.
fn guarded_desktop(
    who: &str,
    mut session: Session,
    policy: &UrlPolicy,
    accessibility: Box<dyn Accessibility>,
    ocr: Box<dyn Ocr>,
) -> Result<Desktop> {
    let proxy = start_browser_proxy(who, policy, session.launch_env())?;
    let mut desktop = connect(session, accessibility, ocr)?;
    desktop.network = Box::new(proxy);
    Ok(desktop)
}

/// The desktop of a running sandbox, with AT-SPI, OCR (in `ocr_languages`, else the default ones)
/// and a browser held to `policy`.
pub fn sandbox_desktop(
    sandbox: &Sandbox,
    who: &str,
    policy: &UrlPolicy,
    ocr_languages: Option<&str>,
) -> Result<Desktop> {
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox_browser_profile(sandbox));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    launch.log_dir = Some(sandbox.root().join("logs"));
    let accessibility: Box<dyn Accessibility> = if sandbox.options().accessibility {
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address()))
    } else {
        Box::new(NoAccessibility)
    };
    let session = Session::of_sandbox(sandbox, launch);
    guarded_desktop(who, session, policy, accessibility, ocr_or_none(who, ocr_languages)?)
        .doing("opening the sandbox desktop")
}

/// The managed browser's profile in a sandbox: inside its private root, so it goes with the sandbox,
/// and a reset can replace it.
fn sandbox_browser_profile(sandbox: &Sandbox) -> PathBuf {
    sandbox.root().join("browser")
}

/// AT-SPI on the session bus `DBUS_SESSION_BUS_ADDRESS` names; none (said on stderr) without one.
fn session_bus_accessibility(who: &str) -> Box<dyn Accessibility> {
    match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
        Ok(bus) if !bus.is_empty() => Box::new(handrail_atspi::AtspiSource::new(bus)),
        _ => {
            eprintln!("{who}: DBUS_SESSION_BUS_ADDRESS is not set; the accessibility tree is unavailable");
            Box::new(NoAccessibility)
        }
    }
}

/// An X display that is already running (`:0`, or one a test harness started), with its session bus
/// from `DBUS_SESSION_BUS_ADDRESS` when set, and a browser of its own (fresh profile) held to `policy`.
/// Browsers the user started are not behind the proxy; the address-bar guard still covers them, and
/// the engine undoes an action that took one outside the allowed domains.
pub fn display_desktop(display: &str, who: &str, policy: &UrlPolicy, ocr_languages: Option<&str>) -> Result<Desktop> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let profile = runtime.join(format!("handrail-browser-{}", std::process::id()));
    let launch = LaunchEnv::new(vec![("DISPLAY".into(), display.to_string())], profile);
    let accessibility = session_bus_accessibility(who);
    let ocr = ocr_or_none(who, ocr_languages)?;
    guarded_desktop(who, Session::X11(X11Options::new(display, launch)), policy, accessibility, ocr)
}

/// A running wlroots session (`--wayland-display NAME`: a socket name in `XDG_RUNTIME_DIR`, or a
/// path), with sway's IPC from `SWAYSOCK` when set (window geometry), its session bus from
/// `DBUS_SESSION_BUS_ADDRESS`, and a browser of its own held to `policy`.
pub fn wayland_desktop(name: &str, who: &str, policy: &UrlPolicy, ocr_languages: Option<&str>) -> Result<Desktop> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let socket = Socket::resolve(name, runtime.as_deref()).doing("finding the Wayland socket")?;
    let ipc = std::env::var_os("SWAYSOCK").filter(|s| !s.is_empty()).map(PathBuf::from);
    if ipc.is_none() {
        eprintln!("{who}: SWAYSOCK is not set; windows have no known place on screen (sway's IPC gives it)");
    }
    let profile = runtime.unwrap_or_else(std::env::temp_dir).join(format!("handrail-browser-{}", std::process::id()));
    let vars = vec![("WAYLAND_DISPLAY".into(), socket.0.display().to_string())];
    let launch = LaunchEnv::new(vars, profile);
    let accessibility = session_bus_accessibility(who);
    let ocr = ocr_or_none(who, ocr_languages)?;
    guarded_desktop(who, Session::Wayland(WaylandOptions::new(socket, ipc, launch)), policy, accessibility, ocr)
}

/// A running GNOME session on Wayland: mutter's remote-desktop and screen-cast interfaces and
/// handrail's GNOME Shell extension on the session bus (`DBUS_SESSION_BUS_ADDRESS`), apps started
/// on its `WAYLAND_DISPLAY`, and a browser of its own held to `policy`.
pub fn gnome_desktop(who: &str, route: GnomeRoute, policy: &UrlPolicy, ocr_languages: Option<&str>) -> Result<Desktop> {
    let bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok().filter(|b| !b.is_empty()).ok_or_else(|| {
        DesktopError::Refused("GNOME: DBUS_SESSION_BUS_ADDRESS is not set; run handrail inside the session".into())
    })?;
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let profile = runtime.unwrap_or_else(std::env::temp_dir).join(format!("handrail-browser-{}", std::process::id()));
    let vars = std::env::var("WAYLAND_DISPLAY").map(|w| vec![("WAYLAND_DISPLAY".to_owned(), w)]).unwrap_or_default();
    let launch = LaunchEnv::new(vars, profile);
    let accessibility: Box<dyn Accessibility> = Box::new(handrail_atspi::AtspiSource::new(bus.clone()));
    let ocr = ocr_or_none(who, ocr_languages)?;
    let mut options = GnomeOptions::new(bus, None, launch);
    options.route = route.choice();
    guarded_desktop(who, Session::Gnome(options), policy, accessibility, ocr)
}

/// Which running desktop the environment describes, when none is named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunningSession {
    /// GNOME on Wayland: mutter's interfaces and handrail's extension.
    Gnome,
    /// A wlroots compositor, by its socket name.
    Wlroots(String),
    /// An X display.
    X11(String),
}

/// Reads the session from the variables a desktop session sets (`get` is the environment): GNOME
/// when `XDG_CURRENT_DESKTOP` names it on Wayland, a wlroots compositor when sway's IPC socket is
/// set or the desktop is one of theirs, X11 from `DISPLAY` otherwise (XWayland included, where
/// nothing better is known). KDE Plasma on Wayland is refused with the reason: its backend does not
/// exist yet, and XWayland would reach only X11 apps.
pub fn running_session(get: impl Fn(&str) -> Option<String>) -> Result<RunningSession> {
    let var = |k: &str| get(k).filter(|v| !v.is_empty());
    let desktops: Vec<String> =
        var("XDG_CURRENT_DESKTOP").unwrap_or_default().split(':').map(|d| d.to_ascii_lowercase()).collect();
    let is = |name: &str| desktops.iter().any(|d| d == name);
    if let Some(wayland) = var("WAYLAND_DISPLAY") {
        if is("gnome") {
            return Ok(RunningSession::Gnome);
        }
        if var("SWAYSOCK").is_some() || ["sway", "hyprland", "river", "labwc", "wayfire"].iter().any(|d| is(d)) {
            return Ok(RunningSession::Wlroots(wayland));
        }
        if is("kde") {
            refuse!(
                "this is KDE Plasma on Wayland, which handrail cannot drive yet (its backend is not built); \
                 use --sandbox, or an X11 session"
            );
        }
        if var("DISPLAY").is_none() {
            refuse!(
                "a Wayland session of a desktop handrail does not know ({:?}): name it with --wayland-display \
                 for a wlroots compositor, or use --sandbox",
                var("XDG_CURRENT_DESKTOP").unwrap_or_default()
            );
        }
    }
    match var("DISPLAY") {
        Some(display) => Ok(RunningSession::X11(display)),
        None => refuse!("no desktop: neither WAYLAND_DISPLAY nor DISPLAY is set; pass --display, or use --sandbox"),
    }
}

/// Which desktop a command works on.
#[derive(Debug, Clone, Default)]
pub struct DesktopChoice {
    /// A private sandbox desktop (else `display`, else `$DISPLAY`).
    pub sandbox: bool,
    /// Which desktop the sandbox runs.
    pub session: handrail_sandbox::Session,
    /// A running wlroots session to attach to (a socket name or path).
    pub wayland_display: Option<String>,
    pub size: (u32, u32),
    /// Offer OpenGL (GLX) in a sandbox.
    pub opengl: bool,
    /// GNOME sandboxes: the root file system GNOME Shell runs from (`None`: the machine's).
    pub gnome_root: Option<std::path::PathBuf>,
    pub display: Option<String>,
    /// A program (and its arguments) to start inside the sandbox first.
    pub launch: Vec<String>,
    /// OCR's languages (`--ocr-lang`), else the default ones.
    pub ocr_languages: Option<String>,
    /// A running GNOME session: through mutter's interfaces, the desktop portal, or whichever is
    /// reachable (`--gnome-route`).
    pub gnome_route: GnomeRoute,
}

/// How handrail reaches a running GNOME session (`--gnome-route`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GnomeRoute {
    /// mutter's own interfaces when they answer (no dialog), else the desktop portal.
    #[default]
    Auto,
    Mutter,
    /// The desktop portal: GNOME asks the person once (the restore token is kept in
    /// `$XDG_STATE_HOME/handrail/portal-restore-token`).
    Portal,
}

impl GnomeRoute {
    /// `auto`, `mutter` or `portal`.
    pub fn parse(s: &str) -> Result<GnomeRoute, String> {
        match s {
            "auto" => Ok(GnomeRoute::Auto),
            "mutter" => Ok(GnomeRoute::Mutter),
            "portal" => Ok(GnomeRoute::Portal),
            other => Err(format!("{other:?} is not a GNOME route: auto, mutter or portal")),
        }
    }

    /// The route for the person's session: the portal's restore token kept in their state home.
    fn choice(self) -> RouteChoice {
        let state = std::env::var_os("XDG_STATE_HOME").map(PathBuf::from);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        self.choice_in(state.as_deref(), home.as_deref())
    }

    fn choice_in(self, state: Option<&std::path::Path>, home: Option<&std::path::Path>) -> RouteChoice {
        let portal = PortalOptions {
            token_file: handrail_portal::TokenFile::in_state_home(state, home),
            ..PortalOptions::default()
        };
        match self {
            GnomeRoute::Auto => RouteChoice::Auto(portal),
            GnomeRoute::Mutter => RouteChoice::Mutter,
            GnomeRoute::Portal => RouteChoice::Portal(portal),
        }
    }
}

/// What a command started and must stop.
#[derive(Debug)]
pub struct Running {
    sandbox: Option<Sandbox>,
    launched: Option<Child>,
}

impl Running {
    /// Nothing started (the simulated desktop, a desktop never opened).
    pub fn none() -> Running {
        Running { sandbox: None, launched: None }
    }

    /// What resets this desktop between tasks: only a private sandbox, whose apps are handrail's to
    /// close. Built now, before any app runs, so the home it remembers is the sandbox's own.
    pub fn reset_hook(&self) -> Result<Option<Box<dyn handrail_calls::DesktopReset>>> {
        let Some(sandbox) = &self.sandbox else { return Ok(None) };
        let tidy = if sandbox.is_wayland() {
            None
        } else {
            Some(
                handrail_x11::tidy::Tidy::open(&sandbox.display())
                    .doing_with(|| format!("connecting to the sandbox display {}", sandbox.display()))?,
            )
        };
        Ok(Some(Box::new(reset::SandboxReset::new(
            sandbox.process_handle(),
            sandbox_browser_profile(sandbox),
            sandbox.home().to_owned(),
            tidy,
        ))))
    }

    /// A harness's hands in the sandbox (files in its home, commands in its session); `None` for
    /// other desktops.
    pub fn task_setup(&self) -> Option<handrail_sandbox::TaskSetup> {
        self.sandbox.as_ref().map(|s| s.task_setup())
    }

    /// A second view of the sandbox's desktop for a harness's own reads (screenshots, the
    /// accessibility tree) beside the engine's, without OCR or a browser of its own; `None` for
    /// other desktops.
    pub fn harness_view(&self) -> Option<Result<Desktop>> {
        let sandbox = self.sandbox.as_ref()?;
        let launch = LaunchEnv::new(sandbox.env(), sandbox_browser_profile(sandbox));
        let accessibility: Box<dyn Accessibility> = if sandbox.options().accessibility {
            Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address()))
        } else {
            Box::new(NoAccessibility)
        };
        let session = Session::of_sandbox(sandbox, launch);
        Some(connect(session, accessibility, Box::new(NoOcr)).doing("opening a second view of the sandbox desktop"))
    }

    /// Whether the sandbox's own processes still run (for liveness); `None` for other desktops.
    pub fn desktop_check(&self) -> Option<DesktopCheck> {
        let processes = self.sandbox.as_ref()?.process_handle();
        Some(std::sync::Arc::new(move || processes.check_desktop().map_err(|e| e.to_string())))
    }

    /// For a sandbox: a watch on its own processes and the name of its session, so the desktop
    /// disappearing underneath can be said (see [`watch_sandbox`]).
    pub fn exit_watch(&mut self) -> Option<(ExitWatch, String)> {
        let sandbox = self.sandbox.as_mut()?;
        let name = sandbox.session_name();
        match sandbox.exit_watch() {
            Ok(watch) => Some((watch, name)),
            Err(e) => {
                log::warn!("cannot watch the sandbox's processes: {e}");
                None
            }
        }
    }

    pub fn stop(mut self) -> Result<()> {
        if let Some(mut child) = self.launched.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(sandbox) = self.sandbox.take() {
            sandbox.stop().doing("stopping the sandbox desktop")?;
        }
        Ok(())
    }
}

/// Says on stderr, from a thread of its own, when a process the sandbox desktop needs exits while the
/// command still runs (a crash, an OOM kill, someone's `kill`): without its X server or compositor
/// every call fails, and a person reading the log should not have to guess why.
pub fn watch_sandbox(who: &'static str, running: &mut Running) {
    let Some((mut watch, session)) = running.exit_watch() else { return };
    let spawned = std::thread::Builder::new().name("sandbox-watch".into()).spawn(move || {
        while let Some(exited) = watch.wait() {
            let how = if exited.how.is_empty() { String::new() } else { format!(": {}", exited.how) };
            if exited.desktop_gone() {
                eprintln!(
                    "{who}: the private desktop {session} is gone: its {} ({}) exited{how}; every call now fails \
                     until {who} is restarted",
                    exited.role(),
                    exited.process,
                );
            } else {
                eprintln!(
                    "{who}: the private desktop {session} lost its {} ({} exited{how})",
                    exited.role(),
                    exited.process
                );
            }
        }
    });
    if let Err(e) = spawned {
        log::warn!("cannot watch the sandbox's processes: {e}");
    }
}

/// Opens the chosen desktop; the browser it launches is held to `policy` (see [`start_browser_proxy`]).
/// A model that cannot see gets one that is never opened: no sandbox, no display connection, no proxy,
/// since nothing it asks may run.
pub fn open_desktop(who: &str, choice: &DesktopChoice, sees: bool, policy: &UrlPolicy) -> Result<(Desktop, Running)> {
    let mut running = Running::none();
    if !sees {
        eprintln!("{who}: the main model cannot see (or is not declared); the desktop is not opened");
        return Ok((not_opened_desktop(), running));
    }
    if choice.sandbox {
        let opts = SandboxOptions {
            size: choice.size,
            session: choice.session,
            opengl: choice.opengl,
            gnome_root: choice.gnome_root.clone(),
            ..SandboxOptions::default()
        };
        let sandbox = Sandbox::start(opts).doing("starting the sandbox desktop")?;
        eprintln!("{who}: private desktop {} is up", sandbox.session_name());
        let desktop = sandbox_desktop(&sandbox, who, policy, choice.ocr_languages.as_deref());
        if let Some((program, rest)) = choice.launch.split_first() {
            // Its output goes to stderr: stdout may be a protocol channel.
            let stderr = std::io::stderr().as_fd().try_clone_to_owned().doing("duplicating stderr")?;
            let child = sandbox
                .command(program)
                .args(rest)
                .stdin(Stdio::null())
                .stdout(Stdio::from(stderr))
                .spawn()
                .doing_with(|| format!("starting {program} in the sandbox"));
            match child {
                Ok(c) => running.launched = Some(c),
                Err(e) => {
                    running.sandbox = Some(sandbox);
                    let _ = running.stop();
                    return Err(e);
                }
            }
        }
        running.sandbox = Some(sandbox);
        return match desktop {
            Ok(d) => Ok((d, running)),
            Err(e) => {
                let _ = running.stop();
                Err(e)
            }
        };
    }
    if let Some(name) = &choice.wayland_display {
        return Ok((wayland_desktop(name, who, policy, choice.ocr_languages.as_deref())?, running));
    }
    if let Some(display) = &choice.display {
        return Ok((display_desktop(display, who, policy, choice.ocr_languages.as_deref())?, running));
    }
    let ocr = choice.ocr_languages.as_deref();
    let desktop = match running_session(|k| std::env::var(k).ok())? {
        RunningSession::Gnome => {
            eprintln!("{who}: serving the running GNOME session (Wayland; XDG_CURRENT_DESKTOP names GNOME)");
            gnome_desktop(who, choice.gnome_route, policy, ocr)?
        }
        RunningSession::Wlroots(name) => {
            eprintln!("{who}: serving the running wlroots session on {name}");
            wayland_desktop(&name, who, policy, ocr)?
        }
        RunningSession::X11(display) => {
            eprintln!("{who}: serving the X display {display}");
            display_desktop(&display, who, policy, ocr)?
        }
    };
    Ok((desktop, running))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gnome_route_is_named_and_keeps_the_portals_token_in_the_state_home() {
        assert_eq!(GnomeRoute::parse("portal"), Ok(GnomeRoute::Portal));
        assert_eq!(GnomeRoute::parse("mutter"), Ok(GnomeRoute::Mutter));
        assert_eq!(GnomeRoute::parse("auto"), Ok(GnomeRoute::Auto));
        let err = GnomeRoute::parse("Portal").expect_err("names are exact");
        assert!(err.contains("auto, mutter or portal"), "{err}");
        let home = std::path::Path::new("/home/p");
        let RouteChoice::Portal(p) = GnomeRoute::Portal.choice_in(None, Some(home)) else { panic!("portal") };
        let token = p.token_file.expect("a token file");
        assert_eq!(token.0, home.join(".local/state/handrail/portal-restore-token"));
        assert!(matches!(GnomeRoute::Mutter.choice_in(None, Some(home)), RouteChoice::Mutter));
        assert!(matches!(GnomeRoute::Auto.choice_in(None, Some(home)), RouteChoice::Auto(_)));
    }

    fn session(vars: &[(&str, &str)]) -> Result<RunningSession> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        running_session(move |k| vars.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_running_desktop_is_read_from_the_session_variables() {
        let ubuntu = [("XDG_CURRENT_DESKTOP", "ubuntu:GNOME"), ("WAYLAND_DISPLAY", "wayland-0"), ("DISPLAY", ":0")];
        assert_eq!(session(&ubuntu).expect("GNOME"), RunningSession::Gnome);
        let sway = [("XDG_CURRENT_DESKTOP", "sway"), ("WAYLAND_DISPLAY", "wayland-1"), ("SWAYSOCK", "/run/s.sock")];
        assert_eq!(session(&sway).expect("sway"), RunningSession::Wlroots("wayland-1".into()));
        let hyprland = [("XDG_CURRENT_DESKTOP", "Hyprland"), ("WAYLAND_DISPLAY", "wayland-1")];
        assert_eq!(session(&hyprland).expect("Hyprland"), RunningSession::Wlroots("wayland-1".into()));
        let x11 = [("XDG_CURRENT_DESKTOP", "GNOME"), ("DISPLAY", ":1")];
        assert_eq!(session(&x11).expect("GNOME on X11"), RunningSession::X11(":1".into()));
        let xfce = [("XDG_CURRENT_DESKTOP", "XFCE"), ("DISPLAY", ":0"), ("WAYLAND_DISPLAY", "")];
        assert_eq!(session(&xfce).expect("X11"), RunningSession::X11(":0".into()));
    }

    #[test]
    fn desktops_that_cannot_be_driven_are_refused_with_the_reason() {
        let kde = [("XDG_CURRENT_DESKTOP", "KDE"), ("WAYLAND_DISPLAY", "wayland-0"), ("DISPLAY", ":1")];
        let e = session(&kde).expect_err("KDE").to_string();
        assert!(e.contains("KDE Plasma on Wayland"), "{e}");
        let unknown = [("XDG_CURRENT_DESKTOP", "COSMIC"), ("WAYLAND_DISPLAY", "wayland-0")];
        let e = session(&unknown).expect_err("unknown").to_string();
        assert!(e.contains("COSMIC") && e.contains("--wayland-display"), "{e}");
        let e = session(&[]).expect_err("nothing").to_string();
        assert!(e.contains("neither WAYLAND_DISPLAY nor DISPLAY"), "{e}");
    }
}
