//! Capture through CoreGraphics: each display's picture, placed at its place in the screen's pixel
//! space (a display with fewer pixels per point than the sharpest is scaled up to it).

use handrail_imaging::{capture_part, compose_monitors};
use handrail_platform::{Frame, Monitor, PlatformError, Rect, Screen, Size};
use objc2_core_graphics::{CGDataProvider, CGImage, CGImageAlphaInfo, CGImageByteOrderInfo};

use super::shared::Shared;
use crate::permission::Permission;
use crate::pixels::{frame_from_image, PixelOrder};

pub struct MacScreen {
    shared: Shared,
}

impl MacScreen {
    pub fn new(shared: Shared) -> Self {
        MacScreen { shared }
    }

    fn allowed(&self) -> Result<(), PlatformError> {
        self.shared.require(Permission::ScreenRecording, |prompt| {
            if prompt {
                objc2_core_graphics::CGRequestScreenCaptureAccess()
            } else {
                objc2_core_graphics::CGPreflightScreenCaptureAccess()
            }
        })
    }
}

/// One display's picture as a frame.
fn display_picture(id: u32) -> Result<Frame, PlatformError> {
    // CGDisplayCreateImage is deprecated in favour of ScreenCaptureKit, whose screenshots are
    // asynchronous and need macOS 14; it still captures on current macOS.
    #[allow(deprecated)]
    let image = objc2_core_graphics::CGDisplayCreateImage(id)
        .ok_or_else(|| PlatformError::Failed(format!("display {id} gave no picture")))?;
    let image = Some(&*image);
    let provider =
        CGImage::data_provider(image).ok_or_else(|| PlatformError::Failed("a picture without data".into()))?;
    let data =
        CGDataProvider::data(Some(&provider)).ok_or_else(|| PlatformError::Failed("a picture without data".into()))?;
    let order = match (CGImage::byte_order_info(image), CGImage::alpha_info(image)) {
        (CGImageByteOrderInfo::Order32Little, _) => PixelOrder::Bgra,
        (_, CGImageAlphaInfo::PremultipliedLast | CGImageAlphaInfo::NoneSkipLast | CGImageAlphaInfo::Last) => {
            PixelOrder::Rgba
        }
        _ => PixelOrder::Argb,
    };
    frame_from_image(
        &data.to_vec(),
        CGImage::width(image),
        CGImage::height(image),
        CGImage::bytes_per_row(image),
        CGImage::bits_per_pixel(image),
        order,
    )
}

impl Screen for MacScreen {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        Ok(self.shared.space()?.size())
    }

    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
        self.allowed()?;
        let space = self.shared.space()?;
        let mut parts = Vec::new();
        for d in space.displays() {
            let place = space.rect_to_pixels(d.x, d.y, d.width, d.height);
            parts.push((place, display_picture(d.id)?));
        }
        capture_part(compose_monitors(Rect::from_size(space.size()), &parts), area, max_size)
    }

    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        Ok(self.shared.space()?.monitors())
    }
}
