//! Which evidence items support a query, structurally: the query's key terms
//! weighted by their rarity in the corpus, how much of that weight each item
//! holds together, quoted phrases found word for word, entities covered, and
//! what corroborates the best item. Everything here is counted from the
//! evidence and the corpus's term statistics; no similarity score is read.

use super::evidence::Item;
use crate::concepts::Authorship;
use crate::lane::ParsedQuery;
use crate::query_words::is_framing;
use crate::text::{normalized_word, normalized_words, possessive_base, without_possessive};

/// A content word in at least this share of the corpus's passages is not a
/// key term: it is what the corpus is about (e.g. "species" in the Origin).
pub(crate) const COMMON_SHARE: f64 = 0.2;
/// Another item holding at least this many thousandths of the key weight corroborates the best one.
const CORROBORATING_PERMILLE: u32 = 500;
/// An item holding the rarest key term the corpus holds speaks of what is asked when the key terms
/// it holds carry at least this share of the key weight (a third). One more word is not enough: a
/// long question's rarest term and one common word meet by chance in a large corpus on another
/// subject (Cranfield's aerodynamics questions against SciFact's biomedical abstracts: 46 of 225
/// PARTIAL with "one more", 27 with a third; SciFact's own answerable queries: 50 of 300
/// INSUFFICIENT, 54).
const RAREST_WITH_MORE_PERMILLE: u32 = 333;

/// One key term and its weight (higher = rarer in the corpus).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KeyTerm {
    /// Index into the content words the matches were computed for.
    pub(crate) word: usize,
    pub(crate) weight: f64,
    pub(crate) in_corpus: bool,
}

/// What the support signals are counted from.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Support {
    pub(crate) key_terms: Vec<KeyTerm>,
    /// Per item: thousandths of the key weight it holds.
    pub(crate) item_permille: Vec<u32>,
    /// Per item: holds a key term, a requested entity or a quoted phrase.
    pub(crate) supporting: Vec<bool>,
    /// Per item: found only by associative lanes (vector, feedback: `Lane::associative`) and not supporting.
    pub(crate) neighbour: Vec<bool>,
    /// Per item: mentions a namesake of a requested person and not the person.
    pub(crate) namesake: Vec<bool>,
    pub(crate) best_permille: u32,
    /// Thousandths of the key weight carried by terms the corpus lacks.
    pub(crate) absent_permille: u32,
    pub(crate) corroboration: u32,
    pub(crate) phrases: u32,
    pub(crate) phrases_verbatim: u32,
    pub(crate) entities_all_covered: bool,
    /// Items holding the rarest key term the corpus holds together with other key terms, a third of
    /// the key weight or more, and more of it than the absent terms carry.
    pub(crate) rarest_with_more: u32,
    /// The key terms, as words.
    pub(crate) key_words: Vec<String>,
}

impl Support {
    /// Tools that take no query (the concept tools): the request names its
    /// entities, every item was retrieved for them, and there are no key terms
    /// to hold; the entity and period rules decide.
    pub(crate) fn without_query(items: &[Item], entities: &[String], people: &Authorship) -> Self {
        Self {
            item_permille: vec![1000; items.len()],
            supporting: vec![true; items.len()],
            neighbour: vec![false; items.len()],
            namesake: items.iter().map(|item| about_namesake(item, entities, people)).collect(),
            best_permille: 1000,
            corroboration: items.len().saturating_sub(1) as u32,
            entities_all_covered: !entities.is_empty()
                && entities.iter().all(|e| items.iter().any(|i| i.entities.contains(e))),
            ..Self::default()
        }
    }

    /// Whether item `i` of the assessed items is evidence for `entity`: it
    /// mentions it, or the entity wrote it and it does not speak of a namesake instead.
    pub(crate) fn covers(&self, i: usize, item: &Item, entity: &str, people: &Authorship) -> bool {
        item.entities.iter().any(|e| e == entity)
            || (people.authors_of(&item.passage.document_id).iter().any(|a| a == entity)
                && !self.namesake.get(i).copied().unwrap_or(false))
    }

    /// Whether `term` (a resolved name) contains a key term: an ambiguous or
    /// colliding name matters only when the question turns on it. Without a
    /// query (no key terms) every name matters.
    pub(crate) fn names_key_term(&self, term: &str) -> bool {
        self.key_words.is_empty() || normalized_words(term).iter().any(|w| self.key_words.contains(w))
    }
}

/// The corpus facts key terms are chosen with.
pub(crate) struct CorpusTerms<'a> {
    /// For each content word, how many passages contain it.
    pub(crate) frequencies: &'a [u64],
    /// How many passages the corpus holds.
    pub(crate) passages: u64,
    /// Words of the authors' names.
    pub(crate) author_words: &'a std::collections::BTreeSet<String>,
}

/// Key terms among `words` (the query's content words): not the authors'
/// names, not common in the corpus and not framing the question
/// (`query_words::is_framing`) — unless every word is common or framing, in
/// which case those are all there is to go on (the common ones first).
pub(crate) fn key_terms(words: &[String], corpus: &CorpusTerms<'_>) -> Vec<KeyTerm> {
    let mut key = Vec::new();
    let mut common = Vec::new();
    let mut framing = Vec::new();
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
        if is_framing(word) {
            framing.push(term);
        } else if with as f64 >= COMMON_SHARE * passages {
            common.push(term);
        } else {
            key.push(term);
        }
    }
    [key, common, framing].into_iter().find(|terms| !terms.is_empty()).unwrap_or_default()
}

/// Whether `item` speaks of a namesake of a requested person instead of the
/// person: it mentions a longer name containing the person's name (one the
/// request did not ask for) and does not mention the person.
fn about_namesake(item: &Item, entities: &[String], people: &Authorship) -> bool {
    entities.iter().any(|person| {
        !item.entities.contains(person)
            && people
                .namesakes_of(person)
                .iter()
                .any(|other| !entities.contains(other) && item.entities.contains(other))
    })
}

/// The names in `query`: runs of two or more capitalised content words
/// ("the Second World War", "Coronary Artery Bypass Graft"), as indexes into
/// `words`. A name's words hold only where they stand together, as a quoted
/// phrase's do: "second", "world" and "war" scattered over a passage are not
/// the war. Not name words: the query's first word (capitalised as the start
/// of a sentence), and identifiers — all capitals or with digits ("CABG",
/// "APOE4"), which the text often puts beside a name in brackets. A
/// possessive ends a name ("Darwin's Zoonomia" is two names, one word each).
fn names(query: &str, words: &[String]) -> Vec<Vec<usize>> {
    use unicode_segmentation::UnicodeSegmentation;
    let mut out = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut close = |run: &mut Vec<usize>| {
        if run.len() >= 2 {
            out.push(std::mem::take(run));
        }
        run.clear();
    };
    for (n, word) in query.unicode_words().enumerate() {
        let identifier = word.chars().any(|c| c.is_ascii_digit()) || !word.chars().any(char::is_lowercase);
        let lower = normalized_word(word);
        let (base, possessive) = match possessive_base(&lower) {
            Some(b) => (b.to_owned(), true),
            None => (lower, false),
        };
        let capitalised = n > 0 && !identifier && word.chars().next().is_some_and(char::is_uppercase);
        match words.iter().position(|w| *w == base) {
            Some(i) if capitalised => {
                run.push(i);
                if possessive {
                    close(&mut run);
                }
            }
            _ => close(&mut run),
        }
    }
    close(&mut run);
    out
}

/// A word as names are matched: no possessive, no plural `s` ("Stem Cell" is
/// in "stem cells"). Crude, and the same on both sides.
fn name_word(word: &str) -> String {
    let base = without_possessive(word);
    match base.strip_suffix('s') {
        Some(singular) if singular.chars().count() >= 3 => singular.to_owned(),
        _ => base.to_owned(),
    }
}

/// Whether `text` contains `phrase` word for word (normalised words, in order).
fn contains_phrase(text_words: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && text_words.windows(phrase.len()).any(|w| w == phrase)
}

/// Assesses `items` against the query: `matches[i][w]` says whether item `i`
/// holds content word `w`; `entities` are the entities the request names.
/// An item about a namesake of a requested person counts for nothing; the
/// corpus's authors among `entities` say whose text to read, so they neither
/// make an item supporting nor decide coverage (their words are not key terms
/// either).
pub(crate) fn assess(
    parsed: &ParsedQuery,
    words: &[String],
    key_terms: Vec<KeyTerm>,
    matches: &[Vec<bool>],
    items: &[Item],
    entities: &[String],
    people: &Authorship,
) -> Support {
    let namesake: Vec<bool> = items.iter().map(|item| about_namesake(item, entities, people)).collect();
    let topics: Vec<&String> = entities.iter().filter(|e| !people.is_author(e)).collect();
    let total: f64 = key_terms.iter().map(|t| t.weight).sum();
    let absent: f64 = key_terms.iter().filter(|t| !t.in_corpus).map(|t| t.weight).sum();
    let absent_permille = if total > 0.0 { (1000.0 * absent / total).round() as u32 } else { 0 };
    let key_words = key_terms.iter().filter_map(|t| words.get(t.word).cloned()).collect();
    let phrases: Vec<Vec<String>> =
        parsed.phrases.iter().map(|p| normalized_words(p)).filter(|p| !p.is_empty()).collect();
    // Quoted phrases already hold word for word; names are looked for in the free text.
    let names = names(&parsed.free_text, words);
    let item_words: Vec<Vec<String>> = if phrases.is_empty() && names.is_empty() {
        Vec::new()
    } else {
        items.iter().map(|i| normalized_words(&i.passage.text)).collect()
    };
    // Per item, the name words it does not hold together: they count as absent from it.
    let apart: Vec<Vec<usize>> = (0..items.len())
        .map(|i| {
            let Some(text) = item_words.get(i) else { return Vec::new() };
            let text: Vec<String> = text.iter().map(|w| name_word(w)).collect();
            names
                .iter()
                .filter(|name| {
                    let name: Vec<String> = name.iter().map(|w| name_word(&words[*w])).collect();
                    !contains_phrase(&text, &name)
                })
                .flatten()
                .copied()
                .collect()
        })
        .collect();
    // Per item, which key terms it holds (none for an item about a namesake).
    let held: Vec<Vec<bool>> = matches
        .iter()
        .zip(&namesake)
        .enumerate()
        .map(|(i, (m, about_someone_else))| {
            let holds = |w: usize| m.get(w).copied().unwrap_or(false) && !apart.get(i).is_some_and(|a| a.contains(&w));
            key_terms.iter().map(|t| !about_someone_else && holds(t.word)).collect()
        })
        .collect();
    let item_permille: Vec<u32> = held
        .iter()
        .map(|h| {
            let weight: f64 = key_terms.iter().zip(h).filter(|(_, h)| **h).map(|(t, _)| t.weight).sum();
            if total > 0.0 { (1000.0 * weight / total).round() as u32 } else { 0 }
        })
        .collect();
    // The rarest key term the corpus holds (the first of equals), and the items holding it with other
    // key terms, a third of the key weight (`RAREST_WITH_MORE_PERMILLE`) and more of it than the terms
    // the corpus lacks carry (else the question's subject may be what is absent: "Mendel pea plant
    // experiments").
    let rarest = key_terms
        .iter()
        .enumerate()
        .filter(|(_, t)| t.in_corpus)
        .max_by(|(a, x), (b, y)| x.weight.total_cmp(&y.weight).then(b.cmp(a)))
        .map(|(k, _)| k);
    let rarest_with_more = rarest.map_or(0, |k| {
        held.iter()
            .zip(&item_permille)
            .filter(|(h, p)| {
                h[k] && h.iter().filter(|x| **x).count() >= 2
                    && **p >= RAREST_WITH_MORE_PERMILLE
                    && **p > absent_permille
            })
            .count()
    });
    let has_phrase = |i: usize| item_words.get(i).is_some_and(|w| phrases.iter().any(|p| contains_phrase(w, p)));
    let phrases_verbatim = phrases.iter().filter(|p| item_words.iter().any(|w| contains_phrase(w, p))).count();
    let linked = |item: &Item| topics.iter().any(|e| item.entities.contains(e));
    let supporting: Vec<bool> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            !namesake[i] && (item_permille.get(i).is_some_and(|p| *p > 0) || linked(item) || has_phrase(i))
        })
        .collect();
    let neighbour: Vec<bool> = items
        .iter()
        .zip(&supporting)
        .zip(&namesake)
        .map(|((item, s), n)| !s && !n && item.found_by_association_only())
        .collect();
    let entities_all_covered = !topics.is_empty()
        && topics.iter().all(|e| items.iter().zip(&namesake).any(|(i, n)| !n && i.entities.contains(e)));
    // The best item: most key weight (an entity question: the first item linked to every entity).
    let best = (0..items.len()).max_by_key(|&i| (item_permille[i], std::cmp::Reverse(i)));
    let best_permille = best.map_or(0, |i| item_permille[i]);
    let mut corroboration = 0u32;
    if let Some(b) = best {
        corroboration +=
            (0..items.len()).filter(|&i| i != b && item_permille[i] >= CORROBORATING_PERMILLE).count() as u32;
        if items[b].independent_lanes() >= 2 {
            corroboration += 1;
        }
        if entities_all_covered {
            let with_entity = items.iter().zip(&namesake).filter(|(i, n)| !**n && linked(i)).count() as u32;
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
        namesake,
        best_permille,
        corroboration,
        phrases: phrases.len() as u32,
        phrases_verbatim: phrases_verbatim as u32,
        entities_all_covered,
        rarest_with_more: rarest_with_more as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Lane, parse_query};
    use std::collections::BTreeSet;

    fn item(text: &str, lanes: &[&str], entities: &[&str]) -> Item {
        let lanes: Vec<(Lane, u32)> = lanes.iter().map(|l| (l.parse().unwrap(), 1)).collect();
        crate::tools::evidence::tests::item("p.d.0001", "d", text, &lanes, entities)
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
            "wing" | "shock" | "wave" | "flow" | "heat" | "slab" => 30,
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
    fn framing_words_are_key_terms_only_when_nothing_else_is() {
        // "role" and "play" are absent from the corpus, yet the question is about the eye.
        let k = keys(&["role", "eye", "play"]);
        assert_eq!(k.iter().map(|t| t.word).collect::<Vec<_>>(), [1]);
        let s = assess(
            &parse_query("role eye play"),
            &words(&["role", "eye", "play"]),
            k,
            &[vec![false, true, false]],
            &[item("the eye", &["lexical"], &[])],
            &[],
            &Authorship::default(),
        );
        assert_eq!((s.best_permille, s.absent_permille), (1000, 0));
        // A question of framing words only is about them (common words go first).
        assert_eq!(keys(&["role", "species"]).iter().map(|t| t.word).collect::<Vec<_>>(), [1]);
        assert_eq!(keys(&["role", "play"]).len(), 2);
    }

    #[test]
    fn the_best_item_holds_the_rare_terms_and_a_second_one_corroborates() {
        let k = keys(&["eye", "organ"]);
        let items = [item("the eye an organ", &["lexical"], &[]), item("an organ", &["lexical", "vector"], &[])];
        let matches = vec![vec![true, true], vec![false, true]];
        let s = assess(
            &parse_query("eye organ"),
            &words(&["eye", "organ"]),
            k,
            &matches,
            &items,
            &[],
            &Authorship::default(),
        );
        assert_eq!(s.best_permille, 1000);
        assert!(s.item_permille[1] < 500, "the common-ish `organ` alone weighs little: {:?}", s.item_permille);
        assert_eq!(s.corroboration, 0, "one lane found the best item and nothing else holds half the weight");
        assert_eq!(s.supporting, [true, true]);
    }

    #[test]
    fn the_rarest_held_key_term_counts_only_beside_another() {
        // "helix" is absent; "eye" is the rarest term the corpus holds.
        let w = words(&["eye", "organ", "helix"]);
        let items = [item("the eye", &["lexical"], &[]), item("the eye, an organ", &["lexical"], &[])];
        let assessed = |matches: &[Vec<bool>]| {
            assess(
                &parse_query("eye organ helix"),
                &w,
                keys(&["eye", "organ", "helix"]),
                matches,
                &items,
                &[],
                &Authorship::default(),
            )
        };
        // "helix" (absent) outweighs "eye" and "organ" together: the question may be about it.
        assert_eq!(assessed(&[vec![true, false, false], vec![true, true, false]]).rarest_with_more, 0);
        let eye_organ = |matches: &[Vec<bool>]| {
            assess(
                &parse_query("eye organ"),
                &w[..2],
                keys(&["eye", "organ"]),
                matches,
                &items,
                &[],
                &Authorship::default(),
            )
        };
        assert_eq!(eye_organ(&[vec![true, false], vec![true, true]]).rarest_with_more, 1);
        assert_eq!(eye_organ(&[vec![true, false], vec![false, true]]).rarest_with_more, 0);

        // A long question: the rarest term and one more word are a chance meeting, under a third of
        // the key weight; with two more they are a third or more.
        let long = ["eye", "organ", "wing", "shock", "wave", "flow", "heat", "slab"];
        let long_assessed = |matches: &[Vec<bool>]| {
            assess(
                &parse_query(&long.join(" ")),
                &words(&long),
                keys(&long),
                matches,
                &items,
                &[],
                &Authorship::default(),
            )
        };
        let chance = vec![true, true, false, false, false, false, false, false];
        let s = long_assessed(&[chance.clone(), chance]);
        assert!(s.item_permille[0] < RAREST_WITH_MORE_PERMILLE, "{:?}", s.item_permille);
        assert_eq!(s.rarest_with_more, 0);
        let s = long_assessed(&[vec![true, false, true, true, false, false, false, false], vec![false; 8]]);
        assert!(s.item_permille[0] >= RAREST_WITH_MORE_PERMILLE, "{:?}", s.item_permille);
        assert_eq!(s.rarest_with_more, 1);
    }

    #[test]
    fn vector_only_items_without_key_terms_are_neighbours() {
        let k = keys(&["helix"]);
        let items = [item("spiral shells", &["vector"], &[]), item("a helix", &["lexical", "vector"], &[])];
        let matches = vec![vec![false], vec![true]];
        let s = assess(&parse_query("helix"), &words(&["helix"]), k, &matches, &items, &[], &Authorship::default());
        assert_eq!(s.neighbour, [true, false]);
        assert_eq!(s.supporting, [false, true]);
    }

    #[test]
    fn a_quoted_phrase_is_found_word_for_word_only() {
        let k = keys(&["tangled", "bank"]);
        let items =
            [item("an entangled bank, clothed with plants", &["exact"], &[]), item("a tangled bank", &["exact"], &[])];
        let s = assess(
            &parse_query("\"tangled bank\""),
            &words(&["tangled", "bank"]),
            k,
            &[vec![false, true], vec![true, true]],
            &items,
            &[],
            &Authorship::default(),
        );
        assert_eq!((s.phrases, s.phrases_verbatim), (1, 1));
        let s = assess(
            &parse_query("\"tangled bank\""),
            &words(&["tangled", "bank"]),
            keys(&["tangled", "bank"]),
            &[vec![false, true]],
            &items[..1],
            &[],
            &Authorship::default(),
        );
        assert_eq!(s.phrases_verbatim, 0);
    }

    #[test]
    fn a_name_holds_only_where_its_words_stand_together() {
        let w = words(&["second", "world", "war", "helix"]);
        assert_eq!(names("What about the Second World War?", &w), [vec![0, 1, 2]]);
        assert!(names("Second World", &w).is_empty(), "a sentence's first word is capitalised anyway");
        let cabg = words(&["coronary", "artery", "bypass", "graft", "cabg"]);
        assert_eq!(names("after Coronary Artery Bypass Graft (CABG)", &cabg), [vec![0, 1, 2, 3]]);
        assert!(names("second world war", &w).is_empty(), "lower case is not a name");
        assert!(names("Darwin's Helix", &words(&["darwin", "helix"])).is_empty(), "a possessive ends a name");
        let k = keys(&["second", "world", "war"]);
        let items = [
            item("the second war of the world", &["lexical", "vector"], &[]),
            item("before the Second World War began", &["lexical", "vector"], &[]),
        ];
        let all = vec![true, true, true];
        let s = assess(
            &parse_query("the Second World War"),
            &words(&["second", "world", "war"]),
            k.clone(),
            &[all.clone(), all.clone()],
            &items,
            &[],
            &Authorship::default(),
        );
        assert_eq!(s.item_permille, [0, 1000]);
        assert_eq!(s.supporting, [false, true]);
        // Asked in lower case, the words are words: the first item holds them too.
        let s = assess(
            &parse_query("second world war"),
            &words(&["second", "world", "war"]),
            k,
            &[all.clone(), all],
            &items,
            &[],
            &Authorship::default(),
        );
        assert_eq!(s.item_permille, [1000, 1000]);
    }

    #[test]
    fn an_entity_question_is_covered_by_linked_items_and_corroborated_by_more() {
        let items = [item("x", &["entity"], &["concept.eye"]), item("y", &["entity"], &["concept.eye"])];
        let s = assess(
            &parse_query("the eye"),
            &words(&["eye"]),
            keys(&["eye"]),
            &[vec![false], vec![false]],
            &items,
            &["concept.eye".into()],
            &Authorship::default(),
        );
        assert!(s.entities_all_covered);
        assert_eq!(s.supporting, [true, true]);
        assert_eq!(s.corroboration, 1);
    }

    #[test]
    fn items_about_a_namesake_count_for_nothing_and_the_author_covers_his_own_text() {
        use crate::concepts::Linker;
        use crate::concepts::tests::corpus;
        let entities = corpus();
        // Every test item is in document "d", written by Charles Darwin.
        let people = Authorship::new(&entities, &Linker::new(&entities), &[("d".into(), "Charles Darwin".into())]);
        let asked = ["person.charles".to_owned()];
        let k = keys(&["eye"]);
        let items = [
            item("my grandfather Erasmus Darwin on the eye", &["lexical"], &["person.erasmus"]),
            item("the eye, an organ", &["lexical"], &[]),
        ];
        let s = assess(
            &parse_query("Darwin eye"),
            &words(&["eye"]),
            k.clone(),
            &[vec![true], vec![true]],
            &items,
            &asked,
            &people,
        );
        assert_eq!(s.namesake, [true, false]);
        assert_eq!(s.supporting, [false, true]);
        assert_eq!(s.item_permille, [0, 1000]);
        assert!(!s.entities_all_covered, "the author is whose text, not what is asked about");
        assert!(!s.covers(0, &items[0], "person.charles", &people));
        assert!(s.covers(1, &items[1], "person.charles", &people), "his own text covers him");
        // Asked about Erasmus himself, the same item is evidence.
        let erasmus = ["person.erasmus".to_owned()];
        let s = assess(
            &parse_query("Erasmus eye"),
            &words(&["eye"]),
            k,
            &[vec![true], vec![true]],
            &items,
            &erasmus,
            &people,
        );
        assert_eq!(s.namesake, [false, false]);
        assert!(s.entities_all_covered);
    }
}
