//! Which window a start produced: the decision every backend's launch wait makes after each look
//! at its windows, kept in one place.
//!
//! A backend starts the plan, then looks at its windows until [`LaunchWatch::decide`] names one, or
//! the plan's timeout passes. The window is the started process's, else one of the app's classes,
//! else one of a process it started; once the started process has exited (a launcher script, a
//! single-instance app handing over to its running copy) any new window, then after
//! [`HANDOFF_GRACE`] an existing window of the app, and after [`EXITED_GRACE`] an error.

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use handrail_platform::{Launched, PlatformError};
use log::{debug, info};

use crate::{class_matches, process_tree, Plan};

/// After a launched process exits successfully, how long to wait for a window from the running copy
/// it handed over to before settling for an existing window of the same app.
pub const HANDOFF_GRACE: Duration = Duration::from_millis(1500);
/// After a launched process exits successfully with no window anywhere, how long to keep waiting (a
/// launcher script may have started the real program in the background).
pub const EXITED_GRACE: Duration = Duration::from_secs(5);

/// A window the wait looks at: the backend's id for it, its process and class parts (X11 instance
/// and class; a Wayland app id is both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeenWindow<'a> {
    pub id: u64,
    pub pid: Option<u32>,
    pub instance: &'a str,
    pub class: &'a str,
}

/// One start being waited on. See the [module docs](self).
#[derive(Debug)]
pub struct LaunchWatch {
    pid: u32,
    program: String,
    classes: Vec<String>,
    timeout: Duration,
    started: Instant,
    exited: Option<(ExitStatus, Instant)>,
}

impl LaunchWatch {
    /// Watches `child`, just started for `plan`.
    pub fn new(plan: &Plan, child: &Child) -> LaunchWatch {
        LaunchWatch {
            pid: child.id(),
            program: plan.program.display().to_string(),
            classes: plan.classes.clone(),
            timeout: plan.timeout,
            started: Instant::now(),
            exited: None,
        }
    }

    /// The started process's id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// When the plan's timeout runs out.
    pub fn deadline(&self) -> Instant {
        self.started + self.timeout
    }

    /// The error once [`LaunchWatch::deadline`] passed without a window.
    pub fn timed_out(&self) -> PlatformError {
        PlatformError::Timeout(format!(
            "waiting {:?} for a window of {} (pid {})",
            self.timeout, self.program, self.pid
        ))
    }

    /// The launch's result once `window` (appeared `appeared` after the start, then activated) was
    /// found: reported as `app`, owned by `window_pid` (another than the started process when that
    /// handed over to a running copy), and said in the log.
    pub fn launched(
        &self,
        app: String,
        window_pid: Option<u32>,
        window: &dyn std::fmt::Display,
        appeared: Duration,
    ) -> Launched {
        let owner = window_pid.unwrap_or(self.pid);
        info!(
            "launched {app} (started pid {}, window pid {owner}): window {window} after {} ms, active after {} ms",
            self.pid,
            appeared.as_millis(),
            self.started.elapsed().as_millis()
        );
        Launched { app, pid: Some(owner) }
    }

    /// How long ago the start was.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Notes whether `child` has exited (call before each look).
    pub fn check_child(&mut self, child: &mut Child) {
        if self.exited.is_none() {
            if let Ok(Some(status)) = child.try_wait() {
                debug!("pid {} exited ({status}) after {:?}", self.pid, self.started.elapsed());
                self.exited = Some((status, Instant::now()));
            }
        }
    }

    /// The window the start produced among `new` (windows that did not exist before it, oldest
    /// first), `existing` giving the topmost window of the app's classes when asked; `None` to look
    /// again; an error once the process failed or exited without any window.
    pub fn decide(
        &self,
        new: &[SeenWindow<'_>],
        existing: impl FnOnce(&[String]) -> Result<Option<u64>, PlatformError>,
    ) -> Result<Option<u64>, PlatformError> {
        if let Some(id) = pick_new(new, self.pid, &self.classes, self.exited.is_some()) {
            return Ok(Some(id));
        }
        let Some((status, at)) = self.exited else { return Ok(None) };
        if !status.success() {
            return Err(PlatformError::Failed(format!("{} exited ({status}) before opening a window", self.program)));
        }
        // A single-instance app handed over to its running copy, which opened nothing new.
        if at.elapsed() >= HANDOFF_GRACE {
            if let Some(id) = existing(&self.classes)? {
                return Ok(Some(id));
            }
        }
        if at.elapsed() >= EXITED_GRACE {
            return Err(PlatformError::Failed(format!("{} exited without opening a window", self.program)));
        }
        Ok(None)
    }
}

/// The started process's window among `new`, else one of `classes`, else one of its descendants';
/// any new one once it has exited.
fn pick_new(new: &[SeenWindow<'_>], pid: u32, classes: &[String], child_exited: bool) -> Option<u64> {
    if let Some(w) = new.iter().find(|w| w.pid == Some(pid)) {
        return Some(w.id);
    }
    if let Some(w) = new.iter().find(|w| class_matches(w.instance, w.class, classes)) {
        return Some(w.id);
    }
    if new.iter().any(|w| w.pid.is_some()) {
        let tree = process_tree(pid);
        if let Some(w) = new.iter().find(|w| w.pid.is_some_and(|p| tree.contains(&p))) {
            return Some(w.id);
        }
    }
    if child_exited {
        new.first().map(|w| w.id)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(id: u64, pid: Option<u32>, class: &str) -> SeenWindow<'_> {
        SeenWindow { id, pid, instance: class, class }
    }

    #[test]
    fn the_new_window_is_the_processs_then_the_classs_then_any_once_it_exited() {
        let new = [seen(1, Some(10), "org.gnome.TextEditor"), seen(2, Some(20), "zenity")];
        assert_eq!(pick_new(&new, 20, &[], false), Some(2));
        assert_eq!(pick_new(&new, 99, &["org.gnome.texteditor".into()], false), Some(1));
        assert_eq!(pick_new(&new, 99, &[], false), None, "nothing of ours yet");
        assert_eq!(pick_new(&new, 99, &[], true), Some(1), "handed to another process");
        assert_eq!(pick_new(&[], 99, &[], true), None);
    }

    #[test]
    fn a_failed_or_windowless_exit_is_an_error_naming_the_program() {
        let plan = Plan {
            app: None,
            program: "/bin/false".into(),
            args: Vec::new(),
            extra_env: &[],
            working_dir: None,
            classes: vec!["nothing".into()],
            timeout: Duration::from_secs(5),
        };
        let mut child = std::process::Command::new("/bin/false").spawn().expect("false");
        let mut watch = LaunchWatch::new(&plan, &child);
        let deadline = Instant::now() + Duration::from_secs(5);
        while watch.exited.is_none() && Instant::now() < deadline {
            watch.check_child(&mut child);
            std::thread::sleep(Duration::from_millis(10));
        }
        let e = watch.decide(&[], |_| Ok(None)).expect_err("failed");
        assert!(e.to_string().contains("/bin/false exited"), "{e}");
        let _ = child.wait();
    }
}
