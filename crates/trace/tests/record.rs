//! Recording calls on the simulated desktop and rendering the report.

use handrail_core::{Config, Engine, RawArgs, Turn, Vision};
use handrail_platform::{Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};
use handrail_trace::{read, report, Step, TraceWriter, FORMAT, VERSION};

fn scene() -> SimDesktop {
    let sim = SimDesktop::new(Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("Form", "Form").bounds(Rect::new(0, 0, 800, 600)));
    let status = sim.add_widget(win, Widget::text("Draft").at(100, 400, 200, 20));
    sim.add_widget(win, Widget::entry("Name").at(100, 100, 300, 28));
    sim.add_widget(win, Widget::password("Password").at(100, 150, 300, 28));
    sim.add_widget(win, Widget::button("Save").at(100, 200, 90, 30).on_click(Reaction::set_label(status, "Saved")));
    sim.add_widget(win, Widget::button("Delete account").at(220, 200, 160, 30));
    sim
}

fn args(pairs: &[(&str, &str)]) -> RawArgs {
    RawArgs::from_pairs(pairs).expect("valid pairs")
}

#[test]
fn records_steps_with_images_and_renders_a_self_contained_report() {
    let dir = std::env::temp_dir().join(format!("handrail-trace-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sim = scene();
    let mut desktop = sim.desktop();
    desktop.encoder = handrail_imaging::encoder(handrail_imaging::ImageFormat::Png);
    let mut engine = Engine::new(desktop, Config { vision: Vision::Capable, ..Config::default() });
    let turn = Turn { id: "t1".into(), intent: "save the form".into(), ..Turn::default() };
    engine.begin_turn(turn.clone());
    let mut trace = TraceWriter::create(&dir, "test", 1_796_222_975_000).expect("create");

    let mut call = |engine: &mut Engine, pairs: &[(&str, &str)]| {
        let a = args(pairs);
        let before = engine.latest().cloned();
        let outcome = engine.call_args(&a);
        trace
            .record(Step {
                unix_ms: 1,
                turn: &turn,
                tool: "computer",
                args: &a,
                before: before.as_ref(),
                outcome: &outcome,
            })
            .expect("record");
        outcome
    };
    let see = call(&mut engine, &[("action", "see")]);
    let obs = see.observation.clone().expect("observation");
    let id = |label: &str| obs.elements.iter().find(|e| e.label == label).map(|e| e.id.to_string()).expect(label);
    let o = obs.id.to_string();
    let saved = call(&mut engine, &[("action", "click"), ("observation_id", &o), ("element_id", &id("Save"))]);
    let o2 = saved.observation.as_ref().map(|x| x.id.to_string()).expect("obs");
    call(&mut engine, &[("action", "click"), ("observation_id", &o2), ("element_id", &id("Delete account"))]);
    call(
        &mut engine,
        &[("action", "type"), ("observation_id", &o2), ("element_id", &id("Password")), ("text", "hunter2")],
    );

    let read_back = read(&dir).expect("read");
    assert_eq!(read_back.header["format"], FORMAT);
    assert_eq!(read_back.header["version"], VERSION);
    assert_eq!(read_back.steps.len(), 4);
    let click = &read_back.steps[1];
    assert_eq!(click["verdict"], "[ok]");
    assert!(click["target_box"].is_array() && click["changed_box"].is_array(), "{click}");
    for key in ["before", "after", "thumb"] {
        let name = click[key].as_str().expect(key);
        assert!(dir.join(name).exists(), "{name}");
    }
    assert_eq!(read_back.steps[2]["status"], "refused");
    assert_eq!(read_back.steps[2]["guard"]["rule"], "destructive_target");
    assert_eq!(read_back.steps[3]["target"]["text_chars"], 7);

    // Nothing of the typed secret anywhere in the folder.
    for entry in std::fs::read_dir(&dir).expect("dir").flatten() {
        let bytes = std::fs::read(entry.path()).expect("file");
        assert!(!bytes.windows(7).any(|w| w == b"hunter2"), "{}", entry.path().display());
    }

    let path = report::write_report(&dir).expect("report");
    let html = std::fs::read_to_string(&path).expect("html");
    assert!(html.contains("Content-Security-Policy"));
    assert_eq!(html.matches("<details class=\"step").count(), 4);
    assert!(html.contains("class=\"step refused\""));
    assert!(html.contains("data:image/jpeg;base64,"));
    for external in ["http://", "https://", "src=\"//", "href=\"//"] {
        assert!(!html.contains(external), "the report refers to {external}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reading_refuses_what_is_not_a_trace_or_too_new() {
    let dir = std::env::temp_dir().join(format!("handrail-trace-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    assert!(matches!(read(&dir), Err(handrail_trace::TraceError::NotATrace(_))));
    std::fs::write(dir.join("trace.json"), r#"{"format":"handrail-trace","version":99}"#).expect("write");
    assert!(matches!(read(&dir), Err(handrail_trace::TraceError::TooNew(_, 99))));
    std::fs::write(dir.join("trace.json"), "not json").expect("write");
    assert!(matches!(read(&dir), Err(handrail_trace::TraceError::Invalid { .. })));
    let _ = std::fs::remove_dir_all(&dir);
}
