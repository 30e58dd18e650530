//! A terminal in a web page — the real xterm.js (Debian's node-xterm), wired to a real bash on a
//! pseudo-terminal, as ttyd, JupyterLab or a browser IDE's terminal are — in the sandbox's Chromium,
//! read through accessibility and OCR. The page's terminal must be known for what it is and the lines
//! typed into it judged before they run. What ran is checked on disk and in what the shell received
//! (the app logs every byte the page sends it), never from handrail's observation.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::Agent;
use handrail_core::{Config, Engine, GuardDecision, Mode, Outcome, Rule, Status, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::{wait_until, LineApp};
use handrail_x11::{X11Desktop, X11Options};

fn refused(o: &Outcome) {
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(o.guard, GuardDecision::Refused { rule: Rule::TerminalCommand }, "{}", o.text());
}

fn sent(o: &Outcome) {
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
}

fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let met = wait_until(Duration::from_secs(15), Duration::from_millis(50), || cond().then_some(()));
    assert!(met.is_some(), "never: {what}");
}

/// Everything the page has sent the shell so far.
fn shell_received(web: &mut LineApp) -> String {
    web.pending();
    web.seen
        .iter()
        .filter_map(|l| l.strip_prefix("input "))
        .filter_map(|j| serde_json::from_str::<String>(j).ok())
        .collect()
}

/// The lines the shell was asked to run: what it received up to each Return, after any ctrl+u.
fn committed(received: &str) -> Vec<String> {
    let mut parts: Vec<&str> = received.split('\r').collect();
    parts.pop();
    parts.iter().map(|p| p.rsplit('\u{15}').next().unwrap_or_default().to_string()).collect()
}

fn exists(dir: &Path, rel: &str) -> bool {
    dir.join(rel).exists()
}

impl Agent {
    /// Observes until the page's terminal is listed; its id.
    fn web_terminal(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            self.see();
            let obs = self.engine.latest().expect("an observation");
            if let Some(t) = obs.elements.iter().find(|e| e.role.as_str() == "terminal") {
                return t.id.to_string();
            }
            assert!(Instant::now() < deadline, "the page's terminal is never listed: {:?}", obs.elements);
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

#[test]
fn lines_typed_into_a_web_terminal_are_judged_before_they_run() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let scratch: PathBuf = sandbox.root().join("scratch");
    std::fs::create_dir_all(scratch.join("victim/sub")).expect("scratch");
    std::fs::write(scratch.join("victim/a.txt"), "keep me\n").expect("a file");
    let app = format!("{}/../../testdata/apps/web_terminal.py", env!("CARGO_MANIFEST_DIR"));
    let mut command = std::process::Command::new("/usr/bin/python3");
    command.arg(app).arg("--cwd").arg(&scratch);
    let mut web = LineApp::spawn(command);
    let url = web.wait_for(|l| l.starts_with("listening ")).expect("the web terminal listens");
    let url = url.trim_start_matches("listening ").to_string();
    // A terminal emulator beside the browser.
    let mut xterm = sandbox.command("xterm").args(["-geometry", "60x8+0+620"]).spawn().expect("xterm starts");
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    assert!(ocr.unavailable_reason().is_none(), "Tesseract is installed (scripts/setup-desktop)");
    let desktop = X11Desktop::connect(
        X11Options::new(sandbox.display(), common::sandbox_launch(&sandbox)),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(ocr),
    )
    .expect("desktop");
    let mut agent = Agent { engine: Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() }) };

    // --- Unattended: the terminal is clicked, then destructive lines are refused however typed. ---
    agent.turn("web-unattended", "check the disk usage", Mode::Unattended);
    sent(&agent.call(&[("action", "open_url"), ("url", &url)]));
    let term = agent.web_terminal();
    let obs = agent.engine.latest().map(|o| o.id.to_string()).expect("obs");
    sent(&agent.call(&[("action", "click"), ("observation_id", &obs), ("element_id", &term)]));
    // A harmless line runs (and the shell says so on disk).
    sent(&agent.type_text("touch ran-ls && ls\n"));
    eventually("the harmless line ran", || exists(&scratch, "ran-ls"));
    agent.see();
    for line in ["rm -rf victim", "find victim -delete", "git reset --hard", "echo gone > victim/a.txt"] {
        refused(&agent.type_text(&format!("{line}\n")));
    }
    // Split over calls: judged when Return would run it; nothing of it is sent before.
    sent(&agent.type_text("rm -r"));
    sent(&agent.key("f"));
    sent(&agent.type_text(" victim"));
    refused(&agent.key("return"));
    sent(&agent.key("ctrl+u"));
    let received = shell_received(&mut web);
    assert_eq!(committed(&received), ["touch ran-ls && ls"], "the shell was asked to run: {received:?}");
    assert!(exists(&scratch, "victim/a.txt"), "a refused line ran");

    // --- Interactive: the terminal marks itself focused; the user's own request lets removal run. ---
    agent.turn("web-asked", "delete the victim folder in the scratch directory", Mode::Interactive);
    agent.see();
    let o = agent.type_text("rm -rf victim\n");
    sent(&o);
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    let deadline = Instant::now() + Duration::from_secs(15);
    while exists(&scratch, "victim") {
        assert!(
            Instant::now() < deadline,
            "the allowed removal never ran; the shell received {:?}",
            shell_received(&mut web)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Never a wipe of home, whatever the request.
    agent.turn("web-home", "delete everything in my home folder", Mode::Interactive);
    agent.see();
    refused(&agent.type_text("rm -rf ~\n"));
    let received = shell_received(&mut web);
    assert_eq!(committed(&received), ["touch ran-ls && ls", "rm -rf victim"], "{received:?}");

    drop(agent);
    let _ = xterm.kill();
    let _ = xterm.wait();
    drop(web);
    sandbox.stop().expect("clean teardown");
}
