//! `handrail demo`: a short scripted session that shows the loop and the guards, with a trace.
//!
//! By default it runs on a real private desktop: handrail starts a sandbox (Xvfb, session bus,
//! accessibility bus, openbox), serves a small notes page on 127.0.0.1, opens it in the Chromium it
//! launches with accessibility on, and works the page through handrail's MCP server — the same server
//! `handrail serve` runs, spoken to over the real protocol in process. `--simulated` runs the same
//! script on the built-in simulated desktop (no system packages needed).
//!
//! The script is a tiny policy of the kind an agent runs: it reads the latest observation to find its
//! targets by role and label and acts on their element ids, exactly as a model would through the tool.
//! The server records the trace; the demo writes its report at the end.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use handrail_core::{Config, Engine, Mode, Vision};
use handrail_imaging::{encoder, ImageFormat};
use handrail_mcp::{Calls, HandrailServer, LocalSession, ServerOptions, TurnDefaults};
use handrail_platform::{Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};
use handrail_trace::TraceWriter;
use serde_json::{json, Value};

#[cfg(target_os = "linux")]
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

/// A host's side of the session: calls the `computer` tool over MCP, prints each step, remembers the
/// latest observation (structured content) to find targets in.
struct Host {
    session: LocalSession,
    meta: Value,
    latest: Option<Value>,
    step: u32,
}

impl Host {
    fn new(server: HandrailServer, turn: &str, intent: &str) -> Result<Self> {
        let session = LocalSession::start(server).context("opening an MCP session with the server")?;
        let meta = json!({"handrail/turn": turn, "handrail/intent": intent, "handrail/mode": "interactive"});
        Ok(Self { session, meta, latest: None, step: 0 })
    }

    /// One `computer` call; returns its structured content.
    fn call(&mut self, args: Value) -> Result<Value> {
        self.step += 1;
        let mut shown = args.clone();
        // Typed text is the person's business: the console shows its length, like the trace.
        if let Some(text) = shown.get_mut("text") {
            let chars = text.as_str().map_or(0, |t| t.chars().count());
            *text = json!(format!("[{chars} characters]"));
        }
        let result =
            self.session.call_tool("computer", args, self.meta.clone()).context("calling the computer tool")?;
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let images = result["content"].as_array().map_or(0, |c| c.iter().filter(|b| b["type"] == "image").count());
        println!("── step {} ── {shown}", self.step);
        println!("{text}");
        println!("(+ {images} screenshot{})\n", if images == 1 { "" } else { "s" });
        let structured = result["structuredContent"].clone();
        if structured["observation"].is_object() {
            self.latest = Some(structured["observation"].clone());
        }
        Ok(structured)
    }

    /// Finds an element by role and label in the latest observation, as a scripted policy would:
    /// returns the observation id and the element id to act with.
    fn target(&self, role: &str, label: &str) -> Option<(String, String)> {
        let obs = self.latest.as_ref()?;
        let element = obs["elements"].as_array()?.iter().find(|e| e["role"] == role && e["label"] == label)?;
        Some((obs["id"].as_str()?.to_string(), element["id"].as_str()?.to_string()))
    }

    fn require(&self, role: &str, label: &str) -> Result<(String, String)> {
        self.target(role, label).with_context(|| {
            let listed = self.latest.as_ref().and_then(|o| o["id"].as_str()).unwrap_or("no observation");
            format!("no {role} labelled {label:?} in {listed}")
        })
    }
}

/// The script both desktops run once the notes form is on screen.
fn script(host: &mut Host) -> Result<()> {
    // Set-of-marks: the element ids drawn on the screenshot, for vision models that ground ids in pixels.
    host.call(json!({"action": "see", "marks": true}))?;
    let (obs, title) = host.require("entry", "Title")?;
    host.call(json!({"action": "type", "observation_id": obs, "element_id": title, "text": "Groceries", "expect": "text:Groceries"}))?;
    let (obs, save) = host.require("button", "Save")?;
    host.call(json!({"action": "click", "observation_id": obs, "element_id": save, "expect": "text:Saved"}))?;
    // Saving again changes nothing; the engine says so, and refuses a blind repeat.
    for _ in 0..2 {
        let (obs, save) = host.require("button", "Save")?;
        host.call(json!({"action": "click", "observation_id": obs, "element_id": save}))?;
    }
    // The guards.
    let (obs, delete) = host.require("button", "Delete all notes")?;
    host.call(json!({"action": "click", "observation_id": obs, "element_id": delete}))?;
    host.call(json!({"action": "key", "keys": "cmd+shift+delete"}))?;
    let (obs, password) = host.require("password_entry", "Sync password")?;
    host.call(json!({"action": "type", "observation_id": obs, "element_id": password, "text": "hunter2"}))?;
    host.call(json!({"action": "open_url", "url": "http://good.example@evil.example/login"}))?;
    // An old observation id is refused, naming the latest.
    host.call(json!({"action": "click", "observation_id": "obs_1", "element_id": save}))?;
    Ok(())
}

const TURN: &str = "demo-1";
const INTENT: &str = "Write a note titled Groceries and save it";

/// A server over `desktop` that records into `trace`.
fn server(desktop: handrail_platform::Desktop, vision: Vision, trace: TraceWriter) -> Result<HandrailServer> {
    let engine = Engine::new(desktop, Config { vision, ..Config::default() });
    let defaults =
        TurnDefaults { id: TURN.into(), intent: INTENT.into(), mode: Mode::Interactive, ..TurnDefaults::default() };
    HandrailServer::start(Calls::new(engine, defaults, None, Some(trace)), ServerOptions::default())
        .context("starting the server")
}

/// The demo on a private Linux desktop: a notes page served here, opened in the sandbox's Chromium.
#[cfg(target_os = "linux")]
mod on_sandbox {
    use std::io::{Read as _, Write as _};
    use std::net::TcpListener;
    use std::time::Duration;

    use anyhow::{bail, Context, Result};
    use handrail_core::guard::url::UrlPolicy;
    use handrail_core::Vision;
    use handrail_sandbox::{Sandbox, SandboxOptions, Session};
    use handrail_trace::TraceWriter;
    use serde_json::json;

    use super::{script, server, Host, INTENT, NOTES_PAGE, TURN};

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

    pub fn run_on_sandbox(trace: TraceWriter, session: Session) -> Result<u32> {
        let sandbox = Sandbox::start(SandboxOptions { session, ..SandboxOptions::default() })
            .context("starting the sandbox desktop")?;
        eprintln!("handrail demo: private desktop {} is up; working a notes page in Chromium", sandbox.session_name());
        let desktop = handrail_desktops::sandbox_desktop(&sandbox, "handrail demo", &UrlPolicy::default(), None)?;
        let mut host = Host::new(server(desktop, Vision::Capable, trace)?, TURN, INTENT)?;

        let url = serve_notes_page()?;
        host.call(json!({"action": "open_url", "url": url, "expect": "window:Notes"}))?;
        // The page's accessibility tree arrives shortly after the window: look until the form is listed,
        // as an agent would (bounded).
        for _ in 0..15 {
            if host.target("entry", "Title").is_some() {
                break;
            }
            let o = host.call(json!({"action": "see"}))?;
            if o["status"] != "ok" {
                bail!("see failed: {}", o["message"]);
            }
        }
        script(&mut host)?;
        let steps = host.step;
        // Closing the session ends the server and its engine before the desktop goes away.
        drop(host);
        sandbox.stop().context("stopping the sandbox desktop")?;
        Ok(steps)
    }
}

fn run_simulated(trace: TraceWriter) -> Result<u32> {
    let mut desktop = simulated_scene().desktop();
    desktop.encoder = encoder(ImageFormat::Png);
    let mut host = Host::new(server(desktop, Vision::Capable, trace)?, TURN, INTENT)?;
    host.call(json!({"action": "see"}))?;
    script(&mut host)?;
    Ok(host.step)
}

/// Where the demo runs.
#[derive(Debug, Clone, Copy)]
pub enum DemoDesktop {
    /// The built-in simulated desktop (every system).
    Simulated,
    /// A private Linux desktop of this kind.
    #[cfg(target_os = "linux")]
    Sandbox(handrail_sandbox::Session),
}

pub fn run(trace_dir: &Path, on: DemoDesktop) -> Result<()> {
    let trace =
        TraceWriter::create(trace_dir, "handrail demo", handrail_calls::unix_ms()).context("starting the trace")?;
    let mut steps = match on {
        DemoDesktop::Simulated => run_simulated(trace)?,
        #[cfg(target_os = "linux")]
        DemoDesktop::Sandbox(session) => on_sandbox::run_on_sandbox(trace, session)?,
    };

    // A text-only model never reaches any desktop: its server does not even open one.
    let trace = TraceWriter::resume(trace_dir).context("continuing the trace")?;
    let blind =
        server(handrail_platform::absent::not_opened_desktop(), Vision::TextOnly { model: "qwen3:14b".into() }, trace)?;
    let mut host = Host::new(blind, "demo-2", "Write a note")?;
    host.step = steps;
    host.call(json!({"action": "see"}))?;
    steps = host.step;
    drop(host);

    let report = handrail_trace::report::write_report(trace_dir).context("writing the report")?;
    eprintln!("handrail demo: {steps} steps; trace in {}, report at {}", trace_dir.display(), report.display());
    Ok(())
}
