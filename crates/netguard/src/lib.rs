//! A loopback HTTP proxy that holds the browser handrail starts to the same URL policy as `open_url`.
//!
//! `open_url` is judged by [`handrail_core::guard::url::vet_url`], but a browser also goes places on
//! its own: typed addresses, links, redirects, form posts, scripts. [`PolicyProxy`] listens on
//! `127.0.0.1` and the browser is started with [`PolicyProxy::chromium_args`]
//! (`--proxy-server=http://127.0.0.1:PORT --proxy-bypass-list=<-loopback>`; the `<-loopback>` entry
//! removes Chromium's implicit bypass for localhost, so loopback hosts are judged too). Every request
//! is judged before anything is sent upstream:
//!
//! - `CONNECT host:port` (https, and WebSockets, which Chromium tunnels) is judged as
//!   `https://host:port/` (`https://host/` for 443). Allowed: the proxy connects and copies bytes both
//!   ways until either side closes. Refused: `403 Forbidden` with a short text body.
//! - Absolute-form requests (`GET http://host/path?q HTTP/1.1`, any method, with `Content-Length` or
//!   chunked bodies) are judged on the full URL. Allowed: sent to the origin in origin form with the
//!   `Host` of the judged URL, hop-by-hop headers removed and `Connection: close`; the body and the
//!   whole response are streamed. Refused: `403 Forbidden` with a small page saying the request was
//!   blocked by handrail's URL policy, naming the URL and the reason.
//! - Anything else is `400 Bad Request`: origin-form requests (the proxy is not a web server, and a
//!   request routed to the proxy itself is refused rather than looped), malformed or oversized heads.
//!
//! Every refusal is kept as a [`Blocked`] record ([`PolicyProxy::take_blocked`]) and logged through
//! `log`, with credentials removed from the URL ([`redact_credentials`]). The proxy implements
//! [`handrail_platform::NetworkPolicy`], so a `Desktop` holding it as its `network` has the engine
//! report every refusal in the next result.
//!
//! # What it guarantees
//!
//! - Nothing reaches a host the policy refuses: the proxy connects only to the host and port of the URL
//!   `vet_url` accepted, read back from its serialisation with the same WHATWG parser (IP forms such
//!   as `http://2130706433/` and IDN hosts are normalised before judging), and only after judging.
//!   URLs with credentials and schemes other than http and https are refused, and so is a plain http
//!   request carrying a login in `Authorization` (Basic or Digest): Chromium takes `user:password@`
//!   out of a URL before asking the proxy and sends it that way once the site challenges.
//! - A request's bytes cannot smuggle a second request: bodies are framed by `Content-Length` or
//!   chunked encoding exactly (both at once, or conflicting lengths, are a 400), nothing after the body
//!   is forwarded, and headers the framing depends on are never removed because `Connection` names
//!   them.
//! - Bounded work per client: a head is at most [`ProxyLimits::max_head_bytes`] (32 KiB) with at most
//!   [`ProxyLimits::max_headers`] fields and must arrive within [`ProxyLimits::head_timeout`] (`408`
//!   otherwise); at most [`ProxyLimits::max_connections`] connections are served at once and the next
//!   ones get `503`; upstream connects, idle tunnels and idle responses time out. Malformed input is a
//!   `400` and the connection is closed; parsing never panics.
//! - Dropping the [`PolicyProxy`] closes the listener and shuts down every open connection.
//!
//! # What it cannot do
//!
//! - It does not intercept TLS, so it cannot show its own page for a refused https URL: Chromium shows
//!   its own tunnel-failure error (`ERR_TUNNEL_CONNECTION_FAILED`) and the engine reports the blocked
//!   URL from [`PolicyProxy::take_blocked`] instead. For the same reason it sees only the host and port
//!   of https traffic, never the path nor a login sent inside the tunnel to an allowed host.
//! - It judges hosts, not addresses: an allowed domain is resolved by the system resolver and reached
//!   wherever it points. Ports are not restricted (neither does `vet_url`).
//! - It only governs traffic that is sent to it: a browser started without
//!   [`PolicyProxy::chromium_args`], or a program that ignores proxy settings, is not covered. Nor is
//!   traffic Chromium does not send through an HTTP proxy: start it with `--disable-quic`, and with
//!   `--force-webrtc-ip-handling-policy=disable_non_proxied_udp` so WebRTC cannot send UDP around it
//!   (both in [`CHROMIUM_NO_BYPASS_ARGS`]).
//! - DNS resolution of an allowed domain uses the blocking system resolver, which has no timeout of
//!   its own.
//!
//! # Connection behaviour
//!
//! One request per client connection: every response carries `Connection: close` (the origin is asked
//! for `Connection: close` too, and requests go to it as HTTP/1.1) and Chromium simply opens more
//! connections. `Expect: 100-continue` is
//! answered by the proxy itself. A WebSocket upgrade over plain http (`Upgrade: websocket`) is judged
//! like any request and, when allowed and the origin answers `101`, tunnelled both ways like a
//! CONNECT; other upgrades are not forwarded. An absolute-form `https://` request (asking the proxy to
//! speak TLS) is answered `501` after judging: browsers use CONNECT for https.

mod conn;
mod forward;
mod head;
mod page;
mod policy;
mod tunnel;

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use handrail_core::guard::url::UrlPolicy;
use handrail_platform::{BlockedRequest, NetworkPolicy};

pub use handrail_core::guard::url::redact_credentials;
pub use page::block_page;

/// Chromium flags to pass together with [`PolicyProxy::chromium_args`]: traffic Chromium would not send
/// through an HTTP proxy (QUIC, WebRTC's UDP) is switched off, so nothing goes around the proxy.
pub const CHROMIUM_NO_BYPASS_ARGS: [&str; 2] =
    ["--disable-quic", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"];

/// How many [`Blocked`] records are kept between two [`PolicyProxy::take_blocked`] calls; older ones
/// are dropped first (and still counted in [`ProxyStats::blocked`]).
pub const MAX_BLOCKED_RECORDS: usize = 1024;

/// Stack size of the proxy's threads: they hold no large buffers on the stack.
const THREAD_STACK: usize = 256 * 1024;

/// Connections refused with `503` wait in this queue for their answer; beyond it they are just closed.
const OVERLOAD_QUEUE: usize = 64;

/// The proxy's limits. [`Default`] is what [`PolicyProxy::start`] uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyLimits {
    /// Connections served at once; the next ones are answered `503` and closed.
    pub max_connections: usize,
    /// Longest request head (request line, header fields and the blank line), in bytes.
    pub max_head_bytes: usize,
    /// Most header fields in a request head.
    pub max_headers: usize,
    /// Time allowed for a whole request head to arrive, from accepting the connection (`408` after).
    /// The default, 20 s, is above the 10 s for which Chromium keeps an unused preconnected socket, so
    /// Chromium closes its spare connections before the proxy would answer one.
    pub head_timeout: Duration,
    /// Time allowed to connect to an origin (per address).
    pub connect_timeout: Duration,
    /// A tunnel, a request body or a response is ended after this long without a byte either way.
    pub idle_timeout: Duration,
}

impl Default for ProxyLimits {
    fn default() -> Self {
        ProxyLimits {
            max_connections: 256,
            max_head_bytes: 32 * 1024,
            max_headers: 128,
            head_timeout: Duration::from_secs(20),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
        }
    }
}

/// A request the policy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The URL as requested, credentials removed (`user:pass@` gone; path and query kept), at most 2048
    /// characters. For CONNECT it is `https://host:port/` (`https://host/` for port 443).
    pub url: String,
    /// Why, e.g. `evil.com is not in the allowed domains (example.com)`, `the URL contains credentials`,
    /// `only http and https URLs are allowed, not "ftp:"`.
    pub reason: String,
    /// The request method (`CONNECT`, `GET`, `POST`, …).
    pub method: String,
}

/// Counts since the proxy started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProxyStats {
    /// Requests and tunnels the policy allowed (counted when judged, whether or not the origin answered).
    pub allowed: u64,
    /// Requests and tunnels the policy refused.
    pub blocked: u64,
    /// Connections answered `400` or `408` (malformed, oversized or too slow heads, origin-form requests).
    pub bad_requests: u64,
    /// Connections refused because [`ProxyLimits::max_connections`] were being served.
    pub overloaded: u64,
}

/// Why the proxy did not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("the proxy could not listen on 127.0.0.1: {0}")]
    Bind(#[source] io::Error),
    #[error("the proxy could not start its thread: {0}")]
    Thread(#[source] io::Error),
}

/// A running proxy on `127.0.0.1`. Dropping it stops it: the listener is closed and every open
/// connection is shut down.
pub struct PolicyProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl PolicyProxy {
    /// Starts a proxy with the default [`ProxyLimits`] on a free port of `127.0.0.1`.
    pub fn start(policy: UrlPolicy) -> Result<PolicyProxy, ProxyError> {
        PolicyProxy::start_with(policy, ProxyLimits::default())
    }

    /// Starts a proxy with the given limits on a free port of `127.0.0.1`.
    /// Zero durations count as one millisecond.
    pub fn start_with(policy: UrlPolicy, mut limits: ProxyLimits) -> Result<PolicyProxy, ProxyError> {
        for d in [&mut limits.head_timeout, &mut limits.connect_timeout, &mut limits.idle_timeout] {
            *d = (*d).max(Duration::from_millis(1));
        }
        let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(ProxyError::Bind)?;
        let addr = listener.local_addr().map_err(ProxyError::Bind)?;
        let shared = Arc::new(Shared {
            policy,
            limits,
            addr,
            stop: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
            streams: Mutex::new(HashMap::new()),
            blocked: Mutex::new(VecDeque::new()),
            allowed_count: AtomicU64::new(0),
            blocked_count: AtomicU64::new(0),
            bad_count: AtomicU64::new(0),
            overloaded_count: AtomicU64::new(0),
        });
        let (overload_tx, overload_rx) = mpsc::sync_channel::<TcpStream>(OVERLOAD_QUEUE);
        std::thread::Builder::new()
            .name("netguard-overload".into())
            .stack_size(THREAD_STACK)
            .spawn(move || {
                for stream in overload_rx {
                    conn::refuse_overloaded(&stream);
                }
            })
            .map_err(ProxyError::Thread)?;
        let accept_shared = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name("netguard-accept".into())
            .stack_size(THREAD_STACK)
            .spawn(move || accept_loop(&listener, &accept_shared, &overload_tx))
            .map_err(ProxyError::Thread)?;
        log::info!("URL-policy proxy listening on {addr}");
        Ok(PolicyProxy { addr, shared, accept: Some(accept) })
    }

    /// Where the proxy listens (`127.0.0.1:PORT`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Chromium flags that send all of its traffic, loopback included, through this proxy.
    pub fn chromium_args(&self) -> Vec<String> {
        vec![format!("--proxy-server=http://{}", self.addr), "--proxy-bypass-list=<-loopback>".to_string()]
    }

    /// The requests refused since the last call (at most [`MAX_BLOCKED_RECORDS`], oldest first).
    pub fn take_blocked(&self) -> Vec<Blocked> {
        lock(&self.shared.blocked).drain(..).collect()
    }

    /// Counts since the proxy started.
    pub fn stats(&self) -> ProxyStats {
        let s = &self.shared;
        ProxyStats {
            allowed: s.allowed_count.load(Ordering::Relaxed),
            blocked: s.blocked_count.load(Ordering::Relaxed),
            bad_requests: s.bad_count.load(Ordering::Relaxed),
            overloaded: s.overloaded_count.load(Ordering::Relaxed),
        }
    }
}

impl From<Blocked> for BlockedRequest {
    fn from(b: Blocked) -> BlockedRequest {
        BlockedRequest { method: b.method, url: b.url, reason: b.reason }
    }
}

/// The engine drains the proxy's refusals after each call through `Desktop::network`: a desktop that
/// holds the proxy there also keeps it running as long as the desktop lives.
impl NetworkPolicy for PolicyProxy {
    fn take_blocked(&self) -> Vec<BlockedRequest> {
        PolicyProxy::take_blocked(self).into_iter().map(BlockedRequest::from).collect()
    }
}

impl Drop for PolicyProxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop, which sees the flag and returns, closing the listener.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for streams in lock(&self.shared.streams).values() {
            for s in streams {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
        // Connection threads end as soon as their sockets fail; wait a little for them (a thread
        // blocked in the system resolver cannot be woken, so the wait is bounded).
        let deadline = Instant::now() + Duration::from_secs(2);
        while self.shared.active.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        log::info!("URL-policy proxy on {} stopped", self.addr);
    }
}

/// State shared by the accept loop and every connection.
pub(crate) struct Shared {
    pub(crate) policy: UrlPolicy,
    pub(crate) limits: ProxyLimits,
    /// The proxy's own address: never a destination.
    pub(crate) addr: SocketAddr,
    stop: AtomicBool,
    active: AtomicUsize,
    next_id: AtomicU64,
    /// Clones of every open socket by connection, shut down when the proxy stops.
    streams: Mutex<HashMap<u64, Vec<TcpStream>>>,
    blocked: Mutex<VecDeque<Blocked>>,
    allowed_count: AtomicU64,
    blocked_count: AtomicU64,
    bad_count: AtomicU64,
    overloaded_count: AtomicU64,
}

impl Shared {
    pub(crate) fn record_blocked(&self, method: &str, url: &str, reason: &str) {
        log::info!("blocked {method} {url}: {reason}");
        self.blocked_count.fetch_add(1, Ordering::Relaxed);
        let mut blocked = lock(&self.blocked);
        if blocked.len() >= MAX_BLOCKED_RECORDS {
            blocked.pop_front();
        }
        blocked.push_back(Blocked { url: url.to_string(), reason: reason.to_string(), method: method.to_string() });
    }

    pub(crate) fn record_allowed(&self, method: &str, url: &str) {
        log::debug!("allowed {method} {url}");
        self.allowed_count.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_bad_request(&self, why: &str) {
        log::debug!("bad request: {why}");
        self.bad_count.fetch_add(1, Ordering::Relaxed);
    }

    /// Keeps a clone of `stream` so that stopping the proxy can shut it down.
    pub(crate) fn register(&self, id: u64, stream: &TcpStream) {
        if let Ok(clone) = stream.try_clone() {
            lock(&self.streams).entry(id).or_default().push(clone);
        }
        if self.stop.load(Ordering::SeqCst) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn finished(&self, id: u64) {
        lock(&self.streams).remove(&id);
        self.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Marks a connection finished when its thread ends, however it ends.
pub(crate) struct ConnGuard {
    pub(crate) shared: Arc<Shared>,
    pub(crate) id: u64,
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.shared.finished(self.id);
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>, overload: &SyncSender<TcpStream>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                log::warn!("proxy accept failed: {e}");
                // Out of file descriptors and the like: do not spin.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if shared.active.load(Ordering::SeqCst) >= shared.limits.max_connections {
            shared.overloaded_count.fetch_add(1, Ordering::Relaxed);
            log::warn!("proxy at its limit of {} connections: refusing one", shared.limits.max_connections);
            // A full queue means a flood: close without an answer.
            let _ = overload.try_send(stream);
            continue;
        }
        shared.active.fetch_add(1, Ordering::SeqCst);
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let guard = ConnGuard { shared: Arc::clone(shared), id };
        guard.shared.register(id, &stream);
        let spawned = std::thread::Builder::new()
            .name("netguard-conn".into())
            .stack_size(THREAD_STACK)
            .spawn(move || conn::serve(&guard, &stream));
        if let Err(e) = spawned {
            // The closure, guard included, was dropped: the connection is already accounted for.
            log::warn!("proxy could not start a connection thread: {e}");
        }
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
