//! What the tests that run `handrail` and the test tools as processes share: the workspace, the
//! test tools' Python, the probe app, a process's output for a failure message, and `handrail serve
//! --http` in the background, stopped gently.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Output};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// The GTK probe app, which prints every event it receives.
pub fn probe_app() -> String {
    workspace().join("testdata/apps/probe_gtk.py").display().to_string()
}

/// The Python with the MCP SDK and the client's dependencies: `HANDRAIL_TEST_PYTHON`, or the one
/// `scripts/setup-test-tools` makes.
pub fn test_python() -> PathBuf {
    let path = std::env::var_os("HANDRAIL_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/test-tools/venv/bin/python"));
    assert!(path.exists(), "{} is missing: run scripts/setup-test-tools first", path.display());
    path
}

pub fn show(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// This crate's `handrail serve --http 127.0.0.1:0 …` in the background
/// ([`handrail_testkit::served::Served`]), with what these tests read of it; stopped with SIGTERM on
/// drop.
pub struct Served {
    inner: handrail_testkit::served::Served,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The private desktop's display, when it is a sandbox.
    pub display: Option<String>,
}

impl Served {
    pub fn start(args: &[&str], envs: &[(&str, &str)]) -> Served {
        let envs: Vec<(String, String)> = envs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let inner = handrail_testkit::served::Served::start(env!("CARGO_BIN_EXE_handrail"), args, &envs);
        let (url, display) = (inner.url.clone(), inner.sandbox_display());
        Served { inner, url, display }
    }

    pub fn pid(&self) -> u32 {
        self.inner.pid()
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        self.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string()
    }

    /// The private desktop's temporary root (its home is inside), when it is a sandbox.
    pub fn sandbox_root(&self) -> Option<std::path::PathBuf> {
        self.inner.sandbox_root()
    }

    /// Everything the server wrote to stderr so far.
    pub fn log(&self) -> String {
        self.inner.log().join("\n")
    }

    /// SIGTERM, then the exit status; fails the test if the server has not stopped within 30 s.
    pub fn stop(self) -> ExitStatus {
        self.inner.stop()
    }
}
