//! Absolute-form requests (`GET http://host/path HTTP/1.1`): judged on the full URL, then sent to the
//! origin in origin form with hop-by-hop headers removed; the body is copied exactly as framed and the
//! response streamed back.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Instant;

use crate::conn;
use crate::head::{self, HeadError, Header, RequestHead};
use crate::page;
use crate::policy::{self, Destination, Verdict};
use crate::tunnel;
use crate::ConnGuard;

/// Longest origin response head, in bytes.
const MAX_RESPONSE_HEAD: usize = 64 * 1024;
/// Most header fields in an origin response head.
const MAX_RESPONSE_HEADERS: usize = 256;
/// Longest chunk-size or trailer line of a chunked request body.
const MAX_CHUNK_LINE: usize = 4096;
/// Most trailer fields after a chunked request body.
const MAX_TRAILERS: usize = 64;

/// Request headers never sent to the origin (RFC 9110 §7.6.1, plus the proxy's own).
const HOP_BY_HOP: &[&str] =
    &["connection", "proxy-connection", "keep-alive", "proxy-authorization", "te", "trailer", "upgrade"];
/// Headers that framing or routing depend on: never removed because `Connection` names them.
const PROTECTED: &[&str] = &["host", "content-length", "transfer-encoding"];

/// An `Authorization` field with the user's own login (Basic or Digest: what URL credentials and a
/// browser's login prompt produce). Tokens a page's script sets (`Bearer …`) are the page's business.
fn carries_login(head: &RequestHead) -> bool {
    head.values("authorization").any(|h| {
        let scheme = h.text().split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
        matches!(scheme.as_str(), "basic" | "digest")
    })
}

/// How a request body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    None,
    Length(u64),
    Chunked,
}

/// Handles an absolute-form request whose head has been read; `early` is what followed the head.
pub(crate) fn handle(conn: &ConnGuard, client: &TcpStream, head: &RequestHead, early: Vec<u8>) {
    let shared = &conn.shared;
    let head_only = head.method == "HEAD";
    let dest = match policy::judge_absolute(&head.target, &shared.policy) {
        Verdict::Refused { url, reason } => {
            shared.record_blocked(&head.method, &url, &reason);
            let body = page::block_page(&url, &reason);
            return page::respond(client, 403, "text/html; charset=utf-8", &body, head_only);
        }
        Verdict::Allowed(dest) => dest,
    };
    if carries_login(head) {
        // A browser takes `user:password@` out of a URL before it asks the proxy, and answers the
        // site's 401 with those credentials in `Authorization`: the URL rule's refusal holds only if
        // the header is refused too. (Inside an https tunnel the proxy cannot see it.)
        let url = dest.url.as_str();
        let reason = "the request carries login credentials (HTTP authorization, as from a user:password@ URL or                       a login prompt); enter them manually";
        shared.record_blocked(&head.method, url, reason);
        let body = page::block_page(url, reason);
        return page::respond(client, 403, "text/html; charset=utf-8", &body, head_only);
    }
    if dest.url.scheme() != "http" {
        return page::text(client, 501, "https goes through CONNECT; this proxy does not speak TLS", head_only);
    }
    let framing = match framing(head) {
        Ok(f) => f,
        Err(why) => return conn::bad_request(conn, client, head, why),
    };
    shared.record_allowed(&head.method, dest.url.as_str());
    let websocket = is_websocket(head);
    let expect_continue = framing != Framing::None && head.tokens("expect").iter().any(|t| t == "100-continue");
    let upstream = match conn::connect(conn, &dest) {
        Ok(s) => s,
        Err(e) => {
            let (status, text) = e.answer(&dest);
            log::debug!("{} {}: {text}", head.method, dest.url);
            return page::text(client, status, &text, head_only);
        }
    };
    if (&upstream).write_all(&upstream_head(head, &dest, websocket, expect_continue)).is_err() {
        return page::text(client, 502, "the origin closed the connection", head_only);
    }
    if expect_continue && (&*client).write_all(b"HTTP/1.1 100 Continue\r\n\r\n").is_err() {
        return;
    }
    let mut src = Source { stream: client, buf: early, pos: 0 };
    let _ = client.set_read_timeout(Some(shared.limits.idle_timeout));
    match copy_body(&mut src, &upstream, framing) {
        Ok(()) => {}
        // The origin may have answered without reading the whole body (a 413, a redirect): relay that.
        Err(BodyError::Upstream(e)) => {
            log::debug!("{} {}: the origin stopped reading the body: {e}", head.method, dest.url)
        }
        Err(BodyError::Client(e)) => {
            log::debug!("{} {}: the request body did not arrive whole: {e}", head.method, dest.url);
            let _ = upstream.shutdown(Shutdown::Both);
            return;
        }
        Err(BodyError::Malformed(why)) => {
            let _ = upstream.shutdown(Shutdown::Both);
            return conn::bad_request(conn, client, head, why);
        }
    }
    relay_response(conn, client, &upstream, head_only, websocket, &src.buf[src.pos..]);
    let _ = upstream.shutdown(Shutdown::Both);
}

/// Reads the origin's response head(s) and streams the response to the client.
fn relay_response(
    conn: &ConnGuard,
    client: &TcpStream,
    upstream: &TcpStream,
    head_only: bool,
    websocket: bool,
    client_early: &[u8],
) {
    let idle = conn.shared.limits.idle_timeout;
    let mut pending = Vec::new();
    loop {
        let read = head::read_head(upstream, std::mem::take(&mut pending), MAX_RESPONSE_HEAD, Instant::now() + idle)
            .and_then(|(bytes, rest)| Ok((head::parse_response(&bytes, MAX_RESPONSE_HEADERS)?, bytes, rest)));
        let (resp, raw, rest) = match read {
            Ok(r) => r,
            Err(e) => {
                let why = match e {
                    HeadError::Empty | HeadError::Closed => "the origin closed the connection without a response",
                    HeadError::Timeout => "the origin did not answer in time",
                    _ => "the origin's response head is malformed or too large",
                };
                return page::text(client, 502, why, head_only);
            }
        };
        match resp.status {
            101 if websocket => {
                if (&*client).write_all(&raw).is_ok() {
                    tunnel::splice(client, upstream, client_early, &rest, idle);
                }
                return;
            }
            101 => return page::text(client, 502, "the origin switched protocols unasked", head_only),
            100..=199 => {
                // Interim answers (100 Continue, 103 Early Hints) pass through unchanged.
                if (&*client).write_all(&raw).is_err() {
                    return;
                }
                pending = rest;
            }
            _ => {
                if (&*client).write_all(&response_head(&resp)).is_err() || (&*client).write_all(&rest).is_err() {
                    return;
                }
                copy_to_eof(upstream, client);
                return;
            }
        }
    }
}

/// Copies until `from` closes (the origin was asked to close after its response).
fn copy_to_eof(from: &TcpStream, to: &TcpStream) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match (&*from).read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if (&*to).write_all(&buf[..n]).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// How the request body is delimited (RFC 9112 §6.3), refusing anything ambiguous.
fn framing(head: &RequestHead) -> Result<Framing, &'static str> {
    let codings = head.tokens("transfer-encoding");
    let lengths: Vec<String> = head.tokens("content-length");
    if !codings.is_empty() {
        if !lengths.is_empty() || head.values("content-length").next().is_some() {
            return Err("both Transfer-Encoding and Content-Length");
        }
        return match codings.last().map(String::as_str) {
            Some("chunked") if codings.iter().filter(|c| *c == "chunked").count() == 1 => Ok(Framing::Chunked),
            _ => Err("a Transfer-Encoding that does not end in a single chunked"),
        };
    }
    if head.values("transfer-encoding").next().is_some() {
        return Err("an empty Transfer-Encoding");
    }
    if head.values("content-length").next().is_none() {
        return Ok(Framing::None);
    }
    let Some(first) = lengths.first() else { return Err("an empty Content-Length") };
    if lengths.iter().any(|l| l != first) {
        return Err("conflicting Content-Length values");
    }
    if first.is_empty() || first.len() > 18 || !first.bytes().all(|b| b.is_ascii_digit()) {
        return Err("a Content-Length that is not a number");
    }
    let n: u64 = first.parse().map_err(|_| "a Content-Length that is not a number")?;
    Ok(if n == 0 { Framing::None } else { Framing::Length(n) })
}

/// `Upgrade: websocket` on a GET with `Connection: upgrade`.
fn is_websocket(head: &RequestHead) -> bool {
    head.method == "GET"
        && head.tokens("upgrade").iter().any(|t| t == "websocket")
        && head.tokens("connection").iter().any(|t| t == "upgrade")
}

/// The request head for the origin: origin form, the judged `Host`, hop-by-hop headers removed.
fn upstream_head(head: &RequestHead, dest: &Destination, websocket: bool, expect_continue: bool) -> Vec<u8> {
    let named = head.tokens("connection");
    let drop = |h: &Header| {
        let name = h.name.to_ascii_lowercase();
        if h.is("host") || (expect_continue && h.is("expect")) {
            return true;
        }
        if websocket && name == "upgrade" {
            return false;
        }
        HOP_BY_HOP.contains(&name.as_str()) || (named.contains(&name) && !PROTECTED.contains(&name.as_str()))
    };
    let mut out =
        format!("{} {} HTTP/1.1\r\nHost: {}\r\n", head.method, dest.origin_form(), dest.host_header()).into_bytes();
    for h in head.headers.iter().filter(|h| !drop(h)) {
        push_field(&mut out, h);
    }
    out.extend_from_slice(if websocket { b"Connection: Upgrade\r\n\r\n" } else { b"Connection: close\r\n\r\n" });
    out
}

/// The response head for the client: the origin's, with its connection headers replaced by
/// `Connection: close`.
fn response_head(resp: &head::ResponseHead) -> Vec<u8> {
    let named: Vec<String> = resp
        .headers
        .iter()
        .filter(|h| h.is("connection"))
        .flat_map(|h| h.text().split(',').map(|t| t.trim().to_ascii_lowercase()).collect::<Vec<_>>())
        .collect();
    let mut out = resp.status_line.clone();
    out.extend_from_slice(b"\r\n");
    for h in &resp.headers {
        let name = h.name.to_ascii_lowercase();
        let hop = matches!(name.as_str(), "connection" | "proxy-connection" | "keep-alive" | "upgrade")
            || (named.contains(&name) && !PROTECTED.contains(&name.as_str()));
        if !hop {
            push_field(&mut out, h);
        }
    }
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    out
}

fn push_field(out: &mut Vec<u8>, h: &Header) {
    out.extend_from_slice(h.name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(&h.value);
    out.extend_from_slice(b"\r\n");
}

/// Why a body was not copied whole.
#[derive(Debug)]
enum BodyError {
    Client(io::Error),
    Upstream(io::Error),
    Malformed(&'static str),
}

/// The client's bytes after the head: what was already read, then the socket.
struct Source<'a> {
    stream: &'a TcpStream,
    buf: Vec<u8>,
    pos: usize,
}

impl Source<'_> {
    /// Up to `max` bytes (at least one unless the client closed).
    fn take(&mut self, max: usize) -> Result<&[u8], BodyError> {
        if self.pos == self.buf.len() {
            self.buf.resize(16 * 1024, 0);
            self.pos = 0;
            let n = loop {
                match (&*self.stream).read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.buf.clear();
                        return Err(BodyError::Client(e));
                    }
                }
            };
            self.buf.truncate(n);
        }
        let n = max.min(self.buf.len() - self.pos);
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Exactly `n` bytes to `to`.
    fn copy_exact(&mut self, mut n: u64, to: &TcpStream) -> Result<(), BodyError> {
        while n > 0 {
            let want = usize::try_from(n.min(16 * 1024)).unwrap_or(16 * 1024);
            let bytes = self.take(want)?;
            if bytes.is_empty() {
                return Err(BodyError::Client(io::ErrorKind::UnexpectedEof.into()));
            }
            n -= bytes.len() as u64;
            (&*to).write_all(bytes).map_err(BodyError::Upstream)?;
        }
        Ok(())
    }

    /// One line including its CRLF, at most `limit` bytes.
    fn line(&mut self, limit: usize) -> Result<Vec<u8>, BodyError> {
        let mut line = Vec::new();
        loop {
            let b = match self.take(1)? {
                [b] => *b,
                _ => return Err(BodyError::Client(io::ErrorKind::UnexpectedEof.into())),
            };
            line.push(b);
            if line.ends_with(b"\r\n") {
                return Ok(line);
            }
            if line.len() >= limit || b == b'\n' {
                return Err(BodyError::Malformed("a malformed chunked body"));
            }
        }
    }
}

/// Copies the request body to the origin exactly as framed, bytes unchanged; nothing after it.
fn copy_body(src: &mut Source<'_>, to: &TcpStream, framing: Framing) -> Result<(), BodyError> {
    match framing {
        Framing::None => Ok(()),
        Framing::Length(n) => src.copy_exact(n, to),
        Framing::Chunked => loop {
            let line = src.line(MAX_CHUNK_LINE)?;
            let size = chunk_size(&line).ok_or(BodyError::Malformed("a malformed chunk size"))?;
            (&*to).write_all(&line).map_err(BodyError::Upstream)?;
            if size == 0 {
                for _ in 0..=MAX_TRAILERS {
                    let trailer = src.line(MAX_CHUNK_LINE)?;
                    (&*to).write_all(&trailer).map_err(BodyError::Upstream)?;
                    if trailer == b"\r\n" {
                        return Ok(());
                    }
                }
                return Err(BodyError::Malformed("too many trailer fields"));
            }
            src.copy_exact(size, to)?;
            if src.line(2)? != b"\r\n" {
                return Err(BodyError::Malformed("a chunk not followed by CRLF"));
            }
            (&*to).write_all(b"\r\n").map_err(BodyError::Upstream)?;
        },
    }
}

/// The size of a `hex[;extensions]\r\n` chunk line.
fn chunk_size(line: &[u8]) -> Option<u64> {
    let line = line.strip_suffix(b"\r\n")?;
    let hex_len = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let (hex, ext) = line.split_at(hex_len);
    if hex.is_empty() || hex.len() > 15 || !(ext.is_empty() || ext[0] == b';') {
        return None;
    }
    if ext.iter().any(|&b| b.is_ascii_control() && b != b'\t') {
        return None;
    }
    u64::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(raw: &str) -> RequestHead {
        head::parse_request(raw.as_bytes(), 100).expect("a valid head")
    }

    #[test]
    fn framing_is_strict() {
        let f = |extra: &str| framing(&head(&format!("POST http://a/ HTTP/1.1\r\nHost: a\r\n{extra}\r\n")));
        assert_eq!(f(""), Ok(Framing::None));
        assert_eq!(f("Content-Length: 5\r\n"), Ok(Framing::Length(5)));
        assert_eq!(f("Content-Length: 5, 5\r\n"), Ok(Framing::Length(5)));
        assert_eq!(f("Content-Length: 0\r\n"), Ok(Framing::None));
        assert_eq!(f("Transfer-Encoding: chunked\r\n"), Ok(Framing::Chunked));
        assert_eq!(f("Transfer-Encoding: gzip, chunked\r\n"), Ok(Framing::Chunked));
        for bad in [
            "Content-Length: 5\r\nContent-Length: 6\r\n",
            "Content-Length: -1\r\n",
            "Content-Length: 0x10\r\n",
            "Content-Length:\r\n",
            "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
            "Transfer-Encoding: chunked, gzip\r\n",
            "Transfer-Encoding: chunked, chunked\r\n",
            "Transfer-Encoding:\r\n",
        ] {
            assert!(f(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn upstream_head_is_origin_form_without_hop_by_hop() {
        let h = head(
            "POST http://example.com:8080/a?b=1#frag HTTP/1.1\r\nHost: evil.com\r\nProxy-Connection: keep-alive\r\n\
Connection: keep-alive, X-Secret, Content-Length\r\nX-Secret: 1\r\nKeep-Alive: 300\r\nTE: trailers\r\n\
Proxy-Authorization: Basic eA==\r\nUpgrade: h2c\r\nContent-Length: 3\r\nAccept: */*\r\n\r\n",
        );
        let Verdict::Allowed(dest) = policy::judge_absolute(&h.target, &Default::default()) else { panic!() };
        let out = String::from_utf8(upstream_head(&h, &dest, false, false)).unwrap();
        assert_eq!(
            out,
            "POST /a?b=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 3\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn websocket_keeps_its_upgrade() {
        let h = head(
            "GET http://example.com/ws HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
Sec-WebSocket-Key: x\r\n\r\n",
        );
        assert!(is_websocket(&h));
        let Verdict::Allowed(dest) = policy::judge_absolute(&h.target, &Default::default()) else { panic!() };
        let out = String::from_utf8(upstream_head(&h, &dest, true, false)).unwrap();
        assert_eq!(
            out,
            "GET /ws HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nSec-WebSocket-Key: x\r\nConnection: Upgrade\r\n\r\n"
        );
    }

    #[test]
    fn response_head_closes() {
        let raw = b"HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n";
        let resp = head::parse_response(raw, 10).unwrap();
        assert_eq!(
            String::from_utf8(response_head(&resp)).unwrap(),
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn chunk_sizes() {
        assert_eq!(chunk_size(b"1a\r\n"), Some(26));
        assert_eq!(chunk_size(b"0\r\n"), Some(0));
        assert_eq!(chunk_size(b"A;name=v\r\n"), Some(10));
        for bad in [&b"\r\n"[..], b"g\r\n", b"1 \r\n", b"-1\r\n", b"ffffffffffffffff\r\n", b"1"] {
            assert_eq!(chunk_size(bad), None, "{bad:?}");
        }
    }
}
