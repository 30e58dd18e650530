//! One watch: which damage since `watch()` is news, and when the news has stopped.
//!
//! Damage is first held against the animations that were running at `watch()` (their cells, a halo
//! of one cell, and for slow ones their beat); what they do not account for is news. News is then
//! tracked per cell, so that an animation which *began* during the watch (the spinner of a window the
//! action opened) is recognised once it has repainted steadily for [`BEGAN_SUSTAIN`], and stops
//! holding the wait. The news stays on record: `wait_for_change` still reports it (an `expect` keeps
//! looking while anything moves), and the animation is named in the report.

use std::time::{Duration, Instant};

use handrail_platform::{Cancel, PlatformError, Rect, SettleReport, SettleRequest, SettleWatch};
use log::debug;

use super::grid::{Grid, Rhythm, BURST_SLOTS, MIN_RUNNING_SLACK};
use super::{Shared, State, LOG_CAPACITY};

/// Bursts a cell must repaint in, in one run, to count as an animation that began during the watch.
const BEGAN_MIN_BURSTS: u32 = 5;
/// How long the run must have lasted: a finite effect (a window drawing itself, a page loading, a
/// scroll) is over well within this; a spinner is not.
const BEGAN_SUSTAIN: Duration = Duration::from_millis(400);
/// A longer gap between two repaints ends a run: what repaints in irregular steps (a page loading
/// part by part) or slowly (a caret) leaves gaps the wait can end in.
const BEGAN_MAX_GAP: Duration = Duration::from_millis(250);
/// Animations that began during the watch are let go only while together they cover at most this
/// share of the screen (one in N cells): a screen that is mostly repainting (a full-screen
/// transition, a page drawing itself) is what the person is looking at.
const BEGAN_MAX_SHARE: usize = 3;

/// One cell's news: its current run of repaints (bursts) with no gap over [`BEGAN_MAX_GAP`].
#[derive(Clone, Copy, Default)]
struct Repaints {
    first: Option<Instant>,
    beat: Option<Instant>,
    bursts: u32,
    last: Option<Instant>,
}

impl Repaints {
    fn damage(&mut self, at: Instant, gap: Duration) {
        self.last = self.last.max(Some(at));
        if let Some(beat) = self.beat {
            let since = at.saturating_duration_since(beat);
            if since < gap {
                return;
            }
            if since > BEGAN_MAX_GAP {
                self.first = None;
                self.bursts = 0;
            }
        }
        self.beat = Some(at);
        self.bursts += 1;
        self.first.get_or_insert(at);
    }

    fn mean_interval(&self) -> Option<Duration> {
        let (first, beat) = (self.first?, self.beat?);
        (self.bursts >= 2).then(|| beat.saturating_duration_since(first) / (self.bursts - 1))
    }

    /// Has repainted steadily for long enough, and is still going at `now`.
    fn is_animation(&self, now: Instant) -> bool {
        let (Some(first), Some(beat), Some(last), Some(mean)) =
            (self.first, self.beat, self.last, self.mean_interval())
        else {
            return false;
        };
        self.bursts >= BEGAN_MIN_BURSTS
            && beat.saturating_duration_since(first) >= BEGAN_SUSTAIN
            && now.saturating_duration_since(last) <= (mean * 3).max(MIN_RUNNING_SLACK)
    }
}

struct News {
    at: Instant,
    rect: Rect,
    /// False for entries that stand for damage lost to a flood, or seen after the screen was resized:
    /// those always count.
    excusable: bool,
}

/// One watch. See the [module docs](self).
pub(super) struct X11Watch<'a> {
    shared: &'a Shared,
    display: &'a str,
    /// Grid generation the per-cell state was taken from.
    generation: u64,
    /// When `watch()` was called: windows mapped since then opened during the watch.
    started: Instant,
    burst_gap: Duration,
    /// Animations running at `watch()`, by cell; the same cells grown by one; as rectangles.
    running: Vec<Option<Rhythm>>,
    running_halo: Vec<bool>,
    running_rects: Vec<Rect>,
    /// Per running cell, the latest bursts (at most [`BURST_SLOTS`]) of the damage it accounted for:
    /// its own frames, learned by the history when the watch ends so that its run goes on unbroken.
    excused: Vec<Vec<Instant>>,
    /// Sequence number of the first log entry not read yet.
    cursor: u64,
    /// Damage since `watch()` the running animations do not account for, oldest first.
    news: Vec<News>,
    repaints: Vec<Repaints>,
    /// Cells where an animation began during the watch; the same grown by one (empty when none).
    began: Vec<bool>,
    began_halo: Vec<bool>,
    /// Per cell, the repaint interval and run length of the animation that began there, as last
    /// recognised: taught to the history when the watch ends, even if the run was broken since (a
    /// loaded machine stalls a spinner for a moment).
    began_rhythm: Vec<Option<(Duration, u32)>>,
    /// `news[..floor]` was waited out by an earlier `wait`; `news[..reported]` was reported by
    /// `wait_for_change`.
    floor: usize,
    reported: usize,
    /// The newest entry of `news[floor..scanned]` that no animation which began accounts for.
    newest: Option<Instant>,
    scanned: usize,
    /// When the log was last read: what the watch knows of the screen is as of then.
    last_read: Option<Instant>,
    /// Set when the caller gave up waiting (see [`SettleWatch::set_cancel`]).
    cancel: Option<Cancel>,
}

impl<'a> X11Watch<'a> {
    pub(super) fn new(
        shared: &'a Shared,
        display: &'a str,
        st: &State,
        running: Vec<Option<Rhythm>>,
        burst_gap: Duration,
    ) -> X11Watch<'a> {
        let mask: Vec<bool> = running.iter().map(Option::is_some).collect();
        let (running_halo, running_rects) = if mask.contains(&true) {
            let rects = st.grid.rects(&mask);
            debug!("settle on {display}: ignoring animating regions {rects:?}");
            (st.grid.dilate(&mask), rects)
        } else {
            (Vec::new(), Vec::new())
        };
        X11Watch {
            shared,
            display,
            generation: st.generation,
            started: Instant::now(),
            burst_gap,
            running,
            running_halo,
            running_rects,
            excused: Vec::new(),
            cursor: st.first_seq + st.log.len() as u64,
            news: Vec::new(),
            repaints: vec![Repaints::default(); st.grid.len()],
            began: Vec::new(),
            began_halo: Vec::new(),
            began_rhythm: vec![None; st.grid.len()],
            floor: 0,
            reported: 0,
            newest: None,
            scanned: 0,
            last_read: None,
            cancel: None,
        }
    }

    /// Reads the log entries not seen yet into `news`.
    fn read_log(&mut self, st: &State) -> Result<(), PlatformError> {
        if let Some(why) = &st.failed {
            return Err(PlatformError::Failed(why.clone()));
        }
        let screen = Rect::new(0, 0, st.grid.width, st.grid.height);
        if self.cursor < st.first_seq {
            // Entries were dropped before we read them: a change over everything, at the latest time
            // it can have happened.
            if let Some(&(at, _)) = st.log.front() {
                self.push(News { at, rect: screen, excusable: false });
            }
            self.cursor = st.first_seq;
        }
        let start = usize::try_from(self.cursor - st.first_seq).unwrap_or(usize::MAX);
        // After a resize the cells no longer line up with what was learned: everything counts.
        let cells_valid = st.generation == self.generation;
        for &(at, rect) in st.log.iter().skip(start) {
            if cells_valid && self.is_running_animation(&st.grid, at, rect) {
                self.excuse(&st.grid, at, rect);
                continue;
            }
            if cells_valid {
                for i in st.grid.cells_of(rect) {
                    self.repaints[i].damage(at, self.burst_gap);
                }
            }
            if self.news.len() == self.floor {
                debug!("settle on {}: change at {rect}", self.display);
            }
            self.push(News { at, rect, excusable: cells_valid });
        }
        self.cursor = st.first_seq + st.log.len() as u64;
        self.last_read = Some(Instant::now());
        Ok(())
    }

    fn push(&mut self, news: News) {
        if self.news.len() >= LOG_CAPACITY {
            // Keep the record bounded: the older half becomes one entry that always counts.
            let dropped = self.news.len() / 2;
            let at = self.news[..dropped].iter().map(|n| n.at).max();
            self.news.drain(..dropped);
            if let Some(at) = at {
                // Never excused, whatever its rectangle.
                self.news.insert(0, News { at, rect: Rect::new(0, 0, 0, 0), excusable: false });
            }
            let shift = dropped.saturating_sub(1);
            self.floor = self.floor.saturating_sub(shift);
            self.reported = self.reported.saturating_sub(shift);
            self.rescan();
        }
        self.news.push(news);
    }

    /// Damage an animation running at `watch()` accounts for: it touches one of its cells, stays
    /// within one cell of them, and either touches a steady one or comes on the beat of every slow
    /// one it touches. A steady animation's frames reach into cells that repaint with only some of
    /// them (the far end of a terminal's lines, say), and those cells
    /// learn a slow rhythm of their own: judged by it, the animation's frames were news.
    fn is_running_animation(&mut self, grid: &Grid, at: Instant, rect: Rect) -> bool {
        if self.running_halo.is_empty() {
            return false;
        }
        let mut touched: Vec<(usize, Rhythm)> = Vec::new();
        for i in grid.cells_of(rect) {
            if !self.running_halo.get(i).copied().unwrap_or(false) {
                return false;
            }
            if let Some(Some(rhythm)) = self.running.get(i) {
                touched.push((i, *rhythm));
            }
        }
        if touched.is_empty() {
            return false;
        }
        let steady = touched.iter().any(|(_, r)| r.is_steady());
        // Every slow beat is asked (none skipped), so each that this repaint is on moves on with it.
        let on_beat = touched.iter_mut().fold(true, |all, (_, r)| r.keeps_time(at, self.burst_gap) && all);
        if !(steady || on_beat) {
            return false;
        }
        // The beats this repaint was on move on with it.
        for (i, rhythm) in touched {
            self.running[i] = Some(rhythm);
        }
        true
    }

    /// Records damage a running animation accounted for as a burst of each running cell it touches.
    fn excuse(&mut self, grid: &Grid, at: Instant, rect: Rect) {
        if self.excused.is_empty() {
            self.excused = vec![Vec::new(); grid.len()];
        }
        for i in grid.cells_of(rect) {
            if !matches!(self.running.get(i), Some(Some(_))) {
                continue;
            }
            let bursts = &mut self.excused[i];
            if bursts.last().is_some_and(|&prev| at.saturating_duration_since(prev) < self.burst_gap) {
                continue;
            }
            if bursts.len() == BURST_SLOTS {
                bursts.remove(0);
            }
            bursts.push(at);
        }
    }

    /// Updates which cells hold an animation that began during the watch inside a window that opened
    /// during it. One that began in a window already there is that app at work (a loading spinner
    /// whose result is still to come) and is waited for, up to the ceiling.
    fn recognise(&mut self, st: &State, now: Instant) {
        let opened = st.windows.opened_since(self.started);
        let mut began: Vec<bool> = if st.generation == self.generation && !opened.is_empty() {
            let inside_opened = |i: usize| {
                let centre = st.grid.cell_bounds(i).center();
                opened.iter().any(|w| w.contains(centre))
            };
            self.repaints.iter().enumerate().map(|(i, r)| r.is_animation(now) && inside_opened(i)).collect()
        } else {
            Vec::new()
        };
        let count = began.iter().filter(|&&b| b).count();
        if count == 0 || count * BEGAN_MAX_SHARE > began.len() {
            began.clear();
        }
        for (i, _) in began.iter().enumerate().filter(|(_, b)| **b) {
            let r = &self.repaints[i];
            if let Some(mean) = r.mean_interval() {
                self.began_rhythm[i] = Some((mean, r.bursts));
            }
        }
        if began != self.began {
            self.began_halo = if began.is_empty() { Vec::new() } else { st.grid.dilate(&began) };
            if !began.is_empty() {
                debug!("settle on {}: animations began in {:?}", self.display, st.grid.rects(&began));
            }
            self.began = began;
            self.rescan();
        }
    }

    fn rescan(&mut self) {
        self.newest = None;
        self.scanned = self.floor;
    }

    /// The latest news since the last `wait` that no animation which began accounts for.
    fn newest_change(&mut self, grid: &Grid) -> Option<Instant> {
        for n in &self.news[self.scanned.min(self.news.len())..] {
            if !self.began_accounts_for(grid, n) {
                self.newest = self.newest.max(Some(n.at));
            }
        }
        self.scanned = self.news.len();
        self.newest
    }

    fn began_accounts_for(&self, grid: &Grid, n: &News) -> bool {
        if !n.excusable || self.began.is_empty() {
            return false;
        }
        let mut touches = false;
        for i in grid.cells_of(n.rect) {
            if !self.began_halo.get(i).copied().unwrap_or(false) {
                return false;
            }
            touches |= self.began.get(i).copied().unwrap_or(false);
        }
        touches
    }

    /// The cells' repaints that began during this watch, taught to the shared history, so that the
    /// next watch knows them as running from its start. Only sustained, steady repainting gets here;
    /// one action's effect does not.
    ///
    /// Besides the animations that began in a window the action opened, this teaches any cell that
    /// was not known as animating at `watch()` yet kept repainting steadily through the watch
    /// ([`BEGAN_SUSTAIN`] and more, still going when the watch last read the log): an animation the
    /// history missed at `watch()` (an app that stalled for a moment on a loaded machine, or a cell
    /// whose history an earlier watch forgot), or an app's own work that outlasted this wait. Such a
    /// cell held this wait, as it should; taught, it does not hold every wait after it, which it would
    /// otherwise do for as long as the agent acts without a pause (bursts are not learned while a
    /// watch is live). Had the agent paused, the history would have learned it within a tenth of a
    /// second anyway. Like animations that began, only while together they cover at most
    /// 1/[`BEGAN_MAX_SHARE`] of the screen.
    ///
    /// Any other cell that was not animating at `watch()` but repainted during the watch has its
    /// older bursts forgotten: they were learned before whatever repaints there now, and joined with
    /// its fresh damage they would pass for a slow animation still running (a terminal printing where
    /// another printed seconds ago), whose off-beat frames would then hold the next wait to its ceiling.
    fn teach(&self, st: &mut State) {
        if st.generation != self.generation {
            return;
        }
        let kept_going: Vec<bool> = match self.last_read {
            Some(end) => self
                .repaints
                .iter()
                .enumerate()
                .map(|(i, r)| self.running[i].is_none() && r.is_animation(end))
                .collect(),
            None => Vec::new(),
        };
        // The frames of animations running at `watch()` continue their runs: a watch that lasted
        // longer than a run may pause (an action waited out to its ceiling) must not break them.
        for (i, bursts) in self.excused.iter().enumerate() {
            for &at in bursts {
                st.grid.cells[i].damage(at, self.burst_gap, true);
            }
        }
        let kept_going_count = kept_going.iter().filter(|&&k| k).count();
        let teach_kept_going = kept_going_count * BEGAN_MAX_SHARE <= kept_going.len();
        for (i, r) in self.repaints.iter().enumerate() {
            let began = self.began.get(i).copied().unwrap_or(false);
            let kept = teach_kept_going && kept_going.get(i).copied().unwrap_or(false);
            if kept {
                if let (Some(beat), Some(mean)) = (r.beat, r.mean_interval()) {
                    st.grid.cells[i].teach_run(beat, mean, r.bursts as usize);
                    continue;
                }
            }
            if r.last.is_some() && self.running[i].is_none() && !began {
                st.grid.cells[i].forget_bursts();
            }
        }
        if self.began.is_empty() {
            return;
        }
        for (i, r) in self.repaints.iter().enumerate() {
            let (true, Some(beat), Some((mean, bursts))) = (self.began[i], r.beat, self.began_rhythm[i]) else {
                continue;
            };
            st.grid.cells[i].teach_run(beat, mean, bursts as usize);
        }
    }
}

impl Drop for X11Watch<'_> {
    fn drop(&mut self) {
        let mut st = self.shared.lock();
        st.live_watches = st.live_watches.saturating_sub(1);
        self.teach(&mut st);
    }
}

impl X11Watch<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }

    /// How long one sleep on the condition variable may last: the whole `left` unless a cancel must
    /// be looked at sooner.
    fn slice(&self, left: Duration) -> Duration {
        handrail_platform::wait_slice(self.cancel.as_ref(), left)
    }
}

impl SettleWatch for X11Watch<'_> {
    fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = Some(cancel);
    }

    fn wait(&mut self, request: &SettleRequest) -> Result<SettleReport, PlatformError> {
        let start = Instant::now();
        let ceiling = start + request.ceiling;
        let respond_by = start + request.response_window.min(request.ceiling);
        let mut st = self.shared.lock();
        let settled = loop {
            if self.cancelled() {
                break false;
            }
            self.read_log(&st)?;
            let now = Instant::now();
            self.recognise(&st, now);
            let deadline = match self.newest_change(&st.grid) {
                None if now >= respond_by => break true,
                None => respond_by,
                Some(t) if now >= t + request.quiet => break true,
                Some(_) if now >= ceiling => break false,
                Some(t) => (t + request.quiet).min(ceiling),
            };
            let slice = self.slice(deadline - now);
            st = self.shared.changed.wait_timeout(st, slice).unwrap_or_else(|e| e.into_inner()).0;
        };
        let began = if self.began.is_empty() { Vec::new() } else { st.grid.rects(&self.began) };
        let saw_change = self.newest_change(&st.grid).is_some();
        drop(st);
        self.floor = self.news.len();
        self.reported = self.reported.max(self.floor);
        self.rescan();
        let report =
            SettleReport { waited: start.elapsed(), settled, saw_change, ignored: self.running_rects.clone(), began };
        debug!(
            "settle on {}: waited {:?} (change: {saw_change}, settled: {settled}, {} regions ignored, {} began)",
            self.display,
            report.waited,
            report.ignored.len(),
            report.began.len()
        );
        Ok(report)
    }

    fn wait_for_change(&mut self, timeout: Duration) -> Result<bool, PlatformError> {
        let end = Instant::now() + timeout;
        let mut st = self.shared.lock();
        loop {
            if self.cancelled() {
                return Ok(false);
            }
            self.read_log(&st)?;
            if self.news.len() > self.reported {
                self.reported = self.news.len();
                return Ok(true);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(false);
            }
            let slice = self.slice(end - now);
            st = self.shared.changed.wait_timeout(st, slice).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn repaints(times: impl IntoIterator<Item = u64>, t0: Instant) -> Repaints {
        let mut r = Repaints::default();
        for t in times {
            r.damage(t0 + ms(t), ms(30));
        }
        r
    }

    #[test]
    fn an_animation_begins_only_after_repainting_steadily_for_a_while() {
        let t0 = Instant::now();
        // A 60 fps spinner: one burst every ~33 ms (frames closer than the burst gap join one).
        let spinner = repaints((0..30).map(|i| i * 16), t0);
        assert!(!repaints((0..20).map(|i| i * 16), t0).is_animation(t0 + ms(320)), "not yet 400 ms");
        assert!(spinner.is_animation(t0 + ms(470)));
        assert!(!spinner.is_animation(t0 + ms(464 + 120)), "stopped for over three frames");
        // A window drawing itself in a few repaints; a page loading in irregular steps over a second.
        assert!(!repaints([0, 20, 45, 90], t0).is_animation(t0 + ms(100)));
        assert!(!repaints([0, 150, 300, 600, 900, 1000], t0).is_animation(t0 + ms(1010)));
        // A spinner that stalled once is recognised from its run after the stall.
        let stalled = repaints((0..10).map(|i| i * 33).chain((0..14).map(|i| 700 + i * 33)), t0);
        let before_stall = repaints((0..10).map(|i| i * 33).chain((0..9).map(|i| 700 + i * 33)), t0);
        assert!(!before_stall.is_animation(t0 + ms(970)), "the run after the stall is too short yet");
        assert!(stalled.is_animation(t0 + ms(1130)));
        // A caret that starts blinking (500 ms) never leaves gaps shorter than the quiet period.
        assert!(!repaints([0, 500, 1000, 1500, 2000], t0).is_animation(t0 + ms(2010)));
    }
}
