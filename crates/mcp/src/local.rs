//! An MCP client session with a server in the same process: the real protocol (JSON-RPC over the
//! stdio transport, on an in-memory pipe) without a child process. The demo drives handrail through
//! it, so what it shows is exactly what a host sees. Results come back as JSON, so callers need no MCP
//! types.

use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::server::HandrailServer;

/// Why a local call failed.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the server closed the session")]
    Closed,
    #[error("the server did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the server answered with an error: {0}")]
    Protocol(String),
}

/// A client session with an in-process server.
pub struct LocalSession {
    runtime: tokio::runtime::Runtime,
    writer: WriteHalf<DuplexStream>,
    reader: BufReader<ReadHalf<DuplexStream>>,
    next_id: u64,
    timeout: Duration,
}

impl std::fmt::Debug for LocalSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSession").field("next_id", &self.next_id).finish_non_exhaustive()
    }
}

impl LocalSession {
    /// Serves `server` on an in-memory pipe and completes the MCP handshake.
    pub fn start(server: HandrailServer) -> Result<Self, LocalError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(LocalError::Runtime)?;
        let (client, server_io) = tokio::io::duplex(8 << 20);
        runtime.spawn(async move {
            match server.serve(tokio::io::split(server_io)).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => log::warn!("the in-process MCP session did not start: {e}"),
            }
        });
        let (read, writer) = tokio::io::split(client);
        let mut session =
            Self { runtime, writer, reader: BufReader::new(read), next_id: 0, timeout: Duration::from_secs(120) };
        session.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "handrail-local", "version": env!("CARGO_PKG_VERSION")}}),
        )?;
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(session)
    }

    fn send(&mut self, message: &Value) -> Result<(), LocalError> {
        let mut line = message.to_string();
        line.push('\n');
        let writer = &mut self.writer;
        self.runtime.block_on(async move {
            writer.write_all(line.as_bytes()).await.map_err(|_| LocalError::Closed)?;
            writer.flush().await.map_err(|_| LocalError::Closed)
        })
    }

    /// Sends a request and returns its `result`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, LocalError> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let (reader, timeout) = (&mut self.reader, self.timeout);
        let answer = self.runtime.block_on(async move {
            loop {
                let mut line = String::new();
                match tokio::time::timeout(timeout, reader.read_line(&mut line)).await {
                    Err(_) => return Err(LocalError::Timeout(timeout)),
                    Ok(Err(_)) | Ok(Ok(0)) => return Err(LocalError::Closed),
                    Ok(Ok(_)) => {}
                }
                // Notifications and anything unparsable are not this request's answer.
                let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
                if v.get("id").and_then(Value::as_u64) == Some(id) {
                    return Ok(v);
                }
            }
        })?;
        match (answer.get("result"), answer.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => Err(LocalError::Protocol(error.to_string())),
            (None, None) => Err(LocalError::Protocol(answer.to_string())),
        }
    }

    /// Calls a tool with arguments and request `_meta`; returns the result (`content`,
    /// `structuredContent`, `isError`).
    pub fn call_tool(&mut self, tool: &str, arguments: Value, meta: Value) -> Result<Value, LocalError> {
        self.request("tools/call", json!({"name": tool, "arguments": arguments, "_meta": meta}))
    }
}
