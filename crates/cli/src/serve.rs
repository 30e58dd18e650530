//! `handrail serve`: the MCP server over stdio (default) or streamable HTTP.

use std::net::SocketAddr;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use handrail_core::{Budgets, Config, Engine, Mode};
use handrail_mcp::{AuditLog, HandrailServer, HttpOptions, ImageRoots, ServerOptions, TurnDefaults};
use handrail_sandbox::{Sandbox, SandboxOptions};

use crate::desktops::{display_desktop, sandbox_desktop};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765; port 0 picks a
    /// free one). Addresses other than loopback need a bearer token (HANDRAIL_TOKEN or --token-file).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Start a private sandbox desktop and serve it (stopped again when the server ends).
    #[arg(long, conflicts_with_all = ["display", "simulated"])]
    sandbox: bool,
    /// Sandbox screen size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = crate::sandbox::parse_size, requires = "sandbox")]
    size: (u32, u32),
    /// The X display to serve (default: $DISPLAY).
    #[arg(long, conflicts_with = "simulated")]
    display: Option<String>,
    /// Serve the built-in simulated desktop (to try a host out; nothing real is touched).
    #[arg(long)]
    simulated: bool,
    /// The main model's name (e.g. qwen2.5vl:7b); known names decide whether it sees images.
    #[arg(long)]
    model: Option<String>,
    /// Declare whether the main model accepts images; overrides everything else.
    #[arg(long, value_parser = ["yes", "no"])]
    vision: Option<String>,
    /// The model server's URL (Ollama, llama.cpp, LM Studio, vLLM, …), asked read-only whether the
    /// model sees images.
    #[arg(long, value_name = "URL")]
    model_endpoint: Option<String>,
    /// The user's request for the default turn (hosts that send `_meta` turns need not set it).
    #[arg(long, default_value = "")]
    intent: String,
    /// The default turn's id.
    #[arg(long, default_value = "default")]
    turn_id: String,
    /// Nobody is watching: stricter guards, smaller budgets, destructive targets always refused.
    #[arg(long)]
    unattended: bool,
    /// Append a JSON line per call to this file (time, turn, action, target, guard, verdict, timings).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
    /// A folder `read_image` may read from (repeatable).
    #[arg(long = "image-root", value_name = "DIR")]
    image_roots: Vec<PathBuf>,
    /// Only open URLs on these domains (repeatable; default: any http/https URL).
    #[arg(long = "allow-domain", value_name = "DOMAIN")]
    allowed_domains: Vec<String>,
    /// Actions per interactive turn.
    #[arg(long, value_name = "N")]
    max_actions: Option<u32>,
    /// see/inspect calls per interactive turn.
    #[arg(long, value_name = "N")]
    max_observations: Option<u32>,
    /// A file holding the HTTP bearer token (instead of HANDRAIL_TOKEN).
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,
    /// Another host name accepted in HTTP `Host` headers (repeatable; loopback names always are).
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    allowed_hosts: Vec<String>,
    /// Another browser origin accepted on HTTP (repeatable; loopback pages always are).
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    /// A program to start inside the sandbox before serving, with its arguments.
    #[arg(last = true, requires = "sandbox")]
    launch: Vec<String>,
}

const WHO: &str = "handrail serve";

fn token(args: &ServeArgs) -> Result<Option<String>> {
    if let Some(path) = &args.token_file {
        let t = std::fs::read_to_string(path).with_context(|| format!("reading the token file {}", path.display()))?;
        let t = t.trim().to_string();
        if t.is_empty() {
            bail!("the token file {} is empty", path.display());
        }
        return Ok(Some(t));
    }
    Ok(std::env::var("HANDRAIL_TOKEN").ok().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()))
}

fn config(args: &ServeArgs) -> Result<Config> {
    let declared = args.vision.as_deref().map(|v| v == "yes");
    let probed = match &args.model_endpoint {
        Some(endpoint) if declared.is_none() => {
            match handrail_models::probe(endpoint, args.model.as_deref(), Duration::from_secs(5)) {
                Ok(report) => Some(report),
                Err(e) => {
                    eprintln!("{WHO}: could not ask the model server ({e})");
                    None
                }
            }
        }
        _ => None,
    };
    let decision = handrail_models::decide(declared, probed.as_ref(), args.model.as_deref());
    let verdict = match &decision.vision {
        handrail_core::Vision::Capable => "the main model sees images",
        handrail_core::Vision::TextOnly { .. } => "the main model is text-only",
        handrail_core::Vision::Unknown { .. } => "the main model's vision is unknown",
    };
    eprintln!("{WHO}: {verdict} ({})", decision.why);

    let mut config = Config { vision: decision.vision, ..Config::default() };
    if let Some(n) = args.max_actions {
        config.interactive.mutations = n;
        config.unattended.mutations = config.unattended.mutations.min(n);
    }
    if let Some(n) = args.max_observations {
        config.interactive.observations = n;
        config.unattended.observations = config.unattended.observations.min(n);
    }
    let Budgets { mutations, observations } = config.interactive;
    if mutations == 0 || observations == 0 {
        bail!("--max-actions and --max-observations must be at least 1");
    }
    config.url_policy.allowed_domains = args.allowed_domains.clone();
    Ok(config)
}

/// What serve started and must stop.
struct Running {
    sandbox: Option<Sandbox>,
    launched: Option<Child>,
}

impl Running {
    fn stop(mut self) -> Result<()> {
        if let Some(mut child) = self.launched.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(sandbox) = self.sandbox.take() {
            sandbox.stop().context("stopping the sandbox desktop")?;
        }
        Ok(())
    }
}

pub fn run(args: ServeArgs) -> Result<()> {
    let config = config(&args)?;
    let token = token(&args)?;
    let mut running = Running { sandbox: None, launched: None };

    let sees = config.vision == handrail_core::Vision::Capable;
    let desktop = if !sees {
        // Nothing the model asks can run, so nothing is opened: no sandbox, no display connection.
        eprintln!("{WHO}: the main model cannot see (or is not declared); the desktop is not opened");
        handrail_platform::absent::not_opened_desktop()
    } else if args.simulated {
        let mut desktop = crate::demo::simulated_scene().desktop();
        desktop.encoder = handrail_imaging::encoder(handrail_imaging::ImageFormat::default());
        desktop
    } else if args.sandbox {
        let opts = SandboxOptions { size: args.size, ..SandboxOptions::default() };
        let sandbox = Sandbox::start(opts).context("starting the sandbox desktop")?;
        eprintln!("{WHO}: private desktop {} is up", sandbox.display());
        let desktop = sandbox_desktop(&sandbox, WHO);
        if let Some((program, rest)) = args.launch.split_first() {
            // Its output goes to stderr: in stdio mode stdout is the MCP channel.
            let stderr = std::io::stderr().as_fd().try_clone_to_owned().context("duplicating stderr")?;
            let child = sandbox
                .command(program)
                .args(rest)
                .stdin(Stdio::null())
                .stdout(Stdio::from(stderr))
                .spawn()
                .with_context(|| format!("starting {program} in the sandbox"))?;
            running.launched = Some(child);
        }
        running.sandbox = Some(sandbox);
        match desktop {
            Ok(d) => d,
            Err(e) => {
                let _ = running.stop();
                return Err(e);
            }
        }
    } else {
        let display = args
            .display
            .clone()
            .or_else(|| std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()))
            .ok_or_else(|| anyhow!("no display to serve: set DISPLAY, pass --display, or use --sandbox"))?;
        display_desktop(&display, WHO)?
    };

    let engine = Engine::new(desktop, config);
    let defaults = TurnDefaults {
        id: args.turn_id.clone(),
        intent: args.intent.clone(),
        mode: if args.unattended { Mode::Unattended } else { Mode::Interactive },
    };
    let audit = match &args.audit_log {
        Some(path) => Some(AuditLog::open(path).with_context(|| format!("opening the audit log {}", path.display()))?),
        None => None,
    };
    let options = ServerOptions { image_roots: ImageRoots::new(args.image_roots.clone()), ..ServerOptions::default() };
    let server = HandrailServer::start(engine, defaults, audit, options).context("starting the engine thread")?;

    let served = match args.http {
        None => {
            eprintln!("{WHO}: MCP on stdio");
            handrail_mcp::run_stdio(server)
        }
        Some(addr) => {
            let options = HttpOptions {
                addr,
                token,
                extra_hosts: args.allowed_hosts.clone(),
                extra_origins: args.allowed_origins.clone(),
            };
            handrail_mcp::run_http(server, options, |local| {
                eprintln!("{WHO}: MCP at http://{local}/mcp (Ctrl-C stops)");
            })
        }
    };
    let stopped = running.stop();
    served.map_err(|e| anyhow!(e))?;
    stopped?;
    eprintln!("{WHO}: stopped");
    Ok(())
}
