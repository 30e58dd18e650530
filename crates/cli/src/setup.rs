//! The sandbox's side of the set-up endpoints (`serve --setup-endpoints`): the wire answers made from
//! `handrail_sandbox::TaskSetup`, which keeps files inside the private home and runs commands in the
//! sandbox's session.

use std::time::Duration;

use handrail_mcp::setup::DEFAULT_RUN_TIMEOUT_MS;
use handrail_mcp::{SetupFailure, TaskSetupHook};
use handrail_sandbox::{SetupError, TaskSetup};
use handrail_wire::service::{FileWritten, RunReport, RunRequest, SERVICE_VERSION};

pub struct SandboxSetup(pub TaskSetup);

fn failure(e: SetupError) -> SetupFailure {
    match e {
        SetupError::BadPath(_) | SetupError::EmptyCommand => SetupFailure::BadRequest(e.to_string()),
        SetupError::NotFound(_) => SetupFailure::NotFound(e.to_string()),
        SetupError::TooLarge { .. } => SetupFailure::TooLarge(e.to_string()),
        // A program that is not there is the request's fault; the rest is the desktop's.
        SetupError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            SetupFailure::BadRequest(e.to_string())
        }
        SetupError::Io { .. } => SetupFailure::Failed(e.to_string()),
    }
}

impl TaskSetupHook for SandboxSetup {
    fn put_file(&self, path: &str, bytes: &[u8]) -> Result<FileWritten, SetupFailure> {
        let written = self.0.put_file(path, bytes).map_err(failure)?;
        log::info!("set-up: wrote {} ({} bytes)", written.display(), bytes.len());
        Ok(FileWritten { version: SERVICE_VERSION, path: written.display().to_string(), bytes: bytes.len() as u64 })
    }

    fn get_file(&self, path: &str, max: u64) -> Result<Vec<u8>, SetupFailure> {
        self.0.get_file(path, max).map_err(failure)
    }

    fn run(&self, request: &RunRequest) -> Result<RunReport, SetupFailure> {
        let timeout = request.timeout_ms.unwrap_or(DEFAULT_RUN_TIMEOUT_MS);
        let wait = request.wait.then(|| Duration::from_millis(timeout));
        let out = self.0.run(&request.argv, wait).map_err(failure)?;
        log::info!(
            "set-up: ran {:?} (pid {}): exit {:?}, signal {:?}{}",
            request.argv.first(),
            out.pid,
            out.exit_code,
            out.signal,
            if out.running { ", left running" } else { "" }
        );
        Ok(RunReport {
            version: SERVICE_VERSION,
            pid: out.pid,
            exit_code: out.exit_code,
            signal: out.signal,
            timed_out: out.timed_out,
            running: out.running,
            stdout: out.stdout,
            stderr: out.stderr,
            truncated: out.truncated,
            duration_ms: out.duration.as_millis() as u64,
        })
    }
}
