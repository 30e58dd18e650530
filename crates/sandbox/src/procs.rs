//! Process plumbing: finding marked processes in /proc, signalling, bounded waits without fixed sleeps,
//! pipes, and the `pre_exec` hook that ties direct children to their parent.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Name of the environment variable every process started in a sandbox carries.
pub const MARKER_VAR: &str = "HANDRAIL_SANDBOX";

/// Poll interval for conditions that have no event to wait on (a process that is not our child going
/// away, a D-Bus name appearing). Short, and always under a deadline.
pub(crate) const POLL: Duration = Duration::from_millis(5);

/// PIDs of live (non-zombie) processes whose environment contains `HANDRAIL_SANDBOX=<id>`, or whose
/// command line names a path inside the sandbox's private root. The second catches programs that
/// overwrite their environment block with their own data (Chromium's browser process reuses that
/// memory for its rewritten command line) but were started with a profile or file inside the sandbox.
///
/// Processes of other users whose environment cannot be read are skipped; so is the calling process.
pub fn marked_processes(id: &str) -> Vec<u32> {
    let needle = format!("{MARKER_VAR}={id}");
    let root_name = format!("handrail-sandbox-{id}/");
    let me = std::process::id();
    let Ok(dir) = fs::read_dir("/proc") else { return Vec::new() };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if pid != me
            && (has_marker(pid, needle.as_bytes()) || cmdline_mentions(pid, root_name.as_bytes()))
            && is_alive(pid)
        {
            out.push(pid);
        }
    }
    out.sort_unstable();
    out
}

/// Whether /proc/<pid>/environ holds exactly the entry `needle`.
pub(crate) fn has_marker(pid: u32, needle: &[u8]) -> bool {
    match fs::read(format!("/proc/{pid}/environ")) {
        Ok(env) => env.split(|b| *b == 0).any(|entry| entry == needle),
        Err(_) => false,
    }
}

/// Whether /proc/<pid>/cmdline contains `needle` anywhere.
fn cmdline_mentions(pid: u32, needle: &[u8]) -> bool {
    match fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(cmdline) => cmdline.windows(needle.len()).any(|w| w == needle),
        Err(_) => false,
    }
}

/// State letter and start time (clock ticks since boot) from /proc/<pid>/stat; None if gone.
fn stat(pid: u32) -> Option<(char, u64)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself contain spaces or ')': fields resume after the
    // last ')'. There, field 0 is the state and field 19 the start time (fields 3 and 22 of proc(5)).
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

/// Exists and is not a zombie (a zombie holds no resources; it only waits for its parent to reap it).
/// A process in the middle of exiting (state D, memory already released) still counts as alive.
pub(crate) fn is_alive(pid: u32) -> bool {
    identity(pid).is_some()
}

/// The start time of a live (non-zombie) process: together with the PID it identifies the process,
/// so a recycled PID is never mistaken for one we are stopping.
pub(crate) fn identity(pid: u32) -> Option<u64> {
    match stat(pid)? {
        ('Z' | 'X', _) => None,
        (_, start) => Some(start),
    }
}

/// Send `sig` to `pid`; false if it no longer exists.
pub(crate) fn send_signal(pid: u32, sig: libc::c_int) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        // Never signal a process group or "everyone" by accident.
        return false;
    }
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// A pipe whose ends are both close-on-exec, so no child inherits them unless we pass one on purpose.
pub(crate) fn cloexec_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two fds into the array we own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// poll(2) for readability on `fds` for at most `timeout`; returns which are readable (or hung up).
pub(crate) fn poll_readable(fds: &[RawFd], timeout: Duration) -> io::Result<Vec<bool>> {
    let mut pfds: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    // Round sub-millisecond remainders up so a short deadline never turns into a busy loop.
    let ms = if ms == 0 && !timeout.is_zero() { 1 } else { ms };
    // SAFETY: pfds is a valid array of pollfd of the given length.
    let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ms) };
    if n >= 0 {
        return Ok(pfds.iter().map(|p| p.revents != 0).collect());
    }
    let err = io::Error::last_os_error();
    if err.kind() == io::ErrorKind::Interrupted {
        // A signal handler ran (ours, say): report nothing ready; every caller loops under a deadline.
        return Ok(vec![false; fds.len()]);
    }
    Err(err)
}

/// A pidfd for `pid` (Linux ≥ 5.3): becomes readable when the process exits, so waits need no polling.
pub(crate) fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    // SAFETY: the syscall takes two integers and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: a fresh fd returned by the kernel, owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Wait for `child` to exit until `deadline`; None on timeout. Uses a pidfd where available.
pub(crate) fn wait_deadline(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    let pidfd = pidfd_open(child.id());
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(Some(st));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        let left = deadline - now;
        match &pidfd {
            Some(fd) => {
                poll_readable(&[fd.as_raw_fd()], left)?;
            }
            None => std::thread::sleep(left.min(POLL)),
        }
    }
}

/// Output of a short helper command run under a deadline.
pub(crate) struct Helper {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Run a short helper (`dbus-send`, `xsetroot`, …) to completion, killing it at `deadline`.
/// Ok(None) means it timed out. Output is expected to be small (well under a pipe buffer).
pub(crate) fn run_helper(cmd: &mut Command, deadline: Instant) -> io::Result<Option<Helper>> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let Some(status) = wait_deadline(&mut child, deadline)? else {
        let _ = child.kill();
        let _ = child.wait();
        return Ok(None);
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut o) = child.stdout.take() {
        let mut buf = Vec::new();
        let _ = o.read_to_end(&mut buf);
        stdout = String::from_utf8_lossy(&buf).into_owned();
    }
    if let Some(mut e) = child.stderr.take() {
        let mut buf = Vec::new();
        let _ = e.read_to_end(&mut buf);
        stderr = String::from_utf8_lossy(&buf).into_owned();
    }
    Ok(Some(Helper { status, stdout, stderr }))
}

/// Outcome of [`LineReader::read_line`].
pub(crate) enum Line {
    Text(String),
    Eof,
    Timeout,
}

/// Reads newline-terminated lines from a pipe with a deadline (poll + read, no threads).
pub(crate) struct LineReader<R: Read + AsRawFd> {
    inner: R,
    buf: Vec<u8>,
    eof: bool,
}

impl<R: Read + AsRawFd> LineReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        LineReader { inner, buf: Vec::new(), eof: false }
    }

    pub(crate) fn read_line(&mut self, deadline: Instant) -> io::Result<Line> {
        loop {
            if let Some(i) = self.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                return Ok(Line::Text(String::from_utf8_lossy(&line).trim_end().to_owned()));
            }
            if self.eof {
                if self.buf.is_empty() {
                    return Ok(Line::Eof);
                }
                let rest = std::mem::take(&mut self.buf);
                return Ok(Line::Text(String::from_utf8_lossy(&rest).trim_end().to_owned()));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(Line::Timeout);
            }
            if !poll_readable(&[self.inner.as_raw_fd()], deadline - now)?[0] {
                continue;
            }
            let mut chunk = [0u8; 512];
            match self.inner.read(&mut chunk) {
                Ok(0) => self.eof = true,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted || e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Make `cmd` receive SIGTERM when the thread that spawns it dies (PR_SET_PDEATHSIG).
pub(crate) fn tie_to_parent(cmd: &mut Command, death_signal: bool) {
    if !death_signal {
        return;
    }
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY (of the closure): it runs in the forked child before exec, where only async-signal-safe
    // calls are allowed. It calls only prctl and getppid (plain syscalls), takes no locks, allocates
    // nothing (io::Error from a raw OS code does not allocate) and captures only a Copy integer.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl; then no signal would ever come.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// The last ~1.5 KB of a log file, as text (for error messages).
pub(crate) fn tail_file(path: &Path) -> String {
    let Ok(bytes) = fs::read(path) else { return String::new() };
    tail_bytes(&bytes)
}

pub(crate) fn tail_bytes(bytes: &[u8]) -> String {
    const MAX: usize = 1500;
    let start = bytes.len().saturating_sub(MAX);
    let text = String::from_utf8_lossy(&bytes[start..]);
    let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
    let keep = lines.len().saturating_sub(12);
    lines[keep..].join(" | ")
}

/// Find `program` on PATH (or as given, if it contains a slash).
pub(crate) fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return is_executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsStr::new("/usr/local/bin:/usr/bin:/bin").into());
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| is_executable(p))
}

pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_last_lines() {
        let text: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let t = tail_bytes(text.as_bytes());
        assert!(t.starts_with("line 28"), "{t}");
        assert!(t.ends_with("line 39"), "{t}");
    }

    #[test]
    fn own_state_is_alive() {
        assert!(is_alive(std::process::id()));
        assert!(!send_signal(0, 0), "pid 0 must never be signalled");
    }

    #[test]
    fn which_finds_sh() {
        assert!(which("sh").is_some());
        assert!(which("definitely-not-a-program-handrail").is_none());
    }
}
