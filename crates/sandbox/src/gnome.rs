//! The GNOME session of a sandbox: a headless GNOME Shell, with PipeWire and WirePlumber for its
//! screen casts and a stand-in for logind.
//!
//! Started after the session bus (mutter, inside GNOME Shell, serves its remote-desktop and
//! screen-cast interfaces on it, and a process on that bus may use them without a dialog):
//! - a private **system bus** (a `dbus-daemon` with this module's configuration) and, on it,
//!   python-dbusmock's **logind** template: GNOME Shell exits at start without logind, and the
//!   machine's own must not learn of (or be asked about) a private desktop;
//! - `pipewire` (ready when its socket exists in the runtime directory) and `wireplumber` (the session
//!   manager that links a screen cast to its reader; a stream never links without it);
//! - `gnome-shell --headless --wayland --no-x11 --virtual-monitor WxH --wayland-display NAME`, with
//!   settings from a key file in the sandbox's home (GSettings' `keyfile` backend: nothing of the
//!   person's own dconf database is read or written) that enable handrail's extension
//!   (`handrail-gnome-extension`, installed into the sandbox's data directory), turn animations off
//!   (none runs in the X11 sandbox either) and notification banners too (GNOME says "logged in as a
//!   privileged user" to a root session, and "… is ready" for windows it gives no focus, in banners
//!   over the top of the screen for seconds: noise to every observation) and key repeat (a key's
//!   release that reaches a starved app more than the repeat delay after its press would type the
//!   letter twice; seen under load as "hhandrail"; the engine's read-back catches that on a
//!   person's desktop, where repeat stays on). Ready when it owns
//!   `org.gnome.Mutter.RemoteDesktop`, the extension owns its name and says start-up is complete
//!   (until then a pane over the screen takes every input event), and the overview GNOME Shell
//!   shows at login is closed again.
//!
//! GNOME Shell draws with a software renderer (no GPU needed) and runs as the sandbox's owner, root
//! included.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::SandboxError;

/// PipeWire's socket in the runtime directory.
pub const PIPEWIRE_SOCKET: &str = "pipewire-0";
/// GNOME Shell's Wayland socket in the runtime directory.
pub const WAYLAND_NAME: &str = "wayland-handrail";
/// The name mutter owns once its remote-desktop interface is served.
pub const REMOTE_DESKTOP_NAME: &str = "org.gnome.Mutter.RemoteDesktop";
/// The name the logind stand-in owns on the private system bus.
pub const LOGIND_NAME: &str = "org.freedesktop.login1";
/// The private system bus's socket in the runtime directory.
pub const SYSTEM_BUS_SOCKET: &str = "system_bus";

/// Where `scripts/setup-trixie` makes the root file system with GNOME 48 (Debian 13), unless
/// [`GNOME_ROOT_VAR`] names another.
pub const DEFAULT_GNOME_ROOT: &str = "/var/cache/handrail/trixie-gnome";
/// The variable naming the GNOME 48 root file system's place (read by the tests and scripts).
pub const GNOME_ROOT_VAR: &str = "HANDRAIL_GNOME_ROOT";

/// The GNOME 48 root file system's place: [`GNOME_ROOT_VAR`], else [`DEFAULT_GNOME_ROOT`].
pub fn trixie_gnome_root() -> PathBuf {
    std::env::var_os(GNOME_ROOT_VAR).filter(|v| !v.is_empty()).map_or_else(|| DEFAULT_GNOME_ROOT.into(), PathBuf::from)
}

/// The programs a GNOME session needs, located before anything starts.
#[derive(Debug, Clone)]
pub struct Programs {
    pub gnome_shell: PathBuf,
    pub pipewire: PathBuf,
    pub wireplumber: PathBuf,
    /// A Python that imports `dbusmock` (for the logind stand-in).
    pub python: PathBuf,
    /// Asks a bus whether a name has its owner yet, and closes the overview.
    pub dbus_send: PathBuf,
    /// The desktop portal's programs, when the sandbox runs it.
    pub portal: Option<PortalPrograms>,
    /// Where GNOME Shell, PipeWire and WirePlumber come from when not the machine's own (their
    /// paths above are then paths inside it).
    pub root_fs: Option<RootFs>,
}

/// The desktop portal as a GNOME session runs it.
#[derive(Debug, Clone)]
pub struct PortalPrograms {
    pub permission_store: PathBuf,
    /// GNOME's backend (its dialogs).
    pub backend: PathBuf,
    pub portal: PathBuf,
}

/// The names the portal's three processes own once they serve.
pub const PERMISSION_STORE_NAME: &str = "org.freedesktop.impl.portal.PermissionStore";
pub const PORTAL_BACKEND_NAME: &str = "org.freedesktop.impl.portal.desktop.gnome";
pub const PORTAL_NAME: &str = "org.freedesktop.portal.Desktop";

/// Where the portal's programs are installed (they are not on PATH).
const LIBEXEC: &str = "usr/libexec";

/// `program` in the machine's `/usr/libexec`.
pub fn require_libexec(program: &str, package: &'static str) -> Result<PathBuf, SandboxError> {
    let path = Path::new("/").join(LIBEXEC).join(program);
    if path.is_file() {
        return Ok(path);
    }
    Err(SandboxError::MissingProgram { program: program.to_owned(), package, searched: format!("/{LIBEXEC}") })
}

/// A root file system the GNOME session's own programs run from, through bubblewrap.
#[derive(Debug, Clone)]
pub struct RootFs {
    bwrap: PathBuf,
    root: PathBuf,
}

/// Where a program is looked for inside a root file system.
const ROOT_FS_BIN: &str = "usr/bin";

impl RootFs {
    /// A root file system at `root`, entered with the `bwrap` program; it must hold a system.
    pub fn open(bwrap: PathBuf, root: PathBuf) -> Result<RootFs, SandboxError> {
        if !root.join(ROOT_FS_BIN).is_dir() {
            return Err(SandboxError::InvalidOption(format!(
                "GNOME root {}: no {ROOT_FS_BIN} there; make one with scripts/setup-trixie",
                root.display()
            )));
        }
        Ok(RootFs { bwrap, root })
    }

    /// `program`'s path inside the root file system, if it is installed there.
    pub fn require(&self, program: &str, package: &'static str) -> Result<PathBuf, SandboxError> {
        let inside = Path::new("/").join(ROOT_FS_BIN).join(program);
        if self.root.join(ROOT_FS_BIN).join(program).is_file() {
            return Ok(inside);
        }
        Err(SandboxError::MissingProgram {
            program: program.to_owned(),
            package,
            searched: format!("{} (the GNOME root file system)", self.root.join(ROOT_FS_BIN).display()),
        })
    }

    /// `program`'s path inside the root file system's `/usr/libexec`, if it is installed there.
    pub fn require_libexec(&self, program: &str, package: &'static str) -> Result<PathBuf, SandboxError> {
        if self.root.join(LIBEXEC).join(program).is_file() {
            return Ok(Path::new("/").join(LIBEXEC).join(program));
        }
        Err(SandboxError::MissingProgram {
            program: program.to_owned(),
            package,
            searched: format!("{} (the GNOME root file system)", self.root.join(LIBEXEC).display()),
        })
    }

    pub fn bwrap(&self) -> &Path {
        &self.bwrap
    }

    /// bubblewrap's arguments before the program: the tree as `/`, a private `/dev` and this
    /// sandbox's `/proc`, and `shared` (the sandbox's directory) at its own path. Everything else
    /// of the machine stays out of sight; the environment is passed on as it is.
    pub fn args(&self, shared: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        args.extend(["--bind".into(), self.root.clone().into_os_string(), "/".into()]);
        args.extend(["--dev".into(), "/dev".into(), "--proc".into(), "/proc".into()]);
        args.extend(["--bind".into(), shared.as_os_str().to_owned(), shared.as_os_str().to_owned()]);
        // No --die-with-parent: it fires when the *thread* that spawned bwrap ends. bwrap stays in
        // the sandbox's process group and under its reaper, as every other process of it does.
        args.push("--".into());
        args
    }
}

/// GNOME Shell's arguments for a virtual monitor of `size`.
pub fn shell_args(size: (u32, u32)) -> Vec<String> {
    let monitor = format!("{}x{}", size.0, size.1);
    ["--headless", "--wayland", "--no-x11", "--virtual-monitor", &monitor, "--wayland-display", WAYLAND_NAME]
        .iter()
        .map(|a| a.to_string())
        .collect()
}

/// A bus daemon configuration for a private system bus listening on `socket`: anyone in the
/// sandbox may own and call anything (there is no one else on it).
pub fn system_bus_config(socket: &Path) -> String {
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"#,
        socket.display()
    )
}

/// The settings GNOME Shell and the apps of a GNOME sandbox read (GSettings' key-file format).
pub fn settings_keyfile() -> String {
    format!(
        "[org/gnome/shell]\nenabled-extensions=['{}']\nwelcome-dialog-last-shown-version='999'\n\n\
         [org/gnome/desktop/interface]\nenable-animations=false\n\n\
         [org/gnome/desktop/notifications]\nshow-banners=false\n\n\
         [org/gnome/desktop/peripherals/keyboard]\nrepeat=false\n",
        handrail_gnome_extension::UUID
    )
}

/// Where GSettings' key-file backend reads under `config_home`.
pub fn settings_keyfile_path(config_home: &Path) -> PathBuf {
    config_home.join("glib-2.0").join("settings").join("keyfile")
}

/// The first Python that imports `dbusmock`: the system's own first (where Debian installs
/// python3-dbusmock), then the one on PATH.
pub fn find_dbusmock_python(on_path: Option<PathBuf>) -> Option<PathBuf> {
    let candidates = [Some(PathBuf::from("/usr/bin/python3")), on_path];
    candidates.into_iter().flatten().find(|python| {
        Command::new(python)
            .args(["-c", "import dbusmock"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_gets_one_virtual_monitor_of_the_size_and_a_named_socket() {
        let args = shell_args((1024, 768));
        assert!(args.windows(2).any(|w| w == ["--virtual-monitor", "1024x768"]), "{args:?}");
        assert!(args.windows(2).any(|w| w == ["--wayland-display", WAYLAND_NAME]));
        assert!(args.contains(&"--no-x11".to_owned()));
        assert!(args.contains(&"--headless".to_owned()));
    }

    #[test]
    fn the_system_bus_listens_on_its_socket_only() {
        let config = system_bus_config(Path::new("/tmp/x/run/system_bus"));
        assert_eq!(config.matches("<listen>").count(), 1);
        assert!(config.contains("<listen>unix:path=/tmp/x/run/system_bus</listen>"), "{config}");
    }

    #[test]
    fn the_settings_enable_the_extension_and_turn_animations_off() {
        let k = settings_keyfile();
        let shell = k.find("[org/gnome/shell]").expect("shell group");
        let interface = k.find("[org/gnome/desktop/interface]").expect("interface group");
        let ext = k.find(handrail_gnome_extension::UUID).expect("the extension");
        assert!(shell < ext && ext < interface, "{k}");
        assert!(k[interface..].contains("enable-animations=false"), "{k}");
        assert!(k.contains("[org/gnome/desktop/peripherals/keyboard]\nrepeat=false"), "{k}");
    }
}
