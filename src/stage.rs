//! Per-stage timing: each stage of a request (routing, each lane — with query
//! embedding (`embed`) and the store's search (`vector.store`) inside the
//! vector lane —, fusion, fetching rows — with `fetch.links`, `fetch.rows` (one
//! query) and `fetch.analyse` (which query terms each kept passage holds, and
//! where) inside it — reranking, assembly, the verdict, serialisation) runs
//! inside a `debug` span of target `evident::stage`. `EVIDENT_LOG=evident::stage=debug`
//! prints each span's time on close (stderr); `cargo bench --bench mcp_latency`
//! reads those lines and prints the per-stage table. Off, a span costs a few
//! nanoseconds.

/// The tracing target of stage spans (for filters and the latency bench).
pub(crate) const TARGET: &str = "evident::stage";

/// Enters the span of stage `name` until the returned guard drops.
#[must_use = "the stage lasts as long as the guard"]
pub(crate) fn enter(name: &'static str) -> tracing::span::EnteredSpan {
    tracing::debug_span!(target: TARGET, "stage", stage = name).entered()
}
