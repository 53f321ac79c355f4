//! The tool layer in process, at the dispatch boundary: calls prepared and run
//! as the server runs them (no transport, timeouts or admission in between),
//! on an index opened once. For tests that check what a tool answers, not how
//! the answer crosses a process boundary.

use evident::surface::{MAX_RESPONSE_BUDGET, ToolError};
use evident::tools::{Reader, prepare, run};
use serde_json::Value;
use std::path::Path;

pub struct Local {
    pub index: Reader,
}

impl Local {
    pub fn open(index: &Path) -> Self {
        Self { index: Reader::open(index, None).expect("open the test index") }
    }

    /// The call's structured content, or its error.
    pub fn call(&self, tool: &str, args: Value) -> Result<Value, ToolError> {
        let prepared = prepare(tool, args.as_object())?;
        run(&self.index, prepared, MAX_RESPONSE_BUDGET).map(|answered| answered.content)
    }

    /// A successful call's envelope; panics with the error otherwise.
    pub fn envelope(&self, tool: &str, args: Value) -> Value {
        self.call(tool, args.clone()).unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    /// A failed call's error code (as the wire names it); panics when the call succeeds.
    pub fn error_code(&self, tool: &str, args: Value) -> String {
        match self.call(tool, args.clone()) {
            Ok(e) => panic!("{tool} {args} should fail: {}", e["evidence_state"]),
            Err(e) => e.code.as_str().to_owned(),
        }
    }
}

/// The shared MCP test index (`mcp::shared_index`), opened once per run.
pub fn shared() -> &'static Local {
    static OPEN: std::sync::OnceLock<Local> = std::sync::OnceLock::new();
    OPEN.get_or_init(|| Local::open(super::mcp::shared_index()))
}
