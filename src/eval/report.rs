//! The figures of an evaluation: a table for people, JSON (with the per-query
//! run) for tools, and a TREC run file for cross-checking with trec_eval-style tools.

use serde::Serialize;
use std::fmt::Write as _;

use crate::fusion::FusionMethod;
use crate::routing::RetrievalMode;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    pub(crate) collection: String,
    pub(crate) documents: usize,
    pub(crate) passages: usize,
    pub(crate) queries: usize,
    pub(crate) fusion: FusionMethod,
    pub(crate) depth: usize,
    pub(crate) rerank: crate::rerank::Rerank,
    pub(crate) rerank_depth: usize,
    pub(crate) modes: Vec<ModeReport>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ModeReport {
    pub(crate) mode: RetrievalMode,
    pub(crate) ndcg_10: f64,
    /// nDCG@10 over the longest third of the queries (by words).
    pub(crate) ndcg_10_longest_third: f64,
    pub(crate) recall_100: f64,
    pub(crate) mrr_10: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p95_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) per_query: Vec<QueryResult>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct QueryResult {
    pub(crate) id: String,
    pub(crate) ndcg_10: f64,
    pub(crate) recall_100: f64,
    pub(crate) mrr_10: f64,
    pub(crate) ms: f64,
    /// Document ids, best first (at most 100).
    pub(crate) ranking: Vec<String>,
}

impl Report {
    pub(crate) fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} documents, {} passages, {} queries; fusion {:?}, depth {}, rerank {}",
            self.collection,
            self.documents,
            self.passages,
            self.queries,
            self.fusion,
            self.depth,
            match self.rerank {
                crate::rerank::Rerank::None => "none".to_owned(),
                method => format!("{} (top {})", method.as_str(), self.rerank_depth),
            }
        );
        let _ = writeln!(
            out,
            "{:<8} {:>8} {:>12} {:>10} {:>8} {:>8} {:>8} {:>8}",
            "mode", "nDCG@10", "long third", "Recall@100", "MRR@10", "p50 ms", "p95 ms", "p99 ms"
        );
        for m in &self.modes {
            let mode = m.mode.as_str();
            let _ = writeln!(
                out,
                "{:<8} {:>8.4} {:>12.4} {:>10.4} {:>8.4} {:>8.2} {:>8.2} {:>8.2}",
                mode, m.ndcg_10, m.ndcg_10_longest_third, m.recall_100, m.mrr_10, m.p50_ms, m.p95_ms, m.p99_ms
            );
        }
        out
    }

    /// TREC run lines (`qid Q0 doc rank score tag`) with strictly decreasing
    /// scores, so tools that re-sort by score keep this exact order.
    pub(crate) fn trec_run(&self, mode: &ModeReport) -> String {
        let tag = mode.mode.as_str();
        let mut out = String::new();
        for q in &mode.per_query {
            for (i, doc) in q.ranking.iter().enumerate() {
                let _ = writeln!(out, "{} Q0 {} {} {} evident-{}", q.id, doc, i + 1, q.ranking.len() - i, tag);
            }
        }
        out
    }
}
