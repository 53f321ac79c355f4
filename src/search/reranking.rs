//! Applies the reranking stage (`crate::rerank`) to a search's fused hits:
//! loads the cross-encoder on first use, scores the fused top N, reorders
//! them, and keeps each hit's fused rank. A reranker that cannot load or run
//! leaves the fused order and says why (the search still answers).

use serde::Serialize;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::SearchHit;
use crate::rerank::{CrossEncoder, Rerank, order_by_scores};
use crate::stage;
use crate::store::PassageRow;

/// What the reranking stage did for one search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RerankRun {
    pub method: Rerank,
    /// The reranking model's installed name.
    pub model: String,
    /// How many fused passages it read (0 when it could not run).
    pub reranked: usize,
    /// Why the fused order stands although reranking was asked for.
    pub unavailable: Option<String>,
}

/// The cross-encoder, loaded by the first request that asks for it.
pub struct Lazy {
    models_dir: PathBuf,
    cross_encoder: OnceLock<Result<CrossEncoder, String>>,
}

impl Lazy {
    pub fn new(models_dir: PathBuf) -> Self {
        Self { models_dir, cross_encoder: OnceLock::new() }
    }

    /// `method`'s relevance score of each passage for `query` (higher is more relevant).
    pub fn scores(&self, method: Rerank, query: &str, passages: &[&PassageRow]) -> Result<Vec<f32>, String> {
        let encoder = match method {
            Rerank::None => return Err("no reranker was asked for".into()),
            Rerank::CrossEncoder => self
                .cross_encoder
                .get_or_init(|| CrossEncoder::load(&self.models_dir).map_err(|e| e.0))
                .as_ref()
                .map_err(Clone::clone)?,
        };
        // A passage is read with its document's title, which gives a chunk its context.
        let texts: Vec<String> = passages
            .iter()
            .map(|p| match &p.title {
                Some(title) => format!("{title}. {}", p.text),
                None => p.text.clone(),
            })
            .collect();
        encoder.scores(query, &texts).map_err(|e| e.0)
    }

    /// Reorders `hits` (the fused top N, in fused order) by `method`'s scores;
    /// ranks are renumbered from 1 and each hit keeps its fused rank.
    pub fn apply(&self, method: Rerank, query: &str, hits: &mut Vec<SearchHit>) -> RerankRun {
        let _stage = stage::enter("rerank");
        let model = crate::rerank::CROSS_ENCODER_MODEL.to_owned();
        let passages: Vec<&PassageRow> = hits.iter().map(|h| &h.passage).collect();
        let scores = match self.scores(method, query, &passages) {
            Ok(scores) => scores,
            Err(reason) => {
                tracing::warn!(%reason, "reranking unavailable; the fused order stands");
                return RerankRun { method, model, reranked: 0, unavailable: Some(reason) };
            }
        };
        let mut slots: Vec<Option<SearchHit>> = std::mem::take(hits).into_iter().map(Some).collect();
        for (new_rank, index) in order_by_scores(&scores).into_iter().enumerate() {
            if let Some(mut hit) = slots[index].take() {
                hit.fused_rank = Some(hit.rank);
                hit.rank = new_rank as u32 + 1;
                hits.push(hit);
            }
        }
        RerankRun { method, model, reranked: scores.len(), unavailable: None }
    }
}
