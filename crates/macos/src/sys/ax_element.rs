//! Single accessibility calls on one element, shared by the tree walk and the window list: an
//! attribute's value, the focused application, raising a window.

use std::ptr::NonNull;

use objc2_application_services::{AXError, AXUIElement};
use objc2_core_foundation::{CFArray, CFRetained, CFString, CFType};

use super::cf;

/// One attribute of `element`.
pub fn attribute(element: &AXUIElement, name: &str) -> Result<Option<CFRetained<CFType>>, AXError> {
    let name = CFString::from_str(name);
    let mut out: *const CFType = std::ptr::null();
    // SAFETY: `out` is a valid out-pointer; a non-null result is a +1 reference we take over.
    let err = unsafe { element.copy_attribute_value(&name, NonNull::from(&mut out)) };
    match err {
        AXError::Success => Ok(NonNull::new(out as *mut CFType).map(|p| unsafe { CFRetained::from_raw(p) })),
        AXError::NoValue | AXError::AttributeUnsupported => Ok(None),
        e => Err(e),
    }
}

/// The pid of the application that has the keyboard focus.
pub fn focused_app_pid() -> Option<u32> {
    // SAFETY: no arguments.
    let system = unsafe { AXUIElement::new_system_wide() };
    let app = attribute(&system, "AXFocusedApplication").ok().flatten()?.downcast::<AXUIElement>().ok()?;
    let mut pid: i32 = 0;
    // SAFETY: `pid` is a valid out-pointer.
    let err = unsafe { app.pid(NonNull::from(&mut pid)) };
    (err == AXError::Success).then_some(pid).and_then(|p| u32::try_from(p).ok())
}

/// Raises the window of app `pid` titled `title` (the first when several share it).
pub fn raise_window(pid: i32, title: &str) {
    // SAFETY: any pid is accepted.
    let app = unsafe { AXUIElement::new_application(pid) };
    let Ok(Some(windows)) = attribute(&app, "AXWindows") else { return };
    let Some(windows) = windows.downcast_ref::<CFArray>() else { return };
    for window in cf::items(windows).into_iter().filter_map(|x| x.downcast::<AXUIElement>().ok()) {
        let t = attribute(&window, "AXTitle").ok().flatten().and_then(|t| cf::string(&t)).unwrap_or_default();
        if t == title {
            let raise = CFString::from_str("AXRaise");
            // SAFETY: an action on a live element.
            let err = unsafe { window.perform_action(&raise) };
            if err != AXError::Success {
                log::warn!("raising the window {title:?} failed (AXError {})", err.0);
            }
            return;
        }
    }
}
