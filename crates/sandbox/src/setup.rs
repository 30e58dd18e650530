//! A harness's hands inside the sandbox, beside the agent's: files put into and read out of its
//! private home, and commands run in its session (its display, buses and home), for setting a task up
//! and checking its outcome.
//!
//! Paths are relative to the home and stay inside it: no absolute paths, no `..`, and no symbolic link
//! is followed on the way (an app of the last task could have left one pointing anywhere).

use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::sandbox::put_env;

/// Bytes of a path given relative to the home, at most.
const MAX_PATH_BYTES: usize = 1024;
/// Bytes of each output stream a finished command answers with, at most.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// How long output is still collected after the command ended, from what it left running.
const OUTPUT_GRACE: Duration = Duration::from_millis(100);

/// Why a set-up request was not carried out. Nothing was changed unless the variant says so.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    BadPath(String),
    #[error("{0} does not exist in the home")]
    NotFound(String),
    #[error("{path} is {size} bytes, over the {max}-byte limit")]
    TooLarge { path: String, size: u64, max: u64 },
    #[error("the command is empty")]
    EmptyCommand,
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> SetupError {
    let what = what.into();
    move |source| SetupError::Io { what, source }
}

/// How a command run inside the sandbox ended (or that it goes on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    pub pid: u32,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did (SIGKILL after a timeout included).
    pub signal: Option<i32>,
    /// It ran past its time and was killed with everything it started.
    pub timed_out: bool,
    /// Not waited for: it runs on as one of the sandbox's apps (a reset closes it).
    pub running: bool,
    /// The start of its standard output and error (lossy UTF-8), when it was waited for.
    pub stdout: String,
    pub stderr: String,
    /// An output stream was longer than [`MAX_OUTPUT_BYTES`] and was cut.
    pub truncated: bool,
    pub duration: Duration,
}

/// A handle on a sandbox for a harness: cheap to clone, usable from any thread while the sandbox runs.
#[derive(Debug, Clone)]
pub struct TaskSetup {
    home: PathBuf,
    env: Vec<(String, String)>,
}

impl TaskSetup {
    pub(crate) fn new(home: PathBuf, env: Vec<(String, String)>) -> Self {
        Self { home, env }
    }

    /// The private home every path is relative to.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Writes `bytes` to `relative` under the home (replacing a file there), creating the folders on
    /// the way; returns the file's absolute path.
    pub fn put_file(&self, relative: &str, bytes: &[u8]) -> Result<PathBuf, SetupError> {
        let parts = confined(relative)?;
        let (name, folders) = parts.split_last().ok_or_else(|| SetupError::BadPath("the path is empty".into()))?;
        let mut dir = self.home.clone();
        for folder in folders {
            dir.push(folder);
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return Err(SetupError::BadPath(format!("{} is not a folder", shown(&dir, &self.home)))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::create_dir(&dir).map_err(io_error(format!("creating {}", shown(&dir, &self.home))))?
                }
                Err(e) => return Err(io_error(format!("looking at {}", shown(&dir, &self.home)))(e)),
            }
        }
        let path = dir.join(name);
        // O_NOFOLLOW: a symbolic link where the file goes is refused, not written through.
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o644)
            .open(&path)
            .map_err(|e| refused_link(e, &path, &self.home))?;
        file.write_all(bytes).map_err(io_error(format!("writing {}", shown(&path, &self.home))))?;
        Ok(path)
    }

    /// Reads the file at `relative` under the home, if it is at most `max` bytes.
    pub fn get_file(&self, relative: &str, max: u64) -> Result<Vec<u8>, SetupError> {
        let parts = confined(relative)?;
        let mut path = self.home.clone();
        for (i, part) in parts.iter().enumerate() {
            path.push(part);
            let meta = fs::symlink_metadata(&path).map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => SetupError::NotFound(relative.to_owned()),
                _ => io_error(format!("looking at {}", shown(&path, &self.home)))(e),
            })?;
            let last = i + 1 == parts.len();
            if meta.file_type().is_symlink() {
                return Err(SetupError::BadPath(format!("{} is a symbolic link", shown(&path, &self.home))));
            }
            if last && !meta.is_file() {
                return Err(SetupError::BadPath(format!("{} is not a file", shown(&path, &self.home))));
            }
        }
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| refused_link(e, &path, &self.home))?;
        let size = file.metadata().map_err(io_error(format!("looking at {}", shown(&path, &self.home))))?.len();
        if size > max {
            return Err(SetupError::TooLarge { path: relative.to_owned(), size, max });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        // Bounded even if the file grows while it is read.
        file.take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(io_error(format!("reading {}", shown(&path, &self.home))))?;
        if bytes.len() as u64 > max {
            return Err(SetupError::TooLarge { path: relative.to_owned(), size: bytes.len() as u64, max });
        }
        Ok(bytes)
    }

    /// A command that runs in the sandbox's session, in its home. Unlike [`Sandbox::command`] it is
    /// not tied to its parent's death signal: that follows the spawning thread, and these are spawned
    /// from threads that come and go; the marker in the environment still ends it with the sandbox.
    ///
    /// [`Sandbox::command`]: crate::Sandbox::command
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        put_env(&mut cmd, &self.env);
        cmd.current_dir(&self.home);
        cmd
    }

    /// The same hands, with `dir` searched first for programs (a harness's own interpreters and
    /// tools, say).
    pub fn with_path_first(&self, dir: &Path) -> TaskSetup {
        let mut env: Vec<(String, String)> = self.env.iter().filter(|(k, _)| k != "PATH").cloned().collect();
        let rest = self
            .env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var("PATH").ok())
            .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".to_string());
        env.push(("PATH".to_string(), format!("{}:{rest}", dir.display())));
        TaskSetup { home: self.home.clone(), env }
    }

    /// [`TaskSetup::run`] in `cwd` (which must be inside the home) instead of the home itself.
    pub fn run_in(&self, argv: &[String], wait: Option<Duration>, cwd: &Path) -> Result<RunOutcome, SetupError> {
        if !cwd.starts_with(&self.home) {
            return Err(SetupError::BadPath(format!("{} is outside the home", cwd.display())));
        }
        self.run_from(argv, wait, cwd)
    }

    /// Runs `argv` in the sandbox. With `wait`, waits at most that long for it to exit (then kills it
    /// and what it started: it runs in a process group of its own) and answers with its output; what
    /// it started in the background and left running when it exited in time runs on. Without `wait`,
    /// answers once it started and leaves it running. Either way what runs on is one of the sandbox's
    /// apps: a reset closes it.
    pub fn run(&self, argv: &[String], wait: Option<Duration>) -> Result<RunOutcome, SetupError> {
        self.run_from(argv, wait, &self.home)
    }

    /// Starts `argv` in the sandbox and leaves it running, as [`TaskSetup::run`] without a wait does,
    /// but answers only once it has exited or `grace` has passed: a command that ends at once (`pkill
    /// vlc` before a task starts VLC again) has then ended before the caller's next step.
    pub fn start(&self, argv: &[String], grace: Duration) -> Result<RunOutcome, SetupError> {
        self.start_from(argv, grace, &self.home)
    }

    fn start_from(&self, argv: &[String], grace: Duration, cwd: &Path) -> Result<RunOutcome, SetupError> {
        let (mut cmd, program) = self.prepared(argv, cwd)?;
        let t0 = Instant::now();
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io_error(format!("starting {program:?}")))?;
        let pid = child.id();
        let ended = if grace.is_zero() {
            None
        } else {
            crate::procs::wait_deadline(&mut child, t0 + grace).map_err(io_error(format!("waiting for {program:?}")))?
        };
        if ended.is_none() {
            // Reaped on a thread: an app left running must not stay a zombie after it exits.
            thread::spawn(move || {
                let mut child = child;
                let _ = child.wait();
            });
        }
        Ok(RunOutcome {
            pid,
            exit_code: ended.and_then(|s| s.code()),
            signal: ended.and_then(|s| s.signal()),
            timed_out: false,
            running: ended.is_none(),
            stdout: String::new(),
            stderr: String::new(),
            truncated: false,
            duration: t0.elapsed(),
        })
    }

    /// The command for `argv` in the sandbox, run in `cwd` in a process group of its own; and its
    /// program's name, for messages.
    fn prepared<'a>(&self, argv: &'a [String], cwd: &Path) -> Result<(Command, &'a str), SetupError> {
        let (program, args) = argv.split_first().ok_or(SetupError::EmptyCommand)?;
        if program.is_empty() {
            return Err(SetupError::EmptyCommand);
        }
        let mut cmd = self.command(program);
        cmd.args(args).current_dir(cwd).stdin(Stdio::null()).process_group(0);
        Ok((cmd, program))
    }

    fn run_from(&self, argv: &[String], wait: Option<Duration>, cwd: &Path) -> Result<RunOutcome, SetupError> {
        let Some(limit) = wait else {
            return self.start_from(argv, Duration::ZERO, cwd);
        };
        let (mut cmd, program) = self.prepared(argv, cwd)?;
        let t0 = Instant::now();
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io_error(format!("starting {program:?}")))?;
        let pid = child.id();
        let stdout = Captured::start(child.stdout.take());
        let stderr = Captured::start(child.stderr.take());
        let deadline = t0 + limit;
        let mut timed_out = false;
        let status = loop {
            match child.try_wait().map_err(io_error(format!("waiting for {program:?}")))? {
                Some(status) => break status,
                None if Instant::now() >= deadline => {
                    timed_out = true;
                    kill_group(pid);
                    break child.wait().map_err(io_error(format!("waiting for {program:?}")))?;
                }
                None => thread::sleep(Duration::from_millis(5).min(deadline.saturating_duration_since(Instant::now()))),
            }
        };
        // What it started in the background (`app &`) keeps running, as a set-up step may want, and
        // may hold the pipes open: its output is what arrived by the time the command ended, plus a
        // moment.
        let until = Instant::now() + OUTPUT_GRACE;
        let (stdout, cut_out) = stdout.finish(until);
        let (stderr, cut_err) = stderr.finish(until);
        Ok(RunOutcome {
            pid,
            exit_code: status.code(),
            signal: status.signal(),
            timed_out,
            running: false,
            stdout,
            stderr,
            truncated: cut_out || cut_err,
            duration: t0.elapsed(),
        })
    }
}

/// A stream read to its end on a thread of its own, the first [`MAX_OUTPUT_BYTES`] kept.
struct Captured {
    kept: Arc<Mutex<(Vec<u8>, bool)>>,
    done: mpsc::Receiver<()>,
}

impl Captured {
    fn start(stream: Option<impl Read + Send + 'static>) -> Captured {
        let kept = Arc::new(Mutex::new((Vec::new(), false)));
        let (tx, done) = mpsc::channel();
        if let Some(mut stream) = stream {
            let shared = kept.clone();
            thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n @ 1..) = stream.read(&mut buf) {
                    let mut kept = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    let room = MAX_OUTPUT_BYTES - kept.0.len();
                    kept.0.extend_from_slice(&buf[..n.min(room)]);
                    kept.1 |= n > room;
                }
                let _ = tx.send(());
            });
        }
        Captured { kept, done }
    }

    /// What was read once the stream ended, or by `until`; and whether it was cut.
    fn finish(self, until: Instant) -> (String, bool) {
        let _ = self.done.recv_timeout(until.saturating_duration_since(Instant::now()));
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        (String::from_utf8_lossy(&kept.0).into_owned(), kept.1)
    }
}

fn kill_group(pid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names the process group the
        // child leads (it was started with process_group(0)).
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

/// The path's parts, each a plain name: relative, no `.`/`..`, no empty parts, no NUL.
fn confined(relative: &str) -> Result<Vec<&OsStr>, SetupError> {
    if relative.is_empty() {
        return Err(SetupError::BadPath("the path is empty".into()));
    }
    if relative.len() > MAX_PATH_BYTES {
        return Err(SetupError::BadPath(format!("the path is over {MAX_PATH_BYTES} bytes")));
    }
    if relative.contains('\0') {
        return Err(SetupError::BadPath("the path holds a NUL byte".into()));
    }
    let path = Path::new(relative);
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => parts.push(name),
            Component::RootDir | Component::Prefix(_) => {
                return Err(SetupError::BadPath(format!("{relative:?} is absolute; paths are relative to the home")))
            }
            Component::ParentDir => return Err(SetupError::BadPath(format!("{relative:?} leaves the home (..)"))),
            Component::CurDir => {}
        }
    }
    if parts.is_empty() || relative.ends_with('/') {
        return Err(SetupError::BadPath(format!("{relative:?} names no file")));
    }
    Ok(parts)
}

fn shown(path: &Path, home: &Path) -> String {
    path.strip_prefix(home).unwrap_or(path).display().to_string()
}

/// ELOOP from O_NOFOLLOW means the last part is a symbolic link.
fn refused_link(e: io::Error, path: &Path, home: &Path) -> SetupError {
    if e.raw_os_error() == Some(libc::ELOOP) {
        SetupError::BadPath(format!("{} is a symbolic link", shown(path, home)))
    } else {
        io_error(format!("opening {}", shown(path, home)))(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempdir::Dir, TaskSetup) {
        let dir = tempdir::Dir::new();
        let home = dir.path().join("home");
        fs::create_dir(&home).expect("home");
        (dir, TaskSetup::new(home, vec![("HANDRAIL_TEST_VAR".into(), "inside".into())]))
    }

    /// A temporary folder removed when dropped (no extra dependency for one test module).
    mod tempdir {
        use std::path::{Path, PathBuf};

        pub struct Dir(PathBuf);

        impl Dir {
            pub fn new() -> Dir {
                let n = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos());
                let path = std::env::temp_dir().join(format!(
                    "handrail-setup-test-{}-{}",
                    std::process::id(),
                    n.unwrap_or_default()
                ));
                std::fs::create_dir(&path).expect("temp dir");
                Dir(path)
            }

            pub fn path(&self) -> &Path {
                &self.0
            }
        }

        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn files_go_in_and_come_out_whole_with_their_folders() {
        let (_dir, s) = setup();
        let content = "สวัสดี, numbers 1 2 3\n".as_bytes();
        let written = s.put_file("Documents/รายงาน/notes.txt", content).expect("written");
        assert_eq!(written, s.home().join("Documents/รายงาน/notes.txt"));
        assert_eq!(s.get_file("Documents/รายงาน/notes.txt", 1 << 20).expect("read"), content);
        // Replaced, not appended.
        s.put_file("./Documents/รายงาน/notes.txt", b"short").expect("written");
        assert_eq!(s.get_file("Documents/รายงาน/notes.txt", 1 << 20).expect("read"), b"short");
        assert!(matches!(s.get_file("Documents/missing.txt", 10), Err(SetupError::NotFound(_))));
        assert!(matches!(s.get_file("Documents/รายงาน/notes.txt", 3), Err(SetupError::TooLarge { size: 5, .. })));
        assert!(matches!(s.get_file("Documents", 10), Err(SetupError::BadPath(_))));
    }

    #[test]
    fn paths_that_leave_the_home_are_refused_and_write_nothing() {
        let (dir, s) = setup();
        for bad in ["", "/etc/passwd", "../outside.txt", "a/../../outside.txt", "a/", ".", "x\0y"] {
            assert!(matches!(s.put_file(bad, b"x"), Err(SetupError::BadPath(_))), "{bad:?} was accepted");
            assert!(matches!(s.get_file(bad, 10), Err(SetupError::BadPath(_))), "{bad:?} was read");
        }
        assert!(!dir.path().join("outside.txt").exists());
        assert_eq!(fs::read_dir(s.home()).expect("home").count(), 0, "nothing was created in the home");
    }

    #[test]
    fn symbolic_links_are_not_followed_in_or_out() {
        let (dir, s) = setup();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).expect("outside");
        fs::write(outside.join("secret.txt"), b"not for the harness").expect("secret");
        std::os::unix::fs::symlink(&outside, s.home().join("link")).expect("folder link");
        std::os::unix::fs::symlink(outside.join("secret.txt"), s.home().join("file-link")).expect("file link");
        assert!(matches!(s.put_file("link/new.txt", b"x"), Err(SetupError::BadPath(_))));
        assert!(matches!(s.put_file("file-link", b"x"), Err(SetupError::BadPath(_))));
        assert!(matches!(s.get_file("link/secret.txt", 100), Err(SetupError::BadPath(_))));
        assert!(matches!(s.get_file("file-link", 100), Err(SetupError::BadPath(_))));
        assert!(!outside.join("new.txt").exists());
        assert_eq!(fs::read(outside.join("secret.txt")).expect("secret"), b"not for the harness");
    }

    #[test]
    fn commands_run_in_the_home_with_the_sandbox_environment() {
        let (_dir, s) = setup();
        let argv: Vec<String> =
            ["sh", "-c", "pwd; echo $HANDRAIL_TEST_VAR; echo oops >&2; exit 3"].map(String::from).to_vec();
        let out = s.run(&argv, Some(Duration::from_secs(10))).expect("ran");
        let home = fs::canonicalize(s.home()).expect("home");
        assert_eq!(out.stdout, format!("{}\ninside\n", home.display()));
        assert_eq!(out.stderr, "oops\n");
        assert_eq!((out.exit_code, out.signal, out.timed_out, out.running), (Some(3), None, false, false));
        assert!(matches!(s.run(&[], None), Err(SetupError::EmptyCommand)));
        assert!(matches!(
            s.run(&["/no/such/program".into()], Some(Duration::from_secs(1))),
            Err(SetupError::Io { .. })
        ));
    }

    #[test]
    fn a_command_past_its_time_is_killed_with_what_it_started() {
        let (_dir, s) = setup();
        // The shell starts a sleeper in the background that holds stdout open: both must go.
        let argv: Vec<String> = ["sh", "-c", "sleep 30 & echo started; sleep 30"].map(String::from).to_vec();
        let t0 = Instant::now();
        let out = s.run(&argv, Some(Duration::from_millis(300))).expect("ran");
        assert!(t0.elapsed() < Duration::from_secs(5), "the run took {:?}", t0.elapsed());
        assert!(out.timed_out);
        assert_eq!(out.signal, Some(libc::SIGKILL));
        assert_eq!(out.stdout, "started\n");
    }

    #[test]
    fn output_is_cut_at_the_limit_and_said_so() {
        let (_dir, s) = setup();
        let script = format!("head -c {} /dev/zero | tr '\\0' a", MAX_OUTPUT_BYTES + 100);
        let out = s.run(&["sh".into(), "-c".into(), script], Some(Duration::from_secs(10))).expect("ran");
        assert_eq!(out.stdout.len(), MAX_OUTPUT_BYTES);
        assert!(out.truncated);
        assert_eq!(out.exit_code, Some(0));
    }

    #[test]
    fn what_a_command_starts_in_the_background_runs_on_without_holding_the_answer() {
        let (dir, s) = setup();
        let flag = dir.path().join("still-running");
        let script = format!("(sleep 0.5; touch '{}') & echo launched", flag.display());
        let t0 = Instant::now();
        let out = s.run(&["sh".into(), "-c".into(), script], Some(Duration::from_secs(10))).expect("ran");
        assert!(t0.elapsed() < Duration::from_millis(450), "answered after {:?}", t0.elapsed());
        assert_eq!((out.stdout.as_str(), out.exit_code), ("launched\n", Some(0)));
        let deadline = Instant::now() + Duration::from_secs(5);
        while !flag.exists() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        assert!(flag.exists(), "the background job was killed");
    }

    #[test]
    fn a_started_command_that_ends_within_the_grace_has_ended_when_start_answers() {
        let (dir, s) = setup();
        // What it did is done by the answer: the file is there, written by the command itself.
        let done = dir.path().join("done");
        let script = format!("touch '{}'; exit 4", done.display());
        let out = s.start(&["sh".into(), "-c".into(), script], Duration::from_secs(10)).expect("started");
        assert_eq!((out.exit_code, out.running), (Some(4), false));
        assert!(done.exists());
        // One that goes on is left running, and is no zombie once it ends.
        let out = s.start(&["sleep".into(), "0.3".into()], Duration::from_millis(50)).expect("started");
        assert!(out.running && out.exit_code.is_none());
        let deadline = Instant::now() + Duration::from_secs(5);
        while fs::metadata(format!("/proc/{}", out.pid)).is_ok() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        assert!(fs::metadata(format!("/proc/{}", out.pid)).is_err(), "the sleeper was not reaped");
        assert!(matches!(s.start(&[], Duration::ZERO), Err(SetupError::EmptyCommand)));
    }
}
