//! SPSA (placeholder: being written).
