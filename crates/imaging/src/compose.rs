//! A whole screen from the pictures of its monitors, and the part of it a capture asks for —
//! shared by the backends that receive one picture per monitor (wlroots screencopy, PipeWire
//! screen casts).

use handrail_platform::{Frame, PlatformError, Rect, Size};

use crate::pixels::crop;
use crate::resize::resize_bgrx;

/// The screen covering `layout` (the union of the monitors, in the compositor's logical
/// coordinates), each `(place, picture)` drawn at its place. A picture of another size than its
/// place (a monitor scaled by 2, or by 1.25) is resized to it; what no monitor covers is black.
pub fn compose_monitors(layout: Rect, parts: &[(Rect, Frame)]) -> Frame {
    let mut screen = Frame::solid(Size::new(layout.width, layout.height), [0, 0, 0, 0xff]);
    for (place, picture) in parts {
        let target = Size::new(place.width, place.height);
        let resized;
        let part = if picture.size != target && target.width > 0 && target.height > 0 {
            resized = resize_bgrx(picture, target);
            &resized
        } else {
            picture
        };
        blit(&mut screen, part, place.x - layout.x, place.y - layout.y);
    }
    screen
}

/// Copies `part` into `into` with its top-left corner at (`x`, `y`), clipped.
fn blit(into: &mut Frame, part: &Frame, x: i32, y: i32) {
    let dst = Rect::from_size(into.size);
    let Some(visible) = Rect::new(x, y, part.size.width, part.size.height).intersection(&dst) else { return };
    let row_bytes = visible.width as usize * 4;
    for row in 0..visible.height as i32 {
        let (sy, dy) = ((visible.y - y + row) as usize, (visible.y + row) as usize);
        let sx = (visible.x - x) as usize * 4;
        let Some(src) = part.pixels.get(sy * part.stride + sx..sy * part.stride + sx + row_bytes) else { continue };
        let dx = visible.x as usize * 4;
        into.pixels[dy * into.stride + dx..dy * into.stride + dx + row_bytes].copy_from_slice(src);
    }
}

/// What `Screen::capture(area, max_size)` returns from the whole screen `whole`: the area (clamped
/// to the screen) fitted within `max_size`.
///
/// # Errors
/// [`PlatformError::Invalid`] for an empty `max_size` or an area wholly off the screen.
pub fn capture_part(whole: Frame, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
    if let Some(m) = max_size {
        if m.width == 0 || m.height == 0 {
            return Err(PlatformError::Invalid(format!("capture max size {m} is empty")));
        }
    }
    let raw = match area {
        None => whole,
        Some(a) => {
            let clamped = a.clamped_to(&Rect::from_size(whole.screen));
            if clamped.is_empty() {
                return Err(PlatformError::Invalid(format!(
                    "capture area {a} lies outside the {} screen",
                    whole.screen
                )));
            }
            crop(&whole, clamped).ok_or_else(|| PlatformError::Failed(format!("cropping {clamped} from the screen")))?
        }
    };
    let target = max_size.map_or(raw.size, |m| raw.size.fit_within(m));
    Ok(if target == raw.size { raw } else { resize_bgrx(&raw, target) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blit_places_and_clips() {
        let mut into = Frame::solid(Size::new(4, 2), [0, 0, 0, 0]);
        let part = Frame::solid(Size::new(2, 2), [1, 2, 3, 4]);
        blit(&mut into, &part, 3, 1);
        assert_eq!(&into.pixels[(4 + 3) * 4..(4 + 3) * 4 + 4], &[1, 2, 3, 4]);
        assert_eq!(&into.pixels[0..4], &[0, 0, 0, 0]);
        blit(&mut into, &part, -5, 0);
    }

    #[test]
    fn monitors_are_placed_and_scaled_to_their_logical_size() {
        // A 2x2 monitor at the left and one shown at 2x2 logical pixels from a 4x4 picture at (2, 0).
        let left = Frame::solid(Size::new(2, 2), [10, 10, 10, 0xff]);
        let hidpi = Frame::solid(Size::new(4, 4), [200, 100, 50, 0xff]);
        let layout = Rect::new(0, 0, 4, 3);
        let screen = compose_monitors(layout, &[(Rect::new(0, 0, 2, 2), left), (Rect::new(2, 0, 2, 2), hidpi)]);
        assert_eq!(screen.size, Size::new(4, 3));
        assert_eq!(&screen.row(0)[..4], &[10, 10, 10, 0xff]);
        assert_eq!(&screen.row(1)[12..15], &[200, 100, 50]);
        assert_eq!(&screen.row(2)[..3], &[0, 0, 0], "no monitor below: black");
    }

    #[test]
    fn a_capture_part_is_clamped_cut_and_fitted() {
        let whole = Frame::solid(Size::new(100, 50), [1, 2, 3, 0xff]);
        let part = capture_part(whole.clone(), Some(Rect::new(90, 40, 50, 50)), None).expect("part");
        assert_eq!((part.size, part.origin), (Size::new(10, 10), Rect::new(90, 40, 10, 10)));
        let fitted = capture_part(whole.clone(), None, Some(Size::new(50, 50))).expect("fitted");
        assert_eq!(fitted.size, Size::new(50, 25));
        assert!(capture_part(whole.clone(), Some(Rect::new(200, 0, 5, 5)), None).is_err(), "off the screen");
        assert!(capture_part(whole, None, Some(Size::new(0, 5))).is_err(), "empty max size");
    }
}
