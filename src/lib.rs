//! evident: a read-only knowledge access layer that gives research agents
//! structured evidence. `index build` ingests a corpus into an index
//! generation; readers search it through retrieval lanes.
//!
//! See ARCHITECTURE.md for the code map and the invariants.

mod chunk;
mod citation;
pub mod cli;
mod concepts;
pub mod contract;
pub mod corpus;
mod error;
mod eval;
mod failpoint;
pub mod fusion;
mod html;
pub mod index;
pub mod lane;
mod lexical;
mod mcp;
pub mod passage;
pub mod pdf;
mod query_words;
mod rerank;
mod routing;
mod search;
pub mod stage;
mod store;
pub mod surface;
mod telemetry;
mod text;
pub mod tools;
pub mod vector;

pub use error::{Error, Result};
