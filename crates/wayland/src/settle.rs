//! Knowing when the screen has stopped changing, from screencopy damage.
//!
//! [`WaylandSettle`] keeps a `copy_with_damage` in flight on every output, on a connection and
//! thread of its own. The compositor answers a damage copy only once something on that output was
//! redrawn since our previous copy, and says which rectangles; the thread feeds them (in screen
//! coordinates) to `handrail-damage`, whose rules (animations already running are ignored) answer
//! the waits, and asks again, at most every [`RECOPY_EVERY`] (damage in between accumulates in the
//! compositor, so nothing is lost, and a flood costs at most one copy per interval). The first copy
//! of each output (all of it "damaged") only starts the stream.
//!
//! The thread blocks in `poll(2)`; dropping the settle wakes and joins it.

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_damage::{picture_to_screen, DamageFeed, DamageSettle};
use handrail_platform::{PlatformError, Rect, Settle, SettleWatch};
use log::warn;

use crate::conn::Socket;
use crate::error::WaylandError;
use crate::screencopy::Copier;

/// Least time between two damage copies of one output.
pub const RECOPY_EVERY: Duration = Duration::from_millis(8);

/// Waits on screencopy damage until the screen is quiet. See the [module docs](self).
pub struct WaylandSettle {
    damage: DamageSettle,
    stop: Option<UnixStream>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for WaylandSettle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaylandSettle").finish_non_exhaustive()
    }
}

impl WaylandSettle {
    /// Starts watching the compositor at `socket`. A compositor without damage reports (screencopy
    /// older than v2) is `Unavailable`.
    pub fn connect(socket: &Socket) -> Result<WaylandSettle, WaylandError> {
        let copier = Copier::open(socket)?;
        if !copier.has_damage() {
            return Err(WaylandError::MissingProtocol {
                protocol: "zwlr_screencopy_manager_v1 version 2",
                why: "settle waits on its damage reports",
            });
        }
        let (damage, feed) = DamageSettle::new(copier.outputs().screen_size());
        let (stop, stop_rx) =
            UnixStream::pair().map_err(|source| WaylandError::Os { what: "creating a wake-up pair", source })?;
        let thread = std::thread::Builder::new()
            .name("handrail-settle".into())
            .spawn(move || listen(copier, &feed, &stop_rx))
            .map_err(|source| WaylandError::Os { what: "starting the settle listener", source })?;
        Ok(WaylandSettle { damage, stop: Some(stop), thread: Some(thread) })
    }

    /// The regions a watch started now would ignore as already animating.
    pub fn animating_regions(&self) -> Vec<Rect> {
        self.damage.animating_regions()
    }
}

impl Drop for WaylandSettle {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                warn!("the settle listener panicked");
            }
        }
    }
}

/// The listener: keeps a damage copy in flight per output and logs what each reports.
fn listen(mut copier: Copier, feed: &DamageFeed, stop: &UnixStream) {
    let fail = |why: String| {
        warn!("settle: {why}");
        feed.fail(why);
    };
    let outputs: Vec<(Rect, (u32, u32))> = copier
        .outputs()
        .list
        .iter()
        .map(|(_, o)| (o.logical, (o.pixels.width.max(1), o.pixels.height.max(1))))
        .collect();
    let layout = copier.outputs().layout_bounds();
    let mut started = vec![false; outputs.len()];
    let mut last_request = vec![Instant::now() - RECOPY_EVERY; outputs.len()];
    loop {
        let now = Instant::now();
        let mut next = now + Duration::from_secs(60);
        for (i, last) in last_request.iter_mut().enumerate() {
            if copier.in_flight(i) {
                continue;
            }
            let due = *last + RECOPY_EVERY;
            if due <= now {
                copier.request(i, true);
                *last = now;
            } else {
                next = next.min(due);
            }
        }
        let (copied, woken) = match copier.pump(next, Some(stop.as_raw_fd())) {
            Ok(r) => r,
            Err(e) => return fail(e.to_string()),
        };
        if woken {
            return;
        }
        if copied.is_empty() {
            continue;
        }
        let at = Instant::now();
        let mut rects = Vec::new();
        for c in copied {
            let Some(&(logical, (pw, ph))) = outputs.get(c.output) else { continue };
            if !std::mem::replace(&mut started[c.output], true) {
                continue;
            }
            rects.extend(c.damage.iter().map(|d| picture_to_screen(*d, (pw, ph), logical, layout)));
        }
        feed.record(at, &rects);
    }
}

impl Settle for WaylandSettle {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        self.damage.watch()
    }
}
