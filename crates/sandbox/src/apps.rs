//! Telling a sandbox's apps from the desktop itself, so a desktop can be handed to the next task with
//! every app closed while the X server, the buses and the window manager stay up.
//!
//! The desktop's own processes are the ones the sandbox started (X server or compositor, session bus,
//! accessibility bus, window manager) and everything descending from them, and the services the buses
//! activate (at-spi2-registryd, dconf-service, gvfs: dbus-daemon re-parents them to init, but it
//! marks their environment with `DBUS_STARTER_BUS_TYPE`); those are kept. Every other process carrying
//! the sandbox's marker is an app: whatever handrail or a command started inside the sandbox, and
//! processes those apps re-parented to init (a browser's crash handler). The sandbox removes the
//! `DBUS_STARTER_*` variables from what it starts, so an app never inherits the services' mark.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::SandboxError;
use crate::procs::{identity, marked_processes, send_signal};

/// How often [`SandboxProcesses::close_apps`] looks again while apps exit.
const CLOSE_POLL: Duration = Duration::from_millis(10);
/// How much longer `close_apps` waits past its grace for processes it SIGKILLed to be gone.
const KILLED_EXIT_WAIT: Duration = Duration::from_secs(3);
/// Longest parent chain followed; a deeper one is treated as an app's.
const MAX_DEPTH: usize = 64;

/// One of the sandbox's own processes, pinned by its start time so a recycled PID never counts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Own {
    name: &'static str,
    pid: u32,
    start: u64,
}

/// A process of an app running in the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppProcess {
    pub pid: u32,
    /// Its name as the kernel knows it (`/proc/PID/comm`).
    pub name: String,
}

/// An app process [`SandboxProcesses::close_apps`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedApp {
    pub pid: u32,
    pub name: String,
    /// It ignored SIGTERM for the grace period and was sent SIGKILL.
    pub forced: bool,
}

/// What closing the apps did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClosedApps {
    /// Every process that was ended, in PID order.
    pub closed: Vec<ClosedApp>,
    /// Processes still alive when closing gave up (after SIGKILL and a second grace period).
    pub left: Vec<AppProcess>,
    /// Socket files the apps listened on outside the sandbox's directory and left behind, removed
    /// (as at stop).
    pub removed_sockets: Vec<PathBuf>,
    pub duration: Duration,
}

/// A handle on a sandbox's processes that holds no resources: it can live on another thread than the
/// [`crate::Sandbox`] (which still owns teardown) and be used while the sandbox runs.
#[derive(Debug, Clone)]
pub struct SandboxProcesses {
    id: String,
    /// The sandbox's private directory (sockets inside it go with it).
    root: PathBuf,
    own: Vec<Own>,
}

impl SandboxProcesses {
    pub(crate) fn new(id: &str, root: &Path, own: impl IntoIterator<Item = (&'static str, u32)>) -> Self {
        let own = own.into_iter().filter_map(|(name, pid)| Some(Own { name, pid, start: identity(pid)? })).collect();
        Self { id: id.to_owned(), root: root.to_path_buf(), own }
    }

    /// The sandbox's id (its marker's value).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `Err` naming the first of the desktop's own processes that is gone: the desktop is broken then.
    pub fn check_desktop(&self) -> Result<(), SandboxError> {
        match self.own.iter().find(|o| identity(o.pid) != Some(o.start)) {
            None => Ok(()),
            Some(gone) => Err(SandboxError::ExitedEarly {
                step: gone.name,
                status: format!("pid {} is gone", gone.pid),
                stderr: String::new(),
            }),
        }
    }

    /// The app processes running now (see the module docs), in PID order.
    pub fn apps(&self) -> Vec<AppProcess> {
        let marked = marked_processes(&self.id);
        if marked.is_empty() {
            return Vec::new();
        }
        let parents = parent_map();
        let own: BTreeSet<u32> = self.own.iter().map(|o| o.pid).collect();
        marked
            .into_iter()
            .filter(|pid| !descends_from(*pid, &own, &parents) && !bus_activated(*pid))
            .map(|pid| AppProcess { pid, name: comm(pid) })
            .collect()
    }

    /// Ends every app: SIGTERM at once, SIGKILL for whatever is still alive after `grace`, and gives up
    /// `grace` later (or, when everything left was SIGKILLed and is only exiting, [`KILLED_EXIT_WAIT`]
    /// after that). Apps that start while this runs (a launcher script's child) are ended too. The
    /// desktop's own processes are never signalled.
    pub fn close_apps(&self, grace: Duration) -> ClosedApps {
        let t0 = Instant::now();
        let kill_from = t0 + grace;
        let give_up = kill_from + grace;
        // PID → (start time, name): found once, followed until really gone even if its environment
        // (and so the marker) disappears while it exits.
        let mut tracked: BTreeMap<u32, (u64, String)> = BTreeMap::new();
        let mut ended: BTreeMap<u32, ClosedApp> = BTreeMap::new();
        let mut terminated: BTreeSet<u32> = BTreeSet::new();
        let mut sockets: Option<Vec<crate::sockets::NotedSocket>> = None;
        loop {
            let now = Instant::now();
            for app in self.apps() {
                if let Some(start) = identity(app.pid) {
                    tracked.entry(app.pid).or_insert((start, app.name));
                }
            }
            if sockets.is_none() {
                let pids: Vec<u32> = tracked.keys().copied().collect();
                sockets = Some(crate::sockets::listened_outside(&pids, &self.root));
            }
            tracked.retain(|pid, (start, _)| identity(*pid) == Some(*start));
            // A process already SIGKILLed is exiting, however long the kernel takes to tear it down
            // (on a loaded machine a Chromium process was still there 0.8 s into a reset): waited for
            // a while longer rather than reported as left.
            let all_killed = tracked.keys().all(|pid| ended.get(pid).is_some_and(|r| r.forced));
            let deadline = if all_killed { give_up + KILLED_EXIT_WAIT } else { give_up };
            if tracked.is_empty() || now >= deadline {
                break;
            }
            for (&pid, (start, name)) in &tracked {
                let record = ended.entry(pid).or_insert_with(|| ClosedApp { pid, name: name.clone(), forced: false });
                // Checked again right before signalling: never a recycled PID.
                if identity(pid) != Some(*start) {
                    continue;
                }
                if now < kill_from {
                    if terminated.insert(pid) {
                        send_signal(pid, libc::SIGTERM);
                    }
                } else if !record.forced {
                    record.forced = true;
                    send_signal(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(CLOSE_POLL.min(give_up.saturating_duration_since(now)));
        }
        let left: Vec<AppProcess> =
            tracked.iter().map(|(&pid, (_, name))| AppProcess { pid, name: name.clone() }).collect();
        let closed = ended.into_values().filter(|c| !left.iter().any(|l| l.pid == c.pid)).collect();
        let removed_sockets = crate::sockets::remove_abandoned(&sockets.unwrap_or_default());
        ClosedApps { closed, left, removed_sockets, duration: t0.elapsed() }
    }
}

/// Every live process's parent, read from `/proc/PID/stat`.
fn parent_map() -> HashMap<u32, u32> {
    let Ok(dir) = fs::read_dir("/proc") else { return HashMap::new() };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, parent(pid)?)))
        .collect()
}

/// The parent PID (field 4 of proc(5)'s stat, the second after the command name).
fn parent(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` is one of `own` or descends from one.
fn descends_from(pid: u32, own: &BTreeSet<u32>, parents: &HashMap<u32, u32>) -> bool {
    let mut at = pid;
    for _ in 0..MAX_DEPTH {
        if own.contains(&at) {
            return true;
        }
        match parents.get(&at) {
            Some(&p) if p > 1 => at = p,
            _ => return false,
        }
    }
    false
}

/// Whether a bus started `pid` (D-Bus activation sets `DBUS_STARTER_BUS_TYPE` in its environment).
fn bus_activated(pid: u32) -> bool {
    match fs::read(format!("/proc/{pid}/environ")) {
        Ok(env) => env.split(|b| *b == 0).any(|entry| entry.starts_with(b"DBUS_STARTER_BUS_TYPE=")),
        Err(_) => false,
    }
}

fn comm(pid: u32) -> String {
    fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim_end().to_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descent_follows_parents_up_to_an_own_process() {
        let parents: HashMap<u32, u32> = [(10, 5), (5, 2), (2, 1), (20, 1), (30, 20)].into_iter().collect();
        let own: BTreeSet<u32> = [2].into_iter().collect();
        assert!(descends_from(10, &own, &parents));
        assert!(descends_from(2, &own, &parents));
        assert!(!descends_from(30, &own, &parents));
        assert!(!descends_from(99, &own, &parents));
    }

    #[test]
    fn this_process_has_a_parent() {
        assert!(parent(std::process::id()).is_some());
    }
}
