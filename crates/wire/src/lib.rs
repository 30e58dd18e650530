//! handrail's JSON shapes, shared by every edge, as types: decoding `computer` arguments
//! ([`args`]), the structured result of a call ([`result`], versioned), `read_image`'s result
//! ([`image`]), the audit record ([`audit`]), a trace's step ([`trace`]), the desktop service's
//! health, readiness and reset answers ([`service`]) and the JSON Schemas generated from them
//! ([`schema`]).
//! The engine never sees JSON; edges never build these shapes by hand.

pub mod args;
pub mod audit;
pub mod image;
pub mod result;
pub mod schema;
pub mod service;
pub mod tool;
pub mod trace;

pub use args::{decode_args, DecodeError, PARAMETERS};
pub use audit::{rfc3339_utc, AuditContext, AuditRecord, AuditTarget};
pub use image::{ImageStatus, ReadImageResult};
pub use result::{ComputerResult, RESULT_VERSION};
pub use service::{Health, Readiness, ResetReport, ResetRequest, ServiceError, SERVICE_VERSION};
pub use trace::TraceStep;

use handrail_core::{Outcome, RawArgs};
use serde_json::Value;

/// Serialises a value of this crate's types; they hold only strings, numbers, booleans and lists, so
/// this cannot fail, and `null` stands in if it ever did.
pub fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The structured form of a result: the same facts as [`Outcome::text`].
pub fn encode_outcome(o: &Outcome) -> Value {
    to_value(&ComputerResult::from(o))
}

/// One line of the audit log for a `computer` call.
pub fn audit_record(ctx: AuditContext<'_>, args: &RawArgs, outcome: &Outcome) -> Value {
    to_value(&AuditRecord::of_call(ctx, args, outcome))
}
