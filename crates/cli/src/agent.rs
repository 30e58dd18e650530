//! `handrail agent "<task>"`: a local (or any OpenAI-compatible) model works a task on a desktop.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use handrail_agent::{AgentOptions, Finish, Progress};
use handrail_calls::{AuditLog, Calls, TurnDefaults};
use handrail_core::{Config, Engine, Knobs, Mode, Vision};
use handrail_models::chat::ChatClient;

use crate::desktops::{decide_vision, DesktopChoice};

#[derive(Debug, Args)]
pub struct AgentArgs {
    /// What to do, in the user's own words (it is also the turn's intent: only a task that asks for a
    /// removal lets the agent click "Delete").
    task: String,
    /// The model server's OpenAI-compatible base URL (Ollama: http://localhost:11434/v1, llama.cpp:
    /// http://localhost:8080/v1).
    #[arg(long, default_value = "http://localhost:11434/v1")]
    base_url: String,
    /// The model to use, as the server names it.
    #[arg(long)]
    model: String,
    /// The environment variable holding the API key, if the server wants one.
    #[arg(long, default_value = "HANDRAIL_API_KEY", value_name = "NAME")]
    api_key_env: String,
    /// Declare whether the model accepts images (default: ask the server, then the known-model table).
    #[arg(long, value_parser = ["yes", "no"])]
    vision: Option<String>,
    /// Nobody is watching: stricter guards, smaller budgets, destructive targets always refused.
    #[arg(long)]
    unattended: bool,
    /// Tool calls at most.
    #[arg(long, default_value_t = 30)]
    max_steps: u32,
    /// Seconds the whole task may take.
    #[arg(long, default_value_t = 600)]
    time_limit: u64,
    /// Seconds one answer from the model may take.
    #[arg(long, default_value_t = 180)]
    request_timeout: u64,
    /// Screenshots kept in the model's context (older ones are replaced by their text observation).
    #[arg(long, default_value_t = 3)]
    keep_images: usize,
    /// Record a trace of every call in this folder and write its HTML report there at the end.
    #[arg(long, value_name = "DIR")]
    trace: Option<PathBuf>,
    /// Append one JSON line per call to this file (typed text by length only, URLs without credentials).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
    /// Draw element ids on the screenshots the model sees (set-of-marks).
    #[arg(long)]
    marks: bool,
    /// Work on this X display instead of a private sandbox.
    #[arg(long, conflicts_with = "simulated")]
    display: Option<String>,
    /// Work on the built-in simulated desktop.
    #[arg(long)]
    simulated: bool,
    /// The languages OCR reads text outside the accessibility tree in: Tesseract model names joined
    /// by `+` (e.g. eng+deu, jpn, chi_sim+eng). Default: English, the desktop locale's language and
    /// Thai, those installed. Each needs its model (Debian: tesseract-ocr-deu…).
    #[arg(long, value_name = "LANGS")]
    ocr_lang: Option<String>,
    /// Sandbox screen size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = crate::sandbox::parse_size)]
    size: (u32, u32),
    /// A program to start inside the sandbox first, with its arguments.
    #[arg(last = true)]
    launch: Vec<String>,
}

const WHO: &str = "handrail agent";

pub fn run(args: AgentArgs) -> Result<std::process::ExitCode> {
    if args.task.trim().is_empty() {
        bail!("the task is empty: say what the agent should do");
    }
    if args.max_steps == 0 || args.time_limit == 0 || args.request_timeout == 0 {
        bail!("--max-steps, --time-limit and --request-timeout must be at least 1");
    }
    let api_key = std::env::var(&args.api_key_env).ok().filter(|k| !k.trim().is_empty());
    let chat = ChatClient::new(&args.base_url, api_key, Duration::from_secs(args.request_timeout))
        .context("the model server's URL")?;

    // Before anything touches a desktop: can the model see?
    let declared = args.vision.as_deref().map(|v| v == "yes");
    let vision = decide_vision(WHO, declared, Some(&args.base_url), Some(&args.model));
    let sees = vision == Vision::Capable;
    if !sees {
        println!(
            "{} cannot see images, so it cannot use the computer: every computer call answers \
             `[unsupported] computer requires a vision-capable model` and nothing on the desktop is touched. \
             Use a vision model (e.g. qwen2.5vl:7b), or --vision yes if this one does see.",
            args.model
        );
    }
    let choice = DesktopChoice {
        sandbox: args.display.is_none() && !args.simulated,
        session: handrail_sandbox::Session::X11,
        wayland_display: None,
        size: args.size,
        opengl: false,
        gnome_root: None,
        display: args.display.clone(),
        launch: args.launch.clone(),
        ocr_languages: args.ocr_lang.clone(),
        gnome_route: Default::default(),
    };
    // One task is one turn here, and this command has no budget flags: refusals say so.
    let knobs = Knobs {
        max_actions: "handrail serve's --max-actions (handrail agent keeps the default; --max-steps bounds the rounds)"
            .into(),
        max_observations: "handrail serve's --max-observations (handrail agent keeps the default)".into(),
        window: "handrail serve's --budget-window".into(),
        intent: "the task given to handrail agent is the user's request: name the removal in it".into(),
    };
    let config = Config { vision, marks: args.marks, knobs, ..Config::default() };
    let (desktop, running) = crate::desktops::open(WHO, &choice, args.simulated, sees, &config.url_policy)?;
    let engine = Engine::new(desktop, config);
    let trace = match &args.trace {
        Some(dir) => Some(handrail_trace::TraceWriter::create(dir, WHO, now_ms()).context("starting the trace")?),
        None => None,
    };
    let audit = match &args.audit_log {
        Some(path) => Some(AuditLog::open(path).with_context(|| format!("opening the audit log {}", path.display()))?),
        None => None,
    };
    let mode = if args.unattended { Mode::Unattended } else { Mode::Interactive };
    let options = AgentOptions {
        model: args.model.clone(),
        mode,
        max_steps: args.max_steps,
        time_limit: Duration::from_secs(args.time_limit),
        keep_images: args.keep_images,
        ..AgentOptions::default()
    };
    // The run's one turn is the task; the call layer starts in it.
    let defaults = TurnDefaults {
        id: options.turn_id.clone(),
        intent: args.task.clone(),
        mode,
        source: handrail_core::TurnSource::Host,
    };
    let mut calls = Calls::new(engine, defaults, audit, trace);

    // Ctrl-C and SIGTERM end the run between steps (or while waiting for the model), then clean up.
    let signals = handrail_sandbox::SignalWatcher::install().context("watching for Ctrl-C")?;
    let stop = || signals.try_recv().is_some();
    let stopped = std::cell::Cell::new(false);
    let stop_once = || {
        if stopped.get() || stop() {
            stopped.set(true);
        }
        stopped.get()
    };

    let mut show = |p: Progress<'_>| match p {
        Progress::Asking(round) => eprintln!("{WHO}: asking {} (round {round})", args.model),
        Progress::Said(text) => println!("model: {}", text.trim()),
        Progress::Rejected { step, text } => println!("step {step:>2}  {text}"),
        Progress::Called { step, call, outcome } => {
            let t = &outcome.timings;
            println!(
                "step {step:>2}  {call}\n         {}  capture {} ms · settle {} ms · observe {} ms · encode {} ms · total {} ms{}",
                outcome.tag(),
                t.capture.as_millis(),
                t.settle.as_millis(),
                t.observe.as_millis(),
                t.encode.as_millis(),
                t.total.as_millis(),
                outcome.message.as_deref().map(|m| format!("\n         {m}")).unwrap_or_default()
            );
        }
    };
    let result = handrail_agent::run(&mut calls, &chat, &args.task, &options, &stop_once, &mut show);
    drop(calls);
    let stopped_desktop = running.stop();
    if let Some(dir) = &args.trace {
        match handrail_trace::report::write_report(dir) {
            Ok(path) => eprintln!("{WHO}: trace report at {}", path.display()),
            Err(e) => eprintln!("{WHO}: could not write the trace report: {e}"),
        }
    }
    stopped_desktop?;
    let finish = result.with_context(|| format!("talking to the model at {}", chat.url()))?;
    let code = match finish {
        Finish::Answered(text) => {
            println!("answer: {}", text.trim());
            0
        }
        Finish::StepLimit(n) => {
            println!("stopped: the step limit ({n}) was reached before the model finished");
            2
        }
        Finish::TimeLimit(d) => {
            println!("stopped: the time limit ({} s) was reached before the model finished", d.as_secs());
            2
        }
        Finish::Stopped => {
            println!("stopped on request");
            130
        }
    };
    Ok(std::process::ExitCode::from(code))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
