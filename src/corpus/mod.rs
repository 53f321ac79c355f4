//! Reading a corpus directory into plain data: configuration, source files with
//! their sha256, documents, entities and terminology. This module only reads; it
//! never touches an index, and every failure names the file (and line).

mod concepts;
mod config;
mod discover;
mod document;
mod frontmatter;
mod jsonl;
mod vector_settings;

pub use concepts::{Alias, Entity, Relation, TermMapping};
pub use config::{CONFIG_FILE, Chunking, CorpusConfig, Limits, Period, line_of_offset};
pub use document::{Document, SpanBasis};
pub use vector_settings::{Backend, DEFAULT_MODEL, VectorSettings, is_model_name};

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, FileLocation, IoContext, Result};
use discover::{CorpusFile, FileKind};

/// One file of the corpus, identified by its path relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Relative path with `/` separators, stable across machines.
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
}

#[derive(Debug)]
pub struct Corpus {
    pub root: PathBuf,
    pub config: CorpusConfig,
    pub sources: Vec<SourceFile>,
    /// Documents in a deterministic order: by source path, then position in the file.
    pub documents: Vec<Document>,
    pub entities: Vec<Entity>,
    pub terminology: Vec<TermMapping>,
}

/// Overrides applied on top of corpus.toml from the command line.
#[derive(Debug, Default, Clone, Copy)]
pub struct LoadOptions {
    pub max_document_bytes: Option<u64>,
}

/// Loads and validates a corpus directory.
pub fn load(root: &Path, options: LoadOptions) -> Result<Corpus> {
    if !root.is_dir() {
        return Err(Error::CorpusDirMissing(root.to_owned()));
    }
    let root = root.canonicalize().at(root)?;
    let mut config = load_config(&root)?;
    if let Some(limit) = options.max_document_bytes {
        config.limits.max_document_bytes = limit;
    }
    let files = discover::corpus_files(&root)?;

    // Every file is read before any error is returned, and the first in file
    // order wins: rayon's `collect::<Result<_>>` stops at whichever error a
    // thread meets first, so a corpus with two bad files named either.
    let read: Vec<Result<(SourceFile, Vec<Document>)>> = files
        .par_iter()
        .filter(|f| matches!(f.kind, FileKind::Text | FileKind::Jsonl))
        .map(|file| read_document_file(file, &config))
        .collect();
    let parsed: Vec<(SourceFile, Vec<Document>)> = read.into_iter().collect::<Result<_>>()?;

    let mut sources = Vec::with_capacity(parsed.len());
    let mut documents = Vec::new();
    let mut first_seen: BTreeMap<String, FileLocation> = BTreeMap::new();
    for (source, docs) in parsed {
        for doc in docs {
            if let Some(first) = first_seen.get(&doc.id) {
                return Err(Error::DuplicateDocumentId {
                    id: doc.id.clone(),
                    first: first.clone(),
                    second: doc.location.clone(),
                });
            }
            first_seen.insert(doc.id.clone(), doc.location.clone());
            documents.push(doc);
        }
        sources.push(source);
    }
    if documents.is_empty() {
        return Err(Error::EmptyCorpus(root));
    }

    let entities = match files.iter().find(|f| f.kind == FileKind::Entities) {
        Some(file) => concepts::load_entities(&file.path, &file.relative)?,
        None => Vec::new(),
    };
    let terminology = match files.iter().find(|f| f.kind == FileKind::Terminology) {
        Some(file) => concepts::load_terminology(&file.path, &file.relative, &entities)?,
        None => Vec::new(),
    };
    Ok(Corpus { root, config, sources, documents, entities, terminology })
}

fn load_config(root: &Path) -> Result<CorpusConfig> {
    let path = root.join(CONFIG_FILE);
    if path.is_file() {
        return CorpusConfig::load(&path).map_err(|e| relocate(e, root));
    }
    if root.join("corpus.jsonl").is_file() {
        // BEIR layout: indexes as it is, with default settings.
        let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("corpus");
        return Ok(CorpusConfig::for_beir(name));
    }
    Err(Error::CorpusTomlMissing(root.to_owned()))
}

/// Errors carry paths relative to the corpus root where possible.
fn relocate(err: Error, root: &Path) -> Error {
    match err {
        Error::CorpusTomlInvalid { location, reason } => Error::CorpusTomlInvalid {
            location: FileLocation {
                path: location.path.strip_prefix(root).map(Path::to_owned).unwrap_or(location.path),
                line: location.line,
            },
            reason,
        },
        other => other,
    }
}

fn read_document_file(file: &CorpusFile, config: &CorpusConfig) -> Result<(SourceFile, Vec<Document>)> {
    if file.kind == FileKind::Jsonl {
        let read = jsonl::read_documents(&file.path, &file.relative, config)?;
        let source = SourceFile { path: file.relative.clone(), sha256: read.sha256, bytes: read.bytes };
        return Ok((source, read.documents));
    }
    // One document per Markdown or text file: refuse an oversized one before reading it.
    let limit = config.limits.max_document_bytes;
    let size = std::fs::metadata(&file.path).at(&file.relative)?.len();
    if size > limit {
        return Err(Error::DocumentTooLarge { location: FileLocation::file(&file.relative), size, limit });
    }
    // Read no more than the limit allows, in case the file grew since it was measured.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let opened = std::fs::File::open(&file.path).at(&file.relative)?;
    std::io::Read::read_to_end(&mut std::io::Read::take(opened, limit + 1), &mut bytes).at(&file.relative)?;
    if bytes.len() as u64 > limit {
        return Err(Error::DocumentTooLarge {
            location: FileLocation::file(&file.relative),
            size: bytes.len() as u64,
            limit,
        });
    }
    let source = SourceFile { path: file.relative.clone(), sha256: sha256_hex(&bytes), bytes: bytes.len() as u64 };
    let text = decode_utf8(bytes, &file.relative)?;
    Ok((source, vec![frontmatter::parse_document(text, &file.relative, config)?]))
}

/// Decodes UTF-8, naming the line of the first invalid byte on failure.
pub(crate) fn decode_utf8(bytes: Vec<u8>, relative: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::InvalidUtf8 { location: FileLocation::line(relative, line) }
    })
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_several_bad_files_the_first_in_file_order_is_reported_every_time() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("corpus.toml"), "name = \"x\"\n").unwrap();
        // The first file's fault is at its end, so a thread reading it meets the fault
        // after another thread has met the later files' (refused before reading).
        let mut first: String = (0..20_000).map(|i| format!("{{\"id\": \"a{i}\", \"text\": \"t\"}}\n")).collect();
        first.push_str(&format!("{{\"id\": \"last\", \"text\": \"{}\"}}\n", "long ".repeat(40)));
        std::fs::write(root.path().join("a.jsonl"), first).unwrap();
        for i in 0..16 {
            std::fs::write(root.path().join(format!("b{i:02}.txt")), "long text ".repeat(20)).unwrap();
        }
        for _ in 0..5 {
            let error = load(root.path(), LoadOptions { max_document_bytes: Some(100) }).err().unwrap().to_string();
            assert!(error.starts_with("a.jsonl:20001: document is "), "{error}");
        }
    }
}
