//! The `[lexical]` section of corpus.toml: where the ranked lexical lane's
//! BM25 statistics live. Plain configuration; the lexical and vector lanes read it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum LexicalBackend {
    /// BM25 over the tantivy index in the generation.
    #[default]
    Tantivy,
    /// BM25 as sparse vectors (evident's analyzers, Qdrant's IDF modifier)
    /// beside each passage's dense vector, in the vector store the `[vector]`
    /// section names: the ranked lane can then live in a Qdrant cluster.
    Qdrant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct LexicalSettings {
    #[serde(default)]
    pub(crate) backend: LexicalBackend,
}
