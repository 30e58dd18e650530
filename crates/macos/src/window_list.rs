//! The window stack from CoreGraphics' window list (`CGWindowListCopyWindowInfo`): which entries are
//! windows a person sees, in which order, of which kind, in screen pixels.
//!
//! The list runs front to back and holds much that is not a window to a person: the menu bar and its
//! status items, the Dock, the desktop's icons, invisible helper windows. Ordinary windows are on
//! layer 0; menus that are open, tooltips and floating panels lie above them (layers 3 to 101) and
//! count as pop-ups; everything else is left out.

use handrail_platform::{StackedWindow, WindowInfo, WindowKind};

use crate::space::ScreenSpace;

/// One entry of the system's window list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WindowEntry {
    /// `kCGWindowNumber`.
    pub number: u32,
    /// `kCGWindowLayer`.
    pub layer: i64,
    /// `kCGWindowOwnerPID`, `kCGWindowOwnerName`, `kCGWindowName` (empty without Screen Recording).
    pub pid: u32,
    pub owner: String,
    pub title: String,
    /// `kCGWindowBounds`, in global points.
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// `kCGWindowAlpha`: 0 for invisible helper windows.
    pub alpha: f64,
}

/// `kCGNormalWindowLevel`.
const NORMAL: i64 = 0;
/// `kCGFloatingWindowLevel` up to `kCGPopUpMenuWindowLevel`: panels, open menus, tooltips.
const POPUPS: std::ops::RangeInclusive<i64> = 3..=101;
/// `kCGMainMenuWindowLevel` and `kCGStatusWindowLevel`: the menu bar and its status items, which
/// are always there and cover nothing a window shows.
const MENU_BAR: [i64; 2] = [24, 25];
/// Smaller than this (in points) is not a window a person works in (a 1-pixel helper).
const MIN_SIDE: f64 = 4.0;

/// The stack, bottom to top. `front_pid`: the app macOS says is frontmost (its topmost window is the
/// active one); unknown, the topmost window's app. `bundle_of` names an app's bundle id, the class
/// handrail reports for its windows.
pub fn stack(
    entries_front_to_back: &[WindowEntry],
    front_pid: Option<u32>,
    space: &ScreenSpace,
    bundle_of: impl Fn(u32) -> String,
) -> Vec<StackedWindow> {
    let front_pid =
        front_pid.or_else(|| entries_front_to_back.iter().find(|e| e.layer == NORMAL && e.alpha > 0.0).map(|e| e.pid));
    let mut active_given = false;
    let mut out = Vec::new();
    for e in entries_front_to_back {
        let kind = match e.layer {
            NORMAL => WindowKind::Normal,
            l if POPUPS.contains(&l) && !MENU_BAR.contains(&l) => WindowKind::Popup,
            _ => continue,
        };
        if e.alpha <= 0.0 || e.width < MIN_SIDE || e.height < MIN_SIDE {
            continue;
        }
        let active = kind == WindowKind::Normal && !active_given && Some(e.pid) == front_pid;
        active_given |= active;
        out.push(StackedWindow {
            handle: u64::from(e.number),
            info: WindowInfo {
                app: e.owner.clone(),
                class: bundle_of(e.pid),
                title: e.title.clone(),
                pid: Some(e.pid),
                bounds: space.rect_to_pixels(e.x, e.y, e.width, e.height),
            },
            kind,
            // Minimised windows are not on screen, so not in an on-screen list.
            minimized: false,
            active,
        });
    }
    // Pop-ups lie over every window whatever their place in the list; then bottom to top.
    out.reverse();
    let (popups, windows): (Vec<_>, Vec<_>) = out.into_iter().partition(|w| w.kind == WindowKind::Popup);
    windows.into_iter().chain(popups).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(number: u32, layer: i64, pid: u32, owner: &str, w: f64) -> WindowEntry {
        WindowEntry {
            number,
            layer,
            pid,
            owner: owner.into(),
            title: format!("w{number}"),
            x: 10.0,
            y: 30.0,
            width: w,
            height: 200.0,
            alpha: 1.0,
        }
    }

    #[test]
    fn the_stack_is_bottom_to_top_with_popups_last_and_the_front_apps_window_active() {
        let space = crate::space::laptop();
        let list = [
            entry(90, 25, 300, "SystemUIServer", 30.0), // status item: left out
            entry(80, 101, 200, "Safari", 150.0),       // an open menu
            entry(12, 0, 200, "Safari", 800.0),
            entry(13, 0, 200, "Safari", 600.0),
            entry(7, 0, 100, "Terminal", 700.0),
            entry(5, 0, 100, "Terminal", 2.0),        // a helper sliver: left out
            entry(2, -2147483624, 1, "Dock", 1440.0), // desktop: left out
        ];
        let bundles = |pid: u32| match pid {
            100 => "com.apple.Terminal".to_owned(),
            200 => "com.apple.Safari".to_owned(),
            _ => String::new(),
        };
        let s = stack(&list, Some(200), &space, bundles);
        let handles: Vec<u64> = s.iter().map(|w| w.handle).collect();
        assert_eq!(handles, [7, 13, 12, 80]);
        assert!(s[2].active && !s[1].active, "only the front app's topmost window is active");
        assert_eq!(s[3].kind, WindowKind::Popup);
        assert_eq!(s[0].info.class, "com.apple.Terminal");
        assert_eq!(s[0].info.bounds, handrail_platform::Rect::new(20, 60, 1400, 400), "points become pixels");
        let unknown_front = stack(&list, None, &space, |_| String::new());
        assert!(unknown_front[2].active, "the topmost window's app is taken as in front");
    }
}
