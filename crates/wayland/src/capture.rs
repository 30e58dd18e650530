//! Screen capture: every output copied through wlr-screencopy in one round of requests, laid into
//! one frame of the whole layout.
//!
//! **Coordinates.** Wayland has no root window; the screen is the bounding box of the outputs'
//! logical rectangles (xdg-output), and screen coordinates are layout coordinates less that box's
//! origin — the same space the virtual pointer's absolute motion spans. An output whose buffer is
//! larger than its logical size (a scaled output) is resized into its logical rectangle, so one
//! screen pixel is one logical pixel everywhere. Parts of the box no output covers stay black.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_imaging::resize_bgrx;
use handrail_platform::{Frame, Monitor, PlatformError, Rect, Screen, Size};

use crate::conn::Socket;
use crate::error::WaylandError;
use crate::screencopy::Copier;

/// Bound on one capture: the compositor copies within a frame or two.
const CAPTURE_TIMEOUT: Duration = Duration::from_secs(3);

/// Captures the outputs of a wlroots compositor. See the [module docs](self).
pub struct WaylandScreen {
    copier: Mutex<Copier>,
}

impl std::fmt::Debug for WaylandScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaylandScreen").finish_non_exhaustive()
    }
}

impl WaylandScreen {
    /// Connects to the compositor at `socket`. Fails when it lacks wlr-screencopy.
    pub fn connect(socket: &Socket) -> Result<WaylandScreen, WaylandError> {
        Ok(WaylandScreen { copier: Mutex::new(Copier::open(socket)?) })
    }

    fn lock(&self) -> MutexGuard<'_, Copier> {
        // A panic while capturing leaves nothing half-updated that matters: keep going.
        self.copier.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The whole layout at one logical pixel per screen pixel.
    fn grab(&self) -> Result<Frame, WaylandError> {
        let mut copier = self.lock();
        let n = copier.outputs().list.len();
        for i in 0..n {
            copier.request(i, false);
        }
        let done = copier.finish_all(Instant::now() + CAPTURE_TIMEOUT)?;
        if done.len() < n {
            return Err(WaylandError::Other(format!(
                "screencopy: {} of {n} outputs copied within {} s",
                done.len(),
                CAPTURE_TIMEOUT.as_secs()
            )));
        }
        let layout = copier.outputs().layout_bounds();
        let screen = Size::new(layout.width, layout.height);
        let mut frame = Frame::solid(screen, [0, 0, 0, 0xff]);
        for i in 0..n {
            let logical = copier.outputs().list[i].1.logical;
            let (pixels, w, h) = copier.pixels(i)?;
            let mut part = Frame {
                size: Size::new(w, h),
                screen: Size::new(w, h),
                stride: w as usize * 4,
                pixels,
                origin: Rect::new(0, 0, w, h),
            };
            let target = Size::new(logical.width, logical.height);
            if part.size != target && target.width > 0 && target.height > 0 {
                part = resize_bgrx(&part, target);
            }
            blit(&mut frame, &part, logical.x - layout.x, logical.y - layout.y);
        }
        Ok(frame)
    }
}

/// Copies `part` into `into` with its top-left corner at (`x`, `y`), clipped.
fn blit(into: &mut Frame, part: &Frame, x: i32, y: i32) {
    let dst = Rect::from_size(into.size);
    let Some(visible) = Rect::new(x, y, part.size.width, part.size.height).intersection(&dst) else { return };
    let row_bytes = visible.width as usize * 4;
    for row in 0..visible.height as i32 {
        let (sy, dy) = ((visible.y - y + row) as usize, (visible.y + row) as usize);
        let sx = (visible.x - x) as usize * 4;
        let src = &part.pixels[sy * part.stride + sx..sy * part.stride + sx + row_bytes];
        let dx = visible.x as usize * 4;
        into.pixels[dy * into.stride + dx..dy * into.stride + dx + row_bytes].copy_from_slice(src);
    }
}

impl Screen for WaylandScreen {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        Ok(self.lock().outputs().screen_size())
    }

    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
        if let Some(m) = max_size {
            if m.width == 0 || m.height == 0 {
                return Err(PlatformError::Invalid(format!("capture max size {m} is empty")));
            }
        }
        let whole = self.grab()?;
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
                handrail_imaging::crop(&whole, clamped)
                    .ok_or_else(|| PlatformError::Failed(format!("cropping {clamped} from the screen")))?
            }
        };
        let target = max_size.map_or(raw.size, |m| raw.size.fit_within(m));
        Ok(if target == raw.size { raw } else { resize_bgrx(&raw, target) })
    }

    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        let monitors = self.lock().outputs().monitors();
        if monitors.is_empty() {
            return Ok(vec![Monitor::whole(self.screen_size()?)]);
        }
        Ok(monitors)
    }
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
}
