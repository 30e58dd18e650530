//! JPEG and PNG encoders behind the platform's [`Encoder`] trait.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use handrail_platform::{EncodedImage, Encoder, Frame, PlatformError};

use crate::pixels::{bgrx_row_to_rgb, src_row, validate};

/// JPEG quality used when none is given: small files with text that stays legible.
pub const DEFAULT_JPEG_QUALITY: u8 = 80;

/// Encodes frames as baseline JPEG.
///
/// BGRX goes to the encoder as-is (its BGRA input reads only B, G and R, so the X byte never matters).
/// Below quality 90 the encoder subsamples chroma 2x2, which is what keeps screenshots small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JpegEncoder {
    quality: u8,
}

impl JpegEncoder {
    /// An encoder at `quality`, clamped to 1..=100.
    pub fn new(quality: u8) -> Self {
        Self { quality: quality.clamp(1, 100) }
    }

    pub fn quality(&self) -> u8 {
        self.quality
    }
}

impl Default for JpegEncoder {
    fn default() -> Self {
        Self::new(DEFAULT_JPEG_QUALITY)
    }
}

impl Encoder for JpegEncoder {
    fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError> {
        validate(frame)?;
        let (w, h) = (frame.size.width, frame.size.height);
        // JPEG stores each side in 16 bits.
        let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
            return Err(PlatformError::Invalid(format!("{} is too large for JPEG (at most 65535 a side)", frame.size)));
        };
        if w16 == 0 || h16 == 0 {
            return Err(PlatformError::Invalid(format!("cannot encode an empty {} image", frame.size)));
        }

        let data = packed_bgrx(frame);
        // Screenshots typically compress to well under a bit a pixel at quality 80.
        let mut bytes = Vec::with_capacity(frame.size.area() as usize / 4 + 1024);
        jpeg_encoder::Encoder::new(&mut bytes, self.quality)
            .encode(&data, w16, h16, jpeg_encoder::ColorType::Bgra)
            .map_err(|e| PlatformError::Failed(format!("JPEG encoding failed: {e}")))?;
        Ok(EncodedImage { mime: "image/jpeg", size: frame.size, bytes })
    }
}

/// The frame's pixels with no row padding, borrowed when the frame already is packed. `frame` must be
/// valid (see [`validate`]).
fn packed_bgrx(frame: &Frame) -> Cow<'_, [u8]> {
    let row = frame.size.width as usize * 4;
    let len = row * frame.size.height as usize;
    if frame.stride == row {
        if let Some(all) = frame.pixels.get(..len) {
            return Cow::Borrowed(all);
        }
    }
    let mut out = Vec::with_capacity(len);
    for y in 0..frame.size.height {
        match src_row(frame, y) {
            Some(r) => out.extend_from_slice(r),
            None => out.resize(out.len() + row, 0),
        }
    }
    Cow::Owned(out)
}

/// How hard [`PngEncoder`] compresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PngCompression {
    /// Fast DEFLATE with a decent ratio; the right trade for screenshots sent on every step.
    #[default]
    Fast,
    /// Smaller files, several times slower.
    Balanced,
    /// Smallest files, much slower.
    High,
}

/// Encodes frames as 8-bit RGB PNG (lossless; for when exact pixels matter more than size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PngEncoder {
    compression: PngCompression,
}

impl PngEncoder {
    pub fn new(compression: PngCompression) -> Self {
        Self { compression }
    }

    pub fn compression(&self) -> PngCompression {
        self.compression
    }
}

impl Encoder for PngEncoder {
    fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError> {
        validate(frame)?;
        let (w, h) = (frame.size.width, frame.size.height);
        // PNG sides are at most 2^31 - 1.
        if w == 0 || h == 0 || w > i32::MAX as u32 || h > i32::MAX as u32 {
            return Err(PlatformError::Invalid(format!("cannot encode a {} image as PNG", frame.size)));
        }

        // PNG has no BGRX layout, so one tight pass makes RGB (dropping X also saves a quarter of the
        // bytes DEFLATE has to chew through).
        let row_rgb = w as usize * 3;
        let mut rgb = vec![0u8; row_rgb * h as usize];
        for (y, dst) in (0..h).zip(rgb.chunks_exact_mut(row_rgb)) {
            if let Some(src) = src_row(frame, y) {
                bgrx_row_to_rgb(src, dst);
            }
        }

        let failed = |e: png::EncodingError| PlatformError::Failed(format!("PNG encoding failed: {e}"));
        let mut bytes = Vec::with_capacity(rgb.len() / 4 + 1024);
        let mut enc = png::Encoder::new(&mut bytes, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(match self.compression {
            PngCompression::Fast => png::Compression::Fast,
            PngCompression::Balanced => png::Compression::Balanced,
            PngCompression::High => png::Compression::High,
        });
        let mut writer = enc.write_header().map_err(failed)?;
        writer.write_image_data(&rgb).map_err(failed)?;
        writer.finish().map_err(failed)?;
        Ok(EncodedImage { mime: "image/png", size: frame.size, bytes })
    }
}

/// Which image format screenshots are sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Jpeg { quality: u8 },
    Png,
}

impl ImageFormat {
    /// The MIME type of images in this format.
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Jpeg { .. } => "image/jpeg",
            ImageFormat::Png => "image/png",
        }
    }
}

impl Default for ImageFormat {
    fn default() -> Self {
        ImageFormat::Jpeg { quality: DEFAULT_JPEG_QUALITY }
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageFormat::Jpeg { .. } => f.write_str("jpeg"),
            ImageFormat::Png => f.write_str("png"),
        }
    }
}

/// An image format name that is not `jpeg`, `jpg` or `png`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseImageFormatError {
    input: String,
}

impl fmt::Display for ParseImageFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown image format {:?}: expected jpeg, jpg or png", self.input)
    }
}

impl std::error::Error for ParseImageFormatError {}

impl FromStr for ImageFormat {
    type Err = ParseImageFormatError;

    /// `jpeg` or `jpg` (at [`DEFAULT_JPEG_QUALITY`]) or `png`, ignoring case and surrounding spaces.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        if name.eq_ignore_ascii_case("jpeg") || name.eq_ignore_ascii_case("jpg") {
            Ok(ImageFormat::default())
        } else if name.eq_ignore_ascii_case("png") {
            Ok(ImageFormat::Png)
        } else {
            Err(ParseImageFormatError { input: s.to_owned() })
        }
    }
}

/// The encoder for `format` (PNG at [`PngCompression::Fast`]), which does not encode the same picture
/// twice in a row ([`ReusesLast`](crate::ReusesLast)).
pub fn encoder(format: ImageFormat) -> Box<dyn Encoder> {
    match format {
        ImageFormat::Jpeg { quality } => Box::new(crate::ReusesLast::new(JpegEncoder::new(quality))),
        ImageFormat::Png => Box::new(crate::ReusesLast::new(PngEncoder::default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pixels::{frame_from_rgb, to_rgb};
    use handrail_platform::{Rect, Size};

    /// A frame with gradients and sharp edges, rows padded by `pad` bytes of 0x55, X set to `x`.
    fn sample(width: u32, height: u32, pad: usize, x: u8) -> Frame {
        let size = Size::new(width, height);
        let stride = width as usize * 4 + pad;
        let mut pixels = vec![0x55; stride * height as usize];
        for row in 0..height as usize {
            for col in 0..width as usize {
                let edge = if (col / 8 + row / 8) % 2 == 0 { 255 } else { 0 };
                let at = row * stride + col * 4;
                pixels[at..at + 4].copy_from_slice(&[(col * 3) as u8, (row * 5) as u8, edge, x]);
            }
        }
        Frame { size, screen: size, stride, pixels, origin: Rect::from_size(size) }
    }

    /// (width, height) from the first SOF segment, after checking SOI/EOI framing.
    fn jpeg_dimensions(bytes: &[u8]) -> (u16, u16) {
        assert_eq!(&bytes[..2], [0xFF, 0xD8], "SOI");
        assert_eq!(&bytes[bytes.len() - 2..], [0xFF, 0xD9], "EOI");
        let mut at = 2;
        loop {
            assert_eq!(bytes[at], 0xFF, "marker at {at}");
            let marker = bytes[at + 1];
            let len = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
            // SOF0..SOF15, minus DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
                let sof = &bytes[at + 4..];
                assert_eq!(sof[0], 8, "precision");
                return (u16::from_be_bytes([sof[3], sof[4]]), u16::from_be_bytes([sof[1], sof[2]]));
            }
            assert_ne!(marker, 0xDA, "SOS before SOF");
            at += 2 + len;
        }
    }

    #[test]
    fn jpeg_is_framed_and_sized() {
        let f = sample(123, 45, 0, 0);
        let img = JpegEncoder::default().encode(&f).expect("encodes");
        assert_eq!(img.mime, "image/jpeg");
        assert_eq!(img.size, f.size);
        assert_eq!(jpeg_dimensions(&img.bytes), (123, 45));
    }

    #[test]
    fn jpeg_ignores_x_byte_and_row_padding() {
        let enc = JpegEncoder::new(75);
        let a = enc.encode(&sample(40, 30, 0, 0)).expect("encodes");
        let b = enc.encode(&sample(40, 30, 0, 0xFF)).expect("encodes");
        let c = enc.encode(&sample(40, 30, 24, 0x80)).expect("encodes");
        assert_eq!(a.bytes, b.bytes);
        assert_eq!(a.bytes, c.bytes);
    }

    #[test]
    fn jpeg_quality_is_clamped_and_changes_size() {
        assert_eq!(JpegEncoder::new(0).quality(), 1);
        assert_eq!(JpegEncoder::new(200).quality(), 100);
        let f = sample(64, 64, 0, 0);
        let low = JpegEncoder::new(10).encode(&f).expect("encodes");
        let high = JpegEncoder::new(95).encode(&f).expect("encodes");
        assert!(low.bytes.len() < high.bytes.len());
    }

    #[test]
    fn jpeg_rejects_bad_geometry() {
        let mut short = sample(10, 10, 0, 0);
        short.pixels.pop();
        assert!(matches!(JpegEncoder::default().encode(&short), Err(PlatformError::Invalid(_))));

        let mut narrow = sample(10, 10, 0, 0);
        narrow.stride = 8;
        assert!(matches!(JpegEncoder::default().encode(&narrow), Err(PlatformError::Invalid(_))));

        let empty = Frame::solid(Size::new(0, 10), [0; 4]);
        assert!(matches!(JpegEncoder::default().encode(&empty), Err(PlatformError::Invalid(_))));

        let wide = Frame::solid(Size::new(70_000, 1), [0; 4]);
        assert!(matches!(JpegEncoder::default().encode(&wide), Err(PlatformError::Invalid(_))));
    }

    #[test]
    fn png_round_trips_pixels() {
        let f = sample(37, 21, 12, 0x33);
        let img = PngEncoder::default().encode(&f).expect("encodes");
        assert_eq!(img.mime, "image/png");
        assert_eq!(&img.bytes[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR is always first: length, type, then big-endian width and height.
        assert_eq!(&img.bytes[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(img.bytes[16..20].try_into().expect("4 bytes")), 37);
        assert_eq!(u32::from_be_bytes(img.bytes[20..24].try_into().expect("4 bytes")), 21);

        let decoder = png::Decoder::new(std::io::Cursor::new(&img.bytes));
        let mut reader = decoder.read_info().expect("header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("frame");
        assert_eq!((info.width, info.height), (37, 21));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&buf[..info.buffer_size()], to_rgb(&f));
    }

    #[test]
    fn png_levels_all_decode() {
        let f = frame_from_rgb(8, 8, &[200; 8 * 8 * 3]);
        for c in [PngCompression::Fast, PngCompression::Balanced, PngCompression::High] {
            let img = PngEncoder::new(c).encode(&f).expect("encodes");
            let mut reader = png::Decoder::new(std::io::Cursor::new(&img.bytes)).read_info().expect("header");
            let mut buf = vec![0; reader.output_buffer_size().expect("size")];
            reader.next_frame(&mut buf).expect("frame");
            assert!(buf.iter().all(|&b| b == 200));
        }
    }

    #[test]
    fn png_rejects_bad_geometry() {
        let mut short = sample(10, 10, 4, 0);
        short.pixels.truncate(100);
        assert!(matches!(PngEncoder::default().encode(&short), Err(PlatformError::Invalid(_))));
        let empty = Frame::solid(Size::new(5, 0), [0; 4]);
        assert!(matches!(PngEncoder::default().encode(&empty), Err(PlatformError::Invalid(_))));
    }

    #[test]
    fn formats_parse_and_pick_encoders() {
        assert_eq!("jpeg".parse(), Ok(ImageFormat::Jpeg { quality: 80 }));
        assert_eq!(" JPG ".parse(), Ok(ImageFormat::Jpeg { quality: 80 }));
        assert_eq!("Png".parse(), Ok(ImageFormat::Png));
        let err = "gif".parse::<ImageFormat>().expect_err("unknown");
        assert_eq!(err.to_string(), "unknown image format \"gif\": expected jpeg, jpg or png");
        assert!("".parse::<ImageFormat>().is_err());

        assert_eq!(ImageFormat::default().to_string(), "jpeg");
        let f = sample(16, 16, 0, 0);
        for format in [ImageFormat::Jpeg { quality: 50 }, ImageFormat::Png] {
            let img = encoder(format).encode(&f).expect("encodes");
            assert_eq!(img.mime, format.mime());
        }
    }
}
