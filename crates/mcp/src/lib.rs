//! handrail's MCP edge: the `computer` and `read_image` tools served over stdio and streamable HTTP.
//!
//! This is the only crate that knows MCP (and the pinned `rmcp` SDK). It owns no desktop logic: every
//! `computer` call becomes [`handrail_core::RawArgs`] for the engine, which runs on its own thread
//! ([`desk`]), and every result goes back as the text block, the screenshot and structured content.
//!
//! Turns come from the host in request `_meta` ([`desk::META_TURN`], [`desk::META_INTENT`],
//! [`desk::META_MODE`]) or, for hosts that cannot send them, from command-line defaults.

pub mod desk;
pub mod images;
pub mod local;
pub mod server;
pub mod tools;
pub mod transport;

pub use desk::{AuditLog, Desk, TurnDefaults, TurnMeta, META_INTENT, META_MODE, META_TURN};
pub use images::ImageRoots;
pub use local::{LocalError, LocalSession};
pub use server::{HandrailServer, ServerOptions};
pub use transport::{run_http, run_stdio, serve_http, serve_stdio, HttpOptions, HttpServer, ServeError};
