//! handrail's MCP edge: the `computer` and `read_image` tools served over stdio and streamable HTTP.
//!
//! This is the only crate that knows MCP (and the pinned `rmcp` SDK). It owns no desktop logic: every
//! `computer` call becomes [`handrail_core::RawArgs`] for the engine, which runs on its own thread
//! ([`desk`]), and every result goes back as the text block, the screenshot and structured content.
//!
//! Turns come from the host in request `_meta` ([`META_TURN`], [`META_INTENT`], [`META_MODE`]) or,
//! for hosts that cannot send them, from command-line defaults; the call layer (`handrail-calls`)
//! resolves them and records every call.

pub mod desk;
pub mod images;
pub mod local;
pub mod screenshots;
pub mod sealed;
pub mod server;
pub mod service;
pub mod setup;
pub mod tools;
pub mod transport;

pub use desk::Desk;
pub use handrail_calls::{
    AuditLog, Calls, Cleaned, DesktopReset, ResetError, TaskTraceRoot, TurnDefaults, TurnMeta, META_INTENT, META_MODE,
    META_TURN,
};
pub use images::ImageRoots;
pub use local::{LocalError, LocalSession};
pub use screenshots::ImageDelivery;
pub use sealed::Sealer;
pub use server::{DesktopCheck, HandrailServer, ServerOptions, QUESTION_LIFETIME};
pub use setup::{SetupFailure, TaskSetup, TaskSetupHook};
pub use transport::{run_http, run_stdio, serve_http, serve_stdio, HttpOptions, HttpServer, ServeError};
