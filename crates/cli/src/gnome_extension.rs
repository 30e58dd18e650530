//! `handrail gnome-extension`: installs handrail's GNOME Shell extension for the person running it.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

#[derive(Debug, Args)]
pub struct GnomeExtensionArgs {
    /// Where user data lives (default: $XDG_DATA_HOME, else ~/.local/share); the extension goes into
    /// its gnome-shell/extensions directory.
    #[arg(long, value_name = "DIR")]
    data_home: Option<PathBuf>,
    /// Only say whether this handrail's extension is installed there (exit status 1 when not).
    #[arg(long)]
    check: bool,
    /// The GNOME Shell release to install for (43 to 48); by default the one `gnome-shell --version`
    /// names. GNOME 45 changed the extension format, so the release decides which is written.
    #[arg(long, value_name = "RELEASE")]
    shell: Option<u32>,
}

/// The GNOME Shell release: `--shell`, else what `gnome-shell --version` prints.
fn shell_release(args: &GnomeExtensionArgs) -> Result<u32> {
    if let Some(release) = args.shell {
        return Ok(release);
    }
    let out = std::process::Command::new("gnome-shell")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .context("running `gnome-shell --version` to learn the release (or pass --shell RELEASE)")?;
    let printed = String::from_utf8_lossy(&out.stdout);
    handrail_gnome_extension::shell_release(&printed).with_context(|| {
        format!("`gnome-shell --version` printed {:?}, which names no release: pass --shell RELEASE", printed.trim())
    })
}

fn data_home(args: &GnomeExtensionArgs) -> Result<PathBuf> {
    if let Some(dir) = &args.data_home {
        return Ok(dir.clone());
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".local/share")),
        None => bail!("neither XDG_DATA_HOME nor HOME is set: pass --data-home"),
    }
}

pub fn run(args: GnomeExtensionArgs) -> Result<std::process::ExitCode> {
    let home = data_home(&args)?;
    let dir = handrail_gnome_extension::install_dir(&home);
    let release = shell_release(&args)?;
    let format = handrail_gnome_extension::Format::for_shell(release)?;
    if args.check {
        let installed = handrail_gnome_extension::is_installed(&home, format);
        println!("{}: {}", dir.display(), if installed { "installed (this version)" } else { "not installed" });
        return Ok(if installed { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::from(1) });
    }
    let dir = handrail_gnome_extension::install(&home, format).context("installing the extension")?;
    println!("installed handrail's GNOME Shell extension (for GNOME Shell {release}) in {}", dir.display());
    println!(
        "GNOME on Wayland loads a new extension only at login: log out and in again, then run\n  \
         gnome-extensions enable {}\nIt tells handrail where windows are and raises the one asked for; \
         it types, captures and closes nothing.",
        handrail_gnome_extension::UUID
    );
    Ok(std::process::ExitCode::SUCCESS)
}
