//! The SQLite metadata store (`meta.sqlite`): sources, works, documents,
//! passages, entities, aliases, terminology, passage–entity links and periods.
//! The writer runs once per generation; readers open it read-only.

mod read;
mod schema;
mod write;

pub(crate) use read::{LinkFilter, PassageRow, PeriodRow, SourceRow, Store};
pub(crate) use schema::{REUSABLE_SCHEMA_VERSIONS, SCHEMA_VERSION};
pub(crate) use write::StoreWriter;
