//! What a network guard in front of the browser reports.

/// A request the browser's network guard refused before it left the machine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockedRequest {
    /// The request method (`GET`, `POST`, `CONNECT`, …).
    pub method: String,
    /// The URL as requested, with any credentials already removed (`user:pass@` gone). It comes from
    /// whatever the page asked for: treat it as untrusted text.
    pub url: String,
    /// Why, in the guard's words, e.g. `evil.com is not in the allowed domains (example.com)`.
    pub reason: String,
}
