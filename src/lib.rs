//! evident: a read-only knowledge access layer that gives research agents
//! structured evidence. `index build` ingests a corpus into an index
//! generation; readers search it through retrieval lanes.
//!
//! See ARCHITECTURE.md for the code map and the invariants.

pub mod authorship;
pub mod chunk;
pub mod citation;
pub mod cli;
pub mod contract;
pub mod corpus;
pub mod error;
pub mod eval;
pub(crate) mod failpoint;
pub mod fusion;
pub mod html;
pub mod index;
pub mod lane;
pub mod lexical;
pub mod linker;
pub mod mcp;
pub mod passage;
pub mod pdf;
pub mod query_words;
pub mod rerank;
pub mod routing;
pub mod search;
pub mod stage;
pub mod store;
pub mod surface;
pub mod telemetry;
pub mod text;
pub mod tools;
pub mod vector;

pub use error::{Error, Result};
