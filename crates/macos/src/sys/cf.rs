//! Reading CoreFoundation values: strings, numbers, booleans and dictionaries as Rust values.

use objc2_core_foundation::{CFArray, CFBoolean, CFDictionary, CFNumber, CFRetained, CFString, CFType};

pub fn string(v: &CFType) -> Option<String> {
    v.downcast_ref::<CFString>().map(|s| s.to_string())
}

pub fn number(v: &CFType) -> Option<f64> {
    v.downcast_ref::<CFNumber>().and_then(|n| n.as_f64().or_else(|| n.as_i64().map(|i| i as f64)))
}

pub fn boolean(v: &CFType) -> Option<bool> {
    if let Some(b) = v.downcast_ref::<CFBoolean>() {
        return Some(b.value());
    }
    number(v).map(|n| n != 0.0)
}

/// The items of a CFArray whatever they are.
pub fn items(array: &CFArray) -> Vec<CFRetained<CFType>> {
    // SAFETY: every CoreFoundation array holds CF objects.
    let typed: &CFArray<CFType> = unsafe { &*(array as *const CFArray).cast::<CFArray<CFType>>() };
    typed.to_vec()
}

/// The value under a string key.
pub fn value(dict: &CFDictionary, key: &CFString) -> Option<CFRetained<CFType>> {
    // SAFETY: dictionaries the system hands out here have CF objects as keys and values.
    let typed: &CFDictionary<CFString, CFType> =
        unsafe { &*(dict as *const CFDictionary).cast::<CFDictionary<CFString, CFType>>() };
    typed.get(key)
}
