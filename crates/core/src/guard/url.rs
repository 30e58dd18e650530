//! `open_url` vetting (SPEC §5.8): no credentials, only http/https, optional allowed domains.
//!
//! The URL is parsed with the WHATWG parser (the `url` crate), the same rules browsers use, and the
//! browser is handed the parser's serialisation, so what we checked is what gets opened. Raw-string
//! checks run first as belt and braces: they refuse anything another parser (xdg-open, an older browser,
//! an RFC 3986 library) might read as userinfo, even where WHATWG would not (`http://good.com\@evil.com`),
//! and userinfo WHATWG silently drops (`http://@host`).

use ::url::{Host, Url};

use super::text::is_invisible;

/// Longest accepted URL, in characters, before and after normalisation.
pub const MAX_URL_LEN: usize = 2048;

/// The exact credentials refusal text (SPEC §5.8).
pub const CREDENTIALS_REFUSAL: &str = "open_url refuses URLs containing credentials";

/// Where `open_url` may go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Domains (with their subdomains) and IP addresses that may be opened. Empty means any host.
    /// Entries may be written `example.com`, `*.example.com`, `.example.com`, `https://example.com/`,
    /// an IP address, or in Unicode (`bücher.example`); entries that do not parse as a host are ignored
    /// (which can only narrow what is allowed).
    pub allowed_domains: Vec<String>,
}

/// Why a URL was not opened. `Display` is the message for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    #[error("open_url needs a URL, e.g. \"https://example.com\"")]
    Empty,
    #[error("URL is too long ({len} characters, at most {max})", max = MAX_URL_LEN)]
    TooLong { len: usize },
    #[error("invalid URL: it contains {what} (U+{code:04X}); percent-encode it (a space is %20)")]
    BadCharacter { what: &'static str, code: u32 },
    #[error("open_url refuses URLs containing credentials")]
    Credentials,
    #[error("open_url only opens http and https URLs, not \"{scheme}:\" URLs")]
    Scheme { scheme: String },
    #[error("URL has no scheme: write it in full, e.g. {suggestion:?} (open_url does not guess)")]
    MissingScheme { suggestion: String },
    #[error("invalid URL: {reason}")]
    Invalid { reason: String },
    #[error("open_url refuses {host}: it is not in the allowed domains ({allowed})")]
    DomainNotAllowed { host: String, allowed: String },
}

/// Checks `raw` against the rules and the policy; returns the normalised URL to open.
pub fn vet_url(raw: &str, policy: &UrlPolicy) -> Result<String, UrlRefusal> {
    let s = raw.trim();
    if s.is_empty() {
        return Err(UrlRefusal::Empty);
    }
    let len = s.chars().count();
    if len > MAX_URL_LEN {
        return Err(UrlRefusal::TooLong { len });
    }
    if let Some(c) = s.chars().find(|c| c.is_control() || c.is_whitespace() || is_invisible(*c)) {
        let what = if c.is_control() {
            "a control character"
        } else if c.is_whitespace() {
            "whitespace"
        } else {
            "an invisible formatting character"
        };
        return Err(UrlRefusal::BadCharacter { what, code: u32::from(c) });
    }

    match split_scheme(s) {
        Some((scheme, rest)) if is_web(scheme) => {
            if authority_has_userinfo(rest) {
                return Err(UrlRefusal::Credentials);
            }
        }
        Some((scheme, rest)) if !looks_like_host_port(scheme, rest) => {
            // `mailto:a@b` is an address, not credentials: name the real problem.
            if !scheme.eq_ignore_ascii_case("mailto") && authority_has_userinfo(rest) {
                return Err(UrlRefusal::Credentials);
            }
            return Err(UrlRefusal::Scheme { scheme: scheme.chars().take(32).flat_map(char::to_lowercase).collect() });
        }
        _ => {
            if authority_has_userinfo(s) {
                return Err(UrlRefusal::Credentials);
            }
            let suggestion = if len <= 200 {
                format!("https://{}", s.trim_start_matches(['/', '\\']))
            } else {
                "https://…".to_string()
            };
            return Err(UrlRefusal::MissingScheme { suggestion });
        }
    }

    let url = Url::parse(s).map_err(|e| UrlRefusal::Invalid { reason: e.to_string() })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlRefusal::Credentials);
    }
    if !is_web(url.scheme()) {
        return Err(UrlRefusal::Scheme { scheme: url.scheme().to_string() });
    }
    let host = url.host().ok_or_else(|| UrlRefusal::Invalid { reason: "the URL has no host".to_string() })?;
    if !host_allowed(&host, policy) {
        return Err(UrlRefusal::DomainNotAllowed {
            host: url.host_str().unwrap_or_default().to_string(),
            allowed: describe_allowed(policy),
        });
    }

    let out = url.as_str().to_string();
    let out_len = out.chars().count();
    if out_len > MAX_URL_LEN {
        return Err(UrlRefusal::TooLong { len: out_len });
    }
    // The serialisation is what the browser gets: it must pass the raw check too.
    match split_scheme(&out) {
        Some((_, rest)) if !authority_has_userinfo(rest) => Ok(out),
        _ => Err(UrlRefusal::Credentials),
    }
}

fn is_web(scheme: &str) -> bool {
    scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
}

/// `scheme:rest` when `s` starts with something shaped like a scheme (RFC 3986: a letter, then letters,
/// digits, `+`, `-`, `.`).
fn split_scheme(s: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = s.split_once(':')?;
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    (first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))).then_some((scheme, rest))
}

/// `example.com:8080/x` or `localhost:3000` parse as a scheme, but are a host and port without one.
fn looks_like_host_port(scheme: &str, rest: &str) -> bool {
    let port: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[port.len()..];
    scheme.contains('.') || (!port.is_empty() && (after.is_empty() || after.starts_with(['/', '?', '#'])))
}

/// Whether the authority part (after the scheme's `:` and any slashes or backslashes, up to the first
/// `/`, `?` or `#`) holds an `@`, plain or percent-encoded. Backslashes deliberately do not end the
/// authority: WHATWG treats them as `/`, but other parsers do not, and there `good.com\` is userinfo.
fn authority_has_userinfo(rest: &str) -> bool {
    let rest = rest.trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    authority.contains('@') || authority.to_ascii_lowercase().contains("%40")
}

/// An allowed-domain entry, normalised by the same WHATWG host parser as the URL (IDNA, lower case,
/// IPv4 forms such as `0x7f.1`).
fn normalise_allowed(entry: &str) -> Option<Host<String>> {
    let e = entry.trim();
    let e = e.trim_start_matches("*.").trim_start_matches('.');
    if e.is_empty() || e.contains('@') {
        return None;
    }
    let url = if e.contains("://") { Url::parse(e).ok()? } else { Url::parse(&format!("http://{e}/")).ok()? };
    if !is_web(url.scheme()) || !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    match url.host()? {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.');
            (!d.is_empty()).then(|| Host::Domain(d.to_string()))
        }
        Host::Ipv4(ip) => Some(Host::Ipv4(ip)),
        Host::Ipv6(ip) => Some(Host::Ipv6(ip)),
    }
}

/// The host equals an allowed domain or is a subdomain of one (`evil-example.com` is not a subdomain of
/// `example.com`); IP addresses only when listed exactly.
fn host_allowed(host: &Host<&str>, policy: &UrlPolicy) -> bool {
    if policy.allowed_domains.is_empty() {
        return true;
    }
    policy.allowed_domains.iter().filter_map(|e| normalise_allowed(e)).any(|allowed| match (host, &allowed) {
        (Host::Domain(h), Host::Domain(d)) => {
            let h = h.trim_end_matches('.');
            h == d || h.strip_suffix(d.as_str()).is_some_and(|sub| sub.ends_with('.'))
        }
        (Host::Ipv4(h), Host::Ipv4(a)) => h == a,
        (Host::Ipv6(h), Host::Ipv6(a)) => h == a,
        _ => false,
    })
}

fn describe_allowed(policy: &UrlPolicy) -> String {
    let valid: Vec<String> =
        policy.allowed_domains.iter().filter_map(|e| normalise_allowed(e)).map(|h| h.to_string()).collect();
    match valid.len() {
        0 => "none of the configured entries is a valid domain".to_string(),
        1..=10 => valid.join(", "),
        _ => format!("{}, …", valid[..10].join(", ")),
    }
}

/// `url` without any userinfo: in the authority (after the scheme's `:` and its slashes or backslashes,
/// up to the first `/`, `?` or `#`), everything up to the last `@` is removed
/// (`http://user:pass@host/x?q` → `http://host/x?q`); the path, query and fragment are kept.
/// Backslashes do not end the authority, as in `vet_url`: some parsers read `good.com\@evil.com` as
/// userinfo, so it is removed too. Without slashes after a scheme (`user:pass@host`, `http:u@host`)
/// the scheme itself may be a user name, so everything before the last `@` of the first segment goes.
/// What is left may itself read as a URL with userinfo (`x@http://user:pass@host` loses `x@` first), so
/// removal goes on until nothing more is removed.
/// The URL is read as a browser reads it: WHATWG parsing ignores leading and trailing control characters
/// and spaces and every tab and newline, so ` http://user:pass@host` and `ht<TAB>tp://user:pass@host`
/// carry credentials too; when something is removed, the result is that cleaned reading.
pub fn redact_credentials(raw: &str) -> String {
    let browser_reads = |s: &str| s.trim_matches(|c: char| c <= ' ').to_string();
    let mut url = browser_reads(&raw.replace(['\t', '\n', '\r'], ""));
    let mut removed = false;
    // Each removal takes away at least one `@`, so this ends.
    while let Some(shorter) = without_userinfo(&url) {
        url = browser_reads(&shorter);
        removed = true;
    }
    if removed {
        url
    } else {
        raw.to_string()
    }
}

/// One step of [`redact_credentials`]: `url` with its authority's userinfo removed, if it has one.
fn without_userinfo(url: &str) -> Option<String> {
    let (prefix, rest) = match url.split_once(':') {
        Some((scheme, rest))
            if scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && rest.starts_with(['/', '\\']) =>
        {
            let slashes = rest.len() - rest.trim_start_matches(['/', '\\']).len();
            url.split_at(scheme.len() + 1 + slashes)
        }
        _ => ("", url),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, more) = rest.split_at(end);
    authority.rfind('@').map(|at| format!("{prefix}{}{more}", &authority[at + 1..]))
}

/// `text` with the userinfo of every URL in it removed (`curl 'http://u:pw@host/x'` → `curl
/// 'http://host/x'`): each `://` starts an authority that runs to the first `/`, `?`, `#`, space,
/// quote or bracket, and everything in it up to its last `@` goes. For messages that quote a command
/// line or text a model typed.
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '`' | '<' | '>' | ')' | ']') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        out.push_str(authority.rfind('@').map_or(authority, |i| &authority[i + 1..]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    fn any_host() -> UrlPolicy {
        UrlPolicy::default()
    }

    fn only(domains: &[&str]) -> UrlPolicy {
        UrlPolicy { allowed_domains: domains.iter().map(|d| d.to_string()).collect() }
    }

    #[test]
    fn urls_inside_text_lose_their_userinfo() {
        for (input, want) in [
            ("curl http://admin:pw@127.0.0.2/x", "curl http://127.0.0.2/x"),
            ("git clone 'https://bob:pw@h.example/r.git' && ls", "git clone 'https://h.example/r.git' && ls"),
            ("a http://u:pw@x b ftp://v:pw@y?q=1", "a http://x b ftp://y?q=1"),
            ("wget \"http://u:p@w@host\"", "wget \"http://host\""),
            ("echo https://example.com/@user", "echo https://example.com/@user"),
            ("no urls here: a@b", "no urls here: a@b"),
            ("trailing ://", "trailing ://"),
        ] {
            assert_eq!(redact_urls_in(input), want, "input {input:?}");
        }
    }

    proptest! {
        #[test]
        fn no_password_survives_in_text(
            before in "[a-z '\"]{0,12}",
            scheme in "(http|https|ftp|git\\+ssh)",
            user in "[a-z]{1,8}",
            after in "(/[a-z]{0,6})?( [a-z]{0,6})?",
        ) {
            let text = format!("{before}{scheme}://{user}:SeCrEt9@host.example{after}");
            let redacted = redact_urls_in(&text);
            prop_assert!(!redacted.contains("SeCrEt9"), "{}", redacted);
            prop_assert!(redacted.contains("host.example"));
        }
    }

    #[test]
    fn redaction_removes_userinfo_only() {
        for (input, want) in [
            ("http://user:pass@host.com/x?token=1#f", "http://host.com/x?token=1#f"),
            ("https://a@b@c.com/", "https://c.com/"),
            ("http://good.com\\@evil.com/", "http://evil.com/"),
            ("https://example.com/@user", "https://example.com/@user"),
            ("https://example.com/?email=a@b.com", "https://example.com/?email=a@b.com"),
            ("user:pass@host.com", "host.com"),
            ("ftp://u:p@files.example/", "ftp://files.example/"),
            ("http:user:pass@host.com", "host.com"),
            ("http:\\\\user:pass@host.com/p", "http:\\\\host.com/p"),
            ("no scheme@all", "all"),
        ] {
            let got = redact_credentials(input);
            assert_eq!(got, want, "input {input:?}");
            assert!(!got.contains("pass"), "input {input:?}");
        }
    }

    /// Leading spaces and a tab inside the scheme hid the userinfo from the redaction, while a browser
    /// (and the WHATWG parser) still read `user:pass` as credentials; and a first removal could leave a
    /// URL with credentials of its own.
    #[test]
    fn redaction_reads_the_url_as_a_browser_does() {
        for (input, want) in [
            (" http://user:pass@host.com/x", "http://host.com/x"),
            ("\u{1}https://user:pass@host.com/", "https://host.com/"),
            ("ht\ttp://user:pass@host.com/", "http://host.com/"),
            ("http://us\ner:pa\r\nss@host.com/", "http://host.com/"),
            (" ws:/\t//%48% 44:@WWW.example.COM/é", "ws:///WWW.example.COM/é"),
            // What is left after a removal is a URL with a password of its own.
            ("x@http://user:pass@host.com/", "http://host.com/"),
            ("\0@\0b://:%7E%62@[::0001]:47348", "b://[::0001]:47348"),
            ("r.e)r\u{1}:\\\\m: rer@pa://examo\0@example.com:65535", "pa://example.com:65535"),
            // Nothing to remove: the input comes back as it was.
            (" https://example.com/\t", " https://example.com/\t"),
        ] {
            let got = redact_credentials(input);
            assert_eq!(got, want, "input {input:?}");
            assert!(Url::parse(&got).is_ok_and(|u| u.username().is_empty() && u.password().is_none()), "{got:?}");
        }
    }

    #[test]
    fn accepts_and_normalises_web_urls() {
        let cases = [
            ("https://example.com", "https://example.com/"),
            ("http://example.com/path?q=1#frag", "http://example.com/path?q=1#frag"),
            ("HTTPS://Example.COM/A", "https://example.com/A"),
            ("  https://example.com/  ", "https://example.com/"),
            ("https://example.com/@user", "https://example.com/@user"),
            ("https://example.com/?email=a@b.com", "https://example.com/?email=a@b.com"),
            ("https://example.com#@evil.com", "https://example.com/#@evil.com"),
            ("https://bücher.example/", "https://xn--bcher-kva.example/"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/"),
            ("http://[::1]/", "http://[::1]/"),
            ("https://example.com/a%20b", "https://example.com/a%20b"),
        ];
        for (input, want) in cases {
            assert_eq!(vet_url(input, &any_host()).as_deref(), Ok(want), "input {input:?}");
        }
    }

    #[test]
    fn refuses_credentials() {
        let cases = [
            "http://user:pass@host.com",
            "https://user@example.com",
            "http://good.com@evil.com",
            "http://us%65r:p%40ss@host.com",
            "HTTP://USER@HOST.COM",
            "http://@host.com",
            "http://:@host.com",
            "http://:pass@host.com",
            "http://good.com\\@evil.com",
            "http:\\\\good.com\\@evil.com",
            "http:user:pass@host.com",
            "http:/user@host.com",
            "http://good.com%40evil.com",
            "http://a@b@c.com",
            "user:pass@host.com",
            "user@host.com",
            "ftp://user@host.com",
        ];
        for input in cases {
            assert_eq!(vet_url(input, &any_host()), Err(UrlRefusal::Credentials), "input {input:?}");
            assert_eq!(UrlRefusal::Credentials.to_string(), CREDENTIALS_REFUSAL);
        }
    }

    #[test]
    fn refuses_other_schemes_naming_them() {
        let cases = [
            ("file:///etc/passwd", "file"),
            ("javascript:alert(1)", "javascript"),
            ("JavaScript:alert(1)", "javascript"),
            ("data:text/html,<b>hi</b>", "data"),
            ("chrome://settings", "chrome"),
            ("ftp://example.com/file", "ftp"),
            ("mailto:someone@example.com", "mailto"),
            ("about:blank", "about"),
        ];
        for (input, scheme) in cases {
            let r = vet_url(input, &any_host());
            assert_eq!(r, Err(UrlRefusal::Scheme { scheme: scheme.into() }), "input {input:?}");
            let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains(&format!("\"{scheme}:\"")), "{msg}");
        }
    }

    #[test]
    fn refuses_schemeless_input_with_a_suggestion() {
        for (input, suggestion) in [
            ("example.com", "https://example.com"),
            ("www.example.com/path", "https://www.example.com/path"),
            ("example.com:8080/x", "https://example.com:8080/x"),
            ("localhost:3000", "https://localhost:3000"),
            ("//example.com", "https://example.com"),
        ] {
            let r = vet_url(input, &any_host());
            assert_eq!(r, Err(UrlRefusal::MissingScheme { suggestion: suggestion.into() }), "input {input:?}");
        }
        let msg = vet_url("example.com", &any_host()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("\"https://example.com\""), "{msg}");
    }

    #[test]
    fn refuses_malformed_input() {
        assert_eq!(vet_url("", &any_host()), Err(UrlRefusal::Empty));
        assert_eq!(vet_url(" \n ", &any_host()), Err(UrlRefusal::Empty));
        for input in [
            "https://exa mple.com",
            "https://example.com/\tpath",
            "https://exa\nmple.com",
            "https://example.com/\u{0}",
            "https://good.com\u{200B}.evil.com",
            "https://example.com/\u{202E}moc",
            "https://example.com/a\u{3000}b",
        ] {
            assert!(matches!(vet_url(input, &any_host()), Err(UrlRefusal::BadCharacter { .. })), "input {input:?}");
        }
        let long = format!("https://example.com/{}", "a".repeat(2100));
        assert!(matches!(vet_url(&long, &any_host()), Err(UrlRefusal::TooLong { .. })));
        for input in ["http://", "https://exa<mple.com", "http://[::1", "https://999.999.999.999/"] {
            assert!(
                matches!(vet_url(input, &any_host()), Err(UrlRefusal::Invalid { .. })),
                "input {input:?}: {:?}",
                vet_url(input, &any_host())
            );
        }
    }

    #[test]
    fn allowed_domains() {
        let p = only(&["example.com", "*.docs.rs", "Bücher.example", "10.0.0.1", "https://wiki.test/"]);
        let allowed = [
            "https://example.com/",
            "https://EXAMPLE.com./x",
            "https://www.example.com/",
            "https://a.b.example.com/",
            "https://docs.rs/",
            "https://x.docs.rs/",
            "https://xn--bcher-kva.example/",
            "https://bücher.example/",
            "http://10.0.0.1/",
            "http://0xa.0.0.1/",
            "https://wiki.test/page",
        ];
        for input in allowed {
            assert!(vet_url(input, &p).is_ok(), "{input:?}: {:?}", vet_url(input, &p));
        }
        let refused = [
            "https://evil-example.com/",
            "https://example.com.evil.com/",
            "https://notexample.com/",
            "https://com/",
            "http://10.0.0.2/",
            "http://127.0.0.1/",
            "https://bucher.example/",
        ];
        for input in refused {
            assert!(
                matches!(vet_url(input, &p), Err(UrlRefusal::DomainNotAllowed { .. })),
                "{input:?}: {:?}",
                vet_url(input, &p)
            );
        }
        let msg = vet_url("https://evil-example.com/", &only(&["example.com"]))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(msg, "open_url refuses evil-example.com: it is not in the allowed domains (example.com)");
        // A configured but unusable list allows nothing rather than everything.
        assert!(matches!(
            vet_url("https://example.com/", &only(&["   ", "user@x"])),
            Err(UrlRefusal::DomainNotAllowed { .. })
        ));
        // IP hosts are not reached through a domain entry.
        assert!(vet_url("http://127.0.0.1/", &only(&["0.0.1"])).is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_strings_never_panic(s in any::<String>()) {
            if let Err(e) = vet_url(&s, &any_host()) {
                prop_assert!(!e.to_string().is_empty());
            }
        }

        #[test]
        fn urlish_strings_are_safe_when_accepted(
            s in "(https?|HTTP|file|javascript)?:?[/\\\\]{0,3}[a-z.@:%0-9\\\\]{0,20}[/?#@]?[a-z@%:]{0,8}",
        ) {
            let policy = only(&["example.com"]);
            for p in [&any_host(), &policy] {
                match vet_url(&s, p) {
                    Ok(u) => {
                        let parsed = Url::parse(&u);
                        prop_assert!(parsed.is_ok());
                        if let Ok(parsed) = parsed {
                            prop_assert!(parsed.username().is_empty() && parsed.password().is_none());
                            prop_assert!(matches!(parsed.scheme(), "http" | "https"));
                        }
                        prop_assert!(!s.split_once(':').map(|(_, r)| authority_has_userinfo(r)).unwrap_or(true));
                        // Vetting is idempotent: the URL we open passes again unchanged.
                        prop_assert_eq!(vet_url(&u, p), Ok(u.clone()));
                    }
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }
        }

        #[test]
        fn any_userinfo_is_refused(
            user in "[a-zA-Z0-9%]{0,8}",
            pass in proptest::option::of("[a-zA-Z0-9%]{0,8}"),
            host in "[a-z]{1,10}\\.(com|org)",
        ) {
            let info = match pass {
                Some(p) => format!("{user}:{p}"),
                None => user,
            };
            let url = format!("https://{info}@{host}/");
            prop_assert_eq!(vet_url(&url, &any_host()), Err(UrlRefusal::Credentials));
        }
    }
}
