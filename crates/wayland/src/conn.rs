//! Connecting to the compositor, and the outputs every part of the backend needs to place pixels and
//! pointer positions: each output's logical rectangle (xdg-output) and its buffer size (wl_output mode).
//!
//! Every part (capture, input, windows, settle) opens its **own** connection with its own event
//! queue, as the X11 backend does for parts that consume events: a part blocking on its queue never
//! holds up another, and a part's objects (a virtual keyboard, a screencopy frame) live and die with it.

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use handrail_platform::{Monitor, Rect, Size};
use wayland_client::globals::{registry_queue_init, GlobalList, GlobalListContents};
use wayland_client::protocol::{wl_output, wl_registry};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, WEnum};
use wayland_protocols::xdg::xdg_output::zv1::client::{zxdg_output_manager_v1, zxdg_output_v1};

use crate::error::WaylandError;

/// Where a compositor listens: its socket's full path (`$XDG_RUNTIME_DIR/wayland-1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Socket(pub PathBuf);

impl Socket {
    /// A display name as `WAYLAND_DISPLAY` holds it: an absolute path, or a name in `runtime_dir`.
    pub fn resolve(display: &str, runtime_dir: Option<&Path>) -> Result<Socket, WaylandError> {
        let path = Path::new(display);
        if display.is_empty() {
            return Err(WaylandError::Other("an empty Wayland display name".into()));
        }
        if path.is_absolute() {
            return Ok(Socket(path.to_owned()));
        }
        if display.contains('/') {
            return Err(WaylandError::Other(format!(
                "Wayland display {display:?}: give a socket name (wayland-1) or an absolute path"
            )));
        }
        let dir = runtime_dir.ok_or_else(|| {
            WaylandError::Other(format!("Wayland display {display:?} needs XDG_RUNTIME_DIR to find its socket"))
        })?;
        Ok(Socket(dir.join(display)))
    }

    pub(crate) fn connect(&self) -> Result<Connection, WaylandError> {
        let fail = |reason: String| WaylandError::Connect { path: self.0.display().to_string(), reason };
        let stream = UnixStream::connect(&self.0).map_err(|e| fail(e.to_string()))?;
        Connection::from_socket(stream).map_err(|e| fail(e.to_string()))
    }
}

/// One output as the compositor lays it out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputInfo {
    pub name: String,
    /// Position and size in the compositor's logical (layout) coordinates.
    pub logical: Rect,
    /// Its current mode in buffer pixels (larger than `logical` on a scaled output).
    pub pixels: Size,
    pub scale: i32,
    /// Whether xdg-output (or a wl_output geometry) gave the logical rectangle.
    pub(crate) has_logical: bool,
    pub(crate) done: bool,
}

/// The outputs of one connection, in the order they were announced.
#[derive(Debug, Default)]
pub struct Outputs {
    pub(crate) list: Vec<(wl_output::WlOutput, OutputInfo)>,
}

impl Outputs {
    fn info_mut(&mut self, output: &wl_output::WlOutput) -> Option<&mut OutputInfo> {
        self.list.iter_mut().find(|(o, _)| o == output).map(|(_, i)| i)
    }

    /// The layout's bounding box: screen coordinates are layout coordinates less its origin.
    pub fn layout_bounds(&self) -> Rect {
        let mut it = self.list.iter().map(|(_, i)| i.logical).filter(|r| !r.is_empty());
        let Some(first) = it.next() else { return Rect::default() };
        it.fold(first, |acc, r| acc.union(&r))
    }

    /// The screen's size (the layout's bounding box).
    pub fn screen_size(&self) -> Size {
        let b = self.layout_bounds();
        Size::new(b.width, b.height)
    }

    /// The monitors in screen coordinates; the first announced output is the primary one.
    pub fn monitors(&self) -> Vec<Monitor> {
        let origin = self.layout_bounds();
        self.list
            .iter()
            .filter(|(_, i)| !i.logical.is_empty())
            .enumerate()
            .map(|(n, (_, i))| Monitor {
                name: i.name.clone(),
                bounds: Rect::new(i.logical.x - origin.x, i.logical.y - origin.y, i.logical.width, i.logical.height),
                primary: n == 0,
            })
            .collect()
    }

    pub(crate) fn ready(&self) -> bool {
        !self.list.is_empty() && self.list.iter().all(|(_, i)| i.done && i.has_logical)
    }
}

/// A part's state that tracks outputs.
pub(crate) trait HasOutputs {
    fn outputs(&mut self) -> &mut Outputs;
}

/// Binds every output (and xdg-output for its logical rectangle) on `queue` and waits until all are
/// described.
pub(crate) fn bind_outputs<S>(
    globals: &GlobalList,
    queue: &mut EventQueue<S>,
    state: &mut S,
) -> Result<(), WaylandError>
where
    S: HasOutputs
        + Dispatch<wl_output::WlOutput, ()>
        + Dispatch<zxdg_output_manager_v1::ZxdgOutputManagerV1, ()>
        + Dispatch<zxdg_output_v1::ZxdgOutputV1, wl_output::WlOutput>
        + 'static,
{
    let qh = queue.handle();
    let xdg: Option<zxdg_output_manager_v1::ZxdgOutputManagerV1> = globals.bind(&qh, 2..=3, ()).ok();
    let names: Vec<(u32, u32)> = globals.contents().with_list(|list| {
        list.iter()
            .filter(|g| g.interface == wl_output::WlOutput::interface().name)
            .map(|g| (g.name, g.version))
            .collect()
    });
    if names.is_empty() {
        return Err(WaylandError::MissingProtocol { protocol: "wl_output", why: "there is no output to show" });
    }
    for (name, version) in names {
        let output: wl_output::WlOutput = globals.registry().bind(name, version.min(4), &qh, ());
        if let Some(xdg) = &xdg {
            xdg.get_xdg_output(&output, &qh, output.clone());
        }
        state.outputs().list.push((output, OutputInfo { scale: 1, ..OutputInfo::default() }));
    }
    // Two round trips: the first delivers wl_output's events, the second xdg-output's.
    for _ in 0..3 {
        queue.roundtrip(state)?;
        if state.outputs().ready() {
            break;
        }
    }
    if xdg.is_none() {
        // Without xdg-output, wl_output's position and mode (divided by the scale) stand in.
        for (_, info) in &mut state.outputs().list {
            info.has_logical = true;
        }
    }
    Ok(())
}

pub(crate) fn output_event(outputs: &mut Outputs, output: &wl_output::WlOutput, event: wl_output::Event) {
    let Some(info) = outputs.info_mut(output) else { return };
    match event {
        wl_output::Event::Geometry { x, y, .. } if !info.has_logical => {
            info.logical.x = x;
            info.logical.y = y;
        }
        wl_output::Event::Mode { flags: WEnum::Value(flags), width, height, .. }
            if flags.contains(wl_output::Mode::Current) =>
        {
            info.pixels = Size::new(width.max(0) as u32, height.max(0) as u32);
            if !info.has_logical {
                let s = info.scale.max(1) as u32;
                info.logical.width = info.pixels.width / s;
                info.logical.height = info.pixels.height / s;
            }
        }
        wl_output::Event::Scale { factor } => info.scale = factor.max(1),
        wl_output::Event::Name { name } => info.name = name,
        wl_output::Event::Done => info.done = true,
        _ => {}
    }
}

pub(crate) fn xdg_output_event(outputs: &mut Outputs, output: &wl_output::WlOutput, event: zxdg_output_v1::Event) {
    let Some(info) = outputs.info_mut(output) else { return };
    match event {
        zxdg_output_v1::Event::LogicalPosition { x, y } => {
            info.logical.x = x;
            info.logical.y = y;
            info.has_logical = true;
        }
        zxdg_output_v1::Event::LogicalSize { width, height } => {
            info.logical.width = width.max(0) as u32;
            info.logical.height = height.max(0) as u32;
            info.has_logical = true;
        }
        zxdg_output_v1::Event::Name { name } if info.name.is_empty() => info.name = name,
        _ => {}
    }
}

/// Implements the output-tracking `Dispatch`es (and the registry's) for a part's state type.
macro_rules! track_outputs {
    ($state:ty) => {
        impl
            wayland_client::Dispatch<
                wayland_client::protocol::wl_registry::WlRegistry,
                wayland_client::globals::GlobalListContents,
            > for $state
        {
            fn event(
                _: &mut Self,
                _: &wayland_client::protocol::wl_registry::WlRegistry,
                _: wayland_client::protocol::wl_registry::Event,
                _: &wayland_client::globals::GlobalListContents,
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
                // Outputs plugged in later are not followed: a part is re-created with its desktop.
            }
        }
        impl wayland_client::Dispatch<wayland_client::protocol::wl_output::WlOutput, ()> for $state {
            fn event(
                state: &mut Self,
                output: &wayland_client::protocol::wl_output::WlOutput,
                event: wayland_client::protocol::wl_output::Event,
                _: &(),
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
                $crate::conn::output_event($crate::conn::HasOutputs::outputs(state), output, event);
            }
        }
        impl
            wayland_client::Dispatch<
                wayland_protocols::xdg::xdg_output::zv1::client::zxdg_output_manager_v1::ZxdgOutputManagerV1,
                (),
            > for $state
        {
            fn event(
                _: &mut Self,
                _: &wayland_protocols::xdg::xdg_output::zv1::client::zxdg_output_manager_v1::ZxdgOutputManagerV1,
                _: wayland_protocols::xdg::xdg_output::zv1::client::zxdg_output_manager_v1::Event,
                _: &(),
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
            }
        }
        impl
            wayland_client::Dispatch<
                wayland_protocols::xdg::xdg_output::zv1::client::zxdg_output_v1::ZxdgOutputV1,
                wayland_client::protocol::wl_output::WlOutput,
            > for $state
        {
            fn event(
                state: &mut Self,
                _: &wayland_protocols::xdg::xdg_output::zv1::client::zxdg_output_v1::ZxdgOutputV1,
                event: wayland_protocols::xdg::xdg_output::zv1::client::zxdg_output_v1::Event,
                output: &wayland_client::protocol::wl_output::WlOutput,
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
                $crate::conn::xdg_output_event($crate::conn::HasOutputs::outputs(state), output, event);
            }
        }
    };
}
pub(crate) use track_outputs;

/// Connects and reads the global list into a fresh queue.
pub(crate) fn open<S>(socket: &Socket) -> Result<(Connection, GlobalList, EventQueue<S>), WaylandError>
where
    S: Dispatch<wl_registry::WlRegistry, GlobalListContents> + 'static,
{
    let conn = socket.connect()?;
    let (globals, queue) = registry_queue_init::<S>(&conn).map_err(|e| WaylandError::Connection(e.to_string()))?;
    Ok((conn, globals, queue))
}

/// Dispatches `queue` until `done` holds or `deadline` passes (`Ok(false)`). Blocks in `poll(2)` on
/// the socket between batches: no busy loop, no fixed sleep.
pub(crate) fn dispatch_until<S>(
    queue: &mut EventQueue<S>,
    state: &mut S,
    deadline: std::time::Instant,
    mut done: impl FnMut(&S) -> bool,
) -> Result<bool, WaylandError> {
    loop {
        queue.dispatch_pending(state)?;
        if done(state) {
            return Ok(true);
        }
        queue.flush()?;
        let Some(guard) = queue.prepare_read() else { continue };
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        if poll_in(guard.connection_fd().as_raw_fd(), None, left)?.0 {
            match guard.read() {
                Ok(_) => {}
                Err(wayland_client::backend::WaylandError::Io(e)) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// Waits until `fd` (or `wake`, when given) is readable, at most `timeout`; says which are.
pub(crate) fn poll_in(
    fd: std::os::fd::RawFd,
    wake: Option<std::os::fd::RawFd>,
    timeout: std::time::Duration,
) -> Result<(bool, bool), WaylandError> {
    let ms = i32::try_from(timeout.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
    let mut fds = [
        libc::pollfd { fd, events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: wake.unwrap_or(-1), events: libc::POLLIN, revents: 0 },
    ];
    let n = if wake.is_some() { 2 } else { 1 };
    loop {
        // SAFETY: `fds` is a valid array of pollfd of at least `n` entries for the duration of the call.
        let r = unsafe { libc::poll(fds.as_mut_ptr(), n as libc::nfds_t, ms) };
        if r >= 0 {
            return Ok((fds[0].revents != 0, n == 2 && fds[1].revents != 0));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(WaylandError::Os { what: "poll on the Wayland socket", source: e });
        }
    }
}

/// Milliseconds for input event timestamps: a monotonic clock, as compositors expect.
pub(crate) fn now_ms() -> u32 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_resolve_in_the_runtime_dir_or_as_paths() {
        let dir = Path::new("/run/user/1000");
        assert_eq!(Socket::resolve("wayland-1", Some(dir)).ok(), Some(Socket(dir.join("wayland-1"))));
        assert_eq!(Socket::resolve("/tmp/x/wayland-0", None).ok(), Some(Socket(PathBuf::from("/tmp/x/wayland-0"))));
        assert!(Socket::resolve("wayland-1", None).is_err());
        assert!(Socket::resolve("a/b", Some(dir)).is_err());
        assert!(Socket::resolve("", Some(dir)).is_err());
    }
}
