//! From what the sources report to the elements a person can see.

use handrail_platform::{AxSnapshot, Desktop, OcrLine, Rect, WindowInfo};

use crate::merge::{merge, name_front_app, Geometry};
use crate::monitors::{screen_monitors, ScreenMonitor};
use crate::visibility::{clip, window_elements, Clipped, ScreenWindow};

/// The window stack in screenshot coordinates; empty (nothing judged covered) when it cannot be read.
pub(super) fn read_windows(desktop: &Desktop, scale: f64) -> Vec<ScreenWindow> {
    match desktop.windows.stack() {
        Ok(stack) => stack.iter().map(|w| ScreenWindow::of(w, scale)).collect(),
        Err(e) => {
            log::warn!("the window stack could not be read ({e}); no element is judged covered");
            Vec::new()
        }
    }
}

/// The monitors in screenshot coordinates; the whole image as one when they cannot be read.
pub(super) fn read_monitors(desktop: &Desktop, scale: f64, image: Rect) -> Vec<ScreenMonitor> {
    match desktop.screen.monitors() {
        Ok(monitors) if !monitors.is_empty() => screen_monitors(&monitors, scale),
        result => {
            if let Err(e) = result {
                log::warn!("the monitors could not be read ({e}); the screen is shown as one");
            }
            vec![ScreenMonitor { number: 1, name: String::new(), bounds: image, primary: true }]
        }
    }
}

/// Accessibility and OCR merged, elements of covered windows left out, one element per window added.
/// Ids are not assigned yet.
pub(super) fn visible_elements(
    ax: &AxSnapshot,
    lines: &[OcrLine],
    geo: Geometry,
    front: Option<&WindowInfo>,
    windows: &[ScreenWindow],
) -> Clipped {
    let merged = merge(ax, lines, geo);
    let mut elements = merged.elements;
    name_front_app(&mut elements, front);
    let mut clipped = clip(elements, merged.focus, windows);
    clipped.elements.extend(window_elements(windows, Rect::from_size(geo.image)));
    clipped
}
