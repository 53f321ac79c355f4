//! What the words of a question are, before any index is read: the content
//! words it searches for, the function words it does not, and the framing
//! words that say what kind of answer is wanted ("what role does … play")
//! rather than what it is about. Pure string handling, one list each, shared
//! by the search layer (spelling variants) and the verdict (coverage, key terms).

use std::collections::BTreeSet;

use crate::text::{normalized_words, without_possessive};

/// Question, auxiliary and discourse words that carry no content in a query,
/// beyond the analyzers' (short) stop lists: "what does the text say about …"
/// asks, it does not search. English, German and French, the analyzed languages.
#[rustfmt::skip]
const FUNCTION_WORDS: &[&str] = &[
    // English: questions, auxiliaries and fillers.
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "do", "does", "did", "was", "were", "has",
    "have", "had", "been", "being", "can", "could", "would", "should", "may", "might", "shall", "i", "you", "we", "he",
    "she", "me", "my", "our", "your", "its", "his", "her", "about", "from", "than", "any", "some", "is", "are", "there",
    "so", "very", "also", "just", "really", "actually", "please",
    // English: talk about a text rather than its content.
    "say", "says", "said", "saying", "describe", "describes", "described", "according", "text", "texts", "book",
    "books", "write", "writes", "wrote", "written", "tell", "tells", "told", "mention", "mentions", "mentioned",
    "discuss", "discusses", "discussed", "explain", "explains", "explained", "think", "thinks", "thought", "view",
    "views", "claim", "claims", "argue", "argues", "regarding", "concerning", "author", "passage", "passages", "corpus",
    "work", "works", "anything", "something", "much", "many",
    // German ("was" and "text" are listed above).
    "wer", "wie", "wo", "warum", "welche", "welcher", "welches", "sagt", "sagen", "beschreibt", "laut", "buch",
    "schreibt", "über", "ueber",
    // French.
    "que", "qui", "quoi", "comment", "pourquoi", "quel", "quelle", "dit", "dire", "décrit", "selon", "texte", "livre",
    "écrit", "sur",
];

/// Words that frame a question ("what *role* does isolation *play*", "the
/// *mechanism* of heredity", "how did the voyage *influence* the theory",
/// "what *evidence* is there for …"): they are content words (coverage shows
/// them) but not what the question is about, so they are key terms only when
/// nothing else is. A source seldom uses them where it answers.
#[rustfmt::skip]
const FRAMING_WORDS: &[&str] = &[
    // English.
    "role", "roles", "play", "plays", "played", "playing", "mechanism", "mechanisms", "influence", "influences",
    "influenced", "influencing", "impact", "impacts", "importance", "significance", "contribute", "contributes",
    "contributed", "contribution", "factor", "factors", "aspect", "aspects", "evidence", "example", "examples",
    "reason", "reasons", "extent", "way", "ways",
    // German.
    "rolle", "rollen", "spielen", "spielt", "spielte", "mechanismus", "mechanismen", "einfluss", "einflüsse",
    "beeinflusst", "beeinflussen", "bedeutung", "beitrag", "faktor", "faktoren", "aspekt", "aspekte", "beispiel",
    "beispiele", "grund", "gründe", "beleg", "belege",
    // French ("influence", "importance" and "contribution" are listed above).
    "rôle", "rôles", "jouer", "joue", "jouent", "joué", "mécanisme", "mécanismes", "influencé", "influencent",
    "facteur", "facteurs", "exemple", "exemples", "raison", "raisons", "preuve", "preuves",
];

/// The content words of `query`, in order, each once: normalised words, a
/// possessive as its base ("Einstein's" asks about Einstein: the analyzers
/// would split off an `s` every passage holds), function words left out.
/// Quotes are ignored: a quoted phrase's words are content words too.
pub(crate) fn content_words(query: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    normalized_words(query)
        .into_iter()
        .map(|w| without_possessive(&w).to_owned())
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()) && seen.insert(w.clone()))
        .collect()
}

/// Whether a content word frames the question rather than naming its subject.
pub(crate) fn is_framing(word: &str) -> bool {
    FRAMING_WORDS.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_words_drop_function_words_and_possessives_and_repeats() {
        assert_eq!(
            content_words("What does Darwin's book say about the eye and the eye?"),
            ["darwin", "the", "eye", "and"]
        );
        assert_eq!(content_words("\"tangled bank\""), ["tangled", "bank"]);
    }

    #[test]
    fn framing_words_in_each_language() {
        let framing: Vec<String> = content_words("What role does geographical isolation play?")
            .into_iter()
            .filter(|w| is_framing(w))
            .collect();
        assert_eq!(framing, ["role", "play"]);
        assert!(is_framing("einfluss") && is_framing("rôle") && !is_framing("isolation"));
    }
}
