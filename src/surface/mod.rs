//! The published tool surface, as data: the registry of tools and deprecated
//! names (`registry`), their parameters and validation, the eight-section
//! envelope (`envelope`), the closed error catalog, the closed warning list,
//! the evidence_state rule table and the response limits. Nothing here runs
//! a tool: the contract generator and the MCP configuration read the surface
//! without linking the search stack (`crate::tools` executes it).

mod catalog;
pub mod envelope;
mod limits;
mod params;
pub mod registry;
mod sufficiency;
mod warnings;

pub(crate) use catalog::echo;
pub use catalog::{ErrorCode, ToolError};
pub(crate) use limits::{DEFAULT_RESPONSE_BUDGET, MAX_SUGGESTIONS};
pub use limits::{MAX_QUERY_PHRASES, MAX_QUERY_WORDS, MAX_RESPONSE_BUDGET, SNIPPET_CHARS};
pub(crate) use params::{Detail, MAX_LIST_ITEMS, MAX_QUERY_CHARS, MAX_STRING_CHARS, validate};
pub use params::{Kind, input_schema};
pub(crate) use sufficiency::{EvidenceState, Operation, Signals, decide};
pub use sufficiency::{RULES, State};
pub(crate) use warnings::Warning;
pub use warnings::WarningCode;
