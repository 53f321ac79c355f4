//! The document: one unit of a work (a chapter, a session, a paper).

use std::collections::BTreeMap;

use crate::error::FileLocation;

/// What a passage's byte span is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanBasis {
    /// Byte offsets and lines in the source file itself (Markdown and text).
    File,
    /// Byte offsets in the record's decoded `text` field; the line is the JSONL line.
    JsonlText,
}

impl SpanBasis {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanBasis::File => "file",
            SpanBasis::JsonlText => "jsonl_text",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "file" => Some(SpanBasis::File),
            "jsonl_text" => Some(SpanBasis::JsonlText),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub id: String,
    pub title: Option<String>,
    pub work: Option<String>,
    pub section: Option<String>,
    pub section_order: Option<i64>,
    pub date: Option<String>,
    pub year: Option<i32>,
    pub language: String,
    pub author: Option<String>,
    pub witness: Option<String>,
    /// Any further metadata, kept verbatim as JSON values.
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Relative path of the source file.
    pub source: String,
    /// Where the document is defined (file, and line for JSONL records).
    pub location: FileLocation,
    /// The body text that is chunked into passages.
    pub text: String,
    /// Byte offset of `text` within the source file (0 for JSONL records).
    pub text_offset: usize,
    /// 1-based line of the source file where `text` starts.
    pub text_line: usize,
    pub span_basis: SpanBasis,
}

/// A document id must be usable inside a passage id and on a command line.
pub fn validate_id(id: &str) -> Result<(), String> {
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
