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
//! ignored for the life of the watch when it touches an animating cell, stays within one cell of
//! the animating ones (the halo absorbs an animation's ragged edge, e.g. digits of varying width) and,
//! for a slow animation (bursts 150 ms or more apart: a caret, a clock), comes on its beat: one of its
//! own intervals after its latest burst, within a 32nd of the interval (at least 12 ms). GTK redraws
//! a whole entry to blink its caret (measured: the entry's 480x34 each time), so only the beat tells
//! typing there from a blink; off-beat damage is news, and the wait ends a quiet period after it
//! instead of at the response window. Ignored regions are reported in [`SettleReport::ignored`].
//!
//! **Animations that begin during the watch** (`watch.rs`): news is tracked per cell, and a cell that
//! repaints steadily (at least five bursts, no gap over 250 ms, for 400 ms, still going) inside a
//! window mapped since `watch()` (the root's SubstructureNotify events, `windows.rs`) stops holding
//! the wait: the spinner and pulsing progress bars of a window the action opened are part of how
//! it looks. They are named in [`SettleReport::began`], still reported by `wait_for_change`, and taught
//! to the history when the watch ends. The same repainting in a window that was already there is that
//! app at work (a loading spinner whose result is still to come) and keeps the wait going up to the
//! ceiling, as does anything covering more than a third of the screen. A cell that repainted during
//! a watch without being animating at its start forgets its older bursts when the watch ends, and a
//! rhythm is read from the latest run of bursts only: an animation that stopped and a new one in the
//! same place are never joined into one slow animation. Repainting that kept going steadily through
//! a whole watch, in any window, is taught to the history when the watch ends: it held that wait,
//! but an animation the history missed at `watch()` (an app stalled for a moment on a loaded
//! machine) must not hold every later wait of an agent that acts without pausing.
//!
//! Consequences: damage that spans an animation *and* more (a window opening over a spinner) counts; a
//! finite effect that just ended (a window painted in a few quick repaints) stops being an animation
//! once it has been quiet for three of its own frame intervals. The price: an action whose only effect
//! lies inside a steady animation's region (a click in the widget factory's constantly redrawn page),
//! or lands on a slow one's beat, is not seen as a change, so the wait ends after the response window;
//! the caller's before/after comparison of pixels still sees it.
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

use handrail_platform::{PlatformError, Rect, Settle, SettleWatch};
use log::{debug, warn};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::damage::{self, ConnectionExt as _, ReportLevel};
use x11rb::protocol::xproto::{ChangeWindowAttributesAux, ConnectionExt as _, EventMask};
use x11rb::protocol::Event;

use crate::conn::Conn;
use crate::error::X11Error;

mod grid;
mod watch;
mod windows;

use grid::{Grid, BURST_SLOTS};
use watch::X11Watch;
use windows::TopLevels;

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
    windows: TopLevels,
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
        // Which windows open while a watch is live (see `watch`): the root's children come and go.
        let notify = ChangeWindowAttributesAux::new().event_mask(EventMask::SUBSTRUCTURE_NOTIFY);
        conn.conn.change_window_attributes(conn.root, &notify)?.check()?;

        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                grid: Grid::new(w.into(), h.into(), options.cell_size),
                live_watches: 0,
                log: VecDeque::with_capacity(LOG_CAPACITY),
                first_seq: 0,
                generation: 0,
                failed: None,
                events: 0,
                windows: TopLevels::default(),
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
        st.grid.cells.iter().map(|c| c.rhythm(now, &self.options).is_some()).collect()
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

/// What every later call is told once the listener's connection broke: in the words the rest of the
/// backend uses, so a server that died reads the same whichever call noticed first.
fn connection_failed(e: x11rb::errors::ConnectionError) -> String {
    match PlatformError::from(X11Error::from(e)) {
        PlatformError::Failed(why) => why,
        other => other.to_string(),
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
    let mut window_events: Vec<Event> = Vec::new();
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
                Ok(Some(
                    e @ (Event::CreateNotify(_)
                    | Event::ConfigureNotify(_)
                    | Event::MapNotify(_)
                    | Event::UnmapNotify(_)
                    | Event::DestroyNotify(_)),
                )) => window_events.push(e),
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => return fail(connection_failed(e)),
            }
        }
        if !window_events.is_empty() {
            let now = Instant::now();
            let mut st = shared.lock();
            for e in window_events.drain(..) {
                st.windows.apply(conn.root, &e, now);
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
                    return fail(connection_failed(e));
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
        let now = Instant::now();
        let running = st.grid.cells.iter().map(|c| c.rhythm(now, &self.options)).collect();
        st.live_watches += 1;
        Ok(Box::new(X11Watch::new(&self.shared, &self.display, &st, running, self.options.burst_gap)))
    }
}
