//! The reranking stage: after fusion, a cross-encoder reads each (query,
//! passage) pair of the fused top N and orders them by its relevance score.
//!
//! The score only orders: it is never reported as a confidence and never
//! reaches `evidence_state` (the verdict reads the passages' words, not how a
//! model ranked them). Each pair is scored alone, so a passage's score does not
//! depend on which other passages were fused with it (the model's int8
//! activations are quantised per batch).

use std::path::Path;
use std::sync::Mutex;

use fastembed::{RerankInitOptionsUserDefined, TextRerank, UserDefinedRerankingModel};

use crate::vector::{ModelInfo, ModelKind, Unavailable};

pub(crate) use crate::routing::Rerank;

/// The installed name of the cross-encoder (`scripts/fetch_model.py --model …`).
pub(crate) const CROSS_ENCODER_MODEL: &str = "ms-marco-MiniLM-L-12-v2";

/// How many fused passages a reranker reads by default.
pub(crate) const DEFAULT_RERANK_DEPTH: usize = 50;

/// The most a request may ask a reranker to read (each pair is a model call).
pub(crate) const MAX_RERANK_DEPTH: usize = 100;

pub(crate) struct CrossEncoder {
    model: Mutex<TextRerank>,
}

impl CrossEncoder {
    /// Loads `CROSS_ENCODER_MODEL` from `models_dir`, or says why it cannot.
    pub(crate) fn load(models_dir: &Path) -> Result<Self, Unavailable> {
        let info = ModelInfo::read(models_dir, CROSS_ENCODER_MODEL)?;
        if info.kind != ModelKind::CrossEncoder {
            return Err(Unavailable(format!("model {} is not a cross-encoder", info.name)));
        }
        let environment = info.environment()?;
        let model = UserDefinedRerankingModel::new(info.read_file("model.onnx")?, info.tokenizer_files()?);
        let options =
            RerankInitOptionsUserDefined::new().with_environment(environment).with_max_length(info.max_length);
        let model = TextRerank::try_new_from_user_defined(model, options)
            .map_err(|e| Unavailable(format!("reranking model could not be loaded ({e})")))?;
        Ok(Self { model: Mutex::new(model) })
    }

    /// One relevance score per text, in the texts' order (higher is more relevant).
    pub(crate) fn scores(&self, query: &str, texts: &[String]) -> Result<Vec<f32>, Unavailable> {
        let mut model = self.model.lock().map_err(|_| Unavailable("reranking model is poisoned".into()))?;
        let mut scores = Vec::with_capacity(texts.len());
        for text in texts {
            let scored = model
                .rerank(query, std::slice::from_ref(&text.as_str()), false, Some(1))
                .map_err(|e| Unavailable(format!("reranking failed ({e})")))?;
            scores.push(scored.first().map_or(f32::MIN, |r| r.score));
        }
        Ok(scores)
    }
}

/// The order a reranker's scores give to items in fused order: by score,
/// highest first, ties kept in fused order (so the result is deterministic).
pub(crate) fn order_by_scores(scores: &[f32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_order_the_items_and_ties_keep_the_fused_order() {
        assert_eq!(order_by_scores(&[0.1, 2.0, 0.1, -3.0, 2.0]), [1, 4, 0, 2, 3]);
        assert!(order_by_scores(&[]).is_empty());
    }

    #[test]
    fn the_method_names_round_trip() {
        for (method, name) in Rerank::ALL.into_iter().zip(Rerank::NAMES) {
            assert_eq!((method.as_str(), name.parse::<Rerank>()), (name, Ok(method)));
        }
        assert!("colbert".parse::<Rerank>().is_err());
    }
}
