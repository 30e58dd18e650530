//! The coarse grid damage is tracked on, and what one cell's history says: whether an animation is
//! running there, and when its next repaint is due.

use std::time::{Duration, Instant};

use handrail_platform::Rect;

use super::SettleOptions;

/// Bursts remembered per cell (the largest usable `min_bursts`).
pub(super) const BURST_SLOTS: usize = 8;

/// The least slack an animating cell gets between frames (see [`SettleOptions::still_running`]): frame
/// times jitter, and a 60 fps animation must not drop out between two frames.
pub(super) const MIN_RUNNING_SLACK: Duration = Duration::from_millis(100);

/// Animations whose repaints come closer together than this repaint all the time, as far as an
/// action's effect is concerned: anything inside them is taken for one of their frames. Slower ones
/// (a blinking caret, a clock) repaint on a beat, and damage off that beat is news.
const STEADY_BELOW: Duration = Duration::from_millis(150);

/// An animation whose frames come this often on average repaints all the time too, even when the
/// load has stretched every one of its intervals past [`STEADY_BELOW`]: a 20 Hz terminal ticker on a
/// busy machine stalls into an uneven 160–350 ms. Nothing that keeps a beat is that quick: carets blink
/// at 500 ms a phase (Chromium, Qt) or 400/800 ms (GTK, a mean of 600), clocks tick each second.
const STEADY_MEAN_BELOW: Duration = Duration::from_millis(400);

/// How far a repaint may fall from its beat and still be the animation's: at least this, or a
/// [`BEAT_TOLERANCE_DIVISOR`]th of the interval. A GTK caret (400/800 ms) keeps time within a few
/// milliseconds on an idle machine; typing lands on its beat about one time in fifteen.
const MIN_BEAT_TOLERANCE: Duration = Duration::from_millis(12);
const BEAT_TOLERANCE_DIVISOR: u32 = 32;

#[derive(Clone, Copy, Default)]
pub(super) struct Cell {
    last: Option<Instant>,
    bursts: [Option<Instant>; BURST_SLOTS],
    /// Slot of the most recent burst.
    head: usize,
}

impl Cell {
    /// Damage at `at`; `learn` records it in the burst history too.
    pub(super) fn damage(&mut self, at: Instant, gap: Duration, learn: bool) {
        self.last = self.last.max(Some(at));
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

    /// The animation running in this cell at `now`, if one is: at least `min_bursts` bursts within
    /// `history`, and still going (its latest damage no older than three of its mean intervals or two
    /// of its longest, clamped to [`MIN_RUNNING_SLACK`]..=`still_running`). The longest interval is
    /// how a busy machine shows: an animation that has already stalled for 150 ms between frames is
    /// not taken for stopped after 120 ms.
    pub(super) fn rhythm(&self, now: Instant, o: &SettleOptions) -> Option<Rhythm> {
        let last = self.last?;
        if o.min_bursts == 0 {
            return None;
        }
        let mut recent: Vec<Instant> =
            self.bursts.iter().flatten().copied().filter(|t| now.saturating_duration_since(*t) <= o.history).collect();
        if recent.len() < o.min_bursts.max(2) as usize {
            return None;
        }
        recent.sort();
        // Only the latest run counts: an animation that stopped and another that started in the same
        // place since (a spinner, then a terminal printing) are not one slow animation.
        let run = latest_run(&recent);
        let recent = &recent[recent.len() - run..];
        if recent.len() < o.min_bursts.max(2) as usize {
            return None;
        }
        let (oldest, newest) = (recent[0], recent[recent.len() - 1]);
        let mean = newest.saturating_duration_since(oldest) / (recent.len() as u32 - 1);
        let mut intervals = [Duration::ZERO; BURST_SLOTS - 1];
        for (slot, pair) in intervals.iter_mut().zip(recent.windows(2)) {
            *slot = pair[1].saturating_duration_since(pair[0]);
        }
        let longest = intervals.iter().copied().max().unwrap_or_default();
        let slack = (mean * 3).max(longest * 2).max(MIN_RUNNING_SLACK).min(o.still_running.max(MIN_RUNNING_SLACK));
        if now.saturating_duration_since(last) > slack {
            return None;
        }
        Some(Rhythm { beat: newest, intervals, count: recent.len() - 1 })
    }

    /// Drops the burst history (the time of the latest damage stays).
    pub(super) fn forget_bursts(&mut self) {
        self.bursts = [None; BURST_SLOTS];
        self.head = 0;
    }

    /// Replaces the cell's burst history with `n` bursts `interval` apart, the last at `end`: an
    /// animation recognised while a watch was live (and so not learned), taught as it was seen.
    pub(super) fn teach_run(&mut self, end: Instant, interval: Duration, n: usize) {
        self.forget_bursts();
        let n = n.clamp(1, BURST_SLOTS);
        for (slot, k) in (0..n).rev().enumerate() {
            self.bursts[slot] = end.checked_sub(interval * k as u32);
        }
        self.head = n - 1;
        self.last = self.last.max(Some(end));
    }
}

/// How many of the newest `sorted` bursts form one run: going back from the newest, a gap more than
/// [`RUN_BREAK_FACTOR`] times the mean of the intervals after it ends the run. A caret's 400/800 ms and
/// a spinner's jittery frames stay one run; a burst seconds before a fresh animation does not join it.
fn latest_run(sorted: &[Instant]) -> usize {
    let mut kept = Duration::ZERO;
    let mut n = sorted.len().min(1);
    for pair in sorted.windows(2).rev() {
        let interval = pair[1].saturating_duration_since(pair[0]);
        let intervals = n as u32 - 1;
        if intervals > 0 && interval > kept / intervals * RUN_BREAK_FACTOR {
            break;
        }
        kept += interval;
        n += 1;
    }
    n
}

/// See [`latest_run`].
const RUN_BREAK_FACTOR: u32 = 4;

/// How an animation repaints: its intervals between bursts, and when its latest burst began.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rhythm {
    beat: Instant,
    intervals: [Duration; BURST_SLOTS - 1],
    count: usize,
}

impl Rhythm {
    /// The mean of its intervals (what the tests check a rhythm against).
    #[cfg(test)]
    fn mean(&self) -> Duration {
        self.intervals[..self.count].iter().sum::<Duration>() / self.count.max(1) as u32
    }

    /// Repaints so often that any damage inside it may be one of its frames: within its latest run
    /// it has repainted sooner than [`STEADY_BELOW`] after a frame, or its frames came less than
    /// [`STEADY_MEAN_BELOW`] apart on average. Either alone misses a loaded machine: a 20 Hz ticker
    /// stalls into an uneven beat whose every interval may be over 150 ms, and as a slow animation
    /// its late frames would be news that holds each wait to its ceiling. A caret or a clock is
    /// neither.
    pub(super) fn is_steady(&self) -> bool {
        let run = &self.intervals[..self.count];
        let mean = run.iter().sum::<Duration>() / self.count.max(1) as u32;
        run.iter().any(|&i| i < STEADY_BELOW) || (self.count > 0 && mean < STEADY_MEAN_BELOW)
    }

    /// Whether damage at `at` is this animation's own repaint: part of its latest burst, or one of its
    /// intervals after it (then that repaint is the new beat). A steady animation takes everything.
    pub(super) fn keeps_time(&mut self, at: Instant, burst_gap: Duration) -> bool {
        if self.is_steady() {
            return true;
        }
        let since = at.saturating_duration_since(self.beat);
        if since < burst_gap {
            return true;
        }
        let on_beat = self.intervals[..self.count].iter().any(|&i| {
            let tolerance = (i / BEAT_TOLERANCE_DIVISOR).max(MIN_BEAT_TOLERANCE);
            since.abs_diff(i) <= tolerance
        });
        if on_beat {
            self.beat = at;
        }
        on_beat
    }
}

pub(super) struct Grid {
    pub(super) width: u32,
    pub(super) height: u32,
    cell: u32,
    cols: u32,
    rows: u32,
    pub(super) cells: Vec<Cell>,
}

impl Grid {
    pub(super) fn new(width: u32, height: u32, cell_size: u32) -> Grid {
        const MAX_SIDE: u32 = 256;
        let cell = cell_size.max(8).max(width.div_ceil(MAX_SIDE)).max(height.div_ceil(MAX_SIDE));
        let (cols, rows) = (width.div_ceil(cell).max(1), height.div_ceil(cell).max(1));
        Grid { width, height, cell, cols, rows, cells: vec![Cell::default(); (cols * rows) as usize] }
    }

    pub(super) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Indices of the cells `r` touches (clipped to the grid).
    pub(super) fn cells_of(&self, r: Rect) -> impl Iterator<Item = usize> + '_ {
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
    pub(super) fn dilate(&self, mask: &[bool]) -> Vec<bool> {
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

    /// The screen area of cell `i`.
    pub(super) fn cell_bounds(&self, i: usize) -> Rect {
        let i = i as u32;
        self.cell_rect(i % self.cols, i / self.cols, 1)
    }

    fn cell_rect(&self, col: u32, row: u32, cols: u32) -> Rect {
        let (x, y) = (col * self.cell, row * self.cell);
        let w = (cols * self.cell).min(self.width - x);
        let h = self.cell.min(self.height - y);
        Rect::new(x as i32, y as i32, w, h)
    }

    /// Marked cells as few rectangles: horizontal runs, stacked when the run below matches.
    pub(super) fn rects(&self, mask: &[bool]) -> Vec<Rect> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn animating(cell: &Cell, at: Instant, o: &SettleOptions) -> bool {
        cell.rhythm(at, o).is_some()
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
        assert!(!animating(&repaint, t0 + ms(10), &o));
        // A 20 Hz animation.
        let mut spinner = Cell::default();
        for i in 0..20 {
            spinner.damage(t0 + ms(i * 50), o.burst_gap, true);
        }
        assert!(animating(&spinner, t0 + ms(1000), &o));
        // …that stopped a little while ago (three of its 50 ms intervals, at least 100 ms).
        assert!(animating(&spinner, t0 + ms(950 + 140), &o));
        assert!(!animating(&spinner, t0 + ms(950 + 160), &o));
        // A ticker on a busy machine: 50 ms frames with one 150 ms stall among its latest. A pause of
        // 250 ms is still within two of its longest intervals; 310 ms is not.
        let mut busy = Cell::default();
        for t in [0, 50, 100, 150, 300, 350, 400, 450] {
            busy.damage(t0 + ms(t), o.burst_gap, true);
        }
        assert!(animating(&busy, t0 + ms(450 + 250), &o));
        assert!(!animating(&busy, t0 + ms(450 + 310), &o));
        // A window painted in three quick repaints (35 ms apart) is no animation once it has been quiet
        // for three of those intervals.
        let mut window = Cell::default();
        for i in 0..3 {
            window.damage(t0 + ms(i * 35), o.burst_gap, true);
        }
        assert!(animating(&window, t0 + ms(100), &o));
        assert!(!animating(&window, t0 + ms(70 + 106), &o));
        // A slow animation (every 200 ms) gets more slack: three of its intervals.
        let mut slow = Cell::default();
        for i in 0..5 {
            slow.damage(t0 + ms(i * 200), o.burst_gap, true);
        }
        assert!(animating(&slow, t0 + ms(800 + 590), &o));
        assert!(!animating(&slow, t0 + ms(800 + 610), &o));
        // A GTK caret (0.8 s on, 0.4 s off) and a 1 Hz clock, after three ticks.
        let mut caret = Cell::default();
        for t in [0, 800, 1200, 2000] {
            caret.damage(t0 + ms(t), o.burst_gap, true);
        }
        assert!(animating(&caret, t0 + ms(2000 + 790), &o));
        let mut clock = Cell::default();
        for i in 0..3 {
            clock.damage(t0 + ms(i * 1000), o.burst_gap, true);
        }
        assert!(animating(&clock, t0 + ms(2990), &o));
        assert!(!animating(&clock, t0 + ms(2000 + 1510), &o));
        // Two effects a second apart are not enough; damage seen while a watch is live is not learned.
        let mut effects = Cell::default();
        effects.damage(t0, o.burst_gap, true);
        effects.damage(t0 + ms(1000), o.burst_gap, true);
        assert!(!animating(&effects, t0 + ms(1100), &o));
        effects.damage(t0 + ms(2000), o.burst_gap, false);
        assert!(!animating(&effects, t0 + ms(2100), &o));
        // Detection off.
        assert!(!animating(&spinner, t0 + ms(1000), &SettleOptions { min_bursts: 0, ..o }));
    }

    #[test]
    fn only_the_latest_run_makes_the_rhythm() {
        let o = SettleOptions::default();
        let t0 = Instant::now();
        // A terminal printed here until 2.6 s ago; now a new one repaints every 44 ms.
        let mut cell = Cell::default();
        for t in [0, 50, 100, 2700, 2744, 2788] {
            cell.damage(t0 + ms(t), o.burst_gap, true);
        }
        let rhythm = cell.rhythm(t0 + ms(2800), &o).expect("three bursts of the new run");
        assert!(rhythm.is_steady(), "not one slow animation across the gap: {rhythm:?}");
        // Only two bursts of the new run: not an animation yet, whatever came before.
        let mut young = Cell::default();
        for t in [0, 50, 100, 2700, 2744] {
            young.damage(t0 + ms(t), o.burst_gap, true);
        }
        assert!(young.rhythm(t0 + ms(2750), &o).is_none());
        // A caret's uneven beat (800 on, 400 off) stays one run.
        let times: Vec<Instant> = [0, 800, 1200, 2000, 2400].iter().map(|&t| t0 + ms(t)).collect();
        assert_eq!(latest_run(&times), 5);
        assert_eq!(latest_run(&times[..1]), 1);
        assert_eq!(latest_run(&[]), 0);
    }

    #[test]
    fn a_taught_run_replaces_the_history() {
        let o = SettleOptions::default();
        let t0 = Instant::now();
        let mut cell = Cell::default();
        cell.damage(t0, o.burst_gap, true);
        cell.teach_run(t0 + ms(3000), ms(40), 2);
        // Two taught bursts are below min_bursts, and the old burst no longer joins them.
        assert!(cell.rhythm(t0 + ms(3010), &o).is_none());
        cell.teach_run(t0 + ms(3000), ms(40), 6);
        let rhythm = cell.rhythm(t0 + ms(3010), &o).expect("six bursts 40 ms apart");
        assert!(rhythm.is_steady() && rhythm.mean() == ms(40), "{rhythm:?}");
        // More bursts than the history keeps are clamped.
        cell.teach_run(t0 + ms(3000), ms(40), 50);
        assert_eq!(cell.bursts.iter().flatten().count(), BURST_SLOTS);
    }

    #[test]
    fn a_slow_animation_owns_only_the_repaints_on_its_beat() {
        let o = SettleOptions::default();
        let t0 = Instant::now();
        // A GTK caret: on 800 ms, off 400 ms.
        let mut caret = Cell::default();
        for t in [0, 400, 1200, 1600, 2400] {
            caret.damage(t0 + ms(t), o.burst_gap, true);
        }
        let mut rhythm = caret.rhythm(t0 + ms(2500), &o).expect("the caret is animating");
        assert!(!rhythm.is_steady());
        // Typing 220 ms after a blink is off the beat; the blink itself, 400 ms after, is on it…
        assert!(!rhythm.keeps_time(t0 + ms(2620), o.burst_gap));
        assert!(rhythm.keeps_time(t0 + ms(2803), o.burst_gap));
        // …and the beat moves on with it: the next blink is 800 ms later, and a second drawing
        // operation of the same repaint belongs to it.
        assert!(rhythm.keeps_time(t0 + ms(2810), o.burst_gap));
        assert!(rhythm.keeps_time(t0 + ms(3600), o.burst_gap));
        assert!(!rhythm.keeps_time(t0 + ms(3700), o.burst_gap));
        // A 1 Hz clock keeps time within its tolerance (31 ms), not beyond.
        let mut clock = Cell::default();
        for i in 0..3 {
            clock.damage(t0 + ms(i * 1000), o.burst_gap, true);
        }
        let mut rhythm = clock.rhythm(t0 + ms(2100), &o).expect("the clock is animating");
        assert!(rhythm.keeps_time(t0 + ms(3025), o.burst_gap));
        assert!(!rhythm.keeps_time(t0 + ms(3025 + 960), o.burst_gap));
        // A 20 Hz spinner takes any damage.
        let mut spinner = Cell::default();
        for i in 0..20 {
            spinner.damage(t0 + ms(i * 50), o.burst_gap, true);
        }
        let mut rhythm = spinner.rhythm(t0 + ms(960), &o).expect("the spinner is animating");
        assert!(rhythm.is_steady() && rhythm.keeps_time(t0 + ms(977), o.burst_gap));
        // A 20 Hz ticker on a loaded machine, slowed to an uneven beat with a mean over 150 ms, is
        // still one whose frames may come at any time.
        let mut ticker = Cell::default();
        for t in [0, 50, 250, 500, 680, 740, 950] {
            ticker.damage(t0 + ms(t), o.burst_gap, true);
        }
        let mut rhythm = ticker.rhythm(t0 + ms(1000), &o).expect("the ticker is animating");
        assert!(rhythm.mean() >= STEADY_BELOW, "{rhythm:?}");
        assert!(rhythm.is_steady() && rhythm.keeps_time(t0 + ms(1290), o.burst_gap));
        // Stalled further, so that no interval of its latest run is under 150 ms: its frames still
        // come at no beat one could keep, and still belong to it.
        let mut stalled = Cell::default();
        for t in [0, 170, 420, 590, 880, 1060, 1300] {
            stalled.damage(t0 + ms(t), o.burst_gap, true);
        }
        let mut rhythm = stalled.rhythm(t0 + ms(1350), &o).expect("the stalled ticker is animating");
        assert!(rhythm.intervals[..rhythm.count].iter().all(|&i| i >= STEADY_BELOW), "{rhythm:?}");
        assert!(rhythm.is_steady() && rhythm.keeps_time(t0 + ms(1533), o.burst_gap));
        // Carets that blink 500 ms a phase keep a beat.
        let mut chromium_caret = Cell::default();
        for t in [0, 500, 1000, 1500] {
            chromium_caret.damage(t0 + ms(t), o.burst_gap, true);
        }
        let mut rhythm = chromium_caret.rhythm(t0 + ms(1600), &o).expect("the caret is animating");
        assert!(!rhythm.is_steady());
        assert!(!rhythm.keeps_time(t0 + ms(1720), o.burst_gap));
        assert!(rhythm.keeps_time(t0 + ms(2004), o.burst_gap));
    }
}
