//! Separate clicks stay separate: an application counts two clicks close in time and place as a double
//! click, so a second `click` soon after the first on the same spot (a model selecting a file it just
//! selected, pressing `+` twice) would open the file or select a word instead. Backends wait out the
//! application's double-click time before such a click.

use std::time::{Duration, Instant};

use crate::{MouseButton, Point};

/// Longer than the double-click time of GTK and Qt (400 ms), Windows and macOS (500 ms) defaults.
pub const DOUBLE_CLICK_TIME: Duration = Duration::from_millis(550);
/// Further apart than this (pixels, either axis) two clicks are never one double click (GTK: 5).
pub const DOUBLE_CLICK_DISTANCE: i32 = 8;

/// The last click a backend sent, to space the next one from it.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClickSpacing {
    last: Option<(Instant, Point, MouseButton)>,
}

impl ClickSpacing {
    /// How long to wait at `now` before clicking `button` at `at`, so that no application joins this
    /// click to the last one.
    pub fn wait_before(&self, now: Instant, at: Point, button: MouseButton) -> Duration {
        match self.last {
            Some((when, p, b))
                if b == button
                    && (p.x - at.x).abs() <= DOUBLE_CLICK_DISTANCE
                    && (p.y - at.y).abs() <= DOUBLE_CLICK_DISTANCE =>
            {
                DOUBLE_CLICK_TIME.saturating_sub(now.saturating_duration_since(when))
            }
            _ => Duration::ZERO,
        }
    }

    /// A click (or the last click of a double or triple click) was released at `now`.
    pub fn clicked(&mut self, now: Instant, at: Point, button: MouseButton) {
        self.last = Some((now, at, button));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_soon_after_another_on_the_same_spot_waits_out_the_double_click_time() {
        let t0 = Instant::now();
        let at = Point::new(100, 200);
        let mut spacing = ClickSpacing::default();
        assert_eq!(spacing.wait_before(t0, at, MouseButton::Left), Duration::ZERO, "nothing clicked yet");
        spacing.clicked(t0, at, MouseButton::Left);
        let soon = t0 + Duration::from_millis(150);
        assert_eq!(spacing.wait_before(soon, Point::new(104, 197), MouseButton::Left), Duration::from_millis(400));
        // Elsewhere, with another button, or later: no wait.
        assert_eq!(spacing.wait_before(soon, Point::new(120, 200), MouseButton::Left), Duration::ZERO);
        assert_eq!(spacing.wait_before(soon, at, MouseButton::Right), Duration::ZERO);
        assert_eq!(spacing.wait_before(t0 + DOUBLE_CLICK_TIME, at, MouseButton::Left), Duration::ZERO);
        assert_eq!(spacing.wait_before(t0 + Duration::from_secs(5), at, MouseButton::Left), Duration::ZERO);
    }
}
