//! `handrail demo`: a short scripted session that shows the loop and the guards, with a trace.
//!
//! By default it runs on a real private desktop: handrail starts a sandbox (Xvfb, session bus,
//! accessibility bus, openbox), serves a small notes page on 127.0.0.1, opens it in the Chromium it
//! launches with accessibility on, and works the page through the engine. `--simulated` runs the same
//! script on the built-in simulated desktop (no system packages needed).
//!
//! The script is a tiny policy of the kind an agent runs: it reads the latest observation to find its
//! targets by role and label and acts on their element ids, exactly as a model would through the tool.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use std::sync::Arc;

use handrail_core::observation::Observation;
use handrail_core::{Config, Engine, Mode, Outcome, RawArgs, Status, Turn, Vision};
use handrail_imaging::{encoder, ImageFormat};
use handrail_platform::{Rect, Size};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};
use handrail_trace::{Step, TraceWriter};
use serde_json::json;

/// The notes page of the real-desktop demo: labelled fields, a password field, a Save button that
/// answers after 300 ms, and a destructive button.
const NOTES_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Notes</title>
<style>
 body { font: 18px sans-serif; margin: 40px; background: #fafafa; }
 label { display: inline-block; width: 150px; }
 input { font: 18px sans-serif; width: 380px; padding: 4px; margin: 8px 0; }
 button { font: 18px sans-serif; padding: 8px 18px; margin: 16px 12px 0 0; }
 #status { margin-top: 24px; font-weight: bold; }
</style></head>
<body>
<h1>Notes</h1>
<div><label for="title">Title</label><input id="title"></div>
<div><label for="sync">Sync password</label><input id="sync" type="password"></div>
<button id="save">Save</button><button id="wipe">Delete all notes</button>
<p id="status">Draft</p>
<script>
 document.getElementById('save').onclick = () => setTimeout(() => {
   document.getElementById('status').textContent = 'Saved';
 }, 300);
 document.getElementById('wipe').onclick = () => {
   document.getElementById('status').textContent = 'Everything was deleted';
 };
</script>
</body></html>
"#;

/// The notes app of the simulated demo.
pub(crate) fn simulated_scene() -> SimDesktop {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("Notes", "Notes").bounds(Rect::new(160, 90, 960, 620)));
    let status = sim.add_widget(win, Widget::text("Draft").at(190, 660, 200, 20));
    sim.add_widget(win, Widget::text("Title").at(190, 170, 60, 20));
    sim.add_widget(win, Widget::entry("Title").at(260, 166, 420, 28));
    sim.add_widget(win, Widget::text("Sync password").at(190, 220, 130, 20));
    sim.add_widget(win, Widget::password("Sync password").at(330, 216, 350, 28));
    sim.add_widget(
        win,
        Widget::button("Save")
            .at(190, 600, 90, 30)
            .on_click(Reaction::set_label(status, "Saved").after(Duration::from_millis(300))),
    );
    sim.add_widget(win, Widget::button("Delete all notes").at(300, 600, 170, 30));
    sim
}

/// Finds an element by role and label in the latest observation, as a scripted policy would: returns
/// the observation id and the element id to act with.
fn target(engine: &Engine, role: &str, label: &str) -> Option<(String, String)> {
    let obs = engine.latest()?;
    obs.elements
        .iter()
        .find(|e| e.label == label && e.role.as_str() == role)
        .map(|e| (obs.id.to_string(), e.id.to_string()))
}

fn require(engine: &Engine, role: &str, label: &str) -> Result<(String, String)> {
    target(engine, role, label).with_context(|| {
        let listed = engine.latest().map(|o| o.id.to_string()).unwrap_or_default();
        format!("no {role} labelled {label:?} in {listed}")
    })
}

struct Trace {
    writer: TraceWriter,
    turn: Turn,
}

impl Trace {
    fn record(
        &mut self,
        args_json: &serde_json::Value,
        args: &RawArgs,
        before: Option<&Arc<Observation>>,
        outcome: &Outcome,
    ) -> Result<()> {
        let mut shown = args_json.clone();
        // Typed text is the person's business: the console shows its length, like the trace.
        if let Some(text) = shown.get_mut("text") {
            let chars = text.as_str().map_or(0, |t| t.chars().count());
            *text = json!(format!("[{chars} characters]"));
        }
        println!("── step {} ── {}", self.writer.steps() + 1, shown);
        println!("{}\n", outcome.text());
        let step = Step { unix_ms: unix_ms(), turn: &self.turn, tool: "computer", args, before, outcome };
        self.writer.record(step).context("recording the trace")
    }
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn call(engine: &mut Engine, trace: &mut Trace, args_json: serde_json::Value) -> Result<Outcome> {
    let args = handrail_wire::decode_args(&args_json).map_err(|e| anyhow::anyhow!("demo script error: {e}"))?;
    trace.turn = engine.turn().clone();
    let before = engine.latest().cloned();
    let outcome = engine.call_args(&args);
    trace.record(&args_json, &args, before.as_ref(), &outcome)?;
    Ok(outcome)
}

/// The script both desktops run once the notes form is on screen.
fn script(engine: &mut Engine, trace: &mut Trace) -> Result<()> {
    // Set-of-marks: the element ids drawn on the screenshot, for vision models that ground ids in pixels.
    call(engine, trace, json!({"action": "see", "marks": true}))?;
    let (obs, title) = require(engine, "entry", "Title")?;
    call(
        engine,
        trace,
        json!({"action": "type", "observation_id": obs, "element_id": title, "text": "Groceries", "expect": "text:Groceries"}),
    )?;
    let (obs, save) = require(engine, "button", "Save")?;
    call(engine, trace, json!({"action": "click", "observation_id": obs, "element_id": save, "expect": "text:Saved"}))?;
    // Saving again changes nothing; the engine says so, and refuses a blind repeat.
    for _ in 0..2 {
        let (obs, save) = require(engine, "button", "Save")?;
        call(engine, trace, json!({"action": "click", "observation_id": obs, "element_id": save}))?;
    }
    // The guards.
    let (obs, delete) = require(engine, "button", "Delete all notes")?;
    call(engine, trace, json!({"action": "click", "observation_id": obs, "element_id": delete}))?;
    call(engine, trace, json!({"action": "key", "keys": "cmd+shift+delete"}))?;
    let (obs, password) = require(engine, "password_entry", "Sync password")?;
    call(engine, trace, json!({"action": "type", "observation_id": obs, "element_id": password, "text": "hunter2"}))?;
    call(engine, trace, json!({"action": "open_url", "url": "http://good.example@evil.example/login"}))?;
    // An old observation id is refused, naming the latest.
    call(engine, trace, json!({"action": "click", "observation_id": "obs_1", "element_id": save}))?;
    Ok(())
}

fn begin(engine: &mut Engine) {
    engine.begin_turn(Turn {
        id: "demo-1".into(),
        intent: "Write a note titled Groceries and save it".into(),
        mode: Mode::Interactive,
    });
}

fn capable() -> Config {
    Config { vision: Vision::Capable, ..Config::default() }
}

/// Serves the notes page on 127.0.0.1 until the process ends; returns its URL.
fn serve_notes_page() -> Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").context("binding a local port for the demo page")?;
    let url = format!("http://{}/", listener.local_addr()?);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 2048];
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = stream.read(&mut request);
            let (status, body) =
                if request.starts_with(b"GET / ") { ("200 OK", NOTES_PAGE) } else { ("404 Not Found", "") };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Ok(url)
}

fn run_on_sandbox(trace: &mut Trace) -> Result<()> {
    let sandbox = Sandbox::start(SandboxOptions::default()).context("starting the sandbox desktop")?;
    eprintln!("handrail demo: private desktop {} is up; working a notes page in Chromium", sandbox.display());
    let desktop = crate::desktops::sandbox_desktop(&sandbox, "handrail demo")?;
    let mut engine = Engine::new(desktop, capable());
    begin(&mut engine);

    let url = serve_notes_page()?;
    call(&mut engine, trace, json!({"action": "open_url", "url": url, "expect": "window:Notes"}))?;
    // The page's accessibility tree arrives shortly after the window: look until the form is listed,
    // as an agent would (bounded).
    for _ in 0..15 {
        if target(&engine, "entry", "Title").is_some() {
            break;
        }
        let o = call(&mut engine, trace, json!({"action": "see"}))?;
        if o.status != Status::Ok {
            bail!("see failed: {}", o.text());
        }
    }
    script(&mut engine, trace)?;
    drop(engine);
    sandbox.stop().context("stopping the sandbox desktop")?;
    Ok(())
}

fn run_simulated(trace: &mut Trace) -> Result<()> {
    let sim = simulated_scene();
    let mut desktop = sim.desktop();
    desktop.encoder = encoder(ImageFormat::Png);
    let mut engine = Engine::new(desktop, capable());
    begin(&mut engine);
    call(&mut engine, trace, json!({"action": "see"}))?;
    script(&mut engine, trace)
}

pub fn run(trace_dir: &Path, simulated: bool) -> Result<()> {
    let writer = TraceWriter::create(trace_dir, "handrail demo", unix_ms()).context("starting the trace")?;
    let mut trace = Trace { writer, turn: Turn::default() };

    if simulated {
        run_simulated(&mut trace)?;
    } else {
        run_on_sandbox(&mut trace)?;
    }

    // A text-only model never reaches any desktop: not even a screenshot is taken.
    let mut blind = Engine::new(
        handrail_platform::absent::not_opened_desktop(),
        Config { vision: Vision::TextOnly { model: "qwen3:14b".into() }, ..Config::default() },
    );
    blind.begin_turn(Turn { id: "demo-2".into(), intent: "Write a note".into(), mode: Mode::Interactive });
    call(&mut blind, &mut trace, json!({"action": "see"}))?;

    let report = handrail_trace::report::write_report(trace_dir).context("writing the report")?;
    eprintln!(
        "handrail demo: {} steps; trace in {}, report at {}",
        trace.writer.steps(),
        trace_dir.display(),
        report.display()
    );
    Ok(())
}
