//! Noticing, from any thread, that the desktop went away underneath its owner: one of the sandbox's
//! own processes (the X server or compositor, the session bus, the accessibility bus launcher, the
//! window manager) exited while the sandbox was meant to be running.
//!
//! An [`ExitWatch`] holds a pidfd for each of them and waits on all at once. It never reaps anything
//! (the exit status is read with `WNOWAIT`), so teardown still finds and reaps its children; and it
//! goes quiet as soon as teardown begins, when exits are expected rather than news.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

use crate::procs::{pidfd_open, poll_readable};

/// One of the sandbox's own processes exited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exited {
    /// The program, as the sandbox started it (`Xvfb`, `dbus-daemon`, `at-spi-bus-launcher`,
    /// `openbox`, `sway`).
    pub process: &'static str,
    pub pid: u32,
    /// How it ended, e.g. `killed by signal 9` or `exit status 1` (empty when the kernel would not say).
    pub how: String,
}

impl Exited {
    /// What the process was to the desktop, in words.
    pub fn role(&self) -> &'static str {
        match self.process {
            "Xvfb" => "X server",
            "sway" => "compositor",
            "dbus-daemon" => "session bus",
            "at-spi-bus-launcher" => "accessibility bus",
            "openbox" => "window manager",
            other => other,
        }
    }

    /// Without this process nothing can be shown or sent: the desktop itself is gone.
    pub fn desktop_gone(&self) -> bool {
        matches!(self.process, "Xvfb" | "sway")
    }
}

/// Waits for the sandbox's own processes to exit; see [`crate::Sandbox::exit_watch`].
///
/// What a watch promises, whatever the threads' timing:
/// - It covers the sandbox's processes that were running when it was taken. One that had already
///   exited is not covered (the sandbox's [`check`](crate::Sandbox::check) says so instead).
/// - Every exit among them before the sandbox's stop begins is reported by [`ExitWatch::wait`] exactly
///   once, however late `wait` is called: an exit is news until it has been read.
/// - Once the stop has begun, `wait` returns `None` and keeps returning it, even for exits that were
///   never read: the stop's own exits, and any earlier one, are no longer news to the owner that
///   chose to stop. A `wait` blocked when the stop begins returns `None` too.
///
/// So a watch taken before an exit and read before [`stop`](crate::Sandbox::stop) reports it; read
/// after the stop has begun, it does not. Which happened first is decided by the caller's own order
/// of calls, never by a race inside the watch.
#[derive(Debug)]
pub struct ExitWatch {
    watched: Vec<(&'static str, u32, OwnedFd)>,
    /// Hangs up when the sandbox begins its teardown (its write end lives in the sandbox).
    stopping: OwnedFd,
}

impl ExitWatch {
    pub(crate) fn new(processes: &[(&'static str, u32)], stopping: OwnedFd) -> ExitWatch {
        let watched = processes.iter().filter_map(|&(name, pid)| pidfd_open(pid).map(|fd| (name, pid, fd))).collect();
        ExitWatch { watched, stopping }
    }

    /// Blocks until one of the watched processes exits and says which; `None` once the sandbox is
    /// being stopped (or nothing is left to watch). Call it again to wait for the next one.
    pub fn wait(&mut self) -> Option<Exited> {
        loop {
            if self.watched.is_empty() {
                return None;
            }
            let mut fds = vec![self.stopping.as_raw_fd()];
            fds.extend(self.watched.iter().map(|(_, _, fd)| fd.as_raw_fd()));
            // No deadline is needed: every wake-up is an event. The hour only bounds each poll.
            let ready = poll_readable(&fds, Duration::from_secs(3600)).ok()?;
            // The stop is checked first: when it has begun, exits that are ready beside it are not news.
            if ready[0] {
                return None;
            }
            if let Some(i) = ready[1..].iter().position(|r| *r) {
                let (process, pid, fd) = self.watched.remove(i);
                return Some(Exited { process, pid, how: exit_status(&fd) });
            }
        }
    }
}

/// How the process behind `pidfd` ended, read without reaping it.
fn exit_status(pidfd: &OwnedFd) -> String {
    // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid on a pidfd we own, writing into our local siginfo_t. WNOWAIT leaves the child
    // waitable, so its parent still reaps it; for a process that is not our child it fails (ECHILD).
    let r = unsafe {
        libc::waitid(libc::P_PIDFD, pidfd.as_raw_fd() as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT)
    };
    if r != 0 {
        return String::new();
    }
    // SAFETY: waitid succeeded with WEXITED, so the SIGCHLD fields are filled in.
    let status = unsafe { info.si_status() };
    match info.si_code {
        libc::CLD_EXITED => format!("exit status {status}"),
        libc::CLD_KILLED | libc::CLD_DUMPED => format!("killed by signal {status}"),
        _ => String::new(),
    }
}
