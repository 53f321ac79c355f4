//! An HTML file as documents: one per `<h1>`/`<h2>` section (the whole page
//! when it has at most one heading), spans pointing into the file itself.

use std::sync::Arc;

use super::document::{Document, SpanBasis};
use super::language::guess_language;
use super::sections::{Cut, split};
use super::{CorpusConfig, SourceFile, decode_utf8, sha256_hex};
use crate::error::{Error, FileLocation, IoContext, Result};
use crate::html;

pub(super) fn read(
    path: &std::path::Path,
    relative: &str,
    config: &CorpusConfig,
) -> Result<(SourceFile, Vec<Document>)> {
    let bytes = std::fs::read(path).at(relative)?;
    let limit = config.limits.max_document_bytes;
    if bytes.len() as u64 > limit {
        return Err(Error::DocumentTooLarge {
            location: FileLocation::file(relative),
            size: bytes.len() as u64,
            limit,
        });
    }
    let source = SourceFile { path: relative.to_owned(), sha256: sha256_hex(&bytes), bytes: bytes.len() as u64 };
    let page = html::read(&decode_utf8(bytes, relative)?);
    let id = super::frontmatter::id_from_path(relative);
    let language = guess_language(&page.text).unwrap_or(&config.default_language).to_owned();
    let map = Arc::new(page.map.clone());
    let base = Document {
        id: id.clone(),
        title: page.title.clone(),
        work: Some(id.clone()),
        section: None,
        section_order: None,
        date: None,
        year: None,
        language,
        author: None,
        witness: None,
        extra: Default::default(),
        source: relative.to_owned(),
        location: FileLocation::file(relative),
        text: String::new(),
        text_offset: 0,
        text_line: 1,
        span_basis: SpanBasis::File,
        pages: Vec::new(),
        extraction: None,
        source_map: Some(map),
    };
    // One heading is the page's title, not a structure.
    let cuts: Vec<Cut<'_>> = if page.sections.len() < 2 {
        Vec::new()
    } else {
        page.sections.iter().map(|s| Cut { offset: s.offset, title: &s.title, bibliography: false }).collect()
    };
    let documents = split(&base, &page.text, &cuts);
    Ok((source, documents))
}
