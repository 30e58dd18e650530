//! `handrail serve --http 127.0.0.1:0 …` as a process of its own, the way an operator runs it: its
//! stderr kept line by line, its URL, its sandbox (with `--sandbox`), signals, and a bounded stop.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::wait_until;

/// A running `handrail serve --http`; stopped with SIGTERM (then SIGKILL) when dropped.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served").field("pid", &self.child.id()).field("url", &self.url).finish_non_exhaustive()
    }
}

impl Served {
    /// Starts `binary serve --http 127.0.0.1:0 ARGS` with `envs` added, and waits (at most 90 s) until
    /// it listens. Panics with its stderr if it does not (at once when it exits).
    pub fn start(binary: &str, args: &[&str], envs: &[(String, String)]) -> Served {
        let mut child = Command::new(binary)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .envs(envs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("handrail serve starts");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(pipe) = child.stderr.take() {
            let lines = stderr.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Ok(mut l) = lines.lock() {
                        l.push(line);
                    }
                }
            });
        }
        let mut served = Served { child, url: String::new(), stderr };
        let url = served.wait_for_listening(Duration::from_secs(90));
        match url.as_deref().and_then(|l| l.split("MCP at ").nth(1)).and_then(|r| r.split_whitespace().next()) {
            Some(url) => served.url = url.to_string(),
            None => {
                let _ = served.child.kill();
                let _ = served.child.wait();
                panic!("handrail serve did not start listening:\n{}", served.log().join("\n"));
            }
        }
        served
    }

    /// The line announcing the URL, or `None` once the server has exited (its stderr is then
    /// complete) or `within` has passed.
    fn wait_for_listening(&mut self, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        loop {
            let exited = matches!(self.child.try_wait(), Ok(Some(_)));
            if exited {
                // The stderr reader may still be taking in the last lines.
                std::thread::sleep(Duration::from_millis(100));
            }
            if let Some(line) = self.log().into_iter().find(|l| l.contains("MCP at http://")) {
                return Some(line);
            }
            if exited || Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Every stderr line so far.
    pub fn log(&self) -> Vec<String> {
        self.stderr.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The first stderr line that `want` accepts, waiting for it at most `within`.
    pub fn wait_for_log(&self, within: Duration, want: impl Fn(&str) -> bool) -> Option<String> {
        wait_until(within, Duration::from_millis(20), || self.log().into_iter().find(|l| want(l)))
    }

    /// With `--sandbox`: the private desktop's display (`:N`), from the server's own words.
    pub fn sandbox_display(&self) -> Option<String> {
        let line = self.log().into_iter().find(|l| l.contains("private desktop :"))?;
        let display = line.split("private desktop ").nth(1)?.split_whitespace().next()?;
        Some(display.to_string())
    }

    /// With `--sandbox`: the sandbox's private root (`handrail-sandbox-PID-…` in the temporary
    /// directory); its name after `handrail-sandbox-` is the sandbox's marker id.
    pub fn sandbox_root(&self) -> Option<PathBuf> {
        let prefix = format!("handrail-sandbox-{}-", self.child.id());
        [std::env::temp_dir(), PathBuf::from("/tmp")].into_iter().find_map(|dir| {
            std::fs::read_dir(&dir)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix)))
        })
    }

    /// Sends `signal` (a name `kill` knows: TERM, KILL, STOP…).
    pub fn signal(&self, signal: &str) {
        signal_pid(self.child.id(), signal);
    }

    /// Its exit status, waiting at most `within`.
    pub fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM, then the exit status. Panics with its stderr if it does not exit within 30 s.
    pub fn stop(mut self) -> ExitStatus {
        self.signal("TERM");
        match self.wait_exit(Duration::from_secs(30)) {
            Some(status) => status,
            None => {
                let _ = self.child.kill();
                panic!("handrail serve did not stop on SIGTERM:\n{}", self.log().join("\n"));
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.signal("TERM");
            if self.wait_exit(Duration::from_secs(20)).is_none() {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
    }
}

/// Sends `signal` to `pid` with `kill(1)`.
pub fn signal_pid(pid: u32, signal: &str) {
    let _ = Command::new("kill").args([format!("-{signal}"), pid.to_string()]).status();
}
