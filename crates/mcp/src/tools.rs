//! The two tools as MCP clients list them: names, descriptions that teach the loop, input schemas, and
//! output schemas generated from the result types of `handrail-wire`.

use std::sync::Arc;

use handrail_wire::tool::{computer_schema, COMPUTER_DESCRIPTION};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

pub const COMPUTER: &str = "computer";
pub const READ_IMAGE: &str = "read_image";
/// The `computer` argument this edge adds: how the call's screenshot travels.
pub const IMAGE_ARGUMENT: &str = "image";

const READ_IMAGE_DESCRIPTION: &str = "\
Show an image file (PNG, JPEG, GIF or WebP) from the allowed folders. Files get their own ids (img_N) \
and never count as desktop observations: to see the screen use the computer tool's see action.";

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub fn read_image_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": string("Absolute path of the image file, inside one of the allowed folders.")
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(map) => Arc::new(map),
        // The schemas above are literal objects.
        _ => Arc::new(JsonObject::new()),
    }
}

pub fn computer_tool() -> Tool {
    let mut annotations = ToolAnnotations::new();
    annotations.title = Some("Computer".into());
    annotations.read_only_hint = Some(false);
    annotations.destructive_hint = Some(true);
    annotations.idempotent_hint = Some(false);
    annotations.open_world_hint = Some(true);
    let mut schema = computer_schema();
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert(
            IMAGE_ARGUMENT.into(),
            json!({
                "type": "string",
                "enum": ["inline", "resource", "none"],
                "description": "How this call's screenshot comes back: inline (default unless the server says otherwise), \
                                as a resource link to read with resources/read, or not at all."
            }),
        );
    }
    let mut tool = Tool::new(COMPUTER, COMPUTER_DESCRIPTION, object(schema));
    tool.output_schema = Some(Arc::new(handrail_wire::schema::computer_result()));
    tool.title = Some("Computer".into());
    tool.annotations = Some(annotations);
    tool
}

pub fn read_image_tool() -> Tool {
    let mut annotations = ToolAnnotations::new();
    annotations.title = Some("Read image".into());
    annotations.read_only_hint = Some(true);
    annotations.open_world_hint = Some(false);
    let mut tool = Tool::new(READ_IMAGE, READ_IMAGE_DESCRIPTION, object(read_image_schema()));
    tool.output_schema = Some(Arc::new(handrail_wire::schema::read_image_result()));
    tool.title = Some("Read image".into());
    tool.annotations = Some(annotations);
    tool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_lists_exactly_the_contract_parameters() {
        let schema = computer_schema();
        let listed = computer_tool();
        assert!(listed.input_schema["properties"].get(IMAGE_ARGUMENT).is_some(), "MCP adds `image`");
        let mut names: Vec<&str> =
            schema["properties"].as_object().map_or(vec![], |m| m.keys().map(String::as_str).collect());
        names.sort_unstable();
        let mut contract = handrail_wire::PARAMETERS.to_vec();
        contract.sort_unstable();
        assert_eq!(names, contract);
    }

    #[test]
    fn the_action_enum_matches_what_the_engine_parses() {
        let schema = computer_schema();
        let actions = schema["properties"]["action"]["enum"].as_array().cloned().unwrap_or_default();
        assert_eq!(actions.len(), 13);
        for a in actions {
            let name = a.as_str().unwrap_or_default();
            assert!(handrail_core::ActionKind::parse(name).is_some(), "{name}");
        }
    }
}
