//! `OMP_THREAD_LIMIT=1`: Tesseract's OpenMP loops are 3–6x *slower* on a 2-core machine than running on
//! one thread, and libgomp reads the limit from the environment exactly once, when it initialises.
//!
//! libtesseract (and with it libgomp) is loaded with `dlopen` on first use (see `ffi.rs`), so what matters
//! is the environment at that moment, not at process start:
//!
//! * A binary calls [`ensure_thread_limit_or_reexec`] first thing in `main`, while it is still
//!   single-threaded. With the variable unset and libgomp not yet in the process (the normal case) it is
//!   set in-process — sound, because no other thread can be reading the environment yet. Only when
//!   libgomp is already loaded (something linked it at build time) is the process re-executed from
//!   `/proc/self/exe` with the same arguments and `OMP_THREAD_LIMIT=1` added.
//! * Anything else (tests, benches, library users that skipped the call): when the library is loaded and
//!   the variable is still unset, the loader sets it just before `dlopen`. That is a `setenv` while other
//!   threads may exist; Rust's own environment access is locked, but C code reading `getenv` concurrently
//!   is not, so binaries should not rely on it. Setting `OMP_THREAD_LIMIT` in the environment of the test
//!   or bench process avoids it entirely.
//!
//! A value the user set (any value) is always respected. [`thread_limit_in_effect`] says whether the
//! loaded library runs with a limit; recognising without one logs a warning once.

use std::ffi::{CString, OsString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The variable libgomp reads.
pub const THREAD_LIMIT_VAR: &str = "OMP_THREAD_LIMIT";

/// Whether the limit was in the environment when libgomp initialised (recorded at library load).
static AT_LOAD: OnceLock<bool> = OnceLock::new();
static WARNED: AtomicBool = AtomicBool::new(false);

/// True when OpenMP inside Tesseract is (or, if the library is not loaded yet, will be) limited by
/// `OMP_THREAD_LIMIT`.
pub fn thread_limit_in_effect() -> bool {
    match AT_LOAD.get() {
        Some(v) => *v,
        None => std::env::var_os(THREAD_LIMIT_VAR).is_some() || !libgomp_loaded(),
    }
}

/// Whether libgomp is already mapped into this process (then its limit is fixed).
fn libgomp_loaded() -> bool {
    ["libgomp.so.1", "libgomp.so"].iter().any(|name| {
        let Ok(c) = CString::new(*name) else {
            return false;
        };
        // SAFETY: valid C string; RTLD_NOLOAD only looks the library up (and returns a reference-counted
        // handle, released right away), it never loads or initialises anything.
        unsafe {
            let h = libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
            if h.is_null() {
                false
            } else {
                libc::dlclose(h);
                true
            }
        }
    })
}

/// Called by the loader right before `dlopen("libtesseract…")`.
pub(crate) fn prepare_before_library_load() {
    let in_effect = if std::env::var_os(THREAD_LIMIT_VAR).is_some() {
        true
    } else if libgomp_loaded() {
        false
    } else {
        log::debug!("ocr: setting {THREAD_LIMIT_VAR}=1 before loading libtesseract");
        std::env::set_var(THREAD_LIMIT_VAR, "1");
        true
    };
    let _ = AT_LOAD.set(in_effect);
}

/// Logs once when recognising without a thread limit.
pub(crate) fn warn_if_unlimited() {
    if !thread_limit_in_effect() && !WARNED.swap(true, Ordering::Relaxed) {
        log::warn!(
            "ocr: {THREAD_LIMIT_VAR} was not set when libgomp started; Tesseract will be 3-6x slower on few \
             cores (call handrail_ocr::ensure_thread_limit_or_reexec() first thing in main, or set \
             {THREAD_LIMIT_VAR}=1 in the environment)"
        );
    }
}

/// What [`ensure_thread_limit_or_reexec`] did (when it returns at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadLimit {
    /// `OMP_THREAD_LIMIT` was already in the environment; nothing changed.
    AlreadySet,
    /// Set in this process before libgomp loaded: effective, no re-exec needed.
    SetInProcess,
    /// libgomp was already loaded and re-executing failed; recognition runs without the limit.
    Unavailable,
}

/// Makes sure Tesseract will run with `OMP_THREAD_LIMIT` set. Call it **first thing in `main`**, before
/// any thread is spawned (see the module docs for why that matters).
///
/// Returns without side effects when the variable is set. Otherwise sets it in-process when libgomp is
/// not loaded yet; if it is, replaces the process image with `/proc/self/exe`, the same `argv` (including
/// `argv[0]`) and `OMP_THREAD_LIMIT=1` added — that call does not return on success. A failed exec is
/// logged and reported as [`ThreadLimit::Unavailable`]; the program can carry on (slower OCR).
pub fn ensure_thread_limit_or_reexec() -> ThreadLimit {
    if std::env::var_os(THREAD_LIMIT_VAR).is_some() {
        return ThreadLimit::AlreadySet;
    }
    if !libgomp_loaded() {
        // Sound only while single-threaded, which is this function's documented precondition.
        std::env::set_var(THREAD_LIMIT_VAR, "1");
        return ThreadLimit::SetInProcess;
    }
    reexec_with_limit()
}

fn reexec_with_limit() -> ThreadLimit {
    use std::os::unix::process::CommandExt;
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let argv0 = if args.is_empty() { OsString::from("handrail") } else { args.remove(0) };
    log::info!("ocr: re-executing with {THREAD_LIMIT_VAR}=1 (libgomp was loaded before main)");
    let err = std::process::Command::new("/proc/self/exe").arg0(argv0).args(args).env(THREAD_LIMIT_VAR, "1").exec();
    log::warn!("ocr: re-exec with {THREAD_LIMIT_VAR}=1 failed ({err}); OCR will run without a thread limit");
    ThreadLimit::Unavailable
}
