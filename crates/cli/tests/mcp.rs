//! `handrail serve` driven by real MCP clients on a real sandbox desktop: the official Python SDK
//! (stdio and HTTP, the handshake protocol and the stateless 2026-07-28 one), the MCP Inspector CLI
//! and the MCP conformance suite. The client script is `testdata/mcp/e2e.py`; the Python SDK and the
//! npm tools are installed by `scripts/setup-test-tools`.
//!
//! Every test that starts a desktop holds `SERIAL`, so one sandbox runs at a time on small machines.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use common::tools::{probe_app, show, test_python, workspace, Served};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn handrail() -> &'static str {
    env!("CARGO_BIN_EXE_handrail")
}

/// Serves `testdata/pages/form.html` on a local port; returns its URL.
fn serve_form_page() -> String {
    let page = std::fs::read_to_string(workspace().join("testdata/pages/form.html")).expect("form page");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/form.html", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 2048];
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = stream.read(&mut request);
            let (status, body) =
                if request.starts_with(b"GET /form.html ") { ("200 OK", page.as_str()) } else { ("404 Not Found", "") };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// Runs the client script; panics with its whole output unless it passed.
fn e2e(args: &[&str]) -> Output {
    let out = Command::new(test_python())
        .arg(workspace().join("testdata/mcp/e2e.py"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("the client script runs");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("PASS"), "{}", show(&out));
    out
}

fn stdio_target(args: &[&str]) -> String {
    format!("stdio:{} serve {}", handrail(), args.join(" "))
}

/// One raw HTTP/1.1 request; returns the status code and the body.
fn raw_http(addr: &str, head: &str, body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    let mut request = format!("{head}Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()).into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request).expect("send");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

fn post_head(addr: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}"
    )
}

#[test]
fn stdio_with_the_handshake_protocol_runs_the_whole_scenario() {
    let _serial = serial();
    let page = serve_form_page();
    let audit = std::env::temp_dir().join(format!("handrail-audit-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&audit);
    let app = probe_app();
    let target = stdio_target(&[
        "--sandbox",
        "--vision",
        "yes",
        "--audit-log",
        audit.to_str().expect("utf-8 path"),
        "--",
        "/usr/bin/python3",
        &app,
    ]);
    let out = e2e(&["desktop", &target, "legacy", &page]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("protocol 2025-11-25"), "{}", show(&out));

    // The audit log: one JSON line per call, the guard's decisions in it, and never a typed secret.
    let log = std::fs::read_to_string(&audit).expect("audit log written");
    let records: Vec<serde_json::Value> =
        log.lines().map(|l| serde_json::from_str(l).expect("each audit line is JSON")).collect();
    assert!(records.len() >= 20, "{log}");
    for r in &records {
        for key in ["time", "turn", "mode", "tool", "action", "target", "guard", "verdict", "timings_ms"] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
    let decisions: Vec<&str> = records.iter().filter_map(|r| r["guard"]["decision"].as_str()).collect();
    for d in ["refused", "allowed_by_intent", "allowed_by_person", "passed"] {
        assert!(decisions.contains(&d), "no {d} decision in the audit log:\n{log}");
    }
    for secret in ["hunter2", "Ada Lovelace", "grace@example.com"] {
        assert!(!log.contains(secret), "the audit log holds typed text {secret:?}");
    }
    let _ = std::fs::remove_file(&audit);
}

#[test]
fn http_with_the_stateless_protocol_runs_the_whole_scenario() {
    let _serial = serial();
    let page = serve_form_page();
    let app = probe_app();
    let served = Served::start(&["--sandbox", "--vision", "yes", "--", "/usr/bin/python3", &app], &[]);
    let out = e2e(&["desktop", &served.url, "auto", &page]);
    // The SDK picks the newest protocol the server offers: questions travel as input-required results.
    assert!(String::from_utf8_lossy(&out.stdout).contains("protocol 2026-07-28"), "{}", show(&out));
    let status = served.stop();
    assert!(status.success(), "serve exits cleanly on SIGTERM: {status}");
}

#[test]
fn a_text_only_model_is_refused_and_the_desktop_is_never_opened() {
    // Display :4093 does not exist: had the server tried to take a screenshot (or connect at all) it
    // would have failed. The exact refusal proves the gate answered with no desktop behind it.
    for mode in ["legacy", "auto"] {
        let target = stdio_target(&["--display", ":4093", "--model", "qwen3:14b"]);
        let out = e2e(&["blind", &target, mode]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("the desktop is not opened"), "{stderr}");
    }
    // Not even a sandbox is started for a model that cannot see.
    let target = stdio_target(&["--sandbox", "--model", "qwen3:14b"]);
    let out = e2e(&["blind", &target, "legacy"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("private desktop"), "{}", show(&out));
}

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    for mode in ["legacy", "auto"] {
        e2e(&["errors", &stdio_target(&["--simulated", "--vision", "yes"]), mode]);
    }
    let served = Served::start(&["--simulated", "--vision", "yes"], &[]);
    e2e(&["errors", &served.url, "auto"]);

    // Bytes that are not UTF-8 inside a path, and a body that is not JSON: JSON-RPC errors, no crash.
    let addr = served.addr();
    let mut bad =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_image","arguments":{"path":"/tmp/"#
            .to_vec();
    bad.extend_from_slice(&[0xff, 0xfe, 0x80]);
    bad.extend_from_slice(br#".png"}}}"#);
    let (status, body) = raw_http(&addr, &post_head(&addr, "MCP-Protocol-Version: 2025-11-25\r\n"), &bad);
    assert!((400..500).contains(&status) || body.contains("\"error\""), "{status} {body}");
    let (status, body) = raw_http(&addr, &post_head(&addr, ""), b"{not json");
    assert!((400..500).contains(&status) || body.contains("\"error\""), "{status} {body}");
    let (status, body) = raw_http(&addr, &post_head(&addr, ""), INITIALIZE.as_bytes());
    assert_eq!(status, 200, "still serving: {body}");
    assert!(body.contains("\"handrail\""), "{body}");
    assert!(served.stop().success());
}

#[test]
fn http_checks_host_origin_and_bearer_tokens() {
    let served = Served::start(&["--simulated", "--vision", "yes"], &[]);
    let addr = served.addr();
    let (status, _) = raw_http(&addr, &post_head(&addr, ""), INITIALIZE.as_bytes());
    assert_eq!(status, 200);
    // DNS rebinding: a foreign Host, or a page from a foreign origin.
    let head = post_head("evil.example.com", "");
    let (status, body) = raw_http(&addr, &head, INITIALIZE.as_bytes());
    assert!((400..500).contains(&status), "foreign Host accepted: {status} {body}");
    let (status, body) =
        raw_http(&addr, &post_head(&addr, "Origin: http://evil.example.com\r\n"), INITIALIZE.as_bytes());
    assert!((400..500).contains(&status), "foreign Origin accepted: {status} {body}");
    let (status, _) = raw_http(&addr, &format!("GET /elsewhere HTTP/1.1\r\nHost: {addr}\r\n"), b"");
    assert_eq!(status, 404);
    assert!(served.stop().success());

    // Beyond loopback a token is required before anything starts…
    let out = Command::new(handrail())
        .args(["serve", "--http", "0.0.0.0:0", "--simulated", "--vision", "yes"])
        .env_remove("HANDRAIL_TOKEN")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bearer token"), "{}", show(&out));

    // …and then every request must carry it.
    let token = "a-long-enough-test-token-1234";
    let served = Served::start(&["--simulated", "--vision", "yes"], &[("HANDRAIL_TOKEN", token)]);
    let addr = served.addr();
    let (status, body) = raw_http(&addr, &post_head(&addr, ""), INITIALIZE.as_bytes());
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("WWW-Authenticate") || body.contains("www-authenticate"), "{body}");
    let wrong = post_head(&addr, "Authorization: Bearer a-long-enough-test-token-9999\r\n");
    assert_eq!(raw_http(&addr, &wrong, INITIALIZE.as_bytes()).0, 401);
    let right = post_head(&addr, &format!("Authorization: Bearer {token}\r\n"));
    assert_eq!(raw_http(&addr, &right, INITIALIZE.as_bytes()).0, 200);
    assert!(served.stop().success());
}

/// A client that ends its session is told it ended (204, as MCP's SDKs expect), and the session is
/// gone afterwards.
#[test]
fn a_session_ended_by_its_client_is_gone() {
    let served = Served::start(&["--simulated", "--vision", "yes"], &[]);
    let addr = served.addr();
    let (status, answer) = raw_http(&addr, &post_head(&addr, ""), INITIALIZE.as_bytes());
    assert_eq!(status, 200, "{answer}");
    let session = answer
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id").then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {answer}"));
    let session_headers = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let head = format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\n{session_headers}");
    let (status, answer) = raw_http(&addr, &head, b"");
    assert_eq!(status, 204, "{answer}");
    // MCP: a request in a session that has ended is answered 404, so the client starts a new one.
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#;
    let (status, answer) = raw_http(&addr, &post_head(&addr, &session_headers), list.as_bytes());
    assert_eq!(status, 404, "a request in the ended session: {answer}");
    assert!(served.stop().success());
}

#[test]
fn read_image_shows_files_under_its_roots_only() {
    let root = std::env::temp_dir().join(format!("handrail-images-e2e-{}", std::process::id()));
    let allowed = root.join("allowed");
    std::fs::create_dir_all(&allowed).expect("mkdir");
    let allowed_arg = allowed.display().to_string();
    let root_arg = root.display().to_string();
    for mode in ["legacy", "auto"] {
        let target = stdio_target(&["--simulated", "--vision", "yes", "--image-root", &allowed_arg]);
        e2e(&["images", &target, mode, &root_arg]);
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// `npx` with a pinned package; the first run downloads it (scripts/setup-test-tools warms the cache).
fn npx(args: &[&str]) -> Output {
    Command::new("npx").arg("-y").args(args).current_dir(std::env::temp_dir()).output().expect("npx runs")
}

#[test]
fn the_mcp_inspector_cli_lists_the_tools_and_calls_see() {
    let _serial = serial();
    let inspector = "@modelcontextprotocol/inspector@2.12.0";
    let server = [handrail(), "serve", "--sandbox", "--vision", "yes"];
    let mut list = vec![inspector, "--cli"];
    list.extend(server);
    list.extend(["--method", "tools/list", "--format", "json"]);
    let out = npx(&list);
    assert!(out.status.success(), "{}", show(&out));
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["computer", "read_image"]);

    let mut call = vec![inspector, "--cli"];
    call.extend(server);
    call.extend(["--method", "tools/call", "--tool-name", "computer", "--tool-arg", "action=see", "--format", "json"]);
    let out = npx(&call);
    assert!(out.status.success(), "{}", show(&out));
    let called: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let content = called["result"]["content"].as_array().expect("content");
    assert!(content[0]["text"].as_str().is_some_and(|t| t.starts_with("[ok] see")), "{called}");
    assert!(content.iter().any(|c| c["type"] == "image"), "see returns the screenshot: {called}");
}

#[test]
fn the_mcp_conformance_scenarios_for_a_tools_server_pass_over_http() {
    let _serial = serial();
    let served = Served::start(&["--sandbox", "--vision", "yes"], &[]);
    for scenario in
        ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"]
    {
        // The suite needs Node 22; npx fetches it as a package.
        let out = npx(&[
            "-p",
            "node@22",
            "-p",
            "@modelcontextprotocol/conformance@0.1.16",
            "--",
            "conformance",
            "server",
            "--url",
            &served.url,
            "--scenario",
            scenario,
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && stdout.contains(" 0 failed"), "{scenario}: {}", show(&out));
    }
    assert!(served.stop().success());
}

/// Two HTTP servers over one desktop, sharing the request-state key (replicas behind a load
/// balancer): a question one of them asks on the stateless protocol is answered through the other.
/// A third server with a key of its own, and a tampered state, ask again. What the app received is
/// read from the app itself: the delete goes through exactly once, after the person's yes.
#[test]
fn a_question_asked_by_one_replica_is_answered_through_another() {
    let _serial = serial();
    let (sandbox, mut app) = common::desktop_with_probe();

    let dir = std::env::temp_dir().join(format!("handrail-replicas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let (shared, own) = (dir.join("shared.key"), dir.join("own.key"));
    std::fs::write(&shared, "0123456789abcdef0123456789abcdef-shared").expect("key");
    std::fs::write(&own, "fedcba9876543210fedcba9876543210-own-key").expect("key");
    let display = sandbox.display();
    // The desktop's own session: its buses (accessibility among them), as a user's session has them.
    let env = sandbox.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let serve = |key: &Path| {
        let key = key.to_str().expect("utf-8");
        Served::start(&["--display", &display, "--vision", "yes", "--state-key-file", key], &env)
    };
    let (a, b, stranger) = (serve(&shared), serve(&shared), serve(&own));
    e2e(&["replicas", &a.url, "auto", &b.url, &stranger.url]);
    assert!(app.wait_for(|l| l == "delete-clicked").is_some(), "the yes reached the app: {:?}", app.seen);
    app.pending();
    assert_eq!(app.seen.iter().filter(|l| *l == "delete-clicked").count(), 1, "exactly once: {:?}", app.seen);
    drop((a, b, stranger));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long call reports each step as MCP progress; a call the client cancels while it waits stops at
/// once (the next call runs right away) and leaves nothing held down, as the X server itself says.
#[test]
fn progress_is_reported_and_a_cancelled_call_stops_waiting() {
    let _serial = serial();
    let (sandbox, mut app) = common::desktop_with_probe();
    let env = sandbox.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let display = sandbox.display();
    for mode in ["legacy", "auto"] {
        let served = Served::start(&["--display", &display, "--vision", "yes"], &env);
        let out = e2e(&["progress", &served.url, mode]);
        eprintln!("{}", String::from_utf8_lossy(&out.stdout));
        drop(served);
    }
    let conn = handrail_x11::Conn::open(&display).expect("the sandbox's X server");
    let held = handrail_x11::held_down(&conn).expect("the X server answers");
    assert!(held.is_empty(), "nothing is held down after the cancelled calls: {held:?}");
    assert!(app.wait_for(|l| l == "clicked Change").is_some(), "the clicks reached the app: {:?}", app.seen);
}

/// `--images resource`: results carry a link instead of the picture, `resources/read` returns it,
/// a call's `image` argument picks another mode, and the trace's report is a resource too.
#[test]
fn screenshots_travel_as_resources_when_asked() {
    let _serial = serial();
    let trace = std::env::temp_dir().join(format!("handrail-resources-trace-{}", std::process::id()));
    let trace_arg = trace.display().to_string();
    let app = probe_app();
    for mode in ["legacy", "auto"] {
        let served = Served::start(
            &[
                "--sandbox",
                "--vision",
                "yes",
                "--images",
                "resource",
                "--trace",
                &trace_arg,
                "--",
                "/usr/bin/python3",
                &app,
            ],
            &[],
        );
        let out = e2e(&["screenshots", &served.url, mode]);
        eprintln!("{}", String::from_utf8_lossy(&out.stdout));
        drop(served);
    }
    let _ = std::fs::remove_dir_all(&trace);
}
