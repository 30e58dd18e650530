//! Pixel work for handrail: resizing and cropping BGRX [`Frame`]s, composing a screen from its
//! monitors' pictures ([`compose_monitors`]) and encoding them as JPEG or PNG; and
//! luminance ([`luma_row`]) for thumbnails and OCR; and [`sniff`], which names an image file's format and size from its header.
//!
//! Everything here works on the capture layout ([`Frame`]: BGRX, 4 bytes a pixel, X ignored, rows
//! `stride` bytes apart) so a screenshot goes from capture to model without a per-pixel conversion pass
//! before the resize.
//!
//! Pixel functions never panic on a malformed frame: a row the buffer does not hold whole (or every row
//! when `stride` is shorter than a row) reads as black. Encoders are strict instead and answer
//! [`PlatformError::Invalid`], because sending the model a silently blackened image would be worse than
//! an error.
//!
//! [`Frame`]: handrail_platform::Frame
//! [`PlatformError::Invalid`]: handrail_platform::PlatformError::Invalid

mod compose;
pub mod draw;
mod encode;
mod luma;
mod pixels;
mod resize;
mod reuse;
mod sniff;

pub use compose::{capture_part, compose_monitors};
pub use encode::{
    encoder, ImageFormat, JpegEncoder, ParseImageFormatError, PngCompression, PngEncoder, DEFAULT_JPEG_QUALITY,
};
pub use luma::{add_luma_row, luma, luma_row};
pub use pixels::{crop, frame_from_rgb, to_rgb, validate};
pub use resize::{resize_bgrx, upscale_bgrx, MAX_UPSCALE};
pub use reuse::ReusesLast;
pub use sniff::sniff;
