//! X display bookkeeping: choosing a free display number, checking that a server really answers, and
//! removing the lock and socket a killed server leaves behind.

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::procs::is_alive;

/// The first display number considered when none is given (well away from :0/:1 of real sessions and
/// from the :99 that many CI scripts hard-code… which is still allowed if free).
pub const FIRST_AUTO_DISPLAY: u32 = 90;
/// Highest display number tried automatically.
pub const LAST_AUTO_DISPLAY: u32 = 999;

pub(crate) fn socket_path(n: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X11-unix/X{n}"))
}

pub(crate) fn lock_path(n: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X{n}-lock"))
}

/// Neither socket nor lock file exists. (The X server itself takes the lock atomically, so a race
/// with another starter is detected when Xvfb refuses, and the caller moves on.)
pub(crate) fn looks_free(n: u32) -> bool {
    !socket_path(n).exists() && !lock_path(n).exists()
}

/// The first free display number ≥ `from`.
pub(crate) fn pick_free(from: u32) -> Option<u32> {
    (from..=LAST_AUTO_DISPLAY).find(|&n| looks_free(n))
}

/// PID recorded in /tmp/.XN-lock, if the file exists and parses.
pub(crate) fn lock_pid(n: u32) -> Option<u32> {
    let text = fs::read_to_string(lock_path(n)).ok()?;
    text.trim().parse().ok()
}

/// Connect to the display's socket and perform the X11 connection setup; true when the server
/// accepts us. This proves the server is serving clients, not merely that a socket file exists.
pub(crate) fn handshake(n: u32, deadline: Instant) -> io::Result<bool> {
    let mut s = UnixStream::connect(socket_path(n))?;
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(50));
    s.set_read_timeout(Some(left))?;
    s.set_write_timeout(Some(left))?;
    // Little-endian setup request, protocol 11.0, no authorisation (Xvfb without -auth accepts local
    // clients).
    s.write_all(&[b'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0])?;
    let mut status = [0u8; 1];
    s.read_exact(&mut status)?;
    // 1 = Success, 0 = Failed, 2 = Authenticate.
    Ok(status[0] == 1)
}

/// Remove the lock and socket of display `n` if the server that owned them is gone. Only files whose
/// lock names a dead process (or `ours`, which the caller knows is dead) are touched, so another live
/// server is never disturbed. Returns true if something was removed.
pub(crate) fn remove_stale(n: u32, ours: Option<u32>) -> bool {
    let mut removed = false;
    match lock_pid(n) {
        Some(pid) if Some(pid) == ours || !is_alive(pid) => {
            removed |= fs::remove_file(lock_path(n)).is_ok();
            removed |= fs::remove_file(socket_path(n)).is_ok();
        }
        Some(_) => {}
        None => {
            // No (readable) lock: a leftover socket nobody listens on is stale.
            let sock = socket_path(n);
            if sock.exists() && lock_path(n).symlink_metadata().is_err() {
                let refused = matches!(UnixStream::connect(&sock),
                    Err(e) if e.kind() == io::ErrorKind::ConnectionRefused);
                if refused {
                    removed |= fs::remove_file(&sock).is_ok();
                }
            }
        }
    }
    removed
}
