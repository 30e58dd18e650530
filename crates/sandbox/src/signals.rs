//! SIGINT/SIGTERM/SIGHUP handling with a self-pipe, so Ctrl-C stops a sandbox cleanly instead of
//! killing the owner before teardown (the reaper would clean up then too, but slower and without a report).

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use crate::error::SandboxError;
use crate::procs::{cloexec_pipe, poll_readable, set_nonblocking};

/// The signals a [`SignalWatcher`] catches.
pub const WATCHED_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

// The handler may only touch async-signal-safe state: these atomics and write(2).
static WRITE_FD: AtomicI32 = AtomicI32::new(-1);
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// A signal that arrived while a [`SignalWatcher`] was installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caught {
    /// The signal number (`libc::SIGINT`, …).
    pub signal: i32,
    /// True when another process sent it to us with kill(2) (as opposed to the terminal, which sends
    /// Ctrl-C to the whole foreground process group, children included). Callers forward only these.
    pub sent_by_process: bool,
}

/// While alive, SIGINT, SIGTERM and SIGHUP no longer kill the process; they are queued for
/// [`SignalWatcher::wait_timeout`] / [`SignalWatcher::try_recv`]. Dropping it restores the previous
/// handlers. Only one watcher can exist at a time in a process (signal dispositions are process-wide).
pub struct SignalWatcher {
    read: OwnedFd,
    // Kept open for the handler; closed on drop after the handlers are restored.
    _write: OwnedFd,
    old: Vec<(libc::c_int, libc::sigaction)>,
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: errno is thread-local; saving and restoring it keeps the interrupted code's errno intact.
    let saved = unsafe { *libc::__errno_location() };
    let fd = WRITE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // si_code <= 0 means "sent by a process" (SI_USER = 0, SI_QUEUE, SI_TKILL are negative);
        // SI_KERNEL (the tty driver's Ctrl-C) is positive.
        // SAFETY: the kernel passes a valid siginfo_t because we registered with SA_SIGINFO.
        let by_process = !info.is_null() && unsafe { (*info).si_code } <= 0;
        let msg = [sig as u8, u8::from(by_process)];
        // SAFETY: write(2) is async-signal-safe; the pipe is non-blocking so a full pipe drops the byte
        // (one queued signal is enough to trigger shutdown).
        unsafe { libc::write(fd, msg.as_ptr().cast(), msg.len()) };
    }
    // SAFETY: see above.
    unsafe { *libc::__errno_location() = saved };
}

impl SignalWatcher {
    /// Install handlers for [`WATCHED_SIGNALS`].
    pub fn install() -> Result<SignalWatcher, SandboxError> {
        if ACTIVE.swap(true, Ordering::SeqCst) {
            return Err(SandboxError::Signals("a SignalWatcher is already installed in this process".into()));
        }
        let (read, write) = match cloexec_pipe() {
            Ok(p) => p,
            Err(e) => {
                ACTIVE.store(false, Ordering::SeqCst);
                return Err(SandboxError::io("creating the signal self-pipe", e));
            }
        };
        if let Err(e) = set_nonblocking(read.as_raw_fd()).and_then(|()| set_nonblocking(write.as_raw_fd())) {
            ACTIVE.store(false, Ordering::SeqCst);
            return Err(SandboxError::io("configuring the signal self-pipe", e));
        }
        WRITE_FD.store(write.as_raw_fd(), Ordering::SeqCst);
        let mut watcher = SignalWatcher { read, _write: write, old: Vec::new() };
        for sig in WATCHED_SIGNALS {
            // SAFETY: a zeroed sigaction is a valid starting point; we fill handler, flags and mask.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_signal as *const () as usize;
            // SA_RESTART: other threads' blocking syscalls are not failed with EINTR by our signal.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            // SAFETY: zeroed old action is written by sigaction; pointers are to valid locals.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            unsafe {
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(sig, &action, &mut old) != 0 {
                    let e = std::io::Error::last_os_error();
                    drop(watcher); // restores whatever was installed so far
                    return Err(SandboxError::io(format!("sigaction({sig})"), e));
                }
            }
            watcher.old.push((sig, old));
        }
        Ok(watcher)
    }

    /// The fd that becomes readable when a signal arrives (for callers that poll several things).
    pub fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// A signal that already arrived, without waiting.
    pub fn try_recv(&self) -> Option<Caught> {
        let mut buf = [0u8; 2];
        // SAFETY: reading into a local buffer from our non-blocking pipe.
        let n = unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        (n == 2).then_some(Caught { signal: i32::from(buf[0]), sent_by_process: buf[1] != 0 })
    }

    /// Wait up to `timeout` for a signal.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Caught> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(c) = self.try_recv() {
                return Some(c);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            if poll_readable(&[self.fd()], deadline - now).is_err() {
                return None;
            }
        }
    }
}

impl Drop for SignalWatcher {
    fn drop(&mut self) {
        for (sig, old) in self.old.drain(..) {
            // SAFETY: restoring a sigaction previously returned by the kernel.
            unsafe { libc::sigaction(sig, &old, std::ptr::null_mut()) };
        }
        WRITE_FD.store(-1, Ordering::SeqCst);
        ACTIVE.store(false, Ordering::SeqCst);
    }
}
