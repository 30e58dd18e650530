//! handrail's accessibility source for Linux desktops: AT-SPI over D-Bus.
//!
//! [`AtspiSource`] implements [`handrail_platform::Accessibility`]. It speaks D-Bus itself (a small,
//! dependency-free client, `handrail-dbus`) because the walk needs exactly two things an async stack would
//! otherwise provide: many calls in flight at once (D-Bus pipelines on one socket) and hard deadlines.
//!
//! - **Walk** (`walk`): registry → applications → windows → nodes, pipelined per application and
//!   parallel across applications; hidden (`!SHOWING || !VISIBLE`) and off-screen subtrees are pruned;
//!   bounded by a node cap, a per-application liveness timeout and a whole-walk deadline. An application
//!   that stops answering makes the snapshot `Partial`, never a hang.
//! - **Cache** (`cache`): events (state, children, property, bounds, text, window, focus) mark the
//!   objects they come from and how far the change reaches (the node, its children, its subtree);
//!   unchanged windows are reused after a two-call check (still shown, same extents; a moved window's
//!   nodes are shifted); in a window with events only the named nodes and subtrees are read again and
//!   spliced in, with every node's extents and states asked again (a page's layout moves what follows
//!   a change, and GTK 3 its `default` state, without an event). An object the cache does not know is traced up to an ancestor it does; failing
//!   that, its application is walked whole.
//! - **Secrets**: password fields (`password text`) never have their text or value read, and signal
//!   payloads are never decoded.
//! - Coordinates are screen pixels (`Component.GetExtents` with the screen coordinate type), except
//!   where a toolkit answers window coordinates anyway (GTK 4): those nodes are marked
//!   window-relative for the desktop backend to place.
//! - **Toolkits** (`toolkit`): GTK 4's own meaning of SHOWING, its window coordinates and its
//!   class-name stand-ins for missing names are read as what they are.
#![cfg(target_os = "linux")]

mod cache;
mod roles;
mod source;
mod toolkit;
mod walk;

pub use roles::is_secret_role;
pub use source::{a11y_bus_address, AtspiSource};
pub use walk::WalkStats;
