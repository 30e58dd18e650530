//! Real-process tests of the GNOME sandbox: a private headless GNOME Shell with PipeWire,
//! WirePlumber and a logind stand-in, what apps see, and the same teardown guarantees as the other
//! desktops.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use handrail_gnome_extension::Format;
use handrail_sandbox::{marked_processes, Sandbox, SandboxOptions, Session};

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rfind(')').and_then(|i| stat[i + 1..].trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

fn named(sb: &Sandbox, comm: &str) -> Option<u32> {
    sb.processes()
        .into_iter()
        .find(|&p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == comm))
}

fn probe() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/apps/conformance_gtk.py")
}

#[test]
fn a_gnome_desktop_runs_gtk_apps_on_gnome_shell_and_is_fully_removed() {
    let opts = SandboxOptions { session: Session::Gnome, parent_death_signal: false, ..SandboxOptions::default() };
    let sb = Sandbox::start(opts).expect("start a GNOME sandbox (run scripts/setup-desktop)");
    runs_gtk_apps_and_is_fully_removed(sb, Format::Script);
}

#[test]
fn a_gnome_48_desktop_from_its_root_file_system_runs_the_machines_gtk_apps_and_is_fully_removed() {
    let root = handrail_sandbox::trixie_gnome_root();
    let opts = SandboxOptions {
        session: Session::Gnome,
        gnome_root: Some(root.clone()),
        parent_death_signal: false,
        ..SandboxOptions::default()
    };
    let sb = Sandbox::start(opts)
        .unwrap_or_else(|e| panic!("start GNOME 48 from {} (run scripts/setup-trixie): {e}", root.display()));
    // It is GNOME Shell 48's own: the binary the session runs is the root file system's.
    let shell = named(&sb, "gnome-shell").expect("gnome-shell runs");
    let exe = std::fs::read_link(format!("/proc/{shell}/exe")).expect("its executable");
    let inside = std::fs::metadata(root.join("usr/bin/gnome-shell")).expect("the root's gnome-shell");
    let running = std::fs::metadata(format!("/proc/{shell}/exe")).expect("the running one");
    use std::os::unix::fs::MetadataExt;
    assert_eq!((running.dev(), running.ino()), (inside.dev(), inside.ino()), "{} is not the root's", exe.display());
    runs_gtk_apps_and_is_fully_removed(sb, Format::Module);
}

#[test]
fn a_root_file_system_is_for_gnome_sessions_and_must_hold_a_system() {
    let empty = std::env::temp_dir().join(format!("handrail-empty-root-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("a directory");
    let gnome = |root: &Path| SandboxOptions {
        session: Session::Gnome,
        gnome_root: Some(root.to_owned()),
        parent_death_signal: false,
        ..SandboxOptions::default()
    };
    let refused = Sandbox::start(gnome(&empty)).expect_err("an empty tree is no system");
    assert!(refused.to_string().contains("scripts/setup-trixie"), "{refused}");
    let refused = Sandbox::start(gnome(Path::new("relative/root"))).expect_err("a relative path");
    assert!(refused.to_string().contains("absolute"), "{refused}");
    let x11 =
        SandboxOptions { gnome_root: Some(empty.clone()), parent_death_signal: false, ..SandboxOptions::default() };
    let refused = Sandbox::start(x11).expect_err("X11 has no GNOME Shell");
    assert!(refused.to_string().contains("GNOME sessions only"), "{refused}");
    let _ = std::fs::remove_dir_all(&empty);
}

/// What every GNOME sandbox must be: its shell, buses and media running, handrail's extension in
/// `format` installed, a GTK app of the machine mapping a window, and nothing left after stop.
fn runs_gtk_apps_and_is_fully_removed(sb: Sandbox, format: Format) {
    eprintln!("start timings: {:?}", sb.timings());
    assert!(sb.is_wayland() && sb.session() == Session::Gnome);
    assert!(sb.sway_ipc().is_none());
    let socket = sb.wayland_socket().expect("GNOME Shell's Wayland socket").to_owned();
    assert!(socket.starts_with(sb.root()) && socket.exists(), "{}", socket.display());
    let pipewire = sb.pipewire_socket().expect("PipeWire's socket");
    assert!(pipewire.exists(), "{}", pipewire.display());
    let env = sb.env();
    let get = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    assert_eq!(get("WAYLAND_DISPLAY").as_deref(), socket.to_str());
    assert_eq!(get("GDK_BACKEND").as_deref(), Some("wayland"));
    assert_eq!((get("DISPLAY"), get("SWAYSOCK")), (None, None));
    assert_eq!(get("XDG_CURRENT_DESKTOP").as_deref(), Some("GNOME"));
    assert_eq!(get("GSETTINGS_BACKEND").as_deref(), Some("keyfile"), "never the person's dconf database");
    assert_eq!(get("GSK_RENDERER").as_deref(), Some("cairo"), "GTK 4 without OpenGL on the CPU");
    let system_bus = get("DBUS_SYSTEM_BUS_ADDRESS").expect("a private system bus");
    assert!(system_bus.contains(sb.root().to_str().expect("utf-8 root")), "{system_bus}");
    let shell = named(&sb, "gnome-shell").expect("gnome-shell carries the marker");
    let media: Vec<u32> = ["pipewire", "wireplumber"].iter().filter_map(|c| named(&sb, c)).collect();
    assert_eq!(media.len(), 2, "pipewire and wireplumber run: {:?}", sb.processes());
    let extension = handrail_gnome_extension::install_dir(&sb.home().join(".local/share"));
    assert!(handrail_gnome_extension::is_installed(&sb.home().join(".local/share"), format), "{}", extension.display());

    // A GTK app maps a window on it (the probe says ready once its window is mapped).
    let mut app = sb
        .command("/usr/bin/python3")
        .arg(probe())
        .args(["--title", "on GNOME Shell"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the probe");
    let out = app.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if line == "ready" {
                let _ = tx.send(());
                return;
            }
        }
    });
    assert!(rx.recv_timeout(Duration::from_secs(30)).is_ok(), "the GTK app never mapped its window on GNOME Shell");

    let (id, root) = (sb.id().to_owned(), sb.root().to_owned());
    let mut pids = sb.processes();
    pids.push(shell);
    let report = sb.stop().expect("stop");
    let _ = app.wait();
    eprintln!("stopped in {:?}", report.duration);
    for pid in pids {
        assert!(!alive(pid), "pid {pid} still alive after stop");
    }
    assert_eq!(marked_processes(&id), Vec::<u32>::new(), "processes with the marker survived");
    assert!(!root.exists(), "{} not removed", root.display());
}
