//! Decoding the `computer` tool's JSON arguments into [`RawArgs`]: type errors named per parameter,
//! unknown parameters refused.

use handrail_core::RawArgs;
use serde_json::Value;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
