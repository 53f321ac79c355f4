//! The reader side: opens the serving generation and answers searches. Until
//! fusion arrives this runs the lexical lane alone.

use serde::Serialize;
use std::path::Path;

use crate::error::Result;
use crate::index::{Generation, IndexDir, Manifest};
use crate::lexical::{Filters, LexicalIndex, analyzed_terms, highlight, parse_query};
use crate::store::{PassageRow, Store};

/// A generation opened for reading. Holds no mutable state.
pub struct Searcher {
    pub generation: Generation,
    pub manifest: Manifest,
    store: Store,
    lexical: LexicalIndex,
}

#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    pub top_k: usize,
    pub filters: Filters,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub rank: u32,
    /// BM25 score from the lexical lane; comparable only within one result list.
    pub score: f32,
    #[serde(flatten)]
    pub passage: PassageRow,
    /// Byte ranges in `passage.text` of words matching the query.
    pub highlights: Vec<(usize, usize)>,
}

impl Searcher {
    pub fn open(index_dir: &Path) -> Result<Self> {
        let index = IndexDir::open(index_dir)?;
        let generation = index.require_current()?;
        let manifest = Manifest::read(&generation.manifest_path())?;
        let store = Store::open(&generation.store_path())?;
        let lexical = LexicalIndex::open(&generation.lexical_path())?;
        Ok(Self { generation, manifest, store, lexical })
    }

    pub fn search(&self, request: &SearchRequest) -> Result<Vec<SearchHit>> {
        let parsed = parse_query(&request.query);
        let lane = self.lexical.search(&parsed, &request.filters, request.top_k)?;
        let mut hits = Vec::with_capacity(lane.hits.len());
        for hit in &lane.hits {
            // The lexical index and the store come from one generation, so every id resolves.
            let Some(passage) = self.store.passage(&hit.passage_id)? else { continue };
            let terms = analyzed_terms(&parsed, &passage.language);
            let highlights = highlight(&passage.text, &passage.language, &terms);
            hits.push(SearchHit { rank: hit.rank, score: hit.score, passage, highlights });
        }
        Ok(hits)
    }
}
