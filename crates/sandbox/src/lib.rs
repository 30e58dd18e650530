//! A private, disposable virtual desktop that handrail starts and stops itself, so it never drives the
//! user's real display unless that display is named explicitly.
//!
//! [`Sandbox::start`] creates a private temporary root (mode 700) with `XDG_RUNTIME_DIR`, `HOME` and
//! the XDG config/data/cache dirs inside it (accessibility settings persist in dconf under the config
//! dir and would otherwise leak between sessions), then starts, in order and each bounded by
//! [`SandboxOptions::step_timeout`]:
//!
//! 1. `Xvfb :N -screen 0 WxHxD -nolisten tcp -noreset -extension GLX` (GLX only with
//!    [`SandboxOptions::opengl`]) — ready when an X connection setup on
//!    /tmp/.X11-unix/XN succeeds (`-noreset` keeps root properties such as `AT_SPI_BUS` when the last
//!    client disconnects);
//! 2. `dbus-daemon --session --nofork` on `$XDG_RUNTIME_DIR/bus` (address read from its stdout);
//! 3. `at-spi-bus-launcher --launch-immediately --a11y=1 --screen-reader=0` — ready when
//!    `org.a11y.Bus.GetAddress` answers;
//! 4. `openbox --sm-disable` — ready when its `--startup` command has run (it claims the screen before
//!    it manages windows, and a window mapped in between would never show);
//! 5. `xsetroot -solid <background>` (OCR reads almost nothing on the default black).
//!
//! With [`Session::Sway`], steps 1, 4 and 5 are replaced by a private headless sway (run as an
//! unprivileged user when the owner is root; see the `wayland` module), ready when its IPC answers
//! with an active output; apps then get `WAYLAND_DISPLAY` (the socket's absolute path) and `SWAYSOCK`
//! instead of `DISPLAY`. With [`Session::Gnome`] they are replaced by PipeWire, WirePlumber and a
//! headless mutter (see the `gnome` module); apps get `WAYLAND_DISPLAY` too.
//!
//! Apps are started with [`Sandbox::command`] / [`Sandbox::spawn`], which set the sandbox's
//! environment ([`Sandbox::env`]) and remove variables that point at the real session
//! ([`REMOVED_ENV`]).
//!
//! # Teardown
//! Every process started in the sandbox carries `HANDRAIL_SANDBOX=<id>` ([`MARKER_VAR`]) in its
//! environment, and processes inherit it — including helpers that get re-parented to init
//! (at-spi2-registryd, dconf-service, browsers' crash handlers) and services the session bus
//! activates. [`Sandbox::stop`] (and `Drop`) sends SIGTERM to the recorded PIDs and to every process
//! with the marker, polls for ~1 s, then SIGKILLs what is left, removes a stale X lock/socket and
//! deletes the temporary root. A program that rebuilds its environment from scratch (`env -i`)
//! escapes the marker; its parent is still stopped.
//!
//! If the owning process dies without tearing down (SIGKILL, abort), two mechanisms clean up:
//! direct children get SIGTERM through `PR_SET_PDEATHSIG` (see
//! [`SandboxOptions::parent_death_signal`] for its per-thread caveat), and a small reaper process
//! (`sh`), which holds the read end of a pipe whose only write end is in the owner, wakes on EOF and
//! kills everything with the marker and removes the root.
//!
//! # Apps
//! [`Sandbox::process_handle`] gives a [`SandboxProcesses`]: which processes are apps (everything
//! carrying the marker that does not descend from the desktop's own processes) and a way to close them
//! all between tasks while the desktop stays up.
//!
//! # Signals
//! [`Sandbox::run_until_signal`] and [`run_inside`] install SIGINT/SIGTERM/SIGHUP handlers (a
//! self-pipe, see [`SignalWatcher`]) so Ctrl-C stops the desktop cleanly.
//!
//! Linux only (uses /proc, prctl, pidfd).
#![cfg(target_os = "linux")]

mod apps;
mod error;
mod gnome;
mod log;
mod procs;
mod reaper;
mod sandbox;
mod setup;
mod signals;
mod sockets;
mod watch;
mod wayland;
mod x11;

pub use apps::{AppProcess, ClosedApp, ClosedApps, SandboxProcesses};
pub use error::SandboxError;
pub use gnome::{trixie_gnome_root, DEFAULT_GNOME_ROOT, GNOME_ROOT_VAR};
pub use log::log_to_stderr;
pub use procs::{marked_processes, MARKER_VAR};
pub use sandbox::{run_inside, Sandbox, SandboxOptions, Session, Shutdown, StartTimings, StopReport, REMOVED_ENV};
pub use setup::{RunOutcome, SetupError, TaskSetup, MAX_OUTPUT_BYTES};
pub use signals::{Caught, SignalWatcher, WATCHED_SIGNALS};
pub use watch::{ExitWatch, Exited};
pub use wayland::DESKTOP_USER;
pub use x11::{FIRST_AUTO_DISPLAY, LAST_AUTO_DISPLAY};
