//! `manifest.json`: what a generation was built from and how.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

use crate::corpus::Chunking;
use crate::error::{Error, IoContext, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub(crate) format: u32,
    pub(crate) generation: String,
    pub(crate) corpus_name: String,
    pub(crate) counts: Counts,
    /// Relative source path → sha256.
    pub(crate) sources: BTreeMap<String, String>,
    pub(crate) chunking: Chunking,
    pub(crate) default_language: String,
    /// Language code → analyzer used for its passages.
    pub(crate) analyzers: BTreeMap<String, String>,
    pub(crate) store_schema_version: u32,
    pub(crate) versions: Versions,
    /// Sources whose passages were reused from the previous generation.
    pub(crate) reused_sources: usize,
    /// The vector lane of this generation, or why it was skipped.
    pub(crate) vector: Option<crate::vector::VectorManifest>,
    pub(crate) vector_skipped: Option<String>,
    /// Set when each vector point also holds the lexical lane's BM25 weights
    /// (`[lexical] backend = "qdrant"`): the lexical lane then searches them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lexical_sparse: Option<crate::lexical::SparseManifest>,
    pub(crate) built_at: String,
    pub(crate) build_seconds: f64,
    /// Every file of the generation but this manifest: length and sha256
    /// (absent from format 1, which a build still reads to reuse passages).
    #[serde(default)]
    pub(crate) files: super::files::FileTable,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Counts {
    pub(crate) sources: usize,
    pub(crate) documents: usize,
    pub(crate) passages: usize,
    pub(crate) entities: usize,
    pub(crate) entity_links: usize,
    pub(crate) terminology: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Versions {
    pub(crate) evident: String,
    pub(crate) tantivy: String,
    pub(crate) sqlite: String,
}

/// 2: `files` records each file's length and hash.
pub(crate) const MANIFEST_FORMAT: u32 = 2;

impl Versions {
    pub(crate) fn current() -> Self {
        Self {
            evident: env!("CARGO_PKG_VERSION").to_owned(),
            tantivy: tantivy::version().to_string(),
            sqlite: rusqlite::version().to_owned(),
        }
    }
}

impl Manifest {
    pub(crate) fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).at(path)?;
        serde_json::from_str(&text)
            .map_err(|e| Error::IndexCorrupt { path: path.to_owned(), reason: format!("manifest unreadable ({e})") })
    }

    /// Refuses a generation this build cannot read: another manifest format or
    /// metadata schema (written by another version of evident, or altered).
    pub(crate) fn check_readable(&self, path: &Path) -> Result<()> {
        if self.format != MANIFEST_FORMAT || self.store_schema_version != crate::store::SCHEMA_VERSION {
            return Err(Error::IndexCorrupt {
                path: path.to_owned(),
                reason: format!(
                    "manifest format {} with metadata schema {}; this build reads format {MANIFEST_FORMAT} with \
                     schema {}",
                    self.format,
                    self.store_schema_version,
                    crate::store::SCHEMA_VERSION
                ),
            });
        }
        Ok(())
    }

    pub(crate) fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::IndexCorrupt { path: path.to_owned(), reason: e.to_string() })?;
        std::fs::write(path, text + "\n").at(path)
    }

    /// Passages of an unchanged source may be reused only when they would be
    /// chunked the same way today and read back the same way. (The manifest's
    /// own format does not matter, nor a store schema whose passages read the
    /// same: such a generation is not served, but its passages and vectors are
    /// as good as new.)
    /// Whether passages this generation stored can be reused by a build with
    /// `chunking` and, where the corpus declares one, `default_language`.
    pub(crate) fn passages_reusable_with(&self, chunking: Chunking, default_language: Option<&str>) -> bool {
        crate::store::REUSABLE_SCHEMA_VERSIONS.contains(&self.store_schema_version)
            && self.chunking == chunking
            && default_language.is_none_or(|language| self.default_language == language)
    }
}
