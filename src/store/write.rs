//! Writes a store in one transaction, a batch of documents at a time: the
//! build streams its corpus, so the writer never sees it whole.

use rusqlite::{Connection, params};
use std::collections::HashMap;
use std::path::Path;

use super::schema::{SCHEMA, SCHEMA_VERSION};
use crate::corpus::{Corpus, Document, SourceFile};
use crate::error::Result;
use crate::passage::Passage;
use crate::text::normalized_words;

/// `meta.sqlite` being written. Nothing is visible until `finish` commits.
pub(crate) struct StoreWriter {
    conn: Connection,
    /// Source ids by path, numbered in the order the sources come.
    source_ids: HashMap<String, i64>,
}

impl StoreWriter {
    /// Creates the store with the corpus's settings and concepts (entities
    /// before any passage links to them, so foreign keys hold).
    pub(crate) fn create(path: &Path, corpus: &Corpus) -> Result<Self> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        conn.pragma_update(None, "journal_mode", "DELETE")?;
        conn.execute_batch("BEGIN")?;
        conn.execute_batch(SCHEMA)?;
        conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION.to_string()])?;
        conn.execute("INSERT INTO meta (key, value) VALUES ('corpus_name', ?1)", [&corpus.config.name])?;
        {
            let mut insert =
                conn.prepare("INSERT INTO periods (id, label, start_year, end_year, ord) VALUES (?1, ?2, ?3, ?4, ?5)")?;
            for (ord, p) in corpus.config.periods.iter().enumerate() {
                insert.execute(params![p.id, p.label, p.start, p.end, ord as i64])?;
            }
        }
        insert_entities(&conn, corpus)?;
        Ok(Self { conn, source_ids: HashMap::new() })
    }

    /// Records source files, before their documents.
    pub(crate) fn add_sources(&mut self, sources: &[SourceFile]) -> Result<()> {
        let mut insert =
            self.conn.prepare_cached("INSERT INTO sources (id, path, sha256, bytes) VALUES (?1, ?2, ?3, ?4)")?;
        for source in sources {
            let id = self.source_ids.len() as i64 + 1;
            insert.execute(params![id, source.path, source.sha256, source.bytes as i64])?;
            self.source_ids.insert(source.path.clone(), id);
        }
        Ok(())
    }

    /// Writes documents with their passages; `passages[i]` belongs to `documents[i]`.
    pub(crate) fn add_documents(
        &mut self,
        corpus: &Corpus,
        documents: &[Document],
        passages: &[Vec<Passage>],
    ) -> Result<()> {
        let conn = &self.conn;
        let mut insert_work = conn.prepare_cached("INSERT OR IGNORE INTO works (id) VALUES (?1)")?;
        let mut insert_doc = conn.prepare_cached(
            "INSERT INTO documents (id, title, work_id, section, section_order, date, year, language, author, \
             witness, period_id, source_id, source_line, span_basis, extra, extractor, text_sha256, pages, \
             pages_without_text) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
        )?;
        let mut insert_passage = conn.prepare_cached(
            "INSERT INTO passages (no, id, document_id, ordinal, text, byte_start, byte_end, line_start, line_end, \
             language, words, page_start, page_end, page_label_start, page_label_end) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )?;
        let mut insert_link = conn.prepare_cached(
            "INSERT INTO passage_entities (passage_id, entity_id, alias, mentions, ambiguous) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (doc, doc_passages) in documents.iter().zip(passages) {
            if let Some(work) = &doc.work {
                insert_work.execute([work])?;
            }
            let period = corpus.config.period_of(doc.year).map(|p| p.id.as_str());
            let extra = serde_json::to_string(&doc.extra).unwrap_or_else(|_| "{}".into());
            insert_doc.execute(params![
                doc.id,
                doc.title,
                doc.work,
                doc.section,
                doc.section_order,
                doc.date,
                doc.year,
                doc.language,
                doc.author,
                doc.witness,
                period,
                self.source_ids.get(doc.source.as_str()),
                doc.location.line.unwrap_or(1) as i64,
                doc.span_basis.as_str(),
                extra,
                doc.extraction.as_ref().map(|e| e.extractor.as_str()),
                doc.extraction.as_ref().map(|e| e.text_sha256.as_str()),
                doc.extraction.as_ref().map(|e| e.pages),
                doc.extraction.as_ref().map(|e| e.pages_without_text),
            ])?;
            for p in doc_passages {
                insert_passage.execute(params![
                    p.no.0,
                    p.id,
                    p.document_id,
                    p.ordinal,
                    p.text,
                    p.byte_start as i64,
                    p.byte_end as i64,
                    p.line_start,
                    p.line_end,
                    p.language,
                    p.words,
                    p.pages.as_ref().map(|s| s.start),
                    p.pages.as_ref().map(|s| s.end),
                    p.pages.as_ref().and_then(|s| s.label_start.as_deref()),
                    p.pages.as_ref().and_then(|s| s.label_end.as_deref()),
                ])?;
                for m in &p.mentions {
                    insert_link.execute(params![p.id, m.entity, m.alias, m.count, m.ambiguous])?;
                }
            }
        }
        Ok(())
    }

    /// Writes the terminology, commits and analyses.
    pub(crate) fn finish(self, corpus: &Corpus) -> Result<()> {
        insert_terminology(&self.conn, corpus)?;
        self.conn.execute_batch("COMMIT; ANALYZE;")?;
        self.conn.close().map_err(|(_, e)| e)?;
        Ok(())
    }
}

fn insert_entities(tx: &Connection, corpus: &Corpus) -> Result<()> {
    let mut insert_entity = tx.prepare(
        "INSERT INTO entities (id, name, kind, period, status, review_status, ambiguous, senses, definition, extra) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut insert_alias = tx.prepare(
        "INSERT OR IGNORE INTO aliases (entity_id, language, alias, normalized, review_status) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for e in &corpus.entities {
        insert_entity.execute(params![
            e.id,
            e.name,
            e.kind,
            e.period,
            e.status,
            e.review_status,
            e.ambiguous,
            serde_json::to_string(&e.senses).unwrap_or_else(|_| "[]".into()),
            e.definition,
            serde_json::to_string(&e.extra).unwrap_or_else(|_| "{}".into()),
        ])?;
        for a in &e.aliases {
            let normalized = normalized_words(&a.name).join(" ");
            insert_alias.execute(params![e.id, a.language, a.name, normalized, a.review_status])?;
        }
    }
    // Relations may point forward, so they go in once every entity exists.
    let mut insert_relation =
        tx.prepare("INSERT OR IGNORE INTO entity_relations (entity_id, relation, target_id) VALUES (?1, ?2, ?3)")?;
    for e in &corpus.entities {
        for r in &e.relations {
            insert_relation.execute(params![e.id, r.relation, r.target])?;
        }
    }
    Ok(())
}

fn insert_terminology(tx: &Connection, corpus: &Corpus) -> Result<()> {
    let mut insert = tx.prepare(
        "INSERT INTO terminology (entity_id, source_language, source_term, target_language, target_term, \
         review_status, warnings, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for t in &corpus.terminology {
        insert.execute(params![
            t.entity,
            t.source_language,
            t.source_term,
            t.target_language,
            t.target_term,
            t.review_status,
            serde_json::to_string(&t.warnings).unwrap_or_else(|_| "[]".into()),
            t.note,
        ])?;
    }
    Ok(())
}
