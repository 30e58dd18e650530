//! Windows and apps: the stack from CoreGraphics' window list, the frontmost app from NSWorkspace,
//! apps started and URLs opened with `/usr/bin/open`, windows raised through accessibility.

use std::path::{Path, PathBuf};
use std::process::Command;

use handrail_platform::{Launched, PlatformError, StackedWindow, WindowInfo, Windows};
use objc2_app_kit::{NSApplicationActivationOptions, NSRunningApplication};
use objc2_core_foundation::{CFDictionary, CFString, CGRect};
use objc2_core_graphics::{
    kCGWindowAlpha, kCGWindowBounds, kCGWindowLayer, kCGWindowName, kCGWindowNumber, kCGWindowOwnerName,
    kCGWindowOwnerPID, CGRectMakeWithDictionaryRepresentation, CGWindowListCopyWindowInfo, CGWindowListOption,
};

use super::cf;
use super::shared::Shared;
use crate::apps::{find, Found, InstalledApp};
use crate::window_list::{stack, WindowEntry};

pub struct MacWindows {
    shared: Shared,
}

impl MacWindows {
    pub fn new(shared: Shared) -> Self {
        MacWindows { shared }
    }
}

/// The bundle id of a running app (`""` when it has none, as command-line tools do not).
pub fn bundle_of(pid: u32) -> String {
    let Ok(pid) = i32::try_from(pid) else { return String::new() };
    NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
        .and_then(|app| app.bundleIdentifier())
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// The pid of the app macOS says is frontmost, from accessibility's system-wide element: NSWorkspace's
/// answer is kept current by a run loop, which a command-line server does not run. Without the
/// Accessibility permission, `None`: the stack then takes the topmost window's app.
pub fn front_pid() -> Option<u32> {
    super::ax_element::focused_app_pid()
}

/// The system's window list, front to back, on screen only.
fn window_entries() -> Vec<WindowEntry> {
    let options = CGWindowListOption::OptionOnScreenOnly | CGWindowListOption::ExcludeDesktopElements;
    let Some(list) = CGWindowListCopyWindowInfo(options, 0) else { return Vec::new() };
    let mut entries = Vec::new();
    for item in cf::items(&list) {
        let Some(dict) = item.downcast_ref::<CFDictionary>() else { continue };
        // SAFETY: the keys are the framework's own constant strings.
        let get = |key: &CFString| cf::value(dict, key);
        let (number, layer, pid, owner, title, alpha, bounds) = unsafe {
            (
                get(kCGWindowNumber),
                get(kCGWindowLayer),
                get(kCGWindowOwnerPID),
                get(kCGWindowOwnerName),
                get(kCGWindowName),
                get(kCGWindowAlpha),
                get(kCGWindowBounds),
            )
        };
        let num = |v: Option<objc2_core_foundation::CFRetained<objc2_core_foundation::CFType>>| {
            v.and_then(|v| cf::number(&v))
        };
        let text = |v: Option<objc2_core_foundation::CFRetained<objc2_core_foundation::CFType>>| {
            v.and_then(|v| cf::string(&v)).unwrap_or_default()
        };
        let mut rect = CGRect::default();
        let placed = bounds.as_deref().and_then(|b| b.downcast_ref::<CFDictionary>()).is_some_and(|b| {
            // SAFETY: a bounds dictionary the window list gave; `rect` is a valid out-pointer.
            unsafe { CGRectMakeWithDictionaryRepresentation(Some(b), &mut rect) }
        });
        if !placed {
            continue;
        }
        entries.push(WindowEntry {
            number: num(number).unwrap_or(0.0) as u32,
            layer: num(layer).unwrap_or(0.0) as i64,
            pid: num(pid).unwrap_or(0.0) as u32,
            owner: text(owner),
            title: text(title),
            x: rect.origin.x,
            y: rect.origin.y,
            width: rect.size.width,
            height: rect.size.height,
            alpha: num(alpha).unwrap_or(1.0),
        });
    }
    entries
}

/// Where apps are installed.
fn app_folders() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        ["/Applications", "/Applications/Utilities", "/System/Applications", "/System/Applications/Utilities"]
            .iter()
            .map(PathBuf::from)
            .collect();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join("Applications"));
    }
    dirs
}

/// The app bundles installed, with their bundle ids from their Info.plist (read by `defaults`).
fn installed_apps() -> Vec<InstalledApp> {
    let mut apps = Vec::new();
    for dir in app_folders() {
        let Ok(read) = std::fs::read_dir(&dir) else { continue };
        for entry in read.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "app") {
                let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                apps.push(InstalledApp { name, bundle_id: String::new(), path });
            }
        }
    }
    apps
}

fn open(args: &[&str]) -> Result<(), PlatformError> {
    let out = Command::new("/usr/bin/open")
        .args(args)
        .output()
        .map_err(|e| PlatformError::Failed(format!("running open: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(PlatformError::Failed(format!("open {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim())))
    }
}

impl Windows for MacWindows {
    fn frontmost(&self) -> Result<Option<WindowInfo>, PlatformError> {
        Ok(self.stack()?.into_iter().rev().find(|w| w.active).map(|w| w.info))
    }

    fn launch_app(&self, name: &str) -> Result<Launched, PlatformError> {
        let apps = installed_apps();
        // A bundle id ("com.apple.Notes") is opened by id; names are looked up among installed apps.
        if name.contains('.') && !name.ends_with(".app") && !name.contains(' ') {
            open(&["-b", name])?;
            return Ok(Launched { app: name.to_owned(), pid: None });
        }
        match find(&apps, name) {
            Found::App(app) => {
                open(&["-a", &app.path.to_string_lossy()])?;
                Ok(Launched { app: app.name.clone(), pid: None })
            }
            Found::Nothing { close } if close.is_empty() => {
                Err(PlatformError::NotFound(format!("no app called {name:?} is installed")))
            }
            Found::Nothing { close } => Err(PlatformError::NotFound(format!(
                "no app called {name:?} is installed; close: {}",
                close.join(", ")
            ))),
        }
    }

    fn open_url(&self, url: &str) -> Result<Launched, PlatformError> {
        // The URL was vetted by the engine; `open` hands it to the default browser.
        open(&[url])?;
        Ok(Launched { app: "the default browser".to_owned(), pid: None })
    }

    fn stack(&self) -> Result<Vec<StackedWindow>, PlatformError> {
        let space = self.shared.space()?;
        Ok(stack(&window_entries(), front_pid(), &space, bundle_of))
    }

    fn activate(&self, handle: u64) -> Result<(), PlatformError> {
        let windows = self.stack()?;
        let window = windows
            .iter()
            .find(|w| w.handle == handle)
            .ok_or_else(|| PlatformError::NotFound(format!("window {handle:#x} is not on screen")))?;
        let pid = window.info.pid.and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
        let app = NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
            .ok_or_else(|| PlatformError::NotFound(format!("the app of window {handle:#x} is gone")))?;
        app.activateWithOptions(NSApplicationActivationOptions::ActivateAllWindows);
        super::ax_element::raise_window(pid, &window.info.title);
        Ok(())
    }
}
