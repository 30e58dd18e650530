//! A small MCP client over streamable HTTP, for tests and benchmarks that must hold the connection in
//! their own hands: drop it in the middle of a call, watch a call's progress while doing something to
//! the desktop, or run many sessions from plain threads. It speaks just enough of the protocol for
//! that: `initialize`, `tools/list`, `tools/call` (with progress) and ending a session, on the
//! handshake protocol (2025-11-25, a session per client) or the stateless one (2026-07-28, every
//! request on its own). Clients that test the protocol itself are the official SDKs (`testdata/mcp`).

use std::io::{BufRead, BufReader};
use std::time::Duration;

use serde_json::{json, Value};

/// The protocol generation a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// 2025-11-25: an `initialize` handshake opens a session named by `Mcp-Session-Id`.
    Sessions,
    /// 2026-07-28: no handshake; every request carries its protocol version and capabilities.
    Stateless,
}

impl Protocol {
    pub fn version(self) -> &'static str {
        match self {
            Protocol::Sessions => "2025-11-25",
            Protocol::Stateless => "2026-07-28",
        }
    }
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("HTTP: {0}")]
    Http(String),
    #[error("HTTP status {status}: {body}")]
    Status { status: u16, body: String },
    #[error("the response ended without an answer to request {0}")]
    NoAnswer(u64),
    #[error("not JSON: {0}")]
    Json(String),
}

/// What came back for a request: its result, or a JSON-RPC error.
#[derive(Debug, Clone)]
pub enum Reply {
    Result(Value),
    Error { code: i64, message: String },
}

impl Reply {
    /// The text blocks of a tool result, joined by newlines (empty for an error).
    pub fn text(&self) -> String {
        match self {
            Reply::Result(r) => r["content"]
                .as_array()
                .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
                .unwrap_or_default(),
            Reply::Error { .. } => String::new(),
        }
    }

    /// A tool result's structured content (`Null` if none).
    pub fn structured(&self) -> &Value {
        match self {
            Reply::Result(r) => &r["structuredContent"],
            Reply::Error { .. } => &Value::Null,
        }
    }

    /// The whole result or error, as JSON text (for scanning everything a client received).
    pub fn raw(&self) -> String {
        match self {
            Reply::Result(r) => r.to_string(),
            Reply::Error { code, message } => json!({"code": code, "message": message}).to_string(),
        }
    }
}

/// One message of a call in flight.
#[derive(Debug, Clone)]
pub enum Message {
    /// A progress notification: its step's words.
    Progress(String),
    Reply(Reply),
}

/// A client of one server: one session on the handshake protocol.
pub struct McpHttp {
    url: String,
    agent: ureq::Agent,
    protocol: Protocol,
    session: Option<String>,
    next_id: u64,
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttp").field("url", &self.url).field("protocol", &self.protocol).finish_non_exhaustive()
    }
}

/// A call whose answer is still to come. Dropping it closes its connection: on the stateless
/// protocol that is how a client that goes away looks to the server.
pub struct Pending {
    id: u64,
    events: Events,
}

impl Pending {
    /// The next message of the call: a progress step, or the answer (after which there is no more).
    pub fn next_message(&mut self) -> Result<Message, McpError> {
        loop {
            let Some(message) = self.events.next()? else { return Err(McpError::NoAnswer(self.id)) };
            if let Some(found) = message_for(&message, self.id) {
                return Ok(found);
            }
        }
    }

    /// Reads on to the answer.
    pub fn answer(mut self) -> Result<Reply, McpError> {
        loop {
            if let Message::Reply(reply) = self.next_message()? {
                return Ok(reply);
            }
        }
    }
}

impl McpHttp {
    /// A client of the server at `url` (its `/mcp` endpoint); on the handshake protocol this opens a
    /// session. Every exchange is bounded by `within`.
    pub fn connect(url: &str, protocol: Protocol, within: Duration) -> Result<McpHttp, McpError> {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_per_call(Some(within))
            .max_idle_connections(2)
            .build();
        let mut client = McpHttp { url: url.to_string(), agent: config.into(), protocol, session: None, next_id: 1 };
        if protocol == Protocol::Sessions {
            let params = json!({
                "protocolVersion": protocol.version(),
                "capabilities": {},
                "clientInfo": {"name": "handrail-testkit", "version": "1"},
            });
            client.request("initialize", params)?;
            client.notify("notifications/initialized")?;
        }
        Ok(client)
    }

    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// A request and its answer.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply, McpError> {
        self.start(method, params, None)?.answer()
    }

    /// `tools/call` of `tool` with `args` and `meta` (the request's `_meta`, e.g. handrail's turn
    /// keys), to its answer.
    pub fn call_tool(&mut self, tool: &str, args: Value, meta: Value) -> Result<Reply, McpError> {
        self.start_call(tool, args, meta, false)?.answer()
    }

    /// Sends `tools/call` and returns once the server has answered the HTTP request (the answer
    /// itself may still be coming). With `progress`, the call asks for progress notifications.
    pub fn start_call(&mut self, tool: &str, args: Value, meta: Value, progress: bool) -> Result<Pending, McpError> {
        let mut meta = match meta {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        if progress {
            meta.insert("progressToken".into(), json!(format!("progress-{}", self.next_id)));
        }
        let params = json!({"name": tool, "arguments": args, "_meta": meta});
        self.start("tools/call", params, Some(tool))
    }

    fn start(&mut self, method: &str, mut params: Value, tool: Option<&str>) -> Result<Pending, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        if self.protocol == Protocol::Stateless {
            let meta = params.as_object_mut().map(|p| p.entry("_meta").or_insert_with(|| json!({})));
            if let Some(Value::Object(meta)) = meta {
                meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!(self.protocol.version()));
                meta.insert("io.modelcontextprotocol/clientCapabilities".into(), json!({}));
            }
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut request = self.post().header("Mcp-Method", method);
        if let Some(tool) = tool {
            request = request.header("Mcp-Name", tool);
        }
        let response = request.send(body.to_string()).map_err(|e| McpError::Http(e.to_string()))?;
        if let Some(session) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            self.session = Some(session.to_string());
        }
        let status = response.status().as_u16();
        let json = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("application/json"));
        let mut body = response.into_body();
        if status >= 300 {
            let text = body.read_to_string().unwrap_or_default();
            // A JSON-RPC error may travel with a 4xx status.
            return match serde_json::from_str::<Value>(&text) {
                Ok(message) if message.get("error").is_some() => Ok(Pending { id, events: Events::One(Some(message)) }),
                _ => Err(McpError::Status { status, body: text }),
            };
        }
        let events = if json {
            let text = body.read_to_string().map_err(|e| McpError::Http(e.to_string()))?;
            Events::One(Some(serde_json::from_str(&text).map_err(|e| McpError::Json(format!("{e}: {text}")))?))
        } else {
            Events::Stream(Box::new(BufReader::new(body.into_reader())))
        };
        Ok(Pending { id, events })
    }

    fn notify(&mut self, method: &str) -> Result<(), McpError> {
        let body = json!({"jsonrpc": "2.0", "method": method});
        let response = self
            .post()
            .header("Mcp-Method", method)
            .send(body.to_string())
            .map_err(|e| McpError::Http(e.to_string()))?;
        match response.status().as_u16() {
            200..=299 => Ok(()),
            status => Err(McpError::Status { status, body: String::new() }),
        }
    }

    fn post(&self) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", self.protocol.version());
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        request
    }
}

impl Drop for McpHttp {
    /// Ends the session, as a well-behaved client does.
    fn drop(&mut self) {
        if let Some(session) = &self.session {
            let _ = self
                .agent
                .delete(&self.url)
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", self.protocol.version())
                .call();
        }
    }
}

/// The JSON-RPC messages of one HTTP response: one JSON body, or an event stream.
enum Events {
    One(Option<Value>),
    Stream(Box<dyn BufRead + Send>),
}

impl Events {
    fn next(&mut self) -> Result<Option<Value>, McpError> {
        match self {
            Events::One(message) => Ok(message.take()),
            Events::Stream(lines) => {
                let mut data = String::new();
                loop {
                    let mut line = String::new();
                    let n = lines.read_line(&mut line).map_err(|e| McpError::Http(e.to_string()))?;
                    let line = line.trim_end_matches(['\r', '\n']);
                    if n == 0 || line.is_empty() {
                        if !data.is_empty() {
                            let message =
                                serde_json::from_str(&data).map_err(|e| McpError::Json(format!("{e}: {data}")))?;
                            return Ok(Some(message));
                        }
                        if n == 0 {
                            return Ok(None);
                        }
                        continue;
                    }
                    if let Some(rest) = line.strip_prefix("data:") {
                        data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
                    }
                }
            }
        }
    }
}

/// What `message` is to request `id`: its answer, one of its progress steps, or nothing.
fn message_for(message: &Value, id: u64) -> Option<Message> {
    if message["method"] == "notifications/progress" {
        return Some(Message::Progress(message["params"]["message"].as_str().unwrap_or_default().to_string()));
    }
    // An error about a request the server could not read names no id.
    let ours = message["id"].as_u64() == Some(id) || (message["id"].is_null() && message.get("error").is_some());
    if !ours {
        return None;
    }
    if let Some(error) = message.get("error") {
        return Some(Message::Reply(Reply::Error {
            code: error["code"].as_i64().unwrap_or_default(),
            message: error["message"].as_str().unwrap_or_default().to_string(),
        }));
    }
    Some(Message::Reply(Reply::Result(message["result"].clone())))
}
