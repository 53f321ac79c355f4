//! The entity lane: passages linked to the resolved entities, most mentions
//! first (the SQLite link table), within the filters and the allowed set.

use std::collections::HashSet;

use crate::error::Result;
use crate::lane::{Lane, LaneHits};
use crate::store::{LinkFilter, Store};

pub fn search(
    store: &Store,
    entities: &[String],
    filter: &LinkFilter<'_>,
    allowed: Option<&[String]>,
    depth: usize,
) -> Result<LaneHits> {
    let linked = store.passages_linked_to(entities, filter, usize::MAX)?;
    let allowed: Option<HashSet<&str>> = allowed.map(|ids| ids.iter().map(String::as_str).collect());
    let scored: Vec<(String, f32)> = linked
        .into_iter()
        .filter(|(id, _)| allowed.as_ref().is_none_or(|a| a.contains(id.as_str())))
        .take(depth)
        .map(|(id, n)| (id, n as f32))
        .collect();
    Ok(LaneHits::from_scored(Lane::Entity, scored))
}
