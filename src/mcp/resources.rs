//! The resources: `evident://status` (what is being served) and
//! `evident://contract` (the tool surface, as published).

use serde_json::{Value, json};

use crate::contract::{CONTRACT_VERSION, contract_bytes};
use crate::tools::IndexHandle;

pub(crate) const STATUS_URI: &str = "evident://status";
pub(crate) const CONTRACT_URI: &str = "evident://contract";

pub(crate) fn status(handle: &IndexHandle) -> Value {
    match handle.get() {
        Ok(index) => {
            let m = &index.searcher.manifest;
            json!({
                "server": {"name": "evident", "version": env!("CARGO_PKG_VERSION")},
                "contract_version": CONTRACT_VERSION,
                "index": {
                    "generation": index.generation,
                    "corpus": m.corpus_name,
                    "built_at": m.built_at,
                    "counts": m.counts,
                    "periods": index.periods,
                },
                "lanes": {
                    "exact": true,
                    "lexical": true,
                    "entity": true,
                    "vector": index.searcher.vector_disabled_reason().is_none(),
                    "feedback": index.searcher.feedback_available(),
                },
                "vector": m.vector.as_ref().map(|v| json!({"model_id": v.model_id, "dimension": v.dimension, "backend": v.backend})),
                "vector_disabled": index.searcher.vector_disabled_reason().is_some(),
            })
        }
        Err(e) => json!({
            "server": {"name": "evident", "version": env!("CARGO_PKG_VERSION")},
            "contract_version": CONTRACT_VERSION,
            "index": null,
            "error": e.body(),
        }),
    }
}

pub(crate) fn contract() -> String {
    contract_bytes()
}
