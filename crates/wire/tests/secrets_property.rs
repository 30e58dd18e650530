//! What a person typed into a password field never appears in a rendered result, in the structured
//! value, or in a log line — whatever the agent does around that field.

use std::sync::{Mutex, OnceLock};

use handrail_core::{Config, Engine, Mode, RawArgs, Turn, Vision};
use handrail_platform::{Rect, Size};
use handrail_sim::{SimDesktop, Widget, WindowSpec};
use handrail_wire::{decode_args, encode_outcome};
use proptest::prelude::*;
use serde_json::json;

/// Collects every log line of this test binary.
struct Capture(Mutex<Vec<String>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push(format!("{} {}", record.target(), record.args()));
        }
    }
    fn flush(&self) {}
}

fn logs() -> &'static Capture {
    static LOGGER: OnceLock<&'static Capture> = OnceLock::new();
    LOGGER.get_or_init(|| {
        let logger: &'static Capture = Box::leak(Box::new(Capture(Mutex::new(Vec::new()))));
        let _ = log::set_logger(logger);
        log::set_max_level(log::LevelFilter::Trace);
        logger
    })
}

fn step(engine: &mut Engine, args: serde_json::Value) -> (String, String) {
    let raw: RawArgs = decode_args(&args).unwrap_or_default();
    let o = engine.call_args(&raw);
    (o.text(), encode_outcome(&o).to_string())
}

fn id_of(engine: &Engine, label: &str) -> Option<(String, String)> {
    let obs = engine.latest()?;
    obs.elements.iter().find(|e| e.label == label).map(|e| (obs.id.to_string(), e.id.to_string()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn password_contents_never_leave_the_field(
        secret in "Zq[A-Za-z0-9!#%&*]{6,24}",
        mode in prop::sample::select(vec![Mode::Interactive, Mode::Unattended]),
        moves in prop::collection::vec(0u8..9, 1..10),
    ) {
        let logger = logs();
        let sim = SimDesktop::new(Size::new(1024, 700));
        let win = sim.add_window(WindowSpec::new("Bank", "Sign in - Bank").bounds(Rect::new(50, 50, 900, 600)));
        let user = sim.add_widget(win, Widget::entry("Username").at(100, 120, 300, 28));
        let pw = sim.add_widget(win, Widget::password("Password").at(100, 170, 300, 28));
        sim.add_widget(win, Widget::button("Sign in").at(100, 220, 100, 30));
        // The person types their password; the agent never does.
        sim.set_value(pw, secret.clone());
        sim.focus(pw);
        let _ = user;

        let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
        engine.begin_turn(Turn { id: "p".into(), intent: "sign me in".into(), mode });
        let mut outputs = vec![step(&mut engine, json!({"action": "see"}))];
        for m in moves {
            let call = match m {
                0 => json!({"action": "see"}),
                1 => json!({"action": "inspect", "observation_id": engine.latest().map(|o| o.id.to_string()), "region": [60, 100, 500, 200]}),
                2 => match id_of(&engine, "Password") {
                    Some((o, e)) => json!({"action": "click", "observation_id": o, "element_id": e, "expect": "text:Password"}),
                    None => json!({"action": "see"}),
                },
                3 => match id_of(&engine, "Password") {
                    Some((o, e)) => json!({"action": "type", "observation_id": o, "element_id": e, "text": "guess"}),
                    None => json!({"action": "see"}),
                },
                4 => match id_of(&engine, "Username") {
                    Some((o, e)) => json!({"action": "type", "observation_id": o, "element_id": e, "text": "ada"}),
                    None => json!({"action": "see"}),
                },
                5 => json!({"action": "key", "keys": "ctrl+a"}),
                6 => json!({"action": "key", "keys": "tab"}),
                7 => json!({"action": "click", "target_text": "Sign in", "expect": "window:Welcome"}),
                _ => match id_of(&engine, "Password") {
                    Some((o, e)) => json!({"action": "triple_click", "observation_id": o, "element_id": e}),
                    None => json!({"action": "see"}),
                },
            };
            outputs.push(step(&mut engine, call));
        }
        prop_assert_eq!(sim.widget(pw).value, secret.clone(), "the secret really is in the field");
        for (text, structured) in &outputs {
            prop_assert!(!text.contains(&secret), "secret in text: {}", text);
            prop_assert!(!structured.contains(&secret), "secret in structured value");
        }
        if let Some(obs) = engine.latest() {
            for e in &obs.elements {
                prop_assert!(!e.label.contains(&secret) && !e.value.as_deref().unwrap_or("").contains(&secret));
            }
        }
        let lines = logger.0.lock().map(|l| l.clone()).unwrap_or_default();
        prop_assert!(!lines.is_empty(), "the engine logged its calls");
        prop_assert!(lines.iter().all(|l| !l.contains(&secret)), "secret in a log line");
    }
}
