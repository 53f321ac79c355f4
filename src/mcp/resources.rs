//! The resources: `evident://status` (what is being served) and
//! `evident://contract` (the tool surface, as published).

use serde_json::{Value, json};

use crate::contract::{CONTRACT_VERSION, contract_bytes};
use crate::tools::CurrentGeneration;

pub(crate) const STATUS_URI: &str = "evident://status";
pub(crate) const CONTRACT_URI: &str = "evident://contract";

pub(crate) fn status(handle: &CurrentGeneration) -> Value {
    match handle.get() {
        Ok(index) => {
            let m = &index.manifest;
            json!({
                "server": {"name": "evident", "version": env!("CARGO_PKG_VERSION")},
                "contract_version": CONTRACT_VERSION,
                "index": {
                    "generation": index.generation.name,
                    "corpus": m.corpus_name,
                    "built_at": m.built_at,
                    "counts": m.counts,
                    "periods": index.periods,
                },
                "lanes": {
                    "exact": true,
                    "lexical": true,
                    "entity": true,
                    "vector": index.vector_disabled_reason().is_none(),
                    "feedback": index.feedback_available(),
                },
                "vector": m.vector.as_ref().map(|v| json!({"model_id": v.model_id, "dimension": v.dimension, "backend": v.backend})),
                "vector_disabled": index.vector_disabled_reason().is_some(),
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
