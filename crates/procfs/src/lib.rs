//! The files a terminal's shell sees, read from Linux's `/proc`.
//!
//! A command such as `echo hi > notes.txt` destroys something only if `notes.txt` exists where the
//! shell would write it. [`ProcShellFiles`] answers that for the shell behind a terminal window:
//!
//! 1. **Which shell.** The window's process (from the window system) is the terminal emulator. Of
//!    its descendants, those with a controlling terminal name that terminal's foreground process
//!    group; its leader is the program the next typed line goes to. Only a shell there
//!    (`bash`, `zsh`, `sh`, `fish`, …) resolves paths locally: `ssh`, `sudo`, a REPL or a running
//!    program in the foreground, or a terminal with several tabs whose shells disagree, make every
//!    answer [`FileState::Unknown`].
//! 2. **Where.** Relative paths are resolved through `/proc/PID/cwd`, absolute ones through
//!    `/proc/PID/root` (so a shell in another mount namespace or chroot is answered for its own
//!    files), `~` and `~/…` through the `HOME` of the shell's environment.
//! 3. **What is there.** A directory counts as absent (a write to its path fails, replacing nothing),
//!    as does a dangling symbolic link (the write creates its target). Anything the kernel will not
//!    tell (permissions, a vanished process) is unknown.
//!
//! The engine judges an unknown file as if it existed, so every shortcut here errs towards asking.
#![cfg(target_os = "linux")]

mod idle;
mod procs;
mod stat;

use std::fs;
use std::io::ErrorKind;
use std::path::PathBuf;

use handrail_platform::{FileState, ShellFiles};

pub use idle::{wait_until_idle, Idle, IdleRule, IDLE_LOOK_EVERY, TRUSTED_GAP};
pub use procs::{foreground_shell, Shell};

/// [`ShellFiles`] from `/proc`, for terminal windows whose processes run on this machine.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcShellFiles;

impl ShellFiles for ProcShellFiles {
    fn file_states(&self, terminal_pid: u32, paths: &[String]) -> Vec<FileState> {
        match foreground_shell(terminal_pid) {
            Some(shell) => paths.iter().map(|p| shell.file_state(p)).collect(),
            None => {
                log::debug!("no shell in the foreground of the terminal of pid {terminal_pid}");
                vec![FileState::Unknown; paths.len()]
            }
        }
    }
}

impl Shell {
    /// Whether `path`, as the shell would resolve it, holds something a write would replace.
    pub fn file_state(&self, path: &str) -> FileState {
        match self.resolve(path) {
            Some(full) => state_at(&full),
            None => FileState::Unknown,
        }
    }

    /// The path through `/proc/PID/…` that reaches what the shell would reach; None for anything
    /// that needs expanding.
    fn resolve(&self, path: &str) -> Option<PathBuf> {
        if path.is_empty() || path.contains(['$', '`', '*', '?', '[', '{']) {
            return None;
        }
        let proc_dir = PathBuf::from(format!("/proc/{}", self.pid));
        let home_relative = |rest: &str| {
            let home = self.home.as_deref()?;
            let mut p = proc_dir.join("root");
            p.push(home.trim_start_matches('/'));
            p.push(rest.trim_start_matches('/'));
            Some(p)
        };
        if path == "~" {
            home_relative("")
        } else if let Some(rest) = path.strip_prefix("~/") {
            home_relative(rest)
        } else if path.starts_with('~') {
            None
        } else if let Some(abs) = path.strip_prefix('/') {
            Some(proc_dir.join("root").join(abs))
        } else {
            Some(proc_dir.join("cwd").join(path))
        }
    }
}

fn state_at(full: &std::path::Path) -> FileState {
    match fs::metadata(full) {
        Ok(m) if m.is_dir() => FileState::Absent,
        Ok(_) => FileState::Existing,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            // A dangling link: the write creates its target, replacing nothing.
            match fs::symlink_metadata(full) {
                Ok(_) => FileState::Absent,
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => FileState::Absent,
                Err(_) => FileState::Unknown,
            }
        }
        Err(_) => FileState::Unknown,
    }
}
