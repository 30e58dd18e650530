//! The desktop service beside `/mcp`: `GET /healthz`, `GET /readyz` (ready only after a first real
//! observation), `POST /reset`, and a harness's `/files` and `/run` (`--setup-endpoints`), on a real
//! sandbox. Files put in are read back from disk, apps a command started from the X server. What a reset leaves is read from the X server
//! itself (`xprop` for the managed windows, `xclip` for the clipboard) and from the browser's own
//! command line and profile folder, never from handrail's own answer; MCP calls are raw stateless
//! (2026-07-28) requests, so no client library is involved. How long a reset takes is measured in
//! `bench/scale`, not asserted here.
//!
//! Every test that starts a desktop holds `SERIAL`, so one sandbox runs at a time on small machines.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::tools::{workspace, Served};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

const TOKEN: &str = "service-test-token-0123456789";

/// A chunked body, joined.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { return body.to_string() };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// One raw HTTP/1.1 request: status, headers and body (de-chunked).
fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    let mut request = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    (status, head.to_string(), if chunked { dechunk(body) } else { body.to_string() })
}

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

fn get_json(addr: &str, path: &str) -> (u16, Value) {
    let (status, _, body) = http(addr, "GET", path, &[], "");
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}")))
}

fn reset(addr: &str, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let (status, _, text) = http(addr, "POST", "/reset", headers, body);
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// A `computer` call as a raw stateless request; the structured result.
fn computer(addr: &str, turn: &str, args: Value) -> Value {
    let auth = bearer();
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "computer", "arguments": args, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "handrail/turn": turn,
        }},
    });
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "computer"),
    ];
    let (status, _, body) = http(addr, "POST", "/mcp", &headers, &request.to_string());
    assert_eq!(status, 200, "{body}");
    let data = body.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or(&body);
    let message: Value = serde_json::from_str(data).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {body}"));
    message["result"]["structuredContent"].clone()
}

/// The managed windows' ids, read from the X server (`_NET_CLIENT_LIST`).
fn x_window_ids(display: &str) -> Vec<String> {
    let out = Command::new("xprop").args(["-display", display, "-root", "_NET_CLIENT_LIST"]).output().expect("xprop");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split('#')
        .nth(1)
        .map(|l| l.split(',').map(|s| s.trim().to_string()).filter(|s| s.starts_with("0x")).collect())
        .unwrap_or_default()
}

/// The managed windows' titles (each one's `_NET_WM_NAME`). A window the X server has already
/// destroyed is left out: the window manager drops it from `_NET_CLIENT_LIST` a moment later (on a
/// loaded machine the list still named a closed window right after a reset, read as `""`), and
/// handrail's own reading of the list leaves such windows out the same way.
fn x_windows(display: &str) -> Vec<String> {
    x_window_ids(display)
        .iter()
        .filter_map(|id| {
            let out = Command::new("xprop").args(["-display", display, "-id", id, "_NET_WM_NAME"]).output().ok()?;
            // xprop fails (BadWindow) for a window that no longer exists.
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).split('"').nth(1).unwrap_or_default().to_string())
        })
        .collect()
}

/// What the clipboard holds, asked of the X server by `xclip` (`<none>` when no client owns it).
fn clipboard(display: &str) -> String {
    let out = Command::new("xclip")
        .args(["-display", display, "-selection", "clipboard", "-o"])
        .output()
        .expect("xclip runs (scripts/setup-desktop installs it)");
    if out.status.success() {
        format!("clipboard={}", String::from_utf8_lossy(&out.stdout).trim())
    } else {
        "clipboard=<none>".to_string()
    }
}

/// The managed browser's profile folder in the sandbox of the `handrail serve` process `pid`:
/// `browser` in the sandbox's private root (`handrail-sandbox-PID-…` in the temporary folder).
fn browser_profile(pid: u32) -> Option<PathBuf> {
    let prefix = format!("handrail-sandbox-{pid}-");
    [std::env::temp_dir(), PathBuf::from("/tmp")].iter().find_map(|base| {
        std::fs::read_dir(base).ok()?.flatten().find_map(|entry| {
            let root = entry.path();
            let named = entry.file_name().to_string_lossy().starts_with(&prefix);
            named.then(|| root.join("browser")).filter(|p| p.is_dir())
        })
    })
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

const TASK_PAGE: &str = "<html><head><title>Task page</title></head><body><button>Go</button></body></html>";

#[test]
fn reset_closes_every_app_and_window_empties_the_clipboard_and_starts_a_new_turn() {
    let _serial = serial();
    let traces = std::env::temp_dir().join(format!("handrail-task-traces-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&traces);
    let holder = workspace().join("testdata/apps/clipboard_gtk.py");
    let holder = holder.to_str().expect("path");
    let traces_arg = traces.to_str().expect("path");
    let args = ["--sandbox", "--vision", "yes", "--task-traces", traces_arg, "--", holder, "hold", "Clipboard holder"];
    let served = Served::start(&[&args[..], &["secret of the last task"]].concat(), &[("HANDRAIL_TOKEN", TOKEN)]);
    let addr = served.addr();
    let display = served.display.clone().expect("the sandbox's display");

    // Liveness needs no token; readiness turns on once the first observation is done.
    let (status, health) = get_json(&addr, "/healthz");
    assert_eq!((status, health["alive"].as_bool()), (200, Some(true)), "{health}");
    wait_for("readiness", Duration::from_secs(60), || get_json(&addr, "/readyz").0 == 200);
    let (_, ready) = get_json(&addr, "/readyz");
    assert!(ready["first_observation_ms"].as_u64().is_some(), "{ready}");
    assert_eq!(ready["resets"], 0);

    // The last task's state: an app of the sandbox holding the clipboard, an X client from outside
    // the sandbox, the browser on a page.
    let mut outsider = Command::new("xterm")
        .args(["-T", "Outside xterm"])
        .env("DISPLAY", &display)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xterm starts");
    wait_for("both windows", Duration::from_secs(30), || x_windows(&display).len() >= 2);
    wait_for("the clipboard", Duration::from_secs(10), || clipboard(&display) == "clipboard=secret of the last task");
    let page = handrail_testkit::serve_page(TASK_PAGE);
    let opened = computer(&addr, "task-1", json!({"action": "open_url", "url": page}));
    assert_eq!(opened["status"], "ok", "{opened}");
    let before = x_window_ids(&display);
    assert_eq!(before.len(), 3, "{:?}", x_windows(&display));
    // Something of the last task in the browser's profile: it must not be there for the next one.
    let profile = browser_profile(served.pid()).expect("the browser's profile folder");
    assert!(profile.join("Default").is_dir(), "a used profile: {}", profile.display());
    std::fs::write(profile.join("left-by-the-last-task"), "x").expect("a file in the profile");
    let old_obs = opened["latest_observation"].as_str().expect("an observation id").to_string();

    // Refused requests change nothing.
    let auth = bearer();
    let json_type = ("Content-Type", "application/json");
    assert_eq!(reset(&addr, &[], "").0, 401);
    assert_eq!(reset(&addr, &[("Authorization", "Bearer not-the-token-at-all")], "").0, 401);
    let host = ("Host", "evil.example");
    assert_eq!(reset(&addr, &[host, ("Authorization", auth.as_str())], "").0, 403);
    let evil = ("Origin", "http://evil.example");
    assert_eq!(reset(&addr, &[("Authorization", auth.as_str()), evil], "").0, 403);
    let (status, answer) = reset(&addr, &[("Authorization", auth.as_str()), json_type], "{\"turns\": \"x\"}");
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"].as_str().is_some_and(|e| e.contains("turns")), "{answer}");
    let (status, answer) = reset(&addr, &[("Authorization", auth.as_str()), json_type], "{\"mode\": \"robot\"}");
    assert_eq!(status, 400, "{answer}");
    assert_eq!(http(&addr, "GET", "/reset", &[("Authorization", auth.as_str())], "").0, 405);
    assert_eq!(x_window_ids(&display), before, "a refused reset closed something");
    assert_eq!(get_json(&addr, "/readyz").1["resets"], 0);

    let (status, report) = reset(
        &addr,
        &[("Authorization", auth.as_str()), json_type],
        "{\"turn\": \"task-2\", \"intent\": \"open the page\", \"trace\": true}",
    );
    assert_eq!(status, 200, "{report}\n{}", served.log());
    assert_eq!(report["clean"], true, "{report}");
    assert_eq!(report["turn"], "task-2");
    assert!(report["duration_ms"].as_u64().is_some(), "{report}");
    let closed = report["closed"].as_array().expect("closed");
    let names: Vec<&str> = closed.iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(names.contains(&"chromium"), "{report}");
    assert!(closed.iter().any(|c| c["windows"][0] == "Clipboard holder"), "the holder, by its window: {report}");
    assert!(closed.iter().any(|c| c["windows"][0].as_str().is_some_and(|t| t.contains("Task page"))), "{report}");
    assert!(!names.iter().any(|n| n.starts_with("at-spi") || n.starts_with("dbus")), "the desktop's own: {report}");
    assert_eq!(report["windows_closed"], json!(["Outside xterm"]), "{report}");
    assert_eq!(report["browser_profile"], "replaced");
    assert_eq!(report["clipboard"], "empty");
    assert!(report["traces"]["recording"].as_str().is_some(), "{report}");

    // What the X server says.
    assert_eq!(x_windows(&display), Vec::<String>::new());
    assert_eq!(clipboard(&display), "clipboard=<none>");
    assert!(!profile.exists(), "the old profile is still in place: {}", profile.display());
    wait_for("the outside xterm to exit", Duration::from_secs(5), || matches!(outsider.try_wait(), Ok(Some(_))));

    // The old observation is stale in the new turn; the desktop is ready and reset once.
    let stale = computer(&addr, "task-2", json!({"action": "click", "observation_id": old_obs, "element_id": "e1"}));
    assert!(matches!(stale["status"].as_str(), Some("stale" | "refused" | "error")), "{stale}");
    assert_ne!(stale["status"], "ok", "{stale}");
    let (status, ready) = get_json(&addr, "/readyz");
    assert_eq!((status, ready["resets"].as_u64()), (200, Some(1)), "{ready}");
    let seen = computer(&addr, "task-2", json!({"action": "see"}));
    assert_eq!(seen["status"], "ok", "{seen}");
    assert!(seen["observation"]["elements"].as_array().is_some_and(|e| e.is_empty()), "{seen}");

    // The browser starts again with a new profile.
    let reopened = computer(&addr, "task-2", json!({"action": "open_url", "url": page}));
    assert_eq!(reopened["status"], "ok", "{reopened}");
    let fresh = browser_profile(served.pid()).expect("the new browser's profile folder");
    assert!(fresh.is_dir(), "{}", fresh.display());
    assert!(!fresh.join("left-by-the-last-task").exists(), "the browser reopened the last task's profile");

    assert!(served.stop().success());
    let recorded = std::fs::read_dir(&traces).expect("task traces").flatten().map(|e| e.path()).collect::<Vec<_>>();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert!(recorded[0].ends_with("0001-task-2"), "{recorded:?}");
    assert!(recorded[0].join("report.html").exists(), "the task trace's report is written on stop");
    let _ = std::fs::remove_dir_all(&traces);
}

#[test]
fn desktops_that_are_not_a_sandbox_are_ready_but_never_reset() {
    let _serial = serial();
    let served = Served::start(&["--simulated", "--vision", "yes"], &[("HANDRAIL_TOKEN", TOKEN)]);
    wait_for("readiness", Duration::from_secs(30), || get_json(&served.addr(), "/readyz").0 == 200);
    let auth = bearer();
    let (status, answer) = reset(&served.addr(), &[("Authorization", auth.as_str())], "");
    assert_eq!(status, 501, "{answer}");
    assert!(answer["error"].as_str().is_some_and(|e| e.contains("--sandbox")), "{answer}");
    assert_eq!(get_json(&served.addr(), "/readyz").1["resets"], 0);
}

#[test]
fn a_model_that_cannot_see_is_alive_but_never_ready() {
    let _serial = serial();
    let served = Served::start(&["--sandbox", "--vision", "no"], &[("HANDRAIL_TOKEN", TOKEN)]);
    let (status, health) = get_json(&served.addr(), "/healthz");
    assert_eq!(status, 200, "{health}");
    // A call the capability gate refuses: had the server looked at the screen for it, it would turn
    // ready now.
    let refused = computer(&served.addr(), "blind-1", json!({"action": "see"}));
    assert_eq!(refused["reason"], "vision_required", "{refused}");
    let (status, ready) = get_json(&served.addr(), "/readyz");
    assert_eq!(status, 503, "{ready}");
    assert!(ready["why"].as_str().is_some_and(|w| w.contains("cannot see")), "{ready}");
}

/// `PATH` percent-encoded for a URL (every byte outside a few plain ones).
fn encoded(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn run(addr: &str, body: Value) -> (u16, Value) {
    let auth = bearer();
    let headers = [("Authorization", auth.as_str()), ("Content-Type", "application/json")];
    let (status, _, text) = http(addr, "POST", "/run", &headers, &body.to_string());
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[test]
fn a_harness_puts_files_runs_commands_and_reads_results_inside_the_sandbox() {
    let _serial = serial();
    let served = Served::start(&["--sandbox", "--vision", "yes", "--setup-endpoints"], &[("HANDRAIL_TOKEN", TOKEN)]);
    let addr = served.addr();
    let display = served.display.clone().expect("the sandbox's display");
    let root = served.sandbox_root().expect("the sandbox's root");
    wait_for("readiness", Duration::from_secs(60), || get_json(&addr, "/readyz").0 == 200);
    let auth = bearer();
    let with_token = [("Authorization", auth.as_str())];

    // A file in, under a Thai name, in a folder that does not exist yet; it is on disk as sent.
    let content = "ยอดขาย 42 บาท\nTotal: 42\n";
    let name = "Documents/รายงาน ไตรมาส.txt";
    let (status, _, text) = http(&addr, "PUT", &format!("/files/{}", encoded(name)), &with_token, content);
    assert_eq!(status, 200, "{text}");
    let written: Value = serde_json::from_str(&text).expect("JSON");
    let path = PathBuf::from(written["path"].as_str().expect("path"));
    assert!(path.starts_with(&root) && path.ends_with(name), "{path:?} outside {root:?}");
    assert_eq!(std::fs::read_to_string(&path).expect("on disk"), content);
    assert_eq!(written["bytes"], content.len());

    // A command in the sandbox's session, in its home: it sees the file and the private display.
    let (status, ran) = run(&addr, json!({"argv": ["sh", "-c", format!("cat '{name}'; echo \"$DISPLAY\"; exit 7")]}));
    assert_eq!(status, 200, "{ran}");
    assert_eq!(ran["stdout"], format!("{content}{display}\n"), "{ran}");
    assert_eq!((ran["exit_code"].as_i64(), ran["timed_out"].as_bool()), (Some(7), Some(false)), "{ran}");

    // Apps started and left running, a terminal beside a GTK app: their windows are on the sandbox's
    // X server, the agent sees the app, and the next reset closes both.
    let probe = workspace().join("testdata/apps/probe_gtk.py");
    let argv = json!(["/usr/bin/python3", probe, "--title", "Opened by the harness"]);
    let (status, started) = run(&addr, json!({"argv": argv, "wait": false}));
    assert_eq!((status, started["running"].as_bool()), (200, Some(true)), "{started}");
    let (status, terminal) =
        run(&addr, json!({"argv": ["xterm", "-T", "Harness terminal", "-geometry", "50x8-0-0"], "wait": false}));
    assert_eq!((status, terminal["running"].as_bool()), (200, Some(true)), "{terminal}");
    // xterm names its window in WM_NAME only, so it is counted rather than found by title.
    wait_for("the harness's apps", Duration::from_secs(30), || {
        let titles = x_windows(&display);
        titles.len() == 2 && titles.iter().any(|t| t == "Opened by the harness")
    });
    let seen = computer(&addr, "setup-1", json!({"action": "see"}));
    let elements = seen["observation"]["elements"].as_array().expect("elements");
    assert!(
        elements.iter().any(|e| e["label"] == "Change" && e["window"] == "Opened by the harness"),
        "the app's button is not listed: {seen}"
    );
    let (status, report) = reset(&addr, &with_token, "");
    assert_eq!(status, 200, "{report}");
    let closed = report["closed"].as_array().expect("closed");
    for app in [&started, &terminal] {
        assert!(closed.iter().any(|c| c["pid"] == app["pid"]), "{} left open: {report}", app["pid"]);
    }
    assert!(x_windows(&display).is_empty(), "{:?}", x_windows(&display));
    assert!(!path.exists(), "the reset removes what the last task put in the home");

    // Evaluation: what a command wrote comes back out, byte for byte.
    let (status, ran) = run(&addr, json!({"argv": ["sh", "-c", "printf 'ผลลัพธ์: ok' > out.txt"]}));
    assert_eq!((status, ran["exit_code"].as_i64()), (200, Some(0)), "{ran}");
    let (status, _, body) = http(&addr, "GET", "/files/out.txt", &with_token, "");
    assert_eq!((status, body.as_str()), (200, "ผลลัพธ์: ok"));

    // A command past its time is killed, and the answer says so at once.
    let t0 = Instant::now();
    let (status, ran) = run(&addr, json!({"argv": ["sleep", "30"], "timeout_ms": 300}));
    assert_eq!((status, ran["timed_out"].as_bool()), (200, Some(true)), "{ran}");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());

    // Refused, and nothing changed: paths that leave the home, no token, a browser's request, bad
    // requests, files that are not there.
    let escape = root.join("escaped.txt");
    for bad in ["../escaped.txt", "%2E%2E/escaped.txt", "%2Fetc%2Fescaped.txt", "a/%2E%2E/%2E%2E/escaped.txt"] {
        let (status, _, text) = http(&addr, "PUT", &format!("/files/{bad}"), &with_token, "x");
        assert_eq!(status, 400, "{bad}: {text}");
    }
    assert!(!escape.exists());
    let (status, _, _) = http(&addr, "GET", "/files/out.txt", &[], "");
    assert_eq!(status, 401);
    let (status, _, _) = http(&addr, "PUT", "/files/new.txt", &[], "x");
    assert_eq!(status, 401);
    let from_page = [("Authorization", auth.as_str()), ("Origin", "http://localhost:3000")];
    let (status, _, text) = http(&addr, "GET", "/files/out.txt", &from_page, "");
    assert_eq!(status, 403, "{text}");
    let (status, _, _) = http(&addr, "GET", "/files/missing.txt", &with_token, "");
    assert_eq!(status, 404);
    let (status, _, _) = http(&addr, "GET", "/files/%ZZ", &with_token, "");
    assert_eq!(status, 400);
    for body in [json!({"argv": []}), json!({"argv": ["true"], "timeout_ms": 0}), json!({"argv": ["true"], "shell": 1})]
    {
        assert_eq!(run(&addr, body.clone()).0, 400, "{body}");
    }
    assert_eq!(run(&addr, json!({"argv": ["/no/such/program"]})).0, 400);
    let (status, _, _) = http(&addr, "DELETE", "/files/out.txt", &with_token, "");
    assert_eq!(status, 405);
}

#[test]
fn set_up_endpoints_are_off_unless_asked_for_and_never_without_a_token() {
    let _serial = serial();
    let served = Served::start(&["--sandbox", "--vision", "yes"], &[("HANDRAIL_TOKEN", TOKEN)]);
    let auth = bearer();
    let (status, answer) = run(&served.addr(), json!({"argv": ["true"]}));
    assert_eq!(status, 501, "{answer}");
    assert!(answer["error"].as_str().is_some_and(|e| e.contains("--setup-endpoints")), "{answer}");
    let (status, _, _) = http(&served.addr(), "GET", "/files/x", &[("Authorization", auth.as_str())], "");
    assert_eq!(status, 501);
    drop(served);

    for flag in [&["--setup-endpoints"][..], &["--osworld-guest", "127.0.0.1:0"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_handrail"))
            .args(["serve", "--sandbox", "--vision", "yes", "--http", "127.0.0.1:0"])
            .args(flag)
            .env_remove("HANDRAIL_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("handrail runs");
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("{} needs a bearer token", flag[0])), "{stderr}");
    }
}

/// OCR reads the languages asked for; a language it cannot read is refused at start, naming the
/// model and the package. Without the flag, a German desktop's OCR reads German too.
#[test]
fn ocr_languages_follow_the_flag_or_the_locale_and_missing_ones_are_refused() {
    let _serial = serial();
    let serve_reading = |languages: &str| {
        Command::new(env!("CARGO_BIN_EXE_handrail"))
            .args(["serve", "--sandbox", "--vision", "yes", "--ocr-lang", languages])
            .stdin(Stdio::null())
            .output()
            .expect("handrail runs")
    };
    let out = serve_reading("eng+xyz");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--ocr-lang eng+xyz") && stderr.contains("xyz.traineddata"), "{stderr}");
    assert!(stderr.contains("tesseract-ocr-xyz"), "{stderr}");
    let bad = serve_reading("../etc/passwd");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a traineddata name"), "{bad:?}");

    // The locale's language, without the flag.
    let served = Served::start(&["--sandbox", "--vision", "yes"], &[("LANG", "de_DE.UTF-8"), ("LC_ALL", "")]);
    let log = served.log();
    assert!(log.lines().any(|l| l.contains("OCR reads eng+deu")), "{log}");
    drop(served);
}
