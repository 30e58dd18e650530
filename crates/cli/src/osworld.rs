//! The sandbox's side of OSWorld's guest API (`serve --osworld-guest`): commands and files through
//! the sandbox's task set-up (its session and private home), the screen and the accessibility tree
//! through a second view of its desktop, so the guest never waits on the engine's thread.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use handrail_imaging::PngEncoder;
use handrail_osworld::{GuestDesktop, GuestError, GuestServer, Ran};
use handrail_platform::{AxLimits, AxSnapshot, Desktop, Encoder};
use handrail_sandbox::{SetupError, TaskSetup};

use crate::desktops::Running;

/// The accessibility walk may take longer than the engine's (OSWorld's tree is the whole desktop,
/// read once per step, not on every action).
const TREE_LIMITS: AxLimits =
    AxLimits { max_nodes: 20_000, call_timeout: Duration::from_millis(500), deadline: Duration::from_secs(5) };

/// How long a launch waits for its command to end before answering (the command goes on running).
const LAUNCH_GRACE: Duration = Duration::from_millis(250);

struct SandboxGuest {
    setup: TaskSetup,
    view: Mutex<Desktop>,
}

fn failure(e: SetupError) -> GuestError {
    match e {
        SetupError::BadPath(_) | SetupError::EmptyCommand => GuestError::BadRequest(e.to_string()),
        SetupError::NotFound(_) => GuestError::NotFound(e.to_string()),
        SetupError::TooLarge { .. } => GuestError::TooLarge(e.to_string()),
        SetupError::Io { .. } => GuestError::Failed(e.to_string()),
    }
}

impl SandboxGuest {
    fn view(&self) -> Result<std::sync::MutexGuard<'_, Desktop>, GuestError> {
        self.view.lock().map_err(|_| GuestError::Failed("the desktop view was poisoned by a panic".into()))
    }
}

impl GuestDesktop for SandboxGuest {
    fn home(&self) -> &Path {
        self.setup.home()
    }

    fn screenshot(&self) -> Result<Vec<u8>, GuestError> {
        let view = self.view()?;
        let frame = view.screen.capture(None, None).map_err(|e| GuestError::Failed(e.to_string()))?;
        let png = PngEncoder::default().encode(&frame).map_err(|e| GuestError::Failed(e.to_string()))?;
        Ok(png.bytes)
    }

    fn screen_size(&self) -> Result<(u32, u32), GuestError> {
        let size = self.view()?.screen.screen_size().map_err(|e| GuestError::Failed(e.to_string()))?;
        Ok((size.width, size.height))
    }

    fn accessibility(&self) -> Result<AxSnapshot, GuestError> {
        Ok(self.view()?.accessibility.snapshot(&TREE_LIMITS))
    }

    fn run(&self, argv: &[String], timeout: Duration, cwd: Option<&Path>) -> Result<Ran, GuestError> {
        let out = match cwd {
            Some(dir) => self.setup.run_in(argv, Some(timeout), dir),
            None => self.setup.run(argv, Some(timeout)),
        }
        .map_err(failure)?;
        Ok(Ran {
            exit_code: out.exit_code,
            signal: out.signal,
            timed_out: out.timed_out,
            stdout: out.stdout,
            stderr: out.stderr,
        })
    }

    fn launch(&self, argv: &[String]) -> Result<(), GuestError> {
        // A command that ends at once has ended before the next set-up step is asked for. Tasks
        // stop an app and start it again as two launches (`pkill vlc`, then `vlc`); answered at
        // once, the new VLC could be named before pkill read the process table, and be killed too.
        // On OSWorld's VMs the round trip between the two requests keeps them in order.
        self.setup.start(argv, LAUNCH_GRACE).map(drop).map_err(failure)
    }

    fn put_file(&self, relative: &str, bytes: &[u8]) -> Result<(), GuestError> {
        self.setup.put_file(relative, bytes).map(drop).map_err(failure)
    }

    fn get_file(&self, relative: &str, max: u64) -> Result<Vec<u8>, GuestError> {
        self.setup.get_file(relative, max).map_err(failure)
    }
}

/// Starts the guest for the sandbox `running` holds, at `addr`, behind `token`; programs are looked
/// up in `bin` first.
pub fn serve(who: &str, running: &Running, addr: SocketAddr, token: &str, bin: Option<&Path>) -> Result<GuestServer> {
    let setup = running.task_setup().ok_or_else(|| anyhow!("--osworld-guest needs a sandbox desktop"))?;
    let setup = match bin {
        Some(dir) => {
            anyhow::ensure!(dir.is_dir(), "--osworld-bin {} is not a folder", dir.display());
            setup.with_path_first(dir)
        }
        None => setup,
    };
    let view = running.harness_view().ok_or_else(|| anyhow!("--osworld-guest needs a sandbox desktop"))??;
    let guest = Arc::new(SandboxGuest { setup, view: Mutex::new(view) });
    let server = GuestServer::start(addr, token, guest).context("starting the OSWorld guest")?;
    eprintln!("{who}: OSWorld guest at http://{} (bearer token required)", server.local_addr());
    Ok(server)
}
