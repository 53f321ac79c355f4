//! Why the vector lane cannot run.

/// Why the vector lane cannot run; shown to users verbatim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);
