//! Read-only access to a generation's store.

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::collections::BTreeMap;
use std::path::Path;

use super::schema::SCHEMA_VERSION;
use crate::corpus::{Alias, Entity};
use crate::error::{Error, Result};
use crate::linker::Mention;
use crate::passage::Passage;

pub struct Store {
    conn: Connection,
}

/// A passage with the document fields a search result shows.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PassageRow {
    pub passage_id: String,
    pub document_id: String,
    pub ordinal: u32,
    pub text: String,
    pub language: String,
    pub byte_start: u64,
    pub byte_end: u64,
    pub line_start: u32,
    pub line_end: u32,
    pub title: Option<String>,
    pub work: Option<String>,
    pub section: Option<String>,
    pub year: Option<i32>,
    pub witness: Option<String>,
    pub period: Option<String>,
    pub source: String,
}

const PASSAGE_COLUMNS: &str = "p.id, p.document_id, p.ordinal, p.text, p.language, p.byte_start, p.byte_end, \
     p.line_start, p.line_end, d.title, d.work_id, d.section, d.year, d.witness, d.period_id, s.path";

impl Store {
    pub fn open(path: &Path) -> Result<Self> {
        let conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        let version: Option<String> =
            conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).optional()?;
        if version.as_deref() != Some(SCHEMA_VERSION.to_string().as_str()) {
            return Err(Error::IndexCorrupt {
                path: path.to_owned(),
                reason: format!("metadata schema version {version:?}, expected {SCHEMA_VERSION}"),
            });
        }
        Ok(Self { conn })
    }

    pub fn passage(&self, id: &str) -> Result<Option<PassageRow>> {
        let sql = format!(
            "SELECT {PASSAGE_COLUMNS} FROM passages p JOIN documents d ON d.id = p.document_id \
             JOIN sources s ON s.id = d.source_id WHERE p.id = ?1"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_row([id], passage_row).optional()?)
    }

    /// Every entity with its aliases (relations and senses are not needed to link).
    pub fn entities(&self) -> Result<Vec<Entity>> {
        let mut aliases: BTreeMap<String, Vec<Alias>> = BTreeMap::new();
        let mut stmt = self.conn.prepare(
            "SELECT entity_id, language, alias, review_status FROM aliases ORDER BY entity_id, language, alias",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, Alias { language: r.get(1)?, name: r.get(2)?, review_status: r.get(3)? }))
        })?;
        for row in rows {
            let (entity, alias) = row?;
            aliases.entry(entity).or_default().push(alias);
        }
        let mut stmt = self.conn.prepare(
            "SELECT id, name, kind, period, status, review_status, ambiguous, definition FROM entities ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(Entity {
                id: r.get(0)?,
                name: r.get(1)?,
                kind: r.get(2)?,
                aliases: Vec::new(),
                period: r.get(3)?,
                status: r.get(4)?,
                review_status: r.get(5)?,
                ambiguous: r.get(6)?,
                senses: Vec::new(),
                definition: r.get(7)?,
                relations: Vec::new(),
                extra: BTreeMap::new(),
            })
        })?;
        let mut entities = Vec::new();
        for row in rows {
            let mut entity = row?;
            entity.aliases = aliases.remove(&entity.id).unwrap_or_default();
            entities.push(entity);
        }
        Ok(entities)
    }

    /// Passages linked to any of `entities`, most mentions first, then by id;
    /// restricted to a language and work when given.
    pub fn passages_linked_to(
        &self,
        entities: &[String],
        language: Option<&str>,
        work: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, u32)>> {
        let mut out: BTreeMap<String, u32> = BTreeMap::new();
        let mut stmt = self.conn.prepare_cached(
            "SELECT pe.passage_id, pe.mentions FROM passage_entities pe \
             JOIN passages p ON p.id = pe.passage_id JOIN documents d ON d.id = p.document_id \
             WHERE pe.entity_id = ?1 AND (?2 IS NULL OR p.language = ?2) AND (?3 IS NULL OR d.work_id = ?3)",
        )?;
        for entity in entities {
            let rows =
                stmt.query_map(params![entity, language, work], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))?;
            for row in rows {
                let (passage, mentions) = row?;
                *out.entry(passage).or_default() += mentions;
            }
        }
        let mut ranked: Vec<(String, u32)> = out.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limit);
        Ok(ranked)
    }

    /// Passages (with entity links) of every document whose source file has
    /// `sha256`, keyed by document id; used to reuse unchanged sources.
    pub fn passages_of_source(&self, path: &str, sha256: &str) -> Result<BTreeMap<String, Vec<Passage>>> {
        let mut stmt = self.conn.prepare(
            "SELECT p.id, p.document_id, p.ordinal, p.text, p.byte_start, p.byte_end, p.line_start, p.line_end, \
             p.language, p.words FROM passages p JOIN documents d ON d.id = p.document_id \
             JOIN sources s ON s.id = d.source_id WHERE s.path = ?1 AND s.sha256 = ?2 \
             ORDER BY p.document_id, p.ordinal",
        )?;
        let mut out: BTreeMap<String, Vec<Passage>> = BTreeMap::new();
        let rows = stmt.query_map(params![path, sha256], |r| {
            Ok(Passage {
                id: r.get(0)?,
                document_id: r.get(1)?,
                ordinal: r.get(2)?,
                text: r.get(3)?,
                byte_start: r.get::<_, i64>(4)? as u64,
                byte_end: r.get::<_, i64>(5)? as u64,
                line_start: r.get(6)?,
                line_end: r.get(7)?,
                language: r.get(8)?,
                words: r.get(9)?,
                mentions: Vec::<Mention>::new(),
            })
        })?;
        for row in rows {
            let passage = row?;
            out.entry(passage.document_id.clone()).or_default().push(passage);
        }
        Ok(out)
    }
}

fn passage_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PassageRow> {
    Ok(PassageRow {
        passage_id: r.get(0)?,
        document_id: r.get(1)?,
        ordinal: r.get(2)?,
        text: r.get(3)?,
        language: r.get(4)?,
        byte_start: r.get::<_, i64>(5)? as u64,
        byte_end: r.get::<_, i64>(6)? as u64,
        line_start: r.get(7)?,
        line_end: r.get(8)?,
        title: r.get(9)?,
        work: r.get(10)?,
        section: r.get(11)?,
        year: r.get(12)?,
        witness: r.get(13)?,
        period: r.get(14)?,
        source: r.get(15)?,
    })
}
