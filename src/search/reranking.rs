//! The reranking stage (`crate::rerank`) for a search: loads the cross-encoder
//! on first use and gives the order its scores put the fused top N in. A
//! reranker that cannot load or run leaves the fused order and says why (the
//! search still answers).

use serde::Serialize;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::rerank::{CROSS_ENCODER_MODEL, CrossEncoder, Rerank, order_by_scores};
use crate::stage;
use crate::store::PassageRow;

/// What the reranking stage did for one search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RerankRun {
    pub(crate) method: Rerank,
    /// The reranking model's installed name.
    pub(crate) model: String,
    /// How many fused passages it read (0 when it could not run).
    pub(crate) reranked: usize,
    /// Why the fused order stands although reranking was asked for.
    pub(crate) unavailable: Option<String>,
}

/// The cross-encoder, loaded by the first request that asks for it.
pub(crate) struct Lazy {
    models_dir: PathBuf,
    cross_encoder: OnceLock<Result<CrossEncoder, String>>,
}

impl Lazy {
    pub(crate) fn new(models_dir: PathBuf) -> Self {
        Self { models_dir, cross_encoder: OnceLock::new() }
    }

    /// `method`'s relevance score of each passage for `query` (higher is more relevant).
    pub(crate) fn scores(&self, method: Rerank, query: &str, passages: &[&PassageRow]) -> Result<Vec<f32>, String> {
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

    /// The order `method`'s scores give the fused candidates (indices, best
    /// first), or `None` with the reason in the run when it cannot score them.
    pub(crate) fn order<F>(
        &self,
        method: Rerank,
        query: &str,
        candidates: &[(F, PassageRow)],
    ) -> (RerankRun, Option<Vec<usize>>) {
        let _stage = stage::enter("rerank");
        let model = CROSS_ENCODER_MODEL.to_owned();
        let passages: Vec<&PassageRow> = candidates.iter().map(|(_, row)| row).collect();
        match self.scores(method, query, &passages) {
            Ok(scores) => {
                (RerankRun { method, model, reranked: scores.len(), unavailable: None }, Some(order_by_scores(&scores)))
            }
            Err(reason) => {
                tracing::warn!(%reason, "reranking unavailable; the fused order stands");
                (RerankRun { method, model, reranked: 0, unavailable: Some(reason) }, None)
            }
        }
    }
}
