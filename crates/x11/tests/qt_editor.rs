//! Typing into a real Qt multi-line editor (FeatherPad, Qt 5): Qt answers a request for more text
//! than there is with nothing, which once made the readback see nothing and type everything again.
//! Newlines and Tabs are text there; what arrived is what FeatherPad saves to the file.

mod common;

use handrail_core::{Config, Engine, Mode, Turn, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions};

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
    let mut featherpad = sandbox.command("featherpad");
    featherpad
        .arg("--standalone")
        .arg(&file)
        .env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")
        .env("XDG_CONFIG_HOME", dir.join("config"));
    let app = common::start_app(featherpad);
    let desktop = common::full_desktop(&sandbox);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "qt".into(), intent: "write the letter".into(), mode: Mode::Interactive });

    // Read back from the editor itself (the newline and the Tab are text there), then saved.
    let letter = "Hello from Qt\n\tsecond line, ไทย 日本語";
    let (_, saved) = common::type_into_editor_and_save(&mut engine, letter, &file);
    assert_eq!(saved.trim_end_matches('\n'), letter, "FeatherPad saved exactly what was typed, once");
    drop(engine);
    drop(app);
    sandbox.stop().expect("clean teardown");
}
