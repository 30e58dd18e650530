//! Knowing when the screen has stopped changing, from the screen casts' frames.
//!
//! mutter sends a monitor's frame only when something on it was redrawn, so every frame is damage.
//! A thread per monitor waits for each new frame and reports what it changed to `handrail-damage`
//! (whose rules, animations already running ignored, answer the waits): the rectangles the frame's
//! damage metadata names when they are a part of the picture, else the cells where it differs from
//! the frame before.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_damage::{changed_cells, picture_to_screen, DamageFeed, DamageSettle, CELL};
use handrail_pipewire::VideoFrame;
use handrail_platform::{PlatformError, Rect, Settle, SettleWatch, Size};
use log::warn;

use crate::screen::{MonitorStream, MutterScreen};

/// How often a listener looks whether it should stop (between frames).
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Waits on the screen casts' frames until the screen is quiet.
pub struct MutterSettle {
    damage: DamageSettle,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for MutterSettle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutterSettle").finish_non_exhaustive()
    }
}

impl MutterSettle {
    /// Starts listening to the streams of `screen`.
    pub fn start(screen: &MutterScreen) -> Result<MutterSettle, PlatformError> {
        let size = screen.screen_size_now();
        let layout = Rect::from_size(size);
        let (damage, feed) = DamageSettle::new(size);
        let stop = Arc::new(AtomicBool::new(false));
        let streams = screen.streams();
        let mut threads = Vec::new();
        for i in 0..streams.len() {
            let (streams, feed, stop) = (streams.clone(), feed.clone(), stop.clone());
            let thread = std::thread::Builder::new()
                .name("handrail-gnome-settle".into())
                .spawn(move || listen(&streams[i], layout, &feed, &stop))
                .map_err(|e| PlatformError::Failed(format!("starting the settle listener: {e}")))?;
            threads.push(thread);
        }
        Ok(MutterSettle { damage, stop, threads })
    }

    /// The regions a watch started now would ignore as already animating.
    pub fn animating_regions(&self) -> Vec<Rect> {
        self.damage.animating_regions()
    }
}

impl Drop for MutterSettle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            if t.join().is_err() {
                warn!("a settle listener panicked");
            }
        }
    }
}

impl Settle for MutterSettle {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        self.damage.watch()
    }
}

/// Feeds what each new frame of `monitor` changed, until `stop`.
fn listen(monitor: &MonitorStream, layout: Rect, feed: &DamageFeed, stop: &AtomicBool) {
    let mut previous: Option<Arc<VideoFrame>> = monitor.video.latest();
    let mut seen = previous.as_ref().map_or(0, |f| f.sequence);
    while !stop.load(Ordering::Relaxed) {
        let frame = match monitor.video.frame_after(seen, STOP_CHECK) {
            Ok(Some(f)) => f,
            Ok(None) => continue,
            Err(e) => {
                feed.fail(format!("the screen cast of {}: {e}", monitor.connector));
                return;
            }
        };
        let at = Instant::now();
        seen = frame.sequence;
        let rects = changed_rects(previous.as_deref(), &frame, monitor.area, layout);
        feed.record(at, &rects);
        previous = Some(frame);
    }
}

/// What `frame` changed on the screen, in screen coordinates: its damage metadata when it names
/// a part of the picture, else its difference from `previous` (everything when there is none to
/// compare with).
///
/// mutter 48 drawing in software names the whole picture in every frame's damage, whatever was
/// redrawn: taken as said, one blinking caret made the whole screen an animation, and a spinner
/// anywhere hid every change an action made. The pixels tell where the frame differs.
fn changed_rects(previous: Option<&VideoFrame>, frame: &VideoFrame, area: Rect, layout: Rect) -> Vec<Rect> {
    let comparable = previous.filter(|p| (p.width, p.height, p.stride) == (frame.width, frame.height, frame.stride));
    let in_picture: Vec<Rect> = match (&frame.damage, comparable) {
        (Some(regions), _) if !names_most_of(regions, frame) => {
            regions.iter().map(|&(x, y, w, h)| Rect::new(x, y, w, h)).collect()
        }
        (_, Some(p)) => changed_cells(&p.pixels, &frame.pixels, frame.width, frame.height, frame.stride, CELL),
        (_, None) => vec![Rect::new(0, 0, frame.width, frame.height)],
    };
    let screen = Rect::from_size(Size::new(layout.width, layout.height));
    in_picture
        .into_iter()
        .filter_map(|r| picture_to_screen(r, (frame.width, frame.height), area, layout).intersection(&screen))
        .collect()
}

/// Whether damage `regions` cover at least half of `frame`'s picture (they may overlap: an
/// overestimate only sends the frame to the pixel comparison).
fn names_most_of(regions: &[(i32, i32, u32, u32)], frame: &VideoFrame) -> bool {
    let named: u64 = regions.iter().map(|&(_, _, w, h)| u64::from(w) * u64::from(h)).sum();
    named * 2 >= u64::from(frame.width) * u64::from(frame.height)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(w: u32, h: u32, fill: u8, damage: Option<Vec<(i32, i32, u32, u32)>>) -> VideoFrame {
        VideoFrame {
            width: w,
            height: h,
            stride: w as usize * 4,
            pixels: vec![fill; (w * h * 4) as usize],
            sequence: 1,
            damage,
        }
    }

    #[test]
    fn damage_metadata_is_taken_and_scaled_to_the_screen() {
        // A monitor at (100, 0) of 50x50 logical pixels, sent as 100x100 pictures (scale 2).
        let (area, layout) = (Rect::new(100, 0, 50, 50), Rect::new(0, 0, 150, 50));
        let f = frame(100, 100, 0, Some(vec![(10, 20, 30, 40)]));
        assert_eq!(changed_rects(None, &f, area, layout), vec![Rect::new(105, 10, 15, 20)]);
    }

    #[test]
    fn damage_naming_the_whole_picture_is_narrowed_to_what_differs() {
        // What mutter 48 sends: every frame damaged whole, one pixel changed.
        let (area, layout) = (Rect::new(0, 0, 64, 64), Rect::new(0, 0, 64, 64));
        let before = frame(64, 64, 0, None);
        let mut after = frame(64, 64, 0, Some(vec![(0, 0, 64, 64)]));
        after.pixels[(40 * 64 + 40) * 4] = 9;
        assert_eq!(changed_rects(Some(&before), &after, area, layout), vec![Rect::new(32, 32, 32, 32)]);
        let same = frame(64, 64, 0, Some(vec![(0, 0, 64, 64)]));
        assert!(changed_rects(Some(&before), &same, area, layout).is_empty(), "a repaint of the same pixels");
        assert_eq!(changed_rects(None, &same, area, layout), vec![Rect::new(0, 0, 64, 64)], "nothing to compare");
        // A small region is believed as said.
        let small = frame(64, 64, 0, Some(vec![(0, 0, 8, 8)]));
        assert_eq!(changed_rects(Some(&before), &small, area, layout), vec![Rect::new(0, 0, 8, 8)]);
    }

    #[test]
    fn without_metadata_the_difference_is_taken() {
        let (area, layout) = (Rect::new(0, 0, 64, 64), Rect::new(0, 0, 64, 64));
        let before = frame(64, 64, 0, None);
        let mut after = frame(64, 64, 0, None);
        after.pixels[(40 * 64 + 40) * 4] = 9;
        assert_eq!(changed_rects(Some(&before), &after, area, layout), vec![Rect::new(32, 32, 32, 32)]);
        assert!(changed_rects(Some(&before), &before, area, layout).is_empty(), "an identical frame changed nothing");
        assert_eq!(changed_rects(None, &after, area, layout), vec![Rect::new(0, 0, 64, 64)], "nothing to compare");
    }
}
