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

use handrail_imaging::{capture_part, compose_monitors};
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
        let mut parts = Vec::with_capacity(n);
        for i in 0..n {
            let logical = copier.outputs().list[i].1.logical;
            let (pixels, w, h) = copier.pixels(i)?;
            let size = Size::new(w, h);
            let picture = Frame { size, screen: size, stride: w as usize * 4, pixels, origin: Rect::from_size(size) };
            parts.push((logical, picture));
        }
        Ok(compose_monitors(layout, &parts))
    }
}

impl Screen for WaylandScreen {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        Ok(self.lock().outputs().screen_size())
    }

    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
        capture_part(self.grab()?, area, max_size)
    }

    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        let monitors = self.lock().outputs().monitors();
        if monitors.is_empty() {
            return Ok(vec![Monitor::whole(self.screen_size()?)]);
        }
        Ok(monitors)
    }
}
