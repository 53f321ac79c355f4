//! The fusion core: turns the ranked lists of several lanes into one ranking.
//!
//! Weighted Reciprocal Rank Fusion: `score(d) = Σ_lane w_lane / (k + rank_lane(d))`,
//! ranks 1-based, `k = 60` by default. Score-normalised fusion (DBSF: each lane's
//! scores are mapped through mean ± 3σ to [0, 1], then weighted and summed) sits
//! behind the same interface so evaluation can compare the two.
//!
//! Documented behaviour, pinned by property tests:
//! - the result does not depend on the order lanes are given in;
//! - ties break by the best single-lane rank, then by key (ascending: passage
//!   numbers follow corpus order, so this is the passage's place in the corpus);
//! - a key repeated within one lane counts once, at its best (first) rank;
//! - empty lanes contribute nothing; every fused item keeps its rank in every lane.
//!
//! A pure function: no I/O; its working memory is a few flat arrays sized by
//! the number of hits.

pub mod naive;
mod table;

use serde::Serialize;

use crate::lane::{Lane, LaneHits};
use crate::passage::PassageNo;

pub(crate) const DEFAULT_K: f64 = 60.0;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum FusionMethod {
    /// Reciprocal Rank Fusion with constant `k`.
    Rrf { k: f64 },
    /// Distribution-based score fusion (scores normalised by mean ± 3σ per lane).
    Dbsf,
}

impl Default for FusionMethod {
    fn default() -> Self {
        FusionMethod::Rrf { k: DEFAULT_K }
    }
}

/// What fusion ranks: a passage's number in the search path, a document's in
/// `eval`. Both are ordinals, `u32`s whose order is the key's order, so the
/// core hashes and packs a `u32` per candidate rather than a string; ids are
/// resolved afterwards, and only for the items kept.
pub trait FusionKey: Copy + Eq + Ord + std::hash::Hash {
    fn ordinal(self) -> u32;
    fn from_ordinal(ordinal: u32) -> Self;
}

impl FusionKey for PassageNo {
    fn ordinal(self) -> u32 {
        self.0
    }
    fn from_ordinal(ordinal: u32) -> Self {
        PassageNo(ordinal)
    }
}

impl FusionKey for u32 {
    fn ordinal(self) -> u32 {
        self
    }
    fn from_ordinal(ordinal: u32) -> Self {
        ordinal
    }
}

/// One lane's list with the weight fusion gives it.
#[derive(Debug, Clone, Copy)]
pub struct WeightedLane<'a, K = PassageNo> {
    pub hits: &'a LaneHits<K>,
    pub weight: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusedHit<K = PassageNo> {
    pub key: K,
    /// Fused rank score: larger is better; not a probability.
    pub score: f64,
    /// The item's 1-based rank in each lane that found it, in lane order.
    pub component_ranks: Vec<(Lane, u32)>,
    /// Each of those lanes' share of `score` (same order): what `explain`
    /// shows, computed by the method that ran, never re-derived elsewhere.
    pub contributions: Vec<(Lane, f64)>,
}

impl<K> FusedHit<K> {
    pub(crate) fn best_rank(&self) -> u32 {
        self.component_ranks.iter().map(|(_, r)| *r).min().unwrap_or(u32::MAX)
    }
}

/// Fuses `lanes` and returns the best `top_k` items, best first.
///
/// One pass over the hits in canonical lane order through an open-addressing
/// table on key ordinals ([`table`]): a key is hashed once and its cell *is*
/// its candidate, so no hit waits on the one before it. Each counted hit is
/// linked to the previous one of its candidate, so ranks are gathered
/// afterwards for the kept items only.
pub fn fuse<K: FusionKey>(method: FusionMethod, lanes: &[WeightedLane<'_, K>], top_k: usize) -> Vec<FusedHit<K>> {
    let hits: usize = lanes.iter().map(|l| l.hits.hits.len()).sum();
    if hits == 0 || top_k == 0 {
        return Vec::new();
    }
    // Lanes are processed in a canonical order so floating-point sums, and so
    // the result, do not depend on the order the caller gave them in.
    let mut order: Vec<usize> = (0..lanes.len()).collect();
    order.sort_by_key(|&i| (lanes[i].hits.lane, i));
    // Where each lane's hits start in caller lane order, then hit order: the
    // numbering of hits the table links.
    let offsets: Vec<usize> = lanes
        .iter()
        .scan(0, |next, l| {
            let at = *next;
            *next += l.hits.hits.len();
            Some(at)
        })
        .collect();
    let shares = contributions(method, lanes, hits);

    let mut table = table::Table::new(hits);
    for &lane_index in &order {
        let offset = offsets[lane_index];
        for (position, hit) in lanes[lane_index].hits.hits.iter().enumerate() {
            table.count(hit.key.ordinal(), offset as u32, position as u32, shares[offset + position]);
        }
    }
    let lane_of = |hit: usize| offsets.partition_point(|&o| o <= hit) - 1;
    let mut found = Vec::with_capacity(lanes.len());
    table
        .select(top_k)
        .into_iter()
        .map(|key| {
            let score = table.candidate(key, &mut found);
            found.sort_unstable(); // hit numbers follow caller lane order
            let mut item = FusedHit {
                key: K::from_ordinal(key),
                score,
                component_ranks: Vec::with_capacity(found.len()),
                contributions: Vec::with_capacity(found.len()),
            };
            for &number in &found {
                let number = number as usize;
                let l = lane_of(number);
                item.component_ranks.push((lanes[l].hits.lane, (number - offsets[l]) as u32 + 1));
                item.contributions.push((lanes[l].hits.lane, shares[number]));
            }
            item
        })
        .collect()
}

/// Each hit's share of its item's score, in caller lane order and hit order:
/// what the method gives a hit at that rank, computed once and reused for
/// `FusedHit::contributions`.
fn contributions<K>(method: FusionMethod, lanes: &[WeightedLane<'_, K>], hits: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(hits);
    for lane in lanes {
        match method {
            FusionMethod::Rrf { k } => {
                out.extend((1..=lane.hits.hits.len()).map(|rank| lane.weight / (k + rank as f64)));
            }
            FusionMethod::Dbsf => {
                let normaliser = Dbsf::of(lane.hits);
                out.extend(lane.hits.hits.iter().map(|hit| lane.weight * normaliser.normalise(hit.score)));
            }
        }
    }
    out
}

/// Maps a lane's scores into [0, 1] through mean ± 3 standard deviations.
struct Dbsf {
    low: f64,
    span: f64,
}

impl Dbsf {
    fn of<K>(hits: &LaneHits<K>) -> Self {
        let n = hits.hits.len().max(1) as f64;
        let mean = hits.hits.iter().map(|h| f64::from(h.score)).sum::<f64>() / n;
        let variance = hits.hits.iter().map(|h| (f64::from(h.score) - mean).powi(2)).sum::<f64>() / n;
        let sd = variance.sqrt();
        Self { low: mean - 3.0 * sd, span: 6.0 * sd }
    }

    fn normalise(&self, score: f32) -> f64 {
        if self.span <= f64::EPSILON {
            return 0.5;
        }
        ((f64::from(score) - self.low) / self.span).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests;
