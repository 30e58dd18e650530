//! Commands typed into real terminals — xterm (no accessibility: known by its window class, read by
//! OCR) and xfce4-terminal (VTE: an accessible `terminal`) — on one private desktop with a GTK app
//! beside them. What ran is checked on disk: the scratch directory a refused command names is still
//! there, and harmless commands leave a proof file of their own.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

mod common;

use common::Agent;
use handrail_core::{Config, Engine, GuardDecision, Mode, Outcome, Rule, Status, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

impl Agent {
    /// Brings the window of `class` to the front (as a person clicking it would) and observes until
    /// it is there.
    fn front_is(&mut self, sandbox: &Sandbox, class: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            person_focuses(sandbox, class);
            let o = self.see();
            let front = o.observation.as_ref().and_then(|obs| obs.front.clone());
            if front.as_ref().is_some_and(|f| f.class.eq_ignore_ascii_case(class)) {
                return;
            }
            assert!(Instant::now() < deadline, "{class} never came to the front (front: {front:?}): {}", o.text());
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Observes until the screen shows `text` (OCR or accessibility; spaces OCR put inside words or
    /// dropped do not count, as for handrail's own reading of a terminal line).
    fn shows(&mut self, text: &str) {
        use handrail_core::text::contains_phrase_ignoring_spaces as has;
        let deadline = Instant::now() + Duration::from_secs(15);
        let mut shown = Vec::new();
        loop {
            let o = self.see();
            let texts: Vec<String> = o.observation.as_ref().map_or_else(Vec::new, |obs| {
                obs.elements.iter().flat_map(|e| [e.label.clone(), e.value.clone().unwrap_or_default()]).collect()
            });
            if texts.iter().any(|t| has(t, text)) {
                return;
            }
            if !texts.is_empty() {
                shown = texts;
            }
            // Every text of the last look that listed any, not the listing's first lines: the
            // terminal's lines come late in it; and the last look's own answer.
            assert!(
                Instant::now() < deadline && o.status != Status::Limit,
                "the screen never showed {text:?}; it showed {shown:?}; the last look answered: {}",
                o.text()
            );
            // A turn allows 40 looks unattended: this pace stays within them for the whole wait.
            std::thread::sleep(Duration::from_millis(400));
        }
    }
}

fn refused(o: &Outcome) {
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(o.guard, GuardDecision::Refused { rule: Rule::TerminalCommand }, "{}", o.text());
}

fn sent(o: &Outcome) {
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
}

/// What the latest observation holds, for failure messages.
fn screen(agent: &Agent) -> String {
    agent.engine.latest().map_or_else(String::new, |obs| {
        let rows: Vec<String> = obs
            .elements
            .iter()
            .map(|e| format!("{} {} {:?} {:?} {:?}", e.id, e.role.as_str(), e.label, e.value, e.bounds))
            .collect();
        format!("front={:?} ocr={:?} ax={:?}\n{}", obs.front, obs.ocr, obs.ax, rows.join("\n"))
    })
}

/// A scratch directory with a victim directory full of files.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(under: &Path, name: &str) -> Scratch {
        let root = under.join(name);
        std::fs::create_dir_all(root.join("victim/sub")).expect("scratch dir");
        for f in ["victim/a.txt", "victim/sub/b.txt", "notes.txt"] {
            std::fs::write(root.join(f), "keep me\n").expect("scratch file");
        }
        // A git repository with a change nobody committed and a file nobody added.
        let repo = root.join("repo");
        std::fs::create_dir_all(&repo).expect("repo dir");
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
                .arg(&repo)
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(repo.join("tracked.txt"), "v1\n").expect("tracked file");
        git(&["add", "tracked.txt"]);
        git(&["commit", "-qm", "v1"]);
        std::fs::write(repo.join("tracked.txt"), "v2 uncommitted\n").expect("change");
        std::fs::write(repo.join("new.txt"), "untracked\n").expect("untracked file");
        Scratch { root }
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    fn intact(&self, what: &str) {
        for f in ["victim/a.txt", "victim/sub/b.txt", "notes.txt"] {
            let content = std::fs::read_to_string(self.root.join(f)).unwrap_or_default();
            assert_eq!(content, "keep me\n", "{what}: {f} was touched");
        }
        let tracked = std::fs::read_to_string(self.root.join("repo/tracked.txt")).unwrap_or_default();
        assert_eq!(tracked, "v2 uncommitted\n", "{what}: the uncommitted change was lost");
        assert!(self.root.join("repo/new.txt").exists(), "{what}: the untracked file was removed");
    }

    /// Waits until `rel` exists: a harmless command ran.
    fn appears(&self, rel: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while !self.root.join(rel).exists() {
            assert!(Instant::now() < deadline, "{rel} never appeared: the harmless command did not run");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn gone(&self, rel: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.root.join(rel).exists() {
            assert!(Instant::now() < deadline, "{rel} is still there: the allowed command did not run");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Keyboard input from outside handrail, as a person at the keyboard would type it.
fn person_types(sandbox: &Sandbox, text: &str) {
    let status = sandbox.command("xdotool").args(["type", "--delay", "20", text]).status().expect("xdotool runs");
    assert!(status.success(), "xdotool type");
}

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

/// The checks every terminal must pass, unattended: refused lines leave the files, harmless ones run.
fn unattended_checks(agent: &mut Agent, sandbox: &Sandbox, s: &Scratch, class: &str) {
    agent.turn(&format!("{class}-unattended"), "check the disk usage", Mode::Unattended);
    agent.front_is(sandbox, class);
    let victim = s.path("victim");
    for line in [
        format!("rm -rf {victim}"),
        format!("find {victim} -delete"),
        format!("cd {} && \\rm -r victim", s.path("")),
        format!("sudo rm -fr {victim}/sub"),
        format!("echo gone > {}", s.path("notes.txt")),
        format!(": > {}", s.path("notes.txt")),
        format!("rmdir {victim}/sub"),
        format!("shred -u {victim}/a.txt"),
        format!("truncate -s 0 {}", s.path("notes.txt")),
        format!("find {victim} -name '*.txt' -exec rm {{}} +"),
        format!("dd if=/dev/zero of={} count=1", s.path("notes.txt")),
        format!("echo {victim} | xargs rm -r"),
        format!("bash -c 'rm -rf {victim}'"),
        format!("env LC_ALL=C nohup rm -r {victim}"),
        format!("git -C {} reset --hard", s.path("repo")),
        format!("git -C {} clean -fd", s.path("repo")),
        format!("git -C {} checkout -- .", s.path("repo")),
        // Inline interpreter code with the same effects.
        format!("python3 -c \"import shutil; shutil.rmtree('{victim}')\""),
        format!("perl -e 'system(\"rm -rf {victim}\")'"),
        format!("python3 -c \"open('{}', 'w')\"", s.path("notes.txt")),
    ] {
        let o = agent.type_text(&format!("{line}\n"));
        assert_eq!(o.status, Status::Refused, "{line}: {}", o.text());
    }
    // Split over calls: judged when Return would run it.
    sent(&agent.type_text("rm -r"));
    sent(&agent.key("f"));
    sent(&agent.type_text(&format!(" {victim}")));
    refused(&agent.key("return"));
    sent(&agent.key("ctrl+u"));
    // Harmless look-alikes run, and say so on disk.
    sent(&agent.type_text(&format!("echo rm -rf {victim} && touch {}\n", s.path("ran-echo"))));
    s.appears("ran-echo");
    sent(&agent.type_text(&format!("grep -r delete {} ; touch {}\n", s.path("victim"), s.path("ran-grep"))));
    s.appears("ran-grep");
    sent(&agent.type_text(&format!("ls --format=long {} && touch {}\n", s.path(""), s.path("ran-ls"))));
    s.appears("ran-ls");
    // Writing over a file is judged by what the shell finds where it stands (read from /proc): the
    // shell moves into the scratch directory, and its relative paths follow it.
    sent(&agent.type_text(&format!("cd {} && touch ran-cd\n", s.path(""))));
    s.appears("ran-cd");
    for line in ["echo gone > notes.txt", "date | tee notes.txt", "cp victim/a.txt notes.txt", "mv ran-cd notes.txt"] {
        let o = agent.type_text(&format!("{line}\n"));
        refused(&o);
        assert!(o.message.as_deref().unwrap_or_default().contains("\"notes.txt\" exists"), "{line}: {}", o.text());
    }
    // Onto new files, nothing is destroyed: they run, unattended too. (`df -h .`, not every mount:
    // plain `df` asks each mount of the machine and fails when one is stale — a GVFS FUSE mount left
    // by a killed session said "Transport endpoint is not connected" — and `&&` then stops the line.)
    sent(&agent.type_text("df -h . > usage.txt && cp notes.txt copy.txt\n"));
    s.appears("usage.txt");
    s.appears("copy.txt");
    // A cd earlier in the same input: which file is meant cannot be told from here.
    refused(&agent.type_text("cd victim\necho gone > fresh.txt\n"));
    // A line a person typed before handrail looked: read off the screen, judged, not run.
    agent.turn(&format!("{class}-person"), "check the disk usage", Mode::Unattended);
    person_types(sandbox, &format!("rm -rf {victim}"));
    agent.shows("victim");
    let o = agent.key("return");
    assert_eq!(o.status, Status::Refused, "{}\n{}", o.text(), screen(agent));
    sent(&agent.key("ctrl+c"));
    s.intact(class);
}

#[test]
fn commands_typed_into_real_terminals_are_judged_before_they_run() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let scratch_root = sandbox.root().join("scratch");
    // Something else on the desktop: a GTK window behind the terminals.
    let mut others: Vec<Child> =
        vec![sandbox.command("gtk3-widget-factory").spawn().expect("gtk3-widget-factory starts")];
    person_focuses(&sandbox, "gtk3-widget-factory");
    let launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    let mut launch = launch;
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

    // --- xterm: no accessibility; a large font so OCR reads the prompt line well. ---
    let xterm = Scratch::new(&scratch_root, "xterm");
    others.push(
        sandbox
            .command("xterm")
            .args(["-fa", "DejaVu Sans Mono", "-fs", "13", "-geometry", "90x16+40+40", "-e", "bash", "--norc"])
            .env("PS1", "$ ")
            .spawn()
            .expect("xterm starts"),
    );
    unattended_checks(&mut agent, &sandbox, &xterm, "XTerm");
    // Interactively, with the user's request behind it, the same removal runs in xterm too.
    agent.turn("xterm-asked", "delete the victim directory in the scratch folder", Mode::Interactive);
    agent.front_is(&sandbox, "XTerm");
    let o = agent.type_text(&format!("rm -rf {}\n", xterm.path("victim")));
    sent(&o);
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    xterm.gone("victim");

    // --- xfce4-terminal: VTE, an accessible terminal whose text is read. ---
    let vte = Scratch::new(&scratch_root, "vte");
    others.push(
        sandbox
            .command("xfce4-terminal")
            .args(["--disable-server", "--geometry", "90x16+60+60", "-x", "bash", "--norc"])
            .env("PS1", "$ ")
            .spawn()
            .expect("xfce4-terminal starts"),
    );
    unattended_checks(&mut agent, &sandbox, &vte, "Xfce4-terminal");

    // --- Interactively, the user's own request to remove it lets it run. ---
    agent.turn("vte-asked", "delete the victim directory in the scratch folder", Mode::Interactive);
    let o = agent.type_text(&format!("rm -rf {}\n", vte.path("victim")));
    sent(&o);
    assert!(matches!(o.guard, GuardDecision::AllowedByIntent { .. }), "{}", o.text());
    vte.gone("victim");
    // Never a wipe of home, whatever the request.
    agent.turn("vte-home", "delete everything in my home folder", Mode::Interactive);
    refused(&agent.type_text("rm -rf ~\n"));

    for mut c in others {
        let _ = c.kill();
        let _ = c.wait();
    }
}
