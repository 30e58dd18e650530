//! `handrail sandbox`: a private desktop for agents, evaluations and tests.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use handrail_sandbox::{run_inside, Sandbox, SandboxOptions, Session};

#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// Screen size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    size: (u32, u32),
    /// X display number to use (default: the first free one from :90).
    #[arg(long)]
    display: Option<u32>,
    /// Start without a window manager (no focus on click, no EWMH).
    #[arg(long)]
    no_window_manager: bool,
    /// Start without the accessibility bus.
    #[arg(long)]
    no_accessibility: bool,
    /// A Wayland desktop (a private headless sway, run as an unprivileged user when started as root)
    /// instead of an X11 one.
    #[arg(long, conflicts_with_all = ["display", "no_window_manager"])]
    wayland: bool,
    /// A GNOME desktop: a private headless GNOME Shell (Wayland) with handrail's extension, PipeWire
    /// and WirePlumber for its screen casts, and a logind stand-in on a private system bus.
    #[arg(long, conflicts_with_all = ["display", "no_window_manager", "wayland"])]
    gnome: bool,
    /// With --gnome: run GNOME Shell, PipeWire and WirePlumber from this root file system instead of
    /// the machine's (GNOME 48 from Debian 13: scripts/setup-trixie makes one at
    /// /var/cache/handrail/trixie-gnome); the apps stay the machine's.
    #[arg(long, value_name = "DIR", requires = "gnome")]
    gnome_root: Option<std::path::PathBuf>,
    /// With --gnome: also run the desktop portal (xdg-desktop-portal with GNOME's backend), as a GNOME
    /// session has it — what `handrail serve --gnome-route portal` inside it asks.
    #[arg(long, requires = "gnome")]
    gnome_portal: bool,
    /// Offer OpenGL (the X server's GLX, Mesa's software renderer) to apps that need it; off by
    /// default, as it costs each desktop ~55 MB.
    #[arg(long, conflicts_with_all = ["wayland", "gnome"])]
    opengl: bool,
    /// A command to run inside the desktop; the desktop stops when it exits.
    #[arg(last = true)]
    command: Vec<String>,
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("expected WIDTHxHEIGHT, got {s:?}"))?;
    let parse = |v: &str| v.trim().parse::<u32>().map_err(|_| format!("{v:?} is not a number of pixels"));
    let size = (parse(w)?, parse(h)?);
    if !(200..=8192).contains(&size.0) || !(200..=8192).contains(&size.1) {
        return Err(format!("{s} is outside 200x200..8192x8192"));
    }
    Ok(size)
}

fn options(args: &SandboxArgs) -> SandboxOptions {
    SandboxOptions {
        size: args.size,
        display: args.display,
        window_manager: !args.no_window_manager,
        accessibility: !args.no_accessibility,
        session: session(args.wayland, args.gnome),
        opengl: args.opengl,
        gnome_root: args.gnome_root.as_deref().map(absolute),
        gnome_portal: args.gnome_portal,
        ..SandboxOptions::default()
    }
}

/// The sandbox's desktop from the `--wayland` and `--gnome` flags (which exclude each other).
pub(crate) fn session(wayland: bool, gnome: bool) -> Session {
    if gnome {
        Session::Gnome
    } else if wayland {
        Session::Sway
    } else {
        Session::X11
    }
}

/// `path` made absolute against the working directory (the sandbox takes absolute roots only).
pub(crate) fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// Quotes a value for a POSIX shell `export` line.
fn shell_quote(v: &str) -> String {
    format!("'{}'", v.replace('\'', r"'\''"))
}

pub fn run(args: SandboxArgs) -> Result<ExitCode> {
    let opts = options(&args);
    if let Some((program, rest)) = args.command.split_first() {
        let status = run_inside(opts, program, rest).with_context(|| format!("running {program} in the sandbox"))?;
        return Ok(match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::from(1),
        });
    }
    let sandbox = Sandbox::start(opts).context("starting the sandbox desktop")?;
    for (key, value) in sandbox.env() {
        println!("export {key}={}", shell_quote(&value));
    }
    eprintln!(
        "handrail sandbox: desktop {} is up in {:?}; press Ctrl-C to stop it",
        sandbox.session_name(),
        sandbox.timings().total
    );
    let (why, report) = sandbox.run_until_signal().context("waiting for the sandbox")?;
    eprintln!(
        "handrail sandbox: stopped ({why:?}) in {:?}; {} processes ended",
        report.duration,
        report.terminated.len() + report.killed.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_or_say_why() {
        assert_eq!(parse_size("1280x800"), Ok((1280, 800)));
        assert!(parse_size("1280").is_err());
        assert!(parse_size("10x10").is_err());
        assert!(parse_size("ax800").is_err());
    }

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
    }
}
