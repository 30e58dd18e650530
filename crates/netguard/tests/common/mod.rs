//! Origin servers and a raw client for the proxy's tests: everything on loopback (127.0.0.1 is the
//! allowed host, 127.0.0.2 the refused one), every server keeping its own log.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use handrail_core::guard::url::UrlPolicy;

/// Only 127.0.0.1 is allowed.
pub fn policy() -> UrlPolicy {
    UrlPolicy { allowed_domains: vec!["127.0.0.1".to_string()] }
}

/// One request as an origin received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The head, blank line included.
    pub head: String,
    /// The body bytes exactly as they arrived (chunked framing included).
    pub body: Vec<u8>,
}

/// A size for the benchmark page.
pub const BIG: usize = 100 * 1024;

/// An HTTP origin (or a TCP echo server) on a loopback address, counting every connection it accepts
/// and logging every request.
pub struct Origin {
    pub addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<Received>>>,
}

impl Origin {
    /// An HTTP origin. Routes: `/` (a greeting), `/big` (100 KiB), `/redirect?to=URL` (302),
    /// `/meta?to=URL` (a meta refresh and a script redirect), `/ws` (101, then echoes), `/private`
    /// (401 with a Basic challenge unless the request carries `Authorization`), anything else 404. Every response closes the connection.
    pub fn http(ip: &str) -> Origin {
        Origin::start(ip, false)
    }

    /// A TCP echo server.
    pub fn echo(ip: &str) -> Origin {
        Origin::start(ip, true)
    }

    fn start(ip: &str, echo: bool) -> Origin {
        let listener = TcpListener::bind((ip, 0)).expect("a loopback port");
        let addr = listener.local_addr().expect("address");
        let connections = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (c, l) = (Arc::clone(&connections), Arc::clone(&log));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                c.fetch_add(1, Ordering::SeqCst);
                let l = Arc::clone(&l);
                std::thread::spawn(move || if echo { echo_all(&stream) } else { serve(&stream, &l) });
            }
        });
        Origin { addr, connections, log }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Received> {
        self.log.lock().expect("log").clone()
    }
}

fn echo_all(mut stream: &TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 || stream.write_all(&buf[..n]).is_err() {
            break;
        }
    }
}

fn serve(mut stream: &TcpStream, log: &Mutex<Vec<Received>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Some((head, mut rest)) = read_head(stream) else { return };
    let lower = head.to_ascii_lowercase();
    let body = if lower.contains("\r\ntransfer-encoding: chunked\r\n") {
        read_chunked(stream, &mut rest)
    } else if let Some(n) = header(&lower, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        read_exact_body(stream, &mut rest, n)
    } else {
        Vec::new()
    };
    log.lock().expect("log").push(Received { head: head.clone(), body });
    let path = head.split(' ').nth(1).unwrap_or("").to_string();
    let (status, extra, body) = if path == "/" {
        ("200 OK", String::new(), b"hello from the origin".to_vec())
    } else if path == "/big" {
        ("200 OK", String::new(), (0..BIG).map(|i| b'a' + (i % 26) as u8).collect())
    } else if let Some(to) = path.strip_prefix("/redirect?to=") {
        ("302 Found", format!("Location: {to}\r\n"), b"moved".to_vec())
    } else if let Some(to) = path.strip_prefix("/meta?to=") {
        let page = format!(
            "<!doctype html><html><head><meta http-equiv=\"refresh\" content=\"0; url={to}\"><title>meta</title>\
</head><body>leaving<script>setTimeout(() => location.href = \"{to}\", 50)</script></body></html>"
        );
        ("200 OK", "Content-Type: text/html\r\n".to_string(), page.into_bytes())
    } else if path == "/ws" {
        let _ =
            stream.write_all(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
        let _ = stream.write_all(&rest);
        echo_all(stream);
        return;
    } else if path == "/private" {
        // HTTP Basic: a challenge, and the page only for a request that carries a login.
        if lower.contains("\r\nauthorization:") {
            ("200 OK", "Content-Type: text/html\r\n".to_string(), b"<title>private</title>logged in".to_vec())
        } else {
            ("401 Unauthorized", "WWW-Authenticate: Basic realm=\"test\"\r\n".to_string(), b"login please".to_vec())
        }
    } else if path == "/page" {
        let page = "<!doctype html><html><head><title>allowed page</title></head><body><p id=\"x\">allowed content</p></body></html>";
        ("200 OK", "Content-Type: text/html\r\n".to_string(), page.as_bytes().to_vec())
    } else {
        ("404 Not Found", String::new(), b"no such page".to_vec())
    };
    let _ = write!(stream, "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Write);
    // Read what the client may still send, so closing does not reset the connection.
    let mut sink = [0u8; 1024];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
}

fn header(lower_head: &str, name: &str) -> Option<String> {
    lower_head.split("\r\n").find_map(|l| l.strip_prefix(&format!("{name}:")).map(|v| v.trim().to_string()))
}

fn read_head(mut stream: &TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(at + 4);
            return Some((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn fill(mut stream: &TcpStream, buf: &mut Vec<u8>, want: usize) -> bool {
    let mut chunk = [0u8; 4096];
    while buf.len() < want {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    true
}

fn read_exact_body(stream: &TcpStream, rest: &mut Vec<u8>, n: usize) -> Vec<u8> {
    fill(stream, rest, n);
    rest.truncate(n);
    std::mem::take(rest)
}

/// The raw chunked body, through the last chunk and the empty trailer section.
fn read_chunked(stream: &TcpStream, buf: &mut Vec<u8>) -> Vec<u8> {
    let mut at = 0;
    loop {
        let line_end = loop {
            if let Some(p) = buf[at..].windows(2).position(|w| w == b"\r\n") {
                break at + p;
            }
            let len = buf.len();
            if !fill(stream, buf, len + 1) {
                return std::mem::take(buf);
            }
        };
        let line = String::from_utf8_lossy(&buf[at..line_end]).into_owned();
        let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        at = line_end + 2;
        if size == 0 {
            // Trailers until an empty line.
            loop {
                let end = loop {
                    if let Some(p) = buf[at..].windows(2).position(|w| w == b"\r\n") {
                        break at + p;
                    }
                    let len = buf.len();
                    if !fill(stream, buf, len + 1) {
                        return std::mem::take(buf);
                    }
                };
                let empty = end == at;
                at = end + 2;
                if empty {
                    buf.truncate(at);
                    return std::mem::take(buf);
                }
            }
        }
        fill(stream, buf, at + size + 2);
        at += size + 2;
    }
}

/// Sends `raw` to `addr` and reads the answer until the server closes (within 10 s).
pub fn exchange(addr: SocketAddr, raw: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let _ = s.write_all(raw);
    read_to_close(&mut s)
}

/// Like [`exchange`], then closes the sending half (a client that has said all it will say).
pub fn exchange_closing(addr: SocketAddr, raw: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let _ = s.write_all(raw);
    let _ = s.shutdown(Shutdown::Write);
    read_to_close(&mut s)
}

pub fn read_to_close(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    out
}

/// A GET through the proxy in absolute form.
pub fn get(proxy: SocketAddr, url: &str) -> Vec<u8> {
    let host = url.split('/').nth(2).unwrap_or("");
    exchange(
        proxy,
        format!("GET {url} HTTP/1.1\r\nHost: {host}\r\nProxy-Connection: keep-alive\r\nUser-Agent: test\r\n\r\n")
            .as_bytes(),
    )
}

/// The status code of a raw response (0 when there is none).
pub fn status(resp: &[u8]) -> u16 {
    std::str::from_utf8(resp.get(9..12).unwrap_or_default()).ok().and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// The head of a raw response, as text.
pub fn head_of(resp: &[u8]) -> String {
    let end = resp.windows(4).position(|w| w == b"\r\n\r\n").map_or(resp.len(), |p| p + 4);
    String::from_utf8_lossy(&resp[..end]).into_owned()
}

/// The body of a raw response.
pub fn body_of(resp: &[u8]) -> &[u8] {
    resp.windows(4).position(|w| w == b"\r\n\r\n").map_or(&[][..], |p| &resp[p + 4..])
}
