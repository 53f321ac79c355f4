//! The passage: a contiguous, sentence-aligned span of one document, the unit of evidence.

use crate::linker::Mention;

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

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_zero_padded() {
        assert_eq!(super::passage_id("origin-1859.ch04", 7), "p.origin-1859.ch04.0007");
        assert_eq!(super::passage_id("d", 12345), "p.d.12345");
    }
}
