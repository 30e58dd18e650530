//! The probe against small HTTP servers that answer the way each kind of model server does (the
//! response bodies follow each project's documented API). Each server records every request, so the
//! tests also prove the probe only reads.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handrail_models::{probe, ProbeError, ServerKind};
use serde_json::{json, Value};

type Routes = Vec<(&'static str, &'static str, u16, Value)>;

/// Serves `routes` (method, path, status, body); anything else is a 404. Returns the base URL and the
/// log of requests seen as "METHOD path body".
fn serve(routes: Routes) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
            let mut length = 0usize;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                    break;
                }
                if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock().expect("log").push(format!("{method} {path} {}", String::from_utf8_lossy(&body)));
            let (status, reply) = routes
                .iter()
                .find(|(m, p, _, _)| *m == method && *p == path)
                .map_or((404, json!({"error": "not found"})), |(_, _, s, b)| (*s, b.clone()));
            let text = reply.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    (base, seen)
}

const T: Duration = Duration::from_secs(5);

#[test]
fn ollama_capabilities_decide() {
    let (base, seen) = serve(vec![
        ("GET", "/api/version", 200, json!({"version": "0.12.3"})),
        (
            "POST",
            "/api/show",
            200,
            json!({"details": {"family": "qwen25vl"}, "capabilities": ["completion", "vision"]}),
        ),
    ]);
    let report = probe(&base, Some("qwen2.5vl:7b"), T).expect("probe");
    assert_eq!(report.server, ServerKind::Ollama);
    assert_eq!(report.vision, Some(true));
    assert!(report.evidence.contains("vision"), "{}", report.evidence);
    let seen = seen.lock().expect("log").clone();
    assert_eq!(seen, vec!["GET /api/version ".to_string(), r#"POST /api/show {"model":"qwen2.5vl:7b"}"#.to_string()]);
}

#[test]
fn ollama_text_only_model_and_missing_model() {
    let (base, _) = serve(vec![
        ("GET", "/api/version", 200, json!({"version": "0.12.3"})),
        ("POST", "/api/show", 200, json!({"capabilities": ["completion", "tools", "thinking"]})),
    ]);
    assert_eq!(probe(&format!("{base}/v1"), Some("qwen3:14b"), T).expect("probe").vision, Some(false));
    assert!(matches!(probe(&base, None, T), Err(ProbeError::ModelNeeded { .. })));

    let (base, _) = serve(vec![
        ("GET", "/api/version", 200, json!({"version": "0.12.3"})),
        ("POST", "/api/show", 404, json!({"error": "model 'nope' not found"})),
    ]);
    assert!(matches!(probe(&base, Some("nope"), T), Err(ProbeError::ModelNotFound { .. })));
}

#[test]
fn llama_cpp_modalities_decide() {
    let (base, seen) = serve(vec![(
        "GET",
        "/props",
        200,
        json!({"default_generation_settings": {"n_ctx": 8192}, "model_path": "/models/Qwen2.5-VL-7B-Instruct-Q4_K_M.gguf",
               "modalities": {"vision": true, "audio": false}}),
    )]);
    let report = probe(&base, None, T).expect("probe");
    assert_eq!(report.server, ServerKind::LlamaCpp);
    assert_eq!(report.vision, Some(true));
    assert_eq!(report.model.as_deref(), Some("Qwen2.5-VL-7B-Instruct-Q4_K_M.gguf"));
    assert!(seen.lock().expect("log").iter().all(|r| r.starts_with("GET ")));

    let (base, _) = serve(vec![(
        "GET",
        "/props",
        200,
        json!({"default_generation_settings": {}, "model_path": "/m/Qwen3-14B-Q4_K_M.gguf", "modalities": {"vision": false}}),
    )]);
    assert_eq!(probe(&base, None, T).expect("probe").vision, Some(false));
}

#[test]
fn lm_studio_model_type_decides() {
    let (base, _) = serve(vec![(
        "GET",
        "/api/v0/models",
        200,
        json!({"object": "list", "data": [
            {"id": "qwen2.5-vl-7b-instruct", "type": "vlm", "state": "loaded"},
            {"id": "qwen3-14b", "type": "llm", "state": "not-loaded"}]}),
    )]);
    let vlm = probe(&base, Some("qwen2.5-vl-7b-instruct"), T).expect("probe");
    assert_eq!((vlm.server, vlm.vision), (ServerKind::LmStudio, Some(true)));
    assert_eq!(probe(&base, Some("qwen3-14b"), T).expect("probe").vision, Some(false));
    assert!(matches!(probe(&base, None, T), Err(ProbeError::ModelNeeded { .. })));
}

#[test]
fn openai_compatible_servers_fall_back_to_the_name() {
    let (base, _) = serve(vec![(
        "GET",
        "/v1/models",
        200,
        json!({"object": "list", "data": [{"id": "Qwen/Qwen2.5-VL-7B-Instruct", "object": "model", "owned_by": "vllm"}]}),
    )]);
    let report = probe(&base, None, T).expect("probe");
    assert_eq!((report.server, report.vision), (ServerKind::OpenAiCompatible, Some(true)));
    assert!(matches!(probe(&base, Some("other"), T), Err(ProbeError::ModelNotFound { .. })));

    let (base, _) = serve(vec![("GET", "/v1/models", 200, json!({"data": [{"id": "my-finetune"}]}))]);
    let report = probe(&base, None, T).expect("probe");
    assert_eq!(report.vision, None, "unknown names stay unknown");
}

#[test]
fn unreachable_and_unrecognised_servers_are_clear_errors() {
    let closed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = closed.local_addr().expect("addr");
    drop(closed);
    let err = probe(&format!("http://{addr}"), None, T).expect_err("nothing listens");
    assert!(matches!(err, ProbeError::Unreachable(..)), "{err}");

    let (base, _) = serve(vec![]);
    assert!(matches!(probe(&base, None, T), Err(ProbeError::Unrecognized(_))));
}

#[test]
fn a_server_that_never_answers_times_out() {
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", silent.local_addr().expect("addr"));
    let err = probe(&base, Some("x"), Duration::from_millis(500)).expect_err("times out");
    assert!(matches!(err, ProbeError::Unreachable(..)), "{err}");
    drop(silent);
}
