//! A PDF file as documents: one per top-level section (the whole text when it
//! has none), each knowing the pages it covers. The work is the file (or its
//! citation key where a `.bib` entry describes it); its title, authors and
//! year come from that entry, else the PDF's metadata, else the file name.
//! A PDF that cannot be read is skipped with a note; one without a text layer
//! is kept, with no passages and a note saying why.

use std::path::Path;

use super::bibliography::BibEntry;
use super::document::{Document, Extraction, SpanBasis};
use super::language::guess_language;
use super::sections::{Cut, split};
use super::{CorpusConfig, SourceFile, sha256_hex};
use crate::error::{FileLocation, Result};
use crate::pdf::{self, PdfText, guard::Bounds};

/// What a build should say about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileNote {
    /// Not indexed: why.
    Skipped { path: String, reason: String },
    /// Indexed, with something the user should know.
    Warning { path: String, message: String },
}

impl std::fmt::Display for FileNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileNote::Skipped { path, reason } => write!(f, "{path}: skipped: {reason}"),
            FileNote::Warning { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

pub(super) struct PdfRead {
    pub(crate) source: SourceFile,
    pub(crate) documents: Vec<Document>,
    pub(crate) note: Option<FileNote>,
}

/// Reads one PDF under the extractor's bounds. An unreadable PDF is no error:
/// it comes back with no documents and a `Skipped` note.
pub(super) fn read(path: &Path, relative: &str, config: &CorpusConfig, entry: Option<&BibEntry>) -> Result<PdfRead> {
    // The child reads the file itself: here it is only hashed, in a stream.
    let (sha256, bytes) = super::sha256_of_file(path, relative)?;
    let source = SourceFile { path: relative.to_owned(), sha256, bytes };
    let bounds = Bounds {
        time: std::time::Duration::from_secs(config.limits.pdf_seconds.max(1)),
        memory_bytes: config.limits.pdf_memory_mib.max(64) << 20,
    };
    let extracted = match pdf::guard::read_bounded(path, bounds) {
        Ok(extracted) => extracted,
        Err(failure) => {
            let note = FileNote::Skipped { path: relative.to_owned(), reason: failure.to_string() };
            return Ok(PdfRead { source, documents: Vec::new(), note: Some(note) });
        }
    };
    let text = pdf::assemble(extracted);
    let note = (text.pages_without_text > 0).then(|| FileNote::Warning {
        path: relative.to_owned(),
        message: format!(
            "{} of {} pages have no text layer (scanned?); {}",
            text.pages_without_text,
            text.pages_total,
            if text.text.trim().is_empty() { "the document is kept without passages" } else { "their text is missing" }
        ),
    });
    let documents = documents(&text, relative, config, entry);
    Ok(PdfRead { source, documents, note })
}

fn documents(text: &PdfText, relative: &str, config: &CorpusConfig, entry: Option<&BibEntry>) -> Vec<Document> {
    let work = match entry {
        Some(entry) if super::document::validate_id(&entry.key).is_ok() => entry.key.clone(),
        _ => super::frontmatter::id_from_path(relative),
    };
    let stem = Path::new(relative).file_stem().and_then(|s| s.to_str()).unwrap_or(relative);
    let mut info = text.info.clone();
    if let Some(entry) = entry {
        info.title = entry.title.clone().or(info.title);
        if !entry.authors.is_empty() {
            info.authors = entry.authors.clone();
        }
        info.year = entry.year.or(info.year);
    }
    let title = info.title.clone().unwrap_or_else(|| stem.replace(['_', '-'], " "));
    let language = guess_language(&text.text).unwrap_or(&config.default_language).to_owned();
    let extraction = Extraction {
        extractor: pdf::EXTRACTOR.to_owned(),
        text_sha256: sha256_hex(text.text.as_bytes()),
        pages: text.pages_total as u32,
        pages_without_text: text.pages_without_text as u32,
    };
    let mut extra = std::collections::BTreeMap::new();
    if !info.authors.is_empty() {
        extra.insert("authors".to_owned(), serde_json::json!(info.authors));
    }
    if let Some(entry) = entry {
        extra.insert("citation_key".to_owned(), serde_json::Value::String(entry.key.clone()));
    }
    let base = Document {
        id: work.clone(),
        title: Some(title),
        work: Some(work.clone()),
        section: None,
        section_order: None,
        date: None,
        year: info.year,
        language,
        author: (!info.authors.is_empty()).then(|| info.authors.join("; ")),
        witness: None,
        extra,
        source: relative.to_owned(),
        location: FileLocation::file(relative),
        text: String::new(),
        text_offset: 0,
        text_line: 1,
        span_basis: SpanBasis::PdfText,
        pages: Vec::new(),
        extraction: Some(extraction),
        source_map: None,
    };
    let cuts: Vec<Cut<'_>> =
        text.sections.iter().map(|s| Cut { offset: s.offset, title: &s.title, bibliography: s.bibliography }).collect();
    let mut documents = split(&base, &text.text, &cuts);
    // Each document knows the pages it covers.
    for doc in &mut documents {
        let (start, end) = (doc.text_offset, doc.text_offset + doc.text.len());
        let first = pdf::page_at(&text.pages, start).map_or(0, |p| p.number);
        let last = pdf::page_at(&text.pages, end.saturating_sub(1)).map_or(0, |p| p.number);
        doc.pages = text.pages.iter().filter(|p| (first..=last).contains(&p.number)).cloned().collect();
    }
    documents
}
