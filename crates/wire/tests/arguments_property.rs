//! Arbitrary JSON-ish arguments never panic the decoder or the validator, and every refusal is specific.

use handrail_core::Request;
use handrail_wire::{decode_args, PARAMETERS};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,40}".prop_map(Value::String),
        // Plausible values so validation gets past the first checks often.
        prop_oneof![
            Just("click"),
            Just("see"),
            Just("type"),
            Just("key"),
            Just("drag"),
            Just("scroll"),
            Just("inspect"),
            Just("open_url"),
            Just("open_app"),
            Just("obs_1"),
            Just("e3"),
            Just("ctrl+shift+t"),
            Just("down"),
            Just("text:Saved"),
            Just("https://example.com"),
            Just("http://a@b"),
            Just("cmd+delete"),
            Just("focus:"),
            Just("e0"),
            Just("obs_")
        ]
        .prop_map(|s| Value::String(s.to_string())),
        "\\PC{0,5000}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,12}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        4 => prop::sample::select(PARAMETERS.to_vec()).prop_map(str::to_string),
        1 => ".{0,12}",
    ];
    prop::collection::btree_map(key, json_value(), 0..7)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decoding_and_validation_never_panic(v in prop_oneof![arguments(), json_value()]) {
        match decode_args(&v) {
            Err(e) => prop_assert!(!e.to_string().trim().is_empty()),
            Ok(raw) => match Request::from_args(&raw) {
                Ok(request) => prop_assert_eq!(Some(request.action.as_str()), raw.action.as_deref().map(str::trim)),
                Err(e) => {
                    let msg = e.to_string();
                    prop_assert!(!msg.trim().is_empty());
                    prop_assert!(msg.len() < 600, "error message too long: {}", msg.len());
                }
            },
        }
    }
}
