//! Pacing a drag by the apps it involves: each phase waits until the compositor and the apps under
//! its two ends have handled what was sent, instead of a fixed pause.
//!
//! On Wayland the app starts a drag itself (`start_drag` with the press's serial) and the drop target
//! accepts it asynchronously; the compositor refuses a drag started after the release and cancels one
//! released before the target accepted. On a busy machine the app reacts late, so a drag sent at
//! typing speed is lost (see docs/RELIABILITY.md). An X server queues the release behind the motion,
//! so X11 needs none of this.
//!
//! The signal is the processes' own: [`handrail_procfs::wait_until_idle`] (every thread asleep and
//! not run for a moment). A socket write wakes its reader at once, so after a motion the chain
//! compositor → app → compositor is idle only once the app has answered and the compositor has taken
//! the answer. Apps whose process is not known (no window geometry from the compositor) fall back to
//! fixed pauses.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::thread::sleep;
use std::time::Duration;

use handrail_platform::{Point, Windows};
use handrail_procfs::{wait_until_idle, Idle, IdleRule};
use log::debug;
use wayland_client::Connection;

/// How long the compositor and the apps must stay idle for a phase to be over: a frame at 60 Hz and a
/// little, since an app may hold input it has read until its next frame.
pub const IDLE_QUIET: Duration = Duration::from_millis(20);
/// An app drawing frame after frame during the drag (GTK does) is never that quiet (it and the
/// compositor wake each ~16 ms): for it, this many runs of its main thread since the phase began
/// (one reads the input, the next frame handles it; one more for a read the compositor's flush
/// delayed), and at least [`IDLE_QUIET`] since the phase began …
pub const IDLE_CYCLES: u64 = 4;
/// … and everyone asleep and unrun this long.
pub const IDLE_BETWEEN_FRAMES: Duration = Duration::from_millis(5);
/// The longest one phase waits for them (an app busy for good, an animation that never stops).
pub const IDLE_CEILING: Duration = Duration::from_millis(2000);
/// Pause after the drag's first motion when the apps are not known. The GTK probe beside four extra
/// busy loops on 2 cores lost 3 of 30 drops with 8 ms steps and a 30 ms pause at the target, 1 of 30
/// with these pauses: fewer, not none.
pub const DRAG_START_DWELL: Duration = Duration::from_millis(200);
/// Pause at a drag's destination before releasing, when the apps are not known.
pub const DROP_DWELL: Duration = Duration::from_millis(200);

/// Which processes show the windows at a drag's two ends, when the compositor says.
pub type AppsAt = Box<dyn Fn(Point, Point) -> (Option<u32>, Option<u32>) + Send + Sync>;

/// The processes of the frontmost windows (not minimised) containing `from` and `to`, from one
/// reading of the stack.
pub fn apps_at(windows: &dyn Windows, from: Point, to: Point) -> (Option<u32>, Option<u32>) {
    let Ok(stack) = windows.stack() else { return (None, None) };
    let at =
        |p: Point| stack.iter().rev().filter(|w| !w.minimized && w.info.bounds.contains(p)).find_map(|w| w.info.pid);
    (at(from), at(to))
}

/// The process at the other end of the compositor connection.
pub fn compositor_pid(conn: &Connection) -> Option<u32> {
    peer_pid(conn.backend().poll_fd())
}

/// The process at the other end of a Unix socket (`SO_PEERCRED`).
fn peer_pid(socket: BorrowedFd<'_>) -> Option<u32> {
    let fd = socket.as_raw_fd();
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `fd` is the connection's open socket, borrowed for this call; `cred` and `len` are
    // valid for writes of the size given.
    let rc = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, libc::SO_PEERCRED, (&raw mut cred).cast(), &raw mut len) };
    u32::try_from(cred.pid).ok().filter(|&pid| rc == 0 && pid > 0)
}

/// The phases of one drag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// After the first motion past the threshold: the source app starts the drag (or decides not to).
    Start,
    /// At the destination: the target app accepts the drag (or not).
    Drop,
}

/// The processes one drag waits on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pace {
    compositor: Option<u32>,
    /// The processes of the windows at the two ends, whose main threads' runs count as frames.
    apps: [Option<u32>; 2],
    /// The source app's processes (its window's and their descendants: a browser's pages run in
    /// child processes); empty when not known.
    source: Vec<u32>,
    /// The target app's processes, likewise.
    target: Vec<u32>,
}

impl Pace {
    /// Pacing by the compositor and the apps of the windows at the drag's two ends.
    pub fn new(compositor: Option<u32>, source: Option<u32>, target: Option<u32>) -> Pace {
        let tree = |app: Option<u32>| -> Vec<u32> {
            app.map(|pid| handrail_launch::process_tree(pid).into_iter().collect()).unwrap_or_default()
        };
        let source_tree = tree(source);
        // Most drags stay in one app: its tree is read from /proc once.
        let target_tree = if target == source { source_tree.clone() } else { tree(target) };
        Pace { compositor, apps: [source, target], source: source_tree, target: target_tree }
    }

    /// Who `phase` waits on: everyone known, when the app that acts in it is; else nobody (a fixed
    /// pause instead).
    fn waits_on(&self, phase: Phase) -> Vec<u32> {
        let acting = match phase {
            Phase::Start => &self.source,
            Phase::Drop => &self.target,
        };
        if acting.is_empty() {
            return Vec::new();
        }
        let mut pids: Vec<u32> =
            self.compositor.into_iter().chain(self.source.iter().copied()).chain(self.target.iter().copied()).collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// Waits out `phase`.
    pub fn wait(&self, phase: Phase) {
        let pids = self.waits_on(phase);
        if pids.is_empty() {
            sleep(match phase {
                Phase::Start => DRAG_START_DWELL,
                Phase::Drop => DROP_DWELL,
            });
            return;
        }
        let acting = match phase {
            Phase::Start => self.apps[0],
            Phase::Drop => self.apps[1],
        };
        let rule = IdleRule {
            quiet: IDLE_QUIET,
            cycling: acting,
            cycles: IDLE_CYCLES,
            brief: IDLE_BETWEEN_FRAMES,
            ceiling: IDLE_CEILING,
        };
        match wait_until_idle(&pids, &rule) {
            Idle::Reached { waited } => debug!("drag {phase:?}: {pids:?} idle after {waited:?}"),
            Idle::StillBusy { waited } => debug!("drag {phase:?}: {pids:?} still busy after {waited:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use handrail_platform::{PlatformError, Rect, StackedWindow, WindowInfo, WindowKind};
    use std::os::fd::AsFd;

    #[test]
    fn the_process_at_the_other_end_of_a_socket_is_found() {
        let (a, _b) = std::os::unix::net::UnixStream::pair().expect("pair");
        assert_eq!(peer_pid(a.as_fd()), Some(std::process::id()));
    }

    struct Stack(Vec<StackedWindow>);

    impl Windows for Stack {
        fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
            Ok(self.0.last().map(|w| w.info.clone()))
        }
        fn launch_app(&self, name: &str) -> Result<handrail_platform::Launched, PlatformError> {
            Err(PlatformError::NotFound(name.into()))
        }
        fn open_url(&self, url: &str) -> Result<handrail_platform::Launched, PlatformError> {
            Err(PlatformError::NotFound(url.into()))
        }
        fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
            Ok(self.0.clone())
        }
        fn activate(&self, _handle: u64) -> Result<(), PlatformError> {
            Ok(())
        }
    }

    fn window(pid: Option<u32>, bounds: Rect, minimized: bool) -> StackedWindow {
        let info = WindowInfo { pid, bounds, ..WindowInfo::default() };
        StackedWindow { handle: 0, info, kind: WindowKind::Normal, minimized, active: false }
    }

    #[test]
    fn the_app_at_a_point_is_the_frontmost_shown_window_that_names_its_process() {
        let stack = Stack(vec![
            window(Some(1), Rect::new(0, 0, 800, 600), false),
            window(Some(2), Rect::new(100, 100, 200, 200), false),
            window(Some(3), Rect::new(100, 100, 50, 50), true),
            window(None, Rect::new(400, 400, 50, 50), false),
        ]);
        let p = Point::new;
        assert_eq!(apps_at(&stack, p(150, 150), p(10, 10)), (Some(2), Some(1)), "over 1, under a minimised 3");
        assert_eq!(
            apps_at(&stack, p(410, 410), p(900, 900)),
            (Some(1), None),
            "a window without a process is passed over"
        );
    }

    fn pace(compositor: Option<u32>, source: &[u32], target: &[u32]) -> Pace {
        Pace {
            compositor,
            apps: [source.first().copied(), target.first().copied()],
            source: source.to_vec(),
            target: target.to_vec(),
        }
    }

    #[test]
    fn each_phase_waits_on_everyone_known_when_its_own_app_is() {
        let both = pace(Some(10), &[30, 31], &[20]);
        assert_eq!(both.waits_on(Phase::Start), vec![10, 20, 30, 31]);
        assert_eq!(both.waits_on(Phase::Drop), vec![10, 20, 30, 31]);
        let one_app = pace(Some(10), &[20], &[20]);
        assert_eq!(one_app.waits_on(Phase::Drop), vec![10, 20]);
        // Dropped where no app is known (the compositor's own background): a fixed pause at the drop.
        let no_target = pace(Some(10), &[20], &[]);
        assert_eq!(no_target.waits_on(Phase::Start), vec![10, 20]);
        assert!(no_target.waits_on(Phase::Drop).is_empty());
        assert!(pace(Some(10), &[], &[]).waits_on(Phase::Start).is_empty());
    }

    #[test]
    fn an_app_is_paced_with_its_child_processes() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().expect("sleep");
        let paced = Pace::new(None, Some(std::process::id()), None);
        let _ = child.kill();
        let _ = child.wait();
        assert!(paced.source.contains(&std::process::id()) && paced.source.contains(&child.id()), "{paced:?}");
        assert!(paced.target.is_empty());
    }
}
