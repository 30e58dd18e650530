//! `handrail serve --sandbox --osworld-guest`: OSWorld's guest API over a real private desktop, as
//! OSWorld's harness calls it (raw HTTP with its bodies: JSON, URL-encoded and multipart forms). What
//! the desktop did is read from the X server and the files themselves, not from the guest's answers.
#![cfg(target_os = "linux")]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use common::tools::Served;
use serde_json::Value;

const TOKEN: &str = "osworld-guest-test-token-0123";

/// One raw HTTP/1.1 request with a binary body: status and body bytes.
fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).expect("send");
    stream.write_all(body).expect("send body");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    assert!(!head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "{head}");
    (status, response[split + 4..].to_vec())
}

struct Guest {
    addr: String,
}

impl Guest {
    fn call(&self, method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let auth = format!("Bearer {TOKEN}");
        http(&self.addr, method, path, &[("Authorization", &auth), ("Content-Type", content_type)], body)
    }

    fn json(&self, path: &str, body: Value) -> (u16, Value) {
        let (status, bytes) = self.call("POST", path, "application/json", body.to_string().as_bytes());
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into())))
    }
}

fn x_window_titles(display: &str) -> Vec<String> {
    let out = Command::new("wmctrl").arg("-l").env("DISPLAY", display).output().expect("wmctrl runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.splitn(4, char::is_whitespace).last().unwrap_or("").to_string())
        .collect()
}

#[test]
fn osworlds_harness_calls_reach_the_private_desktop() {
    let served = Served::start(
        &["--sandbox", "--vision", "yes", "--size", "1024x768", "--osworld-guest", "127.0.0.1:0"],
        &[("HANDRAIL_TOKEN", TOKEN)],
    );
    let log = served.log();
    let addr = log
        .lines()
        .find_map(|l| l.split("OSWorld guest at http://").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no guest address in:\n{log}"))
        .to_string();
    let display = served.display.clone().expect("a sandbox display");
    let root = served.sandbox_root().expect("the sandbox root");
    let guest = Guest { addr };

    // Refused before anything: no token, a browser's request.
    assert_eq!(http(&guest.addr, "GET", "/platform", &[], b"").0, 401);
    let auth = format!("Bearer {TOKEN}");
    assert_eq!(
        http(&guest.addr, "GET", "/platform", &[("Authorization", &auth), ("Origin", "http://127.0.0.1:8000")], b"").0,
        403
    );
    assert_eq!(guest.call("GET", "/platform", "text/plain", b""), (200, b"Linux".to_vec()));

    // A task's file, uploaded as requests sends it, lands in the private home under /home/user's name.
    let text = "ข้อมูล 1,2\nnotes from the task\n";
    let mut body =
        b"--XbOuNdArY\r\nContent-Disposition: form-data; name=\"file_path\"\r\n\r\n/home/user/Desktop/notes.txt\r\n"
            .to_vec();
    body.extend_from_slice(
        b"--XbOuNdArY\r\nContent-Disposition: form-data; name=\"file_data\"; filename=\"notes.txt\"\r\n\r\n",
    );
    body.extend_from_slice(text.as_bytes());
    body.extend_from_slice(b"\r\n--XbOuNdArY--\r\n");
    let (status, said) = guest.call("POST", "/setup/upload", "multipart/form-data; boundary=XbOuNdArY", &body);
    assert_eq!(
        (status, String::from_utf8_lossy(&said).into_owned()),
        (200, format!("File Uploaded: {} bytes", text.len()))
    );
    let on_disk =
        std::fs::read_to_string(root.join("home/Desktop/notes.txt")).expect("the file is in the sandbox's home");
    assert_eq!(on_disk, text);

    // Read back as the evaluator's getter does; outside the home is refused.
    let (status, bytes) = guest.call(
        "POST",
        "/file",
        "application/x-www-form-urlencoded",
        b"file_path=%2Fhome%2Fuser%2FDesktop%2Fnotes.txt",
    );
    assert_eq!((status, bytes), (200, text.as_bytes().to_vec()));
    let (status, _) = guest.call("POST", "/file", "application/x-www-form-urlencoded", b"file_path=%2Fetc%2Fhostname");
    assert_eq!(status, 403);

    // Commands run in the desktop's session: its display, its home (where the uploaded file is).
    let (status, ran) = guest.json(
        "/execute",
        serde_json::json!({"command": "echo $DISPLAY; pwd; cat ~/Desktop/notes.txt | wc -l", "shell": true}),
    );
    assert_eq!(status, 200, "{ran}");
    let output = ran["output"].as_str().unwrap_or_default().to_string();
    assert_eq!(
        output.lines().collect::<Vec<_>>(),
        // The private home is named as the task home in what commands print.
        [display.as_str(), "/home/user", "2"],
        "{ran}"
    );

    // The screen, at the sandbox's size.
    let (status, png) = guest.call("GET", "/screenshot", "text/plain", b"");
    assert_eq!(status, 200);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let side = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    assert_eq!((side(16), side(20)), (1024, 768));
    assert_eq!(guest.json("/screen_size", Value::Null).1, serde_json::json!({"width": 1024, "height": 768}));

    // open_file starts the file's app and waits for its window: the X server has it, and the app's
    // own accessibility shows the file's text.
    let (status, said) = guest
        .json("/setup/open_file", serde_json::json!({"path": "/home/user/Desktop/notes.txt", "timeout_seconds": 30}));
    assert_eq!((status, said.as_str()), (200, Some("File opened and window activated successfully")));
    assert!(x_window_titles(&display).iter().any(|t| t.contains("notes.txt")), "{:?}", x_window_titles(&display));
    let mut tree = String::new();
    for _ in 0..50 {
        let (_, at) = guest.call("GET", "/accessibility", "text/plain", b"");
        let at: Value = serde_json::from_slice(&at).expect("JSON");
        tree = at["AT"].as_str().unwrap_or_default().to_string();
        if tree.contains("notes from the task") {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(tree.starts_with("<desktop-frame ") && tree.contains("notes from the task"), "{tree}");

    // close_window closes it, by title, as wmctrl does.
    let (status, _) = guest.json("/setup/close_window", serde_json::json!({"window_name": "notes.txt"}));
    assert_eq!(status, 200);
    let gone = handrail_testkit::wait_until(Duration::from_secs(10), Duration::from_millis(100), || {
        (!x_window_titles(&display).iter().any(|t| t.contains("notes.txt"))).then_some(())
    });
    assert!(gone.is_some(), "still open: {:?}", x_window_titles(&display));
    served.stop();
}
