//! The `computer` tool's arguments, from JSON to a validated request:
//! `serde_json` → `handrail_wire::decode_args` → `RawArgs` → `Request::from_args`.
//!
//! Invariants:
//! - decoding gives exactly what the contract's types say (each parameter's JSON type, `null` as absent,
//!   unknown names refused), as modelled here, and errors name the parameter;
//! - validation never panics; its errors are bounded in size (a huge argument is never echoed) and say
//!   true things (a `TooLong` is too long, a `ControlCharacters` parameter holds one, …);
//! - a parameter the action does not use is refused before anything else is looked at;
//! - what a request holds is what validation accepted: the same text, URL, keys, target, region, amount;
//!   accepted text obeys the contract (length, no control characters or bidi overrides).

#![no_main]

use handrail_core::keys::parse_key_combo;
use handrail_core::request::{
    ActionKind, ArgError, Command, Expect, InspectSubject, PointerKind, RawArgs, Request, Target, MAX_APP_CHARS,
    MAX_EXPECT_CHARS, MAX_TARGET_TEXT_CHARS, MAX_TYPE_CHARS, MAX_URL_CHARS,
};
use handrail_core::{ElementId, ObservationId};
use handrail_fuzz::within_heap;
use handrail_platform::{Rect, ScrollDirection};
use handrail_wire::{decode_args, DecodeError, PARAMETERS};
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

/// Words the contract knows, so the fuzzer reaches valid requests and the checks behind them.
const WORDS: &[&str] = &[
    "see",
    "inspect",
    "click",
    "double_click",
    "triple_click",
    "right_click",
    "hover",
    "drag",
    "type",
    "key",
    "scroll",
    "open_app",
    "open_url",
    " click ",
    "CLICK",
    "obs_1",
    "obs_12",
    " obs_3 ",
    "obs_0",
    "obs_",
    "e1",
    "e42",
    " e7 ",
    "e0",
    "e",
    "e01",
    "Save",
    "  Save  ",
    "",
    " ",
    "\t",
    "ctrl+s",
    "ctrl+shift+t",
    "shift+delete",
    "cmd+q",
    "ctrl++",
    "up",
    "down",
    "left",
    "right",
    "Down",
    "sideways",
    "gnome-calculator",
    "https://example.com/",
    " https://example.com/a?b#c ",
    "http://user:pass@example.com/",
    "javascript:alert(1)",
    "focus:Name",
    "text:Saved",
    "app: Files ",
    "window:",
    "colour:red",
    "text",
    "line one\nline two\t!",
    "a\u{7}b",
    "\u{202e}txt",
    "é",
    "ก",
    "\u{0}",
    "\r\n",
];

#[derive(Debug, Arbitrary)]
enum Text {
    Word(u8),
    Raw(String),
    /// A long string: the limits and the size of error messages.
    Repeat(u8, u16),
    /// A known word with a character spliced in (control characters, bidi overrides, spaces).
    Spliced(u8, u8, char),
}

impl Text {
    fn render(&self) -> String {
        match self {
            Text::Word(i) => WORDS[usize::from(*i) % WORDS.len()].to_string(),
            Text::Raw(s) => s.clone(),
            Text::Repeat(i, n) => WORDS[usize::from(*i) % WORDS.len()].repeat(usize::from(*n) % 5000),
            Text::Spliced(i, at, c) => {
                let mut chars: Vec<char> = WORDS[usize::from(*i) % WORDS.len()].chars().collect();
                chars.insert(usize::from(*at) % (chars.len() + 1), *c);
                chars.into_iter().collect()
            }
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Small(i8),
    Float(f64),
    Str(Text),
    Array(Vec<Json>),
    Object,
}

impl Json {
    fn render(&self, depth: u32) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => Value::from(*i),
            Json::Small(i) => Value::from(*i),
            Json::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(t) => Value::String(t.render()),
            Json::Array(items) if depth < 3 => Value::Array(items.iter().map(|j| j.render(depth + 1)).collect()),
            Json::Array(_) => Value::Array(Vec::new()),
            Json::Object => Value::Object(Map::new()),
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Key {
    Known(u8),
    Other(Text),
}

#[derive(Debug, Arbitrary)]
struct Input {
    fields: Vec<(Key, Json)>,
    /// Sent through JSON text and parsed back, as a client's request arrives.
    through_text: bool,
    /// Not an object at all.
    not_an_object: Option<Json>,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let value = if mode % 4 == 0 {
        // Raw JSON text.
        match serde_json::from_slice::<Value>(rest) {
            Ok(v) => v,
            Err(_) => return,
        }
    } else {
        let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(rest)) else { return };
        let value = match &input.not_an_object {
            Some(j) => j.render(0),
            None => Value::Object(
                input
                    .fields
                    .iter()
                    .map(|(k, v)| {
                        let name = match k {
                            Key::Known(i) => PARAMETERS[usize::from(*i) % PARAMETERS.len()].to_string(),
                            Key::Other(t) => t.render(),
                        };
                        (name, v.render(0))
                    })
                    .collect(),
            ),
        };
        if input.through_text {
            // What a server sees: the client's JSON text, parsed.
            let text = serde_json::to_string(&value).expect("a JSON value serialises");
            serde_json::from_str(&text).expect("serialised JSON parses")
        } else {
            value
        }
    };
    check(&value);
});

fn check(value: &Value) {
    let decoded = decode_args(value);
    assert_eq!(decoded, decode_model(value), "decode_args disagrees with the contract's types");
    let Ok(raw) = decoded else {
        if let Err(e) = &decoded {
            assert!(!e.to_string().is_empty());
        }
        return;
    };
    // Validation holds on to nothing in proportion to a huge argument beyond copies of it.
    let total: usize = value.to_string().len();
    let (result, _) = within_heap(8 * total + (1 << 16), || Request::from_args(&raw));
    match result {
        Ok(req) => accepted(&raw, &req),
        Err(e) => refused(&raw, &e),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The contract's parameter types, written out.
fn decode_model(value: &Value) -> Result<RawArgs, DecodeError> {
    let Value::Object(map) = value else { return Err(DecodeError::NotAnObject(kind(value))) };
    let mut a = RawArgs::default();
    let int = |name: &'static str, v: &Value| -> Result<Option<i64>, DecodeError> {
        match v {
            Value::Null => Ok(None),
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Ok(Some(i)),
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
                _ => Err(DecodeError::WrongType { name, expected: "an integer", got: "a non-integer number" }),
            },
            other => Err(DecodeError::WrongType { name, expected: "an integer", got: kind(other) }),
        }
    };
    for (name, v) in map {
        let Some(param) = PARAMETERS.iter().find(|p| **p == name.as_str()) else {
            let shown: String = name.chars().filter(|c| !c.is_control()).take(40).collect();
            return Err(DecodeError::UnknownParameter { name: shown });
        };
        match *param {
            "amount" => a.amount = int("amount", v)?,
            "marks" => {
                a.marks = match v {
                    Value::Null => None,
                    Value::Bool(b) => Some(*b),
                    other => {
                        return Err(DecodeError::WrongType { name: "marks", expected: "a boolean", got: kind(other) })
                    }
                }
            }
            "region" => {
                a.region = match v {
                    Value::Null => None,
                    Value::Array(items) => {
                        let mut out = Vec::new();
                        for i in items {
                            match int("region", i)? {
                                Some(n) => out.push(n),
                                None => {
                                    return Err(DecodeError::WrongType {
                                        name: "region",
                                        expected: "an array of 4 integers",
                                        got: "null inside the array",
                                    })
                                }
                            }
                        }
                        Some(out)
                    }
                    other => {
                        return Err(DecodeError::WrongType {
                            name: "region",
                            expected: "an array of 4 integers [x, y, width, height]",
                            got: kind(other),
                        })
                    }
                }
            }
            p => {
                let s = match v {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => return Err(DecodeError::WrongType { name: p, expected: "a string", got: kind(other) }),
                };
                let slot = match p {
                    "action" => &mut a.action,
                    "observation_id" => &mut a.observation_id,
                    "element_id" => &mut a.element_id,
                    "target_text" => &mut a.target_text,
                    "to_element_id" => &mut a.to_element_id,
                    "to_target_text" => &mut a.to_target_text,
                    "text" => &mut a.text,
                    "keys" => &mut a.keys,
                    "direction" => &mut a.direction,
                    "app" => &mut a.app,
                    "url" => &mut a.url,
                    "expect" => &mut a.expect,
                    other => panic!("parameter {other} has no type in the model"),
                };
                *slot = s;
            }
        }
    }
    Ok(a)
}

/// Parameters each action accepts besides `action`, `observation_id`, `expect` and `marks` (the table in
/// README.md).
fn accepts(action: ActionKind) -> &'static [&'static str] {
    match action {
        ActionKind::See => &[],
        ActionKind::Inspect => &["element_id", "target_text", "region"],
        ActionKind::Click
        | ActionKind::DoubleClick
        | ActionKind::TripleClick
        | ActionKind::RightClick
        | ActionKind::Hover => &["element_id", "target_text"],
        ActionKind::Drag => &["element_id", "target_text", "to_element_id", "to_target_text"],
        ActionKind::Type => &["element_id", "target_text", "text"],
        ActionKind::Key => &["keys"],
        ActionKind::Scroll => &["element_id", "target_text", "direction", "amount"],
        ActionKind::OpenApp => &["app"],
        ActionKind::OpenUrl => &["url"],
    }
}

/// The optional parameters given, in the order validation looks at them.
fn given(raw: &RawArgs) -> Vec<&'static str> {
    [
        ("element_id", raw.element_id.is_some()),
        ("target_text", raw.target_text.is_some()),
        ("to_element_id", raw.to_element_id.is_some()),
        ("to_target_text", raw.to_target_text.is_some()),
        ("region", raw.region.is_some()),
        ("text", raw.text.is_some()),
        ("keys", raw.keys.is_some()),
        ("direction", raw.direction.is_some()),
        ("amount", raw.amount.is_some()),
        ("app", raw.app.is_some()),
        ("url", raw.url.is_some()),
    ]
    .into_iter()
    .filter(|(_, present)| *present)
    .map(|(name, _)| name)
    .collect()
}

fn string_param<'a>(raw: &'a RawArgs, name: &str) -> Option<&'a str> {
    match name {
        "action" => raw.action.as_deref(),
        "observation_id" => raw.observation_id.as_deref(),
        "element_id" => raw.element_id.as_deref(),
        "target_text" => raw.target_text.as_deref(),
        "to_element_id" => raw.to_element_id.as_deref(),
        "to_target_text" => raw.to_target_text.as_deref(),
        "text" => raw.text.as_deref(),
        "keys" => raw.keys.as_deref(),
        "direction" => raw.direction.as_deref(),
        "app" => raw.app.as_deref(),
        "url" => raw.url.as_deref(),
        "expect" => raw.expect.as_deref(),
        _ => None,
    }
}

/// A character the contract refuses in text parameters: control characters and bidi overrides.
fn forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn clean(s: &str, max_chars: usize) {
    assert!(!s.trim().is_empty(), "accepted an empty value {s:?}");
    assert!(s.chars().count() <= max_chars, "accepted {} characters (at most {max_chars})", s.chars().count());
    assert!(!s.chars().any(forbidden), "accepted a control character in {s:?}");
}

fn target_of(raw_id: Option<&str>, raw_text: Option<&str>, t: &Target) {
    match t {
        Target::Element(id) => {
            let raw = raw_id.expect("an element target comes from an element id");
            assert_eq!(ElementId::parse(raw), Ok(*id));
            assert_eq!(ElementId::parse(&id.to_string()), Ok(*id), "element ids print as they parse");
            assert!(id.is_assigned());
        }
        Target::Text(text) => {
            let raw = raw_text.expect("a text target comes from target text");
            assert!(raw_id.is_none(), "both an id and a text were accepted");
            clean(raw, MAX_TARGET_TEXT_CHARS);
            assert_eq!(text, raw.trim(), "the target text is what was given, trimmed");
        }
    }
}

fn accepted(raw: &RawArgs, req: &Request) {
    let action = raw.action.as_deref().and_then(ActionKind::parse).expect("accepted a request without an action");
    assert_eq!(req.action, action);
    for p in given(raw) {
        assert!(accepts(action).contains(&p), "{action} accepted `{p}`, which it does not use");
    }
    assert_eq!(req.marks, raw.marks);
    assert_eq!(req.observation, raw.observation_id.as_deref().map(|s| ObservationId::parse(s).expect("valid id")));
    match (&req.expect, raw.expect.as_deref()) {
        (None, None) => {}
        (Some(e), Some(s)) => {
            assert_eq!(Expect::parse(s).as_ref(), Ok(e));
            clean(&e.value, MAX_EXPECT_CHARS);
            assert_eq!(e.value, e.value.trim());
            assert!(s.trim_end().ends_with(e.value.as_str()));
        }
        other => panic!("expect changed on the way: {other:?}"),
    }
    if let Some(Target::Element(_)) = req.target() {
        assert!(req.observation.is_some(), "an element target without its observation");
    }
    let id = raw.element_id.as_deref();
    let text = raw.target_text.as_deref();
    match &req.command {
        Command::See => assert_eq!(action, ActionKind::See),
        Command::Inspect(InspectSubject::Target(t)) => target_of(id, text, t),
        Command::Inspect(InspectSubject::Region(r)) => {
            let given = raw.region.as_deref().expect("a region comes from `region`");
            assert_eq!(given, [i64::from(r.x), i64::from(r.y), i64::from(r.width), i64::from(r.height)]);
            assert!(!r.is_empty() && r.x >= 0 && r.y >= 0);
            assert_eq!(*r, Rect::new(r.x, r.y, r.width, r.height));
        }
        Command::Pointer { kind, target } => {
            let want = match action {
                ActionKind::Click => PointerKind::Click,
                ActionKind::DoubleClick => PointerKind::DoubleClick,
                ActionKind::TripleClick => PointerKind::TripleClick,
                ActionKind::RightClick => PointerKind::RightClick,
                ActionKind::Hover => PointerKind::Hover,
                other => panic!("{other} became a pointer action"),
            };
            assert_eq!(*kind, want);
            target_of(id, text, target);
        }
        Command::Drag { from, to } => {
            target_of(id, text, from);
            target_of(raw.to_element_id.as_deref(), raw.to_target_text.as_deref(), to);
        }
        Command::Type { target, text: typed } => {
            let given = raw.text.as_deref().expect("typed text comes from `text`");
            assert_eq!(typed, given, "typed text is exactly what was given");
            assert!(!typed.is_empty() && typed.chars().count() <= MAX_TYPE_CHARS);
            assert!(
                !typed.chars().any(|c| c != '\n' && c != '\t' && forbidden(c)),
                "typed text with a control character was accepted: {typed:?}"
            );
            match target {
                Some(t) => target_of(id, text, t),
                None => assert!(id.is_none() && text.is_none()),
            }
        }
        Command::Key { combo } => {
            let keys = raw.keys.as_deref().expect("a combination comes from `keys`");
            assert_eq!(parse_key_combo(keys).as_ref(), Ok(combo));
        }
        Command::Scroll { target, direction, amount } => {
            assert_eq!(i64::from(*amount), raw.amount.unwrap_or(3));
            assert!((1..=50).contains(amount));
            let d = raw.direction.as_deref().expect("a direction comes from `direction`").trim().to_lowercase();
            let want = match d.as_str() {
                "up" => ScrollDirection::Up,
                "down" => ScrollDirection::Down,
                "left" => ScrollDirection::Left,
                "right" => ScrollDirection::Right,
                other => panic!("scroll direction {other:?} was accepted"),
            };
            assert_eq!(*direction, want);
            match target {
                Some(t) => target_of(id, text, t),
                None => assert!(id.is_none() && text.is_none()),
            }
        }
        Command::OpenApp { app } => {
            let given = raw.app.as_deref().expect("an app comes from `app`");
            clean(given, MAX_APP_CHARS);
            assert_eq!(app, given.trim());
        }
        Command::OpenUrl { url } => {
            let given = raw.url.as_deref().expect("a URL comes from `url`");
            assert!(given.chars().count() <= MAX_URL_CHARS);
            assert!(!given.chars().any(forbidden), "accepted a URL with a control character: {given:?}");
            assert_eq!(url, given.trim());
            assert!(!url.is_empty());
        }
    }
}

fn refused(raw: &RawArgs, e: &ArgError) {
    let msg = e.to_string();
    assert!(!msg.is_empty());
    // Inputs are quoted clipped: a megabyte of text never comes back in an error.
    assert!(msg.chars().count() <= 1000, "an error of {} characters: {e:?}", msg.chars().count());

    // The action is judged first, then parameters the action does not use.
    let Some(name) = raw.action.as_deref() else {
        assert_eq!(*e, ArgError::MissingAction);
        return;
    };
    let Some(action) = ActionKind::parse(name) else {
        assert!(matches!(e, ArgError::UnknownAction(_)), "{e:?}");
        return;
    };
    if let Some(unused) = given(raw).into_iter().find(|p| !accepts(action).contains(p)) {
        match e {
            ArgError::RawCoordinates => assert_eq!(unused, "region"),
            ArgError::NotUsed { param, action: a, .. } => assert_eq!((*param, *a), (unused, action)),
            other => panic!("{action} with unused `{unused}` refused as {other:?}"),
        }
        return;
    }
    match e {
        ArgError::TooLong { param, len, max } => {
            assert!(len > max, "`{param}` refused as too long at {len} of at most {max}");
            let value = if *param == "expect" {
                raw.expect.as_deref().and_then(|s| s.split_once(':')).map(|(_, v)| v.trim())
            } else {
                string_param(raw, param)
            };
            let value = value.expect("a too-long parameter was given");
            assert_eq!(*len, value.chars().count(), "the length shown is the parameter's");
        }
        ArgError::ControlCharacters(param) => {
            let value = if *param == "expect" {
                raw.expect.as_deref().and_then(|s| s.split_once(':')).map(|(_, v)| v)
            } else {
                string_param(raw, param)
            };
            let value = value.expect("the parameter was given");
            assert!(value.chars().any(forbidden), "`{param}` refused for control characters it does not hold");
        }
        ArgError::Empty(param) => {
            let value = string_param(raw, param).expect("an empty parameter was given");
            assert!(value.trim().is_empty(), "`{param}` refused as empty: {value:?}");
        }
        ArgError::BadAmount(n) => assert_eq!(Some(*n), raw.amount),
        _ => {}
    }
}
