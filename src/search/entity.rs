//! The entity lane: passages linked to the resolved entities, most mentions
//! first (the SQLite link table), within the filters and the allowed set.

use std::collections::HashSet;

use crate::error::Result;
use crate::lane::{Lane, LaneHits};
use crate::passage::PassageNo;
use crate::store::{LinkFilter, Store};

pub(crate) fn search(
    store: &Store,
    entities: &[String],
    filter: &LinkFilter<'_>,
    allowed: Option<&[PassageNo]>,
    depth: usize,
) -> Result<LaneHits> {
    let linked = store.passages_linked_to(entities, filter, usize::MAX)?;
    let allowed: Option<HashSet<PassageNo>> = allowed.map(|numbers| numbers.iter().copied().collect());
    let scored: Vec<(PassageNo, f32)> = linked
        .into_iter()
        .filter(|(no, _)| allowed.as_ref().is_none_or(|a| a.contains(no)))
        .take(depth)
        .map(|(no, n)| (no, n as f32))
        .collect();
    Ok(LaneHits::from_scored(Lane::Entity, scored))
}
