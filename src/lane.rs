//! What every retrieval lane returns: a ranked list of passage ids. Lanes know
//! nothing of each other; fusion combines their lists.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    Exact,
    Lexical,
    Entity,
    Vector,
}

impl Lane {
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Exact => "exact",
            Lane::Lexical => "lexical",
            Lane::Entity => "entity",
            Lane::Vector => "vector",
        }
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
