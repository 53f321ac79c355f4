//! Writes the lexical indexes of a generation: passages, and documents (the
//! feedback lane's). One writer thread and documents in corpus order make the
//! segment layout, and so tie order, reproducible.

use std::collections::BTreeMap;
use std::path::Path;
use tantivy::{Index, IndexWriter, TantivyDocument};

use super::analyzers::{analyzer_name, register};
use super::common_words::{CommonWords, Sample};
use super::feedback::encode_counts;
use super::fields::{LexicalFields, schema};
use super::query::analyze;
use crate::corpus::Document;
use crate::error::{Error, IoContext, Result};
use crate::passage::Passage;

/// Each writer's indexing arena (two writers a build): what it fills is flushed
/// as a segment, so this bounds the build's lexical memory at any corpus size.
const WRITER_MEMORY_BYTES: usize = 64_000_000;

fn create(dir: &Path) -> Result<(IndexWriter, LexicalFields)> {
    std::fs::create_dir_all(dir).at(dir)?;
    let index = Index::create_in_dir(dir, schema())?;
    register(&index);
    let fields = LexicalFields::from_schema(&index.schema()).ok_or_else(|| Error::IndexCorrupt {
        path: dir.to_owned(),
        reason: "lexical schema is missing fields".into(),
    })?;
    Ok((index.writer_with_num_threads::<TantivyDocument>(1, WRITER_MEMORY_BYTES)?, fields))
}

/// Commits with `payload` (kept through merges) and waits for the merges.
fn finish(mut writer: IndexWriter, payload: Option<String>) -> Result<()> {
    let mut commit = writer.prepare_commit()?;
    if let Some(payload) = payload {
        commit.set_payload(&payload);
    }
    commit.commit()?;
    writer.wait_merging_threads()?;
    Ok(())
}

/// The filter fields a passage or document carries.
fn add_filters(tdoc: &mut TantivyDocument, fields: &LexicalFields, doc: &Document, language: &str) {
    tdoc.add_text(fields.document_id, &doc.id);
    tdoc.add_text(fields.language, language);
    if let Some(work) = &doc.work {
        tdoc.add_text(fields.work, work);
    }
    if let Some(year) = doc.year {
        tdoc.add_i64(fields.year, i64::from(year));
    }
}

/// The lexical indexes being written, a batch of documents at a time: the
/// passage index and the document index (the feedback lane's).
///
/// The passage index's pair fields need the corpus's common words, chosen
/// from its first passages (`common_words::SAMPLE_PASSAGES`): until the
/// sample is full the passages are held (bounded by the sample), then written.
pub(crate) struct LexicalWriter {
    passages: IndexWriter,
    passage_fields: LexicalFields,
    documents: IndexWriter,
    document_fields: LexicalFields,
    /// The document index's analyzer and stored term-count fields.
    analyzer_field: tantivy::schema::Field,
    terms_field: tantivy::schema::Field,
    sample: Sample,
    common: Option<CommonWords>,
    held: Vec<HeldPassage>,
}

/// A passage's tantivy document waiting for its pair tokens.
struct HeldPassage {
    tdoc: TantivyDocument,
    analyzer: &'static str,
    text: String,
}

impl LexicalWriter {
    pub(crate) fn create(passages_dir: &Path, documents_dir: &Path) -> Result<Self> {
        let (passages, passage_fields) = create(passages_dir)?;
        let (documents, document_fields) = create(documents_dir)?;
        let (Some(analyzer_field), Some(terms_field)) = (document_fields.analyzer, document_fields.terms) else {
            return Err(Error::IndexCorrupt {
                path: documents_dir.to_owned(),
                reason: "document schema is missing fields".into(),
            });
        };
        Ok(Self {
            passages,
            passage_fields,
            documents,
            document_fields,
            analyzer_field,
            terms_field,
            sample: Sample::default(),
            common: None,
            held: Vec::new(),
        })
    }

    /// Indexes documents and their passages; `passages[i]` belongs to `documents[i]`.
    pub(crate) fn add(&mut self, documents: &[Document], passages: &[Vec<Passage>]) -> Result<()> {
        for (doc, doc_passages) in documents.iter().zip(passages) {
            self.add_document(doc, doc_passages)?;
            let analyzer = analyzer_name(&doc.language);
            for p in doc_passages {
                let fields = &self.passage_fields;
                let mut tdoc = TantivyDocument::default();
                tdoc.add_u64(fields.no, u64::from(p.no.0));
                add_filters(&mut tdoc, fields, doc, &p.language);
                if let Some(field) = fields.text.get(analyzer) {
                    tdoc.add_text(*field, &p.text);
                }
                if let (Some(title), Some(field)) = (&doc.title, fields.title.get(analyzer)) {
                    tdoc.add_text(*field, title);
                }
                if let Some(common) = &self.common {
                    self.passages.add_document(with_pairs(tdoc, fields, common, analyzer, &p.text))?;
                    continue;
                }
                self.sample.add(analyzer, &p.text);
                self.held.push(HeldPassage { tdoc, analyzer, text: p.text.clone() });
                if self.sample.is_full() {
                    self.release_held()?;
                }
            }
        }
        Ok(())
    }

    /// Chooses the common words from the sample and writes the held passages.
    fn release_held(&mut self) -> Result<()> {
        let common = CommonWords::choose(&self.sample);
        for held in std::mem::take(&mut self.held) {
            let tdoc = with_pairs(held.tdoc, &self.passage_fields, &common, held.analyzer, &held.text);
            self.passages.add_document(tdoc)?;
        }
        self.common = Some(common);
        Ok(())
    }

    /// The document index's entry: its title and all its passages' text in
    /// one text field (a document has one title, unlike passages, which share
    /// theirs: it is part of the document's text), every passage number in
    /// `no`, and its term counts stored for feedback.
    fn add_document(&mut self, doc: &Document, doc_passages: &[Passage]) -> Result<()> {
        let fields = &self.document_fields;
        if doc_passages.is_empty() {
            return Ok(());
        }
        let analyzer = analyzer_name(&doc.language);
        let text = doc.title.iter().map(String::as_str).chain(doc_passages.iter().map(|p| p.text.as_str()));
        let text = text.collect::<Vec<_>>().join("\n\n");
        let mut counts: BTreeMap<String, u32> = BTreeMap::new();
        for (_, term) in analyze(analyzer, &text) {
            *counts.entry(term).or_default() += 1;
        }
        let mut tdoc = TantivyDocument::default();
        for p in doc_passages {
            tdoc.add_u64(fields.no, u64::from(p.no.0));
        }
        add_filters(&mut tdoc, fields, doc, &doc.language);
        if let Some(field) = fields.text.get(analyzer) {
            tdoc.add_text(*field, &text);
        }
        tdoc.add_text(self.analyzer_field, analyzer);
        tdoc.add_text(self.terms_field, encode_counts(&counts));
        self.documents.add_document(tdoc)?;
        Ok(())
    }

    /// Writes what is held, then commits both indexes (the common words as the
    /// passage index's payload) and waits for their merges.
    pub(crate) fn finish(mut self) -> Result<()> {
        if self.common.is_none() {
            self.release_held()?;
        }
        let payload = self.common.as_ref().map(CommonWords::payload);
        finish(self.passages, payload)?;
        finish(self.documents, None)
    }
}

fn with_pairs(
    mut tdoc: TantivyDocument,
    fields: &LexicalFields,
    common: &CommonWords,
    analyzer: &str,
    text: &str,
) -> TantivyDocument {
    if let (Some(pairs), Some(field)) = (common.pair_tokens(analyzer, text), fields.pairs.get(analyzer)) {
        tdoc.add_pre_tokenized_text(*field, pairs);
    }
    tdoc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::common_words::SAMPLE_PASSAGES;
    use tantivy::query::TermQuery;
    use tantivy::schema::IndexRecordOption;

    #[test]
    fn passages_held_until_the_sample_is_full_get_their_pairs_like_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let (passages_dir, documents_dir) = (dir.path().join("passages"), dir.path().join("documents"));
        let mut writer = LexicalWriter::create(&passages_dir, &documents_dir).unwrap();
        let total = SAMPLE_PASSAGES + 10;
        let numbers: Vec<usize> = (0..total).collect();
        for batch in numbers.chunks(4096) {
            let documents: Vec<Document> = batch.iter().map(|i| Document::plain(&format!("d{i}"), "")).collect();
            let passages: Vec<Vec<Passage>> = batch
                .iter()
                .map(|&i| vec![Passage::plain(&format!("p.d{i}.0000"), i as u32, "gardens trees grow")])
                .collect();
            writer.add(&documents, &passages).unwrap();
            if batch[0] == 0 {
                assert!(writer.common.is_none() && writer.held.len() == batch.len(), "held for the sample");
            }
        }
        assert!(writer.common.is_some() && writer.held.is_empty(), "the sample filled: nothing is held");
        writer.finish().unwrap();

        let index = Index::open_in_dir(&passages_dir).unwrap();
        register(&index);
        let payload = index.load_metas().unwrap().payload.unwrap();
        let common = CommonWords::from_payload(Some(&payload)).unwrap();
        let pairs = common.phrase_pairs("en", &analyze("en", "gardens trees grow"));
        assert_eq!(pairs, Some(vec!["garden tree".to_owned(), "tree grow".to_owned()]));
        let fields = LexicalFields::from_schema(&index.schema()).unwrap();
        let searcher = index.reader().unwrap().searcher();
        for pair in ["garden tree", "tree grow"] {
            let query =
                TermQuery::new(tantivy::Term::from_field_text(fields.pairs["en"], pair), IndexRecordOption::Basic);
            assert_eq!(searcher.search(&query, &tantivy::collector::Count).unwrap(), total, "{pair}");
        }
        let documents = Index::open_in_dir(&documents_dir).unwrap();
        assert_eq!(documents.reader().unwrap().searcher().num_docs(), total as u64);
    }
}
