//! The MCP server (rmcp) over stdio and streamable HTTP: lists and
//! dispatches the registry's tools, serves the status and contract resources
//! and the quick_start prompt. Both transports share one `EvidentServer`.
//! It never writes anything but protocol messages to stdout.

mod admission;
mod config;
mod frames;
pub(crate) mod http;
mod prompt;
mod resources;
mod selftest;
mod server;

pub(crate) use config::ServeConfig;
pub(crate) use selftest::self_test;
pub(crate) use server::{EvidentServer, serve};
