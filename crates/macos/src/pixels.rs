//! A CoreGraphics image's bytes as a handrail frame (BGRX). Screen images on a Mac are 32-bit
//! little-endian with alpha first (B, G, R, A in memory): copied row by row as they are. Big-endian
//! ones (A, R, G, B in memory) are swapped; other formats are refused rather than shown scrambled.

use handrail_platform::{Frame, PlatformError, Rect, Size};

/// How a 32-bit pixel lies in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelOrder {
    /// B, G, R, A/X (`kCGBitmapByteOrder32Little` with alpha first or skipped first).
    Bgra,
    /// A/X, R, G, B (`kCGBitmapByteOrder32Big` with alpha first).
    Argb,
    /// R, G, B, A/X (big-endian with alpha last).
    Rgba,
}

/// The frame for an image of `width`×`height` pixels, `stride` bytes a row, `bits_per_pixel` bits a
/// pixel, in `order`.
pub fn frame_from_image(
    bytes: &[u8],
    width: usize,
    height: usize,
    stride: usize,
    bits_per_pixel: usize,
    order: PixelOrder,
) -> Result<Frame, PlatformError> {
    if bits_per_pixel != 32 {
        return Err(PlatformError::Failed(format!("a screen image of {bits_per_pixel} bits a pixel")));
    }
    let (w, h) = (u32::try_from(width), u32::try_from(height));
    let (Ok(w), Ok(h)) = (w, h) else { return Err(PlatformError::Failed("a screen image too large".into())) };
    if stride < width * 4 || bytes.len() < stride * height.saturating_sub(1) + width * 4 {
        return Err(PlatformError::Failed(format!(
            "a screen image of {width}×{height} with {stride} bytes a row came with {} bytes",
            bytes.len()
        )));
    }
    let mut pixels = Vec::with_capacity(width * height * 4);
    for y in 0..height {
        let row = &bytes[y * stride..y * stride + width * 4];
        match order {
            PixelOrder::Bgra => pixels.extend_from_slice(row),
            PixelOrder::Argb => row.chunks_exact(4).for_each(|p| pixels.extend_from_slice(&[p[3], p[2], p[1], 0xff])),
            PixelOrder::Rgba => row.chunks_exact(4).for_each(|p| pixels.extend_from_slice(&[p[2], p[1], p[0], 0xff])),
        }
    }
    let size = Size::new(w, h);
    Ok(Frame { size, screen: size, stride: width * 4, pixels, origin: Rect::from_size(size) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_copied_without_their_padding_and_colours_land_in_bgrx() {
        // 2×2, 12 bytes a row (4 of padding); pixel (1,0) is pure red.
        let mut bytes = vec![0u8; 24];
        bytes[4..8].copy_from_slice(&[0, 0, 255, 255]);
        let f = frame_from_image(&bytes, 2, 2, 12, 32, PixelOrder::Bgra).expect("frame");
        assert_eq!((f.size, f.stride, f.pixels.len()), (Size::new(2, 2), 8, 16));
        assert_eq!(&f.pixels[4..8], &[0, 0, 255, 255]);
        let argb = [255, 255, 0, 0, 255, 0, 0, 255];
        let f = frame_from_image(&argb, 2, 1, 8, 32, PixelOrder::Argb).expect("frame");
        assert_eq!(&f.pixels[..4], &[0, 0, 255, 255], "red");
        assert_eq!(&f.pixels[4..], &[255, 0, 0, 255], "blue");
        assert!(f.is_consistent());
    }

    #[test]
    fn short_or_odd_images_are_refused() {
        assert!(frame_from_image(&[0; 15], 2, 2, 8, 32, PixelOrder::Bgra).is_err());
        assert!(frame_from_image(&[0; 16], 2, 2, 4, 32, PixelOrder::Bgra).is_err(), "stride below a row");
        assert!(frame_from_image(&[0; 16], 2, 2, 8, 16, PixelOrder::Bgra).is_err());
    }
}
