//! `open_url`'s guard, `handrail_core::guard::url::vet_url`, against the WHATWG parser (the `url`
//! crate: what a browser makes of a string), and `redact_credentials`.
//!
//! Invariants:
//! - what the guard accepts is what it hands the browser: the WHATWG serialisation of the input, an
//!   http or https URL with a host, no user name or password, and (with allowed domains) a host inside
//!   them; vetting that again gives the same URL;
//! - whatever WHATWG reads as carrying credentials or another scheme is refused;
//! - a URL with userinfo is refused however it is written (percent-encoded, mixed case, backslashes,
//!   tabs or newlines inside, Unicode hosts), and a URL keeps its verdict under spellings WHATWG
//!   treats as the same (scheme case, `\` for `/`, host case, IDNA and percent-encoded hosts);
//! - `redact_credentials` leaves nothing WHATWG would read as credentials, and never the password.

#![no_main]

use handrail_core::guard::url::{redact_credentials, vet_url, UrlPolicy, UrlRefusal, MAX_URL_LEN};
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use url::{Host, Url};

const SCHEMES: &[&str] = &["http", "https", "ftp", "javascript", "file", "data", "ws", "chrome", "mailto", ""];
const SLASHES: &[&str] = &["//", "\\\\", "/\\", "\\/", "", "/", "///"];
/// Hosts, each with spellings WHATWG reads as the same host.
const HOSTS: &[&[&str]] = &[
    &["example.com", "EXAMPLE.com", "ExAmPlE.CoM", "ｅｘａｍｐｌｅ.com", "exam%70le.com"],
    &["www.example.com", "WWW.example.COM"],
    &["evil-example.com", "EVIL-example.com"],
    &["example.com.evil.com", "Example.Com.Evil.Com"],
    &["bücher.example", "BÜCHER.example", "xn--bcher-kva.example", "b%C3%BCcher.example"],
    &["127.0.0.1", "0x7f.1", "2130706433", "0177.0.0.1", "127.1"],
    &["10.0.0.1", "0xa.0.0.1", "10.0.1"],
    &["[::1]", "[0:0:0:0:0:0:0:1]", "[::0001]"],
    &["docs.rs", "DOCS.RS"],
    &["a.docs.rs"],
    &["example.com."],
    &["localhost", "LOCALHOST"],
    // Final sigma is kept (UTS 46 nontransitional): these two are different hosts.
    &["xn--nxasmm1c.com", "βόλος.com"],
    &["xn--nxasmq6b.com", "βόλοσ.com"],
    &[""],
];
const PATHS: &[&str] = &[
    "",
    "/",
    "/path?q=1#frag",
    "/@evil.com",
    "?a=@b",
    "#@evil.com",
    "/a%40b",
    "/%2e%2e/x",
    "\\@evil.com",
    ":8080/",
    ":99999/",
    "/é",
    "?x=%00",
];
const ALLOWED: &[&str] = &[
    "example.com",
    "*.docs.rs",
    ".example.com",
    "https://example.com/",
    "bücher.example",
    "10.0.0.1",
    "127.0.0.1",
    "[::1]",
    "EXAMPLE.COM.",
    "user@example.com",
    "  ",
    "com",
    "example.com:8080",
    "xn--nxasmq6b.com",
];
/// Characters a URL must not hide: WHATWG drops tabs and newlines, others are invisible.
const NOISE: &[char] = &['\t', '\n', '\r', ' ', '\u{200B}', '\u{00A0}', '\u{0}', '\u{202E}', '\u{3000}'];

#[derive(Debug, Arbitrary)]
enum Part {
    Known(u8),
    Raw(String),
}

fn pick(p: &Part, list: &[&str]) -> String {
    match p {
        Part::Known(i) => list[usize::from(*i) % list.len()].to_string(),
        Part::Raw(s) => s.clone(),
    }
}

#[derive(Debug, Arbitrary)]
struct Userinfo {
    user: String,
    password: Option<String>,
    /// 0: as written, 1: every byte percent-encoded, 2: `@` percent-encoded, 3: lower-case hex.
    encoding: u8,
}

#[derive(Debug, Arbitrary)]
struct Spec {
    scheme: Part,
    slashes: u8,
    userinfo: Option<Userinfo>,
    host: u8,
    spelling: u8,
    port: Option<u16>,
    path: Part,
    /// Characters slipped in at these positions.
    noise: Vec<(u16, u8)>,
    /// The variant: upper-case scheme letters, other slashes, another spelling of the host.
    variant: (u8, u8, u8),
}

#[derive(Debug, Arbitrary)]
enum Input {
    Raw(String, Vec<Part>),
    Built(Spec, Vec<Part>),
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else { return };
    match input {
        Input::Raw(s, allowed) => {
            let policy = policy(&allowed);
            judged(&s, &policy);
            judged(&s, &UrlPolicy::default());
            redacted(&s);
        }
        Input::Built(spec, allowed) => built(&spec, &policy(&allowed)),
    }
});

fn policy(parts: &[Part]) -> UrlPolicy {
    UrlPolicy { allowed_domains: parts.iter().take(4).map(|p| pick(p, ALLOWED)).collect() }
}

fn encode_userinfo(raw: &str, encoding: u8) -> String {
    // Characters that end the authority are percent-encoded in any userinfo worth the name.
    let s: String = raw
        .chars()
        .map(|c| if matches!(c, '/' | '?' | '#' | '\\') { format!("%{:02X}", c as u32) } else { c.to_string() })
        .collect();
    match encoding % 4 {
        1 => s.bytes().map(|b| format!("%{b:02X}")).collect(),
        2 => s.replace('@', "%40"),
        3 => s
            .bytes()
            .map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02x}") })
            .collect(),
        _ => s,
    }
}

/// The URL as written: scheme, slashes, userinfo, host, port, path.
fn render(spec: &Spec, scheme: &str, slashes: &str, host: &str) -> String {
    let mut s = String::new();
    if !scheme.is_empty() {
        s.push_str(scheme);
        s.push(':');
    }
    s.push_str(slashes);
    if let Some(u) = &spec.userinfo {
        s.push_str(&encode_userinfo(&u.user, u.encoding));
        if let Some(p) = &u.password {
            s.push(':');
            s.push_str(&encode_userinfo(p, u.encoding));
        }
        s.push('@');
    }
    s.push_str(host);
    if let Some(port) = spec.port {
        s.push_str(&format!(":{port}"));
    }
    s.push_str(&pick(&spec.path, PATHS));
    s
}

fn built(spec: &Spec, policy: &UrlPolicy) {
    let scheme = pick(&spec.scheme, SCHEMES);
    let slashes = SLASHES[usize::from(spec.slashes) % SLASHES.len()];
    let spellings = HOSTS[usize::from(spec.host) % HOSTS.len()];
    let host = spellings[usize::from(spec.spelling) % spellings.len()];
    let plain = render(spec, &scheme, slashes, host);

    let mut noisy: Vec<char> = plain.chars().collect();
    for (at, which) in spec.noise.iter().take(3) {
        noisy.insert(usize::from(*at) % (noisy.len() + 1), NOISE[usize::from(*which) % NOISE.len()]);
    }
    let noisy: String = noisy.into_iter().collect();

    // With a scheme or path of the fuzzer's own, the parts may not be in their places, or whole.
    let in_place = matches!(spec.scheme, Part::Known(_)) && matches!(spec.path, Part::Known(_));
    for (s, p) in [(&plain, policy), (&noisy, policy), (&plain, &UrlPolicy::default())] {
        judged(s, p);
        redacted(s);
        if spec.userinfo.is_some() && in_place {
            assert!(vet_url(s, p).is_err(), "{s:?} carries userinfo but was accepted");
        }
    }

    // A spelling WHATWG reads as the same URL gets the same verdict, and the same URL when accepted.
    if !in_place {
        return;
    }
    let (case, other_slashes, other_host) = spec.variant;
    let scheme_variant: String = scheme
        .chars()
        .enumerate()
        .map(|(i, c)| if case & 1 << (i % 8) != 0 { c.to_ascii_uppercase() } else { c })
        .collect();
    let special = ["http", "https", "ftp", "ws", "wss", "file"].contains(&scheme.to_ascii_lowercase().as_str());
    let slashes_variant = if special && slashes.len() == 2 {
        ["//", "\\\\", "/\\", "\\/"][usize::from(other_slashes) % 4]
    } else {
        slashes
    };
    let host_variant = spellings[usize::from(other_host) % spellings.len()];
    let variant = render(spec, &scheme_variant, slashes_variant, host_variant);
    for p in [policy, &UrlPolicy::default()] {
        let (a, b) = (vet_url(&plain, p), vet_url(&variant, p));
        assert_eq!(a.is_ok(), b.is_ok(), "{plain:?} and {variant:?} got different verdicts: {a:?} / {b:?}");
        if let (Ok(a), Ok(b)) = (&a, &b) {
            assert_eq!(a, b, "{plain:?} and {variant:?} open different URLs");
        }
        if matches!(a, Err(UrlRefusal::Credentials)) {
            assert!(matches!(b, Err(UrlRefusal::Credentials)), "{variant:?}: {b:?}");
        }
    }
}

/// The allowed-domain entries as hosts, the way the policy describes them.
fn allowed_hosts(policy: &UrlPolicy) -> Vec<Host<String>> {
    policy
        .allowed_domains
        .iter()
        .filter_map(|entry| {
            let e = entry.trim().trim_start_matches("*.").trim_start_matches('.');
            if e.is_empty() || e.contains('@') {
                return None;
            }
            let u = if e.contains("://") { Url::parse(e) } else { Url::parse(&format!("http://{e}/")) }.ok()?;
            if !matches!(u.scheme(), "http" | "https") || !u.username().is_empty() || u.password().is_some() {
                return None;
            }
            match u.host()?.to_owned() {
                Host::Domain(d) => {
                    let d = d.trim_end_matches('.').to_string();
                    (!d.is_empty()).then_some(Host::Domain(d))
                }
                ip => Some(ip),
            }
        })
        .collect()
}

/// Label by label: the host is an allowed domain or under one; addresses only exactly.
fn inside(host: &Host<&str>, allowed: &[Host<String>]) -> bool {
    allowed.iter().any(|a| match (host, a) {
        (Host::Domain(h), Host::Domain(d)) => {
            let h: Vec<&str> = h.trim_end_matches('.').split('.').collect();
            let d: Vec<&str> = d.split('.').collect();
            h.ends_with(&d)
        }
        (Host::Ipv4(h), Host::Ipv4(a)) => h == a,
        (Host::Ipv6(h), Host::Ipv6(a)) => h == a,
        _ => false,
    })
}

fn judged(raw: &str, policy: &UrlPolicy) {
    let verdict = vet_url(raw, policy);
    let whatwg = Url::parse(raw);
    match &verdict {
        Ok(out) => {
            let u = Url::parse(out).expect("the accepted URL parses");
            assert_eq!(u.as_str(), out, "the accepted URL is a WHATWG serialisation");
            assert!(matches!(u.scheme(), "http" | "https"), "accepted scheme {}", u.scheme());
            assert!(u.username().is_empty() && u.password().is_none(), "accepted credentials: {out}");
            let host = u.host().expect("an accepted URL has a host");
            if !policy.allowed_domains.is_empty() {
                assert!(inside(&host, &allowed_hosts(policy)), "{out} is outside {:?}", policy.allowed_domains);
            }
            let authority = out.split_once("://").map_or("", |(_, rest)| rest);
            let authority = &authority[..authority.find(['/', '?', '#']).unwrap_or(authority.len())];
            assert!(!authority.contains('@') && !authority.to_ascii_lowercase().contains("%40"), "{out}");
            // What the guard judged is what the browser gets: the WHATWG reading of the input.
            let read = Url::parse(raw.trim()).expect("the input parses as the guard read it");
            assert_eq!(read.as_str(), out, "the guard opens something other than {raw:?}");
            assert_eq!(vet_url(out, policy).as_ref(), Ok(out), "vetting is not idempotent");
            assert!(out.chars().count() <= MAX_URL_LEN);
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            if let UrlRefusal::TooLong { len } = e {
                assert!(*len > MAX_URL_LEN);
            }
        }
    }
    // Whatever a browser would read as credentials or as another scheme is refused.
    if let Ok(w) = whatwg {
        if !w.username().is_empty() || w.password().is_some() || !matches!(w.scheme(), "http" | "https") {
            assert!(verdict.is_err(), "{raw:?} reads as {w} and was accepted");
        }
    }
}

fn redacted(raw: &str) {
    let out = redact_credentials(raw);
    if let Ok(u) = Url::parse(&out) {
        assert!(
            u.username().is_empty() && u.password().is_none(),
            "redact_credentials({raw:?}) = {out:?} still carries credentials"
        );
    }
    if let Ok(u) = Url::parse(raw) {
        // A password written once, as WHATWG serialises it, is gone (one written twice may also sit in
        // the path).
        let read = raw.replace(['\t', '\n', '\r'], "");
        let once = |p: &&str| read.matches(p).count() == 1 && read.contains(&format!(":{p}@"));
        if let Some(p) = u.password().filter(|p| p.len() >= 3).filter(once) {
            assert!(!out.contains(p), "redact_credentials({raw:?}) = {out:?} keeps the password");
        }
    }
}
