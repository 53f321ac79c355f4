//! The passage: a contiguous, sentence-aligned span of one document, the unit of evidence.

use crate::text::Mention;

/// A passage's number in its generation: its position among the generation's
/// passage ids in sorted order. Lanes rank and fusion combines numbers; ids are
/// read only for the passages a request returns. Because numbers follow id
/// order, a tie broken by number is broken by id. Numbers are per generation
/// (adding a document renumbers those after it) and never leave the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct PassageNo(pub u32);

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Passage {
    /// `p.<document-id>.<NNNN>`, stable for the same input.
    pub(crate) id: String,
    /// Set by `number_passages` once every passage of the generation is known.
    pub(crate) no: PassageNo,
    pub(crate) document_id: String,
    pub(crate) ordinal: u32,
    pub(crate) text: String,
    /// Byte range in the source (see the document's span basis).
    pub(crate) byte_start: u64,
    pub(crate) byte_end: u64,
    /// 1-based, inclusive line range in the source file.
    pub(crate) line_start: u32,
    pub(crate) line_end: u32,
    pub(crate) language: String,
    pub(crate) words: u32,
    pub(crate) mentions: Vec<Mention>,
    /// The pages the passage spans, for documents read from a PDF.
    pub(crate) pages: Option<PageSpan>,
}

/// Physical pages (1-based) and, where the PDF defines them, printed labels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct PageSpan {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) label_start: Option<String>,
    pub(crate) label_end: Option<String>,
}

/// Numbers every passage of a generation in sorted id order (see `PassageNo`).
pub(crate) fn number_passages(passages: &mut [Vec<Passage>]) {
    let mut order: Vec<(&str, usize, usize)> = passages
        .iter()
        .enumerate()
        .flat_map(|(d, ps)| ps.iter().enumerate().map(move |(i, p)| (p.id.as_str(), d, i)))
        .collect();
    order.sort_unstable();
    let places: Vec<(usize, usize)> = order.into_iter().map(|(_, d, i)| (d, i)).collect();
    for (no, (d, i)) in places.into_iter().enumerate() {
        passages[d][i].no = PassageNo(no as u32);
    }
}

pub(crate) fn passage_id(document_id: &str, ordinal: u32) -> String {
    format!("p.{document_id}.{ordinal:04}")
}

/// The document id inside a passage id (`p.<document-id>.<NNNN>`).
pub(crate) fn document_of(passage_id: &str) -> Option<&str> {
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
    fn numbers_follow_sorted_id_order_across_documents() {
        let passage = |id: &str| super::Passage {
            id: id.into(),
            no: super::PassageNo(u32::MAX),
            document_id: String::new(),
            ordinal: 0,
            text: String::new(),
            byte_start: 0,
            byte_end: 0,
            line_start: 1,
            line_end: 1,
            language: "en".into(),
            words: 0,
            mentions: Vec::new(),
            pages: None,
        };
        let mut passages = vec![vec![passage("p.b.0000"), passage("p.b.0001")], vec![passage("p.a.0000")]];
        super::number_passages(&mut passages);
        let numbers: Vec<(&str, u32)> = passages.iter().flatten().map(|p| (p.id.as_str(), p.no.0)).collect();
        assert_eq!(numbers, vec![("p.b.0000", 1), ("p.b.0001", 2), ("p.a.0000", 0)]);
    }

    #[test]
    fn ids_are_zero_padded() {
        assert_eq!(super::passage_id("origin-1859.ch04", 7), "p.origin-1859.ch04.0007");
        assert_eq!(super::passage_id("d", 12345), "p.d.12345");
    }
}
