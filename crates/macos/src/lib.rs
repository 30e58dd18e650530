//! handrail on macOS.
//!
//! The parts that are plain data — virtual key codes ([`keycodes`]), which key types which character
//! on the current layout ([`layout`]), roles ([`roles`]), menu shortcuts ([`menu_keys`]), attributes
//! into nodes ([`node`]), points and pixels ([`space`]), the permission states ([`permission`]) —
//! build and are tested on every platform. The parts that call the system live in `sys` and build only
//! for macOS.

pub mod apps;
pub mod keycodes;
pub mod layout;
pub mod menu_keys;
pub mod node;
pub mod ocr_languages;
pub mod permission;
pub mod pixels;
pub mod roles;
pub mod space;
pub mod typing;
pub mod vision_boxes;
pub mod walk;
pub mod window_list;

#[cfg(target_os = "macos")]
mod sys;
#[cfg(target_os = "macos")]
pub use sys::{MacDesktop, MacOptions};
