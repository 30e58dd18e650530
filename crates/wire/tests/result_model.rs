//! The structured result as a program reads it: every kind of result from a simulated desktop
//! serialises and reads back as the same typed value, carries the format version, and names a
//! reason exactly when the call did not run as asked. (Real results are validated against the
//! generated output schema by an independent validator in the MCP end-to-end test.)

use handrail_core::{Config, Engine, Markers, Mode, Outcome, RawArgs, Turn, Vision};
use handrail_platform::{Rect, Size};
use handrail_sim::{Reaction, SimDesktop, Widget, WindowSpec};
use handrail_wire::result::StatusCode;
use handrail_wire::{ComputerResult, RESULT_VERSION};

fn call(engine: &mut Engine, pairs: &[(&str, &str)]) -> Outcome {
    engine.call_args(&RawArgs::from_pairs(pairs).expect("arguments"))
}

fn outcomes() -> Vec<Outcome> {
    let sim = SimDesktop::new(Size::new(1280, 800));
    let win = sim.add_window(WindowSpec::new("Forms", "Account - Forms").bounds(Rect::new(100, 80, 900, 600)));
    let status = sim.add_widget(win, Widget::text("Ready").at(130, 600, 200, 20));
    sim.add_widget(win, Widget::entry("Name").at(130, 140, 300, 28));
    sim.add_widget(win, Widget::password("Password").at(130, 190, 300, 28));
    sim.add_widget(win, Widget::button("Save").at(130, 500, 90, 30).on_click(Reaction::set_label(status, "Saved")));
    sim.add_widget(win, Widget::button("Delete account").at(240, 500, 160, 30));
    sim.add_widget(win, Widget::button("Nothing").at(420, 500, 100, 30));
    let config = Config { vision: Vision::Capable, markers: Markers::Seeded(1), ..Config::default() };
    let mut engine = Engine::new(sim.desktop(), config.clone());
    engine.begin_turn(Turn { id: "t".into(), intent: "save my name".into(), mode: Mode::Interactive });
    let mut out = vec![call(&mut engine, &[("action", "see")])];
    let obs = out[0].observation.as_ref().expect("an observation").clone();
    let id = |label: &str| obs.elements.iter().find(|e| e.label == label).expect(label).id.to_string();
    let o = obs.id.to_string();
    out.push(call(
        &mut engine,
        &[("action", "type"), ("observation_id", &o), ("element_id", &id("Name")), ("text", "Ann")],
    ));
    let latest = engine.latest().expect("latest").id.to_string();
    out.push(call(&mut engine, &[("action", "click"), ("observation_id", &o), ("element_id", &id("Save"))]));
    out.push(call(
        &mut engine,
        &[("action", "click"), ("observation_id", &latest), ("element_id", &id("Save")), ("expect", "text:Saved")],
    ));
    out.push(call(&mut engine, &[("action", "click"), ("target_text", "Delete account")]));
    out.push(call(&mut engine, &[("action", "type"), ("target_text", "Password"), ("text", "hunter2")]));
    out.push(call(&mut engine, &[("action", "click"), ("target_text", "Nothing")]));
    out.push(call(&mut engine, &[("action", "key"), ("keys", "shift+delete")]));
    out.push(call(&mut engine, &[("action", "open_url"), ("url", "http://admin:pw@example.com/")]));
    out.push(call(&mut engine, &[("action", "jump")]));
    out.push(call(&mut engine, &[("action", "inspect"), ("region", "130,500,200,40")]));
    let mut blind = Engine::new(sim.desktop(), Config { vision: Vision::TextOnly { model: "m".into() }, ..config });
    out.push(call(&mut blind, &[("action", "see")]));
    out
}

#[test]
fn every_result_reads_back_as_the_same_typed_value() {
    let outcomes = outcomes();
    let mut statuses = Vec::new();
    for o in &outcomes {
        let typed = ComputerResult::from(o);
        let json = serde_json::to_string(&typed).expect("serialises");
        let back: ComputerResult = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, typed, "{json}");
        assert_eq!(back.version, RESULT_VERSION);
        let ran = matches!(back.status, StatusCode::Ok | StatusCode::NoVisibleChange);
        assert_eq!(back.reason.is_none(), ran, "{}", o.text());
        assert!(!json.contains("hunter2") && !json.contains("admin:pw"), "{json}");
        statuses.push(back.status);
    }
    for s in
        [StatusCode::Ok, StatusCode::NoVisibleChange, StatusCode::Refused, StatusCode::Error, StatusCode::Unsupported]
    {
        assert!(statuses.contains(&s), "{s:?} among {statuses:?}");
    }
}

#[test]
fn the_output_schema_describes_the_result_and_is_an_object() {
    let schema = handrail_wire::schema::computer_result();
    assert_eq!(schema.get("type").and_then(|t| t.as_str()), Some("object"));
    let required: Vec<&str> =
        schema["required"].as_array().expect("required").iter().filter_map(|v| v.as_str()).collect();
    for key in ["version", "status", "tag", "reason", "guard", "targets", "timings_ms", "observation"] {
        assert!(required.contains(&key), "{key} is required: {required:?}");
    }
    let image = handrail_wire::schema::read_image_result();
    assert_eq!(image.get("type").and_then(|t| t.as_str()), Some("object"));
}

/// The output schema lists every rule a refusal can name, spelled as the engine spells it, and no
/// other: a client can match on `guard.rule` exhaustively.
#[test]
fn the_schema_lists_every_guard_rule_and_only_those() {
    use handrail_core::Rule;
    use handrail_wire::result::RuleCode;
    let schema = serde_json::to_string(&handrail_wire::schema::computer_result()).expect("schema as JSON");
    let mut listed: Vec<String> = Vec::new();
    for rule in Rule::ALL {
        let code = serde_json::to_value(RuleCode::from(rule)).expect("a code");
        assert_eq!(code.as_str(), Some(rule.as_str()), "{rule:?}");
        assert!(schema.contains(&format!("\"{}\"", rule.as_str())), "the schema lists {}", rule.as_str());
        listed.push(rule.as_str().to_string());
    }
    // The rule's enum in the schema holds exactly those codes.
    let value = serde_json::Value::Object(handrail_wire::schema::computer_result());
    let mut enums: Vec<Vec<String>> = Vec::new();
    collect_enums(&value, &mut enums);
    listed.sort();
    assert!(
        enums.iter().any(|e| {
            let mut e = e.clone();
            e.sort();
            e == listed
        }) || {
            // schemars may spell a documented unit enum as one `const` per variant under `oneOf`.
            let mut consts: Vec<String> = Vec::new();
            collect_consts(&value, &mut consts);
            listed.iter().all(|c| consts.contains(c))
        },
        "no enum of exactly the rule codes in the schema: {enums:?}"
    );
}

fn collect_enums(v: &serde_json::Value, out: &mut Vec<Vec<String>>) {
    match v {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::Array(items)) = map.get("enum") {
                out.push(items.iter().filter_map(|i| i.as_str().map(String::from)).collect());
            }
            map.values().for_each(|x| collect_enums(x, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| collect_enums(x, out)),
        _ => {}
    }
}

fn collect_consts(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::String(c)) = map.get("const") {
                out.push(c.clone());
            }
            map.values().for_each(|x| collect_consts(x, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| collect_consts(x, out)),
        _ => {}
    }
}
