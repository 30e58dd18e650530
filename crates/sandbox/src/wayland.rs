//! The Wayland session of a sandbox: a private headless sway.
//!
//! sway runs with `WLR_BACKENDS=headless` (one virtual output, no GPU: `WLR_RENDERER=pixman`),
//! `WLR_LIBINPUT_NO_DEVICES=1` (input only from virtual devices) and a config written here: the
//! output's size, a light background, focus that follows clicks rather than the pointer (what
//! activation and typing expect), no Xwayland (apps run natively) and no key bindings, so every key
//! reaches the app.
//!
//! **Never as root.** sway refuses to run as root ("Unable to drop root"). When the sandbox's owner
//! is root, sway runs as an unprivileged user ([`DESKTOP_USER`], which `scripts/setup-desktop`
//! creates; else `nobody`) in a directory that user owns inside the sandbox root; the root directory
//! is then traversable (mode 711) but not listable. The owner (root) reaches sway's sockets through
//! its own privileges; apps started in the sandbox run as the owner and find the compositor through
//! `WAYLAND_DISPLAY` holding the socket's absolute path. sway carries the sandbox marker like every
//! other process, so teardown and the reaper stop it the same way.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The unprivileged user a root owner runs sway as.
pub const DESKTOP_USER: &str = "handrail-desktop";
/// Used when [`DESKTOP_USER`] does not exist.
const FALLBACK_USER: &str = "nobody";

/// A user sway can run as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Account {
    pub uid: u32,
    pub gid: u32,
}

/// The account sway runs as: the owner's own unless that is root; then `wanted` (or
/// [`DESKTOP_USER`], else `nobody`) from /etc/passwd.
pub(crate) fn compositor_account(wanted: Option<&str>) -> Result<Option<Account>, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    let passwd = fs::read_to_string("/etc/passwd").map_err(|e| format!("reading /etc/passwd: {e}"))?;
    let names: Vec<&str> = match wanted {
        Some(w) => vec![w],
        None => vec![DESKTOP_USER, FALLBACK_USER],
    };
    for name in &names {
        if let Some(a) = account(&passwd, name) {
            if a.uid == 0 {
                return Err(format!("user {name} is root; sway needs an unprivileged user"));
            }
            return Ok(Some(a));
        }
    }
    Err(format!(
        "sway refuses to run as root and none of the users {} exists (scripts/setup-desktop creates {DESKTOP_USER})",
        names.join(", ")
    ))
}

fn account(passwd: &str, name: &str) -> Option<Account> {
    passwd.lines().find_map(|line| {
        let f: Vec<&str> = line.split(':').collect();
        (f.len() >= 4 && f[0] == name).then(|| Some(Account { uid: f[2].parse().ok()?, gid: f[3].parse().ok()? }))?
    })
}

/// sway's configuration for a sandbox of `size` with `background` (`#rrggbb` or empty).
pub(crate) fn config(size: (u32, u32), background: &str) -> String {
    let (w, h) = size;
    let bg = if background.starts_with('#') && background.len() == 7 {
        format!(" bg {background} solid_color")
    } else {
        String::new()
    };
    format!(
        "# Written by handrail's sandbox.\n\
         xwayland disable\n\
         output HEADLESS-1 mode --custom {w}x{h}@60Hz position 0 0 scale 1{bg}\n\
         focus_follows_mouse no\n\
         focus_on_window_activation focus\n\
         default_border normal 2\n"
    )
}

/// The Wayland socket sway created in `dir`, once it exists.
pub(crate) fn find_socket(dir: &Path) -> Option<PathBuf> {
    let entries = fs::read_dir(dir).ok()?;
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("wayland-") && !name.ends_with(".lock")
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// sway's IPC socket for the sway process `pid` running as `uid`, once it exists.
pub(crate) fn ipc_socket(dir: &Path, uid: u32, pid: u32) -> Option<PathBuf> {
    let p = dir.join(format!("sway-ipc.{uid}.{pid}.sock"));
    p.exists().then_some(p)
}

/// Whether sway answers `get_outputs` on `ipc` with an active output: it is serving clients.
pub(crate) fn answers(ipc: &Path, deadline: Instant) -> bool {
    let Ok(mut s) = UnixStream::connect(ipc) else { return false };
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(50));
    if s.set_read_timeout(Some(left)).is_err() || s.set_write_timeout(Some(left)).is_err() {
        return false;
    }
    const GET_OUTPUTS: u32 = 3;
    let mut msg = b"i3-ipc".to_vec();
    msg.extend_from_slice(&0u32.to_ne_bytes());
    msg.extend_from_slice(&GET_OUTPUTS.to_ne_bytes());
    if s.write_all(&msg).is_err() {
        return false;
    }
    let mut header = [0u8; 14];
    if s.read_exact(&mut header).is_err() || &header[..6] != b"i3-ipc" {
        return false;
    }
    let len = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]).min(1 << 20) as usize;
    let mut body = vec![0u8; len];
    if s.read_exact(&mut body).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&body);
    text.contains("\"active\": true") || text.contains("\"active\":true")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_come_from_passwd_lines() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\nhandrail-desktop:x:999:995::/nonexistent:/usr/sbin/nologin\n";
        assert_eq!(account(passwd, "handrail-desktop"), Some(Account { uid: 999, gid: 995 }));
        assert_eq!(account(passwd, "nobody"), None);
    }

    #[test]
    fn the_config_sizes_the_output_and_lets_clicks_focus() {
        let c = config((1024, 768), "#e0e0e0");
        assert!(c.contains("mode --custom 1024x768@60Hz"), "{c}");
        assert!(c.contains("bg #e0e0e0 solid_color"));
        assert!(c.contains("focus_follows_mouse no"));
        assert!(!config((800, 600), "light grey").contains(" bg "));
    }
}
