//! The behaviour every desktop backend must have, as one suite of checks run against each backend
//! (the way one search suite runs against every matcher).
//!
//! A backend enters the suite through [`Harness`]: it gives a [`Desktop`] and opens the *probe*, an
//! app that says what it received — on real desktops `testdata/apps/conformance_gtk.py`, whose stdout
//! lines are its events; on the simulated desktop the same window built from simulated widgets, whose
//! state is read back. Every check in [`checks`] judges only what the probe reports, never what the
//! backend under test says about itself. [`conformance_suite!`] instantiates every check as a
//! `#[test]` for one harness factory; `tests/` holds one file per backend.

pub mod checks;
#[cfg(target_os = "linux")]
pub mod real;
pub mod sim;

use std::time::{Duration, Instant};

use handrail_platform::{Desktop, Rect, SettleRequest};

/// A backend under test: a desktop, and a way to open the probe on it.
pub trait Harness {
    /// What the backend is called in failure messages.
    fn name(&self) -> &'static str;
    fn desktop(&self) -> &Desktop;
    /// Opens the probe titled `title` and returns once its window is active and it is ready.
    fn open_probe(&self, title: &str) -> Box<dyn Probe + '_>;
    /// The screen size the harness set up.
    fn expected_screen(&self) -> (u32, u32);
    /// Whether the desktop reads accessibility (the bounds check needs it).
    fn has_accessibility(&self) -> bool {
        true
    }
    /// Whether a key that carries a character beyond ASCII (`ก`) can be pressed as a key. GNOME
    /// presses only keys of its layout, which handrail cannot read: there such a key is refused
    /// with a reason (typing the character is the way), never dropped silently.
    fn presses_any_character_key(&self) -> bool {
        true
    }
    /// How long until the desktop redraws something by itself on a schedule, if it does: GNOME
    /// Shell's top bar shows a clock that turns at each minute. Checks that need the screen
    /// unchanged for a while start clear of it rather than hoping.
    fn next_scheduled_redraw(&self) -> Option<Duration> {
        None
    }
}

/// How long until the wall clock's next minute (what a desktop's clock shows turns then).
pub fn until_next_minute() -> Duration {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let into = Duration::from_nanos((now.as_nanos() % 60_000_000_000) as u64);
    Duration::from_secs(60) - into
}

/// The probe app: where its widgets are and what it received.
pub trait Probe {
    /// A widget's bounds in screen coordinates, as the app itself places it (`Change`, `Later`,
    /// `Name`, `Card`, `Drop here`, `List`).
    fn bounds(&self, widget: &str) -> Rect;
    /// The first event from now on that `want` accepts, waiting up to `within` (events: see
    /// `conformance_gtk.py`).
    fn expect(&mut self, within: Duration, want: &dyn Fn(&str) -> bool) -> Option<String>;
    /// Events received and not yet read, without waiting.
    fn drain(&mut self) -> Vec<String>;
    /// Every event received since the probe opened, read or not (for failure messages).
    fn said(&mut self) -> Vec<String>;
    /// The window's title.
    fn title(&self) -> &str;
}

/// Runs the checks for the harness `$factory()` makes.
///
/// - `conformance_suite!(FACTORY)`: every check as a `#[test]` of its own, each on a desktop of its
///   own.
/// - `conformance_suite!(@grouped FACTORY)`: two `#[test]`s, the typing checks and all the others,
///   each running its checks one after another on one desktop ([`run_on_one_desktop`]): for
///   backends whose desktop takes seconds to start (GNOME Shell).
/// - `conformance_suite!(@tests FACTORY; CHECK, …)` and `conformance_suite!(@on_one_desktop FACTORY;
///   TEST: [CHECK, …])`: the same for a chosen list of checks.
///
/// The list of every check is written once, below.
#[macro_export]
macro_rules! conformance_suite {
    ($factory:expr) => {
        $crate::conformance_suite!(@lists each $factory);
    };
    (@grouped $factory:expr) => {
        $crate::conformance_suite!(@lists grouped $factory);
    };
    (@lists $mode:ident $factory:expr) => {
        $crate::conformance_suite!(@ $mode $factory;
            [
                typing_english_is_exact,
                typing_thai_is_exact,
                typing_cjk_is_exact,
                typing_emoji_is_exact,
                typing_mixed_scripts_with_newline_free_punctuation_is_exact,
            ]
            [
                // First, while the desktop has never shown a window: the capture check compares
                // two captures of a screen where nothing moves.
                capture_has_the_screens_size_and_scales_exactly,
                monitors_cover_the_screen,
                clicks_arrive_where_the_app_put_its_button,
                captures_show_every_change_the_app_drew,
                key_combinations_arrive_with_their_modifiers,
                scrolling_moves_the_list_both_ways,
                drag_and_drop_reaches_the_target,
                windows_are_listed_and_activated,
                settle_waits_for_a_late_reaction,
                settle_sees_a_change_beside_a_running_animation,
                settle_returns_after_the_response_window_when_nothing_changes,
                a_cancelled_wait_returns_at_once,
                accessibility_bounds_match_the_apps_own_geometry,
            ]
        );
    };
    (@each $factory:expr; [$($typing:ident),* $(,)?] [$($other:ident),* $(,)?]) => {
        $crate::conformance_suite!(@tests $factory; $($typing,)* $($other,)*);
    };
    (@grouped $factory:expr; [$($typing:ident),* $(,)?] [$($other:ident),* $(,)?]) => {
        $crate::conformance_suite!(@on_one_desktop $factory; typing_in_every_script_is_exact: [$($typing),*]);
        $crate::conformance_suite!(@on_one_desktop $factory; every_other_check_passes_on_one_desktop: [$($other),*]);
    };
    (@tests $factory:expr; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                let _serial = $crate::serial();
                // What the backend logs, at HANDRAIL_LOG's level, shows beside a failure.
                handrail_sandbox::log_to_stderr();
                let mut harness = $factory();
                $crate::checks::$check(&mut harness);
            }
        )*
    };
    (@on_one_desktop $factory:expr; $test:ident: [$($check:ident),* $(,)?]) => {
        #[test]
        fn $test() {
            let _serial = $crate::serial();
            handrail_sandbox::log_to_stderr();
            let mut harness = $factory();
            $crate::run_on_one_desktop(
                &mut harness,
                &[$((stringify!($check), $crate::checks::$check as $crate::Check)),*],
            );
        }
    };
}

/// A check of [`checks`], as [`run_on_one_desktop`] takes it.
pub type Check = fn(&mut dyn Harness);

/// Runs `checks` one after another on `harness`'s one desktop, each to its end whatever the ones
/// before it did, and fails naming every check that failed (each one's own message is printed as
/// it fails). A check's probe closes when the check ends; the next check starts once the desktop
/// lists the same windows as before it and is still, so no check sees another's window. Sharing
/// the desktop is what a person's session is like, and it spares starting one per check.
pub fn run_on_one_desktop(harness: &mut dyn Harness, checks: &[(&str, Check)]) {
    let mut failed = Vec::new();
    for (name, check) in checks {
        let before = window_titles(harness.desktop());
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&mut *harness)));
        let took = started.elapsed();
        match outcome {
            Ok(()) => eprintln!("{}: {name}: ok ({took:.1?})", harness.name()),
            Err(_) => {
                eprintln!("{}: {name}: FAILED ({took:.1?})", harness.name());
                failed.push(name.to_string());
            }
        }
        if let Err(left) = windows_back_to(harness.desktop(), &before) {
            // The checks after it would meet a window not theirs: they run, but this is a failure.
            eprintln!("{}: after {name}, windows stayed open: {left:?}", harness.name());
            failed.push(format!("{name} (left {left:?} open)"));
        }
        wait_until_still(harness.desktop(), harness.name());
    }
    assert!(
        failed.is_empty(),
        "{}: {} of {} checks failed on one desktop: {failed:?} (each one's message is above)",
        harness.name(),
        failed.len(),
        checks.len()
    );
}

/// The titles of the windows the desktop lists, in order.
fn window_titles(desktop: &Desktop) -> Vec<String> {
    let stack = desktop.windows.stack().unwrap_or_default();
    let mut titles: Vec<String> = stack.into_iter().map(|w| w.info.title).collect();
    titles.sort();
    titles
}

/// Waits up to 10 s until the desktop lists exactly the windows `before` names; else the titles of
/// the windows more than those.
fn windows_back_to(desktop: &Desktop, before: &[String]) -> Result<(), Vec<String>> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = window_titles(desktop);
        if now == before {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(now.into_iter().filter(|t| !before.contains(t)).collect());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One check at a time per test binary: each starts its own desktop, and two at once on a 2-core
/// machine would only make both slower and their timing less like a real desktop's.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits until the screen has not changed for 300 ms and nothing on it counts as animating, up to
/// 10 s (then panics, naming `harness`): what an agent's observation gives before it acts, so input
/// goes to windows the compositor already shows.
pub fn wait_until_still(desktop: &Desktop, harness: &str) {
    let quiet = SettleRequest { response_window: Duration::from_millis(300), ..SettleRequest::default() };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let report = desktop.settle.watch().expect("watch").wait(&quiet).expect("quiet");
        if report.settled && !report.saw_change && report.ignored.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "{harness}: the desktop never went still: {report:?}");
    }
}
