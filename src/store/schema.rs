//! The versioned schema. Bump `SCHEMA_VERSION` on any change; readers refuse
//! a store with another version.

pub(crate) const SCHEMA_VERSION: u32 = 3;

/// Versions whose passages a build may still reuse (their `passages` columns
/// that reuse reads are unchanged; version 2 added the passage number, version
/// 3 the pages of a passage, which a store before 3 has none of: no PDFs).
pub(crate) const REUSABLE_SCHEMA_VERSIONS: std::ops::RangeInclusive<u32> = 1..=SCHEMA_VERSION;

/// The first version whose passages record their pages.
pub(crate) const PAGES_SINCE: u32 = 3;

pub(crate) const SCHEMA: &str = r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE sources (
    id     INTEGER PRIMARY KEY,
    path   TEXT NOT NULL UNIQUE,
    sha256 TEXT NOT NULL,
    bytes  INTEGER NOT NULL
);
CREATE TABLE periods (
    id         TEXT PRIMARY KEY,
    label      TEXT NOT NULL,
    start_year INTEGER NOT NULL,
    end_year   INTEGER NOT NULL,
    ord        INTEGER NOT NULL
);
CREATE TABLE works (
    id TEXT PRIMARY KEY
);
CREATE TABLE documents (
    id            TEXT PRIMARY KEY,
    title         TEXT,
    work_id       TEXT REFERENCES works(id),
    section       TEXT,
    section_order INTEGER,
    date          TEXT,
    year          INTEGER,
    language      TEXT NOT NULL,
    author        TEXT,
    witness       TEXT,
    period_id     TEXT REFERENCES periods(id),
    source_id     INTEGER NOT NULL REFERENCES sources(id),
    source_line   INTEGER NOT NULL,
    span_basis    TEXT NOT NULL,
    extra         TEXT NOT NULL,
    -- How the text was obtained from a PDF (NULL for text sources).
    extractor          TEXT,
    text_sha256        TEXT,
    pages              INTEGER,
    pages_without_text INTEGER
);
CREATE INDEX documents_by_period ON documents(period_id);
CREATE INDEX documents_by_work ON documents(work_id);
CREATE INDEX documents_by_source ON documents(source_id);
CREATE TABLE passages (
    no          INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES documents(id),
    ordinal     INTEGER NOT NULL,
    text        TEXT NOT NULL,
    byte_start  INTEGER NOT NULL,
    byte_end    INTEGER NOT NULL,
    line_start  INTEGER NOT NULL,
    line_end    INTEGER NOT NULL,
    language    TEXT NOT NULL,
    words       INTEGER NOT NULL,
    -- Pages of a passage read from a PDF: physical (1-based) and printed labels.
    page_start       INTEGER,
    page_end         INTEGER,
    page_label_start TEXT,
    page_label_end   TEXT,
    UNIQUE (document_id, ordinal)
);
CREATE TABLE entities (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    kind          TEXT NOT NULL,
    period        TEXT,
    status        TEXT,
    review_status TEXT NOT NULL,
    ambiguous     INTEGER NOT NULL,
    senses        TEXT NOT NULL,
    definition    TEXT,
    extra         TEXT NOT NULL
);
CREATE TABLE aliases (
    entity_id     TEXT NOT NULL REFERENCES entities(id),
    language      TEXT NOT NULL,
    alias         TEXT NOT NULL,
    normalized    TEXT NOT NULL,
    review_status TEXT NOT NULL,
    PRIMARY KEY (entity_id, language, alias)
);
CREATE INDEX aliases_by_normalized ON aliases(normalized);
CREATE TABLE entity_relations (
    entity_id TEXT NOT NULL REFERENCES entities(id),
    relation  TEXT NOT NULL,
    target_id TEXT NOT NULL REFERENCES entities(id),
    PRIMARY KEY (entity_id, relation, target_id)
);
CREATE TABLE terminology (
    id              INTEGER PRIMARY KEY,
    entity_id       TEXT NOT NULL REFERENCES entities(id),
    source_language TEXT NOT NULL,
    source_term     TEXT NOT NULL,
    target_language TEXT NOT NULL,
    target_term     TEXT NOT NULL,
    review_status   TEXT NOT NULL,
    warnings        TEXT NOT NULL,
    note            TEXT
);
CREATE INDEX terminology_by_entity ON terminology(entity_id);
CREATE TABLE passage_entities (
    passage_id TEXT NOT NULL REFERENCES passages(id),
    entity_id  TEXT NOT NULL REFERENCES entities(id),
    alias      TEXT NOT NULL,
    mentions   INTEGER NOT NULL,
    ambiguous  INTEGER NOT NULL,
    PRIMARY KEY (passage_id, entity_id)
);
CREATE INDEX passages_by_entity ON passage_entities(entity_id, passage_id);
"#;
