//! Writes the lexical index of a generation. One writer thread and documents
//! in corpus order make the segment layout, and so tie order, reproducible.

use std::path::Path;
use tantivy::{Index, TantivyDocument};

use super::analyzers::{analyzer_name, register};
use super::fields::{LexicalFields, schema};
use crate::corpus::Corpus;
use crate::error::{Error, IoContext, Result};
use crate::passage::Passage;

const WRITER_MEMORY_BYTES: usize = 200_000_000;

pub fn write_lexical(dir: &Path, corpus: &Corpus, passages: &[Vec<Passage>], progress: &dyn Fn(u64)) -> Result<()> {
    std::fs::create_dir_all(dir).at(dir)?;
    let index = Index::create_in_dir(dir, schema())?;
    register(&index);
    let fields = LexicalFields::from_schema(&index.schema()).ok_or_else(|| Error::IndexCorrupt {
        path: dir.to_owned(),
        reason: "lexical schema is missing fields".into(),
    })?;
    let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, WRITER_MEMORY_BYTES)?;
    for (doc, doc_passages) in corpus.documents.iter().zip(passages) {
        let analyzer = analyzer_name(&doc.language);
        for p in doc_passages {
            let mut tdoc = TantivyDocument::default();
            tdoc.add_u64(fields.no, u64::from(p.no.0));
            tdoc.add_text(fields.document_id, &doc.id);
            tdoc.add_text(fields.language, &p.language);
            if let Some(work) = &doc.work {
                tdoc.add_text(fields.work, work);
            }
            if let Some(year) = doc.year {
                tdoc.add_i64(fields.year, i64::from(year));
            }
            if let Some(field) = fields.text.get(analyzer) {
                tdoc.add_text(*field, &p.text);
            }
            if let (Some(title), Some(field)) = (&doc.title, fields.title.get(analyzer)) {
                tdoc.add_text(*field, title);
            }
            writer.add_document(tdoc)?;
        }
        progress(doc_passages.len() as u64);
    }
    writer.commit()?;
    writer.wait_merging_threads()?;
    Ok(())
}
