//! JSONL documents, one record a line. The BEIR layout (`_id`, `title`, `text`)
//! is accepted as it is; further metadata fields are optional.

use serde::Deserialize;
use std::collections::BTreeMap;

use super::config::CorpusConfig;
use super::document::{Document, SpanBasis, validate_id};
use crate::error::{Error, FileLocation, Result};

#[derive(Debug, Deserialize)]
struct Record {
    #[serde(alias = "_id")]
    id: serde_json::Value,
    #[serde(default)]
    title: Option<String>,
    text: String,
    #[serde(default)]
    work: Option<String>,
    #[serde(default)]
    section: Option<String>,
    #[serde(default)]
    section_order: Option<i64>,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    year: Option<i32>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    author: Option<String>,
    #[serde(default)]
    witness: Option<String>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

pub fn parse_documents(text: &str, relative: &str, config: &CorpusConfig) -> Result<Vec<Document>> {
    let limit = config.limits.max_document_bytes;
    let mut docs = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = line.trim_start_matches('\u{feff}');
        if line.trim().is_empty() {
            continue;
        }
        let location = FileLocation::line(relative, line_no);
        let malformed = |reason: String| Error::MalformedJsonl { location: location.clone(), reason };
        let record: Record = serde_json::from_str(line).map_err(|e| malformed(e.to_string()))?;
        // BEIR ids are strings, but some collections write numbers.
        let id = match record.id {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(malformed(format!("`_id` must be a string, found {other}"))),
        };
        validate_id(&id).map_err(malformed)?;
        if record.text.len() as u64 > limit {
            return Err(Error::DocumentTooLarge { location, size: record.text.len() as u64, limit });
        }
        let mut extra = record.extra;
        // BEIR's `metadata` is usually an empty object; drop it when empty.
        if extra.get("metadata").is_some_and(|m| m.as_object().is_some_and(|o| o.is_empty())) {
            extra.remove("metadata");
        }
        docs.push(Document {
            id,
            title: record.title.filter(|t| !t.is_empty()),
            work: record.work,
            section: record.section,
            section_order: record.section_order,
            date: record.date,
            year: record.year,
            language: record.language.unwrap_or_else(|| config.default_language.clone()),
            author: record.author,
            witness: record.witness,
            extra,
            source: relative.to_owned(),
            location,
            text: record.text,
            text_offset: 0,
            text_line: line_no,
            span_basis: SpanBasis::JsonlText,
        });
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beir_records_parse_as_they_are() {
        let text = "{\"_id\": \"4983\", \"title\": \"T\", \"text\": \"Some text.\", \"metadata\": {}}\n\n{\"_id\": 7, \"title\": \"\", \"text\": \"x\"}\n";
        let docs = parse_documents(text, "corpus.jsonl", &CorpusConfig::for_beir("b")).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].id, "4983");
        assert!(docs[0].extra.is_empty());
        assert_eq!(docs[1].id, "7");
        assert_eq!(docs[1].title, None);
        assert_eq!(docs[1].text_line, 3);
    }

    #[test]
    fn malformed_line_is_named() {
        let text = "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \"text\": }\n";
        let err = parse_documents(text, "c.jsonl", &CorpusConfig::for_beir("b")).unwrap_err();
        assert!(err.to_string().starts_with("c.jsonl:2: malformed JSONL record"), "{err}");
    }
}
