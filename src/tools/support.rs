//! Which evidence items support a query, structurally: the query's key terms
//! weighted by their rarity in the corpus, how much of that weight each item
//! holds together, quoted phrases found word for word, entities covered, and
//! what corroborates the best item. Everything here is counted from the
//! evidence and the corpus's term statistics; no similarity score is read.

use crate::lane::parse_query;
use crate::surface::envelope::EvidenceItem;
use crate::text::normalized_words;

/// A content word in at least this share of the corpus's passages is not a
/// key term: it is what the corpus is about (e.g. "species" in the Origin).
pub const COMMON_SHARE: f64 = 0.2;
/// Another item holding at least this many thousandths of the key weight corroborates the best one.
const CORROBORATING_PERMILLE: u32 = 500;

/// One key term and its weight (higher = rarer in the corpus).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTerm {
    /// Index into the content words the matches were computed for.
    pub word: usize,
    pub weight: f64,
    pub in_corpus: bool,
}

/// What the support signals are counted from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Support {
    pub key_terms: Vec<KeyTerm>,
    /// Per item: thousandths of the key weight it holds.
    pub item_permille: Vec<u32>,
    /// Per item: holds a key term, a requested entity or a quoted phrase.
    pub supporting: Vec<bool>,
    /// Per item: found only by the vector lane and not supporting.
    pub neighbour: Vec<bool>,
    pub best_permille: u32,
    /// Thousandths of the key weight carried by terms the corpus lacks.
    pub absent_permille: u32,
    pub corroboration: u32,
    pub phrases: u32,
    pub phrases_verbatim: u32,
    pub entities_all_covered: bool,
    /// The key terms, as words.
    pub key_words: Vec<String>,
}

impl Support {
    /// Tools that take no query (the concept tools): the request names its
    /// entities, every item was retrieved for them, and there are no key terms
    /// to hold; the entity and period rules decide.
    pub fn without_query(items: &[EvidenceItem], entities: &[String]) -> Self {
        Self {
            item_permille: vec![1000; items.len()],
            supporting: vec![true; items.len()],
            neighbour: vec![false; items.len()],
            best_permille: 1000,
            corroboration: items.len().saturating_sub(1) as u32,
            entities_all_covered: !entities.is_empty()
                && entities.iter().all(|e| items.iter().any(|i| i.entities.contains(e))),
            ..Self::default()
        }
    }

    /// Whether `term` (a resolved name) contains a key term: an ambiguous or
    /// colliding name matters only when the question turns on it. Without a
    /// query (no key terms) every name matters.
    pub fn names_key_term(&self, term: &str) -> bool {
        self.key_words.is_empty() || normalized_words(term).iter().any(|w| self.key_words.contains(w))
    }
}

/// The corpus facts key terms are chosen with.
pub struct CorpusTerms<'a> {
    /// For each content word, how many passages contain it.
    pub frequencies: &'a [u64],
    /// How many passages the corpus holds.
    pub passages: u64,
    /// Words of the authors' names.
    pub author_words: &'a std::collections::BTreeSet<String>,
}

/// Key terms among `words` (the query's content words): not the authors'
/// names, and not common in the corpus — unless every word is common, in which
/// case the common ones are all there is to go on.
pub fn key_terms(words: &[String], corpus: &CorpusTerms<'_>) -> Vec<KeyTerm> {
    let mut key = Vec::new();
    let mut common = Vec::new();
    let passages = corpus.passages.max(1) as f64;
    for (i, (word, &with)) in words.iter().zip(corpus.frequencies).enumerate() {
        if corpus.author_words.contains(word) {
            continue;
        }
        let term = KeyTerm {
            word: i,
            // ln of passages per passage containing the word; an absent word weighs more than any present one.
            weight: if with == 0 { passages.ln() + 1.0 } else { ((passages + 1.0) / with as f64).ln() },
            in_corpus: with > 0,
        };
        if with as f64 >= COMMON_SHARE * passages { common.push(term) } else { key.push(term) }
    }
    if key.is_empty() { common } else { key }
}

/// Whether `text` contains `phrase` word for word (normalised words, in order).
fn contains_phrase(text_words: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && text_words.windows(phrase.len()).any(|w| w == phrase)
}

/// Assesses `items` against the query: `matches[i][w]` says whether item `i`
/// holds content word `w`; `entities` are the entities the request names.
pub fn assess(
    query: &str,
    words: &[String],
    key_terms: Vec<KeyTerm>,
    matches: &[Vec<bool>],
    items: &[EvidenceItem],
    entities: &[String],
) -> Support {
    let total: f64 = key_terms.iter().map(|t| t.weight).sum();
    let absent: f64 = key_terms.iter().filter(|t| !t.in_corpus).map(|t| t.weight).sum();
    let absent_permille = if total > 0.0 { (1000.0 * absent / total).round() as u32 } else { 0 };
    let key_words = key_terms.iter().filter_map(|t| words.get(t.word).cloned()).collect();
    let item_permille: Vec<u32> = matches
        .iter()
        .map(|m| {
            let held: f64 =
                key_terms.iter().filter(|t| m.get(t.word).copied().unwrap_or(false)).map(|t| t.weight).sum();
            if total > 0.0 { (1000.0 * held / total).round() as u32 } else { 0 }
        })
        .collect();
    let phrases: Vec<Vec<String>> =
        parse_query(query).phrases.iter().map(|p| normalized_words(p)).filter(|p| !p.is_empty()).collect();
    let item_words: Vec<Vec<String>> =
        if phrases.is_empty() { Vec::new() } else { items.iter().map(|i| normalized_words(&i.text)).collect() };
    let has_phrase = |i: usize| item_words.get(i).is_some_and(|w| phrases.iter().any(|p| contains_phrase(w, p)));
    let phrases_verbatim = phrases.iter().filter(|p| item_words.iter().any(|w| contains_phrase(w, p))).count();
    let linked = |item: &EvidenceItem| entities.iter().any(|e| item.entities.contains(e));
    let supporting: Vec<bool> = items
        .iter()
        .enumerate()
        .map(|(i, item)| item_permille.get(i).is_some_and(|p| *p > 0) || linked(item) || has_phrase(i))
        .collect();
    let neighbour: Vec<bool> = items
        .iter()
        .zip(&supporting)
        .map(|(item, s)| !s && item.component_ranks.len() == 1 && item.component_ranks.contains_key("vector"))
        .collect();
    let entities_all_covered =
        !entities.is_empty() && entities.iter().all(|e| items.iter().any(|i| i.entities.contains(e)));
    // The best item: most key weight (an entity question: the first item linked to every entity).
    let best = (0..items.len()).max_by_key(|&i| (item_permille[i], std::cmp::Reverse(i)));
    let best_permille = best.map_or(0, |i| item_permille[i]);
    let mut corroboration = 0u32;
    if let Some(b) = best {
        corroboration +=
            (0..items.len()).filter(|&i| i != b && item_permille[i] >= CORROBORATING_PERMILLE).count() as u32;
        if items[b].component_ranks.len() >= 2 {
            corroboration += 1;
        }
        if entities_all_covered {
            let with_entity = items.iter().filter(|i| linked(i)).count() as u32;
            corroboration += with_entity.saturating_sub(1);
        }
    }
    Support {
        key_terms,
        key_words,
        absent_permille,
        item_permille,
        supporting,
        neighbour,
        best_permille,
        corroboration,
        phrases: phrases.len() as u32,
        phrases_verbatim: phrases_verbatim as u32,
        entities_all_covered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn item(text: &str, lanes: &[&str], entities: &[&str]) -> EvidenceItem {
        let lanes: Vec<(&str, u32)> = lanes.iter().map(|l| (*l, 1)).collect();
        crate::tools::assemble::tests::item("p.d.0001", "d", text, &lanes, entities)
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    /// Of 1,000 passages: "species" in 400, "organ" in 50, "darwin" in 12, "eye" in 10, "helix" in none.
    fn frequency(word: &str) -> u64 {
        match word {
            "species" => 400,
            "organ" => 50,
            "darwin" => 12,
            "eye" => 10,
            _ => 0,
        }
    }

    fn keys(w: &[&str]) -> Vec<KeyTerm> {
        let authors: BTreeSet<String> = ["charles".to_owned(), "darwin".to_owned()].into();
        let frequencies: Vec<u64> = w.iter().map(|w| frequency(w)).collect();
        key_terms(&words(w), &CorpusTerms { frequencies: &frequencies, passages: 1000, author_words: &authors })
    }

    #[test]
    fn common_words_and_author_names_are_not_key_terms_and_absent_ones_weigh_most() {
        let k = keys(&["darwin", "species", "eye", "helix"]);
        assert_eq!(k.iter().map(|t| t.word).collect::<Vec<_>>(), [2, 3]);
        assert!(k[1].weight > k[0].weight, "absent `helix` outweighs rare `eye`");
        assert!(!k[1].in_corpus);
        // Only common words: they are all there is.
        assert_eq!(keys(&["species"]).len(), 1);
    }

    #[test]
    fn the_best_item_holds_the_rare_terms_and_a_second_one_corroborates() {
        let k = keys(&["eye", "organ"]);
        let items = [item("the eye an organ", &["lexical"], &[]), item("an organ", &["lexical", "vector"], &[])];
        let matches = vec![vec![true, true], vec![false, true]];
        let s = assess("eye organ", &words(&["eye", "organ"]), k, &matches, &items, &[]);
        assert_eq!(s.best_permille, 1000);
        assert!(s.item_permille[1] < 500, "the common-ish `organ` alone weighs little: {:?}", s.item_permille);
        assert_eq!(s.corroboration, 0, "one lane found the best item and nothing else holds half the weight");
        assert_eq!(s.supporting, [true, true]);
    }

    #[test]
    fn vector_only_items_without_key_terms_are_neighbours() {
        let k = keys(&["helix"]);
        let items = [item("spiral shells", &["vector"], &[]), item("a helix", &["lexical", "vector"], &[])];
        let matches = vec![vec![false], vec![true]];
        let s = assess("helix", &words(&["helix"]), k, &matches, &items, &[]);
        assert_eq!(s.neighbour, [true, false]);
        assert_eq!(s.supporting, [false, true]);
    }

    #[test]
    fn a_quoted_phrase_is_found_word_for_word_only() {
        let k = keys(&["tangled", "bank"]);
        let items =
            [item("an entangled bank, clothed with plants", &["exact"], &[]), item("a tangled bank", &["exact"], &[])];
        let s = assess(
            "\"tangled bank\"",
            &words(&["tangled", "bank"]),
            k,
            &[vec![false, true], vec![true, true]],
            &items,
            &[],
        );
        assert_eq!((s.phrases, s.phrases_verbatim), (1, 1));
        let s = assess(
            "\"tangled bank\"",
            &words(&["tangled", "bank"]),
            keys(&["tangled", "bank"]),
            &[vec![false, true]],
            &items[..1],
            &[],
        );
        assert_eq!(s.phrases_verbatim, 0);
    }

    #[test]
    fn an_entity_question_is_covered_by_linked_items_and_corroborated_by_more() {
        let items = [item("x", &["entity"], &["concept.eye"]), item("y", &["entity"], &["concept.eye"])];
        let s = assess(
            "the eye",
            &words(&["eye"]),
            keys(&["eye"]),
            &[vec![false], vec![false]],
            &items,
            &["concept.eye".into()],
        );
        assert!(s.entities_all_covered);
        assert_eq!(s.supporting, [true, true]);
        assert_eq!(s.corroboration, 1);
    }
}
