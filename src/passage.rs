//! The passage: a contiguous, sentence-aligned span of one document, the unit of evidence.

use crate::text::Mention;

/// A passage's number in its generation: its position in corpus order (by
/// source file, then position in the file, then ordinal), given as the build
/// streams the corpus, so no build needs every passage id first. Lanes rank
/// and fusion combines numbers; ids are read only for the passages a request
/// returns. A tie broken by number is broken by corpus order. Numbers are per
/// generation (adding a document renumbers those after it) and never leave the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct PassageNo(pub u32);

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Passage {
    /// `p.<document-id>.<NNNN>`, stable for the same input.
    pub(crate) id: String,
    /// Given by `Numbering` as the build streams the corpus.
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

#[cfg(test)]
impl Passage {
    /// A passage with only an id, a number and a text, for tests of what consumes passages.
    pub(crate) fn plain(id: &str, no: u32, text: &str) -> Self {
        Self {
            id: id.into(),
            no: PassageNo(no),
            document_id: document_of(id).unwrap_or_default().to_owned(),
            ordinal: 0,
            text: text.into(),
            byte_start: 0,
            byte_end: text.len() as u64,
            line_start: 1,
            line_end: 1,
            language: "en".into(),
            words: 0,
            mentions: Vec::new(),
            pages: None,
        }
    }
}

/// Physical pages (1-based) and, where the PDF defines them, printed labels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct PageSpan {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) label_start: Option<String>,
    pub(crate) label_end: Option<String>,
}

/// Numbers passages in the order they come (see `PassageNo`).
#[derive(Debug, Default)]
pub(crate) struct Numbering {
    next: u32,
}

impl Numbering {
    /// Numbers `passages` after every passage numbered before; `None` when
    /// the numbers run out.
    pub(crate) fn number<'a>(&mut self, passages: impl IntoIterator<Item = &'a mut Passage>) -> Option<()> {
        for p in passages {
            p.no = PassageNo(self.next);
            self.next = self.next.checked_add(1)?;
        }
        Some(())
    }

    /// How many passages are numbered.
    pub(crate) fn count(&self) -> usize {
        self.next as usize
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
    fn numbers_follow_the_order_passages_come_in_across_batches() {
        let passage = |id: &str| super::Passage::plain(id, u32::MAX, "");
        let mut numbering = super::Numbering::default();
        let mut first = [vec![passage("p.b.0000"), passage("p.b.0001")], vec![passage("p.a.0000")]];
        let mut second = [vec![passage("p.0.0000")]];
        numbering.number(first.iter_mut().flatten()).unwrap();
        numbering.number(second.iter_mut().flatten()).unwrap();
        let numbers: Vec<(&str, u32)> =
            first.iter().chain(&second).flatten().map(|p| (p.id.as_str(), p.no.0)).collect();
        assert_eq!(numbers, vec![("p.b.0000", 0), ("p.b.0001", 1), ("p.a.0000", 2), ("p.0.0000", 3)]);
        assert_eq!(numbering.count(), 4);
        let mut full = super::Numbering { next: u32::MAX };
        assert_eq!(full.number(second.iter_mut().flatten()), None, "the last number is not given twice");
    }

    #[test]
    fn ids_are_zero_padded() {
        assert_eq!(super::passage_id("origin-1859.ch04", 7), "p.origin-1859.ch04.0007");
        assert_eq!(super::passage_id("d", 12345), "p.d.12345");
    }
}
