//! `evident eval`: retrieval quality and latency on a BEIR-layout collection
//! (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`). Builds (or incrementally
//! reuses) an index of the collection, runs every query in each mode, and
//! reports nDCG@10, Recall@100 and MRR@10 — computed as trec_eval computes them —
//! with per-query latency percentiles.

mod collection;
pub(crate) mod metrics;
mod plot;
mod report;
mod run;
pub(crate) mod verdicts;

pub(crate) use plot::{write_svg, write_verdict_svg};
pub(crate) use run::{EvalOptions, evaluate};
