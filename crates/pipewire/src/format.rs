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
