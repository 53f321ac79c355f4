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
mod lexical_settings;
mod pdf_file;
mod sections;
mod stream;
mod vector_settings;

pub(crate) use concepts::{Alias, Entity, Relation, TermMapping};
pub(crate) use config::{CONFIG_FILE, Chunking, CorpusConfig, line_of_offset};
pub(crate) use document::{Document, Extraction, SpanBasis};
pub use lexical_settings::LexicalBackend;
pub(crate) use lexical_settings::LexicalSettings;
pub(crate) use pdf_file::FileNote;
pub(crate) use stream::Batches;
pub use vector_settings::DEFAULT_MODEL;
pub(crate) use vector_settings::{Backend, VectorSettings, is_model_name};

use sha2::{Digest, Sha256};
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

/// A corpus directory opened for a build: its settings, concepts and the
/// files to read. Its documents are read a batch at a time (`batches`), so
/// nothing holds the whole corpus.
#[derive(Debug)]
pub(crate) struct Corpus {
    pub(crate) config: CorpusConfig,
    pub(crate) entities: Vec<Entity>,
    pub(crate) terminology: Vec<TermMapping>,
    /// Where the configuration came from.
    pub(crate) config_origin: ConfigOrigin,
    pub(crate) root: std::path::PathBuf,
    /// The files that hold documents, in file order.
    files: Vec<CorpusFile>,
    bibliography: bibliography::Bibliography,
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

/// Opens and validates a corpus directory: its configuration, bibliography,
/// entities and terminology are read; its documents are not yet.
pub(crate) fn open(root: &Path, options: LoadOptions) -> Result<Corpus> {
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
    let entities = match files.iter().find(|f| f.kind == FileKind::Entities) {
        Some(file) => concepts::load_entities(&file.path, &file.relative)?,
        None => Vec::new(),
    };
    let terminology = match files.iter().find(|f| f.kind == FileKind::Terminology) {
        Some(file) => concepts::load_terminology(&file.path, &file.relative, &entities)?,
        None => Vec::new(),
    };
    let files = files
        .into_iter()
        .filter(|f| matches!(f.kind, FileKind::Text | FileKind::Jsonl | FileKind::Pdf | FileKind::Html))
        .collect();
    Ok(Corpus { config, entities, terminology, config_origin, root, files, bibliography })
}

impl Corpus {
    /// The documents, a batch at a time in corpus order.
    pub(crate) fn batches(&self) -> Batches<'_> {
        Batches::new(self)
    }

    /// Bytes of the files that hold documents (for progress).
    pub(crate) fn document_bytes(&self) -> u64 {
        self.files.iter().filter_map(|f| std::fs::metadata(&f.path).ok()).map(|m| m.len()).sum()
    }
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

/// One file read: its source record, its documents, and what to say about it.
pub(super) struct FileRead {
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

/// Reads a whole document file that is not JSONL (those are read a record at a time).
fn read_document_file(
    file: &CorpusFile,
    config: &CorpusConfig,
    bibliography: &bibliography::Bibliography,
) -> Result<FileRead> {
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
            let corpus = open(root.path(), LoadOptions { max_document_bytes: Some(100) }).unwrap();
            let mut batches = corpus.batches();
            let error = loop {
                match batches.next_batch() {
                    Ok(Some(_)) => {}
                    Ok(None) => panic!("no error"),
                    Err(error) => break error.to_string(),
                }
            };
            assert!(error.starts_with("a.jsonl:20001: document is "), "{error}");
        }
    }
}
