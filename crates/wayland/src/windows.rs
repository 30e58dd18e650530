//! Windows and applications on a wlroots compositor.
//!
//! - **The list** comes from `zwlr_foreign_toplevel_management_v1`: each toplevel's title, app id
//!   and states (activated, minimised), kept current by a thread that reads the compositor's events
//!   as they come (so launch and activation waits are event driven). Handles are numbered here, in
//!   the order windows appeared; the number is the [`StackedWindow::handle`].
//! - **Geometry.** Wayland tells no client where windows are. The compositor's IPC does: sway's tree
//!   gives each window's frame, the origin of its surface (what its toolkit's window-relative
//!   coordinates start from), its process and the stacking (tiled windows, then floating ones on
//!   top). A toplevel is matched to sway's window by app id and title, in order. Without IPC, windows
//!   have no known bounds and the list is the frontmost window alone (nothing is judged covered).
//! - **Activation**: the toplevel's `activate` on our seat, then a wait until the compositor reports
//!   it activated.
//! - **Launching** (`handrail-launch`): desktop entries and the managed Chromium, started with
//!   `--ozone-platform=wayland`; handrail waits for a *new* toplevel of the app (its process or a
//!   descendant's by IPC, or the app id its entry promises) and activates it.

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_launch::{LaunchEnv, LaunchWatch, Launcher, Plan, SeenWindow};
use handrail_platform::window_relative::{SurfaceOrigin, SurfaceOrigins};
use handrail_platform::{Launched, PlatformError, Point, Rect, StackedWindow, WindowInfo, WindowKind, Windows};
use log::{debug, warn};
use wayland_client::protocol::{wl_output, wl_seat};
use wayland_client::{event_created_child, Connection, Dispatch, EventQueue, QueueHandle};
use wayland_protocols_wlr::foreign_toplevel::v1::client::{
    zwlr_foreign_toplevel_handle_v1 as handle_v1, zwlr_foreign_toplevel_manager_v1 as manager_v1,
};

use crate::conn::{self, Socket};
use crate::error::WaylandError;
use crate::ipc::{SwayIpc, View};

/// How often a wait re-checks what no event announces (a launched process exiting).
const RECHECK: Duration = Duration::from_millis(50);

/// One toplevel as the compositor describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Toplevel {
    /// handrail's number for it: stable while it exists, never reused.
    pub id: u64,
    pub title: String,
    pub app_id: String,
    pub activated: bool,
    pub minimized: bool,
}

struct Entry {
    handle: handle_v1::ZwlrForeignToplevelHandleV1,
    pending: Toplevel,
    /// What the last `done` committed; None before the first.
    current: Option<Toplevel>,
}

#[derive(Default)]
struct ListState {
    entries: Vec<Entry>,
    next_id: u64,
    /// Bumped at every committed change; waits compare it.
    generation: u64,
    failed: Option<String>,
}

struct List {
    state: Mutex<ListState>,
    changed: Condvar,
}

impl List {
    fn lock(&self) -> MutexGuard<'_, ListState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn snapshot(&self) -> Result<Vec<(Toplevel, handle_v1::ZwlrForeignToplevelHandleV1)>, PlatformError> {
        let st = self.lock();
        if let Some(why) = &st.failed {
            return Err(PlatformError::Failed(why.clone()));
        }
        Ok(st.entries.iter().filter_map(|e| e.current.clone().map(|t| (t, e.handle.clone()))).collect())
    }

    /// Blocks until the list changes after `generation` or `timeout` passes; the generation now.
    fn wait_change(&self, generation: u64, timeout: Duration) -> u64 {
        let st = self.lock();
        let (st, _) = self
            .changed
            .wait_timeout_while(st, timeout, |s| s.generation == generation && s.failed.is_none())
            .unwrap_or_else(|e| e.into_inner());
        st.generation
    }
}

/// The event thread's state: dispatches foreign-toplevel events into the shared list.
struct Reader {
    list: Arc<List>,
}

/// A window of the list with what IPC adds.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub toplevel: Toplevel,
    pub view: Option<View>,
}

/// [`Windows`] for a wlroots compositor. See the [module docs](self).
pub struct WaylandWindows {
    conn: Connection,
    seat: wl_seat::WlSeat,
    list: Arc<List>,
    ipc: Option<SwayIpc>,
    launcher: Launcher,
    stop: Option<UnixStream>,
    reader: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for WaylandWindows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaylandWindows").field("ipc", &self.ipc).finish_non_exhaustive()
    }
}

impl WaylandWindows {
    /// Subscribes to the compositor's toplevel list at `socket`; `ipc` adds geometry.
    pub fn connect(socket: &Socket, ipc: Option<SwayIpc>, env: LaunchEnv) -> Result<WaylandWindows, WaylandError> {
        let (conn, globals, mut queue) = conn::open::<Reader>(socket)?;
        let qh = queue.handle();
        let manager: manager_v1::ZwlrForeignToplevelManagerV1 =
            globals.bind(&qh, 1..=3, ()).map_err(|_| WaylandError::MissingProtocol {
                protocol: "zwlr_foreign_toplevel_manager_v1",
                why: "listing and activating windows on wlroots compositors needs it",
            })?;
        let seat: wl_seat::WlSeat = globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| WaylandError::MissingProtocol { protocol: "wl_seat", why: "activation names a seat" })?;
        let list = Arc::new(List { state: Mutex::new(ListState::default()), changed: Condvar::new() });
        let mut reader = Reader { list: Arc::clone(&list) };
        // The first round trip delivers every existing toplevel, the second their details.
        queue.roundtrip(&mut reader)?;
        queue.roundtrip(&mut reader)?;
        let (stop, stop_rx) =
            UnixStream::pair().map_err(|source| WaylandError::Os { what: "creating a wake-up pair", source })?;
        let thread = std::thread::Builder::new()
            .name("handrail-toplevels".into())
            .spawn(move || read_events(queue, reader, manager, &stop_rx))
            .map_err(|source| WaylandError::Os { what: "starting the toplevel reader", source })?;
        let launcher = Launcher::new(env).with_platform_browser_args(&["--ozone-platform=wayland"]);
        Ok(WaylandWindows { conn, seat, list, ipc, launcher, stop: Some(stop), reader: Some(thread) })
    }

    /// The launch environment given at construction.
    pub fn launch_env(&self) -> &LaunchEnv {
        self.launcher.env()
    }

    /// The toplevels now, in the order they appeared.
    pub fn toplevels(&self) -> Result<Vec<Toplevel>, PlatformError> {
        Ok(self.list.snapshot()?.into_iter().map(|(t, _)| t).collect())
    }

    /// The layout's origin (screen coordinates are layout coordinates less it).
    fn layout_origin(&self, ipc: &SwayIpc) -> Point {
        let outputs = ipc.outputs().unwrap_or_default();
        let x = outputs.iter().map(|(_, r)| r.x).min().unwrap_or(0);
        let y = outputs.iter().map(|(_, r)| r.y).min().unwrap_or(0);
        Point::new(x, y)
    }

    /// Every toplevel with its sway window (when IPC is there), bottom to top as drawn: IPC's order,
    /// then toplevels IPC does not know.
    pub(crate) fn placed(&self) -> Result<Vec<Placed>, PlatformError> {
        let toplevels = self.toplevels()?;
        let Some(ipc) = &self.ipc else {
            return Ok(toplevels.into_iter().map(|toplevel| Placed { toplevel, view: None }).collect());
        };
        let origin = self.layout_origin(ipc);
        let mut views = ipc.views().map_err(PlatformError::from)?;
        for v in &mut views {
            v.frame = shift(v.frame, origin);
            v.content = shift(v.content, origin);
            v.surface = Point::new(v.surface.x - origin.x, v.surface.y - origin.y);
        }
        Ok(match_views(toplevels, views))
    }

    fn info(&self, p: &Placed) -> WindowInfo {
        let pid = p.view.as_ref().and_then(|v| v.pid);
        WindowInfo {
            app: self.launcher.app_name(&p.toplevel.app_id, &p.toplevel.app_id, pid),
            class: p.toplevel.app_id.clone(),
            title: p.toplevel.title.clone(),
            pid,
            bounds: p.view.as_ref().map(|v| v.frame).unwrap_or_default(),
        }
    }

    /// Makes toplevel `id` the active one and waits until the compositor says it is.
    pub fn activate_toplevel(&self, id: u64) -> Result<(), PlatformError> {
        let t0 = Instant::now();
        let deadline = t0 + self.launcher.env().activate_timeout;
        let find = || -> Result<Option<(Toplevel, handle_v1::ZwlrForeignToplevelHandleV1)>, PlatformError> {
            Ok(self.list.snapshot()?.into_iter().find(|(t, _)| t.id == id))
        };
        let Some((t, handle)) = find()? else {
            return Err(PlatformError::NotFound(format!("window {id} does not exist")));
        };
        if t.activated && !t.minimized {
            return Ok(());
        }
        handle.activate(&self.seat);
        self.conn.flush().map_err(|e| PlatformError::Failed(e.to_string()))?;
        let mut generation = self.list.lock().generation;
        loop {
            match find()? {
                None => return Err(PlatformError::NotFound(format!("window {id} closed while activating it"))),
                Some((t, _)) if t.activated => {
                    debug!("activated window {id} in {:?}", t0.elapsed());
                    return Ok(());
                }
                Some(_) => {}
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(PlatformError::Timeout(format!("activating window {id}")));
            }
            generation = self.list.wait_change(generation, left);
        }
    }

    /// Starts `plan`, waits for its new toplevel, activates it.
    fn launch(&self, plan: Plan) -> Result<Launched, PlatformError> {
        let before: Vec<u64> = self.toplevels()?.iter().map(|t| t.id).collect();
        let mut child = self.launcher.spawn(&plan)?;
        let mut watch = LaunchWatch::new(&plan, &child);
        debug!("started {} {:?} as pid {}", plan.program.display(), plan.args, watch.pid());
        let deadline = watch.deadline();
        let mut generation = self.list.lock().generation;
        let found = loop {
            watch.check_child(&mut child);
            let placed = match self.placed() {
                Ok(p) => p,
                Err(e) => {
                    self.launcher.keep(child);
                    return Err(e);
                }
            };
            let new: Vec<SeenWindow<'_>> = placed
                .iter()
                .filter(|p| !before.contains(&p.toplevel.id))
                .map(|p| SeenWindow {
                    id: p.toplevel.id,
                    pid: p.view.as_ref().and_then(|v| v.pid),
                    instance: &p.toplevel.app_id,
                    class: &p.toplevel.app_id,
                })
                .collect();
            let existing = |classes: &[String]| {
                Ok(placed
                    .iter()
                    .rev()
                    .find(|p| handrail_launch::class_matches(&p.toplevel.app_id, &p.toplevel.app_id, classes))
                    .map(|p| p.toplevel.id))
            };
            match watch.decide(&new, existing) {
                Ok(Some(id)) => break placed.iter().find(|p| p.toplevel.id == id).cloned(),
                Ok(None) => {}
                Err(e) => {
                    self.launcher.keep(child);
                    return Err(e);
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break None;
            }
            generation = self.list.wait_change(generation, left.min(RECHECK));
        };
        self.launcher.keep(child);
        let Some(window) = found else { return Err(watch.timed_out()) };
        let appeared = watch.elapsed();
        if let Err(e) = self.activate_toplevel(window.toplevel.id) {
            warn!("window {} of {} appeared but was not activated: {e}", window.toplevel.id, plan.program.display());
        }
        let info = self.info(&window);
        Ok(watch.launched(plan.app.unwrap_or(info.app), info.pid, &window.toplevel.id, appeared))
    }
}

fn shift(r: Rect, origin: Point) -> Rect {
    Rect::new(r.x - origin.x, r.y - origin.y, r.width, r.height)
}

/// Pairs each toplevel with sway's window of the same app id and title (the n-th toplevel so named
/// with the n-th such window) and orders them as sway stacks them; toplevels sway does not list
/// (another compositor's, or not mapped yet) go first, unplaced.
fn match_views(toplevels: Vec<Toplevel>, views: Vec<View>) -> Vec<Placed> {
    let mut used = vec![false; views.len()];
    let mut placed: Vec<(Option<usize>, Placed)> = toplevels
        .into_iter()
        .map(|toplevel| {
            let at = views
                .iter()
                .enumerate()
                .position(|(i, v)| !used[i] && v.app_id == toplevel.app_id && v.title == toplevel.title);
            if let Some(i) = at {
                used[i] = true;
            }
            (at, Placed { view: at.map(|i| views[i].clone()), toplevel })
        })
        .collect();
    placed.sort_by_key(|(at, _)| at.map_or(-1, |i| i as i64));
    placed.into_iter().map(|(_, p)| p).collect()
}

impl Drop for WaylandWindows {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.reader.take() {
            if t.join().is_err() {
                warn!("the toplevel reader panicked");
            }
        }
    }
}

/// The reader thread: dispatches until the connection fails or `stop` closes.
fn read_events(
    mut queue: EventQueue<Reader>,
    mut reader: Reader,
    manager: manager_v1::ZwlrForeignToplevelManagerV1,
    stop: &UnixStream,
) {
    let list = Arc::clone(&reader.list);
    let fail = |why: String| {
        warn!("toplevel list: {why}");
        list.lock().failed = Some(why);
        list.changed.notify_all();
    };
    loop {
        if let Err(e) = queue.dispatch_pending(&mut reader) {
            return fail(e.to_string());
        }
        if let Err(e) = queue.flush() {
            return fail(e.to_string());
        }
        let Some(guard) = queue.prepare_read() else { continue };
        match conn::poll_in(guard.connection_fd().as_raw_fd(), Some(stop.as_raw_fd()), Duration::from_secs(3600)) {
            Ok((_, true)) => {
                manager.stop();
                let _ = queue.flush();
                return;
            }
            Ok((true, _)) => match guard.read() {
                Ok(_) => {}
                Err(wayland_client::backend::WaylandError::Io(e)) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return fail(e.to_string()),
            },
            Ok((false, false)) => {}
            Err(e) => return fail(e.to_string()),
        }
    }
}

impl Dispatch<manager_v1::ZwlrForeignToplevelManagerV1, ()> for Reader {
    fn event(
        reader: &mut Self,
        _: &manager_v1::ZwlrForeignToplevelManagerV1,
        event: manager_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            manager_v1::Event::Toplevel { toplevel } => {
                let mut st = reader.list.lock();
                st.next_id += 1;
                let id = st.next_id;
                st.entries.push(Entry {
                    handle: toplevel,
                    pending: Toplevel { id, ..Toplevel::default() },
                    current: None,
                });
            }
            manager_v1::Event::Finished => {
                reader.list.lock().failed = Some("the compositor ended the toplevel list".into());
                reader.list.changed.notify_all();
            }
            _ => {}
        }
    }

    event_created_child!(Reader, manager_v1::ZwlrForeignToplevelManagerV1, [
        manager_v1::EVT_TOPLEVEL_OPCODE => (handle_v1::ZwlrForeignToplevelHandleV1, ()),
    ]);
}

impl Dispatch<handle_v1::ZwlrForeignToplevelHandleV1, ()> for Reader {
    fn event(
        reader: &mut Self,
        handle: &handle_v1::ZwlrForeignToplevelHandleV1,
        event: handle_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let mut st = reader.list.lock();
        let Some(i) = st.entries.iter().position(|e| &e.handle == handle) else { return };
        match event {
            handle_v1::Event::Title { title } => st.entries[i].pending.title = title,
            handle_v1::Event::AppId { app_id } => st.entries[i].pending.app_id = app_id,
            handle_v1::Event::State { state } => {
                let states: Vec<u32> =
                    state.chunks_exact(4).map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]])).collect();
                let pending = &mut st.entries[i].pending;
                pending.activated = states.contains(&(handle_v1::State::Activated as u32));
                pending.minimized = states.contains(&(handle_v1::State::Minimized as u32));
            }
            handle_v1::Event::Done => {
                st.entries[i].current = Some(st.entries[i].pending.clone());
                st.generation += 1;
                drop(st);
                reader.list.changed.notify_all();
            }
            handle_v1::Event::Closed => {
                let entry = st.entries.remove(i);
                entry.handle.destroy();
                st.generation += 1;
                drop(st);
                reader.list.changed.notify_all();
            }
            _ => {}
        }
    }
}

impl Dispatch<wl_seat::WlSeat, ()> for Reader {
    fn event(_: &mut Self, _: &wl_seat::WlSeat, _: wl_seat::Event, _: &(), _: &Connection, _: &QueueHandle<Self>) {}
}

impl Dispatch<wl_output::WlOutput, ()> for Reader {
    fn event(
        _: &mut Self,
        _: &wl_output::WlOutput,
        _: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<wayland_client::protocol::wl_registry::WlRegistry, wayland_client::globals::GlobalListContents>
    for Reader
{
    fn event(
        _: &mut Self,
        _: &wayland_client::protocol::wl_registry::WlRegistry,
        _: wayland_client::protocol::wl_registry::Event,
        _: &wayland_client::globals::GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Windows for WaylandWindows {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        let placed = self.placed()?;
        Ok(placed.iter().rev().find(|p| p.toplevel.activated).map(|p| self.info(p)))
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
        let placed = self.placed()?;
        if self.ipc.is_none() {
            // No geometry: the frontmost window alone, so nothing is ever judged covered.
            return Ok(placed
                .iter()
                .filter(|p| p.toplevel.activated)
                .map(|p| StackedWindow {
                    handle: p.toplevel.id,
                    info: self.info(p),
                    kind: WindowKind::Normal,
                    minimized: false,
                    active: true,
                })
                .collect());
        }
        Ok(placed
            .iter()
            .filter(|p| p.view.is_some())
            .map(|p| StackedWindow {
                handle: p.toplevel.id,
                info: self.info(p),
                kind: WindowKind::Normal,
                // A window on a workspace no output shows, or a hidden tab, covers nothing.
                minimized: p.toplevel.minimized || !p.view.as_ref().is_some_and(|v| v.visible),
                active: p.toplevel.activated,
            })
            .collect())
    }

    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        self.activate_toplevel(handle)
    }
}

impl SurfaceOrigins for WaylandWindows {
    /// sway tiles windows, and GTK draws no shadows on tiled ones: the surface is the geometry.
    fn surface_origins(&self) -> Result<Vec<SurfaceOrigin>, PlatformError> {
        Ok(self
            .placed()?
            .into_iter()
            .filter_map(|p| {
                let v = p.view?;
                let surface = Point::new(v.surface.x, v.surface.y);
                // sway lays windows out in logical units, the apps' own.
                Some(SurfaceOrigin { title: p.toplevel.title, surface, geometry: surface, scale: 1.0 })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(id: u64, app: &str, title: &str) -> Toplevel {
        Toplevel { id, app_id: app.into(), title: title.into(), ..Toplevel::default() }
    }

    fn view(id: u64, app: &str, title: &str) -> View {
        View { id, app_id: app.into(), title: title.into(), visible: true, ..View::default() }
    }

    #[test]
    fn toplevels_take_sways_order_and_twins_pair_in_order() {
        let tops = vec![top(1, "foot", "a"), top(2, "gtk", "x"), top(3, "foot", "a"), top(4, "new", "n")];
        let views = vec![view(10, "gtk", "x"), view(11, "foot", "a"), view(12, "foot", "a")];
        let placed = match_views(tops, views);
        let order: Vec<(u64, Option<u64>)> =
            placed.iter().map(|p| (p.toplevel.id, p.view.as_ref().map(|v| v.id))).collect();
        assert_eq!(order, vec![(4, None), (2, Some(10)), (1, Some(11)), (3, Some(12))]);
    }
}
