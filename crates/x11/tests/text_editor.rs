//! Typing into a real multi-line editor (GTK 3's text view, testdata/apps/notes_gtk.py): a newline and
//! a Tab are text there, typed and read back like any other character, while a one-line entry beside
//! it keeps its Tab as a move of focus. What arrived is what the app itself says it holds.

mod common;

use handrail_core::{Config, Engine, Mode, Outcome, Status, Turn, TypingCheck, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};
use handrail_testkit::LineApp;

use common::{act, find, see_until, testdata_app};

/// What the app last said `key` holds, decoded from its JSON string.
fn app_holds(app: &LineApp, key: &str) -> String {
    let prefix = format!("{key}=");
    let said = app.seen.iter().rev().find_map(|l| l.strip_prefix(&prefix));
    let json = said.unwrap_or_else(|| panic!("the app never reported {key}: {:?}", app.seen));
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{key}={json}: {e}"))
}

fn type_into(engine: &mut Engine, role: &str, label: &str, text: &str) -> Outcome {
    let o = see_until(engine, |o| find(o, role, label).is_some());
    act(engine, &o, "type", role, label, &[("text", text)])
}

#[test]
fn newlines_and_tabs_typed_into_a_text_view_arrive_exactly_and_are_read_back() {
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    // A terminal beside the editor, as on a person's desktop: what is typed must reach the editor alone.
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let mut app = testdata_app(&sandbox, "notes_gtk.py", &[]);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "notes".into(), intent: "write the notes".into(), mode: Mode::Interactive });

    // The text view is a multi-line editor to the model: a text area it can type into.
    let see = see_until(&mut engine, |o| find(o, "text_area", "Notes").is_some());
    assert!(find(&see, "entry", "Title").is_some(), "{}", see.text());

    let letter = "Dear Ann,\n\tthe figures:\n1\t2\t3\nไทย 日本語 — ok";
    let o = type_into(&mut engine, "text_area", "Notes", letter);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    assert!(app.wait_for(|l| l.starts_with("notes=") && l.ends_with("ok\"")).is_some(), "{:?}", app.seen);
    assert_eq!(app_holds(&app, "notes"), letter, "the app holds exactly what was typed");
    // The focus never left the editor.
    assert_eq!(app_holds(&app, "title"), "");

    // A Tab typed into the one-line entry would move the focus on: refused, and nothing reaches it.
    let o = type_into(&mut engine, "entry", "Title", "Q3\treport");
    assert_eq!(o.status, Status::Refused, "{}", o.text());
    app.pending();
    assert_eq!(app_holds(&app, "title"), "", "{:?}", app.seen);
    assert_eq!(app_holds(&app, "notes"), letter);

    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}

/// Mousepad, the Xfce text editor as Debian ships it: named after its own desktop entry (not the
/// settings entry that runs the same program), and text with a newline and a Tab typed into it
/// arrives once, exactly, as the file it saves says.
#[test]
fn text_typed_into_mousepad_arrives_once_and_is_what_it_saves() {
    assert!(
        std::path::Path::new("/usr/bin/mousepad").exists(),
        "Mousepad is installed (scripts/setup-desktop installs mousepad)"
    );
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let dir = sandbox.root().join("mousepad");
    std::fs::create_dir_all(&dir).expect("a directory");
    let file = dir.join("shopping.txt");
    std::fs::write(&file, "").expect("an empty file");
    let mut mousepad = sandbox.command("mousepad");
    mousepad.arg(&file);
    let app = common::start_app(mousepad);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "mousepad".into(), intent: "write the list".into(), mode: Mode::Interactive });

    let list = "Shopping\n\tbread, ขนมปัง, パン\n\tmilk";
    let (see, saved) = common::type_into_editor_and_save(&mut engine, list, &file);
    assert!(see.text().contains("app=\"Mousepad\""), "{}", see.text());
    assert_eq!(saved.trim_end_matches('\n'), list, "Mousepad saved exactly what was typed, once");
    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}
