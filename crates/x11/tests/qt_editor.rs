//! Typing into a real Qt multi-line editor (FeatherPad, Qt 5): Qt answers a request for more text
//! than there is with nothing, which once made the readback see nothing and type everything again.
//! Newlines and Tabs are text there; what arrived is what FeatherPad saves to the file.

mod common;

use std::time::Duration;

use handrail_core::{Config, Engine, Mode, Status, Turn, TypingCheck, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};

use common::{file_once, raw, see_within};

#[test]
fn text_typed_into_a_qt_editor_arrives_once_and_exactly() {
    assert!(
        std::path::Path::new("/usr/bin/featherpad").exists(),
        "FeatherPad is installed (scripts/setup-desktop installs featherpad)"
    );
    let sandbox = Sandbox::start(SandboxOptions { parent_death_signal: false, ..SandboxOptions::default() })
        .expect("sandbox starts");
    let _terminal = handrail_testkit::TerminalBeside::start(|program| sandbox.command(program));
    let dir = sandbox.root().join("qt");
    std::fs::create_dir_all(&dir).expect("a directory");
    let file = dir.join("letter.txt");
    std::fs::write(&file, "").expect("an empty file");
    let child = sandbox
        .command("featherpad")
        .arg("--standalone")
        .arg(&file)
        .env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("featherpad starts");
    let app = handrail_testkit::Spawned(child);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "qt".into(), intent: "write the letter".into(), mode: Mode::Interactive });

    let is_editor = |e: &&handrail_core::Element| e.role.as_str() == "text_area";
    let see = see_within(&mut engine, Duration::from_secs(60), |o| {
        o.observation.as_ref().is_some_and(|obs| obs.elements.iter().any(|e| is_editor(&e)))
    });
    let editor =
        see.observation.as_ref().and_then(|obs| obs.elements.iter().find(is_editor)).cloned().expect("the editor");
    let letter = "Hello from Qt\n\tsecond line, ไทย 日本語";
    let o = common::act_on(&mut engine, &see, "type", &editor, &[("text", letter)]);
    assert_eq!(o.status, Status::Ok, "{}", o.text());
    // Read back from the editor itself: the newline and the Tab are text there.
    assert!(matches!(o.typing, Some(TypingCheck::Arrived { .. })), "{}", o.text());
    let o = engine.call_args(&raw(&[("action", "key"), ("keys", "ctrl+s")]));
    assert!(matches!(o.status, Status::Ok | Status::NoVisibleChange), "{}", o.text());
    let saved = file_once(&file, Duration::from_secs(20), |held| !held.is_empty());
    assert_eq!(saved.trim_end_matches('\n'), letter, "FeatherPad saved exactly what was typed, once");
    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}
