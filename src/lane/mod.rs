//! What every retrieval lane returns: a ranked list of passage ids. Lanes know
//! nothing of each other; fusion combines their lists.

use serde::Serialize;

mod filters;
mod query;

pub use filters::Filters;
pub use query::{ParsedQuery, parse_query};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    Exact,
    Lexical,
    Entity,
    Vector,
}

impl Lane {
    pub const ALL: [Lane; 4] = [Lane::Exact, Lane::Lexical, Lane::Entity, Lane::Vector];
    /// The names, in `ALL` order (the `lane` schema's choices).
    pub const NAMES: [&'static str; 4] = crate::text::names_of!(Self::ALL, 4);

    pub const fn as_str(self) -> &'static str {
        match self {
            Lane::Exact => "exact",
            Lane::Lexical => "lexical",
            Lane::Entity => "entity",
            Lane::Vector => "vector",
        }
    }
}

impl std::str::FromStr for Lane {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::text::parse_named(&Self::ALL, Self::as_str, s, "lane")
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneHit {
    pub passage_id: String,
    /// 1-based rank within the lane.
    pub rank: u32,
    /// The lane's own score (BM25 for lexical); comparable only within one lane.
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneHits {
    pub lane: Lane,
    pub hits: Vec<LaneHit>,
}

impl LaneHits {
    /// Builds a lane result from scored ids: best score first, ties by passage id,
    /// so the same index and query always give the same order.
    pub fn from_scored(lane: Lane, mut scored: Vec<(String, f32)>) -> Self {
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let hits = scored
            .into_iter()
            .enumerate()
            .map(|(i, (passage_id, score))| LaneHit { passage_id, rank: i as u32 + 1, score })
            .collect();
        Self { lane, hits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_one_based_and_ties_break_by_id() {
        let hits = LaneHits::from_scored(Lane::Lexical, vec![("b".into(), 1.0), ("a".into(), 1.0), ("c".into(), 2.0)]);
        let order: Vec<(&str, u32)> = hits.hits.iter().map(|h| (h.passage_id.as_str(), h.rank)).collect();
        assert_eq!(order, vec![("c", 1), ("a", 2), ("b", 3)]);
    }
}
