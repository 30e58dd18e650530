//! Knowing when the screen has stopped changing, from DAMAGE events.
//!
//! [`X11Settle`] opens its **own** X connection (it consumes events), creates one Damage object on the
//! root window with report level `DeltaRectangles` and hands the connection to a listener thread. The
//! server reports drawing in any window as the rectangles by which it grows the damaged region; the
//! listener empties the region (`DamageSubtract`, no reply) after each batch, at most every 4 ms, so
//! repainting an area that is already damaged costs nothing until then. Measured on the 1280x800
//! sandbox with an xterm running `yes`: `RawRectangles` (an event per drawing operation) delivered
//! 90–170k events/s and cost the listener 9–18% of a core; `DeltaRectangles` with the throttled subtract
//! 300–450 events/s and 1%; a GTK spinner gives its 60 events/s either way. `BoundingBox` would merge a
//! spinner in one corner and a dialog in the other into one screen-sized box, defeating the per-region
//! history below.
//!
//! **Rolling history.** The listener appends every rectangle to a bounded log (what watches read) and
//! maps it onto a coarse grid (32 px cells by default) that keeps, per cell, the time of its last
//! damage and of its last few *bursts* (damage closer than [`SettleOptions::burst_gap`] is one repaint,
//! however many drawing operations it took). Bursts are only learned while no watch is live: what
//! happens between `watch()` and the end of the watch is (or may be) the action's doing, and an agent
//! acting on the same spot at a steady pace must not teach the history that its own effects are an
//! animation.
//!
//! **Animations already running are ignored.** [`Settle::watch`] reads the grid: a cell with at least
//! [`SettleOptions::min_bursts`] bursts in the last [`SettleOptions::history`] that is *still going*
//! (its latest damage no older than three of its own mean burst intervals, clamped to 100 ms..=
//! [`SettleOptions::still_running`]) is animating: a spinner, a progress bar, a terminal printing, a
//! blinking caret (GTK: 0.8 s on, 0.4 s off), a clock ticking every second. A damage rectangle is then
//! ignored for the life of the watch when it touches an animating cell and stays within one cell of
//! the animating ones (the halo absorbs an animation's ragged edge, e.g. digits of varying width).
//! Ignored regions are reported in [`SettleReport::ignored`].
//!
//! Consequences: damage that spans an animation *and* more (a window opening over a spinner) counts; a
//! finite effect that just ended (a window painted in a few quick repaints) stops being an animation
//! once it has been quiet for three of its own frame intervals; an animation that starts after
//! `watch()` is the action's doing and keeps the wait going up to the ceiling. The price: an action
//! whose only effect lies inside an animating region (typing into the entry whose caret blinks) is not
//! seen as a change, so the wait ends after the response window; the caller's before/after comparison
//! of pixels still sees it.
//!
//! `watch()` is a lock and a scan of the grid (about a thousand cells on 1280x800): microseconds, no
//! X round trip. Waits block on a condition variable the listener signals after each batch of events
//! and read only the log entries they have not seen; the listener blocks in `poll(2)` on the X
//! socket. Nothing sleeps for a fixed time or spins.
//!
//! The history only covers the time since [`X11Settle::new`]: create it once, early, and keep it.

use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_platform::{PlatformError, Rect, Settle, SettleReport, SettleRequest, SettleWatch};
use log::{debug, warn};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::damage::{self, ConnectionExt as _, ReportLevel};
use x11rb::protocol::Event;

use crate::conn::Conn;
use crate::error::X11Error;

/// How damage is tracked and what counts as an animation already running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleOptions {
    /// Side of the square grid cells damage is tracked in, in pixels (at least 8). Smaller cells tell
    /// an animation from a change next to it more precisely; the grid is capped at 256x256 cells.
    pub cell_size: u32,
    /// How far back before `watch()` the history is read. Three seconds hold three ticks of a 1 Hz
    /// clock and of a blinking caret.
    pub history: Duration,
    /// Bursts within `history` that make a cell animating, 2..=8; 0 turns the detection off.
    pub min_bursts: u32,
    /// Damage in one cell closer together than this belongs to the same burst (one repaint).
    pub burst_gap: Duration,
    /// Upper bound on how old an animating cell's latest damage may be at `watch()`. The actual bound
    /// is three of the cell's own burst intervals, at least 100 ms: a slow animation gets more slack
    /// than a fast one, and an effect that stopped is not mistaken for one still running.
    pub still_running: Duration,
}

impl Default for SettleOptions {
    fn default() -> Self {
        SettleOptions {
            cell_size: 32,
            history: Duration::from_millis(3000),
            min_bursts: 3,
            burst_gap: Duration::from_millis(30),
            still_running: Duration::from_millis(1500),
        }
    }
}

/// Bursts remembered per cell (the largest usable `min_bursts`).
const BURST_SLOTS: usize = 8;

/// The least slack an animating cell gets between frames (see [`SettleOptions::still_running`]): frame
/// times jitter, and a 60 fps animation must not drop out between two frames.
const MIN_RUNNING_SLACK: Duration = Duration::from_millis(100);

/// Damage rectangles kept for watches to read. A watch that falls further behind (a flood while it
/// was not waiting) counts the lost entries as a change, which is the safe side.
const LOG_CAPACITY: usize = 16 * 1024;

/// How often the accumulated damage region is emptied (`DamageSubtract`). Between two subtracts, drawing
/// over an already damaged area sends nothing, which is what keeps a flood (a terminal printing as
/// fast as it can) from costing an event per glyph; new areas are still reported at once.
const SUBTRACT_EVERY: Duration = Duration::from_millis(4);

/// Waits on DAMAGE events until the screen is quiet. See the [module docs](self).
pub struct X11Settle {
    shared: Arc<Shared>,
    options: SettleOptions,
    display: String,
    /// Dropping it wakes the listener (its end sees EOF), which then exits.
    stop: Option<UnixStream>,
    listener: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for X11Settle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Settle").field("display", &self.display).field("options", &self.options).finish()
    }
}

struct Shared {
    state: Mutex<State>,
    /// Signalled after every batch of damage (and when the listener dies).
    changed: Condvar,
}

struct State {
    grid: Grid,
    /// Watches alive now; while there are any, bursts are not learned (see the module docs).
    live_watches: usize,
    /// Recent damage, oldest first; entry `i` has sequence number `first_seq + i`.
    log: VecDeque<(Instant, Rect)>,
    first_seq: u64,
    /// Bumped when the grid is rebuilt (root resized): masks taken from an older grid are void.
    generation: u64,
    /// Set when the listener lost its connection; every wait fails from then on.
    failed: Option<String>,
    events: u64,
}

#[derive(Clone, Copy, Default)]
struct Cell {
    last: Option<Instant>,
    bursts: [Option<Instant>; BURST_SLOTS],
    /// Slot of the most recent burst.
    head: usize,
}

impl Cell {
    /// Damage at `at`; `learn` records it in the burst history too.
    fn damage(&mut self, at: Instant, gap: Duration, learn: bool) {
        self.last = Some(at);
        if !learn {
            return;
        }
        let new_burst = match self.bursts[self.head] {
            Some(prev) => at.saturating_duration_since(prev) >= gap,
            None => true,
        };
        if new_burst {
            self.head = (self.head + 1) % BURST_SLOTS;
            self.bursts[self.head] = Some(at);
        }
    }

    fn is_animating(&self, now: Instant, o: &SettleOptions) -> bool {
        let Some(last) = self.last else {
            return false;
        };
        let recent = self.bursts.iter().flatten().filter(|t| now.saturating_duration_since(**t) <= o.history);
        let (mut count, mut oldest, mut newest) = (0u32, last, last);
        for &t in recent {
            count += 1;
            oldest = oldest.min(t);
            newest = newest.max(t);
        }
        if o.min_bursts == 0 || count < o.min_bursts.max(2) {
            return false;
        }
        let interval = newest.saturating_duration_since(oldest) / (count - 1);
        let slack = (interval * 3).max(MIN_RUNNING_SLACK).min(o.still_running.max(MIN_RUNNING_SLACK));
        now.saturating_duration_since(last) <= slack
    }
}

struct Grid {
    width: u32,
    height: u32,
    cell: u32,
    cols: u32,
    rows: u32,
    cells: Vec<Cell>,
}

impl Grid {
    fn new(width: u32, height: u32, cell_size: u32) -> Grid {
        const MAX_SIDE: u32 = 256;
        let cell = cell_size.max(8).max(width.div_ceil(MAX_SIDE)).max(height.div_ceil(MAX_SIDE));
        let (cols, rows) = (width.div_ceil(cell).max(1), height.div_ceil(cell).max(1));
        Grid { width, height, cell, cols, rows, cells: vec![Cell::default(); (cols * rows) as usize] }
    }

    /// Indices of the cells `r` touches (clipped to the grid).
    fn cells_of(&self, r: Rect) -> impl Iterator<Item = usize> + '_ {
        let clip = r.clamped_to(&Rect::new(0, 0, self.width, self.height));
        let (c0, r0) = (clip.x as u32 / self.cell, clip.y as u32 / self.cell);
        let (c1, r1) = if clip.is_empty() {
            (c0, r0) // an empty range below
        } else {
            ((clip.right() as u32).div_ceil(self.cell), (clip.bottom() as u32).div_ceil(self.cell))
        };
        (r0..r1).flat_map(move |row| (c0..c1).map(move |col| (row * self.cols + col) as usize))
    }

    /// `mask` grown by one cell in every direction (diagonals included).
    fn dilate(&self, mask: &[bool]) -> Vec<bool> {
        let mut out = mask.to_vec();
        for row in 0..self.rows {
            for col in 0..self.cols {
                if !mask[(row * self.cols + col) as usize] {
                    continue;
                }
                for r in row.saturating_sub(1)..(row + 2).min(self.rows) {
                    for c in col.saturating_sub(1)..(col + 2).min(self.cols) {
                        out[(r * self.cols + c) as usize] = true;
                    }
                }
            }
        }
        out
    }

    fn cell_rect(&self, col: u32, row: u32, cols: u32) -> Rect {
        let (x, y) = (col * self.cell, row * self.cell);
        let w = (cols * self.cell).min(self.width - x);
        let h = self.cell.min(self.height - y);
        Rect::new(x as i32, y as i32, w, h)
    }

    /// Marked cells as few rectangles: horizontal runs, stacked when the run below matches.
    fn rects(&self, mask: &[bool]) -> Vec<Rect> {
        let mut out: Vec<Rect> = Vec::new();
        // Rectangles that end on the previous row and may grow downwards.
        let mut open: Vec<usize> = Vec::new();
        for row in 0..self.rows {
            let mut next_open = Vec::new();
            let mut col = 0;
            while col < self.cols {
                if !mask[(row * self.cols + col) as usize] {
                    col += 1;
                    continue;
                }
                let start = col;
                while col < self.cols && mask[(row * self.cols + col) as usize] {
                    col += 1;
                }
                let run = self.cell_rect(start, row, col - start);
                let grown = open.iter().copied().find(|&i| out[i].x == run.x && out[i].width == run.width);
                match grown {
                    Some(i) => {
                        out[i].height += run.height;
                        next_open.push(i);
                    }
                    None => {
                        out.push(run);
                        next_open.push(out.len() - 1);
                    }
                }
            }
            open = next_open;
        }
        out
    }
}

impl X11Settle {
    /// Starts listening for damage on `display` (e.g. `":99"`) with [`SettleOptions::default`].
    /// A server without DAMAGE is [`X11Error::MissingExtension`] (`PlatformError::Unavailable`).
    pub fn new(display: &str) -> Result<X11Settle, X11Error> {
        Self::with_options(display, SettleOptions::default())
    }

    /// Starts listening for damage on `display` with `options`.
    pub fn with_options(display: &str, options: SettleOptions) -> Result<X11Settle, X11Error> {
        if options.min_bursts == 1 || options.min_bursts as usize > BURST_SLOTS {
            return Err(X11Error::Other(format!("min_bursts {} must be 0 or 2..={BURST_SLOTS}", options.min_bursts)));
        }
        let conn = Conn::open(display)?;
        if conn.conn.extension_information(damage::X11_EXTENSION_NAME)?.is_none() {
            return Err(X11Error::MissingExtension("DAMAGE"));
        }
        // The protocol requires the version handshake before any other DAMAGE request.
        let version = conn.conn.damage_query_version(1, 1)?.reply()?;
        debug!("settle on {display}: DAMAGE {}.{}", version.major_version, version.minor_version);
        let (w, h) = conn.root_size()?;
        let damage = conn.conn.generate_id()?;
        conn.conn.damage_create(damage, conn.root, ReportLevel::DELTA_RECTANGLES)?.check()?;

        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                grid: Grid::new(w.into(), h.into(), options.cell_size),
                live_watches: 0,
                log: VecDeque::with_capacity(LOG_CAPACITY),
                first_seq: 0,
                generation: 0,
                failed: None,
                events: 0,
            }),
            changed: Condvar::new(),
        });
        let (stop, stop_rx) =
            UnixStream::pair().map_err(|e| X11Error::Other(format!("creating the settle wake-up pair: {e}")))?;
        let listener = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("handrail-settle".into())
                .spawn(move || listen(&conn, damage, &shared, &stop_rx, options))
                .map_err(|e| X11Error::Other(format!("starting the settle listener: {e}")))?
        };
        Ok(X11Settle { shared, options, display: display.to_owned(), stop: Some(stop), listener: Some(listener) })
    }

    /// Damage events received so far (diagnostics).
    pub fn events_seen(&self) -> u64 {
        self.shared.lock().events
    }

    /// The regions (screen coordinates) a watch started now would ignore as already animating.
    pub fn animating_regions(&self) -> Vec<Rect> {
        let st = self.shared.lock();
        let mask = self.animating_mask(&st, Instant::now());
        st.grid.rects(&mask)
    }

    fn animating_mask(&self, st: &State, now: Instant) -> Vec<bool> {
        st.grid.cells.iter().map(|c| c.is_animating(now, &self.options)).collect()
    }
}

impl Drop for X11Settle {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.listener.take() {
            if t.join().is_err() {
                warn!("settle listener on {} panicked", self.display);
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The listener thread: reads damage events until the connection dies or `stop` closes. Dropping the
/// connection at the end frees the Damage object on the server.
fn listen(conn: &Conn, damage: damage::Damage, shared: &Shared, stop: &UnixStream, options: SettleOptions) {
    let fail = |why: String| {
        warn!("settle on {}: {why}", conn.display);
        shared.lock().failed = Some(why);
        shared.changed.notify_all();
    };
    let mut batch: Vec<(Rect, (u32, u32))> = Vec::new();
    // The region starts out as the whole root: empty it, or no growth (no event) would ever come.
    let mut dirty = true;
    let mut last_subtract = Instant::now() - SUBTRACT_EVERY;
    loop {
        loop {
            match conn.conn.poll_for_event() {
                Ok(Some(Event::DamageNotify(ev))) => {
                    let a = ev.area;
                    let area = Rect::new(a.x.into(), a.y.into(), a.width.into(), a.height.into());
                    batch.push((area, (ev.geometry.width.into(), ev.geometry.height.into())));
                }
                Ok(Some(Event::Error(e))) => warn!("settle on {}: X error {e:?}", conn.display),
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => return fail(format!("the X connection failed: {e}")),
            }
        }
        if !batch.is_empty() {
            let now = Instant::now();
            let mut st = shared.lock();
            st.events += batch.len() as u64;
            for (area, (w, h)) in batch.drain(..) {
                if (w, h) != (st.grid.width, st.grid.height) && w > 0 && h > 0 {
                    debug!("settle on {}: screen is now {w}x{h}", conn.display);
                    st.grid = Grid::new(w, h, options.cell_size);
                    st.generation += 1;
                }
                let learn = st.live_watches == 0;
                let State { grid, log, first_seq, .. } = &mut *st;
                for i in grid.cells_of(area).collect::<Vec<_>>() {
                    grid.cells[i].damage(now, options.burst_gap, learn);
                }
                if log.len() == LOG_CAPACITY {
                    log.pop_front();
                    *first_seq += 1;
                }
                log.push_back((now, area));
            }
            drop(st);
            shared.changed.notify_all();
            dirty = true;
        }
        // Empty the region so the next drawing there is reported, but at most every SUBTRACT_EVERY:
        // the poll timeout below is that rate limit, not a sleep (events still wake us at once).
        let mut timeout = None;
        if dirty {
            let since = last_subtract.elapsed();
            if since >= SUBTRACT_EVERY {
                let sent = conn.conn.damage_subtract(damage, x11rb::NONE, x11rb::NONE).and_then(|_| conn.conn.flush());
                if let Err(e) = sent {
                    return fail(format!("the X connection failed: {e}"));
                }
                last_subtract = Instant::now();
                dirty = false;
            } else {
                timeout = Some(SUBTRACT_EVERY - since);
            }
        }
        match wait_readable(conn.conn.stream().as_raw_fd(), stop.as_raw_fd(), timeout) {
            Ok(false) => {}
            Ok(true) => return,
            Err(e) => return fail(format!("waiting on the X socket failed: {e}")),
        }
    }
}

/// Blocks until `x` or `stop` is readable or `timeout` passes; true when `stop` is (EOF: time to exit).
fn wait_readable(x: i32, stop: i32, timeout: Option<Duration>) -> std::io::Result<bool> {
    let ms = timeout.map_or(-1, |t| i32::try_from(t.as_micros().div_ceil(1000)).unwrap_or(i32::MAX));
    let mut fds = [
        libc::pollfd { fd: x, events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: stop, events: libc::POLLIN, revents: 0 },
    ];
    loop {
        // SAFETY: `fds` is a valid array of two pollfd for the duration of the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if n >= 0 {
            return Ok(fds[1].revents != 0);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

impl Settle for X11Settle {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        let mut st = self.shared.lock();
        if let Some(why) = &st.failed {
            return Err(PlatformError::Failed(why.clone()));
        }
        let animating = self.animating_mask(&st, Instant::now());
        let (rects, halo) = if animating.contains(&true) {
            let rects = st.grid.rects(&animating);
            debug!("settle on {}: ignoring animating regions {rects:?}", self.display);
            (rects, st.grid.dilate(&animating))
        } else {
            (Vec::new(), Vec::new())
        };
        st.live_watches += 1;
        Ok(Box::new(X11Watch {
            shared: &self.shared,
            display: &self.display,
            generation: st.generation,
            animating,
            halo,
            rects,
            cursor: st.first_seq + st.log.len() as u64,
            pending: None,
            unsettled: None,
        }))
    }
}

/// One watch: damage logged after it started, outside the animations it saw, is news.
struct X11Watch<'a> {
    shared: &'a Shared,
    display: &'a str,
    /// Grid generation the masks were taken from.
    generation: u64,
    /// Cells animating at `watch()`, and the same grown by one cell (`halo` is empty when none animate).
    animating: Vec<bool>,
    halo: Vec<bool>,
    rects: Vec<Rect>,
    /// Sequence number of the first log entry not read yet.
    cursor: u64,
    /// The latest change read from the log and not yet consumed by a wait.
    pending: Option<Instant>,
    /// A change `wait_for_change` reported: the next `wait` measures its quiet period from it.
    unsettled: Option<Instant>,
}

impl X11Watch<'_> {
    /// Reads the log entries not seen yet into `pending`.
    fn read_log(&mut self, st: &State) -> Result<(), PlatformError> {
        if let Some(why) = &st.failed {
            return Err(PlatformError::Failed(why.clone()));
        }
        if self.cursor < st.first_seq {
            // Entries were dropped before we read them: count them as a change, at the latest time
            // they can have happened.
            let lost_by = st.log.front().map(|e| e.0);
            self.pending = self.pending.max(lost_by);
            self.cursor = st.first_seq;
        }
        let start = usize::try_from(self.cursor - st.first_seq).unwrap_or(usize::MAX);
        // After a resize the cells no longer line up with the masks: count everything.
        let masks_valid = st.generation == self.generation && !self.halo.is_empty();
        for (at, rect) in st.log.iter().skip(start) {
            if !(masks_valid && self.is_ignored(&st.grid, *rect)) {
                if self.pending.is_none() {
                    debug!("settle on {}: change at {rect}", self.display);
                }
                self.pending = self.pending.max(Some(*at));
            }
        }
        self.cursor = st.first_seq + st.log.len() as u64;
        Ok(())
    }

    /// Touches an animating cell and stays within the halo around the animations.
    fn is_ignored(&self, grid: &Grid, rect: Rect) -> bool {
        let mut touches = false;
        for i in grid.cells_of(rect) {
            if !self.halo.get(i).copied().unwrap_or(false) {
                return false;
            }
            touches |= self.animating.get(i).copied().unwrap_or(false);
        }
        touches
    }
}

impl Drop for X11Watch<'_> {
    fn drop(&mut self) {
        let mut st = self.shared.lock();
        st.live_watches = st.live_watches.saturating_sub(1);
    }
}

impl SettleWatch for X11Watch<'_> {
    fn wait(&mut self, request: &SettleRequest) -> Result<SettleReport, PlatformError> {
        let start = Instant::now();
        let ceiling = start + request.ceiling;
        let respond_by = start + request.response_window.min(request.ceiling);
        let mut st = self.shared.lock();
        let (saw_change, settled) = loop {
            self.read_log(&st)?;
            let last = self.pending.max(self.unsettled);
            let now = Instant::now();
            let deadline = match last {
                None if now >= respond_by => break (false, true),
                None => respond_by,
                Some(t) if now >= t + request.quiet => break (true, true),
                Some(_) if now >= ceiling => break (true, false),
                Some(t) => (t + request.quiet).min(ceiling),
            };
            st = self.shared.changed.wait_timeout(st, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        };
        drop(st);
        self.pending = None;
        self.unsettled = None;
        let report = SettleReport { waited: start.elapsed(), settled, saw_change, ignored: self.rects.clone() };
        debug!(
            "settle on {}: waited {:?} (change: {saw_change}, settled: {settled}, {} regions ignored)",
            self.display,
            report.waited,
            report.ignored.len()
        );
        Ok(report)
    }

    fn wait_for_change(&mut self, timeout: Duration) -> Result<bool, PlatformError> {
        let end = Instant::now() + timeout;
        let mut st = self.shared.lock();
        loop {
            self.read_log(&st)?;
            if let Some(t) = self.pending.take() {
                self.unsettled = Some(t);
                return Ok(true);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(false);
            }
            st = self.shared.changed.wait_timeout(st, end - now).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn cells_of_clips_to_the_grid() {
        let g = Grid::new(100, 70, 32);
        assert_eq!((g.cols, g.rows), (4, 3));
        assert_eq!(g.cells_of(Rect::new(0, 0, 1, 1)).collect::<Vec<_>>(), vec![0]);
        assert_eq!(g.cells_of(Rect::new(31, 31, 2, 2)).collect::<Vec<_>>(), vec![0, 1, 4, 5]);
        assert_eq!(g.cells_of(Rect::new(-50, 64, 500, 500)).collect::<Vec<_>>(), vec![8, 9, 10, 11]);
        assert_eq!(g.cells_of(Rect::new(200, 200, 5, 5)).count(), 0);
        assert_eq!(g.cells_of(Rect::new(5, 5, 0, 5)).count(), 0);
    }

    #[test]
    fn huge_screens_get_coarser_cells() {
        let g = Grid::new(16384, 8192, 32);
        assert!(g.cols <= 256 && g.rows <= 256);
    }

    #[test]
    fn dilate_grows_by_one_cell() {
        let g = Grid::new(128, 96, 32);
        let mut mask = vec![false; 12];
        mask[0] = true;
        let d = g.dilate(&mask);
        let on: Vec<usize> = (0..12).filter(|&i| d[i]).collect();
        assert_eq!(on, vec![0, 1, 4, 5]);
    }

    #[test]
    fn rects_merge_runs_and_rows() {
        let g = Grid::new(100, 70, 32);
        let mut mask = vec![false; 12];
        for i in [1, 2, 5, 6, 11] {
            mask[i] = true;
        }
        assert_eq!(g.rects(&mask), vec![Rect::new(32, 0, 64, 64), Rect::new(96, 64, 4, 6)]);
    }

    #[test]
    fn repeated_bursts_make_an_animation_but_one_repaint_does_not() {
        let o = SettleOptions::default();
        let t0 = Instant::now();
        // One repaint made of many drawing operations within a few ms.
        let mut repaint = Cell::default();
        for i in 0..50 {
            repaint.damage(t0 + Duration::from_micros(i * 100), o.burst_gap, true);
        }
        assert!(!repaint.is_animating(t0 + ms(10), &o));
        // A 20 Hz animation.
        let mut spinner = Cell::default();
        for i in 0..20 {
            spinner.damage(t0 + ms(i * 50), o.burst_gap, true);
        }
        assert!(spinner.is_animating(t0 + ms(1000), &o));
        // …that stopped a little while ago (three of its 50 ms intervals, at least 100 ms).
        assert!(spinner.is_animating(t0 + ms(950 + 140), &o));
        assert!(!spinner.is_animating(t0 + ms(950 + 160), &o));
        // A window painted in three quick repaints (35 ms apart) is no animation once it has been quiet
        // for three of those intervals.
        let mut window = Cell::default();
        for i in 0..3 {
            window.damage(t0 + ms(i * 35), o.burst_gap, true);
        }
        assert!(window.is_animating(t0 + ms(100), &o));
        assert!(!window.is_animating(t0 + ms(70 + 106), &o));
        // A slow animation (every 200 ms) gets more slack: three of its intervals.
        let mut slow = Cell::default();
        for i in 0..5 {
            slow.damage(t0 + ms(i * 200), o.burst_gap, true);
        }
        assert!(slow.is_animating(t0 + ms(800 + 590), &o));
        assert!(!slow.is_animating(t0 + ms(800 + 610), &o));
        // A GTK caret (0.8 s on, 0.4 s off) and a 1 Hz clock, after three ticks.
        let mut caret = Cell::default();
        for t in [0, 800, 1200, 2000] {
            caret.damage(t0 + ms(t), o.burst_gap, true);
        }
        assert!(caret.is_animating(t0 + ms(2000 + 790), &o));
        let mut clock = Cell::default();
        for i in 0..3 {
            clock.damage(t0 + ms(i * 1000), o.burst_gap, true);
        }
        assert!(clock.is_animating(t0 + ms(2990), &o));
        assert!(!clock.is_animating(t0 + ms(2000 + 1510), &o));
        // Two effects a second apart are not enough; damage seen while a watch is live is not learned.
        let mut effects = Cell::default();
        effects.damage(t0, o.burst_gap, true);
        effects.damage(t0 + ms(1000), o.burst_gap, true);
        assert!(!effects.is_animating(t0 + ms(1100), &o));
        effects.damage(t0 + ms(2000), o.burst_gap, false);
        assert!(!effects.is_animating(t0 + ms(2100), &o));
        // Detection off.
        assert!(!spinner.is_animating(t0 + ms(1000), &SettleOptions { min_bursts: 0, ..o }));
    }
}
