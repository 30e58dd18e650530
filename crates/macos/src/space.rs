//! One pixel space for every display: macOS places displays in a global space of *points* (the main
//! display's top-left is the origin; others may lie at negative coordinates), and a Retina display
//! shows two (or more) pixels per point. handrail's screen — screenshots, element bounds, click
//! points — is that global space scaled by the largest backing scale of any display and moved so it
//! starts at 0,0: nothing on the sharpest display loses pixels, and a point maps to one place whatever
//! display it is on. Input goes back to points before it is posted.

use handrail_platform::{Monitor, Point, Rect, Size};

/// A display as the system describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Display {
    /// The system's display id (`CGDirectDisplayID`).
    pub id: u32,
    /// What it is called (`NSScreen.localizedName`), empty when unknown.
    pub name: String,
    /// Bounds in global points (`CGDisplayBounds`).
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// Pixels per point (`NSScreen.backingScaleFactor`, 2.0 on Retina).
    pub scale: f64,
    /// The main display (menu bar), whose origin is the global origin.
    pub main: bool,
}

/// Why the displays give no usable screen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    #[error("the system reports no display")]
    NoDisplay,
    #[error("display {0} has bounds or a scale that cannot be used")]
    Unusable(u32),
}

/// The screen's pixel space over a set of displays.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreenSpace {
    /// Global point at the screen's pixel 0,0.
    origin_x: f64,
    origin_y: f64,
    /// Pixels per point, one for the whole screen.
    scale: f64,
    size: Size,
    displays: Vec<Display>,
}

/// Largest screen side accepted, in pixels (a sanity bound on what the system reports).
const MAX_SIDE: f64 = 65_536.0;

impl ScreenSpace {
    pub fn new(displays: Vec<Display>) -> Result<ScreenSpace, SpaceError> {
        if displays.is_empty() {
            return Err(SpaceError::NoDisplay);
        }
        for d in &displays {
            let finite = [d.x, d.y, d.width, d.height, d.scale].iter().all(|v| v.is_finite());
            if !finite || d.width <= 0.0 || d.height <= 0.0 || !(0.5..=8.0).contains(&d.scale) {
                return Err(SpaceError::Unusable(d.id));
            }
        }
        let min_x = displays.iter().map(|d| d.x).fold(f64::INFINITY, f64::min);
        let min_y = displays.iter().map(|d| d.y).fold(f64::INFINITY, f64::min);
        let max_x = displays.iter().map(|d| d.x + d.width).fold(f64::NEG_INFINITY, f64::max);
        let max_y = displays.iter().map(|d| d.y + d.height).fold(f64::NEG_INFINITY, f64::max);
        let scale = displays.iter().map(|d| d.scale).fold(1.0, f64::max);
        let (w, h) = (((max_x - min_x) * scale).ceil(), ((max_y - min_y) * scale).ceil());
        if w > MAX_SIDE || h > MAX_SIDE {
            return Err(SpaceError::Unusable(displays[0].id));
        }
        Ok(ScreenSpace { origin_x: min_x, origin_y: min_y, scale, size: Size::new(w as u32, h as u32), displays })
    }

    /// The screen's size in pixels.
    pub fn size(&self) -> Size {
        self.size
    }

    /// Pixels per point.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    pub fn displays(&self) -> &[Display] {
        &self.displays
    }

    /// A global point (in points) as a screen pixel.
    pub fn to_pixel(&self, x: f64, y: f64) -> Point {
        let px = ((x - self.origin_x) * self.scale).round();
        let py = ((y - self.origin_y) * self.scale).round();
        Point::new(clamp_i32(px), clamp_i32(py))
    }

    /// A rectangle in global points as screen pixels, rounded outward.
    pub fn rect_to_pixels(&self, x: f64, y: f64, width: f64, height: f64) -> Rect {
        let x0 = ((x - self.origin_x) * self.scale).floor();
        let y0 = ((y - self.origin_y) * self.scale).floor();
        let x1 = ((x + width.max(0.0) - self.origin_x) * self.scale).ceil();
        let y1 = ((y + height.max(0.0) - self.origin_y) * self.scale).ceil();
        Rect::new(clamp_i32(x0), clamp_i32(y0), clamp_u32(x1 - x0), clamp_u32(y1 - y0))
    }

    /// A screen pixel as the global point (in points) input is posted at: the centre of the pixel.
    pub fn to_points(&self, p: Point) -> (f64, f64) {
        let x = (f64::from(p.x) + 0.5) / self.scale + self.origin_x;
        let y = (f64::from(p.y) + 0.5) / self.scale + self.origin_y;
        (x, y)
    }

    /// Whether a screen pixel lies on some display (the bounding box of several displays has gaps).
    pub fn on_a_display(&self, p: Point) -> bool {
        let (x, y) = self.to_points(p);
        self.displays.iter().any(|d| x >= d.x && x < d.x + d.width && y >= d.y && y < d.y + d.height)
    }

    /// The displays as monitors, in screen pixels.
    pub fn monitors(&self) -> Vec<Monitor> {
        self.displays
            .iter()
            .map(|d| Monitor {
                name: d.name.clone(),
                bounds: self.rect_to_pixels(d.x, d.y, d.width, d.height),
                primary: d.main,
            })
            .collect()
    }
}

/// A Retina laptop's one display (1440×900 points at 2 pixels a point), for tests.
#[cfg(test)]
pub(crate) fn laptop() -> ScreenSpace {
    let d =
        Display { id: 1, name: String::new(), x: 0.0, y: 0.0, width: 1440.0, height: 900.0, scale: 2.0, main: true };
    ScreenSpace::new(vec![d]).expect("a laptop's space")
}

fn clamp_i32(v: f64) -> i32 {
    v.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

fn clamp_u32(v: f64) -> u32 {
    v.clamp(0.0, f64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn display(id: u32, x: f64, y: f64, w: f64, h: f64, scale: f64) -> Display {
        Display { id, name: format!("d{id}"), x, y, width: w, height: h, scale, main: x == 0.0 && y == 0.0 }
    }

    #[test]
    fn a_retina_laptop_is_twice_its_points() {
        let s = ScreenSpace::new(vec![display(1, 0.0, 0.0, 1512.0, 982.0, 2.0)]).expect("space");
        assert_eq!(s.size(), Size::new(3024, 1964));
        assert_eq!(s.to_pixel(100.0, 50.5), Point::new(200, 101));
        assert_eq!(s.to_points(Point::new(200, 101)), (100.25, 50.75));
        assert_eq!(s.rect_to_pixels(10.0, 10.0, 20.5, 5.0), Rect::new(20, 20, 41, 10));
    }

    #[test]
    fn a_display_left_of_the_main_one_starts_the_screen() {
        let s = ScreenSpace::new(vec![
            display(1, 0.0, 0.0, 1440.0, 900.0, 2.0),
            display(2, -1920.0, -180.0, 1920.0, 1080.0, 1.0),
        ])
        .expect("space");
        assert_eq!(s.scale(), 2.0, "the sharpest display decides");
        assert_eq!(s.size(), Size::new((1920 + 1440) * 2, 1080 * 2));
        let monitors = s.monitors();
        assert_eq!(monitors[0].bounds, Rect::new(3840, 360, 2880, 1800));
        assert!(monitors[0].primary && !monitors[1].primary);
        assert_eq!(monitors[1].bounds, Rect::new(0, 0, 3840, 2160));
        assert!(!s.on_a_display(Point::new(5000, 100)), "above the main display: no display there");
        assert!(s.on_a_display(Point::new(5000, 400)));
    }

    #[test]
    fn unusable_displays_are_refused() {
        assert_eq!(ScreenSpace::new(vec![]), Err(SpaceError::NoDisplay));
        assert_eq!(ScreenSpace::new(vec![display(3, 0.0, 0.0, 0.0, 900.0, 2.0)]), Err(SpaceError::Unusable(3)));
        assert_eq!(ScreenSpace::new(vec![display(4, 0.0, 0.0, 10.0, 9.0, f64::NAN)]), Err(SpaceError::Unusable(4)));
    }

    proptest! {
        /// A pixel goes to points and back to itself, on any arrangement of displays.
        #[test]
        fn pixels_survive_the_round_trip_through_points(
            x in -4000.0f64..4000.0, y in -3000.0f64..3000.0, w in 100.0f64..3000.0, h in 100.0f64..2000.0,
            scale in prop::sample::select(vec![1.0, 1.5, 2.0, 3.0]), px in 0u32..10_000, py in 0u32..10_000,
        ) {
            let s = ScreenSpace::new(vec![display(1, 0.0, 0.0, 1440.0, 900.0, 2.0), display(2, x, y, w, h, scale)]).expect("space");
            let p = Point::new((px % s.size().width) as i32, (py % s.size().height) as i32);
            let (gx, gy) = s.to_points(p);
            prop_assert_eq!(s.to_pixel(gx - 0.5 / s.scale(), gy - 0.5 / s.scale()), p);
            for m in s.monitors() {
                prop_assert!(Rect::from_size(s.size()).contains_rect(&m.bounds), "{:?} in {:?}", m.bounds, s.size());
            }
        }
    }
}
