//! Arbitrary JSON-RPC traffic over the stdio transport — random methods, random tool arguments, random
//! `_meta`, lines that are not JSON or not UTF-8 — never stops the server: after every message it still
//! answers a well-formed `see`.

use std::time::Duration;

use handrail_core::{Config, Engine, Vision};
use handrail_mcp::{Calls, HandrailServer, ServerOptions, TurnDefaults};
use handrail_platform::{Rect, Size};
use handrail_sim::{SimDesktop, Widget, WindowSpec};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use rmcp::ServiceExt;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn scene() -> SimDesktop {
    let sim = SimDesktop::new(Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("Form", "Form").bounds(Rect::new(0, 0, 800, 600)));
    sim.add_widget(win, Widget::entry("Name").at(100, 100, 300, 28));
    sim.add_widget(win, Widget::button("Delete account").at(100, 200, 160, 30));
    sim
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,30}".prop_map(Value::String),
        prop_oneof![
            Just("see"),
            Just("click"),
            Just("type"),
            Just("inspect"),
            Just("obs_1"),
            Just("e2"),
            Just("text:Saved"),
            Just("unattended"),
            Just("interactive"),
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,12}", inner), 0..5)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

fn argument_object() -> impl Strategy<Value = Value> {
    let name = prop_oneof![
        prop::sample::select(handrail_wire::PARAMETERS.to_vec()).prop_map(str::to_string),
        "\\PC{0,12}",
        Just("path".to_string()),
    ];
    prop::collection::vec((name, value()), 0..6)
        .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<String, Value>>()))
}

/// One message the client sends: a line of bytes.
fn message() -> impl Strategy<Value = Vec<u8>> {
    let meta = prop::collection::vec(
        (prop::sample::select(vec!["handrail/turn", "handrail/intent", "handrail/mode", "other"]), value()),
        0..4,
    )
    .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    let call =
        (prop::sample::select(vec!["computer", "read_image", "nope", ""]), argument_object(), meta, any::<u32>())
            .prop_map(|(tool, args, meta, id)| {
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": args, "_meta": meta}})
                .to_string()
                .into_bytes()
            });
    let any_method = ("\\PC{0,20}", value(), any::<u32>()).prop_map(|(method, params, id)| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string().into_bytes()
    });
    let junk = prop::collection::vec(any::<u8>(), 0..80).prop_map(|mut b| {
        b.retain(|c| *c != b'\n');
        b
    });
    prop_oneof![4 => call, 2 => any_method, 1 => junk, 1 => value().prop_map(|v| v.to_string().into_bytes())]
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    reader: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    next_id: u64,
}

impl Harness {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
        let (client, server_io) = tokio::io::duplex(1 << 20);
        let mut desktop = scene().desktop();
        desktop.encoder = handrail_imaging::encoder(handrail_imaging::ImageFormat::Png);
        let engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
        let calls = Calls::new(engine, TurnDefaults::default(), None, None);
        let server = HandrailServer::start(calls, ServerOptions::default()).expect("server");
        runtime.spawn(async move {
            if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
                let _ = running.waiting().await;
            }
        });
        let (read, writer) = tokio::io::split(client);
        let mut h = Self { runtime, writer, reader: BufReader::new(read), next_id: 1_000_000 };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}});
        h.send(init.to_string().as_bytes());
        assert!(h.response_to(0).get("result").is_some());
        h.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        h
    }

    fn send(&mut self, line: &[u8]) {
        let (writer, line) = (&mut self.writer, line.to_vec());
        self.runtime.block_on(async move {
            writer.write_all(&line).await.expect("write");
            writer.write_all(b"\n").await.expect("write");
            writer.flush().await.expect("flush");
        });
    }

    /// Reads lines until the response with `id` arrives (other lines are answers to fuzz messages).
    fn response_to(&mut self, id: u64) -> Value {
        let reader = &mut self.reader;
        self.runtime.block_on(async move {
            loop {
                let mut line = String::new();
                let read = tokio::time::timeout(Duration::from_secs(20), reader.read_line(&mut line)).await;
                let n = read.expect("the server answers in time").expect("read");
                assert!(n > 0, "the server closed the connection");
                let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
                if v.get("id").and_then(Value::as_u64) == Some(id) {
                    return v;
                }
            }
        })
    }

    fn still_serving(&mut self) {
        self.next_id += 1;
        let id = self.next_id;
        let see = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "computer", "arguments": {"action": "see"}}});
        self.send(see.to_string().as_bytes());
        let answer = self.response_to(id);
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
        // A fuzzed turn may have spent the observation budget; the answer is still a proper result.
        assert!(text.starts_with("[ok] see") || text.starts_with("[limit]"), "{answer}");
    }
}

#[test]
fn random_traffic_never_stops_the_server() {
    let mut harness = Harness::start();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 160, ..ProptestConfig::default() });
    let strategy = prop::collection::vec(message(), 1..4);
    for _ in 0..160 {
        let batch = strategy.new_tree(&mut runner).expect("case").current();
        for line in &batch {
            harness.send(line);
        }
        harness.still_serving();
    }
}
