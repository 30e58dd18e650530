//! The request state of a question asked on the stateless protocol, sealed so that any server holding
//! the same key can take the retry: the state carries the question, the turn and a digest of the call
//! it interrupted, with an expiry, under an HMAC-SHA256. Nothing is kept in one server's memory, so a
//! retry that a load balancer sends to another replica is answered the same way.
//!
//! What the seal proves is only that *a server with this key asked this question for this call in
//! this turn*. It is never taken as authentication (the transport's token does that), and it grants
//! nothing by itself: the retried call must be the same call (same arguments, same turn) and still
//! passes every check; once the action ran, its observation id is stale, so a replayed state changes
//! nothing.

use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// The shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

/// The format written into the payload; a change of layout bumps it.
const FORMAT: u64 = 1;

/// Why a request state was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("the request state is malformed")]
    Malformed,
    #[error("the request state was not issued by a server with this key")]
    BadSeal,
    #[error("the request state has expired; ask again")]
    Expired,
    #[error("the request state belongs to another call or turn")]
    OtherCall,
    #[error("the state key must be at least {MIN_KEY_BYTES} bytes (got {0})")]
    ShortKey(usize),
    #[error("the system's randomness is unavailable for the state key: {0}")]
    NoRandomness(String),
}

/// What a sealed state says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub text: String,
    pub turn: String,
    /// Digest of the interrupted call's arguments (see [`call_digest`]).
    pub call: String,
    pub expires_unix_ms: u64,
}

/// Seals and opens request states with one key.
#[derive(Clone)]
pub struct Sealer {
    /// Keyed once; cloned for each state.
    mac: HmacSha256,
    lifetime: Duration,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Sealer").field("lifetime", &self.lifetime).finish_non_exhaustive()
    }
}

impl Sealer {
    /// A sealer with `key` (shared by every replica that may take a retry).
    pub fn new(key: Vec<u8>, lifetime: Duration) -> Result<Self, SealError> {
        if key.len() < MIN_KEY_BYTES {
            return Err(SealError::ShortKey(key.len()));
        }
        // HMAC takes a key of any length; the length check above is ours.
        let mac = HmacSha256::new_from_slice(&key).map_err(|_| SealError::ShortKey(key.len()))?;
        Ok(Sealer { mac, lifetime })
    }

    /// A sealer with a key of its own from the system's randomness: retries must come back to this
    /// process.
    pub fn random(lifetime: Duration) -> Result<Self, SealError> {
        let mut key = vec![0u8; MIN_KEY_BYTES];
        getrandom::fill(&mut key).map_err(|e| SealError::NoRandomness(e.to_string()))?;
        Sealer::new(key, lifetime)
    }

    fn mac(&self) -> HmacSha256 {
        self.mac.clone()
    }

    /// The state for `question`, asked during the call `call` (its digest) in turn `turn`.
    pub fn seal(&self, text: &str, turn: &str, call: &str, now_unix_ms: u64) -> String {
        let expires = now_unix_ms.saturating_add(u64::try_from(self.lifetime.as_millis()).unwrap_or(u64::MAX));
        let payload = json!({"v": FORMAT, "q": text, "t": turn, "c": call, "exp": expires}).to_string();
        let mut mac = self.mac();
        mac.update(payload.as_bytes());
        let tag = mac.finalize().into_bytes();
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        format!("{}.{}", b64.encode(payload.as_bytes()), b64.encode(tag))
    }

    /// Opens a state for a retry of the call `call` in turn `turn`: the seal must hold (checked in
    /// constant time), the state must not have expired, and it must be this call's.
    pub fn open(&self, state: &str, turn: &str, call: &str, now_unix_ms: u64) -> Result<Question, SealError> {
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let (payload, tag) = state.split_once('.').ok_or(SealError::Malformed)?;
        let payload = b64.decode(payload).map_err(|_| SealError::Malformed)?;
        let tag = b64.decode(tag).map_err(|_| SealError::Malformed)?;
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_slice(&tag).map_err(|_| SealError::BadSeal)?;
        let v: Value = serde_json::from_slice(&payload).map_err(|_| SealError::Malformed)?;
        let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string).ok_or(SealError::Malformed);
        if v.get("v").and_then(Value::as_u64) != Some(FORMAT) {
            return Err(SealError::Malformed);
        }
        let question = Question {
            text: field("q")?,
            turn: field("t")?,
            call: field("c")?,
            expires_unix_ms: v.get("exp").and_then(Value::as_u64).ok_or(SealError::Malformed)?,
        };
        if now_unix_ms > question.expires_unix_ms {
            return Err(SealError::Expired);
        }
        if question.turn != turn || question.call != call {
            return Err(SealError::OtherCall);
        }
        Ok(question)
    }
}

/// A digest of a call's arguments, independent of key order: the same call gives the same digest on
/// every replica.
pub fn call_digest(arguments: &serde_json::Map<String, Value>) -> String {
    let mut keys: Vec<&String> = arguments.keys().collect();
    keys.sort();
    let mut hash = Sha256::new();
    for k in keys {
        hash.update(k.as_bytes());
        hash.update([0]);
        hash.update(arguments[k].to_string().as_bytes());
        hash.update([0]);
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(hash.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(key: u8) -> Sealer {
        Sealer::new(vec![key; 32], Duration::from_secs(600)).expect("a long enough key")
    }

    fn args(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    #[test]
    fn a_state_opens_on_any_server_with_the_key_for_the_same_call_only() {
        let call = call_digest(&args(json!({"action": "click", "element_id": "e4", "observation_id": "obs_3"})));
        let state = sealer(7).seal("Delete the account?", "t1", &call, 1_000);
        let q = sealer(7).open(&state, "t1", &call, 2_000).expect("the same key opens it");
        assert_eq!((q.text.as_str(), q.turn.as_str()), ("Delete the account?", "t1"));
        assert_eq!(sealer(8).open(&state, "t1", &call, 2_000), Err(SealError::BadSeal));
        assert_eq!(sealer(7).open(&state, "t2", &call, 2_000), Err(SealError::OtherCall));
        let other = call_digest(&args(json!({"action": "click", "element_id": "e5", "observation_id": "obs_3"})));
        assert_eq!(sealer(7).open(&state, "t1", &other, 2_000), Err(SealError::OtherCall));
        assert_eq!(sealer(7).open(&state, "t1", &call, 1_000 + 600_001), Err(SealError::Expired));
    }

    #[test]
    fn a_tampered_or_garbled_state_is_refused() {
        let state = sealer(7).seal("Delete?", "t1", "c", 0);
        let (payload, tag) = state.split_once('.').expect("two parts");
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let forged =
            String::from_utf8(b64.decode(payload).expect("base64")).expect("utf-8").replace("Delete?", "Save?");
        let forged = format!("{}.{tag}", b64.encode(forged));
        assert_eq!(sealer(7).open(&forged, "t1", "c", 0), Err(SealError::BadSeal));
        for garbage in ["", ".", "abc", "a.b", "confirm-1-deadbeef"] {
            assert!(sealer(7).open(garbage, "t1", "c", 0).is_err(), "{garbage:?}");
        }
        assert_eq!(Sealer::new(vec![1; 16], Duration::from_secs(1)).err(), Some(SealError::ShortKey(16)));
    }

    #[test]
    fn the_digest_ignores_key_order() {
        let a = call_digest(&args(json!({"action": "click", "element_id": "e4"})));
        let b = call_digest(&args(json!({"element_id": "e4", "action": "click"})));
        assert_eq!(a, b);
        assert_ne!(a, call_digest(&args(json!({"action": "click", "element_id": "e40"}))));
    }
}
