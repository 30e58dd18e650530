//! Key combination parsing (to be written).
