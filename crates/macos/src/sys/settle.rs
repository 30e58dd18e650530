//! Knowing when the screen has settled, by looking: a thread captures the screen at a quarter of its
//! size every [`POLL`] and feeds what changed to `handrail-damage`, which answers `Settle` (animations
//! already running ignored, as on Linux). macOS tells no program what it redrew without
//! ScreenCaptureKit's stream; this is its stand-in, and its cost is one small capture per poll.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use handrail_damage::{changed_cells, picture_to_screen, DamageFeed, DamageSettle, CELL};
use handrail_platform::{PlatformError, Rect, Screen, Settle, SettleWatch, Size};

use super::screen::MacScreen;
use super::shared::Shared;

const POLL: Duration = Duration::from_millis(40);

pub struct MacSettle {
    damage: DamageSettle,
    stop: Arc<AtomicBool>,
}

impl MacSettle {
    pub fn start(shared: Shared) -> Result<MacSettle, PlatformError> {
        let screen_size = shared.space()?.size();
        let (damage, feed) = DamageSettle::new(screen_size);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::Builder::new()
            .name("handrail-settle".into())
            .spawn(move || watch(MacScreen::new(shared), screen_size, feed, stopped))
            .map_err(|e| PlatformError::Failed(format!("starting the screen watcher: {e}")))?;
        Ok(MacSettle { damage, stop })
    }
}

impl Drop for MacSettle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn watch(screen: MacScreen, screen_size: Size, feed: DamageFeed, stop: Arc<AtomicBool>) {
    let small = Size::new((screen_size.width / 4).max(1), (screen_size.height / 4).max(1));
    let mut last: Option<handrail_platform::Frame> = None;
    while !stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        match screen.capture(None, Some(small)) {
            Ok(frame) => {
                if let Some(before) = &last {
                    if before.size == frame.size {
                        let cell = (CELL / 4).max(1);
                        let cells = changed_cells(
                            &before.pixels,
                            &frame.pixels,
                            frame.size.width,
                            frame.size.height,
                            frame.stride,
                            cell,
                        );
                        let whole = Rect::from_size(screen_size);
                        let rects: Vec<Rect> = cells
                            .into_iter()
                            .map(|r| picture_to_screen(r, (frame.size.width, frame.size.height), whole, whole))
                            .collect();
                        feed.record(started, &rects);
                    }
                }
                last = Some(frame);
            }
            Err(e) => {
                feed.fail(e.to_string());
                return;
            }
        }
        std::thread::sleep(POLL.saturating_sub(started.elapsed()));
    }
}

impl Settle for MacSettle {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        self.damage.watch()
    }
}
