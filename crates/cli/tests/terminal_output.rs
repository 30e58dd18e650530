//! What a command prints in a real terminal is verified by `expect=text:` — in xterm (no accessibility,
//! its default small bitmap font read by OCR) and in xfce4-terminal (VTE: the accessible terminal's
//! text) — and what the shell really printed is read back from a log file `tee` wrote, not from
//! handrail's own observation.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

mod common;

use common::Agent;
use handrail_core::{Config, Engine, ExpectOutcome, Mode, Outcome, Vision};
use handrail_platform::Role;
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

/// Distinct outputs per terminal.
const COMMANDS: u32 = 20;

/// Brings the window of `class` to the front from outside handrail, as a person clicking it would.
/// Only a window that is shown counts: GTK creates an unmapped leader window with the app's class
/// first, and activating that leaves the real window to take the focus whenever it maps (on a busy
/// machine, after the terminal the test brought to the front).
fn person_focuses(sandbox: &Sandbox, class: &str) {
    let status = sandbox
        .command("xdotool")
        .args(["search", "--sync", "--onlyvisible", "--class", class, "windowactivate", "--sync"])
        .status()
        .expect("xdotool runs");
    assert!(status.success(), "xdotool windowactivate {class}");
}

/// Observes until the window of `class` is in front.
fn front_is(agent: &mut Agent, sandbox: &Sandbox, class: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        person_focuses(sandbox, class);
        let o = agent.see();
        let front = o.observation.as_ref().and_then(|obs| obs.front.clone());
        if front.as_ref().is_some_and(|f| f.class.eq_ignore_ascii_case(class)) {
            return;
        }
        assert!(Instant::now() < deadline, "{class} never came to the front (front: {front:?}): {}", o.text());
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Waits until the shell's prompt accepts input: a first command's output appears in `log`. The shell
/// then works in the log's directory, so command lines stay short (no wrapping).
fn shell_ready(agent: &mut Agent, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let (dir, name) = (log.parent().expect("log dir").display(), log.file_name().expect("log name").to_string_lossy());
    agent.type_text(&format!("cd {dir} && echo ready | tee -a {name}\n"));
    while !std::fs::read_to_string(log).unwrap_or_default().contains("ready") {
        assert!(Instant::now() < deadline, "the shell never ran a first command");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn verified(o: &Outcome) -> bool {
    matches!(o.expect, Some((_, ExpectOutcome::Verified)))
}

/// Runs `COMMANDS` commands, each printing a distinct word, with `expect=text:` on the word; returns the
/// failures (command, outcome). The log `tee` appended to must then hold exactly those words.
fn run_commands(agent: &mut Agent, log: &Path, seed: u32) -> Vec<String> {
    let name = log.file_name().expect("log name").to_string_lossy().into_owned();
    let mut failures = Vec::new();
    let mut want = vec!["ready".to_owned()];
    for n in 1..=COMMANDS {
        let k = n + seed;
        let word = format!("word-{}-ok", k * 7);
        // The command line shows `$((k*7))`, never the word itself: only the output can verify it.
        let o = agent.call(&[
            ("action", "type"),
            ("text", &format!("echo word-$(({k}*7))-ok | tee -a {name}\n")),
            ("expect", &format!("text:{word}")),
        ]);
        if !verified(&o) {
            // What the screen showed that looked like it.
            let seen: Vec<String> = o.observation.as_ref().map_or_else(Vec::new, |obs| {
                obs.elements
                    .iter()
                    .flat_map(|e| e.visible_texts().map(|t| format!("{} {:?}", e.source.as_str(), t)))
                    .filter(|t| t.contains("-ok") || t.contains("word"))
                    .collect()
            });
            failures.push(format!(
                "{word}: {} — {}\n  seen: {}",
                o.tag(),
                o.message.clone().unwrap_or_default(),
                seen.join(" | ")
            ));
        }
        want.push(word);
    }
    // What the shell printed, from the disk.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got: Vec<String> = std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_owned).collect();
        if got == want {
            break;
        }
        assert!(Instant::now() < deadline, "the shell printed {got:?}, not {want:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    failures
}

#[test]
fn command_output_in_real_terminals_is_verified_by_expect_text() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let logs = sandbox.root().join("logs");
    std::fs::create_dir_all(&logs).expect("log dir");
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    assert!(ocr.unavailable_reason().is_none(), "Tesseract is installed (scripts/setup-desktop)");
    let desktop = X11Desktop::connect(
        X11Options::new(sandbox.display(), launch),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(ocr),
    )
    .expect("desktop");
    let mut agent = Agent { engine: Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() }) };
    let mut others: Vec<Child> = Vec::new();
    agent.turn("output", "print some words in the terminal and log them", Mode::Interactive);

    // --- xterm in its default font (small bitmap glyphs): only OCR reads it. ---
    others.push(
        sandbox
            .command("xterm")
            .args(["-geometry", "90x30+40+40", "-e", "bash", "--norc"])
            .env("PS1", "$ ")
            .spawn()
            .expect("xterm starts"),
    );
    front_is(&mut agent, &sandbox, "XTerm");
    let xterm_log = logs.join("xterm.log");
    shell_ready(&mut agent, &xterm_log);
    let xterm = run_commands(&mut agent, &xterm_log, 0);

    // --- xfce4-terminal: VTE, an accessible terminal. ---
    others.push(
        sandbox
            .command("xfce4-terminal")
            .args(["--disable-server", "--geometry", "90x30+80+80", "-x", "bash", "--norc"])
            .env("PS1", "$ ")
            .spawn()
            .expect("xfce4-terminal starts"),
    );
    front_is(&mut agent, &sandbox, "Xfce4-terminal");
    let vte_log = logs.join("vte.log");
    shell_ready(&mut agent, &vte_log);
    let vte = run_commands(&mut agent, &vte_log, 100);
    // Listed as what it is: a terminal of the app the window belongs to.
    let o = agent.see();
    let obs = o.observation.as_ref().expect("an observation");
    let terminal = obs.elements.iter().find(|e| e.role == Role::Terminal);
    assert!(
        terminal.is_some_and(|t| t.app == "Xfce Terminal" && obs.app.as_deref() == Some("Xfce Terminal")),
        "the VTE terminal is listed as a terminal of Xfce Terminal (front app {:?}): {terminal:?}",
        obs.app
    );

    for mut c in others {
        let _ = c.kill();
        let _ = c.wait();
    }
    let summary = format!(
        "xterm {}/{COMMANDS}, xfce4-terminal {}/{COMMANDS} verified",
        COMMANDS as usize - xterm.len(),
        COMMANDS as usize - vte.len()
    );
    eprintln!("{summary}");
    // The accessible terminal must be exact. xterm's bitmap font still costs one of twenty today
    // (`word-7-ok` read as `word-?-ok` at the 2x upscale; 3x fixes it but breaks others): the aim is
    // 20/20, and anything below 19 is a regression.
    assert!(vte.is_empty(), "{summary}\n{}", vte.join("\n"));
    assert!(xterm.len() <= 1, "{summary}\n{}", xterm.join("\n"));
}
