//! The ranked lexical lane as sparse vectors (`[lexical] backend = "qdrant"`):
//! evident's own analyzers (same stemming, same stop words as the tantivy
//! lane) turn each passage into BM25 term weights stored beside its dense
//! vector, and a query into its terms' counts; the store's IDF modifier
//! supplies the inverse document frequency, so a point's score is BM25's.
//!
//! What a sparse vector cannot carry: positions (no phrases, no proximity
//! bonus) and a per-language collection size (IDF counts every passage).
//! Phrases stay with the exact lane, highlights and occurrences with the
//! passage text, both read from the generation as with the tantivy lane.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

use super::analyzers::analyzer_name;
use super::query::{AnalysedQuery, TITLE_BOOST, analyze};
use crate::vector::SparseVector;

/// BM25's term-frequency saturation and length normalisation, tantivy's values.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// The build's first passages set the average lengths BM25 normalises by: a
/// streaming build writes each passage before it has read the whole corpus,
/// so the mean of the first ones in corpus order stands for the corpus's (and
/// is the corpus's own in a corpus this small or smaller).
pub(crate) const SAMPLE_PASSAGES: usize = 2_000;

/// A term's dimension: the first 32 bits of SHA-256 of analyzer and term, so
/// the same term gets the same dimension in every build and on every node
/// with no vocabulary to share; a German stem never meets an English one. Two
/// terms can collide (n distinct terms hold about n² / 8.6 × 10⁹ colliding
/// pairs: one at 93,000 terms); such terms then share statistics, as two
/// spellings of one word would.
pub(crate) fn dimension(analyzer: &str, term: &str) -> u32 {
    let mut hasher = Sha256::new();
    hasher.update(analyzer.as_bytes());
    hasher.update([0]);
    hasher.update(term.as_bytes());
    let digest = hasher.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// Term counts by dimension and the number of terms of one field.
#[derive(Debug, Clone, Default, PartialEq)]
struct FieldTerms {
    counts: BTreeMap<u32, u32>,
    length: u32,
}

impl FieldTerms {
    fn of(analyzer: &str, text: &str) -> Self {
        let mut field = Self::default();
        for (_, term) in analyze(analyzer, text) {
            *field.counts.entry(dimension(analyzer, &term)).or_default() += 1;
            field.length += 1;
        }
        field
    }
}

/// A passage's text and its document's title, analysed under the passage's language.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PassageTerms {
    text: FieldTerms,
    title: FieldTerms,
}

impl PassageTerms {
    pub(crate) fn new(text: &str, title: Option<&str>, language: &str) -> Self {
        let analyzer = analyzer_name(language);
        Self {
            text: FieldTerms::of(analyzer, text),
            title: title.map(|t| FieldTerms::of(analyzer, t)).unwrap_or_default(),
        }
    }
}

/// What a generation records of its sparse vectors: the weighting, so a
/// reader knows what the store's scores mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct SparseManifest {
    pub(crate) k1: f32,
    pub(crate) b: f32,
    pub(crate) title_weight: f32,
    pub(crate) average_text_terms: f32,
    pub(crate) average_title_terms: f32,
    /// Passages the averages were taken over.
    pub(crate) sample: usize,
}

fn saturated(count: u32, length: u32, average: f32) -> f32 {
    let tf = count as f32;
    let norm = if average > 0.0 { 1.0 - B + B * length as f32 / average } else { 1.0 };
    tf * (K1 + 1.0) / (tf + K1 * norm)
}

impl SparseManifest {
    /// From (text, title) lengths in terms; a zero title length is a passage without one.
    fn from_lengths(lengths: &[(u32, u32)]) -> Self {
        let mean = |values: &mut dyn Iterator<Item = u32>| {
            let (sum, n) = values.fold((0u64, 0u64), |(s, n), l| (s + u64::from(l), n + 1));
            if n == 0 { 0.0 } else { sum as f32 / n as f32 }
        };
        Self {
            k1: K1,
            b: B,
            title_weight: TITLE_BOOST,
            average_text_terms: mean(&mut lengths.iter().map(|(text, _)| *text)),
            // Over passages with a title: one without has no title field to normalise.
            average_title_terms: mean(&mut lengths.iter().map(|(_, title)| *title).filter(|l| *l > 0)),
            sample: lengths.len(),
        }
    }

    /// BM25's term weights of a passage (text, plus the title's at `title_weight`).
    fn weigh(&self, terms: &PassageTerms) -> SparseVector {
        let mut weights: BTreeMap<u32, f32> = BTreeMap::new();
        for (dim, count) in &terms.text.counts {
            *weights.entry(*dim).or_default() += saturated(*count, terms.text.length, self.average_text_terms);
        }
        for (dim, count) in &terms.title.counts {
            *weights.entry(*dim).or_default() +=
                self.title_weight * saturated(*count, terms.title.length, self.average_title_terms);
        }
        let (indices, values) = weights.into_iter().unzip();
        SparseVector { indices, values }
    }
}

/// Weighs a build's passages: the first `SAMPLE_PASSAGES` observed in
/// corpus order fix the average lengths (so a rebuild that reuses some
/// sources' vectors, and so writes in another order, weighs alike); until then
/// the items pushed (whatever they are paired with, `P`) are held.
pub(crate) struct Weigher<P> {
    lengths: Vec<(u32, u32)>,
    manifest: Option<SparseManifest>,
    held: Vec<(P, PassageTerms)>,
}

impl<P> Default for Weigher<P> {
    fn default() -> Self {
        Self { lengths: Vec::new(), manifest: None, held: Vec::new() }
    }
}

impl<P> Weigher<P> {
    /// Counts a passage's lengths towards the averages; call in corpus order.
    pub(crate) fn observe(&mut self, terms: &PassageTerms) {
        if self.manifest.is_some() {
            return;
        }
        self.lengths.push((terms.text.length, terms.title.length));
        if self.lengths.len() >= SAMPLE_PASSAGES {
            self.manifest = Some(SparseManifest::from_lengths(&std::mem::take(&mut self.lengths)));
        }
    }

    /// The items ready to write: none while the averages are not fixed, then
    /// everything held so far with this one.
    pub(crate) fn push(&mut self, item: P, terms: PassageTerms) -> Vec<(P, SparseVector)> {
        self.held.push((item, terms));
        match self.manifest {
            Some(manifest) => self.held.drain(..).map(|(item, terms)| (item, manifest.weigh(&terms))).collect(),
            None => Vec::new(),
        }
    }

    /// Whatever is still held (a corpus smaller than the sample), and the weighting used.
    pub(crate) fn finish(self) -> (Vec<(P, SparseVector)>, SparseManifest) {
        let manifest = self.manifest.unwrap_or_else(|| SparseManifest::from_lengths(&self.lengths));
        let rest = self.held.into_iter().map(|(item, terms)| (item, manifest.weigh(&terms))).collect();
        (rest, manifest)
    }
}

/// A query's sparse vector under the analyzers it is searched in: each term's
/// count (free text, phrases' words and spelling variants, as the tantivy lane
/// searches them), so a repeated word counts as often as it is repeated.
pub(crate) fn query_vector(query: &AnalysedQuery, languages: &[&'static str]) -> SparseVector {
    let mut counts: BTreeMap<u32, f32> = BTreeMap::new();
    for name in languages {
        for term in query.under(name).searched() {
            *counts.entry(dimension(name, term)).or_default() += 1.0;
        }
    }
    let (indices, values) = counts.into_iter().unzip();
    SparseVector { indices, values }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::parse_query;

    fn weight_of(vector: &SparseVector, analyzer: &str, term: &str) -> Option<f32> {
        let dim = dimension(analyzer, term);
        vector.indices.iter().position(|d| *d == dim).map(|i| vector.values[i])
    }

    fn manifest(average_text: f32, average_title: f32) -> SparseManifest {
        SparseManifest {
            k1: K1,
            b: B,
            title_weight: TITLE_BOOST,
            average_text_terms: average_text,
            average_title_terms: average_title,
            sample: 1,
        }
    }

    #[test]
    fn dimensions_are_stable_and_separate_analyzers() {
        assert_eq!(dimension("en", "select"), dimension("en", "select"));
        assert_ne!(dimension("en", "select"), dimension("de", "select"));
        assert_ne!(dimension("en", "select"), dimension("en", "selector"));
        // Pinned: changing the scheme would orphan every stored sparse vector.
        let digest = Sha256::digest(b"en\0select");
        assert_eq!(dimension("en", "select"), u32::from_be_bytes(digest[..4].try_into().unwrap()));
    }

    #[test]
    fn weights_are_bm25s_saturated_and_length_normalised_with_the_title_at_its_boost() {
        let m = manifest(4.0, 2.0);
        // "selection" stems to "select"; stop words are dropped as in the tantivy lane.
        let once = m.weigh(&PassageTerms::new("the selection of breeds", None, "en"));
        let twice = m.weigh(&PassageTerms::new("selection and selection of breeds", None, "en"));
        let one = weight_of(&once, "en", "select").unwrap();
        assert!((one - 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 2.0 / 4.0))).abs() < 1e-6, "{one}");
        let two = weight_of(&twice, "en", "select").unwrap();
        assert!(two > one && two < 2.0 * one, "saturates: {one} {two}");
        assert_eq!(weight_of(&once, "en", "the"), None);
        let long = m.weigh(&PassageTerms::new("selection of breeds by pigeon fanciers in England", None, "en"));
        assert!(weight_of(&long, "en", "select").unwrap() < one, "a longer passage weighs a term less");
        let titled = m.weigh(&PassageTerms::new("the selection of breeds", Some("Pigeons"), "en"));
        let title = weight_of(&titled, "en", "pigeon").unwrap();
        assert!((title - TITLE_BOOST * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 / 2.0))).abs() < 1e-6, "{title}");
        assert!(once.indices.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
        let german = m.weigh(&PassageTerms::new("die Auswahl der Rassen", None, "de"));
        assert!(weight_of(&german, "de", "auswahl").is_some() && weight_of(&german, "en", "auswahl").is_none());
    }

    #[test]
    fn the_weigher_fixes_the_averages_from_the_passages_observed_and_holds_until_then() {
        let text = |i: usize| if i.is_multiple_of(2) { "natural selection" } else { "natural selection acts slowly" };
        let mut weigher = Weigher::default();
        for i in 0..SAMPLE_PASSAGES - 1 {
            weigher.observe(&PassageTerms::new(text(i), None, "en"));
        }
        // Pushed before the averages are fixed: held.
        assert!(weigher.push("first", PassageTerms::new("natural selection", None, "en")).is_empty());
        weigher.observe(&PassageTerms::new(text(SAMPLE_PASSAGES - 1), None, "en"));
        // More observations change nothing once fixed.
        weigher.observe(&PassageTerms::new("a very long passage of many words indeed here", None, "en"));
        let written = weigher.push("second", PassageTerms::new("natural selection", None, "en"));
        assert_eq!(written.iter().map(|(item, _)| *item).collect::<Vec<_>>(), vec!["first", "second"]);
        assert_eq!(written[0].1, written[1].1, "the same text gets the same weights held or not");
        let (rest, manifest) = weigher.finish();
        assert!(rest.is_empty());
        // Half the passages have 2 terms ("natur", "select"), half 4.
        assert!((manifest.average_text_terms - 3.0).abs() < 1e-6, "{manifest:?}");
        assert_eq!(manifest.sample, SAMPLE_PASSAGES);

        let mut small = Weigher::default();
        let terms = PassageTerms::new("one passage only", Some("T"), "en");
        small.observe(&terms);
        assert!(small.push("a", terms).is_empty());
        let (rest, manifest) = small.finish();
        assert_eq!((rest.len(), manifest.sample), (1, 1));
        assert_eq!(manifest.average_title_terms, 1.0);
    }

    #[test]
    fn a_query_counts_its_terms_per_language_searched() {
        let parsed = parse_query("selection \"natural selection\" of pigeons");
        let analysed = AnalysedQuery::new(&parsed);
        let vector = query_vector(&analysed, &["en"]);
        assert_eq!(weight_of(&vector, "en", "select"), Some(2.0));
        assert_eq!(weight_of(&vector, "en", "natur"), Some(1.0));
        assert_eq!(weight_of(&vector, "en", "pigeon"), Some(1.0));
        assert_eq!(vector.indices.len(), 3, "the stop word is not searched");
        let both = query_vector(&analysed, &["en", "plain"]);
        assert_eq!(weight_of(&both, "plain", "selection"), Some(2.0));
    }
}
