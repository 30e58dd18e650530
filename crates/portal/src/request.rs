//! Requests and their responses.
//!
//! A portal call that needs time (or the person) answers at once with a request object; its result
//! comes as that object's `Response` signal: a code (0 done, 1 cancelled by the person, 2 ended
//! otherwise) and named results. The object's path is known before the call
//! (`/org/freedesktop/portal/desktop/request/SENDER/TOKEN`, SENDER the caller's unique name without
//! its `:` and with `_` for `.`), so the signal is listened for before it can be sent, and responses
//! arriving before the call's own answer are kept, never lost.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use handrail_dbus::wire::{Message, Value};

use crate::PortalError;

const REQUEST: &str = "org.freedesktop.portal.Request";

/// The match rule for every response sent to this connection.
pub const RESPONSE_RULE: &str = "type='signal',interface='org.freedesktop.portal.Request',member='Response'";

/// One request's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request object it answers.
    pub request: String,
    /// 0: done; 1: the person cancelled; 2: ended otherwise.
    pub code: u32,
    /// The named results (`a{sv}`), values unwrapped from their variants.
    pub results: Vec<(String, Value)>,
}

impl Response {
    /// A `Response` signal's contents, or `None` for any other message or a body not `(ua{sv})`.
    pub fn of(m: &Message) -> Option<Response> {
        if m.interface != REQUEST || m.member != "Response" {
            return None;
        }
        let values = m.values().ok()?;
        let [code, results] = values.as_slice() else { return None };
        Some(Response { request: m.path.clone(), code: code.as_u32()?, results: named(results)? })
    }

    /// The result called `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.results.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// An `a{sv}` as name–value pairs, each value out of its variant.
pub fn named(dict: &Value) -> Option<Vec<(String, Value)>> {
    dict.as_array()?
        .iter()
        .map(|entry| {
            let [key, value] = entry.as_struct()? else { return None };
            Some((key.as_str()?.to_owned(), value.unwrapped().clone()))
        })
        .collect()
}

/// Hands out handle tokens and waits for the responses to the requests they name.
#[derive(Debug)]
pub struct Requests {
    /// The caller's unique name as request paths spell it.
    sender: String,
    next: u32,
    /// Responses that came while another was awaited.
    early: Vec<Response>,
}

impl Requests {
    /// Requests of the connection whose unique name is `unique_name` (`:1.42`).
    pub fn new(unique_name: &str) -> Requests {
        Requests { sender: sender_part(unique_name), next: 0, early: Vec::new() }
    }

    /// A fresh handle token and the request path it makes.
    pub fn next_request(&mut self) -> (String, String) {
        self.next += 1;
        let token = format!("handrail{}", self.next);
        let path = format!("/org/freedesktop/portal/desktop/request/{}/{token}", self.sender);
        (token, path)
    }

    /// The session path a session handle token makes.
    pub fn session_path(&self, token: &str) -> String {
        format!("/org/freedesktop/portal/desktop/session/{}/{token}", self.sender)
    }

    /// Waits up to `timeout` for the response to `request`, keeping others for later.
    pub fn wait(
        &mut self,
        responses: &Receiver<Response>,
        request: &str,
        timeout: Duration,
        step: &'static str,
    ) -> Result<Option<Response>, PortalError> {
        if let Some(i) = self.early.iter().position(|r| r.request == request) {
            return Ok(Some(self.early.swap_remove(i)));
        }
        let deadline = Instant::now() + timeout;
        loop {
            match responses.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(r) if r.request == request => return Ok(Some(r)),
                Ok(other) => self.early.push(other),
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Err(PortalError::Ended { step }),
            }
        }
    }
}

/// `:1.42` → `1_42`.
pub fn sender_part(unique_name: &str) -> String {
    unique_name.trim_start_matches(':').replace('.', "_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::mpsc;

    fn response(path: &str) -> Response {
        Response { request: path.into(), code: 0, results: Vec::new() }
    }

    #[test]
    fn request_paths_follow_the_callers_unique_name() {
        let mut r = Requests::new(":1.140");
        let (token, path) = r.next_request();
        assert_eq!(token, "handrail1");
        assert_eq!(path, "/org/freedesktop/portal/desktop/request/1_140/handrail1");
        assert_eq!(r.next_request().0, "handrail2", "tokens are never reused");
        assert_eq!(r.session_path("s"), "/org/freedesktop/portal/desktop/session/1_140/s");
    }

    #[test]
    fn a_response_that_came_early_is_kept_for_its_request() {
        let (tx, rx) = mpsc::channel();
        let mut r = Requests::new(":1.2");
        tx.send(response("/b")).unwrap();
        tx.send(response("/a")).unwrap();
        assert_eq!(r.wait(&rx, "/a", Duration::from_secs(1), "a").unwrap(), Some(response("/a")));
        assert_eq!(r.wait(&rx, "/b", Duration::from_millis(1), "b").unwrap(), Some(response("/b")));
        assert_eq!(r.wait(&rx, "/c", Duration::from_millis(10), "c").unwrap(), None, "none came: timed out");
        drop(tx);
        assert!(matches!(r.wait(&rx, "/c", Duration::from_secs(1), "c"), Err(PortalError::Ended { step: "c" })));
    }

    #[test]
    fn named_results_are_read_out_of_their_variants() {
        let entry = |k: &str, v: Value| Value::Struct(vec![Value::Str(k.into()), Value::Variant(Box::new(v))]);
        let dict = Value::Array(vec![entry("devices", Value::U32(3)), entry("restore_token", Value::Str("t".into()))]);
        let named = named(&dict).expect("a dictionary");
        assert_eq!(named, vec![("devices".into(), Value::U32(3)), ("restore_token".into(), Value::Str("t".into()))]);
        assert_eq!(super::named(&Value::U32(1)), None, "not a dictionary");
        assert_eq!(super::named(&Value::Array(vec![Value::U32(1)])), None, "entries not pairs");
    }

    proptest! {
        #[test]
        fn request_paths_are_valid_object_paths(serial in 0u32..100_000, conn in 0u32..100_000) {
            let mut r = Requests::new(&format!(":{serial}.{conn}"));
            let (_, path) = r.next_request();
            prop_assert!(path.starts_with('/') && !path.ends_with('/'));
            prop_assert!(path.split('/').skip(1).all(|part| !part.is_empty()
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')));
        }
    }
}
