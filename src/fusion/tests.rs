use proptest::prelude::*;

use super::table::descending;
use super::*;
use crate::lane::{Lane, LaneHit, LaneHits};

// Named keys for the hand-written cases; their numeric order is the tie-break.
const A: u32 = 1;
const B: u32 = 2;
const W: u32 = 23;
const X: u32 = 24;
const Y: u32 = 25;
const Z: u32 = 26;

/// A lane ranking `keys` in order (document-style `u32`s here; passage numbers in the property tests).
fn lane<K: Copy>(lane: Lane, keys: &[K]) -> LaneHits<K> {
    LaneHits {
        lane,
        hits: keys
            .iter()
            .enumerate()
            .map(|(i, key)| LaneHit { key: *key, rank: i as u32 + 1, score: 10.0 - i as f32 })
            .collect(),
    }
}

fn rrf<K: FusionKey>(lanes: &[WeightedLane<'_, K>], k: usize) -> Vec<FusedHit<K>> {
    fuse(FusionMethod::Rrf { k: 60.0 }, lanes, k)
}

#[test]
fn hand_computed_scores_and_component_ranks() {
    let a = lane(Lane::Lexical, &[X, Y, Z]);
    let b = lane(Lane::Vector, &[Y, W]);
    let fused = rrf(&[WeightedLane { hits: &a, weight: 1.0 }, WeightedLane { hits: &b, weight: 1.0 }], 10);
    let ids: Vec<u32> = fused.iter().map(|h| h.key).collect();
    assert_eq!(ids, vec![Y, X, W, Z]);
    assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-12);
    assert_eq!(fused[0].component_ranks, vec![(Lane::Lexical, 2), (Lane::Vector, 1)]);
    // Each lane's share, in the same order, sums to the score.
    let shares: Vec<(Lane, f64)> = fused[0].contributions.clone();
    assert_eq!(shares, vec![(Lane::Lexical, 1.0 / 62.0), (Lane::Vector, 1.0 / 61.0)]);
    assert!((shares.iter().map(|(_, c)| c).sum::<f64>() - fused[0].score).abs() < 1e-12);
    // x (1/61) and w (1/62): x first; w and z both 1/62 and 1/63 differ.
    assert!((fused[1].score - 1.0 / 61.0).abs() < 1e-12);
}

#[test]
fn weights_scale_contributions() {
    let a = lane(Lane::Lexical, &[X]);
    let b = lane(Lane::Vector, &[Y]);
    let fused = rrf(&[WeightedLane { hits: &a, weight: 1.0 }, WeightedLane { hits: &b, weight: 2.0 }], 2);
    assert_eq!(fused[0].key, Y);
    assert!((fused[0].score - 2.0 / 61.0).abs() < 1e-12);
}

#[test]
fn ties_break_by_best_rank_then_id() {
    // B is rank 1 in one lane and absent elsewhere; A likewise: equal scores, id decides.
    let l1 = lane(Lane::Lexical, &[B]);
    let l2 = lane(Lane::Vector, &[A]);
    let fused = rrf(&[WeightedLane { hits: &l1, weight: 1.0 }, WeightedLane { hits: &l2, weight: 1.0 }], 2);
    assert_eq!(fused.iter().map(|h| h.key).collect::<Vec<_>>(), vec![A, B]);
}

#[test]
fn duplicates_count_once_at_first_rank_and_empty_lanes_are_harmless() {
    let a = lane(Lane::Lexical, &[X, X, Y]);
    let empty = lane::<u32>(Lane::Vector, &[]);
    let fused = rrf(&[WeightedLane { hits: &a, weight: 1.0 }, WeightedLane { hits: &empty, weight: 1.0 }], 10);
    assert_eq!(fused.len(), 2);
    assert!((fused[0].score - 1.0 / 61.0).abs() < 1e-12);
    assert_eq!(fused[0].component_ranks, vec![(Lane::Lexical, 1)]);
    assert_eq!(fused[1].component_ranks, vec![(Lane::Lexical, 3)]);
    assert!(rrf::<u32>(&[], 5).is_empty());
    assert!(rrf(&[WeightedLane { hits: &a, weight: 1.0 }], 0).is_empty());
}

#[test]
fn dbsf_normalises_scores_per_lane() {
    let a = lane(Lane::Lexical, &[X, Y, Z]);
    let b = lane(Lane::Vector, &[Z, Y, X]);
    let fused =
        fuse(FusionMethod::Dbsf, &[WeightedLane { hits: &a, weight: 1.0 }, WeightedLane { hits: &b, weight: 1.0 }], 3);
    // Symmetric lists: every item sums to 1.0, so the tie-break decides (best rank, then id).
    assert!(fused.iter().all(|h| (h.score - 1.0).abs() < 1e-9), "{fused:?}");
    assert_eq!(fused.iter().map(|h| h.key).collect::<Vec<_>>(), vec![X, Z, Y]);
}

const LANES: [Lane; 5] = Lane::ALL;

fn lanes_strategy() -> impl Strategy<Value = Vec<(Vec<u8>, u8)>> {
    // Up to four lanes of up to 40 ids drawn from a small alphabet (so lists overlap
    // and repeat), each with a weight in 1..=3.
    prop::collection::vec((prop::collection::vec(0u8..60, 0..40), 1u8..=3), 0..=4)
}

fn build(spec: &[(Vec<u8>, u8)]) -> Vec<(LaneHits, f64)> {
    spec.iter()
        .enumerate()
        .map(|(i, (ids, w))| {
            let keys: Vec<PassageNo> = ids.iter().map(|n| PassageNo(u32::from(*n))).collect();
            (lane(LANES[i], &keys), f64::from(*w))
        })
        .collect()
}

fn weighted(lanes: &[(LaneHits, f64)]) -> Vec<WeightedLane<'_>> {
    lanes.iter().map(|(hits, weight)| WeightedLane { hits, weight: *weight }).collect()
}

proptest! {
    #[test]
    fn equals_the_naive_reference(spec in lanes_strategy(), k in 0usize..80) {
        let lanes = build(&spec);
        let w = weighted(&lanes);
        prop_assert_eq!(rrf(&w, k), naive::rrf(60.0, &w, k));
    }

    #[test]
    fn independent_of_lane_order(spec in lanes_strategy(), k in 1usize..80, seed in any::<u64>()) {
        let lanes = build(&spec);
        let mut w = weighted(&lanes);
        let before = rrf(&w, k);
        // A deterministic shuffle from the seed.
        let n = w.len();
        for i in (1..n).rev() {
            let j = (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64) % (i as u64 + 1)) as usize;
            w.swap(i, j);
        }
        let mut after = rrf(&w, k);
        // component_ranks are listed in the caller's lane order; compare them as sets.
        let mut before = before;
        for h in before.iter_mut().chain(after.iter_mut()) {
            h.component_ranks.sort();
            h.contributions.sort_by_key(|(lane, _)| *lane);
        }
        prop_assert_eq!(before, after);
    }

    #[test]
    fn improving_a_rank_never_lowers_fused_position(spec in lanes_strategy(), lane_pick in 0usize..4, pos_pick in 0usize..40) {
        let lanes = build(&spec);
        prop_assume!(!lanes.is_empty());
        let lane_index = lane_pick % lanes.len();
        let list = &lanes[lane_index].0.hits;
        prop_assume!(list.len() >= 2);
        let pos = 1 + pos_pick % (list.len() - 1);
        let target = list[pos].key;
        // Only meaningful for the first occurrence of the key in that lane.
        prop_assume!(list.iter().position(|h| h.key == target) == Some(pos));
        let position_of = |lanes: &[(LaneHits, f64)]| {
            rrf(&weighted(lanes), usize::MAX).iter().position(|h| h.key == target)
        };
        let before = position_of(&lanes);
        let mut improved = lanes.clone();
        improved[lane_index].0.hits.swap(pos - 1, pos);
        let after = position_of(&improved);
        prop_assert!(after <= before, "moved from {:?} to {:?}", before, after);
    }
}

proptest! {
    #[test]
    fn descending_keys_order_as_total_cmp_reversed(a in any::<f64>(), b in any::<f64>()) {
        prop_assert_eq!(descending(a).cmp(&descending(b)), b.total_cmp(&a));
    }
}

#[test]
fn descending_keys_order_the_extremes() {
    let values = [f64::NEG_INFINITY, -1.0, -0.0, 0.0, 1e-300, 1.0, f64::INFINITY];
    for pair in values.windows(2) {
        assert!(descending(pair[0]) > descending(pair[1]), "{pair:?}");
    }
}

proptest! {
    // Deeper lanes over the whole `u32` range (with a small pool so they still
    // overlap): tables of every size, probes past collisions and across the
    // table's end, the extreme ordinals.
    #[test]
    fn equals_the_naive_reference_on_wide_keys(
        spec in prop::collection::vec(
            (prop::collection::vec(prop_oneof![0u32..50, Just(u32::MAX), any::<u32>()], 0..300), 1u8..=3),
            0..=5,
        ),
        k in 0usize..120,
    ) {
        let lanes: Vec<(LaneHits, f64)> = spec
            .iter()
            .enumerate()
            .map(|(i, (ids, w))| {
                let keys: Vec<PassageNo> = ids.iter().map(|n| PassageNo(*n)).collect();
                (lane(LANES[i], &keys), f64::from(*w))
            })
            .collect();
        let w = weighted(&lanes);
        prop_assert_eq!(rrf(&w, k), naive::rrf(60.0, &w, k));
    }
}
