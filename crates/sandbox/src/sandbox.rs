//! The sandbox itself: start-up in order (X server → session bus → accessibility bus → window manager →
//! background), the environment apps get, and teardown.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs::{self, DirBuilder, File};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use log::{debug, info, warn};

use crate::apps::SandboxProcesses;
use crate::error::SandboxError;
use crate::gnome;
use crate::procs::{
    self, cloexec_pipe, identity, marked_processes, pidfd_open, poll_readable, run_helper, send_signal, tail_file,
    tie_to_parent, Line, LineReader, MARKER_VAR, POLL,
};
use crate::reaper;
use crate::signals::SignalWatcher;
use crate::sockets;
use crate::watch::ExitWatch;
use crate::wayland;
use crate::x11;

/// How a sandbox is set up. `SandboxOptions::default()` gives a 1280x800x24 desktop with a window
/// manager, accessibility and a light grey background on the first free display ≥ :90.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxOptions {
    /// Screen size in pixels (width, height); each 16..=8192.
    pub size: (u32, u32),
    /// Colour depth: 8, 15, 16 or 24.
    pub depth: u32,
    /// Start openbox (EWMH: focus on click, `_NET_ACTIVE_WINDOW`). Without it keys go to whatever
    /// window is under the pointer.
    pub window_manager: bool,
    /// Start the AT-SPI accessibility bus (and tell apps to use it).
    pub accessibility: bool,
    /// Root window colour for `xsetroot -solid` (an X colour name or `#rrggbb`). Empty keeps X's
    /// default black, which OCR reads badly.
    pub background: String,
    /// X display number; None picks the first N ≥ 90 with neither /tmp/.X11-unix/XN nor /tmp/.XN-lock.
    pub display: Option<u32>,
    /// Bound for each start-up step (the X server, the bus, the accessibility bus, the WM).
    pub step_timeout: Duration,
    /// Which desktop runs: X11 (Xvfb, openbox, xsetroot), or a Wayland one — a headless sway (see
    /// the `wayland` module) or GNOME Shell (see the `gnome` module). `display`, `depth` and
    /// `window_manager` apply to X11 only.
    pub session: Session,
    /// The unprivileged user sway runs as when the owner is root (default: `handrail-desktop`, else
    /// `nobody`); ignored for other owners, whose sway runs as themselves.
    pub desktop_user: Option<String>,
    /// Give direct children PR_SET_PDEATHSIG(SIGTERM). Note that Linux sends it when the **thread** that
    /// spawned the child exits, not the process: start the sandbox (and spawn apps) from a thread that
    /// lives as long as the sandbox, or turn this off and rely on the reaper.
    pub parent_death_signal: bool,
    /// Offer OpenGL to apps through the X server's GLX extension (Mesa's software renderer). Off by
    /// default: browsers handrail starts draw without a GPU and toolkits fall back to software, while
    /// GLX costs each desktop ~55 MB of RSS (Mesa's LLVM mapped into the X server, 11 MB of it
    /// private). Turn it on for apps that need OpenGL (3D programs, some Qt Quick apps). X11 only.
    /// Off, GTK 4 draws with cairo on every session (`GSK_RENDERER=cairo`) instead of OpenGL on
    /// Mesa's CPU renderer: its first window in a new sandbox came up in 0.36 s instead of 3.5 s
    /// (shaders compiled into the sandbox's empty cache), and every frame costs less.
    pub opengl: bool,
    /// GNOME only: run GNOME Shell, PipeWire and WirePlumber from this root file system instead of
    /// the machine's own — a newer GNOME beside an older system (a Debian 13 tree with GNOME 48:
    /// `scripts/setup-trixie`). They run through bubblewrap with the tree as `/` and the
    /// sandbox's own directory bound at its path (buses, sockets, home and logs live there);
    /// everything else (the session and system buses, the logind stand-in, the apps) stays the
    /// machine's.
    pub gnome_root: Option<PathBuf>,
    /// GNOME only: also run the desktop portal (`xdg-desktop-portal`, GNOME's backend of it and the
    /// permission store, from `gnome_root` when given), as a GNOME session has it: what handrail's
    /// portal route asks, and what shows its consent dialog.
    pub gnome_portal: bool,
}

/// Which desktop a sandbox runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Session {
    /// An X server (Xvfb) with openbox.
    #[default]
    X11,
    /// Wayland: a headless sway (wlroots).
    Sway,
    /// Wayland: GNOME, a headless GNOME Shell with handrail's extension, PipeWire and WirePlumber
    /// for its screen casts, and a logind stand-in on a private system bus.
    Gnome,
}

impl Session {
    pub fn is_wayland(self) -> bool {
        matches!(self, Session::Sway | Session::Gnome)
    }
}

impl Default for SandboxOptions {
    fn default() -> Self {
        SandboxOptions {
            size: (1280, 800),
            depth: 24,
            window_manager: true,
            accessibility: true,
            background: "#e0e0e0".to_owned(),
            display: None,
            step_timeout: Duration::from_secs(10),
            session: Session::X11,
            desktop_user: None,
            parent_death_signal: true,
            opengl: false,
            gnome_root: None,
            gnome_portal: false,
        }
    }
}

/// How long each start-up step took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StartTimings {
    /// Creating the private directories and the reaper.
    pub prepare: Duration,
    /// Xvfb until it completed an X connection setup.
    pub x_server: Duration,
    /// dbus-daemon until it printed its address.
    pub session_bus: Duration,
    /// at-spi-bus-launcher until `org.a11y.Bus.GetAddress` answered (None if not requested).
    pub accessibility: Option<Duration>,
    /// openbox until it managed windows (its `--startup` command ran; None if not requested).
    pub window_manager: Option<Duration>,
    /// xsetroot.
    pub background: Duration,
    /// The compositor until it served clients: sway's IPC answered with an active output, or GNOME
    /// Shell served remote desktops and handrail's extension with its overview closed (None for X11
    /// sandboxes).
    pub compositor: Option<Duration>,
    /// PipeWire and WirePlumber until PipeWire's socket existed (GNOME sandboxes only).
    pub media: Option<Duration>,
    /// The private system bus and the logind stand-in until it owned its name (GNOME sandboxes
    /// only).
    pub system_bus: Option<Duration>,
    /// Everything, from the call to `start` to its return.
    pub total: Duration,
}

/// What teardown did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopReport {
    /// Wall time of the teardown.
    pub duration: Duration,
    /// Every process that was sent SIGTERM.
    pub terminated: Vec<u32>,
    /// Processes that ignored SIGTERM for ~1 s and were sent SIGKILL.
    pub killed: Vec<u32>,
    /// Whether a lock or socket left by the X server had to be removed.
    pub removed_stale_x_files: bool,
    /// Socket files the sandbox's processes listened on outside its directory and left behind when
    /// they were ended (LibreOffice's `/tmp/OSL_PIPE_*`), removed.
    pub removed_sockets: Vec<PathBuf>,
}

/// Why [`Sandbox::run_until_signal`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shutdown {
    /// SIGINT, SIGTERM or SIGHUP arrived.
    Signal(i32),
    /// One of the sandbox's own processes (X server, bus, …) exited on its own.
    Exited {
        /// Which one.
        process: &'static str,
        /// How it ended.
        status: ExitStatus,
    },
}

/// `env` on `cmd`, after removing [`REMOVED_ENV`].
pub(crate) fn put_env(cmd: &mut Command, env: &[(String, String)]) {
    for var in REMOVED_ENV {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
}

/// Variables removed from every sandbox process's environment because they would point apps at the
/// user's real session (Wayland display, X authority, accessibility bus, session manager) or switch
/// accessibility off.
pub const REMOVED_ENV: &[&str] = &[
    "WAYLAND_DISPLAY",
    "WAYLAND_SOCKET",
    "XAUTHORITY",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_STARTER_ADDRESS",
    "DBUS_STARTER_BUS_TYPE",
    "AT_SPI_BUS_ADDRESS",
    "SESSION_MANAGER",
    "GTK_A11Y",
    "XDG_SESSION_ID",
    "XDG_SEAT",
    "XDG_VTNR",
    "XDG_CURRENT_DESKTOP",
    "XDG_SESSION_DESKTOP",
    "DESKTOP_SESSION",
    "GNOME_KEYRING_CONTROL",
];

struct Tracked {
    name: &'static str,
    child: Child,
}

/// Paths of the programs a start needs, all located before anything is started.
struct Programs {
    xvfb: Option<PathBuf>,
    sway: Option<PathBuf>,
    /// gnome-shell, pipewire, wireplumber and dbusmock's Python (GNOME sandboxes).
    gnome: Option<gnome::Programs>,
    dbus_daemon: PathBuf,
    dbus_send: Option<PathBuf>,
    a11y_launcher: Option<PathBuf>,
    openbox: Option<PathBuf>,
    /// Run by openbox once it manages windows (see `start_window_manager`).
    touch: Option<PathBuf>,
    xsetroot: Option<PathBuf>,
}

fn require(program: &str, package: &'static str) -> Result<PathBuf, SandboxError> {
    procs::which(program).ok_or_else(|| SandboxError::MissingProgram {
        program: program.to_owned(),
        package,
        searched: "PATH".to_owned(),
    })
}

/// at-spi2-core installs its launcher outside PATH, in a place that differs between distributions.
const A11Y_LAUNCHER_DIRS: &[&str] = &[
    "/usr/libexec",
    "/usr/lib/at-spi2-core",
    "/usr/libexec/at-spi2-core",
    "/usr/lib",
    "/usr/lib/x86_64-linux-gnu/at-spi2-core",
    "/usr/lib/aarch64-linux-gnu/at-spi2-core",
];

fn find_a11y_launcher() -> Result<PathBuf, SandboxError> {
    const NAME: &str = "at-spi-bus-launcher";
    A11Y_LAUNCHER_DIRS
        .iter()
        .map(|d| Path::new(d).join(NAME))
        .find(|p| procs::is_executable(p))
        .or_else(|| procs::which(NAME))
        .ok_or_else(|| SandboxError::MissingProgram {
            program: NAME.to_owned(),
            package: "at-spi2-core",
            searched: format!("{} and PATH", A11Y_LAUNCHER_DIRS.join(", ")),
        })
}

impl Programs {
    fn locate(opts: &SandboxOptions) -> Result<Programs, SandboxError> {
        let a11y = opts.accessibility;
        if opts.session.is_wayland() {
            let gnome = opts.session == Session::Gnome;
            return Ok(Programs {
                xvfb: None,
                sway: if gnome { None } else { Some(require("sway", "sway")?) },
                gnome: if gnome {
                    let root_fs = match &opts.gnome_root {
                        Some(root) => Some(gnome::RootFs::open(require("bwrap", "bubblewrap")?, root.clone())?),
                        None => None,
                    };
                    let program = |name: &str, package: &'static str| match &root_fs {
                        Some(fs) => fs.require(name, package),
                        None => require(name, package),
                    };
                    Some(gnome::Programs {
                        gnome_shell: program("gnome-shell", "gnome-shell")?,
                        pipewire: program("pipewire", "pipewire")?,
                        wireplumber: program("wireplumber", "wireplumber")?,
                        python: gnome::find_dbusmock_python(procs::which("python3")).ok_or_else(|| {
                            SandboxError::MissingProgram {
                                program: "python3 -m dbusmock".to_owned(),
                                package: "python3-dbusmock",
                                searched: "/usr/bin/python3 and python3 on PATH".to_owned(),
                            }
                        })?,
                        dbus_send: require("dbus-send", "dbus")?,
                        portal: if opts.gnome_portal {
                            let libexec = |name: &str, package: &'static str| match &root_fs {
                                Some(fs) => fs.require_libexec(name, package),
                                None => gnome::require_libexec(name, package),
                            };
                            Some(gnome::PortalPrograms {
                                permission_store: libexec("xdg-permission-store", "xdg-desktop-portal")?,
                                backend: libexec("xdg-desktop-portal-gnome", "xdg-desktop-portal-gnome")?,
                                portal: libexec("xdg-desktop-portal", "xdg-desktop-portal")?,
                            })
                        } else {
                            None
                        },
                        root_fs,
                    })
                } else {
                    None
                },
                dbus_daemon: require("dbus-daemon", "dbus")?,
                dbus_send: if a11y { Some(require("dbus-send", "dbus")?) } else { None },
                a11y_launcher: if a11y { Some(find_a11y_launcher()?) } else { None },
                openbox: None,
                touch: None,
                xsetroot: None,
            });
        }
        Ok(Programs {
            xvfb: Some(require("Xvfb", "xvfb")?),
            sway: None,
            gnome: None,
            dbus_daemon: require("dbus-daemon", "dbus")?,
            dbus_send: if a11y { Some(require("dbus-send", "dbus")?) } else { None },
            a11y_launcher: if a11y { Some(find_a11y_launcher()?) } else { None },
            openbox: if opts.window_manager { Some(require("openbox", "openbox")?) } else { None },
            touch: if opts.window_manager { Some(require("touch", "coreutils")?) } else { None },
            xsetroot: if opts.background.is_empty() { None } else { Some(require("xsetroot", "x11-xserver-utils")?) },
        })
    }
}

fn validate(opts: &SandboxOptions) -> Result<(), SandboxError> {
    let (w, h) = opts.size;
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(SandboxError::InvalidOption(format!("size {w}x{h}: each side must be 16..=8192")));
    }
    if ![8, 15, 16, 24].contains(&opts.depth) {
        return Err(SandboxError::InvalidOption(format!("depth {}: use 8, 15, 16 or 24", opts.depth)));
    }
    let bg = &opts.background;
    // Passed as one argv entry (no shell), but a leading '-' would be read as an xsetroot option.
    let ok =
        bg.len() <= 64 && !bg.starts_with('-') && bg.chars().all(|c| c.is_ascii_alphanumeric() || " #".contains(c));
    if !ok {
        return Err(SandboxError::InvalidOption(format!(
            "background {bg:?}: use an X colour name or #rrggbb (letters, digits, '#', spaces)"
        )));
    }
    if let Some(n) = opts.display {
        if n > 65535 {
            return Err(SandboxError::InvalidOption(format!("display :{n}: must be 0..=65535")));
        }
    }
    if opts.step_timeout.is_zero() {
        return Err(SandboxError::InvalidOption("step_timeout must be > 0".into()));
    }
    if let Some(root) = &opts.gnome_root {
        if opts.session != Session::Gnome {
            return Err(SandboxError::InvalidOption(format!(
                "a GNOME root file system ({}) is for GNOME sessions only",
                root.display()
            )));
        }
        if !root.is_absolute() {
            return Err(SandboxError::InvalidOption(format!("GNOME root {}: give an absolute path", root.display())));
        }
    }
    Ok(())
}

/// A unique id: pid, time and a counter, so two sandboxes never share a marker or a directory.
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{}-{:x}-{}", std::process::id(), nanos & 0xffff_ffff_ffff, COUNTER.fetch_add(1, Ordering::Relaxed))
}

fn mkdir_private(path: &Path) -> Result<(), SandboxError> {
    DirBuilder::new()
        .mode(0o700)
        .create(path)
        .map_err(|e| SandboxError::io(format!("creating {}", path.display()), e))?;
    // The umask can only remove bits, but be explicit: the runtime dir must be exactly 0700.
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))
        .map_err(|e| SandboxError::io(format!("chmod 700 {}", path.display()), e))
}

/// Unix socket paths are limited to 108 bytes; the accessibility bus lives at
/// `$XDG_RUNTIME_DIR/at-spi/bus_<display>`, so keep the root short (fall back to /tmp if TMPDIR is long).
/// `path` quoted for a command line that openbox splits the way a POSIX shell would
/// (`g_shell_parse_argv`): inside single quotes only `'` itself needs care.
fn shell_quote(path: &Path) -> Result<String, SandboxError> {
    let text = path.to_str().ok_or_else(|| {
        SandboxError::InvalidOption(format!("{} is not UTF-8 and cannot be passed to openbox", path.display()))
    })?;
    Ok(format!("'{}'", text.replace('\'', r"'\''")))
}

fn temp_base() -> PathBuf {
    let base = std::env::temp_dir();
    if base.as_os_str().len() <= 40 {
        base
    } else {
        PathBuf::from("/tmp")
    }
}

/// A private virtual desktop: an Xvfb display with its own session bus, accessibility bus and window
/// manager, and private HOME/XDG directories. Everything it starts is stopped by [`Sandbox::stop`] or
/// on drop; if the owning process dies abruptly, a reaper process cleans up.
pub struct Sandbox {
    id: String,
    opts: SandboxOptions,
    root: PathBuf,
    runtime_dir: PathBuf,
    home: PathBuf,
    config_home: PathBuf,
    data_home: PathBuf,
    cache_home: PathBuf,
    /// The sandbox's TMPDIR: what its apps leave in their temporary directory (Chromium's singleton
    /// socket, for one, when it is killed) goes with the sandbox instead of piling up in /tmp.
    temp_dir: PathBuf,
    logs: PathBuf,
    display: Option<u32>,
    /// The Wayland session's socket and sway's IPC socket (Wayland sandboxes only).
    wayland_socket: Option<PathBuf>,
    sway_ipc: Option<PathBuf>,
    bus_address: Option<String>,
    /// The private system bus (GNOME sandboxes).
    system_bus_address: Option<String>,
    a11y_address: Option<String>,
    infra: Vec<Tracked>,
    apps: Mutex<Vec<u32>>,
    reaper: Option<Child>,
    // The only write end of the reaper's pipe. Closing it (our death) wakes the reaper.
    reaper_pipe: Option<OwnedFd>,
    // Both ends of the pipe every `ExitWatch` listens on; closed when teardown begins, which tells the
    // watches the exits that follow are expected.
    watch_stop: Option<(OwnedFd, OwnedFd)>,
    timings: StartTimings,
    stopped: bool,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("id", &self.id)
            .field("display", &self.display)
            .field("root", &self.root)
            .field("pids", &self.pids())
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Start a sandbox. Takes ~0.2–0.5 s (mostly Xvfb loading its keymap). On error everything
    /// already started is torn down before returning.
    pub fn start(opts: SandboxOptions) -> Result<Sandbox, SandboxError> {
        let t0 = Instant::now();
        validate(&opts)?;
        // Locate every program first so a missing package fails before anything runs.
        let progs = Programs::locate(&opts)?;

        let id = new_id();
        let root = temp_base().join(format!("handrail-sandbox-{id}"));
        mkdir_private(&root)?;
        let home = root.join("home");
        let mut sb = Sandbox {
            runtime_dir: root.join("run"),
            config_home: home.join(".config"),
            data_home: home.join(".local/share"),
            cache_home: home.join(".cache"),
            temp_dir: root.join("tmp"),
            logs: root.join("logs"),
            home,
            root,
            id,
            opts,
            display: None,
            wayland_socket: None,
            sway_ipc: None,
            bus_address: None,
            system_bus_address: None,
            a11y_address: None,
            infra: Vec::new(),
            apps: Mutex::new(Vec::new()),
            reaper: None,
            reaper_pipe: None,
            watch_stop: None,
            timings: StartTimings::default(),
            stopped: false,
        };
        // From here on, an early return drops `sb`, which tears down whatever was started.
        for dir in [&sb.runtime_dir, &sb.home, &sb.logs, &sb.temp_dir] {
            mkdir_private(dir)?;
        }
        for dir in [&sb.config_home, &sb.data_home, &sb.cache_home] {
            fs::create_dir_all(dir).map_err(|e| SandboxError::io(format!("creating {}", dir.display()), e))?;
        }
        // The reaper first, so that even a crash in the middle of start-up is cleaned up.
        sb.arm_reaper()?;
        sb.timings.prepare = t0.elapsed();

        if let Some(xvfb) = &progs.xvfb {
            let t = Instant::now();
            sb.start_x_server(xvfb)?;
            sb.timings.x_server = t.elapsed();
        }

        let t = Instant::now();
        sb.start_session_bus(&progs.dbus_daemon)?;
        sb.timings.session_bus = t.elapsed();
        if let Some(g) = &progs.gnome {
            let t = Instant::now();
            sb.start_system_bus(&progs.dbus_daemon, g)?;
            sb.timings.system_bus = Some(t.elapsed());
            let t = Instant::now();
            sb.start_media(g)?;
            sb.timings.media = Some(t.elapsed());
        }

        if let (Some(launcher), Some(dbus_send)) = (&progs.a11y_launcher, &progs.dbus_send) {
            let t = Instant::now();
            sb.start_accessibility(launcher, dbus_send)?;
            sb.timings.accessibility = Some(t.elapsed());
        }
        if let (Some(openbox), Some(touch)) = (&progs.openbox, &progs.touch) {
            let t = Instant::now();
            sb.start_window_manager(openbox, touch)?;
            sb.timings.window_manager = Some(t.elapsed());
        }
        if let Some(xsetroot) = &progs.xsetroot {
            let t = Instant::now();
            sb.set_background(xsetroot)?;
            sb.timings.background = t.elapsed();
        }
        if let Some(sway) = &progs.sway {
            let t = Instant::now();
            sb.start_compositor(sway)?;
            sb.timings.compositor = Some(t.elapsed());
        }
        if let Some(g) = &progs.gnome {
            let t = Instant::now();
            sb.start_shell(g)?;
            sb.timings.compositor = Some(t.elapsed());
            if let Some(portal) = &g.portal {
                sb.start_portal(g, portal)?;
            }
        }
        sb.timings.total = t0.elapsed();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let opt_ms = |d: Option<Duration>| d.map_or_else(|| "off".to_owned(), |d| format!("{:.0} ms", ms(d)));
        info!(
            "sandbox {} ready in {:.0} ms (prepare {:.0} ms, X {:.0} ms, bus {:.0} ms, a11y {}, wm {}, background {:.0} ms, compositor {})",
            sb.session_name(),
            ms(sb.timings.total),
            ms(sb.timings.prepare),
            ms(sb.timings.x_server),
            ms(sb.timings.session_bus),
            opt_ms(sb.timings.accessibility),
            opt_ms(sb.timings.window_manager),
            ms(sb.timings.background),
            opt_ms(sb.timings.compositor),
        );
        Ok(sb)
    }

    fn arm_reaper(&mut self) -> Result<(), SandboxError> {
        let (read, write) = procs::cloexec_pipe().map_err(|e| SandboxError::io("creating the reaper pipe", e))?;
        let child = reaper::spawn(&self.id, &self.root, read).map_err(|source| SandboxError::Spawn {
            step: "reaper",
            program: "/bin/sh".into(),
            source,
        })?;
        debug!("sandbox {}: reaper pid {}", self.id, child.id());
        self.reaper = Some(child);
        self.reaper_pipe = Some(write);
        Ok(())
    }

    /// A command for one of the sandbox's own processes: full sandbox env, stderr to a log file in the
    /// root (for error messages), its own process group (a terminal Ctrl-C reaches the owner, which
    /// then tears down in order, instead of killing the desktop under it), tied to the owner.
    fn infra_command(&self, program: &Path, log: &Path) -> Result<Command, SandboxError> {
        let log_file = File::create(log).map_err(|e| SandboxError::io(format!("creating log {}", log.display()), e))?;
        let mut cmd = Command::new(program);
        self.apply_env(&mut cmd);
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::from(log_file)).process_group(0);
        tie_to_parent(&mut cmd, self.opts.parent_death_signal);
        Ok(cmd)
    }

    fn deadline(&self) -> Instant {
        Instant::now() + self.opts.step_timeout
    }

    /// Between two polls of a start-up step: waits [`POLL`], or gives up with the step's log if the
    /// next poll would come after `deadline`.
    fn poll_again(&self, step: &'static str, deadline: Instant, log: &Path) -> Result<(), SandboxError> {
        self.poll_again_within(step, deadline, self.opts.step_timeout, log)
    }

    /// [`Self::poll_again`] for a step given `allowed` rather than one step's timeout, so that the
    /// error names the time the step really had.
    fn poll_again_within(
        &self,
        step: &'static str,
        deadline: Instant,
        allowed: Duration,
        log: &Path,
    ) -> Result<(), SandboxError> {
        if Instant::now() + POLL >= deadline {
            return Err(SandboxError::Timeout { step, timeout: allowed, stderr: tail_file(log) });
        }
        std::thread::sleep(POLL);
        Ok(())
    }

    fn start_x_server(&mut self, xvfb: &Path) -> Result<(), SandboxError> {
        const STEP: &str = "X server (Xvfb)";
        const ATTEMPTS: u32 = 8;
        let (w, h) = self.opts.size;
        let geometry = format!("{w}x{h}x{}", self.opts.depth);
        let explicit = self.opts.display;
        let mut from = x11::FIRST_AUTO_DISPLAY;
        for attempt in 1..=ATTEMPTS {
            let n = match explicit {
                Some(n) if x11::looks_free(n) => n,
                Some(n) => {
                    return Err(SandboxError::Display(format!(
                        ":{n} is in use ({} or {} exists)",
                        x11::socket_path(n).display(),
                        x11::lock_path(n).display()
                    )))
                }
                None => x11::pick_free(from).ok_or_else(|| {
                    SandboxError::Display(format!(
                        "no free display in :{from}..:{} (all have a socket or lock in /tmp)",
                        x11::LAST_AUTO_DISPLAY
                    ))
                })?,
            };
            // For the reaper: which display's stale lock/socket it may have to remove.
            let display_file = self.root.join(reaper::DISPLAY_FILE);
            fs::write(&display_file, n.to_string())
                .map_err(|e| SandboxError::io(format!("writing {}", display_file.display()), e))?;

            // No -displayfd: with it, Xvfb skips the /tmp/.XN-lock file that other X starters rely on.
            let log = self.logs.join(format!("xvfb-{n}.log"));
            let mut cmd = self.infra_command(xvfb, &log)?;
            cmd.arg(format!(":{n}")).args(["-screen", "0", &geometry, "-nolisten", "tcp", "-noreset"]);
            if !self.opts.opengl {
                cmd.args(["-extension", "GLX"]);
            }
            let child = cmd.spawn().map_err(|source| SandboxError::Spawn {
                step: STEP,
                program: xvfb.display().to_string(),
                source,
            })?;
            let pid = child.id();
            debug!("sandbox {}: Xvfb :{n} pid {pid} (attempt {attempt})", self.id);
            self.infra.push(Tracked { name: "Xvfb", child });
            // Recorded now so that teardown after a failed start also clears this display's stale
            // lock/socket (only ever files whose owner is dead or is our Xvfb).
            self.display = Some(n);

            let deadline = self.deadline();
            loop {
                if let Some(status) = self.exited("Xvfb") {
                    self.infra.pop();
                    let stderr = tail_file(&log);
                    // Lost a race for the display (another server took it between our check and its
                    // start, or holds the abstract socket in another mount namespace): try the next.
                    let taken = stderr.contains("already active")
                        || stderr.contains("Cannot establish any listening sockets")
                        || stderr.contains("server already running");
                    if taken && explicit.is_none() && attempt < ATTEMPTS {
                        self.display = None;
                        debug!("sandbox {}: display :{n} taken, trying the next one", self.id);
                        from = n + 1;
                        break;
                    }
                    return Err(SandboxError::ExitedEarly { step: STEP, status, stderr });
                }
                // The socket appears before the server serves clients; a completed connection setup
                // (which blocks until the server reaches its dispatch loop) is the real signal. Only
                // once the lock names our Xvfb: when two starters pick the same number at once, the
                // loser's Xvfb takes a moment to exit, and meanwhile the winner's socket answers —
                // accepting it put two sandboxes on one X server.
                if x11::socket_path(n).exists() && x11::lock_pid(n) == Some(pid) {
                    let attempt_until = deadline.min(Instant::now() + Duration::from_millis(500));
                    match x11::handshake(n, attempt_until) {
                        Ok(true) => return Ok(()),
                        Ok(false) => {
                            return Err(SandboxError::StepFailed {
                                step: STEP,
                                detail: format!(":{n} refused the X connection setup"),
                                stderr: tail_file(&log),
                            })
                        }
                        // Not listening yet, or busy starting: try again below.
                        Err(e) => debug!("sandbox {}: :{n} not answering yet: {e}", self.id),
                    }
                }
                self.poll_again(STEP, deadline, &log)?;
            }
        }
        Err(SandboxError::Display(format!("no usable display after {ATTEMPTS} attempts")))
    }

    /// Wait for the most recently started infrastructure process (which just exited) and forget it.
    fn reap_last(&mut self, deadline: Instant) -> String {
        match self.infra.pop() {
            Some(mut t) => match procs::wait_deadline(&mut t.child, deadline) {
                Ok(Some(st)) => st.to_string(),
                _ => {
                    // Closed its pipe but did not exit: put it back so teardown kills it.
                    self.infra.push(t);
                    "still running".to_owned()
                }
            },
            None => "unknown".to_owned(),
        }
    }

    fn start_session_bus(&mut self, dbus_daemon: &Path) -> Result<(), SandboxError> {
        let socket = format!("--address=unix:path={}", self.runtime_dir.join("bus").display());
        let address = self.start_bus(
            dbus_daemon,
            "dbus-daemon",
            "session bus (dbus-daemon)",
            &["--session".to_owned(), socket],
            "dbus-session.log",
        )?;
        self.bus_address = Some(address);
        Ok(())
    }

    /// Starts a bus daemon (`name`, in `step`) with `args` and returns the address it printed.
    fn start_bus(
        &mut self,
        dbus_daemon: &Path,
        name: &'static str,
        step: &'static str,
        args: &[String],
        log: &str,
    ) -> Result<String, SandboxError> {
        let log = self.logs.join(log);
        let mut cmd = self.infra_command(dbus_daemon, &log)?;
        // --nofork keeps the PID ours; the address is read from stdout.
        cmd.args(args).args(["--nofork", "--print-address"]).stdout(Stdio::piped());
        let mut child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            step,
            program: dbus_daemon.display().to_string(),
            source,
        })?;
        let stdout = child.stdout.take();
        debug!("sandbox {}: {name} pid {}", self.id, child.id());
        self.infra.push(Tracked { name, child });
        let Some(stdout) = stdout else {
            return Err(SandboxError::StepFailed { step, detail: "no stdout pipe".into(), stderr: String::new() });
        };
        let deadline = self.deadline();
        let mut reader = LineReader::new(stdout);
        match reader.read_line(deadline).map_err(|e| SandboxError::io("reading dbus-daemon's address", e))? {
            Line::Text(addr) if addr.starts_with("unix:") => Ok(addr),
            Line::Text(other) => Err(SandboxError::StepFailed {
                step,
                detail: format!("unexpected address {other:?}"),
                stderr: tail_file(&log),
            }),
            Line::Timeout => {
                Err(SandboxError::Timeout { step, timeout: self.opts.step_timeout, stderr: tail_file(&log) })
            }
            Line::Eof => {
                let status = self.reap_last(deadline);
                Err(SandboxError::ExitedEarly { step, status, stderr: tail_file(&log) })
            }
        }
    }

    /// A short-lived helper (dbus-send, xsetroot) inside the sandbox.
    fn helper(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        self.apply_env(&mut cmd);
        cmd
    }

    /// If the infrastructure process named `name` has exited, its status.
    fn exited(&mut self, name: &str) -> Option<String> {
        let t = self.infra.iter_mut().find(|t| t.name == name)?;
        match t.child.try_wait() {
            Ok(Some(st)) => Some(st.to_string()),
            _ => None,
        }
    }

    fn start_accessibility(&mut self, launcher: &Path, dbus_send: &Path) -> Result<(), SandboxError> {
        const STEP: &str = "accessibility bus (at-spi-bus-launcher)";
        const NAME: &str = "at-spi-bus-launcher";
        let log = self.logs.join("at-spi-bus-launcher.log");
        let mut cmd = self.infra_command(launcher, &log)?;
        cmd.args(["--launch-immediately", "--a11y=1", "--screen-reader=0"]);
        let child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            step: STEP,
            program: launcher.display().to_string(),
            source,
        })?;
        debug!("sandbox {}: at-spi-bus-launcher pid {}", self.id, child.id());
        self.infra.push(Tracked { name: NAME, child });

        // Ask NameHasOwner (which never activates anything) until the launcher owns org.a11y.Bus;
        // calling GetAddress earlier would make the bus auto-start a second launcher from its
        // .service file.
        let deadline = self.deadline();
        loop {
            if let Some(status) = self.exited(NAME) {
                return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
            }
            if self.bus_has_owner(dbus_send, "--session", "org.a11y.Bus", STEP, deadline)? {
                break;
            }
            self.poll_again(STEP, deadline, &log)?;
        }
        let mut q = self.helper(dbus_send);
        q.args([
            "--session",
            "--print-reply=literal",
            "--dest=org.a11y.Bus",
            "/org/a11y/bus",
            "org.a11y.Bus.GetAddress",
        ]);
        let out = run_helper(&mut q, deadline).map_err(|source| SandboxError::Spawn {
            step: STEP,
            program: dbus_send.display().to_string(),
            source,
        })?;
        match out {
            Some(o) if o.status.success() && o.stdout.trim().starts_with("unix:") => {
                self.a11y_address = Some(o.stdout.trim().to_owned());
                Ok(())
            }
            Some(o) => Err(SandboxError::StepFailed {
                step: STEP,
                detail: format!("org.a11y.Bus.GetAddress answered {:?} ({})", o.stdout.trim(), o.status),
                stderr: o.stderr,
            }),
            None => Err(SandboxError::Timeout {
                step: "org.a11y.Bus.GetAddress",
                timeout: self.opts.step_timeout,
                stderr: tail_file(&log),
            }),
        }
    }

    fn start_window_manager(&mut self, openbox: &Path, touch: &Path) -> Result<(), SandboxError> {
        const STEP: &str = "window manager (openbox)";
        const NAME: &str = "openbox";
        let log = self.logs.join("openbox.log");
        // openbox claims the screen (and sets _NET_SUPPORTING_WM_CHECK) before it has loaded its config,
        // bound its keys and begun reading events; a window mapped in that gap is never managed and stays
        // unmapped for good (measured: 2 of 60 starts with an app launched right away). Its startup
        // command runs only once all of that is done, so it marks the moment the desktop is usable.
        let started = self.runtime_dir.join("openbox-started");
        let startup = format!("{} {}", shell_quote(touch)?, shell_quote(&started)?);
        let mut cmd = self.infra_command(openbox, &log)?;
        cmd.args(["--sm-disable", "--startup", &startup]);
        let child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            step: STEP,
            program: openbox.display().to_string(),
            source,
        })?;
        debug!("sandbox {}: openbox pid {}", self.id, child.id());
        self.infra.push(Tracked { name: NAME, child });

        let deadline = self.deadline();
        loop {
            if let Some(status) = self.exited(NAME) {
                return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
            }
            if started.exists() {
                return Ok(());
            }
            self.poll_again(STEP, deadline, &log)?;
        }
    }

    fn set_background(&mut self, xsetroot: &Path) -> Result<(), SandboxError> {
        const STEP: &str = "background (xsetroot)";
        let mut q = self.helper(xsetroot);
        q.args(["-solid", &self.opts.background]);
        let out = run_helper(&mut q, self.deadline()).map_err(|source| SandboxError::Spawn {
            step: STEP,
            program: xsetroot.display().to_string(),
            source,
        })?;
        match out {
            Some(o) if o.status.success() => Ok(()),
            Some(o) => Err(SandboxError::StepFailed {
                step: STEP,
                detail: format!("xsetroot -solid {:?} exited with {}", self.opts.background, o.status),
                stderr: o.stderr,
            }),
            None => Err(SandboxError::Timeout { step: STEP, timeout: self.opts.step_timeout, stderr: String::new() }),
        }
    }

    /// Starts sway (as an unprivileged user when we are root) and waits until its IPC answers with an
    /// active output.
    fn start_compositor(&mut self, sway: &Path) -> Result<(), SandboxError> {
        const STEP: &str = "compositor (sway)";
        let account = wayland::compositor_account(self.opts.desktop_user.as_deref())
            .map_err(|detail| SandboxError::StepFailed { step: STEP, detail, stderr: String::new() })?;
        // sway's own directory: its runtime dir (sockets) and config, owned by the user it runs as.
        let dir = self.root.join("wl");
        mkdir_private(&dir)?;
        let config = dir.join("config");
        fs::write(&config, wayland::config(self.opts.size, &self.opts.background))
            .map_err(|e| SandboxError::io(format!("writing {}", config.display()), e))?;
        let uid = match account {
            Some(a) => {
                for path in [&dir, &config] {
                    std::os::unix::fs::chown(path, Some(a.uid), Some(a.gid))
                        .map_err(|e| SandboxError::io(format!("giving {} to uid {}", path.display(), a.uid), e))?;
                }
                // The user must reach its directory inside ours: traversable, not listable.
                fs::set_permissions(&self.root, fs::Permissions::from_mode(0o711))
                    .map_err(|e| SandboxError::io(format!("chmod 711 {}", self.root.display()), e))?;
                a.uid
            }
            // SAFETY: geteuid has no preconditions.
            None => unsafe { libc::geteuid() },
        };
        let log = self.logs.join("sway.log");
        let mut cmd = self.infra_command(sway, &log)?;
        cmd.arg("-c").arg(&config);
        // sway's own session: its runtime dir and home are its directory, and nothing of ours.
        for var in ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "DBUS_SESSION_BUS_ADDRESS", "XDG_SESSION_TYPE"] {
            cmd.env_remove(var);
        }
        cmd.env("XDG_RUNTIME_DIR", &dir)
            .env("HOME", &dir)
            .env("WLR_BACKENDS", "headless")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .env("WLR_RENDERER", "pixman")
            .current_dir(&dir);
        if let Some(a) = account {
            cmd.uid(a.uid).gid(a.gid);
        }
        let child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            step: STEP,
            program: sway.display().to_string(),
            source,
        })?;
        let pid = child.id();
        debug!("sandbox {}: sway pid {pid} (uid {uid})", self.id);
        self.infra.push(Tracked { name: "sway", child });

        let deadline = self.deadline();
        loop {
            if let Some(status) = self.exited("sway") {
                return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
            }
            if let (Some(socket), Some(ipc)) = (wayland::find_socket(&dir), wayland::ipc_socket(&dir, uid, pid)) {
                if wayland::answers(&ipc, deadline) {
                    self.wayland_socket = Some(socket);
                    self.sway_ipc = Some(ipc);
                    return Ok(());
                }
            }
            self.poll_again(STEP, deadline, &log)?;
        }
    }

    /// Spawns `cmd` (one of the sandbox's own processes, `name`, started in `step`) and tracks it.
    fn spawn_tracked(&mut self, name: &'static str, step: &'static str, mut cmd: Command) -> Result<(), SandboxError> {
        let program = cmd.get_program().to_string_lossy().into_owned();
        let child = cmd.spawn().map_err(|source| SandboxError::Spawn { step, program, source })?;
        debug!("sandbox {}: {name} pid {}", self.id, child.id());
        self.infra.push(Tracked { name, child });
        Ok(())
    }

    /// One of the GNOME session's own processes: the machine's `program`, or the root file
    /// system's through bubblewrap.
    fn gnome_command(&self, programs: &gnome::Programs, program: &Path, log: &Path) -> Result<Command, SandboxError> {
        match &programs.root_fs {
            None => self.infra_command(program, log),
            Some(fs) => {
                let mut cmd = self.infra_command(fs.bwrap(), log)?;
                cmd.args(fs.args(&self.root)).arg(program);
                Ok(cmd)
            }
        }
    }

    /// The major release of the GNOME Shell this session runs (`gnome-shell --version`), which
    /// decides the format of handrail's extension.
    fn shell_release(&self, programs: &gnome::Programs) -> Result<u32, SandboxError> {
        const STEP: &str = "compositor (gnome-shell): its version";
        let log = self.logs.join("gnome-shell-version.log");
        let mut cmd = self.gnome_command(programs, &programs.gnome_shell, &log)?;
        let program = cmd.get_program().to_string_lossy().into_owned();
        let out = cmd.arg("--version").stdout(Stdio::piped()).output().map_err(|source| SandboxError::Spawn {
            step: STEP,
            program,
            source,
        })?;
        let printed = String::from_utf8_lossy(&out.stdout);
        handrail_gnome_extension::shell_release(&printed).ok_or_else(|| SandboxError::StepFailed {
            step: STEP,
            detail: format!("`gnome-shell --version` printed {:?} ({})", printed.trim(), out.status),
            stderr: tail_file(&log),
        })
    }

    /// Starts PipeWire, waits for its socket, and starts WirePlumber beside it.
    fn start_media(&mut self, programs: &gnome::Programs) -> Result<(), SandboxError> {
        const STEP: &str = "PipeWire";
        let log = self.logs.join("pipewire.log");
        self.spawn_tracked("pipewire", STEP, self.gnome_command(programs, &programs.pipewire, &log)?)?;
        let socket = self.runtime_dir.join(gnome::PIPEWIRE_SOCKET);
        let deadline = self.deadline();
        while !socket.exists() {
            if let Some(status) = self.exited("pipewire") {
                return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
            }
            self.poll_again(STEP, deadline, &log)?;
        }
        let log = self.logs.join("wireplumber.log");
        let manager = self.gnome_command(programs, &programs.wireplumber, &log)?;
        self.spawn_tracked("wireplumber", "session manager (wireplumber)", manager)
    }

    /// Starts the private system bus and the logind stand-in on it.
    fn start_system_bus(&mut self, dbus_daemon: &Path, programs: &gnome::Programs) -> Result<(), SandboxError> {
        const STEP: &str = "logind stand-in (python3 -m dbusmock)";
        let config = self.root.join("system-bus.conf");
        let socket = self.runtime_dir.join(gnome::SYSTEM_BUS_SOCKET);
        fs::write(&config, gnome::system_bus_config(&socket))
            .map_err(|e| SandboxError::io(format!("writing {}", config.display()), e))?;
        let args = [format!("--config-file={}", config.display())];
        let address =
            self.start_bus(dbus_daemon, "dbus-daemon (system)", "system bus (dbus-daemon)", &args, "dbus-system.log")?;
        self.system_bus_address = Some(address);
        let log = self.logs.join("logind.log");
        let mut cmd = self.infra_command(&programs.python, &log)?;
        cmd.args(["-m", "dbusmock", "--system", "--template", "logind"]);
        self.spawn_tracked("logind", STEP, cmd)?;
        let deadline = self.deadline();
        loop {
            if let Some(status) = self.exited("logind") {
                return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
            }
            if self.bus_has_owner(&programs.dbus_send, "--system", gnome::LOGIND_NAME, STEP, deadline)? {
                return Ok(());
            }
            self.poll_again(STEP, deadline, &log)?;
        }
    }

    /// Starts a headless GNOME Shell with handrail's extension and waits until it serves remote
    /// desktops, its Wayland socket and the extension, with the login overview closed.
    fn start_shell(&mut self, programs: &gnome::Programs) -> Result<(), SandboxError> {
        const STEP: &str = "compositor (gnome-shell)";
        let release = self.shell_release(programs)?;
        let format = handrail_gnome_extension::Format::for_shell(release).map_err(|e| SandboxError::StepFailed {
            step: STEP,
            detail: e.to_string(),
            stderr: String::new(),
        })?;
        handrail_gnome_extension::install(&self.data_home, format)
            .map_err(|e| SandboxError::io("installing handrail's GNOME Shell extension", e.source))?;
        let keyfile = gnome::settings_keyfile_path(&self.config_home);
        if let Some(dir) = keyfile.parent() {
            fs::create_dir_all(dir).map_err(|e| SandboxError::io(format!("creating {}", dir.display()), e))?;
        }
        fs::write(&keyfile, gnome::settings_keyfile())
            .map_err(|e| SandboxError::io(format!("writing {}", keyfile.display()), e))?;
        let log = self.logs.join("gnome-shell.log");
        let mut cmd = self.gnome_command(programs, &programs.gnome_shell, &log)?;
        cmd.args(gnome::shell_args(self.opts.size));
        for var in ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK"] {
            cmd.env_remove(var);
        }
        self.spawn_tracked("gnome-shell", STEP, cmd)?;
        let socket = self.runtime_dir.join(gnome::WAYLAND_NAME);
        // A headless shell on a busy machine takes seconds to start (a software renderer compiles
        // its shaders; 2 s when idle, over 20 s seen beside a loaded test run): three usual steps.
        let allowed = 3 * self.opts.step_timeout;
        let deadline = Instant::now() + allowed;
        let has = |sb: &Self, name: &str| sb.bus_has_owner(&programs.dbus_send, "--session", name, STEP, deadline);
        loop {
            if let Some(status) = self.exited("gnome-shell") {
                return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
            }
            if socket.exists()
                && has(self, gnome::REMOTE_DESKTOP_NAME)?
                && has(self, handrail_gnome_extension::BUS_NAME)?
                && self.shell_started(&programs.dbus_send, deadline)?
                && self.overview_closed(&programs.dbus_send, deadline)?
            {
                self.wayland_socket = Some(socket);
                return Ok(());
            }
            self.poll_again_within(STEP, deadline, allowed, &log)?;
        }
    }

    /// Starts the permission store and GNOME's portal backend, then the portal, which finds its
    /// backends on the bus as it starts (nothing here is D-Bus-activated: the machine's service
    /// files would start the machine's programs, not the root file system's).
    fn start_portal(&mut self, programs: &gnome::Programs, portal: &gnome::PortalPrograms) -> Result<(), SandboxError> {
        const STEP: &str = "desktop portal (xdg-desktop-portal)";
        let socket = self.wayland_socket.clone().unwrap_or_else(|| self.runtime_dir.join(gnome::WAYLAND_NAME));
        let steps: [(&'static str, &Path, &str); 3] = [
            ("xdg-permission-store", &portal.permission_store, gnome::PERMISSION_STORE_NAME),
            ("xdg-desktop-portal-gnome", &portal.backend, gnome::PORTAL_BACKEND_NAME),
            ("xdg-desktop-portal", &portal.portal, gnome::PORTAL_NAME),
        ];
        for (name, program, bus_name) in steps {
            let log = self.logs.join(format!("{name}.log"));
            let mut cmd = self.gnome_command(programs, program, &log)?;
            // The backend's dialogs are windows of this desktop; the portal picks its backends by
            // the desktop's name.
            cmd.env("WAYLAND_DISPLAY", &socket).env("XDG_CURRENT_DESKTOP", "GNOME").env_remove("DISPLAY");
            self.spawn_tracked(name, STEP, cmd)?;
            let deadline = self.deadline();
            while !self.bus_has_owner(&programs.dbus_send, "--session", bus_name, STEP, deadline)? {
                if let Some(status) = self.exited(name) {
                    return Err(SandboxError::ExitedEarly { step: STEP, status, stderr: tail_file(&log) });
                }
                self.poll_again(STEP, deadline, &log)?;
            }
        }
        Ok(())
    }

    /// Whether GNOME Shell's start-up is complete, as handrail's extension says.
    fn shell_started(&self, dbus_send: &Path, deadline: Instant) -> Result<bool, SandboxError> {
        const STEP: &str = "compositor (gnome-shell): its start-up";
        let mut q = self.helper(dbus_send);
        q.args(["--session", "--print-reply"])
            .arg(format!("--dest={}", handrail_gnome_extension::BUS_NAME))
            .arg(handrail_gnome_extension::OBJECT_PATH)
            .arg("org.freedesktop.DBus.Properties.Get")
            .arg(format!("string:{}", handrail_gnome_extension::INTERFACE))
            .arg("string:StartupComplete");
        let out = run_helper(&mut q, deadline).map_err(|source| SandboxError::Spawn {
            step: STEP,
            program: dbus_send.display().to_string(),
            source,
        })?;
        Ok(matches!(&out, Some(o) if o.stdout.contains("boolean true")))
    }

    /// Whether GNOME Shell's overview is closed; when it is open (as at every login), asks for it to
    /// close and answers no, so the next poll sees whether it did.
    fn overview_closed(&self, dbus_send: &Path, deadline: Instant) -> Result<bool, SandboxError> {
        const STEP: &str = "compositor (gnome-shell): closing the overview";
        let spawn_error = |source| SandboxError::Spawn { step: STEP, program: dbus_send.display().to_string(), source };
        let mut q = self.helper(dbus_send);
        q.args(["--session", "--print-reply", "--dest=org.gnome.Shell", "/org/gnome/Shell"]).args([
            "org.freedesktop.DBus.Properties.Get",
            "string:org.gnome.Shell",
            "string:OverviewActive",
        ]);
        let out = run_helper(&mut q, deadline).map_err(spawn_error)?;
        match out {
            Some(o) if o.stdout.contains("boolean false") => Ok(true),
            Some(o) if o.stdout.contains("boolean true") => {
                let mut close = self.helper(dbus_send);
                close
                    .args(["--session", "--print-reply", "--dest=org.gnome.Shell", "/org/gnome/Shell"])
                    .args(["org.freedesktop.DBus.Properties.Set", "string:org.gnome.Shell", "string:OverviewActive"])
                    .arg("variant:boolean:false");
                run_helper(&mut close, deadline).map_err(spawn_error)?;
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// Whether `name` has an owner on `bus` (`--session` or `--system`; asked with dbus-send, which
    /// activates nothing).
    fn bus_has_owner(
        &self,
        dbus_send: &Path,
        bus: &str,
        name: &str,
        step: &'static str,
        deadline: Instant,
    ) -> Result<bool, SandboxError> {
        let mut q = self.helper(dbus_send);
        q.args([
            bus,
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
        ])
        .arg(format!("string:{name}"));
        let out = run_helper(&mut q, deadline).map_err(|source| SandboxError::Spawn {
            step,
            program: dbus_send.display().to_string(),
            source,
        })?;
        Ok(matches!(&out, Some(o) if o.stdout.contains("boolean true")))
    }

    // ----- accessors -----

    /// The unique id, also the value of `HANDRAIL_SANDBOX` in every sandbox process's environment.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The display as `:N`.
    pub fn display(&self) -> String {
        self.display.map_or_else(String::new, |n| format!(":{n}"))
    }

    /// What the session is called in messages: the X display (`:N`) or the Wayland socket's path.
    pub fn session_name(&self) -> String {
        match &self.wayland_socket {
            Some(socket) => socket.display().to_string(),
            None => self.display(),
        }
    }

    /// Whether this is a Wayland session (headless sway or mutter).
    pub fn is_wayland(&self) -> bool {
        self.opts.session.is_wayland()
    }

    /// Which desktop runs.
    pub fn session(&self) -> Session {
        self.opts.session
    }

    /// PipeWire's socket, where GNOME's screen casts are read (GNOME sandboxes only).
    pub fn pipewire_socket(&self) -> Option<PathBuf> {
        (self.opts.session == Session::Gnome).then(|| self.runtime_dir.join(gnome::PIPEWIRE_SOCKET))
    }

    /// The Wayland socket's absolute path (what `WAYLAND_DISPLAY` holds in the sandbox).
    pub fn wayland_socket(&self) -> Option<&Path> {
        self.wayland_socket.as_deref()
    }

    /// sway's IPC socket (what `SWAYSOCK` holds in the sandbox).
    pub fn sway_ipc(&self) -> Option<&Path> {
        self.sway_ipc.as_deref()
    }

    /// The display number N.
    pub fn display_number(&self) -> u32 {
        self.display.unwrap_or_default()
    }

    /// The session bus address (`DBUS_SESSION_BUS_ADDRESS`).
    pub fn bus_address(&self) -> &str {
        self.bus_address.as_deref().unwrap_or_default()
    }

    /// The accessibility bus address as answered by `org.a11y.Bus.GetAddress` (None without accessibility).
    pub fn a11y_bus_address(&self) -> Option<&str> {
        self.a11y_address.as_deref()
    }

    /// Screen size (width, height).
    pub fn size(&self) -> (u32, u32) {
        self.opts.size
    }

    /// The options the sandbox was started with.
    pub fn options(&self) -> &SandboxOptions {
        &self.opts
    }

    /// The private temporary root (mode 700) holding runtime dir, HOME and logs; removed on stop.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `XDG_RUNTIME_DIR` (mode 700).
    pub fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }

    /// The private `HOME`.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Start-up timings.
    pub fn timings(&self) -> StartTimings {
        self.timings
    }

    /// PIDs of the processes the sandbox started itself (Xvfb, buses, WM) and of apps started with
    /// [`Sandbox::spawn`]. Helpers they spawned are found through the marker ([`Sandbox::processes`]).
    pub fn pids(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.infra.iter().map(|t| t.child.id()).collect();
        if let Ok(apps) = self.apps.lock() {
            v.extend(apps.iter().copied());
        }
        v
    }

    /// PID of the reaper process (see the crate docs).
    pub fn reaper_pid(&self) -> Option<u32> {
        self.reaper.as_ref().map(Child::id)
    }

    /// Live processes carrying this sandbox's marker right now.
    pub fn processes(&self) -> Vec<u32> {
        marked_processes(&self.id)
    }

    /// A handle for a harness: files into and out of the private home, commands run in the session
    /// (see [`TaskSetup`](crate::TaskSetup)); usable on another thread while the sandbox runs.
    pub fn task_setup(&self) -> crate::TaskSetup {
        crate::TaskSetup::new(self.home.clone(), self.env())
    }

    /// A handle that tells the sandbox's apps from its own processes and closes the apps, for use on
    /// another thread while the sandbox runs (see [`SandboxProcesses`]).
    pub fn process_handle(&self) -> SandboxProcesses {
        SandboxProcesses::new(&self.id, &self.root, self.infra.iter().map(|t| (t.name, t.child.id())))
    }

    /// A watch on the sandbox's own processes that another thread can wait on: it says which one
    /// exited while the sandbox was running (the desktop is broken then), and goes quiet once the
    /// sandbox is being stopped.
    pub fn exit_watch(&mut self) -> Result<ExitWatch, SandboxError> {
        let (read, write) = match self.watch_stop.take() {
            Some(pipe) => pipe,
            None => cloexec_pipe().map_err(|e| SandboxError::io("creating the exit-watch pipe", e))?,
        };
        let stopping = read.try_clone();
        self.watch_stop = Some((read, write));
        let stopping = stopping.map_err(|e| SandboxError::io("sharing the exit-watch pipe", e))?;
        let running: Vec<(&'static str, u32)> = self
            .infra
            .iter_mut()
            .filter_map(|t| matches!(t.child.try_wait(), Ok(None)).then(|| (t.name, t.child.id())))
            .collect();
        Ok(ExitWatch::new(&running, stopping))
    }

    /// Which of the sandbox's own processes has exited, if any (the desktop is broken then).
    pub fn check(&mut self) -> Result<(), SandboxError> {
        for t in &mut self.infra {
            if let Ok(Some(st)) = t.child.try_wait() {
                return Err(SandboxError::ExitedEarly { step: t.name, status: st.to_string(), stderr: String::new() });
            }
        }
        Ok(())
    }

    // ----- running things inside -----

    /// The environment of every process in the sandbox. Apply [`REMOVED_ENV`] too when building a
    /// command yourself (or use [`Sandbox::command`] / [`Sandbox::apply_env`]).
    pub fn env(&self) -> Vec<(String, String)> {
        let path = |p: &Path| p.display().to_string();
        let mut env = vec![
            ("XDG_RUNTIME_DIR".to_owned(), path(&self.runtime_dir)),
            ("HOME".to_owned(), path(&self.home)),
            ("XDG_CONFIG_HOME".to_owned(), path(&self.config_home)),
            ("XDG_DATA_HOME".to_owned(), path(&self.data_home)),
            ("XDG_CACHE_HOME".to_owned(), path(&self.cache_home)),
            ("TMPDIR".to_owned(), path(&self.temp_dir)),
        ];
        if self.opts.session.is_wayland() {
            // The socket by its absolute path (libwayland accepts one): apps keep a runtime dir of
            // their own while sway's belongs to the user it runs as.
            if let Some(socket) = &self.wayland_socket {
                env.push(("WAYLAND_DISPLAY".to_owned(), path(socket)));
            }
            if let Some(ipc) = &self.sway_ipc {
                env.push(("SWAYSOCK".to_owned(), path(ipc)));
            }
            // Toolkits run natively on Wayland, never falling back to an X server.
            env.push(("XDG_SESSION_TYPE".to_owned(), "wayland".to_owned()));
            env.push(("GDK_BACKEND".to_owned(), "wayland".to_owned()));
            env.push(("QT_QPA_PLATFORM".to_owned(), "wayland".to_owned()));
        } else {
            env.push(("DISPLAY".to_owned(), self.display()));
            // Toolkits must not pick a Wayland (or other) backend of the user's real session.
            env.push(("XDG_SESSION_TYPE".to_owned(), "x11".to_owned()));
            env.push(("GDK_BACKEND".to_owned(), "x11".to_owned()));
            env.push(("QT_QPA_PLATFORM".to_owned(), "xcb".to_owned()));
            if !self.opts.opengl {
                // Without GLX, Qt Quick would fail to make a GL context; its software renderer draws.
                env.push(("QT_QUICK_BACKEND".to_owned(), "software".to_owned()));
            }
        }
        if !self.opts.opengl {
            env.push(("GSK_RENDERER".to_owned(), "cairo".to_owned()));
        }
        if let Some(addr) = &self.bus_address {
            env.push(("DBUS_SESSION_BUS_ADDRESS".to_owned(), addr.clone()));
        }
        if let Some(addr) = &self.system_bus_address {
            env.push(("DBUS_SYSTEM_BUS_ADDRESS".to_owned(), addr.clone()));
        }
        if self.opts.session == Session::Gnome {
            env.push(("XDG_CURRENT_DESKTOP".to_owned(), "GNOME".to_owned()));
            // Settings from the sandbox's key file, never the person's dconf database.
            env.push(("GSETTINGS_BACKEND".to_owned(), "keyfile".to_owned()));
        }
        if self.opts.accessibility {
            env.push(("NO_AT_BRIDGE".to_owned(), "0".to_owned()));
            // Chromium builds web content's tree only with this (plus --force-renderer-accessibility).
            env.push(("ACCESSIBILITY_ENABLED".to_owned(), "1".to_owned()));
            env.push(("QT_ACCESSIBILITY".to_owned(), "1".to_owned()));
            env.push(("QT_LINUX_ACCESSIBILITY_ALWAYS_ON".to_owned(), "1".to_owned()));
            // GTK 2 apps (GIMP 2.10) join the bus only through these modules, which Debian's and
            // Ubuntu's sessions load in every app (libatk-adaptor's Xsession.d); GTK 3 and 4 skip them.
            env.push(("GTK_MODULES".to_owned(), "gail:atk-bridge".to_owned()));
        } else {
            // No accessibility bus: stop GTK from trying to activate one through the session bus.
            env.push(("NO_AT_BRIDGE".to_owned(), "1".to_owned()));
        }
        env.push((MARKER_VAR.to_owned(), self.id.clone()));
        env
    }

    /// Put the sandbox environment on `cmd` (removing [`REMOVED_ENV`] first).
    pub fn apply_env(&self, cmd: &mut Command) {
        put_env(cmd, &self.env());
    }

    /// A command that runs inside the sandbox: its environment, the marker (so it and anything it
    /// spawns is stopped with the sandbox) and, if enabled, the parent-death signal.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        self.apply_env(&mut cmd);
        tie_to_parent(&mut cmd, self.opts.parent_death_signal);
        cmd
    }

    /// Start `program args…` in the sandbox and record its PID.
    pub fn spawn<I, S>(&self, program: impl AsRef<OsStr>, args: I) -> Result<Child, SandboxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let program = program.as_ref();
        let child = self.command(program).args(args).spawn().map_err(|source| SandboxError::Spawn {
            step: "app",
            program: program.to_string_lossy().into_owned(),
            source,
        })?;
        if let Ok(mut apps) = self.apps.lock() {
            apps.push(child.id());
        }
        Ok(child)
    }

    // ----- teardown -----

    /// Stop everything the sandbox started and remove its files. See [`StopReport`].
    pub fn stop(mut self) -> Result<StopReport, SandboxError> {
        self.teardown()
    }

    /// Block until SIGINT, SIGTERM or SIGHUP arrives or one of the sandbox's own processes exits, then
    /// stop. The handlers stay installed during teardown, so a second Ctrl-C does not cut it short.
    /// Use [`Sandbox::wait_for_shutdown`] with your own [`SignalWatcher`] to also cover start-up.
    pub fn run_until_signal(mut self) -> Result<(Shutdown, StopReport), SandboxError> {
        let watcher = SignalWatcher::install()?;
        let why = self.wait_for_shutdown(&watcher)?;
        info!("sandbox {}: stopping ({why:?})", self.session_name());
        let report = self.teardown()?;
        drop(watcher);
        Ok((why, report))
    }

    /// Block until `watcher` sees a signal or one of the sandbox's own processes (X server, buses,
    /// WM) exits; does not stop the sandbox. Event-driven (pidfds and the signal pipe).
    pub fn wait_for_shutdown(&mut self, watcher: &SignalWatcher) -> Result<Shutdown, SandboxError> {
        let pidfds: Vec<OwnedFd> = self.infra.iter().filter_map(|t| pidfd_open(t.child.id())).collect();
        loop {
            if let Some(c) = watcher.try_recv() {
                return Ok(Shutdown::Signal(c.signal));
            }
            if let Some((process, status)) =
                self.infra.iter_mut().find_map(|t| t.child.try_wait().ok().flatten().map(|st| (t.name, st)))
            {
                return Ok(Shutdown::Exited { process, status });
            }
            let mut fds: Vec<i32> = pidfds.iter().map(AsRawFd::as_raw_fd).collect();
            fds.push(watcher.fd());
            // The timeout is only a fallback for kernels without pidfds.
            let wait =
                if pidfds.len() == self.infra.len() { Duration::from_secs(1) } else { Duration::from_millis(100) };
            poll_readable(&fds, wait).map_err(|e| SandboxError::io("waiting for a signal", e))?;
        }
    }

    /// Add every process now carrying the marker, and our own children that have not exited, to
    /// `tracked` (PID → start time); then drop from it every process that is gone (or a zombie).
    fn track_live(&mut self, tracked: &mut BTreeMap<u32, u64>) {
        let mut candidates = marked_processes(&self.id);
        for t in &mut self.infra {
            // try_wait reaps an exited child, so its PID disappears from /proc.
            if matches!(t.child.try_wait(), Ok(None)) {
                candidates.push(t.child.id());
            }
        }
        for pid in candidates {
            if let Some(start) = identity(pid) {
                tracked.entry(pid).or_insert(start);
            }
        }
        // A process that was found once is waited for until it is really gone, even after its
        // environment (and so the marker) disappears while it exits.
        tracked.retain(|&pid, start| identity(pid) == Some(*start));
    }

    fn teardown(&mut self) -> Result<StopReport, SandboxError> {
        if self.stopped {
            return Ok(StopReport::default());
        }
        self.stopped = true;
        // Exits from here on are ours: watches go quiet before anything is signalled.
        self.watch_stop = None;
        let t0 = Instant::now();
        let term_until = t0 + Duration::from_secs(1);
        let give_up = term_until + Duration::from_secs(1);
        let mut report = StopReport::default();
        let mut tracked = BTreeMap::new();
        let mut terminated = BTreeSet::new();
        let mut killed = BTreeSet::new();
        let mut sockets: Option<Vec<crate::sockets::NotedSocket>> = None;
        let survivors = loop {
            // Re-scanned every round: a process may fork while others are shutting down.
            self.track_live(&mut tracked);
            if sockets.is_none() {
                // Noted before any signal, while the listeners are still there to ask.
                let pids: Vec<u32> = tracked.keys().copied().collect();
                sockets = Some(sockets::listened_outside(&pids, &self.root));
            }
            let now = Instant::now();
            if tracked.is_empty() || now >= give_up {
                break tracked.keys().copied().collect::<Vec<u32>>();
            }
            // Apps and their helpers first, then our own processes in reverse start order (WM, buses,
            // X server last), so apps are told to quit rather than first losing their display.
            let infra: Vec<u32> = self.infra.iter().rev().map(|t| t.child.id()).collect();
            let order = tracked
                .keys()
                .copied()
                .filter(|pid| !infra.contains(pid))
                .chain(infra.iter().copied().filter(|pid| tracked.contains_key(pid)));
            for pid in order {
                // Re-check the identity right before signalling, never to hit a recycled PID.
                let Some(&start) = tracked.get(&pid) else { continue };
                if identity(pid) != Some(start) {
                    continue;
                }
                if now < term_until {
                    if terminated.insert(pid) {
                        send_signal(pid, libc::SIGTERM);
                    }
                } else if killed.insert(pid) {
                    send_signal(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(POLL.min(give_up - now));
        };
        report.terminated = terminated.into_iter().collect();
        debug!("sandbox {}: terminated {:?}", self.id, report.terminated);
        report.killed = killed.into_iter().collect();
        if !report.killed.is_empty() {
            warn!("sandbox {}: SIGKILL needed for {:?}", self.session_name(), report.killed);
        }

        let mut problems = Vec::new();
        if !survivors.is_empty() {
            problems.push(format!("processes still alive after SIGKILL: {survivors:?}"));
        }
        if let Some(n) = self.display {
            let xvfb_gone = match self.infra.iter_mut().find(|t| t.name == "Xvfb") {
                Some(t) => matches!(t.child.try_wait(), Ok(Some(_))),
                None => true,
            };
            let xvfb_pid = self.infra.iter().find(|t| t.name == "Xvfb").map(|t| t.child.id());
            if xvfb_gone {
                // Xvfb removes these on SIGTERM; after SIGKILL they stay and would block the display.
                report.removed_stale_x_files = x11::remove_stale(n, xvfb_pid);
            }
        }
        report.removed_sockets = sockets::remove_abandoned(&sockets.unwrap_or_default());
        if !report.removed_sockets.is_empty() {
            debug!("sandbox {}: removed sockets left behind: {:?}", self.id, report.removed_sockets);
        }
        if let Err(e) = remove_root(&self.root) {
            problems.push(format!("removing {}: {e}", self.root.display()));
        }
        // Only now disarm the reaper: had we died during teardown, it would have finished the job.
        if let Some(mut r) = self.reaper.take() {
            let _ = r.kill();
            let _ = r.wait();
        }
        self.reaper_pipe = None;

        report.duration = t0.elapsed();
        info!(
            "sandbox {} stopped in {:.0} ms ({} processes terminated, {} killed)",
            self.session_name(),
            report.duration.as_secs_f64() * 1000.0,
            report.terminated.len(),
            report.killed.len()
        );
        if problems.is_empty() {
            Ok(report)
        } else {
            Err(SandboxError::Teardown { survivors, detail: problems.join("; ") })
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            warn!("sandbox teardown on drop: {e}");
        }
    }
}

/// Removes the private root. A process that was just killed may still be flushing a file into it (a
/// browser profile), which makes one pass fail with "directory not empty": retry briefly.
fn remove_root(root: &Path) -> std::io::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match fs::remove_dir_all(root) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

/// Start a sandbox, run `program args…` in it (stdio inherited), stop the sandbox when the program
/// exits, and return the program's exit status.
///
/// While the program runs, SIGINT/SIGTERM/SIGHUP do not kill the caller: a signal sent by another
/// process is forwarded to the program, a terminal Ctrl-C already reached it (same process group), and
/// the sandbox is stopped once it exits. If another [`SignalWatcher`] is active in the process, the
/// program runs without this handling (the reaper still cleans up if the caller dies).
pub fn run_inside<I, S>(opts: SandboxOptions, program: impl AsRef<OsStr>, args: I) -> Result<ExitStatus, SandboxError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let watcher = match SignalWatcher::install() {
        Ok(w) => Some(w),
        Err(e) => {
            debug!("run_inside without signal handling: {e}");
            None
        }
    };
    let sandbox = Sandbox::start(opts)?;
    if let Some(c) = watcher.as_ref().and_then(SignalWatcher::try_recv) {
        sandbox.stop()?;
        return Err(SandboxError::Interrupted(c.signal));
    }
    let program = program.as_ref();
    let mut child = sandbox.command(program).args(args).spawn().map_err(|source| SandboxError::Spawn {
        step: "command",
        program: program.to_string_lossy().into_owned(),
        source,
    })?;
    let pidfd = pidfd_open(child.id());
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => {}
            Err(e) => return Err(SandboxError::io(format!("waiting for {}", program.to_string_lossy()), e)),
        }
        let mut fds = Vec::new();
        if let Some(fd) = &pidfd {
            fds.push(fd.as_raw_fd());
        }
        if let Some(w) = &watcher {
            fds.push(w.fd());
        }
        let wait = if pidfd.is_some() { Duration::from_secs(1) } else { Duration::from_millis(20) };
        poll_readable(&fds, wait).map_err(|e| SandboxError::io("waiting for the command", e))?;
        if let Some(c) = watcher.as_ref().and_then(SignalWatcher::try_recv) {
            debug!("run_inside: signal {} (from a process: {})", c.signal, c.sent_by_process);
            if c.sent_by_process {
                send_signal(child.id(), c.signal);
            }
        }
    };
    if let Err(e) = sandbox.stop() {
        // The program's status is what the caller asked for; the leak is reported loudly.
        warn!("run_inside: {e}");
    }
    drop(watcher);
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_validated() {
        let bad = |o: SandboxOptions| matches!(validate(&o), Err(SandboxError::InvalidOption(_)));
        assert!(validate(&SandboxOptions::default()).is_ok());
        assert!(bad(SandboxOptions { size: (0, 800), ..Default::default() }));
        assert!(bad(SandboxOptions { depth: 32, ..Default::default() }));
        assert!(bad(SandboxOptions { background: "-display".into(), ..Default::default() }));
        assert!(bad(SandboxOptions { background: "#fff;rm".into(), ..Default::default() }));
        assert!(bad(SandboxOptions { display: Some(70000), ..Default::default() }));
        assert!(validate(&SandboxOptions { background: "light grey".into(), ..Default::default() }).is_ok());
    }

    #[test]
    fn ids_are_unique() {
        assert_ne!(new_id(), new_id());
    }
}
