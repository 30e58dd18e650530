//! handrail's JSON shapes, shared by the MCP and CLI edges: decoding `computer` tool arguments into
//! [`RawArgs`] and encoding an [`Outcome`] as a structured value. The engine never sees JSON.

pub mod tool;

use handrail_core::diff::{ElementRef, SemanticDiff, VisualDiff};
use handrail_core::observation::{Element, Observation};
use handrail_core::{ExpectOutcome, GuardDecision, Outcome, RawArgs, TypingCheck};
use handrail_platform::{BlockedRequest, Rect};
use serde_json::{json, Map, Value};

/// The argument names of the contract, in the order documentation lists them.
pub const PARAMETERS: [&str; 15] = [
    "action",
    "observation_id",
    "element_id",
    "target_text",
    "to_element_id",
    "to_target_text",
    "region",
    "text",
    "keys",
    "direction",
    "amount",
    "app",
    "url",
    "expect",
    "marks",
];

/// Why a JSON argument object could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("arguments must be a JSON object (got {0})")]
    NotAnObject(&'static str),
    #[error("unknown parameter `{name}`; the computer tool accepts: {}", PARAMETERS.join(", "))]
    UnknownParameter { name: String },
    #[error("`{name}` must be {expected} (got {got})")]
    WrongType { name: &'static str, expected: &'static str, got: &'static str },
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

fn string(name: &'static str, v: &Value) -> Result<Option<String>, DecodeError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        other => Err(DecodeError::WrongType { name, expected: "a string", got: kind(other) }),
    }
}

/// An integer, or a number with no fractional part (some clients send 3.0).
fn integer(name: &'static str, v: &Value) -> Result<Option<i64>, DecodeError> {
    let wrong = |got| DecodeError::WrongType { name, expected: "an integer", got };
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(Some(i))
            } else if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                Ok(Some(f as i64))
            } else {
                Err(wrong("a non-integer number"))
            }
        }
        other => Err(wrong(kind(other))),
    }
}

/// Decodes the `computer` tool's argument object. Unknown parameters are refused (a typo should not
/// silently drop a target); `null` means absent.
pub fn decode_args(value: &Value) -> Result<RawArgs, DecodeError> {
    let Value::Object(map) = value else {
        return Err(DecodeError::NotAnObject(kind(value)));
    };
    let mut args = RawArgs::default();
    for (name, v) in map {
        match name.as_str() {
            "action" => args.action = string("action", v)?,
            "observation_id" => args.observation_id = string("observation_id", v)?,
            "element_id" => args.element_id = string("element_id", v)?,
            "target_text" => args.target_text = string("target_text", v)?,
            "to_element_id" => args.to_element_id = string("to_element_id", v)?,
            "to_target_text" => args.to_target_text = string("to_target_text", v)?,
            "text" => args.text = string("text", v)?,
            "keys" => args.keys = string("keys", v)?,
            "direction" => args.direction = string("direction", v)?,
            "app" => args.app = string("app", v)?,
            "url" => args.url = string("url", v)?,
            "expect" => args.expect = string("expect", v)?,
            "amount" => args.amount = integer("amount", v)?,
            "marks" => {
                args.marks = match v {
                    Value::Null => None,
                    Value::Bool(b) => Some(*b),
                    other => {
                        return Err(DecodeError::WrongType { name: "marks", expected: "a boolean", got: kind(other) })
                    }
                }
            }
            "region" => {
                args.region = match v {
                    Value::Null => None,
                    Value::Array(items) => Some(
                        items
                            .iter()
                            .map(|i| {
                                integer("region", i)?.ok_or(DecodeError::WrongType {
                                    name: "region",
                                    expected: "an array of 4 integers",
                                    got: "null inside the array",
                                })
                            })
                            .collect::<Result<Vec<i64>, DecodeError>>()?,
                    ),
                    other => {
                        return Err(DecodeError::WrongType {
                            name: "region",
                            expected: "an array of 4 integers [x, y, width, height]",
                            got: kind(other),
                        })
                    }
                }
            }
            other => {
                let shown: String = other.chars().filter(|c| !c.is_control()).take(40).collect();
                return Err(DecodeError::UnknownParameter { name: shown });
            }
        }
    }
    Ok(args)
}

fn rect(r: &Rect) -> Value {
    json!([r.x, r.y, r.width, r.height])
}

fn element_ref(r: &ElementRef) -> Value {
    let mut m = Map::new();
    if r.id.is_assigned() {
        m.insert("id".into(), json!(r.id.to_string()));
    }
    m.insert("role".into(), json!(r.role.as_str()));
    m.insert("label".into(), json!(r.label));
    Value::Object(m)
}

fn element(e: &Element) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(e.id.to_string()));
    m.insert("role".into(), json!(e.role.as_str()));
    m.insert("label".into(), json!(e.label));
    if let Some(v) = e.value.as_deref().filter(|_| !e.is_secure()) {
        m.insert("value".into(), json!(v));
    }
    m.insert("bounds".into(), rect(&e.bounds));
    m.insert("states".into(), json!(e.states.names().collect::<Vec<_>>()));
    m.insert("source".into(), json!(e.source.as_str()));
    if !e.app.is_empty() {
        m.insert("app".into(), json!(e.app));
    }
    if !e.window.is_empty() {
        m.insert("window".into(), json!(e.window));
    }
    Value::Object(m)
}

/// The structured form of an observation (without image bytes, which edges send as image content).
pub fn encode_observation(o: &Observation) -> Value {
    json!({
        "id": o.id.to_string(),
        "app": o.app,
        "window": o.window,
        "focus": o.focused().map(|e| e.id.to_string()),
        "ax": o.ax.as_str(),
        "ocr": o.ocr.as_str(),
        "screen": [o.screen.width, o.screen.height],
        "image": [o.image_size.width, o.image_size.height],
        "scale": o.scale,
        "image_mime": o.image.as_ref().map(|i| i.mime),
        "inspect_region": o.inspect.as_ref().map(|d| rect(&d.region)),
        "monitors": o.monitors.iter().map(|m| json!({
            "id": m.tag(),
            "name": m.name,
            "bounds": rect(&m.bounds),
            "primary": m.primary,
        })).collect::<Vec<_>>(),
        "elements": o.elements.iter().map(|e| {
            let mut v = element(e);
            if let (Value::Object(m), Some(monitor)) = (&mut v, o.monitor_of(e)) {
                m.insert("monitor".into(), json!(monitor.tag()));
            }
            v
        }).collect::<Vec<_>>(),
    })
}

fn semantic(s: &SemanticDiff) -> Value {
    let pair = |p: &Option<(Option<String>, Option<String>)>| p.as_ref().map(|(b, a)| json!({"before": b, "after": a}));
    json!({
        "app": pair(&s.app),
        "window": pair(&s.window),
        "focus": s.focus.as_ref().map(|(b, a)| json!({
            "before": b.as_ref().map(element_ref),
            "after": a.as_ref().map(element_ref),
        })),
        "added": s.added.iter().map(element_ref).collect::<Vec<_>>(),
        "removed": s.removed.iter().map(element_ref).collect::<Vec<_>>(),
        "value_changed": s.value_changed.iter().map(element_ref).collect::<Vec<_>>(),
        "state_changed": s.state_changed.iter().map(|c| json!({
            "element": element_ref(&c.element),
            "before": c.before.names().collect::<Vec<_>>(),
            "after": c.after.names().collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "text_added": s.text_added,
        "text_removed": s.text_removed,
    })
}

fn visual(v: &VisualDiff) -> Value {
    json!({
        "changed_fraction": v.changed_fraction,
        "bounds": v.bounds.as_ref().map(rect),
        "changed_tiles": v.changed_tiles,
        "total_tiles": v.total_tiles,
    })
}

fn guard(g: &GuardDecision) -> Value {
    match g {
        GuardDecision::Passed => json!({"decision": "passed"}),
        GuardDecision::AllowedByIntent { marker } => json!({"decision": "allowed_by_intent", "marker": marker}),
        GuardDecision::AllowedByPerson { marker } => json!({"decision": "allowed_by_person", "marker": marker}),
        GuardDecision::Refused { rule } => json!({"decision": "refused", "rule": rule}),
        GuardDecision::NotReached => json!({"decision": "not_reached"}),
    }
}

/// Blocked requests encoded at most per result; `blocked_count` always has the full number.
const MAX_BLOCKED_ENCODED: usize = 64;

fn blocked(list: &[BlockedRequest], max: usize) -> Value {
    Value::Array(
        list.iter()
            .take(max)
            // Already redacted by the guard that recorded them; redacted again so no path can leak one.
            .map(|b| json!({"method": b.method, "url": redact_url(&b.url), "reason": b.reason}))
            .collect(),
    )
}

/// Whether typed text arrived; `holds` is what the field holds when it did not (screen content, as in
/// the text form).
fn typing(check: &TypingCheck) -> Value {
    match check {
        TypingCheck::Arrived { element } => json!({"result": check.as_str(), "element": element.to_string()}),
        TypingCheck::ArrivedOnRetry { element, first } => {
            json!({"result": check.as_str(), "element": element.to_string(), "first_held": first})
        }
        TypingCheck::NotArrived { element, holds, retried } => {
            json!({"result": check.as_str(), "element": element.to_string(), "holds": holds, "retried": retried})
        }
        TypingCheck::Unchecked { why } => json!({"result": check.as_str(), "why": why}),
    }
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The structured form of a result: the same facts as [`Outcome::text`].
pub fn encode_outcome(o: &Outcome) -> Value {
    let expect = o.expect.as_ref().map(|(e, outcome)| {
        let (result, detail) = match outcome {
            ExpectOutcome::Verified => ("verified", None),
            ExpectOutcome::NotMet { observed } => ("expectation_not_met", Some(observed.as_str())),
            ExpectOutcome::Unknown { why } => ("expect_unknown", Some(why.as_str())),
        };
        json!({"kind": e.kind.as_str(), "value": e.value, "result": result, "detail": detail})
    });
    json!({
        "status": o.status.as_str(),
        "tag": o.tag(),
        "action": o.action.map(|a| a.as_str()),
        "summary": o.summary,
        "message": o.message,
        "guard": guard(&o.guard),
        "expect": expect,
        "changed": o.changes.as_ref().map(|c| c.any()),
        "changes": o.changes.as_ref().map(|c| json!({"semantic": semantic(&c.semantic), "visual": visual(&c.visual)})),
        "timings_ms": {
            "capture": ms(o.timings.capture),
            "settle": ms(o.timings.settle),
            "settled": o.timings.settled,
            "observe": ms(o.timings.observe),
            "encode": ms(o.timings.encode),
            "total": ms(o.timings.total),
        },
        "blocked": blocked(&o.blocked, MAX_BLOCKED_ENCODED),
        "blocked_count": o.blocked.len(),
        "typing": o.typing.as_ref().map(typing),
        "animating": o.animating.iter().map(|r| [r.x as i64, r.y as i64, r.width as i64, r.height as i64]).collect::<Vec<_>>(),
        "observation": o.observation.as_deref().map(encode_observation),
        "latest_observation": o.observation.as_ref().map(|ob| ob.id).or(o.latest).map(|id| id.to_string()),
    })
}

/// Civil date and time (UTC) of a Unix time in milliseconds, as RFC 3339: `2026-12-02T14:49:35.123Z`.
pub fn rfc3339_utc(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-from-civil inverse.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        unix_ms % 1000
    )
}

/// Who asked for a call, as the audit log records it.
#[derive(Debug, Clone, Copy)]
pub struct AuditContext<'a> {
    pub unix_ms: u64,
    pub turn: &'a str,
    pub mode: &'a str,
    /// The tool called: `computer` or `read_image`.
    pub tool: &'a str,
}

/// A URL with any `user:password@` part replaced, so a refused credential URL never reaches a log.
fn redact_url(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(end);
            match authority.rfind('@') {
                Some(at) => format!("{scheme}://[redacted]@{}{tail}", &authority[at + 1..]),
                None => url.to_string(),
            }
        }
        None if url.contains('@') => "[redacted]".to_string(),
        None => url.to_string(),
    }
}

/// One line of the audit log for a `computer` call: when, which turn, what was asked and on what,
/// the guard's decision, the verdict and the timings. Typed text is recorded by length only and URLs
/// lose their credentials, so the log never holds a secret.
pub fn audit_record(ctx: AuditContext<'_>, args: &RawArgs, outcome: &Outcome) -> Value {
    let mut target = Map::new();
    for (name, value) in [
        ("observation_id", &args.observation_id),
        ("element_id", &args.element_id),
        ("target_text", &args.target_text),
        ("to_element_id", &args.to_element_id),
        ("to_target_text", &args.to_target_text),
        ("keys", &args.keys),
        ("direction", &args.direction),
        ("app", &args.app),
    ] {
        if let Some(v) = value {
            let clipped: String = v.chars().take(200).collect();
            target.insert(name.into(), json!(clipped));
        }
    }
    if let Some(url) = &args.url {
        target.insert("url".into(), json!(redact_url(&url.chars().take(500).collect::<String>())));
    }
    if let Some(region) = &args.region {
        target.insert("region".into(), json!(region.iter().take(8).collect::<Vec<_>>()));
    }
    if let Some(amount) = args.amount {
        target.insert("amount".into(), json!(amount));
    }
    if let Some(text) = &args.text {
        target.insert("text_chars".into(), json!(text.chars().count()));
    }
    let expect = outcome.expect.as_ref().map(|(e, result)| {
        let result = match result {
            ExpectOutcome::Verified => "verified",
            ExpectOutcome::NotMet { .. } => "expectation_not_met",
            ExpectOutcome::Unknown { .. } => "expect_unknown",
        };
        json!({"kind": e.kind.as_str(), "result": result})
    });
    json!({
        "time": rfc3339_utc(ctx.unix_ms),
        "turn": ctx.turn,
        "mode": ctx.mode,
        "tool": ctx.tool,
        "action": outcome.action.map(|a| a.as_str()).or(args.action.as_deref().map(|a| if a.len() > 40 { "(invalid)" } else { a })),
        "target": Value::Object(target),
        "guard": guard(&outcome.guard),
        "verdict": outcome.tag(),
        "changed": outcome.changes.as_ref().map(|c| c.any()),
        "expect": expect,
        "observation": outcome.observation.as_ref().map(|o| o.id.to_string()),
        "blocked": blocked(&outcome.blocked, 16),
        "blocked_count": outcome.blocked.len(),
        // What a field holds is never logged: only whether the text arrived.
        "typing": outcome.typing.as_ref().map(|t| t.as_str()),
        "timings_ms": {
            "capture": ms(outcome.timings.capture),
            "settle": ms(outcome.timings.settle),
            "observe": ms(outcome.timings.observe),
            "encode": ms(outcome.timings.encode),
            "total": ms(outcome.timings.total),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_times() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_222_975_123), "2026-12-02T14:49:35.123Z");
    }

    #[test]
    fn audit_urls_lose_credentials() {
        assert_eq!(redact_url("https://bob:hunter2@example.com/x?y"), "https://[redacted]@example.com/x?y");
        assert_eq!(redact_url("https://example.com/a@b"), "https://example.com/a@b");
        assert_eq!(redact_url("bob:pw@host"), "[redacted]");
    }

    #[test]
    fn decodes_the_contract_parameters() {
        let v = json!({"action": "click", "observation_id": "obs_1", "element_id": "e2", "expect": "text:Saved", "amount": 3.0, "region": null});
        let a = decode_args(&v).expect("decodes");
        assert_eq!(a.action.as_deref(), Some("click"));
        assert_eq!(a.amount, Some(3));
        assert_eq!(a.region, None);
    }

    #[test]
    fn refuses_wrong_shapes_specifically() {
        assert_eq!(decode_args(&json!([1])), Err(DecodeError::NotAnObject("an array")));
        assert!(matches!(decode_args(&json!({"x": 1, "y": 2})), Err(DecodeError::UnknownParameter { .. })));
        assert_eq!(
            decode_args(&json!({"action": 5})),
            Err(DecodeError::WrongType { name: "action", expected: "a string", got: "a number" })
        );
        assert!(matches!(decode_args(&json!({"amount": 1.5})), Err(DecodeError::WrongType { name: "amount", .. })));
        assert!(matches!(
            decode_args(&json!({"region": "0,0,1,1"})),
            Err(DecodeError::WrongType { name: "region", .. })
        ));
    }
}
