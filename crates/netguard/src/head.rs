//! Reading and parsing HTTP/1.x message heads, strictly and within limits.
//!
//! A head is read until the blank line that ends it, never past a byte limit and never past a deadline
//! (the whole head, not each read, so a client trickling a byte at a time cannot hold a thread). Parsing
//! follows RFC 9112 without leniency: CRLF line ends only, single spaces in the request line, header
//! names that are tokens directly followed by `:`, no obsolete line folding, no control characters
//! (NUL included) anywhere, an ASCII request target. Anything else is [`HeadError::Malformed`].

use std::io::{self, Read};
use std::net::TcpStream;
use std::time::Instant;

/// Why no head was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HeadError {
    /// The peer closed without sending anything.
    Empty,
    /// The peer closed before the head was complete.
    Closed,
    /// The deadline passed before the head was complete.
    Timeout,
    /// The head is longer than the byte limit.
    TooLarge,
    /// More header fields than allowed.
    TooManyHeaders,
    /// Not an HTTP/1.x head; the text says what is wrong.
    Malformed(&'static str),
    /// A socket error other than a timeout.
    Io(io::ErrorKind),
}

impl HeadError {
    /// The text of a 400 answer (never the input itself).
    pub(crate) fn describe(&self) -> String {
        match self {
            HeadError::Empty => "the connection closed without a request".to_string(),
            HeadError::Closed => "the request ended before its head was complete".to_string(),
            HeadError::Timeout => "the request head did not arrive in time".to_string(),
            HeadError::TooLarge => "the request head is too large".to_string(),
            HeadError::TooManyHeaders => "the request has too many header fields".to_string(),
            HeadError::Malformed(what) => format!("malformed request: {what}"),
            HeadError::Io(kind) => format!("the connection failed: {kind}"),
        }
    }
}

/// HTTP/1.0 or HTTP/1.1; nothing else is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    Http10,
    Http11,
}

/// One header field: the name as sent, the value with surrounding whitespace trimmed, as bytes (values
/// may hold obs-text, forwarded unchanged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) name: String,
    pub(crate) value: Vec<u8>,
}

impl Header {
    pub(crate) fn is(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }

    /// The value as text, lossily (for comparisons only; forwarding uses the bytes).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.value).into_owned()
    }
}

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RequestHead {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) version: Version,
    pub(crate) headers: Vec<Header>,
}

impl RequestHead {
    /// Every value of the fields called `name`, in order.
    pub(crate) fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Header> + 'a {
        self.headers.iter().filter(move |h| h.is(name))
    }

    /// The comma-separated tokens of every `name` field, lower-cased (`Connection: keep-alive, Upgrade`).
    pub(crate) fn tokens(&self, name: &str) -> Vec<String> {
        self.values(name)
            .flat_map(|h| h.text().split(',').map(|t| t.trim().to_ascii_lowercase()).collect::<Vec<_>>())
            .filter(|t| !t.is_empty())
            .collect()
    }
}

/// A parsed response head: the status line as sent and the header fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResponseHead {
    pub(crate) status: u16,
    pub(crate) status_line: Vec<u8>,
    pub(crate) headers: Vec<Header>,
}

/// Reads from `stream` until a complete head (ending in CRLF CRLF) of at most `max_bytes`, before
/// `deadline`; `initial` holds bytes already read. Returns the head's bytes and whatever was read past
/// it.
pub(crate) fn read_head(
    stream: &TcpStream,
    initial: Vec<u8>,
    max_bytes: usize,
    deadline: Instant,
) -> Result<(Vec<u8>, Vec<u8>), HeadError> {
    let mut buf = initial;
    if let Some(at) = find_end(&buf) {
        if at + 4 > max_bytes {
            return Err(HeadError::TooLarge);
        }
        let rest = buf.split_off(at + 4);
        return Ok((buf, rest));
    }
    if buf.len() >= max_bytes {
        return Err(HeadError::TooLarge);
    }
    let mut chunk = [0u8; 4096];
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Err(HeadError::Timeout);
        }
        stream.set_read_timeout(Some(deadline - now)).map_err(|e| HeadError::Io(e.kind()))?;
        let n = match (&*stream).read(&mut chunk) {
            Ok(0) if buf.is_empty() => return Err(HeadError::Empty),
            Ok(0) => return Err(HeadError::Closed),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(HeadError::Timeout)
            }
            Err(e) => return Err(HeadError::Io(e.kind())),
        };
        let searched = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = find_end(&buf[searched..]) {
            let end = searched + at + 4;
            if end > max_bytes {
                return Err(HeadError::TooLarge);
            }
            let rest = buf.split_off(end);
            return Ok((buf, rest));
        }
        if buf.len() >= max_bytes {
            return Err(HeadError::TooLarge);
        }
    }
}

fn find_end(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Parses a request head: `bytes` is everything up to and including the blank line.
pub(crate) fn parse_request(bytes: &[u8], max_headers: usize) -> Result<RequestHead, HeadError> {
    let (first, headers) = split_head(bytes, max_headers)?;
    let mut parts = first.split(|&b| b == b' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(HeadError::Malformed("the request line is not `METHOD target HTTP/1.x`"));
    };
    if method.is_empty() || !method.iter().all(|&b| is_tchar(b)) {
        return Err(HeadError::Malformed("the method is not a token"));
    }
    if target.is_empty() || !target.iter().all(|&b| b.is_ascii_graphic()) {
        return Err(HeadError::Malformed("the request target is empty or not printable ASCII"));
    }
    let version = match version {
        b"HTTP/1.1" => Version::Http11,
        b"HTTP/1.0" => Version::Http10,
        _ => return Err(HeadError::Malformed("only HTTP/1.0 and HTTP/1.1 are spoken")),
    };
    // Checked above: tokens and graphic ASCII are valid UTF-8.
    let method = String::from_utf8_lossy(method).into_owned();
    let target = String::from_utf8_lossy(target).into_owned();
    Ok(RequestHead { method, target, version, headers })
}

/// Parses a response head (from an origin server).
pub(crate) fn parse_response(bytes: &[u8], max_headers: usize) -> Result<ResponseHead, HeadError> {
    let (first, headers) = split_head(bytes, max_headers)?;
    let status = match first {
        [b'H', b'T', b'T', b'P', b'/', b'1', b'.', b'0' | b'1', b' ', a, b, c, rest @ ..]
            if [a, b, c].iter().all(|d| d.is_ascii_digit()) && (rest.is_empty() || rest[0] == b' ') =>
        {
            u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0')
        }
        _ => return Err(HeadError::Malformed("the status line is not `HTTP/1.x NNN reason`")),
    };
    if first.iter().any(|&b| b.is_ascii_control() && b != b'\t') {
        return Err(HeadError::Malformed("control character in the status line"));
    }
    Ok(ResponseHead { status, status_line: first.to_vec(), headers })
}

/// The first line and the parsed header fields of a head ending in CRLF CRLF.
fn split_head(bytes: &[u8], max_headers: usize) -> Result<(&[u8], Vec<Header>), HeadError> {
    let body = bytes.strip_suffix(b"\r\n\r\n").ok_or(HeadError::Malformed("the head does not end in a blank line"))?;
    let mut lines = crlf_lines(body);
    let first = lines.next().unwrap_or_default();
    if first.is_empty() {
        return Err(HeadError::Malformed("the head starts with an empty line"));
    }
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() >= max_headers {
            return Err(HeadError::TooManyHeaders);
        }
        headers.push(parse_field(line)?);
    }
    Ok((first, headers))
}

/// Splits on CRLF; a bare CR or LF stays inside a line (and is refused by whoever reads it).
fn crlf_lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(body);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(2).position(|w| w == b"\r\n") {
            Some(at) => {
                rest = Some(&r[at + 2..]);
                Some(&r[..at])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// `name: value`, the name a token directly followed by the colon, the value free of control
/// characters other than horizontal tab.
fn parse_field(line: &[u8]) -> Result<Header, HeadError> {
    if line.first().is_some_and(|&b| b == b' ' || b == b'\t') {
        return Err(HeadError::Malformed("obsolete line folding"));
    }
    let colon = line.iter().position(|&b| b == b':').ok_or(HeadError::Malformed("a header field without a colon"))?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
        return Err(HeadError::Malformed("a header name that is not a token"));
    }
    if value.iter().any(|&b| (b.is_ascii_control() && b != b'\t') || b == 0x7f) {
        return Err(HeadError::Malformed("a control character in a header value"));
    }
    let value = value.trim_ascii();
    Ok(Header { name: String::from_utf8_lossy(name).into_owned(), value: value.to_vec() })
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{judge_absolute, judge_connect, Verdict};
    use handrail_core::guard::url::UrlPolicy;
    use proptest::prelude::*;

    #[test]
    fn parses_a_request_head() {
        let h = parse_request(
            b"POST http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\nX-Empty:\r\nX-Pad: \t v \t\r\n\r\n",
            10,
        )
        .expect("valid");
        assert_eq!(
            (h.method.as_str(), h.target.as_str(), h.version),
            ("POST", "http://example.com/a?b", Version::Http11)
        );
        assert_eq!(h.headers.len(), 3);
        assert_eq!(h.headers[1].value, b"");
        assert_eq!(h.headers[2].value, b"v");
        assert_eq!(h.values("HOST").count(), 1);
        let h = parse_request(b"CONNECT example.com:443 HTTP/1.0\r\n\r\n", 10).expect("valid");
        assert_eq!(h.version, Version::Http10);
        assert!(h.headers.is_empty());
    }

    #[test]
    fn refuses_malformed_heads() {
        for bad in [
            &b"garbage\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            b"GET  / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1 \r\n\r\n",
            b"GET / HTTP/2.0\r\n\r\n",
            b"GET / http/1.1\r\n\r\n",
            b"G(T / HTTP/1.1\r\n\r\n",
            b"GET /\0 HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\0b\r\n\r\n",
            b"GET / HTTP/1.1\r\nX : a\r\n\r\n",
            b"GET / HTTP/1.1\r\n: a\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
            b"GET / HTTP/1.1\nX: a\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\nb\r\n\r\n",
            b"GET /\xc3\xa9 HTTP/1.1\r\n\r\n",
            b"\r\nGET / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\r\n",
        ] {
            assert!(parse_request(bad, 10).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        let many: String = (0..11).map(|i| format!("X{i}: v\r\n")).collect();
        assert_eq!(
            parse_request(format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes(), 10),
            Err(HeadError::TooManyHeaders)
        );
    }

    #[test]
    fn parses_response_heads() {
        let r = parse_response(b"HTTP/1.1 404 Not Found\r\nA: b\r\n\r\n", 10).expect("valid");
        assert_eq!((r.status, r.status_line.as_slice()), (404, &b"HTTP/1.1 404 Not Found"[..]));
        assert_eq!(parse_response(b"HTTP/1.0 200\r\n\r\n", 10).map(|r| r.status), Ok(200));
        for bad in
            [&b"HTTP/1.1 20 OK\r\n\r\n"[..], b"HTTP/2 200 OK\r\n\r\n", b"HTTP/1.1 200OK\r\n\r\n", b"ICY 200 OK\r\n\r\n"]
        {
            assert!(parse_response(bad, 10).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    /// Targets that may lead to 127.0.0.2 (refused) or 127.0.0.1 (allowed), in many spellings.
    fn target() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("http://127.0.0.2/".to_string()),
            Just("http://2130706434/".to_string()),
            Just("http://0x7f.0.0.2/".to_string()),
            Just("http://127.2/".to_string()),
            Just("http://[::ffff:127.0.0.2]/".to_string()),
            Just("http://127.0.0.1@127.0.0.2/".to_string()),
            Just("http://127.0.0.1\\@127.0.0.2/".to_string()),
            Just("http://127.0.0.2#@127.0.0.1/".to_string()),
            Just("http://localhost/".to_string()),
            Just("127.0.0.2:80".to_string()),
            Just("127.0.0.1:80".to_string()),
            Just("http://127.0.0.1/".to_string()),
            "[ -~]{0,40}",
            "(http|https|ftp|HTTP)://[0-9a-f.:@\\[\\]\\\\%x]{0,24}[/?#]?[ -~]{0,10}",
        ]
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut head = bytes.clone();
            head.extend_from_slice(b"\r\n\r\n");
            let _ = parse_request(&bytes, 16);
            let _ = parse_request(&head, 16);
            let _ = parse_response(&head, 16);
        }

        #[test]
        fn parsed_targets_never_lead_to_a_refused_host(
            method in "(GET|POST|CONNECT|HEAD|[A-Z]{1,6})",
            target in target(),
            junk in proptest::collection::vec(any::<u8>(), 0..40),
            with_junk in any::<bool>(),
        ) {
            let mut raw = format!("{method} {target} HTTP/1.1\r\nHost: x\r\n").into_bytes();
            if with_junk {
                raw.extend_from_slice(&junk);
            }
            raw.extend_from_slice(b"\r\n\r\n");
            let policy = UrlPolicy { allowed_domains: vec!["127.0.0.1".to_string()] };
            if let Ok(head) = parse_request(&raw, 16) {
                let verdict = if head.method == "CONNECT" {
                    judge_connect(&head.target, &policy).ok()
                } else {
                    Some(judge_absolute(&head.target, &policy))
                };
                if let Some(Verdict::Allowed(dest)) = verdict {
                    prop_assert_eq!(dest.host.to_string(), "127.0.0.1");
                    prop_assert!(dest.url.username().is_empty() && dest.url.password().is_none());
                }
            }
        }
    }
}
