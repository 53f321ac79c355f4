//! Running the tool surface (`crate::surface`): validated arguments, the
//! handlers, evidence assembly into the envelope (what supports a query:
//! `support`), resolution of terms to
//! entities, snippets, and dispatch — which owns the name → handler map —
//! against the generation `CURRENT` names (`serving`).

mod args;
mod assemble;
mod dispatch;
mod evidence;
mod handlers;
mod resolve;
mod serving;
mod snippet;
mod support;

pub use crate::search::Reader;
pub(crate) use dispatch::Answered;
pub use dispatch::{prepare, run};
pub(crate) use serving::CurrentGeneration;
