//! The integration tests: one binary (each test binary links tantivy,
//! qdrant-edge, ort, rmcp and tonic again), one module per subject. Tests at
//! the dispatch boundary run the tool layer in process; the ones that test a
//! process boundary (framing, the CLI, killed builds, read-only files, SDK
//! clients, memory) spawn the real `evident`. Fixtures are built once per run
//! (`common::mcp::shared_index`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

mod bad_input;
mod build_and_search;
mod contract;
mod darwin_corpus;
mod dispatch;
mod eval;
mod feedback_lane;
mod html;
mod http;
mod killed_build;
mod layering;
mod mcp_errors;
mod mcp_frames;
mod mcp_tools;
mod pdf;
mod protocol_fuzz;
mod qdrant_server;
mod read_only_index;
mod request_memory;
mod sdk_clients;
mod sparse_lexical;
mod spelling;
mod tools;
mod vector_lane;
mod verdicts;
