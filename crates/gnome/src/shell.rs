//! GNOME Shell's windows, read through handrail's extension (`handrail-gnome-extension`).
//!
//! GNOME on Wayland tells no client where windows are; the extension serves the stack on the
//! session bus. This module is its client: one connection, `List` decoded into [`ShellWindow`]s
//! (bottom to top, as GNOME Shell stacks them), `Activate`, and whether the overview is open.
//! Every field the extension sends is checked; a window whose description lacks one is an error
//! naming it, never a window at a guessed place.

use std::sync::Mutex;
use std::time::Duration;

use handrail_dbus::wire::{Arg, Call, Value};
use handrail_dbus::Bus;
use handrail_gnome_extension::{BUS_NAME, INTERFACE, OBJECT_PATH, VERSION};

/// The oldest extension version this handrail still reads (1: no `LayoutGroup`, so keys are typed as
/// on a Latin layout): an upgraded handrail works in a session until its next login.
const OLDEST_READ: u32 = 1;
use handrail_platform::{Rect, WindowKind};

use crate::error::GnomeError;

/// GNOME Shell answers in milliseconds unless it hangs.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// One window as GNOME Shell has it. Rectangles are in stage coordinates (the layout of all
/// monitors, logical pixels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellWindow {
    /// mutter's window id: stable while the window exists.
    pub id: u64,
    pub title: String,
    /// `WM_CLASS` on X11, the app id on Wayland.
    pub wm_class: String,
    /// The desktop entry GNOME Shell matched the window to (`org.gnome.Calculator.desktop`), or
    /// `window:N` for none.
    pub app_id: String,
    /// That entry's name (`Calculator`).
    pub app_name: String,
    pub pid: Option<u32>,
    /// The visible frame, decorations included, shadows not.
    pub frame: Rect,
    /// The buffer the app draws, client-side shadows included: what window-relative coordinates
    /// (AT-SPI's on Wayland) count from.
    pub buffer: Rect,
    /// mutter's window type (`Meta.WindowType`).
    pub window_type: u32,
    /// The window this one is a dialog of.
    pub transient_for: Option<u64>,
    pub minimized: bool,
    /// On the active workspace and not hidden.
    pub showing: bool,
    /// Has the keyboard focus.
    pub focus: bool,
}

/// `Meta.WindowType` values that matter here.
mod window_type {
    pub const DESKTOP: u32 = 1;
    pub const DIALOG: u32 = 3;
    pub const MODAL_DIALOG: u32 = 4;
    pub const MENU: u32 = 6;
    pub const DROPDOWN_MENU: u32 = 9;
    pub const OVERRIDE_OTHER: u32 = 15;
}

impl ShellWindow {
    /// What the window is to a person: menus, tooltips, notifications and drag icons are pop-ups,
    /// dialogs and windows transient for another are dialogs.
    pub fn kind(&self) -> WindowKind {
        use window_type::*;
        match self.window_type {
            DIALOG | MODAL_DIALOG => WindowKind::Dialog,
            MENU | DROPDOWN_MENU..=OVERRIDE_OTHER => WindowKind::Popup,
            _ if self.transient_for.is_some() => WindowKind::Dialog,
            _ => WindowKind::Normal,
        }
    }

    /// The desktop's own background window (a desktop-icons extension's): part of the wallpaper,
    /// never a window a person works in.
    pub fn is_desktop(&self) -> bool {
        self.window_type == window_type::DESKTOP
    }
}

/// A connection to the extension.
pub struct ShellWindows {
    bus: Mutex<Bus>,
    /// The interface version the running extension serves.
    version: u32,
}

impl std::fmt::Debug for ShellWindows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellWindows").finish_non_exhaustive()
    }
}

fn call<'a>(member: &'a str, interface: &'a str, args: &'a [Arg]) -> Call<'a> {
    Call { destination: BUS_NAME, path: OBJECT_PATH, interface, member, args, flags: 0 }
}

impl ShellWindows {
    /// Connects to the session bus at `address` and checks that the extension runs and speaks the
    /// version this handrail reads.
    pub fn connect(address: &str) -> Result<ShellWindows, GnomeError> {
        let bus = Bus::connect(address, CALL_TIMEOUT, Box::new(|_| {}))?;
        let mut shell = ShellWindows { bus: Mutex::new(bus), version: 0 };
        let version = shell.property("Version").map_err(|e| match e {
            GnomeError::Dbus(handrail_dbus::DbusError::Remote { name, .. })
                if name.ends_with("ServiceUnknown") || name.ends_with("NameHasNoOwner") =>
            {
                GnomeError::NoExtension
            }
            other => other,
        })?;
        match version.as_u32() {
            Some(v @ (OLDEST_READ..=VERSION)) => {
                if v < VERSION {
                    log::warn!(
                        "handrail's GNOME Shell extension in this session is version {v}, older than this handrail's \
                         ({VERSION}): keys are typed as on a Latin layout; run `handrail gnome-extension` and log in \
                         again for the rest"
                    );
                }
                shell.version = v;
                Ok(shell)
            }
            _ => Err(GnomeError::Unexpected(format!(
                "handrail's GNOME Shell extension serves version {version:?}; this handrail reads {VERSION} \
                 (install this handrail's extension: `handrail gnome-extension`, then log in again)"
            ))),
        }
    }

    fn bus(&self) -> std::sync::MutexGuard<'_, Bus> {
        // A bus whose holder panicked is still a bus.
        self.bus.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn property(&self, name: &str) -> Result<Value, GnomeError> {
        let args = [Arg::Str(INTERFACE.to_owned()), Arg::Str(name.to_owned())];
        let reply = self.bus().call(&call("Get", PROPERTIES, &args), CALL_TIMEOUT, "the extension's properties")?;
        Ok(reply.first()?)
    }

    /// Every window, bottom to top.
    pub fn list(&self) -> Result<Vec<ShellWindow>, GnomeError> {
        let reply = self.bus().call(&call("List", INTERFACE, &[]), CALL_TIMEOUT, "the extension's List")?;
        let value = reply.first()?;
        let entries = value.as_array().ok_or_else(|| GnomeError::Unexpected(format!("List answered {value:?}")))?;
        entries.iter().map(parse_window).collect()
    }

    /// Raises window `id` (restoring it when minimised, switching to its workspace) and gives it the
    /// focus; false when no such window exists.
    pub fn activate(&self, id: u64) -> Result<bool, GnomeError> {
        let args = [Arg::U64(id)];
        let reply = self.bus().call(&call("Activate", INTERFACE, &args), CALL_TIMEOUT, "the extension's Activate")?;
        match reply.first()?.unwrapped() {
            Value::Bool(found) => Ok(*found),
            other => Err(GnomeError::Unexpected(format!("Activate answered {other:?}"))),
        }
    }

    /// The active keyboard layout: its group in the compositor's keymap.
    pub fn layout_group(&self) -> Result<u32, GnomeError> {
        if self.version < 2 {
            return Err(GnomeError::Unexpected(format!(
                "the session's extension (version {}) does not tell the active keyboard layout",
                self.version
            )));
        }
        match self.property("LayoutGroup")?.unwrapped() {
            Value::U32(g) => Ok(*g),
            other => Err(GnomeError::Unexpected(format!("LayoutGroup is {other:?}"))),
        }
    }

    /// Whether the overview (the Activities view) covers the screen.
    pub fn overview_visible(&self) -> Result<bool, GnomeError> {
        match self.property("OverviewVisible")?.unwrapped() {
            Value::Bool(b) => Ok(*b),
            other => Err(GnomeError::Unexpected(format!("OverviewVisible is {other:?}"))),
        }
    }
}

/// One `a{sv}` of `List` as a window.
pub fn parse_window(entry: &Value) -> Result<ShellWindow, GnomeError> {
    let fields = entry.as_array().ok_or_else(|| GnomeError::Unexpected(format!("a window is {entry:?}")))?;
    let get = |key: &str| -> Result<&Value, GnomeError> {
        fields
            .iter()
            .filter_map(|f| f.as_struct())
            .find(|kv| kv.first().and_then(Value::as_str) == Some(key))
            .and_then(|kv| kv.get(1))
            .map(Value::unwrapped)
            .ok_or_else(|| GnomeError::Unexpected(format!("a window without {key:?}: {entry:?}")))
    };
    let bad = |key: &str, v: &Value| GnomeError::Unexpected(format!("a window's {key:?} is {v:?}"));
    let string = |key: &str| -> Result<String, GnomeError> {
        let v = get(key)?;
        v.as_str().map(str::to_owned).ok_or_else(|| bad(key, v))
    };
    let boolean = |key: &str| -> Result<bool, GnomeError> {
        match get(key)? {
            Value::Bool(b) => Ok(*b),
            v => Err(bad(key, v)),
        }
    };
    let u64_of = |key: &str| -> Result<u64, GnomeError> {
        match get(key)? {
            Value::U64(n) => Ok(*n),
            v => Err(bad(key, v)),
        }
    };
    let rect = |key: &str| -> Result<Rect, GnomeError> {
        let v = get(key)?;
        match v.as_struct() {
            Some([Value::I32(x), Value::I32(y), Value::I32(w), Value::I32(h)]) if *w >= 0 && *h >= 0 => {
                Ok(Rect::new(*x, *y, w.unsigned_abs(), h.unsigned_abs()))
            }
            _ => Err(bad(key, v)),
        }
    };
    let pid =
        get("pid")?.as_i32().ok_or_else(|| GnomeError::Unexpected("a window's \"pid\" is not an int32".into()))?;
    let window_type =
        get("type")?.as_u32().ok_or_else(|| GnomeError::Unexpected("a window's \"type\" is not a uint32".into()))?;
    Ok(ShellWindow {
        id: u64_of("id")?,
        title: string("title")?,
        wm_class: string("wm-class")?,
        app_id: string("app-id")?,
        app_name: string("app-name")?,
        // mutter says -1 (or 0) for a process it does not know.
        pid: u32::try_from(pid).ok().filter(|&p| p > 0),
        frame: rect("frame")?,
        buffer: rect("buffer")?,
        window_type,
        transient_for: Some(u64_of("transient-for")?).filter(|&t| t != 0),
        minimized: boolean("minimized")?,
        showing: boolean("showing")?,
        focus: boolean("focus")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(overrides: &[(&str, Value)]) -> Value {
        let v = |x: Value| Value::Variant(Box::new(x));
        let rect = |x, y, w, h| Value::Struct(vec![Value::I32(x), Value::I32(y), Value::I32(w), Value::I32(h)]);
        let mut fields: Vec<(&str, Value)> = vec![
            ("id", Value::U64(479168088)),
            ("title", Value::Str("gtk3-widget-factory".into())),
            ("wm-class", Value::Str("gtk3-widget-factory".into())),
            ("app-id", Value::Str("gtk3-widget-factory.desktop".into())),
            ("app-name", Value::Str("Widget Factory".into())),
            ("pid", Value::I32(23484)),
            ("frame", rect(0, 32, 1361, 740)),
            ("buffer", rect(-26, 9, 1413, 792)),
            ("type", Value::U32(0)),
            ("transient-for", Value::U64(0)),
            ("minimized", Value::Bool(false)),
            ("showing", Value::Bool(true)),
            ("focus", Value::Bool(true)),
            ("client-type", Value::U32(0)),
        ];
        for (k, val) in overrides {
            match fields.iter_mut().find(|(key, _)| key == k) {
                Some(f) => f.1 = val.clone(),
                None => fields.push((k, val.clone())),
            }
        }
        Value::Array(fields.into_iter().map(|(k, x)| Value::Struct(vec![Value::Str(k.into()), v(x)])).collect())
    }

    #[test]
    fn a_window_is_read_as_the_extension_sends_it() {
        let w = parse_window(&entry(&[])).expect("parses");
        assert_eq!(w.id, 479168088);
        assert_eq!((w.title.as_str(), w.app_name.as_str()), ("gtk3-widget-factory", "Widget Factory"));
        assert_eq!(w.frame, Rect::new(0, 32, 1361, 740));
        assert_eq!(w.buffer, Rect::new(-26, 9, 1413, 792));
        assert_eq!((w.pid, w.transient_for, w.focus, w.minimized), (Some(23484), None, true, false));
        assert_eq!(w.kind(), WindowKind::Normal);
    }

    #[test]
    fn kinds_follow_the_window_type_and_the_parent() {
        let kind = |t: u32, parent: u64| {
            parse_window(&entry(&[("type", Value::U32(t)), ("transient-for", Value::U64(parent))]))
                .expect("parses")
                .kind()
        };
        assert_eq!(kind(0, 7), WindowKind::Dialog, "a normal window transient for another");
        assert_eq!(kind(4, 0), WindowKind::Dialog);
        for popup in [6, 9, 10, 11, 12, 13, 14, 15] {
            assert_eq!(kind(popup, 0), WindowKind::Popup, "type {popup}");
        }
        assert!(parse_window(&entry(&[("type", Value::U32(1))])).expect("parses").is_desktop());
    }

    #[test]
    fn an_unknown_process_is_none() {
        for pid in [-1, 0] {
            assert_eq!(parse_window(&entry(&[("pid", Value::I32(pid))])).expect("parses").pid, None);
        }
    }

    #[test]
    fn a_missing_or_mistyped_field_is_named() {
        let without: Vec<Value> = match entry(&[]) {
            Value::Array(fields) => {
                fields.into_iter().filter(|f| f.as_struct().and_then(|kv| kv[0].as_str()) != Some("buffer")).collect()
            }
            _ => unreachable!(),
        };
        let e = parse_window(&Value::Array(without)).expect_err("no buffer").to_string();
        assert!(e.contains("\"buffer\""), "{e}");
        let e = parse_window(&entry(&[("focus", Value::U32(1))])).expect_err("mistyped").to_string();
        assert!(e.contains("\"focus\""), "{e}");
        let e = parse_window(&entry(&[("frame", Value::Struct(vec![Value::I32(0); 3]))]))
            .expect_err("three numbers")
            .to_string();
        assert!(e.contains("\"frame\""), "{e}");
        let negative = Value::Struct(vec![Value::I32(0), Value::I32(0), Value::I32(-5), Value::I32(10)]);
        assert!(parse_window(&entry(&[("frame", negative)])).is_err(), "a negative width");
        assert!(parse_window(&Value::U32(3)).is_err());
    }
}
