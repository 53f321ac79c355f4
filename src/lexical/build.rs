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
use crate::corpus::Corpus;
use crate::error::{Error, IoContext, Result};
use crate::passage::Passage;

const WRITER_MEMORY_BYTES: usize = 200_000_000;

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
fn add_filters(tdoc: &mut TantivyDocument, fields: &LexicalFields, doc: &crate::corpus::Document, language: &str) {
    tdoc.add_text(fields.document_id, &doc.id);
    tdoc.add_text(fields.language, language);
    if let Some(work) = &doc.work {
        tdoc.add_text(fields.work, work);
    }
    if let Some(year) = doc.year {
        tdoc.add_i64(fields.year, i64::from(year));
    }
}

/// The document index: one tantivy document per corpus document with its
/// title and all its passages' text in one text field (a document has one
/// title, unlike passages, which share theirs: it is part of the document's
/// text), every passage number in `no`, and its term counts stored for feedback.
pub(crate) fn write_documents(dir: &Path, corpus: &Corpus, passages: &[Vec<Passage>]) -> Result<()> {
    let (writer, fields) = create(dir)?;
    let (Some(analyzer_field), Some(terms_field)) = (fields.analyzer, fields.terms) else {
        return Err(Error::IndexCorrupt { path: dir.to_owned(), reason: "document schema is missing fields".into() });
    };
    for (doc, doc_passages) in corpus.documents.iter().zip(passages) {
        if doc_passages.is_empty() {
            continue;
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
        add_filters(&mut tdoc, &fields, doc, &doc.language);
        if let Some(field) = fields.text.get(analyzer) {
            tdoc.add_text(*field, &text);
        }
        tdoc.add_text(analyzer_field, analyzer);
        tdoc.add_text(terms_field, encode_counts(&counts));
        writer.add_document(tdoc)?;
    }
    finish(writer, None)
}

pub(crate) fn write_lexical(
    dir: &Path,
    corpus: &Corpus,
    passages: &[Vec<Passage>],
    progress: &dyn Fn(u64),
) -> Result<()> {
    let (writer, fields) = create(dir)?;
    let common = common_words(corpus, passages);
    for (doc, doc_passages) in corpus.documents.iter().zip(passages) {
        let analyzer = analyzer_name(&doc.language);
        for p in doc_passages {
            let mut tdoc = TantivyDocument::default();
            tdoc.add_u64(fields.no, u64::from(p.no.0));
            add_filters(&mut tdoc, &fields, doc, &p.language);
            if let Some(field) = fields.text.get(analyzer) {
                tdoc.add_text(*field, &p.text);
            }
            if let (Some(pairs), Some(field)) = (common.pair_tokens(analyzer, &p.text), fields.pairs.get(analyzer)) {
                tdoc.add_pre_tokenized_text(*field, pairs);
            }
            if let (Some(title), Some(field)) = (&doc.title, fields.title.get(analyzer)) {
                tdoc.add_text(*field, title);
            }
            writer.add_document(tdoc)?;
        }
        progress(doc_passages.len() as u64);
    }
    finish(writer, Some(common.payload()))
}

/// The common words of the corpus's first passages per analyzer (`common_words`).
fn common_words(corpus: &Corpus, passages: &[Vec<Passage>]) -> CommonWords {
    let mut sample = Sample::default();
    for (doc, doc_passages) in corpus.documents.iter().zip(passages) {
        let analyzer = analyzer_name(&doc.language);
        for p in doc_passages {
            sample.add(analyzer, &p.text);
        }
    }
    CommonWords::choose(&sample)
}
