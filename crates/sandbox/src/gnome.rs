//! The GNOME session of a sandbox: a headless mutter, with PipeWire and WirePlumber for its screen
//! casts.
//!
//! Started after the session bus (mutter serves its remote-desktop and screen-cast interfaces on
//! it, and a process on that bus may use them without a dialog) and the accessibility bus:
//! `pipewire` (ready when its socket exists in the runtime directory), `wireplumber` (the session
//! manager that links a screen cast to its reader; a stream never links without it), then
//! `mutter --headless --wayland --no-x11 --virtual-monitor WxH --wayland-display NAME`, ready when
//! it owns `org.gnome.Mutter.RemoteDesktop` on the bus and its socket exists. mutter draws with a
//! software renderer (no GPU needed) and runs as the sandbox's owner, root included.

use std::path::PathBuf;

/// PipeWire's socket in the runtime directory.
pub const PIPEWIRE_SOCKET: &str = "pipewire-0";
/// mutter's Wayland socket in the runtime directory.
pub const WAYLAND_NAME: &str = "wayland-handrail";
/// The name mutter owns once its remote-desktop interface is served.
pub const REMOTE_DESKTOP_NAME: &str = "org.gnome.Mutter.RemoteDesktop";

/// The programs a GNOME session needs, located before anything starts.
#[derive(Debug, Clone)]
pub struct Programs {
    pub mutter: PathBuf,
    pub pipewire: PathBuf,
    pub wireplumber: PathBuf,
    /// Asks the bus whether mutter owns its name yet.
    pub dbus_send: PathBuf,
}

/// mutter's arguments for a virtual monitor of `size`.
pub fn mutter_args(size: (u32, u32)) -> Vec<String> {
    let monitor = format!("{}x{}", size.0, size.1);
    ["--headless", "--wayland", "--no-x11", "--virtual-monitor", &monitor, "--wayland-display", WAYLAND_NAME]
        .iter()
        .map(|a| a.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutter_gets_one_virtual_monitor_of_the_size_and_a_named_socket() {
        let args = mutter_args((1024, 768));
        assert!(args.windows(2).any(|w| w == ["--virtual-monitor", "1024x768"]), "{args:?}");
        assert!(args.windows(2).any(|w| w == ["--wayland-display", WAYLAND_NAME]));
        assert!(args.contains(&"--no-x11".to_owned()));
    }
}
