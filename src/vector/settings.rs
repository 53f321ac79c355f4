//! What a generation records about its vectors in the manifest. The
//! `[vector]` section of corpus.toml is corpus configuration
//! (`corpus::VectorSettings`).

use serde::{Deserialize, Serialize};

use crate::corpus::Backend;

/// Environment variable holding the Qdrant server's API key (never stored in files).
pub(crate) const API_KEY_VARIABLE: &str = "EVIDENT_QDRANT_API_KEY";

/// The vector part of a generation's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct VectorManifest {
    /// The installed model's name (its directory in the models directory):
    /// what a reader loads to embed queries.
    #[serde(default = "first_model")]
    pub(crate) model: String,
    pub(crate) model_id: String,
    pub(crate) dimension: usize,
    pub(crate) backend: Backend,
    /// Server backend: the generation's collection and the server address.
    pub(crate) collection: Option<String>,
    pub(crate) url: Option<String>,
    pub(crate) hnsw_ef: usize,
    pub(crate) embed_title: bool,
    pub(crate) points: usize,
    /// Passages embedded by this build; the rest were copied from the previous generation.
    pub(crate) embedded: usize,
    pub(crate) reused: usize,
    pub(crate) embedding_seconds: f64,
    /// Set when the vectors are seeded random unit vectors (`[vector] synthetic_seed`), not embeddings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) synthetic_seed: Option<u64>,
}

/// Generations written before models were chosen per corpus had the one model then.
fn first_model() -> String {
    "all-MiniLM-L6-v2".into()
}
