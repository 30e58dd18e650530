//! `handrail serve`: the MCP server over stdio (default) or streamable HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use handrail_core::{Budgets, Config, Engine, Mode, TurnSource};
use handrail_mcp::{
    AuditLog, Calls, HandrailServer, HttpOptions, ImageDelivery, ImageRoots, Sealer, ServerOptions, TaskTraceRoot,
    TurnDefaults, QUESTION_LIFETIME,
};

use crate::desktops::DesktopChoice;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765; port 0 picks a
    /// free one). Addresses other than loopback need a bearer token (HANDRAIL_TOKEN or --token-file).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    #[cfg(target_os = "linux")]
    /// Start a private sandbox desktop and serve it (stopped again when the server ends).
    #[arg(long, conflicts_with_all = ["display", "simulated", "wayland_display"])]
    sandbox: bool,
    #[cfg(target_os = "linux")]
    /// With --sandbox: a Wayland sandbox (a private headless sway) instead of an X11 one.
    #[arg(long, requires = "sandbox")]
    wayland: bool,
    #[cfg(target_os = "linux")]
    /// With --sandbox: a GNOME sandbox (a private headless GNOME Shell with handrail's extension).
    #[arg(long, requires = "sandbox", conflicts_with = "wayland")]
    gnome: bool,
    #[cfg(target_os = "linux")]
    /// With --gnome: run GNOME Shell from this root file system instead of the machine's (GNOME 48
    /// from Debian 13: scripts/setup-trixie makes one at /var/cache/handrail/trixie-gnome).
    #[arg(long, value_name = "DIR", requires = "gnome")]
    gnome_root: Option<std::path::PathBuf>,
    #[cfg(target_os = "linux")]
    /// A running GNOME session: `mutter` (its own remote-desktop interfaces, no dialog), `portal`
    /// (the desktop portal: GNOME asks once, and the restore token is kept in
    /// $XDG_STATE_HOME/handrail/portal-restore-token), or `auto` (mutter's when they answer).
    #[arg(long, value_name = "ROUTE", default_value = "auto", value_parser = crate::desktops::GnomeRoute::parse,
          conflicts_with_all = ["sandbox", "display", "simulated", "wayland_display"])]
    gnome_route: crate::desktops::GnomeRoute,
    #[cfg(target_os = "linux")]
    /// Serve a running wlroots session (sway, Hyprland, river, labwc…): its socket name in
    /// $XDG_RUNTIME_DIR (e.g. wayland-1) or a path; window geometry comes from $SWAYSOCK.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["display", "simulated"])]
    wayland_display: Option<String>,
    #[cfg(target_os = "linux")]
    /// Sandbox screen size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = crate::sandbox::parse_size, requires = "sandbox")]
    size: (u32, u32),
    #[cfg(target_os = "linux")]
    /// With --sandbox: offer OpenGL (the X server's GLX, Mesa's software renderer) to apps that need
    /// it; off by default, as it costs each desktop ~55 MB.
    #[arg(long, requires = "sandbox", conflicts_with_all = ["wayland", "gnome"])]
    opengl: bool,
    #[cfg(target_os = "linux")]
    /// The X display to serve. Without it (and without --sandbox or --wayland-display) the running
    /// session is read from the environment: GNOME on Wayland, a wlroots compositor, else $DISPLAY.
    #[arg(long, conflicts_with = "simulated")]
    display: Option<String>,
    /// Serve the built-in simulated desktop (to try a host out; nothing real is touched).
    #[arg(long)]
    simulated: bool,
    #[cfg_attr(
        not(target_os = "macos"),
        doc = "The languages OCR reads text outside the accessibility tree in: Tesseract model names joined\n\
               by `+` (e.g. eng+deu, jpn, chi_sim+eng). Default: English, the desktop locale's language and\n\
               Thai, those installed. Each needs its model (Debian: tesseract-ocr-deu…)."
    )]
    #[cfg_attr(
        target_os = "macos",
        doc = "The languages Apple Vision reads text outside the accessibility tree in: codes joined by `+`\n\
               (e.g. en-US+de-DE, ja-JP). Default: English, the locale's language and Thai, those this\n\
               Mac's Vision reads."
    )]
    #[arg(long, value_name = "LANGS")]
    ocr_lang: Option<String>,
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
    /// Record a trace of every call in this folder (off by default: screenshots are private), and
    /// write its HTML report there when the server stops.
    #[arg(long, value_name = "DIR")]
    trace: Option<PathBuf>,
    /// Record each task as a trace of its own in this folder: a `POST /reset` whose body asks for
    /// one (`{"trace": true}`) starts `DIR/NNNN-<turn>`; the next reset (or stopping) writes its report.
    #[arg(long, value_name = "DIR", conflicts_with = "trace")]
    task_traces: Option<PathBuf>,
    #[cfg(target_os = "linux")]
    /// Offer a harness's task set-up beside /reset: `PUT`/`GET /files/PATH` (a file into or out of
    /// the sandbox's private home) and `POST /run` (a command run in its session). They need the
    /// bearer token, even on loopback, and never answer a browser.
    #[arg(long, requires_all = ["sandbox", "http"])]
    setup_endpoints: bool,
    #[cfg(target_os = "linux")]
    /// Also serve OSWorld's guest API for the sandbox at this address (its own port, as OSWorld's
    /// harness expects: screenshots, the accessibility tree as XML, commands, files, windows), so
    /// OSWorld's tasks run on this desktop. It needs the bearer token on every request and never
    /// answers a browser. The python package's `handrail.osworld` provider starts it.
    #[arg(long, value_name = "ADDR", requires_all = ["sandbox", "http"])]
    osworld_guest: Option<SocketAddr>,
    #[cfg(target_os = "linux")]
    /// A folder searched first for the programs OSWorld's commands name (its `python` with
    /// pyautogui, `google-chrome`): scripts/setup-osworld makes one.
    #[arg(long, value_name = "DIR", requires = "osworld_guest")]
    osworld_bin: Option<PathBuf>,
    /// How results carry their screenshot: inline (in the result), resource (a link the host reads
    /// with resources/read; keeps results small for hosts that cap them) or none. A call's `image`
    /// argument overrides it for that call.
    #[arg(long, value_name = "MODE", default_value = "inline", value_parser = parse_images)]
    images: ImageDelivery,
    /// Draw each listed element's box and id on the screenshots sent to the model (set-of-marks);
    /// a call's `marks` argument overrides it.
    #[arg(long)]
    marks: bool,
    /// A folder `read_image` may read from (repeatable).
    #[arg(long = "image-root", value_name = "DIR")]
    image_roots: Vec<PathBuf>,
    /// Only open URLs on these domains (repeatable; default: any http/https URL).
    ///
    /// The Chromium handrail starts (open_url, open_app chromium) sends every request through a
    /// loopback proxy that enforces this, and so do other browsers open_app starts: Chrome, Brave,
    /// Edge and Vivaldi with the same switches, Firefox in a private profile set to the proxy (whose
    /// own settings page could turn it off). Epiphany, Falkon, Konqueror, qutebrowser and Midori are
    /// not started while this is given. A browser the person started is outside the proxy: there
    /// handrail judges only addresses typed into its address bar, and undoes a page outside these
    /// domains after the action that led to it, when the request has already left.
    #[arg(long = "allow-domain", value_name = "DOMAIN")]
    allowed_domains: Vec<String>,
    /// Actions per interactive turn.
    #[arg(long, value_name = "N")]
    max_actions: Option<u32>,
    /// see/inspect calls per interactive turn.
    #[arg(long, value_name = "N")]
    max_observations: Option<u32>,
    /// For clients that send no turn ids: a call after this many seconds without calls starts a new
    /// turn (default 600: ten of the slowest model steps, so one task is not cut into turns).
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    idle_gap: u64,
    /// For clients that send no turn ids: the action ceiling and observation budget also refill every
    /// this many seconds (default 300), so the tool never locks for good.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    budget_window: u64,
    /// A file holding the HTTP bearer token (instead of HANDRAIL_TOKEN).
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,
    /// Another host name accepted in HTTP `Host` headers (repeatable; loopback names always are).
    /// `*` accepts any, with a bearer token only (a pod reached by IP or Service name).
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    allowed_hosts: Vec<String>,
    /// A file holding the key (at least 32 bytes) that seals the request state of questions asked on
    /// the stateless protocol, instead of HANDRAIL_STATE_KEY. Replicas behind one load balancer that
    /// share it can each take a retry; without one, each process has a key of its own.
    #[arg(long, value_name = "FILE")]
    state_key_file: Option<PathBuf>,
    /// Another browser origin accepted on HTTP (repeatable; loopback pages always are).
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    #[cfg(target_os = "linux")]
    /// A program to start inside the sandbox before serving, with its arguments.
    #[arg(last = true, requires = "sandbox")]
    launch: Vec<String>,
}

const WHO: &str = "handrail serve";

fn parse_images(s: &str) -> Result<ImageDelivery, String> {
    ImageDelivery::parse(s).ok_or_else(|| format!("{s:?} is not one of inline, resource, none"))
}

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

/// The request-state sealer from --state-key-file or HANDRAIL_STATE_KEY (the key's bytes as given,
/// surrounding whitespace removed), if either is set.
fn sealer(args: &ServeArgs) -> Result<Option<Sealer>> {
    let key = match &args.state_key_file {
        Some(path) => std::fs::read(path).with_context(|| format!("reading the state key file {}", path.display()))?,
        None => match std::env::var_os("HANDRAIL_STATE_KEY") {
            Some(k) => k.into_encoded_bytes(),
            None => return Ok(None),
        },
    };
    let key = key.trim_ascii().to_vec();
    let sealer = Sealer::new(key, QUESTION_LIFETIME).context("the request-state key")?;
    Ok(Some(sealer))
}

fn config(args: &ServeArgs) -> Result<Config> {
    let declared = args.vision.as_deref().map(|v| v == "yes");
    let vision = crate::desktops::decide_vision(WHO, declared, args.model_endpoint.as_deref(), args.model.as_deref());
    let mut config = Config { vision, ..Config::default() };
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
    if args.unattended {
        // Unattended turns keep their smaller ceiling even when --max-actions raises the interactive one.
        config.knobs.max_actions = format!("--max-actions N (unattended: at most {})", config.unattended.mutations);
        config.knobs.max_observations =
            format!("--max-observations N (unattended: at most {})", config.unattended.observations);
    }
    config.url_policy.allowed_domains = args.allowed_domains.clone();
    config.marks = args.marks;
    Ok(config)
}

/// The desktop the arguments name.
#[cfg(target_os = "linux")]
fn desktop_choice(args: &ServeArgs) -> DesktopChoice {
    DesktopChoice {
        sandbox: args.sandbox,
        session: crate::sandbox::session(args.wayland, args.gnome),
        wayland_display: args.wayland_display.clone(),
        size: args.size,
        opengl: args.opengl,
        gnome_root: args.gnome_root.as_deref().map(crate::sandbox::absolute),
        display: args.display.clone(),
        launch: args.launch.clone(),
        ocr_languages: args.ocr_lang.clone(),
        gnome_route: args.gnome_route,
    }
}

/// The desktop the arguments name: this system's own (`--simulated` is taken apart).
#[cfg(not(target_os = "linux"))]
fn desktop_choice(args: &ServeArgs) -> DesktopChoice {
    DesktopChoice { ocr_languages: args.ocr_lang.clone() }
}

pub fn run(args: ServeArgs) -> Result<()> {
    let config = config(&args)?;
    let token = token(&args)?;
    #[cfg(target_os = "linux")]
    if token.is_none() {
        // Commands run inside the desktop are for the harness alone, not for whatever else can
        // reach a loopback port.
        let asked = [("--setup-endpoints", args.setup_endpoints), ("--osworld-guest", args.osworld_guest.is_some())];
        if let Some((flag, _)) = asked.iter().find(|(_, on)| *on) {
            bail!("{flag} needs a bearer token (HANDRAIL_TOKEN or --token-file), even on loopback");
        }
    }
    let sealer = sealer(&args)?;
    let sees = config.vision == handrail_core::Vision::Capable;
    let (desktop, mut running) =
        crate::desktops::open(WHO, &desktop_choice(&args), args.simulated, sees, &config.url_policy)?;
    crate::desktops::watch_sandbox(WHO, &mut running);

    let engine = Engine::new(desktop, config);
    let defaults = TurnDefaults {
        id: args.turn_id.clone(),
        intent: args.intent.clone(),
        mode: if args.unattended { Mode::Unattended } else { Mode::Interactive },
        source: TurnSource::Inferred {
            idle_gap: Duration::from_secs(args.idle_gap),
            window: Duration::from_secs(args.budget_window),
        },
    };
    let audit = match &args.audit_log {
        Some(path) => Some(AuditLog::open(path).with_context(|| format!("opening the audit log {}", path.display()))?),
        None => None,
    };
    let trace = match &args.trace {
        Some(dir) => Some(
            handrail_trace::TraceWriter::create(dir, WHO, handrail_calls::unix_ms())
                .with_context(|| format!("starting the trace in {}", dir.display()))?,
        ),
        None => None,
    };
    let options = ServerOptions {
        image_roots: ImageRoots::new(args.image_roots.clone()),
        sealer,
        images: args.images,
        trace_dir: args.trace.clone(),
        ..ServerOptions::default()
    };
    let mut calls = Calls::new(engine, defaults, audit, trace);
    if let Some(reset) = running.reset_hook()? {
        calls = calls.with_reset(reset);
    }
    if let Some(root) = &args.task_traces {
        std::fs::create_dir_all(root).with_context(|| format!("creating the task trace folder {}", root.display()))?;
        calls = calls.with_task_traces(TaskTraceRoot { root: root.clone(), recorder: WHO.to_string() });
    }
    #[cfg(target_os = "linux")]
    let task_setup = running
        .task_setup()
        .filter(|_| args.setup_endpoints)
        .map(|setup| std::sync::Arc::new(crate::setup::SandboxSetup(setup)) as handrail_mcp::TaskSetup);
    #[cfg(not(target_os = "linux"))]
    let task_setup = None;
    #[cfg(target_os = "linux")]
    let guest = match (args.osworld_guest, &token) {
        (Some(addr), Some(token)) => {
            Some(crate::osworld::serve(WHO, &running, addr, token, args.osworld_bin.as_deref())?)
        }
        _ => None,
    };
    let options = ServerOptions { warm_up: true, desktop_check: running.desktop_check(), task_setup, ..options };
    let server = HandrailServer::start(calls, options).context("starting the engine thread")?;
    let handle = server.clone();

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
                eprintln!("{WHO}: liveness at /healthz, readiness at /readyz, POST /reset between tasks");
                #[cfg(target_os = "linux")]
                if args.setup_endpoints {
                    eprintln!("{WHO}: task set-up at PUT/GET /files/PATH (in the sandbox's home) and POST /run");
                }
            })
        }
    };
    // The guest reads the sandbox: it stops first.
    #[cfg(target_os = "linux")]
    drop(guest);
    let stopped = running.stop();
    if let Some(dir) = args.trace.clone().or_else(|| handle.task_trace_dir()) {
        let dir = &dir;
        match handrail_trace::report::write_report(dir) {
            Ok(path) => eprintln!("{WHO}: trace report at {}", path.display()),
            Err(e) => eprintln!("{WHO}: could not write the trace report: {e}"),
        }
    }
    served.map_err(|e| anyhow!(e))?;
    stopped?;
    eprintln!("{WHO}: stopped");
    Ok(())
}
