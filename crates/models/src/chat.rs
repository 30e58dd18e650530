//! A minimal client for OpenAI-compatible chat completions (`POST {base}/v1/chat/completions`), as
//! Ollama, llama.cpp's server, vLLM, LM Studio, SGLang and hosted APIs speak it.

use std::time::Duration;

use serde_json::Value;

/// Why a completion could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("{0}")]
    Endpoint(#[from] crate::ProbeError),
    #[error("the model server at {0} did not answer within {1:?}")]
    Timeout(String, Duration),
    #[error("cannot reach the model server at {0}: {1}")]
    Unreachable(String, String),
    #[error("the model server answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("the model server's answer is not a chat completion ({why}): {excerpt}")]
    NotACompletion { why: &'static str, excerpt: String },
}

/// One chat endpoint.
#[derive(Debug, Clone)]
pub struct ChatClient {
    url: String,
    api_key: Option<String>,
    timeout: Duration,
    agent: ureq::Agent,
}

fn excerpt(text: &str) -> String {
    let clipped: String = text.chars().take(300).collect();
    if clipped.len() < text.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

impl ChatClient {
    /// `base_url` as users write it: `http://localhost:11434`, `http://localhost:8080/v1`.
    pub fn new(base_url: &str, api_key: Option<String>, timeout: Duration) -> Result<Self, ChatError> {
        let base = crate::base_url(base_url)?;
        let config = ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build();
        Ok(Self { url: format!("{base}/v1/chat/completions"), api_key, timeout, agent: config.into() })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends one request body; returns the assistant message of the first choice.
    pub fn complete(&self, body: &Value) -> Result<Value, ChatError> {
        let mut request = self.agent.post(&self.url).header("content-type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        let mut response = match request.send(body.to_string()) {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => return Err(ChatError::Timeout(self.url.clone(), self.timeout)),
            Err(e) => {
                let text = e.to_string();
                if text.contains("timed out") || text.contains("Timeout") {
                    return Err(ChatError::Timeout(self.url.clone(), self.timeout));
                }
                return Err(ChatError::Unreachable(self.url.clone(), text));
            }
        };
        let status = response.status().as_u16();
        let text = match response.body_mut().with_config().limit(32 * 1024 * 1024).read_to_string() {
            Ok(t) => t,
            Err(ureq::Error::Timeout(_)) => return Err(ChatError::Timeout(self.url.clone(), self.timeout)),
            Err(e) => return Err(ChatError::Unreachable(self.url.clone(), e.to_string())),
        };
        if status != 200 {
            return Err(ChatError::Status { status, body: excerpt(&text) });
        }
        parse_completion(&text)
    }
}

/// The assistant message of a chat completion's first choice.
pub fn parse_completion(text: &str) -> Result<Value, ChatError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|_| ChatError::NotACompletion { why: "not JSON", excerpt: excerpt(text) })?;
    let message = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("message"))
        .ok_or_else(|| ChatError::NotACompletion { why: "no choices[0].message", excerpt: excerpt(text) })?;
    if !message.is_object() {
        return Err(ChatError::NotACompletion { why: "the message is not an object", excerpt: excerpt(text) });
    }
    Ok(message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_parse_or_say_why() {
        let ok = parse_completion(r#"{"choices":[{"message":{"role":"assistant","content":"hi"}}]}"#).expect("ok");
        assert_eq!(ok["content"], "hi");
        for bad in ["", "<html>502</html>", "{}", r#"{"choices":[]}"#, r#"{"choices":[{"message":"x"}]}"#] {
            assert!(matches!(parse_completion(bad), Err(ChatError::NotACompletion { .. })), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn parsing_never_panics(s in "\\PC{0,200}") {
            let _ = parse_completion(&s);
        }
    }
}
