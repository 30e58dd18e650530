//! C libraries loaded at run time with `dlopen`.
//!
//! handrail uses some of a desktop's own libraries (PipeWire for GNOME's screen casts, libxkbcommon
//! for its keymap) only on that desktop: loaded when first needed, handrail starts and runs on
//! machines without them, and builds without their headers or libclang. A library stays loaded for
//! the process's life, since the functions resolved from it outlive every caller.
//!
//! ```ignore
//! handrail_dl::functions! {
//!     /// The functions used.
//!     pub struct Lib;
//!     init = "pw_init": unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char),
//! }
//! let lib = Lib::resolve(&handrail_dl::Library::open(c"libpipewire-0.3.so.0")?)?;
//! ```
#![cfg(unix)]

use std::ffi::{c_void, CStr};

/// A library opened for the process's life.
#[derive(Debug)]
pub struct Library {
    handle: *mut c_void,
    name: &'static CStr,
}

impl Library {
    /// Opens the library `name` (a soname: `libxkbcommon.so.0`); the error says why it could not.
    pub fn open(name: &'static CStr) -> Result<Library, String> {
        // SAFETY: dlopen with a NUL-terminated name; the handle is never closed.
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            // SAFETY: dlerror returns a thread-local message or null.
            let why = unsafe { libc::dlerror() };
            let why = if why.is_null() {
                "not found".to_owned()
            } else {
                // SAFETY: a non-null dlerror result is a NUL-terminated string.
                unsafe { CStr::from_ptr(why) }.to_string_lossy().into_owned()
            };
            return Err(format!("{} could not be loaded: {why}", name.to_string_lossy()));
        }
        Ok(Library { handle, name })
    }

    /// The address of `symbol` (NUL-terminated), or why there is none.
    pub fn symbol(&self, symbol: &CStr) -> Result<*mut c_void, String> {
        // SAFETY: dlsym on a live handle with a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.handle, symbol.as_ptr()) };
        if p.is_null() {
            return Err(format!("{} lacks {}", self.name.to_string_lossy(), symbol.to_string_lossy()));
        }
        Ok(p)
    }
}

/// Declares a struct of C functions, one field each, and its `resolve(&Library)`, which finds each by
/// its C name. The declared type of each is its C signature: getting it right is the caller's part.
#[macro_export]
macro_rules! functions {
    ($(#[$meta:meta])* $vis:vis struct $lib:ident; $($field:ident = $symbol:literal: $ty:ty,)*) => {
        $(#[$meta])*
        $vis struct $lib {
            $(pub $field: $ty,)*
        }

        impl $lib {
            /// Finds every function in `library`; the first one missing is named in the error.
            $vis fn resolve(library: &$crate::Library) -> Result<$lib, String> {
                let name = |s: &'static str| std::ffi::CStr::from_bytes_with_nul(s.as_bytes()).map_err(|e| e.to_string());
                Ok($lib {
                    $($field: {
                        let p = library.symbol(name(concat!($symbol, "\0"))?)?;
                        // SAFETY: the symbol is the C function the declaration's type describes.
                        unsafe { std::mem::transmute::<*mut std::ffi::c_void, $ty>(p) }
                    },)*
                })
            }
        }

        // SAFETY: plain function pointers into a library that stays loaded for the process's life.
        unsafe impl Send for $lib {}
        unsafe impl Sync for $lib {}
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    functions! {
        struct Libc;
        strlen = "strlen": unsafe extern "C" fn(*const std::ffi::c_char) -> usize,
    }

    #[test]
    fn functions_are_found_by_name_and_missing_ones_are_named() {
        let libc = Library::open(c"libc.so.6").expect("the C library");
        let f = Libc::resolve(&libc).expect("strlen");
        // SAFETY: a NUL-terminated string.
        assert_eq!(unsafe { (f.strlen)(c"four".as_ptr()) }, 4);
        let e = libc.symbol(c"no_such_function_here").expect_err("missing");
        assert!(e.contains("libc.so.6 lacks no_such_function_here"), "{e}");
        let e = Library::open(c"libno-such-library.so.9").expect_err("missing");
        assert!(e.contains("libno-such-library.so.9 could not be loaded"), "{e}");
    }
}
