//! What a query asks, analysed once per call: its quoted phrases and free
//! text, the spellings the corpus holds of free-text words it lacks, and each
//! content word with its terms under every analyzer and how many passages hold
//! it. The lanes, coverage and the verdict read this; nothing after the search
//! parses or analyses the query again.

use crate::lane::{KnownTerms, ParsedQuery, SpellingVariant, parse_query};
use crate::lexical::{ANALYZERS, AnalysedQuery, analyse_passage, analyzer_name, analyzer_names, word_terms};
use crate::query_words::content_words;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryTerms {
    /// Phrases, free text, and the spelling variants the lexical lanes search.
    pub(crate) parsed: ParsedQuery,
    /// All of it under every analyzer (the lexical lanes and occurrences read this).
    pub(crate) analysed: AnalysedQuery,
    /// The content words of the whole query (phrases included), in order.
    pub(crate) words: Vec<QueryWord>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryWord {
    pub(crate) word: String,
    /// Per analyzer (`lexical::analyzer_names` order): the terms it makes of
    /// the word alone, sorted; empty when it drops the word (a stop word).
    analysed: [Vec<String>; ANALYZERS],
    /// Per analyzer: the index terms of the word's spelling variants there.
    respelled: [Vec<String>; ANALYZERS],
    /// Passages holding the word or one of its spellings (the most of any).
    pub(crate) passages: u64,
}

impl QueryTerms {
    /// Analyses `query`. `variants` finds the spellings the corpus holds of the
    /// free text's content words it lacks; `passages_with` counts the passages
    /// holding a word.
    pub(crate) fn new(
        query: &str,
        variants: impl FnOnce(&[String]) -> Vec<SpellingVariant>,
        passages_with: impl Fn(&str) -> u64,
    ) -> Self {
        let mut parsed = parse_query(query);
        parsed.variants = variants(&content_words(&parsed.free_text));
        let words = content_words(query)
            .into_iter()
            .map(|word| QueryWord::new(word, &parsed.variants, &passages_with))
            .collect();
        Self { analysed: AnalysedQuery::new(&parsed), parsed, words }
    }

    /// The content words' spellings searched with them.
    pub(crate) fn variants(&self) -> &[SpellingVariant] {
        &self.parsed.variants
    }
}

impl QueryWord {
    fn new(word: String, variants: &[SpellingVariant], passages_with: &impl Fn(&str) -> u64) -> Self {
        let names = analyzer_names();
        let analysed = names.map(|name| word_terms(name, &word));
        let respelled = names.map(|name| {
            variants.iter().filter(|v| v.asked == word && v.analyzer == name).map(|v| v.term.clone()).collect()
        });
        let spelled = variants.iter().filter(|v| v.asked == word).map(|v| v.passages);
        let passages = spelled.fold(passages_with(&word), u64::max);
        Self { word, analysed, respelled, passages }
    }

    /// Whether the analyzer of `language` drops the word.
    pub(crate) fn dropped_in(&self, language: &str) -> bool {
        self.analysed[slot(language)].is_empty()
    }

    /// The index terms that stand for the word in a passage of `language`:
    /// its own terms under that language's analyzer and its spellings there.
    pub(crate) fn terms_in(&self, language: &str) -> impl Iterator<Item = &str> {
        let slot = slot(language);
        self.analysed[slot].iter().chain(&self.respelled[slot]).map(String::as_str)
    }
}

/// Every term a passage holds under its language's analyzer: what coverage
/// reads of an item the search did not return (or not for these terms).
pub(crate) fn passage_terms(text: &str, language: &str) -> KnownTerms {
    KnownTerms::All(analyse_passage(text, language, &[]).1)
}

fn slot(language: &str) -> usize {
    crate::lexical::analyzer_slot(analyzer_name(language))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(asked: &str, term: &str, passages: u64) -> SpellingVariant {
        SpellingVariant { asked: asked.into(), found: term.into(), analyzer: "en", term: term.into(), passages }
    }

    #[test]
    fn each_content_word_is_analysed_once_per_analyzer_with_its_spellings() {
        let terms = QueryTerms::new(
            "What is \"natural selection\"? colour",
            |words| {
                assert_eq!(words, ["colour"], "only free-text words are respelled");
                vec![variant("colour", "color", 7)]
            },
            |word| if word == "natural" { 40 } else { 0 },
        );
        assert_eq!(terms.parsed.phrases, ["natural selection"]);
        let words: Vec<&str> = terms.words.iter().map(|w| w.word.as_str()).collect();
        assert_eq!(words, ["natural", "selection", "colour"]);
        let colour = &terms.words[2];
        assert_eq!(colour.terms_in("en").collect::<Vec<_>>(), ["colour", "color"]);
        assert_eq!(colour.terms_in("de").collect::<Vec<_>>(), ["colour"], "a spelling counts under its analyzer only");
        assert_eq!(colour.passages, 7, "a word absent but respelled counts at its spelling's passages");
        assert_eq!(terms.words[0].passages, 40);
        assert_eq!(terms.words[1].terms_in("en-GB").collect::<Vec<_>>(), ["select"]);
    }

    #[test]
    fn a_stop_word_of_one_analyzer_is_dropped_there_only() {
        let terms = QueryTerms::new("die Katze", |_| Vec::new(), |_| 0);
        let die = terms.words.iter().find(|w| w.word == "die").map(|w| (w.dropped_in("de"), w.dropped_in("en")));
        assert_eq!(die, Some((true, false)));
    }
}
