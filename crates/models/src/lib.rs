//! Whether the main model can see, asked of the server that runs it.
//!
//! The capability gate must know before anything touches the desktop. Servers say it in different
//! ways, and every question asked here is read-only:
//!
//! | server | request | answer |
//! |---|---|---|
//! | Ollama | `POST /api/show {"model": …}` (reads the manifest, loads nothing) | `capabilities` contains `"vision"` |
//! | llama.cpp `llama-server` | `GET /props` | `modalities.vision` |
//! | LM Studio | `GET /api/v0/models/{model}` | `type` is `"vlm"` |
//! | vLLM, SGLang, LocalAI, … (OpenAI-compatible) | `GET /v1/models` | names only: the known-model table decides |
//!
//! When nothing decides, the answer is unknown and the gate fails closed.
//!
//! [`chat`] is the other half of talking to those servers: OpenAI-compatible chat completions.

pub mod chat;

use std::time::Duration;

use handrail_core::models::known_vision;
use handrail_core::Vision;
use serde_json::Value;

/// Which kind of server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerKind {
    Ollama,
    LlamaCpp,
    LmStudio,
    OpenAiCompatible,
}

impl ServerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerKind::Ollama => "Ollama",
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::LmStudio => "LM Studio",
            ServerKind::OpenAiCompatible => "an OpenAI-compatible server",
        }
    }
}

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReport {
    pub server: ServerKind,
    /// The model the answer is about (as the server names it).
    pub model: Option<String>,
    /// `Some` when the server (or, for servers that do not say, the known-model table) decided.
    pub vision: Option<bool>,
    /// One sentence on how the answer was reached, for logs and refusal messages.
    pub evidence: String,
}

/// Why a probe could not answer.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("the model endpoint must be an http:// URL (got {0:?}); https endpoints are not supported — declare the model with --vision yes|no or --model NAME")]
    BadEndpoint(String),
    #[error("cannot reach the model server at {0}: {1}")]
    Unreachable(String, String),
    #[error("{server} at {endpoint} has no model named {model:?}")]
    ModelNotFound { server: &'static str, endpoint: String, model: String },
    #[error("{server} at {endpoint} serves several models; name one with --model")]
    ModelNeeded { server: &'static str, endpoint: String },
    #[error("{0} answered, but not as Ollama, llama.cpp, LM Studio or an OpenAI-compatible server does")]
    Unrecognized(String),
}

/// The endpoint's base URL: `http://host:port/v1/` and `http://host:port/api` become `http://host:port`.
pub fn base_url(endpoint: &str) -> Result<String, ProbeError> {
    let trimmed = endpoint.trim();
    let Some(rest) = trimmed.strip_prefix("http://") else {
        return Err(ProbeError::BadEndpoint(trimmed.chars().take(200).collect()));
    };
    if rest.is_empty() || rest.starts_with('/') || trimmed.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(ProbeError::BadEndpoint(trimmed.chars().take(200).collect()));
    }
    let mut base = trimmed.trim_end_matches('/').to_string();
    for suffix in ["/v1", "/api"] {
        if let Some(b) = base.strip_suffix(suffix) {
            base = b.to_string();
        }
    }
    Ok(base)
}

/// A small blocking HTTP client with one timeout for every request.
struct Http {
    agent: ureq::Agent,
}

/// A response: status and parsed JSON body (`Value::Null` when the body is not JSON).
struct Reply {
    status: u16,
    json: Value,
}

impl Http {
    fn new(timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        Self { agent: config.into() }
    }

    fn read(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>, url: &str) -> Result<Reply, ProbeError> {
        let mut response = result.map_err(|e| ProbeError::Unreachable(url.to_string(), e.to_string()))?;
        let status = response.status().as_u16();
        let text = response.body_mut().with_config().limit(4 * 1024 * 1024).read_to_string().unwrap_or_default();
        Ok(Reply { status, json: serde_json::from_str(&text).unwrap_or(Value::Null) })
    }

    fn get(&self, url: &str) -> Result<Reply, ProbeError> {
        Self::read(self.agent.get(url).call(), url)
    }

    fn post_json(&self, url: &str, body: &Value) -> Result<Reply, ProbeError> {
        let result = self.agent.post(url).header("content-type", "application/json").send(body.to_string());
        Self::read(result, url)
    }
}

fn ollama(http: &Http, base: &str, model: Option<&str>) -> Result<Option<ProbeReport>, ProbeError> {
    let version = http.get(&format!("{base}/api/version"))?;
    if version.status != 200 || version.json.get("version").and_then(Value::as_str).is_none() {
        return Ok(None);
    }
    let Some(model) = model else {
        return Err(ProbeError::ModelNeeded { server: "Ollama", endpoint: base.to_string() });
    };
    let show = http.post_json(&format!("{base}/api/show"), &serde_json::json!({"model": model}))?;
    if show.status == 404 {
        return Err(ProbeError::ModelNotFound { server: "Ollama", endpoint: base.to_string(), model: model.into() });
    }
    let capabilities: Option<Vec<&str>> =
        show.json.get("capabilities").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect());
    let (vision, evidence) = match capabilities {
        Some(caps) => {
            (Some(caps.contains(&"vision")), format!("Ollama reports capabilities [{}] for {model}", caps.join(", ")))
        }
        // Ollama before 0.6 does not list capabilities.
        None => (known_vision(model), format!("this Ollama does not report capabilities; {model} decided by name")),
    };
    Ok(Some(ProbeReport { server: ServerKind::Ollama, model: Some(model.into()), vision, evidence }))
}

fn llama_cpp(http: &Http, base: &str, model: Option<&str>) -> Result<Option<ProbeReport>, ProbeError> {
    let props = http.get(&format!("{base}/props"))?;
    if props.status != 200 || props.json.get("default_generation_settings").is_none() {
        return Ok(None);
    }
    let loaded =
        props.json.get("model_path").and_then(Value::as_str).map(|p| p.rsplit('/').next().unwrap_or(p).to_string());
    let vision = props.json.get("modalities").and_then(|m| m.get("vision")).and_then(Value::as_bool);
    let name = loaded.clone().or(model.map(str::to_string));
    let (vision, evidence) = match vision {
        Some(v) => (Some(v), format!("llama.cpp reports modalities.vision={v}")),
        None => (
            name.as_deref().and_then(known_vision),
            "this llama.cpp does not report modalities; decided by the model's name".to_string(),
        ),
    };
    Ok(Some(ProbeReport { server: ServerKind::LlamaCpp, model: name, vision, evidence }))
}

fn lm_studio(http: &Http, base: &str, model: Option<&str>) -> Result<Option<ProbeReport>, ProbeError> {
    let list = http.get(&format!("{base}/api/v0/models"))?;
    let Some(models) = list.json.get("data").and_then(Value::as_array).filter(|_| list.status == 200) else {
        return Ok(None);
    };
    // LM Studio's own listing carries a `type` per model; OpenAI-compatible listings do not.
    if !models.iter().any(|m| m.get("type").is_some()) {
        return Ok(None);
    }
    let chosen = match model {
        Some(name) => models.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(name)),
        None if models.len() == 1 => models.first(),
        None => return Err(ProbeError::ModelNeeded { server: "LM Studio", endpoint: base.to_string() }),
    };
    let Some(chosen) = chosen else {
        return Err(ProbeError::ModelNotFound {
            server: "LM Studio",
            endpoint: base.to_string(),
            model: model.unwrap_or_default().into(),
        });
    };
    let id = chosen.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
    let kind = chosen.get("type").and_then(Value::as_str).unwrap_or_default();
    Ok(Some(ProbeReport {
        server: ServerKind::LmStudio,
        model: Some(id.clone()),
        vision: Some(kind == "vlm"),
        evidence: format!("LM Studio reports type {kind:?} for {id}"),
    }))
}

fn openai(http: &Http, base: &str, model: Option<&str>) -> Result<Option<ProbeReport>, ProbeError> {
    let list = http.get(&format!("{base}/v1/models"))?;
    let Some(models) = list.json.get("data").and_then(Value::as_array).filter(|_| list.status == 200) else {
        return Ok(None);
    };
    let ids: Vec<&str> = models.iter().filter_map(|m| m.get("id").and_then(Value::as_str)).collect();
    let name = match model {
        Some(name) if ids.contains(&name) => name.to_string(),
        Some(name) => {
            return Err(ProbeError::ModelNotFound {
                server: "the OpenAI-compatible server",
                endpoint: base.to_string(),
                model: name.into(),
            })
        }
        None if ids.len() == 1 => ids[0].to_string(),
        None => {
            return Err(ProbeError::ModelNeeded { server: "the OpenAI-compatible server", endpoint: base.to_string() })
        }
    };
    let vision = known_vision(&name);
    let evidence = format!(
        "OpenAI-compatible servers (vLLM, SGLang, LocalAI, …) list model names only; {name} is {} the known-model table",
        if vision.is_some() { "in" } else { "not in" }
    );
    Ok(Some(ProbeReport { server: ServerKind::OpenAiCompatible, model: Some(name), vision, evidence }))
}

/// Asks the server at `endpoint` whether `model` (or its only model) accepts images. Read-only.
pub fn probe(endpoint: &str, model: Option<&str>, timeout: Duration) -> Result<ProbeReport, ProbeError> {
    let base = base_url(endpoint)?;
    let http = Http::new(timeout);
    if let Some(r) = ollama(&http, &base, model)? {
        return Ok(r);
    }
    if let Some(r) = llama_cpp(&http, &base, model)? {
        return Ok(r);
    }
    if let Some(r) = lm_studio(&http, &base, model)? {
        return Ok(r);
    }
    if let Some(r) = openai(&http, &base, model)? {
        return Ok(r);
    }
    Err(ProbeError::Unrecognized(base))
}

/// Where the capability decision came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub vision: Vision,
    pub why: String,
}

/// How to declare a model, for messages.
pub const HOW_TO_DECLARE: &str =
    "declare it with --vision yes|no, a known --model name, or --model-endpoint URL of its server";

/// Combines what the user said and what a probe found. An explicit `--vision` wins; then the server's
/// own answer; then the model name in the table; otherwise unknown (the gate refuses).
pub fn decide(declared: Option<bool>, probed: Option<&ProbeReport>, model: Option<&str>) -> Decision {
    let name = model.map(str::to_string).or_else(|| probed.and_then(|p| p.model.clone()));
    let setting = |vision: bool| {
        if vision {
            Vision::Capable
        } else {
            Vision::TextOnly { model: name.clone().unwrap_or_else(|| "the model".into()) }
        }
    };
    if let Some(v) = declared {
        return Decision {
            vision: setting(v),
            why: format!("declared with --vision {}", if v { "yes" } else { "no" }),
        };
    }
    if let Some(p) = probed {
        if let Some(v) = p.vision {
            return Decision { vision: setting(v), why: p.evidence.clone() };
        }
    }
    if let Some(n) = name.as_deref() {
        if let Some(v) = known_vision(n) {
            return Decision { vision: setting(v), why: format!("{n} is in the known-model table") };
        }
    }
    Decision {
        vision: Vision::Unknown { model: name.clone() },
        why: format!(
            "{} is not known to accept images; {HOW_TO_DECLARE}",
            name.as_deref().map_or_else(|| "the model".to_string(), |n| format!("model {n:?}"))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_reduce_to_their_base() {
        assert_eq!(base_url("http://localhost:11434").ok().as_deref(), Some("http://localhost:11434"));
        assert_eq!(base_url("http://127.0.0.1:8080/v1/").ok().as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(base_url(" http://h:1/api ").ok().as_deref(), Some("http://h:1"));
        assert!(matches!(base_url("https://api.example.com"), Err(ProbeError::BadEndpoint(_))));
        assert!(matches!(base_url("localhost:11434"), Err(ProbeError::BadEndpoint(_))));
        assert!(matches!(base_url("http://"), Err(ProbeError::BadEndpoint(_))));
        assert!(matches!(base_url("http://a b"), Err(ProbeError::BadEndpoint(_))));
    }

    #[test]
    fn an_explicit_declaration_wins_then_the_server_then_the_name() {
        let probed = ProbeReport {
            server: ServerKind::Ollama,
            model: Some("qwen3:14b".into()),
            vision: Some(false),
            evidence: "Ollama reports capabilities [completion, tools]".into(),
        };
        assert_eq!(decide(Some(true), Some(&probed), None).vision, Vision::Capable);
        assert_eq!(decide(None, Some(&probed), None).vision, Vision::TextOnly { model: "qwen3:14b".into() });
        assert_eq!(decide(None, None, Some("qwen2.5vl:7b")).vision, Vision::Capable);
        let unknown = decide(None, None, Some("my-finetune"));
        assert_eq!(unknown.vision, Vision::Unknown { model: Some("my-finetune".into()) });
        assert!(unknown.why.contains("--vision yes|no"), "{}", unknown.why);
        assert_eq!(decide(None, None, None).vision, Vision::Unknown { model: None });
    }

    proptest::proptest! {
        #[test]
        fn endpoint_parsing_never_panics(s in "\\PC{0,60}") {
            let _ = base_url(&s);
        }
    }
}
