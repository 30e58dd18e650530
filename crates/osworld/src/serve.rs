//! The guest's listener: its own port (the harness builds `http://IP:PORT/screenshot` with no prefix),
//! served by a thread of its own so it works beside any other server in the process. Every request
//! needs the bearer token; any request carrying an `Origin` header (what a browser sends, and
//! nothing in the harness does) is refused before the token is even looked at.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_DISPOSITION, CONTENT_TYPE, ORIGIN, WWW_AUTHENTICATE};
use hyper::{Request, Response};
use tokio::sync::oneshot;

use crate::guest::GuestDesktop;
use crate::routes::{self, Answer};

/// The largest request body read: a file upload (see `routes::files`) plus its form.
const MAX_BODY: usize = 256 * 1024 * 1024 + 64 * 1024;
/// Tokens shorter than this are refused (as for the MCP listener).
const MIN_TOKEN_CHARS: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the OSWorld guest needs a bearer token of at least {MIN_TOKEN_CHARS} characters (it has {0})")]
    WeakToken(usize),
    #[error("listening at {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("starting the guest's thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// A running guest; stops when dropped.
pub struct GuestServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for GuestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuestServer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl GuestServer {
    /// Listens at `addr` and serves `desktop` to requests carrying `token`; returns once listening.
    pub fn start(addr: SocketAddr, token: &str, desktop: Arc<dyn GuestDesktop>) -> Result<GuestServer, ServeError> {
        let chars = token.chars().count();
        if chars < MIN_TOKEN_CHARS {
            return Err(ServeError::WeakToken(chars));
        }
        let listener = std::net::TcpListener::bind(addr).map_err(|source| ServeError::Bind { addr, source })?;
        let local = listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?;
        listener.set_nonblocking(true).map_err(|source| ServeError::Bind { addr, source })?;
        let token: Arc<str> = Arc::from(token.trim());
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("osworld-guest".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(r) => r,
                    Err(e) => {
                        log::error!("the OSWorld guest could not start its runtime: {e}");
                        return;
                    }
                };
                runtime.block_on(accept(listener, token, desktop, stopped));
                // A command still running for a request must not hold the stop.
                runtime.shutdown_background();
            })
            .map_err(ServeError::Thread)?;
        Ok(GuestServer { addr: local, stop: Some(stop), thread: Some(thread) })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for GuestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn accept(
    listener: std::net::TcpListener,
    token: Arc<str>,
    desktop: Arc<dyn GuestDesktop>,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            log::error!("the OSWorld guest could not listen: {e}");
            return;
        }
    };
    loop {
        let (stream, _) = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    log::warn!("OSWorld guest: accepting a connection failed: {e}");
                    continue;
                }
            },
        };
        let token = token.clone();
        let desktop = desktop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let token = token.clone();
                let desktop = desktop.clone();
                async move { Ok::<_, std::convert::Infallible>(handle(request, &token, desktop).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            if let Err(e) = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await {
                log::debug!("OSWorld guest: connection ended: {e}");
            }
        });
    }
}

/// Compares without stopping at the first differing byte, so timing does not leak the token.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Why a request is refused before it reaches an endpoint, if it is.
pub(crate) fn refusal(origin: Option<&str>, authorization: Option<&str>, token: &str) -> Option<Answer> {
    if origin.is_some() {
        return Some(Answer::error(403, "requests from a browser (with an Origin header) are refused"));
    }
    let given = authorization.and_then(|v| v.strip_prefix("Bearer ")).map(str::trim);
    if !given.is_some_and(|g| same_secret(g.as_bytes(), token.as_bytes())) {
        return Some(Answer::error(401, "a bearer token is required"));
    }
    None
}

async fn handle(
    request: Request<hyper::body::Incoming>,
    token: &str,
    desktop: Arc<dyn GuestDesktop>,
) -> Response<Full<Bytes>> {
    let header = |name| request.headers().get(name).and_then(|v: &HeaderValue| v.to_str().ok());
    if let Some(refused) = refusal(header(ORIGIN), header(AUTHORIZATION), token) {
        return response(refused);
    }
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let content_type = header(CONTENT_TYPE).map(str::to_string);
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return response(Answer::error(413, format!("the request body could not be read: {e}"))),
    };
    let answered = tokio::task::spawn_blocking(move || {
        let request =
            routes::Request { method: &method, path: &path, content_type: content_type.as_deref(), body: &body };
        let answer = routes::answer(desktop.as_ref(), &request);
        log::info!("OSWorld guest: {method} {path} → {}", answer.status);
        answer
    })
    .await;
    response(answered.unwrap_or_else(|e| Answer::error(500, format!("the request failed: {e}"))))
}

fn response(answer: Answer) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(answer.body)));
    *r.status_mut() = hyper::StatusCode::from_u16(answer.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(answer.content_type));
    if answer.status == 401 {
        r.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"handrail\""));
    }
    if let Some(name) = answer.attachment {
        let safe: String =
            name.chars().filter(|c| c.is_ascii_graphic() && *c != '"' && *c != '\\' || *c == ' ').collect();
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{safe}\"")) {
            r.headers_mut().insert(CONTENT_DISPOSITION, v);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_and_requests_without_the_token_are_refused() {
        let token = "0123456789abcdef-token";
        assert_eq!(
            refusal(Some("http://127.0.0.1:5000"), Some("Bearer 0123456789abcdef-token"), token).map(|a| a.status),
            Some(403)
        );
        assert_eq!(refusal(None, None, token).map(|a| a.status), Some(401));
        assert_eq!(refusal(None, Some("Bearer wrong"), token).map(|a| a.status), Some(401));
        assert_eq!(refusal(None, Some("Basic 0123456789abcdef-token"), token).map(|a| a.status), Some(401));
        assert_eq!(refusal(None, Some("Bearer 0123456789abcdef-token "), token), None);
    }
}
