//! Ranking metrics as trec_eval (and so pytrec_eval, ranx and BEIR) define them:
//! linear graded gains, log2 discount, ideal ranking from the judgements.

use std::collections::HashMap;

/// nDCG@k: Σ rel_i / log2(i + 1) over the first k retrieved, divided by the
/// same sum over the ideal ordering of all judged-relevant documents.
pub(crate) fn ndcg_at(ranking: &[String], judged: &HashMap<String, u32>, k: usize) -> f64 {
    let dcg: f64 = ranking
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, doc)| f64::from(judged.get(doc).copied().unwrap_or(0)) / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<u32> = judged.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal.iter().take(k).enumerate().map(|(i, &g)| f64::from(g) / (i as f64 + 2.0).log2()).sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

/// Recall@k: the share of judged-relevant documents among the first k retrieved.
pub(crate) fn recall_at(ranking: &[String], judged: &HashMap<String, u32>, k: usize) -> f64 {
    let relevant = judged.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranking.iter().take(k).filter(|d| judged.get(*d).is_some_and(|&g| g > 0)).count();
    found as f64 / relevant as f64
}

/// MRR@k: 1 / rank of the first relevant document within the first k, else 0.
pub(crate) fn mrr_at(ranking: &[String], judged: &HashMap<String, u32>, k: usize) -> f64 {
    ranking.iter().take(k).position(|d| judged.get(d).is_some_and(|&g| g > 0)).map_or(0.0, |i| 1.0 / (i as f64 + 1.0))
}

/// The value below which `p` percent of `values` fall (nearest rank).
pub(crate) fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranking(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    fn judged(pairs: &[(&str, u32)]) -> HashMap<String, u32> {
        pairs.iter().map(|(d, g)| ((*d).to_owned(), *g)).collect()
    }

    #[test]
    fn ndcg_by_hand() {
        // Retrieved: a (rel 3), b (0), c (2). Ideal: 3, 2, 1 (d is relevant but not retrieved).
        let r = ranking(&["a", "b", "c"]);
        let j = judged(&[("a", 3), ("c", 2), ("d", 1)]);
        let dcg = 3.0 / 2f64.log2() + 0.0 + 2.0 / 4f64.log2();
        let idcg = 3.0 / 2f64.log2() + 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert!((ndcg_at(&r, &j, 10) - dcg / idcg).abs() < 1e-12);
        // Cut at 1: only the first position counts, ideal too.
        assert!((ndcg_at(&r, &j, 1) - 1.0).abs() < 1e-12);
        assert_eq!(ndcg_at(&ranking(&["x"]), &j, 10), 0.0);
        assert_eq!(ndcg_at(&r, &HashMap::new(), 10), 0.0);
    }

    #[test]
    fn recall_and_mrr_by_hand() {
        let r = ranking(&["x", "a", "y", "c"]);
        let j = judged(&[("a", 1), ("c", 1), ("d", 1)]);
        assert!((recall_at(&r, &j, 100) - 2.0 / 3.0).abs() < 1e-12);
        assert!((recall_at(&r, &j, 2) - 1.0 / 3.0).abs() < 1e-12);
        assert!((mrr_at(&r, &j, 10) - 0.5).abs() < 1e-12);
        assert_eq!(mrr_at(&r, &j, 1), 0.0);
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
