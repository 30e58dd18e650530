//! Monitors in the structured result: each with its tag, name, bounds (screenshot coordinates) and
//! whether it is primary; each element with the tag of the monitor it is on.

use handrail_core::{Config, Engine, Mode, RawArgs, Turn, Vision};
use handrail_platform::{Monitor, Rect, Size};
use handrail_sim::{SimDesktop, Widget, WindowSpec};
use handrail_wire::encode_outcome;
use serde_json::json;

#[test]
fn monitors_and_each_elements_monitor_are_encoded() {
    let sim = SimDesktop::new(Size::new(2560, 800));
    sim.set_monitors(vec![
        Monitor { name: "DP-1".into(), bounds: Rect::new(0, 0, 1280, 800), primary: true },
        Monitor { name: "HDMI-1".into(), bounds: Rect::new(1280, 0, 1280, 800), primary: false },
    ]);
    let win = sim.add_window(WindowSpec::new("Forms", "Forms").bounds(Rect::new(1400, 100, 800, 500)));
    sim.add_widget(win, Widget::button("Save").at(1500, 400, 120, 40));
    let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "t1".into(), intent: "look".into(), mode: Mode::Interactive });
    let o = engine.call_args(&RawArgs::from_pairs(&[("action", "see")]).expect("arguments"));
    let v = encode_outcome(&o);
    let obs = &v["observation"];
    assert_eq!(
        obs["monitors"],
        json!([
            {"id": "m1", "name": "DP-1", "bounds": [0, 0, 640, 400], "primary": true},
            {"id": "m2", "name": "HDMI-1", "bounds": [640, 0, 640, 400], "primary": false},
        ])
    );
    let elements = obs["elements"].as_array().expect("elements");
    assert!(!elements.is_empty());
    assert!(elements.iter().all(|e| e["monitor"] == json!("m2")), "{elements:?}");
}
