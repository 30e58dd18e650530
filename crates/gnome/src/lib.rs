//! handrail on GNOME: a desktop driven through mutter's own D-Bus interfaces and GNOME Shell.
//!
//! GNOME's compositor, mutter, offers no wlroots protocols (no screencopy, no virtual pointer or
//! keyboard): what it offers remote tools is a remote-desktop session for input and screen-cast
//! sessions whose frames come as PipeWire streams — the interfaces the desktop portal wraps, and
//! that a process on mutter's session bus may use without a dialog.
//!
//! - [`mutter`]: one remote-desktop session, a screen-cast stream per monitor, tied to it.
//! - [`input`]: pointer, buttons, wheel, keys and text as keysyms through that session; text the
//!   active layout cannot type pasted through the session's clipboard (`clipboard`).
//! - [`keymap`]: the compositor's keymap and active layout, so keys the active layout lacks are
//!   pressed where another layout has them.
//! - [`screen`]: the streams' latest frames composed into the screen (through `handrail-pipewire`).
//! - [`settle`]: settle from those frames (through `handrail-damage`).
//! - [`shell`] and [`windows`]: the window stack, focus and raising through handrail's GNOME Shell
//!   extension (`handrail-gnome-extension`); launching through `handrail-launch`.
//! - accessibility: AT-SPI's window-relative bounds moved onto the screen by each window's buffer
//!   origin (`handrail_platform::window_relative`).
//!
//! - [`portal`]: the same session asked for through the desktop portal (GNOME's consent dialog,
//!   a restore token kept so it is asked once), for a handrail that cannot reach mutter's
//!   interfaces or a person who wants GNOME's consent in the loop.
//!
//! [`GnomeDesktop::connect`] assembles them into a [`Desktop`], on the route [`RouteChoice`] names.
#![cfg(target_os = "linux")]

mod clipboard;
pub mod display;
mod error;
pub mod input;
pub mod keymap;
pub mod mutter;
pub mod portal;
pub mod screen;
pub mod settle;
pub mod shell;
pub mod windows;

pub use display::{MonitorScale, MonitorScales};
pub use error::GnomeError;
pub use input::MutterInput;
pub use mutter::{MutterSession, Route, Stream};
pub use portal::PortalOptions;
pub use screen::MutterScreen;
pub use settle::MutterSettle;
pub use shell::{ShellWindow, ShellWindows};
pub use windows::GnomeWindows;

use std::path::PathBuf;
use std::sync::Arc;

use handrail_imaging::ImageFormat;
use handrail_launch::LaunchEnv;
use handrail_platform::absent::NoNetworkPolicy;
use handrail_platform::window_relative::WindowRelative;
use handrail_platform::{Accessibility, Desktop, Ocr, SystemClock};

/// Everything needed to drive one GNOME session.
#[derive(Debug, Clone)]
pub struct GnomeOptions {
    /// The session bus GNOME Shell serves mutter's interfaces and the extension on.
    pub bus_address: String,
    /// PipeWire's socket for the screen casts; `None` uses the session's default daemon.
    pub pipewire: Option<PathBuf>,
    /// Environment and browser profile for the apps and URLs handrail opens.
    pub launch: LaunchEnv,
    /// Format of the screenshots sent to the model.
    pub image_format: ImageFormat,
    /// The compositor's Wayland socket, where its keymap is read (`WAYLAND_DISPLAY` of the apps'
    /// environment); without it keys are typed as if the layout were Latin.
    pub wayland: Option<PathBuf>,
    /// Through mutter's own interfaces or the desktop portal.
    pub route: RouteChoice,
}

/// How handrail reaches mutter's remote-desktop session.
#[derive(Debug, Clone)]
pub enum RouteChoice {
    /// mutter's own interfaces when its remote-desktop name answers on the bus (no dialog), else
    /// the desktop portal.
    Auto(PortalOptions),
    Mutter,
    Portal(PortalOptions),
}

impl RouteChoice {
    /// The route to take on the bus at `address`.
    fn resolve(&self, address: &str) -> Result<(Route, Option<&PortalOptions>), GnomeError> {
        Ok(match self {
            RouteChoice::Mutter => (Route::Mutter, None),
            RouteChoice::Portal(p) => (Route::Portal, Some(p)),
            RouteChoice::Auto(p) => {
                if name_has_owner(address, mutter::REMOTE_DESKTOP)? {
                    (Route::Mutter, None)
                } else {
                    (Route::Portal, Some(p))
                }
            }
        })
    }
}

/// Whether `name` has an owner on the bus at `address`.
fn name_has_owner(address: &str, name: &str) -> Result<bool, GnomeError> {
    let mut bus = handrail_dbus::Bus::connect(address, mutter::CALL_TIMEOUT, Box::new(|_| {}))?;
    let args = [handrail_dbus::wire::Arg::Str(name.to_owned())];
    let ask =
        mutter::call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", &args);
    let reply = bus.call(&ask, mutter::CALL_TIMEOUT, "NameHasOwner")?;
    Ok(matches!(reply.first()?.unwrapped(), handrail_dbus::wire::Value::Bool(true)))
}

impl GnomeOptions {
    /// The Wayland socket is the one the apps' environment names (`launch`'s `WAYLAND_DISPLAY`, a path
    /// or a name in its `XDG_RUNTIME_DIR`, else this process's).
    pub fn new(bus_address: impl Into<String>, pipewire: Option<PathBuf>, launch: LaunchEnv) -> GnomeOptions {
        let var = |name: &str| launch.vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let runtime_dir = var("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from));
        let wayland = var("WAYLAND_DISPLAY")
            .and_then(|display| handrail_wayland::Socket::resolve(&display, runtime_dir.as_deref()).ok())
            .map(|socket| socket.0);
        GnomeOptions {
            bus_address: bus_address.into(),
            pipewire,
            launch,
            image_format: ImageFormat::default(),
            wayland,
            route: RouteChoice::Auto(PortalOptions::default()),
        }
    }
}

/// Builds [`Desktop`]s on GNOME.
#[derive(Debug)]
pub struct GnomeDesktop;

impl GnomeDesktop {
    /// Opens a remote-desktop session with a screen cast of every monitor, checks that handrail's
    /// extension answers, and assembles a desktop. `accessibility` reports window-relative bounds,
    /// as AT-SPI does on Wayland; they are moved onto the screen here.
    pub fn connect(
        options: GnomeOptions,
        accessibility: Box<dyn Accessibility>,
        ocr: Box<dyn Ocr>,
    ) -> Result<Desktop, GnomeError> {
        // The extension first: without it nothing can be placed, and saying so beats a session
        // opened for nothing.
        let shell = ShellWindows::connect(&options.bus_address)?;
        let session = Arc::new(match options.route.resolve(&options.bus_address)? {
            (Route::Mutter, _) => {
                log::info!("GNOME: screen and input through mutter's remote-desktop interface");
                MutterSession::start(&options.bus_address)?
            }
            (Route::Portal, portal) => {
                log::info!("GNOME: screen and input through the desktop portal");
                MutterSession::start_portal(&options.bus_address, portal.unwrap_or(&PortalOptions::default()))?
            }
        });
        let screen = MutterScreen::open(Arc::clone(&session), options.pipewire.as_deref())?;
        let settle = MutterSettle::start(&screen)
            .map_err(|e| GnomeError::Unexpected(format!("watching the screen casts: {e}")))?;
        let scales = MonitorScales::connect(&options.bus_address)?;
        let keyboard = keyboard_of(&options)?;
        let windows = Arc::new(GnomeWindows::new(shell, options.launch, session.layout()).scaled_by(scales));
        let accessibility = WindowRelative::new(accessibility, Arc::clone(&windows));
        let focused = Arc::clone(&windows);
        let input = MutterInput::new(session).pasting_with(Box::new(move || {
            use handrail_platform::Windows;
            match focused.frontmost() {
                Ok(Some(front)) => handrail_platform::paste::paste_key_for([front.class.as_str()]),
                _ => handrail_platform::paste::PasteKey::CtrlV,
            }
        }));
        let input = match keyboard {
            Some(keyboard) => input.reading_keyboard(keyboard),
            None => input,
        };
        let under = Arc::clone(&windows);
        let input = input.pacing_drags_by(Box::new(move |from, to| handrail_wayland::pace::apps_at(&*under, from, to)));
        Ok(Desktop {
            screen: Box::new(screen),
            input: Box::new(input),
            windows: Box::new(windows),
            settle: Box::new(settle),
            accessibility: Box::new(accessibility),
            ocr,
            encoder: handrail_imaging::encoder(options.image_format),
            clock: Box::new(SystemClock::default()),
            // The caller puts its browser's network guard here, if it started one.
            network: Box::new(NoNetworkPolicy),
            // Apps of this machine: their shells' files are this machine's /proc.
            files: Box::new(handrail_procfs::ProcShellFiles),
            rules: handrail_platform::OsRules::linux(),
        })
    }
}

/// Reads the keyboard (keymap and active layout) before each key and text action: the keymap from
/// the compositor's Wayland socket, the layout from the extension on a connection of its own.
fn keyboard_of(options: &GnomeOptions) -> Result<Option<input::KeyboardOf>, GnomeError> {
    let Some(socket) = options.wayland.clone() else {
        log::warn!("GNOME: no Wayland socket in the apps' environment; keys are typed as on a Latin layout");
        return Ok(None);
    };
    let shell = ShellWindows::connect(&options.bus_address)?;
    let socket = handrail_wayland::Socket(socket);
    let reader =
        keymap::KeymapReader::new(Box::new(move || handrail_wayland::seat_keymap(&socket).map_err(|e| e.to_string())));
    Ok(Some(Box::new(move || {
        let layouts = reader.layouts()?;
        let group = shell.layout_group().map_err(|e| e.to_string())?;
        Ok(keymap::Keyboard::new(layouts, group as usize))
    })))
}
