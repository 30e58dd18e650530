//! A video stream consumed from a PipeWire node: the latest frame, in BGRX, always at hand.
//!
//! PipeWire runs the stream on a thread loop of its own. Its callbacks negotiate the format (raw
//! 32-bit RGB in any byte order, shared memory only: a consumer that reads pixels on the CPU gains
//! nothing from DMA buffers), then copy every frame the producer sends into [`VideoFrame`]s with a
//! rising sequence number. A screen-cast producer sends a frame only when something on screen was
//! redrawn, so a new sequence number is itself news that the screen changed.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::fd::{IntoRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use log::{debug, warn};

use crate::error::PipewireError;
use crate::ffi::{self, Lib, PwBuffer, PwStreamEvents, SpaHook};
use crate::format::{row_stride, to_bgrx, PixelOrder, VideoFormat};
use crate::pod::{self, Builder};

/// Damaged rectangles asked for with each frame (mutter sends up to this many, else the whole frame).
const DAMAGE_REGIONS: usize = 16;

/// Which PipeWire daemon to reach.
#[derive(Debug)]
pub enum Remote {
    /// The session's own (`PIPEWIRE_REMOTE`, else `$XDG_RUNTIME_DIR/pipewire-0`).
    Default,
    /// The daemon listening on this socket (a private desktop's).
    Socket(PathBuf),
    /// A connection handed over already open (the desktop portal's `OpenPipeWireRemote`).
    Fd(OwnedFd),
}

/// One frame: BGRX pixels, 4 bytes each, rows `stride` bytes apart.
#[derive(Clone, PartialEq, Eq)]
pub struct VideoFrame {
    pub width: u32,
    pub height: u32,
    pub stride: usize,
    pub pixels: Vec<u8>,
    /// 1 for the first frame of the stream, one more for each after it.
    pub sequence: u64,
    /// What the producer said it redrew since its previous frame (`x, y, width, height`), when it
    /// says; `None` means the whole frame may have changed.
    pub damage: Option<Vec<(i32, i32, u32, u32)>>,
}

impl std::fmt::Debug for VideoFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoFrame")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("sequence", &self.sequence)
            .field("damage", &self.damage)
            .finish_non_exhaustive()
    }
}

/// Where the stream stands, as its callbacks last saw it.
#[derive(Debug, Default)]
struct State {
    format: Option<VideoFormat>,
    latest: Option<Arc<VideoFrame>>,
    sequence: u64,
    /// Set when the stream failed or was disconnected by the other side.
    ended: Option<String>,
    streaming: bool,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the callbacks reach: the shared state, the library and the stream (for dequeueing).
struct CallbackData {
    shared: Arc<Shared>,
    lib: &'static Lib,
    stream: *mut ffi::PwStream,
}

/// A connected video stream. Disconnected when dropped.
pub struct VideoStream {
    lib: &'static Lib,
    thread_loop: *mut ffi::PwThreadLoop,
    context: *mut ffi::PwContext,
    core: *mut ffi::PwCore,
    stream: *mut ffi::PwStream,
    shared: Arc<Shared>,
    // Kept alive (and at fixed addresses) while the stream may call back.
    _hook: Box<SpaHook>,
    _events: Box<PwStreamEvents>,
    _data: Box<CallbackData>,
    node: u32,
}

// SAFETY: every use of the raw pointers after construction happens with the thread loop locked
// (or after it stopped, in drop); the shared state is behind a mutex.
unsafe impl Send for VideoStream {}
unsafe impl Sync for VideoStream {}

impl std::fmt::Debug for VideoStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoStream").field("node", &self.node).finish_non_exhaustive()
    }
}

/// Holds the thread loop's lock; released when dropped.
struct LoopLock<'a> {
    lib: &'a Lib,
    thread_loop: *mut ffi::PwThreadLoop,
}

impl<'a> LoopLock<'a> {
    fn new(lib: &'a Lib, thread_loop: *mut ffi::PwThreadLoop) -> LoopLock<'a> {
        // SAFETY: a live thread loop; the lock is recursive.
        unsafe { (lib.thread_loop_lock)(thread_loop) };
        LoopLock { lib, thread_loop }
    }
}

impl Drop for LoopLock<'_> {
    fn drop(&mut self) {
        // SAFETY: locked in `new` by this value.
        unsafe { (self.lib.thread_loop_unlock)(self.thread_loop) };
    }
}

impl VideoStream {
    /// Connects to video node `node` on `remote` and starts receiving its frames.
    pub fn connect(remote: Remote, node: u32, name: &str) -> Result<VideoStream, PipewireError> {
        let lib = ffi::lib().map_err(PipewireError::Unavailable)?;
        let name = CString::new(name).map_err(|_| PipewireError::Invalid("a stream name with a NUL byte".into()))?;
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), changed: Condvar::new() });
        // A socket is connected here, so the library gets an open connection or the default.
        let fd = match remote {
            Remote::Default => None,
            Remote::Fd(fd) => Some(fd),
            Remote::Socket(path) => match UnixStream::connect(&path) {
                Ok(s) => Some(OwnedFd::from(s)),
                Err(e) => return Err(PipewireError::Connect(format!("{}: {e}", path.display()))),
            },
        };

        // SAFETY: constructing library objects in order, each checked for null; on failure the ones
        // made so far are destroyed by `partial` below.
        let thread_loop = unsafe { (lib.thread_loop_new)(c"handrail-pipewire".as_ptr(), std::ptr::null()) };
        if thread_loop.is_null() {
            return Err(PipewireError::Failed("pw_thread_loop_new"));
        }
        let mut partial = Partial { lib, thread_loop, context: std::ptr::null_mut(), core: std::ptr::null_mut() };
        // SAFETY: a live thread loop.
        let context = unsafe { (lib.context_new)((lib.thread_loop_get_loop)(thread_loop), std::ptr::null_mut(), 0) };
        if context.is_null() {
            return Err(PipewireError::Failed("pw_context_new"));
        }
        partial.context = context;
        // SAFETY: the thread loop is live and not yet started.
        if unsafe { (lib.thread_loop_start)(thread_loop) } < 0 {
            return Err(PipewireError::Failed("pw_thread_loop_start"));
        }
        let guard = LoopLock::new(lib, thread_loop);
        let (core, tried) = match fd {
            // SAFETY: a live context, under the loop lock.
            None => (unsafe { (lib.context_connect)(context, std::ptr::null_mut(), 0) }, default_socket()),
            // SAFETY: as above; the library takes the fd (it closes it with the core).
            Some(fd) => {
                (unsafe { (lib.context_connect_fd)(context, fd.into_raw_fd(), std::ptr::null_mut(), 0) }, String::new())
            }
        };
        if core.is_null() {
            let why = std::io::Error::last_os_error();
            drop(guard);
            return Err(PipewireError::Connect(format!("{tried}{why}")));
        }
        partial.core = core;
        let props = c"media.type=Video media.category=Capture media.role=Screen";
        // SAFETY: a live core; the stream takes the properties.
        let stream = unsafe { (lib.stream_new)(core, name.as_ptr(), (lib.properties_new_string)(props.as_ptr())) };
        if stream.is_null() {
            drop(guard);
            return Err(PipewireError::Failed("pw_stream_new"));
        }
        let mut data = Box::new(CallbackData { shared: shared.clone(), lib, stream });
        let events = Box::new(PwStreamEvents {
            version: ffi::STREAM_EVENTS_VERSION,
            destroy: None,
            state_changed: Some(on_state_changed),
            control_info: None,
            io_changed: None,
            param_changed: Some(on_param_changed),
            add_buffer: None,
            remove_buffer: None,
            process: Some(on_process),
            drained: None,
            command: None,
            trigger_done: None,
        });
        let mut hook = Box::new(SpaHook::zeroed());
        let formats = enum_formats();
        let mut params = [formats.pod_at(0).cast::<c_void>()];
        // SAFETY: the hook, events and data are boxed and outlive the stream (dropped after it).
        let connected = unsafe {
            (lib.stream_add_listener)(stream, &mut *hook, &*events, (&mut *data as *mut CallbackData).cast());
            (lib.stream_connect)(
                stream,
                ffi::DIRECTION_INPUT,
                node,
                ffi::STREAM_FLAG_AUTOCONNECT | ffi::STREAM_FLAG_MAP_BUFFERS,
                params.as_mut_ptr(),
                1,
            )
        };
        drop(guard);
        let this = VideoStream {
            lib,
            thread_loop,
            context,
            core,
            stream,
            shared,
            _hook: hook,
            _events: events,
            _data: data,
            node,
        };
        std::mem::forget(partial);
        if connected < 0 {
            return Err(PipewireError::Stream(format!("pw_stream_connect to node {node}: error {connected}")));
        }
        debug!("PipeWire stream to node {node} connecting");
        Ok(this)
    }

    /// The node this stream reads.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// The negotiated format, once there is one.
    pub fn format(&self) -> Option<VideoFormat> {
        self.shared.state().format
    }

    /// The most recent frame, if one came.
    pub fn latest(&self) -> Option<Arc<VideoFrame>> {
        self.shared.state().latest.clone()
    }

    /// The sequence number of the most recent frame (0 before the first).
    pub fn sequence(&self) -> u64 {
        self.shared.state().sequence
    }

    /// Waits up to `timeout` for a frame newer than sequence `after`; `None` when none came.
    /// Fails at once when the stream ended.
    pub fn frame_after(&self, after: u64, timeout: Duration) -> Result<Option<Arc<VideoFrame>>, PipewireError> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.state();
        loop {
            if let Some(why) = &state.ended {
                return Err(PipewireError::Stream(why.clone()));
            }
            if state.sequence > after {
                return Ok(state.latest.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            state = self.shared.changed.wait_timeout(state, left).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    /// Whether the stream ended (the node went away, the daemon closed), and why.
    pub fn ended(&self) -> Option<String> {
        self.shared.state().ended.clone()
    }
}

impl Drop for VideoStream {
    fn drop(&mut self) {
        // SAFETY: the objects were made in `connect` and are destroyed once, in reverse order; the
        // stream is destroyed under the loop lock, then the loop stops before the rest goes.
        unsafe {
            {
                let _lock = LoopLock::new(self.lib, self.thread_loop);
                (self.lib.stream_disconnect)(self.stream);
                (self.lib.stream_destroy)(self.stream);
            }
            (self.lib.thread_loop_stop)(self.thread_loop);
            (self.lib.core_disconnect)(self.core);
            (self.lib.context_destroy)(self.context);
            (self.lib.thread_loop_destroy)(self.thread_loop);
        }
    }
}

/// What `connect` made before it failed, destroyed in reverse order.
struct Partial {
    lib: &'static Lib,
    thread_loop: *mut ffi::PwThreadLoop,
    context: *mut ffi::PwContext,
    core: *mut ffi::PwCore,
}

impl Drop for Partial {
    fn drop(&mut self) {
        // SAFETY: each object is live or null, and destroyed once; the loop stops first so no
        // callback runs meanwhile.
        unsafe {
            (self.lib.thread_loop_stop)(self.thread_loop);
            if !self.core.is_null() {
                (self.lib.core_disconnect)(self.core);
            }
            if !self.context.is_null() {
                (self.lib.context_destroy)(self.context);
            }
            (self.lib.thread_loop_destroy)(self.thread_loop);
        }
    }
}

/// Where the library looks for the session's daemon, for an error to name.
fn default_socket() -> String {
    match (std::env::var("PIPEWIRE_REMOTE"), std::env::var("XDG_RUNTIME_DIR")) {
        (Ok(remote), _) => format!("PIPEWIRE_REMOTE={remote}: "),
        (_, Ok(dir)) => format!("{dir}/pipewire-0: "),
        _ => "no PIPEWIRE_REMOTE or XDG_RUNTIME_DIR: ".to_owned(),
    }
}

/// The formats offered: raw video, 32-bit RGB in any byte order, any size and rate.
fn enum_formats() -> pod::AlignedPods {
    let mut b = Builder::new();
    b.object(pod::OBJECT_FORMAT, pod::PARAM_ENUM_FORMAT, |p| {
        p.prop(pod::FORMAT_MEDIA_TYPE, |b| b.id(pod::MEDIA_TYPE_VIDEO));
        p.prop(pod::FORMAT_MEDIA_SUBTYPE, |b| b.id(pod::MEDIA_SUBTYPE_RAW));
        p.prop(pod::FORMAT_VIDEO_FORMAT, |b| b.choice_enum_id(&PixelOrder::ids()));
        p.prop(pod::FORMAT_VIDEO_SIZE, |b| b.choice_range_rectangle((1280, 800), (1, 1), (16384, 16384)));
        p.prop(pod::FORMAT_VIDEO_FRAMERATE, |b| b.choice_range_fraction((0, 1), (0, 1), (1000, 1)));
    });
    b.into_aligned()
}

/// Once a format is fixed: shared-memory buffers only, and damage metadata.
fn buffer_params() -> (pod::AlignedPods, [usize; 2]) {
    let mut b = Builder::new();
    let buffers = b.start();
    b.object(pod::OBJECT_PARAM_BUFFERS, pod::PARAM_BUFFERS, |p| {
        p.prop(pod::BUFFERS_DATA_TYPE, |b| b.choice_flags_int((1 << ffi::DATA_MEM_FD) | (1 << ffi::DATA_MEM_PTR)));
    });
    let meta = b.start();
    let region_bytes = std::mem::size_of::<ffi::SpaMetaRegion>() * DAMAGE_REGIONS;
    b.object(pod::OBJECT_PARAM_META, pod::PARAM_META, |p| {
        p.prop(pod::META_TYPE, |b| b.id(ffi::META_VIDEO_DAMAGE));
        p.prop(pod::META_SIZE, |b| b.int(region_bytes as i32));
    });
    (b.into_aligned(), [buffers, meta])
}

/// Runs a callback body, never letting a panic cross into C.
fn guarded(what: &str, f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        warn!("PipeWire {what} callback panicked; the frame was dropped");
    }
}

unsafe extern "C" fn on_state_changed(data: *mut c_void, _old: c_int, state: c_int, error: *const c_char) {
    guarded("state", || {
        // SAFETY: `data` is the CallbackData the stream was given, alive while it may call back.
        let data = unsafe { &*data.cast::<CallbackData>() };
        let error = (!error.is_null())
            // SAFETY: a non-null error is a NUL-terminated string owned by the library for the call.
            .then(|| unsafe { CStr::from_ptr(error) }.to_string_lossy().into_owned());
        debug!("PipeWire stream state {state} {error:?}");
        let mut s = data.shared.state();
        match state {
            ffi::STATE_ERROR => s.ended = Some(error.unwrap_or_else(|| "the stream failed".into())),
            ffi::STATE_UNCONNECTED if s.streaming => s.ended = Some("the producer went away".into()),
            ffi::STATE_STREAMING => s.streaming = true,
            ffi::STATE_PAUSED => {}
            _ => {}
        }
        data.shared.changed.notify_all();
    });
}

unsafe extern "C" fn on_param_changed(data: *mut c_void, id: u32, param: *const c_void) {
    guarded("param", || {
        if id != pod::PARAM_FORMAT || param.is_null() {
            return;
        }
        // SAFETY: as in on_state_changed.
        let data = unsafe { &*data.cast::<CallbackData>() };
        // SAFETY: a non-null param is a whole POD: its header says its size.
        let bytes = unsafe {
            let header = std::slice::from_raw_parts(param.cast::<u8>(), 8);
            let total = pod::total_size(header).unwrap_or(8).min(1 << 20);
            std::slice::from_raw_parts(param.cast::<u8>(), total)
        };
        let format = match VideoFormat::from_pod(bytes) {
            Ok(f) => f,
            Err(e) => {
                let mut s = data.shared.state();
                s.ended = Some(format!("the producer chose a format handrail cannot read: {e}"));
                data.shared.changed.notify_all();
                return;
            }
        };
        debug!("PipeWire format {format:?}");
        data.shared.state().format = Some(format);
        let (params, at) = buffer_params();
        let mut pods = [params.pod_at(at[0]).cast::<c_void>(), params.pod_at(at[1]).cast::<c_void>()];
        // SAFETY: called on the loop thread with the lock held; the PODs live for the call.
        unsafe { (data.lib.stream_update_params)(data.stream, pods.as_mut_ptr(), 2) };
    });
}

unsafe extern "C" fn on_process(data: *mut c_void) {
    guarded("process", || {
        // SAFETY: as in on_state_changed.
        let data = unsafe { &*data.cast::<CallbackData>() };
        // Only the newest buffer matters: older ones go straight back.
        let mut newest: *mut PwBuffer = std::ptr::null_mut();
        loop {
            // SAFETY: the stream is live while it calls back.
            let b = unsafe { (data.lib.stream_dequeue_buffer)(data.stream) };
            if b.is_null() {
                break;
            }
            if !newest.is_null() {
                // SAFETY: a buffer dequeued above and not yet queued back.
                unsafe { (data.lib.stream_queue_buffer)(data.stream, newest) };
            }
            newest = b;
        }
        if newest.is_null() {
            return;
        }
        let format = data.shared.state().format;
        // SAFETY: a dequeued buffer's fields are valid until it is queued back, below.
        let frame = format.and_then(|f| unsafe { read_frame(newest, f) });
        // SAFETY: dequeued above.
        unsafe { (data.lib.stream_queue_buffer)(data.stream, newest) };
        if let Some((pixels, stride, damage)) = frame {
            let Some(f) = format else { return };
            let mut s = data.shared.state();
            s.sequence += 1;
            s.latest = Some(Arc::new(VideoFrame {
                width: f.width,
                height: f.height,
                stride,
                pixels,
                sequence: s.sequence,
                damage,
            }));
            data.shared.changed.notify_all();
        }
    });
}

type ReadFrame = (Vec<u8>, usize, Option<Vec<(i32, i32, u32, u32)>>);

/// The pixels (as BGRX), stride and damage of a buffer, or `None` for one without a picture (a
/// cursor-only update, a corrupted chunk).
///
/// # Safety
/// `b` must be a dequeued `pw_buffer` whose memory is mapped (the stream maps shared memory).
unsafe fn read_frame(b: *mut PwBuffer, format: VideoFormat) -> Option<ReadFrame> {
    // SAFETY: per the contract, every pointer below is the library's and valid for the call.
    let spa = unsafe { (*b).buffer.as_ref()? };
    if spa.n_datas == 0 || spa.datas.is_null() {
        return None;
    }
    let d = unsafe { &*spa.datas };
    let chunk = unsafe { d.chunk.as_ref()? };
    if d.data.is_null() || chunk.size == 0 || chunk.flags & ffi::CHUNK_FLAG_CORRUPTED != 0 {
        return None;
    }
    let offset = chunk.offset % d.maxsize.max(1);
    let stride = row_stride(chunk.stride, chunk.size, d.maxsize - offset, format)?;
    let offset = offset as usize;
    // Fits the buffer past `offset`: `row_stride` checked.
    let needed = stride * (format.height as usize).saturating_sub(1) + format.width as usize * 4;
    let bytes = unsafe { std::slice::from_raw_parts(d.data.cast::<u8>().add(offset), needed) };
    let pixels = to_bgrx(bytes, stride, format);
    let damage = unsafe { damage_of(spa) };
    Some((pixels, format.width as usize * 4, damage))
}

/// The damage regions a buffer carries, if it carries the metadata at all.
///
/// # Safety
/// `spa` must be a live `spa_buffer`.
unsafe fn damage_of(spa: &ffi::SpaBuffer) -> Option<Vec<(i32, i32, u32, u32)>> {
    if spa.metas.is_null() {
        return None;
    }
    // SAFETY: the library gives `n_metas` entries.
    let metas = unsafe { std::slice::from_raw_parts(spa.metas, spa.n_metas as usize) };
    let meta = metas.iter().find(|m| m.meta_type == ffi::META_VIDEO_DAMAGE && !m.data.is_null())?;
    let n = meta.size as usize / std::mem::size_of::<ffi::SpaMetaRegion>();
    // SAFETY: the metadata holds `size` bytes of regions.
    let regions = unsafe { std::slice::from_raw_parts(meta.data.cast::<ffi::SpaMetaRegion>(), n) };
    let list: Vec<_> =
        regions.iter().take_while(|r| r.width != 0 && r.height != 0).map(|r| (r.x, r.y, r.width, r.height)).collect();
    // No region at all says nothing about what changed.
    (!list.is_empty()).then_some(list)
}
