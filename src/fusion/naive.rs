//! A deliberately simple reference implementation of weighted RRF: a std
//! `HashMap` (SipHash) and a full sort. Property tests check the fast core against
//! it; `benches/fusion.rs` measures the difference.

use std::collections::HashMap;

use super::{FusedHit, FusionKey, WeightedLane};

pub fn rrf<K: FusionKey>(k: f64, lanes: &[WeightedLane<'_, K>], top_k: usize) -> Vec<FusedHit<K>> {
    let mut order: Vec<usize> = (0..lanes.len()).collect();
    order.sort_by_key(|&i| (lanes[i].hits.lane, i));
    let mut acc: HashMap<K, (f64, Vec<Option<u32>>)> = HashMap::new();
    for &i in &order {
        let lane = &lanes[i];
        for (position, hit) in lane.hits.hits.iter().enumerate() {
            let entry = acc.entry(hit.key).or_insert_with(|| (0.0, vec![None; lanes.len()]));
            if entry.1[i].is_none() {
                let rank = position as u32 + 1;
                entry.1[i] = Some(rank);
                entry.0 += lane.weight / (k + f64::from(rank));
            }
        }
    }
    let mut all: Vec<FusedHit<K>> = acc
        .into_iter()
        .map(|(key, (score, ranks))| FusedHit {
            key,
            score,
            component_ranks: ranks
                .iter()
                .enumerate()
                .filter_map(|(lane, r)| r.map(|r| (lanes[lane].hits.lane, r)))
                .collect(),
            contributions: ranks
                .iter()
                .enumerate()
                .filter_map(|(lane, r)| r.map(|r| (lanes[lane].hits.lane, lanes[lane].weight / (k + f64::from(r)))))
                .collect(),
        })
        .collect();
    all.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then(a.best_rank().cmp(&b.best_rank())).then_with(|| a.key.cmp(&b.key))
    });
    all.truncate(top_k);
    all
}
