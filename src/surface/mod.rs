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

pub use catalog::{ErrorCode, ToolError, echo};
pub use envelope::Envelope;
pub use limits::{
    DEFAULT_RESPONSE_BUDGET, MAX_QUERY_PHRASES, MAX_QUERY_WORDS, MAX_RESPONSE_BUDGET, MAX_SUGGESTIONS, SNIPPET_CHARS,
};
pub use params::{
    DefaultValue, Detail, Kind, MAX_LIST_ITEMS, MAX_QUERY_CHARS, MAX_STRING_CHARS, Param, input_schema, validate,
};
pub use registry::ToolSpec;
pub use sufficiency::{Cmp, Condition, EvidenceState, Operand, Operation, RULES, Rule, Signal, Signals, State, decide};
pub use warnings::{Severity, Warning, WarningCode};
