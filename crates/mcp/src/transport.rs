//! Serving the MCP server over stdio and over streamable HTTP.
//!
//! HTTP binds loopback by default. The `Host` header must name an allowed host and a browser `Origin`
//! must be a loopback page (both against DNS rebinding, where a web page makes the browser talk to a
//! local server); any other bind address requires a bearer token on every request. The desktop
//! service's endpoints (`/healthz`, `/readyz`, `/reset`; see [`crate::service`]) share the listener.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use crate::server::HandrailServer;
use crate::service::{is_service_path, Allowed, Bearer};

/// Why serving stopped early.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the MCP session failed to start: {0}")]
    Start(String),
    #[error("the MCP session ended with an error: {0}")]
    Session(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(
        "listening on {0} would expose the desktop beyond this machine; set a bearer token (HANDRAIL_TOKEN or --token-file) to do that"
    )]
    TokenRequired(SocketAddr),
    #[error("the bearer token is too short ({0} characters; use at least 16)")]
    WeakToken(usize),
    #[error("accepting any Host name (--allowed-host '*') needs a bearer token (HANDRAIL_TOKEN or --token-file)")]
    AnyHostWithoutToken,
}

/// Serves one client over stdin/stdout until it disconnects.
pub async fn serve_stdio(server: HandrailServer) -> Result<(), ServeError> {
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| ServeError::Start(e.to_string()))?;
    running.waiting().await.map_err(|e| ServeError::Session(e.to_string()))?;
    Ok(())
}

/// How to serve HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required for any non-loopback address.
    pub token: Option<String>,
    /// Host names (or host:port) accepted in the `Host` header besides loopback names; `*` accepts
    /// any (only with a token: behind a bearer token a rebound name gains a page nothing, and in a pod
    /// the driver may use a pod IP, a Service name or a headless per-pod name).
    pub extra_hosts: Vec<String>,
    /// Browser origins accepted besides loopback pages.
    pub extra_origins: Vec<String>,
}

impl HttpOptions {
    pub fn loopback(port: u16) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            token: None,
            extra_hosts: Vec::new(),
            extra_origins: Vec::new(),
        }
    }
}

/// A running HTTP server.
#[derive(Debug)]
pub struct HttpServer {
    pub local_addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// Stops accepting, ends every session, and waits for the accept loop to finish.
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }

    /// Resolves when the server stopped on its own (it does not, unless cancelled).
    pub fn stopper(&self) -> CancellationToken {
        self.stop.clone()
    }
}

pub(crate) type Body = BoxBody<Bytes, std::convert::Infallible>;

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    response
}

/// Compares without stopping at the first differing byte, so timing does not leak the token.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorized(request: &Request<hyper::body::Incoming>, token: Option<&str>) -> bool {
    let Some(token) = token else { return true };
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| same_secret(given.trim().as_bytes(), token.as_bytes()))
}

/// Starts serving streamable HTTP at `/mcp`; returns once listening.
pub async fn serve_http(server: HandrailServer, options: HttpOptions) -> Result<HttpServer, ServeError> {
    let loopback = options.addr.ip().is_loopback();
    if !loopback && options.token.is_none() {
        return Err(ServeError::TokenRequired(options.addr));
    }
    if let Some(t) = &options.token {
        if t.chars().count() < 16 {
            return Err(ServeError::WeakToken(t.chars().count()));
        }
    }
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|source| ServeError::Bind { addr: options.addr, source })?;
    let local_addr = listener.local_addr().map_err(|source| ServeError::Bind { addr: options.addr, source })?;

    let any_host = options.extra_hosts.iter().any(|h| h.trim() == "*");
    if any_host && options.token.is_none() {
        return Err(ServeError::AnyHostWithoutToken);
    }
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into(), "[::1]".into()];
    if !options.addr.ip().is_unspecified() && !loopback {
        hosts.push(options.addr.ip().to_string());
    }
    hosts.extend(options.extra_hosts.iter().filter(|h| h.trim() != "*").cloned());
    let mut origins: Vec<String> =
        vec!["http://localhost:*".into(), "http://127.0.0.1:*".into(), "http://[::1]:*".into()];
    origins.extend(options.extra_origins.iter().cloned());
    let allowed = Arc::new(Allowed { hosts: (!any_host).then(|| hosts.clone()), origins: origins.clone() });

    let stop = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_cancellation_token(stop.child_token());
    if any_host {
        config = config.disable_allowed_hosts();
    }
    let desktop = server.clone();
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    let token: Option<Arc<str>> = options.token.map(Arc::from);

    let accept_stop = stop.clone();
    let task = tokio::spawn(async move {
        loop {
            let (stream, peer) = tokio::select! {
                () = accept_stop.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        log::warn!("accepting a connection failed: {e}");
                        continue;
                    }
                },
            };
            let service = service.clone();
            let token = token.clone();
            let desktop = desktop.clone();
            let allowed = allowed.clone();
            let conn_stop = accept_stop.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let service = service.clone();
                    let token = token.clone();
                    let desktop = desktop.clone();
                    let allowed = allowed.clone();
                    async move {
                        if is_service_path(request.uri().path()) {
                            let bearer = match (&token, authorized(&request, token.as_deref())) {
                                (None, _) => Bearer::NoneSet,
                                (Some(_), true) => Bearer::Carried,
                                (Some(_), false) => Bearer::Missing,
                            };
                            return Ok(crate::service::handle(request, &desktop, &allowed, bearer).await);
                        }
                        if request.uri().path() != "/mcp" {
                            return Ok::<_, std::convert::Infallible>(plain(
                                StatusCode::NOT_FOUND,
                                "handrail serves MCP at /mcp (and /healthz, /readyz, POST /reset, /files/…, POST /run)\n",
                            ));
                        }
                        if !authorized(&request, token.as_deref()) {
                            let mut r = plain(StatusCode::UNAUTHORIZED, "a bearer token is required\n");
                            r.headers_mut().insert(
                                hyper::header::WWW_AUTHENTICATE,
                                hyper::header::HeaderValue::from_static("Bearer realm=\"handrail\""),
                            );
                            return Ok(r);
                        }
                        let ends_session = request.method() == hyper::Method::DELETE;
                        let mut response = service.handle(request).await;
                        // rmcp answers a closed session with 202 Accepted, which MCP's Python SDK
                        // takes for a failure (it accepts 200 and 204) and warns about on every
                        // close. The session is closed by then: 204 says so.
                        if ends_session && response.status() == StatusCode::ACCEPTED {
                            *response.status_mut() = StatusCode::NO_CONTENT;
                        }
                        Ok(response)
                    }
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, handler);
                tokio::pin!(conn);
                tokio::select! {
                    r = conn.as_mut() => if let Err(e) = r { log::debug!("connection from {peer} ended: {e}") },
                    () = conn_stop.cancelled() => conn.as_mut().graceful_shutdown(),
                }
            });
        }
    });
    Ok(HttpServer { local_addr, stop, task })
}

fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Start(format!("cannot start the async runtime: {e}")))
}

/// Ctrl-C and SIGTERM, registered when created: a signal that arrives before anyone waits is kept, not
/// left to the default action (which would end the process without cleaning up).
struct StopSignals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn register() -> Result<Self, ServeError> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let failed = |e: std::io::Error| ServeError::Start(format!("cannot watch for stop signals: {e}"));
            Ok(Self {
                interrupt: signal(SignalKind::interrupt()).map_err(failed)?,
                terminate: signal(SignalKind::terminate()).map_err(failed)?,
            })
        }
        #[cfg(not(unix))]
        Ok(Self {})
    }

    async fn wait(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// How long stopping waits for the call in progress to finish once cancelled. Only input already
/// being sent and waits that cannot be cut short (an app's window coming up) remain by then.
pub const ENGINE_STOP_WITHIN: Duration = Duration::from_secs(10);

/// Stops the engine before the runtime goes: its call in progress may still be using the runtime
/// (asking the person, reporting progress) while it finishes.
async fn stop_engine(server: HandrailServer) {
    let stopped = tokio::task::spawn_blocking(move || server.shutdown(ENGINE_STOP_WITHIN)).await;
    if !matches!(stopped, Ok(true)) {
        log::warn!("the engine was still busy when the server stopped");
    }
}

/// Serves stdio until the client disconnects or the process is asked to stop; blocks.
pub fn run_stdio(server: HandrailServer) -> Result<(), ServeError> {
    runtime()?.block_on(async move {
        let mut signals = StopSignals::register()?;
        let served = tokio::select! {
            r = serve_stdio(server.clone()) => r,
            () = signals.wait() => Ok(()),
        };
        stop_engine(server).await;
        served
    })
}

/// Serves HTTP until Ctrl-C or SIGTERM; `ready` is told the address once listening. Blocks.
pub fn run_http(
    server: HandrailServer,
    options: HttpOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    runtime()?.block_on(async move {
        let mut signals = StopSignals::register()?;
        let http = serve_http(server.clone(), options).await?;
        ready(http.local_addr);
        signals.wait().await;
        http.shutdown().await;
        stop_engine(server).await;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abcdefghijklmnop", b"abcdefghijklmnop"));
        assert!(!same_secret(b"abcdefghijklmnop", b"abcdefghijklmnoq"));
        assert!(!same_secret(b"abc", b"abcd"));
    }
}
