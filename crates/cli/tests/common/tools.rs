//! What the tests that run `handrail` and the test tools as processes share: the workspace, the
//! test tools' Python, a process's output for a failure message, and `handrail serve --http` in the
//! background, stopped gently.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
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

/// SIGTERM, then SIGKILL if `child` has not exited `within`; whether it exited on SIGTERM.
pub fn stop_gently(child: &mut Child, within: Duration) -> bool {
    if !matches!(child.try_wait(), Ok(None)) {
        return true;
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// `handrail serve --http 127.0.0.1:0 …` running in the background, its stderr collected; stopped
/// with SIGTERM on drop.
pub struct Served {
    pub child: Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The private desktop's display, when it is a sandbox.
    pub display: Option<String>,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Served {
    pub fn start(args: &[&str], envs: &[(&str, &str)]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_handrail"))
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let seen = log.clone();
        std::thread::spawn(move || {
            let mut display = None;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(d) = line.split("private desktop ").nth(1).and_then(|r| r.split_whitespace().next()) {
                    display = Some(d.to_string());
                }
                if let Some(url) = line.split("MCP at ").nth(1).and_then(|r| r.split_whitespace().next()) {
                    let _ = tx.send((url.to_string(), display.clone()));
                }
                seen.lock().expect("log").push(line);
            }
        });
        let Ok((url, display)) = rx.recv_timeout(Duration::from_secs(60)) else {
            let _ = child.kill();
            panic!("serve did not start listening: {:?}", log.lock().expect("log"));
        };
        Served { child, url, display, log }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        self.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string()
    }

    /// Everything the server wrote to stderr so far.
    pub fn log(&self) -> String {
        self.log.lock().expect("log").join("\n")
    }

    /// SIGTERM, then the exit status; fails the test if the server has not stopped within 30 s.
    pub fn stop(mut self) -> ExitStatus {
        if !stop_gently(&mut self.child, Duration::from_secs(30)) {
            panic!("serve did not stop on SIGTERM: {}", self.log());
        }
        self.child.wait().expect("the exit status")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        stop_gently(&mut self.child, Duration::from_secs(20));
    }
}
