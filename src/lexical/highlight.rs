//! Byte ranges of the words in a passage that match the query's analyzed terms.

use std::collections::BTreeSet;

use super::analyzers::{analyzer, analyzer_name};

pub fn highlight(text: &str, language: &str, terms: &[String]) -> Vec<(usize, usize)> {
    if terms.is_empty() {
        return Vec::new();
    }
    analyse_passage(text, language, terms).0
}

/// One analyzer pass over a passage: the byte ranges of the tokens among
/// `terms` (sorted), and every analysed token of the passage — so coverage can
/// ask "does this passage hold that word?" without analysing the passage again.
pub fn analyse_passage(text: &str, language: &str, terms: &[String]) -> (Vec<(usize, usize)>, BTreeSet<String>) {
    let mut analyzer = analyzer(analyzer_name(language));
    let mut stream = analyzer.token_stream(text);
    let mut ranges = Vec::new();
    let mut tokens = BTreeSet::new();
    while let Some(token) = stream.next() {
        if terms.binary_search(&token.text).is_ok() {
            ranges.push((token.offset_from, token.offset_to));
        }
        if !tokens.contains(&token.text) {
            tokens.insert(token.text.clone());
        }
    }
    (ranges, tokens)
}

#[cfg(test)]
mod tests {
    #[test]
    fn highlights_inflected_forms() {
        let terms = vec!["select".to_owned()];
        let text = "Natural Selection selects.";
        let ranges = super::highlight(text, "en", &terms);
        let words: Vec<&str> = ranges.iter().map(|(s, e)| &text[*s..*e]).collect();
        assert_eq!(words, vec!["Selection", "selects"]);
    }
}
