//! One step of a trace (`steps.jsonl`): the audit record of the call, extended with what a person
//! reviewing the run needs — the result text, the boxes drawn and the screenshots' file names.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::AuditRecord;
use crate::result::{Bounds, StatusCode};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceStep {
    /// 1, 2, … in call order.
    pub step: u32,
    #[serde(flatten)]
    pub record: AuditRecord,
    pub status: StatusCode,
    pub message: Option<String>,
    /// The observation the model was looking at when it made the call.
    pub before_observation: Option<String>,
    /// The (first) target's box in the before screenshot, as the engine resolved it.
    pub target_box: Option<Bounds>,
    /// The box of everything that changed, in the after screenshot.
    pub changed_box: Option<Bounds>,
    /// Screenshot file names, when there were screenshots.
    pub before: Option<String>,
    pub after: Option<String>,
    pub thumb: Option<String>,
    /// The result text the model read.
    pub text: String,
    /// `[width, height]` of the after screenshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omitted-when-absent" = true))]
    pub image_size: Option<[u32; 2]>,
}
