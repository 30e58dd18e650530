//! Real-process tests of the Wayland sandbox: a private headless sway (run as an unprivileged user
//! when the tests run as root), its readiness, what apps and the usual Wayland tools see, and the
//! same teardown guarantees as the X11 desktop (stop, and the owner killed with SIGKILL).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use handrail_sandbox::{marked_processes, Sandbox, SandboxOptions, Session};

static DESKTOPS: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    DESKTOPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn wayland() -> SandboxOptions {
    SandboxOptions { session: Session::Sway, parent_death_signal: false, ..SandboxOptions::default() }
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rfind(')').and_then(|i| stat[i + 1..].trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

fn uid_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("Uid:")).and_then(|v| v.split_whitespace().next()?.parse().ok())
}

fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn run(sb: &Sandbox, program: &str, args: &[&str]) -> (bool, String) {
    let out = sb.command(program).args(args).stdin(Stdio::null()).output().expect("run a helper");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn sway_pid(sb: &Sandbox) -> u32 {
    sb.processes()
        .into_iter()
        .find(|&p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "sway"))
        .expect("a sway process carries the marker")
}

fn assert_all_gone(id: &str, pids: &[u32], root: &Path) {
    for &pid in pids {
        assert!(!alive(pid), "pid {pid} still alive after stop");
    }
    assert_eq!(marked_processes(id), Vec::<u32>::new(), "processes with the marker survived");
    assert!(!root.exists(), "{} not removed", root.display());
}

#[test]
fn a_wayland_desktop_answers_the_usual_tools_and_is_fully_removed() {
    let _g = one_at_a_time();
    let sb = Sandbox::start(wayland()).expect("start a Wayland sandbox (run scripts/setup-desktop)");
    eprintln!("start timings: {:?}", sb.timings());
    assert!(sb.is_wayland());
    let socket = sb.wayland_socket().expect("a Wayland socket").to_owned();
    let ipc = sb.sway_ipc().expect("sway's IPC socket").to_owned();
    assert!(socket.starts_with(sb.root()) && ipc.starts_with(sb.root()));
    let env = sb.env();
    let get = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    assert_eq!(get("WAYLAND_DISPLAY").as_deref(), socket.to_str());
    assert_eq!(get("GDK_BACKEND").as_deref(), Some("wayland"));
    assert_eq!(get("DISPLAY"), None, "no X display in a Wayland session");

    // sway never runs as root.
    let sway = sway_pid(&sb);
    assert_ne!(uid_of(sway), Some(0), "sway runs as root");

    // The usual Wayland tools work against it: grim (screencopy), swaymsg (IPC).
    let shot = sb.root().join("shot.png");
    let (ok, out) = run(&sb, "grim", &[shot.to_str().expect("utf-8 path")]);
    assert!(ok, "grim: {out}");
    assert!(std::fs::metadata(&shot).map(|m| m.len() > 100).unwrap_or(false));
    let (ok, out) = run(&sb, "swaymsg", &["-t", "get_outputs"]);
    assert!(ok && out.contains("HEADLESS-1") && out.contains("1280"), "swaymsg: {out}");

    let mut app = sb.spawn("sleep", ["300"]).expect("an app");
    let (id, root) = (sb.id().to_owned(), sb.root().to_owned());
    let mut pids = sb.processes();
    pids.push(sway);
    let report = sb.stop().expect("stop");
    let _ = app.wait();
    eprintln!("stopped in {:?}", report.duration);
    assert_all_gone(&id, &pids, &root);
}

const OWNER_ENV: &str = "HANDRAIL_WAYLAND_TEST_OWNER";

/// Not a test on its own: re-executed with `HANDRAIL_WAYLAND_TEST_OWNER` set, this process owns a
/// Wayland sandbox, reports it and waits to be killed.
#[test]
fn owner_process() {
    if std::env::var(OWNER_ENV).is_err() {
        return;
    }
    let sb = Sandbox::start(wayland()).expect("owner: start");
    let mut app = sb.spawn("sleep", ["300"]).expect("owner: app");
    println!("READY {} {} {}", sb.id(), sb.root().display(), sb.reaper_pid().unwrap_or(0));
    std::io::stdout().flush().expect("flush");
    let mut sink = String::new();
    let _ = std::io::stdin().read_line(&mut sink);
    drop(sb);
    let _ = app.wait();
}

struct Owner(Child);

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_reaper_stops_sway_after_the_owner_is_killed() {
    let _g = one_at_a_time();
    let exe = std::env::current_exe().expect("test binary");
    let mut child = Command::new(exe)
        .args(["--exact", "owner_process", "--nocapture", "--test-threads=1"])
        .env(OWNER_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn owner");
    let stdout = child.stdout.take().expect("owner stdout");
    let mut owner = Owner(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(i) = line.find("READY ") {
                let _ = tx.send(line[i + "READY ".len()..].trim().to_owned());
                return;
            }
        }
    });
    let ready = rx.recv_timeout(Duration::from_secs(30)).expect("owner never reported READY");
    let fields: Vec<&str> = ready.split(' ').collect();
    let (id, root, reaper) = (fields[0].to_owned(), PathBuf::from(fields[1]), fields[2].parse::<u32>().expect("pid"));
    let before = marked_processes(&id);
    assert!(before.len() >= 3, "expected sway, the buses and the app: {before:?}");
    owner.0.kill().expect("kill -9 owner");
    let _ = owner.0.wait();
    let clean =
        eventually(Duration::from_secs(10), || marked_processes(&id).is_empty() && !root.exists() && !alive(reaper));
    assert!(clean, "left behind: marked {:?}, root exists {}", marked_processes(&id), root.exists());
    assert_all_gone(&id, &before, &root);
}
