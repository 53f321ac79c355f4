//! `corpus.toml`: the corpus name, default language, periods, chunking and limits.

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::error::{Error, FileLocation, IoContext, Result};

pub(crate) const CONFIG_FILE: &str = "corpus.toml";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CorpusConfig {
    pub(crate) name: String,
    #[serde(default = "default_language")]
    pub(crate) default_language: String,
    #[serde(default)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) periods: Vec<Period>,
    #[serde(default)]
    pub(crate) chunking: Chunking,
    #[serde(default)]
    pub(crate) limits: Limits,
    #[serde(default)]
    pub(crate) vector: super::VectorSettings,
    #[serde(default)]
    pub(crate) lexical: super::LexicalSettings,
}

/// A named, inclusive range of years used to group evidence diachronically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Period {
    pub(crate) id: String,
    pub(crate) label: String,
    pub(crate) start: i32,
    pub(crate) end: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Chunking {
    /// A passage is closed once it holds at least this many words.
    #[serde(default = "default_target_words")]
    pub(crate) target_words: usize,
    /// A passage never exceeds this many words, unless one sentence alone does,
    /// in which case that sentence is split at word boundaries.
    #[serde(default = "default_max_words")]
    pub(crate) max_words: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Limits {
    /// Largest document (a file, or one JSONL record's text) accepted, in bytes.
    #[serde(default = "default_max_document_bytes")]
    pub(crate) max_document_bytes: u64,
    /// Longest a PDF may take to read, in seconds; a PDF that takes longer is skipped.
    #[serde(default = "default_pdf_seconds")]
    pub(crate) pdf_seconds: u64,
    /// Most memory reading one PDF may take, in MiB; a PDF that needs more is skipped.
    #[serde(default = "default_pdf_memory_mib")]
    pub(crate) pdf_memory_mib: u64,
}

fn default_language() -> String {
    "en".to_owned()
}
fn default_target_words() -> usize {
    120
}
fn default_max_words() -> usize {
    200
}
fn default_max_document_bytes() -> u64 {
    8 * 1024 * 1024
}
// A 1,000-page PDF reads in well under a minute; a minute is a hang.
fn default_pdf_seconds() -> u64 {
    60
}
fn default_pdf_memory_mib() -> u64 {
    2048
}

impl Default for Chunking {
    fn default() -> Self {
        Self { target_words: default_target_words(), max_words: default_max_words() }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_document_bytes: default_max_document_bytes(),
            pdf_seconds: default_pdf_seconds(),
            pdf_memory_mib: default_pdf_memory_mib(),
        }
    }
}

impl CorpusConfig {
    /// The configuration of a directory without corpus.toml (a BEIR collection, a folder of papers).
    pub(crate) fn for_beir(dir_name: &str) -> Self {
        Self {
            name: dir_name.to_owned(),
            default_language: default_language(),
            description: None,
            periods: Vec::new(),
            chunking: Chunking::default(),
            limits: Limits::default(),
            vector: super::VectorSettings::default(),
            lexical: super::LexicalSettings::default(),
        }
    }

    pub(crate) fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).at(path)?;
        let text = String::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 { location: FileLocation::file(path) })?;
        Self::parse(&text, path)
    }

    pub(crate) fn parse(text: &str, path: &Path) -> Result<Self> {
        let invalid = |line: Option<usize>, reason: String| Error::CorpusTomlInvalid {
            location: FileLocation { path: path.to_owned(), line },
            reason,
        };
        let config: Self = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|span| line_of_offset(text, span.start));
            invalid(line, e.message().to_owned())
        })?;
        config.validate().map_err(|reason| invalid(None, reason))?;
        Ok(config)
    }

    fn validate(&self) -> std::result::Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("`name` must not be empty".into());
        }
        if self.chunking.target_words == 0 || self.chunking.max_words < self.chunking.target_words {
            return Err(format!(
                "[chunking] needs 0 < target_words <= max_words (got {} and {})",
                self.chunking.target_words, self.chunking.max_words
            ));
        }
        if let Some(model) = &self.vector.model
            && !super::vector_settings::is_model_name(model)
        {
            return Err(format!(
                "[vector] model `{model}` is not a model name (letters, digits, `-`, `_`, `.`; \
                 `scripts/fetch_model.py --list` lists them)"
            ));
        }
        if self.lexical.backend == super::LexicalBackend::Qdrant && !self.vector.enabled {
            return Err("[lexical] backend = \"qdrant\" keeps the lexical lane's sparse vectors beside the dense \
                        ones in the vector store: it needs [vector] enabled = true"
                .into());
        }
        let mut seen = std::collections::BTreeSet::new();
        for period in &self.periods {
            if period.start > period.end {
                return Err(format!("period `{}` starts after it ends", period.id));
            }
            if !seen.insert(period.id.as_str()) {
                return Err(format!("period `{}` is defined twice", period.id));
            }
        }
        Ok(())
    }

    /// The first configured period whose range contains `year`.
    pub(crate) fn period_of(&self, year: Option<i32>) -> Option<&Period> {
        let year = year?;
        self.periods.iter().find(|p| p.start <= year && year <= p.end)
    }
}

/// 1-based line number of a byte offset (one lookup; `text::LineIndex` for many).
pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
    crate::text::LineIndex::new(text).line_of(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minimal_config_with_defaults() {
        let config = CorpusConfig::parse("name = \"x\"\n", Path::new("corpus.toml")).unwrap();
        assert_eq!(config.default_language, "en");
        assert_eq!(config.chunking, Chunking::default());
    }

    #[test]
    fn reports_line_of_type_error() {
        let err = CorpusConfig::parse("name = \"x\"\n[chunking]\ntarget_words = \"many\"\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.toml:3: invalid corpus.toml"), "{err}");
    }

    #[test]
    fn rejects_unknown_keys_and_bad_chunking() {
        assert!(CorpusConfig::parse("name = \"x\"\ncolour = 1\n", Path::new("c")).is_err());
        let err =
            CorpusConfig::parse("name = \"x\"\n[chunking]\ntarget_words = 300\nmax_words = 200\n", Path::new("c"))
                .unwrap_err();
        assert!(err.to_string().contains("target_words <= max_words"));
    }

    #[test]
    fn the_model_is_the_corpus_choice_or_the_default_and_never_a_path() {
        let config = CorpusConfig::parse("name = \"x\"\n", Path::new("c")).unwrap();
        assert_eq!(config.vector.model(), super::super::DEFAULT_MODEL);
        let config =
            CorpusConfig::parse("name = \"x\"\n[vector]\nmodel = \"all-MiniLM-L6-v2\"\n", Path::new("c")).unwrap();
        assert_eq!(config.vector.model(), "all-MiniLM-L6-v2");
        for bad in ["../elsewhere", "/abs", "", ".venv", "a b"] {
            let text = format!("name = \"x\"\n[vector]\nmodel = \"{bad}\"\n");
            let err = CorpusConfig::parse(&text, Path::new("c")).unwrap_err().to_string();
            assert!(err.contains("is not a model name"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_lexical_backend_is_tantivy_or_qdrant_and_qdrant_needs_the_vector_store() {
        let parse = |text: &str| CorpusConfig::parse(&format!("name = \"x\"\n{text}"), Path::new("c.toml"));
        assert_eq!(parse("").unwrap().lexical.backend, super::super::LexicalBackend::Tantivy);
        assert_eq!(
            parse("[lexical]\nbackend = \"qdrant\"\n").unwrap().lexical.backend,
            super::super::LexicalBackend::Qdrant
        );
        let err = parse("[lexical]\nbackend = \"solr\"\n").unwrap_err().to_string();
        assert_eq!(err, "c.toml:3: invalid corpus.toml: unknown variant `solr`, expected `tantivy` or `qdrant`");
        let err = parse("[lexical]\nbackend = \"qdrant\"\n[vector]\nenabled = false\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "c.toml: invalid corpus.toml: [lexical] backend = \"qdrant\" keeps the lexical lane's sparse vectors \
             beside the dense ones in the vector store: it needs [vector] enabled = true"
        );
    }

    #[test]
    fn period_lookup_is_inclusive() {
        let mut config = CorpusConfig::for_beir("x");
        config.periods.push(Period { id: "a".into(), label: "A".into(), start: 1859, end: 1860 });
        assert_eq!(config.period_of(Some(1860)).map(|p| p.id.as_str()), Some("a"));
        assert!(config.period_of(Some(1861)).is_none());
        assert!(config.period_of(None).is_none());
    }
}
