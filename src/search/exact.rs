//! The exact lane: a passage id finds that passage; otherwise the quoted
//! phrases (or the whole query) must occur as phrases.

use super::LaneInput;
use crate::error::Result;
use crate::lane::{Lane, LaneHits, ParsedQuery};
use crate::lexical::{AnalysedQuery, LexicalIndex};
use crate::store::Store;

pub(crate) fn search(store: &Store, lexical: &LexicalIndex, input: &LaneInput<'_>) -> Result<LaneHits> {
    let trimmed = input.query.trim();
    if trimmed.starts_with("p.")
        && let Some(no) = store.number_of(trimmed)?
    {
        return Ok(LaneHits::from_scored(Lane::Exact, vec![(no, 1.0)]));
    }
    let parsed = &input.terms.parsed;
    let phrases = if parsed.phrases.is_empty() { vec![trimmed.to_owned()] } else { parsed.phrases.clone() };
    // The exact lane's own query: phrases only, without spellings (the call's analysis has free text).
    let exact = AnalysedQuery::new(&ParsedQuery { phrases, free_text: String::new(), variants: Vec::new() });
    let mut hits = lexical.search(&exact, input.filters, input.allowed, input.depth)?;
    hits.lane = Lane::Exact;
    Ok(hits)
}
