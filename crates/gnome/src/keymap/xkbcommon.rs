//! libxkbcommon, loaded at run time (every GNOME session has it: mutter is built on it), compiles a
//! keymap's text into [`Layouts`] with the same lookups mutter makes.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::OnceLock;

use handrail_platform::keysym::Keysym;

use super::{KeyPlace, Layout, Layouts};

const LIBRARY: &CStr = c"libxkbcommon.so.0";
/// `XKB_KEYMAP_FORMAT_TEXT_V1`.
const FORMAT_TEXT_V1: c_int = 1;
/// `XKB_CONTEXT_NO_DEFAULT_INCLUDES | XKB_CONTEXT_NO_ENVIRONMENT_NAMES`: a compiled keymap
/// includes nothing, and the environment must not change how it reads.
const CONTEXT_FLAGS: c_int = 1 | 2;
/// XKB key codes are evdev codes plus this.
const EVDEV_OFFSET: u32 = 8;

#[repr(C)]
struct XkbContext {
    _private: [u8; 0],
}
#[repr(C)]
struct XkbKeymap {
    _private: [u8; 0],
}

handrail_dl::functions! {
    /// The functions used, resolved once (the names-to-text pair only by tests).
    #[cfg_attr(not(test), allow(dead_code))]
    struct Lib;
    context_new = "xkb_context_new": unsafe extern "C" fn(c_int) -> *mut XkbContext,
    context_unref = "xkb_context_unref": unsafe extern "C" fn(*mut XkbContext),
    keymap_new_from_string = "xkb_keymap_new_from_string":
        unsafe extern "C" fn(*mut XkbContext, *const c_char, c_int, c_int) -> *mut XkbKeymap,
    keymap_unref = "xkb_keymap_unref": unsafe extern "C" fn(*mut XkbKeymap),
    min_keycode = "xkb_keymap_min_keycode": unsafe extern "C" fn(*mut XkbKeymap) -> u32,
    max_keycode = "xkb_keymap_max_keycode": unsafe extern "C" fn(*mut XkbKeymap) -> u32,
    num_layouts = "xkb_keymap_num_layouts": unsafe extern "C" fn(*mut XkbKeymap) -> u32,
    layout_name = "xkb_keymap_layout_get_name": unsafe extern "C" fn(*mut XkbKeymap, u32) -> *const c_char,
    num_levels_for_key = "xkb_keymap_num_levels_for_key": unsafe extern "C" fn(*mut XkbKeymap, u32, u32) -> u32,
    syms_by_level = "xkb_keymap_key_get_syms_by_level":
        unsafe extern "C" fn(*mut XkbKeymap, u32, u32, u32, *mut *const u32) -> c_int,
    keysym_to_utf32 = "xkb_keysym_to_utf32": unsafe extern "C" fn(u32) -> u32,
    keymap_new_from_names = "xkb_keymap_new_from_names":
        unsafe extern "C" fn(*mut XkbContext, *const RuleNames, c_int) -> *mut XkbKeymap,
    keymap_get_as_string = "xkb_keymap_get_as_string": unsafe extern "C" fn(*mut XkbKeymap, c_int) -> *mut c_char,
}

/// `struct xkb_rule_names`.
#[repr(C)]
struct RuleNames {
    rules: *const c_char,
    model: *const c_char,
    layout: *const c_char,
    variant: *const c_char,
    options: *const c_char,
}

fn lib() -> Result<&'static Lib, String> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(|| Lib::resolve(&handrail_dl::Library::open(LIBRARY)?)).as_ref().map_err(Clone::clone)
}

/// Frees a context and a keymap however `compile` returns.
struct Owned<'a> {
    lib: &'a Lib,
    context: *mut XkbContext,
    keymap: *mut XkbKeymap,
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or owned here, and unref accepts null.
        unsafe {
            (self.lib.keymap_unref)(self.keymap);
            (self.lib.context_unref)(self.context);
        }
    }
}

/// Compiles a keymap's XKB text into its layouts: for each, every keysym at the lowest key code and
/// level that carries it, and every character those keysyms type.
pub fn compile(text: &str) -> Result<Layouts, String> {
    let lib = lib()?;
    let text = CString::new(text).map_err(|_| "the keymap's text holds a NUL byte".to_owned())?;
    // SAFETY: valid flags; the result is null or a new context.
    let context = unsafe { (lib.context_new)(CONTEXT_FLAGS) };
    let mut owned = Owned { lib, context, keymap: std::ptr::null_mut() };
    if context.is_null() {
        return Err("libxkbcommon could not make a context".into());
    }
    // SAFETY: a live context and a NUL-terminated string; the result is null or a new keymap.
    owned.keymap = unsafe { (lib.keymap_new_from_string)(context, text.as_ptr(), FORMAT_TEXT_V1, 0) };
    let keymap = owned.keymap;
    if keymap.is_null() {
        return Err("libxkbcommon could not compile the compositor's keymap".into());
    }
    // SAFETY (every call below): `keymap` is a live keymap; layouts, key codes and levels are within
    // the ranges the keymap itself reports, and out-of-range ones are answered with 0 anyway.
    let (min, max, groups) =
        unsafe { ((lib.min_keycode)(keymap), (lib.max_keycode)(keymap), (lib.num_layouts)(keymap)) };
    let mut layouts = Vec::new();
    for group in 0..groups.min(32) {
        let name = unsafe { (lib.layout_name)(keymap, group) };
        let name = if name.is_null() {
            format!("layout {}", group + 1)
        } else {
            // SAFETY: a non-null layout name is a NUL-terminated string the keymap owns.
            unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
        };
        let mut keys: HashMap<Keysym, KeyPlace> = HashMap::new();
        let mut chars: HashMap<char, Keysym> = HashMap::new();
        // mutter's order: key codes up, then levels up; the first key found for a keysym is the one.
        for code in min.max(EVDEV_OFFSET)..=max {
            let levels = unsafe { (lib.num_levels_for_key)(keymap, code, group) };
            for level in 0..levels {
                let mut syms: *const u32 = std::ptr::null();
                let n = unsafe { (lib.syms_by_level)(keymap, code, group, level, &mut syms) };
                if n <= 0 || syms.is_null() {
                    continue;
                }
                // SAFETY: the keymap returned `n` keysyms at `syms`.
                let syms = unsafe { std::slice::from_raw_parts(syms, n as usize) };
                for &ks in syms {
                    keys.entry(ks).or_insert(KeyPlace { code: code - EVDEV_OFFSET, level });
                    let cp = unsafe { (lib.keysym_to_utf32)(ks) };
                    if let Some(c) = char::from_u32(cp).filter(|c| *c != '\0') {
                        chars.entry(c).or_insert(ks);
                    }
                }
            }
        }
        layouts.push(Layout { name, keys, chars });
    }
    if layouts.is_empty() {
        return Err("the compositor's keymap has no layout".into());
    }
    Ok(Layouts(layouts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keymap text a compositor sends for `layouts` ("ru,us"), made as mutter makes it.
    fn keymap_text(layouts: &str) -> String {
        let lib = lib().expect("libxkbcommon");
        let layout = CString::new(layouts).expect("names");
        let (rules, model) = (c"evdev", c"pc105");
        let names = RuleNames {
            rules: rules.as_ptr(),
            model: model.as_ptr(),
            layout: layout.as_ptr(),
            variant: std::ptr::null(),
            options: std::ptr::null(),
        };
        // SAFETY: default flags (the system's XKB data); the names outlive the calls; the string
        // returned is malloc'ed and freed here.
        unsafe {
            let context = (lib.context_new)(0);
            assert!(!context.is_null());
            let keymap = (lib.keymap_new_from_names)(context, &names, 0);
            assert!(!keymap.is_null(), "XKB data for {layouts}");
            let text = (lib.keymap_get_as_string)(keymap, FORMAT_TEXT_V1);
            let out = CStr::from_ptr(text).to_string_lossy().into_owned();
            libc::free(text.cast());
            (lib.keymap_unref)(keymap);
            (lib.context_unref)(context);
            out
        }
    }

    #[test]
    fn a_russian_and_us_keymap_compiles_to_what_mutter_would_press() {
        let layouts = compile(&keymap_text("ru,us")).expect("compiled");
        let names: Vec<&str> = layouts.0.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["Russian", "English (US)"]);
        let (ru, us) = (&layouts.0[0], &layouts.0[1]);
        // KEY_A (30) carries ф and Ф in Russian (keysymdef.h Cyrillic_ef 0x6c6), a and A in US.
        assert_eq!(ru.chars.get(&'ф'), Some(&0x6c6));
        assert_eq!(ru.keys.get(&0x6c6), Some(&KeyPlace { code: 30, level: 0 }));
        assert_eq!(ru.keys.get(&0x6e6), Some(&KeyPlace { code: 30, level: 1 }));
        assert_eq!(us.keys.get(&u32::from(b'v')), Some(&KeyPlace { code: 47, level: 0 }));
        assert!(!ru.chars.contains_key(&'v'), "no Latin letter in the Russian layout");
        // Keys outside the letters are shared: Return and the digits in both.
        for layout in [ru, us] {
            assert_eq!(layout.keys.get(&0xff0d), Some(&KeyPlace { code: 28, level: 0 }), "{}", layout.name);
            assert_eq!(layout.chars.get(&'1'), Some(&0x31), "{}", layout.name);
        }
    }

    #[test]
    fn text_that_is_no_keymap_is_refused_with_a_reason() {
        for bad in ["", "xkb_keymap {", "not a keymap at all", "a\0b"] {
            let e = compile(bad).expect_err(bad);
            assert!(e.contains("keymap"), "{bad:?}: {e}");
        }
    }
}
