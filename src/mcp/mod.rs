//! The MCP server over stdio (rmcp): lists and dispatches the registry's
//! tools, serves the status and contract resources and the quick_start
//! prompt. It never writes anything but protocol messages to stdout.

mod admission;
mod config;
mod frames;
mod prompt;
mod resources;
mod selftest;
mod server;

pub use config::ServeConfig;
pub use selftest::{self_test, self_test_against};
pub use server::{EvidentServer, serve};
