//! The tool surface: the registry, argument validation, the envelope, the
//! sufficiency rules, the error catalog and warnings, and the handlers. The
//! MCP server (`crate::mcp`) and the contract (`crate::contract`) only read
//! from here.

pub mod args;
pub mod assemble;
pub mod catalog;
pub mod dispatch;
pub mod envelope;
pub mod handlers;
pub mod index;
pub mod params;
pub mod registry;
pub mod resolve;
pub mod snippet;
pub mod sufficiency;
pub mod warnings;

pub use catalog::{ErrorCode, ToolError};
pub use envelope::Envelope;
pub use index::{IndexHandle, OpenIndex};
