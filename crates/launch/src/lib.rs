//! Starting applications on a Linux desktop, whatever its display protocol.
//!
//! Nothing here knows X11 or Wayland: a backend finds an app by a human name ([`Launcher::plan_app`],
//! XDG desktop entries, else an executable on `PATH`), or plans the managed browser
//! ([`Launcher::plan_browser`]), starts it ([`Launcher::spawn`]) and then waits for its window in its
//! own way (EWMH client lists, Wayland foreign-toplevel handles). Window classes (X11 `WM_CLASS`, a
//! Wayland app id) are matched with [`class_matches`] and named with [`Launcher::app_name`].
//!
//! - `desktop_entries`: `*.desktop` files, parsed and scored against a human name.
//! - `browser`: Debian's Chromium with accessibility on and a private profile.
//! - `held_browsers`: other browsers `open_app` starts, held to the same URL-policy proxy.
//! - `procs`: `PATH` lookup and `/proc` (process names, descendants).
#![cfg(target_os = "linux")]

mod browser;
mod desktop_entries;
mod held_browsers;
mod new_window;
mod procs;

use std::fs::{self, OpenOptions};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_platform::PlatformError;
use log::{debug, warn};

pub use browser::check_url;
use desktop_entries::DesktopEntry;
pub use new_window::{LaunchWatch, SeenWindow, EXITED_GRACE, HANDOFF_GRACE};
pub use procs::{comm, process_tree};

/// Longest application name looked up (edit distances over longer inputs would only cost time).
const MAX_APP_NAME: usize = 128;
/// Programs never started through the `PATH` fallback: with no arguments they still end sessions,
/// kill windows or escalate privileges. (Directories named `sbin` are skipped entirely.)
const PATH_DENYLIST: &[&str] = &[
    "reboot",
    "shutdown",
    "poweroff",
    "halt",
    "init",
    "telinit",
    "systemctl",
    "loginctl",
    "xkill",
    "kill",
    "killall",
    "pkill",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "rm",
    "shred",
    "dd",
    "openbox",
    "Xvfb",
    "Xorg",
    "X",
    "sway",
    "swaymsg",
    "Xwayland",
    "gnome-shell",
    "mutter",
    "gnome-session-quit",
];

/// What launched programs get, and how long launching may take.
#[derive(Debug, Clone)]
pub struct LaunchEnv {
    /// Variables every launched program gets, on top of handrail's own environment (for a sandbox:
    /// `Sandbox::env()`, which includes the display, the buses and the teardown marker). Later entries
    /// win. `PATH`, `HOME` and the `XDG_*` dirs here also decide where programs and desktop entries are
    /// found.
    pub vars: Vec<(String, String)>,
    /// Variables removed from the inherited environment before `vars` are applied (for a sandbox:
    /// `handrail_sandbox::REMOVED_ENV`, which point at the user's real session).
    pub removed: Vec<String>,
    /// The browser's private profile directory (created, mode 700, when missing). It should be fresh
    /// and used by nothing else: Chromium hands later URLs to the instance that owns it.
    pub browser_profile: PathBuf,
    /// The browser executable; `None` tries `/usr/bin/chromium`, `/usr/bin/chromium-browser`, then
    /// `chromium`/`chromium-browser` on `PATH`.
    pub browser: Option<PathBuf>,
    /// Extra arguments for every browser start, after handrail's own and before the URL (which stays
    /// last). The CLI puts the URL-policy proxy's flags here.
    pub browser_args: Vec<String>,
    /// The URL-policy proxy the browser goes through (its switches are in `browser_args`). Other
    /// browsers `open_app` starts are held to it too: Chromium's relatives with the same switches,
    /// Firefox through its profile's preferences (see `held_browsers`).
    pub policy_proxy: Option<std::net::SocketAddr>,
    /// Browsers that cannot be held to the proxy are not started: set while allowed domains restrict
    /// where browsers may go.
    pub refuse_unheld_browsers: bool,
    /// Where launched programs' stdout and stderr go (`<dir>/<program>.log`, appended); `None` discards
    /// them.
    pub log_dir: Option<PathBuf>,
    /// Bound for an app's first window to appear.
    pub launch_timeout: Duration,
    /// Bound for a browser window to appear (a cold Chromium start is slower than most apps).
    pub browser_timeout: Duration,
    /// Bound for the window manager to make a window active.
    pub activate_timeout: Duration,
}

impl LaunchEnv {
    /// `vars` for every launched program and a private browser profile directory; default timeouts
    /// (10 s launch, 20 s browser, 2 s activation), no logs.
    pub fn new(vars: Vec<(String, String)>, browser_profile: impl Into<PathBuf>) -> LaunchEnv {
        LaunchEnv {
            vars,
            removed: Vec::new(),
            browser_profile: browser_profile.into(),
            browser: None,
            browser_args: Vec::new(),
            policy_proxy: None,
            refuse_unheld_browsers: false,
            log_dir: None,
            launch_timeout: Duration::from_secs(10),
            browser_timeout: Duration::from_secs(20),
            activate_timeout: Duration::from_secs(2),
        }
    }

    /// A variable as launched programs see it.
    pub fn var(&self, key: &str) -> Option<String> {
        if let Some((_, v)) = self.vars.iter().rev().find(|(k, _)| k == key) {
            return Some(v.clone());
        }
        if self.removed.iter().any(|r| r == key) {
            return None;
        }
        std::env::var(key).ok()
    }
}

/// Everything a backend's launch loop needs to know about one start.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The name reported as the launched app; `None` uses the window's app name.
    pub app: Option<String>,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub extra_env: &'static [(&'static str, &'static str)],
    pub working_dir: Option<PathBuf>,
    /// Window classes or app ids (lower case) the app's windows carry.
    pub classes: Vec<String>,
    pub timeout: Duration,
}

/// Whether a window whose class parts are `instance` and `class` (X11 `WM_CLASS`; a Wayland app id
/// is both) is one of `classes` (lower case). Chromium's instance with a custom profile is
/// `chromium (/profile)`, hence the first word.
pub fn class_matches(instance: &str, class: &str, classes: &[String]) -> bool {
    let class = class.to_lowercase();
    let instance = instance.to_lowercase();
    let first_word = instance.split(' ').next().unwrap_or_default();
    classes.iter().any(|c| *c == class || *c == instance || *c == first_word)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The data behind these locks stays consistent even if a holder panicked.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Finds and starts applications for one desktop. See the [crate docs](self).
#[derive(Debug)]
pub struct Launcher {
    env: LaunchEnv,
    /// Arguments the display protocol needs in every browser start (Chromium on Wayland:
    /// `--ozone-platform=wayland`), before the caller's own.
    platform_browser_args: Vec<String>,
    /// Desktop entries, loaded on first use; reloaded when a name is not found (an app installed since).
    entries: Mutex<Option<Arc<Vec<DesktopEntry>>>>,
    /// Processes started here, reaped (without blocking) at each launch so they do not linger as zombies.
    children: Mutex<Vec<Child>>,
}

impl Launcher {
    /// A launcher giving launched programs `env`. Nothing is read or started yet.
    pub fn new(env: LaunchEnv) -> Launcher {
        Launcher { env, platform_browser_args: Vec::new(), entries: Mutex::new(None), children: Mutex::new(Vec::new()) }
    }

    /// Adds arguments every browser start needs on this display protocol.
    pub fn with_platform_browser_args(mut self, args: &[&str]) -> Launcher {
        self.platform_browser_args = args.iter().map(|a| a.to_string()).collect();
        self
    }

    /// The launch environment given at construction.
    pub fn env(&self) -> &LaunchEnv {
        &self.env
    }

    fn entries(&self, reload: bool) -> Arc<Vec<DesktopEntry>> {
        let mut cache = lock(&self.entries);
        if let (false, Some(entries)) = (reload, cache.as_ref()) {
            return Arc::clone(entries);
        }
        let t0 = Instant::now();
        let dirs = desktop_entries::application_dirs(|k| self.env.var(k));
        let entries = Arc::new(desktop_entries::load(&dirs, self.env.var("PATH").as_deref()));
        debug!("loaded {} desktop entries from {} dirs in {:?}", entries.len(), dirs.len(), t0.elapsed());
        *cache = Some(Arc::clone(&entries));
        entries
    }

    /// A human app name for a window: the desktop entry owning its class, else the class, else the
    /// process name.
    pub fn app_name(&self, instance: &str, class: &str, pid: Option<u32>) -> String {
        let entries = self.entries(false);
        if let Some(entry) = desktop_entries::for_class(&entries, instance, class) {
            return entry.name.clone();
        }
        if !class.is_empty() {
            return class.to_owned();
        }
        if !instance.is_empty() {
            return instance.to_owned();
        }
        pid.and_then(procs::comm).unwrap_or_default()
    }

    /// Whether `program` is the managed browser (its entry or name then opens the managed browser, with
    /// accessibility and the private profile, instead of a bare Chromium).
    pub fn is_browser(&self, program: &Path) -> bool {
        let Ok(browser) = browser::locate(self.env.browser.as_deref(), self.env.var("PATH").as_deref()) else {
            return false;
        };
        match (fs::canonicalize(program), fs::canonicalize(&browser)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    /// An executable called `name` on `PATH`, for names no desktop entry knows. Plain names only, never
    /// from `sbin` directories or the deny list.
    fn path_program(&self, name: &str) -> Option<PathBuf> {
        let plain = !name.is_empty()
            && !name.starts_with(['-', '.'])
            && name.chars().all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c));
        if !plain || PATH_DENYLIST.contains(&name) {
            return None;
        }
        let path = self.env.var("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
        let dirs: Vec<&str> = path.split(':').filter(|d| !d.trim_end_matches('/').ends_with("sbin")).collect();
        procs::find_program(name, Some(&dirs.join(":")))
    }

    /// How to start the app called `name`. The browser's own entry or name plans the managed browser.
    /// Another browser is held to the URL-policy proxy when one is in force (see `held_browsers`).
    pub fn plan_app(&self, name: &str) -> Result<Plan, PlatformError> {
        let mut plan = self.plan_named(name)?;
        if self.is_browser(&plan.program) {
            let mut browser = self.plan_browser(None)?;
            browser.app = plan.app;
            return Ok(browser);
        }
        let (Some(proxy), Some(kind)) = (self.env.policy_proxy, held_browsers::kind_of(&plan.program)) else {
            return Ok(plan);
        };
        if kind == held_browsers::BrowserKind::Unholdable && !self.env.refuse_unheld_browsers {
            return Ok(plan);
        }
        let profile = held_browsers::profile_for(&self.env.browser_profile, &plan.program);
        held_browsers::hold(&mut plan, kind, proxy, &self.env.browser_args, &profile)?;
        debug!("{} is held to the URL-policy proxy on {proxy} (profile {})", plan.program.display(), profile.display());
        Ok(plan)
    }

    fn plan_named(&self, name: &str) -> Result<Plan, PlatformError> {
        let name = name.trim();
        if name.chars().count() > MAX_APP_NAME {
            // No application is called that; spare the fuzzy matching a pathological input.
            let short: String = name.chars().take(MAX_APP_NAME).collect();
            return Err(PlatformError::NotFound(format!("no application named {short:?}… (name too long)")));
        }
        let mut entries = self.entries(false);
        let mut entry = desktop_entries::find(&entries, name).cloned();
        if entry.is_none() {
            // Maybe installed since the cache was filled.
            entries = self.entries(true);
            entry = desktop_entries::find(&entries, name).cloned();
        }
        let path_var = self.env.var("PATH");
        if let Some(entry) = entry {
            let (program, args) = entry.argv.split_first().ok_or_else(|| PlatformError::Failed("empty Exec".into()))?;
            let program = desktop_entries::resolve_program(program, path_var.as_deref()).ok_or_else(|| {
                PlatformError::Failed(format!("{}: program {program:?} not found", entry.path.display()))
            })?;
            let mut classes: Vec<String> = entry.startup_wm_class.iter().map(|c| c.to_lowercase()).collect();
            classes.extend(entry.exec_basename().map(str::to_lowercase));
            classes.push(entry.stem().to_lowercase());
            let mut plan = Plan {
                app: Some(entry.name.clone()),
                program,
                args: args.to_vec(),
                extra_env: &[],
                working_dir: entry.working_dir.clone(),
                classes,
                timeout: self.env.launch_timeout,
            };
            if entry.terminal {
                wrap_in_terminal(&mut plan, path_var.as_deref())?;
            }
            return Ok(plan);
        }
        if let Some(program) = self.path_program(name) {
            return Ok(Plan {
                app: None,
                program,
                args: Vec::new(),
                extra_env: &[],
                working_dir: None,
                classes: vec![name.to_lowercase()],
                timeout: self.env.launch_timeout,
            });
        }
        let close = desktop_entries::close_matches(&entries, name, 5);
        let hint = if close.is_empty() {
            format!("no close matches among {} installed applications", entries.len())
        } else {
            format!("close matches: {}", close.join(", "))
        };
        Err(PlatformError::NotFound(format!("no application named {name:?}; {hint}")))
    }

    /// The managed browser, opening `url` (already vetted by the engine; checked again here) or a blank
    /// window.
    pub fn plan_browser(&self, url: Option<&str>) -> Result<Plan, PlatformError> {
        if let Some(url) = url {
            browser::check_url(url)?;
        }
        let program = browser::locate(self.env.browser.as_deref(), self.env.var("PATH").as_deref())?;
        let profile = &self.env.browser_profile;
        browser::private_profile(profile)?;
        let mut classes: Vec<String> = browser::WINDOW_CLASSES.iter().map(|c| c.to_string()).collect();
        classes.extend(program.file_name().map(|n| n.to_string_lossy().to_lowercase()));
        let mut extra = self.platform_browser_args.clone();
        extra.extend(self.env.browser_args.iter().cloned());
        Ok(Plan {
            app: None,
            args: browser::args(profile, &extra, url),
            program,
            extra_env: browser::ENV,
            working_dir: None,
            classes,
            timeout: self.env.browser_timeout,
        })
    }

    /// Starts `plan` with the launch environment, in its own process group (a Ctrl-C meant for
    /// handrail's terminal does not reach the app), output to the log directory.
    pub fn spawn(&self, plan: &Plan) -> Result<Child, PlatformError> {
        self.reap();
        let mut cmd = Command::new(&plan.program);
        cmd.args(&plan.args);
        for var in &self.env.removed {
            cmd.env_remove(var);
        }
        cmd.envs(self.env.vars.iter().map(|(k, v)| (k, v)));
        cmd.envs(plan.extra_env.iter().copied());
        cmd.stdin(Stdio::null()).process_group(0);
        let (out, err) = self.log_files(&plan.program);
        cmd.stdout(out).stderr(err);
        let home = self.env.var("HOME").map(PathBuf::from);
        if let Some(dir) = plan.working_dir.as_ref().or(home.as_ref()).filter(|d| d.is_dir()) {
            cmd.current_dir(dir);
        }
        cmd.spawn().map_err(|e| PlatformError::Failed(format!("cannot start {}: {e}", plan.program.display())))
    }

    /// Keeps `child` to be reaped later, once it exits.
    pub fn keep(&self, child: Child) {
        lock(&self.children).push(child);
    }

    fn reap(&self) {
        lock(&self.children).retain_mut(|c| matches!(c.try_wait(), Ok(None)));
    }

    fn log_files(&self, program: &Path) -> (Stdio, Stdio) {
        let Some(dir) = &self.env.log_dir else { return (Stdio::null(), Stdio::null()) };
        let name: String = program
            .file_name()
            .map(|n| n.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect())
            .unwrap_or_else(|| "app".into());
        let path = dir.join(format!("{name}.log"));
        let file = OpenOptions::new().create(true).append(true).open(&path);
        match file.and_then(|f| Ok((f.try_clone()?, f))) {
            Ok((a, b)) => (Stdio::from(a), Stdio::from(b)),
            Err(e) => {
                warn!("cannot open log {}: {e}; discarding output", path.display());
                (Stdio::null(), Stdio::null())
            }
        }
    }
}

/// `Terminal=true` entries run inside a terminal emulator (Debian's `x-terminal-emulator`, which must
/// accept `-e command args…`, else xterm).
fn wrap_in_terminal(plan: &mut Plan, path_var: Option<&str>) -> Result<(), PlatformError> {
    let terminal = ["x-terminal-emulator", "xterm"]
        .iter()
        .find_map(|t| procs::find_program(t, path_var))
        .ok_or_else(|| PlatformError::Unavailable("a terminal emulator for a terminal app (install xterm)".into()))?;
    let mut args = vec!["-e".to_owned(), plan.program.display().to_string()];
    args.append(&mut plan.args);
    plan.program = terminal;
    plan.args = args;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_env_lookup_order() {
        let mut env = LaunchEnv::new(vec![("A".into(), "1".into()), ("A".into(), "2".into())], "/p");
        env.removed = vec!["HOME".into()];
        assert_eq!(env.var("A").as_deref(), Some("2"));
        assert_eq!(env.var("HOME"), None);
    }

    #[test]
    fn classes_match_by_either_part_and_the_first_word() {
        let classes = vec!["chromium".to_owned()];
        assert!(class_matches("chromium (/tmp/p)", "Chromium", &classes));
        assert!(class_matches("", "chromium", &classes));
        assert!(!class_matches("xterm", "XTerm", &classes));
    }

    #[test]
    fn the_browser_plan_puts_platform_arguments_before_the_callers() {
        let dir = std::env::temp_dir().join(format!("handrail-launch-test-{}", std::process::id()));
        let mut env = LaunchEnv::new(vec![], dir.join("profile"));
        env.browser = Some(PathBuf::from("/bin/sh"));
        env.browser_args = vec!["--proxy-server=http://127.0.0.1:9".into()];
        let launcher = Launcher::new(env).with_platform_browser_args(&["--ozone-platform=wayland"]);
        let plan = launcher.plan_browser(Some("http://x.test/")).expect("plans");
        let n = plan.args.len();
        assert_eq!(
            plan.args[n - 3..],
            ["--ozone-platform=wayland", "--proxy-server=http://127.0.0.1:9", "http://x.test/"]
        );
        assert!(launcher.plan_browser(Some("--flag")).is_err());
        let _ = fs::remove_dir_all(&dir);
    }
}
