//! The desktop service's endpoints beside `/mcp`, on the same listener, for the fleet that runs the
//! desktop and the harness that hands it from task to task:
//!
//! - `GET /healthz` — liveness: the engine thread runs and the desktop's own processes are alive
//!   (200, else 503). No token: probes carry none and it tells nothing about the screen.
//! - `GET /readyz` — readiness: 200 only once a first real observation of the screen succeeded and no
//!   reset since left anything behind (else 503). No token, for the same reasons.
//! - `POST /reset` — closes every app, replaces the browser profile, empties the clipboard and starts a
//!   new turn; answers what it closed and how long it took (200 when clean, 500 when something was
//!   left, 400 for a bad body, 501 where the desktop is not a sandbox). Held to `/mcp`'s rules: the
//!   bearer token when one is set, the `Host` names and browser `Origin`s `/mcp` accepts.
//! - `PUT /files/PATH`, `GET /files/PATH`, `POST /run` — a harness's task set-up, only when the server
//!   was started with it (else 501): a file put into or read out of the desktop's private home (`PATH`
//!   relative to it, percent-encoded; bytes in the body), a command run in the desktop's session. They
//!   need the bearer token even on loopback, and refuse any request a browser makes (an `Origin`
//!   header): an app or page inside the desktop must not reach them.
//!
//! Every answer is JSON (`handrail_wire::service`), but a file read, which is its bytes.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE, HOST, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;

use handrail_calls::ResetError;
use handrail_wire::service::{ResetRequest, RunRequest, ServiceError};

use crate::server::HandrailServer;
use crate::setup::{percent_decode, SetupFailure, DEFAULT_RUN_TIMEOUT_MS, MAX_FILE_BYTES, MAX_RUN_TIMEOUT_MS};
use crate::transport::Body;

/// The paths served here.
pub const HEALTH_PATH: &str = "/healthz";
pub const READY_PATH: &str = "/readyz";
pub const RESET_PATH: &str = "/reset";
pub const FILES_PREFIX: &str = "/files/";
pub const RUN_PATH: &str = "/run";

/// Largest reset body read (a turn id, an intent and a mode fit many times over).
const MAX_RESET_BODY: usize = 16 * 1024;
/// Largest `/run` body read.
const MAX_RUN_BODY: usize = 64 * 1024;

/// What the request's bearer token says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bearer {
    /// It carries the server's token.
    Carried,
    /// The server has none (it listens on loopback only).
    NoneSet,
    /// The server has one and the request does not carry it.
    Missing,
}

/// Which `Host` names and browser `Origin`s a state-changing request may come with: `/mcp`'s.
#[derive(Debug, Clone)]
pub(crate) struct Allowed {
    /// Host names, with or without a port; `None`: any (only with a bearer token).
    pub hosts: Option<Vec<String>>,
    /// Origins: `scheme://host[:port]`, or with `:*` for any port.
    pub origins: Vec<String>,
}

/// Whether `path` is one of the service endpoints.
pub(crate) fn is_service_path(path: &str) -> bool {
    matches!(path, HEALTH_PATH | READY_PATH | RESET_PATH | RUN_PATH) || path.starts_with(FILES_PREFIX)
}

fn json<T: Serialize>(status: StatusCode, value: &T) -> Response<Body> {
    let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // Readiness and reset answers describe this moment only.
    response.headers_mut().insert(hyper::header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn error(status: StatusCode, message: impl Into<String>) -> Response<Body> {
    json(status, &ServiceError::new(message))
}

fn method_not_allowed(allow: &'static str) -> Response<Body> {
    let mut r = error(StatusCode::METHOD_NOT_ALLOWED, format!("use {allow}"));
    r.headers_mut().insert(ALLOW, HeaderValue::from_static(allow));
    r
}

fn unauthorized() -> Response<Body> {
    let mut r = error(StatusCode::UNAUTHORIZED, "a bearer token is required");
    r.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"handrail\""));
    r
}

/// Answers a request to one of the service paths. `bearer` is what its bearer token says.
pub(crate) async fn handle(
    request: Request<hyper::body::Incoming>,
    server: &HandrailServer,
    allowed: &Allowed,
    bearer: Bearer,
) -> Response<Body> {
    let method = request.method().clone();
    match request.uri().path() {
        HEALTH_PATH => match method {
            Method::GET | Method::HEAD => {
                let health = server.health();
                let status = if health.alive { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
                json(status, &health)
            }
            _ => method_not_allowed("GET"),
        },
        READY_PATH => match method {
            Method::GET | Method::HEAD => {
                let ready = server.readiness();
                let status = if ready.ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
                json(status, &ready)
            }
            _ => method_not_allowed("GET"),
        },
        RESET_PATH => {
            if method != Method::POST {
                return method_not_allowed("POST");
            }
            if let Err(why) = check_sender(&request, allowed) {
                return error(StatusCode::FORBIDDEN, why);
            }
            if bearer == Bearer::Missing {
                return unauthorized();
            }
            reset(request, server).await
        }
        _ => task_setup(request, server, allowed, bearer).await,
    }
}

/// `/files/…` and `/run`.
async fn task_setup(
    request: Request<hyper::body::Incoming>,
    server: &HandrailServer,
    allowed: &Allowed,
    bearer: Bearer,
) -> Response<Body> {
    let is_run = request.uri().path() == RUN_PATH;
    let method = request.method().clone();
    let method_fits = if is_run { method == Method::POST } else { matches!(method, Method::GET | Method::PUT) };
    if !method_fits {
        return method_not_allowed(if is_run { "POST" } else { "GET, PUT" });
    }
    if let Err(why) = check_sender(&request, allowed) {
        return error(StatusCode::FORBIDDEN, why);
    }
    if request.headers().contains_key(ORIGIN) {
        return error(StatusCode::FORBIDDEN, "the set-up endpoints do not answer requests made by a browser");
    }
    match bearer {
        Bearer::Carried => {}
        Bearer::Missing => return unauthorized(),
        Bearer::NoneSet => {
            return error(
                StatusCode::FORBIDDEN,
                "the set-up endpoints need the server to have a bearer token (HANDRAIL_TOKEN or --token-file), even on loopback",
            )
        }
    }
    let Some(hook) = server.task_setup() else {
        return error(
            StatusCode::NOT_IMPLEMENTED,
            "task set-up is not offered here: start `handrail serve --sandbox --http ADDR --setup-endpoints`",
        );
    };
    if is_run {
        return run(request, hook).await;
    }
    let raw = request.uri().path()[FILES_PREFIX.len()..].to_owned();
    let path = match percent_decode(&raw) {
        Ok(p) => p,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    if method == Method::GET {
        let read = tokio::task::spawn_blocking(move || hook.get_file(&path, MAX_FILE_BYTES)).await;
        return match read {
            Ok(Ok(bytes)) => {
                let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed());
                let headers = response.headers_mut();
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"));
                headers.insert(hyper::header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                response
            }
            Ok(Err(failure)) => setup_failure(failure),
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("reading the file stopped: {e}")),
        };
    }
    let body = match Limited::new(request.into_body(), MAX_FILE_BYTES as usize).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the file could not be read (at most {MAX_FILE_BYTES} bytes): {e}"),
            )
        }
    };
    match tokio::task::spawn_blocking(move || hook.put_file(&path, &body)).await {
        Ok(Ok(written)) => json(StatusCode::OK, &written),
        Ok(Err(failure)) => setup_failure(failure),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("writing the file stopped: {e}")),
    }
}

async fn run(request: Request<hyper::body::Incoming>, hook: crate::setup::TaskSetup) -> Response<Body> {
    if !is_json(&request) {
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "a run request must be application/json");
    }
    let body = match Limited::new(request.into_body(), MAX_RUN_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return error(StatusCode::PAYLOAD_TOO_LARGE, format!("the body could not be read: {e}")),
    };
    let mut run: RunRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("the body is not a run request: {e}")),
    };
    if run.argv.first().is_none_or(String::is_empty) {
        return error(StatusCode::BAD_REQUEST, "`argv` needs a program");
    }
    match run.timeout_ms {
        Some(0) => return error(StatusCode::BAD_REQUEST, "`timeout_ms` must be at least 1"),
        Some(t) if t > MAX_RUN_TIMEOUT_MS => {
            return error(StatusCode::BAD_REQUEST, format!("`timeout_ms` is at most {MAX_RUN_TIMEOUT_MS}"))
        }
        Some(_) => {}
        None => run.timeout_ms = Some(DEFAULT_RUN_TIMEOUT_MS),
    }
    match tokio::task::spawn_blocking(move || hook.run(&run)).await {
        Ok(Ok(report)) => json(StatusCode::OK, &report),
        Ok(Err(failure)) => setup_failure(failure),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("the command's wait stopped: {e}")),
    }
}

fn setup_failure(failure: SetupFailure) -> Response<Body> {
    let status = match &failure {
        SetupFailure::BadRequest(_) => StatusCode::BAD_REQUEST,
        SetupFailure::NotFound(_) => StatusCode::NOT_FOUND,
        SetupFailure::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        SetupFailure::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    error(status, failure.to_string())
}

/// No `Content-Type`, or `application/json` (with parameters).
fn is_json(request: &Request<hyper::body::Incoming>) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")))
}

async fn reset(request: Request<hyper::body::Incoming>, server: &HandrailServer) -> Response<Body> {
    let json_body = is_json(&request);
    let body = match Limited::new(request.into_body(), MAX_RESET_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return error(StatusCode::PAYLOAD_TOO_LARGE, format!("the body could not be read: {e}")),
    };
    let parsed = if body.iter().all(u8::is_ascii_whitespace) {
        Ok(ResetRequest::default())
    } else if !json_body {
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "a reset body must be application/json");
    } else {
        serde_json::from_slice::<ResetRequest>(&body)
    };
    let request = match parsed {
        Ok(r) => r,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("the reset body is not a reset request: {e}")),
    };
    match server.reset(request).await {
        Ok(Ok(report)) => {
            let status = if report.clean { StatusCode::OK } else { StatusCode::INTERNAL_SERVER_ERROR };
            json(status, &report)
        }
        Ok(Err(e @ ResetError::Unsupported(_))) => error(StatusCode::NOT_IMPLEMENTED, e.to_string()),
        Ok(Err(e)) if e.is_bad_request() => error(StatusCode::BAD_REQUEST, e.to_string()),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(gone) => error(StatusCode::SERVICE_UNAVAILABLE, gone.to_string()),
    }
}

/// The `Host` and `Origin` rules `/mcp` applies (against DNS rebinding: a page in a browser making it
/// post to a server on the person's machine).
fn check_sender(request: &Request<hyper::body::Incoming>, allowed: &Allowed) -> Result<(), String> {
    if let Some(hosts) = &allowed.hosts {
        let host = request.headers().get(HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
        if !host_allowed(host, hosts) {
            return Err(format!(
                "the Host {:?} is not one this server answers to (--allowed-host adds one)",
                clip(host)
            ));
        }
    }
    if let Some(origin) = request.headers().get(ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !origin_allowed(origin, &allowed.origins) {
            return Err(format!("requests from the page {:?} are refused (--allowed-origin adds one)", clip(origin)));
        }
    }
    Ok(())
}

fn clip(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(80).collect()
}

/// `host[:port]` split, brackets of an IPv6 literal removed, lower case.
fn split_authority(authority: &str) -> (String, Option<&str>) {
    let authority = authority.trim();
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((h, tail)) => (h, tail.strip_prefix(':')),
            None => (rest, None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h, Some(p)),
            _ => (authority, None),
        }
    };
    (host.to_ascii_lowercase(), port)
}

fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let (name, port) = split_authority(host);
    !name.is_empty()
        && allowed.iter().any(|a| {
            let (a_name, a_port) = split_authority(a);
            a_name == name && a_port.is_none_or(|p| Some(p) == port)
        })
}

fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    let Some((scheme, authority)) = origin.trim().split_once("://") else { return false };
    let scheme = scheme.to_ascii_lowercase();
    let (name, port) = split_authority(authority.trim_end_matches('/'));
    allowed.iter().any(|a| {
        let Some((a_scheme, a_authority)) = a.split_once("://") else { return false };
        let (a_authority, any_port) = match a_authority.strip_suffix(":*") {
            Some(base) => (base, true),
            None => (a_authority, false),
        };
        let (a_name, a_port) = split_authority(a_authority);
        a_scheme.eq_ignore_ascii_case(&scheme) && a_name == name && (any_port || a_port == port)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn hosts_match_by_name_and_by_port_when_one_is_given() {
        let allowed = list(&["localhost", "127.0.0.1", "[::1]", "desk-0.desktops:8765"]);
        assert!(host_allowed("localhost:8765", &allowed));
        assert!(host_allowed("LOCALHOST", &allowed));
        assert!(host_allowed("[::1]:9", &allowed));
        assert!(host_allowed("desk-0.desktops:8765", &allowed));
        assert!(!host_allowed("desk-0.desktops:9999", &allowed));
        assert!(!host_allowed("evil.example:8765", &allowed));
        assert!(!host_allowed("", &allowed));
    }

    #[test]
    fn origins_match_scheme_host_and_port() {
        let allowed = list(&["http://localhost:*", "http://127.0.0.1:*", "https://app.example:443"]);
        assert!(origin_allowed("http://localhost:3000", &allowed));
        assert!(origin_allowed("http://127.0.0.1:8080", &allowed));
        assert!(origin_allowed("https://app.example:443", &allowed));
        assert!(!origin_allowed("https://localhost:3000", &allowed));
        assert!(!origin_allowed("http://evil.example", &allowed));
        assert!(!origin_allowed("null", &allowed));
    }
}
