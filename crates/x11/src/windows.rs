//! Windows and applications on an X11 desktop with an EWMH window manager (openbox in the sandbox).
//!
//! - **Frontmost**: `_NET_ACTIVE_WINDOW` → title (`_NET_WM_NAME`, else `WM_NAME`), app name (WM_CLASS
//!   mapped to a desktop entry's `Name`, else the class, else `/proc/PID/comm`), bounds including the
//!   window manager's frame (`_NET_FRAME_EXTENTS`).
//! - **Activation**: a `_NET_ACTIVE_WINDOW` client message as a pager (source indication 2) with a real
//!   server timestamp, then a bounded wait until the window manager reports the window active. Openbox
//!   refuses focus stealing, so every window handled here (launched apps, browser windows) is activated
//!   explicitly.
//! - **Launching**: an app is found by a human name among XDG desktop entries, else as an executable on
//!   `PATH` (plain names only, no `sbin` directories, a deny list of session-ending and killing tools);
//!   it runs with the launch environment in its own process group; handrail waits for a *new*
//!   top-level window belonging to it (its pid or a descendant's, or the WM_CLASS its entry promises)
//!   and activates it. A running app is launched again: single-instance apps hand over to their running
//!   copy, whose new (or, failing that, existing) window is then used.
//! - **Browser**: Debian's Chromium with accessibility on and a private profile. Later URLs go to the
//!   running instance (Chromium's own single-instance handover for the same profile), each in a new
//!   window. Launching the browser's own desktop entry ("chromium") opens this managed browser too.
//!
//! Waits are bounded and event driven: a second X connection (`watch.rs`) watches root property changes,
//! with a short re-check interval for what X does not announce (a child exiting). If that connection
//! cannot be opened, waits fall back to polling.

pub(crate) mod stack;
mod watch;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub use handrail_launch::LaunchEnv;
use handrail_launch::{LaunchWatch, Launcher, Plan, SeenWindow};
use handrail_platform::{Launched, PlatformError, StackedWindow, WindowInfo, Windows};
use log::{debug, warn};
use x11rb::errors::ReplyError;
use x11rb::protocol::xproto::{AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, GetPropertyReply, Window};

use self::stack::{is_gone, parse_wm_class, InfoRequest};

use self::watch::Watcher;
use crate::{Conn, X11Error};

/// EWMH source indication "pager": the request comes from a tool acting for the user, which window
/// managers honour even when they refuse applications' own focus requests.
const SOURCE_PAGER: u32 = 2;
/// How often a wait re-checks its condition even without an X event (child exit, missed events).
const RECHECK: Duration = Duration::from_millis(50);
/// Polling interval when the event connection is unavailable.
const POLL: Duration = Duration::from_millis(10);
/// How often an activation request is repeated while the window manager has not complied (a window
/// that was just mapped may not be managed yet).
const ACTIVATE_RESEND: Duration = Duration::from_millis(250);
/// Upper bound for window list reads (in 32-bit units).
const MAX_CLIENTS: u32 = 4096;
/// The event connection, opened on first use; if it cannot be opened, waits poll instead.
enum WatcherState {
    Unopened,
    Open(Watcher),
    Failed,
}

/// A top-level window's identity, as far as launching cares.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ClientFacts {
    window: Window,
    pid: Option<u32>,
    instance: String,
    class: String,
}

/// [`Windows`] for an X11 desktop with an EWMH window manager. See the module docs.
pub struct X11Windows {
    conn: Arc<Conn>,
    launcher: Launcher,
    watcher: Mutex<WatcherState>,
}

impl std::fmt::Debug for X11Windows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Windows").field("display", &self.conn.display).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The data behind these locks stays consistent even if a holder panicked.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn failed(e: impl Into<X11Error>) -> PlatformError {
    PlatformError::from(e.into())
}

impl X11Windows {
    /// Windows on `conn`'s display; launched programs get `env`. Nothing is started or opened yet.
    pub fn new(conn: Arc<Conn>, env: LaunchEnv) -> X11Windows {
        X11Windows { conn, launcher: Launcher::new(env), watcher: Mutex::new(WatcherState::Unopened) }
    }

    /// The launch environment given at construction.
    pub fn launch_env(&self) -> &LaunchEnv {
        self.launcher.env()
    }

    /// The active window (`_NET_ACTIVE_WINDOW`), `None` when nothing is active.
    pub fn active_window(&self) -> Result<Option<Window>, PlatformError> {
        self.read_active().map_err(PlatformError::from)
    }

    /// Top-level client windows (`_NET_CLIENT_LIST`), oldest first.
    pub fn client_windows(&self) -> Result<Vec<Window>, PlatformError> {
        self.read_window_list(self.conn.atoms._NET_CLIENT_LIST).map_err(PlatformError::from)
    }

    /// Title, app, pid and frame bounds of one top-level client window.
    pub fn window_info(&self, window: Window) -> Result<WindowInfo, PlatformError> {
        self.query_window(window).map_err(PlatformError::from)
    }

    /// Makes `window` (a top-level client window) the active one and waits until the window manager
    /// says it is, up to [`LaunchEnv::activate_timeout`].
    pub fn activate(&self, window: Window) -> Result<(), PlatformError> {
        let t0 = Instant::now();
        let current = self.read_active().map_err(failed)?;
        if current == Some(window) {
            return Ok(());
        }
        self.ensure_exists(window)?;
        // A real timestamp: openbox passes it on to SetInputFocus, which the server ignores when older
        // than the last focus change. CurrentTime (0) is the fallback.
        let time = self.with_watcher(|w| w.server_time(Duration::from_millis(200))).flatten().unwrap_or(0);
        debug!("activating window {window:#x} (server time {time})");
        let atoms = &self.conn.atoms;
        let event = ClientMessageEvent::new(
            32,
            window,
            atoms._NET_ACTIVE_WINDOW,
            [SOURCE_PAGER, time, current.unwrap_or(0), 0, 0],
        );
        let mut next_send = Instant::now();
        let deadline = t0 + self.launcher.env().activate_timeout;
        let active = self.wait_for(deadline, &[atoms._NET_ACTIVE_WINDOW], || {
            if self.read_active().map_err(failed)? == Some(window) {
                return Ok(Some(()));
            }
            if Instant::now() >= next_send {
                let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
                self.conn.conn.send_event(false, self.conn.root, mask, event).map_err(failed)?;
                self.conn.flush().map_err(failed)?;
                next_send = Instant::now() + ACTIVATE_RESEND;
            }
            Ok(None)
        })?;
        match active {
            Some(()) => {
                debug!("activated window {window:#x} in {:?}", t0.elapsed());
                Ok(())
            }
            None => {
                // Say why: the window may have closed, or never been managed by the window manager.
                self.ensure_exists(window)?;
                let managed = self.client_windows()?.contains(&window);
                let why = if managed { "" } else { " (not a window the window manager manages)" };
                Err(PlatformError::Timeout(format!("activating window {window:#x}{why}")))
            }
        }
    }

    /// `NotFound` when `window` does not exist (any more).
    fn ensure_exists(&self, window: Window) -> Result<(), PlatformError> {
        match self.conn.conn.get_geometry(window).map_err(failed)?.reply() {
            Ok(_) => Ok(()),
            Err(ReplyError::X11Error(_)) => Err(PlatformError::NotFound(format!("window {window:#x} does not exist"))),
            Err(e) => Err(failed(e)),
        }
    }

    // ---- X queries -------------------------------------------------------------------------------

    fn property(
        &self,
        window: Window,
        prop: u32,
        kind: impl Into<u32>,
        len: u32,
    ) -> Result<GetPropertyReply, X11Error> {
        Ok(self.conn.conn.get_property(false, window, prop, kind, 0, len)?.reply()?)
    }

    fn read_active(&self) -> Result<Option<Window>, X11Error> {
        let reply = self.property(self.conn.root, self.conn.atoms._NET_ACTIVE_WINDOW, AtomEnum::WINDOW, 1)?;
        Ok(reply.value32().and_then(|mut v| v.next()).filter(|w| *w != 0))
    }

    fn read_window_list(&self, prop: u32) -> Result<Vec<Window>, X11Error> {
        let reply = self.property(self.conn.root, prop, AtomEnum::WINDOW, MAX_CLIENTS)?;
        Ok(reply.value32().map(|v| v.collect()).unwrap_or_default())
    }

    /// pid and WM_CLASS of a window.
    fn client_facts(&self, window: Window) -> Result<ClientFacts, X11Error> {
        self.clients_facts(&[window]).pop().unwrap_or_else(|| Err(X11Error::Other("no reply".into())))
    }

    /// pid and WM_CLASS of each window, all requests in flight together (one round trip). A window
    /// that vanished meanwhile gives an X error in its slot.
    fn clients_facts(&self, windows: &[Window]) -> Vec<Result<ClientFacts, X11Error>> {
        let c = &self.conn.conn;
        let a = &self.conn.atoms;
        let cookies: Vec<_> = windows
            .iter()
            .map(|&w| {
                let pid = c.get_property(false, w, a._NET_WM_PID, AtomEnum::CARDINAL, 0, 1)?;
                let class = c.get_property(false, w, a.WM_CLASS, AtomEnum::STRING, 0, 256)?;
                Ok((w, pid, class))
            })
            .collect();
        cookies
            .into_iter()
            .map(|sent: Result<_, X11Error>| {
                let (window, pid, class) = sent?;
                let pid = pid.reply()?.value32().and_then(|mut v| v.next()).filter(|p| *p != 0);
                let (instance, class) = parse_wm_class(&class.reply()?.value);
                Ok(ClientFacts { window, pid, instance, class })
            })
            .collect()
    }

    /// pid and WM_CLASS of every client window, oldest first (windows that vanish meanwhile are left out).
    fn all_clients_facts(&self) -> Result<Vec<ClientFacts>, PlatformError> {
        let windows = self.client_windows()?;
        let mut all = Vec::with_capacity(windows.len());
        for facts in self.clients_facts(&windows) {
            match facts {
                Ok(f) => all.push(f),
                Err(e) if is_gone(&e) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(all)
    }

    /// Everything [`WindowInfo`] holds, with all requests in flight together (one round trip).
    fn query_window(&self, window: Window) -> Result<WindowInfo, X11Error> {
        let raw = InfoRequest::send(&self.conn, window)?.finish()?;
        let app = self.app_name(&raw.instance, &raw.class, raw.pid);
        Ok(raw.into_info(app))
    }

    /// A human app name for a window: the desktop entry owning its WM_CLASS, else the class, else the
    /// process name.
    fn app_name(&self, instance: &str, class: &str, pid: Option<u32>) -> String {
        self.launcher.app_name(instance, class, pid)
    }

    // ---- waiting ---------------------------------------------------------------------------------

    /// Runs `f` with the event connection, opening it on first use. `None` when it is unavailable.
    fn with_watcher<T>(&self, f: impl FnOnce(&Watcher) -> Result<T, X11Error>) -> Option<T> {
        let mut state = lock(&self.watcher);
        if let WatcherState::Unopened = *state {
            *state = match Watcher::open(&self.conn.display) {
                Ok(w) => WatcherState::Open(w),
                Err(e) => {
                    warn!("no event connection to {} ({e}); waits will poll", self.conn.display);
                    WatcherState::Failed
                }
            };
        }
        let WatcherState::Open(watcher) = &*state else { return None };
        match f(watcher) {
            Ok(v) => Some(v),
            Err(e) => {
                warn!("event connection to {} failed ({e}); waits will poll", self.conn.display);
                *state = WatcherState::Failed;
                None
            }
        }
    }

    /// Calls `check` until it returns a value or `deadline` passes (`Ok(None)`). Between checks it
    /// blocks until one of the root properties `atoms` changes, at most [`RECHECK`] at a time.
    fn wait_for<T>(
        &self,
        deadline: Instant,
        atoms: &[u32],
        mut check: impl FnMut() -> Result<Option<T>, PlatformError>,
    ) -> Result<Option<T>, PlatformError> {
        loop {
            if let Some(v) = check()? {
                return Ok(Some(v));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let slice = left.min(RECHECK);
            if self.with_watcher(|w| w.wait_root_change(atoms, slice)).is_none() {
                std::thread::sleep(slice.min(POLL));
            }
        }
    }

    // ---- launching -------------------------------------------------------------------------------

    /// Whether a window's WM_CLASS is one of `classes` (lower case). Chromium's instance with a custom
    /// profile is `chromium (/profile)`, hence the first word.
    fn class_matches(facts: &ClientFacts, classes: &[String]) -> bool {
        handrail_launch::class_matches(&facts.instance, &facts.class, classes)
    }

    /// The topmost existing window of the app, for single-instance apps that raised nothing new.
    fn existing_window(&self, classes: &[String]) -> Result<Option<Window>, PlatformError> {
        let stacking = self.read_window_list(self.conn.atoms._NET_CLIENT_LIST_STACKING).map_err(failed)?;
        // Topmost (last) first.
        for facts in self.clients_facts(&stacking).into_iter().rev() {
            match facts {
                Ok(f) if Self::class_matches(&f, classes) => return Ok(Some(f.window)),
                Ok(_) => {}
                Err(e) if is_gone(&e) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(None)
    }

    /// Starts `plan`, waits for its window, activates it.
    fn launch(&self, plan: Plan) -> Result<Launched, PlatformError> {
        // Window ids are reused (a new client may get the id range of one that just disconnected), so a
        // window is new when its id is new *or* its owner changed.
        let before: HashMap<Window, ClientFacts> =
            self.all_clients_facts()?.into_iter().map(|f| (f.window, f)).collect();
        let mut child = self.launcher.spawn(&plan)?;
        let mut watch = LaunchWatch::new(&plan, &child);
        debug!("started {} {:?} as pid {}", plan.program.display(), plan.args, watch.pid());
        let found = self.wait_for(watch.deadline(), &[self.conn.atoms._NET_CLIENT_LIST], || {
            watch.check_child(&mut child);
            let new: Vec<ClientFacts> =
                self.all_clients_facts()?.into_iter().filter(|f| before.get(&f.window) != Some(f)).collect();
            let seen: Vec<SeenWindow<'_>> = new
                .iter()
                .map(|f| SeenWindow { id: u64::from(f.window), pid: f.pid, instance: &f.instance, class: &f.class })
                .collect();
            let existing = |classes: &[String]| Ok(self.existing_window(classes)?.map(u64::from));
            // Ids come from X window ids: they fit back.
            Ok(watch.decide(&seen, existing)?.and_then(|id| Window::try_from(id).ok()))
        });
        self.launcher.keep(child);
        let Some(window) = found? else { return Err(watch.timed_out()) };
        let appeared = watch.elapsed();
        // A window that exists but cannot be activated is still a launch; the engine's own observation
        // then shows what is frontmost.
        if let Err(e) = self.activate(window) {
            warn!("window {window:#x} of {} appeared but was not activated: {e}", plan.program.display());
        }
        let facts = self.client_facts(window).ok();
        let app = match plan.app {
            Some(app) => app,
            None => facts.as_ref().map(|f| self.app_name(&f.instance, &f.class, f.pid)).unwrap_or_default(),
        };
        Ok(watch.launched(app, facts.and_then(|f| f.pid), &format_args!("{window:#x}"), appeared))
    }
}

impl Windows for X11Windows {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        // The active window can close between reading its id and its properties: read again.
        let mut attempts = 3;
        loop {
            let Some(window) = self.read_active().map_err(failed)? else { return Ok(None) };
            match self.query_window(window) {
                Ok(info) => return Ok(Some(info)),
                Err(e) if is_gone(&e) && attempts > 1 => {
                    debug!("active window {window:#x} vanished while reading it: {e}");
                    attempts -= 1;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn launch_app(&self, name: &str) -> Result<Launched, PlatformError> {
        let plan = self.launcher.plan_app(name)?;
        self.launch(plan)
    }

    fn open_url(&self, url: &str) -> Result<Launched, PlatformError> {
        let plan = self.launcher.plan_browser(Some(url))?;
        self.launch(plan)
    }

    fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
        let active = self.read_active().map_err(failed)?;
        let raw = stack::read_stack(&self.conn).map_err(failed)?;
        Ok(raw
            .into_iter()
            .map(|w| {
                let app = self.app_name(&w.info.instance, &w.info.class, w.info.pid);
                stack::to_stacked(w, app, active)
            })
            .collect())
    }

    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        let window = Window::try_from(handle)
            .map_err(|_| PlatformError::Invalid(format!("{handle:#x} is not an X window id")))?;
        X11Windows::activate(self, window)
    }
}

#[cfg(test)]
mod tests {
    use super::stack::decode_text;
    use super::*;

    #[test]
    fn wm_class_parts() {
        assert_eq!(parse_wm_class(b"xterm\0XTerm\0"), ("xterm".into(), "XTerm".into()));
        assert_eq!(parse_wm_class(b"solo"), ("solo".into(), String::new()));
        assert_eq!(parse_wm_class(b""), (String::new(), String::new()));
    }

    #[test]
    fn wm_name_decoding() {
        let reply = |type_: AtomEnum, value: &[u8]| GetPropertyReply {
            format: 8,
            sequence: 0,
            length: 0,
            type_: type_.into(),
            bytes_after: 0,
            value_len: value.len() as u32,
            value: value.to_vec(),
        };
        assert_eq!(decode_text(&reply(AtomEnum::STRING, b"caf\xe9")), "café", "STRING is Latin-1");
        assert_eq!(decode_text(&reply(AtomEnum::ANY, "café".as_bytes())), "café");
    }
}
