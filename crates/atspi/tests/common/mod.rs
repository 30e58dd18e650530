//! Shared by the sandbox tests and the `walk_times` example: a private desktop, apps to look at, a tiny
//! web server and bounded polling.
#![allow(dead_code)] // each test binary uses a different part

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use handrail_atspi::AtspiSource;
use handrail_platform::{Accessibility, AxLimits, AxNode, AxSnapshot, Role};
use handrail_sandbox::{Sandbox, SandboxOptions};

pub fn init_log() {
    handrail_sandbox::log_to_stderr();
}

/// A sandbox desktop with accessibility. Test threads end after each test, so PR_SET_PDEATHSIG would kill
/// the desktop under the next test; the sandbox's reaper still cleans up when the binary exits.
pub fn start_sandbox() -> Sandbox {
    init_log();
    let opts = SandboxOptions { parent_death_signal: false, ..Default::default() };
    Sandbox::start(opts).expect("sandbox starts (run scripts/setup-desktop)")
}

/// Generous limits for tests: a slow CI machine must not turn into flaky `Partial`s.
pub fn test_limits() -> AxLimits {
    AxLimits { max_nodes: 4000, call_timeout: Duration::from_millis(1500), deadline: Duration::from_secs(5) }
}

/// An app started in the sandbox, killed when dropped.
pub struct App(pub Child);

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn spawn(sandbox: &Sandbox, program: &str, args: &[&str]) -> App {
    let child = sandbox
        .command(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} starts: {e}"));
    App(child)
}

/// Polls snapshots until `pred` holds or `timeout` passes.
pub fn wait_for(
    source: &AtspiSource,
    limits: &AxLimits,
    timeout: Duration,
    mut pred: impl FnMut(&AxSnapshot) -> bool,
) -> Result<AxSnapshot, AxSnapshot> {
    let start = Instant::now();
    loop {
        let snap = source.snapshot(limits);
        if pred(&snap) {
            return Ok(snap);
        }
        if start.elapsed() > timeout {
            return Err(snap);
        }
        std::thread::sleep(Duration::from_millis(50)); // polling interval, not a settle wait
    }
}

pub fn find<'a>(snap: &'a AxSnapshot, role: Role, name: &str) -> Option<&'a AxNode> {
    snap.nodes.iter().find(|n| n.role() == role && n.name == name)
}

pub fn dump(snap: &AxSnapshot) -> String {
    let mut s = format!("health={:?} nodes={}\n", snap.health, snap.nodes.len());
    for (i, n) in snap.nodes.iter().enumerate() {
        let depth = std::iter::successors(n.parent, |&p| snap.nodes[p].parent).count();
        s.push_str(&format!(
            "{i:4} {:indent$}{} [{}] {:?} value={:?} @{},{} {}x{} {:?} app={:?} win={:?} actions={:?} attrs={:?}\n",
            "",
            n.role(),
            n.native_role,
            n.name,
            n.value,
            n.bounds.x,
            n.bounds.y,
            n.bounds.width,
            n.bounds.height,
            n.states.names().collect::<Vec<_>>(),
            n.app,
            n.window,
            n.actions,
            n.attributes,
            indent = depth * 2
        ));
    }
    s
}

/// The test form: labelled inputs (a text field, a country list showing its selection), a password with
/// a preset secret, a destructive button, English and Thai paragraphs.
pub const FORM_SECRET: &str = "hunter2-s3cret";

pub fn form_html() -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Handrail Form</title></head>
<body>
<h1>Account settings</h1>
<form>
<p><label for="user">Username</label> <input id="user" type="text" value="alice"></p>
<p><label for="country">Country</label> <select id="country"><option>Ghana</option><option selected>Guinea</option><option>Kenya</option></select></p>
<p><label for="pw">Password</label> <input id="pw" type="password" value="{FORM_SECRET}"></p>
<p><button type="button" id="del">Delete account</button></p>
</form>
<p id="en">Welcome back to your account.</p>
<p id="th" lang="th">ยินดีต้อนรับกลับสู่บัญชีของคุณ</p>
</body></html>"#
    )
}

/// How long `/slow` takes to answer (a page that embeds it is still loading that long).
pub const SLOW_RESOURCE: Duration = Duration::from_secs(3);

/// Serves `body` as text/html at `/` on 127.0.0.1 (and a 404 for anything else, after
/// [`SLOW_RESOURCE`] for `/slow`); returns the URL.
pub fn serve(body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local addr").port();
    let body: std::sync::Arc<str> = body.into();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let body = body.clone();
            std::thread::spawn(move || answer(stream, &body));
        }
    });
    format!("http://127.0.0.1:{port}/")
}

fn answer(mut stream: std::net::TcpStream, body: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut req = Vec::new();
    let mut buf = [0u8; 1024];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => req.extend_from_slice(&buf[..n]),
        }
    }
    if req.starts_with(b"GET /slow ") {
        std::thread::sleep(SLOW_RESOURCE);
    }
    let (status, content) = if req.starts_with(b"GET / ") { ("200 OK", body) } else { ("404 Not Found", "") };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        content.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(content.as_bytes());
}

pub fn launch_chromium(sandbox: &Sandbox, url: &str) -> App {
    let profile: PathBuf = sandbox.root().join(format!("chromium-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).expect("profile dir");
    let profile_arg = format!("--user-data-dir={}", profile.display());
    spawn(
        sandbox,
        "/usr/bin/chromium",
        &[
            "--force-renderer-accessibility",
            "--no-sandbox",
            "--test-type",
            "--no-first-run",
            // As handrail's own launcher: with a keyring daemon installed (gnome-keyring), Chromium
            // would otherwise ask for a keyring password in a dialog and wait.
            "--password-store=basic",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-gpu",
            "--window-position=0,0",
            "--window-size=1000,700",
            &profile_arg,
            url,
        ],
    )
}

/// Runs xdotool (or any X tool) in the sandbox, bounded by `timeout(1)`; returns stdout.
pub fn x_tool(sandbox: &Sandbox, program: &str, args: &[&str]) -> String {
    let out = sandbox
        .command("timeout")
        .arg("10")
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(out.status.success(), "{program} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Activates the X window titled exactly `title` (openbox does not focus new windows by itself).
pub fn activate(sandbox: &Sandbox, title: &str) -> String {
    let pattern = format!("^{title}$");
    let ids = x_tool(sandbox, "xdotool", &["search", "--name", &pattern]);
    let id = ids.lines().next().unwrap_or_else(|| panic!("no X window titled {title:?}")).trim().to_owned();
    x_tool(sandbox, "xdotool", &["windowactivate", "--sync", &id]);
    id
}

/// The X window's geometry (x, y, width, height) from xwininfo, grown by the window manager's frame
/// (`_NET_FRAME_EXTENTS`) when `frame` is set.
pub fn x_geometry(sandbox: &Sandbox, id: &str, frame: bool) -> (i32, i32, i32, i32) {
    let (x, y, w, h) = x_client_geometry(sandbox, id);
    if !frame {
        return (x, y, w, h);
    }
    let prop = x_tool(sandbox, "xprop", &["-id", id, "_NET_FRAME_EXTENTS"]);
    let e: Vec<i32> =
        prop.split('=').nth(1).unwrap_or_default().split(',').filter_map(|v| v.trim().parse().ok()).collect();
    let [l, r, t, b] = e[..] else { panic!("no frame extents: {prop}") };
    (x - l, y - t, w + l + r, h + t + b)
}

fn x_client_geometry(sandbox: &Sandbox, id: &str) -> (i32, i32, i32, i32) {
    let info = x_tool(sandbox, "xwininfo", &["-id", id]);
    let field = |name: &str| -> i32 {
        info.lines()
            .find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().parse::<i32>().unwrap_or(i32::MIN)))
            .unwrap_or_else(|| panic!("xwininfo lacks {name:?}: {info}"))
    };
    (field("Absolute upper-left X:"), field("Absolute upper-left Y:"), field("Width:"), field("Height:"))
}

/// Clicks the centre of `node`'s bounds.
pub fn click_node(sandbox: &Sandbox, node: &AxNode) {
    let b = node.bounds;
    let x = (b.x + b.width as i32 / 2).to_string();
    let y = (b.y + b.height as i32 / 2).to_string();
    x_tool(sandbox, "xdotool", &["mousemove", "--sync", &x, &y, "click", "1"]);
}
