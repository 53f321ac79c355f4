//! Reading a corpus directory into plain data: configuration, source files with
//! their sha256, documents, entities and terminology. This module only reads; it
//! never touches an index, and every failure names the file (and line).

mod bibliography;
mod concepts;
mod config;
mod discover;
mod document;
mod frontmatter;
mod html_file;
mod jsonl;
mod language;
mod pdf_file;
mod sections;
mod vector_settings;

pub(crate) use concepts::{Alias, Entity, Relation, TermMapping};
pub(crate) use config::{CONFIG_FILE, Chunking, CorpusConfig, line_of_offset};
pub(crate) use document::{Document, Extraction, SpanBasis};
pub(crate) use pdf_file::FileNote;
pub use vector_settings::DEFAULT_MODEL;
pub(crate) use vector_settings::{Backend, VectorSettings, is_model_name};

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, FileLocation, IoContext, Result};
use discover::{CorpusFile, FileKind};

/// One file of the corpus, identified by its path relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceFile {
    /// Relative path with `/` separators, stable across machines.
    pub(crate) path: String,
    pub(crate) sha256: String,
    pub(crate) bytes: u64,
}

#[derive(Debug)]
pub(crate) struct Corpus {
    pub(crate) config: CorpusConfig,
    pub(crate) sources: Vec<SourceFile>,
    /// Documents in a deterministic order: by source path, then position in the file.
    pub(crate) documents: Vec<Document>,
    pub(crate) entities: Vec<Entity>,
    pub(crate) terminology: Vec<TermMapping>,
    /// Where the configuration came from.
    pub(crate) config_origin: ConfigOrigin,
    /// Files skipped or read with a warning, in file order.
    pub(crate) notes: Vec<FileNote>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigOrigin {
    /// The corpus's `corpus.toml`.
    File,
    /// A BEIR collection (`corpus.jsonl` at the root) with default settings.
    Beir,
    /// A plain folder of documents with default settings.
    Defaults,
}

/// Overrides applied on top of corpus.toml from the command line.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LoadOptions {
    pub(crate) max_document_bytes: Option<u64>,
}

/// Loads and validates a corpus directory.
pub(crate) fn load(root: &Path, options: LoadOptions) -> Result<Corpus> {
    if !root.is_dir() {
        return Err(Error::CorpusDirMissing(root.to_owned()));
    }
    let root = root.canonicalize().at(root)?;
    let (mut config, config_origin) = load_config(&root)?;
    if let Some(limit) = options.max_document_bytes {
        config.limits.max_document_bytes = limit;
    }
    let files = discover::corpus_files(&root)?;
    let bib_files: Vec<(&Path, &str)> = files
        .iter()
        .filter(|f| f.kind == FileKind::Bibliography)
        .map(|f| (f.path.as_path(), f.relative.as_str()))
        .collect();
    let bibliography = bibliography::Bibliography::load(&bib_files)?;

    // Every file is read before any error is returned, and the first in file
    // order wins: rayon's `collect::<Result<_>>` stops at whichever error a
    // thread meets first, so a corpus with two bad files named either.
    let read: Vec<Result<FileRead>> = files
        .par_iter()
        .filter(|f| matches!(f.kind, FileKind::Text | FileKind::Jsonl | FileKind::Pdf | FileKind::Html))
        .map(|file| read_document_file(file, &config, &bibliography))
        .collect();
    let parsed: Vec<FileRead> = read.into_iter().collect::<Result<_>>()?;

    let mut sources = Vec::with_capacity(parsed.len());
    let mut documents = Vec::new();
    let mut notes = Vec::new();
    let mut first_seen: BTreeMap<String, FileLocation> = BTreeMap::new();
    for FileRead { source, documents: docs, note } in parsed {
        let skipped = matches!(note, Some(FileNote::Skipped { .. }));
        notes.extend(note);
        if skipped {
            continue;
        }
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
    if config_origin == ConfigOrigin::Defaults {
        config.default_language = majority_language(&documents);
    }

    let entities = match files.iter().find(|f| f.kind == FileKind::Entities) {
        Some(file) => concepts::load_entities(&file.path, &file.relative)?,
        None => Vec::new(),
    };
    let terminology = match files.iter().find(|f| f.kind == FileKind::Terminology) {
        Some(file) => concepts::load_terminology(&file.path, &file.relative, &entities)?,
        None => Vec::new(),
    };
    Ok(Corpus { config, sources, documents, entities, terminology, config_origin, notes })
}

/// corpus.toml where there is one; else defaults named after the folder (a
/// BEIR collection, or a folder of papers as a researcher keeps it).
fn load_config(root: &Path) -> Result<(CorpusConfig, ConfigOrigin)> {
    let path = root.join(CONFIG_FILE);
    if path.is_file() {
        return Ok((CorpusConfig::load(&path).map_err(|e| relocate(e, root))?, ConfigOrigin::File));
    }
    let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("corpus");
    let origin = if root.join("corpus.jsonl").is_file() { ConfigOrigin::Beir } else { ConfigOrigin::Defaults };
    Ok((CorpusConfig::for_beir(name), origin))
}

/// The language most of the text is in (by bytes), for a corpus without a declared default.
fn majority_language(documents: &[Document]) -> String {
    let mut bytes: BTreeMap<&str, usize> = BTreeMap::new();
    for doc in documents {
        *bytes.entry(doc.language.as_str()).or_default() += doc.text.len();
    }
    bytes.into_iter().max_by_key(|(_, n)| *n).map_or_else(|| "en".to_owned(), |(language, _)| language.to_owned())
}

/// One file read: its source record, its documents, and what to say about it.
struct FileRead {
    source: SourceFile,
    documents: Vec<Document>,
    note: Option<FileNote>,
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

fn read_document_file(
    file: &CorpusFile,
    config: &CorpusConfig,
    bibliography: &bibliography::Bibliography,
) -> Result<FileRead> {
    if file.kind == FileKind::Jsonl {
        let read = jsonl::read_documents(&file.path, &file.relative, config)?;
        let source = SourceFile { path: file.relative.clone(), sha256: read.sha256, bytes: read.bytes };
        return Ok(FileRead { source, documents: read.documents, note: None });
    }
    if file.kind == FileKind::Html {
        let (source, documents) = html_file::read(&file.path, &file.relative, config)?;
        return Ok(FileRead { source, documents, note: None });
    }
    if file.kind == FileKind::Pdf {
        let entry = bibliography.entry_for(&file.relative);
        let read = pdf_file::read(&file.path, &file.relative, config, entry)?;
        return Ok(FileRead { source: read.source, documents: read.documents, note: read.note });
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
    let documents = vec![frontmatter::parse_document(text, &file.relative, config)?];
    Ok(FileRead { source, documents, note: None })
}

/// Decodes UTF-8, naming the line of the first invalid byte on failure.
pub(crate) fn decode_utf8(bytes: Vec<u8>, relative: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::InvalidUtf8 { location: FileLocation::line(relative, line) }
    })
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    crate::text::hex(&Sha256::digest(bytes))
}

/// A file's sha256, read in a stream (the file is never held in memory) with its length.
fn sha256_of_file(path: &Path, relative: &str) -> Result<(String, u64)> {
    let mut hasher = Sha256::new();
    let bytes = std::io::copy(&mut std::fs::File::open(path).at(relative)?, &mut hasher).at(relative)?;
    Ok((crate::text::hex(&hasher.finalize()), bytes))
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
