//! The GNOME Shell extension handrail ships, and installing it.
//!
//! GNOME on Wayland tells no application where windows are: its `Introspect` interface gives sizes
//! without places and answers only the portal. The extension (`extension/handrail@handrail.dev`,
//! GNOME Shell 43 and 44) serves the window stack on the session bus — every window bottom to top,
//! its frame and buffer rectangles in stage pixels, its app, process and focus — and raises the one
//! asked for. It reads and raises windows only: nothing is typed, captured or closed through it.
//!
//! The names here are the one definition of its D-Bus interface for both ends: the GNOME backend
//! reading it and the sandbox waiting for it.

use std::path::{Path, PathBuf};

/// The extension's id, also its directory's name.
pub const UUID: &str = "handrail@handrail.dev";
/// The well-known name the extension owns on the session bus.
pub const BUS_NAME: &str = "dev.handrail.Shell";
/// The object serving [`INTERFACE`].
pub const OBJECT_PATH: &str = "/dev/handrail/Shell/Windows";
/// `List() -> aa{sv}`, `Activate(t) -> b`, properties `Version` (u), `OverviewVisible` (b) and
/// `StartupComplete` (b: GNOME Shell's start-up animation is over and input reaches windows).
pub const INTERFACE: &str = "dev.handrail.Shell.Windows";
/// The interface version this handrail reads (the `Version` property).
pub const VERSION: u32 = 1;
/// GNOME Shell releases the extension is written for (its `metadata.json`); GNOME 45 changed the
/// extension format to ES modules.
pub const SHELL_VERSIONS: [&str; 2] = ["43", "44"];

/// The extension's files: name and contents.
pub const FILES: [(&str, &str); 2] = [
    ("metadata.json", include_str!("../extension/handrail@handrail.dev/metadata.json")),
    ("extension.js", include_str!("../extension/handrail@handrail.dev/extension.js")),
];

/// Why installing failed.
#[derive(Debug, thiserror::Error)]
#[error("installing the GNOME Shell extension into {dir}: {source}")]
pub struct InstallError {
    pub dir: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Where a user's extensions live under `data_home` (`$XDG_DATA_HOME`, by default `~/.local/share`).
pub fn install_dir(data_home: &Path) -> PathBuf {
    data_home.join("gnome-shell").join("extensions").join(UUID)
}

/// Writes the extension into `data_home`'s extension directory and returns that directory. Files
/// already there with the same contents are left untouched, so installing again is harmless.
/// GNOME Shell on Wayland loads an extension installed while it runs only at the next login.
pub fn install(data_home: &Path) -> Result<PathBuf, InstallError> {
    let dir = install_dir(data_home);
    let fail = |source| InstallError { dir: dir.clone(), source };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    for (name, contents) in FILES {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == contents.as_bytes()) {
            continue;
        }
        std::fs::write(&path, contents).map_err(fail)?;
    }
    Ok(dir)
}

/// Whether the installed copy under `data_home` is this handrail's (absent or older ones are not).
pub fn is_installed(data_home: &Path) -> bool {
    let dir = install_dir(data_home);
    FILES.iter().all(|(name, contents)| std::fs::read(dir.join(name)).is_ok_and(|old| old == contents.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata() -> serde_json::Value {
        serde_json::from_str(FILES[0].1).expect("metadata.json is JSON")
    }

    #[test]
    fn the_metadata_names_this_uuid_and_these_shell_versions() {
        let m = metadata();
        assert_eq!(m["uuid"], UUID);
        let versions: Vec<&str> =
            m["shell-version"].as_array().expect("shell-version").iter().filter_map(|v| v.as_str()).collect();
        assert_eq!(versions, SHELL_VERSIONS);
    }

    #[test]
    fn the_script_serves_the_names_the_readers_use() {
        let js = FILES[1].1;
        for name in [BUS_NAME, OBJECT_PATH, INTERFACE] {
            assert!(js.contains(&format!("'{name}'")) || js.contains(&format!("\"{name}\"")), "{name} in extension.js");
        }
        assert!(js.contains(&format!("return {VERSION};")), "the served version is {VERSION}");
    }

    #[test]
    fn installing_writes_every_file_once_and_again_changes_nothing() {
        let home = std::env::temp_dir().join(format!("handrail-ext-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        assert!(!is_installed(&home));
        let dir = install(&home).expect("installs");
        assert_eq!(dir, home.join("gnome-shell/extensions").join(UUID));
        assert!(is_installed(&home));
        let modified = std::fs::metadata(dir.join("extension.js")).and_then(|m| m.modified()).expect("mtime");
        install(&home).expect("installs again");
        let again = std::fs::metadata(dir.join("extension.js")).and_then(|m| m.modified()).expect("mtime");
        assert_eq!(modified, again, "an identical file is not rewritten");
        std::fs::write(dir.join("extension.js"), "old").expect("write");
        assert!(!is_installed(&home), "another version is not this one");
        install(&home).expect("replaces it");
        assert!(is_installed(&home));
        let _ = std::fs::remove_dir_all(&home);
    }
}
