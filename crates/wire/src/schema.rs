//! JSON Schemas generated from the result types, for tools' `outputSchema` and for documentation.
//! Generated, never written by hand, so the schema and the results cannot drift apart.
//!
//! The results never leave a key out: a fact that is absent is `null`. So every property is required,
//! nullable or not — except the few a type marks `x-omitted-when-absent` (per-element details that are
//! left out rather than repeated as `null` on every element).

use schemars::generate::SchemaSettings;
use schemars::transform::{transform_subschemas, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use crate::audit::AuditRecord;
use crate::image::ReadImageResult;
use crate::result::ComputerResult;
use crate::service::ResetReport;

/// The keyword a property carries when it is left out instead of being `null`.
pub(crate) const OMITTED_WHEN_ABSENT: &str = "x-omitted-when-absent";

/// Makes every property of every object schema required, but those marked [`OMITTED_WHEN_ABSENT`].
#[derive(Debug, Clone, Copy)]
struct EveryKeyPresent;

impl Transform for EveryKeyPresent {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
        let present: Vec<Value> = props
            .iter()
            .filter(|(_, p)| p.get(OMITTED_WHEN_ABSENT).and_then(Value::as_bool) != Some(true))
            .map(|(name, _)| Value::from(name.as_str()))
            .collect();
        if let Some(map) = schema.as_object_mut() {
            map.insert("required".into(), Value::Array(present));
        }
    }
}

fn object_schema<T: JsonSchema>() -> Map<String, Value> {
    let generator = SchemaSettings::draft2020_12().with_transform(EveryKeyPresent).into_generator();
    match generator.into_root_schema_for::<T>().to_value() {
        Value::Object(map) => map,
        // A struct's schema is always an object; anything else would be a bug in the types.
        other => Map::from_iter([("type".to_string(), Value::from("object")), ("not".to_string(), other)]),
    }
}

/// The schema of `computer`'s structured content.
pub fn computer_result() -> Map<String, Value> {
    object_schema::<ComputerResult>()
}

/// The schema of `read_image`'s structured content.
pub fn read_image_result() -> Map<String, Value> {
    object_schema::<ReadImageResult>()
}

/// The schema of one audit log line.
pub fn audit_record() -> Map<String, Value> {
    object_schema::<AuditRecord>()
}

/// The schema of `POST /reset`'s answer.
pub fn reset_report() -> Map<String, Value> {
    object_schema::<ResetReport>()
}
