//! The GNOME Shell extension handrail ships, and installing it.
//!
//! GNOME on Wayland tells no application where windows are: its `Introspect` interface gives sizes
//! without places and answers only the portal. The extension serves the window stack on the
//! session bus — every window bottom to top, its frame and buffer rectangles in stage pixels, its
//! app, process and focus — and raises the one asked for. It reads and raises windows only: nothing
//! is typed, captured or closed through it.
//!
//! GNOME 45 changed what an extension is (GJS scripts before, ES modules since), so it comes in two
//! [`Format`]s: one entry file each (`extension/gnome-43`, `extension/gnome-45`, with their
//! `metadata.json`), followed by the one service body they share (`extension/window-service.js`).
//! [`Format::for_shell`] picks by the release `gnome-shell --version` names ([`shell_release`]).
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
/// `List() -> aa{sv}`, `Activate(t) -> b`, properties `Version` (u), `OverviewVisible` (b),
/// `StartupComplete` (b: GNOME Shell's start-up animation is over and input reaches windows) and
/// `LayoutGroup` (u: the active keyboard layout's group in the keymap).
pub const INTERFACE: &str = "dev.handrail.Shell.Windows";
/// The interface version this handrail reads (the `Version` property).
pub const VERSION: u32 = 2;

/// The extension's two forms, by the GNOME Shell release that loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// GNOME Shell 43 and 44: a GJS script with `init()` (`imports.gi`).
    Script,
    /// GNOME Shell 45 to 48: an ES module whose default export extends `Extension`.
    Module,
}

/// A GNOME Shell release no format is written for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "GNOME Shell {0} is not one handrail's extension is written for (43 to 48); \
     on a newer release, add it to the `shell-version` list of the 45 format's metadata.json once tested"
)]
pub struct UnsupportedShell(pub u32);

impl Format {
    /// The format GNOME Shell `release` (its major version: 43, 48) loads.
    pub fn for_shell(release: u32) -> Result<Format, UnsupportedShell> {
        let listed = |format: Format| format.shell_versions().iter().any(|v| v.parse() == Ok(release));
        [Format::Script, Format::Module].into_iter().find(|f| listed(*f)).ok_or(UnsupportedShell(release))
    }

    /// The releases its `metadata.json` names (GNOME Shell refuses an extension for any other).
    pub fn shell_versions(self) -> &'static [&'static str] {
        match self {
            Format::Script => &["43", "44"],
            Format::Module => &["45", "46", "47", "48"],
        }
    }

    /// Its files: name and contents.
    pub fn files(self) -> [(&'static str, &'static str); 2] {
        match self {
            Format::Script => [
                ("metadata.json", include_str!("../extension/gnome-43/metadata.json")),
                (
                    "extension.js",
                    concat!(
                        include_str!("../extension/gnome-43/entry.js"),
                        include_str!("../extension/window-service.js")
                    ),
                ),
            ],
            Format::Module => [
                ("metadata.json", include_str!("../extension/gnome-45/metadata.json")),
                (
                    "extension.js",
                    concat!(
                        include_str!("../extension/gnome-45/entry.js"),
                        include_str!("../extension/window-service.js")
                    ),
                ),
            ],
        }
    }
}

/// The major release in what `gnome-shell --version` prints (`GNOME Shell 48.7` → 48,
/// `GNOME Shell 43.beta` → 43).
pub fn shell_release(version_output: &str) -> Option<u32> {
    let rest = version_output.trim().strip_prefix("GNOME Shell ")?;
    let major: String = rest.chars().take_while(char::is_ascii_digit).collect();
    major.parse().ok()
}

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

/// Writes the extension in `format` into `data_home`'s extension directory and returns that
/// directory. Files already there with the same contents are left untouched, so installing again is
/// harmless. GNOME Shell on Wayland loads an extension installed while it runs only at the next login.
pub fn install(data_home: &Path, format: Format) -> Result<PathBuf, InstallError> {
    let dir = install_dir(data_home);
    let fail = |source| InstallError { dir: dir.clone(), source };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    for (name, contents) in format.files() {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == contents.as_bytes()) {
            continue;
        }
        std::fs::write(&path, contents).map_err(fail)?;
    }
    Ok(dir)
}

/// Whether the installed copy under `data_home` is this handrail's, in `format` (absent, older or
/// other-format ones are not).
pub fn is_installed(data_home: &Path, format: Format) -> bool {
    let dir = install_dir(data_home);
    format
        .files()
        .iter()
        .all(|(name, contents)| std::fs::read(dir.join(name)).is_ok_and(|old| old == contents.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: [Format; 2] = [Format::Script, Format::Module];

    fn metadata(format: Format) -> serde_json::Value {
        serde_json::from_str(format.files()[0].1).expect("metadata.json is JSON")
    }

    #[test]
    fn each_metadata_names_this_uuid_and_its_formats_shell_versions() {
        for format in FORMATS {
            let m = metadata(format);
            assert_eq!(m["uuid"], UUID);
            let versions: Vec<&str> =
                m["shell-version"].as_array().expect("shell-version").iter().filter_map(|v| v.as_str()).collect();
            assert_eq!(versions, format.shell_versions(), "{format:?}");
        }
    }

    #[test]
    fn every_listed_release_gets_its_format_and_no_other_release_gets_one() {
        for format in FORMATS {
            for v in format.shell_versions() {
                assert_eq!(Format::for_shell(v.parse().expect("a number")), Ok(format));
            }
        }
        for release in [0, 3, 40, 42, 49, 50] {
            let refused = Format::for_shell(release).expect_err("no format");
            assert!(refused.to_string().contains(&release.to_string()), "{refused}");
        }
    }

    #[test]
    fn the_release_is_read_from_what_gnome_shell_prints() {
        assert_eq!(shell_release("GNOME Shell 48.7\n"), Some(48));
        assert_eq!(shell_release("GNOME Shell 43.9"), Some(43));
        assert_eq!(shell_release("GNOME Shell 45.beta"), Some(45));
        assert_eq!(shell_release("GNOME Shell 50"), Some(50));
        for other in ["", "GNOME Shell", "GNOME Shell x.1", "gnome-shell 48.1", "48.1", "Mutter 48.1"] {
            assert_eq!(shell_release(other), None, "{other:?}");
        }
    }

    #[test]
    fn each_script_serves_the_names_the_readers_use_in_its_formats_way() {
        for format in FORMATS {
            let js = format.files()[1].1;
            for name in [BUS_NAME, OBJECT_PATH, INTERFACE] {
                assert!(js.contains(&format!("'{name}'")) || js.contains(&format!("\"{name}\"")), "{name}: {format:?}");
            }
            assert!(js.contains(&format!("return {VERSION};")), "the served version is {VERSION}");
            assert!(js.contains("class WindowService"), "the shared service follows the entry: {format:?}");
            // Each format is only what its GNOME Shell can load: imports.* in a module, or
            // import/export statements in a script, would fail to load the whole extension.
            let module_syntax = js.lines().any(|l| l.starts_with("import ") || l.starts_with("export "));
            match format {
                Format::Script => {
                    assert!(!module_syntax && js.contains("function init()"), "a script: {format:?}");
                }
                Format::Module => {
                    assert!(module_syntax && !js.contains("imports."), "a module: {format:?}");
                    assert!(js.contains("export default class") && js.contains("extends Extension"));
                }
            }
        }
    }

    #[test]
    fn installing_writes_every_file_once_and_again_changes_nothing() {
        let home = std::env::temp_dir().join(format!("handrail-ext-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        assert!(!is_installed(&home, Format::Script));
        let dir = install(&home, Format::Script).expect("installs");
        assert_eq!(dir, home.join("gnome-shell/extensions").join(UUID));
        assert!(is_installed(&home, Format::Script));
        assert!(!is_installed(&home, Format::Module), "one format is not the other");
        let modified = std::fs::metadata(dir.join("extension.js")).and_then(|m| m.modified()).expect("mtime");
        install(&home, Format::Script).expect("installs again");
        let again = std::fs::metadata(dir.join("extension.js")).and_then(|m| m.modified()).expect("mtime");
        assert_eq!(modified, again, "an identical file is not rewritten");
        std::fs::write(dir.join("extension.js"), "old").expect("write");
        assert!(!is_installed(&home, Format::Script), "another version is not this one");
        install(&home, Format::Module).expect("replaces it with the other format");
        assert!(is_installed(&home, Format::Module) && !is_installed(&home, Format::Script));
        let _ = std::fs::remove_dir_all(&home);
    }
}
