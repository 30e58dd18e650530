//! Windows on GNOME: the stack, focus and raising through GNOME Shell (handrail's extension, see
//! `shell`), launching through `handrail-launch`.
//!
//! GNOME Shell gives places in stage coordinates; the screen handrail captures starts at the
//! monitors' layout origin, so every rectangle is moved by it. While the overview (Activities) is
//! open it covers every window: the stack then ends with it, a pop-up over the whole screen, so
//! nothing behind it is judged visible or reachable.

use std::time::{Duration, Instant};

use handrail_launch::{LaunchEnv, LaunchWatch, Launcher, Plan, SeenWindow};
use handrail_platform::window_relative::{SurfaceOrigin, SurfaceOrigins};
use handrail_platform::{Launched, PlatformError, Point, Rect, StackedWindow, WindowInfo, WindowKind, Windows};
use log::{debug, warn};

use crate::display::{scale_of, MonitorScales};
use crate::shell::{ShellWindow, ShellWindows};

/// Between two looks at the stack while waiting for a window (GNOME Shell sends no change signal
/// the extension relays).
const RECHECK: Duration = Duration::from_millis(50);
/// What the overview is called in the stack.
pub const OVERVIEW_TITLE: &str = "Activities overview";
/// The app the overview belongs to.
pub const SHELL_APP: &str = "GNOME Shell";

/// See the [module docs](self).
pub struct GnomeWindows {
    shell: ShellWindows,
    launcher: Launcher,
    /// The monitors' layout, in stage coordinates: its origin is the screen's (0, 0).
    layout: Rect,
    /// How apps' own coordinates are scaled onto the stage; without it, they are not.
    scales: Option<MonitorScales>,
}

impl std::fmt::Debug for GnomeWindows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GnomeWindows").field("layout", &self.layout).finish_non_exhaustive()
    }
}

impl GnomeWindows {
    /// Windows read through `shell`, apps started with `env`, on a screen showing `layout`.
    pub fn new(shell: ShellWindows, env: LaunchEnv, layout: Rect) -> GnomeWindows {
        let launcher = Launcher::new(env).with_platform_browser_args(&["--ozone-platform=wayland"]);
        GnomeWindows { shell, launcher, layout, scales: None }
    }

    /// Scales each window's accessibility coordinates by its monitor (see `display`).
    pub fn scaled_by(self, scales: MonitorScales) -> GnomeWindows {
        GnomeWindows { scales: Some(scales), ..self }
    }

    fn to_screen(&self, r: Rect) -> Rect {
        Rect::new(r.x - self.layout.x, r.y - self.layout.y, r.width, r.height)
    }

    /// Every window a person could see or restore, bottom to top (the desktop's own background
    /// window and other workspaces' windows left out).
    fn windows(&self) -> Result<Vec<ShellWindow>, PlatformError> {
        Ok(self.shell.list()?.into_iter().filter(|w| !w.is_desktop() && (w.showing || w.minimized)).collect())
    }

    fn info(&self, w: &ShellWindow) -> WindowInfo {
        let app = if w.app_name.is_empty() || w.app_id.starts_with("window:") {
            self.launcher.app_name(&w.wm_class, &w.wm_class, w.pid)
        } else {
            w.app_name.clone()
        };
        WindowInfo {
            app,
            class: w.wm_class.clone(),
            title: w.title.clone(),
            pid: w.pid,
            bounds: self.to_screen(w.frame),
        }
    }

    fn overview(&self) -> StackedWindow {
        StackedWindow {
            handle: 0,
            info: WindowInfo {
                app: SHELL_APP.to_owned(),
                class: "gnome-shell".to_owned(),
                title: OVERVIEW_TITLE.to_owned(),
                pid: None,
                bounds: Rect::new(0, 0, self.layout.width, self.layout.height),
            },
            kind: WindowKind::Popup,
            minimized: false,
            active: true,
        }
    }

    /// Raises window `id` and waits until it has the focus.
    pub fn activate_window(&self, id: u64) -> Result<(), PlatformError> {
        let t0 = Instant::now();
        let deadline = t0 + self.launcher.env().activate_timeout;
        if !self.shell.activate(id)? {
            return Err(PlatformError::NotFound(format!("window {id} does not exist")));
        }
        loop {
            match self.shell.list()?.into_iter().find(|w| w.id == id) {
                None => return Err(PlatformError::NotFound(format!("window {id} closed while activating it"))),
                Some(w) if w.focus && !w.minimized => {
                    debug!("activated window {id} in {:?}", t0.elapsed());
                    return Ok(());
                }
                Some(_) => {}
            }
            if Instant::now() >= deadline {
                return Err(PlatformError::Timeout(format!("activating window {id}")));
            }
            std::thread::sleep(RECHECK);
        }
    }

    /// Starts `plan`, waits for its new window, activates it.
    fn launch(&self, plan: Plan) -> Result<Launched, PlatformError> {
        let before: Vec<u64> = self.shell.list()?.iter().map(|w| w.id).collect();
        let mut child = self.launcher.spawn(&plan)?;
        let mut watch = LaunchWatch::new(&plan, &child);
        debug!("started {} {:?} as pid {}", plan.program.display(), plan.args, watch.pid());
        let found = loop {
            watch.check_child(&mut child);
            let windows = match self.windows() {
                Ok(w) => w,
                Err(e) => {
                    self.launcher.keep(child);
                    return Err(e);
                }
            };
            let new: Vec<SeenWindow<'_>> = windows
                .iter()
                .filter(|w| !before.contains(&w.id))
                .map(|w| SeenWindow { id: w.id, pid: w.pid, instance: &w.wm_class, class: &w.wm_class })
                .collect();
            let existing = |classes: &[String]| {
                Ok(windows
                    .iter()
                    .rev()
                    .find(|w| handrail_launch::class_matches(&w.wm_class, &w.wm_class, classes))
                    .map(|w| w.id))
            };
            match watch.decide(&new, existing) {
                Ok(Some(id)) => break windows.iter().find(|w| w.id == id).cloned(),
                Ok(None) => {}
                Err(e) => {
                    self.launcher.keep(child);
                    return Err(e);
                }
            }
            if Instant::now() >= watch.deadline() {
                break None;
            }
            std::thread::sleep(RECHECK);
        };
        self.launcher.keep(child);
        let Some(window) = found else { return Err(watch.timed_out()) };
        let appeared = watch.elapsed();
        if let Err(e) = self.activate_window(window.id) {
            warn!("window {} of {} appeared but was not activated: {e}", window.id, plan.program.display());
        }
        let info = self.info(&window);
        Ok(watch.launched(plan.app.unwrap_or(info.app), info.pid, &window.id, appeared))
    }
}

impl Windows for GnomeWindows {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        if self.shell.overview_visible()? {
            return Ok(Some(self.overview().info));
        }
        let windows = self.windows()?;
        Ok(windows.iter().rev().find(|w| w.focus && !w.minimized).map(|w| self.info(w)))
    }

    fn launch_app(&self, name: &str) -> Result<Launched, PlatformError> {
        let plan = self.launcher.plan_app(name)?;
        self.launch(plan)
    }

    fn open_url(&self, url: &str) -> Result<Launched, PlatformError> {
        let plan = self.launcher.plan_browser(Some(url))?;
        self.launch(plan)
    }

    fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
        let mut stack: Vec<StackedWindow> = self
            .windows()?
            .iter()
            .map(|w| StackedWindow {
                handle: w.id,
                info: self.info(w),
                kind: w.kind(),
                minimized: w.minimized,
                active: w.focus,
            })
            .collect();
        if self.shell.overview_visible()? {
            for w in &mut stack {
                w.active = false;
            }
            stack.push(self.overview());
        }
        Ok(stack)
    }

    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        if handle == 0 {
            return Err(PlatformError::Invalid(format!("the {OVERVIEW_TITLE} is not a window to raise")));
        }
        self.activate_window(handle)
    }
}

impl SurfaceOrigins for GnomeWindows {
    fn surface_origins(&self) -> Result<Vec<SurfaceOrigin>, PlatformError> {
        let monitors = match &self.scales {
            Some(scales) => scales.current()?,
            None => Vec::new(),
        };
        Ok(self
            .windows()?
            .into_iter()
            .filter(|w| !w.minimized)
            .map(|w| {
                let (b, f) = (self.to_screen(w.buffer), self.to_screen(w.frame));
                let scale = scale_of(&monitors, w.frame);
                SurfaceOrigin { title: w.title, surface: Point::new(b.x, b.y), geometry: Point::new(f.x, f.y), scale }
            })
            .collect())
    }

    /// GNOME Shell's own panels (the top bar, its menus) report stage coordinates.
    fn global_apps(&self) -> Vec<(String, Point)> {
        vec![("gnome-shell".to_owned(), Point::new(-self.layout.x, -self.layout.y))]
    }
}
