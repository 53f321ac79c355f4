//! Per-language analyzers. Tokenizers are not stored in a tantivy index, so
//! the writer and every reader register the same set from here.

use tantivy::Index;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};

/// Languages with their own stemming analyzer; anything else uses `plain`.
pub(crate) const ANALYZED_LANGUAGES: &[&str] = &["en", "de", "fr"];
pub(crate) const PLAIN: &str = "plain";

/// The analyzer (and field suffix) used for a BCP-47 language code.
pub(crate) fn analyzer_name(language: &str) -> &'static str {
    let primary = language.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
    ANALYZED_LANGUAGES.iter().find(|l| **l == primary).copied().unwrap_or(PLAIN)
}

pub(crate) fn register(index: &Index) {
    let manager = index.tokenizers();
    for (name, language) in [("en", Language::English), ("de", Language::German), ("fr", Language::French)] {
        manager.register(name, stemming(language));
    }
    manager.register(PLAIN, plain());
}

/// One built analyzer per name, cloned for each use: building one builds its
/// stop-word set, and readers analyse every query and every returned passage.
/// A clone shares the set (an `Arc`) and the stemmer's language.
static PROTOTYPES: std::sync::LazyLock<[TextAnalyzer; ANALYZERS]> = std::sync::LazyLock::new(|| {
    [stemming(Language::English), stemming(Language::German), stemming(Language::French), plain()]
});

/// The number of distinct analyzers (`analyzer_slot`'s range).
pub(crate) const ANALYZERS: usize = 4;

/// The analyzers' names, in `analyzer_slot` order.
pub(crate) const fn analyzer_names() -> [&'static str; ANALYZERS] {
    ["en", "de", "fr", PLAIN]
}

/// Which of the analyzers `name` is, `0..ANALYZERS`.
pub(crate) fn analyzer_slot(name: &str) -> usize {
    match name {
        "en" => 0,
        "de" => 1,
        "fr" => 2,
        _ => 3,
    }
}

pub(crate) fn analyzer(name: &str) -> TextAnalyzer {
    PROTOTYPES[analyzer_slot(name)].clone()
}

fn stemming(language: Language) -> TextAnalyzer {
    let builder =
        TextAnalyzer::builder(SimpleTokenizer::default()).filter(RemoveLongFilter::limit(40)).filter(LowerCaser);
    match StopWordFilter::new(language) {
        Some(stop) => builder.filter(stop).filter(Stemmer::new(language)).build(),
        None => builder.filter(Stemmer::new(language)).build(),
    }
}

fn plain() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default()).filter(RemoveLongFilter::limit(40)).filter(LowerCaser).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(name: &str, text: &str) -> Vec<(usize, String)> {
        let mut analyzer = analyzer(name);
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(token) = stream.next() {
            out.push((token.position, token.text.clone()));
        }
        out
    }

    #[test]
    fn language_codes_map_to_analyzers() {
        assert_eq!(analyzer_name("en"), "en");
        assert_eq!(analyzer_name("de-AT"), "de");
        assert_eq!(analyzer_name("la"), "plain");
    }

    #[test]
    fn english_stems_and_keeps_positions_across_stopwords() {
        assert_eq!(tokens("en", "survival of the fittest"), vec![(0, "surviv".into()), (3, "fittest".into())]);
    }

    #[test]
    fn german_stems_inflections_together() {
        let a = tokens("de", "natürliche Züchtung");
        let b = tokens("de", "natürlichen Züchtung");
        assert_eq!(a, b);
    }
}
