//! The screen through mutter's screen casts: one PipeWire stream per monitor, always running.
//!
//! mutter sends a monitor's picture only when something on it was redrawn, so the newest frame of
//! each stream is the screen as it is now, and capturing costs no round trip to the compositor:
//! the monitors' latest pictures are composed into the screen's logical layout.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use handrail_imaging::{capture_part, compose_monitors};
use handrail_pipewire::{VideoFrame, VideoStream};
use handrail_platform::{Frame, Monitor, PlatformError, Rect, Screen, Size};

use crate::error::GnomeError;
use crate::mutter::MutterSession;

/// How long a stream may take to deliver its first picture (mutter sends one as soon as the
/// stream links). A liveness bound only: linking took over 5 s on a machine with a load average
/// near 10 (busy loops on both cores, four GNOME sessions starting), with the picture on its way.
pub const FIRST_FRAME: Duration = Duration::from_secs(15);

/// A monitor and the stream of its pictures.
pub(crate) struct MonitorStream {
    pub(crate) area: Rect,
    pub(crate) connector: String,
    pub(crate) video: VideoStream,
}

/// The screen of a mutter session.
pub struct MutterScreen {
    // Holds the session: its streams end with it.
    _session: Arc<MutterSession>,
    monitors: Arc<Vec<MonitorStream>>,
}

impl std::fmt::Debug for MutterScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let areas: Vec<_> = self.monitors.iter().map(|m| (&m.connector, m.area)).collect();
        f.debug_struct("MutterScreen").field("monitors", &areas).finish()
    }
}

impl MutterScreen {
    /// Connects to every stream of `session` on mutter's PipeWire daemon — the one listening on
    /// `pipewire`, or the session's own when `None` — and waits for each one's first picture.
    pub fn open(session: Arc<MutterSession>, pipewire: Option<&Path>) -> Result<MutterScreen, GnomeError> {
        let mut monitors = Vec::new();
        for s in session.streams() {
            let remote = session.pipewire_remote(pipewire)?;
            let video = VideoStream::connect(remote, s.node, "handrail screen")?;
            if video.frame_after(0, FIRST_FRAME)?.is_none() {
                return Err(GnomeError::Unexpected(format!(
                    "the screen cast of {} (PipeWire node {}) sent no picture within {FIRST_FRAME:?}",
                    s.connector, s.node
                )));
            }
            monitors.push(MonitorStream { area: s.area, connector: s.connector.clone(), video });
        }
        Ok(MutterScreen { _session: session, monitors: Arc::new(monitors) })
    }

    /// The monitors' streams, for the settle watch.
    pub(crate) fn streams(&self) -> Arc<Vec<MonitorStream>> {
        self.monitors.clone()
    }

    /// The size of the screen the monitors make.
    pub(crate) fn screen_size_now(&self) -> Size {
        let l = self.layout();
        Size::new(l.width, l.height)
    }

    fn layout(&self) -> Rect {
        let mut areas = self.monitors.iter().map(|m| m.area);
        let first = areas.next().unwrap_or_default();
        areas.fold(first, |a, b| a.union(&b))
    }
}

fn picture(frame: &VideoFrame) -> Frame {
    let size = Size::new(frame.width, frame.height);
    Frame { size, screen: size, stride: frame.stride, pixels: frame.pixels.clone(), origin: Rect::from_size(size) }
}

impl Screen for MutterScreen {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        Ok(self.screen_size_now())
    }

    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
        let mut parts = Vec::with_capacity(self.monitors.len());
        for m in self.monitors.iter() {
            if let Some(why) = m.video.ended() {
                return Err(PlatformError::Failed(format!("the screen cast of {} ended: {why}", m.connector)));
            }
            let latest = m.video.latest().ok_or_else(|| {
                PlatformError::Failed(format!("the screen cast of {} has sent no picture", m.connector))
            })?;
            parts.push((m.area, picture(&latest)));
        }
        capture_part(compose_monitors(self.layout(), &parts), area, max_size)
    }

    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        // mutter lists the primary monitor first in its state; the first stream is its.
        Ok(self
            .monitors
            .iter()
            .enumerate()
            .map(|(i, m)| Monitor { name: m.connector.clone(), bounds: m.area, primary: i == 0 })
            .collect())
    }
}
