//! Pseudo-relevance feedback (RM3, Lavrenko and Croft's relevance model
//! interpolated with the query): the words that the documents ranking best
//! for a query use most are added to it, so that a document saying the same
//! thing in other words is found. Pure: term counts in, weighted terms out.
//!
//! Why documents, not passages: measured on SciFact and Cranfield, feedback
//! from and scoring over whole documents helped both, while the same over
//! passages lost on SciFact (benches/README.md, "The feedback lane").

use std::collections::BTreeMap;

/// Documents read for feedback: the best of the query's first ranking.
pub(crate) const FEEDBACK_DOCUMENTS: usize = 10;
/// Words the feedback adds (RM3's usual 10–20; the more found here, the better on both collections).
pub(crate) const FEEDBACK_TERMS: usize = 20;
/// The query's own share of the expanded query's weight (RM3's usual λ).
pub(crate) const ORIGINAL_WEIGHT: f64 = 0.5;

/// One document's analysed term counts, as the document index stores them:
/// `term\tcount` lines in term order (a term never holds a tab or a line
/// break: the analyzers split on both).
pub(crate) fn encode_counts(counts: &BTreeMap<String, u32>) -> String {
    let mut out = String::new();
    for (term, count) in counts {
        out.push_str(term);
        out.push('\t');
        out.push_str(&count.to_string());
        out.push('\n');
    }
    out
}

/// The counts of `encode_counts`' text; malformed lines are skipped (a
/// generation is written by this code, so there are none).
pub(crate) fn decode_counts(text: &str) -> Vec<(&str, u32)> {
    text.lines()
        .filter_map(|line| {
            let (term, count) = line.split_once('\t')?;
            Some((term, count.parse().ok()?))
        })
        .collect()
}

/// A feedback document: its score for the query, its analyzer and its term counts.
pub(crate) struct FeedbackDocument<'a> {
    pub(crate) score: f32,
    pub(crate) analyzer: &'static str,
    pub(crate) counts: Vec<(&'a str, u32)>,
}

/// The expanded query: `(analyzer, term, weight)`, weights summing to 1 —
/// `ORIGINAL_WEIGHT` spread over the query's terms by their counts, the rest
/// over the `FEEDBACK_TERMS` words of highest relevance-model weight
/// P(w | R) = Σ_d P(d | q) · c(w, d) / |d|, with P(d | q) ∝ exp(score_d) (the
/// scores are log-scale). Sorted by analyzer and term; ties in weight are
/// broken by analyzer and term, so the same documents give the same terms.
pub(crate) fn expand(
    query_terms: &[(&'static str, String)],
    documents: &[FeedbackDocument<'_>],
) -> Vec<(&'static str, String, f32)> {
    let mut weights: BTreeMap<(&'static str, String), f64> = BTreeMap::new();
    if !query_terms.is_empty() {
        let share = ORIGINAL_WEIGHT / query_terms.len() as f64;
        for (analyzer, term) in query_terms {
            *weights.entry((analyzer, term.clone())).or_default() += share;
        }
    }
    let best = documents.iter().map(|d| f64::from(d.score)).fold(f64::NEG_INFINITY, f64::max);
    let mut relevance: BTreeMap<(&'static str, &str), f64> = BTreeMap::new();
    for document in documents {
        let length: u32 = document.counts.iter().map(|(_, c)| c).sum();
        if length == 0 {
            continue;
        }
        let prior = (f64::from(document.score) - best).exp();
        for (term, count) in &document.counts {
            *relevance.entry((document.analyzer, term)).or_default() += prior * f64::from(*count) / f64::from(length);
        }
    }
    let mut ranked: Vec<((&'static str, &str), f64)> = relevance.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(FEEDBACK_TERMS);
    let total: f64 = ranked.iter().map(|(_, w)| w).sum();
    let feedback_share = if query_terms.is_empty() { 1.0 } else { 1.0 - ORIGINAL_WEIGHT };
    if total > 0.0 {
        for ((analyzer, term), w) in ranked {
            *weights.entry((analyzer, term.to_owned())).or_default() += feedback_share * w / total;
        }
    }
    weights.into_iter().map(|((analyzer, term), w)| (analyzer, term, w as f32)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document<'a>(score: f32, counts: &[(&'a str, u32)]) -> FeedbackDocument<'a> {
        FeedbackDocument { score, analyzer: "en", counts: counts.to_vec() }
    }

    #[test]
    fn counts_round_trip() {
        let counts: BTreeMap<String, u32> = [("finch".to_owned(), 3), ("beak".to_owned(), 1)].into();
        assert_eq!(decode_counts(&encode_counts(&counts)), [("beak", 1), ("finch", 3)]);
        assert_eq!(decode_counts("x\t2\nbroken\ny\tnot a number\n"), [("x", 2)]);
    }

    #[test]
    fn the_query_keeps_half_the_weight_and_the_best_document_leads_the_rest() {
        let query = [("en", "finch".to_owned())];
        // The second document scores 2 lower: its words weigh e^-2 as much.
        let documents = [document(5.0, &[("finch", 2), ("beak", 2)]), document(3.0, &[("finch", 1), ("island", 1)])];
        let expanded = expand(&query, &documents);
        let weight = |t: &str| expanded.iter().find(|(_, term, _)| term == t).map(|(_, _, w)| f64::from(*w));
        let sum: f64 = expanded.iter().map(|(_, _, w)| f64::from(*w)).sum();
        assert!((sum - 1.0).abs() < 1e-6, "{expanded:?}");
        let prior = (-2.0f64).exp();
        let relevance = |own: f64, other: f64| own * 0.5 + other * 0.5 * prior;
        let total = relevance(1.0, 1.0) + 0.5 + 0.5 * prior;
        let finch = 0.5 + 0.5 * relevance(1.0, 1.0) / total;
        assert!((weight("finch").unwrap() - finch).abs() < 1e-6, "{expanded:?}");
        assert!((weight("beak").unwrap() - 0.5 * 0.5 / total).abs() < 1e-6);
        assert!(weight("beak") > weight("island"));
    }

    #[test]
    fn at_most_the_feedback_terms_are_added_ties_by_term() {
        let counts: Vec<(String, u32)> = (0..FEEDBACK_TERMS + 5).map(|i| (format!("w{i:02}"), 1)).collect();
        let counts: Vec<(&str, u32)> = counts.iter().map(|(t, c)| (t.as_str(), *c)).collect();
        let expanded = expand(&[], &[document(1.0, &counts)]);
        assert_eq!(expanded.len(), FEEDBACK_TERMS);
        assert_eq!(expanded.last().map(|(_, t, _)| t.as_str()), Some("w19"), "equal weights keep the first terms");
        assert!(expand(&[], &[]).is_empty());
    }
}
