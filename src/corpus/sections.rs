//! One text cut into a document per section (PDFs and HTML pages): ids
//! `<work>.sNN` in text order, the text before the first section as the
//! `front matter`, the whole text as the work's one document when it has no
//! sections. Offsets and lines are kept in the whole text.

use super::document::Document;

/// Where a section starts in the whole text, and what it is.
pub(super) struct Cut<'a> {
    pub(crate) offset: usize,
    pub(crate) title: &'a str,
    pub(crate) bibliography: bool,
}

/// The documents of `text`, each a copy of `base` with its own slice.
pub(super) fn split(base: &Document, text: &str, cuts: &[Cut<'_>]) -> Vec<Document> {
    let work = base.work.clone().unwrap_or_else(|| base.id.clone());
    if cuts.is_empty() {
        return vec![Document { id: work.clone(), work: Some(work), text: text.to_owned(), ..base.clone() }];
    }
    let mut starts: Vec<(usize, Option<&Cut<'_>>)> = vec![(0, None)];
    starts.extend(cuts.iter().map(|c| (c.offset, Some(c))));
    let ends: Vec<usize> = starts.iter().skip(1).map(|(o, _)| *o).chain([text.len()]).collect();
    let mut out = Vec::new();
    for (order, ((start, cut), end)) in starts.into_iter().zip(ends).enumerate() {
        let body = &text[start..end];
        if body.trim().is_empty() {
            continue;
        }
        let mut doc = Document {
            id: format!("{work}.s{order:02}"),
            work: Some(work.clone()),
            section: Some(cut.map_or("front matter", |c| c.title).to_owned()),
            section_order: Some(order as i64),
            text: body.to_owned(),
            text_offset: start,
            text_line: 1 + text[..start].matches('\n').count(),
            ..base.clone()
        };
        if cut.is_some_and(|c| c.bibliography) {
            doc.extra.insert("bibliography".to_owned(), serde_json::Value::Bool(true));
        }
        out.push(doc);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_become_documents_in_text_order_with_their_offsets() {
        let base = Document {
            id: "w".into(),
            title: None,
            work: Some("w".into()),
            section: None,
            section_order: None,
            date: None,
            year: None,
            language: "en".into(),
            author: None,
            witness: None,
            extra: Default::default(),
            source: "w.pdf".into(),
            location: crate::error::FileLocation::file("w.pdf"),
            text: String::new(),
            text_offset: 0,
            text_line: 1,
            span_basis: super::super::SpanBasis::PdfText,
            pages: Vec::new(),
            extraction: None,
            source_map: None,
        };
        let text = "Title\n\n1 Intro\ntext one\n\nReferences\n[1] A.";
        let cuts = [
            Cut { offset: 7, title: "Intro", bibliography: false },
            Cut { offset: 25, title: "References", bibliography: true },
        ];
        let docs = split(&base, text, &cuts);
        let got: Vec<(&str, &str, usize, usize)> =
            docs.iter().map(|d| (d.id.as_str(), d.section.as_deref().unwrap(), d.text_offset, d.text_line)).collect();
        assert_eq!(
            got,
            vec![("w.s00", "front matter", 0, 1), ("w.s01", "Intro", 7, 3), ("w.s02", "References", 25, 6)]
        );
        assert_eq!(docs[2].extra.get("bibliography"), Some(&serde_json::Value::Bool(true)));
        assert_eq!(split(&base, text, &[]).len(), 1);
    }
}
