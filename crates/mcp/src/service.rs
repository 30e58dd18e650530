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
//!
//! Every answer is JSON (`handrail_wire::service`).

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE, HOST, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;

use handrail_calls::ResetError;
use handrail_wire::service::{ResetRequest, ServiceError};

use crate::server::HandrailServer;
use crate::transport::Body;

/// The paths served here.
pub const HEALTH_PATH: &str = "/healthz";
pub const READY_PATH: &str = "/readyz";
pub const RESET_PATH: &str = "/reset";

/// Largest reset body read (a turn id, an intent and a mode fit many times over).
const MAX_RESET_BODY: usize = 16 * 1024;

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
    matches!(path, HEALTH_PATH | READY_PATH | RESET_PATH)
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

/// Answers a request to one of the service paths. `authorized` is the bearer token's verdict, as
/// `/mcp` would give it.
pub(crate) async fn handle(
    request: Request<hyper::body::Incoming>,
    server: &HandrailServer,
    allowed: &Allowed,
    authorized: bool,
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
        _ => {
            if method != Method::POST {
                return method_not_allowed("POST");
            }
            if let Err(why) = check_sender(&request, allowed) {
                return error(StatusCode::FORBIDDEN, why);
            }
            if !authorized {
                let mut r = error(StatusCode::UNAUTHORIZED, "a bearer token is required");
                r.headers_mut()
                    .insert(hyper::header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"handrail\""));
                return r;
            }
            reset(request, server).await
        }
    }
}

async fn reset(request: Request<hyper::body::Incoming>, server: &HandrailServer) -> Response<Body> {
    let json_body = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
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
