//! The `[vector]` section of corpus.toml: whether the dense lane is built, with
//! which model, and where its vectors are stored. Plain configuration; the
//! vector lane reads it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Backend {
    /// qdrant-edge, stored inside the index generation (no server).
    #[default]
    Embedded,
    /// A Qdrant server or cluster reached over gRPC.
    Qdrant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VectorSettings {
    /// Build the vector lane when the model is available.
    #[serde(default = "yes")]
    pub(crate) enabled: bool,
    /// The embedding model, by the name `scripts/fetch_model.py --model NAME`
    /// installs it under; unset means `DEFAULT_MODEL`.
    #[serde(default)]
    pub(crate) model: Option<String>,
    #[serde(default)]
    pub(crate) backend: Backend,
    /// gRPC address of the Qdrant server (backend = "qdrant").
    #[serde(default = "default_url")]
    pub(crate) url: String,
    /// Collection name prefix on the server; each generation gets its own collection.
    #[serde(default = "default_collection")]
    pub(crate) collection: String,
    /// Passages embedded per model call (32 beats 256 here: batches pad to their longest text).
    #[serde(default = "default_batch")]
    pub(crate) batch_size: usize,
    /// HNSW search breadth.
    #[serde(default = "default_ef")]
    pub(crate) hnsw_ef: usize,
    /// Embed each passage as "<document title>. <passage text>": a chunk keeps the
    /// context its document's title gives (a BEIR abstract's title, a chapter's title).
    #[serde(default = "yes")]
    pub(crate) embed_title: bool,
    /// For scale benchmarks only: store a seeded random unit vector per passage
    /// instead of embedding it (the model still sets the dimension and embeds
    /// queries), so a million passages build in minutes. The vector lane then
    /// ranks at random; the manifest records the seed and readers say so.
    #[serde(default)]
    pub(crate) synthetic_seed: Option<u64>,
}

/// The embedding model a corpus gets when its corpus.toml names none (and
/// every BEIR directory): the best English model measured on SciFact and
/// Cranfield (README, "Models").
pub const DEFAULT_MODEL: &str = "bge-small-en";

impl VectorSettings {
    /// The model's name: the corpus's choice, else `DEFAULT_MODEL`.
    pub(crate) fn model(&self) -> &str {
        self.model.as_deref().unwrap_or(DEFAULT_MODEL)
    }
}

/// A model name is a directory name in the models directory, never a path.
pub(crate) fn is_model_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn yes() -> bool {
    true
}
fn default_url() -> String {
    "http://localhost:6334".into()
}
fn default_collection() -> String {
    "evident".into()
}
fn default_batch() -> usize {
    32
}
fn default_ef() -> usize {
    128
}

impl Default for VectorSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            model: None,
            backend: Backend::Embedded,
            url: default_url(),
            collection: default_collection(),
            batch_size: default_batch(),
            hnsw_ef: default_ef(),
            embed_title: true,
            synthetic_seed: None,
        }
    }
}
