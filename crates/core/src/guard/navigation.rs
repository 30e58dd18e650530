//! Addresses typed into a browser's address bar (SPEC §5.8 for every navigation, not only `open_url`).
//!
//! Committing the address bar (Return, or a newline inside typed text) navigates exactly as `open_url`
//! would, so what it is about to open is judged by the same URL rules: credentials, schemes, allowed
//! domains. The bar is recognised by what it is — a text field inside a browser window's toolbar, or the
//! omnibox/URL-bar class a browser gives it — never by its label, whose wording follows the user's
//! language. Text is read the way a browser's address bar reads it: a URL with a scheme as it is; a host
//! with an optional port and path (`127.0.0.2:8000/x`, `user:pw@host/`) as an `http` URL; anything else
//! (words with spaces, a single word) is a search, which goes to the browser's search engine and so is
//! refused whenever allowed domains are set.

use handrail_platform::{AppRules, Role};

use super::url::{vet_url, UrlPolicy, UrlRefusal};
use crate::observation::Element;

/// The toolkit classes and ids browsers give their address field.
const ADDRESS_FIELD_MARKS: &[(&str, &str)] =
    &[("class", "OmniboxViewViews"), ("id", "urlbar-input"), ("id", "urlbar"), ("class", "LocationBarView")];

/// Whether `e` is a browser's address bar (browsers as the desktop OS's `apps` name them).
pub fn is_address_bar(e: &Element, apps: &AppRules) -> bool {
    if !matches!(e.role, Role::Entry | Role::ComboBox) {
        return false;
    }
    let marked = e.detail.attributes.iter().any(|(k, v)| ADDRESS_FIELD_MARKS.iter().any(|(mk, mv)| k == mk && v == mv));
    marked || (e.detail.in_toolbar && apps.is_browser(&e.app))
}

/// What committing `text` in an address bar opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// Nothing: Return in an empty bar.
    Nothing,
    /// A URL, as the address bar would complete it (a missing scheme becomes `http://`).
    Url(String),
    /// A search with the browser's search engine.
    Search,
}

/// Reads `text` the way an address bar does.
pub fn address_of(text: &str) -> Address {
    let t = text.trim();
    if t.is_empty() {
        return Address::Nothing;
    }
    if t.chars().any(char::is_whitespace) {
        return Address::Search;
    }
    if let Some((scheme, rest)) = t.split_once(':') {
        let schemeish = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        // `host:port`, `user:pw@host` and `localhost:3000` look like a scheme but are not one.
        let port_or_userinfo = rest.starts_with(|c: char| c.is_ascii_digit()) || rest.contains('@');
        if schemeish && (rest.starts_with('/') || !port_or_userinfo && !scheme.contains('.')) {
            return Address::Url(t.to_string());
        }
    }
    let host_part = t.split(['/', '?', '#']).next().unwrap_or(t);
    let hostlike = host_part.contains(['.', ':', '@'])
        || host_part.eq_ignore_ascii_case("localhost")
        || host_part.starts_with('[');
    if hostlike {
        Address::Url(format!("http://{t}"))
    } else {
        Address::Search
    }
}

/// Why committing `text` in an address bar is refused, if it is.
pub fn address_refusal(text: &str, policy: &UrlPolicy) -> Option<String> {
    match address_of(text) {
        Address::Nothing => None,
        Address::Search if policy.allowed_domains.is_empty() => None,
        Address::Search => Some(
            "a search from the address bar goes to the browser's search engine, which is not in the allowed domains; \
             open an allowed page with open_url instead"
                .to_string(),
        ),
        Address::Url(url) => vet_url(&url, policy).err().map(|why| match why {
            UrlRefusal::Credentials => "the address contains credentials; enter them manually".to_string(),
            UrlRefusal::DomainNotAllowed { host, allowed } => {
                format!("{host} is not in the allowed domains ({allowed})")
            }
            UrlRefusal::Scheme { scheme } => format!("only http and https addresses may be opened, not \"{scheme}:\""),
            other => other.to_string(),
        }),
    }
}

/// Why a page the address bar shows after an action breaks the allowed domains, if it does: the URL it
/// reads as, and the reason. Only network addresses count: the browser's own pages (`chrome://`,
/// `about:`) and text that is no address (a search still being typed) are not visits.
pub fn visited_refusal(shown: &str, policy: &UrlPolicy) -> Option<(String, String)> {
    if policy.allowed_domains.is_empty() {
        return None;
    }
    let Address::Url(url) = address_of(shown) else { return None };
    match vet_url(&url, policy) {
        Err(UrlRefusal::DomainNotAllowed { host, allowed }) => {
            Some((url, format!("{host} is not in the allowed domains ({allowed})")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ElementId;
    use crate::observation::{ElementDetail, Source};
    use handrail_platform::{Rect, States};
    use proptest::prelude::*;

    fn field(app: &str, in_toolbar: bool, attributes: &[(&str, &str)]) -> Element {
        Element {
            id: ElementId(1),
            role: Role::Entry,
            label: "Anything at all".into(),
            value: None,
            bounds: Rect::new(0, 0, 100, 24),
            states: States::FOCUSED,
            source: Source::Ax,
            app: app.into(),
            window: "w".into(),
            owner: None,
            detail: ElementDetail {
                in_toolbar,
                attributes: attributes.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                ..ElementDetail::default()
            },
        }
    }

    #[test]
    fn the_bar_is_known_by_what_it_is_not_its_label() {
        let linux = AppRules::linux();
        assert!(is_address_bar(&field("Chromium", true, &[]), &linux));
        assert!(is_address_bar(&field("Firefox", true, &[]), &linux));
        assert!(is_address_bar(&field("Google Chrome", true, &[]), &linux));
        assert!(is_address_bar(&field("", false, &[("class", "OmniboxViewViews")]), &linux));
        assert!(is_address_bar(&field("", false, &[("id", "urlbar-input")]), &linux));
        // A search field in a web page, or a toolbar field of another app, is not.
        assert!(!is_address_bar(&field("Chromium", false, &[]), &linux));
        assert!(!is_address_bar(&field("gedit", true, &[]), &linux));
        let mut button = field("Chromium", true, &[]);
        button.role = Role::Button;
        assert!(!is_address_bar(&button, &linux));
        // Safari is a browser on a Mac, not on Linux (where no app is called that).
        let mac = AppRules::macos();
        assert!(is_address_bar(&field("Safari", true, &[]), &mac));
        assert!(!is_address_bar(&field("Safari", true, &[]), &linux));
        assert!(!is_address_bar(&field("Finder", true, &[]), &mac));
    }

    #[test]
    fn text_is_read_as_an_address_bar_reads_it() {
        let cases: &[(&str, Address)] = &[
            ("", Address::Nothing),
            ("   ", Address::Nothing),
            ("https://example.com/a", Address::Url("https://example.com/a".into())),
            ("example.com", Address::Url("http://example.com".into())),
            ("127.0.0.2:8000/dash", Address::Url("http://127.0.0.2:8000/dash".into())),
            ("localhost:3000", Address::Url("http://localhost:3000".into())),
            ("localhost", Address::Url("http://localhost".into())),
            ("admin:hunter2@127.0.0.2:9/x", Address::Url("http://admin:hunter2@127.0.0.2:9/x".into())),
            ("file:///etc/passwd", Address::Url("file:///etc/passwd".into())),
            ("javascript:alert(1)", Address::Url("javascript:alert(1)".into())),
            ("chrome://settings", Address::Url("chrome://settings".into())),
            ("[::1]:8080", Address::Url("http://[::1]:8080".into())),
            ("weather today", Address::Search),
            ("weather", Address::Search),
        ];
        for (text, want) in cases {
            assert_eq!(address_of(text), *want, "{text:?}");
        }
    }

    #[test]
    fn addresses_meet_the_url_policy() {
        let open = UrlPolicy::default();
        let local = UrlPolicy { allowed_domains: vec!["127.0.0.1".into()] };
        let refused = |t: &str, p: &UrlPolicy| address_refusal(t, p);
        assert_eq!(refused("127.0.0.1:8000/x", &local), None);
        assert_eq!(refused("http://127.0.0.1:8000/x", &local), None);
        assert!(refused("127.0.0.2:8000/x", &local).is_some_and(|m| m.contains("127.0.0.2")));
        assert!(refused("http://admin:hunter2@127.0.0.1/dash", &local).is_some_and(|m| m.contains("credentials")));
        assert!(refused("admin:hunter2@127.0.0.1/dash", &open).is_some_and(|m| m.contains("credentials")));
        assert!(refused("file:///etc/passwd", &open).is_some_and(|m| m.contains("\"file:\"")));
        assert!(refused("javascript:alert(1)", &open).is_some());
        assert!(refused("weather today", &local).is_some_and(|m| m.contains("search engine")));
        assert_eq!(refused("weather today", &open), None);
        assert_eq!(refused("", &local), None);
    }

    #[test]
    fn a_visited_page_outside_the_allowed_domains_is_named() {
        let local = UrlPolicy { allowed_domains: vec!["127.0.0.1".into()] };
        // Chromium shows http pages without their scheme, https ones too when not focused.
        let (url, why) = visited_refusal("127.0.0.2:8000/dash", &local).expect("refused");
        assert_eq!(url, "http://127.0.0.2:8000/dash");
        assert!(why.contains("127.0.0.2") && why.contains("127.0.0.1"), "{why}");
        assert!(visited_refusal("https://evil.example/x", &local).is_some());
        for fine in ["127.0.0.1:8000/x", "http://127.0.0.1/", "chrome://newtab", "about:blank", "", "cats and dogs"] {
            assert_eq!(visited_refusal(fine, &local), None, "{fine:?}");
        }
        assert_eq!(visited_refusal("127.0.0.2/x", &UrlPolicy::default()), None, "no list, no check");
    }

    proptest! {
        /// Whatever is typed, a host outside the allowed domains is never let through by spelling:
        /// with or without a scheme, with userinfo, in any case.
        #[test]
        fn a_disallowed_host_never_passes(
            scheme in prop::sample::select(vec!["", "http://", "https://", "HTTP://", "//"]),
            user in prop::sample::select(vec!["", "a@", "a:b@"]),
            port in prop::option::of(1u16..65535),
            path in "[a-z/?#=]{0,12}",
        ) {
            let local = UrlPolicy { allowed_domains: vec!["127.0.0.1".into()] };
            let port = port.map(|p| format!(":{p}")).unwrap_or_default();
            let text = format!("{scheme}{user}127.0.0.2{port}/{path}");
            prop_assert!(address_refusal(&text, &local).is_some(), "{text:?} passed");
        }

        #[test]
        fn any_text_is_judged_without_panicking(text in ".{0,200}") {
            let local = UrlPolicy { allowed_domains: vec!["127.0.0.1".into()] };
            let _ = address_refusal(&text, &local);
        }
    }
}
