//! A session without handrail's GNOME Shell extension is told how to get it, before anything else
//! is opened: a private bus daemon with nothing on it stands for such a session.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use handrail_gnome::{GnomeError, ShellWindows};

#[test]
fn a_session_without_the_extension_is_told_how_to_install_it() {
    let mut daemon = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--print-address"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("dbus-daemon (run scripts/setup-desktop)");
    let mut address = String::new();
    BufReader::new(daemon.stdout.take().expect("stdout")).read_line(&mut address).expect("its address");
    let result = ShellWindows::connect(address.trim());
    let _ = daemon.kill();
    let _ = daemon.wait();
    let e = result.expect_err("no extension on an empty bus");
    assert!(matches!(e, GnomeError::NoExtension), "{e:?}");
    let message = e.to_string();
    assert!(message.contains("handrail gnome-extension") && message.contains("log out"), "{message}");
}
