//! Row access, validation, cropping and RGB conversion.

use handrail_platform::{Frame, PlatformError, Rect, Size};

/// Checks that `frame`'s buffer holds its declared geometry (the same rule as
/// [`Frame::is_consistent`], computed without overflow).
///
/// # Errors
///
/// [`PlatformError::Invalid`] naming what is wrong.
pub fn validate(frame: &Frame) -> Result<(), PlatformError> {
    let Some(row_bytes) = row_bytes(frame.size.width) else {
        return Err(PlatformError::Invalid(format!("frame width {} is too large", frame.size.width)));
    };
    if frame.stride < row_bytes {
        return Err(PlatformError::Invalid(format!(
            "frame stride {} is shorter than a row of {} pixels ({row_bytes} bytes)",
            frame.stride, frame.size.width
        )));
    }
    let needed = frame.stride.checked_mul(frame.size.height as usize);
    match needed {
        Some(needed) if frame.pixels.len() >= needed => Ok(()),
        _ => Err(PlatformError::Invalid(format!(
            "frame buffer of {} bytes is too small for {} pixels with a stride of {}",
            frame.pixels.len(),
            frame.size,
            frame.stride
        ))),
    }
}

/// Bytes in one BGRX row of `width` pixels (`None` only where `usize` is too narrow).
pub(crate) fn row_bytes(width: u32) -> Option<usize> {
    (width as usize).checked_mul(4)
}

/// Row `y` of `frame` when the buffer holds it whole; `None` means "read it as black".
///
/// Every pixel function goes through this so a malformed frame never panics. Rows further down start
/// later in the buffer, so when row 0 is missing every row is.
#[inline]
pub(crate) fn src_row(frame: &Frame, y: u32) -> Option<&[u8]> {
    let len = row_bytes(frame.size.width)?;
    if frame.stride < len {
        return None;
    }
    let start = (y as usize).checked_mul(frame.stride)?;
    frame.pixels.get(start..start.checked_add(len)?)
}

/// A tightly packed black frame (X = 0xFF, like every frame this crate makes) of `size` covering
/// `origin` of a `screen`.
pub(crate) fn blank(size: Size, screen: Size, origin: Rect) -> Frame {
    let stride = size.width as usize * 4;
    let mut pixels = vec![0; stride * size.height as usize];
    for px in pixels.chunks_exact_mut(4) {
        px[3] = 0xFF;
    }
    Frame { size, screen, stride, pixels, origin }
}

/// Cuts `rect` (in the frame's own pixel coordinates) out of `frame`.
///
/// The rectangle is clamped to the frame; `None` when nothing of it lies inside. The result keeps
/// `screen`, is tightly packed, and its `origin` is the part of the screen the cut shows: the frame's
/// origin offset by `rect`'s edges converted at the frame's scale, each edge rounded to the nearest
/// screen pixel (so adjacent crops tile the screen without gaps or overlap). Rows the source buffer does
/// not hold come out black.
pub fn crop(frame: &Frame, rect: Rect) -> Option<Frame> {
    let r = rect.intersection(&Rect::from_size(frame.size))?;
    // `r` lies inside the frame, so these are non-negative and below the frame's u32 sides.
    let (x, y) = (r.x as u32, r.y as u32);
    let out_row = r.width as usize * 4;
    let skip = x as usize * 4;
    let mut pixels = Vec::with_capacity(out_row * r.height as usize);
    for row_y in y..y + r.height {
        match src_row(frame, row_y) {
            Some(row) => pixels.extend_from_slice(&row[skip..skip + out_row]),
            None => pixels.resize(pixels.len() + out_row, 0),
        }
    }

    let o = frame.origin;
    let x0 = map_edge(x, frame.size.width, o.x, o.width);
    let x1 = map_edge(x + r.width, frame.size.width, o.x, o.width);
    let y0 = map_edge(y, frame.size.height, o.y, o.height);
    let y1 = map_edge(y + r.height, frame.size.height, o.y, o.height);
    // A one-pixel cut of an enlarged frame can round to zero screen pixels; keep the origin non-empty
    // so `Frame::scale` stays meaningful.
    let origin = Rect::new(
        saturate_i32(x0),
        saturate_i32(y0),
        (x1 - x0).clamp(1, i64::from(u32::MAX)) as u32,
        (y1 - y0).clamp(1, i64::from(u32::MAX)) as u32,
    );

    Some(Frame { size: Size::new(r.width, r.height), screen: frame.screen, stride: out_row, pixels, origin })
}

/// Screen coordinate of frame position `pos` (0..=`frame_len`) along one axis, rounded to nearest.
fn map_edge(pos: u32, frame_len: u32, origin_start: i32, origin_len: u32) -> i64 {
    if frame_len == 0 {
        return i64::from(origin_start);
    }
    // u32 * u32 fits in u64; doubling for round-half-up needs one more bit, so use u128.
    let num = u128::from(pos) * u128::from(origin_len);
    let den = u128::from(frame_len);
    let offset = (2 * num + den) / (2 * den);
    // offset <= origin_len <= u32::MAX, so it fits i64.
    i64::from(origin_start) + offset as i64
}

fn saturate_i32(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// A whole-screen frame of `width` x `height` from tightly packed RGB bytes.
///
/// Pixels `rgb` does not cover come out black; bytes past `width * height * 3` are ignored. The X byte
/// is set to 0xFF.
pub fn frame_from_rgb(width: u32, height: u32, rgb: &[u8]) -> Frame {
    let size = Size::new(width, height);
    let mut frame = blank(size, size, Rect::from_size(size));
    for (d, s) in frame.pixels.chunks_exact_mut(4).zip(rgb.chunks_exact(3)) {
        d[0] = s[2];
        d[1] = s[1];
        d[2] = s[0];
    }
    frame
}

/// The frame as tightly packed RGB bytes (`width * height * 3`), e.g. for PNG or an OCR engine.
///
/// Rows the buffer does not hold come out black.
pub fn to_rgb(frame: &Frame) -> Vec<u8> {
    let w = frame.size.width as usize;
    let mut out = vec![0u8; w * 3 * frame.size.height as usize];
    if w == 0 {
        return out;
    }
    for (y, dst) in (0..frame.size.height).zip(out.chunks_exact_mut(w * 3)) {
        if let Some(src) = src_row(frame, y) {
            bgrx_row_to_rgb(src, dst);
        }
    }
    out
}

/// Converts one BGRX row into RGB. `chunks_exact` lets the compiler drop per-pixel bounds checks.
#[inline]
pub(crate) fn bgrx_row_to_rgb(src: &[u8], dst: &mut [u8]) {
    for (d, s) in dst.chunks_exact_mut(3).zip(src.chunks_exact(4)) {
        d[0] = s[2];
        d[1] = s[1];
        d[2] = s[0];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame whose pixel (x, y) is BGRX (x, y, x ^ y, 7), padded rows filled with 0xEE.
    fn pattern(width: u32, height: u32, pad: usize) -> Frame {
        let size = Size::new(width, height);
        let stride = width as usize * 4 + pad;
        let mut pixels = vec![0xEE; stride * height as usize];
        for y in 0..height as usize {
            for x in 0..width as usize {
                let p = &mut pixels[y * stride + x * 4..][..4];
                p.copy_from_slice(&[x as u8, y as u8, (x ^ y) as u8, 7]);
            }
        }
        Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) }
    }

    #[test]
    fn validate_catches_short_buffers_and_strides() {
        let good = pattern(5, 4, 3);
        assert!(validate(&good).is_ok());

        let mut short = good.clone();
        short.pixels.truncate(short.pixels.len() - 1);
        assert!(matches!(validate(&short), Err(PlatformError::Invalid(_))));

        let mut narrow = good.clone();
        narrow.stride = 19;
        assert!(matches!(validate(&narrow), Err(PlatformError::Invalid(_))));

        let mut huge = good;
        huge.stride = usize::MAX;
        assert!(matches!(validate(&huge), Err(PlatformError::Invalid(_))));
    }

    #[test]
    fn crop_copies_pixels_and_skips_padding() {
        let f = pattern(10, 8, 12);
        let c = crop(&f, Rect::new(3, 2, 4, 5)).expect("inside");
        assert_eq!(c.size, Size::new(4, 5));
        assert_eq!(c.stride, 16);
        assert_eq!(c.pixels.len(), 16 * 5);
        assert_eq!(c.screen, f.screen);
        for y in 0..5u32 {
            for x in 0..4u32 {
                let p = &c.row(y)[x as usize * 4..][..4];
                let (sx, sy) = (x + 3, y + 2);
                assert_eq!(p, [sx as u8, sy as u8, (sx ^ sy) as u8, 7]);
            }
        }
        // Unscaled: the origin is just the rectangle.
        assert_eq!(c.origin, Rect::new(3, 2, 4, 5));
    }

    #[test]
    fn crop_maps_origin_through_scale_and_offset() {
        // A 1280x800 screenshot of a 2560x1600 area captured at (100, 200) on a larger screen.
        let mut f = Frame::solid(Size::new(1280, 800), [1, 2, 3, 0]);
        f.screen = Size::new(3840, 2160);
        f.origin = Rect::new(100, 200, 2560, 1600);
        let c = crop(&f, Rect::new(10, 20, 100, 50)).expect("inside");
        assert_eq!(c.origin, Rect::new(120, 240, 200, 100));
        assert_eq!(c.screen, Size::new(3840, 2160));
        assert!((c.scale() - 2.0).abs() < 1e-9);

        // Non-integer scale (1.5): neighbouring crops tile without gap or overlap.
        f.origin = Rect::new(0, 0, 1920, 1200);
        let a = crop(&f, Rect::new(0, 0, 3, 1)).expect("inside");
        let b = crop(&f, Rect::new(3, 0, 3, 1)).expect("inside");
        assert_eq!(a.origin.right(), i64::from(b.origin.x));
        assert_eq!(a.origin.width + b.origin.width, 9);
    }

    #[test]
    fn crop_clamps_and_rejects_outside() {
        let f = pattern(10, 8, 0);
        let c = crop(&f, Rect::new(-5, 6, 8, 100)).expect("overlaps");
        assert_eq!(c.size, Size::new(3, 2));
        assert_eq!(c.origin, Rect::new(0, 6, 3, 2));
        assert!(crop(&f, Rect::new(10, 0, 5, 5)).is_none());
        assert!(crop(&f, Rect::new(2, 2, 0, 5)).is_none());
    }

    #[test]
    fn crop_of_truncated_frame_is_black_not_a_panic() {
        let mut f = pattern(4, 4, 0);
        f.pixels.truncate(16 * 2 + 3);
        let c = crop(&f, Rect::new(0, 0, 4, 4)).expect("inside");
        assert_eq!(c.pixels.len(), 64);
        assert!(c.pixels[32..].iter().all(|&b| b == 0));
        assert_eq!(&c.pixels[..32], &f.pixels[..32]);
    }

    #[test]
    fn rgb_round_trip() {
        let rgb: Vec<u8> = (0..5 * 3 * 3).map(|i| (i * 7) as u8).collect();
        let f = frame_from_rgb(5, 3, &rgb);
        assert!(f.is_consistent());
        assert_eq!(f.row(0)[..4], [rgb[2], rgb[1], rgb[0], 0xFF]);
        assert_eq!(to_rgb(&f), rgb);
    }

    #[test]
    fn rgb_conversions_tolerate_bad_input() {
        let f = frame_from_rgb(3, 2, &[9, 8, 7]);
        assert_eq!(f.pixels.len(), 24);
        assert_eq!(f.row(0)[..8], [7, 8, 9, 0xFF, 0, 0, 0, 0xFF]);

        let padded = pattern(3, 2, 4);
        assert_eq!(to_rgb(&padded)[..6], [0, 0, 0, 1, 0, 1]);

        let mut broken = pattern(3, 2, 0);
        broken.stride = 2;
        assert_eq!(to_rgb(&broken), vec![0; 18]);
    }
}
