//! JSONL documents, one record a line. The BEIR layout (`_id`, `title`, `text`)
//! is accepted as it is; further metadata fields are optional.

use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::SourceFile;
use super::config::CorpusConfig;
use super::document::{Document, SpanBasis, validate_id};
use crate::error::{Error, FileLocation, IoContext, Result};

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

/// A record's line may be longer than its text (JSON escapes, metadata): up to
/// twice the document limit plus this much is read; a longer line is refused
/// without being held in memory.
const RECORD_OVERHEAD_BYTES: u64 = 1 << 20;

/// A JSONL file read one record at a time, so memory follows the largest
/// accepted record, not the file, and an oversized record is refused before
/// it is read whole. The file is hashed whole when it is opened (its source
/// record comes before its documents) and again as it is read: a file that
/// changed in between is refused.
pub(crate) struct Reader {
    reader: BufReader<std::fs::File>,
    relative: String,
    hasher: Sha256,
    expected: String,
    max_line: u64,
    line_no: usize,
    line: Vec<u8>,
    /// Bytes read so far.
    pub(crate) bytes: u64,
}

impl Reader {
    /// Opens `path`, hashing it first; gives the reader and the file's source record.
    pub(crate) fn open(path: &Path, relative: &str, config: &CorpusConfig) -> Result<(Self, SourceFile)> {
        let (sha256, bytes) = super::sha256_of_file(path, relative)?;
        let limit = config.limits.max_document_bytes;
        let reader = Self {
            reader: BufReader::new(std::fs::File::open(path).at(relative)?),
            relative: relative.to_owned(),
            hasher: Sha256::new(),
            expected: sha256.clone(),
            max_line: limit.saturating_mul(2).saturating_add(RECORD_OVERHEAD_BYTES),
            line_no: 0,
            line: Vec::new(),
            bytes: 0,
        };
        Ok((reader, SourceFile { path: relative.to_owned(), sha256, bytes }))
    }

    /// The next document; `None` at the end of the file (whose hash is then checked).
    pub(crate) fn next_document(&mut self, config: &CorpusConfig) -> Result<Option<Document>> {
        loop {
            self.line.clear();
            self.line_no += 1;
            let relative = self.relative.as_str();
            let n = (&mut self.reader).take(self.max_line + 1).read_until(b'\n', &mut self.line).at(relative)? as u64;
            if n == 0 {
                let sha256 = format!("{:x}", std::mem::take(&mut self.hasher).finalize());
                if sha256 != self.expected {
                    return Err(Error::SourceChanged { path: relative.to_owned() });
                }
                return Ok(None);
            }
            self.bytes += n;
            if n > self.max_line && self.line.last() != Some(&b'\n') {
                let size = n + skip_line(&mut self.reader).at(relative)?;
                let limit = config.limits.max_document_bytes;
                return Err(Error::DocumentTooLarge {
                    location: FileLocation::line(relative, self.line_no),
                    size,
                    limit,
                });
            }
            self.hasher.update(&self.line);
            let text = std::str::from_utf8(&self.line)
                .map_err(|_| Error::InvalidUtf8 { location: FileLocation::line(relative, self.line_no) })?;
            if let Some(document) = parse_record(text, relative, self.line_no, config)? {
                return Ok(Some(document));
            }
        }
    }
}

/// Consumes the rest of the current line; returns how many bytes it had.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(skipped);
        }
        let (used, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buffer.len(), false),
        };
        reader.consume(used);
        skipped += used as u64;
        if done {
            return Ok(skipped);
        }
    }
}

/// One line of a JSONL file: a document, or nothing for a blank line.
fn parse_record(line: &str, relative: &str, line_no: usize, config: &CorpusConfig) -> Result<Option<Document>> {
    let limit = config.limits.max_document_bytes;
    let line = line.trim_start_matches('\u{feff}');
    if line.trim().is_empty() {
        return Ok(None);
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
    Ok(Some(Document {
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
        pages: Vec::new(),
        extraction: None,
        source_map: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(path: &Path, relative: &str, config: &CorpusConfig) -> Result<(Vec<Document>, SourceFile)> {
        let (mut reader, source) = Reader::open(path, relative, config)?;
        let mut documents = Vec::new();
        while let Some(document) = reader.next_document(config)? {
            documents.push(document);
        }
        Ok((documents, source))
    }

    fn parse_documents(text: &str, relative: &str, config: &CorpusConfig) -> Result<Vec<Document>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(relative);
        std::fs::write(&path, text).unwrap();
        Ok(read_all(&path, relative, config)?.0)
    }

    #[test]
    fn an_oversized_record_is_refused_with_its_line_and_the_rest_is_not_needed() {
        let mut config = CorpusConfig::for_beir("b");
        config.limits.max_document_bytes = 10;
        let long = "x".repeat(3 << 20);
        let text = format!("{{\"_id\": \"a\", \"text\": \"ok\"}}\n{{\"_id\": \"b\", \"text\": \"{long}\"}}\n");
        let err = parse_documents(&text, "c.jsonl", &config).unwrap_err();
        match err {
            Error::DocumentTooLarge { location, size, limit } => {
                assert_eq!(location.line, Some(2));
                assert_eq!(size, long.len() as u64 + 25, "the whole line, newline included");
                assert_eq!(limit, 10);
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn the_hash_is_of_the_whole_file() {
        let text = "{\"_id\": \"a\", \"text\": \"x\"}\r\n\n";
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.jsonl"), text).unwrap();
        let (documents, source) =
            read_all(&dir.path().join("c.jsonl"), "c.jsonl", &CorpusConfig::for_beir("b")).unwrap();
        assert_eq!(source.sha256, crate::corpus::sha256_hex(text.as_bytes()));
        assert_eq!(source.bytes, text.len() as u64);
        assert_eq!(documents.len(), 1);
    }

    #[test]
    fn a_file_that_changes_while_it_is_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        std::fs::write(&path, "{\"_id\": \"a\", \"text\": \"x\"}\n").unwrap();
        let config = CorpusConfig::for_beir("b");
        let (mut reader, _) = Reader::open(&path, "c.jsonl", &config).unwrap();
        std::fs::write(&path, "{\"_id\": \"a\", \"text\": \"y\"}\n").unwrap();
        assert_eq!(reader.next_document(&config).unwrap().map(|d| d.text), Some("y".to_owned()));
        let error = reader.next_document(&config).unwrap_err();
        assert_eq!(error.to_string(), "c.jsonl: the file changed while it was being read; run the build again");
    }

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
