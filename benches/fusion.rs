//! Fusion core against the naive reference (std HashMap + full sort), on the
//! shapes the routing policy produces: lanes rank passage numbers (`PassageNo`),
//! as in the search path.
//! Run: `cargo bench --bench fusion`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

use evident::fusion::{FusionMethod, WeightedLane, fuse, naive};
use evident::lane::{Lane, LaneHit, LaneHits};
use evident::passage::PassageNo;

const LANES: [Lane; 4] = [Lane::Lexical, Lane::Vector, Lane::Entity, Lane::Exact];

/// `lanes` lists of `depth` passage numbers drawn from a pool twice the depth and
/// spread over a corpus of a million passages, so lists overlap about half; a
/// fixed linear congruential sequence keeps inputs identical per run.
fn lists(lanes: usize, depth: usize) -> Vec<LaneHits> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..lanes)
        .map(|l| {
            let mut seen = std::collections::HashSet::new();
            let mut hits = Vec::with_capacity(depth);
            while hits.len() < depth {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let n = (state >> 33) % (depth as u64 * 2);
                if seen.insert(n) {
                    let rank = hits.len() as u32 + 1;
                    hits.push(LaneHit { key: PassageNo((n * 487 % 1_000_000) as u32), rank, score: 1.0 / rank as f32 });
                }
            }
            LaneHits { lane: LANES[l], hits }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fusion");
    for (lanes, depth, top_k) in [(2, 100, 10), (2, 1_000, 50), (4, 1_000, 50), (4, 10_000, 100)] {
        let input = lists(lanes, depth);
        let weighted: Vec<WeightedLane<'_>> = input.iter().map(|hits| WeightedLane { hits, weight: 1.0 }).collect();
        let label = format!("{lanes}x{depth}->top{top_k}");
        group.bench_with_input(BenchmarkId::new("rrf_core", &label), &weighted, |b, w| {
            b.iter(|| fuse(FusionMethod::Rrf { k: 60.0 }, black_box(w), top_k))
        });
        group.bench_with_input(BenchmarkId::new("rrf_naive", &label), &weighted, |b, w| {
            b.iter(|| naive::rrf(60.0, black_box(w), top_k))
        });
        group.bench_with_input(BenchmarkId::new("dbsf_core", &label), &weighted, |b, w| {
            b.iter(|| fuse(FusionMethod::Dbsf, black_box(w), top_k))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
