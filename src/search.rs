//! The reader side: opens the serving generation and answers searches. Until
//! fusion arrives this runs the lexical lane alone.

use serde::Serialize;
use std::path::Path;

use crate::error::Result;
use crate::index::{Generation, IndexDir, Manifest};
use crate::lane::LaneHits;
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

    pub fn lexical_lane(&self, request: &SearchRequest, depth: usize) -> Result<LaneHits> {
        self.lexical.search(&parse_query(&request.query), &request.filters, depth)
    }

    pub fn search(&self, request: &SearchRequest) -> Result<Vec<SearchHit>> {
        let parsed = parse_query(&request.query);
        let lane = self.lexical.search(&parsed, &request.filters, request.top_k)?;
        let ids: Vec<String> = lane.hits.iter().map(|h| h.passage_id.clone()).collect();
        let rows = self.store.passages(&ids)?;
        let hits = lane
            .hits
            .iter()
            .zip(rows)
            .map(|(hit, passage)| {
                let terms = analyzed_terms(&parsed, &passage.language);
                let highlights = highlight(&passage.text, &passage.language, &terms);
                SearchHit { rank: hit.rank, score: hit.score, passage, highlights }
            })
            .collect();
        Ok(hits)
    }

    pub fn store(&self) -> &Store {
        &self.store
    }
}
