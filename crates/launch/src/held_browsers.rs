//! Browsers other than the managed Chromium, when `open_app` starts them: held to the same URL-policy
//! proxy, each in a private profile of its own, or — while allowed domains restrict where browsers may
//! go — not started at all.
//!
//! A model that was refused in the managed browser may open another one. Chromium's relatives (Google
//! Chrome, Brave, Edge, Vivaldi) take the same command-line switches as the managed Chromium. Firefox
//! takes its proxy from its profile's preferences, written here into a private profile before it
//! starts. Browsers whose proxy cannot be set from outside for certain (WebKitGTK's Epiphany, Qt
//! WebEngine's Falkon and Konqueror, qutebrowser, Midori) are refused while allowed domains are set,
//! with a message that says what to use instead.
//!
//! What a held Firefox cannot promise: its preferences are its own, so its settings page can turn the
//! proxy off. Typed `about:` addresses are refused by the address-bar guard, and the engine's check
//! after every action (`engine::visited`) still sees a forbidden page and goes back; only the
//! Chromium family's switches cannot be changed from inside the browser.

use std::fs;
use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use handrail_platform::PlatformError;

use crate::Plan;

/// How a browser is held to the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BrowserKind {
    /// Chromium's relatives: the managed Chromium's switches.
    Chromium,
    /// Firefox and its rebuilds: preferences in a private profile.
    Firefox,
    /// A browser whose proxy cannot be set from outside for certain.
    Unholdable,
}

/// Executable names (as the desktop entry or `PATH` resolves them) of each kind.
const CHROMIUM_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "google-chrome-beta",
    "google-chrome-unstable",
    "chrome",
    "brave",
    "brave-browser",
    "microsoft-edge",
    "microsoft-edge-stable",
    "vivaldi",
    "vivaldi-stable",
    "opera",
];
const FIREFOX_NAMES: &[&str] = &["firefox", "firefox-esr", "firefox-bin", "librewolf", "iceweasel", "waterfox"];
const UNHOLDABLE_NAMES: &[&str] =
    &["epiphany", "epiphany-browser", "falkon", "konqueror", "qutebrowser", "midori", "surf", "luakit", "dillo"];

/// Which kind of browser `program` is, by its file name; `None` for anything else.
pub(crate) fn kind_of(program: &Path) -> Option<BrowserKind> {
    let name = program.file_name()?.to_str()?.to_lowercase();
    if CHROMIUM_NAMES.contains(&name.as_str()) {
        Some(BrowserKind::Chromium)
    } else if FIREFOX_NAMES.contains(&name.as_str()) {
        Some(BrowserKind::Firefox)
    } else if UNHOLDABLE_NAMES.contains(&name.as_str()) {
        Some(BrowserKind::Unholdable)
    } else {
        None
    }
}

/// Environment a held Firefox needs on top of the launch environment: its accessibility tree is built
/// only when it is told an assistive technology listens.
pub(crate) const FIREFOX_ENV: &[(&str, &str)] = &[("GNOME_ACCESSIBILITY", "1")];

/// Preferences that send every request of a Firefox profile through the proxy at `proxy` and close
/// the ways around it (QUIC, WebRTC's UDP, DNS over HTTPS, speculative connections), with no first-run
/// pages that would change the screen on their own.
pub(crate) fn firefox_prefs(proxy: SocketAddr) -> String {
    let (host, port) = (proxy.ip().to_string(), proxy.port());
    let prefs: Vec<(&str, String)> = vec![
        ("network.proxy.type", "1".into()),
        ("network.proxy.http", format!("{host:?}")),
        ("network.proxy.http_port", port.to_string()),
        ("network.proxy.ssl", format!("{host:?}")),
        ("network.proxy.ssl_port", port.to_string()),
        ("network.proxy.share_proxy_settings", "true".into()),
        ("network.proxy.socks", "\"\"".into()),
        ("network.proxy.no_proxies_on", "\"\"".into()),
        // Loopback addresses too: the allowed domains decide about them, as in Chromium.
        ("network.proxy.allow_hijacking_localhost", "true".into()),
        ("network.proxy.failover_direct", "false".into()),
        ("network.http.http3.enable", "false".into()),
        ("media.peerconnection.enabled", "false".into()),
        ("network.trr.mode", "5".into()),
        ("network.dns.disablePrefetch", "true".into()),
        ("network.prefetch-next", "false".into()),
        ("network.http.speculative-parallel-limit", "0".into()),
        ("browser.shell.checkDefaultBrowser", "false".into()),
        ("browser.aboutwelcome.enabled", "false".into()),
        ("browser.startup.page", "0".into()),
        ("browser.startup.homepage_override.mstone", "\"ignore\"".into()),
        ("startup.homepage_welcome_url", "\"\"".into()),
        ("datareporting.policy.dataSubmissionEnabled", "false".into()),
        ("toolkit.telemetry.reportingpolicy.firstRun", "false".into()),
        ("app.update.auto", "false".into()),
        ("browser.tabs.warnOnClose", "false".into()),
        ("browser.sessionstore.resume_from_crash", "false".into()),
        // Background services, whose refused requests would only fill the results' `blocked:` lines.
        ("dom.push.enabled", "false".into()),
        ("network.captive-portal-service.enabled", "false".into()),
        ("network.connectivity-service.enabled", "false".into()),
        ("browser.safebrowsing.malware.enabled", "false".into()),
        ("browser.safebrowsing.phishing.enabled", "false".into()),
        ("browser.safebrowsing.downloads.enabled", "false".into()),
        ("browser.safebrowsing.update.enabled", "false".into()),
        ("extensions.update.enabled", "false".into()),
        ("extensions.getAddons.cache.enabled", "false".into()),
        ("browser.search.update", "false".into()),
        ("app.normandy.enabled", "false".into()),
        ("toolkit.telemetry.enabled", "false".into()),
        ("datareporting.healthreport.uploadEnabled", "false".into()),
        ("browser.newtabpage.activity-stream.feeds.topsites", "false".into()),
        ("browser.newtabpage.activity-stream.feeds.system.topstories", "false".into()),
        ("browser.urlbar.suggest.topsites", "false".into()),
        ("geo.provider.network.url", "\"\"".into()),
    ];
    let mut text = String::from("// Written by handrail: every request goes through its URL-policy proxy.\n");
    for (name, value) in prefs {
        text.push_str(&format!("user_pref(\"{name}\", {value});\n"));
    }
    text
}

/// The profile directory of a held browser: beside the managed browser's, one per executable.
pub(crate) fn profile_for(managed_profile: &Path, program: &Path) -> PathBuf {
    let name = program.file_name().map_or_else(|| "browser".into(), |n| n.to_string_lossy().into_owned());
    let base = managed_profile.file_name().map_or_else(|| "profile".into(), |n| n.to_string_lossy().into_owned());
    managed_profile.with_file_name(format!("{base}-{name}"))
}

/// Turns `plan` (a browser of `kind` found by name) into one held to the proxy at `proxy`:
/// `chromium_args` are the managed Chromium's proxy switches. The entry's own arguments are dropped:
/// they would only open its default profile or a URL placeholder.
pub(crate) fn hold(
    plan: &mut Plan,
    kind: BrowserKind,
    proxy: SocketAddr,
    chromium_args: &[String],
    profile: &Path,
) -> Result<(), PlatformError> {
    let name = plan.program.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    match kind {
        BrowserKind::Chromium => {
            crate::browser::private_profile(profile)?;
            plan.args = crate::browser::args(profile, chromium_args, None);
            plan.extra_env = crate::browser::ENV;
        }
        BrowserKind::Firefox => {
            crate::browser::private_profile(profile)?;
            let path = profile.join("user.js");
            fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&path)
                .and_then(|mut f| f.write_all(firefox_prefs(proxy).as_bytes()))
                .map_err(|e| PlatformError::Failed(format!("writing {}: {e}", path.display())))?;
            // A later start with the same profile opens a window in the running, held instance.
            plan.args = vec!["--profile".into(), profile.display().to_string(), "--new-window".into()];
            plan.extra_env = FIREFOX_ENV;
        }
        BrowserKind::Unholdable => {
            return Err(PlatformError::Unavailable(format!(
                "{name} behind handrail's URL policy (its proxy cannot be set from outside for certain, so it is not \
                 started while allowed domains are set); open pages with open_url, which uses the browser handrail \
                 holds to the policy, or start Firefox or Chromium with open_app"
            )))
        }
    }
    plan.working_dir = None;
    plan.timeout = plan.timeout.max(std::time::Duration::from_secs(20));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn browsers_are_told_by_their_executable_whatever_directory_holds_it() {
        assert_eq!(kind_of(Path::new("/usr/lib/firefox-esr/firefox-esr")), Some(BrowserKind::Firefox));
        assert_eq!(kind_of(Path::new("/opt/google/chrome/google-chrome")), Some(BrowserKind::Chromium));
        assert_eq!(kind_of(Path::new("/usr/bin/epiphany-browser")), Some(BrowserKind::Unholdable));
        assert_eq!(kind_of(Path::new("/usr/bin/Falkon")), Some(BrowserKind::Unholdable));
        for other in ["/usr/bin/mousepad", "/usr/bin/firefox-wrapper-script", "/usr/bin/chromedriver", "/"] {
            assert_eq!(kind_of(Path::new(other)), None, "{other}");
        }
    }

    #[test]
    fn firefox_prefs_send_everything_through_the_proxy_and_close_the_ways_around_it() {
        let prefs = firefox_prefs("127.0.0.1:40123".parse().expect("an address"));
        for line in [
            r#"user_pref("network.proxy.type", 1);"#,
            r#"user_pref("network.proxy.http", "127.0.0.1");"#,
            r#"user_pref("network.proxy.http_port", 40123);"#,
            r#"user_pref("network.proxy.ssl", "127.0.0.1");"#,
            r#"user_pref("network.proxy.ssl_port", 40123);"#,
            r#"user_pref("network.proxy.no_proxies_on", "");"#,
            r#"user_pref("network.proxy.allow_hijacking_localhost", true);"#,
            r#"user_pref("network.http.http3.enable", false);"#,
            r#"user_pref("media.peerconnection.enabled", false);"#,
            r#"user_pref("network.trr.mode", 5);"#,
        ] {
            assert!(prefs.lines().any(|l| l == line), "missing {line}:\n{prefs}");
        }
        // Every line is a comment or one well-formed preference.
        for line in prefs.lines() {
            assert!(line.starts_with("//") || (line.starts_with("user_pref(\"") && line.ends_with(");")), "{line}");
        }
        let v6 = firefox_prefs("[::1]:8080".parse().expect("an address"));
        assert!(v6.contains(r#"user_pref("network.proxy.http", "::1");"#), "{v6}");
    }

    #[test]
    fn a_held_browser_gets_a_private_profile_of_its_own_beside_the_managed_one() {
        let base = std::env::temp_dir().join(format!("handrail-held-{}", std::process::id()));
        let managed = base.join("browser");
        let firefox = profile_for(&managed, Path::new("/usr/lib/firefox-esr/firefox-esr"));
        assert_eq!(firefox, base.join("browser-firefox-esr"));
        let mut plan = Plan {
            app: Some("Firefox ESR".into()),
            program: PathBuf::from("/usr/lib/firefox-esr/firefox-esr"),
            args: vec!["%u".into()],
            extra_env: &[],
            working_dir: Some(PathBuf::from("/")),
            classes: vec!["firefox-esr".into()],
            timeout: std::time::Duration::from_secs(10),
        };
        hold(&mut plan, BrowserKind::Firefox, "127.0.0.1:9".parse().expect("addr"), &[], &firefox).expect("held");
        assert_eq!(plan.args, ["--profile", &firefox.display().to_string(), "--new-window"]);
        assert_eq!(plan.extra_env, FIREFOX_ENV);
        let user_js = fs::read_to_string(firefox.join("user.js")).expect("user.js");
        assert!(user_js.contains(r#"user_pref("network.proxy.http_port", 9);"#), "{user_js}");
        let mode = |p: &Path| fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
        assert_eq!(mode(&firefox), 0o700);
        assert_eq!(mode(&firefox.join("user.js")), 0o600);

        let chrome = profile_for(&managed, Path::new("/opt/google/chrome/google-chrome"));
        let mut plan = Plan { program: PathBuf::from("/opt/google/chrome/google-chrome"), ..plan };
        let switches = vec!["--proxy-server=http://127.0.0.1:9".to_string()];
        hold(&mut plan, BrowserKind::Chromium, "127.0.0.1:9".parse().expect("addr"), &switches, &chrome).expect("held");
        assert!(plan.args.contains(&format!("--user-data-dir={}", chrome.display())), "{:?}", plan.args);
        assert!(plan.args.contains(&switches[0]), "{:?}", plan.args);

        let mut plan = Plan { program: PathBuf::from("/usr/bin/epiphany-browser"), ..plan };
        let refused = hold(&mut plan, BrowserKind::Unholdable, "127.0.0.1:9".parse().expect("addr"), &[], &base);
        let message = refused.expect_err("refused").to_string();
        assert!(message.contains("epiphany-browser") && message.contains("open_url"), "{message}");
        let _ = fs::remove_dir_all(&base);
    }
}
