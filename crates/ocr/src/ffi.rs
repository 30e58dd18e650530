//! The part of Tesseract's C API (`tesseract/capi.h`, stable across 4.x and 5.x) handrail uses, loaded
//! at run time with `dlopen`.
//!
//! Why not link at build time: the link needs `libtesseract.so` from the `-dev` package on every machine
//! that builds handrail, and a binary linked that way does not even start where the runtime library is
//! missing — but a missing OCR engine must only turn into `ocr=unavailable`. Loading at run time needs
//! nothing at build time (no clang, no bindgen, no build.rs) and makes "library missing" an ordinary,
//! reportable condition. It also lets [`crate::threads`] put `OMP_THREAD_LIMIT` in the environment before
//! libgomp (a dependency of Debian's libtesseract) initialises.
//!
//! Every function pointer is resolved once; the library is never unloaded (engines may outlive anything).

use std::ffi::{c_char, c_float, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

/// Opaque `TessBaseAPI`.
#[repr(C)]
pub(crate) struct TessBaseApi {
    _private: [u8; 0],
}

/// Opaque `TessResultIterator`.
#[repr(C)]
pub(crate) struct TessResultIterator {
    _private: [u8; 0],
}

/// Opaque `TessPageIterator`.
#[repr(C)]
pub(crate) struct TessPageIterator {
    _private: [u8; 0],
}

/// Opaque `ETEXT_DESC` (progress monitor; carries the recognition deadline).
#[repr(C)]
pub(crate) struct EtextDesc {
    _private: [u8; 0],
}

/// `TessOcrEngineMode::OEM_LSTM_ONLY`.
pub(crate) const OEM_LSTM_ONLY: c_int = 1;
/// `TessPageSegMode` values used here.
pub(crate) const PSM_AUTO: c_int = 3;
pub(crate) const PSM_SINGLE_BLOCK: c_int = 6;
pub(crate) const PSM_SINGLE_LINE: c_int = 7;
pub(crate) const PSM_SPARSE_TEXT: c_int = 11;
/// `TessPageIteratorLevel` values used here.
pub(crate) const RIL_WORD: c_int = 3;

/// Declares [`Api`] (one field per C function, named after it without the `Tess` prefix) and `resolve`,
/// which looks every symbol up, from a single list so names and signatures cannot drift apart.
macro_rules! api {
    ($($field:ident = $symbol:literal : fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// Resolved entry points.
        pub(crate) struct Api {
            $(pub $field: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        /// Resolves every symbol or names the first missing one.
        fn resolve(handle: *mut c_void) -> Result<Api, &'static str> {
            Ok(Api {
                $($field: {
                    // SAFETY: `handle` is a live dlopen handle and the name is NUL-terminated.
                    let p = unsafe { libc::dlsym(handle, concat!($symbol, "\0").as_ptr().cast()) };
                    if p.is_null() {
                        return Err($symbol);
                    }
                    // SAFETY: the symbol is the C function of that name in capi.h and the target type is
                    // its exact C signature; function and data pointers have the same size wherever dlsym
                    // exists.
                    unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) $(-> $ret)?>(p) }
                },)*
            })
        }
    };
}

api! {
    version = "TessVersion": fn() -> *const c_char;
    delete_text = "TessDeleteText": fn(*const c_char);
    base_create = "TessBaseAPICreate": fn() -> *mut TessBaseApi;
    base_delete = "TessBaseAPIDelete": fn(*mut TessBaseApi);
    base_init2 = "TessBaseAPIInit2": fn(*mut TessBaseApi, *const c_char, *const c_char, c_int) -> c_int;
    base_set_variable = "TessBaseAPISetVariable": fn(*mut TessBaseApi, *const c_char, *const c_char) -> c_int;
    base_set_page_seg_mode = "TessBaseAPISetPageSegMode": fn(*mut TessBaseApi, c_int);
    base_set_image = "TessBaseAPISetImage": fn(*mut TessBaseApi, *const u8, c_int, c_int, c_int, c_int);
    base_set_source_resolution = "TessBaseAPISetSourceResolution": fn(*mut TessBaseApi, c_int);
    base_recognize = "TessBaseAPIRecognize": fn(*mut TessBaseApi, *mut EtextDesc) -> c_int;
    base_get_iterator = "TessBaseAPIGetIterator": fn(*mut TessBaseApi) -> *mut TessResultIterator;
    base_clear = "TessBaseAPIClear": fn(*mut TessBaseApi);
    result_delete = "TessResultIteratorDelete": fn(*mut TessResultIterator);
    result_next = "TessResultIteratorNext": fn(*mut TessResultIterator, c_int) -> c_int;
    result_utf8_text = "TessResultIteratorGetUTF8Text": fn(*const TessResultIterator, c_int) -> *mut c_char;
    result_confidence = "TessResultIteratorConfidence": fn(*const TessResultIterator, c_int) -> c_float;
    result_page_iterator_const =
        "TessResultIteratorGetPageIteratorConst": fn(*const TessResultIterator) -> *const TessPageIterator;
    page_bounding_box = "TessPageIteratorBoundingBox":
        fn(*const TessPageIterator, c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int;
    monitor_create = "TessMonitorCreate": fn() -> *mut EtextDesc;
    monitor_delete = "TessMonitorDelete": fn(*mut EtextDesc);
    monitor_set_deadline_msecs = "TessMonitorSetDeadlineMSecs": fn(*mut EtextDesc, c_int);
}

// SAFETY: `Api` holds only function pointers into a library that is never unloaded; calling them from
// any thread is fine as long as each `TessBaseAPI` is used by one thread at a time (see `engine.rs`).
unsafe impl Send for Api {}
// SAFETY: as above; the table itself is immutable after loading.
unsafe impl Sync for Api {}

/// Library file names tried in order when no explicit path is configured.
pub(crate) const LIBRARY_NAMES: &[&str] = &["libtesseract.so.5", "libtesseract.so.4", "libtesseract.so"];

static LOADED: OnceLock<Result<Api, String>> = OnceLock::new();

/// The API, loading the library on first use. The first caller's `names` win: the process has one
/// Tesseract. The error is a human-readable reason.
pub(crate) fn api(names: &[String]) -> Result<&'static Api, String> {
    LOADED.get_or_init(|| load(names)).as_ref().map_err(Clone::clone)
}

fn last_dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl* call on this thread;
    // it is copied out immediately.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown dlopen error".to_owned()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

fn load(names: &[String]) -> Result<Api, String> {
    crate::threads::prepare_before_library_load();
    let mut errors = Vec::new();
    for name in names {
        let Ok(cname) = CString::new(name.as_str()) else {
            errors.push(format!("{name:?}: contains NUL"));
            continue;
        };
        // SAFETY: `cname` is a valid C string; RTLD_NOW resolves everything up front so a broken install
        // fails here, not in the middle of a recognition.
        let handle = unsafe { libc::dlopen(cname.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            errors.push(last_dl_error());
            continue;
        }
        let api =
            resolve(handle).map_err(|missing| format!("{name} lacks symbol {missing} (not a Tesseract 4/5 C API)"))?;
        log::debug!("ocr: loaded {name} (Tesseract {})", version_of(&api));
        return Ok(api);
    }
    Err(format!(
        "libtesseract could not be loaded ({}); install tesseract-ocr (Debian: apt-get install tesseract-ocr)",
        errors.join("; ")
    ))
}

/// Tesseract's version string ("5.3.0").
pub(crate) fn version_of(api: &Api) -> String {
    // SAFETY: TessVersion returns a pointer to a static NUL-terminated string (or NULL defensively).
    unsafe {
        let v = (api.version)();
        if v.is_null() {
            String::new()
        } else {
            CStr::from_ptr(v).to_string_lossy().into_owned()
        }
    }
}
