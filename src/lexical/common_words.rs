//! Common-word pairs (what Lucene's `CommonGramsFilter` does): a phrase of
//! two common words is a conjunction of two long posting lists whose every
//! common document has its positions read (hundreds of milliseconds at a
//! million passages). So each pair of adjacent common words in a passage is
//! also indexed as one term of the analyzer's pair field, and a phrase made
//! only of common words reads the pairs' short lists instead (`pair_phrase`).
//!
//! Which words are common is decided at build time from a bounded sample and
//! stored in the passage index's commit payload, so the writer and every
//! reader agree; an index without it (built before) searches positionally.

use std::collections::{BTreeSet, HashMap};
use tantivy::tokenizer::{PreTokenizedString, Token};

use super::analyzers::{ANALYZERS, analyzer_names, analyzer_slot};
use super::query::analyze;

/// Passages whose words decide what is common (the corpus's first ones, each
/// counted under its analyzer): enough for a Zipfian head to settle, bounded
/// so the choice costs the same at any corpus size and the build, which holds
/// these passages until the choice is made, holds no more.
pub(crate) const SAMPLE_PASSAGES: usize = 50_000;
/// A word is common when at least this share of the sampled passages holds it…
const COMMON_SHARE: f64 = 0.01;
/// …and it is among this many commonest of its analyzer. A phrase with one
/// word outside them is led by that word's list, which is then short enough.
const MAX_COMMON: usize = 256;
/// The payload's format, so a later change is refused rather than misread.
const FORMAT: u32 = 1;

/// Document frequencies of the sampled passages, per analyzer.
#[derive(Default)]
pub(crate) struct Sample {
    total: usize,
    passages: [usize; ANALYZERS],
    counts: [HashMap<String, u32>; ANALYZERS],
}

impl Sample {
    /// Counts one passage's distinct terms, while the sample is not full.
    pub(crate) fn add(&mut self, analyzer: &str, text: &str) {
        if self.is_full() {
            return;
        }
        let slot = analyzer_slot(analyzer);
        self.total += 1;
        self.passages[slot] += 1;
        let terms: BTreeSet<String> = analyze(analyzer, text).into_iter().map(|(_, t)| t).collect();
        for term in terms {
            *self.counts[slot].entry(term).or_default() += 1;
        }
    }

    /// Whether `SAMPLE_PASSAGES` passages are counted.
    pub(crate) fn is_full(&self) -> bool {
        self.total >= SAMPLE_PASSAGES
    }
}

/// The common words of each analyzer (sorted), and so which word pairs the
/// passage index's pair fields hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CommonWords {
    under: [Vec<String>; ANALYZERS],
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Payload {
    common_words_format: u32,
    common_words: std::collections::BTreeMap<String, Vec<String>>,
}

impl CommonWords {
    /// The sample's commonest terms per analyzer: at least `COMMON_SHARE` of
    /// its passages, at most `MAX_COMMON`, ties broken by the term.
    pub(crate) fn choose(sample: &Sample) -> Self {
        let mut under: [Vec<String>; ANALYZERS] = Default::default();
        for (slot, chosen) in under.iter_mut().enumerate() {
            let least = (sample.passages[slot] as f64 * COMMON_SHARE).ceil().max(1.0) as u32;
            let mut ranked: Vec<(&String, u32)> =
                sample.counts[slot].iter().filter(|(_, n)| **n >= least).map(|(t, n)| (t, *n)).collect();
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            *chosen = ranked.into_iter().take(MAX_COMMON).map(|(t, _)| t.clone()).collect();
            chosen.sort();
        }
        Self { under }
    }

    /// The index's commit payload.
    pub(crate) fn payload(&self) -> String {
        let common_words = analyzer_names()
            .iter()
            .zip(&self.under)
            .filter(|(_, words)| !words.is_empty())
            .map(|(name, words)| ((*name).to_owned(), words.clone()))
            .collect();
        let payload = Payload { common_words_format: FORMAT, common_words };
        serde_json::to_string(&payload).unwrap_or_default()
    }

    /// The words a passage index's payload names; none without a payload (an
    /// index built before pairs). An error says what is wrong with it.
    pub(crate) fn from_payload(payload: Option<&str>) -> Result<Self, String> {
        let Some(payload) = payload else { return Ok(Self::default()) };
        let parsed: Payload =
            serde_json::from_str(payload).map_err(|e| format!("its common-word list is unreadable ({e})"))?;
        if parsed.common_words_format != FORMAT {
            return Err(format!("its common-word list has format {}", parsed.common_words_format));
        }
        let mut under: [Vec<String>; ANALYZERS] = Default::default();
        for (name, mut words) in parsed.common_words {
            let Some(slot) = analyzer_names().iter().position(|n| *n == name) else {
                return Err(format!("its common-word list names an unknown analyzer {name:?}"));
            };
            words.sort();
            under[slot] = words;
        }
        Ok(Self { under })
    }

    fn is_common(&self, analyzer: &str, term: &str) -> bool {
        self.under[analyzer_slot(analyzer)].binary_search_by(|w| w.as_str().cmp(term)).is_ok()
    }

    fn has_any(&self, analyzer: &str) -> bool {
        !self.under[analyzer_slot(analyzer)].is_empty()
    }

    /// The pair field's tokens for a passage's text: one per two adjacent
    /// common words (nothing removed between them), at the first one's position.
    pub(crate) fn pair_tokens(&self, analyzer: &str, text: &str) -> Option<PreTokenizedString> {
        if !self.has_any(analyzer) {
            return None;
        }
        let tokens = analyze(analyzer, text);
        let pairs: Vec<Token> = tokens
            .windows(2)
            .filter(|w| self.adjacent_common(analyzer, &w[0], &w[1]))
            .map(|w| Token { position: w[0].0, text: pair_term(&w[0].1, &w[1].1), ..Token::default() })
            .collect();
        (!pairs.is_empty()).then(|| PreTokenizedString { text: String::new(), tokens: pairs })
    }

    fn adjacent_common(&self, analyzer: &str, first: &(usize, String), second: &(usize, String)) -> bool {
        second.0 == first.0 + 1 && self.is_common(analyzer, &first.1) && self.is_common(analyzer, &second.1)
    }

    /// The pair terms that stand for an analysed phrase, in order (each one
    /// position after the last), when every word is common and adjacent to
    /// the next: then the pairs match exactly where the phrase does, as often.
    pub(crate) fn phrase_pairs(&self, analyzer: &str, tokens: &[(usize, String)]) -> Option<Vec<String>> {
        if tokens.len() < 2 || !tokens.windows(2).all(|w| self.adjacent_common(analyzer, &w[0], &w[1])) {
            return None;
        }
        Some(tokens.windows(2).map(|w| pair_term(&w[0].1, &w[1].1)).collect())
    }
}

/// Two terms as one pair term. The analyzers' terms never hold a space
/// (their tokenizer splits on it), so a pair cannot collide with a word.
fn pair_term(first: &str, second: &str) -> String {
    format!("{first} {second}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> CommonWords {
        let mut under: [Vec<String>; ANALYZERS] = Default::default();
        under[analyzer_slot("en")] = list.iter().map(|w| (*w).to_owned()).collect();
        under[analyzer_slot("en")].sort();
        CommonWords { under }
    }

    #[test]
    fn the_commonest_terms_of_the_sample_are_chosen_with_ties_by_term() {
        let mut sample = Sample::default();
        for _ in 0..60 {
            sample.add("en", "gardens grow");
        }
        for _ in 0..40 {
            sample.add("en", "trees grow");
        }
        sample.add("en", "a lone orchid");
        let chosen = CommonWords::choose(&sample);
        // 101 passages: 1 % is 2 passages, so the lone orchid is not common.
        assert_eq!(chosen.under[analyzer_slot("en")], ["garden", "grow", "tree"]);
        assert!(chosen.under[analyzer_slot("de")].is_empty());
    }

    #[test]
    fn the_sample_is_the_corpus_first_passages_whatever_their_analyzer() {
        let mut sample = Sample::default();
        for _ in 0..SAMPLE_PASSAGES - 1 {
            sample.add("en", "gardens grow");
        }
        assert!(!sample.is_full());
        sample.add("de", "Gärten wachsen");
        assert!(sample.is_full());
        sample.add("de", "Bäume wachsen");
        assert_eq!(sample.passages[analyzer_slot("de")], 1, "a passage after the sample is full is not counted");
        let chosen = CommonWords::choose(&sample);
        assert_eq!(chosen.under[analyzer_slot("en")], ["garden", "grow"]);
        assert_eq!(chosen.under[analyzer_slot("de")].len(), 2, "{:?}", chosen.under[analyzer_slot("de")]);
    }

    #[test]
    fn at_most_the_cap_is_chosen_most_passages_first() {
        let mut sample = Sample::default();
        // 300 passages; word n is in n + 1 of them (passages 0..=n).
        for passage in 0..300 {
            let text: Vec<String> = (passage..MAX_COMMON + 10).map(|n| format!("w{n:04}")).collect();
            sample.add("plain", &text.join(" "));
        }
        let chosen = &CommonWords::choose(&sample).under[analyzer_slot("plain")];
        assert_eq!(chosen.len(), MAX_COMMON);
        assert_eq!(
            chosen.first().map(String::as_str),
            Some("w0010"),
            "the ten rarest are left out (two of them below 1 %)"
        );
    }

    #[test]
    fn pairs_are_adjacent_common_words_at_the_first_ones_position() {
        let common = words(&["natur", "select", "speci"]);
        let tokens = common.pair_tokens("en", "natural selection of species natural selection species");
        let got: Vec<(usize, String)> =
            tokens.map(|p| p.tokens.into_iter().map(|t| (t.position, t.text)).collect()).unwrap_or_default();
        // "selection of species" has a stop word between: no pair.
        let expected = [(0, "natur select"), (3, "speci natur"), (4, "natur select"), (5, "select speci")];
        assert_eq!(got, expected.map(|(p, t)| (p, t.to_owned())));
        assert!(common.pair_tokens("de", "natürliche Zuchtwahl").is_none(), "no common German words");
    }

    #[test]
    fn a_phrase_is_pairs_only_when_every_word_is_common_and_adjacent() {
        let common = words(&["natur", "select", "speci"]);
        let phrase = |text: &str| common.phrase_pairs("en", &analyze("en", text));
        assert_eq!(phrase("natural selection species"), Some(vec!["natur select".into(), "select speci".into()]));
        assert_eq!(phrase("selection of species"), None, "a removed stop word leaves a gap");
        assert_eq!(phrase("natural variation"), None, "variation is not common");
        assert_eq!(phrase("natural"), None, "one word is no phrase");
    }

    #[test]
    fn the_payload_round_trips_and_a_bad_one_is_refused() {
        let common = words(&["grow", "garden"]);
        let payload = common.payload();
        assert_eq!(payload, r#"{"common_words_format":1,"common_words":{"en":["garden","grow"]}}"#);
        assert_eq!(CommonWords::from_payload(Some(&payload)), Ok(common));
        assert_eq!(CommonWords::from_payload(None), Ok(CommonWords::default()));
        let later = r#"{"common_words_format":2,"common_words":{}}"#;
        assert_eq!(CommonWords::from_payload(Some(later)), Err("its common-word list has format 2".into()));
        let unknown = r#"{"common_words_format":1,"common_words":{"xx":["a"]}}"#;
        assert_eq!(
            CommonWords::from_payload(Some(unknown)),
            Err(r#"its common-word list names an unknown analyzer "xx""#.into())
        );
        assert!(CommonWords::from_payload(Some("not json")).is_err());
    }
}
