//! The part of libpipewire-0.3's C interface a video consumer uses, loaded at run time.
//!
//! Loaded with `dlopen` rather than linked: handrail then starts (and runs on X11 or wlroots) on a
//! machine without PipeWire, and builds without its headers or libclang. The declarations follow
//! PipeWire 0.3's stable ABI (`pipewire/stream.h`, `spa/buffer/buffer.h`, `spa/utils/hook.h`); only
//! what is used is declared.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// The library's name on every distribution shipping PipeWire 0.3 or 1.x (same soname).
const LIBRARY: &CStr = c"libpipewire-0.3.so.0";

#[repr(C)]
pub struct SpaList {
    pub next: *mut SpaList,
    pub prev: *mut SpaList,
}

#[repr(C)]
pub struct SpaCallbacks {
    pub funcs: *const c_void,
    pub data: *mut c_void,
}

/// `struct spa_hook`: owned by the listener, filled by the library.
#[repr(C)]
pub struct SpaHook {
    pub link: SpaList,
    pub cb: SpaCallbacks,
    pub removed: Option<unsafe extern "C" fn(*mut SpaHook)>,
    pub private: *mut c_void,
}

impl SpaHook {
    pub fn zeroed() -> SpaHook {
        SpaHook {
            link: SpaList { next: std::ptr::null_mut(), prev: std::ptr::null_mut() },
            cb: SpaCallbacks { funcs: std::ptr::null(), data: std::ptr::null_mut() },
            removed: None,
            private: std::ptr::null_mut(),
        }
    }
}

#[repr(C)]
pub struct SpaChunk {
    pub offset: u32,
    pub size: u32,
    pub stride: i32,
    pub flags: i32,
}

pub const CHUNK_FLAG_CORRUPTED: i32 = 1;

#[repr(C)]
pub struct SpaData {
    pub data_type: u32,
    pub flags: u32,
    pub fd: i64,
    pub mapoffset: u32,
    pub maxsize: u32,
    pub data: *mut c_void,
    pub chunk: *mut SpaChunk,
}

pub const DATA_MEM_PTR: u32 = 1;
pub const DATA_MEM_FD: u32 = 2;

#[repr(C)]
pub struct SpaMeta {
    pub meta_type: u32,
    pub size: u32,
    pub data: *mut c_void,
}

pub const META_VIDEO_DAMAGE: u32 = 3;

/// `struct spa_meta_region`: a damaged rectangle; one with an empty size ends the list.
#[repr(C)]
pub struct SpaMetaRegion {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

#[repr(C)]
pub struct SpaBuffer {
    pub n_metas: u32,
    pub n_datas: u32,
    pub metas: *mut SpaMeta,
    pub datas: *mut SpaData,
}

#[repr(C)]
pub struct PwBuffer {
    pub buffer: *mut SpaBuffer,
    pub user_data: *mut c_void,
    pub size: u64,
    pub requested: u64,
}

/// `struct pw_stream_events`, version 2.
#[repr(C)]
pub struct PwStreamEvents {
    pub version: u32,
    pub destroy: Option<unsafe extern "C" fn(*mut c_void)>,
    pub state_changed: Option<unsafe extern "C" fn(*mut c_void, c_int, c_int, *const c_char)>,
    pub control_info: Option<unsafe extern "C" fn(*mut c_void, u32, *const c_void)>,
    pub io_changed: Option<unsafe extern "C" fn(*mut c_void, u32, *mut c_void, u32)>,
    pub param_changed: Option<unsafe extern "C" fn(*mut c_void, u32, *const c_void)>,
    pub add_buffer: Option<unsafe extern "C" fn(*mut c_void, *mut PwBuffer)>,
    pub remove_buffer: Option<unsafe extern "C" fn(*mut c_void, *mut PwBuffer)>,
    pub process: Option<unsafe extern "C" fn(*mut c_void)>,
    pub drained: Option<unsafe extern "C" fn(*mut c_void)>,
    pub command: Option<unsafe extern "C" fn(*mut c_void, *const c_void)>,
    pub trigger_done: Option<unsafe extern "C" fn(*mut c_void)>,
}

pub const STREAM_EVENTS_VERSION: u32 = 2;

/// `enum pw_stream_state`.
pub const STATE_ERROR: c_int = -1;
pub const STATE_UNCONNECTED: c_int = 0;
pub const STATE_PAUSED: c_int = 2;
pub const STATE_STREAMING: c_int = 3;

pub const DIRECTION_INPUT: u32 = 0;
pub const STREAM_FLAG_AUTOCONNECT: u32 = 1 << 0;
pub const STREAM_FLAG_MAP_BUFFERS: u32 = 1 << 2;

/// Opaque library objects.
pub enum PwThreadLoop {}
pub enum PwLoop {}
pub enum PwContext {}
pub enum PwCore {}
pub enum PwStream {}
pub enum PwProperties {}

handrail_dl::functions! {
    /// The functions used, resolved once.
    pub struct Lib;
    init = "pw_init": unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char),
    thread_loop_new = "pw_thread_loop_new": unsafe extern "C" fn(*const c_char, *const c_void) -> *mut PwThreadLoop,
    thread_loop_get_loop = "pw_thread_loop_get_loop": unsafe extern "C" fn(*mut PwThreadLoop) -> *mut PwLoop,
    thread_loop_start = "pw_thread_loop_start": unsafe extern "C" fn(*mut PwThreadLoop) -> c_int,
    thread_loop_stop = "pw_thread_loop_stop": unsafe extern "C" fn(*mut PwThreadLoop),
    thread_loop_destroy = "pw_thread_loop_destroy": unsafe extern "C" fn(*mut PwThreadLoop),
    thread_loop_lock = "pw_thread_loop_lock": unsafe extern "C" fn(*mut PwThreadLoop),
    thread_loop_unlock = "pw_thread_loop_unlock": unsafe extern "C" fn(*mut PwThreadLoop),
    context_new = "pw_context_new": unsafe extern "C" fn(*mut PwLoop, *mut PwProperties, usize) -> *mut PwContext,
    context_destroy = "pw_context_destroy": unsafe extern "C" fn(*mut PwContext),
    context_connect = "pw_context_connect": unsafe extern "C" fn(*mut PwContext, *mut PwProperties, usize) -> *mut PwCore,
    context_connect_fd = "pw_context_connect_fd":
        unsafe extern "C" fn(*mut PwContext, c_int, *mut PwProperties, usize) -> *mut PwCore,
    core_disconnect = "pw_core_disconnect": unsafe extern "C" fn(*mut PwCore) -> c_int,
    properties_new_string = "pw_properties_new_string": unsafe extern "C" fn(*const c_char) -> *mut PwProperties,
    stream_new = "pw_stream_new": unsafe extern "C" fn(*mut PwCore, *const c_char, *mut PwProperties) -> *mut PwStream,
    stream_add_listener = "pw_stream_add_listener":
        unsafe extern "C" fn(*mut PwStream, *mut SpaHook, *const PwStreamEvents, *mut c_void),
    stream_connect = "pw_stream_connect":
        unsafe extern "C" fn(*mut PwStream, u32, u32, u32, *mut *const c_void, u32) -> c_int,
    stream_update_params = "pw_stream_update_params": unsafe extern "C" fn(*mut PwStream, *mut *const c_void, u32) -> c_int,
    stream_dequeue_buffer = "pw_stream_dequeue_buffer": unsafe extern "C" fn(*mut PwStream) -> *mut PwBuffer,
    stream_queue_buffer = "pw_stream_queue_buffer": unsafe extern "C" fn(*mut PwStream, *mut PwBuffer) -> c_int,
    stream_disconnect = "pw_stream_disconnect": unsafe extern "C" fn(*mut PwStream) -> c_int,
    stream_destroy = "pw_stream_destroy": unsafe extern "C" fn(*mut PwStream),
}

/// The library, loaded and initialised on first use; the error says why it is not there.
pub fn lib() -> Result<&'static Lib, String> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Lib, String> {
    let lib = Lib::resolve(&handrail_dl::Library::open(LIBRARY)?)?;
    // SAFETY: pw_init accepts null arguments and may be called more than once.
    unsafe { (lib.init)(std::ptr::null_mut(), std::ptr::null_mut()) };
    Ok(lib)
}
