//! The `[vector]` section of corpus.toml: whether and where the dense lane's
//! vectors are stored. Plain configuration; the vector lane reads it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// qdrant-edge, stored inside the index generation (no server).
    #[default]
    Embedded,
    /// A Qdrant server or cluster reached over gRPC.
    Qdrant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorSettings {
    /// Build the vector lane when the model is available.
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub backend: Backend,
    /// gRPC address of the Qdrant server (backend = "qdrant").
    #[serde(default = "default_url")]
    pub url: String,
    /// Collection name prefix on the server; each generation gets its own collection.
    #[serde(default = "default_collection")]
    pub collection: String,
    /// Passages embedded per model call (32 beats 256 here: batches pad to their longest text).
    #[serde(default = "default_batch")]
    pub batch_size: usize,
    /// HNSW search breadth.
    #[serde(default = "default_ef")]
    pub hnsw_ef: usize,
    /// Embed each passage as "<document title>. <passage text>": a chunk keeps the
    /// context its document's title gives (a BEIR abstract's title, a chapter's title).
    #[serde(default = "yes")]
    pub embed_title: bool,
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
            backend: Backend::Embedded,
            url: default_url(),
            collection: default_collection(),
            batch_size: default_batch(),
            hnsw_ef: default_ef(),
            embed_title: true,
        }
    }
}
