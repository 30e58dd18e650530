//! `handrail agent` against a scripted OpenAI-compatible model server: the server decides each tool
//! call from what it receives (it reads element ids out of the observations, as a model would) and
//! checks every request — images only for vision models, never more than the configured number.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// What the scripted model answers.
enum Reply {
    Json(Value),
    Raw(&'static str),
    /// Accept the request and never answer.
    Hang,
}

type Policy = Box<dyn Fn(&Value, usize) -> Reply + Send>;

/// An OpenAI-compatible server on a local port: `GET /v1/models` lists `model`; each
/// `POST /v1/chat/completions` is answered by `policy(request, round)`. Requests are kept.
struct ModelServer {
    url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ModelServer {
    fn start(model: &'static str, policy: Policy) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
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
                let reply = if line.starts_with("GET /v1/models ") {
                    Reply::Json(json!({"object": "list", "data": [{"id": model, "object": "model"}]}))
                } else if line.starts_with("POST /v1/chat/completions ") {
                    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let round = {
                        let mut all = seen.lock().expect("requests");
                        all.push(request.clone());
                        all.len()
                    };
                    policy(&request, round)
                } else {
                    let _ = write!(stream, "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                    continue;
                };
                let text = match reply {
                    Reply::Json(v) => v.to_string(),
                    Reply::Raw(s) => s.to_string(),
                    Reply::Hang => {
                        std::thread::sleep(std::time::Duration::from_secs(30));
                        continue;
                    }
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        ModelServer { url, requests }
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().expect("requests").clone()
    }
}

fn tool_call(round: usize, args: Value) -> Reply {
    Reply::Json(json!({"choices": [{"message": {"role": "assistant", "content": "",
        "tool_calls": [{"id": format!("call_{round}"), "type": "function",
                        "function": {"name": "computer", "arguments": args.to_string()}}]}}]}))
}

fn answer(text: &str) -> Reply {
    Reply::Json(json!({"choices": [{"message": {"role": "assistant", "content": text}}]}))
}

/// The last tool result the model received.
fn last_tool_result(request: &Value) -> String {
    request["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "tool"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

fn images_in(request: &Value) -> usize {
    request["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .filter(|part| part["type"] == "image_url")
                .count()
        })
        .unwrap_or(0)
}

/// `(observation id, element id)` of the element listed as `role "label"` in an observation text.
fn find(text: &str, role: &str, label: &str) -> Option<(String, String)> {
    let obs = text.split("[OBS ").nth(1)?.split(']').next()?.to_string();
    let wanted = format!(" {role} \"{label}\"");
    let line = text.lines().find(|l| l.contains(&wanted))?;
    Some((obs, line.split_whitespace().next()?.to_string()))
}

fn agent(server: &ModelServer, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_handrail"))
        .args(["agent", "--base-url", &server.url])
        .args(extra)
        .output()
        .expect("the agent runs")
}

fn show(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn probe_app() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py").to_string()
}

static SERIAL: Mutex<()> = Mutex::new(());

/// How long a scripted model keeps looking for the app to show up, as a real one would: by time,
/// not by a count of looks (a loaded machine takes seconds to start the app, and a look takes
/// milliseconds), and below the agent's 30 steps.
const LOOK_FOR: std::time::Duration = std::time::Duration::from_secs(20);
/// A scripted model's pause before looking again (a real one takes longer to answer).
const LOOK_PAUSE: std::time::Duration = std::time::Duration::from_millis(500);

/// Whether to look again in round `round` of a task started at `started`; pauses first.
fn look_again(round: usize, started: std::time::Instant) -> bool {
    if round < 26 && started.elapsed() < LOOK_FOR {
        std::thread::sleep(LOOK_PAUSE);
        true
    } else {
        false
    }
}

#[test]
fn a_vision_model_completes_a_task_on_the_sandbox_with_a_bounded_context() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let started = std::time::Instant::now();
    let server = ModelServer::start(
        "qwen2.5vl:7b",
        Box::new(move |request, round| {
            let seen = last_tool_result(request);
            match round {
                1 => tool_call(round, json!({"action": "see"})),
                // Wait (bounded) until the app is listed, as a model would.
                _ if !seen.contains("entry \"Name\"") && look_again(round, started) => {
                    tool_call(round, json!({"action": "see"}))
                }
                _ if !seen.contains("Ada Lovelace") => match find(&seen, "entry", "Name") {
                    Some((obs, id)) => tool_call(
                        round,
                        json!({"action": "type", "observation_id": obs, "element_id": id,
                                                               "text": "Ada Lovelace", "expect": "text:Ada Lovelace"}),
                    ),
                    None => answer("the Name field never appeared"),
                },
                _ if round < 14 && !seen.starts_with("[ok] see") => tool_call(round, json!({"action": "see"})),
                _ => answer("I typed the name."),
            }
        }),
    );
    let app = probe_app();
    let trace = std::env::temp_dir().join(format!("handrail-agent-trace-{}", std::process::id()));
    let out = agent(
        &server,
        &[
            "--model",
            "qwen2.5vl:7b",
            "--keep-images",
            "2",
            "--trace",
            trace.to_str().expect("utf-8"),
            "type the name Ada Lovelace into the form",
            "--",
            "/usr/bin/python3",
            &app,
        ],
    );
    assert!(out.status.success(), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("[ok+verified]"), "{}", show(&out));
    assert!(stdout.contains("answer: I typed the name."), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("name=Ada Lovelace"), "the app got the text: {}", show(&out));

    let requests = server.requests();
    assert!(requests.len() >= 4);
    let first = &requests[0];
    assert_eq!(first["model"], "qwen2.5vl:7b");
    assert_eq!(first["tools"][0]["function"]["name"], "computer");
    assert_eq!(first["messages"][1]["content"], "type the name Ada Lovelace into the form");
    assert_eq!(images_in(&requests[1]), 1, "the model sees the screenshot directly");
    for r in &requests {
        assert!(images_in(r) <= 2, "at most two screenshots in the context");
    }
    assert_eq!(images_in(requests.last().expect("last")), 2);
    assert!(trace.join("report.html").exists(), "the trace and its report are written");
    let _ = std::fs::remove_dir_all(&trace);
}

#[test]
fn an_unattended_turn_refuses_a_destructive_click() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let started = std::time::Instant::now();
    let server = ModelServer::start(
        "qwen2.5vl:7b",
        Box::new(move |request, round| {
            let seen = last_tool_result(request);
            if seen.starts_with("[refused]") {
                return answer("I was not allowed to delete the account.");
            }
            match find(&seen, "button", "Delete account") {
                Some((obs, id)) if round > 1 => {
                    tool_call(round, json!({"action": "click", "observation_id": obs, "element_id": id}))
                }
                _ if look_again(round, started) => tool_call(round, json!({"action": "see"})),
                _ => answer("no button"),
            }
        }),
    );
    let app = probe_app();
    let audit = std::env::temp_dir().join(format!("handrail-agent-audit-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&audit);
    let out = agent(
        &server,
        &[
            "--model",
            "qwen2.5vl:7b",
            "--unattended",
            "--audit-log",
            audit.to_str().expect("utf-8"),
            "delete my account",
            "--",
            "/usr/bin/python3",
            &app,
        ],
    );
    assert!(out.status.success(), "{}", show(&out));
    let requests = server.requests();
    let refused = requests.iter().map(last_tool_result).find(|t| t.starts_with("[refused]"));
    let refused = refused.unwrap_or_else(|| panic!("no refusal reached the model: {}", show(&out)));
    assert!(refused.contains("Delete account"), "{refused}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("delete-clicked"), "the click never reached the app");

    // The call layer recorded every tool call the model made, in the task's one unattended turn.
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .expect("the audit log is written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let tool_results = requests.iter().skip(1).count();
    assert_eq!(lines.len(), tool_results, "one line per tool call: {lines:#?}");
    assert!(
        lines.iter().all(|l| l["turn"] == "agent-1" && l["mode"] == "unattended" && l["version"] == 1),
        "{lines:#?}"
    );
    let last = lines.last().expect("a line");
    assert_eq!((last["verdict"].as_str(), last["reason"].as_str()), (Some("[refused]"), Some("destructive_target")));
    let _ = std::fs::remove_file(&audit);
}

#[test]
fn a_text_only_model_is_refused_and_no_screenshot_is_taken() {
    let server = ModelServer::start(
        "qwen3:14b",
        Box::new(|request, round| match round {
            1 => tool_call(round, json!({"action": "see"})),
            _ => {
                assert_eq!(last_tool_result(request), "[unsupported] computer requires a vision-capable model");
                answer("I cannot see the screen.")
            }
        }),
    );
    // The default desktop is a sandbox: for a text-only model none is even started.
    let out = agent(&server, &["--model", "qwen3:14b", "open the settings"]);
    assert!(out.status.success(), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("qwen3:14b cannot see images"), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the desktop is not opened") && !stderr.contains("private desktop"), "{}", show(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{}", show(&out));
    assert!(requests.iter().all(|r| images_in(r) == 0), "no screenshot ever reaches the model");
    assert_eq!(last_tool_result(&requests[1]), "[unsupported] computer requires a vision-capable model");
}

#[test]
fn a_server_that_answers_garbage_or_nothing_gives_a_clear_error() {
    let server = ModelServer::start("qwen2.5vl:7b", Box::new(|_, _| Reply::Raw("<html>502 Bad Gateway</html>")));
    let out = agent(&server, &["--model", "qwen2.5vl:7b", "--simulated", "look"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a chat completion"), "{}", show(&out));

    let server = ModelServer::start("qwen2.5vl:7b", Box::new(|_, _| Reply::Hang));
    let out = agent(&server, &["--model", "qwen2.5vl:7b", "--simulated", "--request-timeout", "2", "look"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not answer within"), "{}", show(&out));

    // A tool call whose arguments are not JSON goes back to the model verbatim, and the run goes on.
    let server = ModelServer::start(
        "qwen2.5vl:7b",
        Box::new(|request, round| match round {
            1 => Reply::Json(json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "computer", "arguments": "{action: see"}}]}}]})),
            2 => tool_call(round, json!({"action": "click", "x": 10, "y": 10})),
            _ => {
                assert!(last_tool_result(request).starts_with("[error]"), "{}", last_tool_result(request));
                answer("done")
            }
        }),
    );
    let out = agent(&server, &["--model", "qwen2.5vl:7b", "--simulated", "look"]);
    assert!(out.status.success(), "{}", show(&out));
    let requests = server.requests();
    assert!(last_tool_result(&requests[1]).contains("not JSON"), "{}", last_tool_result(&requests[1]));
    assert!(last_tool_result(&requests[2]).contains("unknown parameter"), "{}", last_tool_result(&requests[2]));
}

#[test]
fn the_step_limit_ends_a_run_that_never_finishes() {
    let server = ModelServer::start("qwen2.5vl:7b", Box::new(|_, round| tool_call(round, json!({"action": "see"}))));
    let out = agent(&server, &["--model", "qwen2.5vl:7b", "--simulated", "--max-steps", "3", "look forever"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("step limit (3)"), "{}", show(&out));
    assert_eq!(server.requests().len(), 3);
}
