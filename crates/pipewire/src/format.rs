//! The video formats a stream accepts, and turning their pixels into handrail's BGRX.

use crate::pod::{self, PodError};

/// How the four bytes of a 32-bit pixel are ordered in memory (SPA's names: `BGRx` is blue first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelOrder {
    Bgrx,
    Bgra,
    Rgbx,
    Rgba,
    Xrgb,
    Argb,
    Xbgr,
    Abgr,
}

impl PixelOrder {
    /// Every order, handrail's own first (no conversion), with SPA's format ids.
    const ALL: [(PixelOrder, u32); 8] = [
        (PixelOrder::Bgrx, 8),
        (PixelOrder::Bgra, 12),
        (PixelOrder::Rgbx, 7),
        (PixelOrder::Rgba, 11),
        (PixelOrder::Xrgb, 9),
        (PixelOrder::Argb, 13),
        (PixelOrder::Xbgr, 10),
        (PixelOrder::Abgr, 14),
    ];

    /// The SPA format ids offered, preferred first.
    pub fn ids() -> Vec<u32> {
        Self::ALL.iter().map(|&(_, id)| id).collect()
    }

    pub fn from_id(id: u32) -> Option<PixelOrder> {
        Self::ALL.iter().find(|&&(_, i)| i == id).map(|&(o, _)| o)
    }

    /// Where blue, green and red sit in a pixel's four bytes.
    fn bgr_at(self) -> [usize; 3] {
        match self {
            PixelOrder::Bgrx | PixelOrder::Bgra => [0, 1, 2],
            PixelOrder::Rgbx | PixelOrder::Rgba => [2, 1, 0],
            PixelOrder::Xrgb | PixelOrder::Argb => [3, 2, 1],
            PixelOrder::Xbgr | PixelOrder::Abgr => [1, 2, 3],
        }
    }
}

/// A negotiated raw video format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoFormat {
    pub order: PixelOrder,
    pub width: u32,
    pub height: u32,
}

/// Why a format cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error(transparent)]
    Pod(#[from] PodError),
    #[error("not a video format object")]
    NotAFormat,
    #[error("the format has no {0}")]
    Missing(&'static str),
    #[error("pixel format {0} is not 32-bit RGB")]
    UnknownPixels(u32),
    #[error("an empty {0}x{1} picture")]
    Empty(u32, u32),
}

impl VideoFormat {
    /// Reads the `Format` object PipeWire settled on.
    pub fn from_pod(bytes: &[u8]) -> Result<VideoFormat, FormatError> {
        let (p, _) = pod::read(bytes)?;
        let obj = p.object()?;
        if obj.object_type != pod::OBJECT_FORMAT {
            return Err(FormatError::NotAFormat);
        }
        let id = obj.get(pod::FORMAT_VIDEO_FORMAT)?.ok_or(FormatError::Missing("pixel format"))?.id()?;
        let order = PixelOrder::from_id(id).ok_or(FormatError::UnknownPixels(id))?;
        let (width, height) = obj.get(pod::FORMAT_VIDEO_SIZE)?.ok_or(FormatError::Missing("size"))?.rectangle()?;
        if width == 0 || height == 0 {
            return Err(FormatError::Empty(width, height));
        }
        Ok(VideoFormat { order, width, height })
    }
}

/// `format.height` rows of `format.width` pixels read from `bytes` (rows `stride` apart) as
/// tightly packed BGRX.
///
/// # Panics
/// When `bytes` is shorter than the picture (the caller checks against the buffer's size).
pub fn to_bgrx(bytes: &[u8], stride: usize, format: VideoFormat) -> Vec<u8> {
    let row_bytes = format.width as usize * 4;
    let mut out = Vec::with_capacity(row_bytes * format.height as usize);
    let [b, g, r] = format.order.bgr_at();
    for y in 0..format.height as usize {
        let row = &bytes[y * stride..y * stride + row_bytes];
        if format.order == PixelOrder::Bgrx || format.order == PixelOrder::Bgra {
            out.extend_from_slice(row);
        } else {
            for px in row.chunks_exact(4) {
                out.extend_from_slice(&[px[b], px[g], px[r], 0xff]);
            }
        }
    }
    out
}

/// How far apart the rows of a buffer holding a `format` picture lie, from what its chunk says:
/// its `stride` and `size` (bytes used) within `maxsize` (bytes the buffer holds, past `offset`).
///
/// A chunk's stride is believed when a row fits in it. mutter 48 hands some of its shared-memory
/// buffers over with the stride in pixels (1280 for a 1280-pixel-wide BGRx picture whose rows are
/// 5120 bytes apart, as its own size says); taken at its word, every frame in those buffers was
/// dropped and the screen looked unchanged until the next redraw. Such a stride, or none (0), is
/// replaced by the one the chunk's size implies (`size / height`), else by tightly packed rows.
/// `None` when no row length fits the buffer: nothing can be read from it.
pub fn row_stride(stride: i32, size: u32, maxsize: u32, format: VideoFormat) -> Option<usize> {
    let row = format.width as usize * 4;
    let rows = format.height as usize;
    let fits = |stride: usize| {
        stride >= row
            && stride
                .checked_mul(rows.saturating_sub(1))
                .and_then(|s| s.checked_add(row))
                .is_some_and(|n| n <= maxsize as usize)
    };
    let told = usize::try_from(stride).ok().filter(|&s| s > 0);
    let implied = (rows > 0).then(|| size as usize / rows);
    [told, implied, Some(row)].into_iter().flatten().find(|&s| fits(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::Builder;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes: reading a format never panics, and a format read has a known pixel order and a
        /// picture that is not empty.
        #[test]
        fn any_bytes_read_as_a_format_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(f) = VideoFormat::from_pod(&bytes) {
                prop_assert!(f.width > 0 && f.height > 0);
                prop_assert!(PixelOrder::ALL.iter().any(|&(o, _)| o == f.order));
            }
        }

        /// A built format with a random pixel id and size reads back as built, or as the reason it
        /// cannot be read.
        #[test]
        fn built_formats_read_back_or_say_why(id in 0u32..20, w in 0u32..5000, h in 0u32..5000) {
            match (VideoFormat::from_pod(&format_bytes(id, w, h)), PixelOrder::from_id(id)) {
                (Ok(f), Some(order)) => prop_assert_eq!(f, VideoFormat { order, width: w, height: h }),
                (Err(FormatError::UnknownPixels(i)), None) => prop_assert_eq!(i, id),
                (Err(FormatError::Empty(..)), Some(_)) => prop_assert!(w == 0 || h == 0),
                (other, _) => prop_assert!(false, "{other:?} for id {id}, {w}x{h}"),
            }
        }
    }

    fn format_bytes(id: u32, w: u32, h: u32) -> Vec<u8> {
        let mut b = Builder::new();
        b.object(pod::OBJECT_FORMAT, pod::PARAM_FORMAT, |p| {
            p.prop(pod::FORMAT_MEDIA_TYPE, |b| b.id(pod::MEDIA_TYPE_VIDEO));
            p.prop(pod::FORMAT_VIDEO_FORMAT, |b| b.id(id));
            p.prop(pod::FORMAT_VIDEO_SIZE, |b| b.rectangle(w, h));
        });
        b.bytes().to_vec()
    }

    const SCREEN: VideoFormat = VideoFormat { order: PixelOrder::Bgrx, width: 1280, height: 800 };

    #[test]
    fn a_stride_in_pixels_is_read_as_the_chunks_size_says() {
        // What mutter 48 sends in three of its sixteen buffers.
        assert_eq!(row_stride(1280, 4_096_000, 4_096_000, SCREEN), Some(5120));
        assert_eq!(row_stride(5120, 4_096_000, 4_096_000, SCREEN), Some(5120), "a right stride is kept");
        // Padded rows, said so.
        assert_eq!(row_stride(5184, 5184 * 800, 5184 * 800, SCREEN), Some(5184));
        // No stride and no size: tightly packed, when the buffer holds that much.
        assert_eq!(row_stride(0, 0, 4_096_000, SCREEN), Some(5120));
        assert_eq!(row_stride(-4, 0, 4_096_000, SCREEN), Some(5120));
        // A buffer too small for the picture at any stride.
        assert_eq!(row_stride(5120, 4_096_000, 4_000_000, SCREEN), None);
        // A stride past the buffer's end is not believed.
        assert_eq!(row_stride(10_000, 4_096_000, 4_096_000, SCREEN), Some(5120));
    }

    proptest! {
        /// Whatever a chunk says, the stride chosen holds a row and keeps the last row inside the buffer.
        #[test]
        fn a_chosen_stride_always_fits(stride in any::<i32>(), size in any::<u32>(), maxsize in any::<u32>(), w in 1u32..5000, h in 1u32..5000) {
            let format = VideoFormat { order: PixelOrder::Bgrx, width: w, height: h };
            if let Some(s) = row_stride(stride, size, maxsize, format) {
                let row = w as usize * 4;
                prop_assert!(s >= row);
                prop_assert!(s * (h as usize - 1) + row <= maxsize as usize);
            } else {
                prop_assert!(w as usize * 4 * h as usize > maxsize as usize, "packed rows would have fit");
            }
        }
    }

    #[test]
    fn a_fixed_format_is_read() {
        assert_eq!(
            VideoFormat::from_pod(&format_bytes(8, 1280, 800)),
            Ok(VideoFormat { order: PixelOrder::Bgrx, width: 1280, height: 800 })
        );
        assert_eq!(VideoFormat::from_pod(&format_bytes(2, 10, 10)), Err(FormatError::UnknownPixels(2)), "I420");
        assert_eq!(VideoFormat::from_pod(&format_bytes(8, 0, 10)), Err(FormatError::Empty(0, 10)));
    }

    #[test]
    fn every_byte_order_becomes_bgrx() {
        // One pixel: blue 1, green 2, red 3, in each order's layout (x or alpha 9).
        let cases = [
            (PixelOrder::Bgrx, [1, 2, 3, 9]),
            (PixelOrder::Bgra, [1, 2, 3, 9]),
            (PixelOrder::Rgbx, [3, 2, 1, 9]),
            (PixelOrder::Rgba, [3, 2, 1, 9]),
            (PixelOrder::Xrgb, [9, 3, 2, 1]),
            (PixelOrder::Argb, [9, 3, 2, 1]),
            (PixelOrder::Xbgr, [9, 1, 2, 3]),
            (PixelOrder::Abgr, [9, 1, 2, 3]),
        ];
        for (order, px) in cases {
            // Two rows of one pixel, with 4 bytes of row padding.
            let mut bytes = px.to_vec();
            bytes.extend_from_slice(&[0xee; 4]);
            bytes.extend_from_slice(&px);
            let out = to_bgrx(&bytes, 8, VideoFormat { order, width: 1, height: 2 });
            assert_eq!(out.len(), 8, "{order:?}");
            assert_eq!(&out[..3], &[1, 2, 3], "{order:?}");
            assert_eq!(&out[4..7], &[1, 2, 3], "{order:?}");
        }
        assert_eq!(PixelOrder::ids().len(), 8);
        for id in PixelOrder::ids() {
            assert_eq!(
                PixelOrder::from_id(id).map(|o| PixelOrder::ALL.iter().any(|&(a, i)| a == o && i == id)),
                Some(true)
            );
        }
    }
}
