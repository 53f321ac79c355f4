//! Runs every query of a collection in each mode against an index of it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use super::collection::Collection;
use super::metrics::{mrr_at, ndcg_at, percentile, recall_at};
use super::report::{ModeReport, QueryResult, Report};
use crate::error::Result;
use crate::fusion::FusionMethod;
use crate::index::{BuildOptions, build};
use crate::routing::RetrievalMode;
use crate::search::{SearchRequest, Searcher};

/// Documents ranked per query (Recall@100 needs 100).
const RANKED_DOCUMENTS: usize = 100;
/// Passages fetched to fill `RANKED_DOCUMENTS` distinct documents.
const PASSAGES_PER_QUERY: usize = 300;

#[derive(Debug, Clone)]
pub struct EvalOptions {
    pub collection: PathBuf,
    pub index: PathBuf,
    pub modes: Vec<RetrievalMode>,
    pub models_dir: Option<PathBuf>,
    pub fusion: FusionMethod,
    /// Candidates per lane before fusion.
    pub depth: usize,
    pub quiet: bool,
}

pub fn evaluate(options: &EvalOptions) -> Result<Report> {
    let collection = Collection::load(&options.collection)?;
    let summary = build(&BuildOptions {
        corpus_dir: options.collection.clone(),
        index_dir: options.index.clone(),
        quiet: options.quiet,
        max_document_bytes: None,
        models_dir: options.models_dir.clone(),
    })?;
    let searcher = Searcher::open(&options.index, options.models_dir.as_deref())?;
    let mut modes = Vec::new();
    for &mode in &options.modes {
        modes.push(run_mode(&searcher, &collection, mode, options)?);
    }
    Ok(Report {
        collection: collection.name.clone(),
        documents: summary.counts.documents,
        passages: summary.counts.passages,
        queries: collection.queries.len(),
        fusion: options.fusion,
        depth: options.depth,
        modes,
    })
}

fn run_mode(
    searcher: &Searcher,
    collection: &Collection,
    mode: RetrievalMode,
    options: &EvalOptions,
) -> Result<ModeReport> {
    let mut per_query = Vec::with_capacity(collection.queries.len());
    for (id, text) in &collection.queries {
        let request = SearchRequest {
            query: text.clone(),
            top_k: PASSAGES_PER_QUERY,
            mode,
            depth: options.depth.max(PASSAGES_PER_QUERY),
            fusion: options.fusion,
            ..SearchRequest::default()
        };
        let started = Instant::now();
        let outcome = searcher.search(&request)?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        // A document ranks where its best passage ranks.
        let mut seen = HashSet::new();
        let ranking: Vec<String> = outcome
            .hits
            .into_iter()
            .map(|h| h.passage.document_id)
            .filter(|d| seen.insert(d.clone()))
            .take(RANKED_DOCUMENTS)
            .collect();
        let judged = collection.qrels.get(id).cloned().unwrap_or_default();
        per_query.push(QueryResult {
            id: id.clone(),
            ndcg_10: ndcg_at(&ranking, &judged, 10),
            recall_100: recall_at(&ranking, &judged, 100),
            mrr_10: mrr_at(&ranking, &judged, 10),
            ms,
            ranking,
        });
    }
    let n = per_query.len().max(1) as f64;
    let mean = |f: fn(&QueryResult) -> f64| per_query.iter().map(f).sum::<f64>() / n;
    let latencies: Vec<f64> = per_query.iter().map(|q| q.ms).collect();
    Ok(ModeReport {
        mode,
        ndcg_10: mean(|q| q.ndcg_10),
        recall_100: mean(|q| q.recall_100),
        mrr_10: mean(|q| q.mrr_10),
        p50_ms: percentile(&latencies, 50.0),
        p95_ms: percentile(&latencies, 95.0),
        p99_ms: percentile(&latencies, 99.0),
        per_query,
    })
}
