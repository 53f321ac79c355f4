//! The passage: a contiguous, sentence-aligned span of one document, the unit of evidence.

use crate::text::Mention;

#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// `p.<document-id>.<NNNN>`, stable for the same input.
    pub id: String,
    pub document_id: String,
    pub ordinal: u32,
    pub text: String,
    /// Byte range in the source (see the document's span basis).
    pub byte_start: u64,
    pub byte_end: u64,
    /// 1-based, inclusive line range in the source file.
    pub line_start: u32,
    pub line_end: u32,
    pub language: String,
    pub words: u32,
    pub mentions: Vec<Mention>,
}

pub fn passage_id(document_id: &str, ordinal: u32) -> String {
    format!("p.{document_id}.{ordinal:04}")
}

/// The document id inside a passage id (`p.<document-id>.<NNNN>`).
pub fn document_of(passage_id: &str) -> Option<&str> {
    let inner = passage_id.strip_prefix("p.")?;
    let (document, ordinal) = inner.rsplit_once('.')?;
    (ordinal.len() >= 4 && ordinal.bytes().all(|b| b.is_ascii_digit())).then_some(document)
}

#[cfg(test)]
mod tests {
    #[test]
    fn document_of_inverts_passage_id() {
        assert_eq!(super::document_of(&super::passage_id("origin-1859.ch04", 7)), Some("origin-1859.ch04"));
        assert_eq!(super::document_of("p.4983.0001"), Some("4983"));
        assert_eq!(super::document_of("p.a.b.12345"), Some("a.b"));
        assert_eq!(super::document_of("q.a.0001"), None);
        assert_eq!(super::document_of("p.a.x1"), None);
    }

    #[test]
    fn ids_are_zero_padded() {
        assert_eq!(super::passage_id("origin-1859.ch04", 7), "p.origin-1859.ch04.0007");
        assert_eq!(super::passage_id("d", 12345), "p.d.12345");
    }
}
