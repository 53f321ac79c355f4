//! Spellings of a word the corpus may use instead: where an asked word occurs
//! nowhere, its spelling variants are looked up in the term dictionary.
//!
//! Two kinds, by length. One *orthographic* edit of the word as written — a
//! vowel for another ("adaptor"/"adapter", "Dasein"/"Daseyn"), a vowel or an
//! `h` added or dropped ("colour"/"color", "Teil"/"Theil"), a doubled or
//! undoubled letter, two neighbours swapped ("centre"/"center"), `s`/`z`,
//! `c`/`k`/`z`, `ß`/`ss`, `ph`/`f` — analysed as the index analyses text, so
//! "organise" finds the corpus's "organize" though their stems differ. Not
//! any edit: a consonant for another turns too many absent words into common
//! ones ("lasers" → "layers", "heredity" is no spelling of "herd"). And, for
//! long words only, the index's own terms within two edits of the word's stem
//! that share its first letters (a long stem two edits from another is
//! rarely a different word).

use std::collections::{BTreeMap, BTreeSet};

use tantivy::Searcher;
use tantivy::schema::Field;

/// Shorter words have too many real neighbours one edit away.
const MIN_CHARS: usize = 5;
/// Stems at least this long are compared with the index's terms (two edits):
/// at eight letters "internet" was two edits from "interest".
const LONG_STEM_CHARS: usize = 10;
/// Letters a long stem and its variant share at the start.
const SHARED_PREFIX_CHARS: usize = 3;
const LONG_STEM_EDITS: usize = 2;

#[rustfmt::skip]
const VOWELS: &[char] = &[
    'a', 'e', 'i', 'o', 'u', 'y', 'ä', 'ö', 'ü', 'é', 'è', 'ê', 'à', 'â', 'î', 'ô', 'û',
];
/// Consonants that spell one sound in the analysed languages' older or regional orthographies.
const SWAPS: &[(char, char)] = &[('s', 'z'), ('z', 's'), ('c', 'k'), ('k', 'c'), ('c', 'z'), ('z', 'c')];
/// Multi-letter spellings of one sound.
const RESPELLINGS: &[(&str, &str)] = &[("ß", "ss"), ("ss", "ß"), ("ph", "f"), ("f", "ph")];

fn is_vowel(c: char) -> bool {
    VOWELS.contains(&c)
}

/// Every spelling one orthographic edit from `word` (lower-case letters), in
/// a fixed order, without `word` itself; none for short or non-alphabetic words.
pub(super) fn orthographic(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() < MIN_CHARS || !chars.iter().all(|c| c.is_alphabetic()) {
        return Vec::new();
    }
    let spelled = |f: &dyn Fn(&mut Vec<char>)| {
        let mut copy = chars.clone();
        f(&mut copy);
        copy.into_iter().collect::<String>()
    };
    let mut out = BTreeSet::new();
    for (i, &c) in chars.iter().enumerate() {
        if is_vowel(c) {
            for &v in VOWELS.iter().filter(|&&v| v != c) {
                out.insert(spelled(&|w| w[i] = v));
            }
        }
        if is_vowel(c) || c == 'h' || (i > 0 && chars[i - 1] == c) {
            out.insert(spelled(&|w| {
                w.remove(i);
            }));
        }
        if !is_vowel(c) {
            out.insert(spelled(&|w| w.insert(i, c)));
        }
        for &(from, to) in SWAPS.iter().filter(|(from, _)| *from == c) {
            debug_assert_eq!(from, c);
            out.insert(spelled(&|w| w[i] = to));
        }
        if i + 1 < chars.len() {
            out.insert(spelled(&|w| w.swap(i, i + 1)));
        }
    }
    for i in 0..=chars.len() {
        for &v in VOWELS.iter().chain(std::iter::once(&'h')) {
            out.insert(spelled(&|w| w.insert(i, v)));
        }
    }
    for (from, to) in RESPELLINGS {
        for (at, _) in word.match_indices(from) {
            out.insert(format!("{}{to}{}", &word[..at], &word[at + from.len()..]));
        }
    }
    out.remove(word);
    out.into_iter().collect()
}

/// The index's terms of `field` within two edits of `stem` (a long one) and
/// sharing its first letters, with their passage counts; none for short stems.
pub(super) fn stem_neighbours(searcher: &Searcher, field: Field, stem: &str) -> Vec<(String, u64)> {
    if stem.chars().count() < LONG_STEM_CHARS {
        return Vec::new();
    }
    let prefix: String = stem.chars().take(SHARED_PREFIX_CHARS).collect();
    // Each term's passages, summed over the segments' dictionaries as they are walked.
    let mut terms: BTreeMap<String, u64> = BTreeMap::new();
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(field) else { continue };
        let Ok(mut stream) = inverted.terms().range().ge(prefix.as_bytes()).into_stream() else { continue };
        while stream.advance() {
            let Ok(term) = std::str::from_utf8(stream.key()) else { continue };
            if !term.starts_with(&prefix) {
                break;
            }
            if term != stem && strsim::osa_distance(term, stem) <= LONG_STEM_EDITS {
                *terms.entry(term.to_owned()).or_insert(0) += u64::from(stream.value().doc_freq);
            }
        }
    }
    terms.into_iter().filter(|(_, passages)| *passages > 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(word: &str, variant: &str) -> bool {
        orthographic(word).iter().any(|v| v == variant)
    }

    #[test]
    fn orthographic_variants_cover_the_usual_respellings() {
        assert!(has("dasein", "daseyn"), "an old German -ey-");
        assert!(has("adaptors", "adapters"), "-or/-er");
        assert!(has("colour", "color") && has("color", "colour"), "-our/-or");
        assert!(has("organise", "organize"), "-ise/-ize");
        assert!(has("centre", "center"), "-re/-er");
        assert!(has("theilung", "teilung") && has("teilung", "theilung"), "th/t");
        assert!(has("travelling", "traveling"), "a doubled consonant");
        assert!(has("strasse", "straße") && has("sulphur", "sulfur"), "multi-letter spellings");
        assert!(has("cultur", "kultur"), "c/k");
    }

    #[test]
    fn consonant_substitutions_and_short_words_have_no_variants() {
        assert!(!has("lasers", "layers"), "a consonant for another is another word");
        assert!(!has("heredity", "herd"));
        assert!(orthographic("gene").is_empty(), "short words have too many neighbours");
        assert!(orthographic("covid19").is_empty(), "identifiers are not respelled");
        assert!(!orthographic("colour").contains(&"colour".to_owned()));
    }
}
