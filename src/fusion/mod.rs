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
//!   numbers follow passage id order, so this is the passage id);
//! - a key repeated within one lane counts once, at its best (first) rank;
//! - empty lanes contribute nothing; every fused item keeps its rank in every lane.
//!
//! A pure function: no I/O, no allocation per candidate beyond the output.

pub mod naive;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::lane::{Lane, LaneHits};
use crate::passage::PassageNo;

pub const DEFAULT_K: f64 = 60.0;

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

/// What fusion ranks: a passage's number in the search path (a document's in
/// `eval`; strings in tests). Copy and cheap to hash, so the core hashes a
/// `u32` per candidate rather than a string; ids are resolved afterwards, and
/// only for the items kept.
pub trait FusionKey: Copy + Eq + Ord + std::hash::Hash {}
impl<K: Copy + Eq + Ord + std::hash::Hash> FusionKey for K {}

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
    pub fn best_rank(&self) -> u32 {
        self.component_ranks.iter().map(|(_, r)| *r).min().unwrap_or(u32::MAX)
    }
}

/// Per-candidate accumulator; ranks live in one flat array beside it.
#[derive(Clone, Copy)]
struct Slot<K> {
    key: K,
    score: f64,
    best_rank: u32,
}

/// Fuses `lanes` and returns the best `top_k` items, best first.
pub fn fuse<K: FusionKey>(method: FusionMethod, lanes: &[WeightedLane<'_, K>], top_k: usize) -> Vec<FusedHit<K>> {
    // Lanes are processed in a canonical order so floating-point sums, and so
    // the result, do not depend on the order the caller gave them in.
    let mut order: Vec<usize> = (0..lanes.len()).collect();
    order.sort_by_key(|&i| (lanes[i].hits.lane, i));
    let capacity: usize = lanes.iter().map(|l| l.hits.hits.len()).sum();
    let lane_count = lanes.len();

    let mut index: FxHashMap<K, u32> = FxHashMap::with_capacity_and_hasher(capacity, Default::default());
    let mut slots: Vec<Slot<K>> = Vec::with_capacity(capacity);
    // ranks[slot * lane_count + lane] = 1-based rank, 0 = not found by that lane.
    let mut ranks: Vec<u32> = Vec::with_capacity(capacity * lane_count);

    let normalisers: Vec<Option<Dbsf>> = lanes
        .iter()
        .map(|lane| match method {
            FusionMethod::Dbsf => Some(Dbsf::of(lane.hits)),
            FusionMethod::Rrf { .. } => None,
        })
        .collect();
    let contribution = |lane_index: usize, rank: u32| -> f64 {
        let lane = &lanes[lane_index];
        match (&method, &normalisers[lane_index]) {
            (FusionMethod::Rrf { k }, _) => lane.weight / (k + f64::from(rank)),
            (FusionMethod::Dbsf, Some(n)) => {
                lane.hits.hits.get(rank as usize - 1).map_or(0.0, |hit| lane.weight * n.normalise(hit.score))
            }
            (FusionMethod::Dbsf, None) => 0.0,
        }
    };
    for &lane_index in &order {
        let lane = &lanes[lane_index];
        for (position, hit) in lane.hits.hits.iter().enumerate() {
            let rank = position as u32 + 1;
            let slot = *index.entry(hit.key).or_insert_with(|| {
                slots.push(Slot { key: hit.key, score: 0.0, best_rank: u32::MAX });
                ranks.extend(std::iter::repeat_n(0, lane_count));
                (slots.len() - 1) as u32
            }) as usize;
            let cell = &mut ranks[slot * lane_count + lane_index];
            if *cell != 0 {
                continue; // a repeated key counts once per lane, at its first rank
            }
            *cell = rank;
            let s = &mut slots[slot];
            s.score += contribution(lane_index, rank);
            s.best_rank = s.best_rank.min(rank);
        }
    }

    let better = |a: &u32, b: &u32| {
        let (x, y) = (&slots[*a as usize], &slots[*b as usize]);
        y.score.total_cmp(&x.score).then(x.best_rank.cmp(&y.best_rank)).then_with(|| x.key.cmp(&y.key))
    };
    let mut selected: Vec<u32> = (0..slots.len() as u32).collect();
    let k = top_k.min(selected.len());
    if k == 0 {
        return Vec::new();
    }
    if k < selected.len() {
        selected.select_nth_unstable_by(k - 1, better);
        selected.truncate(k);
    }
    selected.sort_unstable_by(better);

    selected
        .into_iter()
        .map(|slot| {
            let slot = slot as usize;
            let found = (0..lane_count).filter_map(|lane| {
                let rank = ranks[slot * lane_count + lane];
                (rank != 0).then_some((lane, rank))
            });
            FusedHit {
                key: slots[slot].key,
                score: slots[slot].score,
                component_ranks: found.clone().map(|(lane, rank)| (lanes[lane].hits.lane, rank)).collect(),
                contributions: found.map(|(lane, rank)| (lanes[lane].hits.lane, contribution(lane, rank))).collect(),
            }
        })
        .collect()
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
