//! Knowing when the screen has stopped changing, from reports of what was redrawn and when.
//!
//! A backend that learns what its compositor redrew — wlroots screencopy damage, a PipeWire screen
//! cast's frames — feeds it to a [`DamageFeed`] as rectangles in screen coordinates; the
//! [`DamageSettle`] beside it answers `Settle` from that log. Where a producer does not say what it
//! redrew, [`changed_cells`] finds it by comparing two pictures.
//!
//! **Animations already running are ignored**, as on X11 (`handrail-x11`'s settle, whose rules this
//! follows in a smaller form): damage is mapped onto 32 px cells, each keeping its last few *bursts*
//! (repaints closer than [`BURST_GAP`] are one). At `watch()`, a cell with at least three bursts in the
//! last three seconds that is still going (its latest damage within three of its mean intervals) is
//! animating. During the watch, damage within one cell of fast animating cells is ignored; for a
//! slow one (bursts 150 ms or more apart: a blinking caret, a clock) only damage on its beat is.
//! Bursts are learned only while no watch is live, so an action's own effects never teach the
//! history that they are an animation.
//!
//! What it does not do that X11 does: recognise an animation that *began* during the watch (a new
//! window's spinner); the wait then holds on to the ceiling, which is the safe side.
//!
//! Waits block on a condition variable the feed signals per batch. Nothing here does I/O.

mod diff;

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_platform::{Cancel, PlatformError, Rect, Settle, SettleReport, SettleRequest, SettleWatch, Size};
use log::debug;

pub use diff::changed_cells;

/// Side of the cells damage history is kept in.
pub const CELL: u32 = 32;
/// Damage closer together than this in one cell is one repaint.
const BURST_GAP: Duration = Duration::from_millis(30);
/// Bursts remembered per cell.
const BURSTS: usize = 8;
/// How far back the history is read at `watch()`.
const HISTORY: Duration = Duration::from_millis(3000);
/// Bursts within [`HISTORY`] that make a cell animating.
const MIN_BURSTS: usize = 3;
/// Animations repainting faster than this own every repaint in their cells; slower ones only their beat.
const STEADY_BELOW: Duration = Duration::from_millis(150);
/// How far off its beat a slow animation's repaint may come: at least this (a compositor frame and a
/// little), or a sixteenth of its interval.
const MIN_BEAT_TOLERANCE: Duration = Duration::from_millis(20);
/// The least slack an animating cell gets between frames.
const MIN_RUNNING_SLACK: Duration = Duration::from_millis(100);
/// The longest an animating cell's latest damage may be old at `watch()`.
const STILL_RUNNING: Duration = Duration::from_millis(1500);
/// Damage entries kept for watches to read; one that falls further behind counts what it lost as news.
const LOG_CAPACITY: usize = 16 * 1024;

#[derive(Clone, Copy, Default)]
struct Cell {
    last: Option<Instant>,
    bursts: [Option<Instant>; BURSTS],
    head: usize,
}

/// An animation running in a cell: its mean repaint interval and latest burst.
#[derive(Clone, Copy, Debug)]
struct Rhythm {
    interval: Duration,
    latest: Instant,
}

impl Cell {
    fn damage(&mut self, at: Instant, learn: bool) {
        self.last = self.last.max(Some(at));
        if !learn {
            return;
        }
        let new_burst = self.bursts[self.head].is_none_or(|prev| at.saturating_duration_since(prev) >= BURST_GAP);
        if new_burst {
            self.head = (self.head + 1) % BURSTS;
            self.bursts[self.head] = Some(at);
        }
    }

    fn rhythm(&self, now: Instant) -> Option<Rhythm> {
        let last = self.last?;
        let mut recent: Vec<Instant> =
            self.bursts.iter().flatten().copied().filter(|t| now.saturating_duration_since(*t) <= HISTORY).collect();
        if recent.len() < MIN_BURSTS {
            return None;
        }
        recent.sort();
        let (oldest, newest) = (recent[0], recent[recent.len() - 1]);
        let interval = newest.saturating_duration_since(oldest) / (recent.len() as u32 - 1);
        let slack = (interval * 3).clamp(MIN_RUNNING_SLACK, STILL_RUNNING);
        (now.saturating_duration_since(last) <= slack).then_some(Rhythm { interval, latest: newest })
    }
}

struct State {
    cols: u32,
    rows: u32,
    cells: Vec<Cell>,
    live_watches: usize,
    log: VecDeque<(Instant, Rect)>,
    first_seq: u64,
    failed: Option<String>,
}

impl State {
    fn cells_of(&self, r: Rect) -> impl Iterator<Item = usize> + '_ {
        let clamp = |v: i32, max: u32| (v.max(0) as u32).min(max.saturating_sub(1));
        let (x0, y0) = (clamp(r.x, self.cols * CELL) / CELL, clamp(r.y, self.rows * CELL) / CELL);
        let x1 = clamp(r.x + r.width as i32 - 1, self.cols * CELL) / CELL;
        let y1 = clamp(r.y + r.height as i32 - 1, self.rows * CELL) / CELL;
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| (y * self.cols + x) as usize))
    }
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Answers `Settle` from the damage a [`DamageFeed`] logs. See the [crate docs](crate).
pub struct DamageSettle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for DamageSettle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DamageSettle").finish_non_exhaustive()
    }
}

/// Where a backend reports what was redrawn. Cloned freely (one per listening thread).
#[derive(Clone)]
pub struct DamageFeed {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for DamageFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DamageFeed").finish_non_exhaustive()
    }
}

impl DamageSettle {
    /// A settle for a screen of `screen` (its logical size), and the feed that tells it what changed.
    pub fn new(screen: Size) -> (DamageSettle, DamageFeed) {
        let (cols, rows) = (screen.width.div_ceil(CELL).clamp(1, 512), screen.height.div_ceil(CELL).clamp(1, 512));
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                cols,
                rows,
                cells: vec![Cell::default(); (cols * rows) as usize],
                live_watches: 0,
                log: VecDeque::with_capacity(LOG_CAPACITY),
                first_seq: 0,
                failed: None,
            }),
            changed: Condvar::new(),
        });
        (DamageSettle { shared: shared.clone() }, DamageFeed { shared })
    }

    /// The regions a watch started now would ignore as already animating.
    pub fn animating_regions(&self) -> Vec<Rect> {
        let st = self.shared.lock();
        let now = Instant::now();
        (0..st.cells.len()).filter(|&i| st.cells[i].rhythm(now).is_some()).map(|i| cell_rect(&st, i)).collect()
    }
}

impl DamageFeed {
    /// Logs that `rects` (screen coordinates) were redrawn at `at`, and wakes the waits.
    pub fn record(&self, at: Instant, rects: &[Rect]) {
        if rects.is_empty() {
            return;
        }
        let mut st = self.shared.lock();
        let learn = st.live_watches == 0;
        for &r in rects {
            for i in st.cells_of(r).collect::<Vec<_>>() {
                st.cells[i].damage(at, learn);
            }
            if st.log.len() == LOG_CAPACITY {
                st.log.pop_front();
                st.first_seq += 1;
            }
            st.log.push_back((at, r));
        }
        drop(st);
        self.shared.changed.notify_all();
    }

    /// Reports that no more damage will come (`why`): every watch and wait fails with it from now.
    pub fn fail(&self, why: String) {
        self.shared.lock().failed = Some(why);
        self.shared.changed.notify_all();
    }
}

/// Where rectangle `r` of a monitor's picture (`picture` pixels, width and height) lies on the
/// screen, that monitor showing `place` of a screen whose layout is `layout` (all logical
/// coordinates): scaled outward to whole logical pixels, never empty.
pub fn picture_to_screen(r: Rect, picture: (u32, u32), place: Rect, layout: Rect) -> Rect {
    let sx = f64::from(place.width) / f64::from(picture.0.max(1));
    let sy = f64::from(place.height) / f64::from(picture.1.max(1));
    let x0 = (f64::from(r.x) * sx).floor() as i32;
    let y0 = (f64::from(r.y) * sy).floor() as i32;
    let x1 = (f64::from(r.x + r.width as i32) * sx).ceil() as i32;
    let y1 = (f64::from(r.y + r.height as i32) * sy).ceil() as i32;
    Rect::new(place.x - layout.x + x0, place.y - layout.y + y0, (x1 - x0).max(1) as u32, (y1 - y0).max(1) as u32)
}

fn cell_rect(st: &State, i: usize) -> Rect {
    let (x, y) = (i as u32 % st.cols, i as u32 / st.cols);
    Rect::new((x * CELL) as i32, (y * CELL) as i32, CELL, CELL)
}

impl Settle for DamageSettle {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        let mut st = self.shared.lock();
        if let Some(why) = &st.failed {
            return Err(PlatformError::Failed(why.clone()));
        }
        let now = Instant::now();
        let rhythms: Vec<Option<Rhythm>> = st.cells.iter().map(|c| c.rhythm(now)).collect();
        // Each cell learns the rhythm of the animating cells around it (the halo absorbs an
        // animation's ragged edge); a fast neighbour wins over a slow one.
        let (cols, rows) = (st.cols as i64, st.rows as i64);
        let mut excused: Vec<Option<Rhythm>> = vec![None; rhythms.len()];
        for (i, r) in rhythms.iter().enumerate() {
            let Some(r) = r else { continue };
            let (x, y) = (i as i64 % cols, i as i64 / cols);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= cols || ny >= rows {
                        continue;
                    }
                    let n = (ny * cols + nx) as usize;
                    if excused[n].is_none_or(|e| r.interval < e.interval) {
                        excused[n] = Some(*r);
                    }
                }
            }
        }
        let ignored: Vec<Rect> =
            (0..rhythms.len()).filter(|&i| rhythms[i].is_some()).map(|i| cell_rect(&st, i)).collect();
        st.live_watches += 1;
        let cursor = st.first_seq + st.log.len() as u64;
        debug!("settle watch: {} animating cells", ignored.len());
        Ok(Box::new(Watch {
            shared: &self.shared,
            started: now,
            cursor,
            excused,
            ignored,
            first_news: None,
            last_news: None,
            reported: None,
            cancel: None,
        }))
    }
}

struct Watch<'a> {
    shared: &'a Shared,
    started: Instant,
    cursor: u64,
    excused: Vec<Option<Rhythm>>,
    ignored: Vec<Rect>,
    first_news: Option<Instant>,
    last_news: Option<Instant>,
    /// The newest news already reported, by `wait` or `wait_for_change`.
    reported: Option<Instant>,
    /// Set when the caller gave up waiting (see [`SettleWatch::set_cancel`]).
    cancel: Option<Cancel>,
}

impl Watch<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }

    /// How long one sleep on the condition variable may last: `left`, unless a cancel must be looked
    /// at sooner.
    fn slice(&self, left: Duration) -> Duration {
        handrail_platform::wait_slice(self.cancel.as_ref(), left)
    }

    /// Whether damage at `at` in cell `i` is an animation's own repaint.
    fn is_animation(&self, i: usize, at: Instant) -> bool {
        let Some(r) = self.excused.get(i).copied().flatten() else { return false };
        if r.interval < STEADY_BELOW {
            return true;
        }
        let tolerance = (r.interval / 16).max(MIN_BEAT_TOLERANCE);
        let since = at.saturating_duration_since(r.latest);
        let beats = (since.as_secs_f64() / r.interval.as_secs_f64()).round().max(1.0);
        let off = (since.as_secs_f64() - beats * r.interval.as_secs_f64()).abs();
        off <= tolerance.as_secs_f64()
    }

    /// Reads damage logged since the last read into `first_news`/`last_news`.
    fn read(&mut self, st: &State) -> Result<(), PlatformError> {
        if let Some(why) = &st.failed {
            return Err(PlatformError::Failed(why.clone()));
        }
        let end = st.first_seq + st.log.len() as u64;
        if self.cursor < st.first_seq {
            // Entries were lost to a flood while we were not reading: count them as news.
            self.note(Instant::now());
            self.cursor = st.first_seq;
        }
        while self.cursor < end {
            let (at, r) = st.log[(self.cursor - st.first_seq) as usize];
            self.cursor += 1;
            if at < self.started {
                continue;
            }
            if !st.cells_of(r).all(|i| self.is_animation(i, at)) {
                debug!("settle: {r:?} changed {:?} into the watch", at.saturating_duration_since(self.started));
                self.note(at);
            }
        }
        Ok(())
    }

    fn note(&mut self, at: Instant) {
        self.first_news.get_or_insert(at);
        self.last_news = self.last_news.max(Some(at));
    }
}

impl SettleWatch for Watch<'_> {
    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = Some(cancel);
    }

    fn wait(&mut self, request: &SettleRequest) -> Result<SettleReport, PlatformError> {
        let t0 = Instant::now();
        let mut st = self.shared.lock();
        let (now, settled, saw_change) = loop {
            self.read(&st)?;
            let now = Instant::now();
            // The response window runs from this call, after the action was sent (as on X11): the
            // time an action took to send (a click held back from reading as a double-click, a
            // long text) must not use it up. Changes count from the watch's start.
            let waited = now.saturating_duration_since(t0);
            let deadline = match self.last_news {
                None if waited >= request.response_window => break (now, true, false),
                None => t0 + request.response_window,
                Some(last) if now.saturating_duration_since(last) >= request.quiet => break (now, true, true),
                Some(last) => last + request.quiet,
            };
            let ceiling = t0 + request.ceiling;
            if now >= ceiling || self.cancelled() {
                break (now, false, self.last_news.is_some());
            }
            let until = deadline.min(ceiling);
            let (next, _) = self
                .shared
                .changed
                .wait_timeout(st, self.slice(until.saturating_duration_since(now)))
                .unwrap_or_else(|e| e.into_inner());
            st = next;
        };
        // What this wait waited out is no news to a `wait_for_change` after it.
        self.reported = self.last_news;
        Ok(SettleReport {
            waited: now.saturating_duration_since(t0),
            settled,
            saw_change,
            ignored: self.ignored.clone(),
            began: Vec::new(),
        })
    }

    fn wait_for_change(&mut self, timeout: Duration) -> Result<bool, PlatformError> {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.lock();
        loop {
            self.read(&st)?;
            if self.last_news.is_some() && self.last_news != self.reported {
                self.reported = self.last_news;
                return Ok(true);
            }
            let now = Instant::now();
            if now >= deadline || self.cancelled() {
                return Ok(false);
            }
            let slice = self.slice(deadline - now);
            let (next, _) = self.shared.changed.wait_timeout(st, slice).unwrap_or_else(|e| e.into_inner());
            st = next;
        }
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        let mut st = self.shared.lock();
        st.live_watches = st.live_watches.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_with_steady_bursts_is_animating_until_it_stops() {
        let t0 = Instant::now();
        let mut c = Cell::default();
        for i in 0..5 {
            c.damage(t0 + Duration::from_millis(i * 50), true);
        }
        let r = c.rhythm(t0 + Duration::from_millis(220)).expect("animating");
        assert_eq!(r.interval, Duration::from_millis(50));
        assert!(c.rhythm(t0 + Duration::from_millis(200 + 400)).is_none(), "stopped");
        let mut once = Cell::default();
        once.damage(t0, true);
        assert!(once.rhythm(t0).is_none());
    }

    #[test]
    fn bursts_are_not_learned_during_a_watch() {
        let t0 = Instant::now();
        let mut c = Cell::default();
        for i in 0..5 {
            c.damage(t0 + Duration::from_millis(i * 50), false);
        }
        assert!(c.rhythm(t0 + Duration::from_millis(210)).is_none());
    }

    #[test]
    fn picture_rects_land_on_the_screen_at_logical_scale() {
        // A monitor at (100, 0) showing 50x50 logical pixels from 100x100 picture pixels.
        let (place, layout) = (Rect::new(100, 0, 50, 50), Rect::new(0, 0, 150, 50));
        assert_eq!(picture_to_screen(Rect::new(10, 20, 30, 40), (100, 100), place, layout), Rect::new(105, 10, 15, 20));
        assert_eq!(picture_to_screen(Rect::new(1, 1, 1, 1), (100, 100), place, layout), Rect::new(100, 0, 1, 1));
        // A layout starting left of 0 (a monitor at negative x) shifts everything right.
        assert_eq!(picture_to_screen(Rect::new(0, 0, 5, 5), (50, 50), place, Rect::new(-50, 0, 200, 50)).x, 150);
    }

    #[test]
    fn the_response_window_runs_from_the_wait_not_the_watch() {
        let (settle, feed) = DamageSettle::new(Size::new(320, 200));
        let mut watch = settle.watch().expect("watch");
        // The action takes longer to send than the whole response window (a click held back 500 ms
        // so as not to read as a double-click), and its effect comes 50 ms after it was sent.
        std::thread::sleep(Duration::from_millis(150));
        let feeder = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            feed.record(Instant::now(), &[Rect::new(0, 0, 8, 8)]);
        });
        let request = SettleRequest {
            response_window: Duration::from_millis(120),
            quiet: Duration::from_millis(40),
            ceiling: Duration::from_secs(5),
        };
        let report = watch.wait(&request).expect("wait");
        feeder.join().expect("feeder");
        assert!(report.settled && report.saw_change, "the change after the wait began was seen: {report:?}");
    }

    #[test]
    fn wait_for_change_reports_only_what_came_after_the_last_wait() {
        let (settle, feed) = DamageSettle::new(Size::new(320, 200));
        let mut watch = settle.watch().expect("watch");
        let request =
            SettleRequest { response_window: Duration::ZERO, quiet: Duration::ZERO, ceiling: Duration::from_secs(5) };
        feed.record(Instant::now(), &[Rect::new(0, 0, 8, 8)]);
        assert!(watch.wait(&request).expect("wait").saw_change);
        // The change that wait waited out is not news.
        assert!(!watch.wait_for_change(Duration::ZERO).expect("wait_for_change"));
        // One that came after it is, once.
        feed.record(Instant::now(), &[Rect::new(20, 20, 8, 8)]);
        assert!(watch.wait_for_change(Duration::ZERO).expect("wait_for_change"));
        assert!(!watch.wait_for_change(Duration::ZERO).expect("wait_for_change"));
        // And after a wait again: nothing new since it.
        feed.record(Instant::now(), &[Rect::new(40, 40, 8, 8)]);
        assert!(watch.wait(&request).expect("wait").saw_change);
        assert!(!watch.wait_for_change(Duration::ZERO).expect("wait_for_change"));
    }

    #[test]
    fn a_watch_waits_for_fed_damage_then_quiet() {
        let (settle, feed) = DamageSettle::new(Size::new(320, 200));
        let mut watch = settle.watch().expect("watch");
        let feeder = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            feed.record(Instant::now(), &[Rect::new(10, 10, 5, 5)]);
            feed
        });
        let request = SettleRequest {
            response_window: Duration::from_millis(400),
            quiet: Duration::from_millis(80),
            ceiling: Duration::from_secs(5),
        };
        let report = watch.wait(&request).expect("wait");
        assert!(report.settled && report.saw_change, "{report:?}");
        assert!(report.waited >= Duration::from_millis(120), "held for the quiet after the change: {report:?}");
        let feed = feeder.join().expect("feeder");
        // Nothing more: the next wait returns after its response window, having seen nothing.
        let mut watch = settle.watch().expect("watch");
        let quiet = SettleRequest { response_window: Duration::from_millis(60), ..request };
        let report = watch.wait(&quiet).expect("wait");
        assert!(report.settled && !report.saw_change, "{report:?}");
        feed.fail("the stream ended".into());
        assert!(watch.wait(&quiet).is_err());
        drop(watch);
        assert!(settle.watch().is_err(), "a failed feed fails new watches");
    }
}
