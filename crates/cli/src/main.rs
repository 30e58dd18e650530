//! The `handrail` command.

#[cfg(target_os = "linux")]
mod agent;
mod demo;
mod desktops;
#[cfg(target_os = "linux")]
mod gnome_extension;
#[cfg(target_os = "linux")]
mod osworld;
#[cfg(target_os = "linux")]
mod sandbox;
mod serve;
#[cfg(target_os = "linux")]
mod setup;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// handrail: the computer tool for AI agents — observe → act → verify, with guards in code.
#[derive(Debug, Parser)]
#[command(name = "handrail", version, about, long_about = None)]
struct Cli {
    /// Log verbosity on stderr: error, warn, info, debug.
    #[arg(long, global = true, default_value = "warn")]
    log: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a short scripted session through the engine and write a trace of every step.
    ///
    /// The session shows the whole loop — observing, acting by element id, verifying with `expect` — and
    /// the guards refusing a destructive click, a permanent-delete hotkey, a password field, a URL with
    /// credentials, a stale observation and a text-only model. It starts a private desktop, works a
    /// notes page in Chromium there, and ends on its own.
    Demo {
        /// Directory for the trace (steps as JSON lines, the text each step returned, and screenshots).
        #[arg(long, default_value = "handrail-trace")]
        trace: PathBuf,
        /// Run on the built-in simulated desktop instead (needs no system packages; the only
        /// desktop of the demo outside Linux).
        #[arg(long)]
        simulated: bool,
        /// Run on a private Wayland desktop (headless sway) instead of an X11 one.
        #[cfg(target_os = "linux")]
        #[arg(long, conflicts_with = "simulated")]
        wayland: bool,
        /// Run on a private GNOME desktop (headless GNOME Shell) instead of an X11 one.
        #[cfg(target_os = "linux")]
        #[arg(long, conflicts_with_all = ["wayland", "simulated"])]
        gnome: bool,
    },
    /// Start a private virtual desktop (Xvfb, session bus, accessibility bus, openbox; or with
    /// --wayland a headless sway).
    ///
    /// Without a command it prints the environment to use (as `export` lines on stdout) and keeps the
    /// desktop up until Ctrl-C; with a command after `--` it runs that command inside the desktop and
    /// tears everything down when it exits, returning its exit code. Every process started is stopped,
    /// also when handrail itself is killed.
    #[cfg(target_os = "linux")]
    Sandbox(sandbox::SandboxArgs),
    /// Serve the `computer` and `read_image` tools over MCP (stdio by default, or streamable HTTP).
    ///
    /// The desktop is $DISPLAY, another --display, a private --sandbox, or the --simulated one. The
    /// main model must be declared vision-capable (--vision yes, a known --model, or a
    /// --model-endpoint that says so); otherwise every call answers `[unsupported]` and nothing is
    /// touched. Hosts pass turns in request `_meta`: handrail/turn, handrail/intent, handrail/mode.
    Serve(Box<serve::ServeArgs>),
    /// Give a task to a model on an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, …)
    /// and watch it work the desktop through the computer tool.
    ///
    /// Before anything touches a desktop the model's vision is checked (the server is asked, then the
    /// known-model table; --vision overrides): a text-only model gets only refusals. By default the
    /// agent works a private sandbox desktop; progress goes to the terminal, a trace to --trace.
    #[cfg(target_os = "linux")]
    Agent(Box<agent::AgentArgs>),
    /// Write a trace's HTML report (TRACE_DIR/report.html): one self-contained page with every step's
    /// screenshots, overlays, guard decisions and timings. It loads nothing from the network.
    Report {
        /// The trace folder (written by `serve --trace`, `demo` or `agent`).
        trace: PathBuf,
    },
    /// Install handrail's GNOME Shell extension (GNOME 43 to 48) for the current user.
    ///
    /// GNOME on Wayland tells no program where windows are; the extension serves the window stack
    /// on the session bus and raises the window asked for (it types, captures and closes nothing).
    /// GNOME loads it at the next login; then enable it with `gnome-extensions enable`.
    #[cfg(target_os = "linux")]
    GnomeExtension(gnome_extension::GnomeExtensionArgs),
}

/// Logs go to stderr: stdout is reserved for protocol traffic and results.
struct StderrLogger {
    level: log::LevelFilter,
}

impl log::Log for StderrLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("[{} {}] {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

fn init_logging(level: &str) -> Result<()> {
    let level: log::LevelFilter = level
        .parse()
        .map_err(|_| anyhow::anyhow!("--log must be one of off, error, warn, info, debug, trace (got {level:?})"))?;
    // Leaked once for the life of the process, as `log` requires a 'static logger.
    let logger: &'static StderrLogger = Box::leak(Box::new(StderrLogger { level }));
    log::set_logger(logger).map_err(|e| anyhow::anyhow!("cannot install the logger: {e}"))?;
    log::set_max_level(level);
    Ok(())
}

fn main() -> Result<std::process::ExitCode> {
    // Before any thread exists: Tesseract's OpenMP reads OMP_THREAD_LIMIT only at load time, and
    // several threads per recognition make it 3-6x slower on small machines.
    #[cfg(target_os = "linux")]
    handrail_ocr::ensure_thread_limit_or_reexec();
    let cli = Cli::parse();
    init_logging(&cli.log)?;
    match cli.command {
        #[cfg(target_os = "linux")]
        Command::Demo { trace, simulated, wayland, gnome } => {
            let on = if simulated {
                demo::DemoDesktop::Simulated
            } else {
                demo::DemoDesktop::Sandbox(sandbox::session(wayland, gnome))
            };
            demo::run(&trace, on).map(|()| std::process::ExitCode::SUCCESS)
        }
        #[cfg(not(target_os = "linux"))]
        Command::Demo { trace, simulated: _ } => {
            demo::run(&trace, demo::DemoDesktop::Simulated).map(|()| std::process::ExitCode::SUCCESS)
        }
        #[cfg(target_os = "linux")]
        Command::Sandbox(args) => sandbox::run(args),
        Command::Serve(args) => serve::run(*args).map(|()| std::process::ExitCode::SUCCESS),
        #[cfg(target_os = "linux")]
        Command::Agent(args) => agent::run(*args),
        Command::Report { trace } => {
            let path = handrail_trace::report::write_report(&trace)?;
            println!("{}", path.display());
            Ok(std::process::ExitCode::SUCCESS)
        }
        #[cfg(target_os = "linux")]
        Command::GnomeExtension(args) => gnome_extension::run(args),
    }
}
