//! Judging a request's destination with `vet_url`, and redacting URLs before they are recorded.
//!
//! The proxy connects to the host and port of the URL that `vet_url` accepted, read back from its
//! serialisation with the same WHATWG parser, never to anything taken from the raw request, so what was
//! judged is what is reached.

use handrail_core::guard::url::{redact_credentials, vet_url, UrlPolicy, UrlRefusal, MAX_URL_LEN};
use url::{Host, Url};

/// Longest URL kept in a [`crate::Blocked`] record or shown on the block page, in characters.
const MAX_RECORDED_LEN: usize = 2048;

/// Where an allowed request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Destination {
    /// The judged URL (no credentials, no fragment sent).
    pub(crate) url: Url,
    pub(crate) host: Host<String>,
    pub(crate) port: u16,
}

impl Destination {
    fn from_url(url: Url) -> Option<Destination> {
        if !url.username().is_empty() || url.password().is_some() || !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        let host = url.host()?.to_owned();
        let port = url.port_or_known_default()?;
        Some(Destination { url, host, port })
    }

    /// The request target in origin form: path and query, no fragment.
    pub(crate) fn origin_form(&self) -> String {
        match self.url.query() {
            Some(q) => format!("{}?{q}", self.url.path()),
            None => self.url.path().to_string(),
        }
    }

    /// The `Host` header value for the origin: the judged host, with the port when not the default.
    pub(crate) fn host_header(&self) -> String {
        match self.url.port() {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.to_string(),
        }
    }
}

/// The policy's answer for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allowed(Destination),
    /// `url` is redacted; `reason` is for people and logs.
    Refused {
        url: String,
        reason: String,
    },
}

/// Judges an absolute-form request target (`http://host:port/path?q`).
///
/// URLs longer than `vet_url` accepts (it is sized for URLs a model types) are judged by their origin:
/// the raw text up to the end of the authority must pass `vet_url`, and the full URL must parse, without
/// credentials, to that same scheme, host and port.
pub(crate) fn judge_absolute(target: &str, policy: &UrlPolicy) -> Verdict {
    let refused = |e: &UrlRefusal| Verdict::Refused { url: recorded(target), reason: reason(e) };
    let vetted = match vet_url(target, policy) {
        Ok(v) => v,
        Err(UrlRefusal::TooLong { .. }) => return judge_long(target, policy),
        Err(e) => return refused(&e),
    };
    match Url::parse(&vetted).ok().and_then(Destination::from_url) {
        Some(d) => Verdict::Allowed(d),
        None => invalid(target),
    }
}

fn judge_long(target: &str, policy: &UrlPolicy) -> Verdict {
    let Some(scheme_end) = target.find("://") else { return invalid(target) };
    let after = scheme_end + 3;
    let end = target[after..].find(['/', '?', '#']).map_or(target.len(), |i| after + i);
    let origin = format!("{}/", &target[..end]);
    let vetted = match vet_url(&origin, policy) {
        Ok(v) => v,
        Err(e) => return Verdict::Refused { url: recorded(target), reason: reason(&e) },
    };
    let (Some(judged), Some(full)) = (
        Url::parse(&vetted).ok().and_then(Destination::from_url),
        Url::parse(target).ok().and_then(Destination::from_url),
    ) else {
        return invalid(target);
    };
    if judged.url.scheme() == full.url.scheme() && judged.host == full.host && judged.port == full.port {
        Verdict::Allowed(full)
    } else {
        invalid(target)
    }
}

/// Judges a CONNECT authority (`host:port`) as `https://host:port/` (`https://host/` for port 443).
/// `Err` when the authority is not `host:port` at all (a 400, not a policy decision).
pub(crate) fn judge_connect(authority: &str, policy: &UrlPolicy) -> Result<Verdict, &'static str> {
    if authority.contains(['/', '?', '#', '\\']) || !authority.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("the CONNECT target is not host:port");
    }
    let (host, port) = authority.rsplit_once(':').ok_or("the CONNECT target has no port")?;
    if host.is_empty() || port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err("the CONNECT target is not host:port");
    }
    let port: u16 = port.parse().map_err(|_| "the CONNECT port is out of range")?;
    let url = if port == 443 { format!("https://{host}/") } else { format!("https://{host}:{port}/") };
    let vetted = match vet_url(&url, policy) {
        Ok(v) => v,
        Err(e) => return Ok(Verdict::Refused { url: recorded(&url), reason: reason(&e) }),
    };
    Ok(match Url::parse(&vetted).ok().and_then(Destination::from_url) {
        Some(d) if d.port == port && d.url.path() == "/" && d.url.query().is_none() => Verdict::Allowed(d),
        _ => invalid(&url),
    })
}

fn invalid(target: &str) -> Verdict {
    Verdict::Refused { url: recorded(target), reason: "invalid URL: its host could not be determined".to_string() }
}

/// The refusal as the proxy words it: `vet_url`'s reasons without the `open_url` framing.
pub(crate) fn reason(e: &UrlRefusal) -> String {
    match e {
        UrlRefusal::Empty => "the URL is empty".to_string(),
        UrlRefusal::TooLong { len } => format!("the URL is too long ({len} characters, at most {MAX_URL_LEN})"),
        UrlRefusal::BadCharacter { what, code } => format!("the URL contains {what} (U+{code:04X})"),
        UrlRefusal::Credentials => "the URL contains credentials".to_string(),
        UrlRefusal::Scheme { scheme } => format!("only http and https URLs are allowed, not \"{scheme}:\""),
        UrlRefusal::MissingScheme { .. } => "the URL has no scheme".to_string(),
        UrlRefusal::Invalid { reason } => format!("invalid URL: {reason}"),
        UrlRefusal::DomainNotAllowed { host, allowed } => {
            format!("{host} is not in the allowed domains ({allowed})")
        }
    }
}

/// `url` as it may be recorded: credentials removed, at most [`MAX_RECORDED_LEN`] characters.
fn recorded(url: &str) -> String {
    let redacted = redact_credentials(url);
    if redacted.chars().count() <= MAX_RECORDED_LEN {
        return redacted;
    }
    let mut cut: String = redacted.chars().take(MAX_RECORDED_LEN).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(domains: &[&str]) -> UrlPolicy {
        UrlPolicy { allowed_domains: domains.iter().map(|d| d.to_string()).collect() }
    }

    #[test]
    fn absolute_targets() {
        let p = only(&["example.com", "127.0.0.1"]);
        match judge_absolute("http://www.example.com:8080/a/b?q=1", &p) {
            Verdict::Allowed(d) => {
                assert_eq!(d.origin_form(), "/a/b?q=1");
                assert_eq!(d.host_header(), "www.example.com:8080");
                assert_eq!(d.port, 8080);
            }
            v => panic!("{v:?}"),
        }
        match judge_absolute("http://127.0.0.1/", &p) {
            Verdict::Allowed(d) => assert_eq!((d.host_header().as_str(), d.port), ("127.0.0.1", 80)),
            v => panic!("{v:?}"),
        }
        for (target, url, why) in [
            (
                "http://evil.com/x",
                "http://evil.com/x",
                "evil.com is not in the allowed domains (example.com, 127.0.0.1)",
            ),
            ("http://user:pw@example.com/", "http://example.com/", "the URL contains credentials"),
            ("ftp://example.com/f", "ftp://example.com/f", "only http and https URLs are allowed, not \"ftp:\""),
            (
                "http://2130706434/",
                "http://2130706434/",
                "127.0.0.2 is not in the allowed domains (example.com, 127.0.0.1)",
            ),
            (
                "http://example.com.evil.com/",
                "http://example.com.evil.com/",
                "example.com.evil.com is not in the allowed domains (example.com, 127.0.0.1)",
            ),
        ] {
            assert_eq!(
                judge_absolute(target, &p),
                Verdict::Refused { url: url.to_string(), reason: why.to_string() },
                "target {target:?}"
            );
        }
    }

    #[test]
    fn long_urls_are_judged_by_their_origin() {
        let p = only(&["example.com"]);
        let long_q = "a".repeat(5000);
        assert!(matches!(judge_absolute(&format!("http://example.com/?q={long_q}"), &p), Verdict::Allowed(_)));
        for target in [
            format!("http://evil.com/?q={long_q}"),
            format!("http://u:p@example.com/?q={long_q}"),
            format!("http://example.com\\@evil.com/?q={long_q}"),
        ] {
            match judge_absolute(&target, &p) {
                Verdict::Refused { url, .. } => {
                    assert!(url.chars().count() <= MAX_RECORDED_LEN + 1);
                    assert!(!url.contains("u:p"));
                }
                v => panic!("{target:.60}: {v:?}"),
            }
        }
    }

    #[test]
    fn connect_targets() {
        let p = only(&["example.com"]);
        match judge_connect("www.example.com:443", &p) {
            Ok(Verdict::Allowed(d)) => assert_eq!((d.url.as_str(), d.port), ("https://www.example.com/", 443)),
            v => panic!("{v:?}"),
        }
        match judge_connect("example.com:8443", &p) {
            Ok(Verdict::Allowed(d)) => assert_eq!(d.port, 8443),
            v => panic!("{v:?}"),
        }
        assert_eq!(
            judge_connect("evil.com:443", &p),
            Ok(Verdict::Refused {
                url: "https://evil.com/".into(),
                reason: "evil.com is not in the allowed domains (example.com)".into()
            })
        );
        assert_eq!(
            judge_connect("user:pw@example.com:443", &p),
            Ok(Verdict::Refused { url: "https://example.com/".into(), reason: "the URL contains credentials".into() })
        );
        for bad in ["example.com", "example.com:", "example.com:99999", "evil.com/x:443", ":443", "a b:443", "x:44a"] {
            assert!(judge_connect(bad, &p).is_err(), "{bad:?}");
        }
        assert!(matches!(judge_connect("[::1]:443", &only(&["[::1]"])), Ok(Verdict::Allowed(_))));
    }
}
