//! What every retrieval lane returns: a ranked list of passage ids. Lanes know
//! nothing of each other; fusion combines their lists.

use serde::Serialize;

use crate::passage::PassageNo;

mod filters;
mod query;
mod terms;

pub(crate) use filters::Filters;
pub(crate) use query::{ParsedQuery, SpellingVariant, parse_query};
pub(crate) use terms::{KnownTerms, PassageTokens};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    Exact,
    Lexical,
    Entity,
    Vector,
    /// Whole documents for the query expanded with its best documents' words (`lexical::feedback`).
    Feedback,
}

impl Lane {
    pub(crate) const ALL: [Lane; 5] = [Lane::Exact, Lane::Lexical, Lane::Entity, Lane::Vector, Lane::Feedback];
    /// The names, in `ALL` order (the `lane` schema's choices).
    pub(crate) const NAMES: [&'static str; 5] = crate::text::names_of!(Self::ALL, 5);

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Lane::Exact => "exact",
            Lane::Lexical => "lexical",
            Lane::Entity => "entity",
            Lane::Vector => "vector",
            Lane::Feedback => "feedback",
        }
    }

    /// The evidence a lane's finding is, for counting independent lanes: the
    /// feedback lane matches words as the lexical lane does (many of them the
    /// query's own), so the two finding one passage are one kind of evidence, not two.
    pub(crate) const fn kind(self) -> Lane {
        match self {
            Lane::Feedback => Lane::Lexical,
            other => other,
        }
    }

    /// Whether a lane finds passages by association (meaning, or words the
    /// query does not hold) rather than by the query's own words, phrases or entities.
    pub(crate) const fn associative(self) -> bool {
        matches!(self, Lane::Vector | Lane::Feedback)
    }
}

/// How many independent kinds of evidence (`Lane::kind`) these lanes are.
pub(crate) fn independent_lanes(lanes: impl IntoIterator<Item = Lane>) -> usize {
    let mut kinds: Vec<Lane> = lanes.into_iter().map(Lane::kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds.len()
}

impl std::str::FromStr for Lane {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::text::parse_named(&Self::ALL, Self::as_str, s, "lane")
    }
}

/// One ranked item of a lane. `K` is what is ranked: a passage's number in
/// every search lane; `eval` ranks documents by number through the same types.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneHit<K = PassageNo> {
    pub key: K,
    /// 1-based rank within the lane.
    pub rank: u32,
    /// The lane's own score (BM25 for lexical); comparable only within one lane.
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneHits<K = PassageNo> {
    pub lane: Lane,
    pub hits: Vec<LaneHit<K>>,
}

impl<K: Ord> LaneHits<K> {
    /// Builds a lane result from scored keys: best score first, ties by key
    /// (passage numbers follow corpus order), so the same index and query always
    /// give the same order.
    pub(crate) fn from_scored(lane: Lane, mut scored: Vec<(K, f32)>) -> Self {
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let hits = scored
            .into_iter()
            .enumerate()
            .map(|(i, (key, score))| LaneHit { key, rank: i as u32 + 1, score })
            .collect();
        Self { lane, hits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_feedback_lane_is_lexical_evidence_and_associative() {
        use Lane::*;
        assert_eq!(independent_lanes([Lexical, Feedback]), 1);
        assert_eq!(independent_lanes([Lexical, Vector, Feedback]), 2);
        assert_eq!(independent_lanes([Entity, Exact, Vector]), 3);
        assert_eq!(independent_lanes([Vector, Vector, Lexical]), 2);
        assert!(Lane::Feedback.associative() && Lane::Vector.associative() && !Lane::Lexical.associative());
    }

    #[test]
    fn ranks_are_one_based_and_ties_break_by_id() {
        let hits = LaneHits::from_scored(Lane::Lexical, vec![("b", 1.0), ("a", 1.0), ("c", 2.0)]);
        let order: Vec<(&str, u32)> = hits.hits.iter().map(|h| (h.key, h.rank)).collect();
        assert_eq!(order, vec![("c", 1), ("a", 2), ("b", 3)]);
    }
}
