//! Integer geometry shared by every backend and the engine.

/// A point in some pixel space (the space is stated by whoever holds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
}

/// A width and a height in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Size {
    pub const fn new(width: u32, height: u32) -> Self {
        Self { width, height }
    }

    pub fn area(self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// The largest size with this aspect ratio that fits inside `max` (never upscales).
    pub fn fit_within(self, max: Size) -> Size {
        if self.width <= max.width && self.height <= max.height {
            return self;
        }
        let sx = f64::from(max.width) / f64::from(self.width.max(1));
        let sy = f64::from(max.height) / f64::from(self.height.max(1));
        let s = sx.min(sy);
        Size::new(
            ((f64::from(self.width) * s).round() as u32).max(1),
            ((f64::from(self.height) * s).round() as u32).max(1),
        )
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// An axis-aligned rectangle. Empty when either side is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    pub const fn new(x: i32, y: i32, width: u32, height: u32) -> Self {
        Self { x, y, width, height }
    }

    pub fn from_size(size: Size) -> Self {
        Self::new(0, 0, size.width, size.height)
    }

    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    pub fn right(&self) -> i64 {
        i64::from(self.x) + i64::from(self.width)
    }

    pub fn bottom(&self) -> i64 {
        i64::from(self.y) + i64::from(self.height)
    }

    pub fn area(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    pub fn center(&self) -> Point {
        Point::new(
            (i64::from(self.x) + i64::from(self.width) / 2) as i32,
            (i64::from(self.y) + i64::from(self.height) / 2) as i32,
        )
    }

    pub fn contains(&self, p: Point) -> bool {
        i64::from(p.x) >= i64::from(self.x)
            && i64::from(p.x) < self.right()
            && i64::from(p.y) >= i64::from(self.y)
            && i64::from(p.y) < self.bottom()
    }

    /// True when `other` lies entirely inside `self`.
    pub fn contains_rect(&self, other: &Rect) -> bool {
        i64::from(other.x) >= i64::from(self.x)
            && i64::from(other.y) >= i64::from(self.y)
            && other.right() <= self.right()
            && other.bottom() <= self.bottom()
    }

    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        let x0 = i64::from(self.x).max(i64::from(other.x));
        let y0 = i64::from(self.y).max(i64::from(other.y));
        let x1 = self.right().min(other.right());
        let y1 = self.bottom().min(other.bottom());
        (x1 > x0 && y1 > y0).then(|| Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32))
    }

    pub fn intersects(&self, other: &Rect) -> bool {
        self.intersection(other).is_some()
    }

    /// Smallest rectangle holding both (an empty side is ignored).
    pub fn union(&self, other: &Rect) -> Rect {
        if self.is_empty() {
            return *other;
        }
        if other.is_empty() {
            return *self;
        }
        let x0 = i64::from(self.x).min(i64::from(other.x));
        let y0 = i64::from(self.y).min(i64::from(other.y));
        let x1 = self.right().max(other.right());
        let y1 = self.bottom().max(other.bottom());
        Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32)
    }

    /// Fraction of the smaller rectangle covered by the overlap (0..=1).
    pub fn overlap_of_smaller(&self, other: &Rect) -> f64 {
        let Some(i) = self.intersection(other) else {
            return 0.0;
        };
        let smaller = self.area().min(other.area()).max(1);
        i.area() as f64 / smaller as f64
    }

    /// Maps a rectangle by a uniform scale factor (new = old * factor), rounding outward.
    pub fn scaled(&self, factor: f64) -> Rect {
        let x0 = (f64::from(self.x) * factor).floor();
        let y0 = (f64::from(self.y) * factor).floor();
        let x1 = (self.right() as f64 * factor).ceil();
        let y1 = (self.bottom() as f64 * factor).ceil();
        Rect::new(x0 as i32, y0 as i32, (x1 - x0).max(0.0) as u32, (y1 - y0).max(0.0) as u32)
    }

    /// Clamps to `bounds`; empty when they do not meet.
    pub fn clamped_to(&self, bounds: &Rect) -> Rect {
        self.intersection(bounds).unwrap_or_default()
    }
}

impl std::fmt::Display for Rect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{} {}x{}", self.x, self.y, self.width, self.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_and_union() {
        let a = Rect::new(0, 0, 10, 10);
        let b = Rect::new(5, 5, 10, 10);
        assert_eq!(a.intersection(&b), Some(Rect::new(5, 5, 5, 5)));
        assert_eq!(a.union(&b), Rect::new(0, 0, 15, 15));
        assert!(a.intersection(&Rect::new(10, 0, 5, 5)).is_none());
        assert!((a.overlap_of_smaller(&b) - 0.25).abs() < 1e-9);
    }

    #[test]
    fn fit_within_keeps_aspect() {
        assert_eq!(Size::new(2560, 1600).fit_within(Size::new(1280, 1280)), Size::new(1280, 800));
        assert_eq!(Size::new(800, 600).fit_within(Size::new(1280, 1280)), Size::new(800, 600));
    }

    #[test]
    fn scaled_rounds_outward() {
        assert_eq!(Rect::new(1, 1, 3, 3).scaled(0.5), Rect::new(0, 0, 2, 2));
        assert_eq!(Rect::new(10, 20, 30, 40).scaled(2.0), Rect::new(20, 40, 60, 80));
    }
}
