//! Markdown and plain-text documents with an optional front-matter header:
//! a first line `---`, then `key: value` lines, then `---`.

use std::collections::BTreeMap;

use super::config::CorpusConfig;
use super::document::{Document, SpanBasis, validate_id};
use crate::error::{Error, FileLocation, Result};

const FENCE: &str = "---";

pub(crate) fn parse_document(text: String, relative: &str, config: &CorpusConfig) -> Result<Document> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let mut fields = BTreeMap::new();
    let mut body_offset = bom;
    let mut body_line = 1;

    let mut lines = line_spans(&text, bom);
    let first = lines.next();
    if first.map(|(s, e, _)| text[s..e].trim_end()) == Some(FENCE) {
        let mut closed = false;
        for (start, end, line_no) in lines.by_ref() {
            let line = text[start..end].trim_end_matches(['\r', '\n']);
            if line.trim_end() == FENCE {
                body_offset = end;
                body_line = line_no + 1;
                closed = true;
                break;
            }
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(':').ok_or_else(|| Error::InvalidFrontMatter {
                location: FileLocation::line(relative, line_no),
                reason: format!("expected `key: value`, found `{}`", line.trim()),
            })?;
            fields.insert(key.trim().to_owned(), (unquote(value.trim()).to_owned(), line_no));
        }
        if !closed {
            return Err(Error::InvalidFrontMatter {
                location: FileLocation::line(relative, 1),
                reason: "the header opened with `---` is never closed".into(),
            });
        }
    }

    let mut take = |key: &str| fields.remove(key);
    let location = |line: usize| FileLocation::line(relative, line);
    let id = match take("id") {
        Some((id, line)) => {
            validate_id(&id).map_err(|reason| Error::InvalidFrontMatter { location: location(line), reason })?;
            id
        }
        None => id_from_path(relative),
    };
    let year = match take("year") {
        Some((value, line)) => Some(value.parse::<i32>().map_err(|_| Error::InvalidFrontMatter {
            location: location(line),
            reason: format!("`year` must be a whole number, found `{value}`"),
        })?),
        None => None,
    };
    let section_order = match take("section_order") {
        Some((value, line)) => Some(value.parse::<i64>().map_err(|_| Error::InvalidFrontMatter {
            location: location(line),
            reason: format!("`section_order` must be a whole number, found `{value}`"),
        })?),
        None => None,
    };
    let value = |entry: Option<(String, usize)>| entry.map(|(v, _)| v).filter(|v| !v.is_empty());
    let title = value(take("title"));
    let work = value(take("work"));
    let section = value(take("section"));
    let date = value(take("date"));
    let language = value(take("language")).unwrap_or_else(|| config.default_language.clone());
    let author = value(take("author"));
    let witness = value(take("witness"));
    let extra = fields.into_iter().map(|(k, (v, _))| (k, serde_json::Value::String(v))).collect();

    Ok(Document {
        id,
        title,
        work,
        section,
        section_order,
        date,
        year,
        language,
        author,
        witness,
        extra,
        source: relative.to_owned(),
        location: FileLocation::file(relative),
        text: text[body_offset..].to_owned(),
        text_offset: body_offset,
        text_line: body_line,
        span_basis: SpanBasis::File,
        pages: Vec::new(),
        extraction: None,
        source_map: None,
    })
}

/// (start, end including the newline, 1-based line number) of each line.
fn line_spans(text: &str, from: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut start = from;
    let mut line_no = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i + 1);
        let span = (start, end, line_no + 1);
        start = end;
        line_no += 1;
        Some(span)
    })
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return &value[1..value.len() - 1];
        }
    }
    value
}

/// `chapters/one.md` → `chapters.one`.
pub(super) fn id_from_path(relative: &str) -> String {
    let without_ext = relative.rsplit_once('.').map_or(relative, |(stem, _)| stem);
    without_ext.replace('/', ".").replace(char::is_whitespace, "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> CorpusConfig {
        CorpusConfig::for_beir("t")
    }

    #[test]
    fn reads_header_and_body_offsets() {
        let text = "---\nid: d1\ntitle: \"A: B\"\nyear: 1859\nedition: 1\n---\nBody line.\n";
        let doc = parse_document(text.into(), "a.md", &config()).unwrap();
        assert_eq!(doc.id, "d1");
        assert_eq!(doc.title.as_deref(), Some("A: B"));
        assert_eq!(doc.year, Some(1859));
        assert_eq!(doc.extra["edition"], "1");
        assert_eq!(doc.text, "Body line.\n");
        assert_eq!(&text[doc.text_offset..], "Body line.\n");
        assert_eq!(doc.text_line, 7);
    }

    #[test]
    fn no_header_uses_path_as_id_and_default_language() {
        let doc = parse_document("plain text".into(), "sub/x.txt", &config()).unwrap();
        assert_eq!(doc.id, "sub.x");
        assert_eq!(doc.language, "en");
        assert_eq!(doc.text_offset, 0);
    }

    #[test]
    fn bad_header_names_the_line() {
        let err = parse_document("---\nid: a\nnonsense\n---\n".into(), "a.md", &config()).unwrap_err();
        assert!(err.to_string().starts_with("a.md:3: invalid front matter"), "{err}");
        let err = parse_document("---\nyear: soon\n---\n".into(), "a.md", &config()).unwrap_err();
        assert!(err.to_string().starts_with("a.md:2:"), "{err}");
        let err = parse_document("---\nid: a\n".into(), "a.md", &config()).unwrap_err();
        assert!(err.to_string().contains("never closed"), "{err}");
    }

    #[test]
    fn bom_is_skipped() {
        let doc = parse_document("\u{feff}---\nid: b\n---\nx".into(), "b.md", &config()).unwrap();
        assert_eq!(doc.id, "b");
        assert_eq!(doc.text, "x");
    }
}
