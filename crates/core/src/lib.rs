//! handrail's engine.
pub mod guard;
pub mod keys;
pub mod turn;
