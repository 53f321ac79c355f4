//! Read-only access to a generation's store.

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::schema::{PAGES_SINCE, REUSABLE_SCHEMA_VERSIONS, SCHEMA_VERSION};
use crate::corpus::{Alias, Entity, Relation, TermMapping};
use crate::error::{Error, Result};
use crate::passage::{PageSpan, Passage, PassageNo};
use crate::text::Mention;

/// Read-only connections to one store. A connection serves one thread at a
/// time, so concurrent readers each check one out of a small pool.
pub(crate) struct Store {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// The schema versions this handle accepts (`open`: the current one only).
    versions: std::ops::RangeInclusive<u32>,
    /// The version the file was written with.
    version: u32,
}

/// Connections kept open between calls; more are opened under load and dropped after.
const IDLE_CONNECTIONS: usize = 8;

/// Prepared statements kept per connection. `IN (…)` lookups are one statement per list
/// length (a search's sources query has 1 to `top_k` documents), so rusqlite's default of 16
/// would evict and re-parse them.
const STATEMENT_CACHE: usize = 64;

/// Page cache per connection, KiB (filled only as pages are read).
const PAGE_CACHE_KIB: u32 = 32 * 1024;

/// A passage with the document fields a search result shows.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct PassageRow {
    /// The passage's number in this generation (internal; never shown).
    #[serde(skip)]
    pub(crate) no: PassageNo,
    pub(crate) passage_id: String,
    pub(crate) document_id: String,
    pub(crate) ordinal: u32,
    pub(crate) text: String,
    pub(crate) language: String,
    pub(crate) byte_start: u64,
    pub(crate) byte_end: u64,
    pub(crate) line_start: u32,
    pub(crate) line_end: u32,
    pub(crate) title: Option<String>,
    pub(crate) work: Option<String>,
    pub(crate) section: Option<String>,
    pub(crate) year: Option<i32>,
    pub(crate) witness: Option<String>,
    pub(crate) period: Option<String>,
    pub(crate) source: String,
    /// The pages the passage spans (PDF sources).
    pub(crate) pages: Option<PageSpan>,
}

const PASSAGE_COLUMNS: &str = "p.no, p.id, p.document_id, p.ordinal, p.text, p.language, p.byte_start, p.byte_end, \
     p.line_start, p.line_end, d.title, d.work_id, d.section, d.year, d.witness, d.period_id, s.path, \
     p.page_start, p.page_end, p.page_label_start, p.page_label_end";

impl Store {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Self::open_versions(path, SCHEMA_VERSION..=SCHEMA_VERSION)
    }

    /// Opens the previous generation's store for a build that reuses its
    /// passages: older schema versions whose passages read the same are accepted.
    pub(crate) fn open_for_reuse(path: &Path) -> Result<Self> {
        Self::open_versions(path, REUSABLE_SCHEMA_VERSIONS)
    }

    fn open_versions(path: &Path, versions: std::ops::RangeInclusive<u32>) -> Result<Self> {
        let (conn, version) = Self::connect(path, &versions)?;
        let store = Self { path: path.to_owned(), idle: Mutex::new(Vec::new()), versions, version };
        store.release(conn);
        Ok(store)
    }

    fn connect(path: &Path, versions: &std::ops::RangeInclusive<u32>) -> Result<(Connection, u32)> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // A generation never changes once built (its files' lengths are checked on open):
        // `immutable=1` spares every read the file locking and hot-journal checks.
        let conn = match path.to_str() {
            Some(text) => {
                let escaped = text.replace('%', "%25").replace('?', "%3f").replace('#', "%23");
                Connection::open_with_flags(format!("file:{escaped}?immutable=1"), flags | OpenFlags::SQLITE_OPEN_URI)?
            }
            None => Connection::open_with_flags(path, flags)?,
        };
        // The build runs ANALYZE, and with STAT4 samples SQLite re-plans a statement (parses it
        // again) whenever a bound value it planned with changes: every cached `IN (…)` and
        // `= ?` lookup, every call. The stability guarantee plans once, without the values.
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // Pages read stay in the connection's cache (SQLite's default is 2 MB): a search reads
        // rows scattered over the whole store, and each page missed is a `pread`.
        conn.pragma_update(None, "cache_size", -i64::from(PAGE_CACHE_KIB))?;
        let version: Option<String> =
            conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).optional()?;
        match version.as_deref().and_then(|v| v.parse().ok()).filter(|v| versions.contains(v)) {
            Some(accepted) => Ok((conn, accepted)),
            None => Err(Error::IndexCorrupt {
                path: path.to_owned(),
                reason: format!("metadata schema version {version:?}, expected {SCHEMA_VERSION}"),
            }),
        }
    }

    fn release(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < IDLE_CONNECTIONS
        {
            idle.push(conn);
        }
    }

    /// Runs `f` on a pooled connection.
    pub(super) fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let conn = match pooled {
            Some(conn) => conn,
            None => Self::connect(&self.path, &self.versions)?.0,
        };
        let out = f(&conn);
        self.release(conn);
        out
    }

    pub(crate) fn passage(&self, id: &str) -> Result<Option<PassageRow>> {
        let sql = format!(
            "SELECT {PASSAGE_COLUMNS} FROM passages p JOIN documents d ON d.id = p.document_id \
             JOIN sources s ON s.id = d.source_id WHERE p.id = ?1"
        );
        self.with(|c| Ok(c.prepare_cached(&sql)?.query_row([id], passage_row).optional()?))
    }

    /// The passages with these numbers, in one query by primary key (numbers
    /// not found are absent).
    pub(crate) fn passages(&self, numbers: &[PassageNo]) -> Result<HashMap<PassageNo, PassageRow>> {
        let mut out = HashMap::with_capacity(numbers.len());
        // SQLite binds at most 32,766 parameters per statement.
        for chunk in numbers.chunks(32_000) {
            let placeholders = vec!["?"; chunk.len()].join(",");
            let sql = format!(
                "SELECT {PASSAGE_COLUMNS} FROM passages p JOIN documents d ON d.id = p.document_id \
                 JOIN sources s ON s.id = d.source_id WHERE p.no IN ({placeholders})"
            );
            self.with(|c| {
                let mut stmt = c.prepare_cached(&sql)?;
                for row in stmt.query_map(rusqlite::params_from_iter(chunk.iter().map(|n| n.0)), passage_row)? {
                    let row = row?;
                    out.insert(row.no, row);
                }
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// The number of the passage with this id.
    pub(crate) fn number_of(&self, id: &str) -> Result<Option<PassageNo>> {
        self.with(|c| {
            Ok(c.prepare_cached("SELECT no FROM passages WHERE id = ?1")?
                .query_row([id], |r| r.get(0).map(PassageNo))
                .optional()?)
        })
    }

    /// Every passage id, indexed by number (`ids[n]` is passage `n`'s id).
    pub(crate) fn passage_ids(&self) -> Result<Vec<String>> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT id FROM passages ORDER BY no")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Every entity with its aliases, senses and relations.
    pub(crate) fn entities(&self) -> Result<Vec<Entity>> {
        self.with(|conn| {
            let mut aliases: BTreeMap<String, Vec<Alias>> = BTreeMap::new();
            let mut stmt = conn.prepare(
                "SELECT entity_id, language, alias, review_status FROM aliases ORDER BY entity_id, language, alias",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get::<_, String>(0)?, Alias { language: r.get(1)?, name: r.get(2)?, review_status: r.get(3)? }))
            })?;
            for row in rows {
                let (entity, alias) = row?;
                aliases.entry(entity).or_default().push(alias);
            }
            let mut relations: BTreeMap<String, Vec<Relation>> = BTreeMap::new();
            let mut stmt = conn.prepare(
                "SELECT entity_id, relation, target_id FROM entity_relations ORDER BY entity_id, relation, target_id",
            )?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, Relation { relation: r.get(1)?, target: r.get(2)? })))?;
            for row in rows {
                let (entity, relation) = row?;
                relations.entry(entity).or_default().push(relation);
            }
            let mut stmt = conn.prepare(
                "SELECT id, name, kind, period, status, review_status, ambiguous, definition, senses \
                 FROM entities ORDER BY id",
            )?;
            let rows = stmt.query_map([], |r| {
                let senses: String = r.get(8)?;
                Ok(Entity {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    kind: r.get(2)?,
                    aliases: Vec::new(),
                    period: r.get(3)?,
                    status: r.get(4)?,
                    review_status: r.get(5)?,
                    ambiguous: r.get(6)?,
                    // Written by `write` from a Vec<String>; an unreadable value reads as no senses.
                    senses: serde_json::from_str(&senses).unwrap_or_default(),
                    definition: r.get(7)?,
                    relations: Vec::new(),
                    extra: BTreeMap::new(),
                })
            })?;
            let mut entities = Vec::new();
            for row in rows {
                let mut entity = row?;
                entity.aliases = aliases.remove(&entity.id).unwrap_or_default();
                entity.relations = relations.remove(&entity.id).unwrap_or_default();
                entities.push(entity);
            }
            Ok(entities)
        })
    }

    /// Passages linked to any of `entities`, most mentions first, then by
    /// number (so by corpus order); restricted by the filters that are given.
    pub(crate) fn passages_linked_to(
        &self,
        entities: &[String],
        filter: &LinkFilter<'_>,
        limit: usize,
    ) -> Result<Vec<(PassageNo, u32)>> {
        self.with(|conn| {
            let mut out: BTreeMap<PassageNo, u32> = BTreeMap::new();
            let mut stmt = conn.prepare_cached(
                "SELECT p.no, pe.mentions FROM passage_entities pe \
                 JOIN passages p ON p.id = pe.passage_id JOIN documents d ON d.id = p.document_id \
                 WHERE pe.entity_id = ?1 AND (?2 IS NULL OR p.language = ?2) AND (?3 IS NULL OR d.work_id = ?3) \
                 AND (?4 IS NULL OR d.year BETWEEN ?4 AND ?5)",
            )?;
            for entity in entities {
                let (first, last) = filter.years.unzip();
                let rows = stmt.query_map(params![entity, filter.language, filter.work, first, last], |r| {
                    Ok((PassageNo(r.get(0)?), r.get::<_, u32>(1)?))
                })?;
                for row in rows {
                    let (passage, mentions) = row?;
                    *out.entry(passage).or_default() += mentions;
                }
            }
            let mut ranked: Vec<(PassageNo, u32)> = out.into_iter().collect();
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            ranked.truncate(limit);
            Ok(ranked)
        })
    }

    /// The passages (without entity links) of document `document_id` when its
    /// source file `path` still has `sha256`; used to reuse unchanged sources.
    pub(crate) fn passages_of_document(&self, path: &str, sha256: &str, document_id: &str) -> Result<Vec<Passage>> {
        self.with(|conn| {
            // A store from before pages were recorded holds no PDF passages.
            let pages = if self.version >= PAGES_SINCE {
                "p.page_start, p.page_end, p.page_label_start, p.page_label_end"
            } else {
                "NULL, NULL, NULL, NULL"
            };
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT p.id, p.document_id, p.ordinal, p.text, p.byte_start, p.byte_end, p.line_start, p.line_end, \
                 p.language, p.words, {pages} FROM passages p JOIN documents d ON d.id = p.document_id \
                 JOIN sources s ON s.id = d.source_id WHERE p.document_id = ?3 AND s.path = ?1 AND s.sha256 = ?2 \
                 ORDER BY p.ordinal"
            ))?;
            let rows = stmt.query_map(params![path, sha256, document_id], |r| {
                Ok(Passage {
                    id: r.get(0)?,
                    no: PassageNo(0), // renumbered by the build that reuses it
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
                    pages: page_span(r, 10)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    /// Work ids, sorted.
    pub(crate) fn works(&self) -> Result<Vec<String>> {
        self.with(|conn| {
            let mut stmt = conn.prepare("SELECT id FROM works ORDER BY id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Each document that names its author, with the author as written, by document id.
    pub(crate) fn document_authors(&self) -> Result<Vec<(String, String)>> {
        self.with(|conn| {
            let mut stmt = conn.prepare("SELECT id, author FROM documents WHERE author IS NOT NULL ORDER BY id")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Whether any document names the witness (edition, manuscript) it was read from.
    pub(crate) fn declares_witnesses(&self) -> Result<bool> {
        self.with(|conn| {
            Ok(conn.query_row("SELECT EXISTS(SELECT 1 FROM documents WHERE witness IS NOT NULL)", [], |r| r.get(0))?)
        })
    }

    /// Languages of the passages, sorted.
    pub(crate) fn languages(&self) -> Result<Vec<String>> {
        self.with(|conn| {
            let mut stmt = conn.prepare("SELECT DISTINCT language FROM passages ORDER BY language")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The corpus's periods in configured order.
    pub(crate) fn periods(&self) -> Result<Vec<PeriodRow>> {
        self.with(|conn| {
            let mut stmt = conn.prepare("SELECT id, label, start_year, end_year FROM periods ORDER BY ord")?;
            let rows = stmt.query_map([], |r| {
                Ok(PeriodRow { id: r.get(0)?, label: r.get(1)?, start_year: r.get(2)?, end_year: r.get(3)? })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Every terminology mapping, in file order.
    pub(crate) fn terminology(&self) -> Result<Vec<TermMapping>> {
        self.with(|conn| {
            let mut stmt = conn.prepare(
                "SELECT entity_id, source_language, source_term, target_language, target_term, review_status, \
                 warnings, note FROM terminology ORDER BY id",
            )?;
            let rows = stmt.query_map([], |r| {
                let warnings: String = r.get(6)?;
                Ok(TermMapping {
                    entity: r.get(0)?,
                    source_language: r.get(1)?,
                    source_term: r.get(2)?,
                    target_language: r.get(3)?,
                    target_term: r.get(4)?,
                    review_status: r.get(5)?,
                    warnings: serde_json::from_str(&warnings).unwrap_or_default(),
                    note: r.get(7)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Passages of `document` with ordinals in `first..=last`, in source order.
    pub(crate) fn passages_in_range(&self, document: &str, first: u32, last: u32) -> Result<Vec<PassageRow>> {
        let sql = format!(
            "SELECT {PASSAGE_COLUMNS} FROM passages p JOIN documents d ON d.id = p.document_id \
             JOIN sources s ON s.id = d.source_id WHERE p.document_id = ?1 AND p.ordinal BETWEEN ?2 AND ?3 \
             ORDER BY p.ordinal"
        );
        self.with(|c| {
            let mut stmt = c.prepare_cached(&sql)?;
            let rows = stmt.query_map(params![document, first, last], passage_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Entity ids each passage mentions, with whether the link is ambiguous.
    pub(crate) fn links_of(&self, passage_ids: &[String]) -> Result<BTreeMap<String, Vec<(String, bool)>>> {
        self.with(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT entity_id, ambiguous FROM passage_entities WHERE passage_id = ?1 ORDER BY entity_id",
            )?;
            let mut out = BTreeMap::new();
            for id in passage_ids {
                let rows = stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))?;
                out.insert(id.clone(), rows.collect::<rusqlite::Result<Vec<_>>>()?);
            }
            Ok(out)
        })
    }

    /// The provenance facts of a passage's document and source file.
    pub(crate) fn source_of(&self, document: &str) -> Result<Option<SourceRow>> {
        Ok(self.sources_of(&[document])?.remove(document))
    }

    /// The provenance facts of several documents, in one query (documents not
    /// found are absent).
    pub(crate) fn sources_of(&self, documents: &[&str]) -> Result<HashMap<String, SourceRow>> {
        let mut out = HashMap::with_capacity(documents.len());
        for chunk in documents.chunks(32_000) {
            let placeholders = vec!["?"; chunk.len()].join(",");
            let sql = format!(
                "SELECT d.id, d.title, d.author, d.witness, d.date, d.year, d.source_line, d.span_basis, d.extra, \
                 s.path, s.sha256, s.bytes, d.extractor, d.text_sha256, d.pages, d.pages_without_text \
                 FROM documents d JOIN sources s ON s.id = d.source_id \
                 WHERE d.id IN ({placeholders})"
            );
            self.with(|c| {
                let mut stmt = c.prepare_cached(&sql)?;
                let rows = stmt.query_map(rusqlite::params_from_iter(chunk), |r| {
                    let extra: String = r.get(8)?;
                    Ok(SourceRow {
                        document_id: r.get(0)?,
                        title: r.get(1)?,
                        author: r.get(2)?,
                        witness: r.get(3)?,
                        date: r.get(4)?,
                        year: r.get(5)?,
                        source_line: r.get(6)?,
                        span_basis: r.get(7)?,
                        metadata: serde_json::from_str(&extra).unwrap_or_default(),
                        path: r.get(9)?,
                        sha256: r.get(10)?,
                        bytes: r.get::<_, i64>(11)? as u64,
                        extraction: match (r.get::<_, Option<String>>(12)?, r.get::<_, Option<String>>(13)?) {
                            (Some(extractor), Some(text_sha256)) => Some(crate::corpus::Extraction {
                                extractor,
                                text_sha256,
                                pages: r.get::<_, Option<u32>>(14)?.unwrap_or(0),
                                pages_without_text: r.get::<_, Option<u32>>(15)?.unwrap_or(0),
                            }),
                            _ => None,
                        },
                    })
                })?;
                for row in rows {
                    let row = row?;
                    out.insert(row.document_id.clone(), row);
                }
                Ok(())
            })?;
        }
        Ok(out)
    }
}

/// Restrictions on the passages an entity lookup returns.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LinkFilter<'a> {
    pub(crate) language: Option<&'a str>,
    pub(crate) work: Option<&'a str>,
    /// Inclusive year range (a period).
    pub(crate) years: Option<(i32, i32)>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct PeriodRow {
    pub(crate) id: String,
    pub(crate) label: String,
    pub(crate) start_year: i32,
    pub(crate) end_year: i32,
}

/// A document and the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SourceRow {
    pub(crate) document_id: String,
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    pub(crate) witness: Option<String>,
    pub(crate) date: Option<String>,
    pub(crate) year: Option<i32>,
    pub(crate) source_line: u32,
    pub(crate) span_basis: String,
    /// Front-matter keys evident does not interpret (e.g. `origin_sha256`).
    pub(crate) metadata: BTreeMap<String, serde_json::Value>,
    pub(crate) path: String,
    pub(crate) sha256: String,
    pub(crate) bytes: u64,
    /// How the text was obtained, for a document read from a PDF.
    pub(crate) extraction: Option<crate::corpus::Extraction>,
}

/// The pages of a passage from four columns starting at `first` (NULL for text sources).
fn page_span(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Option<PageSpan>> {
    let start: Option<u32> = r.get(first)?;
    let end: Option<u32> = r.get(first + 1)?;
    let (label_start, label_end) = (r.get(first + 2)?, r.get(first + 3)?);
    Ok(start.zip(end).map(|(start, end)| PageSpan { start, end, label_start, label_end }))
}

fn passage_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PassageRow> {
    Ok(PassageRow {
        no: PassageNo(r.get(0)?),
        passage_id: r.get(1)?,
        document_id: r.get(2)?,
        ordinal: r.get(3)?,
        text: r.get(4)?,
        language: r.get(5)?,
        byte_start: r.get::<_, i64>(6)? as u64,
        byte_end: r.get::<_, i64>(7)? as u64,
        line_start: r.get(8)?,
        line_end: r.get(9)?,
        title: r.get(10)?,
        work: r.get(11)?,
        section: r.get(12)?,
        year: r.get(13)?,
        witness: r.get(14)?,
        period: r.get(15)?,
        source: r.get(16)?,
        pages: page_span(r, 17)?,
    })
}
