//! The path a drag's pointer takes, shared by the backends whose apps start drags themselves
//! (Wayland compositors): one motion just past every toolkit's drag threshold toward the target,
//! where the app gets the chance to start its drag, then even steps to the target.

use crate::geometry::Point;

/// How far the first motion of a drag goes: past every toolkit's drag threshold (GTK 8 px, Qt
/// 10 px, doubled on a scaled screen).
pub const DRAG_START_DISTANCE: i32 = 24;
/// Intermediate pointer positions after the first motion, so toolkits see the drag move.
pub const DRAG_STEPS: u32 = 10;

/// A drag's path from `from` to `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DragPath {
    from: Point,
    to: Point,
    /// The fraction of the way the first motion goes.
    first: f64,
}

impl DragPath {
    pub fn new(from: Point, to: Point) -> DragPath {
        let length = f64::from(to.x - from.x).hypot(f64::from(to.y - from.y));
        let first = if length > 0.0 { (f64::from(DRAG_START_DISTANCE) / length).min(1.0) } else { 0.0 };
        DragPath { from, to, first }
    }

    fn along(&self, t: f64) -> Point {
        let lerp = |a: i32, b: i32| a + (f64::from(b - a) * t).round() as i32;
        Point::new(lerp(self.from.x, self.to.x), lerp(self.from.y, self.to.y))
    }

    /// Where the first motion goes: [`DRAG_START_DISTANCE`] toward the target (the target itself
    /// when that is nearer).
    pub fn start(&self) -> Point {
        self.along(self.first)
    }

    /// The [`DRAG_STEPS`] positions after the first, evenly spaced, the last one the target.
    pub fn steps(&self) -> impl Iterator<Item = Point> + '_ {
        (1..=DRAG_STEPS)
            .map(move |i| self.along(self.first + (1.0 - self.first) * f64::from(i) / f64::from(DRAG_STEPS)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_starts_past_the_threshold_and_ends_on_the_target() {
        let path = DragPath::new(Point::new(100, 100), Point::new(400, 100));
        assert_eq!(path.start(), Point::new(124, 100));
        let steps: Vec<Point> = path.steps().collect();
        assert_eq!(steps.len(), DRAG_STEPS as usize);
        assert_eq!(steps.last(), Some(&Point::new(400, 100)));
        assert!(steps.windows(2).all(|w| w[0].x < w[1].x), "monotonic: {steps:?}");
        // Nearer than the threshold: the first motion goes all the way; a drag to itself stays put.
        assert_eq!(DragPath::new(Point::new(0, 0), Point::new(5, 5)).start(), Point::new(5, 5));
        let still = DragPath::new(Point::new(7, 7), Point::new(7, 7));
        assert!(std::iter::once(still.start()).chain(still.steps()).all(|p| p == Point::new(7, 7)));
    }
}
