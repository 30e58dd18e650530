//! A harness's task set-up on the desktop, offered beside `/reset` when the server is started with it:
//! files put into and read out of the desktop's private home, and commands run in its session. The
//! desktop side (a sandbox's home and environment) implements [`TaskSetupHook`]; the HTTP edge
//! (`service.rs`) only translates.

use std::sync::Arc;

use handrail_wire::service::{FileWritten, RunReport, RunRequest};

/// Largest file a harness puts or gets in one request.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// How long a waited-for command may run when the request names no time.
pub const DEFAULT_RUN_TIMEOUT_MS: u64 = 30_000;
/// The longest time a request may give a waited-for command.
pub const MAX_RUN_TIMEOUT_MS: u64 = 600_000;

/// Why a set-up request was not carried out.
#[derive(Debug, thiserror::Error)]
pub enum SetupFailure {
    /// The request itself is wrong (a path that leaves the home, an empty command); nothing changed.
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    Failed(String),
}

/// The desktop's side of the set-up endpoints. Calls block (file I/O, waiting for a command); the
/// HTTP edge makes them off its async runtime.
pub trait TaskSetupHook: Send + Sync {
    /// Writes `bytes` at `path`, relative to the desktop's private home.
    fn put_file(&self, path: &str, bytes: &[u8]) -> Result<FileWritten, SetupFailure>;
    /// Reads the file at `path`, relative to the home, if it is at most `max` bytes.
    fn get_file(&self, path: &str, max: u64) -> Result<Vec<u8>, SetupFailure>;
    /// Runs a command in the desktop's session. `request.timeout_ms` is already checked and filled in.
    fn run(&self, request: &RunRequest) -> Result<RunReport, SetupFailure>;
}

pub type TaskSetup = Arc<dyn TaskSetupHook>;

/// Decodes a URL path's percent escapes (`%E0%B8%A3` → `ร`): strictly, so a malformed escape or bytes
/// that are not UTF-8 are an error rather than a guess.
pub fn percent_decode(path: &str) -> Result<String, String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let value = hex.filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit())).map(|h| u8::from_str_radix(h, 16));
            match value {
                Some(Ok(v)) => out.push(v),
                _ => return Err(format!("a malformed percent escape at byte {i} of the path")),
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the path is not UTF-8 once decoded".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escapes_decode_and_malformed_ones_are_refused() {
        assert_eq!(percent_decode("Documents/%E0%B8%A3%E0%B8%B2%20a.txt").as_deref(), Ok("Documents/รา a.txt"));
        assert_eq!(percent_decode("plain/name.txt").as_deref(), Ok("plain/name.txt"));
        assert_eq!(percent_decode("%2e%2E/x").as_deref(), Ok("../x"), "decoded, then judged as a path");
        for bad in ["%", "%4", "%zz", "a%2", "%+1", "%C3%28"] {
            assert!(percent_decode(bad).is_err(), "{bad:?} was accepted");
        }
    }

    proptest! {
        /// Encoding every byte and decoding gives the text back; decoding never panics.
        #[test]
        fn encoded_text_decodes_to_itself(text in any::<String>()) {
            let encoded: String = text.bytes().map(|b| format!("%{b:02X}")).collect();
            prop_assert_eq!(percent_decode(&encoded), Ok(text.clone()));
            let escaped_only_when_needed: String = text
                .chars()
                .map(|c| if c == '%' { "%25".to_string() } else { c.to_string() })
                .collect();
            prop_assert_eq!(percent_decode(&escaped_only_when_needed), Ok(text));
        }

        #[test]
        fn any_input_decodes_or_is_refused(raw in ".*") {
            if let Ok(decoded) = percent_decode(&raw) {
                prop_assert!(decoded.len() <= raw.len());
                if !raw.contains('%') {
                    prop_assert_eq!(decoded, raw);
                }
            }
        }
    }
}
