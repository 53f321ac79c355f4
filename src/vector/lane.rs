//! The vector lane: embed the query (and each quoted phrase), search the store
//! with the request's filters, return a ranked list of passage numbers; and
//! the lexical lane's search when its sparse vectors live in the same store.

use super::embedder::Embedder;
use super::store::{PointNumbers, SparseQuery, SparseVector, VectorFilter, VectorQuery, VectorStore};
use super::unavailable::Unavailable;
use crate::lane::ParsedQuery;
use crate::lane::{Lane, LaneHits};

pub(crate) fn search(
    embedder: &Embedder,
    store: &dyn VectorStore,
    numbers: &PointNumbers,
    raw_query: &str,
    parsed: &ParsedQuery,
    filter: VectorFilter,
    depth: usize,
) -> Result<LaneHits, Unavailable> {
    // The whole query carries the meaning; a quoted phrase is also searched on
    // its own so that it counts even in a long question (fused by RRF in Qdrant).
    // Each text is embedded on its own. Measured on the Darwin index (release,
    // 8 phrases of 16 words): one batch of all phrases raised peak memory by
    // 44 MB and took 220 ms a call (the runtime's arena grows for the padded
    // batch and keeps the memory); one at a time, +5 MB and 62 ms.
    let whole = raw_query.trim();
    let mut texts: Vec<&str> = vec![whole];
    texts.extend(parsed.phrases.iter().map(String::as_str).filter(|p| *p != whole));
    let vectors = {
        let _stage = crate::stage::enter("embed");
        embedder.embed_queries(&texts)?
    };
    let _stage = crate::stage::enter("vector.store");
    let scored = store.search(&VectorQuery { vectors, filter, limit: depth.max(1) })?;
    Ok(LaneHits::from_scored(Lane::Vector, numbers.rank(scored)))
}

/// The lexical lane when its BM25 weights live in the store beside the
/// vectors (`[lexical] backend = "qdrant"`): the query's terms as a sparse vector.
pub(crate) fn sparse_search(
    store: &dyn VectorStore,
    numbers: &PointNumbers,
    vector: SparseVector,
    filter: VectorFilter,
    depth: usize,
) -> Result<LaneHits, Unavailable> {
    let _stage = crate::stage::enter("lexical.store");
    let scored = store.sparse_search(&SparseQuery { vector, filter, limit: depth.max(1) })?;
    Ok(LaneHits::from_scored(Lane::Lexical, numbers.rank(scored)))
}
