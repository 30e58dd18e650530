//! Drawing on BGRX frames: boxes, filled areas and element-id labels.
//!
//! Used for set-of-marks (each listed element's box and id drawn on the screenshot the model gets, so a
//! vision model can ground ids it reads in pixels) and for trace overlays (the target's box, the
//! changed region, secure fields blacked out). Everything is clipped to the frame; nothing panics on
//! rectangles partly or wholly outside it.

use handrail_platform::{Frame, Point, Rect};

/// An RGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    pub const WHITE: Rgb = Rgb(255, 255, 255);
    pub const RED: Rgb = Rgb(230, 30, 40);
    pub const BLUE: Rgb = Rgb(20, 110, 255);
}

/// Colours for marks, picked to stand out on light and dark interfaces; neighbours differ.
const PALETTE: [Rgb; 6] =
    [Rgb(230, 30, 40), Rgb(20, 110, 255), Rgb(0, 160, 60), Rgb(200, 0, 200), Rgb(230, 120, 0), Rgb(0, 150, 170)];

/// The part of `r` inside the frame, as pixel ranges.
fn clip(frame: &Frame, r: Rect) -> Option<(usize, usize, usize, usize)> {
    let (w, h) = (i64::from(frame.size.width), i64::from(frame.size.height));
    let x0 = i64::from(r.x).clamp(0, w);
    let y0 = i64::from(r.y).clamp(0, h);
    let x1 = (i64::from(r.x) + i64::from(r.width)).clamp(0, w);
    let y1 = (i64::from(r.y) + i64::from(r.height)).clamp(0, h);
    (x0 < x1 && y0 < y1).then_some((x0 as usize, y0 as usize, x1 as usize, y1 as usize))
}

/// Fills `r` with `color`.
pub fn fill_rect(frame: &mut Frame, r: Rect, color: Rgb) {
    let Some((x0, y0, x1, y1)) = clip(frame, r) else { return };
    let stride = frame.stride;
    for y in y0..y1 {
        let row = y * stride;
        if let Some(line) = frame.pixels.get_mut(row + x0 * 4..row + x1 * 4) {
            for px in line.chunks_exact_mut(4) {
                px[0] = color.2;
                px[1] = color.1;
                px[2] = color.0;
            }
        }
    }
}

/// Draws the outline of `r`, `thickness` pixels wide, inside the rectangle.
pub fn stroke_rect(frame: &mut Frame, r: Rect, color: Rgb, thickness: u32) {
    let t = thickness.min(r.width / 2 + 1).min(r.height / 2 + 1).max(1);
    // Edges computed wide, then saturated: rectangles may lie anywhere, even near i32's limits.
    let at = |v: i64| i32::try_from(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0);
    let (x, y, w, h, ti) = (i64::from(r.x), i64::from(r.y), i64::from(r.width), i64::from(r.height), i64::from(t));
    fill_rect(frame, Rect::new(r.x, r.y, r.width, t), color);
    fill_rect(frame, Rect::new(r.x, at(y + h - ti), r.width, t), color);
    fill_rect(frame, Rect::new(r.x, r.y, t, r.height), color);
    fill_rect(frame, Rect::new(at(x + w - ti), r.y, t, r.height), color);
}

/// 5x7 glyphs, one byte per row (low 5 bits, leftmost pixel in bit 4), for what ids are made of.
fn glyph(c: char) -> Option<[u8; 7]> {
    Some(match c {
        '0' => [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        '2' => [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
        '3' => [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
        '4' => [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
        '5' => [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
        '6' => [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
        '7' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
        '9' => [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
        'e' => [0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e],
        _ => return None,
    })
}

/// Pixel size of `text` drawn at `scale`, with its one-pixel (scaled) padding.
pub fn label_size(text: &str, scale: u32) -> (u32, u32) {
    let n = u32::try_from(text.chars().count()).unwrap_or(u32::MAX / 8);
    ((n * 6 + 1) * scale, 9 * scale)
}

/// Draws `text` (digits and `e`; other characters leave a gap) in `fg` on a `bg` box whose top-left is
/// `at`.
pub fn label(frame: &mut Frame, at: Point, text: &str, fg: Rgb, bg: Rgb, scale: u32) {
    let scale = scale.max(1);
    let (w, h) = label_size(text, scale);
    fill_rect(frame, Rect::new(at.x, at.y, w, h), bg);
    let s = i32::try_from(scale).unwrap_or(1);
    for (i, c) in text.chars().enumerate() {
        let Some(rows) = glyph(c) else { continue };
        let gx = at.x.saturating_add(s.saturating_mul(1 + 6 * i32::try_from(i).unwrap_or(i32::MAX / 8)));
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..5 {
                if bits & (0x10 >> col) != 0 {
                    let row = i32::try_from(row).unwrap_or(0);
                    let px = Rect::new(gx.saturating_add(col * s), at.y.saturating_add(s * (1 + row)), scale, scale);
                    fill_rect(frame, px, fg);
                }
            }
        }
    }
}

/// Set-of-marks: each box outlined and its id labelled at its top-left corner (inside the frame).
pub fn draw_marks(frame: &mut Frame, marks: &[(Rect, String)]) {
    // Labels scale with the image so they stay legible on large screenshots and small on small ones.
    let scale = if frame.size.width >= 1600 {
        3
    } else if frame.size.width >= 800 {
        2
    } else {
        1
    };
    for (i, (r, _)) in marks.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        stroke_rect(frame, *r, color, 2);
    }
    // Labels after all boxes, so no box is drawn over a label.
    let (fw, fh) = (frame.size.width as i32, frame.size.height as i32);
    for (i, (r, id)) in marks.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let (w, h) = label_size(id, scale);
        let (w, h) = (i32::try_from(w).unwrap_or(0), i32::try_from(h).unwrap_or(0));
        // Above the box when there is room, else just inside it; always within the frame.
        let y = if r.y >= h { r.y - h } else { r.y };
        let at = Point::new(r.x.clamp(0, (fw - w).max(0)), y.clamp(0, (fh - h).max(0)));
        label(frame, at, id, Rgb::WHITE, color, scale);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handrail_platform::Size;

    fn blank(w: u32, h: u32) -> Frame {
        Frame {
            size: Size::new(w, h),
            screen: Size::new(w, h),
            stride: w as usize * 4,
            pixels: vec![255; (w * h * 4) as usize],
            origin: Rect::new(0, 0, w, h),
        }
    }

    fn rgb(f: &Frame, x: usize, y: usize) -> Rgb {
        let i = y * f.stride + x * 4;
        Rgb(f.pixels[i + 2], f.pixels[i + 1], f.pixels[i])
    }

    #[test]
    fn outlines_stay_inside_and_leave_the_middle() {
        let mut f = blank(40, 30);
        stroke_rect(&mut f, Rect::new(5, 5, 20, 10), Rgb::RED, 2);
        assert_eq!(rgb(&f, 5, 5), Rgb::RED);
        assert_eq!(rgb(&f, 24, 14), Rgb::RED);
        assert_eq!(rgb(&f, 15, 10), Rgb::WHITE);
        assert_eq!(rgb(&f, 25, 15), Rgb::WHITE);
    }

    #[test]
    fn drawing_outside_the_frame_is_clipped() {
        let mut f = blank(10, 10);
        fill_rect(&mut f, Rect::new(-5, -5, 8, 8), Rgb::BLUE);
        assert_eq!(rgb(&f, 0, 0), Rgb::BLUE);
        assert_eq!(rgb(&f, 3, 3), Rgb::WHITE);
        fill_rect(&mut f, Rect::new(50, 50, 10, 10), Rgb::BLUE);
        stroke_rect(&mut f, Rect::new(i32::MAX - 1, i32::MIN, u32::MAX, u32::MAX), Rgb::RED, 3);
        draw_marks(&mut f, &[(Rect::new(8, 8, 100, 100), "e123456789".into())]);
    }

    proptest::proptest! {
        #[test]
        fn any_rectangle_and_label_is_drawn_without_panicking(
            x in proptest::num::i32::ANY, y in proptest::num::i32::ANY,
            w in proptest::num::u32::ANY, h in proptest::num::u32::ANY,
            t in 0u32..50, text in "[e0-9x ]{0,12}",
        ) {
            let mut f = blank(32, 24);
            stroke_rect(&mut f, Rect::new(x, y, w, h), Rgb::RED, t);
            fill_rect(&mut f, Rect::new(x, y, w, h), Rgb::BLUE);
            label(&mut f, Point::new(x, y), &text, Rgb::WHITE, Rgb::BLACK, t % 4);
            draw_marks(&mut f, &[(Rect::new(x, y, w, h), text.clone())]);
        }
    }

    #[test]
    fn labels_draw_their_glyphs() {
        let mut f = blank(60, 30);
        label(&mut f, Point::new(0, 0), "e1", Rgb::WHITE, Rgb::BLACK, 1);
        // The `1`'s stem at column 2 of its glyph, second glyph starts at x = 1 + 6.
        assert_eq!(rgb(&f, 1 + 6 + 2, 1 + 3), Rgb::WHITE);
        assert_eq!(rgb(&f, 0, 0), Rgb::BLACK);
        assert_eq!(label_size("e12", 2), (38, 18));
    }
}
