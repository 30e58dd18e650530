//! One client connection: read and check the head, route it, close cleanly. Also connecting to origins
//! (never to the proxy itself) and the answer for connections beyond the limit.

use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use url::Host;

use crate::head::{self, HeadError, RequestHead, Version};
use crate::policy::Destination;
use crate::{forward, page, tunnel, ConnGuard};

/// How long a closing connection keeps reading (and discarding) what the client still sends, so the
/// answer is not cut off by a reset.
const LINGER: Duration = Duration::from_secs(1);
/// At most this much is discarded while lingering.
const LINGER_BYTES: usize = 1 << 20;

/// Serves one client connection.
pub(crate) fn serve(conn: &ConnGuard, client: &TcpStream) {
    let limits = &conn.shared.limits;
    let _ = client.set_nodelay(true);
    let _ = client.set_write_timeout(Some(limits.idle_timeout));
    let deadline = Instant::now() + limits.head_timeout;
    let parsed = head::read_head(client, Vec::new(), limits.max_head_bytes, deadline)
        .and_then(|(bytes, rest)| Ok((head::parse_request(&bytes, limits.max_headers)?, rest)));
    let (head, rest) = match parsed {
        Ok(p) => p,
        Err(HeadError::Empty) => return,
        Err(e) => {
            conn.shared.record_bad_request(&e.describe());
            let status = if e == HeadError::Timeout { 408 } else { 400 };
            page::text(client, status, &e.describe(), false);
            linger(client, LINGER);
            return;
        }
    };
    if let Err(why) = check_host(&head) {
        bad_request(conn, client, &head, why);
    } else if head.method == "CONNECT" {
        tunnel::handle(conn, client, &head, rest);
    } else if is_absolute(&head.target) {
        forward::handle(conn, client, &head, rest);
    } else {
        bad_request(conn, client, &head, "this is handrail's URL-policy proxy, not a web server");
    }
    linger(client, LINGER);
}

/// Answers 400 with `why` (already free of anything the client sent).
pub(crate) fn bad_request(conn: &ConnGuard, client: &TcpStream, head: &RequestHead, why: &str) {
    conn.shared.record_bad_request(why);
    page::text(client, 400, why, head.method == "HEAD");
}

/// RFC 9112 §3.2: an HTTP/1.1 request needs exactly one `Host`; no request may carry two.
fn check_host(head: &RequestHead) -> Result<(), &'static str> {
    match (head.values("host").count(), head.version) {
        (0, Version::Http11) => Err("an HTTP/1.1 request needs a Host header"),
        (0 | 1, _) => Ok(()),
        _ => Err("more than one Host header"),
    }
}

/// `scheme://…`: an absolute-form target (anything else is origin form, `*` or garbage).
fn is_absolute(target: &str) -> bool {
    let Some((scheme, _)) = target.split_once("://") else { return false };
    scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Why no connection to the origin was made.
#[derive(Debug)]
pub(crate) enum ConnectError {
    /// The destination is the proxy itself.
    Loop,
    /// The host did not resolve, or to nothing.
    Resolve(io::Error),
    /// Every address refused or timed out; the last error.
    Connect(io::Error),
}

impl ConnectError {
    /// The status and text of the answer to the client.
    pub(crate) fn answer(&self, dest: &Destination) -> (u16, String) {
        match self {
            ConnectError::Loop => (400, "requests to the proxy itself are refused".to_string()),
            ConnectError::Resolve(e) => (502, format!("{} did not resolve: {e}", dest.host)),
            ConnectError::Connect(e) => (502, format!("could not connect to {}: {e}", dest.host_header_with_port())),
        }
    }
}

impl Destination {
    fn host_header_with_port(&self) -> String {
        match &self.host {
            Host::Ipv6(ip) => format!("[{ip}]:{}", self.port),
            h => format!("{h}:{}", self.port),
        }
    }
}

/// Connects to the judged destination (each resolved address in turn, each within the connect
/// timeout) and registers the socket so that stopping the proxy shuts it down.
pub(crate) fn connect(conn: &ConnGuard, dest: &Destination) -> Result<TcpStream, ConnectError> {
    let addrs: Vec<SocketAddr> = match &dest.host {
        Host::Ipv4(ip) => vec![SocketAddr::from((*ip, dest.port))],
        Host::Ipv6(ip) => vec![SocketAddr::from((*ip, dest.port))],
        Host::Domain(d) => (d.as_str(), dest.port).to_socket_addrs().map_err(ConnectError::Resolve)?.collect(),
    };
    if addrs.is_empty() {
        return Err(ConnectError::Resolve(io::Error::new(io::ErrorKind::NotFound, "no addresses")));
    }
    let own = conn.shared.addr;
    if addrs.iter().any(|a| *a == own || (a.port() == own.port() && a.ip().is_unspecified())) {
        return Err(ConnectError::Loop);
    }
    let limits = &conn.shared.limits;
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no addresses");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, limits.connect_timeout) {
            Ok(s) => {
                conn.shared.register(conn.id, &s);
                let _ = s.set_nodelay(true);
                let _ = s.set_write_timeout(Some(limits.idle_timeout));
                let _ = s.set_read_timeout(Some(limits.idle_timeout));
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(ConnectError::Connect(last))
}

/// Ends our side of `stream` and reads what the client still sends for up to `within`, so the client
/// sees our answer rather than a reset caused by unread data.
pub(crate) fn linger(stream: &TcpStream, within: Duration) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 4096];
    let mut drained = 0usize;
    while drained < LINGER_BYTES {
        let now = Instant::now();
        if now >= deadline || stream.set_read_timeout(Some(deadline - now)).is_err() {
            break;
        }
        match (&*stream).read(&mut buf) {
            Ok(0) => break,
            Ok(n) => drained += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// The answer for a connection beyond [`crate::ProxyLimits::max_connections`].
pub(crate) fn refuse_overloaded(stream: &TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(250)));
    page::text(stream, 503, "too many connections; try again", false);
    linger(stream, Duration::from_millis(250));
}
