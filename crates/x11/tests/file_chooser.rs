//! A native GTK file chooser (`zenity --file-selection`) worked end to end through the engine, as a
//! model would: a path typed into the location field, and a file picked from the list and confirmed.
//! What was chosen is read back from zenity itself (it prints the path on stdout and exits).

mod common;

use std::path::Path;
use std::time::Duration;

use handrail_core::{Config, Element, Engine, Mode, Outcome, Status, Turn, TypingCheck, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::{wait_until, LineApp};

use common::raw;

struct Desk {
    sandbox: Sandbox,
    engine: Engine,
}

fn desk(intent: &str) -> Desk {
    handrail_sandbox::log_to_stderr();
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts (run scripts/setup-desktop)");
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "files".into(), intent: intent.into(), mode: Mode::Interactive });
    Desk { sandbox, engine }
}

impl Desk {
    fn call(&mut self, pairs: &[(&str, &str)]) -> Outcome {
        self.engine.call_args(&raw(pairs))
    }

    /// Sees until `pick` finds an element (the dialog fills its list a moment after it maps), bounded.
    fn see_until(&mut self, what: &str, pick: impl Fn(&Element) -> bool) -> Outcome {
        let mut last = String::new();
        wait_until(Duration::from_secs(30), Duration::from_millis(250), || {
            let o = self.call(&[("action", "see")]);
            let found = o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(&pick));
            last = o.text();
            found.then_some(o)
        })
        .unwrap_or_else(|| panic!("{what} never appeared:\n{last}"))
    }

    fn on(&mut self, o: &Outcome, action: &str, pick: impl Fn(&Element) -> bool, extra: &[(&str, &str)]) -> Outcome {
        let obs = o.observation.as_ref().expect("an observation");
        let e = obs.elements.iter().find(|e| pick(e)).unwrap_or_else(|| panic!("no such element in:\n{}", o.text()));
        let (obs_id, id) = (obs.id.to_string(), e.id.to_string());
        let mut pairs = vec![("action", action), ("observation_id", obs_id.as_str()), ("element_id", id.as_str())];
        pairs.extend_from_slice(extra);
        self.call(&pairs)
    }

    fn chooser(&self, folder: &Path) -> LineApp {
        let mut command = self.sandbox.command("zenity");
        command.args(["--file-selection", "--title", "Pick a file"]);
        command.arg(format!("--filename={}/", folder.display()));
        LineApp::spawn(command)
    }
}

fn folder_with_files(sandbox: &Sandbox) -> std::path::PathBuf {
    let folder = sandbox.home().join("Documents");
    std::fs::create_dir_all(&folder).expect("a folder");
    for name in ["report-2026.txt", "notes.md", "รายงาน.txt", "budget.ods"] {
        std::fs::write(folder.join(name), name).expect("a file");
    }
    folder
}

fn chosen(app: &mut LineApp) -> String {
    app.wait_for_within(Duration::from_secs(15), |l| l.starts_with('/'))
        .unwrap_or_else(|| panic!("zenity printed no path: {:?}", app.seen))
}

#[test]
fn a_path_typed_into_the_location_field_is_chosen() {
    let mut d = desk("open my notes file");
    let folder = folder_with_files(&d.sandbox);
    let mut app = d.chooser(&folder);
    d.see_until("the chooser", |e| e.window == "Pick a file" && e.role.as_str() == "button");
    // ctrl+L opens the location field, as a person would; the path is typed in full, then Return.
    let o = d.call(&[("action", "key"), ("keys", "ctrl+l")]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    let path = folder.join("รายงาน.txt").display().to_string();
    let o = d.call(&[("action", "type"), ("text", &path)]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    // Read back from the location field itself (GTK may complete the name as it is typed).
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    let o = d.call(&[("action", "key"), ("keys", "Return")]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(chosen(&mut app), path);
}

#[test]
fn a_file_picked_from_the_list_and_confirmed_is_chosen() {
    let mut d = desk("open the 2026 report");
    let folder = folder_with_files(&d.sandbox);
    let mut app = d.chooser(&folder);
    let is_report = |e: &Element| e.window == "Pick a file" && e.label == "report-2026.txt";
    let o = d.see_until("the report in the list", is_report);
    let o = d.on(&o, "click", is_report, &[]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    let is_ok = |e: &Element| e.window == "Pick a file" && e.role.as_str() == "button" && e.label == "OK";
    let o = d.on(&o, "click", is_ok, &[]);
    assert_ne!(o.status, Status::Refused, "{}", o.text());
    assert_eq!(chosen(&mut app), folder.join("report-2026.txt").display().to_string());
}
