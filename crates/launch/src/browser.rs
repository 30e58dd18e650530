//! The browser handrail manages: Debian's Chromium, started with accessibility on and a private profile.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use handrail_platform::PlatformError;

use crate::procs::{find_program, is_executable};

/// Where Debian and Ubuntu put Chromium, tried before `PATH`.
const KNOWN_PATHS: &[&str] = &["/usr/bin/chromium", "/usr/bin/chromium-browser"];
/// Names searched on `PATH`.
const NAMES: &[&str] = &["chromium", "chromium-browser"];

/// WM_CLASS names (lower case) a Chromium window carries. With a non-default profile the instance is
/// `chromium (/path/to/profile)`, so instances are compared by their first word.
pub(crate) const WINDOW_CLASSES: &[&str] = &["chromium", "chromium-browser"];

/// Environment the browser needs on top of the launch environment: without it Chromium builds no
/// accessibility tree for web content even with `--force-renderer-accessibility`.
pub(crate) const ENV: &[(&str, &str)] = &[("ACCESSIBILITY_ENABLED", "1")];

/// Creates a browser's profile directory when missing, private to its owner (mode 700).
pub(crate) fn private_profile(dir: &Path) -> Result<(), PlatformError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .and_then(|()| fs::set_permissions(dir, fs::Permissions::from_mode(0o700)))
        .map_err(|e| PlatformError::Failed(format!("creating browser profile {}: {e}", dir.display())))
}

/// The browser executable: `configured` when given (it must exist), else the known paths, else `PATH`.
pub(crate) fn locate(configured: Option<&Path>, path_var: Option<&str>) -> Result<PathBuf, PlatformError> {
    let found = match configured {
        Some(p) => is_executable(p).then(|| p.to_owned()),
        None => KNOWN_PATHS
            .iter()
            .map(PathBuf::from)
            .find(|p| is_executable(p))
            .or_else(|| NAMES.iter().find_map(|n| find_program(n, path_var))),
    };
    found.ok_or_else(|| {
        let searched = match configured {
            Some(p) => p.display().to_string(),
            None => format!("{} and PATH", KNOWN_PATHS.join(", ")),
        };
        PlatformError::Unavailable(format!(
            "a web browser (searched {searched}; install Debian's `chromium` package: apt-get install chromium)"
        ))
    })
}

/// Chromium's arguments. `extra` (the caller's, e.g. a proxy) come after handrail's own and before the
/// URL. `url` is one argv element, never shell text, and always last; `None` opens a blank window.
pub(crate) fn args(profile: &Path, extra: &[String], url: Option<&str>) -> Vec<String> {
    let mut args: Vec<String> = [
        // Web content enters the accessibility tree only with this (plus ACCESSIBILITY_ENABLED=1).
        "--force-renderer-accessibility",
        // Root in containers cannot use the setuid/namespace sandbox; --test-type hides the warning bar.
        "--no-sandbox",
        "--test-type",
        // No first-run dialogs or background traffic that would change the screen on their own.
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-gpu",
        // No keyring prompt.
        "--password-store=basic",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.push("--new-window".into());
    args.extend(extra.iter().cloned());
    if let Some(url) = url {
        args.push(url.to_owned());
    }
    args
}

/// Refuses what must never reach Chromium's command line even after the engine's guards: an argument
/// starting with `-` would be read as a switch, and whitespace or control characters are no URL.
pub fn check_url(url: &str) -> Result<(), PlatformError> {
    if url.is_empty() {
        return Err(PlatformError::Invalid("open_url needs a URL".into()));
    }
    if url.starts_with('-') {
        return Err(PlatformError::Invalid("a URL cannot start with '-'".into()));
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(PlatformError::Invalid("a URL cannot contain spaces or control characters".into()));
    }
    let scheme = url.split_once(':').map(|(s, _)| s).unwrap_or_default();
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return Err(PlatformError::Invalid("a URL must start with a scheme such as https:".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_keep_the_url_whole_and_last() {
        let a = args(Path::new("/p"), &[], Some("https://x.test/a b?c=1&d"));
        assert_eq!(a.last().map(String::as_str), Some("https://x.test/a b?c=1&d"));
        assert!(a.contains(&"--user-data-dir=/p".to_owned()));
        assert!(a.contains(&"--force-renderer-accessibility".to_owned()));
        assert_eq!(args(Path::new("/p"), &[], None).last().map(String::as_str), Some("--new-window"));
    }

    #[test]
    fn extra_args_come_after_handrails_own_and_before_the_url() {
        let extra = vec!["--proxy-server=http://127.0.0.1:9".to_owned(), "--disable-quic".to_owned()];
        let a = args(Path::new("/p"), &extra, Some("http://x.test/"));
        let n = a.len();
        assert_eq!(a[n - 3..], ["--proxy-server=http://127.0.0.1:9", "--disable-quic", "http://x.test/"]);
        let blank = args(Path::new("/p"), &extra, None);
        assert_eq!(blank.last().map(String::as_str), Some("--disable-quic"));
        assert!(blank.contains(&"--new-window".to_owned()));
    }

    #[test]
    fn url_sanity() {
        assert!(check_url("https://example.com/").is_ok());
        assert!(check_url("http://127.0.0.1:8080/x?y=1").is_ok());
        for bad in ["", "--flag", "-x", "https://a b", "http://x\n", "example.com", "1http://x"] {
            assert!(matches!(check_url(bad), Err(PlatformError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn missing_configured_browser_is_unavailable_and_names_the_package() {
        let err = locate(Some(Path::new("/nonexistent/chromium")), None).unwrap_err();
        assert!(matches!(&err, PlatformError::Unavailable(m) if m.contains("chromium")), "{err}");
    }
}
