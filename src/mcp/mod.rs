//! The MCP server (rmcp) over stdio and streamable HTTP: lists and
//! dispatches the registry's tools, serves the status and contract resources
//! and the quick_start prompt. Both transports share one `EvidentServer`.
//! It never writes anything but protocol messages to stdout.

mod admission;
mod config;
mod frames;
pub mod http;
mod prompt;
mod resources;
mod selftest;
mod server;

pub use config::ServeConfig;
pub use selftest::{self_test, self_test_against};
pub use server::{Caller, EvidentServer, serve};
