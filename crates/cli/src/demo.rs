//! `handrail demo`: a short scripted session that shows the loop and the guards, with a trace.
//!
//! The script is a tiny policy of the kind an agent runs: it reads the latest observation to find its
//! targets by label and acts on their element ids, exactly as a model would through the tool.

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use handrail_core::{Config, Engine, GuardDecision, Mode, Outcome, Turn, Vision};
use handrail_imaging::{encoder, ImageFormat};
use handrail_platform::{Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};
use serde_json::json;

/// The notes app the demo works in.
fn scene() -> SimDesktop {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("Notes", "Untitled note - Notes").bounds(Rect::new(160, 90, 960, 620)));
    let status = sim.add_widget(win, Widget::text("Not saved").at(190, 660, 200, 20));
    sim.add_widget(win, Widget::menu("Format").at(180, 120, 70, 24));
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

/// Finds an element by label in the latest observation, as a scripted policy would: returns the
/// observation id and the element id to act with.
fn target(engine: &Engine, label: &str, role: &str) -> Result<(String, String)> {
    let obs = engine.latest().context("no observation yet")?;
    obs.elements
        .iter()
        .find(|e| e.label == label && e.role.as_str() == role)
        .map(|e| (obs.id.to_string(), e.id.to_string()))
        .with_context(|| format!("no {role} labelled {label:?} in {}", obs.id))
}

struct Trace<'a> {
    dir: &'a Path,
    steps: fs::File,
    step: usize,
}

impl Trace<'_> {
    fn record(&mut self, mut args_json: serde_json::Value, outcome: &Outcome) -> Result<()> {
        self.step += 1;
        // Text meant for a password field is a credential: keep it out of the trace.
        if outcome.guard == (GuardDecision::Refused { rule: "password_field" }) {
            if let Some(text) = args_json.get_mut("text") {
                *text = json!("[redacted]");
            }
        }
        let text = outcome.text();
        println!("── step {} ── {}", self.step, args_json);
        println!("{text}");
        let image = match outcome.observation.as_ref().and_then(|o| o.image.as_ref()) {
            Some(img) => {
                let name = format!("step-{:02}.png", self.step);
                fs::write(self.dir.join(&name), &img.bytes)?;
                Some(name)
            }
            None => None,
        };
        let line = json!({
            "step": self.step,
            "call": args_json,
            "text": text,
            "image": image,
            "result": handrail_wire::encode_outcome(outcome),
        });
        writeln!(self.steps, "{line}")?;
        Ok(())
    }
}

fn call(engine: &mut Engine, trace: &mut Trace<'_>, args_json: serde_json::Value) -> Result<Outcome> {
    let args = handrail_wire::decode_args(&args_json).map_err(|e| anyhow::anyhow!("demo script error: {e}"))?;
    let outcome = engine.call_args(&args);
    trace.record(args_json, &outcome)?;
    Ok(outcome)
}

pub fn run(trace_dir: &Path) -> Result<()> {
    fs::create_dir_all(trace_dir).with_context(|| format!("cannot create {}", trace_dir.display()))?;
    let steps = fs::File::create(trace_dir.join("steps.jsonl"))?;
    let mut trace = Trace { dir: trace_dir, steps, step: 0 };

    let sim = scene();
    let mut desktop = sim.desktop();
    desktop.encoder = encoder(ImageFormat::Png);
    let config = Config { vision: Vision::Capable, ..Config::default() };
    let mut engine = Engine::new(desktop, config);
    engine.begin_turn(Turn {
        id: "demo-1".into(),
        intent: "Write a note titled Groceries and save it".into(),
        mode: Mode::Interactive,
    });

    call(&mut engine, &mut trace, json!({"action": "see"}))?;
    let (obs, title) = target(&engine, "Title", "entry")?;
    call(
        &mut engine,
        &mut trace,
        json!({"action": "type", "observation_id": obs, "element_id": title, "text": "Groceries", "expect": "text:Groceries"}),
    )?;
    let (obs, save) = target(&engine, "Save", "button")?;
    call(
        &mut engine,
        &mut trace,
        json!({"action": "click", "observation_id": obs, "element_id": save, "expect": "text:Saved"}),
    )?;
    // Saving again changes nothing; the engine says so, and refuses a blind repeat.
    for _ in 0..2 {
        let (obs, save) = target(&engine, "Save", "button")?;
        call(&mut engine, &mut trace, json!({"action": "click", "observation_id": obs, "element_id": save}))?;
    }
    // The guards.
    let (obs, delete) = target(&engine, "Delete all notes", "button")?;
    call(&mut engine, &mut trace, json!({"action": "click", "observation_id": obs, "element_id": delete}))?;
    call(&mut engine, &mut trace, json!({"action": "key", "keys": "cmd+shift+delete"}))?;
    let (obs, password) = target(&engine, "Sync password", "password_entry")?;
    call(
        &mut engine,
        &mut trace,
        json!({"action": "type", "observation_id": obs, "element_id": password, "text": "hunter2"}),
    )?;
    call(&mut engine, &mut trace, json!({"action": "open_url", "url": "http://good.example@evil.example/login"}))?;
    // An old observation id is refused, naming the latest.
    call(&mut engine, &mut trace, json!({"action": "click", "observation_id": "obs_1", "element_id": save}))?;

    // A text-only model never reaches the desktop.
    let mut blind = Engine::new(
        sim.desktop(),
        Config { vision: Vision::TextOnly { model: "qwen3:14b".into() }, ..Config::default() },
    );
    call(&mut blind, &mut trace, json!({"action": "see"}))?;

    eprintln!("handrail demo: {} steps; trace written to {}", trace.step, trace_dir.join("steps.jsonl").display());
    Ok(())
}
