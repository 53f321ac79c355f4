//! Entity linking: finds the entities a passage mentions by matching their
//! aliases as whole words, case-insensitively, in the passage's language
//! (aliases tagged `*` match in every language). Matches are leftmost-longest
//! and never overlap, so "natural selection" is not also counted as "selection".

use std::collections::{BTreeMap, HashMap};

use crate::corpus::Entity;
use crate::text::possessive_base;
pub(crate) use crate::text::{Mention, normalized_words};

struct Pattern {
    tokens: Vec<String>,
    alias: String,
    entities: Vec<String>,
}

pub(crate) struct Linker {
    /// language → first token → patterns, longest first. Ordered by
    /// language: a query of unknown language is matched against every table,
    /// and of equal matches in several the last language's wins, the same in
    /// every process (hash order is not).
    by_language: BTreeMap<String, HashMap<String, Vec<Pattern>>>,
}

impl Linker {
    pub(crate) fn new(entities: &[Entity]) -> Self {
        // (language, normalised tokens) → (alias text, owning entities)
        let mut grouped: BTreeMap<(String, Vec<String>), (String, Vec<String>)> = BTreeMap::new();
        for entity in entities {
            for alias in &entity.aliases {
                let tokens = normalized_words(&alias.name);
                if tokens.is_empty() {
                    continue;
                }
                let slot =
                    grouped.entry((alias.language.clone(), tokens)).or_insert_with(|| (alias.name.clone(), Vec::new()));
                if !slot.1.contains(&entity.id) {
                    slot.1.push(entity.id.clone());
                }
            }
        }
        let mut by_language: BTreeMap<String, HashMap<String, Vec<Pattern>>> = BTreeMap::new();
        for ((language, tokens), (alias, mut owners)) in grouped {
            owners.sort();
            let first = tokens[0].clone();
            by_language.entry(language).or_default().entry(first).or_default().push(Pattern {
                tokens,
                alias,
                entities: owners,
            });
        }
        for table in by_language.values_mut() {
            for patterns in table.values_mut() {
                patterns.sort_by(|a, b| b.tokens.len().cmp(&a.tokens.len()).then(a.tokens.cmp(&b.tokens)));
            }
        }
        Self { by_language }
    }

    /// Mentions in `text` of `language`, sorted by entity id.
    pub(crate) fn link(&self, text: &str, language: &str) -> Vec<Mention> {
        let tables: Vec<&HashMap<String, Vec<Pattern>>> =
            [language, "*"].iter().filter_map(|l| self.by_language.get(*l)).collect();
        Self::link_with(&tables, text)
    }

    /// Mentions in `text` whatever its language (for queries, whose language is unknown).
    pub(crate) fn link_any_language(&self, text: &str) -> Vec<Mention> {
        let tables: Vec<&HashMap<String, Vec<Pattern>>> = self.by_language.values().collect();
        Self::link_with(&tables, text)
    }

    fn link_with(tables: &[&HashMap<String, Vec<Pattern>>], text: &str) -> Vec<Mention> {
        if tables.is_empty() {
            return Vec::new();
        }
        let words = normalized_words(text);
        let mut found: BTreeMap<&str, Mention> = BTreeMap::new();
        let mut i = 0;
        while i < words.len() {
            // A possessive mentions its name ("Darwin's view" mentions Darwin).
            let base = possessive_base(&words[i]);
            let best = tables
                .iter()
                .flat_map(|t| std::iter::once(words[i].as_str()).chain(base).filter_map(|w| t.get(w)))
                .flat_map(|patterns| patterns.iter())
                .filter(|p| matches_at(&words[i..], &p.tokens))
                .max_by_key(|p| p.tokens.len());
            match best {
                Some(pattern) => {
                    let ambiguous = pattern.entities.len() > 1;
                    for entity in &pattern.entities {
                        found
                            .entry(entity)
                            .and_modify(|m| {
                                m.count += 1;
                                m.ambiguous &= ambiguous;
                            })
                            .or_insert_with(|| Mention {
                                entity: entity.clone(),
                                alias: pattern.alias.clone(),
                                count: 1,
                                ambiguous,
                            });
                    }
                    i += pattern.tokens.len();
                }
                None => i += 1,
            }
        }
        found.into_values().collect()
    }
}

/// Whether `words` starts with `tokens`, the last one also in its possessive form.
fn matches_at(words: &[String], tokens: &[String]) -> bool {
    words.len() >= tokens.len()
        && tokens.iter().zip(words).enumerate().all(|(j, (token, word))| {
            word == token || (j + 1 == tokens.len() && possessive_base(word).is_some_and(|base| base == token.as_str()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Alias;
    use std::collections::BTreeMap;

    fn entity(id: &str, aliases: &[(&str, &str)]) -> Entity {
        Entity {
            id: id.into(),
            name: id.into(),
            kind: "concept".into(),
            aliases: aliases
                .iter()
                .map(|(l, n)| Alias { name: (*n).into(), language: (*l).into(), review_status: "draft".into() })
                .collect(),
            period: None,
            status: None,
            review_status: "draft".into(),
            ambiguous: false,
            senses: vec![],
            definition: None,
            relations: vec![],
            extra: BTreeMap::new(),
        }
    }

    #[test]
    fn longest_match_wins_and_language_matters() {
        let linker = Linker::new(&[
            entity("c.ns", &[("en", "natural selection"), ("de", "natürliche Züchtung")]),
            entity("c.sel", &[("en", "selection")]),
        ]);
        let m = linker.link("Natural Selection acts; selection by man too.", "en");
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].entity.as_str(), m[0].count), ("c.ns", 1));
        assert_eq!((m[1].entity.as_str(), m[1].count), ("c.sel", 1));
        assert!(linker.link("natural selection", "de").is_empty());
        assert_eq!(linker.link("Die natürliche Züchtung wirkt.", "de")[0].entity, "c.ns");
    }

    #[test]
    fn whole_words_only_and_apostrophes_fold() {
        let linker =
            Linker::new(&[entity("c.evo", &[("en", "evolution")]), entity("c.kampf", &[("de", "Kampf um’s Daseyn")])]);
        assert!(linker.link("The revolution began.", "en").is_empty());
        assert_eq!(linker.link("der Kampf um's Daseyn", "de").len(), 1);
    }

    #[test]
    fn a_possessive_mentions_its_name() {
        let linker = Linker::new(&[
            entity("p.charles", &[("*", "Darwin")]),
            entity("p.erasmus", &[("*", "Erasmus Darwin")]),
            entity("c.obj", &[("en", "Mivart's objections")]),
        ]);
        assert_eq!(linker.link("Darwin's view", "en")[0].entity, "p.charles");
        assert_eq!(linker.link("Darwin’s view", "en")[0].entity, "p.charles");
        assert_eq!(linker.link("Erasmus Darwin's Zoonomia", "en")[0].entity, "p.erasmus");
        assert_eq!(linker.link("Mivart's objections", "en")[0].entity, "c.obj");
        assert!(linker.link("Darwinian", "en").is_empty());
    }

    #[test]
    fn a_query_of_unknown_language_links_the_same_alias_in_every_linker() {
        // The same words as an alias in two languages: which one a query of no
        // known language matches must not depend on a hash map's order.
        let entities = [entity("c.species", &[("de", "Species"), ("en", "species"), ("fr", "espèce")])];
        let aliases: Vec<String> =
            (0..32).map(|_| Linker::new(&entities).link_any_language("related species?")[0].alias.clone()).collect();
        assert!(aliases.iter().all(|a| a == "species"), "{aliases:?}");
    }

    #[test]
    fn shared_alias_links_every_owner_as_ambiguous() {
        let linker = Linker::new(&[entity("c.a", &[("en", "variety")]), entity("c.b", &[("en", "variety")])]);
        let m = linker.link("a new variety", "en");
        assert_eq!(m.len(), 2);
        assert!(m.iter().all(|x| x.ambiguous));
    }
}
