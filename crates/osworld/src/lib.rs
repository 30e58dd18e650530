//! OSWorld's guest API served by a handrail desktop.
//!
//! OSWorld's harness (`desktop-env`) drives a VM through an HTTP server inside it (port 5000 there):
//! screenshots, the accessibility tree as XML, commands, files, windows. This crate answers the same
//! requests with the same shapes and status codes for a handrail desktop, so the harness's set-up
//! steps, getters and metrics run unchanged — in a private desktop that starts in a fraction of a
//! second and resets in milliseconds instead of a VM. Unlike OSWorld's guest it answers nobody
//! without the bearer token and no request a browser makes (one with an `Origin` header): apps and
//! pages inside the desktop must not reach a server that runs commands.
//!
//! - [`serve`]: the listener and its rules; [`routes`]: one function per endpoint.
//! - [`GuestDesktop`]: what the desktop provides (the CLI implements it over a sandbox).
//! - [`xml`]: the accessibility tree in OSWorld's XML; [`home`]: `/home/user` mapped onto the
//!   desktop's private home; [`shlex`] and [`form`]: the request formats the harness writes.

pub mod form;
pub mod guest;
pub mod home;
pub mod routes;
pub mod serve;
pub mod shlex;
pub mod xml;

pub use guest::{GuestDesktop, GuestError, Ran};
pub use serve::{GuestServer, ServeError};
