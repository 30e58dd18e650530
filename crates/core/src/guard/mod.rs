//! Guards (to be written).
