//! Captured pixels and encoded images.

use crate::geometry::{Rect, Size};

/// A captured screen image in BGRX order (4 bytes a pixel, the X byte ignored), the layout X11 and most
/// compositors hand out, so capture never needs a per-pixel conversion before resize and encode.
///
/// `size` is the image as it will be shown to the model (the *screenshot* space); `screen` is the size of
/// the real screen it came from. Element bounds live in screenshot space; input is sent in screen space;
/// `scale` (screen pixels per screenshot pixel) is the one number that converts between them.
#[derive(Clone, PartialEq, Eq)]
pub struct Frame {
    pub size: Size,
    pub screen: Size,
    /// Bytes per row (at least `size.width * 4`).
    pub stride: usize,
    pub pixels: Vec<u8>,
    /// Where this frame sits on the screen, in screen coordinates (the whole screen unless cropped).
    pub origin: Rect,
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("size", &self.size)
            .field("screen", &self.screen)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Frame {
    /// A frame of one solid BGRX colour covering a whole screen of `size`.
    pub fn solid(size: Size, bgrx: [u8; 4]) -> Frame {
        let stride = size.width as usize * 4;
        let mut pixels = Vec::with_capacity(stride * size.height as usize);
        for _ in 0..size.area() {
            pixels.extend_from_slice(&bgrx);
        }
        Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) }
    }

    /// Screen pixels per screenshot pixel along x (the same along y up to rounding).
    pub fn scale(&self) -> f64 {
        f64::from(self.origin.width.max(1)) / f64::from(self.size.width.max(1))
    }

    /// One row of BGRX bytes.
    pub fn row(&self, y: u32) -> &[u8] {
        let start = y as usize * self.stride;
        &self.pixels[start..start + self.size.width as usize * 4]
    }

    /// True when the buffer is large enough for the declared geometry.
    pub fn is_consistent(&self) -> bool {
        self.stride >= self.size.width as usize * 4 && self.pixels.len() >= self.stride * self.size.height as usize
    }
}

/// An image file's bytes ready to be sent to a model.
#[derive(Clone, PartialEq, Eq)]
pub struct EncodedImage {
    pub mime: &'static str,
    pub size: Size,
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for EncodedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncodedImage")
            .field("mime", &self.mime)
            .field("size", &self.size)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}
