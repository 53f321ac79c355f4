//! Runs every query of a collection in each mode against an index of it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::collection::Collection;
use super::metrics::{mrr_at, ndcg_at, percentile, recall_at};
use super::report::{ModeReport, QueryResult, Report};
use crate::corpus::LexicalBackend;
use crate::error::Result;
use crate::fusion::{FusionMethod, WeightedLane, fuse};
use crate::index::{BuildOptions, BuildSummary, IndexDir, Manifest, build};
use crate::lane::{LaneHit, LaneHits};
use crate::passage::{PassageNo, document_of};
use crate::rerank::{Rerank, order_by_scores};
use crate::routing::RetrievalMode;
use crate::search::{Reader, SearchRequest};
use crate::vector::{ModelInfo, default_models_dir};

/// Documents ranked per query (Recall@100 needs 100).
const RANKED_DOCUMENTS: usize = 100;
/// Passages each lane returns, enough to fill `RANKED_DOCUMENTS` distinct documents.
const PASSAGES_PER_QUERY: usize = 300;

#[derive(Debug, Clone)]
pub(crate) struct EvalOptions {
    pub(crate) collection: PathBuf,
    pub(crate) index: PathBuf,
    pub(crate) modes: Vec<RetrievalMode>,
    pub(crate) models_dir: Option<PathBuf>,
    pub(crate) fusion: FusionMethod,
    /// Candidates per lane before fusion.
    pub(crate) depth: usize,
    /// Lane weights replacing the routing table's.
    pub(crate) weights: Vec<(crate::lane::Lane, f64)>,
    /// The embedding model the collection's index is built with (`None`: the default).
    pub(crate) model: Option<String>,
    /// Where the index's lexical lane lives (`None`: where it lives already, else tantivy).
    pub(crate) lexical_backend: Option<LexicalBackend>,
    /// What reorders each mode's fused top documents, and how many it reads.
    pub(crate) rerank: Rerank,
    pub(crate) rerank_depth: usize,
    pub(crate) quiet: bool,
}

/// Builds (or incrementally reuses) the index of a BEIR collection, with the
/// model and lexical backend asked for, else those the index already has: an
/// eval measures the index it is given, and a BEIR directory's defaults would
/// otherwise re-embed an index built with `--model` into another one.
pub(super) fn build_collection_index(
    collection: &Path,
    index: &Path,
    models_dir: Option<PathBuf>,
    model: Option<String>,
    lexical_backend: Option<LexicalBackend>,
    quiet: bool,
) -> Result<BuildSummary> {
    // The serving generation's manifest, read once for both defaults.
    let serving = serving_manifest(index);
    let installed_model = serving.as_ref().and_then(|m| installed_model_of(m, models_dir.as_deref()));
    build(&BuildOptions {
        corpus_dir: collection.to_owned(),
        index_dir: index.to_owned(),
        quiet,
        max_document_bytes: None,
        model: model.or(installed_model),
        strict: false,
        embedding_sessions: None,
        lexical_backend: lexical_backend.or_else(|| serving.as_ref().map(lexical_backend_of)),
        models_dir,
    })
}

/// The manifest of the index's serving generation, if it has one.
fn serving_manifest(index: &Path) -> Option<Manifest> {
    let generation = IndexDir::open(index).ok()?.current().ok()??;
    Manifest::read(&generation.manifest_path()).ok()
}

/// Where a generation's lexical lane lives.
fn lexical_backend_of(manifest: &Manifest) -> LexicalBackend {
    if manifest.lexical_sparse.is_some() { LexicalBackend::Qdrant } else { LexicalBackend::Tantivy }
}

/// The embedding model of a generation, if it has one and it is installed
/// (without it the build goes on as it would for a new index: the default
/// model, or no vectors when that is missing too).
fn installed_model_of(manifest: &Manifest, models_dir: Option<&Path>) -> Option<String> {
    let model = manifest.vector.as_ref()?.model.clone();
    let models_dir = models_dir.map_or_else(default_models_dir, Path::to_owned);
    ModelInfo::read(&models_dir, &model).is_ok().then_some(model)
}

pub(crate) fn evaluate(options: &EvalOptions) -> Result<Report> {
    let collection = Collection::load(&options.collection)?;
    let summary = build_collection_index(
        &options.collection,
        &options.index,
        options.models_dir.clone(),
        options.model.clone(),
        options.lexical_backend,
        options.quiet,
    )?;
    let searcher = Reader::open(&options.index, options.models_dir.as_deref())?;
    let documents = Documents::read(&searcher)?;
    let mut modes = Vec::new();
    for &mode in &options.modes {
        modes.push(run_mode(&searcher, &documents, &collection, mode, options)?);
    }
    Ok(Report {
        collection: collection.name.clone(),
        documents: summary.counts.documents,
        passages: summary.counts.passages,
        queries: collection.queries.len(),
        fusion: options.fusion,
        depth: options.depth,
        rerank: options.rerank,
        rerank_depth: options.rerank_depth,
        modes,
    })
}

/// The documents of a generation by number (sorted id order, so fusing
/// document numbers breaks ties by document id), and each passage's document.
struct Documents {
    ids: Vec<String>,
    /// `of_passage[passage number]` = document number.
    of_passage: Vec<u32>,
}

impl Documents {
    fn read(searcher: &Reader) -> Result<Self> {
        let passages = searcher.passage_ids()?;
        let ids: Vec<String> = passages
            .iter()
            .filter_map(|id| document_of(id))
            .collect::<std::collections::BTreeSet<&str>>()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let of_passage = passages
            .iter()
            .map(|id| {
                document_of(id)
                    .and_then(|d| ids.binary_search_by(|probe| probe.as_str().cmp(d)).ok())
                    .map_or(u32::MAX, |n| n as u32)
            })
            .collect();
        Ok(Self { ids, of_passage })
    }

    fn of(&self, passage: PassageNo) -> Option<u32> {
        self.of_passage.get(passage.0 as usize).copied().filter(|&d| d != u32::MAX)
    }

    /// A lane's passage list as a document list: each document at its first (best) passage.
    fn lane(&self, lane: &LaneHits) -> LaneHits<u32> {
        let mut seen = HashSet::new();
        let hits = lane
            .hits
            .iter()
            .filter_map(|h| self.of(h.key).filter(|d| seen.insert(*d)).map(|d| (d, h.score)))
            .enumerate()
            .map(|(i, (key, score))| LaneHit { key, rank: i as u32 + 1, score })
            .collect();
        LaneHits { lane: lane.lane, hits }
    }
}

/// The indices of the longest third of the queries (by words; ties by
/// position, so the set is fixed): long natural-language queries are where a
/// lexical lane's term weighting shows.
fn longest_third(words: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..words.len()).collect();
    order.sort_by(|&a, &b| words[b].cmp(&words[a]).then(a.cmp(&b)));
    order.truncate(words.len().div_ceil(3));
    order
}

/// Reorders the top `rerank_depth` documents of `ranking` by the reranker's
/// score of each document's best passage (its first in the fused passage
/// list), as a search reranks its fused passages.
fn rerank_documents(
    searcher: &Reader,
    options: &EvalOptions,
    documents: &Documents,
    query: &str,
    lists: &[(LaneHits, f64)],
    mut ranking: Vec<u32>,
) -> Result<Vec<u32>> {
    let weighted: Vec<WeightedLane<'_>> =
        lists.iter().map(|(hits, weight)| WeightedLane { hits, weight: *weight }).collect();
    let mut best_passage = std::collections::HashMap::new();
    for hit in fuse(options.fusion, &weighted, usize::MAX) {
        if let Some(document) = documents.of(hit.key) {
            best_passage.entry(document).or_insert(hit.key);
        }
    }
    let depth = options.rerank_depth.min(ranking.len());
    let reranked: Vec<(u32, PassageNo)> =
        ranking[..depth].iter().filter_map(|d| best_passage.get(d).map(|p| (*d, *p))).collect();
    let numbers: Vec<PassageNo> = reranked.iter().map(|(_, p)| *p).collect();
    let mut rows = searcher.passages(&numbers)?;
    let rows: Vec<(u32, crate::store::PassageRow)> =
        reranked.into_iter().filter_map(|(document, p)| rows.remove(&p).map(|row| (document, row))).collect();
    let passages: Vec<&crate::store::PassageRow> = rows.iter().map(|(_, row)| row).collect();
    let scores = searcher.rerank_scores(options.rerank, query, &passages).map_err(|reason| {
        crate::error::Error::InvalidArgument(format!("--rerank {}: {reason}", options.rerank.as_str()))
    })?;
    let reordered: Vec<u32> = order_by_scores(&scores).into_iter().map(|i| rows[i].0).collect();
    let placed: HashSet<u32> = reordered.iter().copied().collect();
    let rest: Vec<u32> = ranking.drain(..).filter(|d| !placed.contains(d)).collect();
    Ok(reordered.into_iter().chain(rest).collect())
}

fn run_mode(
    searcher: &Reader,
    documents: &Documents,
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
            weights: options.weights.clone(),
            ..SearchRequest::default()
        };
        let started = Instant::now();
        let run = searcher.run_lanes(&request)?;
        // In each lane a document ranks where its best passage ranks; the
        // document lists are then fused exactly as passages are in a search.
        let lists: Vec<(LaneHits<u32>, f64)> = run.lists.iter().map(|(hits, w)| (documents.lane(hits), *w)).collect();
        let weighted: Vec<WeightedLane<'_, u32>> =
            lists.iter().map(|(hits, weight)| WeightedLane { hits, weight: *weight }).collect();
        let mut ranking: Vec<u32> =
            fuse(options.fusion, &weighted, RANKED_DOCUMENTS).into_iter().map(|h| h.key).collect();
        if options.rerank != Rerank::None {
            ranking = rerank_documents(searcher, options, documents, text, &run.lists, ranking)?;
        }
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let ranking: Vec<String> = ranking.into_iter().map(|d| documents.ids[d as usize].clone()).collect();
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
    let words: Vec<usize> = collection.queries.iter().map(|(_, text)| text.split_whitespace().count()).collect();
    let longest = longest_third(&words);
    let ndcg_10_longest_third =
        longest.iter().map(|&i| per_query[i].ndcg_10).sum::<f64>() / longest.len().max(1) as f64;
    Ok(ModeReport {
        mode,
        ndcg_10: mean(|q| q.ndcg_10),
        ndcg_10_longest_third,
        recall_100: mean(|q| q.recall_100),
        mrr_10: mean(|q| q.mrr_10),
        p50_ms: percentile(&latencies, 50.0),
        p95_ms: percentile(&latencies, 95.0),
        p99_ms: percentile(&latencies, 99.0),
        per_query,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_third_is_the_longest_queries_first_come_first_on_ties() {
        assert_eq!(longest_third(&[3, 9, 1, 9, 4, 2]), [1, 3]);
        assert_eq!(longest_third(&[5, 5, 5, 5]), [0, 1]);
        assert!(longest_third(&[]).is_empty());
    }
}
