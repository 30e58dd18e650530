//! Before/after comparison on two channels: pixels ([`visual`]) and meaning ([`semantic`]).

pub mod attribution;
pub mod semantic;
pub mod unread;
pub mod visual;

pub use semantic::{ElementRef, SemanticDiff, StateChange, StateView};
pub use unread::Unread;
pub use visual::{Thumbnail, VisualDiff};
