//! The current keyboard layout, read from the Text Input Sources services: `UCKeyTranslate` is asked
//! what each virtual key types at each modifier level (see [`crate::layout`]).

use std::ffi::c_void;
use std::ptr::NonNull;

use handrail_platform::PlatformError;
use objc2_core_foundation::{CFData, CFRetained, CFString, CFType};

use crate::layout::{KeyboardLayout, Level, Translation};

// The HIToolbox and CoreServices calls objc2 does not bind. Signatures from TextInputSources.h and
// UnicodeUtilities.h.
#[link(name = "Carbon", kind = "framework")]
extern "C" {
    fn TISCopyCurrentKeyboardLayoutInputSource() -> *mut c_void;
    fn TISGetInputSourceProperty(source: *mut c_void, key: *const c_void) -> *const c_void;
    static kTISPropertyUnicodeKeyLayoutData: *const c_void;
    static kTISPropertyLocalizedName: *const c_void;
    static kTISPropertyInputSourceID: *const c_void;
    fn LMGetKbdType() -> u8;
    #[allow(clippy::too_many_arguments)]
    fn UCKeyTranslate(
        layout: *const c_void,
        virtual_key_code: u16,
        key_action: u16,
        modifier_key_state: u32,
        keyboard_type: u32,
        key_translate_options: u32,
        dead_key_state: *mut u32,
        max_string_length: usize,
        actual_string_length: *mut usize,
        unicode_string: *mut u16,
    ) -> i32;
}

/// `kUCKeyActionDown`.
const KEY_DOWN: u16 = 0;
/// `(shiftKey >> 8) & 0xFF` and `(optionKey >> 8) & 0xFF` from Events.h.
const SHIFT_STATE: u32 = 0x02;
const OPTION_STATE: u32 = 0x08;

/// The current input source, owned.
struct Source(NonNull<c_void>);

impl Drop for Source {
    fn drop(&mut self) {
        // SAFETY: a TISInputSourceRef is a CFTypeRef we own (a Copy function returned it).
        unsafe { CFRetained::<CFType>::from_raw(self.0.cast()) };
    }
}

fn current_source() -> Option<Source> {
    // SAFETY: no arguments; returns a +1 reference or null.
    NonNull::new(unsafe { TISCopyCurrentKeyboardLayoutInputSource() }).map(Source)
}

fn string_property(source: &Source, key: *const c_void) -> String {
    // SAFETY: the property of a live source; a CFStringRef owned by the source (Get rule), or null.
    let value = unsafe { TISGetInputSourceProperty(source.0.as_ptr(), key) };
    match NonNull::new(value as *mut CFString) {
        // SAFETY: non-null and alive as long as `source`; only read here.
        Some(s) => unsafe { s.as_ref() }.to_string(),
        None => String::new(),
    }
}

/// The current input source's id ("com.apple.keylayout.German"), to know when it changed.
pub fn current_source_id() -> String {
    match current_source() {
        // SAFETY: reading a static CFStringRef the framework exports.
        Some(source) => string_property(&source, unsafe { kTISPropertyInputSourceID }),
        None => String::new(),
    }
}

pub fn read_layout() -> Result<KeyboardLayout, PlatformError> {
    let source = current_source().ok_or_else(|| PlatformError::Unavailable("the current keyboard layout".into()))?;
    // SAFETY: reading static CFStringRefs the framework exports.
    let name = string_property(&source, unsafe { kTISPropertyLocalizedName });
    // SAFETY: as above; the value is a CFDataRef owned by the source.
    let data = unsafe { TISGetInputSourceProperty(source.0.as_ptr(), kTISPropertyUnicodeKeyLayoutData) };
    let Some(data) = NonNull::new(data as *mut CFData) else {
        // Input methods (Japanese, Chinese) have no key layout of their own.
        return Err(PlatformError::Unavailable(format!("a key layout for the input source {name:?}")));
    };
    // SAFETY: alive while `source` is; only read here.
    let layout_bytes = unsafe { data.as_ref() }.to_vec();
    // SAFETY: no arguments.
    let keyboard_type = u32::from(unsafe { LMGetKbdType() });
    let mut answers = Vec::new();
    for code in 0u16..128 {
        for level in Level::ALL {
            let mut state = 0;
            if level.shift() {
                state |= SHIFT_STATE;
            }
            if level.option() {
                state |= OPTION_STATE;
            }
            let mut dead = 0u32;
            let mut len = 0usize;
            let mut buf = [0u16; 8];
            // SAFETY: `layout_bytes` is the UCKeyboardLayout the system gave; the out-pointers are valid
            // and `buf` holds the length given.
            let status = unsafe {
                UCKeyTranslate(
                    layout_bytes.as_ptr().cast(),
                    code,
                    KEY_DOWN,
                    state,
                    keyboard_type,
                    0,
                    &mut dead,
                    buf.len(),
                    &mut len,
                    buf.as_mut_ptr(),
                )
            };
            if status != 0 {
                continue;
            }
            let text = String::from_utf16_lossy(&buf[..len.min(buf.len())]);
            answers.push(Translation { code, level, text, dead: dead != 0 });
        }
    }
    Ok(KeyboardLayout::from_translations(&name, answers))
}
