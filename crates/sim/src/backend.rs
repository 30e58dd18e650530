//! The platform traits, implemented over the shared world. Every call is logged before it acts, so a
//! test sees attempts as well as successes.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use handrail_platform::{
    Accessibility, AxLimits, AxSnapshot, BlockedRequest, Clock, EncodedImage, Encoder, FileState, Frame, Input,
    KeyCombo, Launched, Monitor, MouseButton, NetworkPolicy, Ocr, OcrLine, PlatformError, Point, Rect, Screen,
    ScrollDirection, Settle, SettleReport, SettleRequest, SettleWatch, ShellFiles, Size, StackedWindow, TextRoute,
    WindowInfo, Windows,
};

use crate::render::{self, PgmEncoder};
use crate::spec::{WidgetId, WindowId};
use crate::world::{TypingFault, World, INPUT_STEP, SPINNER_STEP};
use crate::{layout, SimCall};

/// Text shorter than this many pixels in the frame is too small to read.
const MIN_OCR_HEIGHT: u32 = 3;
const OCR_CONFIDENCE: f32 = 95.0;

/// The world every trait object shares.
#[derive(Clone)]
pub(crate) struct Shared(pub(crate) Arc<Mutex<World>>);

impl Shared {
    /// A panic while holding the lock leaves the world usable; tests then report the original panic.
    pub(crate) fn lock(&self) -> MutexGuard<'_, World> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(crate) struct SimScreen(pub(crate) Shared);

impl Screen for SimScreen {
    fn screen_size(&self) -> Result<Size, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::ScreenSize);
        Ok(w.screen)
    }

    fn capture(&self, area: Option<Rect>, max_size: Option<Size>) -> Result<Frame, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Capture { area, max_size });
        let frame = render::capture(&w, area, max_size)?;
        let lines = layout::screen_text(&w);
        w.remember_text(render::frame_key(&frame), lines);
        Ok(frame)
    }

    fn monitors(&self) -> Result<Vec<Monitor>, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Monitors);
        Ok(w.monitors.clone().unwrap_or_else(|| vec![Monitor::whole(w.screen)]))
    }
}

pub(crate) struct SimInput(pub(crate) Shared);

impl SimInput {
    /// Logs `call`, checks its points are on screen, applies it, then lets an input event's worth of
    /// virtual time pass (which may bring due reactions).
    fn input(&self, call: SimCall, points: &[Point], act: impl FnOnce(&mut World)) -> Result<(), PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(call);
        for p in points {
            w.check_point(*p)?;
        }
        act(&mut w);
        w.advance_by(INPUT_STEP);
        Ok(())
    }
}

impl Input for SimInput {
    fn move_pointer(&self, to: Point) -> Result<(), PlatformError> {
        self.input(SimCall::MovePointer(to), &[to], |w| w.move_pointer(to))
    }

    fn click(&self, at: Point, button: MouseButton, count: u8) -> Result<(), PlatformError> {
        let call = SimCall::Click { at, button, count };
        if count == 0 {
            self.0.lock().calls.push(call);
            return Err(PlatformError::Invalid("click count must be at least 1".into()));
        }
        self.input(call, &[at], |w| w.click(at, button, count))
    }

    fn drag(&self, from: Point, to: Point) -> Result<(), PlatformError> {
        self.input(SimCall::Drag { from, to }, &[from, to], |w| w.drag(from, to))
    }

    fn scroll(&self, at: Option<Point>, direction: ScrollDirection, notches: u32) -> Result<(), PlatformError> {
        let call = SimCall::Scroll { at, direction, notches };
        let points: Vec<Point> = at.into_iter().collect();
        self.input(call, &points, |w| w.scroll(at, direction, notches))
    }

    fn key(&self, combo: &KeyCombo) -> Result<(), PlatformError> {
        self.input(SimCall::Key(combo.to_string()), &[], |w| w.key(combo))
    }

    fn type_text(&self, text: &str) -> Result<(), PlatformError> {
        self.type_text_via(text, TextRoute::Preferred)
    }

    fn type_text_via(&self, text: &str, route: TextRoute) -> Result<(), PlatformError> {
        let call = match route {
            TextRoute::Preferred => SimCall::TypeText(text.to_string()),
            TextRoute::Alternate => SimCall::TypeTextAlternate(text.to_string()),
        };
        self.input(call, &[], |w| {
            let fault = match route {
                TextRoute::Preferred => w.typing_faults.pop_front(),
                TextRoute::Alternate => w.alternate_faults.pop_front(),
            };
            match fault {
                None => w.type_text(text),
                Some(TypingFault::Lost) => {}
                Some(TypingFault::Garbled(instead)) => w.type_text(&instead),
            }
        })
    }
}

pub(crate) struct SimWindows(pub(crate) Shared);

impl Windows for SimWindows {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Frontmost);
        Ok(w.frontmost_info())
    }

    fn launch_app(&self, name: &str) -> Result<Launched, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::LaunchApp(name.to_string()));
        let launched = w.launch_app(name)?;
        w.advance_by(INPUT_STEP);
        Ok(launched)
    }

    fn open_url(&self, url: &str) -> Result<Launched, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::OpenUrl(url.to_string()));
        let launched = w.open_url(url);
        w.advance_by(INPUT_STEP);
        Ok(launched)
    }

    fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Stack);
        Ok(w.stacked())
    }

    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Activate(handle));
        w.activate_window(handle)?;
        w.advance_by(INPUT_STEP);
        Ok(())
    }
}

pub(crate) struct SimSettle(pub(crate) Shared);

/// How long a spinner that appears with a new window during a wait keeps the wait going before it
/// counts as part of that window's look (as on X11: a steady repaint for 0.4 s).
pub const BEGAN_SUSTAIN: Duration = Duration::from_millis(400);

impl Settle for SimSettle {
    fn watch(&self) -> Result<Box<dyn SettleWatch + '_>, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Watch);
        Ok(Box::new(SimWatch {
            shared: self.0.clone(),
            baseline: w.changes,
            unsettled: None,
            // Animations already running are background noise, not the action's doing.
            ignored: w.shown_spinners(),
            open_before: w.open_windows().map(|d| d.id).collect(),
            began: Vec::new(),
        }))
    }
}

/// A settle watch in virtual time: waiting means jumping to the next event.
struct SimWatch {
    shared: Shared,
    /// The change counter as last reported; changes beyond it are news.
    baseline: u64,
    /// When the change `wait_for_change` reported happened: the next `wait` measures its quiet period
    /// from there rather than waiting for yet another change.
    unsettled: Option<Duration>,
    ignored: Vec<WidgetId>,
    /// Windows open at `watch()`: a spinner in any other window began with a window the action opened.
    open_before: Vec<WindowId>,
    /// Spinners of new windows, with the time each was first seen turning during this watch.
    began: Vec<(WidgetId, Duration)>,
}

impl SimWatch {
    /// Until when the spinners that are not background noise hold the wait (None: none do). One in a
    /// window open before the watch holds it for good; one in a new window, until it has turned for
    /// [`BEGAN_SUSTAIN`].
    fn holding(&mut self, w: &World) -> Option<Duration> {
        let mut until: Option<Duration> = None;
        for id in w.shown_spinners().into_iter().filter(|id| !self.ignored.contains(id)) {
            let in_new_window = w.widget(id).is_some_and(|d| !self.open_before.contains(&d.window));
            let hold = if in_new_window {
                let since = match self.began.iter().find(|(b, _)| *b == id) {
                    Some((_, since)) => *since,
                    None => {
                        self.began.push((id, w.now));
                        w.now
                    }
                };
                since + BEGAN_SUSTAIN
            } else {
                Duration::MAX
            };
            if hold > w.now {
                until = Some(until.map_or(hold, |u| u.min(hold)));
            }
        }
        until
    }
}

impl SettleWatch for SimWatch {
    fn wait(&mut self, request: &SettleRequest) -> Result<SettleReport, PlatformError> {
        let shared = self.shared.clone();
        let mut w = shared.lock();
        w.calls.push(SimCall::Wait(*request));
        let start = w.now;
        let ceiling = start + request.ceiling;
        let first_deadline = (start + request.response_window).min(ceiling);
        let mut seen = w.changes;
        let mut last_change = if seen != self.baseline { Some(w.last_change_at) } else { self.unsettled };
        self.unsettled = None;
        let settled = loop {
            let now = w.now;
            let holding = self.holding(&w);
            if holding.is_some() {
                last_change = last_change.max(Some(now));
            }
            // The time the wait ends unless a reaction comes first: the response window while nothing
            // has changed, the end of the quiet period after a change, while a spinner holds the wait
            // the time it lets go (or the ceiling).
            let deadline = match (last_change, holding) {
                (_, Some(_)) if now >= ceiling => break false,
                (_, Some(until)) => until.min(ceiling),
                (None, None) if now >= first_deadline => break true,
                (None, None) => first_deadline,
                (Some(at), None) if now >= at + request.quiet => break true,
                (Some(_), None) if now >= ceiling => break false,
                (Some(at), None) => (at + request.quiet).min(ceiling),
            };
            match w.next_due() {
                Some(due) if due <= deadline => {
                    w.advance_to(due);
                    if w.changes != seen {
                        seen = w.changes;
                        last_change = Some(w.last_change_at);
                    }
                }
                _ => w.advance_to(deadline.max(now)),
            }
        };
        self.baseline = w.changes;
        let bounds = |ids: &mut dyn Iterator<Item = WidgetId>| -> Vec<Rect> {
            ids.filter(|id| w.is_shown(*id)).filter_map(|id| w.widget(id).map(|d| d.bounds())).collect()
        };
        let ignored = bounds(&mut self.ignored.iter().copied());
        let began =
            bounds(&mut self.began.iter().filter(|(_, since)| *since + BEGAN_SUSTAIN <= w.now).map(|(id, _)| *id));
        Ok(SettleReport { waited: w.now - start, settled, saw_change: last_change.is_some(), ignored, began })
    }

    fn wait_for_change(&mut self, timeout: Duration) -> Result<bool, PlatformError> {
        let mut w = self.shared.lock();
        w.calls.push(SimCall::WaitForChange(timeout));
        let end = w.now + timeout;
        let changed = loop {
            if w.changes != self.baseline {
                self.unsettled = Some(w.last_change_at);
                break true;
            }
            let tick = w.animating(&self.ignored).then(|| next_tick(w.now));
            match [tick, w.next_due()].into_iter().flatten().min() {
                Some(t) if t <= end => {
                    w.advance_to(t);
                    if tick == Some(t) && w.changes == self.baseline {
                        self.unsettled = Some(w.now);
                        break true;
                    }
                }
                _ => {
                    w.advance_to(end);
                    let changed = w.changes != self.baseline;
                    if changed {
                        self.unsettled = Some(w.last_change_at);
                    }
                    break changed;
                }
            }
        };
        self.baseline = w.changes;
        Ok(changed)
    }
}

/// When a spinner next changes its pixels after `now`.
fn next_tick(now: Duration) -> Duration {
    let step = SPINNER_STEP.as_nanos().max(1);
    let next = (now.as_nanos() / step + 1) * step;
    Duration::from_nanos(u64::try_from(next).unwrap_or(u64::MAX))
}

pub(crate) struct SimAccessibility(pub(crate) Shared);

impl Accessibility for SimAccessibility {
    fn snapshot(&self, limits: &AxLimits) -> AxSnapshot {
        let mut w = self.0.lock();
        w.calls.push(SimCall::AxSnapshot);
        let snapshot = if w.ax_misses > 0 && w.ax_misses_in > 0 {
            w.ax_misses_in -= 1;
            crate::ax::snapshot(&w, limits)
        } else if w.ax_misses > 0 {
            w.ax_misses -= 1;
            AxSnapshot::unavailable()
        } else if w.ax_partial_misses > 0 && w.ax_health == handrail_platform::AxHealth::Ok {
            w.ax_partial_misses -= 1;
            w.ax_health = handrail_platform::AxHealth::Partial;
            let partial = crate::ax::snapshot(&w, limits);
            w.ax_health = handrail_platform::AxHealth::Ok;
            partial
        } else {
            crate::ax::snapshot(&w, limits)
        };
        let read_time = w.ax_read_time;
        w.advance_by(read_time);
        snapshot
    }

    fn layout_may_have_moved(&self) {
        self.0.lock().calls.push(SimCall::AxLayoutMayHaveMoved);
    }
}

pub(crate) struct SimOcr(pub(crate) Shared);

impl Ocr for SimOcr {
    fn available(&self) -> bool {
        self.0.lock().ocr_available
    }

    fn recognize(&self, frame: &Frame, region: Option<Rect>) -> Result<Vec<OcrLine>, PlatformError> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::Ocr { region });
        if !w.ocr_available {
            return Err(PlatformError::Unavailable("OCR".into()));
        }
        if !frame.is_consistent() {
            return Err(PlatformError::Invalid("frame buffer is smaller than its declared size".into()));
        }
        // A frame this sim captured reads as it was then; any other frame reads the world as it is.
        let lines = w.remembered_text(render::frame_key(frame)).unwrap_or_else(|| layout::screen_text(&w));
        Ok(map_lines(lines, frame, region))
    }
}

/// Maps screen-coordinate lines into `frame`'s coordinates, keeping those readable and in `region`.
fn map_lines(lines: Vec<(String, Rect)>, frame: &Frame, region: Option<Rect>) -> Vec<OcrLine> {
    let o = frame.origin;
    if o.is_empty() || frame.size.width == 0 || frame.size.height == 0 {
        return Vec::new();
    }
    let sx = f64::from(frame.size.width) / f64::from(o.width);
    let sy = f64::from(frame.size.height) / f64::from(o.height);
    let bounds = Rect::from_size(frame.size);
    let mut out: Vec<OcrLine> = lines
        .into_iter()
        .filter_map(|(text, r)| {
            let r = r.intersection(&o)?;
            let x0 = (f64::from(r.x - o.x) * sx).floor();
            let y0 = (f64::from(r.y - o.y) * sy).floor();
            let x1 = ((r.right() - i64::from(o.x)) as f64 * sx).ceil();
            let y1 = ((r.bottom() - i64::from(o.y)) as f64 * sy).ceil();
            let mapped = Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32).clamped_to(&bounds);
            let readable = mapped.height >= MIN_OCR_HEIGHT && !text.is_empty();
            let wanted = match region {
                Some(g) => g.contains(mapped.center()),
                None => true,
            };
            (readable && wanted).then_some(OcrLine { text, bounds: mapped, confidence: OCR_CONFIDENCE })
        })
        .collect();
    // Reading order, as a real engine returns it.
    out.sort_by_key(|l| (l.bounds.y, l.bounds.x));
    out
}

/// Logs the call and delegates, so callers can see when the engine encoded.
pub(crate) struct SimEncoder {
    pub(crate) shared: Shared,
    pub(crate) inner: PgmEncoder,
}

impl Encoder for SimEncoder {
    fn encode(&self, frame: &Frame) -> Result<EncodedImage, PlatformError> {
        self.shared.lock().calls.push(SimCall::Encode);
        self.inner.encode(frame)
    }
}

pub(crate) struct SimClock(pub(crate) Shared);

impl Clock for SimClock {
    fn now(&self) -> Duration {
        self.0.lock().clock_now()
    }
}

/// The simulated network guard: reports what [`crate::SimDesktop::block_request`] and
/// [`crate::Reaction::block_request`] injected. Not logged as a call: it touches nothing.
pub(crate) struct SimNetwork(pub(crate) Shared);

impl NetworkPolicy for SimNetwork {
    fn take_blocked(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut self.0.lock().blocked)
    }
}

pub(crate) struct SimShellFiles(pub(crate) Shared);

impl ShellFiles for SimShellFiles {
    fn file_states(&self, terminal_pid: u32, paths: &[String]) -> Vec<FileState> {
        let mut w = self.0.lock();
        w.calls.push(SimCall::FileStates { terminal_pid, paths: paths.to_vec() });
        paths
            .iter()
            .map(|p| match &w.shell_files {
                None => FileState::Unknown,
                Some(known) => known.get(p).copied().unwrap_or(FileState::Absent),
            })
            .collect()
    }
}
