//! The displays, from CoreGraphics: bounds in global points, and pixels per point from each one's
//! current mode.

use handrail_platform::PlatformError;
use objc2_core_graphics::{
    CGDirectDisplayID, CGDisplayBounds, CGDisplayCopyDisplayMode, CGDisplayMode, CGMainDisplayID,
};

use crate::space::{Display, ScreenSpace};

/// At most this many displays are read (macOS supports far fewer at once).
const MAX_DISPLAYS: u32 = 32;

pub fn active_displays() -> Result<Vec<CGDirectDisplayID>, PlatformError> {
    let mut ids = vec![0 as CGDirectDisplayID; MAX_DISPLAYS as usize];
    let mut count = 0u32;
    // SAFETY: `ids` holds MAX_DISPLAYS entries; `count` is a valid out-pointer.
    let err = unsafe { objc2_core_graphics::CGGetActiveDisplayList(MAX_DISPLAYS, ids.as_mut_ptr(), &mut count) };
    if err.0 != 0 {
        return Err(PlatformError::Failed(format!("listing the displays failed (CGError {})", err.0)));
    }
    ids.truncate(count.min(MAX_DISPLAYS) as usize);
    Ok(ids)
}

pub fn read_space() -> Result<ScreenSpace, PlatformError> {
    let main = CGMainDisplayID();
    let mut displays = Vec::new();
    for id in active_displays()? {
        let b = CGDisplayBounds(id);
        let mode = CGDisplayCopyDisplayMode(id);
        let points = CGDisplayMode::width(mode.as_deref()) as f64;
        let pixels = CGDisplayMode::pixel_width(mode.as_deref()) as f64;
        let scale = if points > 0.0 && pixels > 0.0 { pixels / points } else { 1.0 };
        displays.push(Display {
            id,
            name: String::new(),
            x: b.origin.x,
            y: b.origin.y,
            width: b.size.width,
            height: b.size.height,
            scale,
            main: id == main,
        });
    }
    ScreenSpace::new(displays).map_err(|e| PlatformError::Unavailable(e.to_string()))
}
