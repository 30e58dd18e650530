//! Settle on a real X server: a private sandbox desktop (one for this whole test binary, never the
//! host's display) with animations made by shell loops (`xsetroot` colour changes, an xterm printing
//! the time). Tests run one at a time, each on a quiet screen. Timing assertions are generous bounds
//! that tell the behaviours apart (returned long before the ceiling, waited past an animation), never
//! speed measurements. Needs the packages of scripts/setup-desktop.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use handrail_platform::{PlatformError, Point, Rect, Settle, SettleRequest, SettleWatch};
use handrail_sandbox::{Sandbox, SandboxOptions, MARKER_VAR};
use handrail_x11::settle::{SettleOptions, X11Settle};
use handrail_x11::X11Error;

struct Desk {
    sandbox: Sandbox,
    settle: X11Settle,
}

/// The shared desktop, locked for the duration of one test. Started on first use and torn down by the
/// sandbox's reaper when the test process exits (statics are never dropped).
fn desk() -> MutexGuard<'static, Desk> {
    static DESK: OnceLock<Mutex<Desk>> = OnceLock::new();
    init_log();
    let guard = DESK
        .get_or_init(|| {
            // The test threads that would receive PR_SET_PDEATHSIG come and go; rely on the reaper.
            let opts = SandboxOptions { accessibility: false, parent_death_signal: false, ..Default::default() };
            let sandbox = Sandbox::start(opts).expect("start the sandbox desktop (see scripts/setup-desktop)");
            let settle = X11Settle::new(&sandbox.display()).expect("DAMAGE on the sandbox");
            Mutex::new(Desk { sandbox, settle })
        })
        .lock()
        // A failed test poisons the lock; the desktop is still usable.
        .unwrap_or_else(|e| e.into_inner());
    guard.wait_until_quiet();
    guard
}

fn init_log() {
    handrail_sandbox::log_to_stderr();
}

/// A child process killed (by its own PID) when the test ends, pass or fail.
struct App(Child);

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Desk {
    fn sh(&self, script: &str) -> App {
        App(self
            .sandbox
            .command("sh")
            .args(["-c", script])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap())
    }

    fn spawn(&self, program: &str, args: &[&str]) -> App {
        App(self.sandbox.command(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap())
    }

    /// Leftovers of the previous test (a window closing, an animation's history) must not leak into
    /// this one: quiet for longer than anything stays "still running".
    fn wait_until_quiet(&self) {
        let stopped = eventually(Duration::from_secs(10), || self.settle.animating_regions().is_empty().then_some(()));
        assert!(stopped.is_some(), "animations never stopped: {:?}", self.settle.animating_regions());
        let req = SettleRequest { response_window: ms(300), quiet: ms(600), ceiling: Duration::from_secs(10) };
        let report = self.settle.watch().unwrap().wait(&req).unwrap();
        assert!(report.settled && report.ignored.is_empty(), "the desktop never became quiet: {report:?}");
    }

    /// Starts an xterm titled `title` that prints the time every 50 ms and takes a watch once the
    /// history calls all of its window animating (about a second of ticking). The verdict counts at
    /// watch(), so it is looked at just before and just after: a busy machine can stall the ticker for
    /// a moment in between. The window is read again each time: it moves while the window manager
    /// adopts it.
    fn ticker_known_at_watch(&self, title: &str) -> (App, Rect, Box<dyn SettleWatch + '_>) {
        self.terminal_known_at_watch(title, "while :; do date +%N; sleep 0.05; done")
    }

    /// Like [`Desk::ticker_known_at_watch`], with the terminal running `script` (in bash).
    fn terminal_known_at_watch(&self, title: &str, script: &str) -> (App, Rect, Box<dyn SettleWatch + '_>) {
        let ticker = self.spawn("xterm", &["-T", title, "-geometry", "24x3+400+300", "-e", "bash", "-c", script]);
        let watched = eventually(Duration::from_secs(15), || {
            let xterm = self.window_rect(title).filter(|r| self.animating_all_over(*r))?;
            let watch = self.settle.watch().ok()?;
            self.animating_all_over(xterm).then_some((xterm, watch))
        });
        let Some((xterm, watch)) = watched else {
            panic!(
                "the ticking xterm at {:?} was never classified as animating: {:?}",
                self.window_rect(title),
                self.settle.animating_regions()
            );
        };
        (ticker, xterm, watch)
    }

    /// Whether the history calls all of `window` animating: its corners and centre (a terminal that
    /// prints and scrolls repaints all over).
    fn animating_all_over(&self, window: Rect) -> bool {
        let (x0, y0, x1, y1) = (window.x + 2, window.y + 2, window.right() as i32 - 3, window.bottom() as i32 - 3);
        let probes = [(x0, y0), (x1, y0), (x0, y1), (x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2)];
        let regions = self.settle.animating_regions();
        probes.iter().all(|&(x, y)| regions.iter().any(|r| r.contains(Point::new(x, y))))
    }

    /// Absolute geometry of the window titled `title` (xwininfo from x11-utils).
    fn window_rect(&self, title: &str) -> Option<Rect> {
        let out = self.sandbox.command("xwininfo").args(["-name", title]).stderr(Stdio::null()).output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !text.contains("IsViewable") {
            return None;
        }
        let field = |name: &str| -> Option<i64> {
            text.lines().find_map(|l| l.trim().strip_prefix(name)).and_then(|v| v.trim().parse().ok())
        };
        Some(Rect::new(
            field("Absolute upper-left X:")? as i32,
            field("Absolute upper-left Y:")? as i32,
            field("Width:")? as u32,
            field("Height:")? as u32,
        ))
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Polls `f` every 50 ms for at most `limit`.
fn eventually<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(ms(50));
    }
}

/// Root colour changes every 50 ms, `n` times (forever when `n` is None).
fn root_animation(n: Option<u32>) -> String {
    let colours = "'#d0d0d0' '#c0c8d0' '#d0c0c8' '#c8d0c0'";
    match n {
        Some(n) => format!(
            "i=0; while [ $i -lt {n} ]; do for c in {colours}; do [ $i -lt {n} ] && xsetroot -solid \"$c\"; \
             i=$((i+1)); sleep 0.05; done; done; xsetroot -solid '#e0e0e0'"
        ),
        None => format!("while :; do for c in {colours}; do xsetroot -solid \"$c\"; sleep 0.05; done; done"),
    }
}

/// The root changing colour for `seconds` of wall time, then still. Bounded by time, not by a count
/// of changes: on a busy machine each `xsetroot` takes longer to start, and a count would stretch the
/// animation past any ceiling.
fn root_animation_for(seconds: u32) -> String {
    let colours = "'#d0d0d0' '#c0c8d0' '#d0c0c8' '#c8d0c0'";
    format!(
        "end=$(( $(date +%s%N) + {seconds}000000000 )); while [ $(date +%s%N) -lt $end ]; do for c in {colours}; do \
         xsetroot -solid \"$c\"; sleep 0.05; done; done; xsetroot -solid '#e0e0e0'"
    )
}

#[test]
fn a_static_screen_returns_after_the_response_window() {
    let d = desk();
    let req = SettleRequest::default();
    let t = Instant::now();
    let mut watch = d.settle.watch().unwrap();
    let watch_cost = t.elapsed();
    let report = watch.wait(&req).unwrap();
    assert!(!report.saw_change && report.settled, "{report:?}");
    assert!(report.ignored.is_empty(), "{report:?}");
    assert!(report.waited >= req.response_window, "{report:?}");
    assert!(report.waited < req.response_window + ms(1000), "{report:?}");
    // watch() is a lock and a grid scan; bound it loosely (it is microseconds).
    assert!(watch_cost < ms(50), "watch() took {watch_cost:?}");
    assert!(!watch.wait_for_change(ms(200)).unwrap());
}

#[test]
fn a_finite_animation_is_waited_out() {
    let d = desk();
    let req = SettleRequest { response_window: ms(2000), quiet: ms(600), ceiling: Duration::from_secs(10) };
    let mut watch = d.settle.watch().unwrap();
    let t = Instant::now();
    // About 0.6 s of colour changes, then the loop exits.
    let mut app = d.sh(&root_animation(Some(10)));
    let report = watch.wait(&req).unwrap();
    let elapsed = t.elapsed();
    assert!(report.saw_change && report.settled, "{report:?}");
    // Returned only after the loop had finished (its last xsetroot is its last act), not at the first
    // change, and well before the ceiling.
    assert!(app.0.try_wait().unwrap().is_some(), "returned while the animation was still running: {report:?}");
    assert!(elapsed >= ms(500), "{report:?}");
    assert!(report.waited < req.ceiling, "{report:?}");
}

#[test]
fn an_animation_started_after_watch_hits_the_ceiling() {
    let d = desk();
    let req = SettleRequest { response_window: ms(2000), quiet: ms(600), ceiling: ms(2500) };
    let mut watch = d.settle.watch().unwrap();
    let _app = d.sh(&root_animation(None));
    let report = watch.wait(&req).unwrap();
    assert!(report.saw_change && !report.settled, "{report:?}");
    assert!(report.waited >= req.ceiling && report.waited < req.ceiling + ms(1000), "{report:?}");
    assert!(report.ignored.is_empty(), "it started after watch(): {report:?}");
}

#[test]
fn an_animation_running_before_watch_is_ignored_but_other_changes_count() {
    let d = desk();
    let (_ticker, xterm, mut watch) = d.ticker_known_at_watch("handrail-ticker");

    // Nothing else happens: the ticker must not hold the wait for its 5 s ceiling.
    let req = SettleRequest::default();
    let report = watch.wait(&req).unwrap();
    assert!(!report.saw_change && report.settled, "{report:?}");
    assert!(report.waited < req.response_window + ms(1000), "{report:?}");
    // The ignored region is the ticker (grid cells around it), not the screen.
    assert!(report.ignored.iter().any(|r| r.intersects(&xterm)), "{report:?} vs {xterm}");
    let around = Rect::new(xterm.x - 64, xterm.y - 64, xterm.width + 128, xterm.height + 128);
    assert!(report.ignored.iter().all(|r| around.contains_rect(r)), "{report:?} vs {xterm}");

    // A change elsewhere while the ticker keeps going is still seen, and settles.
    let _root = d.sh("xsetroot -solid '#d8d8e8'; sleep 0.2; xsetroot -solid '#e0e0e0'");
    let report = watch.wait(&SettleRequest { response_window: ms(2000), ..req }).unwrap();
    assert!(report.saw_change && report.settled, "{report:?}");
    assert!(report.waited < req.ceiling, "{report:?}");
}

/// A terminal printing at no beat, with every interval over 150 ms (what a 20 Hz ticker stalls into on
/// a busy machine), is an animation whose frames may come at any time: it must not hold the wait
/// either. Taken for a slow animation with a beat, each frame off that beat was news and the wait ran
/// to its 5 s ceiling.
#[test]
fn a_terminal_printing_at_no_beat_slower_than_150ms_does_not_hold_the_wait() {
    let d = desk();
    // Sleeps of 160–260 ms drawn at random: no interval repeats closely enough to be a beat, and
    // the load this suite runs beside stretches them by less than the 400 ms a beat-keeper's mean
    // starts at.
    let script = "while :; do date +%N; sleep 0.$(( RANDOM % 100 + 160 )); done";
    let (_ticker, xterm, mut watch) = d.terminal_known_at_watch("handrail-uneven-ticker", script);
    // Quiet for longer than its longest interval, so that a dozen of its frames fall inside the wait
    // and each must be taken for the terminal's own.
    let req = SettleRequest { response_window: ms(2500), quiet: ms(500), ceiling: ms(4000) };
    let report = watch.wait(&req).unwrap();
    assert!(!report.saw_change && report.settled, "{report:?}");
    assert!(report.ignored.iter().any(|r| r.intersects(&xterm)), "{report:?} vs {xterm}");
}

/// An animation that begins during a watch in a window that was already open holds that wait to its
/// ceiling (it may be the app's work the action asked for), but once it has kept going through a
/// whole watch the next watch, taken at once with no pause in which the history could learn it,
/// knows it as running. Without that, one missed animation would hold every wait of an agent that
/// acts back to back.
#[test]
fn an_animation_a_watch_waited_through_does_not_hold_the_next_watch() {
    let d = desk();
    let title = "handrail-late-ticker";
    let go = d.sandbox.root().join("late-ticker-go");
    let script =
        format!("while [ ! -e '{}' ]; do sleep 0.05; done; while :; do date +%N; sleep 0.05; done", go.display());
    let _ticker = d.spawn("xterm", &["-T", title, "-geometry", "24x3+400+300", "-e", "sh", "-c", &script]);
    // The window is open and has stopped drawing itself before the ticking begins.
    let quiet = SettleRequest { response_window: ms(300), quiet: ms(300), ceiling: Duration::from_secs(5) };
    let shown = eventually(Duration::from_secs(15), || {
        d.window_rect(title)?;
        let report = d.settle.watch().ok()?.wait(&quiet).ok()?;
        (report.settled && !report.saw_change).then_some(())
    });
    assert!(shown.is_some(), "the ticker's window never showed and went still");
    // Quiet for longer than the ticker stalls on a busy machine: only the ceiling may end this wait.
    let first = SettleRequest { response_window: ms(300), quiet: ms(1000), ceiling: ms(3000) };
    let mut watch = d.settle.watch().unwrap();
    std::fs::write(&go, b"").unwrap();
    let report = watch.wait(&first).unwrap();
    assert!(report.saw_change && !report.settled, "began in a window already open: {report:?}");
    drop(watch);
    let report = d.settle.watch().unwrap().wait(&SettleRequest::default()).unwrap();
    assert!(!report.saw_change && report.settled, "{report:?}");
    let xterm = d.window_rect(title).expect("the ticker's window");
    assert!(report.ignored.iter().any(|r| r.intersects(&xterm)), "{report:?} vs {xterm}");
}

/// An animation known at `watch()` stays known through a watch that lasts longer than the history
/// reaches back (other news kept it waiting), so the next watch, taken at once, still ignores it.
#[test]
fn an_animation_known_before_a_long_watch_is_still_known_after_it() {
    let d = desk();
    let (_ticker, xterm, mut watch) = d.ticker_known_at_watch("handrail-steady-ticker");
    // Other news for longer than the history's three seconds: the root changes colour for 4 s.
    let long = SettleRequest { response_window: ms(2000), quiet: ms(600), ceiling: Duration::from_secs(15) };
    let root = d.sh(&root_animation_for(4));
    let report = watch.wait(&long).unwrap();
    assert!(report.saw_change && report.settled, "{report:?}");
    assert!(report.waited > Duration::from_secs(3), "the watch was not longer than the history: {report:?}");
    assert!(report.ignored.iter().any(|r| r.intersects(&xterm)), "{report:?} vs {xterm}");
    drop(watch);
    drop(root);
    // Taken at once: the history had no time between the watches to learn the ticker again.
    let report = d.settle.watch().unwrap().wait(&SettleRequest::default()).unwrap();
    assert!(!report.saw_change && report.settled, "{report:?}");
    assert!(report.ignored.iter().any(|r| r.intersects(&xterm)), "{report:?} vs {xterm}");
}

#[test]
fn a_gtk_spinner_running_before_watch_does_not_hold_the_wait() {
    let d = desk();
    // gtk3-demo's Spinner window: GtkSpinners redraw at 60 fps from the moment they map. While the
    // windows open, their first repaints come in quick bursts too; wait until only the spinners remain.
    // The entry beside them would blink its caret, which GTK repaints together with the spinners; a
    // blink late by more than its beat's tolerance (a loaded machine) or the last one, ten seconds
    // after mapping, is genuine news. Slow beats have their unit tests (settle/grid.rs); here the caret
    // is switched off, so the spinners are all that moves.
    let config = d.sandbox.root().join("spinner-config");
    std::fs::create_dir_all(config.join("gtk-3.0")).unwrap();
    std::fs::write(config.join("gtk-3.0/settings.ini"), "[Settings]\ngtk-cursor-blink=false\n").unwrap();
    let _demo = App(d
        .sandbox
        .command("gtk3-demo")
        .arg("--run=spinner")
        .env("XDG_CONFIG_HOME", &config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap());
    // The spinners are classified within ~0.1 s: wait until the regions stop changing.
    let small = |r: &[Rect]| !r.is_empty() && r.iter().map(Rect::area).sum::<u64>() < 1280 * 800 / 20;
    let mut history: Vec<Vec<Rect>> = Vec::new();
    let stable = eventually(Duration::from_secs(20), || {
        history.push(d.settle.animating_regions());
        let recent = &history[history.len().saturating_sub(50)..];
        (recent.len() == 50 && recent.iter().all(|r| small(r) && *r == recent[0])).then_some(())
    });
    assert!(stable.is_some(), "the GTK window was never classified as animating on its own: {history:?}");
    let req = SettleRequest::default();
    let report = d.settle.watch().unwrap().wait(&req).unwrap();
    assert!(!report.saw_change && report.settled && !report.ignored.is_empty(), "{report:?}");
    assert!(report.waited < req.response_window + ms(1000), "{report:?}");
}

#[test]
fn wait_for_change_sees_a_change_and_the_next_wait_settles_from_it() {
    let d = desk();
    let mut watch = d.settle.watch().unwrap();
    assert!(!watch.wait_for_change(ms(300)).unwrap());
    let t = Instant::now();
    let _app = d.sh("sleep 0.2; xsetroot -solid '#d0d8e0'; xsetroot -solid '#e0e0e0'");
    assert!(watch.wait_for_change(Duration::from_secs(10)).unwrap());
    assert!(t.elapsed() < Duration::from_secs(10));
    // The change was reported: the wait measures its quiet period from it instead of waiting for another.
    let report = watch.wait(&SettleRequest::default()).unwrap();
    assert!(report.saw_change && report.settled, "{report:?}");
    assert!(report.waited < SettleRequest::default().ceiling, "{report:?}");
}

/// An animation that comes with a window the action opened (a spinner in a new app) stops holding
/// the wait once it has repainted steadily for a while, and is named; the same repainting in a
/// window that was already there would be waited for (the root animation above hits the ceiling).
#[test]
fn an_animation_that_comes_with_a_new_window_lets_the_wait_go_and_is_named() {
    let d = desk();
    // A quiet period longer than the ticker stalls on a busy machine (its `date` is a fork and exec
    // every 30 ms): only the animation's recognition may end the wait.
    let req = SettleRequest { response_window: ms(3000), quiet: ms(1000), ceiling: ms(8000) };
    let mut watch = d.settle.watch().unwrap();
    let _app = d.spawn(
        "xterm",
        &["-T", "ticker", "-geometry", "24x3+400+300", "-e", "sh", "-c", "while :; do date +%N; sleep 0.03; done"],
    );
    let report = watch.wait(&req).unwrap();
    let window = d.window_rect("ticker").expect("the ticker window is up");
    assert!(report.saw_change && report.settled, "{report:?}");
    assert!(report.waited < ms(6000), "let go long before the ceiling: {report:?}");
    assert!(!report.began.is_empty(), "the animation is named: {report:?}");
    let grown = Rect::new(window.x - 32, window.y - 32, window.width + 64, window.height + 64);
    assert!(report.began.iter().all(|r| grown.contains_rect(r)), "inside the new window {window}: {report:?}");
    // Its repaints still count for whoever keeps looking (an `expect`).
    assert!(watch.wait_for_change(ms(1000)).unwrap());
    drop(watch);
    // The next watch knows it as running from its start.
    let report = d.settle.watch().unwrap().wait(&SettleRequest::default()).unwrap();
    assert!(!report.saw_change && report.settled && !report.ignored.is_empty(), "{report:?}");
}

#[test]
fn detection_can_be_switched_off() {
    let d = desk();
    let off =
        X11Settle::with_options(&d.sandbox.display(), SettleOptions { min_bursts: 0, ..Default::default() }).unwrap();
    let _ticker = d.sh(&root_animation(None));
    // Even with a history of ticking, nothing is ignored: its frames are changes. (Whether the wait
    // also runs into the ceiling depends on the ticker never pausing for the quiet time, and it forks
    // a process per frame, which a loaded machine stalls now and then: a settle after such a pause is
    // right, so only what was seen and ignored is asserted.)
    std::thread::sleep(ms(1200));
    let req = SettleRequest { response_window: ms(1000), quiet: ms(500), ceiling: ms(1500) };
    let report = off.watch().unwrap().wait(&req).unwrap();
    assert!(report.saw_change && report.ignored.is_empty(), "{report:?}");
    assert!(off.events_seen() > 0);
}

#[test]
fn bad_options_and_displays_are_refused() {
    let _d = desk();
    let err = X11Settle::with_options(":0", SettleOptions { min_bursts: 99, ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("min_bursts"), "{err}");
    let err = X11Settle::new(":50000").unwrap_err();
    assert!(matches!(err, X11Error::Connect { .. }), "{err}");
}

#[test]
fn a_server_without_damage_is_unavailable() {
    let d = desk();
    // A bare Xvfb of our own with DAMAGE switched off, carrying the sandbox's marker so the sandbox
    // reaper stops it even if this process dies.
    let mut child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-extension", "DAMAGE"])
        .args(["-screen", "0", "320x200x24"])
        .env(MARKER_VAR, d.sandbox.id())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Xvfb");
    let mut line = String::new();
    let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let xvfb = App(child);
    let display = format!(":{}", line.trim());
    let err = X11Settle::new(&display).unwrap_err();
    assert!(matches!(err, X11Error::MissingExtension("DAMAGE")), "{err}");
    let err = PlatformError::from(err);
    assert!(matches!(err, PlatformError::Unavailable(_)), "{err:?}");
    assert_eq!(err.to_string(), "the X DAMAGE extension is not available");
    drop(xvfb);
}
