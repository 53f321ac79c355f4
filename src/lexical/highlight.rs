//! Byte ranges of the words in a passage that match the query's analyzed terms.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;
use tantivy::tokenizer::{SimpleTokenizer, TextAnalyzer, TokenStream, Tokenizer};

use super::analyzers::{ANALYZERS, analyzer, analyzer_name, analyzer_slot};

/// Words kept per analyzer and thread before the memo starts afresh.
const MEMO_WORDS: usize = 100_000;

thread_local! {
    /// Per analyzer, what it makes of a raw word alone: its term, or `None`
    /// when it drops the word (a stop word, too long). Every filter of the
    /// analyzers acts on one token at a time, so a word's analysis does not
    /// depend on its neighbours, and stemming each word once per thread spares
    /// the returned passages most of their analysis (prose repeats its words).
    static ANALYSED: RefCell<[Memo; ANALYZERS]> = RefCell::default();
}

/// Raw word → its term (`None`: dropped). Terms are shared (`Arc`), so a
/// passage's token set only counts references.
type Memo = FxHashMap<Box<str>, Option<Arc<str>>>;

pub(crate) use crate::lane::{KnownTerms, PassageTokens};

/// The analyzer's term for one word (the analyzers' tokenizer would find just that word in it).
fn analyse_word(analyzer: &mut TextAnalyzer, word: &str) -> Option<Arc<str>> {
    let mut stream = analyzer.token_stream(word);
    stream.next().map(|token| token.text.as_str().into())
}

/// One pass over a passage: the byte ranges of the tokens among `terms`
/// (sorted), and every analysed token of the passage — so coverage can ask
/// "does this passage hold that word?" without analysing the passage again.
/// The same result as running the language's analyzer over the text.
pub(crate) fn analyse_passage(text: &str, language: &str, terms: &[String]) -> (Vec<(usize, usize)>, PassageTokens) {
    let name = analyzer_name(language);
    let mut ranges = Vec::new();
    let mut tokens = PassageTokens::default();
    ANALYSED.with(|memo| {
        let mut memo = memo.borrow_mut();
        let words = &mut memo[analyzer_slot(name)];
        if words.len() > MEMO_WORDS {
            words.clear();
        }
        let mut full: Option<TextAnalyzer> = None;
        let mut tokenizer = SimpleTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        while let Some(token) = stream.next() {
            let raw = token.text.as_str();
            // One lookup for a known word; a new one is analysed once and remembered.
            let term = match words.get(raw) {
                Some(term) => term.clone(),
                None => {
                    let term = analyse_word(full.get_or_insert_with(|| analyzer(name)), raw);
                    words.insert(raw.into(), term.clone());
                    term
                }
            };
            let Some(term) = term else { continue };
            if !terms.is_empty() && terms.binary_search_by(|t| t.as_str().cmp(&term)).is_ok() {
                ranges.push((token.offset_from, token.offset_to));
            }
            tokens.insert(term);
        }
    });
    (ranges, tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analyzer run over the whole text: what `analyse_passage` must equal.
    fn reference(text: &str, language: &str, terms: &[String]) -> (Vec<(usize, usize)>, PassageTokens) {
        let mut analyzer = super::analyzer(super::analyzer_name(language));
        let mut stream = analyzer.token_stream(text);
        let (mut ranges, mut tokens) = (Vec::new(), PassageTokens::default());
        while let Some(token) = stream.next() {
            if terms.binary_search(&token.text).is_ok() {
                ranges.push((token.offset_from, token.offset_to));
            }
            tokens.insert(token.text.as_str().into());
        }
        (ranges, tokens)
    }

    #[test]
    fn word_by_word_analysis_equals_the_analyzer_over_the_text() {
        let texts = [
            (
                "en",
                "The Struggle for Existence: selection's power, SELECTED selects; the the a 1859 e-mail \
                    pneumonoultramicroscopicsilicovolcanoconiosisxx naïve café",
            ),
            ("de", "Die natürliche Züchtung und der Kampf um’s Daseyn, Züchtungen der Thiere; ÜBER alle"),
            ("fr", "La sélection naturelle et les sélections des espèces, l'élection"),
            ("plain", "Unanalysed words Words WORDS, 42"),
        ];
        for (language, text) in texts {
            let terms: Vec<String> = {
                let mut all: Vec<String> = reference(text, language, &[]).1.iter().map(|t| t.to_string()).collect();
                all.retain(|t| t.len() % 2 == 0); // some terms highlighted, some not
                all.sort(); // the analysed terms arrive sorted
                all
            };
            // Twice: the second pass reads every word from the memo.
            for _ in 0..2 {
                assert_eq!(analyse_passage(text, language, &terms), reference(text, language, &terms), "{language}");
            }
        }
    }

    #[test]
    fn highlights_inflected_forms() {
        let terms = vec!["select".to_owned()];
        let text = "Natural Selection selects.";
        let ranges = super::analyse_passage(text, "en", &terms).0;
        let words: Vec<&str> = ranges.iter().map(|(s, e)| &text[*s..*e]).collect();
        assert_eq!(words, vec!["Selection", "selects"]);
    }
}
