//! The document: one unit of a work (a chapter, a session, a paper).

use std::collections::BTreeMap;

use crate::error::FileLocation;

/// What a passage's byte span is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanBasis {
    /// Byte offsets and lines in the source file itself (Markdown and text).
    File,
    /// Byte offsets in the record's decoded `text` field; the line is the JSONL line.
    JsonlText,
    /// Byte offsets and lines in the text extracted from a PDF (its sha256 is the
    /// document's `Extraction::text_sha256`).
    PdfText,
}

impl SpanBasis {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SpanBasis::File => "file",
            SpanBasis::JsonlText => "jsonl_text",
            SpanBasis::PdfText => "pdf_text",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    pub(crate) id: String,
    pub(crate) title: Option<String>,
    pub(crate) work: Option<String>,
    pub(crate) section: Option<String>,
    pub(crate) section_order: Option<i64>,
    pub(crate) date: Option<String>,
    pub(crate) year: Option<i32>,
    pub(crate) language: String,
    pub(crate) author: Option<String>,
    pub(crate) witness: Option<String>,
    /// Any further metadata, kept verbatim as JSON values.
    pub(crate) extra: BTreeMap<String, serde_json::Value>,
    /// Relative path of the source file.
    pub(crate) source: String,
    /// Where the document is defined (file, and line for JSONL records).
    pub(crate) location: FileLocation,
    /// The body text that is chunked into passages.
    pub(crate) text: String,
    /// Byte offset of `text` within the source file (0 for JSONL records).
    pub(crate) text_offset: usize,
    /// 1-based line of the source file where `text` starts.
    pub(crate) text_line: usize,
    pub(crate) span_basis: SpanBasis,
    /// Where each page the document covers starts in the extracted text (PDFs only).
    pub(crate) pages: Vec<crate::pdf::PageStart>,
    /// How the text was obtained from a file that is not text (PDFs only).
    pub(crate) extraction: Option<Extraction>,
    /// Where the text lies in the source file when it is not one run of it (HTML):
    /// `text_offset` is then the document's offset in the whole page's text.
    pub(crate) source_map: Option<std::sync::Arc<crate::html::SourceMap>>,
}

/// How a document's text was extracted from its source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Extraction {
    /// The extractor and its version, e.g. `pdf_oxide 0.3.78`.
    pub(crate) extractor: String,
    /// sha256 of the whole extracted text the spans point into.
    pub(crate) text_sha256: String,
    pub(crate) pages: u32,
    pub(crate) pages_without_text: u32,
}

/// A document id must be usable inside a passage id and on a command line.
pub(crate) fn validate_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("document id is empty".into());
    }
    if id.len() > 200 {
        return Err("document id is longer than 200 bytes".into());
    }
    if let Some(c) = id.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("document id `{id}` contains the character {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
impl Document {
    /// A document with only an id and a text, for tests of what consumes documents.
    pub(crate) fn plain(id: &str, text: &str) -> Self {
        Self {
            id: id.to_owned(),
            title: None,
            work: None,
            section: None,
            section_order: None,
            date: None,
            year: None,
            language: "en".to_owned(),
            author: None,
            witness: None,
            extra: BTreeMap::new(),
            source: "t.md".to_owned(),
            location: FileLocation::file("t.md"),
            text: text.to_owned(),
            text_offset: 0,
            text_line: 1,
            span_basis: SpanBasis::File,
            pages: Vec::new(),
            extraction: None,
            source_map: None,
        }
    }
}
