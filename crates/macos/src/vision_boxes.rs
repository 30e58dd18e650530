//! Apple Vision's text boxes in handrail's frame coordinates. Vision reports a box normalised to the
//! image it read (0…1 on each side) with its origin at the *bottom* left; handrail's frames start at
//! the top left, in pixels. When only a region of a frame was read, the box is within that region.

use handrail_platform::Rect;

/// A normalised Vision box (`x`, `y` of its bottom-left corner, `width`, `height`) read from `region`
/// of a frame, in that frame's pixels. `None` for a box that is not finite or falls outside.
pub fn to_frame(x: f64, y: f64, width: f64, height: f64, region: Rect) -> Option<Rect> {
    if ![x, y, width, height].iter().all(|v| v.is_finite()) || width <= 0.0 || height <= 0.0 {
        return None;
    }
    let (x0, x1) = (x.clamp(0.0, 1.0), (x + width).clamp(0.0, 1.0));
    // Flip: Vision's y grows upwards.
    let (top, bottom) = ((1.0 - (y + height)).clamp(0.0, 1.0), (1.0 - y).clamp(0.0, 1.0));
    if x1 <= x0 || bottom <= top {
        return None;
    }
    let (w, h) = (f64::from(region.width), f64::from(region.height));
    let left = snap(x0 * w).floor();
    let right = snap(x1 * w).ceil();
    let upper = snap(top * h).floor();
    let lower = snap(bottom * h).ceil();
    Some(Rect::new(region.x + left as i32, region.y + upper as i32, (right - left) as u32, (lower - upper) as u32))
}

/// A value within floating-point noise of a whole pixel is that pixel: rounding outward must not add
/// a pixel for 0.1 + 0.2 being a hair over 0.3.
fn snap(v: f64) -> f64 {
    let r = v.round();
    if (v - r).abs() < 1e-6 {
        r
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_box_is_flipped_and_placed_in_its_region() {
        let whole = Rect::new(0, 0, 1000, 500);
        // Bottom-left quarter of the image → the lower-left of the frame.
        assert_eq!(to_frame(0.0, 0.0, 0.5, 0.5, whole), Some(Rect::new(0, 250, 500, 250)));
        // A line near the top.
        assert_eq!(to_frame(0.1, 0.9, 0.2, 0.05, whole), Some(Rect::new(100, 25, 200, 25)));
        let region = Rect::new(300, 100, 200, 100);
        assert_eq!(to_frame(0.0, 0.5, 1.0, 0.5, region), Some(Rect::new(300, 100, 200, 50)));
        assert_eq!(to_frame(0.2, 0.2, 0.0, 0.1, whole), None);
        assert_eq!(to_frame(f64::NAN, 0.2, 0.1, 0.1, whole), None);
        assert_eq!(to_frame(1.5, 0.2, 0.1, 0.1, whole), None, "outside the image");
    }

    proptest! {
        #[test]
        fn boxes_stay_inside_the_region(
            x in -0.5f64..1.5, y in -0.5f64..1.5, w in 0.0f64..1.5, h in 0.0f64..1.5,
            rx in -100i32..100, ry in -100i32..100, rw in 1u32..4000, rh in 1u32..3000,
        ) {
            let region = Rect::new(rx, ry, rw, rh);
            if let Some(r) = to_frame(x, y, w, h, region) {
                prop_assert!(region.contains_rect(&r), "{r:?} outside {region:?}");
                prop_assert!(!r.is_empty());
            }
        }
    }
}
