//! Requests the browser's network guard refused are part of the structured result and the audit line.

use handrail_core::{Config, Engine, Mode, RawArgs, Turn, Vision};
use handrail_platform::{Rect, Size};
use handrail_sim::{SimDesktop, WindowSpec};
use handrail_wire::{audit_record, encode_outcome, AuditContext};
use serde_json::json;

#[test]
fn blocked_requests_are_encoded_for_programs_and_the_audit_log() {
    let sim = SimDesktop::new(Size::new(800, 600));
    sim.add_window(WindowSpec::new("Chromium", "Home").bounds(Rect::new(0, 0, 800, 600)));
    let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "t1".into(), intent: "look".into(), mode: Mode::Interactive });
    let reason = "127.0.0.2 is not in the allowed domains (127.0.0.1)";
    sim.block_request("GET", "http://127.0.0.2:8080/dash?x=1", reason);
    sim.block_request("POST", "http://127.0.0.2:8080/form", reason);

    let args = RawArgs::from_pairs(&[("action", "see")]).expect("arguments");
    let o = engine.call_args(&args);
    let v = encode_outcome(&o);
    assert_eq!(v["blocked_count"], json!(2));
    assert_eq!(
        v["blocked"],
        json!([
            {"method": "GET", "url": "http://127.0.0.2:8080/dash?x=1", "reason": reason},
            {"method": "POST", "url": "http://127.0.0.2:8080/form", "reason": reason},
        ])
    );
    let ctx = AuditContext { unix_ms: 0, turn: "t1", mode: "interactive", tool: "computer" };
    let audit = audit_record(ctx, &args, &o);
    assert_eq!(audit["blocked"], v["blocked"]);
    assert_eq!(audit["blocked_count"], json!(2));

    // Nothing blocked: an empty list, never a missing key.
    let again = encode_outcome(&engine.call_args(&args));
    assert_eq!((again["blocked"].clone(), again["blocked_count"].clone()), (json!([]), json!(0)));
}

#[test]
fn a_url_with_credentials_never_reaches_the_structured_result() {
    let sim = SimDesktop::new(Size::new(800, 600));
    sim.add_window(WindowSpec::new("Chromium", "Home").bounds(Rect::new(0, 0, 800, 600)));
    let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "t1".into(), intent: "look".into(), mode: Mode::Interactive });
    // A guard that forgot to redact: the encoder removes the userinfo anyway.
    sim.block_request("GET", "http://bob:hunter2@127.0.0.2/", "the URL contains credentials");
    let o = engine.call_args(&RawArgs::from_pairs(&[("action", "see")]).expect("arguments"));
    let v = encode_outcome(&o).to_string();
    assert!(!v.contains("hunter2"), "{v}");
    assert!(v.contains("127.0.0.2"), "{v}");
}

/// Whether typed text arrived is part of the structured result, in every case a program must tell apart.
#[test]
fn the_typing_check_is_encoded_for_programs() {
    use handrail_sim::{TypingFault, Widget};
    let sim = SimDesktop::new(Size::new(800, 600));
    let win = sim.add_window(WindowSpec::new("Form", "Form").bounds(Rect::new(0, 0, 800, 600)));
    for (i, label) in ["First", "Second", "Third", "Fourth"].iter().enumerate() {
        sim.add_widget(win, Widget::entry(*label).at(100, 100 + 50 * i as i32, 300, 28));
    }
    let mut engine = Engine::new(sim.desktop(), Config { vision: Vision::Capable, ..Config::default() });
    engine.begin_turn(Turn { id: "t1".into(), intent: "fill in the form".into(), mode: Mode::Interactive });
    let mut type_into = |label: &str, text: &str| {
        engine.call_args(&RawArgs::from_pairs(&[("action", "see")]).expect("arguments"));
        let obs = engine.latest().expect("an observation");
        let id = obs.elements.iter().find(|e| e.label == label).map(|e| e.id.to_string()).expect("the entry");
        let obs = obs.id.to_string();
        let args =
            RawArgs::from_pairs(&[("action", "type"), ("observation_id", &obs), ("element_id", &id), ("text", text)])
                .expect("arguments");
        let o = engine.call_args(&args);
        (encode_outcome(&o)["typing"].clone(), id)
    };
    let (v, id) = type_into("First", "Ann");
    assert_eq!(v, json!({"result": "arrived", "element": id}));
    sim.fail_next_typing(TypingFault::Lost);
    let (v, id) = type_into("Second", "Bea");
    assert_eq!(v, json!({"result": "arrived_on_retry", "element": id, "first_held": ""}));
    sim.fail_next_typing(TypingFault::Lost);
    sim.fail_next_alternate_typing(TypingFault::Lost);
    let (v, id) = type_into("Third", "Cy");
    assert_eq!(v, json!({"result": "not_arrived", "element": id, "holds": "", "retried": true}));
    let (v, _) = type_into("Fourth", "Dee\n");
    assert_eq!(v["result"], json!("unchecked"));
    assert!(v["why"].as_str().is_some_and(|w| w.contains("newline")), "{v}");
}
