//! `handrail gnome-extension`: the extension's format follows the GNOME Shell release, installing
//! twice changes nothing, `--check` tells, and a release it is not written for is refused.

use std::path::Path;
use std::process::{Command, Output};

use handrail_gnome_extension::{install_dir, is_installed, Format};

fn handrail(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_handrail")).args(args).output().expect("handrail runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn the_extension_is_installed_in_the_format_of_the_shell_release_and_checked() {
    let home = std::env::temp_dir().join(format!("handrail-cli-ext-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let data = home.to_str().expect("utf-8");
    let run = |extra: &[&str]| handrail(&[&["gnome-extension", "--data-home", data], extra].concat());

    let out = run(&["--shell", "48", "--check"]);
    assert_eq!(out.status.code(), Some(1), "nothing installed yet: {}", text(&out));
    let out = run(&["--shell", "48"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("GNOME Shell 48") && text(&out).contains("log out and in"), "{}", text(&out));
    assert!(is_installed(Path::new(data), Format::Module) && !is_installed(Path::new(data), Format::Script));
    assert!(run(&["--shell", "48", "--check"]).status.success());
    assert_eq!(run(&["--shell", "44", "--check"]).status.code(), Some(1), "another release's format is not installed");

    // The machine's own GNOME Shell (43 on Debian 12) decides when no release is given.
    let printed = Command::new("gnome-shell").arg("--version").output().expect("gnome-shell (scripts/setup-desktop)");
    let release =
        handrail_gnome_extension::shell_release(&String::from_utf8_lossy(&printed.stdout)).expect("a release");
    let out = run(&[]);
    assert!(out.status.success(), "{}", text(&out));
    let format = Format::for_shell(release).expect("a supported release");
    assert!(is_installed(Path::new(data), format), "GNOME Shell {release}: {}", text(&out));

    let out = run(&["--shell", "42"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("GNOME Shell 42 is not one"), "{}", text(&out));
    assert!(install_dir(Path::new(data)).exists(), "a refused release leaves what was installed");
    let _ = std::fs::remove_dir_all(&home);
}
