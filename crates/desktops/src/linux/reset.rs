//! The sandbox's part of `POST /reset`: every app closed (their windows with them), windows nobody
//! owns closed through the X server, the selections emptied, the managed browser's profile replaced and
//! what the last task created in the private home removed. The call layer adds the new turn.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use handrail_calls::{Cleaned, DesktopReset, ResetError};
use handrail_platform::{Desktop, WindowKind};
use handrail_sandbox::SandboxProcesses;
use handrail_wire::service::{BrowserProfile, ClipboardState, ClosedApp, ResetTimings};
use handrail_x11::tidy::{OpenWindow, Tidy};

/// How long apps get to exit on SIGTERM before SIGKILL (and again before giving up). Chromium exits
/// in ~0.2 s on two cores; the whole reset stays within a second.
const APP_GRACE: Duration = Duration::from_millis(400);
/// How long the X server may take to drop the windows of the apps just ended: the window manager
/// lets go of them a moment after their client's connection closes (~0.1 s, seconds on a busy machine).
/// Polled: the reset goes on as soon as they are gone.
const ENDED_WINDOWS_WAIT: Duration = Duration::from_secs(3);
/// How long the windows whose client was killed through the X server may take to go (polled too).
const KILL_CLIENT_WAIT: Duration = Duration::from_secs(2);
/// Paths under the home the desktop's own services write (dconf holds the accessibility settings) and
/// caches that only make the next start faster; a reset keeps them.
const HOME_KEPT: &[&str] = &[".config/dconf", ".cache/fontconfig", ".cache/mesa_shader_cache"];
/// Entries of the home remembered at most (a home with more is not snapshotted past this).
const HOME_SNAPSHOT_LIMIT: usize = 20_000;
/// Removed home entries listed in the report at most.
const HOME_LISTED: usize = 50;

/// The X server's open windows once `settled` holds for them, or as they are after `wait`: the
/// window manager lets go of a window a moment after its client is gone.
fn windows_once(
    tidy: &Tidy,
    wait: Duration,
    settled: impl Fn(&[OpenWindow]) -> bool,
) -> Result<Vec<OpenWindow>, handrail_x11::X11Error> {
    let deadline = Instant::now() + wait;
    loop {
        let open = tidy.open_windows()?;
        if settled(&open) || Instant::now() >= deadline {
            return Ok(open);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Resets a sandbox desktop. Built when the sandbox is up, before anything else runs in it, so the
/// home it remembers is the sandbox's own.
pub struct SandboxReset {
    processes: SandboxProcesses,
    browser_profile: PathBuf,
    home: PathBuf,
    /// Entries of the home (relative paths) when the desktop started.
    home_at_start: BTreeSet<PathBuf>,
    /// The X server's part; `None` on Wayland, where windows close with their apps.
    tidy: Option<Tidy>,
    resets: u32,
}

impl SandboxReset {
    pub fn new(processes: SandboxProcesses, browser_profile: PathBuf, home: PathBuf, tidy: Option<Tidy>) -> Self {
        let home_at_start = snapshot(&home);
        Self { processes, browser_profile, home, home_at_start, tidy, resets: 0 }
    }

    /// Closes what is left on the X server: windows whose client is not one of the sandbox's apps.
    /// Windows of the apps just ended (`ended`) are waited for, not reported: the window manager
    /// lets go of them a moment after their client's connection closes. Should one outlast
    /// [`ENDED_WINDOWS_WAIT`], its client is ended through the X server too, and it is still
    /// counted as its app's window (which the report already names), never as a stray one.
    fn close_orphan_windows(&self, ended: &BTreeSet<u32>) -> Result<(Vec<String>, Vec<String>), ResetError> {
        let Some(tidy) = &self.tidy else { return Ok((Vec::new(), Vec::new())) };
        let failed = |e: handrail_x11::X11Error| ResetError::Failed(format!("the X server: {e}"));
        let of_ended = |w: &OpenWindow| w.pid.is_some_and(|p| ended.contains(&p));
        let open = windows_once(tidy, ENDED_WINDOWS_WAIT, |open| !open.iter().any(of_ended)).map_err(failed)?;
        let mut closed = Vec::new();
        for window in &open {
            match tidy.kill_client(window.window) {
                Ok(()) if of_ended(window) => log::warn!(
                    "reset: window {:?} of an ended app was still open after {ENDED_WINDOWS_WAIT:?}; its client was ended",
                    window.title
                ),
                Ok(()) => closed.push(window.title.clone()),
                Err(e) => log::warn!("reset: ending the client of window {:#x}: {e}", window.window),
            }
        }
        let left = windows_once(tidy, KILL_CLIENT_WAIT, |left| left.is_empty()).map_err(failed)?;
        Ok((closed, left.into_iter().map(|w| w.title).collect()))
    }

    fn clipboard(&self) -> ClipboardState {
        match &self.tidy {
            None => ClipboardState::OwnersClosed,
            Some(tidy) => match tidy.empty_selections() {
                Ok(true) => ClipboardState::Empty,
                Ok(false) => ClipboardState::NotEmpty,
                Err(e) => {
                    log::warn!("reset: emptying the selections: {e}");
                    ClipboardState::NotEmpty
                }
            },
        }
    }

    /// Removes the profile (its browser is gone by now); the next browser start creates a new one.
    fn replace_browser_profile(&mut self) -> Result<BrowserProfile, ResetError> {
        if !self.browser_profile.exists() {
            return Ok(BrowserProfile::Fresh);
        }
        // Renamed first, so a browser started right after never sees a half-removed profile.
        self.resets += 1;
        let old = self.browser_profile.with_extension(format!("old-{}", self.resets));
        fs::rename(&self.browser_profile, &old)
            .map_err(|e| ResetError::Failed(format!("moving the browser profile aside: {e}")))?;
        // Removing a used profile (thousands of files) takes longer than the rest of a reset; nothing
        // reads the old one again, and the sandbox's teardown removes it if this has not finished.
        let removal = std::thread::Builder::new().name("old-browser-profile".into()).spawn(move || {
            if let Err(e) = fs::remove_dir_all(&old) {
                log::warn!("reset: removing the old browser profile {}: {e}", old.display());
            }
        });
        if let Err(e) = removal {
            log::warn!("reset: the old browser profile stays until the desktop stops: {e}");
        }
        Ok(BrowserProfile::Replaced)
    }

    /// Removes what was created in the home since the desktop started (files changed in place stay).
    fn restore_home(&self) -> Vec<String> {
        let now = snapshot(&self.home);
        let mut removed: Vec<PathBuf> = Vec::new();
        for path in now.difference(&self.home_at_start) {
            if HOME_KEPT.iter().any(|k| path.starts_with(k)) || removed.iter().any(|r| path.starts_with(r)) {
                continue;
            }
            let full = self.home.join(path);
            let gone = match fs::symlink_metadata(&full) {
                Ok(m) if m.is_dir() => fs::remove_dir_all(&full),
                Ok(_) => fs::remove_file(&full),
                Err(_) => continue,
            };
            match gone {
                Ok(()) => removed.push(path.clone()),
                Err(e) => log::warn!("reset: removing {} from the home: {e}", full.display()),
            }
        }
        let mut listed: Vec<String> = removed.iter().take(HOME_LISTED).map(|p| p.display().to_string()).collect();
        if removed.len() > HOME_LISTED {
            listed.push(format!("… and {} more", removed.len() - HOME_LISTED));
        }
        listed
    }
}

impl DesktopReset for SandboxReset {
    fn clean(&mut self, desktop: &Desktop) -> Result<Cleaned, ResetError> {
        let t0 = Instant::now();
        // The windows about to close, by the process that owns them, to say what closed.
        let mut titles: HashMap<u32, Vec<String>> = HashMap::new();
        match desktop.windows.stack() {
            Ok(stack) => {
                for w in stack.into_iter().filter(|w| w.kind != WindowKind::Popup) {
                    if let Some(pid) = w.info.pid {
                        titles.entry(pid).or_default().push(w.info.title);
                    }
                }
            }
            Err(e) => log::warn!("reset: listing the windows: {e}"),
        }
        let apps = self.processes.close_apps(APP_GRACE);
        let closed: Vec<ClosedApp> = apps
            .closed
            .into_iter()
            .map(|a| ClosedApp {
                windows: titles.remove(&a.pid).unwrap_or_default(),
                pid: a.pid,
                name: a.name,
                forced: a.forced,
            })
            .collect();
        let apps_left = apps.left.iter().map(|a| format!("{} ({})", a.name, a.pid)).collect();
        let t_display = Instant::now();
        let ended: BTreeSet<u32> = closed.iter().map(|c| c.pid).collect();
        let (windows_closed, windows_left) = self.close_orphan_windows(&ended)?;
        let clipboard = self.clipboard();
        let t_profile = Instant::now();
        let browser_profile = self.replace_browser_profile()?;
        let t_home = Instant::now();
        let home_removed = self.restore_home();
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let timings = ResetTimings {
            close_apps: ms(t_display - t0),
            display: ms(t_profile - t_display),
            browser_profile: ms(t_home - t_profile),
            home: ms(t_home.elapsed()),
            ..ResetTimings::default()
        };
        Ok(Cleaned {
            closed,
            windows_closed,
            windows_left,
            apps_left,
            browser_profile,
            clipboard,
            home_removed,
            timings,
        })
    }
}

/// Every path under `root`, relative to it, without following links; stops at a bound.
fn snapshot(root: &Path) -> BTreeSet<PathBuf> {
    let mut seen = BTreeSet::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(root.join(&dir)) else { continue };
        for entry in entries.flatten() {
            if seen.len() >= HOME_SNAPSHOT_LIMIT {
                return seen;
            }
            let rel = dir.join(entry.file_name());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(rel.clone());
            }
            seen.insert(rel);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_snapshot_lists_nested_entries_relative_to_it() {
        let root = std::env::temp_dir().join(format!("handrail-reset-test-{}", std::process::id()));
        fs::create_dir_all(root.join("a/b")).expect("dirs");
        fs::write(root.join("a/b/c.txt"), "x").expect("file");
        let seen = snapshot(&root);
        assert!(seen.contains(Path::new("a")) && seen.contains(Path::new("a/b/c.txt")), "{seen:?}");
        let _ = fs::remove_dir_all(&root);
    }
}
