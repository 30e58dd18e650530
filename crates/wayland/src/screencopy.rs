//! `wlr-screencopy-unstable-v1`: the compositor copies an output's pixels into our shared memory,
//! optionally only once something on it changed (`copy_with_damage`, which also says *what* changed).
//! Capture asks for plain copies of every output; settle keeps a damage copy in flight on each.
//!
//! The frame protocol: `capture_output` → `buffer` (the shm format and size it wants; v3 adds
//! `buffer_done` after every offer) → we attach a matching buffer with `copy` → `flags` (y-invert),
//! `damage` rectangles (damage copies) → `ready` or `failed`. The buffer is attached from inside the
//! event handler, so one dispatch loop drives any number of outputs at once.

use std::time::Instant;

use handrail_platform::Rect;
use log::debug;
use wayland_client::protocol::{wl_buffer, wl_shm, wl_shm_pool};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle, WEnum};
use wayland_protocols_wlr::screencopy::v1::client::{zwlr_screencopy_frame_v1, zwlr_screencopy_manager_v1};

use crate::conn::{self, bind_outputs, track_outputs, HasOutputs, Outputs, Socket};
use crate::error::WaylandError;
use crate::shm::{BufferSpec, ShmBuffer};

/// One output's copy in flight, or its outcome.
#[derive(Default)]
struct Pending {
    frame: Option<zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1>,
    with_damage: bool,
    offers: Vec<BufferSpec>,
    y_invert: bool,
    damage: Vec<Rect>,
    outcome: Option<Result<(), String>>,
}

pub(crate) struct CopyState {
    outputs: Outputs,
    shm: wl_shm::WlShm,
    manager: zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
    version: u32,
    pending: Vec<Pending>,
    buffers: Vec<Option<ShmBuffer>>,
}

impl HasOutputs for CopyState {
    fn outputs(&mut self) -> &mut Outputs {
        &mut self.outputs
    }
}

track_outputs!(CopyState);

/// A finished copy of one output.
pub(crate) struct Copied {
    /// Index of the output (in [`Copier::outputs`]).
    pub output: usize,
    /// Damaged rectangles in the output's buffer pixels (damage copies only).
    pub damage: Vec<Rect>,
}

/// A screencopy connection. See the [module docs](self).
pub(crate) struct Copier {
    _conn: Connection,
    queue: EventQueue<CopyState>,
    state: CopyState,
}

impl Copier {
    pub(crate) fn open(socket: &Socket) -> Result<Copier, WaylandError> {
        let (conn, globals, mut queue) = conn::open::<CopyState>(socket)?;
        let qh = queue.handle();
        let manager: zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1 =
            globals.bind(&qh, 1..=3, ()).map_err(|_| WaylandError::MissingProtocol {
                protocol: "zwlr_screencopy_manager_v1",
                why: "screen capture on wlroots compositors needs it",
            })?;
        let shm: wl_shm::WlShm = globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| WaylandError::MissingProtocol { protocol: "wl_shm", why: "shared memory for pixels" })?;
        let version = manager.version();
        let mut state =
            CopyState { outputs: Outputs::default(), shm, manager, version, pending: Vec::new(), buffers: Vec::new() };
        bind_outputs(&globals, &mut queue, &mut state)?;
        let n = state.outputs.list.len();
        state.pending.resize_with(n, Pending::default);
        state.buffers.resize_with(n, || None);
        debug!("screencopy v{version} on {} ({n} outputs)", socket.0.display());
        Ok(Copier { _conn: conn, queue, state })
    }

    pub(crate) fn outputs(&self) -> &Outputs {
        &self.state.outputs
    }

    /// Whether the compositor can report damage (screencopy v2).
    pub(crate) fn has_damage(&self) -> bool {
        self.state.version >= 2
    }

    /// Asks for a copy of output `index` (replacing one in flight); with damage, the compositor
    /// answers only once something on the output changed since our previous copy.
    pub(crate) fn request(&mut self, index: usize, with_damage: bool) {
        let qh = self.queue.handle();
        let Some((output, _)) = self.state.outputs.list.get(index) else { return };
        let frame = self.state.manager.capture_output(0, output, &qh, index);
        if let Some(old) = self.state.pending[index].frame.replace(frame) {
            old.destroy();
        }
        let p = &mut self.state.pending[index];
        p.with_damage = with_damage && self.state.version >= 2;
        p.offers.clear();
        p.damage.clear();
        p.y_invert = false;
        p.outcome = None;
    }

    /// Whether a copy of output `index` is in flight.
    pub(crate) fn in_flight(&self, index: usize) -> bool {
        self.state.pending.get(index).is_some_and(|p| p.frame.is_some() && p.outcome.is_none())
    }

    /// Dispatches until every copy in flight finished or `deadline` passed.
    pub(crate) fn finish_all(&mut self, deadline: Instant) -> Result<Vec<Copied>, WaylandError> {
        conn::dispatch_until(&mut self.queue, &mut self.state, deadline, |s| {
            s.pending.iter().all(|p| p.frame.is_none() || p.outcome.is_some())
        })?;
        self.take_finished()
    }

    /// Reads and dispatches what the compositor has sent, waiting up to `deadline` for something when
    /// nothing is there yet, or until `wake` becomes readable. Returns the copies that finished.
    pub(crate) fn pump(
        &mut self,
        deadline: Instant,
        wake: Option<std::os::fd::RawFd>,
    ) -> Result<(Vec<Copied>, bool), WaylandError> {
        use std::os::fd::AsRawFd;
        self.queue.dispatch_pending(&mut self.state)?;
        let mut woken = false;
        if !self.any_finished() {
            self.queue.flush()?;
            if let Some(guard) = self.queue.prepare_read() {
                let left = deadline.saturating_duration_since(Instant::now());
                let (readable, wake_readable) = conn::poll_in(guard.connection_fd().as_raw_fd(), wake, left)?;
                woken = wake_readable;
                if readable {
                    match guard.read() {
                        Ok(_) => {}
                        Err(wayland_client::backend::WaylandError::Io(e))
                            if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            self.queue.dispatch_pending(&mut self.state)?;
        }
        Ok((self.take_finished()?, woken))
    }

    fn any_finished(&self) -> bool {
        self.state.pending.iter().any(|p| p.frame.is_some() && p.outcome.is_some())
    }

    fn take_finished(&mut self) -> Result<Vec<Copied>, WaylandError> {
        let mut out = Vec::new();
        for (index, p) in self.state.pending.iter_mut().enumerate() {
            let Some(outcome) = p.outcome.take() else { continue };
            if let Some(frame) = p.frame.take() {
                frame.destroy();
            }
            match outcome {
                Ok(()) => out.push(Copied { output: index, damage: std::mem::take(&mut p.damage) }),
                Err(why) => return Err(WaylandError::Other(format!("screencopy of output {index} failed: {why}"))),
            }
        }
        Ok(out)
    }

    /// The last copied pixels of output `index`, as tightly packed BGRX rows, with their size.
    pub(crate) fn pixels(&self, index: usize) -> Result<(Vec<u8>, u32, u32), WaylandError> {
        let buffer = self
            .state
            .buffers
            .get(index)
            .and_then(Option::as_ref)
            .ok_or_else(|| WaylandError::Other(format!("no screencopy buffer for output {index}")))?;
        let y_invert = self.state.pending.get(index).is_some_and(|p| p.y_invert);
        Ok((buffer.to_bgrx(y_invert)?, buffer.spec.width, buffer.spec.height))
    }
}

/// The offer we take: a 32-bit format the frame layout can hold.
fn pick(offers: &[BufferSpec]) -> Option<BufferSpec> {
    use wl_shm::Format::{Abgr8888, Argb8888, Xbgr8888, Xrgb8888};
    offers.iter().copied().find(|o| matches!(o.format, Xrgb8888 | Argb8888 | Xbgr8888 | Abgr8888))
}

impl CopyState {
    /// Attaches a buffer matching the compositor's offer and asks for the copy.
    fn copy(&mut self, index: usize, qh: &QueueHandle<CopyState>) {
        let Some(p) = self.pending.get_mut(index) else { return };
        let (Some(frame), Some(spec)) = (p.frame.clone(), pick(&p.offers)) else {
            if let Some(p) = self.pending.get_mut(index) {
                p.outcome = Some(Err("no 32-bit shared-memory format offered".into()));
            }
            return;
        };
        let reuse = self.buffers[index].as_ref().is_some_and(|b| b.spec == spec);
        if !reuse {
            self.buffers[index] = None;
            match ShmBuffer::new(&self.shm, spec, qh) {
                Ok(b) => self.buffers[index] = Some(b),
                Err(e) => {
                    self.pending[index].outcome = Some(Err(e.to_string()));
                    return;
                }
            }
        }
        let Some(buffer) = self.buffers[index].as_ref() else { return };
        if self.pending[index].with_damage {
            frame.copy_with_damage(&buffer.buffer);
        } else {
            frame.copy(&buffer.buffer);
        }
    }
}

impl Dispatch<zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1, usize> for CopyState {
    fn event(
        state: &mut Self,
        frame: &zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        index: &usize,
        _: &Connection,
        qh: &QueueHandle<Self>,
    ) {
        use zwlr_screencopy_frame_v1::Event;
        let index = *index;
        // Events of a frame we replaced are stale.
        if state.pending.get(index).and_then(|p| p.frame.as_ref()) != Some(frame) {
            return;
        }
        let version = state.version;
        let p = &mut state.pending[index];
        match event {
            Event::Buffer { format: WEnum::Value(format), width, height, stride } => {
                p.offers.push(BufferSpec { format, width, height, stride });
                if version < 3 {
                    state.copy(index, qh);
                }
            }
            Event::BufferDone => state.copy(index, qh),
            Event::Flags { flags: WEnum::Value(flags) } => {
                p.y_invert = flags.contains(zwlr_screencopy_frame_v1::Flags::YInvert);
            }
            Event::Damage { x, y, width, height } => {
                p.damage.push(Rect::new(x as i32, y as i32, width, height));
            }
            Event::Ready { .. } => p.outcome = Some(Ok(())),
            Event::Failed => p.outcome = Some(Err("the compositor refused the copy".into())),
            _ => {}
        }
    }
}

impl Dispatch<zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1, ()> for CopyState {
    fn event(
        _: &mut Self,
        _: &zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
        _: zwlr_screencopy_manager_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<wl_shm::WlShm, ()> for CopyState {
    fn event(_: &mut Self, _: &wl_shm::WlShm, _: wl_shm::Event, _: &(), _: &Connection, _: &QueueHandle<Self>) {}
}

impl Dispatch<wl_shm_pool::WlShmPool, ()> for CopyState {
    fn event(
        _: &mut Self,
        _: &wl_shm_pool::WlShmPool,
        _: wl_shm_pool::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<wl_buffer::WlBuffer, ()> for CopyState {
    fn event(
        _: &mut Self,
        _: &wl_buffer::WlBuffer,
        _: wl_buffer::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}
