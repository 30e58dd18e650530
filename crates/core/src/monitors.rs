//! Which monitor a person sees each thing on.
//!
//! Monitors are numbered as a person counts them, left to right, then top to bottom (`m1`, `m2`, …);
//! their bounds, like everything else in an observation, are in **screenshot** coordinates, so one
//! screenshot and one coordinate space cover every monitor.

use handrail_platform::{Monitor, Rect};

/// A monitor as an observation shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenMonitor {
    /// 1-based, in reading order.
    pub number: usize,
    pub name: String,
    /// In screenshot coordinates.
    pub bounds: Rect,
    pub primary: bool,
}

impl ScreenMonitor {
    /// `m2`: how results refer to it.
    pub fn tag(&self) -> String {
        format!("m{}", self.number)
    }
}

/// The platform's monitors (screen coordinates) in reading order, numbered, mapped by `scale` (screen
/// pixels per screenshot pixel).
pub fn screen_monitors(monitors: &[Monitor], scale: f64) -> Vec<ScreenMonitor> {
    let mut sorted: Vec<&Monitor> = monitors.iter().collect();
    sorted.sort_by_key(|m| (m.bounds.x, m.bounds.y, m.bounds.area()));
    sorted
        .into_iter()
        .enumerate()
        .map(|(i, m)| ScreenMonitor {
            number: i + 1,
            name: m.name.clone(),
            bounds: if scale == 1.0 { m.bounds } else { m.bounds.scaled(1.0 / scale) },
            primary: m.primary,
        })
        .collect()
}

/// The monitor showing most of `bounds`; of monitors showing the same amount (mirrored or nested
/// ones), the smallest. `None` when it lies on none of them.
pub fn monitor_of<'a>(bounds: &Rect, monitors: &'a [ScreenMonitor]) -> Option<&'a ScreenMonitor> {
    // An empty box (a caret, a point) is placed by its corner.
    let probe = if bounds.is_empty() { Rect::new(bounds.x, bounds.y, 1, 1) } else { *bounds };
    let overlap = |m: &ScreenMonitor| m.bounds.intersection(&probe).map_or(0, |r| r.area());
    monitors.iter().filter(|m| overlap(m) > 0).max_by_key(|m| (overlap(m), std::cmp::Reverse(m.bounds.area())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor(name: &str, x: i32, y: i32, w: u32, h: u32) -> Monitor {
        Monitor { name: name.into(), bounds: Rect::new(x, y, w, h), primary: false }
    }

    #[test]
    fn monitors_are_numbered_in_reading_order_and_scaled() {
        let m = screen_monitors(&[monitor("R", 1280, 0, 1280, 800), monitor("L", 0, 0, 1280, 800)], 2.0);
        assert_eq!(m.iter().map(|m| (m.number, m.name.as_str())).collect::<Vec<_>>(), [(1, "L"), (2, "R")]);
        assert_eq!(m[1].bounds, Rect::new(640, 0, 640, 400));
        assert_eq!(m[1].tag(), "m2");
    }

    #[test]
    fn an_element_is_on_the_monitor_showing_most_of_it() {
        let m = screen_monitors(
            &[monitor("L", 0, 0, 1280, 800), monitor("R", 1280, 0, 1280, 800), monitor("all", 0, 0, 2560, 800)],
            1.0,
        );
        let on = |r: Rect| monitor_of(&r, &m).map(|m| m.name.clone());
        assert_eq!(on(Rect::new(10, 10, 50, 20)).as_deref(), Some("L"));
        assert_eq!(on(Rect::new(1300, 10, 50, 20)).as_deref(), Some("R"), "the smaller of two showing all of it");
        assert_eq!(on(Rect::new(1270, 10, 50, 20)).as_deref(), Some("all"), "across the edge: the one showing all");
        assert_eq!(on(Rect::new(1250, 10, 50, 20)).as_deref(), Some("all"));
        assert_eq!(on(Rect::new(3000, 10, 50, 20)), None);
        assert_eq!(on(Rect::new(1300, 10, 0, 0)).as_deref(), Some("R"), "an empty box by its corner");
    }
}
