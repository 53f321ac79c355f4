//! Running the tool surface (`crate::surface`): validated arguments, the
//! handlers, evidence assembly into the envelope (what supports a query:
//! `support`), resolution of terms to
//! entities, snippets, and dispatch — which owns the name → handler map —
//! against the serving index generation (`serving`).

mod args;
mod assemble;
mod dispatch;
mod evidence;
mod handlers;
mod resolve;
mod serving;
mod snippet;
mod support;

pub(crate) use dispatch::Answered;
pub use dispatch::{prepare, run};
pub(crate) use serving::IndexHandle;
pub use serving::OpenIndex;
