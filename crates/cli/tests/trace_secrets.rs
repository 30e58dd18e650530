//! A password the person typed (not handrail) into a password field of a recorded screen never reaches
//! the trace: not its steps, not its report, not the text the model read — whatever the accessibility
//! tree and OCR see.

use std::time::Duration;

use handrail_core::{Config, Engine, RawArgs, Turn, Vision};
use handrail_sandbox::{Sandbox, SandboxOptions, REMOVED_ENV};
use handrail_testkit::LineApp;
use handrail_trace::{Step, TraceWriter};
use handrail_x11::windows::LaunchEnv;
use handrail_x11::{X11Desktop, X11Options};

const SECRET: &str = "Sup3r-Secret-Pw";

#[test]
fn a_password_typed_by_the_person_never_reaches_the_trace() {
    let sandbox = Sandbox::start(SandboxOptions::default()).expect("sandbox starts");
    let app = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/apps/probe_gtk.py");
    let mut command = sandbox.command("/usr/bin/python3");
    command.arg(app);
    let mut app = LineApp::spawn(command);
    let geometry = app.wait_for(|l| l.starts_with("geometry Password ")).expect("the app reports its layout");
    assert!(app.wait_for(|l| l == "ready").is_some());
    let numbers: Vec<i32> = geometry.split_whitespace().skip(2).filter_map(|n| n.parse().ok()).collect();
    let (cx, cy) = (numbers[0] + numbers[2] / 2, numbers[1] + numbers[3] / 2);

    // The person types their password with their own keyboard (xdotool stands in for it).
    let typed = sandbox
        .command("xdotool")
        .args(["mousemove", &cx.to_string(), &cy.to_string(), "click", "1"])
        .status()
        .and_then(|_| sandbox.command("xdotool").args(["type", "--delay", "30", SECRET]).status())
        .expect("xdotool runs");
    assert!(typed.success());
    let want = format!("password-length={}", SECRET.len());
    assert!(app.wait_for(|l| l == want).is_some(), "the password reached the field");

    // Then handrail records a session on that screen, with accessibility and OCR.
    let mut launch = LaunchEnv::new(sandbox.env(), sandbox.root().join("browser"));
    launch.removed = REMOVED_ENV.iter().map(|s| s.to_string()).collect();
    let ocr = handrail_ocr::TesseractOcr::new(handrail_ocr::TesseractConfig::default());
    let desktop = X11Desktop::connect(
        X11Options::new(sandbox.display(), launch),
        Box::new(handrail_atspi::AtspiSource::new(sandbox.bus_address())),
        Box::new(ocr),
    )
    .expect("desktop");
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    let turn = Turn { id: "t1".into(), intent: "fill in my name".into(), ..Turn::default() };
    engine.begin_turn(turn.clone());
    let dir = std::env::temp_dir().join(format!("handrail-secret-trace-{}", std::process::id()));
    let mut trace = TraceWriter::create(&dir, "test", 0).expect("trace");
    let mut record = |engine: &mut Engine, pairs: &[(&str, &str)]| {
        let args = RawArgs::from_pairs(pairs).expect("args");
        let before = engine.latest().cloned();
        let outcome = engine.call_args(&args);
        let step =
            Step { unix_ms: 0, turn: &turn, tool: "computer", args: &args, before: before.as_ref(), outcome: &outcome };
        trace.record(step).expect("record");
        outcome
    };

    let mut password = None;
    for _ in 0..20 {
        let see = record(&mut engine, &[("action", "see"), ("marks", "true")]);
        let obs = see.observation.clone().expect("observation");
        password =
            obs.elements.iter().find(|e| e.is_secure()).map(|e| (obs.id.to_string(), e.id.to_string(), e.bounds));
        if password.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let (obs, id, bounds) = password.expect("the password field is listed as secure");
    let region = format!("{},{},{},{}", bounds.x - 100, bounds.y - 10, bounds.width + 120, bounds.height + 20);
    record(&mut engine, &[("action", "inspect"), ("observation_id", &obs), ("element_id", &id)]);
    record(&mut engine, &[("action", "inspect"), ("region", &region)]);
    let latest = engine.latest().map(|o| o.id.to_string()).expect("latest");
    record(&mut engine, &[("action", "click"), ("observation_id", &latest), ("element_id", &id)]);
    record(&mut engine, &[("action", "see")]);
    handrail_trace::report::write_report(&dir).expect("report");

    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("trace dir").flatten() {
        let bytes = std::fs::read(entry.path()).expect("read");
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "{} holds the person's password",
            entry.path().display()
        );
        files += 1;
    }
    assert!(files >= 8, "the trace has steps, images and a report ({files} files)");
    drop(app);
    drop(engine);
    sandbox.stop().expect("sandbox stops");
    let _ = std::fs::remove_dir_all(&dir);
}
