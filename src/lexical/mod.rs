//! The lexical lane: BM25 over passage text with one analyzer per language.
//! `build` writes the tantivy index of a generation; `LexicalIndex` reads it
//! and answers one entry point, `search`, with a ranked list of passage ids.

mod analyzers;
mod build;
mod directory;
mod fields;
mod highlight;
mod query;

pub use analyzers::{ANALYZED_LANGUAGES, analyzer_name};
pub use build::write_lexical;
pub use highlight::{analyse_passage, highlight};
pub use query::analyzed_terms;

use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::{Index, IndexReader, ReloadPolicy};

use crate::error::{Error, Result};
use crate::lane::{Filters, Lane, LaneHits, ParsedQuery};
use crate::passage::PassageNo;
use fields::LexicalFields;

pub struct LexicalIndex {
    reader: IndexReader,
    fields: LexicalFields,
    /// Each segment's passage-number column, by segment ordinal: read once at
    /// open (a generation never changes, and the reader never reloads).
    numbers: Vec<Column<u64>>,
}

impl LexicalIndex {
    pub fn open(dir: &std::path::Path) -> Result<Self> {
        let index = Index::open(directory::ReadOnlyDirectory::new(dir)).map_err(|e| Error::IndexCorrupt {
            path: dir.to_owned(),
            reason: format!("lexical index cannot be opened ({})", plain(&e)),
        })?;
        analyzers::register(&index);
        let fields = LexicalFields::from_schema(&index.schema()).ok_or_else(|| Error::IndexCorrupt {
            path: dir.to_owned(),
            reason: "lexical index has an unexpected schema".into(),
        })?;
        let reader: IndexReader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let numbers = reader
            .searcher()
            .segment_readers()
            .iter()
            .map(|segment| segment.fast_fields().u64(fields::NO_FIELD))
            .collect::<tantivy::Result<Vec<_>>>()
            .map_err(|e| Error::IndexCorrupt {
                path: dir.to_owned(),
                reason: format!("lexical index has no passage numbers ({}); rebuild it", plain(&e)),
            })?;
        Ok(Self { reader, fields, numbers })
    }

    /// Ranks passages for `query` by BM25; at most `depth` hits, only among
    /// `allowed` passage ids when given.
    pub fn search(
        &self,
        query: &ParsedQuery,
        filters: &Filters,
        allowed: Option<&[PassageNo]>,
        depth: usize,
    ) -> Result<LaneHits> {
        let searcher = self.reader.searcher();
        let languages = query::plausible_languages(&searcher, &self.fields, query, filters);
        let Some(tantivy_query) = query::build(&self.fields, query, filters, allowed, &languages) else {
            return Ok(LaneHits { lane: Lane::Lexical, hits: Vec::new() });
        };
        let top = searcher.search(&tantivy_query, &TopDocs::with_limit(depth.max(1)))?;
        // Numbers come from the fast-field column; no stored document is read.
        let scored = top
            .into_iter()
            .filter_map(|(score, address)| {
                let no = self.numbers.get(address.segment_ord as usize)?.first(address.doc_id)?;
                Some((PassageNo(u32::try_from(no).ok()?), score))
            })
            .collect();
        Ok(LaneHits::from_scored(Lane::Lexical, scored))
    }

    /// How many passages contain `word` (as their language's analyzer reduces
    /// it), in the language where it is most frequent; 0 when it occurs
    /// nowhere or every analyzer drops it.
    pub fn passages_with(&self, word: &str) -> u64 {
        let searcher = self.reader.searcher();
        let mut most = 0;
        for (name, field) in &self.fields.text {
            for (_, term) in query::analyze(name, word) {
                most = most.max(searcher.doc_freq(&tantivy::Term::from_field_text(*field, &term)).unwrap_or(0));
            }
        }
        most
    }
}

/// A tantivy error as a sentence: its `Display` of an unreadable file is the
/// `Debug` form of the I/O error, which is not for people.
fn plain(error: &tantivy::TantivyError) -> String {
    use tantivy::directory::error::OpenReadError;
    match error {
        tantivy::TantivyError::OpenReadError(OpenReadError::IoError { io_error, filepath }) => {
            format!("{}: {io_error}", filepath.display())
        }
        tantivy::TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(path)) => {
            format!("{} is missing", path.display())
        }
        tantivy::TantivyError::IoError(io_error) => io_error.to_string(),
        other => other.to_string(),
    }
}
